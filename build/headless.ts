/**
 * `npm run build:headless`: the headless `hearth` binary for Linux x64, a Node 24 single-executable application.
 *
 *   build/out/headless/        `node hearth.cjs serve`: the launcher (hearth.cjs, server/entry/launch.ts), the server's
 *                              bundle (hearth-server.cjs) and its V8 code caches (hearth-server.cache for serve,
 *                              hearth-local.cache for the other commands that need the server), the CLI's bundle for
 *                              the commands that only talk to a server (hearth-cli.cjs) and its code cache
 *                              (hearth-cli.cache), the recorded answers of `--version` and the help texts
 *                              (hearth-cli-answers.json), the helpers' own bundles (helpers/<role>.cjs), the addon and
 *                              the UI
 *   build/out/hearth-linux-x64 the binary: Node + the launcher as its main script + SEA assets (the two bundles and
 *                              their code caches, the helpers' bundles, SQLite's addon, the admin UI, a manifest)
 *   build/out/hearth-<version>-linux-x64.tar.gz   the binary (as `hearth`), hearth.service, INSTALL.md
 *
 * Steps: esbuild (the server's bundle, the CLI's, the launcher, the helpers) → one `node hearth.cjs serve` to a healthy
 * /healthz, then SIGUSR2: it writes the server's code cache (launch.ts), and `node hearth.cjs --help` and `node
 * hearth.cjs tokens --help`, whose exits write the CLI's and the local commands' → the recorded answers of the static
 * command lines (`--version`, `--help`, `<command> --help`; launch.ts answers them without loading the bundle) →
 * `node --experimental-sea-config` → copy this Node binary → strip it (before injecting: stripping afterwards would
 * remove the blob) → postject → smoke test (`--version`) → tarball.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'esbuild';
import { SERVER_BUNDLE_COMMANDS } from '../server/cli/command-line.ts';
import { TOP_COMMANDS } from '../server/cli/index.ts';
import {
  BUNDLE_ASSET,
  CLI_ANSWERS_ASSET,
  CLI_BUNDLE_ASSET,
  CLI_CODE_CACHE_ASSET,
  type CliAnswer,
  CODE_CACHE_ASSET,
  CODE_CACHE_OUT_ENV,
  LOCAL_CODE_CACHE_ASSET,
  MANIFEST_ASSET,
  SERVER_BUNDLE_FILE,
  type SeaManifest,
} from '../server/entry/sea-assets.ts';
import { bundleHelpers, bundleServer, copyDir, fail, listFiles, log, OUT, ROOT, require, requireUi, UI_DIST, VERSION } from './lib.ts';

const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const BUNDLE_DIR = path.join(OUT, 'headless');
const BINARY = path.join(OUT, 'hearth-linux-x64');
const TARBALL = path.join(OUT, `hearth-${VERSION}-linux-x64.tar.gz`);

const t0 = Date.now();
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) fail(`the binary embeds the Node.js that builds it: run this with Node.js 24 (found ${process.version})`);
if (process.platform !== 'linux' || process.arch !== 'x64') fail(`the headless binary is built on Linux x64 (this is ${process.platform}-${process.arch})`);
requireUi();

// 1. The bundle, with SQLite's addon and the UI beside it.
fs.rmSync(BUNDLE_DIR, { recursive: true, force: true });
fs.mkdirSync(BUNDLE_DIR, { recursive: true });
const bundle = path.join(BUNDLE_DIR, SERVER_BUNDLE_FILE);
await bundleServer({ entry: 'server/entry/headless.ts', outfile: bundle });
requireAscii(bundle);
const cliBundle = path.join(BUNDLE_DIR, CLI_BUNDLE_ASSET);
await bundleCli(cliBundle);
const launcher = path.join(BUNDLE_DIR, 'hearth.cjs');
await bundleServer({ entry: 'server/entry/launch.ts', outfile: launcher });
const helpers = await bundleHelpers({ dir: BUNDLE_DIR });
const addonSource = sqliteAddon();
const addon = path.join(BUNDLE_DIR, 'better_sqlite3.node');
fs.copyFileSync(addonSource, addon);
copyDir(UI_DIST, path.join(BUNDLE_DIR, 'ui'));
const codeCache = path.join(BUNDLE_DIR, CODE_CACHE_ASSET);
await makeCodeCache(codeCache);
const cliCodeCache = path.join(BUNDLE_DIR, CLI_CODE_CACHE_ASSET);
makeHelpCodeCache(cliCodeCache, ['--help']);
const localCodeCache = path.join(BUNDLE_DIR, LOCAL_CODE_CACHE_ASSET);
makeHelpCodeCache(localCodeCache, ['tokens', '--help']);
const cliAnswers = path.join(BUNDLE_DIR, CLI_ANSWERS_ASSET);
recordAnswers(cliAnswers);
log(`bundle ${rel(bundle)} (${mb(fs.statSync(bundle).size)}, code cache ${mb(fs.statSync(codeCache).size)}), addon from ${rel(addonSource)}`);
log(`CLI bundle ${rel(cliBundle)} (${mb(fs.statSync(cliBundle).size)}, code cache ${mb(fs.statSync(cliCodeCache).size)})`);

// 2. The SEA blob: the bundle as the main script and as an asset, the addon, the UI files, the manifest.
const uiFiles = listFiles(path.join(BUNDLE_DIR, 'ui'));
const assets: Record<string, string> = {
  [BUNDLE_ASSET]: bundle,
  [CODE_CACHE_ASSET]: codeCache,
  [LOCAL_CODE_CACHE_ASSET]: localCodeCache,
  [CLI_BUNDLE_ASSET]: cliBundle,
  [CLI_CODE_CACHE_ASSET]: cliCodeCache,
  [CLI_ANSWERS_ASSET]: cliAnswers,
  'better_sqlite3.node': addon,
};
for (const f of uiFiles) assets[`ui/${f}`] = path.join(BUNDLE_DIR, 'ui', f);
for (const file of Object.values(helpers)) assets[path.relative(BUNDLE_DIR, file).split(path.sep).join('/')] = file;
const hash = crypto.createHash('sha256');
for (const key of Object.keys(assets).sort()) hash.update(key).update('\0').update(fs.readFileSync(assets[key]!));
const manifest: SeaManifest = { id: `${VERSION}-${hash.digest('hex').slice(0, 12)}`, addon: 'better_sqlite3.node', ui: uiFiles.map((f) => `ui/${f}`) };
const manifestFile = path.join(OUT, 'sea-manifest.json');
fs.writeFileSync(manifestFile, JSON.stringify(manifest));
assets[MANIFEST_ASSET] = manifestFile;
const blob = path.join(OUT, 'sea-prep.blob');
const seaConfig = path.join(OUT, 'sea-config.json');
fs.writeFileSync(
  seaConfig,
  JSON.stringify({ main: launcher, output: blob, disableExperimentalSEAWarning: true, useCodeCache: true, useSnapshot: false, assets }, null, 2),
);
run(process.execPath, ['--experimental-sea-config', seaConfig]);

// 3. The binary: this Node, stripped, with the blob injected.
fs.rmSync(BINARY, { force: true });
fs.copyFileSync(process.execPath, BINARY);
fs.chmodSync(BINARY, 0o755);
const before = fs.statSync(BINARY).size;
const strip = spawnSync('strip', [BINARY], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
if (strip.error || strip.status !== 0) log(`strip is not available (${strip.error?.message ?? strip.stderr.trim()}): the binary keeps its symbols`);
else log(`stripped node: ${mb(before)} → ${mb(fs.statSync(BINARY).size)}`);
// postject's own command (its library prints harmless ELF warnings straight to stderr; a child keeps them quiet).
run(process.execPath, [require.resolve('postject/dist/cli.js'), BINARY, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SENTINEL_FUSE]);

// 4. Smoke test, then the tarball.
const version = spawnSync(BINARY, ['--version'], { encoding: 'utf8', env: { ...process.env, HEARTH_CACHE_DIR: path.join(OUT, '.cache') } });
if (version.status !== 0 || version.stdout.trim() !== VERSION) fail(`the binary does not run: ${version.stderr || version.stdout}`);
const stage = path.join(OUT, `hearth-${VERSION}-linux-x64`);
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(stage);
fs.copyFileSync(BINARY, path.join(stage, 'hearth'));
fs.copyFileSync(path.join(ROOT, 'resources', 'hearth.service'), path.join(stage, 'hearth.service'));
fs.copyFileSync(path.join(ROOT, 'build', 'INSTALL.md'), path.join(stage, 'INSTALL.md'));
run('tar', ['-czf', TARBALL, '-C', OUT, path.basename(stage)]);
fs.rmSync(stage, { recursive: true, force: true });
for (const f of [blob, seaConfig, manifestFile]) fs.rmSync(f, { force: true });

log(`${rel(BINARY)} ${mb(fs.statSync(BINARY).size)}, ${rel(TARBALL)} ${mb(fs.statSync(TARBALL).size)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

/**
 * V8's code cache of the server's bundle as a start leaves it: `node hearth.cjs serve` on an empty data folder until
 * /healthz answers, then SIGUSR2, on which launch.ts writes the cache, then SIGTERM. This Node is the one the binary
 * embeds, so the binary accepts the cache (and `node hearth.cjs` under this same Node).
 */
async function makeCodeCache(out: string): Promise<void> {
  fs.rmSync(out, { force: true });
  const data = fs.mkdtempSync(path.join(OUT, '.code-cache-'));
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: data, LANG: 'C.UTF-8', [CODE_CACHE_OUT_ENV]: out };
  const child = spawn(process.execPath, [launcher, 'serve', '--port', '0', '--data', path.join(data, 'data')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const t0 = Date.now();
    for (;;) {
      if (child.exitCode !== null || Date.now() - t0 > 60_000) fail(`the code-cache run did not become healthy: ${output}`);
      const url = /listening on (http:\/\/[\d.:]+)/.exec(output)?.[1];
      const healthy = url
        ? await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          )
        : false;
      if (healthy) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGUSR2');
    while (!fs.existsSync(out) && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  fs.rmSync(data, { recursive: true, force: true });
  if (code !== 0 || !fs.existsSync(out)) fail(`the code-cache run ended with ${code} and no cache: ${output}`);
}

/**
 * The CLI's own bundle: server/entry/headless.ts with the modules of the commands that need the server
 * (SERVER_BUNDLE_COMMANDS) and of the helpers (roles.ts) replaced by a module that throws (the launcher runs those
 * from the server's bundle). The build fails when what is left still reaches the server (a command that only talks to
 * a server started importing it): add that command to SERVER_BUNDLE_COMMANDS, or import less.
 */
async function bundleCli(outfile: string): Promise<void> {
  const commands = new RegExp(`^\\./commands/(${SERVER_BUNDLE_COMMANDS.join('|')})\\.ts$`);
  const leftOut = (importer: string, target: string) => path.relative(ROOT, importer).split(path.sep).join('/') === target;
  const serverOnly: Plugin = {
    name: 'server-only',
    setup(b) {
      b.onResolve({ filter: commands }, (a) => (leftOut(a.importer, 'server/cli/index.ts') ? { path: a.path, namespace: 'server-only' } : undefined));
      b.onResolve({ filter: /^\.\/roles\.ts$/ }, (a) =>
        leftOut(a.importer, 'server/entry/headless.ts') ? { path: a.path, namespace: 'server-only' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'server-only' }, (a) => ({
        contents: `throw new Error(${JSON.stringify(`internal error: ${a.path} runs from the server's bundle (hearth-server.cjs), not the CLI's`)});`,
        loader: 'js',
      }));
    },
  };
  const meta = await bundleServer({ entry: 'server/entry/headless.ts', outfile, plugins: [serverOnly] });
  const inputs = Object.keys(meta.inputs);
  const stubs = inputs.filter((i) => i.startsWith('server-only:'));
  if (stubs.length !== SERVER_BUNDLE_COMMANDS.length + 1)
    fail(`the CLI's bundle left out ${stubs.join(', ')}: expected every command of SERVER_BUNDLE_COMMANDS and roles.ts`);
  const server = inputs.filter((i) => /^server\/(boot\.ts|(db|identity|mail)\/index\.ts|core\/storage\/platform-db\.ts)$|node_modules\/koa\//.test(i));
  if (server.length)
    fail(`the CLI's bundle reaches the server (${server.join(', ')}): add the command that imports it to SERVER_BUNDLE_COMMANDS (server/cli/command-line.ts)`);
  requireAscii(outfile);
}

/** launch.ts reads a bundle as latin1, one byte a character: it must be ASCII (esbuild's default charset). */
function requireAscii(file: string): void {
  if (fs.readFileSync(file).some((b) => b > 0x7f)) fail(`${rel(file)} is not ASCII`);
}

/** V8's code cache of a command's bundle as `node hearth.cjs <args>` leaves it when it exits (launch.ts writes it). */
function makeHelpCodeCache(out: string, args: string[]): void {
  const r = spawnSync(process.execPath, [launcher, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [CODE_CACHE_OUT_ENV]: out },
    encoding: 'utf8',
  });
  if (r.status !== 0 || !fs.existsSync(out)) fail(`the code-cache run of \`hearth ${args.join(' ')}\` failed: ${r.stderr}`);
}

/**
 * The answers launch.ts gives without loading the bundle: what the bundle prints for `--version`, `--help`, no
 * command, and each top-level command's help, each run as a child with pipes for its output (no terminal, so 80
 * columns and no colours, the only case launch.ts answers from the table).
 */
function recordAnswers(out: string): void {
  const lines: string[][] = [[], ['--help'], ['-h'], ['help'], ['--version'], ['-v']];
  for (const { name } of TOP_COMMANDS) lines.push([name, '--help'], [name, '-h'], ['help', name]);
  const home = fs.mkdtempSync(path.join(OUT, '.cli-answers-'));
  const table: Record<string, CliAnswer> = {};
  for (const args of lines) {
    const r = spawnSync(process.execPath, [launcher, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' },
      encoding: 'utf8',
    });
    if (r.error || r.status === null) fail(`recording \`hearth ${args.join(' ')}\` failed: ${r.error?.message ?? r.signal}`);
    table[args.join('\0')] = { stdout: r.stdout, stderr: r.stderr, status: r.status };
  }
  fs.rmSync(home, { recursive: true, force: true });
  fs.writeFileSync(out, JSON.stringify(table));
}

function sqliteAddon(): string {
  const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const built = path.join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (fs.existsSync(built)) return built;
  const prebuilt = path.join(dir, 'prebuilds', `${process.platform}-${process.arch}.node`);
  if (fs.existsSync(prebuilt)) return prebuilt;
  fail(`no better-sqlite3 addon for ${process.platform}-${process.arch} in ${dir}`);
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.error || r.status !== 0) fail(`${cmd} ${args.join(' ')} failed: ${r.error?.message ?? r.stderr}`);
}

function rel(p: string): string {
  return path.relative(ROOT, p);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
