import fs from 'node:fs';
import { PassThrough, Readable, pipeline } from 'node:stream';
import type { SqliteDb } from '../../core/storage/sqlite.ts';
import { parse } from 'csv-parse';
import type { AppContext } from '../../core/http/context.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import { requireObject, type TableInfo } from '../schema/catalog.ts';
import { fromCsv, toStorage } from '../schema/types.ts';
import { parseLimit } from './builder.ts';
import { csvField } from './read.ts';
import { readError, type Meta, type RowsService } from './rows.service.ts';
import type { ReadTenant, SqlService } from '../sql/sql.service.ts';

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
  const header = query.projection.columns.map((c) => csvField(c.name, 'text')).join(',') + '\r\n';
  const stream = new PassThrough({ objectMode: true }); // CSV strings (see the pool's export)
  stream.write((opts.params.get('bom') === 'true' ? '\uFEFF' : '') + header);
  pipeline(body, stream, () => {}); // an error after the first byte cuts the connection (the status was sent)
  ctx.status = 200;
  ctx.type = 'text/csv; charset=utf-8';
  ctx.set('Content-Disposition', `attachment; filename="${t.name}.csv"`);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = stream;
}

const CSV_IMPORT_LIMIT = 256 * 1024 * 1024;

/**
 * Inserts the rows of a CSV file into a table in one transaction. The header row names the columns; values are
 * coerced to the column types (empty unquoted field = NULL, `""` = empty string). The first bad value is reported
 * with its line and column, and nothing is written.
 */
export async function importCsv(opts: { ns: string; db: SqliteDb; table: string; upload: Upload; rows: RowsService; meta: Meta }): Promise<{ table: string; inserted: number }> {
  const t: TableInfo = requireObject(opts.db, opts.table);
  if (t.type === 'view') throw new HearthError('object_is_view', `${t.name} is a view: import into a table`);
  if (opts.upload.size > CSV_IMPORT_LIMIT) throw new HearthError('payload_too_large', `a CSV import is at most ${CSV_IMPORT_LIMIT} bytes`);
  const source = opts.upload.kind === 'memory' ? Readable.from([opts.upload.buffer]) : fs.createReadStream(opts.upload.path);
  const parser = source.pipe(
    parse({
      bom: true,
      relax_column_count: false,
      skip_empty_lines: true,
      info: true,
      cast: (value, context) => (context.quoting ? value : value === '' ? null : value),
    }),
  );
  let header: string[] | null = null;
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
          if (t.managed && (h === 'created_at' || h === 'updated_at')) throw new HearthError('invalid_csv', `line 1: ${h} is maintained by the service and cannot be imported`);
          seen.add(h);
        }
        continue;
      }
      const row: Record<string, unknown> = {};
      for (let i = 0; i < header.length; i++) {
        const col = t.byName.get(header[i]!)!;
        const raw = record[i] ?? null;
        const value = raw === null ? null : fromCsv(col, raw);
        if (value === Symbol.for('invalid-json')) throw new HearthError('invalid_csv', `line ${info.lines}, column ${JSON.stringify(col.name)}: not valid JSON`);
        try {
          toStorage(col, value, t.name);
        } catch (err) {
          const msg = err instanceof HearthError ? err.message.replace(`${t.name}.${col.name}: `, '').replace(`${t.name}.${col.name} `, '') : String(err);
          throw new HearthError('invalid_csv', `line ${info.lines}, column ${JSON.stringify(col.name)}: ${msg}`);
        }
        row[col.name] = value;
      }
      records.push(row);
    }
  } catch (err) {
    if (err instanceof HearthError) throw err;
    const e = err as { code?: string; message?: string; lines?: number };
    throw new HearthError('invalid_csv', `${e.lines ? `line ${e.lines}: ` : ''}${e.message ?? 'the file is not valid CSV'}`);
  } finally {
    source.destroy();
  }
  if (!header) throw new HearthError('invalid_csv', 'the file is empty: the first line must name the columns');
  const written = opts.rows.insert({ ns: opts.ns, db: opts.db, meta: opts.meta }, t.name, records, { resolution: null, onConflict: null, bulk: true });
  return { table: t.name, inserted: written.count };
}
