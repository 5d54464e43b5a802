/**
 * Routing shortcuts: what the hot dispatcher (server/core/http/hot.ts: a few routes answered before Koa) and the
 * router prefilter (`prefilterMatch`, server/core/http/api.ts) earn, against Hearth with them switched off
 * (`StartOptions.routing`) in the same run. Three Hearth processes (test/helpers/server-child.ts), same data:
 *
 *   shipped    hot routes and prefilter on, as Hearth runs
 *   no-hot     prefilter only: the token endpoint and the row read go through Koa
 *   neither    no hot routes, no prefilter: @koa/router's own matcher
 *
 * on two routes:
 *
 *   token      POST /oauth/token `grant_type=client_credentials&scope=read`, HTTP Basic client authentication (a
 *              confidential client bound to a namespace service account; RS256 JWT, RSA 2048)
 *   row        GET /v1/bench/tables/items/rows/{id} with the admin token (ids spread over the table)
 *
 * The hot routes' gain is shipped ÷ no-hot; the prefilter's is no-hot ÷ neither (both through Koa, where the
 * prefilter works). Every round runs one slice of each server on each route, the servers' order rotating from round
 * to round, after a warm-up of each, so that background load on the machine falls on every figure alike. Printed per
 * server and route: the median requests/s of the rounds with their min–max, the median of the rounds' p50 latency,
 * and the server's CPU time per request (/proc: steadier than rates on a busy machine); per shortcut: the median of
 * the per-round ratios and their min–max. Every answer must be 200; sample rows are compared across servers.
 *
 * Knobs (environment): BENCH_ROUTING_ROUNDS (7), BENCH_ROUTING_SLICE_MS (1500), BENCH_ROUTING_CONNECTIONS (8),
 * BENCH_ROUTING_WARMUP_MS (2000), BENCH_ROUTING_ROWS (10000).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import {
  type BenchChild,
  benchRun,
  envInt,
  fmtMs,
  fmtRate,
  heading,
  keepAliveAgent,
  median,
  now,
  printTable,
  processCpuMs,
  startChild,
  summarize,
} from './lib.ts';
import { checkToken, createBenchClient, tokenRequest } from './oauth-common.ts';
import { createItemsNamespace, type Hearth, items, postRows, rowId, rowRequests } from './rows-common.ts';
import { Loader, type RateResult, RawConnection } from './rows-http.ts';

const ROUNDS = envInt('BENCH_ROUTING_ROUNDS', 7);
const SLICE_MS = envInt('BENCH_ROUTING_SLICE_MS', 1500);
const CONNECTIONS = envInt('BENCH_ROUTING_CONNECTIONS', 8);
const WARMUP_MS = envInt('BENCH_ROUTING_WARMUP_MS', 2000);
const TABLE_ROWS = envInt('BENCH_ROUTING_ROWS', 10_000);
const NS = 'bench';

const run = benchRun('hearth-bench-routing-');
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

type Config = 'shipped' | 'no-hot' | 'neither';
const CONFIGS: Array<{ key: Config; routing: { hot: boolean; prefilter: boolean } }> = [
  { key: 'shipped', routing: { hot: true, prefilter: true } },
  { key: 'no-hot', routing: { hot: false, prefilter: true } },
  { key: 'neither', routing: { hot: false, prefilter: false } },
];
type Route = 'token' | 'row';
const ROUTES: Array<{ key: Route; label: string }> = [
  { key: 'token', label: 'POST /oauth/token (client_credentials)' },
  { key: 'row', label: `GET /v1/${NS}/tables/items/rows/:id` },
];
/** Each shortcut: the server with it, the one without it, compared on both routes. */
const SHORTCUTS: Array<{ label: string; on: Config; off: Config }> = [
  { label: 'hot routes (shipped ÷ no-hot)', on: 'shipped', off: 'no-hot' },
  { label: 'prefilter (no-hot ÷ neither)', on: 'no-hot', off: 'neither' },
];

interface Server {
  key: Config;
  child: BenchChild;
  req: Record<Route, (i: number) => Buffer>;
}

interface Slice {
  rate: RateResult;
  p50: number;
  cpuMs: number;
}

const rowPath = (i: number) => `/v1/${NS}/tables/items/rows/${rowId(i, TABLE_ROWS)}`;

async function setUp(key: Config, routing: { hot: boolean; prefilter: boolean }): Promise<Server> {
  const child = await startChild('../test/helpers/server-child.ts', { dataDir: path.join(run.tmp.dir, key), adminToken: token, routing });
  run.children.add(child);
  const h: Hearth = { url: child.url, agent: keepAliveAgent(1), auth: { authorization: `Bearer ${token}` } };
  try {
    await createItemsNamespace(h, NS);
    await postRows(h, NS, JSON.stringify({ rows: items(0, TABLE_ROWS) }));
  } finally {
    h.agent.destroy();
  }
  const client = await createBenchClient(child.url, token, NS);
  await checkToken(key, child.url, tokenRequest(child.url, '/oauth/token', client.authorization), `${child.url}/.well-known/jwks.json`, client.audience);
  const token1 = tokenRequest(child.url, '/oauth/token', client.authorization);
  return { key, child, req: { token: () => token1, row: rowRequests(child.url, NS, TABLE_ROWS, [`Authorization: Bearer ${token}`]) } };
}

async function slice(s: Server, route: Route, ms: number): Promise<Slice> {
  // Fresh connections for every slice, opened before the clock starts.
  const loader = await Loader.open(s.child.url, CONNECTIONS);
  const c0 = processCpuMs(s.child.pid);
  try {
    const rate = await loader.run(ms, s.req[route]);
    return { rate, p50: summarize(rate.latencies).p50, cpuMs: processCpuMs(s.child.pid) - c0 };
  } finally {
    loader.close();
  }
}

const spread = (xs: number[], digits = 2) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

async function main(): Promise<number> {
  console.log(
    `routing benchmark: ${ROUNDS} rounds of ${fmtMs(SLICE_MS)} slices per server and route, ${CONNECTIONS} keep-alive connections, ${WARMUP_MS} ms warm-up each; ${TABLE_ROWS} rows`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${run.tmp.dir}`,
  );

  const servers: Server[] = [];
  for (const c of CONFIGS) {
    servers.push(await setUp(c.key, c.routing));
    console.log(
      `${elapsed()} ${c.key} started (hot ${c.routing.hot ? 'on' : 'off'}, prefilter ${c.routing.prefilter ? 'on' : 'off'}): ${TABLE_ROWS} rows, a confidential client`,
    );
  }

  // The same row answers from every server (the token answers were verified against each JWKS above).
  for (const i of [0, 1, 99, 4321]) {
    const bodies: string[] = [];
    for (const s of servers) {
      const c = await RawConnection.open(s.child.url);
      try {
        const r = await c.send(s.req.row(i));
        if (r.status !== 200) throw new Error(`${s.key}: ${rowPath(i)} → ${r.status}`);
        // The rows were inserted at different moments: the timestamps differ, nothing else.
        bodies.push(r.body.toString('utf8').replace(/"(created|updated)_at":"[^"]*"/g, ''));
      } finally {
        c.close();
      }
    }
    if (new Set(bodies).size !== 1) throw new Error(`${rowPath(i)}: the servers answer differently:\n${bodies.join('\n')}`);
  }

  for (const r of ROUTES) for (const s of servers) await slice(s, r.key, WARMUP_MS);
  console.log(`${elapsed()} warmed up`);

  const results = new Map<string, Slice[]>();
  const at = (c: Config, r: Route) => results.get(`${c} ${r}`) ?? results.set(`${c} ${r}`, []).get(`${c} ${r}`)!;
  for (let k = 0; k < ROUNDS; k++) {
    for (const r of ROUTES) {
      for (let j = 0; j < servers.length; j++) {
        const s = servers[(j + k) % servers.length]!;
        at(s.key, r.key).push(await slice(s, r.key, SLICE_MS));
      }
    }
    const line = ROUTES.map((r) => `${r.key} ${CONFIGS.map((c) => fmtRate(at(c.key, r.key).at(-1)!.rate.perSec, 'req')).join(' / ')}`).join('; ');
    console.log(`${elapsed()} round ${k + 1}: ${line} (${CONFIGS.map((c) => c.key).join(' / ')})`);
  }

  heading(`per server: median of ${ROUNDS} rounds (min–max)`);
  const rows: string[][] = [['route', 'server', 'requests/s', 'p50 ms', 'p99 ms (all rounds)', 'server CPU µs/req']];
  for (const r of ROUTES) {
    for (const c of CONFIGS) {
      const list = at(c.key, r.key);
      const requests = list.reduce((a, x) => a + x.rate.requests, 0);
      const cpu = list.reduce((a, x) => a + x.cpuMs, 0);
      rows.push([
        r.label,
        c.key,
        spread(
          list.map((x) => x.rate.perSec),
          0,
        ),
        spread(list.map((x) => x.p50)),
        summarize(list.flatMap((x) => x.rate.latencies)).p99.toFixed(2),
        ((cpu * 1000) / requests).toFixed(0),
      ]);
    }
  }
  printTable(rows);

  heading('per shortcut: median of the per-round ratios (min–max); above 1 the shortcut helps');
  const gains: string[][] = [['shortcut', 'route', 'requests/s on ÷ off', 'p50 off ÷ on', 'CPU/req off ÷ on (all rounds)']];
  for (const sc of SHORTCUTS) {
    for (const r of ROUTES) {
      const on = at(sc.on, r.key);
      const off = at(sc.off, r.key);
      const cpuPer = (l: Slice[]) => l.reduce((a, x) => a + x.cpuMs, 0) / l.reduce((a, x) => a + x.rate.requests, 0);
      gains.push([
        sc.label,
        r.key,
        spread(on.map((x, k) => x.rate.perSec / off[k]!.rate.perSec)),
        spread(on.map((x, k) => off[k]!.p50 / x.p50)),
        (cpuPer(off) / cpuPer(on)).toFixed(2),
      ]);
    }
  }
  printTable(gains);
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nrouting benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
