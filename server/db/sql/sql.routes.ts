import type { Api } from '../../core/http/api.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import { abandonSignal, NsParams, openTenant } from '../plane.ts';
import { MAX_PARAMS, MAX_RESULT_BYTES, MAX_ROWS, MAX_STATEMENTS, QueryBody, QueryResponse } from './sql.schemas.ts';
import { createSqlService, type SqlService } from './sql.service.ts';

export { createSqlService, type SqlService };

/** The route's description (made when the OpenAPI document is: its limits come from sql.schemas.ts). */
const DESCRIPTION = () => `Runs read-only SQL against the namespace's database.

**Forms.** Single: \`{sql, params?}\` → \`{data: [row…]}\`. Batch: \`{statements: [{sql, params?}…]}\` (1–${MAX_STATEMENTS}) → \`{results: [{data: [row…]}…]}\`, one result per statement, in order. Batch statements run one after another on the same connection; they are not a transaction (each sees the data committed when it starts). \`params\` are positional \`?\` values (at most ${MAX_PARAMS}): strings, numbers (whole numbers bound as INTEGER), booleans (bound as 1/0) or null; named parameters are not supported.

**Read-only.** Each \`sql\` must be exactly one statement that SQLite itself reports read-only and that returns rows (SELECT, WITH … SELECT, VALUES, EXPLAIN); anything else is 400 \`not_read_only\`: writes (INSERT, UPDATE, DELETE, … RETURNING), DDL, ATTACH/DETACH, VACUUM (also \`VACUUM INTO\`), BEGIN/COMMIT/SAVEPOINT, and every PRAGMA statement (read introspection pragmas as table-valued functions, e.g. \`SELECT * FROM pragma_table_info('t')\`). The query runs in a separate process on a connection opened read-only with \`query_only\`; extension loading is unavailable (\`load_extension()\` fails with \`invalid_sql\`). A request with more than one statement in one \`sql\` string is 400 \`invalid_sql\`. Every statement of a batch is checked before any runs; a failing statement fails the whole request and the message names it (\`statements.2: …\`).

**Time limit.** A query may run for the namespace's \`query_timeout\` (milliseconds, default 10000), counted from when it starts running (waiting for a free query process is not counted). Past it the query is stopped and the answer is 504 \`query_timeout\`. Queries run outside the server's event loop in a small pool of processes, so a long query never delays other requests; one namespace can occupy all but one of them, so other namespaces keep getting answers. When every process is busy, requests wait in a bounded queue; a full queue answers 503 \`service_unavailable\` with \`Retry-After\`. With \`journal_mode: wal\` (the default) a query never delays writers; with a rollback journal (\`delete\`, \`truncate\`, \`persist\`) a running query holds a shared lock, so writes to that namespace wait for it (at most its \`query_timeout\`, or fail after their \`busy_timeout\`).

**Results.** Rows are objects (column name → value; with duplicate column names the last wins). INTEGER values beyond ±(2^53−1) come as decimal strings, BLOBs as base64 strings, ±Infinity as strings. A statement returns at most ${MAX_ROWS} rows, and a response at most ${MAX_RESULT_BYTES / 1024 / 1024} MiB of row data: rows beyond are not read and that result carries \`truncated: true\` (absent otherwise); in a batch, results after the size limit is reached are empty and truncated. Use LIMIT/OFFSET or keyset conditions to page.

Read-only tokens of the namespace may call this endpoint.`;

export function registerSqlRoutes(api: Api, deps: { namespaces: NamespaceService; sql: SqlService }): void {
  const { namespaces, sql } = deps;

  api.route({
    method: 'post',
    path: '/v1/:ns/query',
    operationId: 'query',
    tags: ['Query'],
    access: 'authenticated',
    summary: 'Run read-only SQL',
    description: DESCRIPTION,
    params: NsParams,
    body: () => QueryBody,
    responses: {
      200: { description: 'The rows: `{data}` for the single form, `{results}` for the batch form.', schema: () => QueryResponse },
      400: {
        description:
          "Invalid body or parameters (`invalid_request`, `invalid_json`), SQL that SQLite rejects (`invalid_sql`: syntax, unknown table or function, more than one statement; SQLite's message), or a statement that is not a read-only query (`not_read_only`).",
      },
      403: { description: 'The token may not use this namespace (`forbidden`).' },
      404: { description: 'No such namespace (`namespace_not_found`).' },
      503: {
        description: 'Too many queries waiting, the query process stopped unexpectedly, or the database stayed locked (`service_unavailable`); try again.',
      },
      504: { description: "The query ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`)." },
    },
    handler: async (ctx, { params, body }) => {
      const tenant = openTenant(ctx, namespaces, params.ns, 'read');
      const out = await sql.query(tenant, body, { signal: abandonSignal(ctx) });
      ctx.state.rowsRead = out.rows;
      ctx.type = 'application/json';
      ctx.body = out.body;
    },
  });
}
