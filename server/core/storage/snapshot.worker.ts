/**
 * Copies WAL-mode SQLite databases off the event loop (started by snapshot-thread.ts; one thread serves every copy,
 * one at a time): platform.db and the namespaces for a backup, a namespace for an export or a duplicate. For each
 * job the thread opens its own read-only connection to the live file and runs `VACUUM INTO <dest>`: one statement,
 * so one read transaction, so the copy is the database as of one moment while the owner's connection goes on
 * writing beside it (WAL readers never block writers, and nothing restarts the copy). The copy holds the same schema,
 * rows and header values (SQLite's transfer optimisation copies records as they are); free pages are left out.
 * Only for WAL files: on a rollback-journal database this reader would hold writers off for the whole copy.
 *
 * `imageMax` (a backup): a database of at most that many bytes is not written anywhere yet: `sqlite3_serialize` reads
 * its pages through the pager inside one read transaction (the same one-moment snapshot as VACUUM INTO, at a memory
 * copy's cost instead of a rebuild), the image is hashed here and held here, and the answer says `held`. A later
 * `write` job writes it into an open file (the backup, by its descriptor: descriptors are the process's) at a given
 * position, and `drop` forgets it. The image never reaches the main thread, whose garbage collector would otherwise
 * pause requests for tens of milliseconds over each hundred megabytes of buffers. Larger databases go through
 * VACUUM INTO `dest` as below.
 *
 * `durable: false` (a temporary copy, deleted once streamed) runs with `synchronous = OFF`, which VACUUM INTO
 * honours: no fsync of a file that lives for a second. `durable: true` (a duplicate, which becomes a namespace)
 * keeps SQLite's default FULL. With `hash` the thread also reads the finished copy back (from the page cache) for
 * its SHA-256, so a backup's main thread appends it without hashing it.
 *
 * Main → thread: {id, kind: 'copy', file, dest, durable, hash, timeout, imageMax?}, {id, kind: 'write', ref, fd,
 * position} (ref: the id of the copy that held an image), {id, kind: 'drop', ref}. Thread → main: {id, ok: true,
 * size, sha256, held} or {id, ok: false, message, code}. The connection is closed before the answer is posted.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { Database, type SqliteDb } from './sqlite.ts';

export type SnapshotJob = CopyJob | { id: number; kind: 'write'; ref: number; fd: number; position: number } | { id: number; kind: 'drop'; ref: number };

export interface CopyJob {
  id: number;
  kind: 'copy';
  file: string;
  dest: string;
  durable: boolean;
  hash: boolean;
  timeout: number;
  /** Answer the database as an in-memory image (not written to `dest`) when it is at most this many bytes. */
  imageMax?: number;
}

export type SnapshotAnswer =
  | { id: number; ok: true; size: number; sha256: string | null; held: boolean }
  | { id: number; ok: false; message: string; code: string | null };

const CHUNK = 1024 * 1024;

/** Images taken for a backup and not yet written, by the id of the copy job that took them. */
const held = new Map<number, Buffer>();

function copy(job: CopyJob): { size: number; sha256: string | null; held: boolean } {
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
        held.set(job.id, image);
        return { size: image.length, sha256: job.hash ? crypto.createHash('sha256').update(image).digest('hex') : null, held: true };
      }
    }
    if (!job.durable) db.pragma('synchronous = OFF');
    db.prepare('VACUUM INTO ?').run(job.dest);
  } finally {
    db?.close();
  }
  if (!job.hash) return { size: fs.statSync(job.dest).size, sha256: null, held: false };
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
  return { size, sha256: hash.digest('hex'), held: false };
}

/** Writes a held image at `position` of the open file `fd`, then forgets it (a short write is continued). */
function write(ref: number, fd: number, position: number): { size: number; sha256: null; held: false } {
  const image = held.get(ref);
  if (!image) throw new Error('the snapshot image is no longer held');
  held.delete(ref);
  let off = 0;
  while (off < image.length) off += fs.writeSync(fd, image, off, image.length - off, position + off);
  return { size: image.length, sha256: null, held: false };
}

parentPort!.on('message', (job: SnapshotJob) => {
  let answer: SnapshotAnswer;
  try {
    let done: { size: number; sha256: string | null; held: boolean };
    if (job.kind === 'copy') done = copy(job);
    else if (job.kind === 'write') done = write(job.ref, job.fd, job.position);
    else {
      held.delete(job.ref);
      done = { size: 0, sha256: null, held: false };
    }
    answer = { id: job.id, ok: true, ...done };
  } catch (err) {
    answer = { id: job.id, ok: false, message: (err as Error).message, code: (err as { code?: string }).code ?? null };
  }
  parentPort!.postMessage(answer);
});
