/**
 * CSV export of a large table: throughput and memory. Every figure is reported against a baseline measured in the
 * same run. (The import, its rate and the event loop's lag meanwhile: bench/csv-import.bench.ts.)
 *
 *   hearth     GET /v1/{ns}/tables/items/export?format=csv over HTTP, streamed and discarded by this process
 *              (bytes counted, nothing buffered): rows/s and MB/s (1 MB = 10^6 bytes)
 *   baseline   the sqlite3 command-line shell on the same file: `sqlite3 -csv -header <file> "SELECT * FROM items"`
 *              with its output sent to /dev/null
 *   memory     the Hearth process's VmRSS (/proc/<pid>/status) sampled every 20 ms during each export: peak minus
 *              the RSS just before the export (target: under 64 MiB); also VmHWM after resetting it (clear_refs),
 *              which catches peaks between samples
 *
 * The table (1,000,000 rows by default) is filled through the API in POSTs of 100,000 rows; then Hearth is
 * restarted on the same data so that the exports run in a fresh process (its heap not already grown by the
 * inserts). A first, untimed export from each side counts the rows (the first Hearth export is also the cold
 * memory figure); the first BENCH_CSV_CHECK_ROWS rows of both are parsed and compared record by record (the
 * bytes differ: sqlite3 quotes every field with a space, ends lines with LF, and writes REAL 502 as 502.0); then
 * BENCH_CSV_RUNS timed exports alternate between hearth and sqlite3 and medians are reported.
 *
 * Knobs (environment): BENCH_CSV_ROWS (1000000), BENCH_CSV_RUNS (3), BENCH_CSV_CHECK_ROWS (100000),
 * BENCH_CSV_SQLITE3 (sqlite3).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import {
  type BenchChild,
  benchRun,
  envInt,
  fmtMiB,
  fmtRate,
  fmtS,
  heading,
  keepAliveAgent,
  median,
  now,
  printTable,
  procMemory,
  RssSampler,
  ratio,
  resetPeakRss,
  sleep,
  startChild,
} from './lib.ts';
import { createItemsNamespace, type Hearth, items, namespaceFiles, postRows } from './rows-common.ts';

const ROWS = envInt('BENCH_CSV_ROWS', 1_000_000);
const RUNS = envInt('BENCH_CSV_RUNS', 3);
const SQLITE3 = process.env.BENCH_CSV_SQLITE3 || 'sqlite3';
/** Rows whose content is compared field by field between the two exports. */
const CHECK_ROWS = envInt('BENCH_CSV_CHECK_ROWS', 100_000);
const BATCH = 100_000;
const MEMORY_TARGET = 64 * 1024 * 1024;
const NS = 'csv';

const run = benchRun('hearth-bench-csv-');
const tmp = run.tmp;
const hearthDir = path.join(tmp.dir, 'hearth');
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const auth = { authorization: `Bearer ${token}` };
const children = run.children;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

async function startHearth(): Promise<BenchChild> {
  const c = await startChild('../test/helpers/server-child.ts', { dataDir: hearthDir, adminToken: token });
  children.add(c);
  return c;
}

interface Export {
  ms: number;
  bytes: number;
  /** Line feeds, only when asked to count them. */
  lines?: number;
}

/** Streams the export, counting bytes (and line feeds when `countLines`); nothing is kept. */
function hearthExport(url: string, countLines: boolean): Promise<Export> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let lines = 0;
    const t = now();
    const req = http.get(`${url}/v1/${NS}/tables/items/export?format=csv`, { headers: auth, agent: false }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`export → ${res.statusCode}`));
        return;
      }
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (countLines) for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => resolve({ ms: now() - t, bytes, ...(countLines ? { lines } : {}) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** Runs the sqlite3 shell on the file: output to /dev/null (timed), or counted through a pipe. Samples its RSS. */
function sqliteExport(file: string, count: boolean): Promise<Export & { peakRss: number }> {
  return new Promise((resolve, reject) => {
    const devnull = count ? null : fs.openSync('/dev/null', 'w');
    const t = now();
    const p = spawn(SQLITE3, ['-csv', '-header', file, 'SELECT * FROM items'], { stdio: ['ignore', devnull ?? 'pipe', 'pipe'] });
    if (devnull !== null) fs.closeSync(devnull);
    const rss = new RssSampler(p.pid!, 20);
    rss.start();
    let bytes = 0;
    let lines = 0;
    let stderr = '';
    p.stdout?.on('data', (c: Buffer) => {
      bytes += c.length;
      for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
    });
    p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('error', (err) => {
      rss.stop();
      reject(err);
    });
    p.on('close', (code) => {
      const ms = now() - t;
      const w = rss.stop();
      if (code !== 0) return reject(new Error(`${SQLITE3} exited with code ${code}: ${stderr.trim()}`));
      resolve({ ms, bytes, peakRss: w.peak, ...(count ? { lines } : {}) });
    });
  });
}

interface Memory {
  before: number;
  peakSampled: number;
  hwm: number;
  samples: number;
}

/** One Hearth export while its RSS is sampled every 20 ms (and its VmHWM reset just before). */
async function measuredExport(hearth: BenchChild, countLines: boolean): Promise<Export & { mem: Memory }> {
  await sleep(300); // let the previous export's garbage settle a little
  const before = procMemory(hearth.pid).rss;
  const canReset = resetPeakRss(hearth.pid);
  const sampler = new RssSampler(hearth.pid, 20);
  sampler.start();
  const e = await hearthExport(hearth.url, countLines);
  const w = sampler.stop();
  const hwm = canReset ? procMemory(hearth.pid).hwm : NaN;
  return { ...e, mem: { before, peakSampled: w.peak, hwm, samples: w.samples } };
}

/** The whole body of a small request (for the content check). */
function fetchText(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: auth, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url} → ${res.statusCode}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function sqliteText(file: string, sql: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = spawn(SQLITE3, ['-csv', '-header', file, sql], { stdio: ['ignore', 'pipe', 'inherit'] });
    const chunks: Buffer[] = [];
    p.stdout.on('data', (c: Buffer) => chunks.push(c));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${SQLITE3} exited with code ${code}`))));
  });
}

interface Comparison {
  records: number;
  identical: number;
  /** Records equal once sqlite3's `502.0` is read as Hearth's `502` (REAL values with no fraction). */
  dotZero: number;
  other: number;
  firstOther: string;
}

/**
 * Compares two CSV texts record by record after parsing (the shells differ in quoting and line ends: sqlite3 quotes
 * every field holding a space and ends lines with LF; Hearth quotes only when RFC 4180 requires it, with CRLF).
 */
function compareCsv(hearth: Buffer, sqlite: Buffer): Comparison {
  const a = parseCsv(hearth, { relax_column_count: false }) as string[][];
  const b = parseCsv(sqlite, { relax_column_count: false }) as string[][];
  const c: Comparison = { records: Math.max(a.length, b.length), identical: 0, dotZero: 0, other: 0, firstOther: '' };
  for (let i = 0; i < c.records; i++) {
    const x = a[i];
    const y = b[i];
    if (x && y && x.length === y.length && x.every((v, k) => v === y[k])) c.identical++;
    else if (x && y && x.length === y.length && x.every((v, k) => v === y[k] || `${v}.0` === y[k])) c.dotZero++;
    else {
      c.other++;
      c.firstOther ||= `record ${i}: hearth ${JSON.stringify(x)} vs sqlite3 ${JSON.stringify(y)}`;
    }
  }
  return c;
}

const mb = (bytes: number, ms: number) => `${((bytes / 1e6 / ms) * 1000).toFixed(1)} MB/s`;
const rowsPerSec = (ms: number) => (ROWS / ms) * 1000;

async function main(): Promise<number> {
  console.log(`csv benchmark: export ${ROWS} rows, ${RUNS} timed runs each (hearth vs ${SQLITE3} -csv)`);
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${tmp.dir}`,
  );
  const version = await new Promise<string>((resolve) => {
    const p = spawn(SQLITE3, ['-version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.on('error', () => resolve(''));
    p.on('close', () => resolve(out.trim().split(' ').slice(0, 2).join(' ')));
  });
  if (!version) throw new Error(`${SQLITE3} not found: install it (apt-get install -y sqlite3) or set BENCH_CSV_SQLITE3`);
  console.log(`sqlite3 shell: ${version}`);

  // 1. Fill through the API.
  heading(`fill: ${ROWS} rows through POST /v1/${NS}/tables/items/rows, ${BATCH} rows per request`);
  let hearth = await startHearth();
  const h: Hearth = { url: hearth.url, agent: keepAliveAgent(1), auth };
  await createItemsNamespace(h, NS);
  const fillStart = now();
  let postMs = 0;
  let bodyBytes = 0;
  for (let from = 0; from < ROWS; from += BATCH) {
    const body = JSON.stringify({ rows: items(from, Math.min(BATCH, ROWS - from)) });
    bodyBytes += body.length;
    const t = now();
    await postRows(h, NS, body);
    postMs += now() - t;
  }
  const fillMs = now() - fillStart;
  h.agent.destroy();
  console.log(
    `${elapsed()} ${fmtS(fillMs)} in all (${fmtS(postMs)} waiting for hearth, ${fmtRate((ROWS / postMs) * 1000, 'rows')}; ${(bodyBytes / 1e6).toFixed(0)} MB of JSON)`,
  );

  // 2. A fresh Hearth process on the same data for the exports.
  const closeStart = now();
  await hearth.stop();
  children.delete(hearth);
  hearth = await startHearth();
  const files = namespaceFiles(hearthDir);
  if (files.length !== 1) throw new Error(`expected one namespace database, found ${files.length}`);
  const file = files[0]!;
  const size = fs.statSync(file).size;
  console.log(
    `${elapsed()} hearth restarted in ${fmtS(now() - closeStart)} (pid ${hearth.pid}, RSS ${fmtMiB(procMemory(hearth.pid).rss)}); database ${(size / 1e6).toFixed(0)} MB: ${path.relative(tmp.dir, file)}`,
  );

  // 3. First export from each side (untimed: the cold run of a fresh Hearth process, rows counted), and the same
  //    records on a prefix of the table.
  heading('check: first export from each side (untimed), and the same records');
  const vH = await measuredExport(hearth, true);
  const vS = await sqliteExport(file, true);
  console.log(
    `  hearth:  ${vH.lines! - 1} rows, ${vH.bytes} bytes (${fmtS(vH.ms)}, cold process; RSS +${fmtMiB(Math.max(vH.mem.peakSampled, vH.mem.hwm) - vH.mem.before)})`,
  );
  console.log(`  sqlite3: ${vS.lines! - 1} rows, ${vS.bytes} bytes (${fmtS(vS.ms)})`);
  if (vH.lines! - 1 !== ROWS || vS.lines! - 1 !== ROWS) throw new Error(`expected ${ROWS} rows from both`);
  const prefix = Math.min(ROWS, CHECK_ROWS);
  const cmp = compareCsv(
    await fetchText(`${hearth.url}/v1/${NS}/tables/items/export?format=csv&limit=${prefix}`),
    await sqliteText(file, `SELECT * FROM items ORDER BY id LIMIT ${prefix}`),
  );
  const same = cmp.other === 0;
  console.log(
    `  first ${prefix} rows, parsed: ${cmp.records} records (header included), ${cmp.identical} identical, ${cmp.dotZero} differing only as 502 (hearth) vs 502.0 (sqlite3) for a REAL with no fraction, ${cmp.other} other differences${cmp.firstOther ? `; first: ${cmp.firstOther}` : ''}`,
  );

  // 4. Timed runs, alternating.
  heading(`timed exports (${RUNS} each, alternating)`);
  const hRuns: Array<Export & { mem: Memory }> = [];
  const sRuns: Array<Export & { peakRss: number }> = [];
  for (let r = 0; r < RUNS; r++) {
    const e = await measuredExport(hearth, false);
    if (e.bytes !== vH.bytes) throw new Error(`hearth export ${r + 1} sent ${e.bytes} bytes, the first one ${vH.bytes}`);
    hRuns.push(e);
    const growth = Math.max(e.mem.peakSampled, e.mem.hwm) - e.mem.before;
    console.log(
      `${elapsed()} run ${r + 1} hearth:  ${fmtS(e.ms)}, ${fmtRate(rowsPerSec(e.ms), 'rows')}, ${mb(e.bytes, e.ms)}; RSS ${fmtMiB(e.mem.before)} before, +${fmtMiB(growth)} at peak`,
    );
    const s = await sqliteExport(file, false);
    sRuns.push(s);
    console.log(
      `${elapsed()} run ${r + 1} sqlite3: ${fmtS(s.ms)}, ${fmtRate(rowsPerSec(s.ms), 'rows')}, ${mb(vS.bytes, s.ms)}; its peak RSS ${fmtMiB(s.peakRss)}`,
    );
  }

  const hMs = median(hRuns.map((e) => e.ms));
  const sMs = median(sRuns.map((e) => e.ms));
  heading('throughput (medians)');
  printTable([
    ['', 'time', 'rows/s', 'MB/s', 'bytes'],
    ['hearth (HTTP, streamed)', fmtS(hMs), fmtRate(rowsPerSec(hMs), 'rows'), mb(vH.bytes, hMs), String(vH.bytes)],
    [`sqlite3 -csv > /dev/null`, fmtS(sMs), fmtRate(rowsPerSec(sMs), 'rows'), mb(vS.bytes, sMs), String(vS.bytes)],
    ['hearth/baseline', ratio(hMs, sMs), ratio(rowsPerSec(hMs), rowsPerSec(sMs)), ratio(vH.bytes / hMs, vS.bytes / sMs), ''],
  ]);

  heading('memory of the hearth process during the export (VmRSS every 20 ms; VmHWM reset before each export)');
  const memRows = [{ label: 'first (cold)', e: vH }, ...hRuns.map((e, i) => ({ label: `run ${i + 1}`, e }))].map(({ label, e }) => {
    const growth = Math.max(e.mem.peakSampled, e.mem.hwm) - e.mem.before;
    return { label, growth, row: [label, fmtMiB(e.mem.before), fmtMiB(e.mem.peakSampled), fmtMiB(e.mem.hwm), fmtMiB(growth), String(e.mem.samples)] };
  });
  printTable([['export', 'RSS before', 'peak sampled', 'VmHWM', 'growth', 'samples'], ...memRows.map((m) => m.row)]);
  const worst = Math.max(...memRows.map((m) => m.growth));
  const sqlitePeak = Math.max(...sRuns.map((s) => s.peakRss));
  await sleep(300);
  const restartRss = vH.mem.before;
  console.log(`  RSS of the hearth process: ${fmtMiB(restartRss)} after the restart, ${fmtMiB(procMemory(hearth.pid).rss)} after ${RUNS + 1} exports`);
  console.log(
    `  largest growth: ${fmtMiB(worst)} (target < ${fmtMiB(MEMORY_TARGET)}: ${worst < MEMORY_TARGET ? 'met' : 'MISSED'}); sqlite3's whole process peaked at ${fmtMiB(sqlitePeak)}`,
  );

  heading('summary');
  printTable([
    ['figure', 'hearth', 'sqlite3 shell', 'hearth/baseline', 'target'],
    [`export ${ROWS} rows: rows/s`, fmtRate(rowsPerSec(hMs), 'rows'), fmtRate(rowsPerSec(sMs), 'rows'), ratio(rowsPerSec(hMs), rowsPerSec(sMs)), ''],
    ['export: MB/s', mb(vH.bytes, hMs), mb(vS.bytes, sMs), ratio(vH.bytes / hMs, vS.bytes / sMs), ''],
    [
      'memory growth during export (worst)',
      fmtMiB(worst),
      `(${fmtMiB(sqlitePeak)} whole process)`,
      '',
      `< 64 MiB: ${worst < MEMORY_TARGET ? 'met' : 'MISSED'}`,
    ],
    [`same records (first ${prefix} rows)`, same ? 'yes' : 'NO', '', '', ''],
  ]);
  console.log(`  Ratios are hearth ÷ baseline, measured in this run (medians of ${RUNS}). MB = 10^6 bytes. Fill: ${fmtS(fillMs)} through the API.`);
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return same ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\ncsv benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
