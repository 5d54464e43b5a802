/**
 * Backups of a running instance (issue 17, "Speed"): how fast Hearth writes a backup, and what a backup does to the
 * reads served meanwhile. Every figure is reported against a baseline measured in the same run.
 *
 *   throughput  BENCH_BACKUP_MB (1024) MiB across 100 namespaces. Hearth: `POST /api/admin/backups`, timed by the
 *               client from the request to the poll (every 20 ms) that sees the job `complete`, i.e. until the
 *               backup file is complete, fsynced and renamed: what the user waits for (snapshots one namespace at a
 *               time, SHA-256, tar, the secrets sealed with Argon2id + AES-256-GCM when BENCH_BACKUP_SECRETS is
 *               `encrypted`, the default; `omitted` leaves them out). Baseline: Debian's sqlite3 shell, one
 *               `sqlite3 <file> ".backup <dest>"` per file, one after another, of the same files (platform.db and
 *               every namespace database). Warm rounds alternate which goes first; figure: sqlite3 time ÷ Hearth
 *               time (throughput ratio), goal ≥ 0.7.
 *   reads       100 more namespaces (200 in all, twice the data). Rows GETs `/v1/<ns>/tables/items/rows?limit=20`
 *               across the 200 namespaces at a fixed rate (BENCH_BACKUP_READ_RATE per second over
 *               BENCH_BACKUP_READ_CONNECTIONS keep-alive connections); each latency is measured from the moment the
 *               request was due (a server that stalls shows in every request due meanwhile). Each round has a window
 *               during a backup and a window of the same length without one, in alternating order. The claim:
 *               a backup never blocks requests for longer than one namespace's snapshot step; figure: what the backup
 *               adds to the p99 (p99 during − p99 without) over one namespace's share of the backup's time, goal ≤ 1.
 *
 * The data: namespace ns-000 is filled through the API (an `items` table of 1,000 rows and a `docs` table of 256 KiB
 * blobs up to its share of the size) and duplicated through the API into the others. Hearth runs in its own process
 * (test/helpers/server-child.ts); this process only sends requests and runs sqlite3.
 *
 * Needs /usr/bin/sqlite3 (Debian package sqlite3; BENCH_BACKUP_SQLITE3 names another) and about 3× BENCH_BACKUP_MB
 * of free disk under the temporary folder. The full size takes longer than run.ts's default limit:
 * `BENCH_TIMEOUT_S=3600 npm run bench -- backup`. Quick run: `BENCH_BACKUP_MB=100 BENCH_BACKUP_ROUNDS=5 npm run bench -- backup`.
 *
 * Knobs (environment): BENCH_BACKUP_MB (1024), BENCH_BACKUP_ROUNDS (5 warm rounds, after one warm-up),
 * BENCH_BACKUP_SECRETS (encrypted | omitted), BENCH_BACKUP_READ_RATE (200), BENCH_BACKUP_READ_CONNECTIONS (8),
 * BENCH_BACKUP_SQLITE3 (/usr/bin/sqlite3).
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  type BenchChild,
  benchRun,
  envInt,
  fmtMiB,
  fmtMs,
  fmtS,
  heading,
  keepAliveAgent,
  median,
  now,
  printTable,
  request,
  sleep,
  startChild,
  summarize,
  verdict,
} from './lib.ts';
import { ITEMS_TABLE, items } from './rows-common.ts';

const MB = envInt('BENCH_BACKUP_MB', 1024);
const ROUNDS = envInt('BENCH_BACKUP_ROUNDS', 5);
const READ_RATE = envInt('BENCH_BACKUP_READ_RATE', 200);
const READ_CONNECTIONS = envInt('BENCH_BACKUP_READ_CONNECTIONS', 8);
const SECRETS = process.env.BENCH_BACKUP_SECRETS || 'encrypted';
const SQLITE3 = process.env.BENCH_BACKUP_SQLITE3 || '/usr/bin/sqlite3';
const NAMESPACES = 100;
const READ_NAMESPACES = 200;
const BLOB = 256 * 1024;
const BLOBS_PER_POST = 16;
const ITEM_ROWS = 1000;
const READ_LIMIT = 20;
const GOAL = 0.7;
if (SECRETS !== 'encrypted' && SECRETS !== 'omitted') throw new Error('BENCH_BACKUP_SECRETS must be encrypted or omitted');
const PASSPHRASE = SECRETS === 'encrypted' ? 'bench backup passphrase' : undefined;

const run = benchRun('hearth-bench-backup-');
const dataDir = path.join(run.tmp.dir, 'hearth');
const baselineDir = path.join(run.tmp.dir, 'sqlite3-copies');
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const agent = keepAliveAgent(1);
const t0 = now();
const elapsed = () => `[${fmtS(now() - t0)}]`;
const nameOf = (i: number) => `ns-${String(i).padStart(3, '0')}`;
const spread = (xs: number[], fmt: (x: number) => string) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
const x2 = (x: number) => `${x.toFixed(2)}×`;

let hearth: BenchChild;

async function call(method: string, pathname: string, body: unknown, expect: number): Promise<any> {
  const res = await request(agent, hearth.url + pathname, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status !== expect) throw new Error(`${method} ${pathname} → ${res.status} ${res.body.slice(0, 300)}`);
  return res.body ? JSON.parse(res.body) : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Data

/** ns-000 through the API: `items` (1,000 rows) and `docs` (256 KiB blobs up to `bytes`). */
async function fillTemplate(bytes: number): Promise<void> {
  await call('POST', '/v1/namespaces', { name: nameOf(0) }, 201);
  await call('POST', `/v1/${nameOf(0)}/tables`, ITEMS_TABLE, 201);
  await call('POST', `/v1/${nameOf(0)}/tables/items/rows`, { rows: items(0, ITEM_ROWS) }, 201);
  const docs = {
    type: 'table',
    name: 'docs',
    columns: [
      { name: 'title', type: 'text' },
      { name: 'body', type: 'blob' },
    ],
  };
  await call('POST', `/v1/${nameOf(0)}/tables`, docs, 201);
  const blobs = Math.max(1, Math.round(bytes / BLOB));
  for (let i = 0; i < blobs; i += BLOBS_PER_POST) {
    const rows = Array.from({ length: Math.min(BLOBS_PER_POST, blobs - i) }, (_, k) => ({
      title: `doc ${i + k}`,
      body: crypto.randomBytes(BLOB).toString('base64'),
    }));
    await call('POST', `/v1/${nameOf(0)}/tables/docs/rows`, { rows }, 201);
  }
}

async function duplicate(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await call('POST', `/v1/namespaces/${nameOf(0)}/duplicate`, { name: nameOf(i) }, 201);
}

/** platform.db and the namespace databases (with their -wal files, if any): what both sides back up. */
function databaseFiles(): { files: string[]; bytes: number } {
  const nsDir = path.join(dataDir, 'namespaces');
  const files = [
    path.join(dataDir, 'platform.db'),
    ...fs
      .readdirSync(nsDir)
      .filter((n) => n.endsWith('.db'))
      .map((n) => path.join(nsDir, n)),
  ];
  let bytes = 0;
  for (const f of files) for (const suffix of ['', '-wal']) bytes += fs.existsSync(f + suffix) ? fs.statSync(f + suffix).size : 0;
  return { files, bytes };
}

// ---------------------------------------------------------------------------------------------------------------
// The two ways of backing up

interface HearthBackup {
  ms: number;
  size: number;
  /** Milliseconds spent in each step of the job (snapshot, archive, secrets, finish), as seen by the 20 ms polls. */
  steps: Record<string, number>;
}

/** One backup through the API, timed until the job is complete; the file is deleted afterwards (not timed). */
async function hearthBackup(): Promise<HearthBackup> {
  const start = now();
  const { job } = await call('POST', '/api/admin/backups', PASSPHRASE ? { passphrase: PASSPHRASE } : {}, 202);
  const steps: Record<string, number> = {};
  let step: string = job.progress.step;
  let seen = now();
  for (;;) {
    const j = await call('GET', `/api/admin/backups/jobs/${job.id}`, undefined, 200);
    // The time since the last poll goes to the step that poll saw.
    steps[step] = (steps[step] ?? 0) + (now() - seen);
    seen = now();
    step = j.progress.step;
    if (j.state === 'complete') {
      const ms = now() - start;
      await call('DELETE', `/api/admin/backups/${j.name}`, undefined, 204);
      return { ms, size: j.size, steps };
    }
    if (j.state !== 'running') throw new Error(`the backup failed: ${JSON.stringify(j.error)}`);
    await sleep(20);
  }
}

/** `sqlite3 <file> ".backup <dest>"` for every file, one after another; the copies are deleted afterwards. */
function sqlite3Backup(files: string[]): { ms: number; bytes: number } {
  fs.mkdirSync(baselineDir, { recursive: true });
  const start = now();
  for (const [i, file] of files.entries()) {
    const dest = path.join(baselineDir, `${i}-${path.basename(file)}`);
    const r = spawnSync(SQLITE3, [file, `.backup "${dest}"`], { encoding: 'utf8' });
    if (r.status !== 0 || r.stderr) throw new Error(`sqlite3 ${file} .backup → ${r.error?.message ?? r.status}: ${r.stderr}`);
  }
  const ms = now() - start;
  let bytes = 0;
  for (const n of fs.readdirSync(baselineDir)) bytes += fs.statSync(path.join(baselineDir, n)).size;
  fs.rmSync(baselineDir, { recursive: true, force: true });
  return { ms, bytes };
}

// ---------------------------------------------------------------------------------------------------------------
// Reads at a fixed rate

/** Rows GETs across the first `count` namespaces, one due every 1000/READ_RATE ms, until `stop()`; latencies in ms. */
function readLoad(count: number): { stop(): Promise<number[]> } {
  const interval = 1000 / READ_RATE;
  const latencies: number[] = [];
  const agents = Array.from({ length: READ_CONNECTIONS }, () => keepAliveAgent(1));
  const start = now();
  let next = 0;
  let stopped = false;
  const worker = async (a: http.Agent) => {
    while (!stopped) {
      const k = next++;
      const due = start + k * interval;
      if (due > now()) await sleep(due - now());
      if (stopped) return;
      const ns = nameOf((k * 37) % count);
      const res = await request(a, `${hearth.url}/v1/${ns}/tables/items/rows?limit=${READ_LIMIT}&id=gt.${(k * 13) % (ITEM_ROWS - READ_LIMIT)}`, {
        headers: auth,
      });
      if (res.status !== 200) throw new Error(`GET rows of ${ns} → ${res.status} ${res.body.slice(0, 200)}`);
      latencies.push(now() - due);
    }
  };
  const workers = Promise.all(agents.map(worker));
  workers.catch(() => {}); // reported by stop()
  return {
    async stop() {
      stopped = true;
      await workers;
      for (const a of agents) a.destroy();
      return latencies;
    },
  };
}

async function readsDuringBackup(): Promise<{ latencies: number[]; ms: number }> {
  const load = readLoad(READ_NAMESPACES);
  const b = await hearthBackup();
  return { latencies: await load.stop(), ms: b.ms };
}

async function readsQuiet(ms: number): Promise<number[]> {
  const load = readLoad(READ_NAMESPACES);
  await sleep(ms);
  return load.stop();
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const probe = spawnSync(SQLITE3, ['--version'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`${SQLITE3} does not run (${probe.error?.message ?? probe.stderr}): install Debian's sqlite3 package`);
  console.log(
    `backup benchmark: ${MB} MiB across ${NAMESPACES} namespaces, then ${READ_NAMESPACES} namespaces for the reads; ${ROUNDS} warm rounds after one warm-up; secrets ${SECRETS}`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, sqlite3 ${probe.stdout.split(' ')[0]}, data in ${run.tmp.dir}`,
  );

  hearth = await startChild('../test/helpers/server-child.ts', { dataDir, adminToken: token });
  run.children.add(hearth);
  await fillTemplate((MB * 1024 * 1024) / NAMESPACES);
  await duplicate(1, NAMESPACES);
  const data = databaseFiles();
  console.log(`${elapsed()} filled: ${data.files.length} database files (platform.db and ${NAMESPACES} namespaces), ${fmtMiB(data.bytes)}`);

  // 1. Throughput.
  heading(`throughput: one backup of ${fmtMiB(data.bytes)} (${NAMESPACES} namespaces), Hearth vs sqlite3 .backup`);
  const warmH = await hearthBackup();
  const warmS = sqlite3Backup(data.files);
  console.log(`${elapsed()} warm-up: hearth ${fmtS(warmH.ms)} (backup file ${fmtMiB(warmH.size)}), sqlite3 ${fmtS(warmS.ms)} (copies ${fmtMiB(warmS.bytes)})`);
  const hRuns: HearthBackup[] = [];
  const sRuns: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      hRuns.push(await hearthBackup());
      sRuns.push(sqlite3Backup(data.files).ms);
    } else {
      sRuns.push(sqlite3Backup(data.files).ms);
      hRuns.push(await hearthBackup());
    }
    const h = hRuns.at(-1)!;
    console.log(
      `${elapsed()} round ${r + 1} (${r % 2 === 0 ? 'hearth first' : 'sqlite3 first'}): hearth ${fmtS(h.ms)}, sqlite3 ${fmtS(sRuns.at(-1)!)}, ratio ${x2(sRuns.at(-1)! / h.ms)}`,
    );
  }
  const hMs = hRuns.map((h) => h.ms);
  const ratios = hRuns.map((h, k) => sRuns[k]! / h.ms);
  const rate = (ms: number) => `${((data.bytes / 1024 / 1024 / ms) * 1000).toFixed(0)} MiB/s`;
  printTable([
    ['', `time, median (min–max) of ${ROUNDS}`, 'MiB/s (median)'],
    ['hearth (POST → job complete)', spread(hMs, fmtS), rate(median(hMs))],
    ['sqlite3 .backup, file by file', spread(sRuns, fmtS), rate(median(sRuns))],
    ['ratio sqlite3 time ÷ hearth time', spread(ratios, x2), ''],
  ]);
  const stepMs = (key: string) => hRuns.map((h) => h.steps[key] ?? 0);
  console.log('  where hearth spends its time (job steps as seen by 20 ms polls, median (min–max)):');
  console.log(`    snapshot (waiting for a namespace's image: serialize and SHA-256 on the snapshot thread): ${spread(stepMs('snapshot'), fmtS)}`);
  console.log(`    archive (the image written into the tar by that thread, while the next is taken): ${spread(stepMs('archive'), fmtS)}`);
  console.log(
    `    secrets (${SECRETS === 'encrypted' ? 'Argon2id, AES-256-GCM' : 'none: omitted'}) and finish (manifest, fsync, rename): ${spread(
      hRuns.map((h) => (h.steps.secrets ?? 0) + (h.steps.finish ?? 0)),
      fmtS,
    )}`,
  );

  // 2. Reads during a backup of 200 namespaces.
  await duplicate(NAMESPACES, READ_NAMESPACES);
  const more = databaseFiles();
  heading(`reads: rows GET at ${READ_RATE}/s across ${READ_NAMESPACES} namespaces, during a backup of ${fmtMiB(more.bytes)} vs without one`);
  await readsQuiet(1000); // opens every namespace once
  const warm = await readsDuringBackup();
  console.log(`${elapsed()} warm-up: a backup of ${READ_NAMESPACES} namespaces with reads took ${fmtS(warm.ms)}, ${warm.latencies.length} reads`);
  let windowMs = warm.ms;
  const during: number[][] = [];
  const quiet: number[][] = [];
  /** One namespace's share of each backup with reads: the backup's time over its parts (the namespaces and platform.db). */
  const partMs: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) quiet.push(await readsQuiet(windowMs));
    const d = await readsDuringBackup();
    during.push(d.latencies);
    partMs.push(d.ms / (READ_NAMESPACES + 1));
    windowMs = d.ms;
    if (r % 2 === 1) quiet.push(await readsQuiet(windowMs));
    const [sd, sq] = [summarize(during.at(-1)!), summarize(quiet.at(-1)!)];
    console.log(
      `${elapsed()} round ${r + 1}: during p99 ${fmtMs(sd.p99)} (max ${fmtMs(sd.max)}, ${sd.n} reads), without p99 ${fmtMs(sq.p99)} (max ${fmtMs(sq.max)}, ${sq.n} reads)`,
    );
  }
  const p99 = (l: number[][]) => l.map((x) => summarize(x).p99);
  const all = (l: number[][]) => summarize(l.flat());
  const [aD, aQ] = [all(during), all(quiet)];
  const p99Ratios = during.map((d, k) => summarize(d).p99 / summarize(quiet[k]!).p99);
  // The claim: a backup delays no request by more than one namespace's snapshot step. Per round: what the
  // backup adds to the p99 (p99 during − p99 without) over one namespace's share of that backup's time.
  const added = during.map((d, k) => Math.max(0, summarize(d).p99 - summarize(quiet[k]!).p99) / partMs[k]!);
  printTable([
    ['', `p99 per round, median (min–max)`, 'p50 (all)', 'p99 (all)', 'max', 'reads'],
    ['during a backup', spread(p99(during), fmtMs), fmtMs(aD.p50), fmtMs(aD.p99), fmtMs(aD.max), String(aD.n)],
    ['without a backup', spread(p99(quiet), fmtMs), fmtMs(aQ.p50), fmtMs(aQ.p99), fmtMs(aQ.max), String(aQ.n)],
    ['ratio during ÷ without', spread(p99Ratios, x2), x2(aD.p50 / aQ.p50), x2(aD.p99 / aQ.p99), x2(aD.max / aQ.max), ''],
  ]);

  heading('summary');
  printTable([
    ['figure', 'median (min–max)', 'goal'],
    [`backup of ${fmtMiB(data.bytes)}, ${NAMESPACES} namespaces: sqlite3 time ÷ hearth time`, spread(ratios, x2), verdict(median(ratios), GOAL)],
    [`  hearth time (secrets ${SECRETS})`, spread(hMs, fmtS), ''],
    ['  sqlite3 .backup time', spread(sRuns, fmtS), ''],
    [`rows GET p99 during a backup of ${READ_NAMESPACES} namespaces`, spread(p99(during), fmtMs), ''],
    ['rows GET p99 without a backup', spread(p99(quiet), fmtMs), ''],
    ['p99 during ÷ p99 without', spread(p99Ratios, x2), ''],
    [`one namespace's snapshot step (backup time ÷ ${READ_NAMESPACES + 1} parts)`, spread(partMs, fmtMs), ''],
    ['p99 added by the backup ÷ one snapshot step', spread(added, x2), median(added) <= 1 ? 'met (≤ 1)' : 'MISSED (> 1)'],
  ]);
  console.log(
    `  load average at the end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (${os.cpus().length} cpus, shared)`,
  );
  console.log(`${elapsed()} done`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nbackup benchmark failed:', err);
  code = 1;
} finally {
  agent.destroy();
  await run.cleanup();
}
process.exit(code);
