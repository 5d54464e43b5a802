/**
 * The core store on PostgreSQL (issue 18), two questions in one run, against a private PostgreSQL cluster
 * (test/helpers/postgres.ts: Debian's postgresql, a throwaway cluster tuned like the tests' one):
 *
 *  1. What PostgreSQL costs one replica: Hearth with its core store in platform.db ("sqlite") and Hearth with it in
 *     PostgreSQL ("postgres"), same data, on two routes:
 *       token   POST /oauth/token `grant_type=client_credentials&scope=read` (HTTP Basic, a confidential client bound
 *               to a namespace service account): the client, the account and the signing key come from the core store;
 *       row     GET /v1/bench/tables/items/rows/{id} with the admin token: the token check reads the core store, the
 *               row comes from the namespace's SQLite file.
 *     Ratio postgres ÷ sqlite of requests/s, per round; goal ≥ 0.7 on both routes.
 *  2. What replicas add: three replicas on one PostgreSQL database, the token endpoint through all three at once
 *     (CONNECTIONS each) against one of them alone (CONNECTIONS); goal ≥ 2.2 on three machines. Here they share one
 *     machine: with at least 4 cpus each replica is pinned to a cpu of its own (`taskset -a -p`, the load generator
 *     and PostgreSQL on the rest); with fewer the replicas, PostgreSQL and the load generator share the cpus and the
 *     figure measures the machine, not Hearth (said in the output).
 *  3. The bulk lane's pace across the same three replicas (seed 002 rule 10: one pace per profile across every
 *     replica): PACED messages enqueued through all three at once to one profile at PACE a minute, delivered to an SMTP
 *     peer in its own process (bench/mail-peer-child.ts). The slot gate guarantees the lower bound (two attempts of a
 *     profile start at least 60000 / PACE ms apart, which test/integration/replicas/mail.test.ts asserts from the send
 *     log's `lastAttemptAt`); how close the replicas come to the pace is this figure: achieved ÷ configured rate, from
 *     the send log's slots (first → last `lastAttemptAt`) and from the arrivals at the peer; goal ≥ 0.95.
 *
 * Rounds alternate the servers (order rotating), after a warm-up; printed: median requests/s (min–max), p50, Hearth's
 * CPU per request and PostgreSQL's (its server shares this machine's cpus with Hearth here, not in an office), and the medians of the per-round ratios with their min–max. Every answer must be 200.
 *
 * Knobs (environment): BENCH_REPLICAS_ROUNDS (7), BENCH_REPLICAS_SLICE_MS (1500), BENCH_REPLICAS_CONNECTIONS (8),
 * BENCH_REPLICAS_WARMUP_MS (2000), BENCH_REPLICAS_ROWS (10000), BENCH_REPLICAS_PACE (600 a minute),
 * BENCH_REPLICAS_PACED (150 messages), BENCH_REPLICAS_ONLY (`mail`: only the third question).
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.ts';
import { startPostgres } from '../test/helpers/postgres.ts';
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
  request,
  type Stats,
  startChild,
  summarize,
  verdict,
} from './lib.ts';
import type { PeerReport } from './mail-peer-child.ts';
import { checkToken, createBenchClient, tokenRequest } from './oauth-common.ts';
import { createItemsNamespace, type Hearth, items, postRows, rowRequests } from './rows-common.ts';
import { Loader, type RateResult } from './rows-http.ts';

const ROUNDS = envInt('BENCH_REPLICAS_ROUNDS', 7);
const SLICE_MS = envInt('BENCH_REPLICAS_SLICE_MS', 1500);
const CONNECTIONS = envInt('BENCH_REPLICAS_CONNECTIONS', 8);
const WARMUP_MS = envInt('BENCH_REPLICAS_WARMUP_MS', 2000);
const TABLE_ROWS = envInt('BENCH_REPLICAS_ROWS', 10_000);
const PACE = envInt('BENCH_REPLICAS_PACE', 600);
const PACED = envInt('BENCH_REPLICAS_PACED', 150);
const ONLY_MAIL = process.env.BENCH_REPLICAS_ONLY === 'mail';
const NS = 'bench';
const ENGINE_GOAL = 0.7;
const SCALE_GOAL = 2.2;
const PACE_GOAL = 0.95;
const MAIL = '/api/admin/core/outgoing-mail';

const run = benchRun('hearth-bench-replicas-');
const adminToken = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const shared = {
  appSecret: crypto.randomBytes(32).toString('hex'),
  identityKek: crypto.randomBytes(32).toString('hex'),
  oauthBrokerSecret: crypto.randomBytes(32).toString('hex'),
};
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;
const spread = (xs: number[], digits = 2) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

type Route = 'token' | 'row';
interface Server {
  key: string;
  child: BenchChild;
  req: Record<Route, (i: number) => Buffer>;
}
interface Slice {
  rate: RateResult;
  p50: number;
  cpuMs: number;
  /** CPU time of PostgreSQL's processes during the slice (the postgres server's slices only). */
  pgCpuMs: number;
}

/** CPU time (ms) of the postmaster `pid` and its children now (backends, background workers). */
function clusterCpuMs(pid: number): number {
  let total = processCpuMs(pid);
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) total += processCpuMs(Number(entry)) || 0;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
let postmaster = 0;

async function start(key: string, opts: Record<string, unknown>): Promise<BenchChild> {
  const child = await startChild('../test/helpers/server-child.ts', { dataDir: path.join(run.tmp.dir, key), adminToken, ...shared, ...opts });
  run.children.add(child);
  return child;
}

/** The namespace with its rows and a confidential client on `child`; answers the server's request makers. */
async function fill(key: string, child: BenchChild): Promise<Server> {
  const h: Hearth = { url: child.url, agent: keepAliveAgent(1), auth: { authorization: `Bearer ${adminToken}` } };
  try {
    await createItemsNamespace(h, NS);
    await postRows(h, NS, JSON.stringify({ rows: items(0, TABLE_ROWS) }));
  } finally {
    h.agent.destroy();
  }
  const client = await createBenchClient(child.url, adminToken, NS);
  await checkToken(key, child.url, tokenRequest(child.url, '/oauth/token', client.authorization), `${child.url}/.well-known/jwks.json`, client.audience);
  const tok = tokenRequest(child.url, '/oauth/token', client.authorization);
  return { key, child, req: { token: () => tok, row: rowRequests(child.url, NS, TABLE_ROWS, [`Authorization: Bearer ${adminToken}`]) } };
}

async function slice(s: Server, route: Route, ms: number): Promise<Slice> {
  const loader = await Loader.open(s.child.url, CONNECTIONS);
  const c0 = processCpuMs(s.child.pid);
  const pg0 = s.key === 'postgres' ? clusterCpuMs(postmaster) : 0;
  try {
    const rate = await loader.run(ms, s.req[route]);
    const pgCpuMs = s.key === 'postgres' ? clusterCpuMs(postmaster) - pg0 : 0;
    return { rate, p50: summarize(rate.latencies).p50, cpuMs: processCpuMs(s.child.pid) - c0, pgCpuMs };
  } finally {
    loader.close();
  }
}

/** The token endpoint through every server of `servers` at once; answers the combined requests/s. */
async function together(servers: Server[], ms: number): Promise<number> {
  const loaders = await Promise.all(servers.map((s) => Loader.open(s.child.url, CONNECTIONS)));
  try {
    const rates = await Promise.all(loaders.map((l, i) => l.run(ms, servers[i]!.req.token)));
    return rates.reduce((a, r) => a + r.perSec, 0);
  } finally {
    for (const l of loaders) l.close();
  }
}

/** One JSON call with the admin token (or `token`); the answer must have status `expect`. */
async function api<T = unknown>(url: string, method: string, pathname: string, body: unknown, expect: number, token = adminToken): Promise<T> {
  const agent = keepAliveAgent(1);
  try {
    const res = await request(agent, `${url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== expect) throw new Error(`${method} ${pathname} → ${res.status} ${res.body.slice(0, 300)}`);
    return (res.body ? JSON.parse(res.body) : undefined) as T;
  } finally {
    agent.destroy();
  }
}

interface Pacing {
  n: number;
  interval: number;
  /** Gaps between consecutive attempt slots (the send log's `lastAttemptAt`), and between arrivals at the peer. */
  slotGaps: Stats;
  arrivalGaps: Stats;
  /** Achieved rate (a minute), first → last slot and first → last arrival. */
  slotRate: number;
  arrivalRate: number;
  /** Slot gaps shorter than the interval: the gate's guarantee says none. */
  under: number;
}

/** Question 3: PACED bulk messages enqueued through every replica at once to one profile at PACE a minute. */
async function mailPacing(urls: string[]): Promise<Pacing> {
  const peer = await startChild('mail-peer-child.ts', { greetingDelay: false });
  run.children.add(peer);
  const [first] = urls as [string];
  const profile = { name: 'Bench', fromAddress: 'noreply@example.test', smtpHost: '127.0.0.1', smtpPort: Number(new URL(peer.url).port), smtpSecure: false };
  await api(first, 'PUT', `${MAIL}/profiles/paced`, { ...profile, pacePerMinute: PACE }, 201);
  const app = await api<{ token: string }>(first, 'POST', `${MAIL}/apps`, { appId: 'bench', name: 'Bench', platformPermissions: ['mail:send'] }, 201);
  await api(first, 'PUT', `${MAIL}/apps/bench/policy`, { mode: 'profiles', profiles: ['paced'] }, 200);
  const per = Math.ceil(PACED / urls.length);
  const batches = await Promise.all(
    urls.map((url, i) =>
      api<{ messages: Array<{ id: string }> }>(
        url,
        'POST',
        '/api/mail/enqueue',
        { profile: 'paced', messages: Array.from({ length: per }, (_, k) => ({ to: [`r${i}-${k}@example.test`], subject: `paced ${i}-${k}`, text: 'Hello' })) },
        202,
        app.token,
      ),
    ),
  );
  const n = batches.reduce((a, b) => a + b.messages.length, 0);
  const interval = Math.ceil(60_000 / PACE);
  const budget = (n - 1) * interval * 2 + 30_000;
  const got = await peer.ask<PeerReport>({ type: 'wait', n, timeoutMs: budget });
  if (!got.complete) throw new Error(`pacing: the peer received ${got.count} of ${n} messages within ${fmtMs(budget)}`);
  // Every record settled, then the whole send log of the profile (newest first, by pages).
  const end = Date.now() + 30_000;
  while ((await api<{ data: unknown[] }>(first, 'GET', `${MAIL}/messages?profile=paced&status=queued,sending&limit=1`, undefined, 200)).data.length) {
    if (Date.now() > end) throw new Error('pacing: messages still queued or sending 30 s after the last arrival');
    await new Promise((r) => setTimeout(r, 50));
  }
  const records: Array<{ status: string; lastAttemptAt: string | null }> = [];
  for (let cursor: string | null = null; ; ) {
    const page: { data: typeof records; nextCursor: string | null } = await api(
      first,
      'GET',
      `${MAIL}/messages?profile=paced&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      undefined,
      200,
    );
    records.push(...page.data);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  if (records.length !== n || records.some((r) => r.status !== 'sent'))
    throw new Error(`pacing: ${records.filter((r) => r.status === 'sent').length} of ${n} sent`);
  if ((await peer.ask<PeerReport>({ type: 'wait', n, timeoutMs: 0 })).count !== n) throw new Error('pacing: duplicates at the peer');
  const slots = records.map((r) => Date.parse(r.lastAttemptAt!)).sort((a, b) => a - b);
  const arrivals = got.accepted.slice(0, n);
  const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
  const rate = (xs: number[]) => ((xs.length - 1) / (xs.at(-1)! - xs[0]!)) * 60_000;
  return {
    n,
    interval,
    slotGaps: summarize(gaps(slots)),
    arrivalGaps: summarize(gaps(arrivals)),
    slotRate: rate(slots),
    arrivalRate: rate(arrivals),
    under: gaps(slots).filter((g) => g < interval).length,
  };
}

function pin(pid: number, cpu: number): void {
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset failed: ${r.stderr}`);
}

async function main(): Promise<number> {
  const cpus = os.cpus().length;
  console.log(
    ONLY_MAIL
      ? `replicas benchmark (BENCH_REPLICAS_ONLY=mail): bulk pacing of ${PACED} messages at ${PACE}/min across three replicas`
      : `replicas benchmark: ${ROUNDS} rounds of ${fmtMs(SLICE_MS)} slices, ${CONNECTIONS} keep-alive connections per server, ${TABLE_ROWS} rows; bulk pacing of ${PACED} messages at ${PACE}/min`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${cpus} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${run.tmp.dir}`,
  );
  const cluster = await startPostgres({ settings: { max_connections: 200 } });
  try {
    console.log(`${elapsed()} PostgreSQL ${cluster.version} on port ${cluster.port}`);
    postmaster = cluster.pid;
    // ---- 1. one replica: platform.db against PostgreSQL ----
    const res = new Map<string, Slice[]>();
    const at = (k: string, r: Route) => res.get(`${k} ${r}`) ?? res.set(`${k} ${r}`, []).get(`${k} ${r}`)!;
    if (!ONLY_MAIL) {
      const engines = [
        await fill('sqlite', await start('sqlite', {})),
        await fill('postgres', await start('postgres', { databaseUrl: await cluster.createDatabase() })),
      ];
      console.log(`${elapsed()} sqlite and postgres servers filled`);
      for (const route of ['token', 'row'] as const) for (const s of engines) await slice(s, route, WARMUP_MS);
      for (let k = 0; k < ROUNDS; k++) {
        for (const route of ['token', 'row'] as const) {
          for (let j = 0; j < engines.length; j++) {
            const s = engines[(j + k) % engines.length]!;
            at(s.key, route).push(await slice(s, route, SLICE_MS));
          }
        }
        console.log(
          `${elapsed()} round ${k + 1}: ${(['token', 'row'] as const).map((r) => `${r} ${engines.map((s) => fmtRate(at(s.key, r).at(-1)!.rate.perSec, 'req')).join(' / ')}`).join('; ')} (sqlite / postgres)`,
        );
      }
      for (const s of engines) await s.child.stop();
    }

    // ---- 2. three replicas against one ----
    const url = await cluster.createDatabase();
    const portA = await freePort();
    const publicUrl = `http://127.0.0.1:${portA}`;
    const a = await start('node-a', { databaseUrl: url, nodeId: 'node-a', port: portA, publicUrl });
    const filled = ONLY_MAIL ? null : await fill('node-a', a);
    const others = [
      await start('node-b', { databaseUrl: url, nodeId: 'node-b', publicUrl }),
      await start('node-c', { databaseUrl: url, nodeId: 'node-c', publicUrl }),
    ];
    const pinned = cpus >= 4;
    const single: number[] = [];
    const three: number[] = [];
    if (filled) {
      const replicas: Server[] = [
        filled,
        ...others.map((c, i) => ({ key: `node-${'bc'[i]}`, child: c, req: { token: filled.req.token, row: filled.req.row } })),
      ];
      if (pinned) for (const [i, s] of replicas.entries()) pin(s.child.pid, i + 1);
      for (const s of replicas) await slice(s, 'token', WARMUP_MS);
      for (let k = 0; k < ROUNDS; k++) {
        const order = k % 2 === 0 ? ['one', 'three'] : ['three', 'one'];
        for (const o of order) {
          if (o === 'one') single.push((await slice(replicas[k % 3]!, 'token', SLICE_MS)).rate.perSec);
          else three.push(await together(replicas, SLICE_MS));
        }
        console.log(`${elapsed()} round ${k + 1}: one replica ${fmtRate(single.at(-1)!, 'req')}, three ${fmtRate(three.at(-1)!, 'req')}`);
      }
    }

    // ---- 3. the bulk lane's pace across the three replicas ----
    const pacing = await mailPacing([a, ...others].map((c) => c.url));
    console.log(`${elapsed()} bulk pacing: ${pacing.n} messages sent through three replicas`);

    if (!ONLY_MAIL) {
      heading(`one replica: platform.db against PostgreSQL, median of ${ROUNDS} rounds (min–max)`);
      const rows: string[][] = [['route', 'core store', 'requests/s', 'p50 ms', 'Hearth CPU µs/req', 'PostgreSQL CPU µs/req']];
      for (const r of ['token', 'row'] as const) {
        for (const s of ['sqlite', 'postgres']) {
          const l = at(s, r);
          const cpu = l.reduce((x, y) => x + y.cpuMs, 0);
          const n = l.reduce((x, y) => x + y.rate.requests, 0);
          rows.push([
            r,
            s,
            spread(
              l.map((x) => x.rate.perSec),
              0,
            ),
            spread(l.map((x) => x.p50)),
            ((cpu * 1000) / n).toFixed(0),
            s === 'postgres' ? ((l.reduce((x, y) => x + y.pgCpuMs, 0) * 1000) / n).toFixed(0) : '—',
          ]);
        }
      }
      printTable(rows);
    }
    heading(`bulk pacing across three replicas: ${pacing.n} messages at ${PACE}/min (one slot every ${pacing.interval} ms)`);
    const gapRow = (name: string, g: Stats) => [name, fmtMs(g.min), fmtMs(g.p50), fmtMs(g.p99), fmtMs(g.max), fmtMs(g.mean)];
    printTable([
      ['gaps', 'min', 'p50', 'p99', 'max', 'mean'],
      gapRow('attempt slots (send log lastAttemptAt)', pacing.slotGaps),
      gapRow('arrivals at the SMTP peer', pacing.arrivalGaps),
    ]);
    console.log(`  slot gaps shorter than ${pacing.interval} ms: ${pacing.under} (the slot gate allows none)`);
    heading('ratios: median of the per-round ratios (min–max)');
    const ratios: string[][] = [['figure', 'ratio', 'goal']];
    if (!ONLY_MAIL) {
      for (const r of ['token', 'row'] as const) {
        const per = at('postgres', r).map((x, k) => x.rate.perSec / at('sqlite', r)[k]!.rate.perSec);
        ratios.push([`${r}: postgres ÷ sqlite requests/s`, spread(per), verdict(median(per), ENGINE_GOAL)]);
      }
      const scale = three.map((t, k) => t / single[k]!);
      ratios.push([
        `token: three replicas ÷ one (${pinned ? 'each replica pinned to a cpu of its own' : `not pinned: ${cpus} cpus shared by the replicas, PostgreSQL and the load generator`})`,
        spread(scale),
        pinned ? verdict(median(scale), SCALE_GOAL) : `${SCALE_GOAL} is for three machines; on ${cpus} cpus the ceiling is the machine's`,
      ]);
    }
    ratios.push([
      `bulk pace across three replicas: achieved ÷ configured, send log slots (${pacing.slotRate.toFixed(1)}/min of ${PACE}/min; one run)`,
      (pacing.slotRate / PACE).toFixed(3),
      verdict(pacing.slotRate / PACE, PACE_GOAL),
    ]);
    ratios.push([`  the same at the SMTP peer, first → last arrival (${pacing.arrivalRate.toFixed(1)}/min)`, (pacing.arrivalRate / PACE).toFixed(3), '']);
    printTable(ratios);
    console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${cpus} cpus)`);
    return pacing.under === 0 ? 0 : 1;
  } finally {
    for (const c of run.children) await c.stop().catch(() => {});
    await cluster.stop();
  }
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nreplicas benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
