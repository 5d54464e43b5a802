import type Database from 'better-sqlite3';
import { HearthError } from '../../core/http/errors.ts';
import type { EventBus } from '../events/bus.ts';
import {
  CATALOG_DDL,
  FTS_INDEX_NAME,
  checkUserIdentifier,
  describe,
  estimateRows,
  hasCatalog,
  invalidate,
  listIndexes,
  listObjects,
  q,
  requireObject,
  type TableInfo,
} from './catalog.ts';
import { SQL_TYPE, type ColumnDef } from './types.ts';

type Db = Database.Database;
type Meta = Record<string, unknown> | undefined;

const now = () => new Date().toISOString();
const NOW_SQL = `(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export function ensureCatalog(db: Db): void {
  if (!hasCatalog(db)) db.exec(CATALOG_DDL);
}

function columnSql(c: ColumnDef): string {
  let sql = `${q(c.name)} ${SQL_TYPE[c.type]}`;
  if (c.not_null) sql += ' NOT NULL';
  if (c.unique) sql += ' UNIQUE';
  return sql;
}

function tableSql(name: string, columns: ColumnDef[]): string {
  return `CREATE TABLE ${q(name)} (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
${columns.map((c) => `  ${columnSql(c)},`).join('\n')}
  "created_at" TEXT NOT NULL DEFAULT ${NOW_SQL},
  "updated_at" TEXT NOT NULL DEFAULT ${NOW_SQL}
)`;
}

const ftsName = (table: string) => `_hearth_fts_${table}`;

function dropFts(db: Db, table: string): void {
  db.exec(`DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_ai`)}; DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_ad`)}; DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_au`)}; DROP TABLE IF EXISTS ${q(ftsName(table))};`);
}

/** An FTS5 index over `columns`, kept in sync with the table by triggers (external content, rowid = id). */
function createFts(db: Db, table: string, columns: string[]): void {
  const fts = ftsName(table);
  const cols = columns.map(q).join(', ');
  const newVals = columns.map((c) => `new.${q(c)}`).join(', ');
  const oldVals = columns.map((c) => `old.${q(c)}`).join(', ');
  db.exec(`
    CREATE VIRTUAL TABLE ${q(fts)} USING fts5(${cols}, content=${q(table)}, content_rowid='id', tokenize='unicode61 remove_diacritics 2');
    CREATE TRIGGER ${q(`${fts}_ai`)} AFTER INSERT ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(rowid, ${cols}) VALUES (new."id", ${newVals});
    END;
    CREATE TRIGGER ${q(`${fts}_ad`)} AFTER DELETE ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(${q(fts)}, rowid, ${cols}) VALUES ('delete', old."id", ${oldVals});
    END;
    CREATE TRIGGER ${q(`${fts}_au`)} AFTER UPDATE ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(${q(fts)}, rowid, ${cols}) VALUES ('delete', old."id", ${oldVals});
      INSERT INTO ${q(fts)}(rowid, ${cols}) VALUES (new."id", ${newVals});
    END;
    INSERT INTO ${q(fts)}(${q(fts)}) VALUES ('rebuild');
  `);
}

/** Checks that `sql` is one read-only SELECT statement. */
export function checkSelect(db: Db, sql: string): void {
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(sql);
  } catch (err) {
    throw new HearthError('invalid_sql', `view SQL does not compile: ${(err as Error).message}`);
  }
  if (!stmt.reader || !stmt.readonly || !/^\s*(SELECT|WITH|VALUES)\b/i.test(sql.replace(/^(\s|--[^\n]*\n|\/\*[\s\S]*?\*\/)*/, ''))) {
    throw new HearthError('invalid_sql', 'a view must be a single read-only SELECT statement');
  }
}

function sqliteError(err: unknown): never {
  const e = err as { code?: string; message?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE') throw new HearthError('unique_violation', `cannot apply: existing rows violate a unique constraint (${e.message})`);
  if (e.code === 'SQLITE_CONSTRAINT_NOTNULL') throw new HearthError('not_null_violation', `cannot apply: existing rows hold NULL in a not_null column (${e.message})`);
  if (e.code === 'SQLITE_FULL') throw new HearthError('quota_exceeded', 'the change would make the database larger than its quota max_db_size');
  if (e.code === 'SQLITE_READONLY') throw new HearthError('namespace_read_only', 'the namespace is read-only (config read_only: true)');
  if (e.code === 'SQLITE_BUSY' || e.code === 'SQLITE_LOCKED') throw new HearthError('service_unavailable', 'the database is busy (busy_timeout passed); try again', { headers: { 'Retry-After': '1' } });
  throw err;
}

export interface SchemaContext {
  ns: string;
  db: Db;
  readOnly: boolean;
}

export function createSchemaService(deps: { events: EventBus }) {
  function guardWrite(ctx: SchemaContext) {
    if (ctx.readOnly) throw new HearthError('namespace_read_only', 'the namespace is read-only (config read_only: true): schema changes are refused');
  }

  function changelog(db: Db, action: string, table: string, detail: unknown, meta: Meta) {
    db.prepare('INSERT INTO _hearth_changelog (timestamp, action, "table", detail, _meta) VALUES (?, ?, ?, ?, ?)').run(now(), action, table, JSON.stringify(detail), meta ? JSON.stringify(meta) : null);
  }

  /** Runs a schema change in one transaction with its changelog entry, then publishes it. */
  function change<T>(ctx: SchemaContext, action: string, table: string, detail: unknown, meta: Meta, fn: () => T): T {
    guardWrite(ctx);
    let out: T;
    try {
      out = ctx.db.transaction(() => {
        ensureCatalog(ctx.db);
        const r = fn();
        changelog(ctx.db, action, table, detail, meta);
        return r;
      })();
    } catch (err) {
      invalidate(ctx.db);
      if (err instanceof HearthError) throw err;
      sqliteError(err);
    }
    invalidate(ctx.db);
    deps.events.publish(ctx.ns, { table, action, row: null, _meta: meta ?? null, timestamp: now() });
    return out;
  }

  function present(db: Db, t: TableInfo) {
    return {
      name: t.name,
      type: t.type,
      managed: t.managed,
      columns: t.columns.map((c) => ({ ...c })),
      indexes: listIndexes(db, t),
      metadata: t.metadata,
      sql: t.sql,
      row_count_estimate: estimateRows(db, t),
    };
  }

  function checkColumns(columns: ColumnDef[], existing: string[] = []) {
    const seen = new Set(existing.map((n) => n.toLowerCase()));
    for (const c of columns) {
      checkUserIdentifier(c.name, 'column');
      // SQLite column names are case-insensitive
      if (seen.has(c.name.toLowerCase())) throw new HearthError('column_exists', `column ${JSON.stringify(c.name)} appears twice (names are case-insensitive)`);
      seen.add(c.name.toLowerCase());
    }
  }

  function nameTaken(db: Db, name: string) {
    return db.prepare("SELECT 1 FROM sqlite_schema WHERE name = ? COLLATE NOCASE").get(name) !== undefined;
  }

  function userColumns(t: TableInfo): ColumnDef[] {
    return t.columns.filter((c) => !c.system).map(({ system: _s, ...c }) => c);
  }

  /** Rebuilds a managed table with new columns (SQLite's documented 12-step procedure), keeping data, indexes and FTS. */
  function rebuild(db: Db, t: TableInfo, columns: ColumnDef[], renames: Map<string, string>) {
    const indexes = listIndexes(db, t).filter((i) => i.type !== 'fts');
    const fts = t.fts;
    if (fts) dropFts(db, t.name);
    const tmp = `_hearth_rebuild_${t.name}`;
    db.exec(tableSql(tmp, columns));
    const target = ['id', ...columns.map((c) => c.name), 'created_at', 'updated_at'];
    const inverse = new Map([...renames].map(([from, to]) => [to, from]));
    const sources = target.map((c) => inverse.get(c) ?? c);
    const keep = target.filter((_, i) => t.byName.has(sources[i]!));
    const from = keep.map((c) => q(inverse.get(c) ?? c));
    db.exec(`INSERT INTO ${q(tmp)} (${keep.map(q).join(', ')}) SELECT ${from.join(', ')} FROM ${q(t.name)}`);
    db.exec(`DROP TABLE ${q(t.name)}`);
    // Views that read the table refer to it by name: rename the new table into place without SQLite
    // re-checking them against the dropped one (SQLite's documented procedure), then check each view still works.
    db.pragma('legacy_alter_table = ON');
    try {
      db.exec(`ALTER TABLE ${q(tmp)} RENAME TO ${q(t.name)}`);
    } finally {
      db.pragma('legacy_alter_table = OFF');
    }
    for (const v of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'view'").pluck().all() as string[]) {
      try {
        db.prepare(`SELECT * FROM ${q(v)} LIMIT 0`);
      } catch (err) {
        throw new HearthError('conflict', `view ${v} depends on what this change removes or renames (${(err as Error).message}); change or drop the view first`);
      }
    }
    const names = new Set(columns.map((c) => c.name));
    for (const i of indexes) {
      const cols = i.columns.map((c) => renames.get(c) ?? c);
      if (cols.every((c) => names.has(c))) db.exec(`CREATE ${i.type === 'unique' ? 'UNIQUE ' : ''}INDEX ${q(i.name)} ON ${q(t.name)} (${cols.map(q).join(', ')})`);
    }
    let newFts: string[] | null = null;
    if (fts) {
      const cols = fts.map((c) => renames.get(c) ?? c).filter((c) => names.has(c));
      if (cols.length) {
        createFts(db, t.name, cols);
        newFts = cols;
      }
    }
    return newFts;
  }

  const service = {
    list(db: Db) {
      return {
        data: listObjects(db).map((o) => {
          const t = describe(db, o.name)!;
          return { name: o.name, type: o.type, metadata: t.metadata, row_count_estimate: estimateRows(db, t) };
        }),
      };
    },

    get(db: Db, name: string) {
      return present(db, requireObject(db, name));
    },

    create(ctx: SchemaContext, body: { type: 'table' | 'view'; name: string; columns?: ColumnDef[]; sql?: string; metadata?: Record<string, unknown>; _meta?: Meta }) {
      const name = checkUserIdentifier(body.name, body.type === 'view' ? 'view name' : 'table name');
      guardWrite(ctx);
      if (nameTaken(ctx.db, name)) throw new HearthError('table_exists', `a table or view named ${JSON.stringify(name)} already exists`);
      const metadata = body.metadata ?? {};
      if (body.type === 'table') {
        const columns = body.columns ?? [];
        checkColumns(columns);
        change(ctx, 'create_table', name, { columns, metadata }, body._meta, () => {
          ctx.db.exec(tableSql(name, columns));
          ctx.db.prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(name, 'table', JSON.stringify(columns), JSON.stringify(metadata), now(), now());
        });
      } else {
        checkSelect(ctx.db, body.sql!);
        change(ctx, 'create_view', name, { sql: body.sql, metadata }, body._meta, () => {
          ctx.db.exec(`CREATE VIEW ${q(name)} AS ${body.sql}`);
          ctx.db.prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)').run(name, 'view', JSON.stringify(metadata), now(), now());
        });
      }
      return present(ctx.db, requireObject(ctx.db, name));
    },

    update(ctx: SchemaContext, name: string, body: { rename?: string; add_columns?: ColumnDef[]; drop_columns?: string[]; rename_columns?: Record<string, string>; metadata?: Record<string, unknown>; sql?: string; _meta?: Meta }) {
      const t = requireObject(ctx.db, name);
      guardWrite(ctx);
      const ops = Object.keys(body).filter((k) => k !== '_meta');
      if (ops.length === 0) throw new HearthError('invalid_request', 'nothing to change: send rename, add_columns, drop_columns, rename_columns, metadata or sql');
      if (t.type === 'view' && (body.add_columns || body.drop_columns || body.rename_columns)) {
        throw new HearthError('object_is_view', `${name} is a view: change its columns through sql`);
      }
      if (t.type === 'table' && body.sql !== undefined) throw new HearthError('invalid_request', `${name} is a table: sql applies to views only`);
      if (t.type === 'table' && !t.managed && (body.add_columns || body.drop_columns || body.rename_columns)) {
        throw new HearthError('invalid_request', `${name} came with an imported database and has no Hearth catalog entry: alter its columns with SQL tools, or recreate it through the API`);
      }
      const newName = body.rename !== undefined ? checkUserIdentifier(body.rename, 'new name') : name;
      if (newName !== name && nameTaken(ctx.db, newName) && newName.toLowerCase() !== name.toLowerCase()) {
        throw new HearthError('table_exists', `a table or view named ${JSON.stringify(newName)} already exists`);
      }
      let sql = t.sql;
      if (body.sql !== undefined) {
        checkSelect(ctx.db, body.sql);
        sql = body.sql;
      }

      // Work out the new column list of a table.
      let columns = t.type === 'table' && t.managed ? userColumns(t) : [];
      const renames = new Map<string, string>();
      if (t.type === 'table' && t.managed) {
        for (const d of body.drop_columns ?? []) {
          if (!columns.some((c) => c.name === d)) throw new HearthError('unknown_column', t.byName.has(d) ? `${d} is a system column and cannot be dropped` : `table ${name} has no column ${JSON.stringify(d)}`);
        }
        columns = columns.filter((c) => !(body.drop_columns ?? []).includes(c.name));
        for (const [from, to] of Object.entries(body.rename_columns ?? {})) {
          if (!columns.some((c) => c.name === from)) throw new HearthError('unknown_column', t.byName.has(from) ? `${from} is a system column and cannot be renamed` : `table ${name} has no column ${JSON.stringify(from)}`);
          checkUserIdentifier(to, 'column');
          renames.set(from, to);
        }
        columns = columns.map((c) => (renames.has(c.name) ? { ...c, name: renames.get(c.name)! } : c));
        checkColumns(columns);
        const add = body.add_columns ?? [];
        checkColumns(add, columns.map((c) => c.name));
        for (const c of add) {
          if (c.not_null) throw new HearthError('invalid_request', `cannot add not_null column ${c.name}: existing rows would hold NULL; add it without not_null, fill it, then recreate the table`);
        }
        columns = [...columns, ...add];
      }

      change(ctx, 'update_table', newName, { from: name, ...body, _meta: undefined }, body._meta, () => {
        const db = ctx.db;
        let fts = t.fts;
        if (t.type === 'table' && t.managed && (body.add_columns?.length || body.drop_columns?.length || renames.size)) {
          fts = rebuild(db, t, columns, renames);
        }
        if (t.type === 'view' && (sql !== t.sql || newName !== name)) {
          db.exec(`DROP VIEW ${q(name)}`);
          const body2 = body.sql !== undefined ? body.sql : (t.sql ?? '');
          db.exec(`CREATE VIEW ${q(newName)} AS ${body2}`);
        } else if (newName !== name) {
          if (fts) dropFts(db, name);
          if (newName.toLowerCase() === name.toLowerCase()) {
            // SQLite refuses a rename that only changes case: go through a temporary name
            db.exec(`ALTER TABLE ${q(name)} RENAME TO ${q(`_hearth_rename_${name}`)}`);
            db.exec(`ALTER TABLE ${q(`_hearth_rename_${name}`)} RENAME TO ${q(newName)}`);
          } else db.exec(`ALTER TABLE ${q(name)} RENAME TO ${q(newName)}`);
          if (fts) createFts(db, newName, fts);
        }
        const exists = db.prepare('SELECT 1 FROM _hearth_objects WHERE name = ?').get(name);
        if (!exists) db.prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)').run(name, t.type, JSON.stringify(t.metadata), now(), now());
        db.prepare('UPDATE _hearth_objects SET name = ?, columns = ?, metadata = ?, fts = ?, updated_at = ? WHERE name = ?').run(
          newName,
          t.type === 'table' && t.managed ? JSON.stringify(columns) : null,
          JSON.stringify(body.metadata ?? t.metadata),
          fts ? JSON.stringify(fts) : null,
          now(),
          name,
        );
      });
      return present(ctx.db, requireObject(ctx.db, newName));
    },

    drop(ctx: SchemaContext, name: string, meta: Meta) {
      const t = requireObject(ctx.db, name);
      change(ctx, t.type === 'view' ? 'drop_view' : 'drop_table', name, {}, meta, () => {
        if (t.fts) dropFts(ctx.db, name);
        ctx.db.exec(`DROP ${t.type === 'view' ? 'VIEW' : 'TABLE'} ${q(name)}`);
        ctx.db.prepare('DELETE FROM _hearth_objects WHERE name = ?').run(name);
      });
    },

    createIndex(ctx: SchemaContext, table: string, body: { type: 'index' | 'unique' | 'fts'; name?: string; columns: string[]; _meta?: Meta }) {
      const t = requireObject(ctx.db, table);
      if (t.type === 'view') throw new HearthError('object_is_view', `${table} is a view: views cannot be indexed`);
      guardWrite(ctx);
      for (const c of body.columns) {
        if (!t.byName.has(c)) throw new HearthError('unknown_column', `table ${table} has no column ${JSON.stringify(c)}`);
      }
      if (new Set(body.columns).size !== body.columns.length) throw new HearthError('invalid_request', 'an index lists each column once');
      if (body.type === 'fts') {
        if (body.name !== undefined) throw new HearthError('invalid_request', `an fts index has no name (it is addressed as "${FTS_INDEX_NAME}")`);
        if (!t.hasId) throw new HearthError('invalid_request', `${table} has no integer id column for full-text search`);
        for (const c of body.columns) {
          const type = t.byName.get(c)!.type;
          if (type !== 'text' && type !== 'json') throw new HearthError('invalid_request', `fts indexes text columns; ${c} is ${type}`);
        }
        if (t.fts) throw new HearthError('index_exists', `table ${table} already has an fts index`);
        change(ctx, 'create_index', table, { type: 'fts', columns: body.columns }, body._meta, () => {
          createFts(ctx.db, table, body.columns);
          const exists = ctx.db.prepare('SELECT 1 FROM _hearth_objects WHERE name = ?').get(table);
          if (!exists) ctx.db.prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)').run(table, 'table', '{}', now(), now());
          ctx.db.prepare('UPDATE _hearth_objects SET fts = ?, updated_at = ? WHERE name = ?').run(JSON.stringify(body.columns), now(), table);
        });
        return { name: FTS_INDEX_NAME, type: 'fts' as const, columns: body.columns };
      }
      if (body.name === undefined) throw new HearthError('invalid_request', `an index of type ${body.type} needs a name`);
      const name = checkUserIdentifier(body.name, 'index name');
      if (name === FTS_INDEX_NAME) throw new HearthError('reserved_name', `index name "${FTS_INDEX_NAME}" is reserved for the full-text index`);
      if (nameTaken(ctx.db, name)) throw new HearthError('index_exists', `an index, table or view named ${JSON.stringify(name)} already exists`);
      change(ctx, 'create_index', table, { name, type: body.type, columns: body.columns }, body._meta, () => {
        ctx.db.exec(`CREATE ${body.type === 'unique' ? 'UNIQUE ' : ''}INDEX ${q(name)} ON ${q(table)} (${body.columns.map(q).join(', ')})`);
      });
      return { name, type: body.type, columns: body.columns };
    },

    dropIndex(ctx: SchemaContext, table: string, index: string, meta: Meta) {
      const t = requireObject(ctx.db, table);
      const found = listIndexes(ctx.db, t).find((i) => i.name === index);
      if (!found) throw new HearthError('index_not_found', `table ${table} has no index ${JSON.stringify(index)}`);
      change(ctx, 'drop_index', table, { name: index, type: found.type }, meta, () => {
        if (found.type === 'fts') {
          dropFts(ctx.db, table);
          ctx.db.prepare('UPDATE _hearth_objects SET fts = NULL, updated_at = ? WHERE name = ?').run(now(), table);
        } else ctx.db.exec(`DROP INDEX ${q(index)}`);
      });
    },

    changelog(db: Db, opts: { table?: string; limit: number; offset: number }) {
      if (!hasCatalog(db)) return [];
      const rows = db
        .prepare('SELECT * FROM _hearth_changelog WHERE (? IS NULL OR "table" = ?) ORDER BY id DESC LIMIT ? OFFSET ?')
        .all(opts.table ?? null, opts.table ?? null, opts.limit, opts.offset) as Array<{ id: number; timestamp: string; action: string; table: string; detail: string; _meta: string | null }>;
      return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as unknown, _meta: r._meta ? (JSON.parse(r._meta) as Record<string, unknown>) : null }));
    },
  };
  return service;
}

export type SchemaService = ReturnType<typeof createSchemaService>;
