/**
 * Schema changes of a tenant database: tables, views and indexes created, altered and dropped, each in one
 * transaction with its changelog entry (`_hearth_changelog`) and then published as a change event; reading the
 * catalog and the changelog. How a change is carried out in SQLite (DDL, the table rebuild, the view guard) is ddl.ts's.
 *
 * One file because every operation goes through one write step (`change`: the read-only guard, the transaction with
 * its changelog entries, the view check, the catalog invalidation and the change event); `update` is the long one,
 * since a rename, added, dropped and renamed columns and metadata in one request are one transaction.
 */
import type Database from 'better-sqlite3';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { EventBus } from '../events/bus.ts';
import { storageRefusal } from '../storage-errors.ts';
import {
  CATALOG_DDL,
  checkUserIdentifier,
  describe,
  estimateRows,
  FTS_INDEX_NAME,
  hasCatalog,
  invalidate,
  listIndexes,
  listObjects,
  q,
  requireObject,
  type TableInfo,
} from './catalog.ts';
import { type ChangeScope, createFts, dropFts, rebuild, settleViews, tableSql, workingViews } from './ddl.ts';
import type { ColumnDef } from './types.ts';

type Db = Database.Database;
type Meta = Record<string, unknown> | undefined;

const now = () => new Date().toISOString();

export function ensureCatalog(db: Db): void {
  if (!hasCatalog(db)) db.exec(CATALOG_DDL);
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

function sqliteError(err: unknown, db: Db): never {
  const e = err as { code?: string; message?: string };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE')
    throw new HearthError('unique_violation', `cannot apply: existing rows violate a unique constraint (${e.message})`);
  if (e.code === 'SQLITE_CONSTRAINT_NOTNULL')
    throw new HearthError('not_null_violation', `cannot apply: existing rows hold NULL in a not_null column (${e.message})`);
  const refusal = storageRefusal(err, db);
  if (refusal) throw refusal;
  // SQLite checks every view and trigger after a rename; one that was already broken (it came so with an imported
  // file) stops it.
  const broken = e.code === 'SQLITE_ERROR' ? /^error in (view|trigger) (.+?)(?: after [a-z ]+)?: (.*)$/.exec(e.message ?? '') : null;
  if (broken)
    throw new HearthError('conflict', `the change cannot be made while ${broken[1]} ${broken[2]} is broken (${broken[3]}): drop or recreate it first`);
  throw err;
}

/**
 * The names an object had, newest first, as id ranges of the changelog: each name from the entry where the object
 * took it (its creation, or the rename to it) up to where it took the next one.
 */
function historyOf(db: Db, name: string): Array<{ name: string; from: number; to: number }> {
  const boundary = db.prepare(`SELECT id, action, json_extract(detail, '$.from') AS previous FROM _hearth_changelog
    WHERE "table" = ? AND id <= ? AND (action IN ('create_table', 'create_view') OR (action = 'update_table' AND json_extract(detail, '$.from') IS NOT "table"))
    ORDER BY id DESC LIMIT 1`);
  const out: Array<{ name: string; from: number; to: number }> = [];
  let current = name;
  let upper = Number.MAX_SAFE_INTEGER;
  for (;;) {
    const b = boundary.get(current, upper) as { id: number; action: string; previous: unknown } | undefined;
    out.push({ name: current, from: b?.id ?? 0, to: upper });
    // Every step moves to older entries, so renames back and forth end too.
    if (b?.action !== 'update_table' || typeof b.previous !== 'string') return out;
    current = b.previous;
    upper = b.id - 1;
  }
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
    db.prepare('INSERT INTO _hearth_changelog (timestamp, action, "table", detail, _meta) VALUES (?, ?, ?, ?, ?)').run(
      now(),
      action,
      table,
      JSON.stringify(detail),
      meta ? JSON.stringify(meta) : null,
    );
  }

  /**
   * Runs a schema change in one transaction with its changelog entry, then publishes it. With `views`, the views that
   * worked before must still work after (see `ChangeScope`); what the change did besides itself (views dropped with
   * `cascade`, indexes dropped with their columns) is recorded and published first, each as its own entry.
   */
  function change<T>(
    ctx: SchemaContext,
    action: string,
    table: string,
    detail: Record<string, unknown>,
    meta: Meta,
    fn: (scope: ChangeScope) => T,
    views?: { subject: string; cascade: boolean },
  ): T {
    guardWrite(ctx);
    let out: T;
    let scope!: ChangeScope;
    try {
      out = ctx.db.transaction(() => {
        ensureCatalog(ctx.db);
        scope = {
          subject: views?.subject ?? table,
          cascade: views?.cascade ?? false,
          healthy: views ? workingViews(ctx.db) : new Set(),
          droppedViews: [],
          consequences: [],
        };
        const r = fn(scope);
        settleViews(ctx.db, scope);
        for (const c of scope.consequences) changelog(ctx.db, c.action, c.table, c.detail, meta);
        changelog(ctx.db, action, table, scope.droppedViews.length ? { ...detail, dropped_views: scope.droppedViews } : detail, meta);
        return r;
      })();
    } catch (err) {
      invalidate(ctx.db);
      if (err instanceof HearthError) throw err;
      sqliteError(err, ctx.db);
    }
    invalidate(ctx.db);
    const timestamp = now();
    deps.events.publish(
      ctx.ns,
      [...scope.consequences, { action, table }].map((c) => ({ table: c.table, action: c.action, row: null, _meta: meta ?? null, timestamp })),
    );
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
      if (seen.has(c.name.toLowerCase())) throw new HearthError('column_exists', `column ${quoteInput(c.name)} appears twice (names are case-insensitive)`);
      seen.add(c.name.toLowerCase());
    }
  }

  function nameTaken(db: Db, name: string) {
    return db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ? COLLATE NOCASE').get(name) !== undefined;
  }

  function userColumns(t: TableInfo): ColumnDef[] {
    return t.columns.filter((c) => !c.system).map(({ system: _s, ...c }) => c);
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

    create(
      ctx: SchemaContext,
      body: { type: 'table' | 'view'; name: string; columns?: ColumnDef[]; sql?: string; metadata?: Record<string, unknown>; _meta?: Meta },
    ) {
      const name = checkUserIdentifier(body.name, body.type === 'view' ? 'view name' : 'table name');
      guardWrite(ctx);
      if (nameTaken(ctx.db, name)) throw new HearthError('table_exists', `a table or view named ${quoteInput(name)} already exists`);
      const metadata = body.metadata ?? {};
      if (body.type === 'table') {
        const columns = body.columns ?? [];
        checkColumns(columns);
        change(ctx, 'create_table', name, { columns, metadata }, body._meta, () => {
          ctx.db.exec(tableSql(name, columns));
          ctx.db
            .prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
            .run(name, 'table', JSON.stringify(columns), JSON.stringify(metadata), now(), now());
        });
      } else {
        checkSelect(ctx.db, body.sql!);
        change(ctx, 'create_view', name, { sql: body.sql, metadata }, body._meta, () => {
          ctx.db.exec(`CREATE VIEW ${q(name)} AS ${body.sql}`);
          ctx.db
            .prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)')
            .run(name, 'view', JSON.stringify(metadata), now(), now());
        });
      }
      return present(ctx.db, requireObject(ctx.db, name));
    },

    update(
      ctx: SchemaContext,
      name: string,
      body: {
        rename?: string;
        add_columns?: ColumnDef[];
        drop_columns?: string[];
        rename_columns?: Record<string, string>;
        metadata?: Record<string, unknown>;
        sql?: string;
        _meta?: Meta;
      },
      opts: { cascade?: boolean } = {},
    ) {
      const t = requireObject(ctx.db, name);
      guardWrite(ctx);
      const ops = Object.keys(body).filter((k) => k !== '_meta');
      if (ops.length === 0)
        throw new HearthError('invalid_request', 'nothing to change: send rename, add_columns, drop_columns, rename_columns, metadata or sql');
      if (t.type === 'view' && (body.add_columns || body.drop_columns || body.rename_columns)) {
        throw new HearthError('object_is_view', `${name} is a view: change its columns through sql`);
      }
      if (t.type === 'table' && body.sql !== undefined) throw new HearthError('invalid_request', `${name} is a table: sql applies to views only`);
      if (t.type === 'table' && !t.managed && (body.add_columns || body.drop_columns || body.rename_columns)) {
        throw new HearthError(
          'invalid_request',
          `${name} came with an imported database and has no Hearth catalog entry: alter its columns with SQL tools, or recreate it through the API`,
        );
      }
      const newName = body.rename !== undefined ? checkUserIdentifier(body.rename, 'new name') : name;
      if (newName !== name && nameTaken(ctx.db, newName) && newName.toLowerCase() !== name.toLowerCase()) {
        throw new HearthError('table_exists', `a table or view named ${quoteInput(newName)} already exists`);
      }
      let sql = t.sql;
      if (body.sql !== undefined) {
        checkSelect(ctx.db, body.sql);
        sql = body.sql;
      }

      // Work out the new column list of a table: each new column with the column it comes from (null when added).
      let plan = t.type === 'table' && t.managed ? userColumns(t).map((def) => ({ def, from: def.name as string | null })) : [];
      const dropped = new Set(body.drop_columns ?? []);
      let renamed = 0;
      if (t.type === 'table' && t.managed) {
        for (const d of dropped) {
          if (!plan.some((p) => p.def.name === d))
            throw new HearthError(
              'unknown_column',
              t.byName.has(d) ? `${d} is a system column and cannot be dropped` : `table ${name} has no column ${quoteInput(d)}`,
            );
        }
        plan = plan.filter((p) => !dropped.has(p.def.name));
        const renames = new Map<string, string>();
        for (const [from, to] of Object.entries(body.rename_columns ?? {})) {
          if (!plan.some((p) => p.def.name === from))
            throw new HearthError(
              'unknown_column',
              t.byName.has(from) ? `${from} is a system column and cannot be renamed` : `table ${name} has no column ${quoteInput(from)}`,
            );
          checkUserIdentifier(to, 'column');
          if (to !== from) renames.set(from, to);
        }
        renamed = renames.size;
        plan = plan.map((p) => (renames.has(p.def.name) ? { ...p, def: { ...p.def, name: renames.get(p.def.name)! } } : p));
        checkColumns(plan.map((p) => p.def));
        const add = body.add_columns ?? [];
        checkColumns(
          add,
          plan.map((p) => p.def.name),
        );
        for (const c of add) {
          if (c.not_null)
            throw new HearthError(
              'invalid_request',
              `cannot add not_null column ${c.name}: existing rows would hold NULL; add it without not_null, fill it, then recreate the table`,
            );
        }
        plan = [...plan, ...add.map((def) => ({ def, from: null }))];
      }

      // What actually changes: renaming to the same name, a column to its own name and empty lists change nothing,
      // and a request of only such operations is answered without a changelog entry or an event.
      const changes: Record<string, unknown> = { ...body, _meta: undefined };
      if (newName === name) delete changes.rename;
      if (body.rename_columns) {
        const real = Object.entries(body.rename_columns).filter(([from, to]) => from !== to);
        if (real.length) changes.rename_columns = Object.fromEntries(real);
        else delete changes.rename_columns;
      }
      if (!body.add_columns?.length) delete changes.add_columns;
      if (!dropped.size) delete changes.drop_columns;
      if (!Object.values(changes).some((v) => v !== undefined)) return present(ctx.db, t);
      const columnsChange = t.type === 'table' && t.managed && (body.add_columns?.length || dropped.size || renamed);

      change(
        ctx,
        'update_table',
        newName,
        { from: name, ...changes },
        body._meta,
        (scope) => {
          const db = ctx.db;
          let fts = t.fts;
          if (columnsChange) fts = rebuild(db, t, plan, dropped, scope);
          if (t.type === 'view' && (sql !== t.sql || newName !== name)) {
            db.exec(`DROP VIEW ${q(name)}`);
            db.exec(`CREATE VIEW ${q(newName)} AS ${sql ?? ''}`);
          } else if (newName !== name) {
            // SQLite rewrites the views (and triggers) that read the table to the new name.
            if (fts) dropFts(db, name);
            if (newName.toLowerCase() === name.toLowerCase()) {
              // SQLite refuses a rename that only changes case: go through a temporary name
              db.exec(`ALTER TABLE ${q(name)} RENAME TO ${q(`_hearth_rename_${name}`)}`);
              db.exec(`ALTER TABLE ${q(`_hearth_rename_${name}`)} RENAME TO ${q(newName)}`);
            } else db.exec(`ALTER TABLE ${q(name)} RENAME TO ${q(newName)}`);
            if (fts) createFts(db, newName, fts);
          }
          const exists = db.prepare('SELECT 1 FROM _hearth_objects WHERE name = ?').get(name);
          if (!exists)
            db.prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)').run(
              name,
              t.type,
              JSON.stringify(t.metadata),
              now(),
              now(),
            );
          db.prepare('UPDATE _hearth_objects SET name = ?, columns = ?, metadata = ?, fts = ?, updated_at = ? WHERE name = ?').run(
            newName,
            t.type === 'table' && t.managed ? JSON.stringify(plan.map((p) => p.def)) : null,
            JSON.stringify(body.metadata ?? t.metadata),
            fts ? JSON.stringify(fts) : null,
            now(),
            name,
          );
        },
        { subject: name, cascade: opts.cascade ?? false },
      );
      return present(ctx.db, requireObject(ctx.db, newName));
    },

    /** Drops a table or view; views that read it are refused (409 `dependent_views`) or, with `cascade`, dropped too. */
    drop(ctx: SchemaContext, name: string, meta: Meta, opts: { cascade?: boolean } = {}) {
      const t = requireObject(ctx.db, name);
      change(
        ctx,
        t.type === 'view' ? 'drop_view' : 'drop_table',
        name,
        {},
        meta,
        () => {
          if (t.fts) dropFts(ctx.db, name);
          ctx.db.exec(`DROP ${t.type === 'view' ? 'VIEW' : 'TABLE'} ${q(name)}`);
          ctx.db.prepare('DELETE FROM _hearth_objects WHERE name = ?').run(name);
        },
        { subject: name, cascade: opts.cascade ?? false },
      );
    },

    createIndex(ctx: SchemaContext, table: string, body: { type: 'index' | 'unique' | 'fts'; name?: string; columns: string[]; _meta?: Meta }) {
      const t = requireObject(ctx.db, table);
      if (t.type === 'view') throw new HearthError('object_is_view', `${table} is a view: views cannot be indexed`);
      guardWrite(ctx);
      for (const c of body.columns) {
        if (!t.byName.has(c)) throw new HearthError('unknown_column', `table ${table} has no column ${quoteInput(c)}`);
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
          if (!exists)
            ctx.db
              .prepare('INSERT INTO _hearth_objects (name, type, columns, metadata, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?)')
              .run(table, 'table', '{}', now(), now());
          ctx.db.prepare('UPDATE _hearth_objects SET fts = ?, updated_at = ? WHERE name = ?').run(JSON.stringify(body.columns), now(), table);
        });
        return { name: FTS_INDEX_NAME, type: 'fts' as const, columns: body.columns };
      }
      if (body.name === undefined) throw new HearthError('invalid_request', `an index of type ${body.type} needs a name`);
      const name = checkUserIdentifier(body.name, 'index name');
      if (name === FTS_INDEX_NAME) throw new HearthError('reserved_name', `index name "${FTS_INDEX_NAME}" is reserved for the full-text index`);
      if (nameTaken(ctx.db, name)) throw new HearthError('index_exists', `an index, table or view named ${quoteInput(name)} already exists`);
      change(ctx, 'create_index', table, { name, type: body.type, columns: body.columns }, body._meta, () => {
        ctx.db.exec(`CREATE ${body.type === 'unique' ? 'UNIQUE ' : ''}INDEX ${q(name)} ON ${q(table)} (${body.columns.map(q).join(', ')})`);
      });
      return { name, type: body.type, columns: body.columns };
    },

    dropIndex(ctx: SchemaContext, table: string, index: string, meta: Meta) {
      const t = requireObject(ctx.db, table);
      const found = listIndexes(ctx.db, t).find((i) => i.name === index);
      if (!found) throw new HearthError('index_not_found', `table ${table} has no index ${quoteInput(index)}`);
      change(ctx, 'drop_index', table, { name: index, type: found.type }, meta, () => {
        if (found.type === 'fts') {
          dropFts(ctx.db, table);
          ctx.db.prepare('UPDATE _hearth_objects SET fts = NULL, updated_at = ? WHERE name = ?').run(now(), table);
        } else ctx.db.exec(`DROP INDEX ${q(index)}`);
      });
    },

    /**
     * The changelog, newest first. With `table`, the history of the object that has (or last had) that name: its
     * entries, then, across each rename, those of the names it had before, back to its creation. A different object
     * that had one of those names at another time (created after the rename, or dropped before) is not included.
     */
    changelog(db: Db, opts: { table?: string; limit: number; offset: number }) {
      if (!hasCatalog(db)) return [];
      let where = '';
      const params: unknown[] = [];
      if (opts.table !== undefined) {
        const parts = historyOf(db, opts.table).map((seg) => {
          params.push(seg.name, seg.from, seg.to);
          return '("table" = ? AND id BETWEEN ? AND ?)';
        });
        where = `WHERE ${parts.join(' OR ')}`;
      }
      const rows = db.prepare(`SELECT * FROM _hearth_changelog ${where} ORDER BY id DESC LIMIT ? OFFSET ?`).all(...params, opts.limit, opts.offset) as Array<{
        id: number;
        timestamp: string;
        action: string;
        table: string;
        detail: string;
        _meta: string | null;
      }>;
      return rows.map((r) => ({ ...r, detail: JSON.parse(r.detail) as unknown, _meta: r._meta ? (JSON.parse(r._meta) as Record<string, unknown>) : null }));
    },
  };
  return service;
}

export type SchemaService = ReturnType<typeof createSchemaService>;
