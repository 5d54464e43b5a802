/**
 * The API's paths, parameters, bodies and answers, generated from the OpenAPI document the server publishes
 * (`GET /v1/openapi.json`) by `npm run build:openapi` (build/openapi.ts, openapi-typescript). Do not edit: change the
 * server's route definitions and schemas, then run `npm run build:openapi`.
 */

export interface paths {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Health
     * @description Answers 200 when the server can serve requests: `status: ok`, or `degraded` when only the `disk` check fails (less free space than its reserve, 1 % of the disk and at most 64 MiB, on the disk holding the data folder: writes that need more space answer 507 `disk_full`). Answers 503 `unavailable` when the platform database cannot be written, the signing keys are not loaded, or the server is shutting down.
     */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Prometheus metrics
     * @description Prometheus text format: `hearth_http_requests_total` and `hearth_http_request_duration_seconds` by method, route and status; `hearth_namespaces`; `hearth_namespace_handles_open`; `hearth_nodes_healthy` and `hearth_node_namespaces` by node; `hearth_backup_last_success_timestamp_seconds`, `hearth_backup_last_failure_timestamp_seconds`, `hearth_backup_running` and `hearth_backup_duration_seconds`; Node.js process metrics including `hearth_nodejs_eventloop_lag_seconds`.
     */
    get: operations['metrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List API tokens
     * @description Never returns token secrets.
     */
    get: operations['listTokens'];
    put?: never;
    /**
     * Create an API token
     * @description The secret `token` is in this answer only; Hearth stores its SHA-256.
     */
    post: operations['createToken'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/tokens/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke an API token
     * @description The record stays (with `revoked_at`) for the audit trail.
     */
    delete: operations['revokeToken'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the audit log
     * @description Newest first. Pass the last `id` of a page as `before` for the next one.
     */
    get: operations['listAudit'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List namespaces
     * @description Ordered by name. Reads only the registry: no tenant database is opened. Pass `next_cursor` as `cursor` for the next page; it is `null` on the last page.
     */
    get: operations['listNamespaces'];
    put?: never;
    /**
     * Create a namespace
     * @description Creates an empty SQLite database. Omitted settings take their defaults. With several nodes (replicas sharing one core store) it is placed on `node`, or on the healthy node holding the fewest namespaces; on another node `storage` is `null` until that node has created the database.
     */
    post: operations['createNamespace'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces/{ns}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a namespace */
    get: operations['getNamespace'];
    /**
     * Replace the configuration
     * @description Replaces the whole configuration (settings left out return to their defaults) and applies it to the open connection at once.
     */
    put: operations['replaceNamespaceConfig'];
    post?: never;
    /** Delete a namespace and its database */
    delete: operations['deleteNamespace'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces/{ns}/duplicate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Duplicate a namespace
     * @description Copies a consistent snapshot (taken on a read-only connection of its own while writes continue) into a new namespace with the same configuration. The copy is independent of its source. Answers with the new namespace record.
     */
    post: operations['duplicateNamespace'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces/{ns}/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Export the database file
     * @description Streams a consistent snapshot of the database as a self-contained SQLite file (rollback-journal mode). `Content-Length` is set so clients can show progress.
     */
    get: operations['exportNamespace'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces/{ns}/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Import a database file (or CSV rows into a table)
     * @description Without `table`: the single multipart field `file` must hold a healthy SQLite database that fits `max_db_size`, saved in any journal mode (`wal`, `delete`, `truncate`, `persist`, `memory`, `off`); it then atomically replaces the namespace database, runs with the namespace's own configuration (its `journal_mode` included), and the answer is 200 with the updated namespace record. A failed import leaves the old database untouched. Parts up to 64 MiB are kept in memory, larger ones spill to a temporary file. With `table`: the file is CSV (header line = column names) and its rows are inserted in one transaction; every bad value and malformed line is reported and then nothing is imported: 400 `invalid_csv` with `details` `{total, shown, lines: [{line, column, reason}]}` listing the first 1,000 problems by line (`column` null when the whole line is wrong) and counting all of them.
     */
    post: operations['importNamespace'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List tables and views
     * @description Ordered by name. Objects whose names start with `_` or `sqlite_` belong to the service and are not listed.
     */
    get: operations['listTables'];
    put?: never;
    /**
     * Create a table or view
     * @description A table gets `id` (integer primary key), `created_at` and `updated_at` (UTC ISO 8601), maintained by the service, besides its columns. A view's `sql` must be one read-only SELECT.
     */
    post: operations['createTable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables/{table}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a table or view schema */
    get: operations['getTable'];
    /**
     * Alter a table or view
     * @description Only the operations sent are applied, all in one transaction with one changelog entry. Column changes rebuild the table (data, indexes and the full-text index are kept; an index over a dropped column is dropped and recorded as its own `drop_index` entry). `not_null` columns cannot be added to a table (existing rows would be NULL). Renaming a table keeps the views that read it working (SQLite rewrites them to the new name). Dropping or renaming a column a view reads, and renaming or changing the `sql` of a view another view reads, is refused with 409 `dependent_views` unless `cascade=true`. Renaming to the current name, or a column to its own name, changes nothing: such a request is answered 200 without a changelog entry or an event.
     */
    put: operations['updateTable'];
    post?: never;
    /**
     * Drop a table or view
     * @description Drops the table (rows, indexes, full-text index) or view. A table or view that other views read is refused with 409 `dependent_views` naming them; with `cascade=true` those views are dropped too, each recorded in the changelog (`drop_view`, `detail: {dropped_with}`) and published before the drop itself. The optional JSON body `{_meta: {actor}}` is recorded.
     */
    delete: operations['dropTable'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables/{table}/indexes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create an index
     * @description `index` and `unique` take a `name`; `fts` takes none (it is addressed as `fts`), indexes text or json columns with SQLite FTS5 and is kept in sync with the table by triggers. One fts index per table.
     */
    post: operations['createIndex'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables/{table}/indexes/{index}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Drop an index
     * @description The optional JSON body `{_meta: {actor}}` is recorded in the changelog.
     */
    delete: operations['dropIndex'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/changelog': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Schema changelog
     * @description Newest first. Each schema change writes one entry in the same transaction as the change; what it did besides (views dropped with `cascade`, indexes dropped with their columns) gets entries of its own just before it. `table` selects the history of one table or view across its renames.
     */
    get: operations['changelog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables/{table}/rows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List rows
     * @description Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`).
     */
    get: operations['listRows'];
    put?: never;
    /**
     * Insert rows
     * @description A multi-row insert is one transaction: all rows or none. `Prefer: return=representation` answers with the rows written; `return=minimal` with no body; without it an insert answers `{count}`. `Prefer: resolution=merge-duplicates` updates the existing row when a unique constraint conflicts (an upsert; `on_conflict=<columns>` names the constraint, otherwise any unique conflict counts), `resolution=ignore-duplicates` skips such rows.
     */
    post: operations['insertRows'];
    /**
     * Delete the rows matching the filters
     * @description An unfiltered delete removes every row: guard it in the caller. Optional body `{_meta}`. Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`).
     */
    delete: operations['deleteRows'];
    options?: never;
    head?: never;
    /**
     * Update the rows matching the filters
     * @description Body: the columns to set, plus optional `_meta`. Without filters every row is updated. Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`).
     */
    patch: operations['updateRows'];
    trace?: never;
  };
  '/v1/{ns}/tables/{table}/rows/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get one row */
    get: operations['getRow'];
    /**
     * Update one row
     * @description Body: the columns to change, plus optional `_meta`. Answers with the updated row (204 with `Prefer: return=minimal`).
     */
    put: operations['updateRow'];
    post?: never;
    /**
     * Delete one row
     * @description Optional body `{_meta}`. 204, or 200 with the deleted row with `Prefer: return=representation`.
     */
    delete: operations['deleteRow'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/tables/{table}/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Export rows as CSV
     * @description RFC 4180 CSV with a header row, streamed with constant memory from a query process on a read-only connection, only as fast as the client reads; SQLite's time to produce each chunk the client waits for is bounded by the namespace's `query_timeout` (504 before the first byte). `format=csv` is required; filters, `select`, `order`, `search` work as in listing; `limit` is optional (all matching rows by default); `bom=true` prepends a UTF-8 byte-order mark. NULL is an empty field, an empty string is `""`; booleans are true/false, json columns their JSON text, blobs base64. Once streaming has begun an error cuts the connection (the status was already sent). Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`).
     */
    get: operations['exportRows'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/namespaces/{ns}/move': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Move a namespace to another node
     * @description With several nodes (replicas sharing one core store): copies the database to `node` while it stays online and switches the placement. Writes to the namespace pause for the copy and the transfer (proportional to its size; reads go on); a write waits up to the namespace's `busy_timeout` (at least 1 s) and then goes on at the new node, or fails with 503 `namespace_unavailable` and `Retry-After`. Nothing written is lost. See docs/api/namespaces.md.
     */
    post: operations['moveNamespace'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/rest/{table}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Select rows (PostgREST)
     * @description A JSON array. `limit` and `offset` form PostgREST's window, rows `offset`…`offset+limit-1` clipped at row 0: a negative offset alone is ignored, `limit=4&offset=-2` reads rows 0-1, and a window that ends before its first row (a negative limit, or `limit=0` with an offset) is 416. Without `limit` at most 10000 rows. `Content-Range: <first>-<last>/<total>` (`*` for an empty page), the total being the filtered count with `Prefer: count=exact` (or `count=exact`) and `*` otherwise. With a count the status is 206 when the page holds only part of the matching rows and 416 (`Content-Range: *\/<total>`) when the offset is past the last row. Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`). On this surface filters are read as PostgREST reads them: a plain value is taken as written (`name=eq."q"` is the text `"q"`; quotes are stripped only inside `in.(…)` and logical expressions, and there only when the closing quote ends the item); spaces inside list items and expression values belong to the value; text after a logical expression, an `in.(…)` list or an `is` word is ignored; `in.("")` matches nothing. `order` puts nulls last ascending and first descending (PostgreSQL), unless `nullsfirst`/`nullslast` say otherwise.
     */
    get: operations['restSelect'];
    put?: never;
    /**
     * Insert rows (PostgREST)
     * @description A row or an array of rows, in one transaction. `Prefer: return=representation` answers with the rows written; `return=minimal` with no body; without it an insert answers `{count}`. `Prefer: resolution=merge-duplicates` updates the existing row when a unique constraint conflicts (an upsert; `on_conflict=<columns>` names the constraint, otherwise any unique conflict counts), `resolution=ignore-duplicates` skips such rows. Without `Prefer: return=representation` the answer is 201 with no body.
     */
    post: operations['restInsert'];
    /**
     * Delete rows (PostgREST)
     * @description Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`). On this surface filters are read as PostgREST reads them: a plain value is taken as written (`name=eq."q"` is the text `"q"`; quotes are stripped only inside `in.(…)` and logical expressions, and there only when the closing quote ends the item); spaces inside list items and expression values belong to the value; text after a logical expression, an `in.(…)` list or an `is` word is ignored; `in.("")` matches nothing. `order` puts nulls last ascending and first descending (PostgreSQL), unless `nullsfirst`/`nullslast` say otherwise.
     */
    delete: operations['restDelete'];
    options?: never;
    head?: never;
    /**
     * Update rows (PostgREST)
     * @description Filters follow PostgREST: `<column>=<op>.<value>` with `eq neq gt gte lt lte like ilike match imatch in is isdistinct` (`like`/`ilike` take `*` or `%` as wildcard; `in.(a,b,"c,d")`; `is.null|not_null|true|false|unknown`; `match`/`imatch` are regular expressions in RE2 syntax — linear time, no backreferences or lookaround), `eq gt gte lt lte like ilike match imatch` take `(any)` or `(all)` with a PostgreSQL array literal (`id=eq(any).{1,2,3}`, `name=like(all).{A*,*z}`), `not.` before the operator negates, several filters are ANDed, and `or=(a.eq.1,and(b.gt.2,c.is.null))` / `and=(…)` / `not.or=(…)` nest logical expressions (spaces around their parentheses, commas and column names are skipped). Values are bound as parameters and columns are checked against the schema: an unknown column is 400 `unknown_column`, a malformed filter 400 `invalid_filter`. Values are converted to the column's type first; on a blob column they are base64 (standard or URL-safe, padding optional) and compare as the bytes they encode, and a value that is not base64 is 400 `invalid_filter`. Reads run in a query process under the namespace's `query_timeout` (504 `query_timeout`) and the query processes' memory limit (422 `query_memory_exceeded`). On this surface filters are read as PostgREST reads them: a plain value is taken as written (`name=eq."q"` is the text `"q"`; quotes are stripped only inside `in.(…)` and logical expressions, and there only when the closing quote ends the item); spaces inside list items and expression values belong to the value; text after a logical expression, an `in.(…)` list or an `is` word is ignored; `in.("")` matches nothing. `order` puts nulls last ascending and first descending (PostgreSQL), unless `nullsfirst`/`nullslast` say otherwise.
     */
    patch: operations['restUpdate'];
    trace?: never;
  };
  '/v1/{ns}/query': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run read-only SQL
     * @description Runs read-only SQL against the namespace's database.
     *
     *     **Forms.** Single: `{sql, params?}` → `{data: [row…]}`. Batch: `{statements: [{sql, params?}…]}` (1–50) → `{results: [{data: [row…]}…]}`, one result per statement, in order. Batch statements run one after another on the same connection; they are not a transaction (each sees the data committed when it starts). `params` are positional `?` values (at most 32766): strings, numbers (whole numbers bound as INTEGER), booleans (bound as 1/0) or null; named parameters are not supported.
     *
     *     **Read-only.** Each `sql` must be exactly one statement that SQLite itself reports read-only and that returns rows (SELECT, WITH … SELECT, VALUES, EXPLAIN); anything else is 400 `not_read_only`: writes (INSERT, UPDATE, DELETE, … RETURNING), DDL, ATTACH/DETACH, VACUUM (also `VACUUM INTO`), BEGIN/COMMIT/SAVEPOINT, and every PRAGMA statement (read introspection pragmas as table-valued functions, e.g. `SELECT * FROM pragma_table_info('t')`). The query runs in a separate process on a connection opened read-only with `query_only`; extension loading is unavailable (`load_extension()` fails with `invalid_sql`). A request with more than one statement in one `sql` string is 400 `invalid_sql`. Every statement of a batch is checked before any runs; a failing statement fails the whole request and the message names it (`statements.2: …`).
     *
     *     **Time limit.** A query may run for the namespace's `query_timeout` (milliseconds, default 10000), counted from when it starts running (waiting for a free query process is not counted). Past it the query is stopped and the answer is 504 `query_timeout`. Queries run outside the server's event loop in a small pool of processes, so a long query never delays other requests; one namespace can occupy all but one of them, so other namespaces keep getting answers. When every process is busy, requests wait in a bounded queue; a full queue answers 503 `service_unavailable` with `Retry-After`. With `journal_mode: wal` (the default) a query never delays writers; with a rollback journal (`delete`, `truncate`, `persist`) a running query holds a shared lock, so writes to that namespace wait for it (at most its `query_timeout`, or fail after their `busy_timeout`).
     *
     *     **Results.** Rows are objects (column name → value; with duplicate column names the last wins). INTEGER values beyond ±(2^53−1) come as decimal strings, BLOBs as base64 strings, ±Infinity as strings. A statement returns at most 10000 rows, and a response at most 32 MiB of row data: rows beyond are not read and that result carries `truncated: true` (absent otherwise); in a batch, results after the size limit is reached are empty and truncated. Use LIMIT/OFFSET or keyset conditions to page.
     *
     *     Read-only tokens of the namespace may call this endpoint.
     */
    post: operations['query'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/subscribe': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Subscribe to change events (server-sent events)
     * @description Server-sent events (`text/event-stream`) for the changes committed in the namespace.
     *
     *     **Connection.** `Accept` must allow `text/event-stream` (`*\/*` or no `Accept` is fine; otherwise 406 `not_acceptable`). The server answers at once with `: connected` (a comment), a `retry:` hint and, unless the client is resuming, an `id:` line with the current position; then a `: keepalive` comment every 25 seconds. The client unsubscribes by closing the request. The stream ends when the server shuts down (reconnect later).
     *
     *     **Events.** Each event is `id: <id>`, `event: <action>`, `data: <json>` where the data is `{table, action, row, _meta, timestamp}` (`timestamp` UTC ISO 8601; `_meta.actor` is the actor given in the mutating request, or the calling token). Event names:
     *     - rows: `insert`, `update`, `delete` (`row` is the row; for `delete` the row as it was);
     *     - schema: `create_table`, `update_table`, `drop_table`, `create_view`, `drop_view`, `create_index`, `drop_index` (`table` is the table or view, `row` is null; the schema changelog has the details);
     *     - `reset`: data `{reason: "events_lost", last_event_id}` — the id the client resumed from is unknown (another server run) or older than the buffer: events were missed, reload the data.
     *
     *     **Filter.** `tables=a,b` delivers only events whose `table` is listed (row events and schema events of those tables). Without `tables`, every event is delivered, including `create_table` of new tables.
     *
     *     **Resuming.** Ids are `<epoch>-<seq>`: `epoch` identifies the server run and `seq` increases (with gaps) within a namespace. A client that reconnects with `Last-Event-ID` (browsers' `EventSource` does so by itself) first receives the events it missed, from a buffer of the last 1000 events (at most 4 MiB; server defaults) per namespace, else one `reset` event. The buffer lives in memory only: ids do not survive a restart (they are answered with `reset`).
     *
     *     **Slow clients.** A subscriber that stops reading is disconnected once 1 MiB of events (server default) waits for it, beyond a replay it asked for; other subscribers are not affected. It may reconnect with `Last-Event-ID`.
     */
    get: operations['subscribe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/{ns}/overview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Namespace overview: storage, schema and telemetry
     * @description Live storage (measured now on the open database), schema counts, and request telemetry of the namespace over `window`.
     *
     *     **Telemetry.** Every finished data-plane request (`/v1/{ns}/…`, including this one, counted after it answers) adds to its namespace's rollups: requests, client errors (status 400–499), server errors (≥ 500), rows read and written, and request latency. Requests that fail before the namespace is resolved (401, 403, body validation) are not attributed to it.
     *
     *     **Windows and series.** The window is the most recent `series` buckets, the current (partial) bucket last:
     *     - `1h`: 60 one-minute points;
     *     - `24h`: 24 one-hour points;
     *     - `7d`: 168 one-hour points;
     *     - `30d`: 30 UTC-day points (summed from hour rollups).
     *
     *     Totals are the sums over `series`. Buckets start on UTC minute, hour or day boundaries.
     *
     *     **Latency.** Each bucket keeps a fixed 24-bucket log-scale histogram (upper bounds 0.25 ms × 2^i); `p50`, `p95` and `p99` are estimated by interpolating inside the bucket holding the rank (so an estimate is within the factor-of-2 range of its histogram bucket, and never above the largest latency seen), `avg` and `max` are exact.
     *
     *     **Bounded storage.** Rollups live in the platform database with a fixed number of rows per namespace: a ring of 60 minute buckets and a ring of 720 hour buckets; a bucket's slot is reset when a newer bucket reuses it. Samples are aggregated in memory and written every few seconds and at shutdown; this endpoint includes the not-yet-written samples. Telemetry is dropped with the namespace.
     */
    get: operations['namespaceOverview'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/hearth-session-jwks.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Session token public keys
     * @description The session purpose's pending, active and not yet withdrawn retired public keys. A strong `ETag` per document; `If-None-Match` answers 304; `Cache-Control: public, max-age=300`.
     */
    get: operations['sessionJwks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/hearth-invocation-jwks.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Invocation token public keys
     * @description The invocation purpose's pending, active and not yet withdrawn retired public keys. A strong `ETag` per document; `If-None-Match` answers 304; `Cache-Control: public, max-age=300`.
     */
    get: operations['invocationJwks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/jwks.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * OAuth / OpenID Connect public keys
     * @description The oauth purpose's pending, active and not yet withdrawn retired public keys (OAuth keys only; session and invocation keys have their own documents). A strong `ETag` per document; `If-None-Match` answers 304; `Cache-Control: public, max-age=300`.
     */
    get: operations['oauthJwks'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/identity/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List signing keys and the KEK fingerprint
     * @description Answers `{kekFingerprint, kek: {fingerprint, source, next, previous}, verifierJwks: {session, invocation, oauth}, keys: [SigningKey]}`: the lifecycle metadata of every key (state, publication, activation, 30-day deadline, retirement, JWKS withdrawal, revocation reason, `encryptionKeyId`), the current KEK fingerprint, and the URLs verifiers in other processes fetch each key set from (`HEARTH_IDENTITY_JWKS_ORIGIN`, `HEARTH_OAUTH_JWKS_ORIGIN`, else the issuer). Never contains key material. `Cache-Control: no-store`.
     */
    get: operations['listSigningKeys'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/identity/keys/rewrap': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-encrypt every private key under the current KEK
     * @description Decrypts each private key with the current, previous or next KEK, validates its key pair, encrypts it with the current KEK only, and updates all rows in one transaction. Idempotent: a repeat answers `rewrapped: 0`. Answers `{rewrapped, unchanged, encryptionKeyId}`. Audited as `identity.keys.rewrap`. 503 (`service_unavailable`) when a key cannot be decrypted or its pair does not match.
     */
    post: operations['rewrapSigningKeys'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/identity/keys/{kid}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Emergency revocation of a signing key
     * @description Revokes an active or pending key with a durable incident `reason`: it leaves its JWKS at once, no process signs with it again, and when it was active an immediately active replacement is created (no prepublication). Already issued tokens stay valid until they expire or until verifiers drop their cached key set (at most five minutes). Answers `{revoked: SigningKey, replacementKid}`. Audited as `identity.key.revoke`.
     */
    post: operations['revokeSigningKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List accounts
     * @description Person accounts ordered by login, `per_page` (at most 100) per page. `search` matches login, email and display name. Service accounts are listed under `/api/admin/core/service-accounts`.
     */
    get: operations['listAccounts'];
    put?: never;
    /**
     * Create an account
     * @description Creates a local account with a new immutable `sub`. No credentials are set here. Audited as `account.create`.
     */
    post: operations['createAccount'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/accounts/{sub}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read an account and its group memberships */
    get: operations['getAccount'];
    put?: never;
    post?: never;
    /**
     * Delete an account
     * @description Removes the account and its group memberships. Audited as `account.delete`.
     */
    delete: operations['deleteAccount'];
    options?: never;
    head?: never;
    /**
     * Update an account
     * @description Renaming keeps `sub`. Disabling bumps `epoch` (revokes sessions). Audited as `account.update`, `account.disable`, `account.enable`.
     */
    patch: operations['updateAccount'];
    trace?: never;
  };
  '/api/admin/core/accounts/{sub}/revoke-sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke every session of an account
     * @description Bumps the account `epoch`: sessions issued under an earlier epoch stop being accepted. Audited as `account.revoke_sessions`.
     */
    post: operations['revokeAccountSessions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List groups
     * @description Groups ordered by name, `per_page` (at most 100) per page; `search` matches name and description.
     */
    get: operations['listGroups'];
    put?: never;
    /**
     * Create a group
     * @description Audited as `group.create`.
     */
    post: operations['createGroup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/groups/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read a group and its direct members */
    get: operations['getGroup'];
    put?: never;
    post?: never;
    /**
     * Delete a group
     * @description Its memberships (as container and as member) go with it. Audited as `group.delete`.
     */
    delete: operations['deleteGroup'];
    options?: never;
    head?: never;
    /**
     * Rename a group or change its description
     * @description Audited as `group.update`.
     */
    patch: operations['updateGroup'];
    trace?: never;
  };
  '/api/admin/core/groups/{id}/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add an account or a nested group
     * @description Idempotent. Adding a group to itself or to a group it contains (at any depth) is 409 `group_cycle`. Audited as `group.member.add`.
     */
    post: operations['addGroupMember'];
    /**
     * Remove a direct member
     * @description The member is named in the query: `account=<sub>` or `group=<id>`. Idempotent. Audited as `group.member.remove`.
     */
    delete: operations['removeGroupMember'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/service-accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List resource-bound service accounts
     * @description `per_page` (at most 100) per page; `search` matches application, resource type, resource id and display name.
     */
    get: operations['listServiceAccounts'];
    put?: never;
    /**
     * Create a resource-bound service account
     * @description Each application checks the `appId` of the service accounts it accepts: the database service takes only `appId: hearth-db`, `resourceType: namespace`, `resourceId: <namespace>` (a client-credentials token of any other application's service account is 403 `forbidden` on `/v1/{ns}/…`). Audited as `service_account.create`.
     */
    post: operations['createServiceAccount'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/service-accounts/{sub}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Delete a service account
     * @description Audited as `service_account.delete`.
     */
    delete: operations['deleteServiceAccount'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/account-policy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read the account-category policy
     * @description Which account categories may use platform credential flows. `valid: false` means the stored policy is unreadable and nothing is allowed.
     */
    get: operations['getAccountCategoryPolicy'];
    /**
     * Replace the account-category policy
     * @description Audited as `account_policy.update`.
     */
    put: operations['replaceAccountCategoryPolicy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/setup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Whether first-run setup is needed
     * @description `needed` is true while no account exists.
     */
    get: operations['getSetup'];
    put?: never;
    /**
     * Create the first administrator
     * @description Only while no account exists. The password is 8–1024 characters, stored as an Argon2id hash. Audited as `account.create` and `setup.complete`.
     */
    post: operations['setup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign in with a login and password
     * @description Sets the HttpOnly `hearth_session` cookie (SameSite=Lax, Secure when the public URL is https; 12 hours). Every refusal is the same 401 `invalid_credentials`. Ten failures a minute from one IP answer 429 `rate_limited` with `Retry-After`. Audited as `session.login`.
     */
    post: operations['login'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign out
     * @description Revokes the session family of the cookie and clears the cookie. Needs the platform `Origin` when a session is live. Audited as `session.logout`.
     */
    post: operations['logout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/whoami': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller as every domain sees it
     * @description The request context after `requireRole(authenticated)`: `actor` (audit name), `accessSubject` (the account UUID, the service-account ID, or `token:<id>`), `kind`, `admin` and, for OAuth access tokens, the `scope` cap. Works with a session, an API token or an OAuth access token.
     */
    get: operations['whoami'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The signed-in account */
    get: operations['getSession'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Change the signed-in account's password
     * @description Needs a session (not an API token) and the current password; the account's other sessions end. Audited as `account.password.change`.
     */
    put: operations['changeOwnPassword'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/reauth': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Confirm the password again (recent authentication)
     * @description For a signed-in account whose sign-in is older than ten minutes: the password of the session's account makes the session count as signed in now, so sensitive actions (`recent_auth_required`) succeed again. The cookie stays the same. Needs a session (not an API token). A wrong password is 401 `invalid_credentials` (the session continues); five failures per account within a minute answer 429 `rate_limited`. Audited as `session.reauthenticate`.
     */
    post: operations['reauthenticate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/accounts/{sub}/password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set an account's password
     * @description Stores an Argon2id hash; every session of the account (but the caller's) ends. From a browser session it needs a sign-in within the last ten minutes (`recent_auth_required`). Audited as `account.password.set`.
     */
    put: operations['setAccountPassword'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/openid-configuration': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * OpenID Connect discovery
     * @description The same document at both addresses. `scopes_supported` lists only the delegated scopes (`groups` and `admin` exist for managed and first-party clients). Cached publicly for five minutes.
     */
    get: operations['openidConfiguration'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/oauth-authorization-server': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * OAuth 2.0 authorization server metadata (RFC 8414)
     * @description The same document at both addresses. `scopes_supported` lists only the delegated scopes (`groups` and `admin` exist for managed and first-party clients). Cached publicly for five minutes.
     */
    get: operations['oauthServerMetadata'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/authorize': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Authorization endpoint (code flow)
     * @description Validates the request; an unknown client or an unregistered `redirect_uri` shows an error page (never a redirect). Other errors redirect to the client with `error`, `error_description`, `state` and `iss`. Without a session (or with `prompt=login`, or beyond `max_age`) it shows the sign-in page; dynamic clients (and `prompt=consent`) then see the consent page; otherwise it redirects with `code`, `state` and `iss` (RFC 9207). Codes live 60 seconds and are single-use.
     */
    get: operations['authorize'];
    put?: never;
    /**
     * Authorization endpoint (form post)
     * @description The same as `GET /oauth/authorize` with the parameters form-encoded (OpenID Connect Core §3.1.2.1).
     */
    post: operations['authorizePost'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/interaction/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Continue an authorization after signing in */
    get: operations['resumeAuthorization'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/interaction/{id}/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign in during an authorization (form post)
     * @description Form fields `login`, `password`. Needs this platform's `Origin`. Sets the session cookie and continues with `GET /oauth/interaction/{id}`. A wrong password shows the page again (401); ten failures a minute from one address answer 429.
     */
    post: operations['authorizationSignIn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/interaction/{id}/consent': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Approve or deny an application (form post)
     * @description Form field `decision` = `approve` or `deny`. Needs the session the consent page was shown to and this platform's `Origin`. Single-use; expires five minutes after the page was shown (409 page). Audited as `oauth.consent.approve` / `oauth.consent.deny`.
     */
    post: operations['authorizationConsent'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/device_authorization': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Device authorization (RFC 8628): terminal sign-in
     * @description First-party clients only (`hearth-cli`; other clients `unauthorized_client`, unknown ones `invalid_client` 401). With `login_hint` (a login name or email) the sign-in is approved in the paired authenticator app of that account: the app shows the client, every scope code, the sign-in lifetime and the six-digit comparison code, which is this answer's `user_code`; the device code lives five minutes. The answer has the same shape whether or not the hint names an account with a paired app that accepts terminal sign-ins; such a request is never approved and ends in `expired_token`. Without `login_hint` the user enters `user_code` (eight letters, `BCDF-GHJK`) at `verification_uri` (`/oauth/device`) after signing in; that device code lives ten minutes. The resulting sign-in lasts at most 7 days (the refresh grant, with `offline_access`; one hour without). Poll `POST /oauth/token` with `grant_type=urn:ietf:params:oauth:grant-type:device_code` every `interval` seconds. 30 requests a minute per address (429 `rate_limited`). Errors: `invalid_request`, `invalid_client`, `unauthorized_client`, `invalid_scope`, `invalid_target` (`resource` is not supported here), `temporarily_unavailable` (503: approval in the app is not available on this server). Audited as `oauth.device_authorization.create`.
     */
    post: operations['deviceAuthorization'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/device': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Device verification page (RFC 8628 §3.3)
     * @description Explains that a six-digit code (`hearth login --user`) is approved in the authenticator app, and takes the eight-letter code of a terminal sign-in without `--user`. With `user_code` and a session it shows the approval page at once (client, every scope, the sign-in lifetime); without a session the form also asks for the login name and password.
     */
    get: operations['deviceVerification'];
    put?: never;
    /**
     * Enter a device user code (form post)
     * @description Form fields `user_code`, and `login` + `password` when not signed in (sets the session cookie; the sign-in rate limit applies). Needs this platform's `Origin`. Shows the approval page, or the code page again (400 unknown or expired code; 401 wrong password; 429 after 10 wrong codes a minute from one address).
     */
    post: operations['deviceVerificationSubmit'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/device/decision': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Approve or deny a terminal sign-in (form post)
     * @description Form fields `user_code`, `decision` = `approve` or `deny`. Needs a session and this platform's `Origin`. Once per code, before it expires (409 page); an account the client does not allow gets 403. The terminal's next token request then gets the tokens or `access_denied`. Audited as `oauth.device_authorization.approve` / `.deny`.
     */
    post: operations['deviceVerificationDecision'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/token': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Token endpoint
     * @description Grants: `authorization_code` (`code`, `redirect_uri`, `client_id`, `code_verifier` when PKCE was used, `resource` repeated exactly), `client_credentials` (confidential client bound to a resource-bound service account; `scope`, `resource`), `refresh_token` (RFC 6749 §6: `refresh_token`, optional narrower `scope`; `resource` repeated exactly for resource-bound grants), `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4, first-party clients: `device_code`, `client_id`; until approved `authorization_pending`, polling faster than `interval` `slow_down` (the interval grows by 5 s), `access_denied`, `expired_token`; single-use: a second exchange is `invalid_grant` and revokes what the first issued). Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret` in the form. Refresh tokens rotate on every use; reusing a rotated one revokes the grant. Errors follow RFC 6749 §5.2 (`invalid_request`, `invalid_client` 401, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`; `server_error`/`temporarily_unavailable` 503 when the signing authority fails).
     */
    post: operations['token'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Token revocation (RFC 7009)
     * @description Form fields `token`, optional `token_type_hint`, and client authentication. The hint is only a hint: both token types are searched whatever it says, and a hint other than `refresh_token` or `access_token` is ignored (RFC 7009 §2.2), never an error. A refresh token ends its whole grant; an access token is refused by Hearth's APIs until it expires. Unknown tokens and tokens of other clients answer 200 too.
     */
    post: operations['oauthRevoke'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/userinfo': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * UserInfo
     * @description Accepts only user access tokens with `openid` for the platform audience `hearth` (tokens requested with `resource` are resource-only and refused), from a registered client, for an active account. ID tokens are refused. Claims follow the token's scopes: `profile` → `name`, `preferred_username`; `email` → `email`; `groups` → `groups`.
     */
    get: operations['userinfo'];
    put?: never;
    /**
     * UserInfo
     * @description Accepts only user access tokens with `openid` for the platform audience `hearth` (tokens requested with `resource` are resource-only and refused), from a registered client, for an active account. ID tokens are refused. Claims follow the token's scopes: `profile` → `name`, `preferred_username`; `email` → `email`; `groups` → `groups`.
     */
    post: operations['userinfoPost'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/register': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Dynamic client registration (RFC 7591)
     * @description Public clients only: 1–10 redirect URIs (https, or http on localhost, 127.0.0.1 or ::1; no user information or fragments), `token_endpoint_auth_method: none`, grant types `authorization_code` and optional `refresh_token`, `application_type` native or web, `scope` a subset of `openid profile email offline_access read write` (the default). Registration grants nothing: authorization needs PKCE S256, a `resource` on this origin and the user's consent. Registrations that never start an authorization are removed after 24 hours. 20 registrations a minute per address (429). Errors: `invalid_redirect_uri`, `invalid_client_metadata`.
     */
    post: operations['registerClient'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/oauth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * End session (OpenID Connect RP-Initiated Logout)
     * @description Shows a confirmation page; the form posts to `POST /oauth/logout`.
     */
    get: operations['endSession'];
    put?: never;
    /**
     * End session (confirmed)
     * @description Needs this platform's `Origin`. Ends the browser session and the refresh grants the named client holds for the account, then redirects to `post_logout_redirect_uri` (with `state`) when it is the client's registered logout URI; otherwise shows "Signed out".
     */
    post: operations['endSessionConfirm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/oauth/clients': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List OAuth clients */
    get: operations['listOAuthClients'];
    put?: never;
    /**
     * Create a managed OAuth client
     * @description Confidential clients get a secret (`hcs_…`), shown only in this answer. A client bound to a service account must be confidential; it may then use `client_credentials`. Lists hold at most 50 entries. Audited as `oauth.client.create`.
     */
    post: operations['createOAuthClient'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/oauth/clients/{clientId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get an OAuth client */
    get: operations['getOAuthClient'];
    put?: never;
    post?: never;
    /**
     * Delete an OAuth client
     * @description Removes the client with its codes and grants. Audited as `oauth.client.delete`.
     */
    delete: operations['deleteOAuthClient'];
    options?: never;
    head?: never;
    /**
     * Update an OAuth client
     * @description Changes only the fields given. Existing grants keep their audience snapshot; each refresh rechecks scopes, audiences and access against the new settings. First-party and dynamic clients cannot be edited (409 `client_protected`). Audited as `oauth.client.update`.
     */
    patch: operations['updateOAuthClient'];
    trace?: never;
  };
  '/api/admin/oauth/clients/{clientId}/secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate a client secret
     * @description The old secret stops working at once. Audited as `oauth.client.secret.rotate`.
     */
    post: operations['rotateOAuthClientSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/oauth/clients/{clientId}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke an OAuth client
     * @description The client can no longer authenticate or authorize; its refresh grants end and its access tokens stop verifying on Hearth's APIs. Idempotent. Audited as `oauth.client.revoke`.
     */
    post: operations['revokeOAuthClient'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/linux-identities': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Preview accounts and their Linux identities
     * @description Pages of 50 person accounts ordered by `sub`; `after` is the previous page's `nextCursor` (null on the last page). `scope=ready` lists only eligible accounts without an identity. `search` matches login and display name. Never changes anything.
     */
    get: operations['previewLinuxIdentities'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/linux-identities/configuration': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Linux identity configuration
     * @description An unreadable stored value answers the disabled default with `configValid: false` (assignment fails closed).
     */
    get: operations['getLinuxConfiguration'];
    /**
     * Replace the Linux identity configuration
     * @description Body `{config: {enabled, rangeStart, rangeEnd, homeTemplate, loginShell}, rangeReserved}`. The range is 1000–2147483647 with no default; enabling needs `rangeReserved: true` (400 `range_not_confirmed`). Existing identities are never rewritten; enabling runs no backfill. Audited as `linux.config.update`.
     */
    put: operations['putLinuxConfiguration'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/linux-identities/users/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One account and its identity state */
    get: operations['getLinuxIdentity'];
    put?: never;
    /**
     * Backfill one account
     * @description Assigns a UID and a private primary group (same number) with the configured home and shell, atomically with its audit entry (`linux.identity.assign`). Repeating returns the existing identity without renumbering (`created: false`). 409 `linux_not_eligible` (guest), `linux_disabled`, `linux_conflict`, `linux_range_exhausted`.
     */
    post: operations['prepareLinuxIdentity'];
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Set home directory and login shell
     * @description Both fields are required. Works while assignment is disabled too. Audited as `linux.identity.update`.
     */
    patch: operations['updateLinuxIdentity'];
    trace?: never;
  };
  '/api/admin/core/linux-identities/groups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Groups with a GID */
    get: operations['listPosixGroups'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/linux-identities/groups/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Assign a GID to a group
     * @description Idempotent; grants nothing (no sudo). Audited as `linux.group.assign`. 409 `linux_disabled`, `linux_conflict` (an identity's private group has the name), `linux_range_exhausted`.
     */
    post: operations['makeGroupPosix'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys/registration': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start registering a passkey
     * @description Needs a session signed in within ten minutes (403 `recent_auth_required`). Answers a challenge (single-use, five minutes) and the options for `navigator.credentials.create`: a discoverable credential with user verification. At most 20 passkeys per account.
     */
    post: operations['passkeyRegistrationOptions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The signed-in account's passkeys */
    get: operations['listPasskeys'];
    put?: never;
    /**
     * Finish registering a passkey
     * @description Body `{challengeId, credential, name?}`. Verifies the attestation (`none` accepted) for this origin and host, with user verification. Audited as `passkey.register`.
     */
    post: operations['registerPasskey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove a passkey
     * @description Needs a session signed in within ten minutes. Audited as `passkey.remove`.
     */
    delete: operations['removePasskey'];
    options?: never;
    head?: never;
    /** Rename a passkey */
    patch: operations['renamePasskey'];
    trace?: never;
  };
  '/api/auth/passkeys/reauth/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start confirming with a passkey (recent authentication)
     * @description For a signed-in account with at least one passkey: a challenge (single-use, five minutes) bound to the account, and options for `navigator.credentials.get` listing its passkeys. No passkey: 404 `passkey_not_found` (confirm with the password at `POST /api/auth/reauth`).
     */
    post: operations['passkeyReauthOptions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys/reauth': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Confirm with a passkey (recent authentication)
     * @description Body `{challengeId, credential}`: the answer to `POST /api/auth/passkeys/reauth/options`, by one of the session's own passkeys. The session then counts as signed in now, so sensitive actions (`recent_auth_required`) succeed again; the cookie stays the same. Any other passkey, a used or expired challenge or a failed verification is 401 `invalid_credentials` (the session continues). Audited as `session.reauthenticate` with `method: passkey`.
     */
    post: operations['passkeyReauthenticate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys/login/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a passkey sign-in
     * @description Answers a challenge (single-use, five minutes) and options for `navigator.credentials.get` (discoverable credentials, user verification required).
     */
    post: operations['passkeySignInOptions'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/passkeys/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Sign in with a passkey
     * @description Body `{challengeId, credential}`. Sets the same `hearth_session` cookie as a password sign-in. Every refusal is 401 `invalid_credentials` and counts towards the per-address sign-in limit (429). Audited as `session.login` with `method: passkey`.
     */
    post: operations['passkeySignIn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/password-reset': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Email a password-reset link
     * @description Always 202 `{accepted: true}` (no account enumeration). A link is sent only to an account that may sign in and has an email address, through outgoing mail (application `core`, default profile); at most three live links per account; twenty requests a minute per address (429). The link lives 30 minutes and works once.
     */
    post: operations['requestPasswordReset'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/magic-link': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Email a sign-in link
     * @description Always 202 `{accepted: true}` (no account enumeration). A link is sent only to an account that may sign in and has an email address, through outgoing mail (application `core`, default profile); at most three live links per account; twenty requests a minute per address (429). The link lives 15 minutes and works once.
     */
    post: operations['requestMagicLink'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/forgot-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Page: ask for a password-reset link */
    get: operations['forgotPasswordPage'];
    put?: never;
    /** Form: ask for a password-reset link */
    post: operations['forgotPasswordForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/email-sign-in/request': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Page: ask for a sign-in link */
    get: operations['magicLinkRequestPage'];
    put?: never;
    /** Form: ask for a sign-in link */
    post: operations['magicLinkRequestForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/reset-password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Page: choose a new password (from the emailed link)
     * @description Shows the form; opening the link does not use it.
     */
    get: operations['resetPasswordPage'];
    put?: never;
    /**
     * Form: set the new password
     * @description Form fields `token`, `password` (8–1024 characters). Needs this platform's `Origin`. Uses the link, sets the password, ends every session of the account, signs this browser in and redirects to `/`. Audited as `account.password.set` and `session.login` (method `reset_link`).
     */
    post: operations['resetPasswordForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/email-sign-in': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Page: confirm an emailed sign-in link
     * @description Shows a button; opening the link does not use it (mail scanners fetch links).
     */
    get: operations['magicLinkPage'];
    put?: never;
    /**
     * Form: sign in with the emailed link
     * @description Form field `token`. Needs this platform's `Origin`. Uses the link once, opens a session and redirects to `/`. Audited as `session.login` (method `email_link`).
     */
    post: operations['magicLinkForm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/announcements': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Email an announcement to accounts
     * @description Sends `{subject, text}` to every account that may sign in and has an email address — or only to the members (nested included) of `groupId` — as Hearth's notification batch: the default mail profile's bulk lane and pace, never refused by its daily recipient limit (the rest waits until the rolling 24-hour window has room). Answers `{recipients, batchIds}` (see the send log). Audited as `announcement.send`.
     */
    post: operations['sendAnnouncement'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/info': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Discovery of the authenticator-approval protocol
     * @description Answers `{protocol: "hearth-app-approval-v1", issuer, api, appOrigin, algorithm: "ES256", limits, features, enabled}`. `appOrigin` is the configured authenticator website (`HEARTH_AUTHENTICATOR_ORIGIN`, or the reference authenticator listener `--authenticator-port`); `features` lists `device-changes`, `terminal-logins` and, when the sign-in context service runs, `login-context`. Without an authenticator origin the protocol is disabled: `enabled: false`, `appOrigin: null`, `features: []`, and every other endpoint answers 503 `approval_disabled` (UIs hide the phone features). CORS for the authenticator origin only.
     */
    get: operations['appApprovalInfo'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/pairings/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start pairing an authenticator device
     * @description Body `{}` to pair a device for the signed-in account, or `{userId}` (an administrator) for administrator-assisted pairing. Needs an interactive session issued within ten minutes (API and OAuth tokens cannot pair), the exact platform `Origin`. Answers the pairing `{protocol, issuer, pairingId, secret, expiresAt}` (five minutes) that the browser hands to the authenticator in the link `{appOrigin}/#pairing=<percent-encoded JSON>`. At most five outstanding pairings per account (409 `pairing_limit`) and twenty active devices (409 `device_limit`). The account needs an email address (409 `email_required`): email is a required channel of enrolment notices.
     */
    post: operations['appPairingStart'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/pairings/claim': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Claim a pairing (authenticator)
     * @description Body `{pairingId, secret, publicKey, name, signature}`: `publicKey` exactly `{kty: "EC", crv: "P-256", x, y}` (private members refused), `name` 1–80 characters after trimming, `signature` the P-256 signature (64-byte P1363, unpadded base64url) over `["hearth-app-approval-v1","pair",issuer,pairingId,secret,"EC","P-256",x,y,name]` with `name` as sent. Answers `{deviceId, comparison, expiresAt}`; the device shows `comparison` for the browser to type. A claim alone creates no usable device. A repeated claim is 409 `pairing_claimed`; an expired pairing 409 `pairing_expired`; a wrong secret 403; a DER signature 400 `invalid_signature`.
     */
    post: operations['appPairingClaim'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/pairings/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * State of a pairing (initiating session)
     * @description Body `{pairingId}`. Answers `{pairingId, state, expiresAt, deviceId, name, assisted, approval}`: `state` is `created`, `claimed`, `confirmed`, `cancelled` or `expired`; `approval` is null or `{state, expiresAt}` with `pending`, `approved`, `denied`, `cancelled` or `expired`. Only the initiating account and session family; 404 otherwise and one minute after expiry.
     */
    post: operations['appPairingStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/pairings/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Confirm a claimed pairing with the comparison code
     * @description Body `{pairingId, comparison}` (the six digits the device shows). The first device of an account, and an administrator-assisted pairing (the administrator role and a recent session are checked again), are enrolled at once: `{deviceId, approval: null}`, audited as `auth.app.device.enroll` with a durable email notice. A further device needs the approval of an active device that opted in to `device-changes`: `{deviceId, approval: {state: "pending", expiresAt}}` (a device change of kind `pair`, five minutes, extending the pairing); confirming again returns the same approval. A wrong code is 400 `comparison_mismatch`; the fifth wrong code cancels the pairing.
     */
    post: operations['appPairingConfirm'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/pairings/result': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Result of a claimed pairing (authenticator)
     * @description Body `{pairingId, secret, publicKey}`; the key must be the one that claimed (403 `key_mismatch`). Answers `{state, deviceId}` plus `comparison` while `claimed`; poll until `confirmed` (or `cancelled`, `expired`). Readable one minute after expiry, then 404.
     */
    post: operations['appPairingResult'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/pairings/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel an unconfirmed pairing
     * @description Body `{pairingId}`. Also cancels its pending device change. A confirmed device cannot be cancelled, only revoked (409 `pairing_confirmed`). Cancelling again is 204.
     */
    post: operations['appPairingCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/devices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The signed-in account's authenticator devices
     * @description Pages of at most twenty in device-ID order, revoked devices included (with `revokedAt`); pass `after=<nextCursor>` for the next page (`nextCursor` is null on the last). A page stays within 8 KiB: with long multi-byte names it holds fewer items and `nextCursor` continues right after its last item.
     */
    get: operations['appDevices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/devices/update': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rename or revoke one of the account's devices
     * @description Body `{operation: "rename", deviceId, name}` or `{operation: "revoke", deviceId}`. Needs a session issued within ten minutes and the device to be the account's (404 `device_not_found`). Answers the device. Revocation is audited as `auth.app.device.revoke`.
     */
    post: operations['appDeviceUpdate'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/device-changes/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Request the removal of a device (approved on another device)
     * @description Body `{deviceId, endSessions}`. Needs a session issued within ten minutes. Creates a device change of kind `revoke` (five minutes) that an active device of the account that opted in to `device-changes` approves or denies (the device being removed may approve, not deny, its own removal); `endSessions: true` ends every other session of the account on approval. The same request again from the same session returns the pending change; a different `endSessions` replaces it. When no other active device opted in to `device-changes`, the device is revoked at once: `{changeId: null, state: "revoked", deviceId, endSessions, endedSessions}`.
     */
    post: operations['appDeviceChangeStart'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/device-changes/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * State of a device change this session requested
     * @description Body `{changeId}` or `{deviceId}` (the newest removal of that device requested by this session). Answers `{changeId, state, expiresAt}` with `state` `pending`, `approved`, `denied`, `cancelled` (also when replaced) or `expired`. No recent sign-in needed; another session of the same account gets 404, as does a change one minute past expiry.
     */
    post: operations['appDeviceChangeStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/manage/device-changes/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a pending device change this session requested
     * @description Same body as status. 204 (also when already cancelled); 409 `change_not_pending` when decided or expired. Cancelling a `pair` change cancels its pairing.
     */
    post: operations['appDeviceChangeCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/login/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a sign-in approved in the authenticator app
     * @description Body `{identifier, category}`: an exact login or email (case-insensitive) and the account category (`login`, `guest`, `freeipa`). Always 202 `{requestId, browserSecret, comparison, expiresAt, pollAfterSeconds}`, the same for unknown, disabled, ambiguous, unpaired, wrong-category and over-capacity (five outstanding) accounts: such a request simply never gets approved. Keep `browserSecret` in the tab (never in a URL, never to the authenticator). Exact platform `Origin`; 30 starts a minute per address (429).
     */
    post: operations['appLoginStart'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/login/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * State of a sign-in request (held while pending)
     * @description Body `{requestId, browserSecret}`. Answers `{state, expiresAt, pollAfterSeconds}` with `pending`, `approved`, `denied`, `consumed` or `expired`. A pending request is held up to `pollAfterSeconds` (or until it expires) and answered as soon as the app decides. 404 for a wrong secret, an unknown request, or one minute after expiry (cleanup).
     */
    post: operations['appLoginStatus'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/login/complete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Complete an approved sign-in (sets the session cookie)
     * @description Body `{requestId, browserSecret}`. Once and atomically: 204 with the HttpOnly `hearth_session` cookie (never a token in JSON), audited as `session.login` with `method: app-approval`. 409 `login_not_approved` (pending, denied, expired), 409 `login_consumed` (already used: a lost response needs a new sign-in); 403 `login_refused` when the approving device was revoked, the account may no longer sign in, its category changed or its sessions were revoked since the start.
     */
    post: operations['appLoginComplete'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/auth/app-approval/v1/device': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A signed device command (authenticator)
     * @description Body `{proof, signature}`; `proof` is exactly `{issuer, deviceId, jti, issuedAt, expiresAt, command}` (Unix seconds, at most 60 s of lifetime and 5 s of future skew, a fresh UUID `jti` per call), signed as the seed's array with the device key (64-byte P1363, unpadded base64url; DER is 400 `invalid_signature`). Commands: `pending` → `{requests, pollAfterSeconds}` (browser sign-ins; `accept: ["login-context"]` adds `context`); `inbox` → `{logins, actions: [], moreActions: 0, [changes, moreChanges], pollAfterSeconds}` (stores the accept list; `terminal-logins` adds terminal entries with `terminal`; `device-changes` adds at most five pending changes, oldest first); `decide` → `{state}` (bound to requestId, challenge and comparison); `change` → `{state}` (bound to changeId, kind, targetId, endSessions; only one of the five oldest pending changes, those an inbox lists, else 409 `change_not_listed`); `revoke` → `{state: "revoked"}`; `push` → `{state: "updated"}`; `account` → `{account: {uid, displayName, mail}, device: {name, createdAt}}`. Errors: 403 `wrong_issuer`, `device_unknown`, `bad_signature`, `device_revoked`; 400 `invalid_proof` (times), `invalid_signature`; 409 `proof_replayed`, `request_not_pending`, `request_changed`, `change_not_pending`, `change_changed`, `change_not_listed`, `not_opted_in`, `self_deny`; 404 unknown request or change. Only a successful command updates the device's `lastUsedAt`. Responses stay within 8 KiB.
     */
    post: operations['appDeviceCommand'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/users/{id}/app-devices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An account's authenticator devices (administrator)
     * @description Pages of at most twenty, revoked devices included; `after=<nextCursor>` for the next page. A page stays within 8 KiB (fewer items with long multi-byte names; `nextCursor` continues after the last item). Available also while the protocol is disabled.
     */
    get: operations['adminAppDevices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/users/{id}/app-devices/{deviceId}/revoke': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revoke an account's authenticator device (administrator)
     * @description Immediate; audited as `auth.app.device.revoke` with `by: "administrator"`. Revoking a revoked device answers it unchanged. Answers the device.
     */
    post: operations['adminAppDeviceRevoke'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/profiles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List sender profiles
     * @description Passwords are never returned: `hasPassword` and `imap.hasPassword` say whether one is stored.
     */
    get: operations['listMailProfiles'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/profiles/{key}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a sender profile
     * @description Its `revision` is needed to replace it.
     */
    get: operations['getMailProfile'];
    /**
     * Create or replace a sender profile
     * @description Without `revision` the key must be new (201); the first profile becomes the default. With `revision` the profile is replaced (200) when the revision is current. `smtpPassword` / `imap.password`: omitted keeps, null clears, a string replaces; changing the host requires giving it again or clearing it (`password_required`). Audited as `outgoing_mail.profile.create` / `outgoing_mail.profile.update` (never with a password).
     */
    put: operations['putMailProfile'];
    post?: never;
    /**
     * Delete a sender profile
     * @description Cancels its queued mail (`profile_removed`) and removes its application grants. The default profile cannot be deleted while other profiles exist (`profile_is_default`). Audited as `outgoing_mail.profile.delete`.
     */
    delete: operations['deleteMailProfile'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/profiles/{key}/default': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Make a profile the default
     * @description Subsequent sends that give no profile use it; queued mail keeps its profile. Audited as `outgoing_mail.profile.default`.
     */
    post: operations['setDefaultMailProfile'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/profiles/{key}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message through a profile
     * @description Proves SMTP acceptance only. Not written to the send log; audited as `outgoing_mail.profile.test`. A failure answers 502 `smtp_failed`: `message` is one sentence saying what to check, `reason` the classified cause (`connection_refused`, `host_not_found`, `tls_required`, `tls_not_supported`, `certificate_untrusted`, `auth_failed`, `auth_required`, `timeout`, `sender_refused`, `recipient_refused`, `message_refused`, `smtp_error`) and `detail` the server's raw answer, credentials redacted. Either way the result is kept on the profile as `lastTest`.
     */
    post: operations['testMailProfile'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/apps': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List applications and their mail access
     * @description `core` first, then registered applications (with whether they declare `mail:send`) and stored policies of applications that are not registered.
     */
    get: operations['listMailApps'];
    put?: never;
    /**
     * Register an application
     * @description Creates the application's bearer credential (an API token reaching no namespace), returned once as `token`. Audited as `outgoing_mail.app.register`.
     */
    post: operations['registerMailApp'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/apps/{appId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read an application's mail access */
    get: operations['getMailApp'];
    put?: never;
    post?: never;
    /**
     * Unregister an application
     * @description Revokes its credential. Its stored policy and queued mail stay (absence from the registry does not cancel mail). Audited as `outgoing_mail.app.unregister`.
     */
    delete: operations['unregisterMailApp'];
    options?: never;
    head?: never;
    /**
     * Change an application's name or declaration
     * @description Dropping `mail:send` cancels its queued mail before the next attempt (`profile_not_allowed`). Audited as `outgoing_mail.app.update`.
     */
    patch: operations['updateMailApp'];
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/apps/{appId}/policy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set an application's access policy
     * @description Exactly one mode: `{"mode":"default"}`, `{"mode":"profiles","profiles":[…]}` or `{"mode":"none"}`. Unknown profile keys are rejected. Works for applications that are not registered (offline). Core's access cannot be changed (`core_policy_fixed`). Audited as `outgoing_mail.app.policy`.
     */
    put: operations['setMailAppPolicy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Send-log metadata, newest first
     * @description Filters: `app`, `profile`, `status` (comma-separated), `since` (ISO timestamp), `ref` (`scope` or `scope:id`), `recipient` (substring). Continue with `cursor` = the returned `nextCursor`. Never returns content.
     */
    get: operations['listMailMessages'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/messages/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One send-log record (metadata); optionally wait for it to settle
     * @description Never returns content. With `?wait=<seconds>` (1–60) the answer is held until the message settles (`sent`, `failed`, `cancelled`, `bounced`) or the wait ends, then the current record is returned (200 either way: check `status`). An already settled message, or a read without `wait`, answers at once. Wake-ups come from the settled-status topic (its trigger publishes every settling change, from any process on the data folder or, with a PostgreSQL core store, any replica); the record is always re-read from the send log before answering. A `sent` message may still become `bounced` later.
     */
    get: operations['getMailMessage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/messages/{id}/content': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a message's content (audited)
     * @description Text, HTML and custom headers, or `purged: true` after content retention. Every call writes `outgoing_mail.message.read`.
     */
    get: operations['getMailMessageContent'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/messages/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a queued message
     * @description Only `queued` mail (`cancelled_by_admin`); its attachment objects are deleted. Audited as `outgoing_mail.message.cancel`.
     */
    post: operations['cancelMailMessage'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/batches/{batchId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel the still-queued members of a batch
     * @description Sent rows stay sent; rows being sent finish normally. `cancelled` is zero when none remain queued. One audit entry `outgoing_mail.batch.cancel`.
     */
    post: operations['cancelMailBatch'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mail/send': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * mail.send: queue one message on the immediate lane
     * @description Committed to the send log before delivery starts; 202 with the record id and the Message-ID fixed now. Audited as `outgoing_mail.send` (no subject, body, addresses or attachment content). A refused call — an invalid body (400 `invalid_request`, `invalid_json`, 413, 415) included — is audited once as `outgoing_mail.send` with `{app, call, profile, denied}`: the application, `send` or `enqueue`, the profile key the body named (null: none or not a valid key) and the error code; never the subject, addresses or content.
     */
    post: operations['mailSend'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mail/enqueue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * mail.enqueue: queue one batch on the bulk lane
     * @description Paced by the profile's `pacePerMinute`. Rejected whole with 409 `backlog_full` when the profile would hold more than `pacePerMinute × 1440` queued bulk messages, or when any limit fails. Audited once per call as `outgoing_mail.send` (profiles, actors, message count and ids). A refused call — an invalid body (400 `invalid_request`, `invalid_json`, 413, 415) included — is audited once as `outgoing_mail.send` with `{app, call, profile, denied}`: the application, `send` or `enqueue`, the profile key the body named (null: none or not a valid key) and the error code; never the subject, addresses or content.
     */
    post: operations['mailEnqueue'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mail/profiles': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * mail.profiles(): the profiles this application may use
     * @description Never returns passwords or SMTP settings.
     */
    get: operations['mailProfiles'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/mail/messages/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The status of one of this application's messages (metadata only); optionally wait for it to settle
     * @description Only the application's own messages; never content. With `?wait=<seconds>` (1–60) the answer is held until the message settles (`sent`, `failed`, `cancelled`, `bounced`) or the wait ends, then the current record is returned (200 either way: check `status`). An already settled message, or a read without `wait`, answers at once. Wake-ups come from the settled-status topic (its trigger publishes every settling change, from any process on the data folder or, with a PostgreSQL core store, any replica); the record is always re-read from the send log before answering. A `sent` message may still become `bounced` later.
     */
    get: operations['mailMessage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/retention': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read both retention periods
     * @description Defaults: content 90 days, records 365 days.
     */
    get: operations['getMailRetention'];
    /**
     * Set both retention periods
     * @description Whole days 1–36500, `recordDays` at least `contentDays`; both saved together. Audited as `outgoing_mail.retention.update` with old and new values.
     */
    put: operations['setMailRetention'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/core/outgoing-mail/profiles/{key}/bounces/check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Check the profile's bounce mailbox now
     * @description Runs one bounce-collection pass for this profile now — the same pass the five-minute schedule runs (at most 200 messages from the saved cursor, within the four-minute budget) — and answers when it has ended, with its outcome. A pass already in progress for the profile (scheduled or asked for) is joined instead (`joined: true`): a profile is never checked twice at once. A failed pass still answers 200, with its `error` code and `detail`; the profile's `bounces` status is saved as by a scheduled pass. Audited as `outgoing_mail.profile.bounce_check` (counts and error code).
     */
    post: operations['checkMailProfileBounces'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/backups': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List backups
     * @description The backup folder's backups, newest first, from each file's manifest (the data is not read: `hearth backup verify` checks every byte), with partial files (`writing`, `stale`); the running job; the schedule.
     */
    get: operations['listBackups'];
    put?: never;
    /**
     * Start a backup
     * @description Starts a backup of the whole instance in the background (platform.db, every namespace, the attachments of queued mail and — with a `passphrase` — the secrets, sealed under it) into the backup folder as `hearth-<UTC yyyymmdd-hhmmss>-manual.hearth-backup`. Poll `GET /api/admin/backups/jobs/{id}` for its progress. One backup runs at a time. The body may be left out (no passphrase: the secrets are left out and the backup says so). Audited as `backup.create`.
     */
    post: operations['createBackup'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/backups/jobs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A backup job and its progress
     * @description The last 20 jobs since the server started are remembered (in memory).
     */
    get: operations['getBackupJob'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/admin/backups/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Download a backup
     * @description The `.hearth-backup` file, with `Content-Length` and `Content-Disposition: attachment`. Audited as `backup.download`.
     */
    get: operations['downloadBackup'];
    put?: never;
    post?: never;
    /**
     * Delete a backup
     * @description Deletes the file from the backup folder. Audited as `backup.delete`.
     */
    delete: operations['deleteBackup'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This OpenAPI document */
    get: operations['openapi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ca.pem': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The internal certificate authority's root (PEM)
     * @description With `--tls internal`: the root certificate devices install to trust Hearth. 404 `not_found` in the other modes.
     */
    get: operations['tlsCaPem'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ca.crt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The internal certificate authority's root (DER)
     * @description The same root as `/ca.pem`, DER-encoded, as Android, Windows and ChromeOS import it.
     */
    get: operations['tlsCaDer'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ca.mobileconfig': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A configuration profile that installs the root on iOS, iPadOS and macOS
     * @description Open it in Safari, install it in Settings › Profile Downloaded, then turn on full trust in Settings › General › About › Certificate Trust Settings.
     */
    get: operations['tlsCaMobileconfig'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tls': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * TLS status
     * @description The mode, the public address, the certificate in use and when it renews, the internal root, and the last renewal failure.
     */
    get: operations['tlsStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tls/renew': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Renew the certificate now
     * @description Internal: a new leaf. ACME: a new order. Files: the files are read again. On failure the current certificate stays in use and the answer is 502 `renewal_failed` with the reason. 409 `tls_off` without TLS.
     */
    post: operations['tlsRenew'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Health: {
      /**
       * @description `ok`: every check passed (200). `degraded`: only the `disk` check failed; every request is still answered, writes that need more space are refused with 507 `disk_full` (200). `unavailable`: another check failed (503).
       * @enum {string}
       */
      status: 'ok' | 'degraded' | 'unavailable';
      version: string;
      uptime_seconds: number;
      /** @description `platform_db`: a probe write to the core store. `disk`: the disk holding the data folder (and its namespaces folder) has its reserve free (1 % of the disk, at most 64 MiB). `identity_keys`: the signing keys are loaded. `server`: present only while shutting down. */
      checks: {
        [key: string]: {
          ok: boolean;
          message?: string;
        };
      };
      namespaces: {
        count: number;
        open: number;
      };
      tls?: {
        /** @enum {string} */
        mode: 'off' | 'internal' | 'acme' | 'files';
        /** @description The address clients should use (issuer, passkeys, links). */
        public_url: string;
        /** @description `internal`: the SHA-256 fingerprint of Hearth's root (`/ca.pem`), to compare on a device before trusting it. */
        ca_fingerprint_sha256: string | null;
        certificate_fingerprint_sha256: string | null;
        certificate_not_after: string | null;
        /** @description The last failed renewal (the current certificate stays in use), until one succeeds. */
        last_error: string | null;
      };
      /** @description The last backup, the last failure and the next scheduled run. */
      backup?: {
        /** @description When the last backup (manual or scheduled) finished successfully. */
        lastSuccess: string | null;
        /** @description The last failure, unless a backup succeeded after it. */
        lastError: {
          error: string;
          message: string;
          at: string;
        } | null;
        /** @description The next scheduled run; null without a schedule. */
        nextRun: string | null;
        running: boolean;
      };
      /** @description The nodes sharing the core store, each holding the databases of the namespaces placed on it. */
      nodes?: {
        id: string;
        /** @description Where the other replicas reach it. */
        url: string;
        /** @description Its heartbeat is younger than HEARTH_NODE_HEALTHY_MS and it has not stopped. */
        healthy: boolean;
        heartbeat_age_ms: number;
        /** @description Namespaces placed on it. */
        namespaces: number;
        started_at: string;
        version: string;
        /** @description The node that answered. */
        self: boolean;
      }[];
    };
    Error: {
      /**
       * @description Stable error code (snake_case).
       * @example invalid_request
       */
      error: string;
      /** @description Human-readable explanation. */
      message: string;
      /**
       * @description Of a request that fails validation (`invalid_request`): the part of the request the problem is in.
       * @enum {string}
       */
      in?: 'body' | 'query' | 'path';
      /**
       * @description Of a request that fails validation (`invalid_request`): the dotted path of the value the problem is about inside `in`, as the message writes it (`config.busy_timeout`); absent when the problem is about the whole body or query string (an unknown key, a body that is not a JSON object).
       * @example config.busy_timeout
       */
      field?: string;
      /** @description Structured detail, only where a route documents it (e.g. every refused line of a CSV import). */
      details?: {
        [key: string]: unknown;
      };
    };
    ApiToken: {
      id: string;
      name: string;
      /** @description First characters of the token, to recognise it. */
      prefix: string;
      /** @enum {string} */
      scope: 'admin' | 'namespaces';
      namespaces: string[] | null;
      read_only: boolean;
      created_at: string;
      expires_at: string | null;
      /** @description Updated at most once a minute. */
      last_used_at: string | null;
      revoked_at: string | null;
    };
    CreatedApiToken: {
      id: string;
      name: string;
      /** @description First characters of the token, to recognise it. */
      prefix: string;
      /** @enum {string} */
      scope: 'admin' | 'namespaces';
      namespaces: string[] | null;
      read_only: boolean;
      created_at: string;
      expires_at: string | null;
      /** @description Updated at most once a minute. */
      last_used_at: string | null;
      revoked_at: string | null;
      token: string;
    };
    CreateApiToken: {
      name: string;
      /**
       * @description `admin`: control plane, administration and every namespace. `namespaces`: the data plane of the listed namespaces only.
       * @enum {string}
       */
      scope: 'admin' | 'namespaces';
      namespaces?: string[];
      /** @description Namespace tokens only: refuse every write. */
      read_only?: boolean;
      /**
       * Format: date-time
       * @description Optional expiry (ISO 8601).
       */
      expires_at?: string;
    };
    Namespace: {
      /**
       * @description Namespace name: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
       * @example sales
       */
      name: string;
      /** @description UTC timestamp, ISO 8601. */
      created_at: string;
      config: components['schemas']['NamespaceConfig'];
      /** @description Last time the namespace was used (UTC ISO 8601); flushed every few seconds; `null` if never. */
      last_activity_at: string | null;
      storage: components['schemas']['StorageSnapshot'];
      /** @description The node its database file lives on (replicas sharing one core store: see the nodes in `/healthz`). */
      node: string | null;
    };
    /** @description Namespace configuration. Always replaced as a whole; omitted settings take their defaults. */
    NamespaceConfig: {
      /**
       * @description SQLite journal mode. `wal` (default) lets readers and the writer work at once; `delete`, `truncate` and `persist` are rollback journals (one writer blocks readers). `memory` and `off` are refused: they can corrupt the database on a crash.
       * @default wal
       * @enum {string}
       */
      journal_mode?: 'wal' | 'delete' | 'truncate' | 'persist';
      /**
       * @description `full` (default) is durable. `normal` syncs less: with `wal`, the newest transactions may be lost after an operating-system crash or power loss, but the database stays consistent.
       * @default full
       * @enum {string}
       */
      synchronous?: 'full' | 'normal';
      /**
       * @description Milliseconds a write waits for a lock (0–600000).
       * @default 5000
       */
      busy_timeout?: number;
      /**
       * @description Hard quota in bytes (at least 4096), or `null` for none. A write or import that would exceed it is refused with 507 `quota_exceeded`. A quota below the current size blocks growth; it never truncates data.
       * @default null
       */
      max_db_size?: number | null;
      /**
       * @description Milliseconds a read-only query may run (1–3600000).
       * @default 10000
       */
      query_timeout?: number;
      /**
       * @description Enforce foreign-key constraints.
       * @default true
       */
      foreign_keys?: boolean;
      /**
       * @description `true` refuses every data-plane write; `false` is read-write.
       * @default false
       */
      read_only?: boolean;
    };
    /** @description Compact storage snapshot, refreshed when the database is opened, closed, imported or every few minutes while open. */
    StorageSnapshot: {
      /** @description Size of the database file. */
      size_bytes: number;
      /** @description Size of the write-ahead log (0 when absent). */
      wal_bytes: number;
      page_size: number;
      page_count: number;
      /** @description Pages on the freelist (reclaimable by VACUUM). */
      free_pages: number;
      /** @description When the snapshot was taken (UTC ISO 8601). */
      measured_at: string;
    } | null;
    CreateNamespace: {
      /**
       * @description Namespace name: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
       * @example sales
       */
      name: string;
      config?: components['schemas']['NamespaceConfig'];
      /** @description The node to place it on (an id from the nodes in `/healthz`); it must be registered (else 400 `node_unknown`) and healthy (else 409 `node_unavailable`). Omitted: the healthy node holding the fewest namespaces. */
      node?: string;
    };
    NamespaceList: {
      data: components['schemas']['Namespace'][];
      /** @description Opaque cursor of the next page; `null` on the last page. */
      next_cursor: string | null;
    };
    UpdateNamespace: {
      config: components['schemas']['NamespaceConfig'];
    };
    DuplicateNamespace: {
      /**
       * @description Namespace name: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
       * @example sales
       */
      name: string;
    };
    ImportUpload: {
      /**
       * Format: binary
       * @description A SQLite database file (or CSV with `table`).
       */
      file: string;
    };
    ObjectList: {
      data: {
        name: string;
        /** @enum {string} */
        type: 'table' | 'view';
        metadata: {
          [key: string]: unknown;
        };
        row_count_estimate: number | null;
      }[];
    };
    TableSchema: {
      name: string;
      /** @enum {string} */
      type: 'table' | 'view';
      /** @description `true` when Hearth created the table (it maintains id, created_at, updated_at); `false` for tables that came with an imported file. */
      managed: boolean;
      columns: (components['schemas']['Column'] & {
        system?: boolean;
      })[];
      indexes: components['schemas']['Index'][];
      metadata: {
        [key: string]: unknown;
      };
      /** @description The SELECT of a view; null for tables. */
      sql: string | null;
      /** @description Exact up to 10,000 rows, otherwise the largest id (no full scan); null for views. */
      row_count_estimate: number | null;
    };
    Column: {
      /** @description Identifier: letters, digits, underscores; not reserved. */
      name: string;
      /**
       * @description text, integer, real, boolean, datetime (ISO 8601, stored in UTC), date (YYYY-MM-DD), json (any JSON value), blob (base64 in JSON).
       * @enum {string}
       */
      type: 'text' | 'integer' | 'real' | 'boolean' | 'datetime' | 'date' | 'json' | 'blob';
      not_null?: boolean;
      unique?: boolean;
      /** @description text only: most characters. */
      max_length?: number;
      /** @description integer/real only: lower bound. */
      min?: number;
      /** @description integer/real only: upper bound. */
      max?: number;
    };
    Index: {
      name: string;
      /** @enum {string} */
      type: 'index' | 'unique' | 'fts';
      columns: string[];
    };
    CreateObject:
      | {
          /** @enum {string} */
          type: 'table';
          name: string;
          metadata?: {
            [key: string]: unknown;
          };
          columns: components['schemas']['Column'][];
          _meta?: components['schemas']['MutationMeta'];
        }
      | {
          /** @enum {string} */
          type: 'view';
          name: string;
          sql: string;
          metadata?: {
            [key: string]: unknown;
          };
          _meta?: components['schemas']['MutationMeta'];
        };
    /** @description `{actor}` and any other JSON, carried into change events and the changelog. */
    MutationMeta: {
      actor?: string;
    } & {
      [key: string]: unknown;
    };
    UpdateObject: {
      rename?: string;
      add_columns?: components['schemas']['Column'][];
      drop_columns?: string[];
      rename_columns?: {
        [key: string]: string;
      };
      metadata?: {
        [key: string]: unknown;
      };
      sql?: string;
      _meta?: components['schemas']['MutationMeta'];
    };
    CreateIndex: {
      /** @enum {string} */
      type: 'index' | 'unique' | 'fts';
      name?: string;
      columns: string[];
      _meta?: components['schemas']['MutationMeta'];
    };
    ChangelogEntry: {
      id: number;
      timestamp: string;
      action: string;
      table: string;
      detail?: unknown;
      _meta: {
        [key: string]: unknown;
      } | null;
    };
    RowList: {
      data: components['schemas']['Row'][];
      meta?: {
        limit: number;
        offset: number;
        total_count?: number;
        filter_count?: number;
      };
    };
    /** @description A flat object of column values (json columns hold any JSON; blobs are base64). A key that is not a column is 400 `unknown_column`. */
    Row: {
      [key: string]: unknown;
    };
    /** @description One row as a flat object (optionally with `_meta`), or `{rows: [...], _meta}`. A top-level array is rejected. */
    InsertRows:
      | {
          rows: components['schemas']['Row'][];
          /** @description Who made the change and why (`{"actor": "alice", "reason": "…"}`); `actor` defaults to the caller. */
          _meta?: {
            actor?: string;
          } & {
            [key: string]: unknown;
          };
        }
      | ({
          /** @description Who made the change and why (`{"actor": "alice", "reason": "…"}`); `actor` defaults to the caller. */
          _meta?: {
            actor?: string;
          } & {
            [key: string]: unknown;
          };
        } & {
          [key: string]: unknown;
        });
    /** @description A flat object of column values (json columns hold any JSON; blobs are base64). A key that is not a column is 400 `unknown_column`. Optional `_meta` (not a column). */
    WriteRow: {
      /** @description Who made the change and why (`{"actor": "alice", "reason": "…"}`); `actor` defaults to the caller. */
      _meta?: {
        actor?: string;
      } & {
        [key: string]: unknown;
      };
    } & {
      [key: string]: unknown;
    };
    MovedNamespace: {
      /**
       * @description Namespace name: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.
       * @example sales
       */
      name: string;
      /** @description UTC timestamp, ISO 8601. */
      created_at: string;
      config: components['schemas']['NamespaceConfig'];
      /** @description Last time the namespace was used (UTC ISO 8601); flushed every few seconds; `null` if never. */
      last_activity_at: string | null;
      storage: components['schemas']['StorageSnapshot'];
      /** @description The node its database file lives on (replicas sharing one core store: see the nodes in `/healthz`). */
      node: string | null;
      moved: {
        /** @description The node that held it. */
        from: string;
        /** @description The node that holds it now. */
        to: string;
        /** @description Size of the database file copied. */
        bytes: number;
        /** @description How long writes to it were paused (reads went on). */
        pause_ms: number;
      };
    };
    MoveNamespace: {
      /** @description The node to move the namespace to (an id listed in `/healthz`). */
      node: string;
    };
    /** @description Single form: `{data, truncated?}`. Batch form: `{results: [{data, truncated?}…]}`. */
    QueryResponse: components['schemas']['QueryResult'] | components['schemas']['QueryBatchResult'];
    QueryResult: {
      data: {
        [key: string]: unknown;
      }[];
      /**
       * @description Present (true) only when rows were left out: the statement returned more than 10000 rows, or the response reached 32 MiB.
       * @enum {boolean}
       */
      truncated?: true;
    };
    QueryBatchResult: {
      /** @description One result per statement, in order. */
      results: components['schemas']['QueryResult'][];
    };
    /** @description Exactly one of: `{sql, params?}` (single form) or `{statements: [{sql, params?}…]}` (batch form). */
    QueryRequest: {
      /**
       * @description One read-only SQL statement with positional `?` placeholders.
       * @example SELECT * FROM people WHERE city = ?
       */
      sql?: string;
      /**
       * @description Values for the `?` placeholders, in order: strings, numbers, booleans (bound as 1/0) or null. Whole numbers are bound as INTEGER. Defaults to `[]`.
       * @example [
       *       "Lyon"
       *     ]
       */
      params?: (string | number | boolean | null)[];
      /** @description Batch form: 1–50 statements, run one after another (not a transaction). */
      statements?: components['schemas']['QueryStatement'][];
    };
    QueryStatement: {
      /**
       * @description One read-only SQL statement with positional `?` placeholders.
       * @example SELECT * FROM people WHERE city = ?
       */
      sql: string;
      /**
       * @description Values for the `?` placeholders, in order: strings, numbers, booleans (bound as 1/0) or null. Whole numbers are bound as INTEGER. Defaults to `[]`.
       * @example [
       *       "Lyon"
       *     ]
       */
      params?: (string | number | boolean | null)[];
    };
    NamespaceOverview: {
      namespace: string;
      /** @enum {string} */
      window: '1h' | '24h' | '7d' | '30d';
      /** @description UTC ISO 8601. */
      generated_at: string;
      storage: {
        /** @description Size of the database file. */
        size_bytes: number;
        /** @description Size of the write-ahead log (0 when there is none). */
        wal_bytes: number;
        page_size: number;
        page_count: number;
        /** @description Pages on the free list (reusable without growing the file). */
        free_pages: number;
        /** @description `free_pages × page_size`. */
        free_bytes: number;
        /** @description The namespace quota in bytes (`config.max_db_size`); null without a quota. */
        max_db_size: number | null;
      };
      schema: {
        tables: number;
        views: number;
        /** @description Indexes of kind `index` and `unique` created on tables. */
        indexes: number;
        /** @description Tables with a full-text-search index. */
        fts_indexes: number;
        /** @description Columns of tables, without the service-maintained `id`, `created_at` and `updated_at`. */
        columns: number;
      };
      telemetry: {
        /**
         * @description Width of one `series` point.
         * @enum {string}
         */
        resolution: 'minute' | 'hour' | 'day';
        /** @description Start of the first series point, UTC ISO 8601. */
        from: string;
        /** @description End of the window (now), UTC ISO 8601. */
        to: string;
        requests: number;
        errors: number;
        client_errors: number;
        server_errors: number;
        rows_read: number;
        rows_written: number;
        /** @description Estimated from a log-scale histogram; null when the window has no requests. */
        latency_ms: {
          p50: number | null;
          p95: number | null;
          p99: number | null;
          avg: number | null;
          max: number | null;
        };
        series: components['schemas']['OverviewSeriesPoint'][];
      };
    };
    OverviewSeriesPoint: {
      /** @description Start of the bucket, UTC ISO 8601. */
      start: string;
      requests: number;
      /** @description `client_errors + server_errors`. */
      errors: number;
      /** @description Responses with status 400–499. */
      client_errors: number;
      /** @description Responses with status 500 and above. */
      server_errors: number;
      rows_read: number;
      rows_written: number;
      p50_ms: number | null;
      p95_ms: number | null;
      avg_ms: number | null;
    };
    /** @description Pending, active and not yet withdrawn retired public keys of one purpose. Revoked keys never appear. */
    Jwks: {
      keys: components['schemas']['PublicJwk'][];
    };
    /** @description An RSA public key. Private members never appear. */
    PublicJwk: {
      /** @enum {string} */
      kty: 'RSA';
      n: string;
      e: string;
      kid: string;
      /** @enum {string} */
      alg: 'RS256';
      /** @enum {string} */
      use: 'sig';
    };
    SigningKeyList: {
      /** @description Fingerprint of the current KEK; after a rewrap every key with a private half reports it as `encryptionKeyId`. */
      kekFingerprint: string;
      kek: components['schemas']['KeyEncryptionKeyInfo'];
      /** @description Where verifiers fetch each key set: `HEARTH_IDENTITY_JWKS_ORIGIN` (session, invocation) and `HEARTH_OAUTH_JWKS_ORIGIN` (OAuth), each else the public issuer. The transport only: tokens keep the public issuer, and discovery publishes the public `jwks_uri`. */
      verifierJwks: {
        session: string;
        invocation: string;
        oauth: string;
      };
      /** @description Every key, newest first within active, pending, retired, revoked. */
      keys: components['schemas']['SigningKey'][];
    };
    KeyEncryptionKeyInfo: {
      /** @description Fingerprint (`encryptionKeyId`) of the current KEK, the only one that encrypts. */
      fingerprint: string;
      /**
       * @description `environment`: HEARTH_IDENTITY_KEY_ENCRYPTION_KEY; `secret-store`: generated into <data>/secrets/identity-kek.
       * @enum {string}
       */
      source: 'environment' | 'secret-store';
      /** @description Fingerprint of HEARTH_IDENTITY_NEXT_KEY (decrypts only). */
      next: string | null;
      /** @description Fingerprint of HEARTH_IDENTITY_PREVIOUS_KEY (decrypts only). */
      previous: string | null;
    };
    /** @description Lifecycle metadata of a signing key. Never contains key material or token contents. */
    SigningKey: {
      kid: string;
      /** @enum {string} */
      purpose: 'session' | 'invocation' | 'oauth';
      /** @enum {string} */
      state: 'pending' | 'active' | 'retired' | 'revoked';
      /** @enum {string} */
      algorithm: 'RS256';
      /** @description RFC 7638 SHA-256 thumbprint of the public key. */
      thumbprint: string;
      /** @description Whether the public key is in its JWKS now. */
      published: boolean;
      /** @description Fingerprint of the KEK that encrypts the private key; null once the key is retired or revoked (its private half is destroyed then). */
      encryptionKeyId: string | null;
      /** @description Creation and publication time (ISO 8601). */
      createdAt: string;
      /** @description Scheduled activation: at least ten minutes after publication, except for immediate replacements. */
      activatesAt: string;
      /** @description When it started signing (ISO 8601), or null. */
      activatedAt: string | null;
      /** @description End of the 30-day target signing lifetime (ISO 8601), or null. */
      retiresAt: string | null;
      /** @description When it stopped signing (ISO 8601), or null. */
      retiredAt: string | null;
      /**
       * @description Why it stopped signing.
       * @enum {string|null}
       */
      retirement: 'rotated' | 'downtime' | 'revoked' | null;
      /** @description When the public key leaves the JWKS (after every token it signed plus margins has expired) (ISO 8601), or null. */
      withdrawsAt: string | null;
      /** @description When maintenance recorded the withdrawal (ISO 8601), or null. */
      withdrawnAt: string | null;
      /** @description Emergency revocation time (ISO 8601), or null. */
      revokedAt: string | null;
      revokedBy: string | null;
      /** @description The durable incident reason given at revocation. */
      revocationReason: string | null;
      /** @description Last re-encryption under a new KEK (ISO 8601), or null. */
      rewrappedAt: string | null;
    };
    RewrapResult: {
      /** @description Private keys re-encrypted by this call (0 when all already were under the current KEK). */
      rewrapped: number;
      /** @description Private keys already under the current KEK. */
      unchanged: number;
      /** @description Fingerprint of the current KEK. */
      encryptionKeyId: string;
    };
    RevokedSigningKey: {
      revoked: components['schemas']['SigningKey'];
      /** @description The immediately active replacement when the revoked key was active; null for a pending key. */
      replacementKid: string | null;
    };
    RevokeSigningKey: {
      /** @description The incident reason, stored durably with the key and in the audit log. */
      reason: string;
    };
    AccountList: {
      data: components['schemas']['Account'][];
      page: number;
      per_page: number;
      total: number;
    };
    Account: {
      /** @description Immutable UUID. */
      sub: string;
      /** @enum {string} */
      kind: 'person';
      login: string;
      email: string | null;
      displayName: string;
      /**
       * @description Account profile.
       * @enum {string}
       */
      profile: 'user' | 'guest';
      /** @description Administrator role. */
      admin: boolean;
      disabled: boolean;
      /** @description Expiry (ISO 8601); the account is unusable from then on. Null: never. */
      expiresAt: string | null;
      /** @description Session epoch; bumped to revoke every session of the account. */
      epoch: number;
      /**
       * @description `login` (local full account), `guest`, `freeipa` (directory; reserved).
       * @enum {string}
       */
      category: 'login' | 'guest' | 'freeipa';
      createdAt: string;
      updatedAt: string;
    };
    CreateAccount: {
      /**
       * @description Login name: 1–32 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_". Unique; renaming keeps `sub`.
       * @example alice
       */
      login: string;
      /** Format: email */
      email?: string | null;
      displayName?: string;
      /**
       * @description Account profile.
       * @default user
       * @enum {string}
       */
      profile?: 'user' | 'guest';
      /** @default false */
      admin?: boolean;
      /** @default false */
      disabled?: boolean;
      /** Format: date-time */
      expiresAt?: string | null;
    };
    AccountDetail: {
      /** @description Immutable UUID. */
      sub: string;
      /** @enum {string} */
      kind: 'person';
      login: string;
      email: string | null;
      displayName: string;
      /**
       * @description Account profile.
       * @enum {string}
       */
      profile: 'user' | 'guest';
      /** @description Administrator role. */
      admin: boolean;
      disabled: boolean;
      /** @description Expiry (ISO 8601); the account is unusable from then on. Null: never. */
      expiresAt: string | null;
      /** @description Session epoch; bumped to revoke every session of the account. */
      epoch: number;
      /**
       * @description `login` (local full account), `guest`, `freeipa` (directory; reserved).
       * @enum {string}
       */
      category: 'login' | 'guest' | 'freeipa';
      createdAt: string;
      updatedAt: string;
      /** @description Direct and transitive (nested) group memberships. */
      groups: components['schemas']['GroupMembership'][];
    };
    GroupMembership: {
      id: string;
      name: string;
      /** @description False when the membership is only through nested groups. */
      direct: boolean;
    };
    /** @description Only the given fields change; `null` clears `email` or `expiresAt`. Disabling revokes sessions (bumps `epoch`). */
    UpdateAccount: {
      /**
       * @description Login name: 1–32 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_". Unique; renaming keeps `sub`.
       * @example alice
       */
      login?: string;
      /** Format: email */
      email?: string | null;
      displayName?: string;
      /**
       * @description Account profile.
       * @enum {string}
       */
      profile?: 'user' | 'guest';
      admin?: boolean;
      disabled?: boolean;
      /** Format: date-time */
      expiresAt?: string | null;
    };
    GroupList: {
      data: components['schemas']['Group'][];
      page: number;
      per_page: number;
      total: number;
    };
    Group: {
      id: string;
      name: string;
      description: string;
      createdAt: string;
      updatedAt: string;
    };
    GroupDetail: {
      id: string;
      name: string;
      description: string;
      createdAt: string;
      updatedAt: string;
      /** @description Direct members only. */
      members: {
        accounts: {
          sub: string;
          login: string | null;
          displayName: string;
          /** @enum {string} */
          kind: 'person' | 'service';
        }[];
        groups: {
          id: string;
          name: string;
        }[];
      };
    };
    CreateGroup: {
      /**
       * @description Group name: 1–64 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_". Unique.
       * @example staff
       */
      name: string;
      /** @default  */
      description?: string;
    };
    UpdateGroup: {
      /**
       * @description Group name: 1–64 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_". Unique.
       * @example staff
       */
      name?: string;
      description?: string;
    };
    /** @description An account (`account`: its sub) or a nested group (`group`: its id). */
    GroupMember: {
      /** Format: uuid */
      account?: string;
      /** Format: uuid */
      group?: string;
    };
    ServiceAccountList: {
      data: components['schemas']['ServiceAccount'][];
      page: number;
      per_page: number;
      total: number;
    };
    /** @description A resource-bound account an application acts as (OAuth client credentials). It has no login and never signs in. */
    ServiceAccount: {
      sub: string;
      /** @enum {string} */
      kind: 'service';
      appId: string;
      resourceType: string;
      resourceId: string;
      displayName: string;
      createdAt: string;
      updatedAt: string;
    };
    /** @description The triple `appId`, `resourceType`, `resourceId` is unique. */
    CreateServiceAccount: {
      appId: string;
      resourceType: string;
      resourceId: string;
      displayName?: string;
    };
    AccountCategoryPolicyState: {
      /** @description Categories whose accounts may use platform credential flows. */
      allowedCategories: ('login' | 'guest' | 'freeipa')[];
      /** @description False when the stored policy is invalid: then nothing is allowed until it is replaced. */
      valid: boolean;
    };
    /** @description Which account categories may use credential flows. Default `{"allowedCategories": ["login", "guest"]}`; a stored policy that does not validate allows nothing. */
    AccountCategoryPolicy: {
      /** @description Categories whose accounts may use platform credential flows. */
      allowedCategories: ('login' | 'guest' | 'freeipa')[];
    };
    SignedIn: {
      account: components['schemas']['SessionAccount'];
    };
    SessionAccount: {
      sub: string;
      login: string;
      displayName: string;
      admin: boolean;
    };
    SetupBody: {
      /**
       * @description Login name: 1–32 characters of lowercase ASCII letters, digits, "_" or "-", starting with a letter or "_". Unique; renaming keeps `sub`.
       * @example alice
       */
      login: string;
      /** @description A password of 8–1024 characters. */
      password: string;
      displayName?: string;
      /** Format: email */
      email?: string | null;
    };
    LoginBody: {
      login: string;
      password: string;
    };
    RequestIdentity: {
      actor: string;
      accessSubject: string;
      /** @enum {string} */
      kind: 'user' | 'service_account' | 'token';
      admin: boolean;
      scope: string[] | null;
    };
    CurrentSession: {
      account: components['schemas']['SessionAccount'];
      session: {
        /** @description Sign-in time (epoch ms). */
        issuedAt: number;
        /** @description End of the session (epoch ms). */
        expiresAt: number;
        /** @description Signed in within the last ten minutes (needed for sensitive actions). */
        recentAuth: boolean;
      };
    };
    ChangeOwnPassword: {
      currentPassword: string;
      /** @description A password of 8–1024 characters. */
      newPassword: string;
    };
    Reauthenticated: {
      /** @description The new sign-in time of the session (epoch ms). */
      issuedAt: number;
      /** @description Sensitive actions are allowed until then (epoch ms). */
      recentAuthUntil: number;
    };
    ReauthBody: {
      password: string;
    };
    SetPassword: {
      /** @description A password of 8–1024 characters. */
      password: string;
    };
    DeviceAuthorizationResponse: {
      /** @description Secret for the token request (`hdc_…`, single-use; stored hashed). */
      device_code: string;
      /** @description With `login_hint`: the six-digit comparison code the authenticator app shows. Without: an eight-letter code (`BCDF-GHJK`) to enter at `verification_uri`. */
      user_code: string;
      verification_uri: string;
      /** @description Without `login_hint` only: `verification_uri` with the user code filled in. */
      verification_uri_complete?: string;
      /** @description Seconds: 300 with `login_hint` (the approval request's five minutes), 600 without. */
      expires_in: number;
      /** @description Seconds between token requests (5); each `slow_down` adds 5. */
      interval: number;
    };
    OAuthError: {
      error: string;
      error_description: string;
      /** @description The same text as `error_description`. */
      message: string;
    };
    DeviceAuthorizationRequest: {
      /** @description A first-party client (`hearth-cli`); others get `unauthorized_client`. */
      client_id: string;
      client_secret?: string;
      /** @description Space-separated scopes (1–16), each allowed for the client. Omitted: every scope of the client. */
      scope?: string;
      /** @description A login name or email (1–254 characters): the sign-in is approved in that account's paired authenticator app. Omitted: the user enters `user_code` at `verification_uri`. */
      login_hint?: string;
    };
    TokenResponse: {
      access_token: string;
      /** @enum {string} */
      token_type: 'Bearer';
      expires_in: number;
      scope: string;
      refresh_token?: string;
      id_token?: string;
    };
    TokenRequest: {
      /** @enum {string} */
      grant_type: 'authorization_code' | 'client_credentials' | 'refresh_token' | 'urn:ietf:params:oauth:grant-type:device_code';
      /** @description RFC 8628 §3.4: the device code (grant `urn:ietf:params:oauth:grant-type:device_code`). */
      device_code?: string;
      code?: string;
      redirect_uri?: string;
      client_id?: string;
      client_secret?: string;
      code_verifier?: string;
      /** @description RFC 6749 §6: the refresh token (grant `refresh_token`). */
      refresh_token?: string;
      scope?: string;
      resource?: string;
    };
    UserInfo: {
      sub: string;
      uid?: string;
      name?: string;
      preferred_username?: string;
      email?: string;
      groups?: string[];
    };
    ClientRegistrationResponse: {
      client_id: string;
      client_id_issued_at: number;
      client_name: string;
      redirect_uris: string[];
      /** @enum {string} */
      token_endpoint_auth_method: 'none';
      grant_types: string[];
      response_types: 'code'[];
      /** @enum {string} */
      application_type: 'native' | 'web';
      scope: string;
    };
    ClientRegistration: {
      redirect_uris: string[];
      /**
       * @default none
       * @enum {string}
       */
      token_endpoint_auth_method?: 'none';
      /**
       * @default [
       *       "authorization_code"
       *     ]
       */
      grant_types?: ('authorization_code' | 'refresh_token')[];
      response_types?: 'code'[];
      /** @enum {string} */
      application_type?: 'native' | 'web';
      client_name?: string;
      scope?: string;
      post_logout_redirect_uris?: string[];
    } & {
      [key: string]: unknown;
    };
    OAuthClientList: {
      data: components['schemas']['OAuthClient'][];
      page: number;
      per_page: number;
      total: number;
    };
    OAuthClient: {
      clientId: string;
      /**
       * @description `managed` (created by an administrator), `first_party` (seeded, protected), `dynamic` (RFC 7591).
       * @enum {string}
       */
      origin: 'managed' | 'first_party' | 'dynamic';
      name: string;
      description: string | null;
      redirectUris: string[];
      logoutUri: string | null;
      scopes: string[];
      audiences: string[];
      serviceAccountId: string | null;
      allowedProfiles: ('user' | 'guest')[];
      /** @enum {string} */
      accessMode: 'profiles' | 'specific';
      allowedUserIds: string[];
      allowedGroupIds: string[];
      isPublic: boolean;
      /** @description The secret itself is shown only when created or rotated. */
      hasSecret: boolean;
      grantTypes: string[];
      createdAt: string;
      updatedAt: string;
      secretRotatedAt: string | null;
      /** @description Set once an administrator revoked the client: it can no longer be used and its tokens are invalid. */
      revokedAt: string | null;
    };
    OAuthClientWithSecret: {
      client: components['schemas']['OAuthClient'];
      /** @description Shown once; null for public clients. */
      clientSecret: string | null;
    };
    CreateOAuthClient: {
      name: string;
      description?: string | null;
      /** @default [] */
      redirectUris?: string[];
      logoutUri?: string | null;
      /**
       * @default [
       *       "openid",
       *       "profile",
       *       "email"
       *     ]
       */
      scopes?: ('openid' | 'profile' | 'email' | 'groups' | 'offline_access' | 'read' | 'write' | 'admin')[];
      /**
       * @default [
       *       "hearth"
       *     ]
       */
      audiences?: string[];
      /**
       * Format: uuid
       * @default null
       */
      serviceAccountId?: string | null;
      /**
       * @default [
       *       "user",
       *       "guest"
       *     ]
       */
      allowedProfiles?: ('user' | 'guest')[];
      /**
       * @default profiles
       * @enum {string}
       */
      accessMode?: 'profiles' | 'specific';
      /** @default [] */
      allowedUserIds?: string[];
      /** @default [] */
      allowedGroupIds?: string[];
      /** @default false */
      isPublic?: boolean;
    };
    /** @description Only the fields given change. `isPublic` cannot change: create a new client. */
    UpdateOAuthClient: {
      name?: string;
      description?: string | null;
      redirectUris?: string[];
      logoutUri?: string | null;
      scopes?: ('openid' | 'profile' | 'email' | 'groups' | 'offline_access' | 'read' | 'write' | 'admin')[];
      audiences?: string[];
      /** Format: uuid */
      serviceAccountId?: string | null;
      allowedProfiles?: ('user' | 'guest')[];
      /** @enum {string} */
      accessMode?: 'profiles' | 'specific';
      allowedUserIds?: string[];
      allowedGroupIds?: string[];
    };
    LinuxPreview: {
      config: components['schemas']['LinuxIdentityConfig'];
      configValid: boolean;
      accounts: components['schemas']['LinuxAccount'][];
      nextCursor: string | null;
    };
    LinuxIdentityConfig: {
      enabled: boolean;
      rangeStart: number | null;
      rangeEnd: number | null;
      /** @default /home/{username} */
      homeTemplate?: string;
      /** @default /bin/bash */
      loginShell?: string;
    };
    LinuxAccount: {
      sub: string;
      login: string;
      /** @enum {string} */
      profile: 'user' | 'guest';
      disabled: boolean;
      /** @description Local full account (profile `user`); guests are not eligible. */
      eligible: boolean;
      identity: components['schemas']['LinuxIdentity'];
      /** @description Why an identity cannot be assigned (or differs), as `code: explanation`. Never resolved silently. */
      conflicts: string[];
    };
    LinuxIdentity: {
      username: string;
      uid: number;
      gid: number;
      primaryGroup: string;
      homeDirectory: string;
      loginShell: string;
    } | null;
    LinuxConfigState: {
      config: components['schemas']['LinuxIdentityConfig'];
      configValid?: boolean;
    };
    PasskeyCeremony: {
      challengeId: string;
      /** @description WebAuthn options (JSON form) for `navigator.credentials.create`/`get`. */
      options: {
        [key: string]: unknown;
      };
    };
    Passkey: {
      id: string;
      name: string;
      transports: string[];
      deviceType: string;
      backedUp: boolean;
      createdAt: string;
      lastUsedAt: string | null;
    };
    EmailLinkAccepted: {
      /** @enum {boolean} */
      accepted: true;
    };
    AppApprovalInfo: {
      /** @enum {string} */
      protocol: 'hearth-app-approval-v1';
      issuer: string;
      api: string;
      appOrigin: string | null;
      /** @enum {string} */
      algorithm: 'ES256';
      limits: {
        [key: string]: number;
      };
      features: ('device-changes' | 'login-context' | 'terminal-logins')[];
      /** @description False when no authenticator origin is configured: every other endpoint then answers 503 `approval_disabled`, `appOrigin` is null and `features` empty. */
      enabled: boolean;
    };
    AppPairing: {
      protocol: string;
      issuer: string;
      pairingId: string;
      secret: string;
      /** @description UTC date-time, ISO 8601. */
      expiresAt: string;
    };
    AppPairingStatus: {
      pairingId: string;
      /** @enum {string} */
      state: 'created' | 'claimed' | 'confirmed' | 'cancelled' | 'expired';
      /** @description UTC date-time, ISO 8601. */
      expiresAt: string;
      deviceId: string | null;
      name: string | null;
      assisted: boolean;
      approval: {
        /** @enum {string} */
        state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired';
        /** @description UTC date-time, ISO 8601. */
        expiresAt: string;
      } | null;
    };
    AppDevice: {
      id: string;
      name: string;
      /** @description UTC date-time, ISO 8601. */
      createdAt: string;
      /** @description UTC date-time, ISO 8601. */
      lastUsedAt: string | null;
      /** @description UTC date-time, ISO 8601. */
      revokedAt: string | null;
      assisted: boolean;
    };
    AppDeviceChangeStatus: {
      changeId: string;
      /** @enum {string} */
      state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired';
      /** @description UTC date-time, ISO 8601. */
      expiresAt: string;
    };
    AppLoginRequest: {
      requestId: string;
      browserSecret: string;
      comparison: string;
      /** @description UTC date-time, ISO 8601. */
      expiresAt: string;
      pollAfterSeconds: number;
    };
    MailProfileList: {
      data: components['schemas']['MailProfile'][];
    };
    MailProfile: {
      key: string;
      name: string;
      fromAddress: string;
      fromName: string | null;
      smtpHost: string;
      smtpPort: number;
      smtpSecure: boolean;
      smtpUser: string | null;
      hasPassword: boolean;
      pacePerMinute: number;
      dailyRecipientLimit: number | null;
      maxAttachmentBytes: number;
      /** @description The default profile (exactly one while any profile exists). */
      isDefault: boolean;
      revision: number;
      imap: {
        host: string;
        port: number;
        secure: boolean;
        user: string;
        folder: string;
        hasPassword: boolean;
      } | null;
      /** @description Null when collection is off; `checkedAt: null` while a new mailbox waits for its first check. */
      bounces: {
        checkedAt: string | null;
        error: string | null;
      } | null;
      /** @description The trusted CA certificates of this profile (written as `tlsCaPem`): subject, issuer, SHA-256 fingerprint and validity of each; never the PEM. Null: Node's default CAs only. */
      tlsCa:
        | {
            /** @example O=Example Office, CN=Example Office CA */
            subject: string;
            issuer: string;
            /** @description SHA-256 fingerprint (`AB:CD:…`, as `openssl x509 -noout -fingerprint -sha256` prints it). */
            fingerprint256: string;
            validFrom: string;
            validTo: string;
          }[]
        | null;
      /** @description The last test send through this profile, kept across restarts and profile edits; null until the first one. */
      lastTest: {
        /** @description When the test send ended (ISO 8601). */
        at: string;
        /** @description True: the SMTP server accepted the test message (acceptance only, not delivery). */
        ok: boolean;
        /**
         * @description Why it failed (null when it succeeded): the `reason` of the `smtp_failed` answer.
         * @enum {string|null}
         */
        code:
          | 'connection_refused'
          | 'host_not_found'
          | 'tls_required'
          | 'tls_not_supported'
          | 'certificate_untrusted'
          | 'auth_failed'
          | 'auth_required'
          | 'timeout'
          | 'sender_refused'
          | 'recipient_refused'
          | 'message_refused'
          | 'smtp_error'
          | null;
        /** @description One sentence: the result, and for a failure what to check. */
        summary: string;
        /** @description The server's raw answer or the connection error, credentials redacted; null when there was none. */
        detail: string | null;
      } | null;
      createdAt: string;
      updatedAt: string;
    };
    MailProfileWrite: {
      name: string;
      /** @description Sender address, also the SMTP envelope sender. */
      fromAddress: string;
      /**
       * @description The sender's display name: at most 120 characters, one line of plain text (no CR, LF, NUL, U+0085, U+2028, U+2029 or other control characters, no bidirectional overrides or unpaired surrogates). Null uses the registered application name (the installation name for Core mail and test sends).
       * @default null
       */
      fromName?: string | null;
      smtpHost: string;
      smtpPort: number;
      smtpSecure: boolean;
      /**
       * @description Authentication is omitted when null or empty.
       * @default null
       */
      smtpUser?: string | null;
      /** @description Write-only. Omitted keeps the stored password; null clears; a string replaces. Changing `smtpHost` (ignoring case and surrounding spaces) requires giving it again or clearing it. */
      smtpPassword?: string | null;
      /**
       * @description Bulk-lane attempts per minute (default 60); the immediate lane ignores it.
       * @default 60
       */
      pacePerMinute?: number;
      /**
       * @description Recipients per rolling 24 hours; null (the default) is unlimited.
       * @default null
       */
      dailyRecipientLimit?: number | null;
      /** @default 15728640 */
      maxAttachmentBytes?: number;
      /**
       * @description Null or omitted turns bounce collection off and clears its cursor and status.
       * @default null
       */
      imap?: {
        /** @description IMAP server; an empty host turns collection off (same as `imap: null`). */
        host: string;
        port: number;
        /** @description true: implicit TLS; false: STARTTLS is required before authentication. */
        secure: boolean;
        user: string;
        /** @description Write-only; omitted keeps, null clears, a string replaces. Changing the IMAP host requires giving it again or clearing it. */
        password?: string | null;
        /** @description `INBOX` for the inbox. */
        folder: string;
      } | null;
      /** @description Trusted CA for this profile's SMTP and IMAP connections (STARTTLS and implicit TLS, test sends and bounce collection), besides Node's default CAs: one or more PEM certificates (`-----BEGIN CERTIFICATE-----`, at most 20), each a CA certificate (basicConstraints CA:TRUE) valid now; text around the blocks is ignored, any other PEM block (a private key) is refused. Write-only like a password: omitted keeps the stored CA, null clears it, a string replaces it. Reads show `tlsCa` (subject and SHA-256 fingerprint), never the PEM. */
      tlsCaPem?: string | null;
      /** @description Required to replace an existing profile: the `revision` of a get. Without it an existing key answers `profile_exists`; a stale one `revision_conflict`. */
      revision?: number;
    };
    MailTestSendResult: {
      /** @enum {boolean} */
      ok: true;
    };
    MailTestSendFailure: {
      /** @enum {string} */
      error: 'smtp_failed';
      /** @description One sentence: what went wrong and what to check. */
      message: string;
      /**
       * @description The classified reason (stable code).
       * @enum {string}
       */
      reason:
        | 'connection_refused'
        | 'host_not_found'
        | 'tls_required'
        | 'tls_not_supported'
        | 'certificate_untrusted'
        | 'auth_failed'
        | 'auth_required'
        | 'timeout'
        | 'sender_refused'
        | 'recipient_refused'
        | 'message_refused'
        | 'smtp_error';
      /** @description The server's raw answer or the connection error, credentials redacted. */
      detail: string | null;
    };
    MailTestSend: {
      to: string;
    };
    MailAppList: {
      data: components['schemas']['MailApp'][];
    };
    MailApp: {
      appId: string;
      name: string | null;
      /** @description False for a stored policy of an application that is not (or no longer) registered. */
      registered: boolean;
      platformPermissions: string[] | null;
      /** @description Whether the registered application declares `mail:send`; null when not registered. */
      declaresMailSend: boolean | null;
      /** @description True for `core`, whose access always uses the default profile. */
      fixed: boolean;
      tokenPrefix: string | null;
      policy: components['schemas']['MailAppPolicyState'];
    };
    MailAppPolicyState: {
      /** @enum {string} */
      mode: 'default' | 'profiles' | 'none';
      /** @description The profiles the application may use now (the default profile when following it). */
      profiles: string[];
    };
    MailRegisteredApp: {
      appId: string;
      name: string | null;
      /** @description False for a stored policy of an application that is not (or no longer) registered. */
      registered: boolean;
      platformPermissions: string[] | null;
      /** @description Whether the registered application declares `mail:send`; null when not registered. */
      declaresMailSend: boolean | null;
      /** @description True for `core`, whose access always uses the default profile. */
      fixed: boolean;
      tokenPrefix: string | null;
      policy: components['schemas']['MailAppPolicyState'];
      /** @description The application's bearer credential, shown once. */
      token: string;
    };
    MailRegisterApp: {
      /**
       * @description Application id.
       * @example crm
       */
      appId: string;
      /** @description Display name, 1–120 characters, one line without control characters: the sender name of its mail when the profile has no `fromName`. */
      name: string;
      /**
       * @description The application's declaration; `mail:send` is needed to send mail (a policy does not replace it).
       * @default []
       */
      platformPermissions?: string[];
    };
    MailUpdateApp: {
      /** @description Display name, 1–120 characters, one line without control characters: the sender name of its mail when the profile has no `fromName`. */
      name?: string;
      /** @description The application's declaration; `mail:send` is needed to send mail (a policy does not replace it). */
      platformPermissions?: string[];
    };
    /** @description `default`: follow the default profile (no stored policy). `profiles`: an explicit set of profile keys. `none`: an empty set, which blocks sending. */
    MailAppPolicy:
      | {
          /** @enum {string} */
          mode: 'default';
        }
      | {
          /** @enum {string} */
          mode: 'profiles';
          profiles: string[];
        }
      | {
          /** @enum {string} */
          mode: 'none';
        };
    MailMessagePage: {
      data: components['schemas']['MailMessage'][];
      nextCursor: string | null;
    };
    /** @description Send-log metadata. Never contains text, HTML or custom headers. */
    MailMessage: {
      id: string;
      /** @enum {string} */
      status: 'queued' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'bounced';
      /** @enum {string|null} */
      cancelReason: 'cancelled_by_admin' | 'profile_removed' | 'profile_not_allowed' | null;
      /** @enum {string} */
      lane: 'immediate' | 'bulk';
      app: string;
      /** @description Snapshot of the caller at acceptance. */
      actor: {
        [key: string]: unknown;
      };
      profile: string;
      from: {
        name: string;
        address: string;
      };
      to: string[];
      cc: string[];
      bcc: string[];
      subject: string;
      attachments: {
        filename: string;
        contentType: string;
        size: number;
        sha256: string;
      }[];
      attempts: number;
      lastError: string | null;
      smtpResponse: string | null;
      /** @description At most 100. */
      failures: {
        recipient: string;
        reason: string;
        /** @enum {string} */
        kind: 'rejected' | 'bounced';
      }[];
      batchId: string | null;
      ref: string | null;
      idempotencyKey: string | null;
      /** @description The Message-ID header, fixed at acceptance. */
      messageId: string;
      createdAt: string;
      updatedAt: string;
      /** @description When a queued message is due. */
      nextAttemptAt: string | null;
      /** @description When the last attempt started: the pacing slot it took (null before the first attempt). On the bulk lane a profile reserves each slot with this time, so two attempts of one profile start at least `60000 / pacePerMinute` ms apart by it, across every worker and replica. On the immediate lane it is when the attempt was claimed, which may be shortly before its SMTP dialogue starts. */
      lastAttemptAt: string | null;
      deadlineAt: string;
      sentAt: string | null;
      contentPurgedAt: string | null;
    };
    /** @description Content, or `purged: true` with `purgedAt` once content retention removed it. */
    MailMessageContent: {
      id: string;
      purged: boolean;
      purgedAt: string | null;
      text: string | null;
      html: string | null;
      headers: {
        [key: string]: string;
      } | null;
    };
    MailBatchCancelled: {
      batchId: string;
      cancelled: number;
    };
    MailAccepted: {
      id: string;
      messageId: string;
      /** @enum {string} */
      status: 'queued' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'bounced';
      /** @description True when an earlier call with the same idempotency key accepted it. */
      duplicate: boolean;
    };
    MailSend: {
      /** @default [] */
      to?: string[];
      /** @default [] */
      cc?: string[];
      /** @default [] */
      bcc?: string[];
      replyTo?: string | null;
      /** @description One line, at most 998 characters: no CR, LF, NUL, NEL (U+0085), U+2028, U+2029 or other control characters (a tab is allowed); mail clients would show them as a new line. */
      subject: string;
      text?: string | null;
      html?: string | null;
      /**
       * @description Custom headers (content: never shown by metadata reads).
       * @default {}
       */
      headers?: {
        [key: string]: string;
      };
      /** @default [] */
      attachments?: components['schemas']['MailAttachmentInput'][];
      /**
       * @description A reference `scope[:id]` the application can filter the log by.
       * @example invoice:2024-0042
       */
      ref?: string;
      /** @description Repeating a key returns the message accepted under it instead of sending again; reusable once that record is deleted by retention. */
      idempotencyKey?: string;
      /**
       * @description The sender profile; omitted (or the default profile's key) uses the default profile.
       * @example noreply
       */
      profile?: string;
    };
    MailAttachmentInput: {
      filename: string;
      /** @default application/octet-stream */
      contentType?: string;
      /** @description The bytes, base64. */
      content: string;
    };
    MailEnqueueAccepted: {
      batchId: string;
      messages: components['schemas']['MailAccepted'][];
    };
    MailEnqueue: {
      /**
       * @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters.
       * @example noreply
       */
      profile?: string;
      /**
       * @description Default `ref` of messages that give none.
       * @example invoice:2024-0042
       */
      ref?: string;
      messages: components['schemas']['MailEnqueueMessage'][];
    };
    MailEnqueueMessage: {
      /** @default [] */
      to?: string[];
      /** @default [] */
      cc?: string[];
      /** @default [] */
      bcc?: string[];
      replyTo?: string | null;
      /** @description One line, at most 998 characters: no CR, LF, NUL, NEL (U+0085), U+2028, U+2029 or other control characters (a tab is allowed); mail clients would show them as a new line. */
      subject: string;
      text?: string | null;
      html?: string | null;
      /**
       * @description Custom headers (content: never shown by metadata reads).
       * @default {}
       */
      headers?: {
        [key: string]: string;
      };
      /** @default [] */
      attachments?: components['schemas']['MailAttachmentInput'][];
      /**
       * @description A reference `scope[:id]` the application can filter the log by.
       * @example invoice:2024-0042
       */
      ref?: string;
      /** @description Repeating a key returns the message accepted under it instead of sending again; reusable once that record is deleted by retention. */
      idempotencyKey?: string;
    };
    MailAppProfiles: {
      data: {
        key: string;
        name: string;
        fromAddress: string;
        fromName: string | null;
        isDefault: boolean;
        pacePerMinute: number;
        dailyRecipientLimit: number | null;
        maxAttachmentBytes: number;
      }[];
    };
    MailRetentionState: {
      contentDays: number;
      recordDays: number;
    };
    /** @description Days of content (text, HTML, custom headers) and of whole send-log records; both saved together. */
    MailRetention: {
      contentDays: number;
      recordDays: number;
    };
    MailBounceCheck: {
      profile: string;
      /** @description True when the request joined a pass already in progress (the five-minute schedule's or another request's) instead of starting one. */
      joined: boolean;
      /** @description When the pass ended and the profile's `bounces` status was saved. */
      checkedAt: string;
      /**
       * @description The pass's error code (as `bounces.error` of the profile), null when it succeeded.
       * @enum {string|null}
       */
      error: 'open_failed' | 'search_failed' | 'apply_failed' | 'save_failed' | 'interrupted' | null;
      /** @description What went wrong, in words (the IMAP server's or the TLS library's message); null without error. */
      detail: string | null;
      /** @description Messages examined (above the cursor, at most 200 a pass). */
      messages: number;
      /** @description Standard delivery reports (RFC 3464) read among them. */
      reports: number;
      /** @description Reports whose original Message-ID is a message of the send log. */
      matched: number;
      /** @description Failed recipients newly recorded on their message (`sent` becomes `bounced`). */
      recorded: number;
      /** @description Messages skipped: unreadable twice, or a report part above 64 KiB. */
      skipped: number;
      /** @description More messages wait above the per-pass limit of 200 (the next pass goes on). */
      more: boolean;
    };
    BackupJob: {
      id: string;
      /** @description The file name the backup gets in the backup folder when it is complete. */
      name: string;
      /** @enum {string} */
      trigger: 'manual' | 'schedule';
      /** @enum {string} */
      state: 'running' | 'complete' | 'failed';
      /** @description ISO 8601. */
      startedAt: string;
      finishedAt: string | null;
      /**
       * @description `omitted`: made without a passphrase, the secret files are left out.
       * @enum {string}
       */
      secrets: 'encrypted' | 'omitted';
      progress: {
        /** @description Parts written in plain (databases and files); the secrets count as one step after them. */
        parts: number;
        /** @description 0-based position of the part being written. */
        index: number;
        /** @description The part being written (`platform.db`, `namespaces/<id>.db`, …), or the step when none. */
        part: string;
        /** @description `snapshot`, `archive`, `secrets` or `finish`. */
        step: string;
        bytesWritten: number;
      };
      /** @description Bytes of the finished file. */
      size: number | null;
      /** @description Why a failed job failed (`backup_failed`, `backup_no_space`, …). */
      error: {
        error: string;
        message: string;
      } | null;
    };
    CreateBackup: {
      /** @description Seals the secret files (keys, secrets, TLS) into the backup; without it they are left out. Never stored or logged. */
      passphrase?: string;
    };
    BackupList: {
      /** @description Newest first. */
      data: components['schemas']['BackupEntry'][];
      running: components['schemas']['BackupJob'] & (Record<string, never> | null);
      schedule: components['schemas']['BackupSchedule'];
    };
    BackupEntry: {
      name: string;
      size: number;
      /** @description The manifest's creation time; for a damaged or partial file, its modification time. */
      createdAt: string | null;
      /**
       * @description `complete`: the manifest is intact (`hearth backup verify` checks every byte); `damaged`: the manifest cannot be read; `writing`: a backup being written; `stale`: a partial file a crash left (removed before the next scheduled run).
       * @enum {string}
       */
      status: 'complete' | 'damaged' | 'writing' | 'stale';
      /**
       * @description From the file name (`…-schedule.hearth-backup`); other names count as manual.
       * @enum {string}
       */
      trigger: 'manual' | 'schedule';
      /** @enum {string|null} */
      secrets: 'encrypted' | 'omitted' | null;
      hearthVersion: string | null;
      /** @description Namespace databases in the backup. */
      namespaces: number | null;
    };
    BackupSchedule: {
      /** @description `HEARTH_BACKUP_SCHEDULE`; null: no scheduled backups. */
      cron: string | null;
      /** @description The backup folder (`HEARTH_BACKUP_DIR`). */
      dir: string;
      /** @description Scheduled backups kept (`HEARTH_BACKUP_KEEP`); manual ones are never pruned. */
      keep: number;
      /** @description `HEARTH_BACKUP_PASSPHRASE` is set: scheduled backups hold the secrets, sealed under it. */
      passphraseSet: boolean;
      lastRun: string | null;
      lastSuccess: string | null;
      /** @description The last scheduled run's failure; null once a later one succeeds. */
      lastError: {
        error: string;
        message: string;
        at: string;
      } | null;
      nextRun: string | null;
    };
    TlsStatus: {
      /** @enum {string} */
      mode: 'off' | 'internal' | 'acme' | 'files';
      /** @description The one public address (issuer, passkeys, links). */
      publicUrl: string;
      /** @description The names and addresses the certificate is asked to cover. */
      names: string[];
      certificate: components['schemas']['TlsCertificate'];
      /** @description The internal certificate authority's root (`internal` mode), published at `/ca.pem`. */
      ca: {
        subject: string;
        notAfter: string;
        fingerprintSha256: string;
      } | null;
      lastRenewalAt: string | null;
      /** @description The last failed renewal, until one succeeds. */
      lastError: {
        message: string;
        at: string;
      } | null;
      nextAttemptAt: string | null;
      hstsMaxAge: number | null;
      /** @description ACME: directory, challenge type, account and last order. Files: the two paths. */
      source: {
        [key: string]: unknown;
      };
    };
    TlsCertificate: {
      subject: string;
      issuer: string;
      /** @description Subject alternative names: DNS names and IP addresses. */
      names: string[];
      notBefore: string;
      notAfter: string;
      /** @description When Hearth renews it (two thirds of its life); null in `files` mode. */
      renewAt: string | null;
      /** @description SHA-256 of the DER certificate, colon-separated hex. */
      fingerprintSha256: string;
    } | null;
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Serving: `status: ok`, or `degraded` with the failing `disk` check and its message. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unhealthy (same body, `status: unavailable`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
    };
  };
  metrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Metrics. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain; version=0.0.4': string;
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listTokens: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description All tokens, revoked ones included. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['ApiToken'][];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createToken: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateApiToken'];
      };
    };
    responses: {
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CreatedApiToken'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 128 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeToken: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Revoked. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such token (`token_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listAudit: {
    parameters: {
      query?: {
        limit?: number;
        before?: number;
        action?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Audit records. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              id: number;
              at: string;
              actor: string;
              action: string;
              target: string | null;
              detail: {
                [key: string]: unknown;
              } | null;
              request_id: string | null;
            }[];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listNamespaces: {
    parameters: {
      query?: {
        /** @description Page size, 1–500 (default 100). */
        limit?: number;
        /** @description `next_cursor` of the previous page. */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of namespaces. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['NamespaceList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateNamespace'];
      };
    };
    responses: {
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Namespace'];
        };
      };
      /** @description A bad name or setting (`invalid_request`), or `node` names no registered node (`node_unknown`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The name is taken (`namespace_exists`), or `node` is not healthy (`node_unavailable`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The disk holding the data folder is full (`disk_full`); nothing was created. */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The namespace record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Namespace'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  replaceNamespaceConfig: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateNamespace'];
      };
    };
    responses: {
      /** @description The updated record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Namespace'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The settings could not be applied now (`conflict`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  duplicateNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DuplicateNamespace'];
      };
    };
    responses: {
      /** @description The new namespace. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Namespace'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The new name is taken (`namespace_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The disk holding the data folder is full (`disk_full`); nothing was created. */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  exportNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The database file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/octet-stream': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  importNamespace: {
    parameters: {
      query?: {
        /** @description Import CSV rows into this table instead of replacing the database. */
        table?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    /** @description Exactly one field, `file`. */
    requestBody: {
      content: {
        'multipart/form-data': components['schemas']['ImportUpload'];
      };
    };
    responses: {
      /** @description Imported; the updated namespace record (or, with `table`, the CSV import result). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Namespace'];
        };
      };
      /** @description Not exactly one `file` field, or not a healthy SQLite database (`invalid_request`, `invalid_database`); with `table`, a bad CSV file (`invalid_csv`, every refused line in `details`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The upload exceeds HEARTH_UPLOAD_LIMIT (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not multipart/form-data (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The upload exceeds `max_db_size` (`quota_exceeded`), or the disk is full (`disk_full`); the old database stays. */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listTables: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The objects. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ObjectList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateObject'];
      };
    };
    responses: {
      /** @description The created object. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TableSchema'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The namespace is read-only (`namespace_read_only`), or the name is taken (`table_exists`, `index_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The schema. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TableSchema'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateTable: {
    parameters: {
      query?: {
        /** @description `true`: views that read what the change removes or renames (a dropped table or view, a dropped or renamed column, a renamed view) are dropped too, each recorded in the changelog as `drop_view` and published. Without it such a change is refused with 409 `dependent_views` naming the views. */
        cascade?: 'true' | 'false';
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateObject'];
      };
    };
    responses: {
      /** @description The new schema. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TableSchema'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The namespace is read-only (`namespace_read_only`); the new name is taken (`table_exists`, `column_exists`); views read what the change removes or renames (`dependent_views`, naming them; send `?cascade=true` to drop them too); or a view that was already broken stops SQLite (`conflict`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  dropTable: {
    parameters: {
      query?: {
        /** @description `true`: views that read what the change removes or renames (a dropped table or view, a dropped or renamed column, a renamed view) are dropped too, each recorded in the changelog as `drop_view` and published. Without it such a change is refused with 409 `dependent_views` naming the views. */
        cascade?: 'true' | 'false';
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Dropped. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The namespace is read-only (`namespace_read_only`), or views read the object (`dependent_views`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createIndex: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateIndex'];
      };
    };
    responses: {
      /** @description The index. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Index'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The namespace is read-only (`namespace_read_only`), or the name is taken (`table_exists`, `index_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  dropIndex: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
        index: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Dropped. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace, table or index (`index_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The namespace is read-only (`namespace_read_only`), or the name is taken (`table_exists`, `index_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  changelog: {
    parameters: {
      query?: {
        /** @description The history of the table or view that has (or last had) this name, across its renames back to its creation. */
        table?: string;
        limit?: number;
        offset?: number | null;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Entries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChangelogEntry'][];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listRows: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description `{data, meta: {limit, offset, total_count?, filter_count?}}`; aggregates answer `{data}`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RowList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read needed more memory than a query process may use (`query_memory_exceeded`, HEARTH_QUERY_MEMORY_LIMIT). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many reads wait for a query process, or the database stayed locked (`service_unavailable`, with `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`). */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  insertRows: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['InsertRows'];
      };
    };
    responses: {
      /** @description `{count}`, or `{data: [rows]}` with return=representation; empty with return=minimal. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            count?: number;
            data?: components['schemas']['Row'][];
          };
        };
      };
      /** @description Invalid rows (`invalid_value`, `not_null_violation`, `max_length_violation`, `min_violation`, `max_violation`, `unknown_column` (any key that is not a column, `__proto__` included), `invalid_request`), or a constraint of the table that SQLite enforces (`check_violation`, `foreign_key_violation`, `trigger_violation` for a trigger's RAISE, `datatype_mismatch`, `value_too_large`, `value_out_of_range`, `constraint_violation`); the same for every write. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `unique_violation`, or `namespace_read_only`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The write would exceed `max_db_size` (`quota_exceeded`), or the disk is full (`disk_full`); nothing was written. */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteRows: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description With return=representation: `{data: [deleted rows]}`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['Row'][];
          };
        };
      };
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateRows: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WriteRow'];
      };
    };
    responses: {
      /** @description `{count}`, or `{data: [rows]}` with return=representation. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            count?: number;
            data?: components['schemas']['Row'][];
          };
        };
      };
      /** @description With return=minimal. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getRow: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
        /** @description The row id (integer). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The row. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace, table or row (`row_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read needed more memory than a query process may use (`query_memory_exceeded`, HEARTH_QUERY_MEMORY_LIMIT). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many reads wait for a query process, or the database stayed locked (`service_unavailable`, with `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`). */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateRow: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
        /** @description The row id (integer). */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WriteRow'];
      };
    };
    responses: {
      /** @description The updated row. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace, table or row. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteRow: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
        /** @description The row id (integer). */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The deleted row (return=representation). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'];
        };
      };
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace, table or row. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  exportRows: {
    parameters: {
      query: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
        format: 'csv';
        bom?: 'true' | 'false';
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The CSV file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/csv; charset=utf-8': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read needed more memory than a query process may use (`query_memory_exceeded`, HEARTH_QUERY_MEMORY_LIMIT). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many reads wait for a query process, or the database stayed locked (`service_unavailable`, with `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`). */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  moveNamespace: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MoveNamespace'];
      };
    };
    responses: {
      /** @description Moved: the namespace record and what the move did. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MovedNamespace'];
        };
      };
      /** @description `node` is not a registered node (`node_unknown`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `node` is not healthy (`node_unavailable`), holds it already (`already_on_node`), a move of it is running (`move_in_progress`), or it was deleted or replaced meanwhile, or its writes did not finish within 10 s (`conflict`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The copy could not be made on `node` (`move_failed`); the namespace stays where it was. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The node holding it is down (`namespace_unavailable`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  restSelect: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Rows, with `Content-Range: <first>-<last>/<total or *>` (`*\/<total>` for an empty page). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'][];
        };
      };
      /** @description With a count, a page that holds only part of the matching rows. */
      206: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'][];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Single object requested but not exactly one row (`not_acceptable`). */
      406: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description With a count, an offset past the last row (`Content-Range: *\/<total>`); or a negative limit. Body: `{error: "range_not_satisfiable", message: "Requested range not satisfiable", code: "PGRST103", details, hint: null}`. */
      416: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read needed more memory than a query process may use (`query_memory_exceeded`, HEARTH_QUERY_MEMORY_LIMIT). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many reads wait for a query process, or the database stayed locked (`service_unavailable`, with `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The read ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`). */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  restInsert: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WriteRow'] | components['schemas']['Row'][];
      };
    };
    responses: {
      /** @description Inserted (rows with return=representation). */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'][];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  restDelete: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted rows (return=representation). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'][];
        };
      };
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  restUpdate: {
    parameters: {
      query?: {
        /** @description Comma-separated columns, `alias:column` renames, and aggregates `count()`, `column.sum()` (or `sum(column)`), `avg`, `min`, `max`, grouped by the plain columns selected. Aggregate answers are `{data}` without `meta`. */
        select?: string;
        /** @description `column[.asc|.desc][.nullsfirst|.nullslast]`, comma-separated. Ties are broken by `id`. Without nullsfirst/nullslast, nulls come first ascending on /tables/…/rows (SQLite) and last ascending on /rest (PostgreSQL). */
        order?: string;
        /** @description Default 100, at most 10000. */
        limit?: string;
        offset?: string;
        /** @description `exact` adds `meta.total_count` (all rows) and `meta.filter_count` (rows matching the filters). `Prefer: count=exact` does the same. */
        count?: 'exact';
        /** @description Full-text search over the table's fts index: words are ANDed, a trailing `*` matches a prefix. */
        search?: string;
        or?: string;
        and?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
        table: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WriteRow'];
      };
    };
    responses: {
      /** @description Updated rows (return=representation). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Row'][];
        };
      };
      /** @description Updated. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  query: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['QueryRequest'];
      };
    };
    responses: {
      /** @description The rows: `{data}` for the single form, `{results}` for the batch form. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueryResponse'];
        };
      };
      /** @description Invalid body or parameters (`invalid_request`, `invalid_json`), SQL that SQLite rejects (`invalid_sql`: syntax, unknown table or function, more than one statement; SQLite's message), or a statement that is not a read-only query (`not_read_only`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token may not use this namespace (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many queries waiting, the query process stopped unexpectedly, or the database stayed locked (`service_unavailable`); try again. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The query ran longer than the namespace's `query_timeout` and was stopped (`query_timeout`). */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  subscribe: {
    parameters: {
      query?: {
        /** @description Comma-separated tables (or views) to follow; absent = every table, including tables created later. Each must exist when subscribing (404 `table_not_found`). */
        tables?: string | string[];
        /** @description Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins). */
        last_event_id?: string;
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description An endless `text/event-stream`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description Invalid query (`invalid_request`) or table name (`invalid_identifier`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token may not use this namespace (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace or table (`namespace_not_found`, `table_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `Accept` excludes `text/event-stream` (`not_acceptable`). */
      406: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The server is shutting down (`service_unavailable`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  namespaceOverview: {
    parameters: {
      query?: {
        /** @description Telemetry window: `1h`, `24h` (default), `7d` or `30d`. */
        window?: '1h' | '24h' | '7d' | '30d';
      };
      header?: never;
      path: {
        /** @description Namespace name. */
        ns: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The overview. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['NamespaceOverview'];
        };
      };
      /** @description `window` is not one of `1h`, `24h`, `7d`, `30d`, or an unknown query parameter (`invalid_request`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token may not use this namespace (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such namespace (`namespace_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  sessionJwks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The JWK set. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/jwk-set+json': components['schemas']['Jwks'];
        };
      };
      /** @description Not modified (the `If-None-Match` ETag is current). */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  invocationJwks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The JWK set. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/jwk-set+json': components['schemas']['Jwks'];
        };
      };
      /** @description Not modified (the `If-None-Match` ETag is current). */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  oauthJwks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The JWK set. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/jwk-set+json': components['schemas']['Jwks'];
        };
      };
      /** @description Not modified (the `If-None-Match` ETag is current). */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSigningKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Keys and KEK fingerprints. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SigningKeyList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  rewrapSigningKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Rewrapped. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RewrapResult'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A stored key is unreadable (`service_unavailable`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeSigningKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        kid: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RevokeSigningKey'];
      };
    };
    responses: {
      /** @description Revoked. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RevokedSigningKey'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such key (`key_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The key is already retired or revoked (`key_not_revocable`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listAccounts: {
    parameters: {
      query?: {
        page?: number;
        per_page?: number;
        search?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of accounts. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AccountList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createAccount: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateAccount'];
      };
    };
    responses: {
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The login (`login_taken`) or email (`email_taken`, case-insensitive) is in use. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAccount: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AccountDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteAccount: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateAccount: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateAccount'];
      };
    };
    responses: {
      /** @description The updated account. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The login (`login_taken`) or email (`email_taken`) is in use. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeAccountSessions: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account with its new epoch. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Account'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listGroups: {
    parameters: {
      query?: {
        page?: number;
        per_page?: number;
        search?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of groups. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createGroup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateGroup'];
      };
    };
    responses: {
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The name is in use by another group or by an account's private Linux group (`group_exists`): group names and private group names are one namespace. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The group. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such group (`group_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such group (`group_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateGroup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateGroup'];
      };
    };
    responses: {
      /** @description The group. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such group (`group_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The name is in use by another group or by an account's private Linux group (`group_exists`): group names and private group names are one namespace. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  addGroupMember: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['GroupMember'];
      };
    };
    responses: {
      /** @description The group with its members. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such group (`group_not_found`) or account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The membership would create a cycle (`group_cycle`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  removeGroupMember: {
    parameters: {
      query?: {
        account?: string;
        group?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The group with its members. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GroupDetail'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such group (`group_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listServiceAccounts: {
    parameters: {
      query?: {
        page?: number;
        per_page?: number;
        search?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of service accounts. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ServiceAccountList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createServiceAccount: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateServiceAccount'];
      };
    };
    responses: {
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ServiceAccount'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The application already has a service account for this resource (`service_account_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteServiceAccount: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such service account (`service_account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAccountCategoryPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The policy in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AccountCategoryPolicyState'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  replaceAccountCategoryPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AccountCategoryPolicy'];
      };
    };
    responses: {
      /** @description The policy in force. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AccountCategoryPolicyState'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSetup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Setup state. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            needed: boolean;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  setup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetupBody'];
      };
    };
    responses: {
      /** @description The administrator account. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SignedIn'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A browser request from another origin (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description An account already exists (`already_set_up`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  login: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['LoginBody'];
      };
    };
    responses: {
      /** @description Signed in. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SignedIn'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Wrong login or password, or the account may not sign in (`invalid_credentials`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A browser request from another origin (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many failures from this address (`rate_limited`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  logout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed out. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Wrong or missing Origin (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  whoami: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The caller. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RequestIdentity'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The current session. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CurrentSession'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  changeOwnPassword: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChangeOwnPassword'];
      };
    };
    responses: {
      /** @description Changed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The current password is wrong (`invalid_credentials`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many failures from this address (`rate_limited`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  reauthenticate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ReauthBody'];
      };
    };
    responses: {
      /** @description Re-authenticated. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Reauthenticated'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The password is wrong (`invalid_credentials`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not an account session (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many failures for this account (`rate_limited`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  setAccountPassword: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        sub: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SetPassword'];
      };
    };
    responses: {
      /** @description Set. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The session is older than ten minutes (`recent_auth_required`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such account (`account_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  openidConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Metadata. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  oauthServerMetadata: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Metadata. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  authorize: {
    parameters: {
      query?: {
        /** @description OAuth client ID. */
        client_id?: string | string[];
        /** @description Exact registered redirect URI (a loopback `http://127.0.0.1` URI matches with any port). */
        redirect_uri?: string | string[];
        /** @description Must be `code`. */
        response_type?: string | string[];
        /** @description Space-separated scopes, each allowed for the client. Omitted: every scope of the client. */
        scope?: string | string[];
        /** @description RFC 8707 resource: one of the client's audiences; mandatory for dynamic clients and then on this origin. */
        resource?: string | string[];
        /** @description Returned unchanged (up to 2048 characters). */
        state?: string | string[];
        /** @description Put into the ID token (up to 512 characters). */
        nonce?: string | string[];
        /** @description PKCE challenge (required for public clients). */
        code_challenge?: string | string[];
        /** @description Must be `S256`; `plain` is rejected. */
        code_challenge_method?: string | string[];
        /** @description `none`, `login`, `consent` or `select_account` (treated as `login`). */
        prompt?: string | string[];
        /** @description Maximum seconds since sign-in before a new sign-in is required. */
        max_age?: string | string[];
        /** @description Only `query`. */
        response_mode?: string | string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The sign-in or consent page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Redirect to the client with `code` or `error`, `state` and `iss`. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Unknown client or redirect URI (an HTML page). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  authorizePost: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          /** @description OAuth client ID. */
          client_id?: string | string[];
          /** @description Exact registered redirect URI (a loopback `http://127.0.0.1` URI matches with any port). */
          redirect_uri?: string | string[];
          /** @description Must be `code`. */
          response_type?: string | string[];
          /** @description Space-separated scopes, each allowed for the client. Omitted: every scope of the client. */
          scope?: string | string[];
          /** @description RFC 8707 resource: one of the client's audiences; mandatory for dynamic clients and then on this origin. */
          resource?: string | string[];
          /** @description Returned unchanged (up to 2048 characters). */
          state?: string | string[];
          /** @description Put into the ID token (up to 512 characters). */
          nonce?: string | string[];
          /** @description PKCE challenge (required for public clients). */
          code_challenge?: string | string[];
          /** @description Must be `S256`; `plain` is rejected. */
          code_challenge_method?: string | string[];
          /** @description `none`, `login`, `consent` or `select_account` (treated as `login`). */
          prompt?: string | string[];
          /** @description Maximum seconds since sign-in before a new sign-in is required. */
          max_age?: string | string[];
          /** @description Only `query`. */
          response_mode?: string | string[];
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description The sign-in or consent page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Redirect to the client. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Unknown client or redirect URI (an HTML page); a form body that cannot be read (JSON, e.g. a parameter given twice). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  resumeAuthorization: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The consent page or the sign-in page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Redirect to the client. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description The sign-in has expired or is unknown (an HTML page); an id that is not one (JSON). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  authorizationSignIn: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          login: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description Signed in; continue. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Wrong login or password (the sign-in page again). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Wrong or missing Origin (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many failures (the sign-in page with the wait). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  authorizationConsent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          /** @enum {string} */
          decision: 'approve' | 'deny';
        };
      };
    };
    responses: {
      /** @description Redirect to the client with `code` or `error=access_denied`. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Wrong Origin, or another account. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Already answered or expired (an HTML page). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deviceAuthorization: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': components['schemas']['DeviceAuthorizationRequest'];
      };
    };
    responses: {
      /** @description The device authorization. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeviceAuthorizationResponse'];
        };
      };
      /** @description OAuth error. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description `invalid_client`, with `WWW-Authenticate: Basic realm="hearth"`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many device authorizations from this address (`rate_limited`, `Retry-After`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `temporarily_unavailable`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
    };
  };
  deviceVerification: {
    parameters: {
      query?: {
        user_code?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The code or approval page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deviceVerificationSubmit: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          user_code: string;
          login?: string;
          password?: string;
        };
      };
    };
    responses: {
      /** @description The approval page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Signed in: continue at `GET /oauth/device?user_code=…`. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Unknown or expired code (the code page again). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Wrong login or password (the code page again). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Wrong or missing Origin (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many failures (the code page again). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deviceVerificationDecision: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          user_code: string;
          /** @enum {string} */
          decision: 'approve' | 'deny';
        };
      };
    };
    responses: {
      /** @description Done (an HTML page). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not signed in (an HTML page). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Wrong Origin, or the account may not use this client. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Already answered or expired (an HTML page). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  token: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': components['schemas']['TokenRequest'];
      };
    };
    responses: {
      /** @description Tokens. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TokenResponse'];
        };
      };
      /** @description OAuth error. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Client authentication failed (`invalid_client`), with `WWW-Authenticate: Basic realm="hearth"` however the client authenticated (RFC 6749 §5.2). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The signing authority is unavailable. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
    };
  };
  oauthRevoke: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          token: string;
          token_type_hint?: string;
        };
      };
    };
    responses: {
      /** @description Revoked (or nothing to revoke). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `invalid_client`, with `WWW-Authenticate: Basic realm="hearth"`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  userinfo: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Claims. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserInfo'];
        };
      };
      /** @description `invalid_token` with `WWW-Authenticate`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description `insufficient_scope` (no `openid`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  userinfoPost: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Claims. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UserInfo'];
        };
      };
      /** @description `invalid_token` with `WWW-Authenticate`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description `insufficient_scope` (no `openid`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  registerClient: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ClientRegistration'];
      };
    };
    responses: {
      /** @description Registered. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ClientRegistrationResponse'];
        };
      };
      /** @description `invalid_redirect_uri` or `invalid_client_metadata`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthError'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many registrations from this address (`rate_limited`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  endSession: {
    parameters: {
      query?: {
        id_token_hint?: string;
        client_id?: string;
        post_logout_redirect_uri?: string;
        state?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Confirmation page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  endSessionConfirm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          id_token_hint?: string;
          client_id?: string;
          post_logout_redirect_uri?: string;
          state?: string;
        } & {
          [key: string]: unknown;
        };
      };
    };
    responses: {
      /** @description "Signed out" page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Redirect to the client's logout URI. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not posted from this platform's own pages (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listOAuthClients: {
    parameters: {
      query?: {
        page?: number;
        per_page?: number;
        search?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of clients (`per_page` at most 100). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthClientList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createOAuthClient: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateOAuthClient'];
      };
    };
    responses: {
      /** @description The client and its secret. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthClientWithSecret'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOAuthClient: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        clientId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The client. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            client: components['schemas']['OAuthClient'];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteOAuthClient: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        clientId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_protected`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateOAuthClient: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        clientId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['UpdateOAuthClient'];
      };
    };
    responses: {
      /** @description The client. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            client: components['schemas']['OAuthClient'];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_protected`, `client_revoked`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  rotateOAuthClientSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        clientId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The client and its new secret. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['OAuthClientWithSecret'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_protected`, `client_is_public`, `client_revoked`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeOAuthClient: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        clientId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The revoked client. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            client: components['schemas']['OAuthClient'];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `client_protected`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  previewLinuxIdentities: {
    parameters: {
      query?: {
        after?: string;
        scope?: 'all' | 'ready';
        search?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LinuxPreview'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getLinuxConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The configuration. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LinuxConfigState'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putLinuxConfiguration: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          config: components['schemas']['LinuxIdentityConfig'];
          /** @default false */
          rangeReserved?: boolean;
        };
      };
    };
    responses: {
      /** @description Saved. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LinuxConfigState'];
        };
      };
      /** @description `invalid_request`, `range_not_confirmed`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getLinuxIdentity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LinuxAccount'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  prepareLinuxIdentity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The account with its identity. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            sub: string;
            login: string;
            /** @enum {string} */
            profile: 'user' | 'guest';
            disabled: boolean;
            /** @description Local full account (profile `user`); guests are not eligible. */
            eligible: boolean;
            identity: components['schemas']['LinuxIdentity'];
            /** @description Why an identity cannot be assigned (or differs), as `code: explanation`. Never resolved silently. */
            conflicts: string[];
            created: boolean;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not assignable. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateLinuxIdentity: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          homeDirectory: string;
          loginShell: string;
        };
      };
    };
    responses: {
      /** @description The account. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LinuxAccount'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_not_found`, `linux_identity_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `linux_not_eligible`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listPosixGroups: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description POSIX groups, by GID. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: {
              id: string;
              name: string;
              gid: number;
            }[];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  makeGroupPosix: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The group's GID. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            name: string;
            gid: number;
            created: boolean;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `group_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  passkeyRegistrationOptions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The ceremony. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasskeyCeremony'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not a session), `recent_auth_required`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listPasskeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Passkeys. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['Passkey'][];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  registerPasskey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          challengeId: string;
          /** @description The WebAuthn credential in its JSON form (`PublicKeyCredential.toJSON()`). */
          credential: {
            [key: string]: unknown;
          };
          name?: string;
        };
      };
    };
    responses: {
      /** @description Registered. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Passkey'];
        };
      };
      /** @description Expired challenge or a credential that does not verify. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  removePasskey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `passkey_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  renamePasskey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
        };
      };
    };
    responses: {
      /** @description Renamed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Passkey'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `passkey_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  passkeyReauthOptions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The ceremony. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasskeyCeremony'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not a session). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `passkey_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  passkeyReauthenticate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          challengeId: string;
          /** @description The WebAuthn credential in its JSON form (`PublicKeyCredential.toJSON()`). */
          credential: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Re-authenticated. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Reauthenticated'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `invalid_credentials`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not a session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  passkeySignInOptions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The ceremony. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PasskeyCeremony'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  passkeySignIn: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          challengeId: string;
          /** @description The WebAuthn credential in its JSON form (`PublicKeyCredential.toJSON()`). */
          credential: {
            [key: string]: unknown;
          };
        };
      };
    };
    responses: {
      /** @description Signed in. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            account: {
              sub: string;
              login: string;
              displayName: string;
              admin: boolean;
            };
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `invalid_credentials`. */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  requestPasswordReset: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Login name or email address. */
          login: string;
        };
      };
    };
    responses: {
      /** @description Accepted. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EmailLinkAccepted'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  requestMagicLink: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description Login name or email address. */
          login: string;
        };
      };
    };
    responses: {
      /** @description Accepted. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EmailLinkAccepted'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  forgotPasswordPage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  forgotPasswordForm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          /** @description Login name or email address. */
          login: string;
        };
      };
    };
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not posted from this platform's own pages (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  magicLinkRequestPage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  magicLinkRequestForm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          /** @description Login name or email address. */
          login: string;
        };
      };
    };
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not posted from this platform's own pages (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  resetPasswordPage: {
    parameters: {
      query?: {
        token?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Expired link page. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  resetPasswordForm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          token: string;
          password: string;
        };
      };
    };
    responses: {
      /** @description Signed in. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Expired link or a password of the wrong length (a page). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not posted from this platform's own pages (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  magicLinkPage: {
    parameters: {
      query?: {
        token?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Expired link page. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  magicLinkForm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/x-www-form-urlencoded': {
          token: string;
        };
      };
    };
    responses: {
      /** @description Signed in. */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Expired link (a page). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not posted from this platform's own pages (`origin_mismatch`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  sendAnnouncement: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          subject: string;
          text: string;
          /** Format: uuid */
          groupId?: string;
        };
      };
    };
    responses: {
      /** @description Queued. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            recipients: number;
            batchIds: string[];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `group_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `mail_not_configured` (no default mail profile). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appApprovalInfo: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The info document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppApprovalInfo'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingStart: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** Format: uuid */
          userId?: string;
        };
      };
    };
    responses: {
      /** @description The pairing. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppPairing'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `pairing_limit`, `device_limit`, `account_not_eligible`, `email_required`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingClaim: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          pairingId: string;
          secret: string;
          publicKey: {
            /** @enum {string} */
            kty: 'EC';
            /** @enum {string} */
            crv: 'P-256';
            x: string;
            y: string;
          };
          name: string;
          signature: string;
        };
      };
    };
    responses: {
      /** @description Claimed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            deviceId: string;
            comparison: string;
            /** @description UTC date-time, ISO 8601. */
            expiresAt: string;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (secret), `bad_signature`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown or past its readable window. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `pairing_claimed`, `pairing_expired`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          pairingId: string;
        };
      };
    };
    responses: {
      /** @description The state. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppPairingStatus'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingConfirm: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          pairingId: string;
          comparison: string;
        };
      };
    };
    responses: {
      /** @description Confirmed, or waiting for approval. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            deviceId: string;
            approval: {
              /** @enum {string} */
              state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired';
              /** @description UTC date-time, ISO 8601. */
              expiresAt: string;
            } | null;
          };
        };
      };
      /** @description `comparison_mismatch`. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `pairing_not_claimed`, `pairing_expired`, `pairing_cancelled`, `device_limit`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingResult: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          pairingId: string;
          secret: string;
          publicKey: {
            /** @enum {string} */
            kty: 'EC';
            /** @enum {string} */
            crv: 'P-256';
            x: string;
            y: string;
          };
        };
      };
    };
    responses: {
      /** @description The result. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            state: 'created' | 'claimed' | 'confirmed' | 'cancelled' | 'expired';
            deviceId: string;
            comparison?: string;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (secret), `key_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `pairing_not_claimed`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appPairingCancel: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          pairingId: string;
        };
      };
    };
    responses: {
      /** @description Cancelled. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `pairing_confirmed`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDevices: {
    parameters: {
      query?: {
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['AppDevice'][];
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDeviceUpdate: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @enum {string} */
              operation: 'rename';
              deviceId: string;
              name: string;
            }
          | {
              /** @enum {string} */
              operation: 'revoke';
              deviceId: string;
            };
      };
    };
    responses: {
      /** @description The device. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppDevice'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `device_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDeviceChangeStart: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          deviceId: string;
          endSessions: boolean;
        };
      };
    };
    responses: {
      /** @description The pending change, or the plain revocation. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json':
            | {
                changeId: string;
                /** @enum {string} */
                state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired';
                /** @description UTC date-time, ISO 8601. */
                expiresAt: string;
                /** @enum {string} */
                kind: 'revoke';
                deviceId: string;
                endSessions: boolean;
              }
            | {
                changeId: null;
                /** @enum {string} */
                state: 'revoked';
                deviceId: string;
              };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `device_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `device_already_revoked`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDeviceChangeStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              changeId: string;
            }
          | {
              deviceId: string;
            };
      };
    };
    responses: {
      /** @description The state. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppDeviceChangeStatus'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDeviceChangeCancel: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              changeId: string;
            }
          | {
              deviceId: string;
            };
      };
    };
    responses: {
      /** @description Cancelled. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No session (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `forbidden` (not an interactive session), `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `change_not_pending`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appLoginStart: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          identifier: string;
          /** @enum {string} */
          category: 'login' | 'guest' | 'freeipa';
        };
      };
    };
    responses: {
      /** @description The request. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppLoginRequest'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appLoginStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          requestId: string;
          browserSecret: string;
        };
      };
    };
    responses: {
      /** @description The state. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            state: 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';
            /** @description UTC date-time, ISO 8601. */
            expiresAt: string;
            pollAfterSeconds: number;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `origin_mismatch`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appLoginComplete: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          requestId: string;
          browserSecret: string;
        };
      };
    };
    responses: {
      /** @description Signed in (Set-Cookie). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `origin_mismatch`, `login_refused`. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `login_not_approved`, `login_consumed`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  appDeviceCommand: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The signed proof `{issuer, deviceId, jti, issuedAt, expiresAt, command}`. */
          proof?: unknown;
          signature: string;
        };
      };
    };
    responses: {
      /** @description Per command. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description See the description. */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown request or change. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description See the description. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 8 KiB (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not `application/json`. */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `rate_limited` with `Retry-After`. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  adminAppDevices: {
    parameters: {
      query?: {
        after?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            items: components['schemas']['AppDevice'][];
            nextCursor: string | null;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `account_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  adminAppDeviceRevoke: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
        deviceId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The device. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AppDevice'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `device_not_found`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listMailProfiles: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every profile, by key. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailProfileList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMailProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The profile. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailProfile'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putMailProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailProfileWrite'];
      };
    };
    responses: {
      /** @description Replaced. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailProfile'];
        };
      };
      /** @description Created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailProfile'];
        };
      };
      /** @description Invalid field (`invalid_request`) or a host change without the password (`password_required`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The path names something that does not exist (`not_found`, or the code of what is missing). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The key exists and no revision was given (`profile_exists`), or the revision is stale (`revision_conflict`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteMailProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description It is the default profile (`profile_is_default`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  setDefaultMailProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The new default profile. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailProfile'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  testMailProfile: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailTestSend'];
      };
    };
    responses: {
      /** @description Accepted by the SMTP server. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailTestSendResult'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The SMTP server refused or could not be reached (`smtp_failed`, with `reason` and `detail`). */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailTestSendFailure'];
        };
      };
    };
  };
  listMailApps: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Applications. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailAppList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  registerMailApp: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailRegisterApp'];
      };
    };
    responses: {
      /** @description Registered. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailRegisteredApp'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Already registered (`app_exists`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMailApp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Application id. */
        appId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The application. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailApp'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Neither registered nor with a stored policy (`app_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  unregisterMailApp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Application id. */
        appId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Unregistered. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not registered (`app_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateMailApp: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Application id. */
        appId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailUpdateApp'];
      };
    };
    responses: {
      /** @description The application. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailApp'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not registered (`app_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  setMailAppPolicy: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Application id. */
        appId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailAppPolicy'];
      };
    };
    responses: {
      /** @description The application with its new policy. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailApp'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description An unknown profile key (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `core` (`core_policy_fixed`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listMailMessages: {
    parameters: {
      query?: {
        app?: string;
        profile?: string;
        /** @description Comma-separated statuses. */
        status?: string;
        since?: string;
        /** @description `scope` matches every id of the scope; `scope:id` one reference. */
        ref?: string;
        /** @description Substring of a recipient address (case-insensitive). */
        recipient?: string;
        cursor?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailMessagePage'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMailMessage: {
    parameters: {
      query?: {
        /** @description Hold the answer until the message is settled (`sent`, `failed`, `cancelled`, `bounced`) or this many seconds passed (whole seconds, 1–60); then answer the current record. Without it, or when the message is already settled, the answer is immediate. */
        wait?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailMessage'];
        };
      };
      /** @description A `wait` outside 1–60 whole seconds (`invalid_request`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown id (`message_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMailMessageContent: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Content or purge marker. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailMessageContent'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown id (`message_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  cancelMailMessage: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The cancelled record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailMessage'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown id (`message_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not queued (`message_not_queued`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  cancelMailBatch: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        batchId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description How many were cancelled. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailBatchCancelled'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown batch (`batch_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mailSend: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailSend'];
      };
    };
    responses: {
      /** @description Already accepted under this idempotency key. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailAccepted'];
        };
      };
      /** @description Accepted. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailAccepted'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not an application credential (`forbidden`), no `mail:send` declaration (`mail_send_not_declared`), or the profile is not allowed (`profile_not_allowed`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No profile is configured (`mail_not_configured`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Attachments above the profile's limit or 25 MiB each (`attachment_too_large`); body above the JSON limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The profile's rolling 24-hour recipient limit would be exceeded (`daily_limit_exceeded`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The attachment object store is full (`attachment_storage_full`). */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mailEnqueue: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailEnqueue'];
      };
    };
    responses: {
      /** @description Accepted. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailEnqueueAccepted'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not an application credential (`forbidden`), no `mail:send` declaration (`mail_send_not_declared`), or the profile is not allowed (`profile_not_allowed`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description `backlog_full` or `mail_not_configured`. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Attachments above the profile's limit or 25 MiB each (`attachment_too_large`); body above the JSON limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The profile's rolling 24-hour recipient limit would be exceeded (`daily_limit_exceeded`). */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The attachment object store is full (`attachment_storage_full`). */
      507: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mailProfiles: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Profiles. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailAppProfiles'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mailMessage: {
    parameters: {
      query?: {
        /** @description Hold the answer until the message is settled (`sent`, `failed`, `cancelled`, `bounced`) or this many seconds passed (whole seconds, 1–60); then answer the current record. Without it, or when the message is already settled, the answer is immediate. */
        wait?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The record. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailMessage'];
        };
      };
      /** @description A `wait` outside 1–60 whole seconds (`invalid_request`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unknown, or another application's (`message_unknown`), also with `wait`. */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMailRetention: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Retention in days. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailRetentionState'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  setMailRetention: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MailRetention'];
      };
    };
    responses: {
      /** @description Retention in days. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailRetentionState'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 16 MiB, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  checkMailProfileBounces: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters. */
        key: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The pass's outcome. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MailBounceCheck'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such profile (`profile_unknown`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The profile has no bounce collection configured (`bounce_collection_off`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listBackups: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Backups. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BackupList'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createBackup: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['CreateBackup'];
      };
    };
    responses: {
      /** @description Started. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            job: components['schemas']['BackupJob'];
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A backup is already running (`backup_running`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body larger than 64 KiB, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Body is not of the media type this operation reads (`unsupported_media_type`). */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getBackupJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The job. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BackupJob'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such job (`not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  downloadBackup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The backup file. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/octet-stream': string;
        };
      };
      /** @description A name that is not a backup file name (`invalid_request`): letters, digits, `.`, `_` and `-`, ending in `.hearth-backup`; never a path. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No backup of that name in the backup folder (`backup_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteBackup: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description A name that is not a backup file name (`invalid_request`): letters, digits, `.`, `_` and `-`, ending in `.hearth-backup`; never a path. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No backup of that name in the backup folder (`backup_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The backup is being written (`backup_running`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  openapi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 document. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  tlsCaPem: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PEM certificate. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-pem-file': string;
        };
      };
      /** @description TLS is not `internal`: there is no root to install (`not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  tlsCaDer: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description DER certificate. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/pkix-cert': string;
        };
      };
      /** @description TLS is not `internal`: there is no root to install (`not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  tlsCaMobileconfig: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Apple configuration profile (unsigned). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-apple-aspen-config': string;
        };
      };
      /** @description TLS is not `internal`: there is no root to install (`not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  tlsStatus: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Status. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TlsStatus'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  tlsRenew: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Renewed; the new status. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TlsStatus'];
        };
      };
      /** @description Invalid request (`invalid_request`, `invalid_json`). */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token is valid but not allowed here (`forbidden`). */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description TLS is off (`tls_off`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure (`internal_error`). */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The renewal failed; the current certificate stays in use (`renewal_failed`). */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
