/**
 * The query pool: a small pool of query processes (`sql.child.ts`) that run every tenant read that could take long —
 * read-only SQL, the rows API's listings, aggregates and views, CSV exports — off the event loop, so that a read can
 * be stopped at its time limit (better-sqlite3 cannot interrupt a running statement: the process is killed) and
 * never delays other requests.
 *
 * - Processes start when a namespace is first opened or a job needs one; while the pool has room it keeps one
 *   process ready beyond those at work. A process exits after `idleMs` without work.
 * - One namespace may use at most `perNamespace` processes at once (default: all but one), so a namespace running
 *   long reads always leaves a process for the others.
 * - Jobs beyond the free processes wait in a bounded queue (FIFO, skipping namespaces at their limit); a full
 *   queue answers 503 `service_unavailable` at once.
 * - A job's time limit counts from the moment a process receives it (queue time excluded); for an export it counts
 *   while the process works on a chunk the client is waiting for (not while the client is slow to read). Past it
 *   the process is killed (SIGKILL) and replaced, and the caller gets 504 `query_timeout`.
 * - Memory: a process may grow to `memoryLimit` (resident set) while it works; past it, it kills itself and the
 *   caller gets 422 `query_memory_exceeded`. A process left larger than ¾ of the limit after a job is retired. (A
 *   query process holds about 90 MiB before it reads anything: Node, SQLite and its watchdog thread.)
 * - Scheduling: query processes run at nice 5, so on a busy machine the server's own event loop comes first; a job
 *   that runs longer than `demoteAfterMs` lowers its process to nice 15, so short reads in other processes come
 *   before it. The process gets its priority back after the job, or is retired when the system does not allow that.
 * - A process that dies mid-job answers 503 `service_unavailable` and is replaced on the next job.
 * - A caller that goes away (AbortSignal) leaves the queue, or has its running job killed.
 *
 * This file is the scheduler (queue, limits, timers, answers); one process — forking, priority, memory word,
 * stopping — is `sql.process.ts`. The scheduler stays one file because every way a job ends (answer, timeout, memory,
 * death, abort, an export's last chunk) must free its slot and pump the queue the same way, over the same state.
 */
import { Readable } from 'node:stream';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { QueryProcess } from './sql.process.ts';
import { type ChildMessage, EXPORT_WINDOW, type JobReply, type JobRequest, type ParentMessage, type RunFailed } from './sql.protocol.ts';

export interface QueryPoolOptions {
  logger: Logger;
  /** Processes at most (default 4). */
  size?: number;
  /** Jobs waiting for a process at most (default 64). */
  queueLimit?: number;
  /** Processes one namespace may use at once (default `size − 1`, at least 1). */
  perNamespace?: number;
  /** Resident set a process may reach while it works, in bytes (default 256 MiB). */
  memoryLimit?: number;
  /** A job running this long lowers its process's priority (default 100 ms). */
  demoteAfterMs?: number;
  /** A process that has not said it is ready after this long is killed (default 15 s). */
  startTimeoutMs?: number;
  /** An idle process exits after this long (default 5 min). */
  idleMs?: number;
  /** The child script (default `sql.child.ts` beside this file). */
  childUrl?: URL;
}

export const DEFAULT_POOL_SIZE = 4;
export const DEFAULT_MEMORY_LIMIT = 256 * 1024 * 1024;

/** A child kills itself this long after the job's time limit if the server has not done it (see JobRequest). */
const SELF_KILL_GRACE_MS = 250;
/** A process left larger than this share of its memory limit after a job is retired (memory it may not give back). */
const RECYCLE_AT = 0.75;
/** Characters of CSV per export chunk (with EXPORT_WINDOW chunks in flight). */
const CHUNK_CHARS = 32 * 1024;

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A job as a caller describes it (the pool adds its id, the self-kill time and the memory limit). */
export type JobBody = DistributiveOmit<JobRequest, 'id' | 'selfKillMs' | 'memoryLimit' | 'chunkChars'>;

export interface PoolJob {
  ns: string;
  request: JobBody;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** How an export starts: its chunks as a stream, or the failure the process reported before the first one. */
export type ExportStart = { ok: true; stream: Readable } | { ok: false; reply: RunFailed };

interface Exporting {
  stream: Readable | null;
  /** Chunks granted to the child and not yet received. */
  outstanding: number;
  start: (s: ExportStart) => void;
}

interface Pending {
  id: number;
  job: PoolJob;
  resolve: (reply: JobReply) => void;
  reject: (err: Error) => void;
  settled: boolean;
  timer: NodeJS.Timeout | null;
  demoteTimer: NodeJS.Timeout | null;
  slot: Slot | null;
  startedAt: number;
  onAbort: (() => void) | null;
  exporting: Exporting | null;
}

/** A query process and what the pool gave it. */
interface Slot {
  readonly process: QueryProcess;
  job: Pending | null;
  /** The start timeout until the process is ready, then its idle timeout while it has no job. */
  timer: NodeJS.Timeout | null;
}

const timeoutError = (ms: number) =>
  new HearthError('query_timeout', `the query ran longer than the namespace's query_timeout (${ms} ms) and was stopped`, {
    details: { query_timeout: ms },
  });

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

const memoryError = (limit: number) =>
  new HearthError(
    'query_memory_exceeded',
    `the query needed more than ${mib(limit)} of memory and was stopped: ask for fewer rows or columns, or aggregate less at once (the limit is HEARTH_QUERY_MEMORY_LIMIT)`,
    { details: { memory_limit: limit } },
  );

export class QueryPool {
  private readonly log: Logger;
  private readonly size: number;
  private readonly queueLimit: number;
  private readonly perNamespace: number;
  readonly memoryLimit: number;
  private readonly demoteAfterMs: number;
  private readonly startTimeoutMs: number;
  private readonly idleMs: number;
  private readonly childUrl: URL;
  private readonly slots = new Set<Slot>();
  private readonly queue: Pending[] = [];
  private readonly running = new Map<string, number>();
  private seq = 0;
  private closed = false;
  /** Counters for tests and diagnostics. */
  readonly counters = { jobs: 0, spawned: 0, killed: 0, timeouts: 0, crashes: 0, rejectedFull: 0, memoryExceeded: 0, demoted: 0 };

  constructor(opts: QueryPoolOptions) {
    this.log = opts.logger;
    this.size = Math.max(1, opts.size ?? DEFAULT_POOL_SIZE);
    this.queueLimit = Math.max(0, opts.queueLimit ?? 64);
    this.perNamespace = Math.max(1, Math.min(this.size, opts.perNamespace ?? this.size - 1));
    this.memoryLimit = opts.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
    this.demoteAfterMs = opts.demoteAfterMs ?? 100;
    this.startTimeoutMs = opts.startTimeoutMs ?? 15_000;
    this.idleMs = opts.idleMs ?? 5 * 60_000;
    this.childUrl = opts.childUrl ?? new URL('./sql.child.ts', import.meta.url);
  }

  get stats() {
    const slots = [...this.slots];
    return {
      children: slots.length,
      busy: slots.filter((s) => s.job).length,
      /** Jobs a started process has received (busy counts jobs still waiting for their process to start too). */
      running: slots.filter((s) => s.job && s.job.startedAt > 0).length,
      idle: slots.filter((s) => s.process.ready && !s.job).length,
      /** Exports waiting for their reader: every chunk granted has arrived and none is granted, so no time limit runs. */
      waiting: slots.filter((s) => s.job?.exporting?.outstanding === 0).length,
      queued: this.queue.length,
      ...this.counters,
    };
  }

  /** Process ids of the processes running a job now (diagnostics and tests). */
  get busyPids(): number[] {
    return [...this.slots].filter((s) => s.job && s.process.pid !== undefined).map((s) => s.process.pid!);
  }

  /** Starts a process ahead of the first job, when none runs (a namespace was just opened: reads will follow). */
  prewarm(): void {
    if (!this.closed && this.slots.size === 0) this.idle(this.spawn());
  }

  /** Runs a job (`run` or `read`) and answers with the process's reply (a failure it reports resolves too). */
  run(job: PoolJob): Promise<JobReply> {
    return this.enqueue(job, null);
  }

  /**
   * Starts an export. Resolves once the first chunk (or the end) has arrived, with a stream that yields the
   * chunks as the reader asks for them; or with the failure the process reported before sending anything. A time
   * limit, memory limit or crash before the first chunk rejects; after it, destroys the stream with the error.
   * `onEnd` learns how many rows were sent, just before the stream ends.
   */
  export(job: PoolJob, onEnd?: (rows: number) => void): Promise<ExportStart> {
    return new Promise<ExportStart>((resolve, reject) => {
      const exporting: Exporting = { stream: null, outstanding: EXPORT_WINDOW, start: resolve };
      this.enqueue(job, exporting).then(
        (reply) => {
          if (reply.ok) {
            onEnd?.(reply.rows);
            if (!exporting.stream) resolve({ ok: true, stream: Readable.from([]) });
            else exporting.stream.push(null);
          } else if (!exporting.stream) resolve({ ok: false, reply });
          else exporting.stream.destroy(new Error(reply.message));
        },
        (err: Error) => {
          if (!exporting.stream) reject(err);
          else exporting.stream.destroy(err);
        },
      );
    });
  }

  private enqueue(job: PoolJob, exporting: Exporting | null): Promise<JobReply> {
    if (this.closed) return Promise.reject(new HearthError('service_unavailable', 'the server is shutting down'));
    if (job.signal?.aborted) return Promise.reject(new HearthError('service_unavailable', 'the request was abandoned before the query started'));
    if (this.queue.length >= this.queueLimit && !this.hasFreeCapacity(job.ns)) {
      this.counters.rejectedFull++;
      return Promise.reject(
        new HearthError('service_unavailable', `too many queries are waiting (${this.queueLimit}); try again shortly`, { headers: { 'Retry-After': '1' } }),
      );
    }
    return new Promise<JobReply>((resolve, reject) => {
      const p: Pending = {
        id: ++this.seq,
        job,
        resolve,
        reject,
        settled: false,
        timer: null,
        demoteTimer: null,
        slot: null,
        startedAt: 0,
        onAbort: null,
        exporting,
      };
      if (job.signal) {
        p.onAbort = () => this.abort(p);
        job.signal.addEventListener('abort', p.onAbort, { once: true });
      }
      this.queue.push(p);
      this.pump();
    });
  }

  /** Kills every process and fails whatever is queued or running. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) this.settle(p, new HearthError('service_unavailable', 'the server is shutting down'));
    const exits: Array<Promise<void>> = [];
    for (const slot of [...this.slots]) {
      if (slot.job) this.settle(slot.job, new HearthError('service_unavailable', 'the server is shutting down'));
      exits.push(slot.process.exited);
      this.retire(slot);
    }
    await Promise.all(exits);
  }

  private hasFreeCapacity(ns: string): boolean {
    if ((this.running.get(ns) ?? 0) >= this.perNamespace) return false;
    for (const s of this.slots) if (!s.job && !s.process.retiring) return true;
    return this.slots.size < this.size;
  }

  /**
   * Hands queued jobs to free processes, starting processes as needed; then, while there is room, keeps one
   * process ready ahead of demand, so the next read does not wait for a start (~100 ms, far more on a busy machine).
   */
  private pump(): void {
    while (!this.closed && this.queue.length > 0) {
      const i = this.queue.findIndex((p) => (this.running.get(p.job.ns) ?? 0) < this.perNamespace);
      if (i < 0) break;
      let slot: Slot | null = null;
      for (const s of this.slots) {
        if (!s.job && !s.process.retiring && (!slot || (s.process.ready && !slot.process.ready))) slot = s;
      }
      if (!slot && this.slots.size < this.size) slot = this.spawn();
      if (!slot) break;
      const [p] = this.queue.splice(i, 1);
      this.assign(slot, p!);
    }
    if (!this.closed && this.slots.size < this.size && ![...this.slots].some((s) => !s.job && !s.process.retiring)) this.spawn();
  }

  private assign(slot: Slot, p: Pending): void {
    slot.job = p;
    p.slot = slot;
    this.running.set(p.job.ns, (this.running.get(p.job.ns) ?? 0) + 1);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (slot.process.ready) this.send(slot);
  }

  private send(slot: Slot): void {
    const p = slot.job!;
    this.counters.jobs++;
    p.startedAt = Date.now();
    this.startTimer(slot, p);
    p.demoteTimer = setTimeout(() => this.demote(slot, p), this.demoteAfterMs);
    const extra = p.job.request.type === 'export' ? { chunkChars: CHUNK_CHARS } : {};
    const msg = { ...p.job.request, ...extra, id: p.id, selfKillMs: p.job.timeoutMs + SELF_KILL_GRACE_MS, memoryLimit: this.memoryLimit } as JobRequest;
    this.post(slot, msg);
  }

  private post(slot: Slot, msg: ParentMessage): void {
    const p = slot.job;
    slot.process.send(msg, (err) => {
      if (p && slot.job === p) this.lost(slot, `could not reach the query process: ${err.message}`);
    });
  }

  private startTimer(slot: Slot, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    p.timer = setTimeout(() => this.timeout(slot, p), p.job.timeoutMs);
  }

  private spawn(): Slot {
    const slot: Slot = {
      process: new QueryProcess(this.childUrl, this.log, {
        message: (msg) => this.onMessage(slot, msg),
        exit: (code, signal) => this.onExit(slot, code, signal),
      }),
      job: null,
      timer: null,
    };
    this.counters.spawned++;
    this.slots.add(slot);
    slot.timer = setTimeout(() => {
      if (!slot.process.ready) this.lost(slot, `the query process did not start within ${this.startTimeoutMs} ms`);
    }, this.startTimeoutMs);
    return slot;
  }

  private onMessage(slot: Slot, msg: ChildMessage): void {
    if (msg.type === 'ready') {
      if (slot.timer) clearTimeout(slot.timer);
      slot.timer = null;
      if (slot.job) this.send(slot);
      else this.idle(slot);
      return;
    }
    const p = slot.job;
    if (!p || p.id !== msg.id) return; // a late answer to a job already given up
    if (msg.type === 'chunk') {
      this.onChunk(slot, p, msg.data);
      return;
    }
    const keep = slot.process.restorePriority() && (msg.rss ?? 0) <= this.memoryLimit * RECYCLE_AT;
    this.release(slot);
    this.settle(p, null, msg);
    if (keep) this.idle(slot);
    else this.retire(slot, false);
    this.pump();
  }

  /** A chunk of an export: into the stream; the time limit now covers the next chunk only if one is granted. */
  private onChunk(slot: Slot, p: Pending, data: string): void {
    const ex = p.exporting;
    if (!ex) return;
    ex.outstanding--;
    if (ex.outstanding > 0) this.startTimer(slot, p);
    else if (p.timer) {
      clearTimeout(p.timer);
      p.timer = null;
    }
    if (!ex.stream) {
      // Strings in object mode: the HTTP response encodes each one straight into its socket.
      ex.stream = new Readable({
        objectMode: true,
        read: () => {
          // The reader wants more: grant the child credit up to the window (the time limit runs again).
          if (p.settled || slot.job !== p || ex.outstanding >= EXPORT_WINDOW) return;
          const chunks = EXPORT_WINDOW - ex.outstanding;
          ex.outstanding = EXPORT_WINDOW;
          this.startTimer(slot, p);
          this.post(slot, { type: 'credit', id: p.id, chunks });
        },
        destroy: (err, cb) => {
          // The client went away (or an error cut the stream): stop the child if it still works on this export.
          if (!p.settled) this.abort(p);
          cb(err);
        },
      });
      ex.stream.push(data);
      ex.start({ ok: true, stream: ex.stream });
    } else ex.stream.push(data);
  }

  /** Frees a slot's job (its namespace count and timers) without answering it. */
  private release(slot: Slot): void {
    const p = slot.job;
    if (!p) return;
    if (p.timer) clearTimeout(p.timer);
    if (p.demoteTimer) clearTimeout(p.demoteTimer);
    p.timer = p.demoteTimer = null;
    slot.job = null;
    const n = (this.running.get(p.job.ns) ?? 1) - 1;
    if (n > 0) this.running.set(p.job.ns, n);
    else this.running.delete(p.job.ns);
  }

  /** A long job yields the processor to the server and to short jobs. */
  private demote(slot: Slot, p: Pending): void {
    p.demoteTimer = null;
    if (slot.job === p && slot.process.demote()) this.counters.demoted++;
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

  /** A process that stopped working: fail its job with a clear answer and let the next job start another. */
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
    if (slot.process.retiring) return;
    const p = slot.job;
    this.release(slot);
    if (slot.process.overMemory) {
      this.counters.memoryExceeded++;
      this.log.info({ ns: p?.job.ns, memoryLimit: this.memoryLimit }, 'query process stopped itself at its memory limit');
      if (p) this.settle(p, memoryError(this.memoryLimit));
      this.replace();
      return;
    }
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
    this.log.warn({ code, signal, ready: slot.process.ready, busy: !!p }, 'query process exited unexpectedly');
    if (p) {
      const what = slot.process.ready ? 'stopped unexpectedly' : 'could not start';
      this.settle(p, new HearthError('service_unavailable', `the query process ${what} (${how}) while running this query; try again`));
    } else if (!slot.process.ready) {
      // It died while starting: fail one waiting job rather than spawning in a loop.
      const next = this.queue.shift();
      if (next) this.settle(next, new HearthError('service_unavailable', `the query process could not start (${how})`));
    }
    this.pump();
  }

  /** Stops a process on purpose. `kill`: at once (SIGKILL); otherwise close its IPC channel so it exits by itself. */
  private retire(slot: Slot, kill = true): void {
    if (slot.process.retiring) return;
    this.slots.delete(slot);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    if (kill) this.counters.killed++;
    slot.process.stop(kill);
  }

  /** Starts a process in place of a killed one, so the next job does not wait for a start. */
  private replace(): void {
    if (!this.closed) this.pump();
  }

  private settle(p: Pending, err: Error | null, reply?: JobReply): void {
    if (p.settled) return;
    p.settled = true;
    if (p.timer) clearTimeout(p.timer);
    if (p.demoteTimer) clearTimeout(p.demoteTimer);
    if (p.onAbort) p.job.signal?.removeEventListener('abort', p.onAbort);
    if (err) p.reject(err);
    else p.resolve(reply!);
  }
}
