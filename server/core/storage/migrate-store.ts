/**
 * Moves an installation's core store (every table of platform.db) into an empty PostgreSQL database, while the server
 * may still run on the folder (`hearth migrate-store`; docs/operations/replicas.md). Core knows no domain:
 * the tables come from platform.db's schema (migrate-tables.ts), the migrations from the caller (boot's list).
 *
 * 1. Schema: every migration must have its PostgreSQL form and platform.db must have applied exactly these
 *    migrations; the target must hold no table (or, with `resume`, Hearth's own schema); `migratePostgres` creates
 *    the schema there as a server would.
 * 2. Online copy: one read transaction on platform.db (WAL: it sees one moment, and the server's writes go on) copies
 *    every table in foreign-key order, in batches, one PostgreSQL transaction per table, computing each table's
 *    checksum on the way (migrate-tables.ts). Identity sequences are set past the copied ids (and past SQLite's
 *    AUTOINCREMENT high-water mark, so ids are never reused).
 * 3. Catch-up, still online: the tables whose checksum moved since the snapshot are brought up to date (a row diff by
 *    primary key: deletes children first, then inserts and updates parents first, in one PostgreSQL transaction).
 * 4. The tail: `BEGIN IMMEDIATE` on platform.db takes its write lock (a running server's writes wait, up to its
 *    busy_timeout of 5 s); the tables changed since step 3 are brought up to date the same way; then every table is
 *    verified — row count and checksum on both sides, PostgreSQL's computed by PostgreSQL — and only then is the lock
 *    released. The pause is measured. Run this in a process of its own: a server in the same process would wait for
 *    the lock on the very thread that has to release it (better-sqlite3 waits synchronously).
 * With `resume` the target's own checksums stand for the snapshot: steps 3 and 4 make it equal to platform.db (for
 * the switch: the server stopped, what it wrote since the first run copied over).
 * A mismatch, or any failure once the schema exists, leaves the target to be dropped (MigrateStoreError says so).
 * Target triggers (user triggers, e.g. mail's settled trigger) are disabled inside the copying transactions: the rows
 * arrive as they are, and what the source's triggers wrote is copied as it is.
 *
 * One file because it is one procedure: the functions below are its steps in the order above, sharing the plan of
 * tables and the digests; what stands alone (reading the tables and checksums) is already in migrate-tables.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  type Digest,
  dependencyOrder,
  insertSql,
  postgresColumns,
  postgresDigest,
  postgresRows,
  q,
  RowHasher,
  rowsPerStatement,
  sqliteDigest,
  sqliteSelect,
  sqliteTables,
  type Table,
  toParam,
} from './migrate-tables.ts';
import { type Migration, MigrationError } from './platform-db.ts';
import { migratePostgres, postgresStore } from './postgres-store.ts';
import { Database, type SqliteDb } from './sqlite.ts';

export type MigrateStoreErrorCode =
  | 'no_postgres_form'
  | 'no_platform_db'
  | 'schema_mismatch'
  | 'target_not_empty'
  | 'target_unreachable'
  | 'copy_failed'
  | 'verify_failed';

export class MigrateStoreError extends Error {
  readonly code: MigrateStoreErrorCode;
  constructor(code: MigrateStoreErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export type MigrateProgress =
  | { phase: 'schema'; applied: number }
  | { phase: 'copy'; table: string; index: number; tables: number; tableRows: number; copied: number; totalRows: number; done: boolean }
  | { phase: 'catch-up'; changed: string[] }
  | { phase: 'pause'; step: 'locked' | 'compared' | 'recopied' | 'verified'; changed?: string[]; ms: number };

export interface MigrateStoreOptions {
  /** The data folder holding platform.db. */
  dataDir: string;
  /** The target: `postgres://user:password@host:port/database`. */
  url: string;
  /** Every domain's migrations in boot order (each with its PostgreSQL form). */
  migrations: Migration[];
  /** Bring a target that already holds this copy up to date instead of refusing it (after an earlier run). */
  resume?: boolean;
  /** Rows per read and per insert (default 1000). */
  batchRows?: number;
  /** How long to wait for platform.db's write lock (default 30 s). */
  lockTimeoutMs?: number;
  onProgress?: (p: MigrateProgress) => void;
  /** Tests: runs during the pause, after the tail's re-copy and before the verification (e.g. to change a target row). */
  beforeVerify?: (target: pg.Pool) => Promise<void>;
  /** Tests: runs after the online copy, before the catch-up (e.g. to write through a running server). */
  afterCopy?: () => Promise<void>;
}

export interface TableReport extends Digest {
  name: string;
  /** Brought up to date after the online copy (catch-up or tail). */
  recopied: boolean;
}

export interface MigrateStoreResult {
  tables: TableReport[];
  rows: number;
  bytes: number;
  /** Migrations applied on the target now. */
  migrationsApplied: number;
  copyMs: number;
  /** How long platform.db's writes were held (the tail). */
  pauseMs: number;
  /** How long the tail waited for the write lock. */
  lockWaitMs: number;
  /** Tables changed during the online copy (caught up online) and during the catch-up (in the pause). */
  caughtUp: string[];
  changedInPause: string[];
}

const INT_OIDS = [20, 21, 23]; // int8, int2, int4: read as BigInt, like SQLite's integers under safeIntegers

/** Moves platform.db of `dataDir` into the PostgreSQL database at `url` (see the header). */
export async function migrateStore(opts: MigrateStoreOptions): Promise<MigrateStoreResult> {
  const missing = opts.migrations.filter((m) => m.pg === undefined).map((m) => m.id);
  if (missing.length) {
    throw new MigrateStoreError(
      'no_postgres_form',
      `these migrations have no PostgreSQL form yet, so this Hearth cannot keep its core store on PostgreSQL: ${missing.join(', ')}`,
    );
  }
  const file = path.join(opts.dataDir, 'platform.db');
  if (!fs.existsSync(file)) throw new MigrateStoreError('no_platform_db', `no platform.db in ${opts.dataDir}: is it a Hearth data folder?`);
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${opts.lockTimeoutMs ?? 30_000}`);
    checkSourceMigrations(db, opts.migrations);
    return await withTarget(opts, (pool, client) => run(opts, db, pool, client));
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  }
}

/** platform.db must have applied exactly the caller's migrations (same schema on both sides). */
function checkSourceMigrations(db: SqliteDb, migrations: Migration[]): void {
  if ((db.pragma('journal_mode', { simple: true }) as string) !== 'wal') {
    throw new MigrateStoreError('schema_mismatch', 'platform.db is not in WAL mode: start this Hearth on the folder once, then try again');
  }
  const applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as string[]);
  const known = migrations.map((m) => m.id);
  const newer = [...applied].filter((id) => !known.includes(id));
  if (newer.length) throw new MigrateStoreError('schema_mismatch', `platform.db was written by a newer Hearth (unknown migrations: ${newer.join(', ')})`);
  const older = known.filter((id) => !applied.has(id));
  if (older.length) {
    throw new MigrateStoreError(
      'schema_mismatch',
      `platform.db has not applied ${older.join(', ')}: start this Hearth's server on the folder once (it migrates), then try again`,
    );
  }
}

async function withTarget<T>(opts: MigrateStoreOptions, fn: (pool: pg.Pool, client: pg.PoolClient) => Promise<T>): Promise<T> {
  const types = {
    getTypeParser: ((oid: number, format?: string) =>
      INT_OIDS.includes(oid) ? (v: string) => BigInt(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString: opts.url, max: 3, application_name: 'hearth migrate-store', types });
  pool.on('error', () => {});
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end();
    throw new MigrateStoreError('target_unreachable', `cannot connect to the target PostgreSQL: ${(err as Error).message}`);
  }
  try {
    return await fn(pool, client);
  } finally {
    client.release();
    await pool.end();
  }
}

async function run(opts: MigrateStoreOptions, db: SqliteDb, pool: pg.Pool, client: pg.PoolClient): Promise<MigrateStoreResult> {
  const progress = opts.onProgress ?? (() => {});
  const batch = opts.batchRows ?? 1000;
  const started = performance.now();

  // 1. The target: UTF-8 (SQLite's text is), empty (or, resuming, Hearth's), then the schema.
  const encoding = (await client.query<{ server_encoding: string }>('SHOW server_encoding')).rows[0]?.server_encoding;
  if (encoding !== 'UTF8') {
    throw new MigrateStoreError(
      'schema_mismatch',
      `the target database's encoding is ${encoding}: create it with ENCODING 'UTF8' (platform.db's text is UTF-8)`,
    );
  }
  const existing = (await client.query<{ t: string }>('SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema()')).rows.map(
    (r) => r.t,
  );
  const resuming = existing.length > 0;
  if (resuming && !(opts.resume && existing.includes('schema_migrations'))) {
    const what = existing.includes('schema_migrations')
      ? 'Hearth data'
      : `other tables (${existing.slice(0, 5).join(', ')}${existing.length > 5 ? ', …' : ''})`;
    throw new MigrateStoreError(
      'target_not_empty',
      `the target database already holds ${what}: give an empty database (CREATE DATABASE …)${existing.includes('schema_migrations') ? ', or --resume to bring an earlier copy up to date' : ''}`,
    );
  }
  const leftover = 'the target holds a partial copy: drop it (DROP DATABASE …) and create it anew before trying again';
  const store = postgresStore({ url: opts.url, max: 1, applicationName: 'hearth migrate-store' });
  let applied: string[];
  try {
    applied = await migratePostgres(store, opts.migrations);
  } catch (err) {
    // One transaction: a failed migration leaves the target as it was.
    if (err instanceof MigrationError) throw new MigrateStoreError('schema_mismatch', err.message);
    throw new MigrateStoreError('copy_failed', `creating the schema on the target failed: ${(err as Error).message}`);
  } finally {
    await store.close();
  }
  progress({ phase: 'schema', applied: applied.length });

  const tables = plan(db, await postgresColumns(client));
  const known = new Map<string, Digest>();
  const recopied = new Set<string>();
  try {
    // 2. The online copy (or, resuming, what the target holds).
    db.exec('BEGIN');
    const counts = tables.map((t) =>
      Number(
        db
          .prepare(`SELECT count(*) FROM ${q(t.name)}`)
          .pluck()
          .get(),
      ),
    );
    const totalRows = counts.reduce((a, b) => a + b, 0);
    if (resuming) {
      await readTx(client, async () => {
        for (const t of tables) known.set(t.name, await postgresDigest(client, t));
      });
    } else {
      // Rows the migrations seeded (settings) give way to platform.db's: emptied children first.
      await writeTx(client, [], async () => {
        for (const t of [...tables].reverse()) await client.query(`DELETE FROM ${q(t.name)}`);
      });
      let copied = 0;
      for (const [index, t] of tables.entries()) {
        const base = { phase: 'copy' as const, table: t.name, index, tables: tables.length, tableRows: counts[index]!, totalRows };
        progress({ ...base, copied, done: false });
        await writeTx(client, [t], async () => {
          const h = new RowHasher();
          await insertRows(client, t, sqliteSelect(db, t).iterate() as Iterable<unknown[]>, false, batch, (r) => {
            h.add(r);
            copied++;
          });
          known.set(t.name, h.digest());
        });
        progress({ ...base, copied, done: true });
      }
      await writeTx(client, [], () => setSequences(db, client, tables));
    }
    db.exec('COMMIT');
    const copyMs = performance.now() - started;
    await opts.afterCopy?.();

    // 3. Catch-up, online.
    db.exec('BEGIN');
    const caughtUp = await catchUp(db, client, tables, known, batch);
    db.exec('COMMIT');
    for (const n of caughtUp) recopied.add(n);
    progress({ phase: 'catch-up', changed: caughtUp });

    // 4. The tail, under platform.db's write lock.
    const waitStart = performance.now();
    db.exec('BEGIN IMMEDIATE');
    const pauseStart = performance.now();
    const lockWaitMs = pauseStart - waitStart;
    const since = () => performance.now() - pauseStart;
    let mismatches: string[];
    let changedInPause: string[];
    try {
      progress({ phase: 'pause', step: 'locked', ms: 0 });
      changedInPause = await catchUp(db, client, tables, known, batch, (changed) => progress({ phase: 'pause', step: 'compared', changed, ms: since() }));
      for (const n of changedInPause) recopied.add(n);
      progress({ phase: 'pause', step: 'recopied', changed: changedInPause, ms: since() });
      await opts.beforeVerify?.(pool);
      mismatches = await verify(client, tables, known);
      progress({ phase: 'pause', step: 'verified', ms: since() });
    } finally {
      db.exec('ROLLBACK'); // nothing was written: this releases the lock
    }
    const pauseMs = since();
    if (mismatches.length) throw new MigrateStoreError('verify_failed', `the copy does not match platform.db: ${mismatches.join('; ')}; ${leftover}`);
    const reports = tables.map((t) => ({ name: t.name, ...known.get(t.name)!, recopied: recopied.has(t.name) }));
    return {
      tables: reports,
      rows: reports.reduce((a, r) => a + r.rows, 0),
      bytes: reports.reduce((a, r) => a + r.bytes, 0),
      migrationsApplied: applied.length,
      copyMs,
      pauseMs,
      lockWaitMs,
      caughtUp,
      changedInPause,
    };
  } catch (err) {
    if (err instanceof MigrateStoreError) throw err;
    throw new MigrateStoreError('copy_failed', `${(err as Error).message}; ${leftover}`);
  }
}

/** platform.db's tables with the target's column types, in foreign-key order; a table or column missing there is an error. */
function plan(db: SqliteDb, target: Awaited<ReturnType<typeof postgresColumns>>): Table[] {
  const problems: string[] = [];
  const tables = sqliteTables(db).map((s): Table => {
    const pgt = target.get(s.name);
    if (!pgt) problems.push(`table ${s.name} is missing on the target`);
    const absent = pgt ? s.columns.filter((c) => !pgt.columns.has(c)) : [];
    const extra = pgt ? [...pgt.columns.keys()].filter((c) => !s.columns.includes(c)) : [];
    if (absent.length || extra.length)
      problems.push(`table ${s.name} differs: ${[...absent.map((c) => `${c} missing`), ...extra.map((c) => `${c} extra`)].join(', ')}`);
    return { ...s, columns: s.columns.map((name) => ({ name, pgType: pgt?.columns.get(name) ?? 'text' })), identity: pgt?.identity ?? null };
  });
  if (problems.length) throw new MigrateStoreError('schema_mismatch', `the target's schema does not match platform.db: ${problems.join('; ')}`);
  return dependencyOrder(tables);
}

/** Runs `fn` in a PostgreSQL transaction with the user triggers of `tables` off (ALTER TABLE is transactional). */
async function writeTx(client: pg.PoolClient, tables: Table[], fn: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    for (const t of tables) await client.query(`ALTER TABLE ${q(t.name)} DISABLE TRIGGER USER`);
    await fn();
    for (const t of tables) await client.query(`ALTER TABLE ${q(t.name)} ENABLE TRIGGER USER`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}

/** Runs `fn` in a read-only snapshot of the target. */
async function readTx(client: pg.PoolClient, fn: () => Promise<void>): Promise<void> {
  await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  try {
    await fn();
  } finally {
    await client.query('ROLLBACK');
  }
}

/** Inserts (or upserts) `rows` in statements of up to `batch` rows, calling `each` for every row first. */
async function insertRows(
  client: pg.PoolClient,
  t: Table,
  rows: Iterable<unknown[]>,
  upsert: boolean,
  batch: number,
  each?: (r: unknown[]) => void,
): Promise<void> {
  const per = rowsPerStatement(t.columns.length, batch);
  let pending: unknown[][] = [];
  const flush = async () => {
    if (!pending.length) return;
    await client.query(insertSql(t, pending.length, upsert), pending.flat().map(toParam));
    pending = [];
  };
  for (const r of rows) {
    each?.(r);
    pending.push(r);
    if (pending.length >= per) await flush();
  }
  await flush();
}

/** Sets every identity sequence past its column's largest copied value and SQLite's AUTOINCREMENT high-water mark. */
async function setSequences(db: SqliteDb, client: pg.PoolClient, tables: Table[]): Promise<void> {
  const hasSeq = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_sequence'").get() !== undefined;
  const seqs = new Map<string, bigint>(
    hasSeq ? (db.prepare('SELECT name, seq FROM sqlite_sequence').safeIntegers(true).raw(true).all() as Array<[string, bigint]>) : [],
  );
  for (const t of tables) {
    if (!t.identity) continue;
    const max = (await client.query<{ m: bigint | null }>(`SELECT max(${q(t.identity)}) AS m FROM ${q(t.name)}`)).rows[0]?.m ?? 0n;
    const high = [max, seqs.get(t.name) ?? 0n].reduce((a, b) => (b > a ? b : a));
    await client.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)', [q(t.name), t.identity, high > 0n ? high.toString() : '1', high > 0n]);
  }
}

/** A key's values as one string (same on both engines: integers as BigInt, blobs as hex). */
const keyString = (values: readonly unknown[]) =>
  values.map((v) => (v === null ? 'n' : v instanceof Uint8Array ? `b${Buffer.from(v).toString('hex')}` : `${typeof v}:${String(v)}`)).join('\u0000');

/**
 * Brings the target's tables whose platform.db checksum differs from `known` up to date (inside the caller's read or
 * write transaction on `db`), in one PostgreSQL transaction: rows gone from platform.db deleted (children first), rows
 * new or changed inserted or updated (parents first). Updates `known` and answers the tables brought up to date.
 */
async function catchUp(
  db: SqliteDb,
  client: pg.PoolClient,
  tables: Table[],
  known: Map<string, Digest>,
  batch: number,
  compared?: (changed: string[]) => void,
): Promise<string[]> {
  const now = new Map(tables.map((t) => [t.name, sqliteDigest(db, t)]));
  const changed = tables.filter((t) => now.get(t.name)!.checksum !== known.get(t.name)!.checksum);
  compared?.(changed.map((t) => t.name));
  if (!changed.length) return [];
  // What differs, table by table: read before writing, so that the deletes can run children first.
  const diffs = new Map<string, { gone: unknown[][]; upsert: unknown[][]; all: boolean }>();
  await readTx(client, async () => {
    for (const t of changed) diffs.set(t.name, await diffTable(db, client, t, batch, known.get(t.name)!.rows));
  });
  await writeTx(client, changed, async () => {
    for (const t of [...changed].reverse()) {
      const d = diffs.get(t.name)!;
      if (d.all) await client.query(`DELETE FROM ${q(t.name)}`);
      const per = rowsPerStatement(t.key.length, batch);
      for (let i = 0; i < d.gone.length; i += per) {
        const keys = d.gone.slice(i, i + per);
        const tuples = keys.map((_, r) => `(${t.key.map((_, c) => `$${r * t.key.length + c + 1}`).join(', ')})`).join(', ');
        await client.query(`DELETE FROM ${q(t.name)} WHERE (${t.key.map(q).join(', ')}) IN (${tuples})`, keys.flat().map(toParam));
      }
    }
    for (const t of changed) {
      const d = diffs.get(t.name)!;
      await insertRows(client, t, d.upsert, !d.all, batch);
    }
    await setSequences(db, client, tables);
  });
  for (const t of changed) known.set(t.name, now.get(t.name)!);
  return changed.map((t) => t.name);
}

/**
 * The rows of `t` that differ between platform.db and the target: by primary key, the keys gone and the rows new or
 * changed. A table without a primary key is replaced whole (`all`).
 */
async function diffTable(db: SqliteDb, client: pg.PoolClient, t: Table, batch: number, targetRows: number) {
  const source = sqliteSelect(db, t).all() as unknown[][];
  if (!t.key.length) return { gone: [], upsert: source, all: true };
  const keyAt = t.key.map((k) => t.columns.findIndex((c) => c.name === k));
  const target = new Map<string, { digest: string; key: unknown[] }>();
  const sql = `SELECT ${t.columns.map((c) => q(c.name)).join(', ')} FROM ${q(t.name)}`;
  for await (const rows of postgresRows(client, sql, batch, targetRows)) {
    for (const r of rows) {
      const key = keyAt.map((i) => r[i]);
      target.set(keyString(key), { digest: rowDigest(r), key });
    }
  }
  const upsert: unknown[][] = [];
  for (const r of source) {
    const k = keyString(keyAt.map((i) => r[i]));
    if (target.get(k)?.digest !== rowDigest(r)) upsert.push(r);
    target.delete(k);
  }
  return { gone: [...target.values()].map((v) => v.key), upsert, all: false };
}

const rowDigest = (r: readonly unknown[]) => {
  const h = new RowHasher();
  h.add(r);
  return h.digest().checksum;
};

/** Every table's row count and checksum on the target against platform.db's (`known`, current under the lock). */
async function verify(client: pg.PoolClient, tables: Table[], known: Map<string, Digest>): Promise<string[]> {
  const problems: string[] = [];
  await readTx(client, async () => {
    for (const t of tables) {
      const want = known.get(t.name)!;
      const got = await postgresDigest(client, t);
      if (got.rows !== want.rows) problems.push(`${t.name}: ${got.rows} rows on PostgreSQL, ${want.rows} in platform.db`);
      else if (got.checksum !== want.checksum) problems.push(`${t.name}: checksums differ (${got.checksum.slice(0, 12)}… ≠ ${want.checksum.slice(0, 12)}…)`);
    }
  });
  return problems;
}
