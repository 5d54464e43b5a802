/**
 * PostgREST's query grammar, parsed into a small AST. Nothing here touches SQL: identifiers are checked
 * against the table's schema by the builder and every value is bound as a parameter.
 *
 *   filter     <column>=[not.]<op>.<value>
 *   logic      or=(<cond>,…)  and=(<cond>,…)  not.or=(…)  not.and=(…)
 *   cond       <column>.[not.]<op>.<value> | [not.]or(<cond>,…) | [not.]and(<cond>,…)
 *   order      <column>[.asc|.desc][.nullsfirst|.nullslast],…
 *   select     *, <column>, <alias>:<column>, count(), <column>.<agg>(), <agg>(<column>), <alias>:<…>
 */
import { HearthError } from '../../core/http/errors.ts';

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct'] as const;
export type Operator = (typeof OPERATORS)[number];
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export type Condition =
  | { kind: 'filter'; column: string; op: Operator; negate: boolean; value: string | string[] }
  | { kind: 'logic'; op: 'and' | 'or'; negate: boolean; conditions: Condition[] };

export interface OrderTerm {
  column: string;
  desc: boolean;
  nulls: 'first' | 'last' | null;
}

export type SelectItem =
  | { kind: 'star' }
  | { kind: 'column'; column: string; alias: string }
  | { kind: 'aggregate'; fn: Aggregate; column: string | null; alias: string };

export const invalidFilter = (message: string) => new HearthError('invalid_filter', message);

const MAX_DEPTH = 10;
const MAX_CONDITIONS = 200;

/** Splits on commas at depth 0, honouring double-quoted values and parentheses. */
export function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '\\' && i + 1 < s.length) {
        cur += ch + s[++i];
        continue;
      }
      if (ch === '"') quoted = false;
      cur += ch;
      continue;
    }
    if (ch === '"') quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') {
      depth--;
      if (depth < 0) throw invalidFilter(`unbalanced ")" in ${JSON.stringify(s)}`);
    } else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (quoted) throw invalidFilter(`unterminated quote in ${JSON.stringify(s)}`);
  if (depth !== 0) throw invalidFilter(`unbalanced "(" in ${JSON.stringify(s)}`);
  out.push(cur);
  return out;
}

/** A value as written: `"quoted, with \" escapes"` or bare. */
function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

function parseList(raw: string): string[] {
  if (!raw.startsWith('(') || !raw.endsWith(')')) throw invalidFilter(`"in" takes a list in parentheses, like in.(1,2,3) (got ${JSON.stringify(raw)})`);
  const inner = raw.slice(1, -1);
  if (inner.trim() === '') return [];
  return splitTopLevel(inner).map((v) => unquote(v.trim()));
}

/** Parses `[not.]<op>.<value>` (the right-hand side of a filter parameter). */
export function parseOperation(column: string, expr: string): Condition {
  let rest = expr;
  let negate = false;
  if (rest.startsWith('not.')) {
    negate = true;
    rest = rest.slice(4);
  }
  const dot = rest.indexOf('.');
  const op = (dot === -1 ? rest : rest.slice(0, dot)) as Operator;
  if (!OPERATORS.includes(op)) {
    throw invalidFilter(`unknown operator ${JSON.stringify(op)} in filter on ${column}: use one of ${OPERATORS.join(', ')}`);
  }
  if (dot === -1) throw invalidFilter(`filter on ${column} needs a value: ${op}.<value>`);
  const raw = rest.slice(dot + 1);
  if (op === 'in') return { kind: 'filter', column, op, negate, value: parseList(raw) };
  if (op === 'is') {
    const v = raw.toLowerCase();
    if (!['null', 'not_null', 'true', 'false', 'unknown'].includes(v)) throw invalidFilter(`"is" takes null, not_null, true, false or unknown (got ${JSON.stringify(raw)})`);
    return { kind: 'filter', column, op, negate, value: v };
  }
  return { kind: 'filter', column, op, negate, value: unquote(raw) };
}

/** Parses the value of `or=` / `and=`: `(cond,cond,…)`. */
export function parseLogic(op: 'and' | 'or', negate: boolean, raw: string, depth = 0): Condition {
  if (depth > MAX_DEPTH) throw invalidFilter(`logical expressions nest at most ${MAX_DEPTH} deep`);
  if (!raw.startsWith('(') || !raw.endsWith(')')) throw invalidFilter(`${op} takes conditions in parentheses, like ${op}=(a.eq.1,b.eq.2) (got ${JSON.stringify(raw)})`);
  const parts = splitTopLevel(raw.slice(1, -1));
  if (parts.length === 1 && parts[0]!.trim() === '') throw invalidFilter(`${op}=() is empty`);
  if (parts.length > MAX_CONDITIONS) throw invalidFilter(`at most ${MAX_CONDITIONS} conditions in one logical expression`);
  return { kind: 'logic', op, negate, conditions: parts.map((p) => parseCondition(p.trim(), depth + 1)) };
}

function parseCondition(s: string, depth: number): Condition {
  const m = /^(not\.)?(or|and)(\(.*\))$/s.exec(s);
  if (m) return parseLogic(m[2] as 'and' | 'or', Boolean(m[1]), m[3]!, depth);
  const dot = s.indexOf('.');
  if (dot <= 0) throw invalidFilter(`cannot read condition ${JSON.stringify(s)}: write <column>.<operator>.<value>`);
  return parseOperation(s.slice(0, dot), s.slice(dot + 1));
}

export function parseOrder(raw: string): OrderTerm[] {
  return splitTopLevel(raw).map((term) => {
    const parts = term.trim().split('.');
    const column = parts.shift()!;
    if (!column) throw invalidFilter(`empty term in order=${raw}`);
    let desc = false;
    let nulls: OrderTerm['nulls'] = null;
    for (const p of parts) {
      if (p === 'asc') desc = false;
      else if (p === 'desc') desc = true;
      else if (p === 'nullsfirst') nulls = 'first';
      else if (p === 'nullslast') nulls = 'last';
      else throw invalidFilter(`unknown order modifier ${JSON.stringify(p)} in ${JSON.stringify(term)}: use asc, desc, nullsfirst or nullslast`);
    }
    return { column, desc, nulls };
  });
}

export function parseSelect(raw: string): SelectItem[] {
  const items = splitTopLevel(raw).map((t) => t.trim());
  if (items.some((t) => t === '')) throw invalidFilter(`empty item in select=${raw}`);
  return items.map((item): SelectItem => {
    if (item === '*') return { kind: 'star' };
    if (item.includes('(') && !/^([A-Za-z_][A-Za-z0-9_]*:)?(count\(\)|[A-Za-z_][A-Za-z0-9_]*\.(count|sum|avg|min|max)\(\)|(count|sum|avg|min|max)\([A-Za-z_][A-Za-z0-9_]*\))$/.test(item)) {
      throw invalidFilter(`cannot read select item ${JSON.stringify(item)}: embedding related tables is not supported; aggregates are written count(), column.sum() or sum(column)`);
    }
    if (item.includes('::')) throw invalidFilter(`casts (::) are not supported in select (${JSON.stringify(item)})`);
    let alias: string | null = null;
    let body = item;
    const colon = item.indexOf(':');
    if (colon > 0) {
      alias = item.slice(0, colon);
      body = item.slice(colon + 1);
    }
    let m = /^count\(\)$/.exec(body);
    if (m) return { kind: 'aggregate', fn: 'count', column: null, alias: alias ?? 'count' };
    m = /^([A-Za-z_][A-Za-z0-9_]*)\.(count|sum|avg|min|max)\(\)$/.exec(body) ?? null;
    if (m) return { kind: 'aggregate', fn: m[2] as Aggregate, column: m[1]!, alias: alias ?? m[2]! };
    m = /^(count|sum|avg|min|max)\(([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(body);
    if (m) return { kind: 'aggregate', fn: m[1] as Aggregate, column: m[2]!, alias: alias ?? m[1]! };
    return { kind: 'column', column: body, alias: alias ?? body };
  });
}

/** Query parameters that are not column filters. */
export const RESERVED_PARAMS = new Set(['select', 'order', 'limit', 'offset', 'count', 'search', 'format', 'bom', 'or', 'and', 'not.or', 'not.and', 'on_conflict', 'columns']);

/** Every condition of a query string: column filters and top-level logical parameters, ANDed together. */
export function parseConditions(params: URLSearchParams): Condition[] {
  const out: Condition[] = [];
  for (const [key, value] of params) {
    if (key === 'or' || key === 'and') out.push(parseLogic(key, false, value));
    else if (key === 'not.or' || key === 'not.and') out.push(parseLogic(key.slice(4) as 'and' | 'or', true, value));
    else if (!RESERVED_PARAMS.has(key)) out.push(parseOperation(key, value));
  }
  if (out.length > MAX_CONDITIONS) throw invalidFilter(`at most ${MAX_CONDITIONS} filters in one request`);
  return out;
}
