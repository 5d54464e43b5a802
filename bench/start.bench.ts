/**
 * How fast `hearth` starts (issue 19): every goal of the issue as a ratio to a bare `node -e 0` measured in the same
 * run, for the headless binary (build/out/hearth-linux-x64) and from source (`node bin/hearth.mjs`).
 *
 *   cli      spawn → exit of `--version`, `--help`, `ns --help` and `admin --help`
 *            (goal: binary ≤ 1.5×, source ≤ 2× `node -e 0`)
 *   request  spawn → exit of `ns list --json` against a running server (the binary, on its own data folder with three
 *            namespaces), less "the request", two ways (goal ≤ 2× `node -e 0` for each):
 *            - cold: what a bare `node -e` sending the same GET with node:http costs beyond `node -e 0` (loading
 *              node:http is part of any new process's request);
 *            - warm (stricter): the same GET sent from this process, whose node:http is loaded, on a new connection
 *   serve    spawn of `serve --port 0` → first 200 from /healthz on an existing data folder (goal: binary ≤ 3×) and
 *            on a new, empty one, keys generated included (goal: binary ≤ 6×); from source reported beside them
 *            reference (no goal): bench/start-floor-server.ts, the smallest server of Hearth's stack (Koa, @koa/router,
 *            pino, SQLite, prom-client) and nothing of Hearth, bundled and launched exactly as `node hearth.cjs` is (the
 *            build's esbuild settings, launch.ts, a code cache made after its first /healthz): what the stack and Node
 *            cost before Hearth's own code
 *   memory   VmRSS BENCH_START_IDLE_MS (2000) after the first healthy /healthz on the existing folder: the binary
 *            against `node build/out/headless/hearth.cjs` (goal ≤ 1.1×). Both executables (and the bundle) are
 *            first dropped from the page cache (`dd iflag=nocache count=0`), so both are read back as after a reboot:
 *            a file just written (the build, `tar -x` at installation) sits in the page cache in large folios, and
 *            every page fault then maps a whole folio, which showed as 17 MB more VmRSS (clean pages shared with the
 *            page cache, not the process's own memory) for a binary built seconds before.
 *
 * One warm-up round (page cache, Node's compile cache of the source, the binary's unpacked addon and UI), then
 * BENCH_START_RUNS (7) rounds; each round runs `node -e 0` and then every case once, in turn. Medians with min–max.
 * Builds the binary when it is missing (`npm run build:headless`); after a change of the server, rebuild it first.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleServer } from '../build/lib.ts';
import { CODE_CACHE_ASSET, CODE_CACHE_OUT_ENV, SERVER_BUNDLE_FILE } from '../server/entry/sea-assets.ts';
import {
  envInt,
  fmtMs,
  heading,
  headlessBuild,
  median,
  now,
  printTable,
  request,
  type ServeStart,
  spawnServe,
  summarize,
  tempFolder,
  timeServeStart,
} from './lib.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { binary: BINARY, bundle: BUNDLE } = headlessBuild();
const SOURCE = path.join(repo, 'bin', 'hearth.mjs');
const RUNS = envInt('BENCH_START_RUNS', 7);
const IDLE_MS = envInt('BENCH_START_IDLE_MS', 2000);

const work = tempFolder('hearth-bench-start-');
process.on('exit', () => work.remove());
for (const d of ['home', 'config']) fs.mkdirSync(path.join(work.dir, d));
const env: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: path.join(work.dir, 'home'),
  LANG: 'C.UTF-8',
  HEARTH_CACHE_DIR: path.join(work.dir, 'cache'),
  HEARTH_CONFIG_DIR: path.join(work.dir, 'config'),
};

/** A way to run `hearth`: the binary, or Node with a script. */
interface Runner {
  label: string;
  cmd: string;
  args: string[];
}
const binary: Runner = { label: 'binary', cmd: BINARY, args: [] };
const source: Runner = { label: 'source', cmd: process.execPath, args: [SOURCE] };
const bundle: Runner = { label: 'node hearth.cjs', cmd: process.execPath, args: [BUNDLE] };

/**
 * The reference server (see the header) as `node hearth.cjs` is laid out: Hearth's launcher as hearth.cjs, the server
 * bundle beside it, and the code cache a first start to /healthz writes on SIGUSR2 (as build/headless.ts makes
 * Hearth's). Its folder is under build/out, so that the bundle finds better-sqlite3 (left outside it) in node_modules.
 */
/** The reference server's data folder: its first start (the code-cache run) makes it, the rounds start on it. */
const floorData = path.join(work.dir, 'data-floor');
fs.mkdirSync(floorData);
async function floorRunner(): Promise<Runner> {
  const dir = path.join(repo, 'build', 'out', 'bench-floor');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const launcher = path.join(dir, 'hearth.cjs');
  await bundleServer({ entry: 'server/entry/launch.ts', outfile: launcher });
  await bundleServer({ entry: 'bench/start-floor-server.ts', outfile: path.join(dir, SERVER_BUNDLE_FILE), external: ['better-sqlite3'] });
  const cache = path.join(dir, CODE_CACHE_ASSET);
  const first = await spawnServe(process.execPath, [launcher], { data: floorData, env: { ...env, [CODE_CACHE_OUT_ENV]: cache } });
  first.child.kill('SIGUSR2');
  while (!fs.existsSync(cache) && first.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
  await first.stop();
  if (!fs.existsSync(cache)) throw new Error('the reference server wrote no code cache');
  return { label: 'reference', cmd: process.execPath, args: [launcher] };
}
const floor = await floorRunner();

/** Milliseconds from the spawn to the exit of a command that must succeed. */
function timeCommand(cmd: string, args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let ms = NaN;
    let err = '';
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('exit', () => (ms = now() - t0));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(ms) : reject(new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${code}: ${err}`))));
  });
}

const samples = new Map<string, number[]>();
const record = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms]);
const memory = new Map<string, number[]>();

const CLI_CASES = [['--version'], ['--help'], ['ns', '--help'], ['admin', '--help']];

// Both executables and the bundle as after a reboot (see the header): read back through page faults, not as written.
for (const file of [BINARY, process.execPath, BUNDLE]) {
  const dd = spawnSync('dd', [`if=${file}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' });
  if (dd.status !== 0) console.warn(`  (could not drop ${file} from the page cache: its VmRSS may read high)`);
}

// The server `ns list` talks to, on its own data folder.
const nsData = path.join(work.dir, 'data-ns');
const nsServer = await spawnServe(BINARY, [], { data: nsData, env });
const token = fs.readFileSync(path.join(nsData, 'initial-admin-token'), 'utf8').trim();
for (const name of ['sales', 'stock', 'staff']) {
  const r = await fetch(`${nsServer.url}/v1/namespaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (r.status !== 201) throw new Error(`creating namespace ${name}: ${r.status} ${await r.text()}`);
}
const nsList = ['ns', 'list', '--json', '--url', nsServer.url, '--token', token];
const freshAgent = new http.Agent({ keepAlive: false });
const bareGet = `require('node:http').get(${JSON.stringify(`${nsServer.url}/v1/namespaces?limit=500`)}, { headers: { authorization: ${JSON.stringify(`Bearer ${token}`)} } }, (r) => r.resume())`;

/** The request `ns list` sends, from this process on a new connection. */
async function timeRequest(): Promise<number> {
  const t0 = now();
  const r = await request(freshAgent, `${nsServer.url}/v1/namespaces?limit=500`, { headers: { authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`GET /v1/namespaces: ${r.status}`);
  return now() - t0;
}

// The existing data folder the serve cases start on (made by a first start of the binary).
const existing = path.join(work.dir, 'data-existing');
await timeServeStart(BINARY, [], { data: existing, env });
let fresh = 0;
const emptyFolder = () => path.join(work.dir, `data-empty-${++fresh}`);

async function round(warmUp: boolean): Promise<void> {
  const keep = (key: string, ms: number) => {
    if (!warmUp) record(key, ms);
  };
  keep('node -e 0', await timeCommand(process.execPath, ['-e', '0']));
  for (const args of CLI_CASES) {
    for (const r of [binary, source]) keep(`${r.label} ${args.join(' ')}`, await timeCommand(r.cmd, [...r.args, ...args]));
  }
  for (const r of [binary, source]) {
    keep(`${r.label} ns list`, await timeCommand(r.cmd, [...r.args, ...nsList]));
    keep(`${r.label} request`, await timeRequest());
  }
  keep('bare GET', await timeCommand(process.execPath, ['-e', bareGet]));
  keep('reference serve existing', (await timeServeStart(floor.cmd, floor.args, { data: floorData, env })).ms);
  for (const r of [binary, bundle, source]) {
    const idle = !warmUp && r !== source ? IDLE_MS : undefined;
    const s: ServeStart = await timeServeStart(r.cmd, r.args, { data: existing, env, idleMs: idle });
    keep(`${r.label} serve existing`, s.ms);
    if (s.rssKb !== null) memory.set(r.label, [...(memory.get(r.label) ?? []), s.rssKb]);
  }
  for (const r of [binary, source]) {
    const data = emptyFolder();
    keep(`${r.label} serve empty`, (await timeServeStart(r.cmd, r.args, { data, env })).ms);
    fs.rmSync(data, { recursive: true, force: true });
  }
}

console.log(`start of hearth: 1 warm-up round, then ${RUNS} rounds (node -e 0, then each case once, in turn)`);
await round(true);
for (let i = 0; i < RUNS; i++) {
  await round(false);
  process.stdout.write(`  round ${i + 1}/${RUNS} done\n`);
}
await nsServer.stop();

const base = median(samples.get('node -e 0')!);
const within = (x: number, goal: number) => (x <= goal ? `met (≤ ${goal}×)` : `MISSED (> ${goal}×)`);
const x = (v: number) => `${v.toFixed(2)}×`;
/** A table row: label, median, min–max, ratio to the baseline, goal verdict (empty when the figure has no goal). */
function row(label: string, key: string, goal: number | null, minus = 0): string[] {
  const s = summarize(samples.get(key)!);
  const r = (s.p50 - minus) / base;
  return [label, fmtMs(s.p50 - minus), `${fmtMs(s.min - minus)}–${fmtMs(s.max - minus)}`, x(r), goal === null ? '' : within(r, goal)];
}
const header = ['', 'median', 'min–max', '÷ node -e 0', 'goal'];

heading(`baseline: node -e 0`);
const b = summarize(samples.get('node -e 0')!);
console.log(`  median ${fmtMs(b.p50)} (${fmtMs(b.min)}–${fmtMs(b.max)}) over ${b.n} runs`);

heading('hearth --version, --help, <group> --help: spawn → exit');
printTable([
  header,
  ...CLI_CASES.flatMap((args) =>
    [binary, source].map((r) => row(`${r.label}: hearth ${args.join(' ')}`, `${r.label} ${args.join(' ')}`, r === binary ? 1.5 : 2)),
  ),
]);

heading('hearth ns list --json against a running server: spawn → exit, less the request');
const rows = [header, row('bare node -e: the same GET with node:http', 'bare GET', null)];
const cold = median(samples.get('bare GET')!) - base;
for (const r of [binary, source]) {
  const warm = median(samples.get(`${r.label} request`)!);
  rows.push(row(`${r.label}: hearth ns list`, `${r.label} ns list`, null));
  rows.push(row(`${r.label}: − the request, cold (${fmtMs(cold)})`, `${r.label} ns list`, 2, cold));
  rows.push(row(`${r.label}: − the request, warm (${fmtMs(warm)})`, `${r.label} ns list`, 2, warm));
}
printTable(rows);
console.log('  cold: bare node -e GET − node -e 0; warm: the GET from this process on a new connection; medians of the same rounds');

heading('hearth serve: spawn → first 200 from /healthz');
printTable([
  header,
  row('binary, existing data folder', 'binary serve existing', 3),
  row('binary, empty data folder', 'binary serve empty', 6),
  row('node hearth.cjs, existing data folder', 'node hearth.cjs serve existing', null),
  row('source, existing data folder', 'source serve existing', null),
  row('source, empty data folder', 'source serve empty', null),
  row("reference: Hearth's stack alone (start-floor-server.ts)", 'reference serve existing', null),
]);
console.log(`  reference: Koa, @koa/router, pino, SQLite and prom-client, launched as node hearth.cjs is; see the header`);

heading(`resident memory, idle ${IDLE_MS} ms after the first /healthz (existing data folder), median of ${RUNS}`);
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const memBin = median(memory.get('binary')!);
const memNode = median(memory.get('node hearth.cjs')!);
printTable([
  ['', 'VmRSS', 'min–max'],
  ['binary', mb(memBin), `${mb(Math.min(...memory.get('binary')!))}–${mb(Math.max(...memory.get('binary')!))}`],
  ['node hearth.cjs (baseline)', mb(memNode), `${mb(Math.min(...memory.get('node hearth.cjs')!))}–${mb(Math.max(...memory.get('node hearth.cjs')!))}`],
]);
console.log(`  binary ÷ node hearth.cjs: ${x(memBin / memNode)}, goal ${within(memBin / memNode, 1.1)}`);
