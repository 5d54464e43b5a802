/**
 * A query process: runs the tenants' reads for the server process — read-only SQL (`run`), the rows API's listings
 * (`read`) and CSV exports (`export`) — one job at a time, and answers over IPC.
 *
 * It lives in its own process because a running better-sqlite3 statement cannot be interrupted: when a job
 * outlives the namespace's `query_timeout`, the server kills this process (SIGKILL) and starts another. The same
 * watchdog thread that kills it at the time limit also keeps it under its memory limit (the resident set is
 * checked every 20 ms while a job runs); past it, it says `memory` on fd 4 and kills itself.
 *
 * Started for the pool (`sql.pool.ts`) by `sql.process.ts` with `child_process.fork` (`serialization: 'advanced'`). Protocol: `sql.protocol.ts`.
 * It imports only better-sqlite3, the tenant SQL functions and the rows' read plans, so it starts quickly.
 *
 * Read-only, in depth: every connection is opened `readonly` (SQLITE_OPEN_READONLY) with `query_only = 1`; each
 * statement must be one statement (better-sqlite3 refuses more), must not start with PRAGMA/ATTACH/DETACH/VACUUM,
 * and SQLite must report it both read-only (`sqlite3_stmt_readonly`) and returning rows (`stmt.reader`). That last
 * check also refuses ATTACH/DETACH (read-only per SQLite, but they return no rows) and BEGIN/COMMIT/SAVEPOINT,
 * which would otherwise leave a stale snapshot open on a cached connection. The `load_extension()` SQL function
 * is disabled (better-sqlite3 only enables the C API), so it answers "not authorized". Listings and exports run
 * SQL the server built from its grammar (never the caller's text) on the same read-only connections.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { Database, type SqliteDb, type SqliteStatement } from '../../core/storage/sqlite.ts';
import { isBusyError } from '../../core/storage/store.ts';
import { InvalidPatternError, registerFunctions } from '../rows/functions.ts';
import { CsvEncoder, runRead } from '../rows/read.ts';
import {
  EXPORT_WINDOW,
  type ExportRequest,
  type JobReply,
  type ParentMessage,
  type ReadRequest,
  type RunFailed,
  type RunRequest,
  type SqlParam,
} from './sql.protocol.ts';

/** Connections kept open per child, least recently used closed first. */
const MAX_CONNECTIONS = 8;
const FORBIDDEN_FIRST_WORDS = new Set(['PRAGMA', 'ATTACH', 'DETACH', 'VACUUM']);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

if (!process.send) {
  console.error('server/db/sql/sql.child.ts is started by the SQL pool with child_process.fork (it talks over IPC)');
  process.exit(2);
}

const connections = new Map<string, SqliteDb>();

/** How often the watchdog looks at the clock and the resident set size while a job runs. */
const WATCH_MS = 20;
/** SQLite's page cache per connection (KiB): small, since a query process keeps several connections. */
const CACHE_KIB = 4096;

/**
 * The watchdog: a thread that kills this process when a job outlives its deadline, or when the process's resident
 * set passes the job's memory limit, even while the main thread is inside SQLite. Before a kill for memory it writes
 * `memory` on fd 4 (a pipe the server reads), so the server can tell the caller why.
 *
 * It shares memory with the main thread instead of taking messages, so arming and disarming it for a job costs no
 * system call and wakes no thread: while armed it looks every WATCH_MS; a second after the last job it sleeps until
 * the next one arms it (the only time the main thread wakes it). Shared: `flags` [armed 0|1, asleep 0|1] and `nums`
 * [deadline (ms, timeOrigin + now), memory limit (bytes), resident set last seen (bytes)].
 */
const shared = new SharedArrayBuffer(32);
const flags = new Int32Array(shared, 0, 2);
const nums = new Float64Array(shared, 8, 3);
const watchdog = new Worker(
  `const { workerData } = require('node:worker_threads');
   const fs = require('node:fs');
   const flags = new Int32Array(workerData, 0, 2);
   const nums = new Float64Array(workerData, 8, 3);
   const now = () => performance.timeOrigin + performance.now();
   let idleSince = now();
   for (;;) {
     const rss = process.memoryUsage.rss();
     nums[2] = rss;
     if (Atomics.load(flags, 0) === 1) {
       idleSince = 0;
       if (rss > nums[1]) {
         try { fs.writeSync(4, 'memory\\n'); } catch {}
         process.kill(process.pid, 'SIGKILL');
       }
       if (now() >= nums[0]) process.kill(process.pid, 'SIGKILL');
       Atomics.wait(flags, 0, 1, ${WATCH_MS});
     } else if (idleSince && now() - idleSince > 1000) {
       Atomics.store(flags, 1, 1);
       Atomics.wait(flags, 0, 0);
       Atomics.store(flags, 1, 0);
     } else {
       if (!idleSince) idleSince = now();
       Atomics.wait(flags, 0, 0, ${WATCH_MS});
     }
   }`,
  { eval: true, workerData: shared },
);
watchdog.unref();
const clock = () => performance.timeOrigin + performance.now();
function arm(job: { selfKillMs: number; memoryLimit: number }): void {
  nums[0] = clock() + job.selfKillMs;
  nums[1] = job.memoryLimit;
  Atomics.store(flags, 0, 1);
  if (Atomics.load(flags, 1) === 1) Atomics.notify(flags, 0);
}
const disarm = () => Atomics.store(flags, 0, 0);

class Refusal extends Error {
  readonly code: RunFailed['code'];
  readonly where: RunFailed['where'];
  constructor(code: RunFailed['code'], message: string, where: RunFailed['where']) {
    super(message);
    this.code = code;
    this.where = where;
  }
}

function connection(file: string, busyTimeout: number): SqliteDb {
  let db = connections.get(file);
  if (db) {
    connections.delete(file);
    connections.set(file, db);
    return db;
  }
  // Files are never reused (a namespace's file gets a new name on import), so a cached connection whose file is
  // gone only holds disk space: close those (checked when a connection is opened, not on every job).
  for (const [f, c] of connections) {
    if (!fs.existsSync(f)) {
      connections.delete(f);
      c.close();
    }
  }
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyTimeout });
    db.pragma('query_only = 1');
    db.pragma(`cache_size = -${CACHE_KIB}`);
    // The same SQL functions as the server's own tenant connections (e.g. hearth_match), so views using them work.
    registerFunctions(db);
  } catch (err) {
    db?.close();
    throw new Refusal('file_gone', `could not open the namespace database: ${(err as Error).message}`, null);
  }
  connections.set(file, db);
  for (const [f, c] of connections) {
    if (connections.size <= MAX_CONNECTIONS) break;
    connections.delete(f);
    c.close();
  }
  return db;
}

/** The first keyword of a statement, after leading whitespace and comments. */
function firstWord(sql: string): string {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i]!)) i++;
    if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? sql.length : nl + 1;
    } else if (sql.startsWith('/*', i)) {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else break;
  }
  return (/^[A-Za-z_]+/.exec(sql.slice(i, i + 32))?.[0] ?? '').toUpperCase();
}

function prepare(db: SqliteDb, sql: string): SqliteStatement {
  let stmt: SqliteStatement;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    throw new Refusal('invalid_sql', (err as Error).message, 'sql');
  }
  const word = firstWord(sql);
  if (FORBIDDEN_FIRST_WORDS.has(word)) {
    const hint = word === 'PRAGMA' ? "; read introspection pragmas as table-valued functions, e.g. SELECT * FROM pragma_table_info('t')" : '';
    throw new Refusal('not_read_only', `${word} statements are not run by the read-only query endpoint${hint}`, 'sql');
  }
  if (!stmt.readonly) throw new Refusal('not_read_only', 'only read-only statements are run here; this statement would write', 'sql');
  if (!stmt.reader) {
    throw new Refusal('not_read_only', 'only queries that return rows (SELECT, WITH … SELECT, VALUES, EXPLAIN) are run here', 'sql');
  }
  return stmt.safeIntegers(true);
}

function bindable(p: SqlParam): unknown {
  if (typeof p === 'boolean') return p ? 1n : 0n;
  // better-sqlite3 binds every JS number as REAL; whole numbers should be INTEGER (e.g. for LIMIT ?).
  if (typeof p === 'number' && Number.isSafeInteger(p)) return BigInt(p);
  return p;
}

/** A SQLite value as JSON: BLOB → base64, INTEGER outside ±(2^53−1) → decimal string, ±Infinity → string. */
function jsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v.toString();
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

/** Bytes a row's big values will take in JSON, roughly, before encoding it (so one huge value cannot exhaust memory). */
function roughSize(row: Record<string, unknown>): number {
  let n = 0;
  for (const v of Object.values(row)) {
    if (typeof v === 'string') n += v.length;
    else if (Buffer.isBuffer(v)) n += Math.ceil(v.length / 3) * 4;
  }
  return n;
}

function run(req: RunRequest): JobReply {
  const db = connection(req.file, req.busyTimeout);
  let index = 0;
  try {
    // Every statement is checked before any runs, so a bad statement late in a batch costs nothing.
    const prepared: SqliteStatement[] = [];
    for (; index < req.statements.length; index++) prepared.push(prepare(db, req.statements[index]!.sql));

    let budget = req.maxBytes;
    let rows = 0;
    let anyTruncated = false;
    const parts: string[] = [];
    for (index = 0; index < prepared.length; index++) {
      const params = req.statements[index]!.params.map(bindable);
      let iterator: IterableIterator<unknown>;
      try {
        iterator = prepared[index]!.iterate(...params) as IterableIterator<unknown>;
      } catch (err) {
        if (err instanceof RangeError || err instanceof TypeError) throw new Refusal('invalid_request', err.message, 'params');
        throw err;
      }
      const out: string[] = [];
      let truncated = budget <= 0;
      if (!truncated) {
        for (const raw of iterator) {
          const row = raw as Record<string, unknown>;
          if (out.length >= req.maxRows) {
            truncated = true;
            break;
          }
          if (roughSize(row) > budget) {
            truncated = true;
            budget = 0; // the response is cut here: later statements of a batch return no rows
            break;
          }
          const converted: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(row)) converted[k] = jsonValue(v);
          const text = JSON.stringify(converted);
          const bytes = Buffer.byteLength(text) + 1;
          if (bytes > budget) {
            truncated = true;
            budget = 0;
            break;
          }
          budget -= bytes;
          out.push(text);
        }
      } else iterator.return?.();
      rows += out.length;
      anyTruncated ||= truncated;
      parts.push(`{"data":[${out.join(',')}]${truncated ? ',"truncated":true' : ''}}`);
    }
    const body = req.batch ? `{"results":[${parts.join(',')}]}` : parts[0]!;
    return { type: 'result', id: req.id, ok: true, body, rows, truncated: anyTruncated };
  } catch (err) {
    if (err instanceof Refusal) return { type: 'result', id: req.id, ok: false, code: err.code, message: err.message, index, where: err.where };
    return failure(req.id, err, index);
  } finally {
    if (db.open && db.inTransaction) db.exec('ROLLBACK');
  }
}

function failure(id: number, err: unknown, index: number | null): RunFailed {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof InvalidPatternError) return { type: 'result', id, ok: false, code: 'invalid_filter', message, index, where: 'params' };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) {
    if (code.startsWith('SQLITE_READONLY')) return { type: 'result', id, ok: false, code: 'not_read_only', message, index, where: 'sql' };
    if (isBusyError(err)) return { type: 'result', id, ok: false, code: 'busy', message, index, where: null };
    if (code.startsWith('SQLITE_CANTOPEN')) return { type: 'result', id, ok: false, code: 'file_gone', message, index: null, where: null };
    if (/^SQLITE_(CORRUPT|NOTADB|IOERR|NOMEM|FULL|INTERNAL|PERM)/.test(code))
      return { type: 'result', id, ok: false, code: 'internal', message: `${code}: ${message}`, index, where: null };
    // SQLITE_ERROR (syntax, no such table/function, "not authorized"), SQLITE_TOOBIG, SQLITE_MISMATCH, SQLITE_RANGE…
    return { type: 'result', id, ok: false, code: 'invalid_sql', message, index, where: 'sql' };
  }
  return { type: 'result', id, ok: false, code: 'internal', message, index, where: null };
}

/** A failure of SQL the server built (a listing or an export): the server maps it as it maps its own read errors. */
function readFailure(id: number, err: unknown): RunFailed {
  const code = (err as { code?: unknown }).code;
  if (err instanceof InvalidPatternError) return failure(id, err, null);
  if (typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN')) return failure(id, err, null);
  const message = err instanceof Error ? err.message : String(err);
  return { type: 'result', id, ok: false, code: 'read_error', message, index: null, where: null, sqliteCode: typeof code === 'string' ? code : undefined };
}

function read(req: ReadRequest): JobReply {
  try {
    const out = runRead(connection(req.file, req.busyTimeout), req.plan);
    return { type: 'result', id: req.id, ok: true, body: out.body, rows: out.rows, counts: out.counts };
  } catch (err) {
    return err instanceof Refusal
      ? { type: 'result', id: req.id, ok: false, code: err.code, message: err.message, index: null, where: null }
      : readFailure(req.id, err);
  }
}

/**
 * The export in progress: chunks are encoded while the server has granted credit; without credit the process waits
 * (disarmed) for a CreditMessage.
 */
let exporting: { req: ExportRequest; encoder: CsvEncoder; credit: number } | null = null;

function startExport(req: ExportRequest): void {
  let encoder: CsvEncoder;
  try {
    encoder = new CsvEncoder(connection(req.file, req.busyTimeout), req.plan);
  } catch (err) {
    finish(
      err instanceof Refusal
        ? { type: 'result', id: req.id, ok: false, code: err.code, message: err.message, index: null, where: null }
        : readFailure(req.id, err),
    );
    return;
  }
  exporting = { req, encoder, credit: EXPORT_WINDOW };
  pump();
}

/** Encodes and sends chunks while there is credit; ends the job at the last row or at an error. */
function pump(): void {
  const job = exporting;
  if (!job) return;
  arm(job.req);
  try {
    while (job.credit > 0) {
      const chunk = job.encoder.next(job.req.chunkChars);
      if (chunk === null) {
        exporting = null;
        finish({ type: 'result', id: job.req.id, ok: true, body: '', rows: job.encoder.rows });
        return;
      }
      job.credit--;
      process.send!({ type: 'chunk', id: job.req.id, data: chunk });
    }
  } catch (err) {
    exporting = null;
    job.encoder.close();
    finish(readFailure(job.req.id, err));
    return;
  }
  disarm();
}

/** Sends a job's reply, with this process's resident set (as the watchdog last saw it) so the pool can retire a process left large. */
function finish(reply: JobReply): void {
  disarm();
  process.send!({ ...reply, rss: nums[2] });
}

// The server is gone (its IPC channel closed, or a send found it closed: EPIPE): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
process.on('error', () => process.exit(0));
process.on('message', (raw) => {
  const msg = raw as ParentMessage;
  if (msg.type === 'credit') {
    if (exporting && exporting.req.id === msg.id) {
      exporting.credit += msg.chunks;
      pump();
    }
    return;
  }
  if (msg.type === 'export') {
    startExport(msg);
    return;
  }
  if (msg.type !== 'run' && msg.type !== 'read') return;
  let reply: JobReply;
  arm(msg);
  try {
    reply = msg.type === 'run' ? run(msg) : read(msg);
  } catch (err) {
    reply =
      err instanceof Refusal
        ? { type: 'result', id: msg.id, ok: false, code: err.code, message: err.message, index: null, where: err.where }
        : failure(msg.id, err, null);
  }
  finish(reply);
});
process.send({ type: 'ready' });
