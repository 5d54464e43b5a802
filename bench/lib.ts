/**
 * Small helpers shared by the benchmarks: timing, percentiles, a keep-alive HTTP load loop, child processes
 * talking over IPC, and a file-descriptor sampler; with lib-process.ts, process memory and `hearth serve` children.
 * Node built-ins only.
 *
 * Benchmarks measure and print; they never assert on timings.
 */
import { type ChildProcess, fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const now = (): number => performance.now();

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads a positive integer knob from the environment (e.g. BENCH_NS_COUNT), or the default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got ${JSON.stringify(raw)})`);
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics and formatting

export interface Stats {
  n: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samples: readonly number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    n: s.length,
    min: s[0] ?? NaN,
    p50: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.length ? sum / s.length : NaN,
  };
}

export const fmtMs = (ms: number): string => (Number.isFinite(ms) ? `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0)} ms` : 'n/a');
export const fmtRate = (perSec: number, unit: string): string => `${perSec >= 100 ? perSec.toFixed(0) : perSec.toFixed(1)} ${unit}/s`;
export const fmtS = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
/** `a / b` as "0.62×". */
export const ratio = (a: number, b: number): string => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : 'n/a');
/** A figure against its target (higher is better): "met (≥ 0.6)" or "MISSED (< 0.6)". Benchmarks never fail on it. */
export const verdict = (value: number, target: number): string => (value >= target ? `met (≥ ${target})` : `MISSED (< ${target})`);

/** Prints rows as an aligned plain-text table (first row is the header). */
export function printTable(rows: string[][], indent = '  '): void {
  const widths: number[] = [];
  for (const r of rows) for (const [i, c] of r.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  const line = (r: string[]) => indent + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('   ');
  console.log(line(rows[0]!));
  console.log(indent + widths.map((w) => '-'.repeat(w)).join('   '));
  for (const r of rows.slice(1)) console.log(line(r));
}

export function heading(text: string): void {
  console.log(`\n== ${text}`);
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * How a benchmark's client reaches an https server: the roots it trusts (only these: the chain is verified) and the
 * name the certificate must hold (also sent as SNI; without it, the URL's host, which may be an IP address).
 */
export interface TlsClient {
  ca: string | string[];
  servername?: string;
}

/** A keep-alive agent; with `tls`, an https agent trusting only `tls.ca`. */
export function keepAliveAgent(maxSockets = 1, tls?: TlsClient): http.Agent {
  if (tls) return new https.Agent({ keepAlive: true, maxSockets, ca: tls.ca, servername: tls.servername });
  return new http.Agent({ keepAlive: true, maxSockets });
}

/** One request over `agent` (an https agent for an https URL); resolves with the whole body as text. */
export function request(
  agent: http.Agent,
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const req = (url.startsWith('https:') ? https : http).request(url, { method: opts.method ?? 'GET', agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface LoadResult {
  /** Latency of every request, in ms, in completion order. */
  latencies: number[];
  elapsedMs: number;
  connections: number;
}

/**
 * Runs `total` requests with `connections` concurrent workers, each on its own keep-alive connection.
 * `send(i, agent)` performs request i; a rejection stops the loop and is rethrown.
 */
export async function loadLoop(opts: { total: number; connections: number }, send: (i: number, agent: http.Agent) => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let failed: unknown = null;
  const agents = Array.from({ length: opts.connections }, () => keepAliveAgent(1));
  const t0 = now();
  await Promise.all(
    agents.map(async (agent) => {
      while (failed === null) {
        const i = next++;
        if (i >= opts.total) return;
        const t = now();
        try {
          await send(i, agent);
        } catch (err) {
          failed ??= err;
          return;
        }
        latencies.push(now() - t);
      }
    }),
  );
  const elapsedMs = now() - t0;
  for (const a of agents) a.destroy();
  if (failed !== null) throw failed;
  return { latencies, elapsedMs, connections: opts.connections };
}

// ---------------------------------------------------------------------------------------------------------------
// Child processes (servers under test run outside the load generator's event loop)

export interface ChildReady {
  type: 'ready';
  url: string;
}

export interface BenchChild {
  pid: number;
  url: string;
  /** Sends `msg` with a fresh id and resolves with the child's `{type: 'reply', id, ...}` answer. */
  ask<T>(msg: Record<string, unknown>): Promise<T>;
  /** Asks the child to close gracefully and waits for it to exit. */
  stop(): Promise<void>;
}

const benchDir = path.dirname(fileURLToPath(import.meta.url));

/** Forks `bench/<script>`, sends it `{type: 'start', ...start}` and waits for `{type: 'ready', url}`. */
export async function startChild(script: string, start: Record<string, unknown>, timeoutMs = 30_000): Promise<BenchChild> {
  const child: ChildProcess = fork(path.join(benchDir, script), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, (msg: Record<string, unknown>) => void>();
  let exited = false;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      exited = true;
      resolve(code);
    }),
  );
  const ready = new Promise<ChildReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.on('message', (raw) => {
      const msg = raw as Record<string, unknown>;
      if (msg.type === 'ready') {
        clearTimeout(timer);
        resolve(msg as unknown as ChildReady);
      } else if (msg.type === 'reply' && typeof msg.id === 'number') {
        pending.get(msg.id)?.(msg);
        pending.delete(msg.id);
      } else if (msg.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`${script}: ${String(msg.message)}`));
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with code ${code} before it was ready`));
    });
  });
  child.send({ type: 'start', ...start });
  let info: ChildReady;
  try {
    info = await ready;
  } catch (err) {
    if (!exited) child.kill('SIGKILL');
    throw err;
  }
  let seq = 0;
  return {
    pid: child.pid!,
    url: info.url,
    ask<T>(msg: Record<string, unknown>): Promise<T> {
      const id = ++seq;
      return new Promise<T>((resolve, reject) => {
        if (exited) return reject(new Error(`${script} has exited`));
        pending.set(id, (m) => resolve(m as T));
        child.send({ ...msg, id });
      });
    },
    async stop() {
      if (exited) return;
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exit;
      clearTimeout(timer);
      if (code !== 0) throw new Error(`${script} exited with code ${code}`);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// File descriptors

export interface FdCount {
  /** Every open descriptor. */
  total: number;
  /** Descriptors that are sockets (listening socket and HTTP connections). */
  sockets: number;
  /** Descriptors whose target lies under the watched folder (e.g. tenant database files). */
  watched: number;
}

/** CPU time (user + system, ms, all threads) of a process from /proc/<pid>/stat; NaN when it cannot be read. */
export function processCpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

/** Open file descriptors of a process now, by kind (readdir + readlink of /proc/<pid>/fd). */
export function countFds(pid: number, watchDir?: string): FdCount {
  const dir = `/proc/${pid}/fd`;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return { total: NaN, sockets: NaN, watched: NaN };
  }
  const prefix = watchDir ? (watchDir.endsWith(path.sep) ? watchDir : watchDir + path.sep) : null;
  let sockets = 0;
  let watched = 0;
  for (const n of names) {
    let target: string;
    try {
      target = fs.readlinkSync(`${dir}/${n}`);
    } catch {
      continue; // closed between readdir and readlink
    }
    if (target.startsWith('socket:')) sockets++;
    else if (prefix && target.startsWith(prefix)) watched++;
  }
  return { total: names.length, sockets, watched };
}

export interface FdPhase {
  label: string;
  samples: number;
  /** Count at the first sample of the phase. */
  first: FdCount | null;
  last: FdCount | null;
  peak: number;
  /** Peak of descriptors that are not sockets (files, pipes, event descriptors…). */
  peakNonSocket: number;
  /** Peak number of descriptors pointing under the watched folder. */
  peakWatched: number;
}

/**
 * Samples a process's open descriptors every `intervalMs` (default 50) and keeps the peaks per labelled phase.
 * `watch(pid, label)` starts; `phase(label)` starts a new phase; `stop()` ends sampling.
 */
export class FdSampler {
  readonly phases: FdPhase[] = [];
  private timer: NodeJS.Timeout | null = null;
  private current: FdPhase | null = null;
  private pid = 0;
  private readonly watchDir: string | undefined;
  private readonly intervalMs: number;

  constructor(opts: { watchDir?: string; intervalMs?: number } = {}) {
    this.watchDir = opts.watchDir;
    this.intervalMs = opts.intervalMs ?? 50;
  }

  watch(pid: number, label: string): FdPhase {
    this.stop();
    this.pid = pid;
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this.phase(label);
  }

  phase(label: string): FdPhase {
    this.current = { label, samples: 0, first: null, last: null, peak: 0, peakNonSocket: 0, peakWatched: 0 };
    this.phases.push(this.current);
    this.sample();
    return this.current;
  }

  /** Takes one sample now (the timer calls it too). */
  sample(): FdCount {
    const c = countFds(this.pid, this.watchDir);
    const p = this.current;
    if (p && Number.isFinite(c.total)) {
      p.first ??= c;
      p.samples++;
      p.last = c;
      p.peak = Math.max(p.peak, c.total);
      p.peakNonSocket = Math.max(p.peakNonSocket, c.total - c.sockets);
      p.peakWatched = Math.max(p.peakWatched, c.watched);
    }
    return c;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.current) this.sample();
    this.current = null;
  }

  /** Peak over every phase so far. */
  get peak(): number {
    return Math.max(0, ...this.phases.map((p) => p.peak));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Temporary folders

/** A fresh folder under the OS temporary directory; `remove()` deletes it. */
export function tempFolder(prefix: string): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A benchmark run's temporary folder and child servers, cleaned up once: at the end (`cleanup()`), or on
 * SIGINT/SIGTERM (then the process exits 130 and `interrupted` is set). `beforeStop` runs first (e.g. samplers).
 */
export function benchRun(prefix: string, opts: { beforeStop?: () => void } = {}) {
  const tmp = tempFolder(prefix);
  const children = new Set<BenchChild>();
  let cleaning: Promise<void> | null = null;
  const run = {
    tmp,
    children,
    interrupted: false,
    cleanup(): Promise<void> {
      cleaning ??= (async () => {
        opts.beforeStop?.();
        await Promise.allSettled([...children].map((c) => c.stop()));
        tmp.remove();
      })();
      return cleaning;
    },
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      run.interrupted = true;
      console.error(`\n${sig}: stopping servers and removing ${tmp.dir}`);
      void run.cleanup().finally(() => process.exit(130));
    });
  }
  return run;
}

// Process memory and `hearth serve` children live in lib-process.ts (this file's size); import them from here.
export * from './lib-process.ts';
