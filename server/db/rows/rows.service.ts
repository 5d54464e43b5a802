/**
 * Rows of a tenant table: listing and reading by id (planned by builder.ts from the grammar, run by read.ts), and
 * inserting, updating and deleting by filter or id, each write in one transaction whose rows are published as change
 * events. A listing runs on the server's own connection when it is small and fast (`InlineReads`), otherwise in a
 * query process (sql.service.ts).
 *
 * One file because reads and writes share the table checks (`requireTable`, `requireId`, `storedValues`), `Prefer`
 * and the shaping of returned rows. The inline-read policy (`readsInline` with its slow-table memory) is the part
 * that could stand on its own.
 */
import type Database from 'better-sqlite3';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { ChangeEvent, EventBus } from '../events/bus.ts';
import { q, requireObject, type TableInfo } from '../schema/catalog.ts';
import { toStorage } from '../schema/types.ts';
import type { ReadTenant, SqlService } from '../sql/sql.service.ts';
import { buildOrder, buildProjection, buildWhere, DEFAULT_LIMIT, MAX_LIMIT, type Projection, parseLimit, parseOffset } from './builder.ts';
import { type Dialect, parseSelect } from './grammar.ts';
import { converter, prepare, type ReadOutcome, type ReadPlan, runRead } from './read.ts';
import { readError, writeError } from './rows.errors.ts';

type Db = Database.Database;
type Row = Record<string, unknown>;
export type Meta = Record<string, unknown>;

const NOW_SQL = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

export interface Prefer {
  return: 'representation' | 'minimal' | null;
  resolution: 'merge-duplicates' | 'ignore-duplicates' | null;
  count: 'exact' | null;
}

export function parsePrefer(header: string | undefined): Prefer {
  const out: Prefer = { return: null, resolution: null, count: null };
  for (const part of (header ?? '').split(',')) {
    const [k, v] = part
      .trim()
      .split('=')
      .map((x) => x?.trim());
    if (k === 'return' && (v === 'representation' || v === 'minimal')) out.return = v;
    else if (k === 'resolution' && (v === 'merge-duplicates' || v === 'ignore-duplicates')) out.resolution = v;
    else if (k === 'count' && v === 'exact') out.count = 'exact';
  }
  return out;
}

/** Applies `select` (columns and renames, no aggregates) to rows returned by a write. */
export function projectRows(rows: Row[], select: string | null, t: TableInfo): Row[] {
  if (select === null || select === '' || select === '*') return rows;
  const items = parseSelect(select);
  const picks: Array<[string, string]> = [];
  for (const item of items) {
    if (item.kind === 'aggregate') throw new HearthError('invalid_filter', 'aggregates cannot be selected from a write');
    if (item.kind === 'star') for (const c of t.columns) picks.push([c.name, c.name]);
    else {
      if (!t.byName.has(item.column)) throw new HearthError('unknown_column', `${t.name} has no column ${quoteInput(item.column)}`);
      picks.push([item.alias, item.column]);
    }
  }
  return rows.map((r) => Object.fromEntries(picks.map(([alias, col]) => [alias, r[col]])));
}

/** The JSON converter of a table's full rows, made once per table description. */
const fullRows = new WeakMap<TableInfo, (row: Row) => Row>();
const fullRow = (t: TableInfo) => {
  let f = fullRows.get(t);
  if (!f) fullRows.set(t, (f = converter(t.columns.map((c) => ({ name: c.name, type: c.type })))));
  return f;
};

export interface ListResult {
  /** The rows as a JSON array (text, as the query process wrote it). */
  body: string;
  rows: number;
  /** Absent for aggregates. */
  meta?: { limit: number; offset: number; total_count?: number; filter_count?: number };
  /** Counts computed (for Content-Range in the PostgREST surface). */
  counts?: { total: number; filtered: number };
}

export interface WriteContext {
  ns: string;
  db: Db;
  meta: Meta;
}

/**
 * A write that answers with the rows it wrote (`Prefer: return=representation`): `select` shapes them like a listing's
 * (columns and renames) and is checked before anything is written, so a bad select never follows a committed write.
 */
export interface Returning {
  select: string | null;
}

export interface Query {
  sql: string;
  params: unknown[];
  projection: Projection;
  /** See `Where.costly`. */
  costly: boolean;
}

/**
 * A listing runs on the server's own connection, without the round trip to a query process, only when its cost is
 * small by construction: a table (no view, no virtual generated columns) in a database of at most `maxBytes`, no
 * aggregates, no pattern or full-text filter, at most `maxRows` rows up to the end of the page, and a query_timeout
 * of at least `minTimeoutMs`, far above what that can take. Its worst case — a full scan of the file, a sort of the
 * page's rows, the counts — is a few milliseconds; a table whose inline read took more than `slowMs` of the event
 * loop's CPU time anyway is read in query processes for the next `backoffMs`.
 */
export interface InlineReads {
  maxBytes: number;
  maxRows: number;
  minTimeoutMs: number;
  slowMs: number;
  backoffMs: number;
}
export const INLINE_READS: InlineReads = { maxBytes: 16 * 1024 * 1024, maxRows: 1000, minTimeoutMs: 1000, slowMs: 8, backoffMs: 60_000 };
/** A database's size is read again at most this often (it grows only by writes; a second late is harmless). */
const SIZE_RECHECK_MS = 1000;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

export function createRowsService(deps: { events: EventBus; queries: SqlService; inline?: Partial<InlineReads> }) {
  const inline: InlineReads = { ...INLINE_READS, ...deps.inline };
  function publish(ns: string, table: string, action: string, rows: Row[], meta: Meta) {
    if (rows.length === 0) return;
    const timestamp = new Date().toISOString();
    deps.events.publish(
      ns,
      rows.map((row): ChangeEvent => ({ table, action, row, _meta: meta, timestamp })),
    );
  }

  function requireTable(db: Db, name: string): TableInfo {
    const t = requireObject(db, name);
    if (t.type === 'view') throw new HearthError('object_is_view', `${name} is a view: rows are written through its tables`);
    return t;
  }

  function requireId(t: TableInfo, raw: string): number {
    if (!t.hasId) throw new HearthError('invalid_request', `${t.name} has no integer id column: address its rows with filters`);
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw new HearthError('invalid_request', `row id must be an integer (got ${quoteInput(raw)})`);
    return Number(raw);
  }

  /** Validates one row of a write and converts it to stored values. */
  function storedValues(t: TableInfo, row: unknown, mode: 'insert' | 'update'): Map<string, unknown> {
    if (row === null || typeof row !== 'object' || Array.isArray(row))
      throw new HearthError('invalid_request', 'each row must be a JSON object of column values');
    const out = new Map<string, unknown>();
    for (const [k, v] of Object.entries(row as Row)) {
      if (k === '_meta') continue;
      const col = t.byName.get(k);
      if (!col) throw new HearthError('unknown_column', `${t.name} has no column ${quoteInput(k)}`);
      if (t.managed && (k === 'created_at' || k === 'updated_at'))
        throw new HearthError('reserved_name', `${k} is maintained by the service and cannot be written`);
      if (t.managed && k === 'id' && mode === 'update') throw new HearthError('reserved_name', 'id cannot be changed');
      out.set(k, toStorage(col, v, t.name));
    }
    if (mode === 'insert') {
      for (const c of t.columns) {
        if (c.not_null && !c.system && !out.has(c.name))
          throw new HearthError('not_null_violation', `${t.name}.${c.name} must not be null (it is missing)`, { details: { column: c.name } });
      }
    } else if (out.size === 0) throw new HearthError('invalid_request', 'nothing to update: send at least one column');
    return out;
  }

  /** Tables whose inline read was slow, until when their reads go to query processes (`ns\0table` → epoch ms). */
  const slowTables = new Map<string, number>();
  /** The size of each tenant database (pages × page size), read again at most every SIZE_RECHECK_MS. */
  const fileSize = new WeakMap<Db, { bytes: number; at: number }>();

  /** Whether a planned listing may run on the server's own connection (see InlineReads). */
  function readsInline(tenant: ReadTenant & { db: Db }, t: TableInfo, query: Query, rowsToEnd: number): boolean {
    if (t.type !== 'table' || t.computed || query.costly || query.projection.aggregate || rowsToEnd > inline.maxRows) return false;
    if (tenant.config.query_timeout < inline.minTimeoutMs) return false;
    const now = Date.now();
    const key = `${tenant.ns}\u0000${t.name}`;
    const until = slowTables.get(key);
    if (until !== undefined) {
      if (until > now) return false;
      slowTables.delete(key);
    }
    let size = fileSize.get(tenant.db);
    if (!size || now - size.at > SIZE_RECHECK_MS) {
      const pages = tenant.db.pragma('page_count', { simple: true }) as number;
      const pageSize = tenant.db.pragma('page_size', { simple: true }) as number;
      fileSize.set(tenant.db, (size = { bytes: pages * pageSize, at: now }));
    }
    return size.bytes <= inline.maxBytes;
  }

  const service = {
    /** Builds the SELECT of a listing (also used by CSV export and the PostgREST surface). */
    buildList(t: TableInfo, params: URLSearchParams, opts: { limit: number | null; dialect?: Dialect }): Query {
      const projection = buildProjection(t, params.get('select'));
      const where = buildWhere(t, params, { dialect: opts.dialect });
      const order = buildOrder(t, params.get('order'), projection, opts.dialect);
      const offset = parseOffset(params.get('offset'));
      let sql = `SELECT ${projection.sql} FROM ${q(t.name)} ${where.sql}`;
      if (projection.groupBy) sql += ` GROUP BY ${projection.groupBy}`;
      if (order) sql += ` ${order}`;
      const values = [...where.params];
      if (opts.limit !== null) {
        sql += ' LIMIT ? OFFSET ?';
        values.push(opts.limit, offset);
      } else if (offset) {
        sql += ' LIMIT -1 OFFSET ?';
        values.push(offset);
      }
      return { sql, params: values, projection, costly: where.costly };
    },

    /**
     * A listing: planned here (schema, grammar, SQL; every 400 before any read), run in a query process under the
     * namespace's query_timeout (sql.service.ts) — or, when its cost is small by construction, on the server's own
     * connection (see InlineReads) — and answered as JSON text.
     */
    async list(
      tenant: ReadTenant & { db: Db },
      table: string,
      params: URLSearchParams,
      opts: { countExact: boolean; dialect?: Dialect; signal?: () => AbortSignal },
    ): Promise<ListResult> {
      const t = requireObject(tenant.db, table);
      const limit = parseLimit(params.get('limit'), { fallback: DEFAULT_LIMIT });
      const offset = parseOffset(params.get('offset'));
      const query = service.buildList(t, params, { limit: limit ?? MAX_LIMIT, dialect: opts.dialect });
      const plan: ReadPlan = { sql: query.sql, params: query.params, columns: query.projection.columns };
      if (opts.countExact && !query.projection.aggregate) {
        const where = buildWhere(t, params, { dialect: opts.dialect });
        plan.count = {
          total: `SELECT count(*) FROM ${q(t.name)}`,
          filtered: where.sql ? `SELECT count(*) FROM ${q(t.name)} ${where.sql}` : null,
          params: where.params,
        };
      }
      let out: ReadOutcome;
      if (readsInline(tenant, t, query, (limit ?? MAX_LIMIT) + offset)) {
        const started = performance.now();
        const cpu = process.threadCpuUsage();
        try {
          out = runRead(tenant.db, plan);
        } catch (err) {
          readError(err);
        }
        // Slow by the clock may only mean the machine is busy; slow in this thread's own CPU time is the read.
        if (performance.now() - started > inline.slowMs && cpuMs(process.threadCpuUsage(cpu)) > inline.slowMs) {
          if (slowTables.size >= 10_000) slowTables.clear();
          slowTables.set(`${tenant.ns}\u0000${t.name}`, Date.now() + inline.backoffMs);
        }
      } else out = await deps.queries.read(tenant, plan, { signal: opts.signal?.(), mapError: readError });
      if (query.projection.aggregate) return { body: out.body, rows: out.rows };
      const result: ListResult = { body: out.body, rows: out.rows, meta: { limit: limit!, offset } };
      if (out.counts) {
        result.meta!.total_count = out.counts.total;
        result.meta!.filter_count = out.counts.filtered;
        result.counts = out.counts;
      }
      return result;
    },

    /**
     * One row by id, as JSON text (`signal` is asked for only when the read goes to a query process). A lookup by the primary key of a plain table is bounded (one b-tree search) and
     * runs on the server's connection; a table with virtual generated columns (whose expressions run on every read)
     * is read in a query process like a listing.
     */
    async get(tenant: ReadTenant & { db: Db }, table: string, id: string, opts: { signal?: () => AbortSignal } = {}): Promise<string> {
      const t = requireObject(tenant.db, table);
      const rowId = requireId(t, id);
      const sql = `SELECT * FROM ${q(t.name)} WHERE "id" = ?`;
      let text: string | null;
      if (t.type === 'table' && !t.computed) {
        let row: Row | undefined;
        try {
          row = prepare(tenant.db, sql).get(rowId) as Row | undefined;
        } catch (err) {
          readError(err);
        }
        text = row ? JSON.stringify(fullRow(t)(row)) : null;
      } else {
        const out = await deps.queries.read(
          tenant,
          { sql, params: [rowId], columns: t.columns.map((c) => ({ name: c.name, type: c.type })) },
          { signal: opts.signal?.(), mapError: readError },
        );
        text = out.rows ? out.body.slice(1, -1) : null;
      }
      if (text === null) throw new HearthError('row_not_found', `${table} has no row with id ${id}`);
      return text;
    },

    /**
     * Inserts rows in one transaction (all or none). Answers how many rows were written and, when `returning` is
     * set or someone listens to the namespace's events, the rows themselves (inserted or merged; with `returning`,
     * shaped by its select). A `bulk` load (without `returning`) answers only the count and publishes one `import`
     * event instead of one per row.
     */
    insert(
      w: WriteContext,
      table: string,
      rows: unknown[],
      opts: { resolution: Prefer['resolution']; onConflict: string | null; bulk?: boolean; returning?: Returning },
    ): { count: number; rows: Row[] } {
      const t = requireTable(w.db, table);
      if (opts.returning) projectRows([], opts.returning.select, t);
      if (rows.length === 0) return { count: 0, rows: [] };
      if (rows.length > 100_000 && !opts.bulk) throw new HearthError('invalid_request', 'at most 100,000 rows in one insert');
      const prepared = rows.map((r) => storedValues(t, r, 'insert'));
      let target = '';
      if (opts.onConflict) {
        const cols = opts.onConflict.split(',').map((c) => c.trim());
        for (const c of cols) if (!t.byName.has(c)) throw new HearthError('unknown_column', `on_conflict: ${t.name} has no column ${quoteInput(c)}`);
        target = `(${cols.map(q).join(', ')})`;
      }
      const convert = fullRow(t);
      const out: Row[] = [];
      const merged: Row[] = [];
      // Nobody needs the written rows back (no representation, and a bulk load, or no listener and no merge to tell
      // apart): skip RETURNING and the row conversion entirely.
      const lean = !opts.returning && (opts.bulk || (opts.resolution !== 'merge-duplicates' && !deps.events.wants(w.ns)));
      let written = 0;
      try {
        // Rows of one request almost always name the same columns: build the SQL and find the statement only when
        // the column list changes, not once per row.
        let lastKey: string | null = null;
        let stmt: Database.Statement | null = null;
        w.db.transaction(() => {
          for (const values of prepared) {
            const cols = [...values.keys()];
            const key = cols.join(',');
            if (key !== lastKey) {
              let sql = cols.length
                ? `INSERT INTO ${q(t.name)} (${cols.map(q).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`
                : `INSERT INTO ${q(t.name)} DEFAULT VALUES`;
              if (opts.resolution === 'ignore-duplicates') sql += ` ON CONFLICT ${target} DO NOTHING`;
              else if (opts.resolution === 'merge-duplicates') {
                const sets = cols.filter((c) => c !== 'id').map((c) => `${q(c)} = excluded.${q(c)}`);
                if (t.managed) sets.push(`"updated_at" = ${NOW_SQL}`);
                sql += sets.length ? ` ON CONFLICT ${target} DO UPDATE SET ${sets.join(', ')}` : ` ON CONFLICT ${target} DO NOTHING`;
              }
              if (!lean) sql += ' RETURNING *';
              stmt = prepare(w.db, sql);
              lastKey = key;
            }
            if (lean) {
              written += stmt!.run([...values.values()]).changes;
              continue;
            }
            const row = stmt!.get([...values.values()]) as Row | undefined;
            if (!row) continue;
            const r = convert(row);
            out.push(r);
            if (opts.resolution === 'merge-duplicates' && t.managed && r.created_at !== r.updated_at) merged.push(r);
          }
        })();
      } catch (err) {
        writeError(err, t.name, w.db);
      }
      if (lean) {
        if (opts.bulk) service.imported(w, t.name, written);
        else deps.events.spend(w.ns, written);
        return { count: written, rows: [] };
      }
      const mergedSet = new Set(merged);
      publish(
        w.ns,
        t.name,
        'insert',
        out.filter((r) => !mergedSet.has(r)),
        w.meta,
      );
      publish(w.ns, t.name, 'update', merged, w.meta);
      return { count: out.length, rows: opts.returning ? projectRows(out, opts.returning.select, t) : out };
    },

    /** Publishes the one `import` event (`{count}`) of a bulk load into `table`, also for one written elsewhere (a CSV import's worker). */
    imported(w: { ns: string; meta: Meta }, table: string, count: number): void {
      publish(w.ns, table, 'import', [{ count }], w.meta);
    },

    /** Updates every row matching the filters (or one id); returns the updated rows (shaped by `returning`'s select when set). */
    update(
      w: WriteContext,
      table: string,
      where: { params: URLSearchParams; dialect?: Dialect } | { id: string },
      body: unknown,
      opts: { returning?: Returning } = {},
    ): Row[] {
      const t = requireTable(w.db, table);
      if (opts.returning) projectRows([], opts.returning.select, t);
      const values = storedValues(t, body, 'update');
      const sets = [...values.keys()].map((c) => `${q(c)} = ?`);
      if (t.managed) sets.push(`"updated_at" = ${NOW_SQL}`);
      const params: unknown[] = [...values.values()];
      let whereSql: string;
      if ('id' in where) {
        whereSql = 'WHERE "id" = ?';
        params.push(requireId(t, where.id));
      } else {
        const built = buildWhere(t, where.params, { dialect: where.dialect });
        whereSql = built.sql;
        params.push(...built.params);
      }
      let rows: Row[];
      try {
        rows = w.db.transaction(() => prepare(w.db, `UPDATE ${q(t.name)} SET ${sets.join(', ')} ${whereSql} RETURNING *`).all(...params) as Row[])();
      } catch (err) {
        writeError(err, t.name, w.db);
      }
      const out = rows.map(fullRow(t));
      publish(w.ns, t.name, 'update', out, w.meta);
      return opts.returning ? projectRows(out, opts.returning.select, t) : out;
    },

    /** Deletes every row matching the filters (or one id); returns the deleted rows (shaped by `returning`'s select when set). */
    delete(
      w: WriteContext,
      table: string,
      where: { params: URLSearchParams; dialect?: Dialect } | { id: string },
      opts: { returning?: Returning } = {},
    ): Row[] {
      const t = requireTable(w.db, table);
      if (opts.returning) projectRows([], opts.returning.select, t);
      let whereSql: string;
      let params: unknown[];
      if ('id' in where) {
        whereSql = 'WHERE "id" = ?';
        params = [requireId(t, where.id)];
      } else {
        const built = buildWhere(t, where.params, { dialect: where.dialect });
        whereSql = built.sql;
        params = built.params;
      }
      let rows: Row[];
      try {
        rows = w.db.transaction(() => prepare(w.db, `DELETE FROM ${q(t.name)} ${whereSql} RETURNING *`).all(...params) as Row[])();
      } catch (err) {
        writeError(err, t.name, w.db);
      }
      const out = rows.map(fullRow(t));
      publish(w.ns, t.name, 'delete', out, w.meta);
      return opts.returning ? projectRows(out, opts.returning.select, t) : out;
    },
  };
  return service;
}

export type RowsService = ReturnType<typeof createRowsService>;
