/**
 * The zod schemas of the row routes (rows.routes.ts), which validate requests and describe them in the OpenAPI
 * document: what a row, an insert, `_meta` and a listing's query look like. A write's body is checked here once;
 * the service checks each row's keys and values against the table's columns.
 */
import { z } from 'zod';
import { NsParams } from '../plane.ts';
import type { Meta } from './rows.service.ts';

export const TableParams = NsParams.extend({ table: z.string() });
export const RowParams = TableParams.extend({ id: z.string().meta({ description: 'The row id (integer).' }) });
/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const ROW_DOC = 'A flat object of column values (json columns hold any JSON; blobs are base64). A key that is not a column is 400 `unknown_column`.';
/**
 * A row as sent: any JSON object, passed on as parsed. zod's record and object schemas build a new object and leave
 * out a `__proto__` key (so that it cannot reach an object's prototype); a row's keys are checked against the columns
 * instead (`storedValues`, which reads them into a Map), so such a key is 400 `unknown_column` like any other.
 * A row that is not an object does not abort the parse (`abort: false`), so that InsertBody names it (`rows.3: …`).
 */
export const Row = z
  .custom<Record<string, unknown>>(isObject, { message: 'expected a JSON object', abort: false })
  .meta({ id: 'Row', type: 'object', additionalProperties: {}, description: ROW_DOC });
/**
 * `_meta`, which every write may carry: an object whose `actor` (the default is the caller) is a string; other keys
 * travel to the change events as sent. Its issues do not abort a parse (a custom check rather than `z.object`), so
 * that inside InsertBody's union a bad `_meta` is reported as such rather than as "no option matched".
 */
const META_JSON = {
  type: 'object',
  properties: { actor: { type: 'string' } },
  additionalProperties: {},
  description: 'Who made the change and why (`{"actor": "alice", "reason": "…"}`); `actor` defaults to the caller.',
} as const;
export const WriteMeta = z
  .custom<Meta>(isObject, { message: 'must be an object like {"actor": "alice"}', abort: false })
  .refine((m) => !isObject(m) || m.actor === undefined || typeof m.actor === 'string', { message: 'must be a string', path: ['actor'] })
  .meta(META_JSON);
/** Checks a row's `_meta` key (if any) against WriteMeta. */
function rowMeta(row: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (!isObject(row) || row._meta === undefined) return;
  const checked = WriteMeta.safeParse(row._meta);
  if (!checked.success) for (const issue of checked.error.issues) ctx.addIssue({ ...issue, path: ['_meta', ...issue.path] } as never);
}
/** A row sent to be written: a Row whose `_meta` key, if present, is a WriteMeta (the key is not a column). */
export const WriteRow = z
  .custom<Record<string, unknown> & { _meta?: Meta }>(isObject, { message: 'expected a JSON object' })
  .superRefine(rowMeta)
  .meta({
    id: 'WriteRow',
    type: 'object',
    properties: { _meta: META_JSON },
    additionalProperties: {},
    description: `${ROW_DOC} Optional \`_meta\` (not a column).`,
  });

export const FILTER_DOC =
  'Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` ' +
  '(`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), ' +
  '`eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), ' +
  '`not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions ' +
  '(spaces around their parentheses, commas and column names are skipped). ' +
  'Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. ' +
  "Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. " +
  "Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`).";

export const ListQuery = z
  .object({
    select: z.string().optional().meta({
      description:
        'Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`.',
    }),
    order: z.string().optional().meta({
      description:
        '`column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL).',
    }),
    limit: z.string().optional().meta({ description: 'Default 100, at most 10000.' }),
    offset: z.string().optional(),
    count: z.literal('exact').optional().meta({
      description: '`exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same.',
    }),
    search: z.string().optional().meta({ description: "Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix." }),
    or: z.string().optional(),
    and: z.string().optional(),
  })
  .catchall(z.union([z.string(), z.array(z.string())]))
  .meta({ description: FILTER_DOC });

export const ListResponse = z
  .object({
    data: z.array(Row),
    meta: z
      .object({ limit: z.number().int(), offset: z.number().int(), total_count: z.number().int().optional(), filter_count: z.number().int().optional() })
      .optional(),
  })
  .meta({ id: 'RowList' });
/** A page of rows (the admin UI imports this type). */
export type RowsPage = z.output<typeof ListResponse>;

/**
 * What an insert takes. The two options never both match: `{rows: [...]}` is the envelope (a key beside `rows` and
 * `_meta`, a row that is not an object, more than 100,000 rows are its 400s), any other object is one row (so a
 * column may be called `rows` when it holds no array). The one-row option aborts on an envelope, so a failing
 * envelope reports its own issue; a top-level array matches neither and is refused by `parse` (server/core/http/api.ts).
 */
export const InsertBody = z
  .union([
    z.strictObject({
      // A refinement rather than .max(): zod's size limits abort the parse, and an aborted envelope would leave the union without its issue.
      rows: z
        .array(Row)
        .refine((list) => list.length <= 100_000, 'at most 100,000 rows in one insert')
        .meta({ maxItems: 100_000 }),
      _meta: WriteMeta.optional(),
    }),
    WriteRow.refine((row) => !Array.isArray(row.rows), { message: 'an envelope is not a row', abort: true }),
  ])
  .meta({ id: 'InsertRows', description: 'One row as a flat object (optionally with `_meta`), or `{rows: [...], _meta}`. A top-level array is rejected.' });

/** A DELETE's optional body (not in the OpenAPI description: a route's declared body is required). */
export const DeleteBody = z.object({ _meta: WriteMeta.optional() });
