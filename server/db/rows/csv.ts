import fs from 'node:fs';
import { Readable } from 'node:stream';
import { Database, type SqliteDb } from '../../core/storage/sqlite.ts';
import { parse } from 'csv-parse';
import type { AppContext } from '../../core/http/context.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import { requireObject, type TableInfo } from '../schema/catalog.ts';
import { fromCsv, toStorage, type ColumnType } from '../schema/types.ts';
import { parseLimit } from './builder.ts';
import { registerFunctions } from './functions.ts';
import { readError, type Meta, type RowsService } from './rows.service.ts';

const NEEDS_QUOTES = /[",\r\n]/;

function field(value: unknown, type: ColumnType | undefined): string {
  if (value === null || value === undefined) return '';
  let s: string;
  if (type === 'boolean' && (value === 0 || value === 1)) s = value === 1 ? 'true' : 'false';
  else if (Buffer.isBuffer(value)) s = value.toString('base64');
  // String(double) allocates its result straight in V8's old space (number-to-string cache): over a million rows
  // that garbage grows the heap. JSON.stringify gives the same text for a finite number, in the young generation.
  else if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) s = JSON.stringify(value);
  else s = String(value);
  if (s === '') return '""';
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CHUNK_BYTES = 64 * 1024;

/**
 * Streams a listing as RFC 4180 CSV from a separate read-only connection (the tenant's main connection stays
 * free for other requests). Rows are pulled only as fast as the client reads: memory stays constant.
 */
export function exportCsv(
  ctx: AppContext,
  opts: { db: SqliteDb; file: string; table: string; params: URLSearchParams; rows: RowsService; busyTimeout: number },
): void {
  const t = requireObject(opts.db, opts.table);
  const limit = parseLimit(opts.params.get('limit'), { fallback: null, max: Number.MAX_SAFE_INTEGER });
  const query = opts.rows.buildList(t, opts.params, { limit });
  const ro = new Database(opts.file, { readonly: true, fileMustExist: true, timeout: opts.busyTimeout });
  let iter: IterableIterator<unknown[]>;
  let first: IteratorResult<unknown[]>;
  try {
    registerFunctions(ro);
    const stmt = ro.prepare(query.sql).raw(true);
    iter = stmt.iterate(...query.params) as IterableIterator<unknown[]>;
    first = iter.next(); // errors surface here, before any byte is sent
  } catch (err) {
    ro.close();
    readError(err);
  }
  const types = query.projection.columns.map((c) => c.type);
  const header = query.projection.columns.map((c) => field(c.name, 'text')).join(',') + '\r\n';
  let pending: IteratorResult<unknown[]> | null = first;
  let count = 0;
  const stream = new Readable({
    read() {
      try {
        // Fields are written straight into a buffer: no per-row string concatenation, no copy at push.
        let buf = Buffer.allocUnsafeSlow(CHUNK_BYTES + 16 * 1024);
        let n = 0;
        while (n < CHUNK_BYTES) {
          const r = pending ?? iter.next();
          pending = null;
          if (r.done) {
            if (n) this.push(buf.subarray(0, n));
            this.push(null);
            return;
          }
          count++;
          const row = r.value;
          for (let i = 0; i < row.length; i++) {
            const s = field(row[i], types[i]);
            const need = n + s.length * 3 + 3; // worst case UTF-8, a comma, CRLF
            if (need > buf.length) {
              const bigger = Buffer.allocUnsafeSlow(Math.max(buf.length * 2, need));
              buf.copy(bigger, 0, 0, n);
              buf = bigger;
            }
            if (i) buf[n++] = 0x2c;
            n += buf.write(s, n);
          }
          buf[n++] = 0x0d;
          buf[n++] = 0x0a;
        }
        this.push(buf.subarray(0, n));
      } catch (err) {
        this.destroy(err as Error);
      }
    },
    destroy(err, cb) {
      try {
        iter.return?.();
      } catch {
        // already finished
      }
      ro.close();
      ctx.state.rowsRead = count;
      cb(err);
    },
  });
  stream.push((opts.params.get('bom') === 'true' ? '\uFEFF' : '') + header);
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
