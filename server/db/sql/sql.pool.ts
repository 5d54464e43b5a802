/**
 * A small pool of query child processes (`sql.child.ts`) so read-only SQL runs off the event loop and a query past
 * its time limit can be stopped: better-sqlite3 cannot interrupt a running statement, so the child is killed.
 *
 * - Children start lazily (the first query pays the start, ~100 ms) and exit after `idleMs` without work.
 * - One namespace may use at most `perNamespace` children at once (default: all but one), so a namespace running
 *   long queries always leaves a child for the others.
 * - Requests beyond the free children wait in a bounded queue (FIFO, skipping namespaces at their limit); a full
 *   queue answers 503 `service_unavailable` at once.
 * - A query's time limit counts from the moment a child receives it (queue time excluded). Past it the child is
 *   killed (SIGKILL) and replaced, and the caller gets 504 `query_timeout`.
 * - A child that dies mid-query answers 503 `service_unavailable` and is replaced on the next query.
 * - A caller that goes away (AbortSignal) leaves the queue, or has its running query killed.
 */
import type { ChildProcess } from 'node:child_process';
import { forkChild } from '../../core/runtime.ts';
import { ADDON_ENV } from '../../core/storage/sqlite.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { ChildMessage, RunReply, RunRequest } from './sql.protocol.ts';

export interface QueryPoolOptions {
  logger: Logger;
  /** Children at most (default 2). */
  size?: number;
  /** Requests waiting for a child at most (default 64). */
  queueLimit?: number;
  /** Children one namespace may use at once (default `max(1, size − 1)`). */
  perNamespace?: number;
  /** A child that has not said it is ready after this long is killed (default 15 s). */
  startTimeoutMs?: number;
  /** An idle child exits after this long (default 5 min). */
  idleMs?: number;
  /** The child script (default `sql.child.ts` beside this file). */
  childUrl?: URL;
}

/** A child kills itself this long after the query's time limit if the server has not done it (see RunRequest). */
const SELF_KILL_GRACE_MS = 250;

export interface PoolJob {
  ns: string;
  request: Omit<RunRequest, 'type' | 'id' | 'selfKillMs'>;
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Pending {
  id: number;
  job: PoolJob;
  resolve: (reply: RunReply) => void;
  reject: (err: Error) => void;
  settled: boolean;
  timer: NodeJS.Timeout | null;
  slot: Slot | null;
  startedAt: number;
  onAbort: (() => void) | null;
}

interface Slot {
  proc: ChildProcess;
  ready: boolean;
  job: Pending | null;
  /** Set when the pool itself stops the child (timeout, abort, idle, close): its exit is expected. */
  retiring: boolean;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/** The child's environment: an allow-list (no tokens or secrets), where SQLite puts temporary files, Electron as Node. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ELECTRON_RUN_AS_NODE: '1' };
  for (const k of ['PATH', 'TMPDIR', 'TMP', 'TEMP', 'SQLITE_TMPDIR', 'SystemRoot', ADDON_ENV]) if (process.env[k] !== undefined) env[k] = process.env[k];
  return env;
}

const timeoutError = (ms: number) =>
  new HearthError('query_timeout', `the query ran longer than the namespace's query_timeout (${ms} ms) and was stopped`, {
    details: { query_timeout: ms },
  });

export class QueryPool {
  private readonly log: Logger;
  private readonly size: number;
  private readonly queueLimit: number;
  private readonly perNamespace: number;
  private readonly startTimeoutMs: number;
  private readonly idleMs: number;
  private readonly childUrl: URL;
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private readonly running = new Map<string, number>();
  private seq = 0;
  private closed = false;
  /** Counters for tests and diagnostics. */
  readonly counters = { spawned: 0, killed: 0, timeouts: 0, crashes: 0, rejectedFull: 0 };

  constructor(opts: QueryPoolOptions) {
    this.log = opts.logger;
    this.size = Math.max(1, opts.size ?? 2);
    this.queueLimit = Math.max(0, opts.queueLimit ?? 64);
    this.perNamespace = Math.max(1, Math.min(this.size, opts.perNamespace ?? this.size - 1));
    this.startTimeoutMs = opts.startTimeoutMs ?? 15_000;
    this.idleMs = opts.idleMs ?? 5 * 60_000;
    this.childUrl = opts.childUrl ?? new URL('./sql.child.ts', import.meta.url);
  }

  get stats() {
    return { children: this.slots.size, busy: [...this.slots].filter((s) => s.job).length, queued: this.queue.length, ...this.counters };
  }

  /** Process ids of the children running a query now (diagnostics and tests). */
  get busyPids(): number[] {
    return [...this.slots].filter((s) => s.job && s.proc.pid !== undefined).map((s) => s.proc.pid!);
  }

  run(job: PoolJob): Promise<RunReply> {
    if (this.closed) return Promise.reject(new HearthError('service_unavailable', 'the server is shutting down'));
    if (job.signal?.aborted) return Promise.reject(new HearthError('service_unavailable', 'the request was abandoned before the query started'));
    if (this.queue.length >= this.queueLimit && !this.hasFreeCapacity(job.ns)) {
      this.counters.rejectedFull++;
      return Promise.reject(
        new HearthError('service_unavailable', `too many queries are waiting (${this.queueLimit}); try again shortly`, { headers: { 'Retry-After': '1' } }),
      );
    }
    return new Promise<RunReply>((resolve, reject) => {
      const p: Pending = { id: ++this.seq, job, resolve, reject, settled: false, timer: null, slot: null, startedAt: 0, onAbort: null };
      if (job.signal) {
        p.onAbort = () => this.abort(p);
        job.signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /** Kills every child and fails whatever is queued or running. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, new HearthError('service_unavailable', 'the server is shutting down'));
    const exits: Array<Promise<void>> = [];
    for (const slot of [...this.slots]) {
      if (slot.job) this.settle(slot.job, new HearthError('service_unavailable', 'the server is shutting down'));
      exits.push(slot.exited);
      this.retire(slot);
    }
    await Promise.all(exits);
  }

  private hasFreeCapacity(ns: string): boolean {
    if ((this.running.get(ns) ?? 0) >= this.perNamespace) return false;
    for (const s of this.slots) if (!s.job) return true;
    return this.slots.size < this.size;
  }

  /** Hands queued requests to free children, starting children as needed. */
  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      const i = this.queue.findIndex((p) => (this.running.get(p.job.ns) ?? 0) < this.perNamespace);
      if (i < 0) return;
      let slot: Slot | null = null;
      for (const s of this.slots) {
        if (!s.job && !s.retiring && (!slot || (s.ready && !slot.ready))) slot = s;
      }
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      if (!slot) return;
      const [p] = this.queue.splice(i, 1);
      this.assign(slot, p!);
    }
  }

  private assign(slot: Slot, p: Pending): void {
    slot.job = p;
    p.slot = slot;
    this.running.set(p.job.ns, (this.running.get(p.job.ns) ?? 0) + 1);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.ready) this.send(slot);
  }

  private send(slot: Slot): void {
    const p = slot.job!;
    p.startedAt = Date.now();
    p.timer = setTimeout(() => this.timeout(slot, p), p.job.timeoutMs);
    const msg: RunRequest = { type: 'run', id: p.id, ...p.job.request, selfKillMs: p.job.timeoutMs + SELF_KILL_GRACE_MS };
    slot.proc.send(msg, (err) => {
      if (err && slot.job === p) this.lost(slot, `could not reach the query process: ${err.message}`);
    });
  }

  private spawn(): Slot {
    const proc = forkChild('sql-child', this.childUrl, [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: childEnv(),
    });
    this.counters.spawned++;
    let markExited!: () => void;
    const slot: Slot = { proc, ready: false, job: null, retiring: false, timer: null, exited: new Promise<void>((r) => (markExited = r)) };
    this.slots.add(slot);
    slot.timer = setTimeout(() => {
      if (!slot.ready) this.lost(slot, `the query process did not start within ${this.startTimeoutMs} ms`);
    }, this.startTimeoutMs);
    let gone = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (gone) return;
      gone = true;
      markExited();
      this.onExit(slot, code, signal);
    };
    proc.on('message', (raw) => this.onMessage(slot, raw as ChildMessage));
    proc.on('error', (err) => {
      this.log.warn({ err }, 'query process error');
      if (proc.pid === undefined) finish(null, null); // it never started: no 'exit' will follow
    });
    proc.once('exit', finish);
    return slot;
  }

  private onMessage(slot: Slot, msg: ChildMessage): void {
    if (msg.type === 'ready') {
      slot.ready = true;
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      if (slot.job) this.send(slot);
      else this.idle(slot);
      return;
    }
    const p = slot.job;
    if (!p || p.id !== msg.id) return; // a late answer to a request already given up
    this.release(slot);
    this.settle(p, null, msg);
    this.idle(slot);
    this.pump();
  }

  /** Frees a slot's job (its namespace count and timer) without answering it. */
  private release(slot: Slot): void {
    const p = slot.job;
    if (!p) return;
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
    slot.job = null;
    const n = (this.running.get(p.job.ns) ?? 1) - 1;
    if (n > 0) this.running.set(p.job.ns, n);
    else this.running.delete(p.job.ns);
  }

  private idle(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => {
      if (!slot.job) this.retire(slot, false);
    }, this.idleMs);
    slot.timer.unref();
  }

  private timeout(slot: Slot, p: Pending): void {
    if (slot.job !== p) return;
    this.counters.timeouts++;
    const ms = p.job.timeoutMs;
    this.release(slot);
    this.retire(slot);
    this.settle(p, timeoutError(ms));
    this.replace();
  }

  private abort(p: Pending): void {
    if (p.settled) return;
    const i = this.queue.indexOf(p);
    if (i >= 0) this.queue.splice(i, 1);
    const slot = p.slot;
    if (slot && slot.job === p) {
      this.release(slot);
      this.retire(slot);
      this.replace();
    }
    this.settle(p, new HearthError('service_unavailable', 'the request was abandoned by the client; its query was stopped'));
  }

  /** A child that stopped working: fail its query with a clear answer and let the next query start another. */
  private lost(slot: Slot, why: string): void {
    const p = slot.job;
    this.release(slot);
    this.retire(slot);
    if (p) this.settle(p, new HearthError('service_unavailable', `the query could not complete: ${why}; try again`));
    this.pump();
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    this.slots.delete(slot);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.retiring) return;
    const p = slot.job;
    this.release(slot);
    if (p && p.startedAt > 0 && Date.now() - p.startedAt >= p.job.timeoutMs) {
      // Its watchdog stopped it: the server's own timer could not fire in time (the event loop was busy).
      this.counters.timeouts++;
      this.log.info({ ns: p.job.ns, timeoutMs: p.job.timeoutMs }, 'query process stopped itself at the query time limit');
      this.settle(p, timeoutError(p.job.timeoutMs));
      this.replace();
      return;
    }
    this.counters.crashes++;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    this.log.warn({ code, signal, ready: slot.ready, busy: !!p }, 'query process exited unexpectedly');
    if (p) {
      const what = slot.ready ? 'stopped unexpectedly' : 'could not start';
      this.settle(p, new HearthError('service_unavailable', `the query process ${what} (${how}) while running this query; try again`));
    } else if (!slot.ready) {
      // It died while starting: fail one waiting request rather than spawning in a loop.
      const next = this.queue.shift();
      if (next) this.settle(next, new HearthError('service_unavailable', `the query process could not start (${how})`));
    }
    this.pump();
  }

  /** Stops a child on purpose. `kill`: at once (SIGKILL); otherwise close its IPC channel so it exits by itself. */
  private retire(slot: Slot, kill = true): void {
    if (slot.retiring) return;
    slot.retiring = true;
    this.slots.delete(slot);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (kill) {
      this.counters.killed++;
      slot.proc.kill('SIGKILL');
    } else if (slot.proc.connected) slot.proc.disconnect();
    else slot.proc.kill('SIGKILL');
  }

  /** Starts a child in place of a killed one, so the next query does not wait for a start. */
  private replace(): void {
    if (this.closed) return;
    if (this.queue.length > 0) this.pump();
    else if (this.slots.size < this.size) this.spawn();
  }

  private settle(p: Pending, err: Error | null, reply?: RunReply): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    if (p.onAbort) p.job.signal?.removeEventListener('abort', p.onAbort);
    if (err) p.reject(err);
    else p.resolve(reply!);
  }
}
