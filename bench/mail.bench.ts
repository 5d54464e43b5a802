/**
 * Outgoing mail: the immediate lane's throughput against nodemailer sending directly, the bulk lane's pacing accuracy
 * at 600/min, and the time to claim the next bulk row with 100,000 rows queued. Ratios are against baselines measured
 * in the same run.
 *
 *   immediate lane   n messages through POST /api/mail/send (an application's token, C keep-alive connections), timed
 *                    from the first request until the SMTP peer accepted the n-th message: messages/s.
 *                    Baseline: nodemailer createTransport({pool: true, maxConnections: 8, host, port, secure: false,
 *                    ignoreTLS: true}) in this process sending the same n messages, C at a time, to the same peer.
 *                    Target: hearth/baseline ≥ 0.7. Reference (not a target): nodemailer without a pool (a fresh
 *                    transport and connection per message). Hearth's lane composes with nodemailer's encoders and
 *                    sends over pooled nodemailer SMTPConnection sessions in its SMTP thread (server/mail/delivery/
 *                    mime.ts, smtp-attempt.ts, smtp-pool.ts, smtp.worker.ts). CPU ms/msg of Hearth counts all its threads.
 *                    Rounds rotate the order of Hearth and the two nodemailer runs, so background load falls on all.
 *                    Run twice: against smtp-server as shipped, which waits 100 ms before its greeting on every new
 *                    connection (BENCH_MAIL_N_GREET messages), and against smtp-server without that delay
 *                    (BENCH_MAIL_N), where the cost of Hearth's own pipeline shows.
 *   bulk pacing      one POST /api/mail/enqueue of P messages to a profile with pacePerMinute 600 (ideal spacing
 *                    100 ms), against each peer: arrival times at the peer, achieved rate, inter-arrival mean / p50 /
 *                    p99 / max, total duration against the ideal (P − 1) × 100 ms.
 *   claim            100,000 queued bulk rows for a profile nothing delivers, in a temporary platform.db in this
 *                    process (bench/mail-claim.ts): p50 / p99 of the lane's claim step, against the same with 1,000
 *                    rows queued; plus the statements every acceptance and the 30-second recovery run on that queue.
 *
 * Hearth runs in its own process (test/helpers/server-child.ts); each SMTP peer (`smtp-server`, plain, counting only,
 * no reverse DNS) in another (bench/mail-peer-child.ts). When an immediate-lane target is missed, one more Hearth run
 * against the peer without delay is CPU-profiled and summarised (also with BENCH_MAIL_PROFILE=1).
 *
 * Knobs (environment): BENCH_MAIL_N (2000 messages per run), BENCH_MAIL_N_GREET (600), BENCH_MAIL_CONCURRENCY (8),
 * BENCH_MAIL_ROUNDS (3), BENCH_MAIL_PACED (300), BENCH_MAIL_QUEUE (100000), BENCH_MAIL_CLAIMS (2000),
 * BENCH_MAIL_PROFILE (0), BENCH_MAIL_PROFILE_OUT (a path to keep the .cpuprofile at), BENCH_MAIL_ONLY (`immediate`:
 * only the immediate lane against the peer without greeting delay, and the profile when BENCH_MAIL_PROFILE=1; for
 * quick iterations).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import nodemailer from 'nodemailer';
import {
  type BenchChild,
  benchRun,
  envInt,
  fmtMs,
  fmtRate,
  fmtS,
  heading,
  keepAliveAgent,
  loadLoop,
  median,
  now,
  printTable,
  processCpuMs,
  ratio,
  request,
  startChild,
  summarize,
  verdict,
} from './lib.ts';
import { measureClaims } from './mail-claim.ts';
import { summarizeProfile } from './mail-cpuprofile.ts';
import type { PeerReport } from './mail-peer-child.ts';

const N = envInt('BENCH_MAIL_N', 2000);
const N_GREET = envInt('BENCH_MAIL_N_GREET', 600);
const CONCURRENCY = envInt('BENCH_MAIL_CONCURRENCY', 8);
const ROUNDS = envInt('BENCH_MAIL_ROUNDS', 3);
const PACED = envInt('BENCH_MAIL_PACED', 300);
const QUEUE = envInt('BENCH_MAIL_QUEUE', 100_000);
const CLAIMS = envInt('BENCH_MAIL_CLAIMS', 2000);
const SMALL_QUEUE = 1000;
const FORCE_PROFILE = process.env.BENCH_MAIL_PROFILE === '1';
const ONLY_IMMEDIATE = process.env.BENCH_MAIL_ONLY === 'immediate';
const TARGET = 0.7;
const PACE = 600;
const M = '/api/admin/core/outgoing-mail';

const run = benchRun('hearth-bench-mail-');
const tmp = run.tmp;
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;
/** Epoch ms with sub-ms resolution, comparable with the peer child's clock. */
const epoch = () => performance.timeOrigin + performance.now();

const FROM = { name: 'Bench', address: 'noreply@example.test' };
const TEXT = `Hello,\n\n${'This is a benchmark message of the outgoing-mail lanes, about one kilobyte of plain text. '.repeat(11)}\n\n-- \nBench\n`;
const message = (tag: string, i: number) => ({ to: [`user${i}@example.test`], subject: `${tag} message ${i}`, text: TEXT });

// ---------------------------------------------------------------------------------------------------------------
// Processes

interface Peer {
  child: BenchChild;
  port: number;
  reset(): Promise<void>;
  wait(n: number, timeoutMs: number): Promise<PeerReport>;
}

async function startPeer(greetingDelay: boolean): Promise<Peer> {
  const child = await startChild('mail-peer-child.ts', { greetingDelay });
  run.children.add(child);
  return {
    child,
    port: Number(new URL(child.url).port),
    reset: async () => void (await child.ask({ type: 'reset' })),
    wait: (n, timeoutMs) => child.ask<PeerReport>({ type: 'wait', n, timeoutMs }),
  };
}

const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// ---------------------------------------------------------------------------------------------------------------
// Hearth

interface Hearth {
  child: BenchChild;
  url: string;
  admin: Record<string, string>;
  app: Record<string, string>;
}

async function call<T = unknown>(h: Hearth, method: string, url: string, body: unknown, expect: number, auth = h.admin): Promise<T> {
  const agent = keepAliveAgent(1);
  try {
    const res = await request(agent, `${h.url}${url}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status !== expect) throw new Error(`${method} ${url} → ${res.status} ${res.body.slice(0, 300)}`);
    return (res.body ? JSON.parse(res.body) : undefined) as T;
  } finally {
    agent.destroy();
  }
}

const profileBody = (port: number, extra: Record<string, unknown> = {}) => ({
  name: 'Bench',
  fromAddress: FROM.address,
  fromName: FROM.name,
  smtpHost: '127.0.0.1',
  smtpPort: port,
  smtpSecure: false,
  ...extra,
});

/** Waits until no message is queued or sending (every accepted message reached a final state). */
async function settled(h: Hearth, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const page = await call<{ data: Array<{ status: string }> }>(h, 'GET', `${M}/messages?status=queued,sending&limit=1`, undefined, 200);
    if (page.data.length === 0) return;
    if (Date.now() > end) throw new Error(`messages still ${page.data[0]!.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface RunResult {
  label: string;
  count: number;
  /** First request to the N-th acceptance at the peer (ms). */
  ms: number;
  perSec: number;
  /** Phase of the client: all HTTP answers (Hearth) / all sendMail resolved (nodemailer), ms from start. */
  clientMs: number;
  latencies: number[];
  connections: number;
  maxOpen: number;
  /** CPU ms per message of Hearth (or nothing), of the peer, of this process. */
  cpu: { hearth: number; peer: number; bench: number };
}

function cpuWindow(pids: { hearth?: number; peer: number }) {
  const a = { hearth: pids.hearth ? processCpuMs(pids.hearth) : NaN, peer: processCpuMs(pids.peer), bench: selfCpuMs() };
  return (n: number) => ({
    hearth: pids.hearth ? (processCpuMs(pids.hearth) - a.hearth) / n : NaN,
    peer: (processCpuMs(pids.peer) - a.peer) / n,
    bench: (selfCpuMs() - a.bench) / n,
  });
}

async function hearthRun(h: Hearth, peer: Peer, profile: string, label: string, n: number): Promise<RunResult> {
  await peer.reset();
  const ids: string[] = [];
  const cpu = cpuWindow({ hearth: h.child.pid, peer: peer.child.pid });
  const bodies = Array.from({ length: n }, (_, i) => JSON.stringify({ profile, ...message(label, i) }));
  const headers = { ...h.app, 'content-type': 'application/json' };
  const start = epoch();
  const load = await loadLoop({ total: n, connections: CONCURRENCY }, async (i, agent) => {
    const res = await request(agent, `${h.url}/api/mail/send`, { method: 'POST', headers, body: bodies[i]! });
    if (res.status !== 202) throw new Error(`POST /api/mail/send → ${res.status} ${res.body.slice(0, 300)}`);
    ids.push((JSON.parse(res.body) as { id: string }).id);
  });
  const clientMs = epoch() - start;
  const got = await peer.wait(n, 120_000);
  if (!got.complete) throw new Error(`${label}: the peer received ${got.count} of ${n} messages within 120 s`);
  const ms = got.accepted[n - 1]! - start;
  const perMsg = cpu(n);
  await settled(h, 30_000);
  const again = await peer.wait(n, 0);
  if (again.count !== n) throw new Error(`${label}: the peer received ${again.count} messages for ${n} sends (duplicates?)`);
  const last = await call<{ status: string; attempts: number }>(h, 'GET', `${M}/messages/${ids.at(-1)}`, undefined, 200);
  if (last.status !== 'sent' || last.attempts !== 1) throw new Error(`${label}: last message is ${last.status} after ${last.attempts} attempts`);
  return { label, count: n, ms, perSec: (n / ms) * 1000, clientMs, latencies: load.latencies, connections: got.connections, maxOpen: got.maxOpen, cpu: perMsg };
}

async function nodemailerRun(peer: Peer, label: string, n: number, pooled: boolean): Promise<RunResult> {
  await peer.reset();
  const cpu = cpuWindow({ peer: peer.child.pid });
  const options = { host: '127.0.0.1', port: peer.port, secure: false, ignoreTLS: true, logger: false, debug: false };
  const pool = pooled ? nodemailer.createTransport({ ...options, pool: true, maxConnections: 8 }) : null;
  const latencies: number[] = [];
  let next = 0;
  const start = epoch();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        const t = now();
        const transport = pool ?? nodemailer.createTransport(options);
        try {
          await transport.sendMail({ from: FROM, ...message(label, i) });
        } finally {
          if (!pool) transport.close();
        }
        latencies.push(now() - t);
      }
    }),
  );
  const clientMs = epoch() - start;
  const got = await peer.wait(n, 120_000);
  if (!got.complete || got.count !== n) throw new Error(`${label}: the peer received ${got.count} of ${n} messages`);
  const ms = got.accepted[n - 1]! - start;
  const perMsg = cpu(n);
  pool?.close();
  return { label, count: n, ms, perSec: (n / ms) * 1000, clientMs, latencies, connections: got.connections, maxOpen: got.maxOpen, cpu: perMsg };
}

// ---------------------------------------------------------------------------------------------------------------

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

interface ImmediateResult {
  title: string;
  hearth: number;
  pooled: number;
  unpooled: number;
  ratio: number;
}

/** Warm-up, then ROUNDS rounds of Hearth / nodemailer pooled / nodemailer unpooled (order rotated) against one peer. */
async function immediateSection(h: Hearth, peer: Peer, profile: string, n: number, title: string): Promise<ImmediateResult> {
  heading(`immediate lane, ${title}: ${n} messages, ${CONCURRENCY} at a time, first request → ${n}-th acceptance at the peer`);
  const warm = Math.min(200, n);
  const wh = await hearthRun(h, peer, profile, 'warmup-h', warm);
  const wb = await nodemailerRun(peer, 'warmup-b', warm, true);
  const wf = await nodemailerRun(peer, 'warmup-f', warm, false);
  console.log(
    `${elapsed()} warm-up (${warm} each, not counted): hearth ${fmtRate(wh.perSec, 'msg')}, nodemailer pooled ${fmtRate(wb.perSec, 'msg')}, nodemailer unpooled ${fmtRate(wf.perSec, 'msg')}`,
  );
  const hs: RunResult[] = [];
  const bs: RunResult[] = [];
  const us: RunResult[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order: Array<'h' | 'b' | 'f'> = (['h', 'b', 'f'] as const).map((_, k, a) => a[(k + r) % 3]!);
    for (const which of order) {
      if (which === 'h') hs.push(await hearthRun(h, peer, profile, `hearth-${r}`, n));
      else if (which === 'b') bs.push(await nodemailerRun(peer, `pooled-${r}`, n, true));
      else us.push(await nodemailerRun(peer, `fresh-${r}`, n, false));
    }
    console.log(
      `${elapsed()} round ${r + 1} (${order.join(' ')}): hearth ${fmtRate(hs[r]!.perSec, 'msg')}, nodemailer pooled ${fmtRate(bs[r]!.perSec, 'msg')} → ${ratio(hs[r]!.perSec, bs[r]!.perSec)}; nodemailer unpooled ${fmtRate(us[r]!.perSec, 'msg')}`,
    );
  }
  const med = (xs: RunResult[]) => median(xs.map((x) => x.perSec));
  const hRate = med(hs);
  const bRate = med(bs);
  const fRate = med(us);
  const lat = (xs: RunResult[]) => summarize(xs.flatMap((x) => x.latencies));
  const cpuOf = (xs: RunResult[], k: 'hearth' | 'peer' | 'bench') => median(xs.map((x) => x.cpu[k]));
  const row = (name: string, xs: RunResult[], rate: number) => {
    const l = lat(xs);
    return [
      name,
      fmtRate(rate, 'msg'),
      ratio(rate, bRate),
      xs.map((x) => x.perSec.toFixed(0)).join(' / '),
      fmtS(median(xs.map((x) => x.ms))),
      fmtS(median(xs.map((x) => x.clientMs))),
      `${fmtMs(l.p50)} / ${fmtMs(l.p99)}`,
      `${xs[0]!.connections} / ${xs[0]!.maxOpen}`,
      `${f1(cpuOf(xs, 'hearth'))} + ${f1(cpuOf(xs, 'peer'))} + ${f1(cpuOf(xs, 'bench'))}`,
    ];
  };
  console.log('');
  printTable([
    [
      '',
      'messages/s (median)',
      'vs pooled',
      'per round',
      'time to last',
      'client done',
      'call p50 / p99',
      'SMTP sessions / max open',
      'CPU ms/msg hearth + peer + bench',
    ],
    row('hearth POST /api/mail/send', hs, hRate),
    row('nodemailer pooled (baseline)', bs, bRate),
    row('nodemailer unpooled (reference)', us, fRate),
  ]);
  console.log('  call = one HTTP request for Hearth (202: committed to the send log), one sendMail() for nodemailer; client done = last call answered.');
  return { title, hearth: hRate, pooled: bRate, unpooled: fRate, ratio: hRate / bRate };
}

interface PacingResult {
  title: string;
  achieved: number;
  gaps: ReturnType<typeof summarize>;
  span: number;
}

/** One enqueue of PACED messages to a profile at PACE/min; arrival spacing at the peer. */
async function pacingSection(h: Hearth, peer: Peer, profile: string, title: string): Promise<PacingResult> {
  heading(`bulk pacing, ${title}: one enqueue of ${PACED} messages to a profile at ${PACE}/min (ideal spacing ${60_000 / PACE} ms)`);
  await peer.reset();
  const start = epoch();
  const batch = await call<{ batchId: string; messages: unknown[] }>(
    h,
    'POST',
    '/api/mail/enqueue',
    { profile, ref: 'bench:pacing', messages: Array.from({ length: PACED }, (_, i) => message('paced', i)) },
    202,
    h.app,
  );
  const acceptedAt = epoch();
  if (batch.messages.length !== PACED) throw new Error(`enqueue accepted ${batch.messages.length} of ${PACED}`);
  const ideal = ((PACED - 1) * 60_000) / PACE;
  const got = await peer.wait(PACED, ideal * 2 + 30_000);
  if (!got.complete) throw new Error(`pacing: the peer received ${got.count} of ${PACED} within ${fmtS(ideal * 2 + 30_000)}`);
  await settled(h, 30_000);
  if ((await peer.wait(PACED, 0)).count !== PACED) throw new Error('pacing: duplicates at the peer');
  const arrivals = got.accepted.slice(0, PACED);
  const connects = got.connects.slice(0, PACED);
  const gaps = (xs: number[]) => xs.slice(1).map((x, i) => x - xs[i]!);
  const ga = summarize(gaps(arrivals));
  const gc = summarize(gaps(connects));
  const attempt = summarize(arrivals.map((a, i) => a - connects[i]!));
  const span = arrivals.at(-1)! - arrivals[0]!;
  const achieved = ((PACED - 1) / span) * 60_000;
  const spacingRow = (name: string, s: ReturnType<typeof summarize>) => [
    name,
    fmtMs(s.mean),
    fmtMs(s.p50),
    fmtMs(s.p99),
    fmtMs(s.min),
    fmtMs(s.max),
    `${(((s.mean - 100) / 100) * 100).toFixed(1)} %`,
  ];
  printTable([
    ['inter-arrival at the peer', 'mean', 'p50', 'p99', 'min', 'max', 'mean vs 100 ms'],
    spacingRow('acceptance (end of DATA)', ga),
    spacingRow('SMTP session start (connect)', gc),
  ]);
  console.log('');
  printTable([
    ['', 'value', 'ideal', 'achieved/ideal'],
    [`rate, first → last of ${PACED}`, `${achieved.toFixed(1)}/min`, `${PACE}/min`, ratio(achieved, PACE)],
    [`duration, first → last arrival`, fmtS(span), fmtS(ideal), ratio(span, ideal)],
    [`duration, enqueue request → last arrival`, fmtS(arrivals.at(-1)! - start), fmtS(ideal), ratio(arrivals.at(-1)! - start, ideal)],
    [`enqueue call (${PACED} messages, 202)`, fmtMs(acceptedAt - start), '', ''],
    [`202 → first arrival`, fmtMs(arrivals[0]! - acceptedAt), '', ''],
    [`SMTP session connect → acceptance, p50 / max`, `${fmtMs(attempt.p50)} / ${fmtMs(attempt.max)}`, '', ''],
  ]);
  return { title, achieved, gaps: ga, span };
}

async function main(): Promise<number> {
  console.log(
    `mail benchmark: immediate lane ${N} messages (${N_GREET} against the as-shipped peer) × ${ROUNDS} rounds at concurrency ${CONCURRENCY}; bulk pacing ${PACED} messages at ${PACE}/min; claim with ${QUEUE} queued rows (${CLAIMS} claims)`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${tmp.dir}`,
  );

  // 1. Processes: two SMTP peers (smtp-server as shipped, and without its 100 ms greeting delay), Hearth with a
  //    profile to each (plus a paced one to each) and a registered application allowed to use them all.
  const fast = await startPeer(false);
  const shipped = await startPeer(true);
  const child = await startChild('../test/helpers/server-child.ts', { dataDir: path.join(tmp.dir, 'hearth'), adminToken: token });
  run.children.add(child);
  const h: Hearth = { child, url: child.url, admin: { authorization: `Bearer ${token}` }, app: {} };
  await call(h, 'PUT', `${M}/profiles/fast`, profileBody(fast.port), 201);
  await call(h, 'PUT', `${M}/profiles/shipped`, profileBody(shipped.port), 201);
  await call(h, 'PUT', `${M}/profiles/paced-fast`, profileBody(fast.port, { pacePerMinute: PACE }), 201);
  await call(h, 'PUT', `${M}/profiles/paced-shipped`, profileBody(shipped.port, { pacePerMinute: PACE }), 201);
  const reg = await call<{ token: string }>(h, 'POST', `${M}/apps`, { appId: 'bench', name: 'Bench', platformPermissions: ['mail:send'] }, 201);
  h.app = { authorization: `Bearer ${reg.token}` };
  await call(h, 'PUT', `${M}/apps/bench/policy`, { mode: 'profiles', profiles: ['fast', 'shipped', 'paced-fast', 'paced-shipped'] }, 200);
  console.log(
    `${elapsed()} peers on 127.0.0.1:${fast.port} (no greeting delay, pid ${fast.child.pid}) and 127.0.0.1:${shipped.port} (as shipped, pid ${shipped.child.pid}); hearth at ${child.url} (pid ${child.pid}); app "bench" registered`,
  );

  // 2. Immediate lane vs nodemailer.
  const immShipped = ONLY_IMMEDIATE ? null : await immediateSection(h, shipped, 'shipped', N_GREET, 'smtp-server as shipped (100 ms greeting delay)');
  const immFast = await immediateSection(h, fast, 'fast', N, 'smtp-server without its greeting delay');
  if (ONLY_IMMEDIATE && !FORCE_PROFILE) {
    await Promise.allSettled([...run.children].map((c) => c.stop()));
    run.children.clear();
    return 0;
  }

  // 3. Bulk pacing at 600/min.
  const paceFast = ONLY_IMMEDIATE ? null : await pacingSection(h, fast, 'paced-fast', 'peer without greeting delay');
  const paceShipped = ONLY_IMMEDIATE ? null : await pacingSection(h, shipped, 'paced-shipped', 'smtp-server as shipped (every attempt takes ≥ 100 ms)');

  // 4. Optional / on a miss: a CPU profile of one more Hearth run (against the peer without delay, where CPU counts).
  if (FORCE_PROFILE || immFast.ratio < TARGET || (immShipped?.ratio ?? TARGET) < TARGET) {
    heading(`where the time goes: CPU profile of hearth during one more immediate-lane run of ${N}, peer without greeting delay (not counted)`);
    const file = path.join(tmp.dir, 'hearth.cpuprofile');
    const cpuBefore = await child.ask<{ userMs: number; systemMs: number }>({ type: 'cpu' });
    await child.ask({ type: 'profile-start' });
    const pr = await hearthRun(h, fast, 'fast', 'profiled', N);
    await child.ask({ type: 'profile-stop', file });
    const cpuAfter = await child.ask<{ userMs: number; systemMs: number }>({ type: 'cpu' });
    if (process.env.BENCH_MAIL_PROFILE_OUT) fs.copyFileSync(file, process.env.BENCH_MAIL_PROFILE_OUT);
    const sum = summarizeProfile(file);
    const busy = sum.totalMs - sum.idleMs;
    console.log(
      `  profiled run: ${fmtRate(pr.perSec, 'msg')} (profiler overhead included); hearth process CPU ${fmtMs(cpuAfter.userMs - cpuBefore.userMs)} user + ${fmtMs(cpuAfter.systemMs - cpuBefore.systemMs)} system for ${N} messages (all threads); main thread busy ${fmtMs(busy)} of ${fmtMs(sum.totalMs)} sampled`,
    );
    console.log('  main-thread time by area (inclusive: an area counts once per sample when on the stack; areas overlap):');
    printTable(
      [
        ['area', 'ms', '% of busy', 'ms/msg'],
        ...sum.areas.slice(0, 20).map(([a, ms]) => [a, ms.toFixed(0), `${((ms / busy) * 100).toFixed(1)}`, (ms / N).toFixed(3)]),
      ],
      '    ',
    );
    console.log('  top self time by JS function (time in native code charged to its nearest JS caller, marked +native):');
    printTable(
      [
        ['function', 'ms', '% of busy'],
        ...sum.selfJsTop.slice(0, 20).map(([f, ms]) => [f.length > 110 ? `${f.slice(0, 107)}...` : f, ms.toFixed(0), `${((ms / busy) * 100).toFixed(1)}`]),
      ],
      '    ',
    );
  }
  await Promise.allSettled([...run.children].map((c) => c.stop()));
  run.children.clear();
  if (!immShipped || !paceFast || !paceShipped) return 0; // BENCH_MAIL_ONLY=immediate

  // 5. Claim time with a large queue (in this process, after the children stopped).
  heading(`claim of the next bulk row with ${QUEUE} rows queued (temporary platform.db in this process, ${CLAIMS} claims)`);
  const small = await measureClaims(path.join(tmp.dir, 'claim-small'), { queued: SMALL_QUEUE + CLAIMS + 100, claims: CLAIMS, warmup: 100, recoveries: 20 });
  console.log(`${elapsed()} ${small.queued} rows queued in ${fmtS(small.fillMs)}; claims timed`);
  const big = await measureClaims(path.join(tmp.dir, 'claim-big'), { queued: QUEUE + CLAIMS + 100, claims: CLAIMS, warmup: 100, recoveries: 20 });
  console.log(`${elapsed()} ${big.queued} rows queued in ${fmtS(big.fillMs)} (platform.db ${(big.dbBytes / 1048576).toFixed(0)} MiB); claims timed`);
  const us = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : fmtMs(ms));
  const sRow = (label: string, a: ReturnType<typeof summarize>, b: ReturnType<typeof summarize>) => [
    label,
    us(b.p50),
    us(b.p99),
    us(b.max),
    us(a.p50),
    us(a.p99),
    ratio(b.p50, a.p50),
  ];
  console.log('');
  printTable([
    ['', `p50 (${QUEUE})`, 'p99', 'max', `p50 (${SMALL_QUEUE})`, 'p99', 'p50 ratio'],
    sRow('bulk claim step (profile get + IMMEDIATE tx: peek, get, reserveSlot, claimOne)', small.claim, big.claim),
    ...big.statements.map((s, i) => sRow(s.label, small.statements[i]!.stats, s.stats)),
    sRow('recovery transaction (every 30 s; holds the write lock)', small.recovery, big.recovery),
    ...big.recoveryStatements.map((s, i) => sRow(`  ${s.label}`, small.recoveryStatements[i]!.stats, s.stats)),
  ]);
  console.log(
    `  queues: ${big.queued} → ${QUEUE} and ${small.queued} → ${SMALL_QUEUE} rows while claiming (each claim takes one row); claims / statements / recoveries repeat ${CLAIMS} / 200 / 20 times.`,
  );
  console.log(`  SQLite plans (${QUEUE}-row queue):`);
  for (const s of [...big.statements, ...big.recoveryStatements]) console.log(`    ${s.label}: ${s.plan}`);

  heading('summary');
  printTable([
    ['figure', 'value', 'target'],
    ...[immShipped, immFast].flatMap((r) => [
      [
        `immediate lane, ${r.title}: hearth ÷ nodemailer pooled`,
        `${ratio(r.ratio, 1)} (${r.hearth.toFixed(0)} vs ${r.pooled.toFixed(0)} msg/s)`,
        verdict(r.ratio, TARGET),
      ],
      [`  hearth ÷ nodemailer unpooled (reference)`, ratio(r.hearth, r.unpooled), ''],
    ]),
    ...[paceFast, paceShipped].map((p) => [
      `bulk pacing at ${PACE}/min, ${p.title}: rate / inter-arrival p50 / p99`,
      `${p.achieved.toFixed(0)}/min / ${fmtMs(p.gaps.p50)} / ${fmtMs(p.gaps.p99)}`,
      `${PACE}/min, 100 ms`,
    ]),
    [`bulk claim with ${QUEUE} queued: p50 / p99`, `${us(big.claim.p50)} / ${us(big.claim.p99)}`, ''],
    [`bulk claim p50, ${QUEUE} ÷ ${SMALL_QUEUE} queued`, ratio(big.claim.p50, small.claim.p50), ''],
    [`recovery transaction with ${QUEUE} queued: p50 / max`, `${fmtMs(big.recovery.p50)} / ${fmtMs(big.recovery.max)}`, ''],
  ]);
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\nmail benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
