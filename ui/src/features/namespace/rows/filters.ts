/** Grid filters and sort → PostgREST query parameters (`age=gte.30`, `order=name.asc,id.desc`). */
import type { RowsQuery } from '../../../lib/api/data.ts';

export type OpId =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'contains'
  | 'not_contains'
  | 'like'
  | 'ilike'
  | 'in'
  | 'not_in'
  | 'is_null'
  | 'not_null'
  | 'is_true'
  | 'is_false';

export interface Op {
  id: OpId;
  label: string;
  /** False for operators without a value (is null…). */
  needsValue: boolean;
  placeholder?: string;
  build: (v: string) => string;
}

/** `in.(a,b)` list items: quoted when they hold a comma, parenthesis, quote or backslash. */
function listItems(v: string): string {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (/[,()"\\]/.test(s) ? `"${s.replace(/["\\]/g, '\\$&')}"` : s))
    .join(',');
}

export const OPS: readonly Op[] = [
  { id: 'eq', label: '=', needsValue: true, build: (v) => `eq.${v}` },
  { id: 'neq', label: '≠', needsValue: true, build: (v) => `neq.${v}` },
  { id: 'gt', label: '>', needsValue: true, build: (v) => `gt.${v}` },
  { id: 'gte', label: '≥', needsValue: true, build: (v) => `gte.${v}` },
  { id: 'lt', label: '<', needsValue: true, build: (v) => `lt.${v}` },
  { id: 'lte', label: '≤', needsValue: true, build: (v) => `lte.${v}` },
  { id: 'contains', label: 'contains', needsValue: true, build: (v) => `ilike.*${v}*` },
  { id: 'not_contains', label: 'does not contain', needsValue: true, build: (v) => `not.ilike.*${v}*` },
  { id: 'like', label: 'like (pattern)', needsValue: true, placeholder: 'e.g. A*', build: (v) => `like.${v}` },
  { id: 'ilike', label: 'ilike (any case)', needsValue: true, placeholder: 'e.g. *smith*', build: (v) => `ilike.${v}` },
  { id: 'in', label: 'is one of', needsValue: true, placeholder: 'a, b, c', build: (v) => `in.(${listItems(v)})` },
  { id: 'not_in', label: 'is none of', needsValue: true, placeholder: 'a, b, c', build: (v) => `not.in.(${listItems(v)})` },
  { id: 'is_null', label: 'is empty (null)', needsValue: false, build: () => 'is.null' },
  { id: 'not_null', label: 'is not null', needsValue: false, build: () => 'not.is.null' },
  { id: 'is_true', label: 'is true', needsValue: false, build: () => 'is.true' },
  { id: 'is_false', label: 'is false', needsValue: false, build: () => 'is.false' },
];

export const opById = (id: OpId): Op => OPS.find((o) => o.id === id)!;

export interface Filter {
  key: number;
  column: string;
  op: OpId;
  value: string;
}

export interface Sort {
  column: string;
  dir: 'asc' | 'desc';
}

let nextKey = 1;
export const newFilter = (column: string): Filter => ({ key: nextKey++, column, op: 'eq', value: '' });

/** Filters that can be sent (a value where one is needed). */
export function complete(filters: Filter[]): Filter[] {
  return filters.filter((f) => f.column && (!opById(f.op).needsValue || f.value.trim() !== ''));
}

export function filterParams(filters: Filter[]): RowsQuery {
  return complete(filters).map((f) => [f.column, opById(f.op).build(f.value.trim())]);
}

export function orderParam(sort: Sort[]): RowsQuery {
  return sort.length ? [['order', sort.map((s) => `${s.column}.${s.dir}`).join(',')]] : [];
}

/** Header click: plain click sorts by this column alone (asc → desc → none); shift-click adds it to the sort. */
export function nextSort(sort: Sort[], column: string, multi: boolean): Sort[] {
  const cur = sort.find((s) => s.column === column);
  if (!multi) {
    if (!cur || sort.length > 1) return [{ column, dir: cur && sort.length === 1 ? (cur.dir === 'asc' ? 'desc' : 'asc') : 'asc' }];
    return cur.dir === 'asc' ? [{ column, dir: 'desc' }] : [];
  }
  if (!cur) return [...sort, { column, dir: 'asc' }];
  if (cur.dir === 'asc') return sort.map((s) => (s.column === column ? { column, dir: 'desc' } : s));
  return sort.filter((s) => s.column !== column);
}

/** The query string an API client would send, for display (`age=gte.30&order=name.asc`). */
export function describeQuery(params: RowsQuery): string {
  return params.map(([k, v]) => `${k}=${v}`).join('&');
}

const WORDS: Record<OpId, (v: string) => string> = {
  eq: (v) => `is ${v}`,
  neq: (v) => `is not ${v}`,
  gt: (v) => `more than ${v}`,
  gte: (v) => `at least ${v}`,
  lt: (v) => `less than ${v}`,
  lte: (v) => `at most ${v}`,
  contains: (v) => `contains “${v}”`,
  not_contains: (v) => `does not contain “${v}”`,
  like: (v) => `matches “${v}”`,
  ilike: (v) => `matches “${v}” in any case`,
  in: (v) => `is one of ${v}`,
  not_in: (v) => `is none of ${v}`,
  is_null: () => 'is empty',
  not_null: () => 'is not empty',
  is_true: () => 'is true',
  is_false: () => 'is false',
};

/** How a sort direction reads for a column type: "largest first", "A to Z", "newest first". */
function direction(type: string | undefined, dir: Sort['dir']): string {
  const asc = dir === 'asc';
  if (type === 'integer' || type === 'real') return asc ? 'smallest first' : 'largest first';
  if (type === 'datetime' || type === 'date') return asc ? 'oldest first' : 'newest first';
  if (type === 'text') return asc ? 'A to Z' : 'Z to A';
  if (type === 'boolean') return asc ? 'false first' : 'true first';
  return asc ? 'ascending' : 'descending';
}

/**
 * The filters, search and sort in words, for people who do not read query strings:
 * `age at least 30 · sorted by age, largest first`. Empty when nothing narrows or orders the rows.
 */
export function describeInWords(filters: Filter[], sort: Sort[], search: string, columns: readonly { name: string; type?: string }[]): string {
  const typeOf = (c: string) => columns.find((x) => x.name === c)?.type;
  const parts = complete(filters).map((f) => `${f.column} ${WORDS[f.op](f.value.trim())}`);
  if (search) parts.push(`has the words “${search}”`);
  if (sort.length) parts.push(`sorted by ${sort.map((s) => `${s.column}, ${direction(typeOf(s.column), s.dir)}`).join(', then ')}`);
  return parts.join(' · ');
}
