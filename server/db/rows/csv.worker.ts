/**
 * A CSV import's worker thread (csv.ts starts one per import): it parses, checks and inserts the rows off the event
 * loop, on a connection of its own to the namespace's database, set up as the server's tenant connections are (the
 * namespace's configuration applied: journal mode, synchronous, busy_timeout, foreign keys, quota; the same SQL
 * functions).
 *
 * One transaction, BEGIN IMMEDIATE (the write lock is waited for here, on this thread, at most busy_timeout): the
 * file is read with scanCsv (csv-scan.ts) and each good line inserted as it is read. The first refusal of the
 * database (a unique value, a foreign key, a trigger, the quota) is kept and ends the inserts; reading goes on to
 * list the file's bad values, which are answered first (`invalid_csv`), as they would be if the rows had not been
 * tried yet. COMMIT only when nothing was refused, else ROLLBACK: all rows or none. In a rollback-journal database the
 * rows stay in this connection's cache until COMMIT (`cache_spill` off), so that readers are locked out only while it
 * commits, not for the whole import.
 *
 * The thread runs at a lower priority than the event loop's (nice 10, on Linux): on a small machine that the
 * import keeps busy, the event loop's thread gets the CPU first.
 *
 * Input (workerData): CsvImportJob; the bytes of an upload held in memory come transferred, not copied. Output: one
 * CsvImportAnswer, posted after the connection is closed.
 */
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type ErrorCode, HearthError } from '../../core/http/errors.ts';
import { Database, type SqliteDb, type SqliteStatement } from '../../core/storage/sqlite.ts';
import { applyConfig } from '../namespaces/handles.ts';
import type { NamespaceConfig } from '../namespaces/namespaces.schemas.ts';
import { q, requireObject } from '../schema/catalog.ts';
import type { ColumnInfo } from '../schema/types.ts';
import { storageRefusal } from '../storage-errors.ts';
import { csvRefusal, csvSource, scanCsv } from './csv-scan.ts';
import { registerFunctions } from './functions.ts';
import { writeError } from './rows.errors.ts';

export interface CsvImportJob {
  /** The namespace's database file. */
  file: string;
  config: NamespaceConfig;
  table: string;
  source: { path: string } | { bytes: Uint8Array };
}

export type CsvImportAnswer =
  | { ok: true; inserted: number }
  /** A refusal to answer as it is (HearthError's parts). */
  | { ok: false; code: ErrorCode; message: string; fields?: Record<string, unknown>; headers?: Record<string, string>; details?: Record<string, unknown> }
  /** Anything else (a 500 on the server's side). */
  | { ok: false; code?: undefined; message: string; errno?: string };

/** The nice value of an import's thread: below the event loop in the scheduler's eyes, still well above idle work. */
const IMPORT_NICE = 10;

/** Lowers this thread's priority (Linux: a thread has its own nice value, set through its id); elsewhere nothing. */
function yieldToEventLoop(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid !== process.pid) os.setPriority(tid, IMPORT_NICE);
  } catch {
    // not Linux, or not allowed: the import runs at the process's priority
  }
}

/** A SQLite refusal of `db`'s write as the envelope's error (writeError's mapping); anything unexpected as it is. */
function refusalOf(err: unknown, table: string, db: SqliteDb): unknown {
  try {
    writeError(err, table, db);
  } catch (mapped) {
    return mapped;
  }
}

async function importRows(job: CsvImportJob): Promise<number> {
  const db = new Database(job.file, { timeout: job.config.busy_timeout, fileMustExist: true });
  try {
    applyConfig(db, job.config);
    registerFunctions(db);
    if (job.config.journal_mode !== 'wal') db.pragma('cache_spill = OFF');
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      throw storageRefusal(err, db) ?? err;
    }
    try {
      const t = requireObject(db, job.table);
      if (t.type === 'view') throw new HearthError('object_is_view', `${t.name} is a view: import into a table`);
      let stmt: SqliteStatement | null = null;
      let refused: unknown = null;
      let inserted = 0;
      const write = (values: unknown[], columns: ColumnInfo[]) => {
        if (refused !== null) return;
        try {
          if (!stmt) {
            const named = new Set(columns.map((c) => c.name));
            const missing = t.columns.find((c) => c.not_null && !c.system && !named.has(c.name));
            if (missing)
              throw new HearthError('not_null_violation', `${t.name}.${missing.name} must not be null (it is missing)`, { details: { column: missing.name } });
            stmt = db.prepare(`INSERT INTO ${q(t.name)} (${columns.map((c) => q(c.name)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
          }
          inserted += stmt.run(values).changes;
        } catch (err) {
          refused = refusalOf(err, t.name, db);
        }
      };
      const scan = await scanCsv(csvSource(job.source), t, write);
      const problem = csvRefusal(scan) ?? refused;
      if (problem !== null) throw problem;
      try {
        db.exec('COMMIT');
      } catch (err) {
        throw refusalOf(err, t.name, db); // a deferred foreign key, the disk
      }
      return inserted;
    } finally {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // closing the connection below rolls back what is left
      }
    }
  } finally {
    db.close();
  }
}

function answerOf(err: unknown): CsvImportAnswer {
  if (err instanceof HearthError) {
    // Every code of the server's HearthErrors is in ERROR_CODES (errors.test.ts scans them).
    return { ok: false, code: err.code as ErrorCode, message: err.message, fields: err.fields, headers: err.headers, details: err.details };
  }
  const e = err as { message?: string; code?: string };
  return { ok: false, message: e?.message ?? String(err), errno: e?.code };
}

const job = workerData as CsvImportJob;
yieldToEventLoop();
importRows(job).then(
  (inserted) => parentPort!.postMessage({ ok: true, inserted } satisfies CsvImportAnswer),
  (err: unknown) => parentPort!.postMessage(answerOf(err)),
);
