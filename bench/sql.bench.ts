/**
 * Read-only SQL isolation: while one namespace runs a 5-second query, how fast are requests to another namespace?
 * Target: p99 under 50 ms. Every figure is reported against a baseline measured in the same run.
 *
 *   baseline   requests to namespace `other` for BENCH_SQL_SECONDS, no long query running
 *   long       the same requests while namespace `long` runs one ~5-second query (a recursive CTE, calibrated
 *              on this machine so it really completes in about that time; query_timeout raised so it is not killed)
 *   two long   the same again while `long` runs two such queries at once (a namespace may hold all but one of
 *              the query processes, 4 by default, so `other` keeps a process)
 *
 * Then how promptly a read is stopped (the speed side of test/integration/db/sql.test.ts, which asserts only the
 * states and the order), in BENCH_SQL_STOP_ROUNDS rounds after one warm-up round, each figure as median and
 * min–max against the baseline of the same rounds:
 *   baseline   POST /v1/stop/query {sql: 'SELECT 1'}: a plain read's round trip through a query process
 *   timeout    an endless read in `stop` (query_timeout 300 ms): when its 504 query_timeout arrives, and by how
 *              much it comes after the limit (the overrun: the kill, the answer and the HTTP round trip)
 *   abandoned  the client of an endless read in `hold` goes away: how long until /metrics shows its query process
 *              free (hearth_sql_busy 0: the server saw the connection close and killed the process), polled
 *              back to back (each poll a /metrics round trip)
 *
 * The requests to `other` are, alternately on each of BENCH_SQL_CONNECTIONS keep-alive connections:
 *   query  POST /v1/other/query  {sql: 'SELECT count(*) … FROM items WHERE id < ?'}  (runs in a query process)
 *   get    GET  /v1/namespaces/other                                                (event loop only)
 *
 * Hearth runs in its own process (test/helpers/server-child.ts); this process only generates load.
 * Knobs (environment): BENCH_SQL_SECONDS (5, the long query's target duration), BENCH_SQL_CONNECTIONS (4),
 * BENCH_SQL_STOP_ROUNDS (7).
 */
import crypto from 'node:crypto';
import type http from 'node:http';
import path from 'node:path';
import {
  type BenchChild,
  benchRun,
  envInt,
  fmtMs,
  fmtRate,
  heading,
  keepAliveAgent,
  now,
  printTable,
  ratio,
  request,
  type Stats,
  sleep,
  startChild,
  summarize,
} from './lib.ts';

const SECONDS = envInt('BENCH_SQL_SECONDS', 5);
const CONNECTIONS = envInt('BENCH_SQL_CONNECTIONS', 4);
const STOP_ROUNDS = envInt('BENCH_SQL_STOP_ROUNDS', 7);
const TARGET_P99_MS = 50;
/** The query_timeout of namespace `stop`. */
const STOP_LIMIT_MS = 300;
const ENDLESS = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) AS n FROM c';

const run = benchRun('hearth-bench-sql-');
const tmp = run.tmp;
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const auth = { authorization: `Bearer ${token}` };
const json = { ...auth, 'content-type': 'application/json' };
let hearth: BenchChild | null = null;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

const countTo = (n: number) => `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < ${n}) SELECT count(*) AS n FROM c`;

async function call(agent: http.Agent, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: string; ms: number }> {
  const t = now();
  const res = await request(agent, hearth!.url + pathname, {
    method,
    headers: body === undefined ? auth : json,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: res.body, ms: now() - t };
}

async function must(agent: http.Agent, method: string, pathname: string, body: unknown, status: number): Promise<string> {
  const res = await call(agent, method, pathname, body);
  if (res.status !== status) throw new Error(`${method} ${pathname} → ${res.status} (expected ${status}): ${res.body.slice(0, 300)}`);
  return res.body;
}

interface Load {
  query: number[];
  get: number[];
  elapsedMs: number;
}

/** Requests to `other` on CONNECTIONS connections until `until` resolves (or for `ms`). */
async function loadOther(until: Promise<unknown>): Promise<Load> {
  const out: Load = { query: [], get: [], elapsedMs: 0 };
  let stop = false;
  void until.finally(() => (stop = true));
  const agents = Array.from({ length: CONNECTIONS }, () => keepAliveAgent(1));
  const start = now();
  let i = 0;
  await Promise.all(
    agents.map(async (agent, w) => {
      let k = w;
      while (!stop) {
        const n = i++;
        if (k++ % 2 === 0) {
          const r = await call(agent, 'POST', '/v1/other/query', {
            sql: 'SELECT count(*) AS n, max(id) AS m FROM items WHERE id < ?',
            params: [1 + (n % 1000)],
          });
          if (r.status !== 200) throw new Error(`query on other → ${r.status}: ${r.body.slice(0, 200)}`);
          out.query.push(r.ms);
        } else {
          const r = await call(agent, 'GET', '/v1/namespaces/other');
          if (r.status !== 200) throw new Error(`GET other → ${r.status}`);
          out.get.push(r.ms);
        }
      }
    }),
  );
  out.elapsedMs = now() - start;
  for (const a of agents) a.destroy();
  return out;
}

interface Long {
  status: number;
  ms: number;
}

/** Polls /metrics (public) until `ok` holds for the gauges named (a state, never a fixed wait); gives up after 30 s. */
async function untilGauges(agent: http.Agent, names: string[], ok: (g: Record<string, number>) => boolean, what: string): Promise<void> {
  const end = now() + 30_000;
  for (;;) {
    const text = (await request(agent, `${hearth!.url}/metrics`)).body;
    const g = Object.fromEntries(names.map((n) => [n, Number(new RegExp(`^${n} (\\S+)$`, 'm').exec(text)?.[1])]));
    if (ok(g)) return;
    if (now() > end) throw new Error(`timed out waiting for ${what} (${JSON.stringify(g)})`);
    await sleep(2);
  }
}

interface StopRound {
  /** A plain read's round trip. */
  baseline: number;
  /** Start of the endless read to its 504. */
  timeout: number;
  /** The abandoning client's disconnect to its query process seen free. */
  abandoned: number;
}

/** One round of the stopping figures (see the header); `agent` makes the requests measured, `watch` polls /metrics. */
async function stopRound(agent: http.Agent, watch: http.Agent): Promise<StopRound> {
  const idle = () => untilGauges(watch, ['hearth_sql_busy', 'hearth_sql_idle'], (g) => g.hearth_sql_busy === 0 && g.hearth_sql_idle >= 1, 'an idle pool');
  await idle();
  const base = await call(agent, 'POST', '/v1/stop/query', { sql: 'SELECT 1 AS one' });
  if (base.status !== 200) throw new Error(`SELECT 1 → ${base.status}: ${base.body.slice(0, 200)}`);

  await idle();
  const timedOut = await call(agent, 'POST', '/v1/stop/query', { sql: ENDLESS });
  if (timedOut.status !== 504 || !timedOut.body.includes('query_timeout')) throw new Error(`endless read → ${timedOut.status}: ${timedOut.body.slice(0, 200)}`);

  await idle();
  const holder = keepAliveAgent(1);
  const held = call(holder, 'POST', '/v1/hold/query', { sql: ENDLESS }).catch((err: Error) => err);
  await untilGauges(watch, ['hearth_sql_busy'], (g) => g.hearth_sql_busy === 1, 'the endless read in "hold"');
  const t = now();
  holder.destroy(); // its client goes away
  await untilGauges(watch, ['hearth_sql_busy'], (g) => g.hearth_sql_busy === 0, 'the abandoned read to be stopped');
  const abandoned = now() - t;
  const r = await held;
  if (!(r instanceof Error)) throw new Error(`the endless read was answered (${r.status}) instead of abandoned`);
  return { baseline: base.ms, timeout: timedOut.ms, abandoned };
}

function longQuery(agent: http.Agent, n: number): Promise<Long> {
  return call(agent, 'POST', '/v1/long/query', { sql: countTo(n) }).then((r) => ({ status: r.status, ms: r.ms }));
}

async function main(): Promise<number> {
  console.log(`${elapsed()} starting hearth (its own process), ${CONNECTIONS} connections to namespace "other"`);
  hearth = await startChild('../test/helpers/server-child.ts', { dataDir: path.join(tmp.dir, 'hearth'), adminToken: token });
  run.children.add(hearth);
  const setup = keepAliveAgent(1);
  for (const name of ['long', 'other']) await must(setup, 'POST', '/v1/namespaces', { name, config: { query_timeout: 60_000 } }, 201);
  await must(setup, 'POST', '/v1/other/tables', { type: 'table', name: 'items', columns: [{ name: 'label', type: 'text' }] }, 201);
  // Rows come through the rows API (the query endpoint cannot write); without it the table stays empty.
  const rows = await call(setup, 'POST', '/v1/other/tables/items/rows', { rows: Array.from({ length: 1000 }, (_, i) => ({ label: `item ${i}` })) });
  const seeded = rows.status >= 200 && rows.status < 300;
  if (!seeded) console.log(`           (rows API answered ${rows.status}: ${rows.body.slice(0, 160)})`);

  // Warm up: both query processes started, the paths of both request kinds exercised.
  const spare = keepAliveAgent(1);
  await Promise.all([must(setup, 'POST', '/v1/long/query', { sql: 'SELECT 1' }, 200), must(spare, 'POST', '/v1/other/query', { sql: 'SELECT 1' }, 200)]);
  await loadOther(sleep(500));

  // Calibrate the long query on this machine: rows per second of the recursive CTE, in the query process.
  const probeN = 2_000_000;
  const probe = await longQuery(setup, probeN);
  if (probe.status !== 200) throw new Error(`calibration query → ${probe.status}`);
  const longN = Math.max(probeN, Math.round((probeN * SECONDS * 1000) / probe.ms));
  console.log(
    `${elapsed()} calibration: count to ${probeN.toLocaleString('en')} took ${fmtMs(probe.ms)}; the long query counts to ${longN.toLocaleString('en')}`,
  );
  console.log(`           "other" holds ${seeded ? '1000 rows (rows API)' : '0 rows (rows API unavailable)'}`);

  heading(`baseline: requests to "other" for ${SECONDS} s, nothing else running`);
  const base = await loadOther(sleep(SECONDS * 1000));
  console.log(`${elapsed()} ${base.query.length + base.get.length} requests`);

  heading(`long: the same while "long" runs one ~${SECONDS}-second query`);
  const longAgent = keepAliveAgent(1);
  const one = longQuery(longAgent, longN);
  await sleep(50);
  const during = await loadOther(one);
  const oneResult = await one;
  console.log(
    `${elapsed()} long query: ${oneResult.status} in ${fmtMs(oneResult.ms)}; ${during.query.length + during.get.length} requests to "other" meanwhile`,
  );

  heading(`two long: the same while "long" runs two such queries at once`);
  const a2 = keepAliveAgent(1);
  const two = Promise.all([longQuery(longAgent, longN), longQuery(a2, longN)]);
  await sleep(50);
  const during2 = await loadOther(two);
  const twoResult = await two;
  console.log(
    `${elapsed()} long queries: ${twoResult.map((r) => `${r.status} in ${fmtMs(r.ms)}`).join(', ')} (the second waits for the first); ${during2.query.length + during2.get.length} requests to "other" meanwhile`,
  );

  heading(`stopping: a read at its ${STOP_LIMIT_MS} ms query_timeout, and a read whose client goes away (${STOP_ROUNDS} rounds after 1 warm-up)`);
  for (const name of ['stop', 'hold'])
    await must(setup, 'POST', '/v1/namespaces', { name, config: { query_timeout: name === 'stop' ? STOP_LIMIT_MS : 60_000 } }, 201);
  const watch = keepAliveAgent(1);
  await stopRound(setup, watch);
  const rounds: StopRound[] = [];
  for (let r = 0; r < STOP_ROUNDS; r++) rounds.push(await stopRound(setup, watch));
  console.log(`${elapsed()} ${rounds.length} rounds`);
  for (const a of [setup, spare, longAgent, a2, watch]) a.destroy();

  const all = (l: Load) => [...l.query, ...l.get];
  const st = {
    base: {
      all: summarize(all(base)),
      query: summarize(base.query),
      get: summarize(base.get),
      rate: ((base.query.length + base.get.length) / base.elapsedMs) * 1000,
    },
    one: {
      all: summarize(all(during)),
      query: summarize(during.query),
      get: summarize(during.get),
      rate: ((during.query.length + during.get.length) / during.elapsedMs) * 1000,
    },
    two: {
      all: summarize(all(during2)),
      query: summarize(during2.query),
      get: summarize(during2.get),
      rate: ((during2.query.length + during2.get.length) / during2.elapsedMs) * 1000,
    },
  };
  const row = (label: string, s: Stats, b: Stats) => [label, String(s.n), fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max), ratio(s.p99, b.p99)];

  heading('latency of requests to "other"');
  printTable([
    ['scenario / request', 'n', 'p50', 'p99', 'max', 'p99 / baseline p99'],
    row('baseline: all', st.base.all, st.base.all),
    row('baseline: query', st.base.query, st.base.query),
    row('baseline: get namespace', st.base.get, st.base.get),
    row('1 long query: all', st.one.all, st.base.all),
    row('1 long query: query', st.one.query, st.base.query),
    row('1 long query: get namespace', st.one.get, st.base.get),
    row('2 long queries: all', st.two.all, st.base.all),
    row('2 long queries: query', st.two.query, st.base.query),
    row('2 long queries: get namespace', st.two.get, st.base.get),
  ]);

  const spread = (xs: number[]) => {
    const v = summarize(xs);
    return { med: v.p50, text: `${fmtMs(v.p50)} (${fmtMs(v.min)}–${fmtMs(v.max)})` };
  };
  const stopBase = spread(rounds.map((r) => r.baseline));
  const stopTimeout = spread(rounds.map((r) => r.timeout));
  const overrun = spread(rounds.map((r) => r.timeout - STOP_LIMIT_MS));
  const abandoned = spread(rounds.map((r) => r.abandoned));
  heading('stopping reads: median (min–max) of the rounds');
  printTable([
    ['figure', 'measured', 'baseline: SELECT 1', 'measured / baseline'],
    [`504 of an endless read, query_timeout ${STOP_LIMIT_MS} ms`, stopTimeout.text, '', `${ratio(stopTimeout.med, STOP_LIMIT_MS)} the limit`],
    ['  overrun past the limit', overrun.text, stopBase.text, ratio(overrun.med, stopBase.med)],
    ['abandoned read: disconnect → its query process free', abandoned.text, stopBase.text, ratio(abandoned.med, stopBase.med)],
  ]);

  heading('summary');
  const met = (p99: number) => (p99 < TARGET_P99_MS ? 'met' : 'NOT met');
  printTable([
    ['figure', 'measured', 'baseline', 'measured/baseline', `target p99 < ${TARGET_P99_MS} ms`],
    [
      'p99, requests to "other" during a 5-s query in "long"',
      fmtMs(st.one.all.p99),
      fmtMs(st.base.all.p99),
      ratio(st.one.all.p99, st.base.all.p99),
      met(st.one.all.p99),
    ],
    [
      'p99, the same during two 5-s queries in "long"',
      fmtMs(st.two.all.p99),
      fmtMs(st.base.all.p99),
      ratio(st.two.all.p99, st.base.all.p99),
      met(st.two.all.p99),
    ],
    ['throughput to "other" during one long query', fmtRate(st.one.rate, 'req'), fmtRate(st.base.rate, 'req'), ratio(st.one.rate, st.base.rate), ''],
    ['long query duration', fmtMs(oneResult.ms), '', '', ''],
    [`504 overrun past a ${STOP_LIMIT_MS} ms query_timeout (median)`, fmtMs(overrun.med), fmtMs(stopBase.med), ratio(overrun.med, stopBase.med), ''],
    ['abandoned read: disconnect → its query process free (median)', fmtMs(abandoned.med), fmtMs(stopBase.med), ratio(abandoned.med, stopBase.med), ''],
  ]);
  console.log(`  Requests alternate POST /v1/other/query and GET /v1/namespaces/other on ${CONNECTIONS} keep-alive connections.`);
  console.log('  One namespace may use all but one of the query processes (HEARTH_QUERY_PROCESSES, 4): the long queries run in');
  console.log('  processes of their own and the queries to "other" in the rest.');
  console.log(`${elapsed()} done`);
  return oneResult.status === 200 && twoResult.every((r) => r.status === 200) ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nsql benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
