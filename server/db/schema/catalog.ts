import type Database from 'better-sqlite3';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import { type ColumnDef, type ColumnInfo, type ColumnType, typeFromDeclared } from './types.ts';

type Db = Database.Database;

export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const SYSTEM_COLUMNS = ['id', 'created_at', 'updated_at'] as const;
export const FTS_INDEX_NAME = 'fts';

/** Quotes an identifier that has already been checked against IDENTIFIER (or read from the schema). */
export const q = (id: string) => `"${id.replace(/"/g, '""')}"`;

export function checkUserIdentifier(name: unknown, what: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new HearthError(
      'invalid_identifier',
      `${what} ${quoteInput(name)} is not a valid identifier: use letters, digits and underscores, starting with a letter (at most 63 characters)`,
    );
  }
  if (name.startsWith('_') || (SYSTEM_COLUMNS as readonly string[]).includes(name) || name === '_meta' || /^sqlite_/i.test(name)) {
    throw new HearthError(
      'reserved_name',
      `${what} ${quoteInput(name)} is reserved: id, created_at, updated_at, _meta, names starting with "_" and names starting with "sqlite_" belong to the service`,
    );
  }
  return name;
}

export const CATALOG_DDL = `
CREATE TABLE IF NOT EXISTS _hearth_objects (
  name TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  columns TEXT,
  metadata TEXT NOT NULL DEFAULT '{}',
  fts TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS _hearth_changelog (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp TEXT NOT NULL,
  action TEXT NOT NULL,
  "table" TEXT NOT NULL,
  detail TEXT NOT NULL,
  _meta TEXT
);
CREATE INDEX IF NOT EXISTS _hearth_changelog_table ON _hearth_changelog ("table", id);
`;

export interface IndexInfo {
  name: string;
  type: 'index' | 'unique' | 'fts';
  columns: string[];
}

export interface TableInfo {
  name: string;
  type: 'table' | 'view';
  /** Hearth created it (system columns maintained) or it came with an imported file. */
  managed: boolean;
  columns: ColumnInfo[];
  byName: Map<string, ColumnInfo>;
  metadata: Record<string, unknown>;
  fts: string[] | null;
  sql: string | null;
  hasId: boolean;
  /** A table with virtual generated columns: their expressions run on every read of a row. */
  computed: boolean;
}

interface CacheEntry {
  version: number;
  /** When schema_version was last read (ms). */
  checkedAt: number;
  tables: Map<string, TableInfo>;
}

/**
 * How long a cached description is trusted without re-reading `schema_version`. Hearth's own schema changes
 * invalidate the cache at once (`invalidate`); this window only bounds how late a change made by another tool
 * on the same file is noticed. Reading the version costs a read transaction, which dominated small requests.
 */
const RECHECK_MS = 250;
const cache = new WeakMap<Db, CacheEntry>();

/** One prepared `PRAGMA schema_version` per connection: `db.pragma()` prepares a new statement on every call. */
const versionStatements = new WeakMap<Db, Database.Statement>();
function schemaVersion(db: Db): number {
  let s = versionStatements.get(db);
  if (!s) versionStatements.set(db, (s = db.prepare('PRAGMA schema_version').pluck()));
  return s.get() as number;
}

/** Forgets what is cached for a connection (after a catalog write that leaves schema_version unchanged). */
export function invalidate(db: Db): void {
  cache.delete(db);
}

export function hasCatalog(db: Db): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_hearth_objects'").get() !== undefined;
}

/** Describes a user table or view (cached per connection until the schema changes); null when absent. */
export function describe(db: Db, name: string): TableInfo | null {
  let entry = cache.get(db);
  const now = Date.now();
  if (!entry || now - entry.checkedAt >= RECHECK_MS) {
    const version = schemaVersion(db);
    if (!entry || entry.version !== version) {
      entry = { version, checkedAt: now, tables: new Map() };
      cache.set(db, entry);
    } else entry.checkedAt = now;
  }
  const cached = entry.tables.get(name);
  if (cached) return cached;
  const info = load(db, name);
  // Absent names are not remembered: a table created by another tool shows up at once.
  if (info) entry.tables.set(name, info);
  return info;
}

export function requireObject(db: Db, name: string): TableInfo {
  const info = typeof name === 'string' && !name.startsWith('_') && !/^sqlite_/i.test(name) ? describe(db, name) : null;
  if (!info) throw new HearthError('table_not_found', `table or view ${quoteInput(name)} does not exist`);
  return info;
}

function load(db: Db, name: string): TableInfo | null {
  const obj = db.prepare("SELECT type, sql FROM sqlite_schema WHERE name = ? AND type IN ('table', 'view')").get(name) as
    | { type: 'table' | 'view'; sql: string }
    | undefined;
  if (!obj) return null;
  const meta = hasCatalog(db)
    ? (db.prepare('SELECT * FROM _hearth_objects WHERE name = ?').get(name) as { columns: string | null; metadata: string; fts: string | null } | undefined)
    : undefined;
  let xinfo: Array<{ name: string; type: string; nn: number; pk: number }>;
  try {
    xinfo = db.prepare(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_xinfo(?) WHERE hidden = 0`).all(name) as typeof xinfo;
  } catch {
    xinfo = []; // a view whose tables or columns are gone: listed, droppable, not readable
  }
  let columns: ColumnInfo[];
  if (meta?.columns) {
    const defs = JSON.parse(meta.columns) as ColumnDef[];
    columns = [
      { name: 'id', type: 'integer', not_null: true, unique: true, system: true },
      ...defs,
      { name: 'created_at', type: 'datetime', not_null: true, system: true },
      { name: 'updated_at', type: 'datetime', not_null: true, system: true },
    ];
  } else {
    const viewTypes = obj.type === 'view' ? viewColumnTypes(db, name) : new Map<string, ColumnType>();
    columns = xinfo.map((c) => ({
      name: c.name,
      type: viewTypes.get(c.name) ?? typeFromDeclared(c.type),
      not_null: c.nn === 1 || undefined,
    }));
  }
  const managed = Boolean(meta?.columns);
  return {
    name,
    type: obj.type,
    managed,
    columns,
    byName: new Map(columns.map((c) => [c.name, c])),
    metadata: meta ? (JSON.parse(meta.metadata) as Record<string, unknown>) : {},
    fts: meta?.fts ? (JSON.parse(meta.fts) as string[]) : null,
    sql: obj.type === 'view' ? viewSelect(obj.sql) : null,
    hasId: managed || xinfo.some((c) => c.name === 'id' && c.pk === 1),
    computed: obj.type === 'table' && db.prepare('SELECT 1 FROM pragma_table_xinfo(?) WHERE hidden = 2').get(name) !== undefined,
  };
}

/** The SELECT of a `CREATE VIEW name AS SELECT …` statement. */
export function viewSelect(createSql: string): string {
  return createSql.replace(
    /^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?VIEW\s+(IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|[^\s(]+)\s*(\([^)]*\)\s*)?AS\s+/i,
    '',
  );
}

/** A view's columns keep the types of the table columns they come from, when Hearth can tell. */
function viewColumnTypes(db: Db, view: string): Map<string, ColumnType> {
  const out = new Map<string, ColumnType>();
  try {
    const stmt = db.prepare(`SELECT * FROM ${q(view)}`);
    for (const c of stmt.columns()) {
      if (c.table && c.column && !c.table.startsWith('_')) {
        const src = describe(db, c.table);
        const col = src?.byName.get(c.column);
        if (col) out.set(c.name, col.type);
      }
    }
  } catch {
    // a broken view: fall back to declared types
  }
  return out;
}

export function listIndexes(db: Db, table: TableInfo): IndexInfo[] {
  if (table.type !== 'table') return [];
  const rows = db.prepare(`SELECT name, "unique", origin FROM pragma_index_list(?)`).all(table.name) as Array<{ name: string; unique: number; origin: string }>;
  const out: IndexInfo[] = [];
  for (const r of rows) {
    if (r.origin !== 'c' || r.name.startsWith('_') || r.name.startsWith('sqlite_')) continue;
    const cols = db.prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno').pluck().all(r.name) as string[];
    out.push({ name: r.name, type: r.unique ? 'unique' : 'index', columns: cols });
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (table.fts) out.push({ name: FTS_INDEX_NAME, type: 'fts', columns: table.fts });
  return out;
}

export function listObjects(db: Db): Array<{ name: string; type: 'table' | 'view' }> {
  return db
    .prepare(
      "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all() as Array<{ name: string; type: 'table' | 'view' }>;
}

/**
 * A cheap row-count estimate, never a full scan (it runs on the server's event loop): exact up to 10,000 rows;
 * beyond, the largest id (or rowid); null for views and for tables without a rowid that hold more.
 */
export function estimateRows(db: Db, table: TableInfo): number | null {
  if (table.type !== 'table') return null;
  try {
    const largest = () =>
      db
        .prepare(`SELECT max(${table.hasId ? '"id"' : 'rowid'}) FROM ${q(table.name)}`)
        .pluck()
        .get();
    if (table.hasId) {
      const max = largest();
      if (typeof max === 'number' && max > 10_000) return max;
    }
    const n = db
      .prepare(`SELECT count(*) FROM (SELECT 1 FROM ${q(table.name)} LIMIT 10001)`)
      .pluck()
      .get() as number;
    if (n <= 10_000) return n;
    const max = largest();
    return typeof max === 'number' && max >= n ? max : n;
  } catch {
    return null;
  }
}
