/**
 * The row routes: `/v1/{ns}/tables/{table}/rows` (list, insert, update and delete by filter or id, CSV export) and
 * the PostgREST-compatible `/v1/{ns}/rest/{table}`. Bodies and queries are validated by rows.schemas.ts; the work is
 * rows.service.ts's. Handlers open the tenant, read `Prefer`, and shape the answer.
 *
 * Two route sets in one file, sharing the helpers at the top (`Prefer` and `returning`, `_meta`, the row counters,
 * the read errors). The PostgREST set (`registerRestRoutes`, with its Range and Content-Range rules) is a whole of its
 * own and could be a rest.routes.ts beside these helpers.
 */
import { z } from 'zod';
import { type Api, parse } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { readJsonBody } from '../../core/http/body.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import { abandonSignal, openTenant, type Tenant } from '../plane.ts';
import type { SqlService } from '../sql/sql.service.ts';
import { MAX_LIMIT } from './builder.ts';
import { exportCsv } from './csv.ts';
import { DeleteBody, FILTER_DOC, InsertBody, isObject, ListQuery, ListResponse, Row, RowParams, TableParams, WriteRow } from './rows.schemas.ts';
import { type Meta, type Prefer, parsePrefer, type Returning, type RowsService } from './rows.service.ts';

/** A page of rows (the admin UI imports this type from here). */
export type { RowsPage } from './rows.schemas.ts';

const tags = ['Rows'];
/** What a read run in a query process may answer besides its own statuses (see docs/api/rows.md#listing). */
const READ_ERRORS = {
  422: { description: 'The read needed more memory than a query process may use (`query_memory_exceeded`, HEARTH_QUERY_MEMORY_LIMIT).' },
  503: { description: 'Too many reads wait for a query process, or the database stayed locked (`service_unavailable`, with `Retry-After`).' },
  504: { description: "The read ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`)." },
};

/** How `/rest` reads the same grammar (the hearth/postgrest dialects of server/db/rows/grammar.ts). */
const REST_FILTER_DOC = () =>
  `${FILTER_DOC} On this surface filters are read as PostgREST reads them: a plain value is taken as written (\`name=eq."q"\` is the text \`"q"\`; ` +
  'quotes are stripped only inside `in.(…)` and logical expressions, and there only when the closing quote ends the item); spaces inside list items and ' +
  'expression values belong to the value; text after a logical expression, an `in.(…)` list or an `is` word is ignored; `in.("")` matches nothing. ' +
  '`order` puts nulls last ascending and first descending (PostgreSQL), unless `nullsfirst`/`nullslast` say otherwise.';

const REST_READ_DOC = () =>
  "A JSON array. `limit` and `offset` form PostgREST's window, rows `offset`…`offset+limit-1` clipped at row 0: a negative offset alone is ignored, " +
  '`limit=4&offset=-2` reads rows 0-1, and a window that ends before its first row (a negative limit, or `limit=0` with an offset) is 416. ' +
  'Without `limit` at most 10000 rows. `Content-Range: <first>-<last>/<total>` (`*` for an empty page), the total being the filtered count with ' +
  '`Prefer: count=exact` (or `count=exact`) and `*` otherwise. With a count the status is 206 when the page holds only part of the matching rows ' +
  `and 416 (\`Content-Range: */<total>\`) when the offset is past the last row. ${REST_FILTER_DOC()}`;

const PREFER_DOC =
  '`Prefer: return=representation` answers with the rows written; `return=minimal` with no body; without it an insert answers `{count}`. ' +
  '`Prefer: resolution=merge-duplicates` updates the existing row when a unique constraint conflicts (an upsert; `on_conflict=<columns>` names the constraint, otherwise any unique conflict counts), `resolution=ignore-duplicates` skips such rows.';

/** The `_meta` of a write (checked by WriteMeta), its actor defaulting to the caller. */
const metaOf = (meta: Meta | undefined, actor: string): Meta => ({ ...meta, actor: meta?.actor ?? actor });

const params = (ctx: AppContext) => new URLSearchParams(ctx.querystring);

/** Answers JSON text the query process already wrote (not parsed and serialized again). */
function jsonText(ctx: AppContext, text: string): string {
  ctx.type = 'application/json';
  return text;
}

/** With `Prefer: return=representation` a write answers with its rows, shaped by `select` (checked before the write). */
const returning = (ctx: AppContext, prefer: Prefer): Returning | undefined =>
  prefer.return === 'representation' ? { select: params(ctx).get('select') } : undefined;

function countRows(ctx: { state: { rowsRead?: number; rowsWritten?: number } }, key: 'rowsRead' | 'rowsWritten', n: number) {
  ctx.state[key] = (ctx.state[key] ?? 0) + n;
}

/** DELETE may carry `{_meta}`; anything else is refused. */
async function optionalBody(ctx: AppContext): Promise<{ _meta?: Meta } | undefined> {
  const body = await readJsonBody(ctx, 1024 * 1024);
  if (body === undefined) return undefined;
  if (!isObject(body) || Object.keys(body).some((k) => k !== '_meta'))
    throw new HearthError('invalid_request', 'body: a DELETE body may only be {"_meta": {...}}');
  return parse(DeleteBody, body, 'body');
}

export function registerRowRoutes(
  api: Api,
  deps: { namespaces: NamespaceService; rows: RowsService; queries: SqlService; elsewhere?: (ns: string) => boolean },
): void {
  const { namespaces, rows, queries } = deps;
  const writer = (t: Tenant, meta: Meta) => ({ ns: t.ns, db: t.db, meta });

  api.route({
    method: 'get',
    path: '/v1/:ns/tables/:table/rows',
    operationId: 'listRows',
    tags,
    access: 'authenticated',
    summary: 'List rows',
    description: () => FILTER_DOC,
    params: () => TableParams,
    query: () => ListQuery,
    responses: {
      200: { description: '`{data, meta: {limit, offset, total_count?, filter_count?}}`; aggregates answer `{data}`.', schema: () => ListResponse },
      404: { description: 'No such namespace or table.' },
      ...READ_ERRORS,
    },
    handler: async (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'read');
      const q = params(ctx);
      const countExact = q.get('count') === 'exact' || parsePrefer(ctx.get('prefer')).count === 'exact';
      if (q.has('count') && q.get('count') !== 'exact') throw new HearthError('invalid_request', 'count takes the value exact');
      const result = await rows.list(t, p.table, q, { countExact, signal: () => abandonSignal(ctx) });
      countRows(ctx, 'rowsRead', result.rows);
      return jsonText(ctx, result.meta ? `{"data":${result.body},"meta":${JSON.stringify(result.meta)}}` : `{"data":${result.body}}`);
    },
  });

  api.route({
    method: 'post',
    path: '/v1/:ns/tables/:table/rows',
    operationId: 'insertRows',
    // `on_conflict`, `columns` and the `select` of return=representation: read by the handler.
    readsQuery: true,
    tags,
    access: 'authenticated',
    summary: 'Insert rows',
    description: `A multi-row insert is one transaction: all rows or none. ${PREFER_DOC}`,
    params: () => TableParams,
    body: () => InsertBody,
    responses: {
      201: {
        description: '`{count}`, or `{data: [rows]}` with return=representation; empty with return=minimal.',
        schema: () => z.object({ count: z.number().int().optional(), data: z.array(Row).optional() }),
      },
      400: {
        description:
          "Invalid rows (`invalid_value`, `not_null_violation`, `max_length_violation`, `min_violation`, `max_violation`, `unknown_column` (any key that is not a column, `__proto__` included), `invalid_request`), or a constraint of the table that SQLite enforces (`check_violation`, `foreign_key_violation`, `trigger_violation` for a trigger's RAISE, `datatype_mismatch`, `value_too_large`, `value_out_of_range`, `constraint_violation`); the same for every write.",
      },
      404: { description: 'No such namespace or table.' },
      409: { description: '`unique_violation`, or `namespace_read_only`.' },
      507: { description: 'The write would exceed `max_db_size` (`quota_exceeded`), or the disk is full (`disk_full`); nothing was written.' },
    },
    handler: (ctx, { params: p, body }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const prefer = parsePrefer(ctx.get('prefer'));
      const list = Array.isArray(body.rows) ? body.rows : [body];
      const written = rows.insert(writer(t, metaOf(body._meta, t.actor)), p.table, list, {
        resolution: prefer.resolution,
        onConflict: params(ctx).get('on_conflict'),
        returning: returning(ctx, prefer),
      });
      countRows(ctx, 'rowsWritten', written.count);
      ctx.status = 201;
      if (prefer.return === 'minimal') return '';
      if (prefer.return === 'representation') return { data: written.rows };
      return { count: written.count };
    },
  });

  api.route({
    method: 'patch',
    path: '/v1/:ns/tables/:table/rows',
    operationId: 'updateRows',
    tags,
    access: 'authenticated',
    summary: 'Update the rows matching the filters',
    description: () => `Body: the columns to set, plus optional \`_meta\`. Without filters every row is updated. ${FILTER_DOC}`,
    params: () => TableParams,
    query: () => ListQuery,
    body: () => WriteRow,
    responses: {
      200: {
        description: '`{count}`, or `{data: [rows]}` with return=representation.',
        schema: () => z.object({ count: z.number().int().optional(), data: z.array(Row).optional() }),
      },
      204: { description: 'With return=minimal.' },
      404: { description: 'No such namespace or table.' },
    },
    handler: (ctx, { params: p, body }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const prefer = parsePrefer(ctx.get('prefer'));
      const updated = rows.update(writer(t, metaOf(body._meta, t.actor)), p.table, { params: params(ctx) }, body, { returning: returning(ctx, prefer) });
      countRows(ctx, 'rowsWritten', updated.length);
      if (prefer.return === 'minimal') {
        ctx.status = 204;
        return;
      }
      return prefer.return === 'representation' ? { data: updated } : { count: updated.length };
    },
  });

  api.route({
    method: 'delete',
    path: '/v1/:ns/tables/:table/rows',
    operationId: 'deleteRows',
    tags,
    access: 'authenticated',
    summary: 'Delete the rows matching the filters',
    description: () => `An unfiltered delete removes every row: guard it in the caller. Optional body \`{_meta}\`. ${FILTER_DOC}`,
    params: () => TableParams,
    query: () => ListQuery,
    responses: {
      204: { description: 'Deleted.' },
      200: { description: 'With return=representation: `{data: [deleted rows]}`.', schema: () => z.object({ data: z.array(Row) }) },
      404: { description: 'No such namespace or table.' },
    },
    handler: async (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const body = await optionalBody(ctx);
      const prefer = parsePrefer(ctx.get('prefer'));
      const deleted = rows.delete(writer(t, metaOf(body?._meta, t.actor)), p.table, { params: params(ctx) }, { returning: returning(ctx, prefer) });
      countRows(ctx, 'rowsWritten', deleted.length);
      if (prefer.return === 'representation') return { data: deleted };
      ctx.status = 204;
    },
  });

  // A hot route (server/core/http/hot.ts): the read a client makes most often, answered without Koa's machinery.
  api.hotRoute({
    method: 'get',
    path: '/v1/:ns/tables/:table/rows/:id',
    operationId: 'getRow',
    tags,
    access: 'authenticated',
    summary: 'Get one row',
    params: () => RowParams,
    responses: {
      200: { description: 'The row.', schema: () => Row },
      404: { description: 'No such namespace, table or row (`row_not_found`).' },
      ...READ_ERRORS,
    },
    // A namespace held by another node: Koa forwards the request there.
    handOff: deps.elsewhere
      ? (p, err) => (err === undefined ? deps.elsewhere!(p.ns!) : err instanceof HearthError && err.code === 'namespace_elsewhere')
      : undefined,
    handler: async (ctx, p) => {
      const t = openTenant(ctx, namespaces, p.ns, 'read');
      const row = await rows.get(t, p.table, p.id, { signal: () => abandonSignal(ctx) });
      countRows(ctx, 'rowsRead', 1);
      ctx.set('Content-Type', 'application/json; charset=utf-8');
      return row;
    },
  });

  api.route({
    method: 'put',
    path: '/v1/:ns/tables/:table/rows/:id',
    operationId: 'updateRow',
    tags,
    access: 'authenticated',
    summary: 'Update one row',
    description: 'Body: the columns to change, plus optional `_meta`. Answers with the updated row (204 with `Prefer: return=minimal`).',
    params: () => RowParams,
    body: () => WriteRow,
    responses: { 200: { description: 'The updated row.', schema: () => Row }, 404: { description: 'No such namespace, table or row.' } },
    handler: (ctx, { params: p, body }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const updated = rows.update(writer(t, metaOf(body._meta, t.actor)), p.table, { id: p.id }, body);
      if (updated.length === 0) throw new HearthError('row_not_found', `${p.table} has no row with id ${p.id}`);
      countRows(ctx, 'rowsWritten', 1);
      if (parsePrefer(ctx.get('prefer')).return === 'minimal') {
        ctx.status = 204;
        return;
      }
      return updated[0];
    },
  });

  api.route({
    method: 'delete',
    path: '/v1/:ns/tables/:table/rows/:id',
    operationId: 'deleteRow',
    tags,
    access: 'authenticated',
    summary: 'Delete one row',
    description: 'Optional body `{_meta}`. 204, or 200 with the deleted row with `Prefer: return=representation`.',
    params: () => RowParams,
    responses: {
      204: { description: 'Deleted.' },
      200: { description: 'The deleted row (return=representation).', schema: () => Row },
      404: { description: 'No such namespace, table or row.' },
    },
    handler: async (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const body = await optionalBody(ctx);
      const deleted = rows.delete(writer(t, metaOf(body?._meta, t.actor)), p.table, { id: p.id });
      if (deleted.length === 0) throw new HearthError('row_not_found', `${p.table} has no row with id ${p.id}`);
      countRows(ctx, 'rowsWritten', 1);
      if (parsePrefer(ctx.get('prefer')).return === 'representation') return deleted[0];
      ctx.status = 204;
    },
  });

  api.route({
    method: 'get',
    path: '/v1/:ns/tables/:table/export',
    operationId: 'exportRows',
    tags,
    access: 'authenticated',
    summary: 'Export rows as CSV',
    description: () =>
      `RFC 4180 CSV with a header row, streamed with constant memory from a query process on a read-only connection, only as fast as the client reads; SQLite's time to produce each chunk the client waits for is bounded by the namespace's \`query_timeout\` (504 before the first byte). \`format=csv\` is required; filters, \`select\`, \`order\`, \`search\` work as in listing; \`limit\` is optional (all matching rows by default); \`bom=true\` prepends a UTF-8 byte-order mark. NULL is an empty field, an empty string is \`""\`; booleans are true/false, json columns their JSON text, blobs base64. Once streaming has begun an error cuts the connection (the status was already sent). ${FILTER_DOC}`,
    params: () => TableParams,
    query: () => ListQuery.extend({ format: z.literal('csv'), bom: z.enum(['true', 'false']).optional() }),
    responses: {
      200: { description: 'The CSV file.', contentType: 'text/csv; charset=utf-8', schema: z.string() },
      404: { description: 'No such namespace or table.' },
      ...READ_ERRORS,
    },
    handler: async (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'read');
      await exportCsv(ctx, { tenant: t, table: p.table, params: params(ctx), rows, queries, signal: abandonSignal(ctx) });
    },
  });
}

/**
 * PostgREST's window over `limit` and `offset` (its RangeQuery.hs and ApiRequest.getRanges): rows `offset` through
 * `offset + limit - 1`, clipped at row 0. A negative offset alone is therefore ignored, and with a limit it shortens
 * the page (`limit=4&offset=-2` reads rows 0-1); a window that ends on row -1 (`limit=0`, `limit=2&offset=-2`) is
 * an empty page; one that ends before its first row (a negative limit, or `limit=0` with an offset) is refused
 * (`negativeLimit`). Non-integers stay a 400, as on the /tables surface (PostgREST ignores them).
 */
function restWindow(limitRaw: string | null, offsetRaw: string | null): { offset: number; limit: number | null } | 'negativeLimit' {
  const int = (name: string, raw: string | null) => {
    if (raw === null || raw === '') return null;
    if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw new HearthError('invalid_request', `${name} must be a whole number (got ${quoteInput(raw)})`);
    return Number(raw);
  };
  const limit = int('limit', limitRaw);
  const lower = int('offset', offsetRaw) ?? 0;
  if (limit === null) return { offset: Math.max(0, lower), limit: null };
  const upper = lower + limit - 1;
  if (upper === -1) return { offset: 0, limit: 0 };
  const first = Math.max(0, lower);
  return upper < first ? 'negativeLimit' : { offset: first, limit: upper - first + 1 };
}

/** PostgREST's status and Content-Range of a read (RangeQuery.rangeStatusHeader): 416 past the end, 206 for part. */
function restRangeStatus(first: number, returned: number, total: number | null): { status: 200 | 206 | 416; contentRange: string } {
  const last = first + returned - 1;
  const range = total !== 0 && first <= last ? `${first}-${last}` : '*';
  const status = total === null ? 200 : first > total ? 416 : returned < total ? 206 : 200;
  return { status, contentRange: `${range}/${total ?? '*'}` };
}

/**
 * PostgREST's 416 answer (PGRST103), inside Hearth's envelope: `error` and `message` as on every error, plus the
 * `code`, `details` and `hint` that PostgREST clients read.
 */
const rangeNotSatisfiable = (details: string) => ({
  error: 'range_not_satisfiable',
  message: 'Requested range not satisfiable',
  code: 'PGRST103',
  details,
  hint: null,
});

/**
 * A PostgREST-compatible surface over the same engine, for PostgREST clients such as `@supabase/postgrest-js`:
 * `/v1/{ns}/rest/{table}` answers bare JSON arrays, reports counts in `Content-Range`, honours
 * `Accept: application/vnd.pgrst.object+json` (exactly one row, else 406), accepts arrays on insert, and
 * defaults to `return=minimal` like PostgREST.
 */
export function registerRestRoutes(api: Api, deps: { namespaces: NamespaceService; rows: RowsService }): void {
  const { namespaces, rows } = deps;
  const rtags = ['PostgREST-compatible rows'];
  const SINGLE = 'application/vnd.pgrst.object+json';
  const respond = (ctx: AppContext, data: Record<string, unknown>[], status: number) => {
    if (ctx.get('accept').includes(SINGLE)) {
      if (data.length !== 1) throw new HearthError('not_acceptable', `JSON object requested, but ${data.length} rows were returned`);
      ctx.status = status;
      ctx.type = SINGLE;
      return data[0];
    }
    ctx.status = status;
    return data;
  };
  const writer = (t: Tenant, meta: Meta) => ({ ns: t.ns, db: t.db, meta });
  const path = '/v1/:ns/rest/:table';

  api.route({
    method: 'get',
    path,
    operationId: 'restSelect',
    tags: rtags,
    access: 'authenticated',
    summary: 'Select rows (PostgREST)',
    description: REST_READ_DOC,
    params: () => TableParams,
    query: () => ListQuery,
    responses: {
      200: { description: 'Rows, with `Content-Range: <first>-<last>/<total or *>` (`*/<total>` for an empty page).', schema: () => z.array(Row) },
      206: { description: 'With a count, a page that holds only part of the matching rows.', schema: () => z.array(Row) },
      406: { description: 'Single object requested but not exactly one row (`not_acceptable`).' },
      416: {
        description:
          'With a count, an offset past the last row (`Content-Range: */<total>`); or a negative limit. Body: `{error: "range_not_satisfiable", message: "Requested range not satisfiable", code: "PGRST103", details, hint: null}`.',
      },
      ...READ_ERRORS,
    },
    handler: async (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'read');
      const q = params(ctx);
      const window = restWindow(q.get('limit'), q.get('offset'));
      if (window === 'negativeLimit') {
        ctx.status = 416;
        return rangeNotSatisfiable('Limit should be greater than or equal to zero.');
      }
      q.set('limit', String(window.limit ?? MAX_LIMIT));
      q.set('offset', String(window.offset));
      const countExact = q.get('count') === 'exact' || parsePrefer(ctx.get('prefer')).count === 'exact';
      const result = await rows.list(t, p.table, q, { countExact, dialect: 'postgrest', signal: () => abandonSignal(ctx) });
      const total = result.counts ? result.counts.filtered : null;
      const { status, contentRange } = restRangeStatus(window.offset, result.rows, total);
      ctx.set('Content-Range', contentRange);
      countRows(ctx, 'rowsRead', result.rows);
      if (status === 416) {
        ctx.status = 416;
        return rangeNotSatisfiable(`An offset of ${window.offset} was requested, but there are only ${total} rows.`);
      }
      ctx.status = status;
      if (ctx.get('accept').includes(SINGLE)) {
        if (result.rows !== 1) throw new HearthError('not_acceptable', `JSON object requested, but ${result.rows} rows were returned`);
        ctx.type = SINGLE;
        return result.body.slice(1, -1);
      }
      return jsonText(ctx, result.body);
    },
  });

  api.route({
    method: 'post',
    path,
    operationId: 'restInsert',
    // `on_conflict`, `columns` and the `select` of return=representation: read by the handler.
    readsQuery: true,
    tags: rtags,
    access: 'authenticated',
    summary: 'Insert rows (PostgREST)',
    description: `A row or an array of rows, in one transaction. ${PREFER_DOC} Without \`Prefer: return=representation\` the answer is 201 with no body.`,
    params: () => TableParams,
    body: () => z.union([WriteRow, z.array(Row)]),
    responses: { 201: { description: 'Inserted (rows with return=representation).', schema: () => z.array(Row) } },
    handler: (ctx, { params: p, body }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const prefer = parsePrefer(ctx.get('prefer'));
      const list = Array.isArray(body) ? body : [body];
      const written = rows.insert(writer(t, metaOf(Array.isArray(body) ? undefined : body._meta, t.actor)), p.table, list, {
        resolution: prefer.resolution,
        onConflict: params(ctx).get('on_conflict'),
        returning: returning(ctx, prefer),
      });
      countRows(ctx, 'rowsWritten', written.count);
      if (prefer.return === 'representation') return respond(ctx, written.rows, 201);
      ctx.status = 201;
      return '';
    },
  });

  api.route({
    method: 'patch',
    path,
    operationId: 'restUpdate',
    tags: rtags,
    access: 'authenticated',
    summary: 'Update rows (PostgREST)',
    description: REST_FILTER_DOC,
    params: () => TableParams,
    query: () => ListQuery,
    body: () => WriteRow,
    responses: { 200: { description: 'Updated rows (return=representation).', schema: () => z.array(Row) }, 204: { description: 'Updated.' } },
    handler: (ctx, { params: p, body }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const prefer = parsePrefer(ctx.get('prefer'));
      const updated = rows.update(writer(t, metaOf(body._meta, t.actor)), p.table, { params: params(ctx), dialect: 'postgrest' }, body, {
        returning: returning(ctx, prefer),
      });
      countRows(ctx, 'rowsWritten', updated.length);
      if (prefer.return === 'representation') return respond(ctx, updated, 200);
      ctx.status = 204;
    },
  });

  api.route({
    method: 'delete',
    path,
    operationId: 'restDelete',
    tags: rtags,
    access: 'authenticated',
    summary: 'Delete rows (PostgREST)',
    description: REST_FILTER_DOC,
    params: () => TableParams,
    query: () => ListQuery,
    responses: { 200: { description: 'Deleted rows (return=representation).', schema: () => z.array(Row) }, 204: { description: 'Deleted.' } },
    handler: (ctx, { params: p }) => {
      const t = openTenant(ctx, namespaces, p.ns, 'write');
      const prefer = parsePrefer(ctx.get('prefer'));
      const deleted = rows.delete(writer(t, { actor: t.actor }), p.table, { params: params(ctx), dialect: 'postgrest' }, { returning: returning(ctx, prefer) });
      countRows(ctx, 'rowsWritten', deleted.length);
      if (prefer.return === 'representation') return respond(ctx, deleted, 200);
      ctx.status = 204;
    },
  });
}
