import fs from 'node:fs';
import { PassThrough, pipeline, Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { AppContext } from '../../core/http/context.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import type { SqliteDb } from '../../core/storage/sqlite.ts';
import { requireObject, type TableInfo } from '../schema/catalog.ts';
import { fromCsv, toStorage } from '../schema/types.ts';
import type { ReadTenant, SqlService } from '../sql/sql.service.ts';
import { parseLimit } from './builder.ts';
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
/** At most this many refused values are listed in an `invalid_csv` answer; `details.total` counts them all. */
export const CSV_IMPORT_ERROR_CAP = 1000;

/** One refused value (or line) of a CSV import: 1-based line of the file, the column (null: the whole line), the reason in words. */
export interface CsvLineError {
  line: number;
  column: string | null;
  reason: string;
}

/** The structural CSV errors of csv-parse, in words (the parser's own text otherwise). */
function parserReason(err: { code?: string; message?: string }, columns: number | null): string {
  // The parser runs ahead of the loop reading the header: take the expected count from its own message first.
  const got = /got (\d+)/.exec(err.message ?? '')?.[1];
  const expected = /expect (\d+)/.exec(err.message ?? '')?.[1] ?? columns;
  if (err.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH' || err.code === 'CSV_RECORD_INCONSISTENT_COLUMNS') {
    return `has ${got ?? 'a different number of'} fields, but the first line names ${expected ?? 'a different number of'} columns`;
  }
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return 'a quoted field is never closed (a " is missing)';
  if (err.code === 'CSV_INVALID_CLOSING_QUOTE') return 'a closing quote is followed by other characters (write "" for a quote inside a field)';
  return (err.message ?? 'not valid CSV').replace(/ on line \d+$/, '');
}

const describeLineError = (e: CsvLineError) => `line ${e.line}${e.column === null ? '' : `, column ${JSON.stringify(e.column)}`}: ${e.reason}`;

/**
 * Inserts the rows of a CSV file into a table in one transaction. The header row names the columns; values are
 * coerced to the column types (empty unquoted field = NULL, `""` = empty string). Every refused value and every
 * malformed line is collected (line, column, reason; the first `CSV_IMPORT_ERROR_CAP` listed in the answer's
 * `details`, `details.total` counting all of them) and, when there is any, nothing is written. A bad header (an
 * unknown or repeated column) stops at once: no line can be read without it. Constraints only the database checks
 * across rows (unique, foreign keys, triggers) are reported as the insert's first failure, still writing nothing.
 */
export async function importCsv(opts: {
  ns: string;
  db: SqliteDb;
  table: string;
  upload: Upload;
  rows: RowsService;
  meta: Meta;
}): Promise<{ table: string; inserted: number }> {
  const t: TableInfo = requireObject(opts.db, opts.table);
  if (t.type === 'view') throw new HearthError('object_is_view', `${t.name} is a view: import into a table`);
  if (opts.upload.size > CSV_IMPORT_LIMIT) throw new HearthError('payload_too_large', `a CSV import is at most ${CSV_IMPORT_LIMIT} bytes`);
  const source = opts.upload.kind === 'memory' ? Readable.from([opts.upload.buffer]) : fs.createReadStream(opts.upload.path);
  const errors: CsvLineError[] = [];
  let total = 0;
  let header: string[] | null = null;
  const refuse = (e: CsvLineError) => {
    total++;
    if (errors.length < CSV_IMPORT_ERROR_CAP) errors.push(e);
  };
  const parser = source.pipe(
    parse({
      bom: true,
      relax_column_count: false,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err) => {
        if (err) refuse({ line: (err as { lines?: number }).lines ?? 0, column: null, reason: parserReason(err, header?.length ?? null) });
        return undefined;
      },
      info: true,
      cast: (value, context) => (context.quoting ? value : value === '' ? null : value),
    }),
  );
  const records: Array<Record<string, unknown>> = [];
  try {
    for await (const item of parser as AsyncIterable<{ record: Array<string | null>; info: { lines: number } }>) {
      const { record, info } = item;
      if (!header) {
        header = record.map((h) => (h ?? '').trim());
        const seen = new Set<string>();
        for (const h of header) {
          if (!t.byName.has(h)) throw new HearthError('invalid_csv', `line 1: ${t.name} has no column ${JSON.stringify(h)}`);
          if (seen.has(h)) throw new HearthError('invalid_csv', `line 1: column ${JSON.stringify(h)} appears twice`);
          if (t.managed && (h === 'created_at' || h === 'updated_at'))
            throw new HearthError('invalid_csv', `line 1: ${h} is maintained by the service and cannot be imported`);
          seen.add(h);
        }
        continue;
      }
      const row: Record<string, unknown> = {};
      let ok = true;
      for (let i = 0; i < header.length; i++) {
        const col = t.byName.get(header[i]!)!;
        const raw = record[i] ?? null;
        const value = raw === null ? null : fromCsv(col, raw);
        if (value === Symbol.for('invalid-json')) {
          refuse({ line: info.lines, column: col.name, reason: 'not valid JSON' });
          ok = false;
          continue;
        }
        try {
          toStorage(col, value, t.name);
        } catch (err) {
          if (!(err instanceof HearthError)) throw err;
          refuse({ line: info.lines, column: col.name, reason: err.message.replace(`${t.name}.${col.name}: `, '').replace(`${t.name}.${col.name} `, '') });
          ok = false;
          continue;
        }
        row[col.name] = value;
      }
      // Once a line is refused nothing will be written: keep reading only to find the other bad lines.
      if (ok && total === 0) records.push(row);
    }
  } catch (err) {
    if (err instanceof HearthError) throw err;
    const e = err as { code?: string; message?: string; lines?: number };
    refuse({ line: e.lines ?? 0, column: null, reason: parserReason(e, header?.length ?? null) });
  } finally {
    source.destroy();
  }
  if (total > 0) {
    // The parser may report a malformed line before it hands over the records read ahead of it.
    errors.sort((a, b) => a.line - b.line);
    const first = describeLineError(errors[0]!);
    const message = total === 1 ? first : `${total} problems, nothing was imported; the first: ${first}`;
    throw new HearthError('invalid_csv', message, { fields: { details: { total, shown: errors.length, lines: errors } } });
  }
  if (!header) throw new HearthError('invalid_csv', 'the file is empty: the first line must name the columns');
  const written = opts.rows.insert({ ns: opts.ns, db: opts.db, meta: opts.meta }, t.name, records, { resolution: null, onConflict: null, bulk: true });
  return { table: t.name, inserted: written.count };
}
