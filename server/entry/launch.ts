/**
 * The first code of `node hearth.cjs` and of the headless binary (build/headless.ts bundles it as `hearth.cjs` and
 * makes it the binary's main script): it compiles the server's bundle (server/entry/headless.ts, built as
 * `hearth-server.cjs` beside it; the binary carries it as an asset and writes it to its private cache folder,
 * sea-assets.ts) with V8's code cache, then runs it as a CommonJS module, exactly as Node would have run it. A command
 * that only talks to a running server, and `--help`, run the CLI's own bundle instead (`hearth-cli.cjs`, the same
 * entry without the commands that need the server: server/cli/command-line.ts), read in place in the binary.
 *
 * Three code caches are made at build time (build/headless.ts runs `node hearth.cjs serve` to its first healthy
 * /healthz, then `node hearth.cjs --help` and `node hearth.cjs tokens --help`, each with CODE_CACHE_OUT_ENV set; this
 * file writes the cache), and a process takes the one of its kind and bundle. The server's holds the bytecode of
 * everything a start compiled, not only the top level that SEA's own `useCodeCache` or Node's compile cache would
 * keep: the binary then skips most of compiling and lazy compiling during start. V8 refuses a cache made by another
 * V8 or with other flags (`cachedDataRejected`); the bundle then compiles from source as before, so `node hearth.cjs`
 * works under any Node 24. Nothing is written at run time.
 *
 * Before any of that, a command line whose whole answer is static (`--version`, `--help`, `<command> --help`, `help
 * <command>`, no command) is answered from a table recorded from the bundle at build time (CLI_ANSWERS_ASSET): the
 * same bytes on the same streams and the same exit status, without reading or compiling the bundle. Only when the
 * answer cannot differ from the recording: neither stdout nor stderr is a terminal (commander then wraps at 80
 * columns, without colours) and no colour variable is set (NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE); from Node older
 * than 24 the bundle runs and refuses as before.
 *
 * CommonJS once bundled: no top-level await here; nothing else of the server is imported, so this stays small.
 */

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getRawAsset, isSea } from 'node:sea';
import vm from 'node:vm';
import { nodeVersionProblem } from '../../bin/node-check.mjs';
import { needsServerBundle } from '../cli/command-line.ts';
import { handoff, inherit } from '../core/config/environment.ts';
import { ROLE_FLAG } from '../core/runtime.ts';
import {
  BUNDLE_ASSET,
  buildCacheDir,
  CLI_ANSWERS_ASSET,
  CLI_BUNDLE_ASSET,
  CLI_CODE_CACHE_ASSET,
  type CliAnswer,
  CODE_CACHE_ASSET,
  CODE_CACHE_OUT_ENV,
  extractAsset,
  LOCAL_CODE_CACHE_ASSET,
  SERVER_BUNDLE_FILE,
} from './sea-assets.ts';

/**
 * Whether this process is a server (`serve`) or a helper: it takes the cache of the server's start. Any other command
 * takes the cache of its bundle's `--help` (a cache holding the whole start would cost a command more to read than it
 * saves).
 */
function serving(): boolean {
  return process.argv[2] === 'serve' || process.argv.some((a) => a.startsWith(ROLE_FLAG));
}

/** Answers the command line from the build's recorded table (see above); false when it is not there or may differ. */
function answerRecorded(sea: boolean): boolean {
  // Every recorded command line has at most two arguments (build/headless.ts `recordAnswers`).
  if (process.argv.length > 4 || handoff(CODE_CACHE_OUT_ENV) !== undefined || process.stdout.isTTY || process.stderr.isTTY) return false;
  if (Object.keys(inherit(['NO_COLOR', 'FORCE_COLOR', 'CLICOLOR_FORCE'])).length > 0) return false;
  if (!sea && nodeVersionProblem(process.versions.node)) return false;
  let table: Record<string, CliAnswer>;
  try {
    const text = sea ? Buffer.from(getRawAsset(CLI_ANSWERS_ASSET)).toString('utf8') : fs.readFileSync(path.join(__dirname, CLI_ANSWERS_ASSET), 'utf8');
    table = JSON.parse(text) as Record<string, CliAnswer>;
  } catch {
    return false;
  }
  const key = process.argv.slice(2).join('\0');
  const answer = Object.hasOwn(table, key) ? table[key] : undefined;
  if (!answer) return false;
  if (answer.stdout) process.stdout.write(answer.stdout);
  if (answer.stderr) process.stderr.write(answer.stderr);
  process.exitCode = answer.status;
  return true;
}

function launch(): void {
  const sea = isSea();
  const server = serving();
  if (!server && answerRecorded(sea)) return;
  // A command that only talks to a server (and `--help`) runs the CLI's own bundle; the others the server's.
  const cli = !server && !needsServerBundle(process.argv.slice(2));
  const bundleName = cli ? CLI_BUNDLE_ASSET : SERVER_BUNDLE_FILE;
  const bundleAsset = cli ? CLI_BUNDLE_ASSET : BUNDLE_ASSET;
  const cacheName = server ? CODE_CACHE_ASSET : cli ? CLI_CODE_CACHE_ASSET : LOCAL_CODE_CACHE_ASSET;
  // The binary's server reads its bundle from the cache folder; a CLI command reads it in place and unpacks nothing.
  const { file, cache } = !sea
    ? { file: path.join(__dirname, bundleName), cache: path.join(__dirname, cacheName) }
    : server
      ? seaFiles()
      : { file: null, cache: null };
  // In the binary `require` loads built-in modules only, as for SEA's own main script.
  const filename = sea ? process.execPath : file!;
  // The bundle is ASCII (esbuild escapes the rest; build/headless.ts checks): latin1 is one copy, straight from the
  // binary's pages for a command.
  const source = file ? fs.readFileSync(file, 'latin1') : Buffer.from(getRawAsset(bundleAsset)).toString('latin1');
  const out = handoff(CODE_CACHE_OUT_ENV);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData: out ? undefined : readCache(cache, cacheName),
  });
  if (out) {
    // Build time: a server's cache is written when the build signals that its first /healthz has answered (not the
    // shutdown's code too); a command's when it exits.
    let written = false;
    const write = () => {
      if (!written) fs.writeFileSync(out, script.createCachedData());
      written = true;
    };
    process.once('SIGUSR2', write);
    process.once('exit', write);
  }
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const mod = { exports: {}, filename, id: '.', loaded: false };
  const req = sea ? require : createRequire(filename);
  run.call(mod.exports, mod.exports, req, mod, filename, path.dirname(filename));
}

/**
 * The binary's bundle and the server's code cache as files of the private cache folder (written at the first start
 * of a build). Reading them from the binary itself would leave ~9 MB of its pages resident for the life of the
 * server. When the folder cannot be used, the assets are read in place (the server's own start then says what is
 * wrong with it).
 */
function seaFiles(): { file: string | null; cache: string | null } {
  try {
    const { dir } = buildCacheDir();
    const file = path.join(dir, SERVER_BUNDLE_FILE);
    const cache = path.join(dir, CODE_CACHE_ASSET);
    extractAsset(BUNDLE_ASSET, file, 0o600);
    extractAsset(CODE_CACHE_ASSET, cache, 0o600);
    return { file, cache };
  } catch {
    return { file: null, cache: null };
  }
}

/** The code cache made at build time (a file, or the binary's asset `name`), or none (a build without one). */
function readCache(file: string | null, name: string): Buffer | undefined {
  try {
    return file ? fs.readFileSync(file) : Buffer.from(getRawAsset(name));
  } catch {
    return undefined;
  }
}

launch();
