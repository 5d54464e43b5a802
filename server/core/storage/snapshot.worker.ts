/**
 * Copies WAL-mode SQLite databases off the event loop (started by snapshot-thread.ts; one thread serves every copy,
 * one at a time): platform.db and the namespaces for a backup, a namespace for an export or a duplicate. For each
 * job the thread opens its own read-only connection to the live file and runs `VACUUM INTO <dest>`: one statement,
 * so one read transaction, so the copy is the database as of one moment while the owner's connection goes on
 * writing beside it (WAL readers never block writers, and nothing restarts the copy). The copy holds the same schema,
 * rows and header values (SQLite's transfer optimisation copies records as they are); free pages are left out.
 * Only for WAL files: on a rollback-journal database this reader would hold writers off for the whole copy.
 *
 * `durable: false` (a temporary copy, deleted once streamed) runs with `synchronous = OFF`, which VACUUM INTO
 * honours: no fsync of a file that lives for a second. `durable: true` (a duplicate, which becomes a namespace)
 * keeps SQLite's default FULL. With `hash` the thread also reads the finished copy back (from the page cache) for
 * its SHA-256, so a backup's main thread appends it without hashing it.
 *
 * Main → thread: {id, file, dest, durable, hash, timeout}. Thread → main: {id, ok: true, size, sha256} or
 * {id, ok: false, message, code}. The connection is closed before the answer is posted.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { Database, type SqliteDb } from './sqlite.ts';

export interface SnapshotJob {
  id: number;
  file: string;
  dest: string;
  durable: boolean;
  hash: boolean;
  timeout: number;
}

export type SnapshotAnswer = { id: number; ok: true; size: number; sha256: string | null } | { id: number; ok: false; message: string; code: string | null };

const CHUNK = 1024 * 1024;

function copy(job: SnapshotJob): { size: number; sha256: string | null } {
  let db: SqliteDb | undefined;
  try {
    db = new Database(job.file, { readonly: true, fileMustExist: true, timeout: job.timeout });
    if (!job.durable) db.pragma('synchronous = OFF');
    db.prepare('VACUUM INTO ?').run(job.dest);
  } finally {
    db?.close();
  }
  if (!job.hash) return { size: fs.statSync(job.dest).size, sha256: null };
  const hash = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  const fd = fs.openSync(job.dest, 'r');
  let size = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, size);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      size += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { size, sha256: hash.digest('hex') };
}

parentPort!.on('message', (job: SnapshotJob) => {
  let answer: SnapshotAnswer;
  try {
    answer = { id: job.id, ok: true, ...copy(job) };
  } catch (err) {
    answer = { id: job.id, ok: false, message: (err as Error).message, code: (err as { code?: string }).code ?? null };
  }
  parentPort!.postMessage(answer);
});
