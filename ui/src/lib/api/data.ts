/**
 * The data plane of one namespace: tables and views, rows, CSV, read-only SQL, changelog and overview.
 * The types are the server's own (inferred from its zod schemas, imported type-only): a server change that breaks
 * the UI fails svelte-check.
 */
import type { Overview } from '../../../../server/db/overview/overview.routes.ts';
import type { RowsPage } from '../../../../server/db/rows/rows.routes.ts';
import type {
  ChangelogEntry,
  ColumnDef,
  CreateIndex,
  CreateObject,
  IndexInfo,
  TableSchema,
  TableSummary,
  UpdateObject,
} from '../../../../server/db/schema/schema.schemas.ts';
import type { QueryResult } from '../../../../server/db/sql/sql.schemas.ts';
import { authHeaders, credentials, fetchCredentials, NetworkError, request, send, toApiError } from './client.ts';

export type { ChangelogEntry, ColumnDef, CreateObject, IndexInfo, Overview, QueryResult, RowsPage, TableSchema, TableSummary };
export type AlterObject = UpdateObject;

export type ColumnType = ColumnDef['type'];
/** The column types in the order forms offer them (checked against the server's list). */
export const COLUMN_TYPES = ['text', 'integer', 'real', 'boolean', 'datetime', 'date', 'json', 'blob'] as const satisfies readonly ColumnType[];

/** A column of a table or view; `system` (`id`, `created_at`, `updated_at`): kept by the service, not editable. */
export type Column = TableSchema['columns'][number];
export type IndexType = IndexInfo['type'];
export type Row = Record<string, unknown>;

export type OverviewWindow = Overview['window'];
export const OVERVIEW_WINDOWS = ['1h', '24h', '7d', '30d'] as const satisfies readonly OverviewWindow[];
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

const enc = encodeURIComponent;
const base = (ns: string) => `/v1/${enc(ns)}`;
const tablePath = (ns: string, t: string) => `${base(ns)}/tables/${enc(t)}`;

export function listTables(ns: string, signal?: AbortSignal): Promise<{ data: TableSummary[] }> {
  return request(`${base(ns)}/tables`, { signal });
}

export function getTable(ns: string, t: string, signal?: AbortSignal): Promise<TableSchema> {
  return request(tablePath(ns, t), { signal });
}

export function createTable(ns: string, body: CreateObject): Promise<TableSchema> {
  return request(`${base(ns)}/tables`, { method: 'POST', json: body });
}

export function alterTable(ns: string, t: string, body: AlterObject): Promise<TableSchema> {
  return request(tablePath(ns, t), { method: 'PUT', json: body });
}

/** Drops a table or view; `cascade` drops the views that read it too (otherwise 409 `dependent_views`). */
export function dropTable(ns: string, t: string, opts: { cascade?: boolean } = {}): Promise<void> {
  return request(`${tablePath(ns, t)}${opts.cascade ? '?cascade=true' : ''}`, { method: 'DELETE' });
}

export function createIndex(ns: string, t: string, body: CreateIndex): Promise<IndexInfo> {
  return request(`${tablePath(ns, t)}/indexes`, { method: 'POST', json: body });
}

export function dropIndex(ns: string, t: string, name: string): Promise<void> {
  return request(`${tablePath(ns, t)}/indexes/${enc(name)}`, { method: 'DELETE' });
}

/** Query parameters of a rows request: PostgREST filters plus order/limit/offset/search. Repeated keys allowed. */
export type RowsQuery = [string, string][];

function qs(params: RowsQuery): string {
  const s = new URLSearchParams(params).toString();
  return s ? `?${s}` : '';
}

export function listRows(ns: string, t: string, params: RowsQuery, signal?: AbortSignal): Promise<RowsPage> {
  return request(`${tablePath(ns, t)}/rows${qs(params)}`, { signal });
}

export async function insertRow(ns: string, t: string, row: Row): Promise<Row> {
  const res = await request<{ data: Row[] }>(`${tablePath(ns, t)}/rows`, { method: 'POST', json: row, headers: { Prefer: 'return=representation' } });
  return res.data[0]!;
}

export function updateRow(ns: string, t: string, id: unknown, patch: Row): Promise<Row> {
  return request(`${tablePath(ns, t)}/rows/${enc(String(id))}`, { method: 'PUT', json: patch });
}

export function deleteRow(ns: string, t: string, id: unknown): Promise<void> {
  return request(`${tablePath(ns, t)}/rows/${enc(String(id))}`, { method: 'DELETE' });
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
    await request(`${tablePath(ns, t)}/rows${qs([['id', `in.(${chunk.join(',')})`]])}`, { method: 'DELETE' });
    onProgress?.(i + chunk.length);
  }
}

/** Downloads the rows matching `params` (filters, order, search) as CSV with a BOM, for spreadsheets. */
export async function exportCsv(ns: string, t: string, params: RowsQuery, signal?: AbortSignal): Promise<{ blob: Blob; filename: string }> {
  const res = await send(`${tablePath(ns, t)}/export${qs([['format', 'csv'], ['bom', 'true'], ...params])}`, { headers: { Accept: 'text/csv' }, signal });
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

/** Appends the rows of a CSV file (header row = column names) to table `t`. */
export async function importCsv(ns: string, t: string, file: File, signal?: AbortSignal): Promise<{ table: string; inserted: number }> {
  const form = new FormData();
  form.append('file', file, file.name);
  let res: Response;
  try {
    res = await fetch(`/v1/namespaces/${enc(ns)}/import?table=${enc(t)}`, {
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
  return (await res.json()) as { table: string; inserted: number };
}

export function runQuery(ns: string, sql: string, signal?: AbortSignal): Promise<QueryResult> {
  return request(`${base(ns)}/query`, { method: 'POST', json: { sql }, signal });
}

export function getChangelog(ns: string, opts: { limit: number; offset: number; table?: string | null }, signal?: AbortSignal): Promise<ChangelogEntry[]> {
  return request(`${base(ns)}/changelog`, { query: { limit: opts.limit, offset: opts.offset, table: opts.table || undefined }, signal });
}

export function getOverview(ns: string, window: OverviewWindow, signal?: AbortSignal): Promise<Overview> {
  return request(`${base(ns)}/overview`, { query: { window }, signal });
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
