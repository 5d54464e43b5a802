/**
 * SSE: 1,000 subscribers and 1,000 inserts, p99 delivery latency.
 *
 * Hearth runs in a child process with BENCH_SSE_SUBSCRIBERS (1000) subscribers on
 * `GET /v1/bench/subscribe?tables=items`, opened from this process as raw HTTP requests whose streams are parsed
 * by hand (lighter than 1,000 EventSource objects). Inserts are published over IPC in the child through the
 * database service's event bus (`services.db.events.publish`, the call the rows service makes after each commit);
 * each row carries the time it was sent, so delivery latency = arrival at a subscriber − send, on this process's
 * clock (IPC hop included). Phases of BENCH_SSE_INSERTS (1000) inserts each:
 *
 *   paced   inserts sent at each rate of BENCH_SSE_RATES per second (100,500): latency of a steady stream
 *   burst   all inserts sent at once: how long the fan-out of a burst takes
 *
 * Baseline, measured in the same run with the same number of subscribers and the same event bytes: a minimal
 * node:http SSE server in a child process (no Koa, auth, filter, replay buffer or backpressure handling) that writes
 * each event to every response as it arrives. Both servers run side by side; each phase runs on Hearth, then on the
 * baseline, so both see the same machine conditions.
 *
 * This file is also the two child processes (BENCH_SSE_ROLE=hearth|baseline).
 */
import { type ChildProcess, fork } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { envInt, fmtMs, fmtRate, fmtS, heading, now, printTable, ratio, type Stats, sleep, summarize, tempFolder } from './lib.ts';

const SUBSCRIBERS = envInt('BENCH_SSE_SUBSCRIBERS', 1000);
const INSERTS = envInt('BENCH_SSE_INSERTS', 1000);
const RATES = (process.env.BENCH_SSE_RATES ?? '100,500').split(',').map((r) => {
  const n = Number(r.trim());
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`BENCH_SSE_RATES must be comma-separated positive integers (got ${JSON.stringify(process.env.BENCH_SSE_RATES)})`);
  return n;
});
const CONNECT_BATCH = 100;
const WARMUP = 20;
const NS = 'bench';
const TABLE = 'items';

/** The change event of insert `n`, identical for Hearth and the baseline. */
function insertEvent(n: number, t: number) {
  const ts = new Date().toISOString();
  return {
    table: TABLE,
    action: 'insert',
    row: { id: n + 1, n, t, label: `item ${n}`, price: 9.99, created_at: ts, updated_at: ts },
    _meta: { actor: 'bench' },
    timestamp: ts,
  };
}

type ToChild =
  | { type: 'start'; dataDir?: string; adminToken?: string }
  | { type: 'publish'; n: number; t: number }
  | { type: 'stats'; id: number }
  | { type: 'stop' };

/** RSS, and the heap in use after a full collection (children run with --expose-gc). */
function memory(): { rss: number; heap: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

// ---------------------------------------------------------------------------------------------------------------
// Child: Hearth

async function hearthChild(): Promise<void> {
  const { startServer } = await import('../server/boot.ts');
  type Running = Awaited<ReturnType<typeof startServer>>;
  let server: Running | null = null;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server?.close();
    process.exit(0);
  };
  process.on('disconnect', () => void stop());
  process.on('message', (raw) => {
    const msg = raw as ToChild;
    if (msg.type === 'publish') server?.services.db.events.publish(NS, insertEvent(msg.n, msg.t));
    else if (msg.type === 'start') {
      startServer({ dataDir: msg.dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', adminToken: msg.adminToken, env: {} }).then(
        (s) => {
          server = s;
          process.send!({ type: 'ready', url: s.url });
        },
        (err: unknown) => {
          process.send!({ type: 'error', message: err instanceof Error ? err.message : String(err) });
          process.exit(1);
        },
      );
    } else if (msg.type === 'stats') {
      const bus = server!.services.db.events;
      process.send!({ type: 'reply', id: msg.id, ...memory(), subscribers: bus.subscribers(), dropped: bus.droppedSubscribers });
    } else if (msg.type === 'stop') void stop();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Child: baseline SSE server

function baselineChild(): void {
  const streams = new Set<http.ServerResponse>();
  const epoch = Date.now().toString(36);
  let seq = 0;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || !req.url?.startsWith(`/v1/${NS}/subscribe`)) {
      res.writeHead(404).end();
      return;
    }
    req.setTimeout(0);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write(': connected\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
  });
  const stop = () => {
    for (const r of streams) r.end();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('disconnect', stop);
  process.on('message', (raw) => {
    const msg = raw as ToChild;
    if (msg.type === 'publish') {
      const frame = `id: ${epoch}-${++seq}\nevent: insert\ndata: ${JSON.stringify(insertEvent(msg.n, msg.t))}\n\n`;
      for (const r of streams) r.write(frame);
    } else if (msg.type === 'start') {
      server.listen(0, '127.0.0.1', () => process.send!({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
    } else if (msg.type === 'stats') {
      process.send!({ type: 'reply', id: msg.id, ...memory(), subscribers: streams.size, dropped: 0 });
    } else if (msg.type === 'stop') stop();
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Parent

interface Child {
  pid: number;
  url: string;
  send(msg: ToChild): void;
  stats(): Promise<{ rss: number; heap: number; subscribers: number; dropped: number }>;
  stop(): Promise<void>;
}

const children = new Set<Child>();

/** Forks this file in a role and waits for `{type: 'ready', url}`. */
async function startRole(role: 'hearth' | 'baseline', start: Record<string, unknown>): Promise<Child> {
  const cp: ChildProcess = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, BENCH_SSE_ROLE: role },
    execArgv: [...process.execArgv, '--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    cp.once('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  const replies = new Map<number, (m: Record<string, unknown>) => void>();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${role} did not start within 30 s`)), 30_000);
    cp.on('message', (raw) => {
      const m = raw as Record<string, unknown>;
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve(m.url as string);
      } else if (m.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`${role}: ${String(m.message)}`));
      } else if (m.type === 'reply') {
        replies.get(m.id as number)?.(m);
        replies.delete(m.id as number);
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${role} exited with code ${code} before it was ready`));
    });
    cp.send({ type: 'start', ...start });
  });
  let seq = 0;
  const child: Child = {
    pid: cp.pid!,
    url,
    send: (msg) => void cp.send(msg),
    stats: () =>
      new Promise((resolve) => {
        const id = ++seq;
        replies.set(id, (m) => resolve(m as never));
        cp.send({ type: 'stats', id });
      }),
    async stop() {
      children.delete(child);
      if (exited) return;
      cp.send({ type: 'stop' });
      const timer = setTimeout(() => cp.kill('SIGKILL'), 15_000);
      const code = await exit;
      clearTimeout(timer);
      if (code !== 0) throw new Error(`${role} exited with code ${code}`);
    },
  };
  children.add(child);
  return child;
}

interface Phase {
  base: number;
  count: number;
  /** latency[sub * count + i] of insert base+i at subscriber sub (ms). */
  latency: Float64Array;
  /** Per insert: when its last subscriber got it, minus the send time (fan-out completion). */
  lastArrival: Float64Array;
  sentAt: Float64Array;
  received: number;
  firstSend: number;
  lastArrivalAt: number;
  done: (() => void) | null;
}

let phase: Phase | null = null;
let outOfOrder = 0;

/** One subscriber: a raw HTTP request whose `text/event-stream` body is split into frames here. */
class Subscriber {
  private buf = '';
  private lastN = -1;
  connected = false;
  private onConnected: (() => void) | null = null;
  private req: http.ClientRequest | null = null;
  readonly index: number;

  constructor(index: number) {
    this.index = index;
  }

  open(url: string, headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.onConnected = resolve;
      this.req = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`subscriber ${this.index}: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.data(chunk));
        res.on('error', () => {});
      });
      this.req.on('error', (err) => (this.connected ? undefined : reject(err)));
    });
  }

  private data(chunk: string): void {
    const arrived = now();
    this.buf += chunk;
    let start = 0;
    let end: number;
    while ((end = this.buf.indexOf('\n\n', start)) >= 0) {
      this.frame(this.buf.slice(start, end), arrived);
      start = end + 2;
    }
    if (start) this.buf = this.buf.slice(start);
  }

  private frame(f: string, arrived: number): void {
    if (f.charCodeAt(0) === 58 /* ':' */) {
      if (!this.connected && f.startsWith(': connected')) {
        this.connected = true;
        this.onConnected?.();
      }
      return;
    }
    const ni = f.indexOf('"n":');
    if (ni < 0) return; // retry/id-only lines
    const n = parseInt(f.slice(ni + 4, ni + 24), 10);
    const ti = f.indexOf('"t":');
    const t = parseFloat(f.slice(ti + 4, ti + 32));
    if (n !== this.lastN + 1) outOfOrder++;
    this.lastN = n;
    const p = phase;
    if (!p || n < p.base || n >= p.base + p.count) return;
    const i = n - p.base;
    const ms = arrived - t;
    p.latency[this.index * p.count + i] = ms;
    if (ms > p.lastArrival[i]!) p.lastArrival[i] = ms;
    p.lastArrivalAt = Math.max(p.lastArrivalAt, arrived);
    if (++p.received === p.count * SUBSCRIBERS) p.done?.();
  }

  close(): void {
    this.req?.destroy();
  }
}

interface PhaseResult {
  delivery: Stats;
  fanout: Stats;
  /** First send to last arrival. */
  spanMs: number;
  deliveriesPerSec: number;
}

async function runPhase(child: Child, base: number, rate: number | null): Promise<PhaseResult> {
  const p: Phase = {
    base,
    count: INSERTS,
    latency: new Float64Array(INSERTS * SUBSCRIBERS).fill(NaN),
    lastArrival: new Float64Array(INSERTS),
    sentAt: new Float64Array(INSERTS),
    received: 0,
    firstSend: 0,
    lastArrivalAt: 0,
    done: null,
  };
  phase = p;
  const finished = new Promise<void>((resolve, reject) => {
    p.done = resolve;
    setTimeout(() => reject(new Error(`only ${p.received} of ${INSERTS * SUBSCRIBERS} deliveries after 30 s`)), 30_000).unref();
  });
  p.firstSend = now();
  let sent = 0;
  while (sent < INSERTS) {
    const due = rate === null ? INSERTS : Math.min(INSERTS, Math.floor(((now() - p.firstSend) * rate) / 1000) + 1);
    for (; sent < due; sent++) {
      const t = now();
      p.sentAt[sent] = t;
      child.send({ type: 'publish', n: base + sent, t });
    }
    if (sent < INSERTS) await sleep(1);
  }
  await finished;
  phase = null;
  const spanMs = p.lastArrivalAt - p.firstSend;
  return { delivery: summarize(Array.from(p.latency)), fanout: summarize(Array.from(p.lastArrival)), spanMs, deliveriesPerSec: (p.received / spanMs) * 1000 };
}

interface Target {
  role: 'hearth' | 'baseline';
  child: Child;
  subs: Subscriber[];
  connectMs: number;
  /** Next insert number for this server. */
  next: number;
  paced: PhaseResult[];
  burst: PhaseResult | null;
  idle: { rss: number; heap: number };
  subscribed: { rss: number; heap: number };
  after: { rss: number; heap: number };
  dropped: number;
}

/** Starts a server, prepares it and connects its subscribers. */
async function prepare(role: 'hearth' | 'baseline', tmpDir: string): Promise<Target> {
  const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
  const child = await startRole(role, role === 'hearth' ? { dataDir: `${tmpDir}/hearth`, adminToken: token } : {});
  const headers: Record<string, string> = role === 'hearth' ? { authorization: `Bearer ${token}` } : {};
  if (role === 'hearth') {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(child.url + path, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${await res.text()}`);
    };
    await post('/v1/namespaces', { name: NS });
    await post(`/v1/${NS}/tables`, {
      type: 'table',
      name: TABLE,
      columns: [
        { name: 'n', type: 'integer' },
        { name: 't', type: 'real' },
        { name: 'label', type: 'text' },
        { name: 'price', type: 'real' },
      ],
    });
  }
  await sleep(200);
  const idle = await child.stats();

  const subs = Array.from({ length: SUBSCRIBERS }, (_, i) => new Subscriber(i));
  const url = `${child.url}/v1/${NS}/subscribe?tables=${TABLE}`;
  const c0 = now();
  for (let i = 0; i < SUBSCRIBERS; i += CONNECT_BATCH) {
    await Promise.all(subs.slice(i, i + CONNECT_BATCH).map((s) => s.open(url, headers)));
  }
  const connectMs = now() - c0;
  const st = await child.stats();
  if (st.subscribers !== SUBSCRIBERS) throw new Error(`${role} counts ${st.subscribers} subscribers, expected ${SUBSCRIBERS}`);
  console.log(`  ${role}: ${SUBSCRIBERS} subscribers connected in ${fmtS(connectMs)}`);
  const target: Target = { role, child, subs, connectMs, next: 0, paced: [], burst: null, idle, subscribed: st, after: st, dropped: 0 };
  // Warm-up (not counted): a few inserts through the whole path (JIT, buffers).
  for (let i = 0; i < WARMUP; i++) {
    child.send({ type: 'publish', n: target.next++, t: now() });
    await sleep(5);
  }
  await sleep(300);
  return target;
}

async function finish(t: Target): Promise<void> {
  const after = await t.child.stats();
  t.after = after;
  t.dropped = after.dropped;
  for (const s of t.subs) s.close();
  await t.child.stop();
}

async function phaseOn(t: Target, rate: number | null): Promise<PhaseResult> {
  const r = await runPhase(t.child, t.next, rate);
  t.next += INSERTS;
  const what = rate === null ? 'burst ' : `paced ${rate}/s`;
  console.log(
    `  ${t.role.padEnd(8)} ${what.padEnd(10)} delivery p50 ${fmtMs(r.delivery.p50)}  p99 ${fmtMs(r.delivery.p99)}  max ${fmtMs(r.delivery.max)}  all delivered ${fmtMs(r.spanMs)} after the first send`,
  );
  return r;
}

async function main(): Promise<number> {
  console.log(`SSE benchmark: ${SUBSCRIBERS} subscribers, ${INSERTS} inserts per phase (paced at ${RATES.join(', ')}/s, then a burst)`);
  console.log(`node ${process.version}, ${process.platform}/${process.arch}; inserts published over IPC in the server process, latency = arrival − send`);
  const tmp = tempFolder('hearth-bench-sse-');
  const t0 = now();
  try {
    heading('start both servers, connect the subscribers (hearth: GET /v1/bench/subscribe?tables=items)');
    const h = await prepare('hearth', tmp.dir);
    const b = await prepare('baseline', tmp.dir);
    heading('phases, hearth and baseline alternately (the same machine conditions for both)');
    for (const rate of RATES) {
      h.paced.push(await phaseOn(h, rate));
      b.paced.push(await phaseOn(b, rate));
    }
    h.burst = await phaseOn(h, null);
    b.burst = await phaseOn(b, null);
    if (outOfOrder) throw new Error(`${outOfOrder} events arrived out of order or with gaps`);
    await finish(h);
    await finish(b);
    const hb = h.burst;
    const bb = b.burst;

    heading(`summary: ${SUBSCRIBERS} subscribers × ${INSERTS} inserts = ${(SUBSCRIBERS * INSERTS).toLocaleString('en')} deliveries per phase`);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;
    printTable([
      ['figure', 'hearth', 'baseline', 'hearth/baseline'],
      [`connect ${SUBSCRIBERS} subscribers`, fmtS(h.connectMs), fmtS(b.connectMs), ratio(h.connectMs, b.connectMs)],
      ...RATES.flatMap((rate, i) => {
        const hp = h.paced[i]!;
        const bp = b.paced[i]!;
        return [
          [`paced ${rate}/s: delivery p50`, fmtMs(hp.delivery.p50), fmtMs(bp.delivery.p50), ratio(hp.delivery.p50, bp.delivery.p50)],
          [`paced ${rate}/s: delivery p99`, fmtMs(hp.delivery.p99), fmtMs(bp.delivery.p99), ratio(hp.delivery.p99, bp.delivery.p99)],
          [`paced ${rate}/s: delivery max`, fmtMs(hp.delivery.max), fmtMs(bp.delivery.max), ratio(hp.delivery.max, bp.delivery.max)],
          [`paced ${rate}/s: all ${SUBSCRIBERS} reached, p99`, fmtMs(hp.fanout.p99), fmtMs(bp.fanout.p99), ratio(hp.fanout.p99, bp.fanout.p99)],
        ];
      }),
      ['burst: delivery p50', fmtMs(hb.delivery.p50), fmtMs(bb.delivery.p50), ratio(hb.delivery.p50, bb.delivery.p50)],
      ['burst: delivery p99', fmtMs(hb.delivery.p99), fmtMs(bb.delivery.p99), ratio(hb.delivery.p99, bb.delivery.p99)],
      ['burst: first send → last delivery', fmtMs(hb.spanMs), fmtMs(bb.spanMs), ratio(hb.spanMs, bb.spanMs)],
      [
        'burst: throughput',
        fmtRate(hb.deliveriesPerSec, 'deliveries'),
        fmtRate(bb.deliveriesPerSec, 'deliveries'),
        ratio(hb.deliveriesPerSec, bb.deliveriesPerSec),
      ],
      [
        'server RSS: idle → subscribed → after',
        `${mb(h.idle.rss)} → ${mb(h.subscribed.rss)} → ${mb(h.after.rss)}`,
        `${mb(b.idle.rss)} → ${mb(b.subscribed.rss)} → ${mb(b.after.rss)}`,
        '',
      ],
      [
        'server heap after GC: idle → subscribed → after',
        `${mb(h.idle.heap)} → ${mb(h.subscribed.heap)} → ${mb(h.after.heap)}`,
        `${mb(b.idle.heap)} → ${mb(b.subscribed.heap)} → ${mb(b.after.heap)}`,
        '',
      ],
      ['subscribers dropped as too slow', String(h.dropped), '-', ''],
    ]);
    console.log('  Ratios are hearth ÷ baseline. Latency is measured in this process, which also parses all 1,000 streams:');
    console.log('  both servers share that cost. Every subscriber received every event in order.');
    console.log(`  ${fmtS(now() - t0)} in all`);
    return 0;
  } finally {
    await Promise.allSettled([...children].map((c) => c.stop()));
    tmp.remove();
  }
}

const role = process.env.BENCH_SSE_ROLE;
if (role === 'hearth') await hearthChild();
else if (role === 'baseline') baselineChild();
else {
  let code = 1;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      void Promise.allSettled([...children].map((c) => c.stop())).finally(() => process.exit(130));
    });
  }
  try {
    code = await main();
  } catch (err) {
    console.error('\nsse benchmark failed:', err);
  }
  process.exit(code);
}
