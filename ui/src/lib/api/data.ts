/**
 * The data plane of one namespace: tables and views, rows, CSV, read-only SQL, changelog and overview. Paths, bodies
 * and answers are the OpenAPI document's (`openapi.ts`): a server change that breaks the UI fails svelte-check.
 */
import { answer, api, apiUrl, authHeaders, credentials, every, fetchCredentials, NetworkError, type Schemas, toApiError } from './client.ts';

export type ChangelogEntry = Schemas['ChangelogEntry'];
export type ColumnDef = Schemas['Column'];
export type CreateObject = Schemas['CreateObject'];
export type IndexInfo = Schemas['Index'];
export type Overview = Schemas['NamespaceOverview'];
/** The answer of one `sql` (a `statements` batch answers `QueryBatchResult`; the console sends one). */
export type QueryResult = Schemas['QueryResult'];
export type RowsPage = Schemas['RowList'];
export type TableSchema = Schemas['TableSchema'];
export type TableSummary = Schemas['ObjectList']['data'][number];
export type AlterObject = Schemas['UpdateObject'];
export type CreateIndex = Schemas['CreateIndex'];

export type ColumnType = ColumnDef['type'];
/** The column types in the order forms offer them. */
export const COLUMN_TYPES = every<ColumnType>()(['text', 'integer', 'real', 'boolean', 'datetime', 'date', 'json', 'blob']);

/** A column of a table or view; `system` (`id`, `created_at`, `updated_at`): kept by the service, not editable. */
export type Column = TableSchema['columns'][number];
export type IndexType = IndexInfo['type'];
export type Row = Schemas['Row'];

export type OverviewWindow = Overview['window'];
export const OVERVIEW_WINDOWS = every<OverviewWindow>()(['1h', '24h', '7d', '30d']);
export type SeriesPoint = Overview['telemetry']['series'][number];

/** Names the service keeps for itself (checked by the server too). */
export const RESERVED = new Set(['id', 'created_at', 'updated_at', '_meta']);
export const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** Client-side check of a table, view or column name; `null` when acceptable. */
export function checkIdentifier(name: string, what: 'table' | 'view' | 'column'): string | null {
  if (name === '') return `Enter a ${what} name.`;
  if (RESERVED.has(name.toLowerCase()) || name.startsWith('_') || name.toLowerCase().startsWith('sqlite_')) {
    return `“${name}” is reserved: id, created_at, updated_at and names starting with “_” or “sqlite_” belong to the service.`;
  }
  if (name.length > 63) return 'Names are at most 63 characters long.';
  if (!/^[A-Za-z]/.test(name)) return 'Names start with a letter.';
  if (!IDENTIFIER.test(name)) return 'Use only letters, digits and “_”.';
  return null;
}

const table = (ns: string, t: string) => ({ path: { ns, table: t } });

export function listTables(ns: string, signal?: AbortSignal): Promise<{ data: TableSummary[] }> {
  return answer(api.GET('/v1/{ns}/tables', { params: { path: { ns } }, signal }));
}

export function getTable(ns: string, t: string, signal?: AbortSignal): Promise<TableSchema> {
  return answer(api.GET('/v1/{ns}/tables/{table}', { params: table(ns, t), signal }));
}

export function createTable(ns: string, body: CreateObject): Promise<TableSchema> {
  return answer(api.POST('/v1/{ns}/tables', { params: { path: { ns } }, body }));
}

export function alterTable(ns: string, t: string, body: AlterObject): Promise<TableSchema> {
  return answer(api.PUT('/v1/{ns}/tables/{table}', { params: table(ns, t), body }));
}

/** Drops a table or view; `cascade` drops the views that read it too (otherwise 409 `dependent_views`). */
export function dropTable(ns: string, t: string, opts: { cascade?: boolean } = {}): Promise<void> {
  return answer(api.DELETE('/v1/{ns}/tables/{table}', { params: { ...table(ns, t), query: opts.cascade ? { cascade: 'true' } : undefined } }));
}

export function createIndex(ns: string, t: string, body: CreateIndex): Promise<IndexInfo> {
  return answer(api.POST('/v1/{ns}/tables/{table}/indexes', { params: table(ns, t), body }));
}

export function dropIndex(ns: string, t: string, name: string): Promise<void> {
  return answer(api.DELETE('/v1/{ns}/tables/{table}/indexes/{index}', { params: { path: { ns, table: t, index: name } } }));
}

/**
 * Query parameters of a rows request: PostgREST filters plus order/limit/offset/search. Repeated keys allowed. The
 * document names the keywords only (every other key is a column filter), so these are sent as they are.
 */
export type RowsQuery = [string, string][];

/** The query string of a rows request, in the order given (`querySerializer` of the typed client). */
const rowsQuery = (params: RowsQuery) => () => new URLSearchParams(params).toString();

export function listRows(ns: string, t: string, params: RowsQuery, signal?: AbortSignal): Promise<RowsPage> {
  return answer(api.GET('/v1/{ns}/tables/{table}/rows', { params: table(ns, t), querySerializer: rowsQuery(params), signal }));
}

export async function insertRow(ns: string, t: string, row: Row): Promise<Row> {
  const res = await answer(api.POST('/v1/{ns}/tables/{table}/rows', { params: table(ns, t), body: row, headers: { Prefer: 'return=representation' } }));
  return res.data![0]!;
}

export function updateRow(ns: string, t: string, id: unknown, patch: Row): Promise<Row> {
  return answer(api.PUT('/v1/{ns}/tables/{table}/rows/{id}', { params: { path: { ns, table: t, id: String(id) } }, body: patch }));
}

export async function deleteRow(ns: string, t: string, id: unknown): Promise<void> {
  await answer(api.DELETE('/v1/{ns}/tables/{table}/rows/{id}', { params: { path: { ns, table: t, id: String(id) } } }));
}

/**
 * Deletes rows by id with `DELETE …/rows?id=in.(…)`, 200 ids per request (each request is one
 * transaction). Never sends an unfiltered delete: that would empty the table.
 */
export async function deleteRows(ns: string, t: string, ids: readonly string[], onProgress?: (done: number) => void): Promise<void> {
  if (ids.length === 0) return;
  if (ids.some((id) => !/^-?\d+$/.test(id))) throw new Error('Row ids must be whole numbers.');
  for (let i = 0; i < ids.length; i += 200) {
    const chunk = ids.slice(i, i + 200);
    await answer(api.DELETE('/v1/{ns}/tables/{table}/rows', { params: table(ns, t), querySerializer: rowsQuery([['id', `in.(${chunk.join(',')})`]]) }));
    onProgress?.(i + chunk.length);
  }
}

/** Downloads the rows matching `params` (filters, order, search) as CSV with a BOM, for spreadsheets. */
export async function exportCsv(ns: string, t: string, params: RowsQuery, signal?: AbortSignal): Promise<{ blob: Blob; filename: string }> {
  const { response: res } = await api.GET('/v1/{ns}/tables/{table}/export', {
    params: { ...table(ns, t), query: { format: 'csv', bom: 'true' } },
    querySerializer: rowsQuery([['format', 'csv'], ['bom', 'true'], ...params]),
    parseAs: 'stream',
    headers: { Accept: 'text/csv' },
    signal,
  });
  let blob: Blob;
  try {
    blob = await res.blob();
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new NetworkError('The download was interrupted. Try again.');
  }
  const m = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '');
  return { blob: new Blob([blob], { type: 'text/csv' }), filename: m ? m[1]! : `${t}.csv` };
}

/** Appends the rows of a CSV file (header row = column names) to table `t`. A multipart upload: sent with fetch. */
export async function importCsv(ns: string, t: string, file: File, signal?: AbortSignal): Promise<{ table: string; inserted: number }> {
  const form = new FormData();
  form.append('file', file, file.name);
  let res: Response;
  try {
    res = await fetch(apiUrl('/v1/namespaces/{ns}/import', { path: { ns }, query: { table: t } }), {
      method: 'POST',
      headers: { Accept: 'application/json', ...authHeaders(credentials.token) },
      body: form,
      signal,
      credentials: fetchCredentials(),
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new NetworkError('The upload failed: Hearth could not be reached.');
  }
  if (!res.ok) throw await toApiError(res);
  // The document answers a database import's record for this path; with `table` the answer is this (docs/api/rows.md).
  return (await res.json()) as { table: string; inserted: number };
}

export async function runQuery(ns: string, sql: string, signal?: AbortSignal): Promise<QueryResult> {
  // One `sql` answers one result (a batch of `statements` answers `{results}`).
  return (await answer(api.POST('/v1/{ns}/query', { params: { path: { ns } }, body: { sql }, signal }))) as QueryResult;
}

export function getChangelog(ns: string, opts: { limit: number; offset: number; table?: string | null }, signal?: AbortSignal): Promise<ChangelogEntry[]> {
  return answer(
    api.GET('/v1/{ns}/changelog', { params: { path: { ns }, query: { limit: opts.limit, offset: opts.offset, table: opts.table || undefined } }, signal }),
  );
}

export function getOverview(ns: string, window: OverviewWindow, signal?: AbortSignal): Promise<Overview> {
  return answer(api.GET('/v1/{ns}/overview', { params: { path: { ns }, query: { window } }, signal }));
}

/** The column a server message is about: `people.email must be unique…`, `column "age": …`, `no column "x"`. */
export function columnInMessage(message: string, table: string, columns: readonly string[]): string | null {
  const esc = table.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const candidates = [new RegExp(`^${esc}\\.([A-Za-z0-9_]+)`), /column "([A-Za-z0-9_]+)"/, /column ([A-Za-z0-9_]+)\b/, /^([A-Za-z0-9_]+) is /];
  for (const re of candidates) {
    const m = re.exec(message);
    if (m && columns.includes(m[1]!)) return m[1]!;
  }
  return null;
}

/**
 * A server message shown next to the field of `column`: without the `table.column` it starts with
 * (the field's label says it), as a sentence. `people.age must be at most 150` → `Must be at most 150.`
 */
export function fieldMessage(message: string, table: string, column: string): string {
  const prefix = `${table}.${column}`;
  let s = message.startsWith(prefix) ? message.slice(prefix.length).replace(/^:?\s*/, '') : message;
  if (s === '') s = message;
  s = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?)]$/.test(s) ? s : `${s}.`;
}

/** The label an admin gave a table (`metadata.label`), if any. */
export function labelOf(t: { metadata: Record<string, unknown> } | null | undefined): string | null {
  const l = t?.metadata?.label;
  return typeof l === 'string' && l.trim() !== '' ? l : null;
}
