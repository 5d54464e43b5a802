import { PassThrough, pipeline } from 'node:stream';
import type { AppContext } from '../../core/http/app-context.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import { spawnWorker } from '../../core/runtime.ts';
import type { SqliteDb } from '../../core/storage/sqlite.ts';
import { dbFile } from '../namespaces/handles.ts';
import type { NamespaceConfig } from '../namespaces/namespaces.schemas.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { WriteGate } from '../nodes/forwarding.ts';
import { requireObject, type TableInfo } from '../schema/catalog.ts';
import type { ReadTenant, SqlService } from '../sql/sql.service.ts';
import { parseLimit } from './builder.ts';
import type { CsvImportAnswer, CsvImportJob } from './csv.worker.ts';
import { csvField } from './read.ts';
import { readError } from './rows.errors.ts';
import type { Meta, RowsService } from './rows.service.ts';

/**
 * Streams a listing as RFC 4180 CSV. The server plans the export (schema, grammar, SQL: every 400 before any
 * byte) and a query process runs it on a read-only connection (sql.service.ts), encoding chunks of rows only as
 * fast as the client reads them: memory stays constant, and SQLite's time to produce each chunk is bounded by
 * the namespace's query_timeout (504 before the first byte; once streaming has begun, the connection is cut).
 */
export async function exportCsv(
  ctx: AppContext,
  opts: { tenant: ReadTenant & { db: SqliteDb }; table: string; params: URLSearchParams; rows: RowsService; queries: SqlService; signal?: AbortSignal },
): Promise<void> {
  const t = requireObject(opts.tenant.db, opts.table);
  const limit = parseLimit(opts.params.get('limit'), { fallback: null, max: Number.MAX_SAFE_INTEGER });
  const query = opts.rows.buildList(t, opts.params, { limit });
  const body = await opts.queries.export(
    opts.tenant,
    { sql: query.sql, params: query.params, types: query.projection.columns.map((c) => c.type) },
    { signal: opts.signal, mapError: readError, onEnd: (n) => (ctx.state.rowsRead = n) },
  );
  const header = `${query.projection.columns.map((c) => csvField(c.name, 'text')).join(',')}\r\n`;
  const stream = new PassThrough({ objectMode: true }); // CSV strings (see the pool's export)
  stream.write((opts.params.get('bom') === 'true' ? '\uFEFF' : '') + header);
  pipeline(body, stream, () => {}); // an error after the first byte cuts the connection (the status was sent)
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${t.name}.csv"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = stream;
}

/** The largest CSV file an import reads (the upload limit, HEARTH_UPLOAD_LIMIT, may be lower). */
export const CSV_IMPORT_LIMIT = 256 * 1024 * 1024;
export { CSV_IMPORT_ERROR_CAP, type CsvLineError } from './csv-scan.ts';

/**
 * Inserts the rows of a CSV file into a table in one transaction, off the event loop. The header row names the
 * columns; values are coerced to the column types (empty unquoted field = NULL, `""` = empty string). Every refused
 * value and every malformed line is collected (line, column, reason; the first `CSV_IMPORT_ERROR_CAP` listed in the
 * answer's `details`, `details.total` counting all of them) and, when there is any, nothing is written. A bad header
 * (an unknown or repeated column) stops at once: no line can be read without it. Constraints only the database
 * checks across rows (unique, foreign keys, triggers) are reported as the insert's first failure, still writing
 * nothing. One `import` event (`{count}`) follows the commit.
 *
 * The work runs in a worker thread with its own connection (csv.worker.ts), in this order:
 * 1. the table is looked up on the server's connection (404, a view: before anything waits);
 * 2. the namespace's writes are held (nodes/forwarding.ts's WriteGate): new writes wait for the import without
 *    blocking the event loop, and the writes already running are waited for, at most busy_timeout;
 * 3. under the namespace's control-plane lock (no move, database import, configuration change or delete meanwhile)
 *    and with its connection pinned open, that connection's busy_timeout is 0 for the import's length: a request
 *    that still meets the worker's lock on it (a write that was already running) is refused at once with 503
 *    instead of sleeping on the event loop;
 * 4. the worker parses, checks and inserts, and commits or rolls back; the event is published, then the writes held
 *    go on.
 */
export async function importCsv(opts: {
  ns: string;
  table: string;
  upload: Upload;
  namespaces: NamespaceService;
  gate: WriteGate;
  rows: RowsService;
  meta: Meta;
}): Promise<{ table: string; inserted: number }> {
  if (opts.upload.size > CSV_IMPORT_LIMIT) throw new HearthError('payload_too_large', `a CSV import is at most ${CSV_IMPORT_LIMIT} bytes`);
  const tenant = opts.namespaces.tenant(opts.ns);
  const t: TableInfo = requireObject(tenant.db, opts.table);
  if (t.type === 'view') throw new HearthError('object_is_view', `${t.name} is a view: import into a table`);
  const release = await opts.gate.hold(opts.ns, tenant.config.busy_timeout);
  try {
    const inserted = await opts.namespaces.exclusive(opts.ns, async () => {
      const done = await opts.namespaces.handles.withPinned(opts.ns, async (db, fileId, config) => {
        db.pragma('busy_timeout = 0');
        try {
          return await runCsvImport({ file: dbFile(opts.namespaces.dir, fileId), config, table: t.name, upload: opts.upload });
        } finally {
          db.pragma(`busy_timeout = ${config.busy_timeout}`);
        }
      });
      if (done === null) throw new HearthError('namespace_not_found', `namespace ${JSON.stringify(opts.ns)} does not exist`);
      return done;
    });
    if (inserted > 0) opts.rows.imported({ ns: opts.ns, meta: opts.meta }, t.name, inserted);
    return { table: t.name, inserted };
  } finally {
    release();
  }
}

/**
 * Runs one CSV import in a worker thread (csv.worker.ts) against the database `file`, and answers how many rows it
 * inserted; its refusals are thrown as the HearthErrors it made, anything else as an Error (a 500). The bytes of an
 * upload held in memory move to the worker (the upload's buffer is empty afterwards) instead of being copied. The
 * caller holds the namespace's writes (see importCsv).
 */
export async function runCsvImport(opts: { file: string; config: NamespaceConfig; table: string; upload: Upload }): Promise<number> {
  const { source, transfer } = workerSource(opts.upload);
  const job: CsvImportJob = { file: opts.file, config: opts.config, table: opts.table, source };
  const answer = await new Promise<CsvImportAnswer>((resolve, reject) => {
    const worker = spawnWorker('db-csv-import', new URL('./csv.worker.ts', import.meta.url), { workerData: job, transferList: transfer });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the CSV import's worker thread ended (exit code ${code}) without answering`)));
  });
  if (answer.ok) return answer.inserted;
  if (answer.code !== undefined) {
    throw new HearthError(answer.code, answer.message, { fields: answer.fields, headers: answer.headers, details: answer.details });
  }
  throw Object.assign(new Error(`CSV import failed: ${answer.message}`), answer.errno ? { code: answer.errno } : {});
}

/** What the worker reads: a spilled upload's path, or the bytes of one in memory (transferred when they fill their own ArrayBuffer). */
function workerSource(upload: Upload): { source: CsvImportJob['source']; transfer: ArrayBuffer[] } {
  if (upload.kind === 'file') return { source: { path: upload.path }, transfer: [] };
  const b = upload.buffer;
  const own = b.buffer instanceof ArrayBuffer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  const bytes = own ? new Uint8Array(b.buffer) : new Uint8Array(b);
  return { source: { bytes }, transfer: [bytes.buffer as ArrayBuffer] };
}
