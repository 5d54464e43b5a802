/**
 * Namespaces at scale: create 10,000 namespaces; list them in pages of 100 (latency, and proof that listing opens
 * no tenant database); peak open file descriptors of the server. Every figure is reported against a baseline
 * measured in the same run.
 *
 *   create   Hearth over HTTP (8 keep-alive connections)  vs  the raw work in-process with better-sqlite3
 *            (one SQLite file per namespace: open, WAL, synchronous=FULL, close; one registry row each)
 *   list     Hearth `GET /v1/namespaces` following next_cursor  vs  a minimal node:http server answering the same
 *            JSON from a copy of Hearth's registry table with a keyset query (`name > ? ORDER BY name LIMIT 101`)
 *   proof    Hearth restarted on the same data folder, then listed: tenant databases opened (HandleManager.opened,
 *            over IPC), `hearth_namespace_handles_open` from /metrics, descriptors pointing at tenant files
 *
 * Knobs (environment): BENCH_NS_COUNT (10000), BENCH_CONNECTIONS (8), BENCH_LIST_ROUNDS (5),
 * BENCH_LIST_WALKERS (4), BENCH_SPOT_SAMPLES (200), BENCH_MAX_OPEN (256).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { NamespaceConfig } from '../server/db/namespaces/namespaces.schemas.ts';
import {
  type BenchChild,
  benchRun,
  envInt,
  type FdPhase,
  FdSampler,
  fmtMs,
  fmtRate,
  fmtS,
  heading,
  keepAliveAgent,
  loadLoop,
  now,
  printTable,
  ratio,
  request,
  type Stats,
  sleep,
  startChild,
  summarize,
} from './lib.ts';

const COUNT = envInt('BENCH_NS_COUNT', 10_000);
const CONNECTIONS = envInt('BENCH_CONNECTIONS', 8);
const ROUNDS = envInt('BENCH_LIST_ROUNDS', 5);
const WALKERS = envInt('BENCH_LIST_WALKERS', 4);
const SPOT = envInt('BENCH_SPOT_SAMPLES', 200);
const MAX_OPEN = envInt('BENCH_MAX_OPEN', 256);
const PAGE = 100;
const PAGES = Math.ceil(COUNT / PAGE);
/** The "deep" page compared with page 1 (page 99 of 100 with the defaults). */
const DEEP_PAGE = Math.max(1, Math.min(99, PAGES - 1));

const width = Math.max(5, String(COUNT - 1).length);
const nameOf = (i: number) => `ns-${String(i).padStart(width, '0')}`;

const run = benchRun('hearth-bench-ns-', { beforeStop: () => sampler.stop() });
const tmp = run.tmp;
const hearthDir = path.join(tmp.dir, 'hearth');
const baseDir = path.join(tmp.dir, 'baseline');
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const auth = { authorization: `Bearer ${token}` };
const children = run.children;
const sampler = new FdSampler({ watchDir: path.join(hearthDir, 'namespaces') });
const t0 = now();

async function startHearth(): Promise<BenchChild> {
  const c = await startChild('../test/helpers/server-child.ts', { dataDir: hearthDir, adminToken: token, maxOpenNamespaces: MAX_OPEN });
  children.add(c);
  return c;
}
async function stopChild(c: BenchChild): Promise<void> {
  await c.stop();
  children.delete(c);
}
const handleStats = (c: BenchChild) => c.ask<{ opened: number; open: number }>({ type: 'stats' });

// ---------------------------------------------------------------------------------------------------------------
// Listing

interface Walk {
  latencies: number[];
  /** Cursor used to fetch page i (index 0 = page 1, no cursor). */
  cursors: Array<string | null>;
  names: number;
  bytes: number;
  elapsedMs: number;
  firstBody: string;
}

/** Follows next_cursor from the first page to the last, checking the names come back complete and in order. */
async function walk(base: string, agent: http.Agent, headers: Record<string, string>): Promise<Walk> {
  const w: Walk = { latencies: [], cursors: [], names: 0, bytes: 0, elapsedMs: 0, firstBody: '' };
  let cursor: string | null = null;
  let prev = '';
  const start = now();
  do {
    w.cursors.push(cursor);
    const url: string = `${base}/v1/namespaces?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const t = now();
    const res = await request(agent, url, { headers });
    w.latencies.push(now() - t);
    if (res.status !== 200) throw new Error(`GET ${url} → ${res.status} ${res.body.slice(0, 200)}`);
    const page = JSON.parse(res.body) as { data: Array<{ name: string }>; next_cursor: string | null };
    for (const ns of page.data) {
      if (ns.name <= prev) throw new Error(`listing out of order: ${ns.name} after ${prev}`);
      prev = ns.name;
    }
    if (!w.firstBody) w.firstBody = res.body;
    w.names += page.data.length;
    w.bytes += res.body.length;
    cursor = page.next_cursor;
    if (w.cursors.length > PAGES + 1) throw new Error(`listing did not end after ${PAGES} pages`);
  } while (cursor);
  w.elapsedMs = now() - start;
  if (w.names !== COUNT || w.cursors.length !== PAGES) {
    throw new Error(`listing returned ${w.names} namespaces in ${w.cursors.length} pages, expected ${COUNT} in ${PAGES}`);
  }
  return w;
}

interface ListFigures {
  page: Stats;
  pagesPerSec: number;
  walkMs: Stats;
  concurrentPagesPerSec: number;
  concurrentPage: Stats;
  bytesPerPage: number;
  firstBody: string;
  cursors: Array<string | null>;
}

function collect(walks: Walk[]): { page: Stats; pagesPerSec: number; walkMs: Stats } {
  const lat = walks.flatMap((w) => w.latencies);
  const ms = walks.reduce((a, w) => a + w.elapsedMs, 0);
  return { page: summarize(lat), pagesPerSec: (lat.length / ms) * 1000, walkMs: summarize(walks.map((w) => w.elapsedMs)) };
}

/** `WALKERS` full walks at once, each on its own connection: aggregate pages/s. */
async function concurrentWalks(base: string, headers: Record<string, string>): Promise<{ pagesPerSec: number; page: Stats }> {
  const agents = Array.from({ length: WALKERS }, () => keepAliveAgent(1));
  const start = now();
  const walks = await Promise.all(agents.map((a) => walk(base, a, headers)));
  const ms = now() - start;
  for (const a of agents) a.destroy();
  const lat = walks.flatMap((w) => w.latencies);
  return { pagesPerSec: (lat.length / ms) * 1000, page: summarize(lat) };
}

/** Page 1 and page DEEP_PAGE fetched alternately on one connection: is latency flat along the listing? */
async function spot(base: string, headers: Record<string, string>, deepCursor: string): Promise<{ first: Stats; deep: Stats }> {
  const agent = keepAliveAgent(1);
  const first: number[] = [];
  const deep: number[] = [];
  const urlFirst = `${base}/v1/namespaces?limit=${PAGE}`;
  const urlDeep = `${urlFirst}&cursor=${encodeURIComponent(deepCursor)}`;
  for (let i = 0; i < SPOT; i++) {
    for (const [url, into] of [
      [urlFirst, first],
      [urlDeep, deep],
    ] as const) {
      const t = now();
      const res = await request(agent, url, { headers });
      into.push(now() - t);
      if (res.status !== 200) throw new Error(`GET ${url} → ${res.status}`);
    }
  }
  agent.destroy();
  return { first: summarize(first), deep: summarize(deep) };
}

// ---------------------------------------------------------------------------------------------------------------
// Baseline create: the same files and registry rows, without HTTP/Koa/zod/audit.

function baselineCreate(): { latencies: number[]; elapsedMs: number } {
  const nsDir = path.join(baseDir, 'namespaces');
  fs.mkdirSync(nsDir, { recursive: true });
  const reg = new Database(path.join(baseDir, 'platform.db'));
  reg.pragma('journal_mode = WAL');
  reg.pragma('synchronous = NORMAL'); // as Hearth's platform.db
  reg.exec(`CREATE TABLE namespaces (
    name TEXT PRIMARY KEY, file_id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, config TEXT NOT NULL,
    last_activity_at TEXT, storage TEXT) STRICT`);
  const insert = reg.prepare('INSERT INTO namespaces (name, file_id, created_at, config) VALUES (?, ?, ?, ?)');
  const config = JSON.stringify(NamespaceConfig.parse({}));
  const latencies: number[] = [];
  const start = now();
  for (let i = 0; i < COUNT; i++) {
    const t = now();
    const fileId = crypto.randomUUID();
    const db = new Database(path.join(nsDir, `${fileId}.db`));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.close();
    insert.run(nameOf(i), fileId, new Date().toISOString(), config);
    latencies.push(now() - t);
  }
  const elapsedMs = now() - start;
  reg.close();
  return { latencies, elapsedMs };
}

/** Copies Hearth's registry table (same schema, same rows) into a file of its own for the list baseline. */
function copyRegistry(): string {
  const src = path.join(hearthDir, 'platform.db');
  const dest = path.join(baseDir, 'registry-copy.db');
  const db = new Database(dest);
  db.prepare('ATTACH DATABASE ? AS src').run(src);
  const ddl = db.prepare("SELECT sql FROM src.sqlite_schema WHERE type = 'table' AND name = 'namespaces'").pluck().get() as string;
  db.exec(ddl);
  db.exec('INSERT INTO main.namespaces SELECT * FROM src.namespaces');
  db.exec('DETACH DATABASE src');
  const n = db.prepare('SELECT count(*) FROM namespaces').pluck().get() as number;
  db.close();
  if (n !== COUNT) throw new Error(`registry copy has ${n} rows, expected ${COUNT}`);
  return dest;
}

async function metricValue(base: string, name: string): Promise<number> {
  const agent = keepAliveAgent(1);
  const res = await request(agent, `${base}/metrics`);
  agent.destroy();
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.eE+-]+)$`, 'm').exec(res.body);
  if (res.status !== 200 || !m) throw new Error(`${name} not found in /metrics (status ${res.status})`);
  return Number(m[1]);
}

const elapsed = () => `[${fmtS(now() - t0)}]`;
const fdRow = (p: FdPhase) => [
  p.label,
  String(p.first?.total ?? 'n/a'),
  String(p.peak),
  String(p.peakNonSocket),
  String(p.peakWatched),
  String(p.last?.total ?? 'n/a'),
  String(p.samples),
];

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  console.log(`namespaces benchmark: ${COUNT} namespaces, ${CONNECTIONS} connections for create, pages of ${PAGE}, ${ROUNDS} list rounds`);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, data in ${tmp.dir}`);

  // 1. Hearth in a child process; sample its descriptors throughout.
  heading(`create ${COUNT} namespaces`);
  let hearth = await startHearth();
  sampler.watch(hearth.pid, 'A: started, idle');
  await sleep(500);
  sampler.phase('A: create over HTTP');
  const create = await loadLoop({ total: COUNT, connections: CONNECTIONS }, async (i, agent) => {
    const res = await request(agent, `${hearth.url}/v1/namespaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: nameOf(i) }),
    });
    if (res.status !== 201) throw new Error(`POST /v1/namespaces ${nameOf(i)} → ${res.status} ${res.body.slice(0, 200)}`);
  });
  sampler.phase('A: after create, idle');
  await sleep(500);
  const afterCreate = await handleStats(hearth);
  sampler.stop();
  await stopChild(hearth);
  const hc = summarize(create.latencies);
  const hearthCreateRate = (COUNT / create.elapsedMs) * 1000;
  console.log(
    `${elapsed()} hearth:   ${fmtS(create.elapsedMs)}, ${fmtRate(hearthCreateRate, 'creates')}, latency p50 ${fmtMs(hc.p50)} p99 ${fmtMs(hc.p99)} max ${fmtMs(hc.max)} (${CONNECTIONS} connections)`,
  );
  console.log(`           tenant databases opened through the handle manager while creating: ${afterCreate.opened}, open now: ${afterCreate.open}`);

  // 2. Baseline: the raw work, in-process, one namespace at a time.
  const base = baselineCreate();
  const bc = summarize(base.latencies);
  const baseCreateRate = (COUNT / base.elapsedMs) * 1000;
  console.log(
    `${elapsed()} baseline: ${fmtS(base.elapsedMs)}, ${fmtRate(baseCreateRate, 'creates')}, latency p50 ${fmtMs(bc.p50)} p99 ${fmtMs(bc.p99)} max ${fmtMs(bc.max)} (in-process, serial)`,
  );
  console.log(`           hearth/baseline creates/s: ${ratio(hearthCreateRate, baseCreateRate)}`);

  // 3 + 4. Restart Hearth on the same data (no handle open), start the list baseline on a copy of the registry.
  heading(`list ${COUNT} namespaces in pages of ${PAGE} (${PAGES} pages per walk)`);
  const copy = copyRegistry();
  hearth = await startHearth();
  sampler.watch(hearth.pid, 'B: restarted, idle');
  const baseline = await startChild('baseline-list-child.ts', { dbFile: copy });
  children.add(baseline);
  await sleep(500);
  const beforeList = await handleStats(hearth);

  // Warm-up walk on each (not counted), and a check that both answer the same bytes.
  const warmAgent = keepAliveAgent(1);
  const warmH = await walk(hearth.url, warmAgent, auth);
  const warmB = await walk(baseline.url, warmAgent, {});
  warmAgent.destroy();
  const sameBody = warmH.firstBody === warmB.firstBody;

  const listing = sampler.phase('B: listing');
  const hWalks: Walk[] = [];
  const bWalks: Walk[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved so that both see the same machine conditions; one keep-alive connection per walk.
    const ha = keepAliveAgent(1);
    hWalks.push(await walk(hearth.url, ha, auth));
    ha.destroy();
    const ba = keepAliveAgent(1);
    bWalks.push(await walk(baseline.url, ba, {}));
    ba.destroy();
  }
  const hConc = await concurrentWalks(hearth.url, auth);
  const bConc = await concurrentWalks(baseline.url, {});
  const deepCursor = warmH.cursors[DEEP_PAGE - 1]!;
  const hSpot = DEEP_PAGE > 1 ? await spot(hearth.url, auth, deepCursor) : null;
  const bSpot = DEEP_PAGE > 1 ? await spot(baseline.url, {}, warmB.cursors[DEEP_PAGE - 1]!) : null;
  sampler.phase('B: after listing, idle');
  await sleep(300);
  const afterList = await handleStats(hearth);
  const gauge = await metricValue(hearth.url, 'hearth_namespace_handles_open');
  sampler.stop();

  const h: ListFigures = {
    ...collect(hWalks),
    concurrentPagesPerSec: hConc.pagesPerSec,
    concurrentPage: hConc.page,
    bytesPerPage: warmH.bytes / PAGES,
    firstBody: warmH.firstBody,
    cursors: warmH.cursors,
  };
  const b: ListFigures = {
    ...collect(bWalks),
    concurrentPagesPerSec: bConc.pagesPerSec,
    concurrentPage: bConc.page,
    bytesPerPage: warmB.bytes / PAGES,
    firstBody: warmB.firstBody,
    cursors: warmB.cursors,
  };
  console.log(`${elapsed()} ${ROUNDS} sequential walks each (1 connection), then ${WALKERS} walks at once (${WALKERS} connections)`);
  console.log(
    `           responses: ${h.bytesPerPage.toFixed(0)} bytes/page from hearth, ${b.bytesPerPage.toFixed(0)} from baseline; first page byte-identical: ${sameBody ? 'yes' : 'NO'}`,
  );
  printTable([
    ['', 'page p50', 'page p99', 'page max', 'pages/s', `walk p50 (${PAGES} pages)`, `pages/s, ${WALKERS} walkers`, `page p99, ${WALKERS} walkers`],
    [
      'hearth',
      fmtMs(h.page.p50),
      fmtMs(h.page.p99),
      fmtMs(h.page.max),
      fmtRate(h.pagesPerSec, 'pages'),
      fmtMs(h.walkMs.p50),
      fmtRate(h.concurrentPagesPerSec, 'pages'),
      fmtMs(h.concurrentPage.p99),
    ],
    [
      'baseline',
      fmtMs(b.page.p50),
      fmtMs(b.page.p99),
      fmtMs(b.page.max),
      fmtRate(b.pagesPerSec, 'pages'),
      fmtMs(b.walkMs.p50),
      fmtRate(b.concurrentPagesPerSec, 'pages'),
      fmtMs(b.concurrentPage.p99),
    ],
    [
      'hearth/baseline',
      ratio(h.page.p50, b.page.p50),
      ratio(h.page.p99, b.page.p99),
      ratio(h.page.max, b.page.max),
      ratio(h.pagesPerSec, b.pagesPerSec),
      ratio(h.walkMs.p50, b.walkMs.p50),
      ratio(h.concurrentPagesPerSec, b.concurrentPagesPerSec),
      ratio(h.concurrentPage.p99, b.concurrentPage.p99),
    ],
  ]);
  if (hSpot && bSpot) {
    console.log(`\n  page 1 vs page ${DEEP_PAGE} (keyset paging: should be flat), ${SPOT} samples each, alternating on one connection`);
    const row = (who: string, x: { first: Stats; deep: Stats }) => [
      who,
      fmtMs(x.first.p50),
      fmtMs(x.deep.p50),
      fmtMs(x.deep.p50 - x.first.p50),
      ratio(x.deep.p50, x.first.p50),
      fmtMs(x.first.p99),
      fmtMs(x.deep.p99),
    ];
    printTable([
      ['', 'page 1 p50', `page ${DEEP_PAGE} p50`, 'difference', `page ${DEEP_PAGE} / page 1`, 'page 1 p99', `page ${DEEP_PAGE} p99`],
      row('hearth', hSpot),
      row('baseline', bSpot),
    ]);
    // A measured observation, not a pass/fail: a deep page that costs clearly more than the first means the
    // query walks the rows before the cursor instead of seeking to it.
    if (hSpot.deep.p50 > hSpot.first.p50 * 1.25 && hSpot.deep.p50 - hSpot.first.p50 > 0.1) {
      console.log(
        `  note: hearth's page ${DEEP_PAGE} costs ${fmtMs(hSpot.deep.p50 - hSpot.first.p50)} more than page 1 at p50 (baseline: ${fmtMs(bSpot.deep.p50 - bSpot.first.p50)}): not flat`,
      );
    }
  }

  // 4. Proof that listing opened no tenant database.
  heading('proof: listing opens no tenant database (hearth restarted on the same data, then listed)');
  const openedDuringListing = afterList.opened - beforeList.opened;
  const fdBefore = listing.first!;
  const nonSocketBefore = fdBefore.total - fdBefore.sockets;
  const listedPages = (ROUNDS + 1 + WALKERS) * PAGES + (hSpot ? 2 * SPOT : 0);
  const checks: Array<[string, string, boolean]> = [
    [
      'tenant databases opened during listing (handle manager counter, via IPC)',
      `${beforeList.opened} → ${afterList.opened}: ${openedDuringListing}`,
      openedDuringListing === 0,
    ],
    ['hearth_namespace_handles_open from /metrics after listing', String(gauge), gauge === 0],
    ['peak descriptors on tenant database files during listing', String(listing.peakWatched), listing.peakWatched === 0],
    [
      'descriptors other than sockets: before listing → peak during listing',
      `${nonSocketBefore} → ${listing.peakNonSocket}`,
      listing.peakNonSocket <= nonSocketBefore,
    ],
  ];
  console.log(`  ${listedPages} pages served by the restarted hearth (warm-up, ${ROUNDS} rounds, ${WALKERS} concurrent walks, page 1/${DEEP_PAGE} samples)`);
  printTable([['check', 'measured', 'ok'], ...checks.map(([what, got, ok]) => [what, got, ok ? 'yes' : 'NO'])]);
  console.log(`  all descriptors (sockets included): ${fdBefore.total} before listing, peak ${listing.peak} during (each client connection is one socket)`);
  console.log(`\n  tenant databases opened during listing: ${openedDuringListing}`);
  const proofOk = checks.every(([, , ok]) => ok);
  if (!proofOk) {
    console.error('\n  !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!');
    console.error('  !!! PROOF FAILED: listing namespaces touched tenant databases (see the checks above) !!!');
    console.error('  !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!');
  }

  // 5. Descriptors and summary.
  heading('open file descriptors of the hearth process (sampled every 50 ms)');
  printTable([['phase', 'first', 'peak', 'peak non-socket', 'peak on tenant files', 'last', 'samples'], ...sampler.phases.map(fdRow)]);
  const idle = sampler.phases[0]!.first?.total ?? NaN;
  console.log(`  idle after start: ${idle}; peak over the whole run: ${sampler.peak} (max open namespaces: ${MAX_OPEN})`);

  heading('summary');
  printTable([
    ['figure', 'hearth', 'baseline', 'hearth/baseline'],
    [`create ${COUNT}: total time`, fmtS(create.elapsedMs), fmtS(base.elapsedMs), ratio(create.elapsedMs, base.elapsedMs)],
    ['create: throughput', fmtRate(hearthCreateRate, 'creates'), fmtRate(baseCreateRate, 'creates'), ratio(hearthCreateRate, baseCreateRate)],
    ['create: latency p50', fmtMs(hc.p50), fmtMs(bc.p50), `(${CONNECTIONS} in flight vs 1)`],
    ['create: latency p99', fmtMs(hc.p99), fmtMs(bc.p99), `(${CONNECTIONS} in flight vs 1)`],
    [`list page of ${PAGE}: latency p50`, fmtMs(h.page.p50), fmtMs(b.page.p50), ratio(h.page.p50, b.page.p50)],
    [`list page of ${PAGE}: latency p99`, fmtMs(h.page.p99), fmtMs(b.page.p99), ratio(h.page.p99, b.page.p99)],
    ['list: throughput, 1 connection', fmtRate(h.pagesPerSec, 'pages'), fmtRate(b.pagesPerSec, 'pages'), ratio(h.pagesPerSec, b.pagesPerSec)],
    [
      `list: throughput, ${WALKERS} connections`,
      fmtRate(h.concurrentPagesPerSec, 'pages'),
      fmtRate(b.concurrentPagesPerSec, 'pages'),
      ratio(h.concurrentPagesPerSec, b.concurrentPagesPerSec),
    ],
    ...(hSpot && bSpot
      ? [[`list: page ${DEEP_PAGE} / page 1 latency (p50)`, ratio(hSpot.deep.p50, hSpot.first.p50), ratio(bSpot.deep.p50, bSpot.first.p50), '']]
      : []),
    ['tenant databases opened by listing', String(openedDuringListing), '', ''],
    ['open descriptors: idle / peak', `${idle} / ${sampler.peak}`, '', ''],
  ]);
  console.log(`  Ratios are hearth ÷ baseline. Create: hearth over HTTP with ${CONNECTIONS} connections (latency includes queueing`);
  console.log(
    '  behind the other requests); baseline in-process, one at a time. List: same rows, same JSON bytes; baseline query\n  `SELECT * FROM namespaces WHERE name > ? ORDER BY name LIMIT 101`.',
  );
  console.log(`${elapsed()} done`);
  return proofOk ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nnamespaces benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
