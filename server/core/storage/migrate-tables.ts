/**
 * The tables `hearth migrate-store` moves (core/storage/migrate-store.ts), and how it reads, writes and checksums
 * them on both engines. It knows no domain: the tables, their columns, primary keys and foreign keys come from
 * platform.db's own schema (`sqlite_schema`, `PRAGMA table_info/foreign_key_list`), and the target's from
 * PostgreSQL's catalog.
 *
 * Values travel as SQLite stores them: INTEGER as a 64-bit integer (better-sqlite3 `safeIntegers`, so nothing above
 * 2^53 is rounded; PostgreSQL's integers are read back as BigInt too), REAL as a double, TEXT as text, BLOB as bytea.
 *
 * The checksum of a table: its rows in primary-key order (every column, in SQLite's column order, for a table
 * without one), each value written with its type — `n` NULL, `i<decimal>;` integer, `r` and the 8 bytes of the double
 * (big-endian) for a real, `t<bytes>:<utf-8>` text, `b<bytes>:<bytes>` blob — and a newline after each row; SHA-256 of
 * each run of CHUNK_ROWS rows, and SHA-256 over those digests in order. Both engines order the same way: SQLite by
 * BINARY collation, PostgreSQL by `COLLATE "C"` (byte order of UTF-8, whatever the database's locale) with NULLs
 * first. platform.db's side is computed here, row by row; PostgreSQL computes its side itself (`postgresDigest`: one
 * SQL statement per table, answering a digest per chunk), so the verification does not carry the rows to this process.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import type { SqliteDb } from './sqlite.ts';

export interface Column {
  name: string;
  /** PostgreSQL's `data_type` of the column on the target (`text`, `bigint`, `bytea`, `double precision`…). */
  pgType: string;
}

export interface Table {
  name: string;
  columns: Column[];
  /** The primary key's columns, in key order; empty for a table without one (then ordered by every column). */
  key: string[];
  /** Tables this one references (foreign keys), itself excluded. */
  references: string[];
  /** The column PostgreSQL assigns (an identity), whose sequence must end past the copied values; or null. */
  identity: string | null;
}

export interface Digest {
  rows: number;
  /** The values' size: text and blob bytes, 8 per number. */
  bytes: number;
  /** SHA-256, hex. */
  checksum: string;
}

export const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** platform.db's tables to move: every table but SQLite's own and the migrations' record (the target keeps its own). */
export function sqliteTables(db: SqliteDb): Array<{ name: string; columns: string[]; key: string[]; references: string[] }> {
  const names = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> 'schema_migrations' ORDER BY name")
    .pluck()
    .all() as string[];
  return names.map((name) => {
    const info = db.prepare(`PRAGMA table_info(${q(name)})`).all() as Array<{ name: string; pk: number }>;
    const fks = db.prepare(`PRAGMA foreign_key_list(${q(name)})`).all() as Array<{ table: string }>;
    return {
      name,
      columns: info.map((c) => c.name),
      key: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      references: [...new Set(fks.map((f) => f.table))].filter((t) => t !== name),
    };
  });
}

/** Tables in an order where each comes after those it references; a cycle is an error (it cannot be copied in order). */
export function dependencyOrder<T extends { name: string; references: string[] }>(tables: T[]): T[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const out: T[] = [];
  const visit = (t: T, path: string[]) => {
    if (done.has(t.name)) return;
    if (visiting.has(t.name)) throw new Error(`the foreign keys between ${[...path, t.name].join(' → ')} form a cycle`);
    visiting.add(t.name);
    for (const r of t.references) {
      const ref = byName.get(r);
      if (ref) visit(ref, [...path, t.name]);
    }
    visiting.delete(t.name);
    done.add(t.name);
    out.push(t);
  };
  for (const t of tables) visit(t, []);
  return out;
}

/** The target's tables (current schema): columns with their types, and identity (or serial) columns. */
export async function postgresColumns(client: pg.ClientBase): Promise<Map<string, { columns: Map<string, string>; identity: string | null }>> {
  const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_identity: string; column_default: string | null }>(
    `SELECT table_name, column_name, data_type, is_identity, column_default FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const out = new Map<string, { columns: Map<string, string>; identity: string | null }>();
  for (const r of rows) {
    let t = out.get(r.table_name);
    if (!t) {
      t = { columns: new Map(), identity: null };
      out.set(r.table_name, t);
    }
    t.columns.set(r.column_name, r.data_type);
    if (r.is_identity === 'YES' || r.column_default?.startsWith('nextval(')) t.identity = r.column_name;
  }
  return out;
}

/** ORDER BY for SQLite: the key (or every column), BINARY collation whatever the column declares. */
export function sqliteOrder(t: Table): string {
  return (t.key.length ? t.key : t.columns.map((c) => c.name)).map((c) => `${q(c)} COLLATE BINARY`).join(', ');
}

/** ORDER BY for PostgreSQL, the same order as `sqliteOrder`: text by bytes, NULLs first. */
export function postgresOrder(t: Table): string {
  const cols = t.key.length ? t.key : t.columns.map((c) => c.name);
  const type = new Map(t.columns.map((c) => [c.name, c.pgType]));
  return cols.map((c) => `${q(c)}${/^(text|character)/.test(type.get(c) ?? '') ? ' COLLATE "C"' : ''} NULLS FIRST`).join(', ');
}

/** Rows per chunk of a checksum (see the header): a chunk's rows are one value in PostgreSQL's memory. */
export const CHUNK_ROWS = 10_000;

/** A running checksum over rows (see the header). */
export class RowHasher {
  private readonly outer = crypto.createHash('sha256');
  private chunk = crypto.createHash('sha256');
  private inChunk = 0;
  rows = 0;
  bytes = 0;
  add(row: readonly unknown[]): void {
    let s = '';
    const h = this.chunk;
    for (const v of row) {
      if (v === null || v === undefined) s += 'n';
      else if (typeof v === 'bigint') {
        s += `i${v};`;
        this.bytes += 8;
      } else if (typeof v === 'string') {
        const n = Buffer.byteLength(v);
        s += `t${n}:${v}`;
        this.bytes += n;
      } else if (typeof v === 'number' || v instanceof Uint8Array) {
        h.update(s);
        s = '';
        if (typeof v === 'number') {
          const b = Buffer.allocUnsafe(9);
          b.write('r');
          b.writeDoubleBE(v, 1);
          h.update(b);
          this.bytes += 8;
        } else {
          h.update(`b${v.byteLength}:`);
          h.update(v);
          this.bytes += v.byteLength;
        }
      } else throw new Error(`a value of type ${typeof v} cannot be checksummed`);
    }
    h.update(`${s}\n`);
    this.rows++;
    if (++this.inChunk === CHUNK_ROWS) this.endChunk();
  }
  private endChunk(): void {
    this.outer.update(this.chunk.digest());
    this.chunk = crypto.createHash('sha256');
    this.inChunk = 0;
  }
  digest(): Digest {
    if (this.inChunk > 0) this.endChunk();
    return { rows: this.rows, bytes: this.bytes, checksum: this.outer.digest('hex') };
  }
}

/** A value as a PostgreSQL parameter: integers as their decimal text (exact), -0 as '-0' (pg would send 0), the rest as they are. */
export const toParam = (v: unknown) => (typeof v === 'bigint' ? v.toString() : Object.is(v, -0) ? '-0' : v);

/** PostgreSQL allows 65535 parameters per statement. */
export const rowsPerStatement = (columns: number, batch: number) => Math.max(1, Math.min(batch, Math.floor(65_000 / Math.max(1, columns))));

/** `INSERT INTO t (…) VALUES (…), …` for `rows` rows; with `upsert`, rows already there (by key) are updated when they differ. */
export function insertSql(t: Table, rows: number, upsert: boolean): string {
  const cols = t.columns.map((c) => q(c.name));
  const n = cols.length;
  const values = Array.from({ length: rows }, (_, r) => `(${cols.map((_, i) => `$${r * n + i + 1}`).join(', ')})`).join(', ');
  let sql = `INSERT INTO ${q(t.name)} (${cols.join(', ')}) VALUES ${values}`;
  if (upsert) {
    const rest = t.columns.map((c) => c.name).filter((c) => !t.key.includes(c));
    sql += ` ON CONFLICT (${t.key.map(q).join(', ')}) DO `;
    sql += rest.length
      ? `UPDATE SET ${rest.map((c) => `${q(c)} = EXCLUDED.${q(c)}`).join(', ')} WHERE (${rest.map((c) => `${q(t.name)}.${q(c)}`).join(', ')}) IS DISTINCT FROM (${rest.map((c) => `EXCLUDED.${q(c)}`).join(', ')})`
      : 'NOTHING';
  }
  return sql;
}

/**
 * Reads a PostgreSQL query's rows as arrays in batches through a cursor (inside the caller's transaction on `client`).
 * When the rows are expected to fit one batch (`expected`, e.g. the source's count), one plain query instead: a round
 * trip per table, not three, which is most of the verification's time in the pause.
 */
export async function* postgresRows(client: pg.ClientBase, sql: string, batch: number, expected?: number): AsyncGenerator<unknown[][]> {
  if (expected !== undefined && expected < batch) {
    const { rows } = await client.query<unknown[]>({ text: sql, rowMode: 'array' });
    if (rows.length) yield rows;
    return;
  }
  const cursor = `hearth_migrate_${crypto.randomBytes(4).toString('hex')}`;
  await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`);
  try {
    for (;;) {
      const { rows } = await client.query<unknown[]>({ text: `FETCH FORWARD ${batch} FROM ${cursor}`, rowMode: 'array' });
      if (rows.length) yield rows;
      if (rows.length < batch) return;
    }
  } finally {
    await client.query(`CLOSE ${cursor}`).catch(() => {});
  }
}

/** A column's value as its checksum bytes (see the header), and its size, in PostgreSQL's SQL. */
function encodeColumn(c: Column): { value: string; size: string } {
  const n = q(c.name);
  if (/^(bigint|integer|smallint)$/.test(c.pgType))
    return { value: `convert_to('i' || ${n}::text || ';', 'UTF8')`, size: `CASE WHEN ${n} IS NULL THEN 0 ELSE 8 END` };
  if (/^(double precision|real)$/.test(c.pgType))
    return { value: `'\\x72'::bytea || float8send(${n}::float8)`, size: `CASE WHEN ${n} IS NULL THEN 0 ELSE 8 END` };
  if (c.pgType === 'bytea') return { value: `convert_to('b' || length(${n}) || ':', 'UTF8') || ${n}`, size: `coalesce(length(${n}), 0)` };
  return { value: `convert_to('t' || octet_length(${n}::text) || ':' || ${n}::text, 'UTF8')`, size: `coalesce(octet_length(${n}::text), 0)` };
}

/**
 * The checksum of a table on PostgreSQL (inside the caller's transaction on `client`), computed by PostgreSQL: the
 * rows encoded and digested per chunk in SQL, the chunks' digests combined here. The database must be UTF-8.
 */
export async function postgresDigest(client: pg.ClientBase, t: Table): Promise<Digest> {
  const cols = t.columns.map(encodeColumn);
  const row = `${cols.map((c) => `coalesce(${c.value}, '\\x6e'::bytea)`).join(' || ')} || '\\x0a'::bytea`;
  const size = cols.map((c) => c.size).join(' + ');
  const { rows } = await client.query<{ d: Buffer; n: bigint; b: string }>(
    `SELECT sha256(string_agg(r, ''::bytea ORDER BY i)) AS d, count(*) AS n, sum(b) AS b
     FROM (SELECT ${row} AS r, ${size} AS b, row_number() OVER (ORDER BY ${postgresOrder(t)}) - 1 AS i FROM ${q(t.name)}) s
     GROUP BY i / ${CHUNK_ROWS} ORDER BY i / ${CHUNK_ROWS}`,
  );
  const outer = crypto.createHash('sha256');
  for (const r of rows) outer.update(r.d);
  return { rows: rows.reduce((a, r) => a + Number(r.n), 0), bytes: rows.reduce((a, r) => a + Number(r.b), 0), checksum: outer.digest('hex') };
}

/** The checksum of a table on SQLite (inside the caller's read or write transaction on `db`). */
export function sqliteDigest(db: SqliteDb, t: Table): Digest {
  const h = new RowHasher();
  for (const r of sqliteSelect(db, t).iterate()) h.add(r as unknown[]);
  return h.digest();
}

/** The statement reading a table's rows as arrays of exact values, in checksum order. */
export function sqliteSelect(db: SqliteDb, t: Table) {
  return db
    .prepare(`SELECT ${t.columns.map((c) => q(c.name)).join(', ')} FROM ${q(t.name)} ORDER BY ${sqliteOrder(t)}`)
    .safeIntegers(true)
    .raw(true);
}
