/**
 * Copies WAL-mode SQLite databases off the event loop (started by snapshot-thread.ts; one thread serves every copy,
 * one at a time): platform.db and the namespaces for a backup, a namespace for an export or a duplicate. For each
 * job the thread opens its own read-only connection to the live file and runs `VACUUM INTO <dest>`: one statement,
 * so one read transaction, so the copy is the database as of one moment while the owner's connection goes on
 * writing beside it (WAL readers never block writers, and nothing restarts the copy). The copy holds the same schema,
 * rows and header values (SQLite's transfer optimisation copies records as they are); free pages are left out.
 * Only for WAL files: on a rollback-journal database this reader would hold writers off for the whole copy.
 *
 * `imageMax` (a backup): a database of at most that many bytes is not written anywhere: `sqlite3_serialize` reads
 * its pages through the pager inside one read transaction (the same one-moment snapshot as VACUUM INTO, at a memory
 * copy's cost instead of a rebuild) and the image, hashed here, is handed to the main thread, which appends it to
 * the backup as it is. Larger databases go through VACUUM INTO `dest` as below.
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
  /** Answer the database as an in-memory image (not written to `dest`) when it is at most this many bytes. */
  imageMax?: number;
}

export type SnapshotAnswer =
  | { id: number; ok: true; size: number; sha256: string | null; image?: Uint8Array }
  | { id: number; ok: false; message: string; code: string | null };

const CHUNK = 1024 * 1024;

function copy(job: SnapshotJob): { size: number; sha256: string | null; image?: Uint8Array } {
  let db: SqliteDb | undefined;
  try {
    db = new Database(job.file, { readonly: true, fileMustExist: true, timeout: job.timeout });
    if (job.imageMax !== undefined) {
      const bytes = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
      if (bytes <= job.imageMax) {
        const image = db.serialize();
        // A WAL database's header says WAL (bytes 18 and 19 are 2); the image is complete without a -wal, so it says
        // rollback journal (1), as a VACUUM INTO copy does: opened on its own, it needs no -wal or -shm beside it.
        if (image.length >= 100 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
        return { size: image.length, sha256: job.hash ? crypto.createHash('sha256').update(image).digest('hex') : null, image };
      }
    }
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
  // The image's memory moves to the main thread instead of being copied (SQLite's buffer cannot move: then copied).
  const buffer = answer.ok ? answer.image?.buffer : undefined;
  try {
    parentPort!.postMessage(answer, buffer instanceof ArrayBuffer ? [buffer] : []);
  } catch {
    parentPort!.postMessage(answer);
  }
});
