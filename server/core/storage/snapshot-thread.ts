/**
 * The SQLite snapshot thread (snapshot.worker.ts) seen from the event loop: `copyWalDatabase()` hands it one WAL
 * database to copy with VACUUM INTO and resolves when the copy is written. One thread per process, started on first
 * use; it serves the copies one after another (a backup's hundred namespaces pay its start-up once), is stopped
 * after `idleMs` without work, and never keeps the process alive while idle. A thread that dies fails the copies it
 * held, and the next copy starts a new one.
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../runtime.ts';
import type { SnapshotAnswer, SnapshotJob } from './snapshot.worker.ts';

export interface SnapshotCopy {
  size: number;
  /** The copy's SHA-256 (hex) when asked for with `hash`. */
  sha256: string | null;
  /** With `imageMax`: the database's bytes, when it was small enough to be answered in memory (nothing in `dest`). */
  image?: Buffer;
}

interface Pending {
  resolve: (copy: SnapshotCopy) => void;
  reject: (err: Error) => void;
}

export class SnapshotThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly idleMs: number;

  constructor(opts: { idleMs?: number } = {}) {
    this.idleMs = opts.idleMs ?? 10_000;
  }

  /** Copies the WAL database `file` to `dest` (an empty or absent file) as of one moment. */
  copy(job: Omit<SnapshotJob, 'id'>): Promise<SnapshotCopy> {
    const worker = this.start();
    const id = this.nextId++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.size === 0) worker.ref();
    return new Promise<SnapshotCopy>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...job, id } satisfies SnapshotJob);
    });
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
      if (answer.ok) {
        const { image } = answer;
        p.resolve({ size: answer.size, sha256: answer.sha256, ...(image ? { image: Buffer.from(image.buffer, image.byteOffset, image.byteLength) } : {}) });
      } else p.reject(Object.assign(new Error(answer.message), answer.code ? { code: answer.code } : {}));
      if (this.pending.size === 0 && this.worker === worker) this.idle(worker);
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
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
export const copyWalDatabase = (job: Omit<SnapshotJob, 'id'>): Promise<SnapshotCopy> => shared.copy(job);
