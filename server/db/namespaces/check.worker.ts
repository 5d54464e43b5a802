/**
 * Checks an uploaded database off the event loop: is it a healthy SQLite file, and how big is it?
 * Input (workerData): {file} or {buffer}. Output: {ok: true, pageSize, pageCount, tables} or {ok: false, reason}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Database, type SqliteDb } from '../../core/storage/sqlite.ts';

const input = workerData as { file?: string; buffer?: Uint8Array };
let db: SqliteDb | undefined;
try {
  db = input.buffer ? new Database(Buffer.from(input.buffer)) : new Database(input.file!, { readonly: true, fileMustExist: true });
  const check = db.pragma('quick_check', { simple: true });
  if (check !== 'ok') {
    parentPort!.postMessage({ ok: false, reason: `the database failed SQLite's integrity check: ${String(check)}` });
  } else {
    parentPort!.postMessage({
      ok: true,
      pageSize: db.pragma('page_size', { simple: true }),
      pageCount: db.pragma('page_count', { simple: true }),
      tables: db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table'").pluck().get(),
    });
  }
} catch (err) {
  parentPort!.postMessage({ ok: false, reason: `not a usable SQLite database: ${(err as Error).message}` });
} finally {
  db?.close();
}
