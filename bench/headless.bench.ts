/**
 * The headless binary: cold start to a healthy /healthz, size, and resident memory when idle, each against `node`
 * running the very same bundle (build/out/headless/hearth.cjs, the launcher of hearth-server.cjs, with the code
 * cache, the addon and UI beside it) in the same run.
 *
 *   start    spawn `serve --port 0 --data <empty folder>` → first 200 from /healthz; median of BENCH_HEADLESS_RUNS
 *            runs (7), each with a new data folder. The binary's first start (empty cache folder, so it unpacks the
 *            SQLite addon and the UI) is reported apart.
 *   size     the binary (Node 24 stripped + blob), the tarball, and the stripped Node it started from
 *   memory   VmRSS of the server process after BENCH_HEADLESS_IDLE_MS (2000) idle after its first /healthz
 *
 * Builds the binary when it is missing (`npm run build:headless`).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { envInt, fmtMs, heading, headlessBuild, printTable, ratio, type ServeStart, summarize, tempFolder, timeServeStart } from './lib.ts';

const { binary: BINARY, bundle: BUNDLE } = headlessBuild();
const RUNS = envInt('BENCH_HEADLESS_RUNS', 7);
const IDLE_MS = envInt('BENCH_HEADLESS_IDLE_MS', 2000);

const work = tempFolder('hearth-bench-headless-');
process.on('exit', () => work.remove());

/** Starts a server on a new data folder, waits for its first healthy /healthz, optionally samples its memory, then stops it. */
function startOnce(cmd: string, args: string[], env: NodeJS.ProcessEnv, sampleMemory: boolean): Promise<ServeStart> {
  const data = fs.mkdtempSync(path.join(work.dir, 'data-'));
  return timeServeStart(cmd, args, { data, env, idleMs: sampleMemory ? IDLE_MS : undefined });
}

const base = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work.dir, LANG: 'C.UTF-8' };
const binEnv = { ...base, HEARTH_CACHE_DIR: path.join(work.dir, 'cache') };
const nodeEnv = { ...base };

heading(`headless start: spawn → first 200 from /healthz (${RUNS} runs each, alternating)`);
const first = await startOnce(BINARY, [], binEnv, false); // empty cache folder: unpacks the addon and the UI
const bin: ServeStart[] = [];
const node: ServeStart[] = [];
await startOnce(process.execPath, [BUNDLE], nodeEnv, false); // warm the page cache for the baseline too
for (let i = 0; i < RUNS; i++) {
  bin.push(await startOnce(BINARY, [], binEnv, i === 0));
  node.push(await startOnce(process.execPath, [BUNDLE], nodeEnv, i === 0));
}
const b = summarize(bin.map((s) => s.ms));
const n = summarize(node.map((s) => s.ms));
printTable([
  ['', 'median', 'min', 'max'],
  ['binary (hearth-linux-x64)', fmtMs(b.p50), fmtMs(b.min), fmtMs(b.max)],
  ['node hearth.cjs (baseline)', fmtMs(n.p50), fmtMs(n.min), fmtMs(n.max)],
  ['binary, first start (empty cache)', fmtMs(first.ms), '', ''],
]);
console.log(`  binary / node: ${ratio(b.p50, n.p50)}`);

heading('size');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const tarball = fs.readdirSync(path.dirname(BINARY)).find((f) => f.endsWith('-linux-x64.tar.gz'));
const stripped = path.join(work.dir, 'node-stripped');
fs.copyFileSync(process.execPath, stripped);
const canStrip = spawnSync('strip', [stripped], { stdio: 'ignore' }).status === 0;
const bundleDir = path.dirname(BUNDLE);
const bundleBytes = fs.statSync(path.join(bundleDir, 'hearth-server.cjs')).size;
const cacheFile = path.join(bundleDir, 'hearth-server.cache');
const cacheBytes = fs.existsSync(cacheFile) ? fs.statSync(cacheFile).size : 0;
const addonBytes = fs.statSync(path.join(bundleDir, 'better_sqlite3.node')).size;
printTable([
  ['', 'size'],
  ['binary', mb(fs.statSync(BINARY).size)],
  ...(tarball ? [['tarball (gzip)', mb(fs.statSync(path.join(path.dirname(BINARY), tarball)).size)]] : []),
  [canStrip ? 'node 24, stripped (baseline)' : 'node 24 (baseline, not stripped)', mb(fs.statSync(stripped).size)],
  ['server bundle (hearth-server.cjs)', mb(bundleBytes)],
  ['its V8 code cache (hearth-server.cache)', mb(cacheBytes)],
  ['SQLite addon', mb(addonBytes)],
]);
console.log(`  binary / stripped node: ${ratio(fs.statSync(BINARY).size, fs.statSync(stripped).size)}`);

heading(`resident memory, idle ${IDLE_MS} ms after the first /healthz`);
const kb = (v: number | null) => (v === null || !Number.isFinite(v) ? 'n/a' : `${(v / 1024).toFixed(1)} MB`);
printTable([
  ['', 'VmRSS'],
  ['binary', kb(bin[0]!.rssKb)],
  ['node hearth.cjs (baseline)', kb(node[0]!.rssKb)],
]);
console.log(`  binary / node: ${ratio(bin[0]!.rssKb ?? NaN, node[0]!.rssKb ?? NaN)}`);
