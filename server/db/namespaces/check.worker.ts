/**
 * Checks an uploaded database off the event loop: is it a healthy SQLite file, and how big is it?
 * Input (workerData): {file}, the upload already in place under its final name. Output: {ok: true, pageSize,
 * pageCount, tables} or {ok: false, reason}. The file is opened read-only, whatever journal mode its header names
 * (a WAL-mode file gets its -wal/-shm beside it, which the namespace's first connection takes over). The answer is
 * posted only after the connection is closed, so the caller's next connection never meets this one's locks.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Database, type SqliteDb } from '../../core/storage/sqlite.ts';

const input = workerData as { file: string };
let answer: Record<string, unknown>;
let db: SqliteDb | undefined;
try {
  db = new Database(input.file, { readonly: true, fileMustExist: true });
  const check = db.pragma('quick_check', { simple: true });
  answer =
    check !== 'ok'
      ? { ok: false, reason: `the database failed SQLite's integrity check: ${String(check)}` }
      : {
          ok: true,
          pageSize: db.pragma('page_size', { simple: true }),
          pageCount: db.pragma('page_count', { simple: true }),
          tables: db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").pluck().get(),
        };
} catch (err) {
  answer = { ok: false, reason: `not a usable SQLite database: ${(err as Error).message}` };
} finally {
  db?.close();
}
parentPort!.postMessage(answer);
