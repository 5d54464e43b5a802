/**
 * Reading a CSV import (csv.worker.ts runs it, off the event loop). The file streams through csv-parse: the header
 * is checked against the table, then every value of every line is coerced to its column (`fromCsv`) and checked as a
 * JSON write's value is (`toStorage`). Each good line goes to `write` as stored values in the header's order, as long
 * as no problem has been found; after the first one, reading goes on only to find the others.
 *
 * Every stream is joined with `pipeline`, so each one's error ends the scan and none is left unheard: the parser's
 * structural errors are problems of the file (`invalid_csv`), a source that fails (a spilled upload whose temporary
 * file vanished) is 500 `internal_error`, and neither ends the process.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { TableInfo } from '../schema/catalog.ts';
import { type ColumnInfo, fromCsv, toStorage } from '../schema/types.ts';

/** At most this many refused values are listed in an `invalid_csv` answer; `details.total` counts them all. */
export const CSV_IMPORT_ERROR_CAP = 1000;

/** A CSV held in memory is handed to the parser in slices of this size, so that it reads it as a stream. */
const MEMORY_SLICE = 64 * 1024;

/** One refused value (or line) of a CSV import: 1-based line of the file, the column (null: the whole line), the reason in words. */
export interface CsvLineError {
  line: number;
  column: string | null;
  reason: string;
}

/** What a scan found: the header's columns (null: the file is empty) and the problems (all counted, the first CSV_IMPORT_ERROR_CAP kept). */
export interface CsvScan {
  columns: ColumnInfo[] | null;
  total: number;
  errors: CsvLineError[];
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

/** The bytes of an upload as a stream: a spilled upload's file, or a buffer in slices. */
export function csvSource(from: { path: string } | { bytes: Uint8Array }): Readable {
  if ('path' in from) return fs.createReadStream(from.path, { highWaterMark: 256 * 1024 });
  const { bytes } = from;
  return Readable.from(
    (function* slices() {
      for (let at = 0; at < bytes.length; at += MEMORY_SLICE) yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(MEMORY_SLICE, bytes.length - at));
    })(),
    { objectMode: false },
  );
}

/**
 * Reads a CSV file for table `t` (see the file's header). A bad header (an unknown or repeated column, a column the
 * service maintains) throws `invalid_csv` at once: no line can be read without it. `write` gets each good line while
 * no problem has been found; it must not throw (a refusal of the database is the caller's to keep).
 */
export async function scanCsv(source: Readable, t: TableInfo, write: (values: unknown[], columns: ColumnInfo[]) => void): Promise<CsvScan> {
  const errors: CsvLineError[] = [];
  let total = 0;
  let columns: ColumnInfo[] | null = null;
  const refuse = (e: CsvLineError) => {
    total++;
    if (errors.length < CSV_IMPORT_ERROR_CAP) errors.push(e);
  };
  const parser = parse({
    bom: true,
    relax_column_count: false,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err) => {
      if (err) refuse({ line: (err as { lines?: number }).lines ?? 0, column: null, reason: parserReason(err, columns?.length ?? null) });
      return undefined;
    },
    info: true,
    cast: (value, context) => (context.quoting ? value : value === '' ? null : value),
  });
  const read = async (records: AsyncIterable<{ record: Array<string | null>; info: { lines: number } }>) => {
    for await (const { record, info } of records) {
      if (!columns) {
        columns = header(t, record);
        continue;
      }
      const values = new Array<unknown>(columns.length);
      let ok = true;
      for (let i = 0; i < columns.length; i++) {
        const col = columns[i]!;
        const raw = record[i] ?? null;
        const value = raw === null ? null : fromCsv(col, raw);
        if (value === Symbol.for('invalid-json')) {
          refuse({ line: info.lines, column: col.name, reason: 'not valid JSON' });
          ok = false;
          continue;
        }
        try {
          values[i] = toStorage(col, value, t.name);
        } catch (err) {
          if (!(err instanceof HearthError)) throw err;
          refuse({ line: info.lines, column: col.name, reason: err.message.replace(`${t.name}.${col.name}: `, '').replace(`${t.name}.${col.name} `, '') });
          ok = false;
        }
      }
      // Once a line is refused nothing will be written: keep reading only to find the other bad lines.
      if (ok && total === 0) write(values, columns);
    }
  };
  try {
    await pipeline(source, parser, read);
  } catch (err) {
    if (err instanceof HearthError) throw err;
    if (!(err instanceof CsvError)) {
      const e = err as NodeJS.ErrnoException;
      throw new HearthError('internal_error', `the uploaded file could not be read (${e.code ?? e.message}); nothing was imported`, { cause: err });
    }
    refuse({ line: (err as { lines?: number }).lines ?? 0, column: null, reason: parserReason(err, (columns as ColumnInfo[] | null)?.length ?? null) });
  }
  return { columns, total, errors };
}

/** The columns a header line names, or `invalid_csv` for line 1. */
function header(t: TableInfo, record: Array<string | null>): ColumnInfo[] {
  const seen = new Set<string>();
  return record.map((raw) => {
    const h = (raw ?? '').trim();
    const col = t.byName.get(h);
    if (!col) throw new HearthError('invalid_csv', `line 1: ${t.name} has no column ${quoteInput(h)}`);
    if (seen.has(h)) throw new HearthError('invalid_csv', `line 1: column ${quoteInput(h)} appears twice`);
    if (t.managed && (h === 'created_at' || h === 'updated_at'))
      throw new HearthError('invalid_csv', `line 1: ${h} is maintained by the service and cannot be imported`);
    seen.add(h);
    return col;
  });
}

/** The `invalid_csv` answer of a scan that found problems (the first by line named in the message), or of an empty file; null when neither. */
export function csvRefusal(scan: CsvScan): HearthError | null {
  if (scan.total > 0) {
    // The parser may report a malformed line before it hands over the records read ahead of it.
    const errors = [...scan.errors].sort((a, b) => a.line - b.line);
    const first = describeLineError(errors[0]!);
    const message = scan.total === 1 ? first : `${scan.total} problems, nothing was imported; the first: ${first}`;
    return new HearthError('invalid_csv', message, { fields: { details: { total: scan.total, shown: errors.length, lines: errors } } });
  }
  if (!scan.columns) return new HearthError('invalid_csv', 'the file is empty: the first line must name the columns');
  return null;
}
