/**
 * Process helpers for the benchmarks, re-exported by lib.ts (import them from there): resident memory of a process
 * (now, peak, sampled over a window), and `hearth serve` as a child process timed from its spawn to a healthy
 * /healthz (bench/headless.bench.ts and bench/start.bench.ts). Node built-ins only.
 *
 * Benchmarks measure and print; they never assert on timings.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const now = (): number => performance.now();

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The headless build (`npm run build:headless`, run first when either file is missing): the binary and the bundle. */
export function headlessBuild(): { binary: string; bundle: string } {
  const binary = path.join(repo, 'build', 'out', 'hearth-linux-x64');
  const bundle = path.join(repo, 'build', 'out', 'headless', 'hearth.cjs');
  if (!fs.existsSync(binary) || !fs.existsSync(bundle)) {
    console.log('building the headless binary (npm run build:headless)…');
    const r = spawnSync('npm', ['run', 'build:headless', '--silent'], { cwd: repo, stdio: 'inherit' });
    if (r.status !== 0) process.exit(1);
  }
  return { binary, bundle };
}

// ---------------------------------------------------------------------------------------------------------------
// Process memory

export interface ProcMemory {
  /** Resident set size now (VmRSS), in bytes; NaN when the process is gone. */
  rss: number;
  /** Peak resident set size (VmHWM) since start or the last `resetPeakRss`, in bytes; NaN when unknown. */
  hwm: number;
}

/** VmRSS and VmHWM of a process, from /proc/<pid>/status. */
export function procMemory(pid: number): ProcMemory {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
  } catch {
    return { rss: NaN, hwm: NaN };
  }
  const kb = (key: string) => {
    const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : NaN;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resets a process's VmHWM to its current RSS (`echo 5 > /proc/<pid>/clear_refs`); false when not permitted. */
export function resetPeakRss(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface RssWindow {
  samples: number;
  /** RSS at the first sample, in bytes. */
  first: number;
  /** Highest RSS sampled, in bytes. */
  peak: number;
  last: number;
}

/** Samples a process's VmRSS every `intervalMs` (default 20) between `start()` and `stop()`. */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private w: RssWindow = { samples: 0, first: NaN, peak: NaN, last: NaN };
  private readonly pid: number;
  private readonly intervalMs: number;

  constructor(pid: number, intervalMs = 20) {
    this.pid = pid;
    this.intervalMs = intervalMs;
  }

  start(): void {
    this.stop();
    this.w = { samples: 0, first: NaN, peak: NaN, last: NaN };
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  sample(): number {
    const { rss } = procMemory(this.pid);
    if (Number.isFinite(rss)) {
      if (this.w.samples === 0) this.w.first = rss;
      this.w.samples++;
      this.w.last = rss;
      this.w.peak = Number.isFinite(this.w.peak) ? Math.max(this.w.peak, rss) : rss;
    }
    return rss;
  }

  /** Takes a last sample and returns the window. */
  stop(): RssWindow {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.sample();
    }
    return { ...this.w };
  }
}

export const fmtMiB = (bytes: number): string => (Number.isFinite(bytes) ? `${(bytes / 1048576).toFixed(1)} MiB` : 'n/a');

/** Median of a list of numbers (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

// ---------------------------------------------------------------------------------------------------------------
// `hearth serve` as a child process (the binary, `node hearth.cjs` or `node bin/hearth.mjs`)

export interface ServeChild {
  child: ChildProcess;
  url: string;
  /** Milliseconds from the spawn to the first 200 from /healthz. */
  healthyMs: number;
  /** SIGTERM, and SIGKILL if it has not exited 10 s later. */
  stop(): Promise<void>;
}

/**
 * Spawns `<cmd> <args…> serve --port 0 --data <data> --log-level warn` and waits for its first healthy /healthz (the
 * address is read from its "listening on" line; /healthz is polled every 2 ms from then on).
 */
export async function spawnServe(cmd: string, args: string[], opts: { data: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ServeChild> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const t0 = now();
  const child = spawn(cmd, [...args, 'serve', '--port', '0', '--data', opts.data, '--log-level', 'warn'], { env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(10_000).then(() => 'timeout' as const)]);
    if (code === 'timeout') child.kill('SIGKILL');
    else if (code !== 0) console.warn(`  (${path.basename(cmd)} exited with ${code} on SIGTERM)`);
  };
  try {
    let url: string | null = null;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}: ${err}`);
      url ??= /listening on (http:\/\/[\d.:]+)/.exec(out)?.[1] ?? null;
      if (url) {
        const ok = await fetch(`${url}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (ok) return { child, url, healthyMs: now() - t0, stop };
      }
      if (now() - t0 > timeoutMs) throw new Error(`${cmd} not healthy within ${timeoutMs} ms: ${out} ${err}`);
      await sleep(url ? 2 : 5);
    }
  } catch (e) {
    await stop();
    throw e;
  }
}

export interface ServeStart {
  /** Milliseconds from the spawn to the first 200 from /healthz. */
  ms: number;
  /** VmRSS in kB `idleMs` after the first healthy /healthz, when asked for; otherwise null. */
  rssKb: number | null;
}

/** Starts a server (see spawnServe), optionally lets it idle `idleMs` and reads its resident memory, then stops it. */
export async function timeServeStart(cmd: string, args: string[], opts: { data: string; env: NodeJS.ProcessEnv; idleMs?: number }): Promise<ServeStart> {
  const s = await spawnServe(cmd, args, opts);
  try {
    let rssKb: number | null = null;
    if (opts.idleMs !== undefined) {
      await sleep(opts.idleMs);
      rssKb = procMemory(s.child.pid!).rss / 1024;
    }
    return { ms: s.healthyMs, rssKb };
  } finally {
    await s.stop();
  }
}
