/**
 * The SQLite snapshot thread (snapshot.worker.ts) seen from the event loop: `copyWalDatabase()` hands it one WAL
 * database to copy with VACUUM INTO and resolves when the copy is written. One thread per process, started on first
 * use; it serves the copies one after another (a backup's hundred namespaces pay its start-up once), is stopped
 * after `idleMs` without work, and never keeps the process alive while idle. A thread that dies fails the copies it
 * held, and the next copy starts a new one.
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../runtime.ts';
import type { CopyJob, SnapshotAnswer, SnapshotJob } from './snapshot.worker.ts';

export interface SnapshotCopy {
  size: number;
  /** The copy's SHA-256 (hex) when asked for with `hash`. */
  sha256: string | null;
  /**
   * With `imageMax`, for a database small enough: its image, held on the snapshot thread (nothing in `dest`).
   * `writeTo` writes it into an open file at `position` (then it is no longer held); `release` forgets it unwritten.
   * One of the two must be called.
   */
  held?: HeldImage;
}

export interface HeldImage {
  writeTo(fd: number, position: number): Promise<void>;
  release(): void;
}

type Answer = Extract<SnapshotAnswer, { ok: true }>;

interface Pending {
  resolve: (answer: Answer) => void;
  reject: (err: Error) => void;
}

type Job = SnapshotJob extends infer J ? (J extends SnapshotJob ? Omit<J, 'id'> : never) : never;

export class SnapshotThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Copies whose image the thread holds (not yet written or released): the thread is not stopped meanwhile. */
  private readonly holding = new Set<number>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleMs: number;

  constructor(opts: { idleMs?: number } = {}) {
    this.idleMs = opts.idleMs ?? 10_000;
  }

  /** Copies the WAL database `file` to `dest` (an empty or absent file) as of one moment, or holds its image. */
  async copy(job: Omit<CopyJob, 'id' | 'kind'>): Promise<SnapshotCopy> {
    const { id, answer } = this.send({ ...job, kind: 'copy' });
    const started = this.worker; // the thread that will hold the image
    const a = await answer;
    if (!a.held) return { size: a.size, sha256: a.sha256 };
    this.holding.add(id);
    let settled = false;
    const forget = () => {
      settled = true;
      this.holding.delete(id);
      if (this.pending.size === 0 && this.holding.size === 0 && this.worker) this.idle(this.worker);
    };
    return {
      size: a.size,
      sha256: a.sha256,
      held: {
        writeTo: async (fd, position) => {
          if (settled) throw new Error('the snapshot image was already written or released');
          if (this.worker !== started) throw new Error('the snapshot thread stopped: the image it held is gone');
          try {
            await this.send({ kind: 'write', ref: id, fd, position }).answer;
          } finally {
            forget();
          }
        },
        release: () => {
          if (settled) return;
          forget();
          if (this.worker === started) this.send({ kind: 'drop', ref: id }).answer.catch(() => {});
        },
      },
    };
  }

  private send(job: Job): { id: number; answer: Promise<Answer> } {
    const worker = this.start();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.size === 0) worker.ref();
    const answer = new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id } as SnapshotJob);
    });
    return { id, answer };
  }

  async close(): Promise<void> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnWorker('db-snapshot', new URL('./snapshot.worker.ts', import.meta.url));
    this.worker = worker;
    worker.on('message', (answer: SnapshotAnswer) => {
      const p = this.pending.get(answer.id);
      if (!p) return;
      this.pending.delete(answer.id);
      if (answer.ok) p.resolve(answer);
      else p.reject(Object.assign(new Error(answer.message), answer.code ? { code: answer.code } : {}));
      if (this.pending.size === 0 && this.holding.size === 0 && this.worker === worker) this.idle(worker);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      this.holding.clear(); // the images died with the thread: writeTo fails, release does nothing
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the snapshot thread exited with code ${code}`)));
    return worker;
  }

  private idle(worker: Worker): void {
    worker.unref();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.worker === worker && this.pending.size === 0) void this.close();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/**
 * A backup takes databases up to this size as in-memory images (no temporary copy, no second read); larger ones
 * through a temporary copy. With one image appended while the next is taken, a backup holds at most about twice this.
 */
export const BACKUP_IMAGE_MAX = 64 * 1024 * 1024;

const shared = new SnapshotThread();

/** Copies the WAL database `file` to `dest` (an empty or absent file) as of one moment, on the snapshot thread. */
export const copyWalDatabase = (job: Omit<CopyJob, 'id' | 'kind'>): Promise<SnapshotCopy> => shared.copy(job);
