/**
 * Turns the parsed grammar into SQL for one table. Identifiers come only from the table's schema (an unknown
 * column is a 400, never spliced); every value is a bound parameter.
 */
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import { q, type TableInfo } from '../schema/catalog.ts';
import { type ColumnInfo, decodeBase64, parseDateTime } from '../schema/types.ts';
import { compilePattern, InvalidPatternError } from './functions.ts';
import {
  type Condition,
  type Dialect,
  invalidFilter,
  type Operator,
  type OrderTerm,
  parseConditions,
  parseOrder,
  parseSelect,
  type SelectItem,
} from './grammar.ts';

export interface Where {
  sql: string;
  params: unknown[];
  /**
   * The cost of a row depends on more than its size: a pattern (like, ilike, match, imatch) or full-text search.
   * Such a read never runs on the server's own connection (see rows.service.ts, `list`).
   */
  costly: boolean;
}

const PATTERN_OPERATORS: ReadonlySet<string> = new Set(['like', 'ilike', 'match', 'imatch']);
const patterned = (c: Condition): boolean => (c.kind === 'logic' ? c.conditions.some(patterned) : PATTERN_OPERATORS.has(c.op));

export function column(table: TableInfo, name: string): ColumnInfo {
  const c = table.byName.get(name);
  if (!c) throw new HearthError('unknown_column', `${table.name} has no column ${quoteInput(name)}`);
  return c;
}

/** Converts a filter value (always text in a URL) to what the column stores, so comparisons mean what they say. */
function filterValue(col: ColumnInfo, raw: string): unknown {
  switch (col.type) {
    case 'integer':
    case 'real': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw invalidFilter(`${col.name} is ${col.type}: ${quoteInput(raw)} is not a number`);
      return n;
    }
    case 'boolean': {
      // PostgreSQL reads " true " as true (items of /rest lists and trees keep their spaces).
      const v = raw.trim().toLowerCase();
      if (v === 'true' || v === '1') return 1;
      if (v === 'false' || v === '0') return 0;
      throw invalidFilter(`${col.name} is boolean: use true or false (got ${quoteInput(raw)})`);
    }
    case 'datetime': {
      // An unencoded "+" in a URL arrives as a space; a value that is not a full date-time compares as text
      // (so `gte.2026-03` still works as a prefix bound).
      return parseDateTime(raw.trim().replace(/ (\d{2}:?\d{2})$/, '+$1')) ?? raw;
    }
    case 'blob': {
      // Blobs are written and read as base64: compare the bytes it stands for (a "+" sent unencoded arrives as a space).
      const bytes = decodeBase64(raw.replace(/ /g, '+'));
      if (bytes === null) throw invalidFilter(`${col.name} is blob: ${quoteInput(raw)} is not base64 (standard or URL-safe alphabet, padding optional)`);
      return bytes;
    }
    default:
      return raw;
  }
}

/** A match/imatch pattern is checked before any SQL runs, so a bad one is a 400 wherever the filter is used. */
function checkPattern(pattern: string, flags: string): void {
  try {
    compilePattern(pattern, flags);
  } catch (err) {
    if (err instanceof InvalidPatternError) throw invalidFilter(err.message);
    throw err;
  }
}

/** PostgREST's `*` wildcard in like/ilike, as SQL `%`. */
const likePattern = (v: string) => v.replace(/\*/g, '%');

/** A LIKE pattern as a GLOB pattern (case-sensitive `like`): %→*, _→?, GLOB's own specials escaped. */
function globPattern(like: string): string {
  let out = '';
  for (const ch of like) {
    if (ch === '%') out += '*';
    else if (ch === '_') out += '?';
    else if (ch === '*' || ch === '?' || ch === '[' || ch === ']') out += `[${ch}]`;
    else out += ch;
  }
  return out;
}

/** One comparison of a column with one value, as SQL (the value pushed onto `params`). */
function comparison(col: ColumnInfo, op: Exclude<Operator, 'in' | 'is'>, value: string, params: unknown[]): string {
  const id = q(col.name);
  const one = () => {
    params.push(filterValue(col, value));
    return '?';
  };
  switch (op) {
    case 'eq':
      return `${id} = ${one()}`;
    case 'neq':
      return `${id} <> ${one()}`;
    case 'gt':
      return `${id} > ${one()}`;
    case 'gte':
      return `${id} >= ${one()}`;
    case 'lt':
      return `${id} < ${one()}`;
    case 'lte':
      return `${id} <= ${one()}`;
    case 'like':
      params.push(globPattern(likePattern(value)));
      return `${id} GLOB ?`;
    case 'ilike':
      params.push(likePattern(value));
      return `${id} LIKE ? ESCAPE '\\'`;
    case 'match':
    case 'imatch': {
      const flags = op === 'imatch' ? 'i' : '';
      checkPattern(value, flags);
      params.push(value, flags);
      return `hearth_match(${id}, ?, ?)`;
    }
    case 'isdistinct':
      return `${id} IS NOT ${one()}`;
  }
}

/**
 * `parts` joined with `op` as a balanced tree, `((a OR b) OR (c OR d))`, in their order (so the `?` placeholders stay
 * in the order of `params`). SQLite's parser nests a plain `a OR b OR c …` one level per term and refuses an
 * expression deeper than 1,000 levels; balanced, a list of 1,000 terms nests 8 deep.
 */
function balanced(parts: string[], op: 'AND' | 'OR'): string {
  if (parts.length === 1) return parts[0]!;
  if (parts.length <= 8) return `(${parts.join(` ${op} `)})`;
  const mid = Math.ceil(parts.length / 2);
  return `(${balanced(parts.slice(0, mid), op)} ${op} ${balanced(parts.slice(mid), op)})`;
}

/** A short `(any)`/`(all)` list: one comparison per element, ORed or ANDed. */
function quantifiedTerms(col: ColumnInfo, c: Extract<Condition, { kind: 'quantified' }>, params: unknown[]): string {
  const parts = c.values.map((v) => (v === null ? 'NULL' : comparison(col, c.op, v, params)));
  return parts.length === 1 ? `(${parts[0]})` : balanced(parts, c.quantifier === 'any' ? 'OR' : 'AND');
}

/**
 * An `eq(any)` list longer than this is written `col IN (…)` instead of ORed equalities: the same three-valued answer
 * (true when an element equals, else null when the column or an element is null, else false), and SQLite prepares one
 * IN term in linear time where its planner spends quadratic time on many ORed terms.
 */
const LONG_LIST = 16;

function conditionSql(table: TableInfo, c: Condition, params: unknown[], dialect: Dialect): string {
  if (c.kind === 'logic') {
    const parts = c.conditions.map((x) => conditionSql(table, x, params, dialect));
    const joined = parts.length === 1 ? `(${parts[0]})` : balanced(parts, c.op === 'and' ? 'AND' : 'OR');
    return c.negate ? `NOT ${joined}` : joined;
  }
  const col = column(table, c.column);
  const id = q(col.name);
  let sql: string;
  if (c.kind === 'quantified') {
    // PostgreSQL's `col op ANY('{…}')` / `ALL('{…}')`: ORed / ANDed comparisons, with the same three-valued result
    // (a null element compares as null); ANY of nothing is false, ALL of nothing true.
    if (c.values.length === 0) sql = c.quantifier === 'any' ? '0' : '1';
    else if (c.op === 'eq' && c.quantifier === 'any' && c.values.length > LONG_LIST) {
      for (const v of c.values) params.push(v === null ? null : filterValue(col, v));
      sql = `${id} IN (${c.values.map(() => '?').join(', ')})`;
    } else sql = quantifiedTerms(col, c, params);
  } else if (c.op === 'in') {
    const list = c.value as string[];
    if (list.length === 0) sql = '0';
    else {
      for (const v of list) params.push(filterValue(col, v));
      sql = `${id} IN (${list.map(() => '?').join(', ')})`;
    }
  } else if (c.op === 'is') {
    const v = c.value as string;
    sql = v === 'null' || v === 'unknown' ? `${id} IS NULL` : v === 'not_null' ? `${id} IS NOT NULL` : v === 'true' ? `${id} IS 1` : `${id} IS 0`;
  } else sql = comparison(col, c.op, c.value as string, params);
  return c.negate ? `NOT (${sql})` : sql;
}

/** Full-text search on the table's fts index: words are ANDed; a trailing * makes a prefix. */
export function searchSql(table: TableInfo, text: string, params: unknown[]): string {
  if (!table.fts)
    throw new HearthError(
      'invalid_request',
      `table ${table.name} has no fts index: create one with POST /v1/{ns}/tables/${table.name}/indexes {"type":"fts","columns":[…]}`,
    );
  const terms = text.trim().split(/\s+/).filter(Boolean).slice(0, 32);
  if (terms.length === 0) throw new HearthError('invalid_request', 'search is empty');
  const match = terms
    .map((t) => {
      const prefix = t.endsWith('*') && t.length > 1;
      const word = (prefix ? t.slice(0, -1) : t).replace(/"/g, '""');
      return `"${word}"${prefix ? '*' : ''}`;
    })
    .join(' ');
  params.push(match);
  const fts = q(`_hearth_fts_${table.name}`);
  return `"id" IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ?)`;
}

export function buildWhere(table: TableInfo, params: URLSearchParams, opts: { search?: boolean; dialect?: Dialect } = {}): Where {
  const dialect = opts.dialect ?? 'hearth';
  const conds = parseConditions(params, dialect);
  const values: unknown[] = [];
  const parts = conds.map((c) => conditionSql(table, c, values, dialect));
  const search = params.get('search');
  const searching = opts.search !== false && search !== null;
  if (searching) parts.push(searchSql(table, search, values));
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params: values, costly: searching || conds.some(patterned) };
}

export interface Projection {
  sql: string;
  /** Output columns: name → type of the source column (for JSON conversion). */
  columns: Array<{ name: string; type: ColumnInfo['type'] | undefined }>;
  aggregate: boolean;
  groupBy: string | null;
}

export function buildProjection(table: TableInfo, raw: string | null): Projection {
  const items: SelectItem[] = raw === null || raw === '' ? [{ kind: 'star' }] : parseSelect(raw);
  const aggregate = items.some((i) => i.kind === 'aggregate');
  const parts: string[] = [];
  const columns: Projection['columns'] = [];
  const plain: string[] = [];
  const seen = new Set<string>();
  const add = (alias: string) => {
    if (seen.has(alias)) throw invalidFilter(`select names ${quoteInput(alias)} twice: give one an alias (alias:column)`);
    seen.add(alias);
  };
  for (const item of items) {
    if (item.kind === 'star') {
      if (aggregate) throw invalidFilter('select=* cannot be combined with aggregates: list the grouping columns');
      for (const c of table.columns) {
        add(c.name);
        parts.push(q(c.name));
        columns.push({ name: c.name, type: c.type });
      }
    } else if (item.kind === 'column') {
      const c = column(table, item.column);
      add(item.alias);
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(item.alias)) throw invalidFilter(`alias ${quoteInput(item.alias)} is not a valid identifier`);
      parts.push(item.alias === c.name ? q(c.name) : `${q(c.name)} AS ${q(item.alias)}`);
      columns.push({ name: item.alias, type: c.type });
      plain.push(q(c.name));
    } else {
      add(item.alias);
      if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(item.alias)) throw invalidFilter(`alias ${quoteInput(item.alias)} is not a valid identifier`);
      if (item.column === null) {
        parts.push(`count(*) AS ${q(item.alias)}`);
        columns.push({ name: item.alias, type: 'integer' });
      } else {
        const c = column(table, item.column);
        if ((item.fn === 'sum' || item.fn === 'avg') && c.type !== 'integer' && c.type !== 'real') {
          throw invalidFilter(`${item.fn}() needs a numeric column; ${c.name} is ${c.type}`);
        }
        parts.push(`${item.fn}(${q(c.name)}) AS ${q(item.alias)}`);
        const type = item.fn === 'count' ? 'integer' : item.fn === 'avg' ? 'real' : c.type;
        columns.push({ name: item.alias, type });
      }
    }
  }
  return { sql: parts.join(', '), columns, aggregate, groupBy: aggregate && plain.length ? plain.join(', ') : null };
}

/**
 * ORDER BY for `order=`. Without `nullsfirst`/`nullslast`, the hearth dialect leaves nulls where SQLite puts them
 * (first ascending, last descending) and the postgrest dialect where PostgreSQL does (last ascending, first
 * descending).
 */
export function buildOrder(table: TableInfo, raw: string | null, projection: Projection, dialect: Dialect = 'hearth'): string {
  if (raw === null || raw === '') {
    if (projection.aggregate) return '';
    return table.hasId ? 'ORDER BY "id"' : '';
  }
  const terms: OrderTerm[] = parseOrder(raw);
  const sql = terms.map((t) => {
    let target: string;
    if (projection.aggregate) {
      if (!projection.columns.some((c) => c.name === t.column))
        throw invalidFilter(`order by ${quoteInput(t.column)}: with aggregates, order by a selected column or alias`);
      target = q(t.column);
    } else target = q(column(table, t.column).name);
    const nulls = t.nulls ?? (dialect === 'postgrest' ? (t.desc ? 'first' : 'last') : null);
    return `${target} ${t.desc ? 'DESC' : 'ASC'}${nulls ? ` NULLS ${nulls === 'first' ? 'FIRST' : 'LAST'}` : ''}`;
  });
  if (!projection.aggregate && table.hasId && !terms.some((t) => t.column === 'id')) sql.push('"id" ASC');
  return `ORDER BY ${sql.join(', ')}`;
}

export const MAX_LIMIT = 10_000;
export const DEFAULT_LIMIT = 100;

export function parseLimit(raw: string | null, opts: { max?: number; fallback: number | null }): number | null {
  if (raw === null || raw === '') return opts.fallback;
  if (!/^\d+$/.test(raw)) throw new HearthError('invalid_request', `limit must be a whole number (got ${quoteInput(raw)})`);
  const n = Number(raw);
  const max = opts.max ?? MAX_LIMIT;
  if (n > max) throw new HearthError('invalid_request', `limit is at most ${max} (got ${n})`);
  return n;
}

export function parseOffset(raw: string | null): number {
  if (raw === null || raw === '') return 0;
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new HearthError('invalid_request', `offset must be a whole number (got ${quoteInput(raw)})`);
  return Number(raw);
}
