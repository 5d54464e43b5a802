/**
 * How the rows API's reads run. The server plans a read on its own connection (the schema, the grammar, the SQL:
 * builder.ts) and a query process (server/db/sql/sql.child.ts) runs the plan on a read-only connection, so a slow
 * or endless read never holds the server's event loop and is stopped at the namespace's `query_timeout`.
 *
 * This file is imported by both sides and by nothing heavier than the column types: the query process starts fast.
 *
 *   ReadPlan    a listing: its SELECT, the optional counts of `count=exact`, and the columns' types → JSON text
 *   ExportPlan  a CSV export: its SELECT and the columns' types → CSV chunks of about 64 KiB (CsvEncoder)
 */
import type { SqliteDb, SqliteStatement } from '../../core/storage/sqlite.ts';
import { type ColumnType, fromStorage } from '../schema/types.ts';

type Row = Record<string, unknown>;

export interface ReadColumn {
  name: string;
  type: ColumnType | undefined;
}

/** A listing, planned by the server and run by a query process. */
export interface ReadPlan {
  sql: string;
  params: unknown[];
  /** Output columns and the types that say how their values become JSON. */
  columns: ReadColumn[];
  /** `count=exact`: the SQL of the total count and, when the listing is filtered, of the filtered count. */
  count?: { total: string; filtered: string | null; params: unknown[] };
}

export interface ReadOutcome {
  /** The rows as a JSON array (text: the server forwards it without parsing it). */
  body: string;
  rows: number;
  counts?: { total: number; filtered: number };
}

/** A CSV export, planned by the server and run by a query process. */
export interface ExportPlan {
  sql: string;
  params: unknown[];
  types: Array<ColumnType | undefined>;
}

/** Converts stored rows to JSON in place, only for the columns that need it. */
export function converter(columns: ReadColumn[]): (row: Row) => Row {
  const needs = columns.filter((c) => c.type === 'boolean' || c.type === 'json' || c.type === 'blob' || c.type === undefined);
  if (needs.length === 0) return (r) => r;
  return (r) => {
    for (const c of needs) r[c.name] = fromStorage(c.type, r[c.name]);
    return r;
  };
}

/**
 * Prepared statements per connection, keyed by SQL and by how rows come back (objects, arrays or the first column:
 * a statement's mode sticks to it, so each mode has its own statement). Bounded.
 */
const statements = new WeakMap<SqliteDb, Map<string, SqliteStatement>>();
export function prepare(db: SqliteDb, sql: string, mode: 'objects' | 'raw' | 'pluck' = 'objects'): SqliteStatement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  const key = mode === 'objects' ? sql : `${mode}\u0000${sql}`;
  let s = m.get(key);
  if (!s) {
    s = db.prepare(sql);
    if (mode === 'raw') s.raw(true);
    else if (mode === 'pluck') s.pluck(true);
    if (m.size >= 256) m.delete(m.keys().next().value!);
    m.set(key, s);
  }
  return s;
}

/** Parameters as they arrive over IPC (a Buffer arrives as a Uint8Array) made bindable again. */
export function bindable(params: unknown[]): unknown[] {
  return params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
}

/** Runs a listing (in a query process). */
export function runRead(db: SqliteDb, plan: ReadPlan): ReadOutcome {
  const convert = converter(plan.columns);
  const rows = (prepare(db, plan.sql).all(...bindable(plan.params)) as Row[]).map(convert);
  const out: ReadOutcome = { body: JSON.stringify(rows), rows: rows.length };
  if (plan.count) {
    const total = prepare(db, plan.count.total, 'pluck').get() as number;
    const filtered = plan.count.filtered ? (prepare(db, plan.count.filtered, 'pluck').get(...bindable(plan.count.params)) as number) : total;
    out.counts = { total, filtered };
  }
  return out;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV field (RFC 4180): NULL empty, an empty string `""`, booleans true/false, blobs base64. */
export function csvField(value: unknown, type: ColumnType | undefined): string {
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

/** Encodes the rows of an export's statement as CSV, one chunk at a time (rows are pulled only as chunks are asked for). */
export class CsvEncoder {
  rows = 0;
  private readonly iter: IterableIterator<unknown[]>;
  private readonly types: Array<ColumnType | undefined>;
  private done = false;

  constructor(db: SqliteDb, plan: ExportPlan) {
    this.types = plan.types;
    this.iter = prepare(db, plan.sql, 'raw').iterate(...bindable(plan.params)) as IterableIterator<unknown[]>;
  }

  /**
   * The next chunk of at least `chars` characters (less at the end), or null when every row has been encoded. A
   * string: it crosses to the server as V8 heap memory, which the server's young generation reclaims at once, and
   * the HTTP layer encodes it into the socket's buffer.
   */
  next(chars: number): string | null {
    if (this.done) return null;
    const lines: string[] = [];
    let n = 0;
    const fields: string[] = [];
    while (n < chars) {
      const r = this.iter.next();
      if (r.done) {
        this.done = true;
        break;
      }
      this.rows++;
      const row = r.value;
      fields.length = row.length;
      for (let i = 0; i < row.length; i++) fields[i] = csvField(row[i], this.types[i]);
      const line = `${fields.join(',')}\r\n`;
      lines.push(line);
      n += line.length;
    }
    return lines.length ? lines.join('') : null;
  }

  /** Stops reading (the statement is reset). */
  close(): void {
    this.done = true;
    try {
      this.iter.return?.();
    } catch {
      // already finished
    }
  }
}
