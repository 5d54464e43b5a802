/**
 * The namespace service's file helpers: creating a tenant database file with its configuration applied, the first
 * check of an uploaded database (its header, before anything is written to disk) and the full one (in a worker
 * thread, once it is in place), and the per-name queue that runs
 * control-plane operations on one namespace one after another.
 */
import fs from 'node:fs';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import { spawnWorker } from '../../core/runtime.ts';
import { privateFile } from '../../core/storage/data-dir.ts';
import { Database } from '../../core/storage/sqlite.ts';
import { applyConfig, dbFile, measureStorage, type StorageInfo } from './handles.ts';
import type { NamespaceConfig } from './namespaces.schemas.ts';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Creates an empty database file `<dir>/<fileId>.db` (mode 0600) with `config` applied; answers its storage snapshot. */
export function createDatabaseFile(dir: string, fileId: string, config: NamespaceConfig): StorageInfo {
  const file = dbFile(dir, fileId);
  privateFile(file); // a new database 0600, and so its -wal, -shm and -journal
  const db = new Database(file, { timeout: config.busy_timeout });
  try {
    applyConfig(db, config);
    return measureStorage(db, file);
  } finally {
    db.close();
  }
}

/**
 * Checks a database file already in its place (in a worker thread): SQLite opens it as a file, so every journal
 * mode works, including WAL, which an in-memory copy cannot be opened in.
 */
export async function checkFile(file: string): Promise<{ pageSize: number; pageCount: number; tables: number }> {
  const result = await new Promise<{ ok: boolean; reason?: string; pageSize: number; pageCount: number; tables: number }>((resolve, reject) => {
    const worker = spawnWorker('db-check', new URL('./check.worker.ts', import.meta.url), { workerData: { file } });
    worker.once('message', resolve);
    worker.on('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`database check exited with code ${code}`)));
  });
  if (!result.ok) throw new HearthError('invalid_database', result.reason ?? 'the uploaded file is not a healthy SQLite database');
  return result;
}

/** The uploaded bytes start like a SQLite database (before anything is written to disk). */
export function checkUploadHead(upload: Upload): void {
  const head = upload.kind === 'memory' ? upload.buffer.subarray(0, 16) : readHead(upload.path);
  if (upload.size < 512 || !head.equals(SQLITE_MAGIC)) {
    throw new HearthError('invalid_database', 'the uploaded file is not a SQLite database (its header is not "SQLite format 3")');
  }
}

function readHead(file: string): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(16);
    fs.readSync(fd, buf, 0, 16, 0);
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

/** Serialises control-plane operations per namespace name. */
export class Locks {
  private readonly tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    this.tails.set(key, next);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === next) this.tails.delete(key);
    }
  }
}
