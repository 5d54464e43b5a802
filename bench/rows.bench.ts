/**
 * Rows: reading one row and a filtered page over HTTP, and inserting 10,000 rows in one request. Every figure is
 * reported against a baseline measured in the same run.
 *
 *   get one row    GET /v1/{ns}/tables/items/rows/{id} (random ids)            requests/s, 8 keep-alive connections
 *   filtered page  GET /v1/{ns}/tables/items/rows?qty=gt.N&order=id&limit=100  requests/s, 8 keep-alive connections
 *                  vs a minimal Koa app (bench/rows-baseline-child.ts, another child process) running the same
 *                  prepared statements with better-sqlite3 on a copy of the same database and answering the same
 *                  JSON bytes. Target: hearth/baseline ≥ 0.6. Hearth answers both on its event loop: the row by
 *                  id as a hot route (server/core/http/hot.ts), the page as an inline read (the 100,000 rows make a
 *                  database of about 11 MB, under the 16 MiB limit of inline reads; a larger one, or a view, is read
 *                  in a query process: server/db/rows/rows.service.ts).
 *   insert         one POST of 10,000 rows {rows: [...]} into an empty table of a fresh namespace, timed by the
 *                  client from first byte sent to last byte received; vs raw better-sqlite3 inserts of the same
 *                  rows in one transaction in this process (fresh file, same CREATE TABLE, same pragmas as a
 *                  default namespace: WAL, synchronous=FULL, foreign_keys). Median of 3. Target ≥ 0.5.
 *
 * Hearth runs in its own process (test/helpers/server-child.ts) on 127.0.0.1, port 0; this process only generates load
 * (raw keep-alive sockets, bench/rows-http.ts). After a warm-up of each, reads alternate between hearth and the
 * baseline in short slices, so that background load on the machine falls on both alike; the spread of the per-slice
 * ratios is printed as a noise indicator.
 *
 * Knobs (environment): BENCH_ROWS_TABLE (100000 rows to read from), BENCH_ROWS_CONNECTIONS (8), BENCH_ROWS_SECONDS
 * (5 per server and read), BENCH_ROWS_SLICES (10), BENCH_ROWS_WARMUP_MS (1000), BENCH_ROWS_INSERT (10000 rows),
 * BENCH_ROWS_INSERT_REPS (3).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { NamespaceConfig } from '../server/db/namespaces/namespaces.schemas.ts';
import {
  benchRun,
  envInt,
  fmtMs,
  fmtRate,
  fmtS,
  heading,
  keepAliveAgent,
  median,
  now,
  printTable,
  processCpuMs,
  ratio,
  startChild,
  summarize,
  verdict,
} from './lib.ts';
import { copyItemsDatabase, createItemsNamespace, type Hearth, type Item, items, postRows } from './rows-common.ts';
import { Loader, mergeRates, type RateResult, RawConnection } from './rows-http.ts';

const TABLE_ROWS = envInt('BENCH_ROWS_TABLE', 100_000);
const CONNECTIONS = envInt('BENCH_ROWS_CONNECTIONS', 8);
const SECONDS = envInt('BENCH_ROWS_SECONDS', 5);
const WARMUP_MS = envInt('BENCH_ROWS_WARMUP_MS', 1000);
const SLICES = envInt('BENCH_ROWS_SLICES', 10);
const INSERT_ROWS = envInt('BENCH_ROWS_INSERT', 10_000);
const INSERT_REPS = envInt('BENCH_ROWS_INSERT_REPS', 3);
const READ_TARGET = 0.6;
const INSERT_TARGET = 0.5;
const PAGE = 100;
const NS = 'bench';

const run = benchRun('hearth-bench-rows-');
const tmp = run.tmp;
const hearthDir = path.join(tmp.dir, 'hearth');
const baseDir = path.join(tmp.dir, 'baseline');
fs.mkdirSync(baseDir);
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const children = run.children;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

// ---------------------------------------------------------------------------------------------------------------
// Reads

type Scenario = 'get' | 'page';
/** Microseconds per request of `ms` CPU milliseconds spread over `n` requests. */
const perRequest = (ms: number, n: number) => (n > 0 && Number.isFinite(ms) ? ((ms * 1000) / n).toFixed(0) : 'n/a');

const SCENARIOS: Array<{ key: Scenario; label: string }> = [
  { key: 'get', label: 'GET one row by id' },
  { key: 'page', label: `GET filtered page of ${PAGE}` },
];

/** Request i of a scenario: ids spread over the whole table; thresholds 0–99 (each page is full). */
function pathOf(s: Scenario, i: number): string {
  if (s === 'get') return `/v1/${NS}/tables/items/rows/${1 + ((Math.imul(i, 2654435761) >>> 0) % TABLE_ROWS)}`;
  return `/v1/${NS}/tables/items/rows?qty=gt.${i % 100}&order=id&limit=${PAGE}`;
}

/** A request builder for one server: pre-encoded requests are reused (the paths repeat). */
function requests(base: string, s: Scenario, headers: string[]): (i: number) => Buffer {
  const host = new URL(base).host;
  const cache = new Map<string, Buffer>();
  return (i) => {
    const p = pathOf(s, i);
    let b = cache.get(p);
    if (!b) {
      b = Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
      if (cache.size < 200_000) cache.set(p, b);
    }
    return b;
  };
}

/** Compares the answers of both servers for a few requests of each scenario. */
async function sameAnswers(hearthUrl: string, baseUrl: string, authLine: string): Promise<{ same: boolean; detail: string }> {
  const h = await RawConnection.open(hearthUrl);
  const b = await RawConnection.open(baseUrl);
  try {
    let checked = 0;
    for (const s of SCENARIOS) {
      for (const i of [0, 1, 7, 99, 12345]) {
        const p = pathOf(s.key, i);
        const hr = await h.send(h.requestBytes(p, [authLine]));
        const br = await b.send(b.requestBytes(p));
        if (hr.status !== 200 || br.status !== 200 || !hr.body.equals(br.body)) {
          return {
            same: false,
            detail: `${p}: hearth ${hr.status} ${hr.body.length} bytes, baseline ${br.status} ${br.body.length} bytes\n    hearth:   ${hr.body.toString().slice(0, 200)}\n    baseline: ${br.body.toString().slice(0, 200)}`,
          };
        }
        if (s.key === 'page' && (JSON.parse(hr.body.toString()) as { data: unknown[] }).data.length !== PAGE) {
          return { same: false, detail: `${p}: the page does not hold ${PAGE} rows` };
        }
        checked++;
      }
    }
    return { same: true, detail: `${checked} requests` };
  } finally {
    h.close();
    b.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Inserts

const defaults = NamespaceConfig.parse({});

/** Raw better-sqlite3: fresh file, Hearth's CREATE TABLE, the same pragmas; prepare + one transaction, timed. */
function baselineInsert(file: string, ddl: string, rows: Item[]): number {
  const db = new Database(file);
  try {
    db.pragma(`journal_mode = ${defaults.journal_mode}`);
    db.pragma(`synchronous = ${defaults.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma(`foreign_keys = ${defaults.foreign_keys ? 'ON' : 'OFF'}`);
    db.exec(ddl);
    const t = now();
    const insert = db.prepare('INSERT INTO "items" ("sku", "qty", "price", "note") VALUES (?, ?, ?, ?)');
    db.transaction((list: Item[]) => {
      for (const r of list) insert.run(r.sku, r.qty, r.price, r.note);
    })(rows);
    const ms = now() - t;
    const n = db.prepare('SELECT count(*) FROM "items"').pluck().get() as number;
    if (n !== rows.length) throw new Error(`baseline inserted ${n} rows, expected ${rows.length}`);
    return ms;
  } finally {
    db.close();
  }
}

async function hearthInsert(h: Hearth, ns: string, body: string): Promise<number> {
  await createItemsNamespace(h, ns);
  const t = now();
  const n = await postRows(h, ns, body);
  const ms = now() - t;
  if (n !== INSERT_ROWS) throw new Error(`hearth reported ${n} rows inserted, expected ${INSERT_ROWS}`);
  return ms;
}

// ---------------------------------------------------------------------------------------------------------------

const rate = (r: RateResult) => fmtRate(r.perSec, 'req');

async function main(): Promise<number> {
  console.log(
    `rows benchmark: ${TABLE_ROWS} rows to read, ${CONNECTIONS} connections, ${SECONDS} s per server and read (${SLICES} slices) after ${WARMUP_MS} ms warm-up; insert ${INSERT_ROWS} rows × ${INSERT_REPS}`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${tmp.dir}`,
  );

  // 1. Hearth with one namespace holding TABLE_ROWS rows (inserted through the API).
  const child = await startChild('../test/helpers/server-child.ts', { dataDir: hearthDir, adminToken: token });
  children.add(child);
  const h: Hearth = { url: child.url, agent: keepAliveAgent(1), auth: { authorization: `Bearer ${token}` } };
  await createItemsNamespace(h, NS);
  let fillMs = 0;
  for (let from = 0; from < TABLE_ROWS; from += 100_000) {
    const n = Math.min(100_000, TABLE_ROWS - from);
    const body = JSON.stringify({ rows: items(from, n) });
    const t = now();
    await postRows(h, NS, body);
    fillMs += now() - t;
  }
  console.log(`${elapsed()} hearth: ${TABLE_ROWS} rows inserted in ${fmtS(fillMs)} (POSTs of up to 100,000 rows)`);

  // 2. The baseline on a copy of the same database.
  const copy = path.join(baseDir, 'copy.db');
  const ddl = copyItemsDatabase(hearthDir, copy);
  const baseline = await startChild('rows-baseline-child.ts', { dbFile: copy });
  children.add(baseline);
  const authLine = `Authorization: Bearer ${token}`;
  const check = await sameAnswers(child.url, baseline.url, authLine);
  console.log(`${elapsed()} baseline (minimal Koa) started on a copy; answers byte-identical to hearth's: ${check.same ? 'yes' : 'NO'} (${check.detail})`);

  // 3. Reads: hearth and baseline alternate in short slices (the same background load falls on both), each
  //    server warmed up first on its own connections.
  const sliceMs = (SECONDS * 1000) / SLICES;
  heading(
    `reads: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per server (${SLICES} alternating slices of ${fmtMs(sliceMs)}) after ${WARMUP_MS} ms warm-up`,
  );
  const readRows: string[][] = [
    [
      '',
      'hearth',
      'baseline',
      'hearth/baseline',
      'slice ratios min / median / max',
      'hearth p50 / p99',
      'baseline p50 / p99',
      'bytes/answer',
      'CPU µs/request: server + client (hearth | baseline)',
    ],
  ];
  const readRatios: Record<Scenario, number> = { get: NaN, page: NaN };
  for (const s of SCENARIOS) {
    const hl = await Loader.open(child.url, CONNECTIONS);
    const bl = await Loader.open(baseline.url, CONNECTIONS);
    try {
      const hReq = requests(child.url, s.key, [authLine]);
      const bReq = requests(baseline.url, s.key, []);
      await hl.run(WARMUP_MS, hReq);
      await bl.run(WARMUP_MS, bReq);
      const hs: RateResult[] = [];
      const bs: RateResult[] = [];
      // CPU of each server process and of this (client) process while each one is loaded, all threads.
      const cpu = { hearth: { server: 0, client: 0 }, baseline: { server: 0, client: 0 } };
      const timed = async (which: 'hearth' | 'baseline'): Promise<RateResult> => {
        const pid = which === 'hearth' ? child.pid : baseline.pid;
        const s0 = processCpuMs(pid);
        const c0 = process.cpuUsage();
        const r = await (which === 'hearth' ? hl.run(sliceMs, hReq) : bl.run(sliceMs, bReq));
        const c1 = process.cpuUsage(c0);
        cpu[which].server += processCpuMs(pid) - s0;
        cpu[which].client += (c1.user + c1.system) / 1000;
        return r;
      };
      for (let k = 0; k < SLICES; k++) {
        if (k % 2 === 0) {
          hs.push(await timed('hearth'));
          bs.push(await timed('baseline'));
        } else {
          bs.push(await timed('baseline'));
          hs.push(await timed('hearth'));
        }
      }
      const hr = mergeRates(hs);
      const br = mergeRates(bs);
      const hl50 = summarize(hr.latencies);
      const bl50 = summarize(br.latencies);
      const slices = summarize(hs.map((x, k) => x.perSec / bs[k]!.perSec));
      readRatios[s.key] = hr.perSec / br.perSec;
      console.log(`${elapsed()} ${s.label}: hearth ${rate(hr)}, baseline ${rate(br)}`);
      readRows.push([
        s.label,
        rate(hr),
        rate(br),
        ratio(hr.perSec, br.perSec),
        `${slices.min.toFixed(2)} / ${median(hs.map((x, k) => x.perSec / bs[k]!.perSec)).toFixed(2)} / ${slices.max.toFixed(2)}`,
        `${fmtMs(hl50.p50)} / ${fmtMs(hl50.p99)}`,
        `${fmtMs(bl50.p50)} / ${fmtMs(bl50.p99)}`,
        `${(hr.bytes / hr.requests).toFixed(0)} / ${(br.bytes / br.requests).toFixed(0)}`,
        `${perRequest(cpu.hearth.server, hr.requests)} + ${perRequest(cpu.hearth.client, hr.requests)} | ${perRequest(cpu.baseline.server, br.requests)} + ${perRequest(cpu.baseline.client, br.requests)}`,
      ]);
    } finally {
      hl.close();
      bl.close();
    }
  }
  console.log('');
  printTable(readRows);

  // 4. Inserts: one POST of INSERT_ROWS rows into a fresh namespace vs raw inserts into a fresh file.
  heading(`insert ${INSERT_ROWS} rows in one request (median of ${INSERT_REPS}, after one warm-up each)`);
  const rows = items(TABLE_ROWS, INSERT_ROWS);
  const body = JSON.stringify({ rows });
  console.log(`  body: ${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB of JSON`);
  const warmH = await hearthInsert(h, 'ins-warmup', body);
  const warmB = baselineInsert(path.join(baseDir, 'ins-warmup.db'), ddl, rows);
  console.log(`${elapsed()} warm-up (not counted): hearth ${fmtMs(warmH)}, baseline ${fmtMs(warmB)}`);
  const hMs: number[] = [];
  const bMs: number[] = [];
  for (let rep = 1; rep <= INSERT_REPS; rep++) {
    hMs.push(await hearthInsert(h, `ins-${rep}`, body));
    bMs.push(baselineInsert(path.join(baseDir, `ins-${rep}.db`), ddl, rows));
    console.log(
      `${elapsed()} rep ${rep}: hearth ${fmtMs(hMs.at(-1)!)} (${fmtRate((INSERT_ROWS / hMs.at(-1)!) * 1000, 'rows')}), baseline ${fmtMs(bMs.at(-1)!)} (${fmtRate((INSERT_ROWS / bMs.at(-1)!) * 1000, 'rows')})`,
    );
  }
  const hRate = (INSERT_ROWS / median(hMs)) * 1000;
  const bRate = (INSERT_ROWS / median(bMs)) * 1000;
  const insertRatio = hRate / bRate;
  // Reference only: how long parsing the same body takes in this process (Hearth must do it; the baseline doesn't).
  const tp = now();
  JSON.parse(body);
  const parseMs = now() - tp;
  printTable([
    ['', 'hearth (HTTP)', 'baseline (in-process)', 'hearth/baseline'],
    [`median time for ${INSERT_ROWS} rows`, fmtMs(median(hMs)), fmtMs(median(bMs)), ratio(median(hMs), median(bMs))],
    ['rows/s', fmtRate(hRate, 'rows'), fmtRate(bRate, 'rows'), ratio(hRate, bRate)],
  ]);
  console.log(`  reference: JSON.parse of the same body in this process takes ${fmtMs(parseMs)}`);
  h.agent.destroy();

  heading('summary');
  printTable([
    ['figure', 'hearth/baseline', 'target'],
    [`GET one row: requests/s (${CONNECTIONS} connections)`, ratio(readRatios.get, 1), verdict(readRatios.get, READ_TARGET)],
    [`GET filtered page of ${PAGE}: requests/s`, ratio(readRatios.page, 1), verdict(readRatios.page, READ_TARGET)],
    [`POST ${INSERT_ROWS} rows: rows/s (median of ${INSERT_REPS})`, ratio(insertRatio, 1), verdict(insertRatio, INSERT_TARGET)],
  ]);
  console.log('  Ratios are hearth ÷ baseline, measured in this run. Reads: baseline = minimal Koa + better-sqlite3 in another');
  console.log('  child process, same statements and JSON. Insert: baseline = raw better-sqlite3 in this process, one transaction.');
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return check.same ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nrows benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
