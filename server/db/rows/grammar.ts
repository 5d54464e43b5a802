/**
 * PostgREST's query grammar (its src/PostgREST/ApiRequest/QueryParams.hs), parsed into a small AST. Nothing here
 * touches SQL: identifiers are checked against the table's schema by the builder and every value is bound as a
 * parameter.
 *
 *   filter     <column>=[not.]<op>.<value>           the value is the rest of the parameter
 *              <column>=[not.]in.(<item>,…)          in.() matches nothing
 *              <column>=[not.]is.<null|not_null|true|false|unknown>   (any case)
 *              <column>=[not.]<qop>(any|all).<array>
 *   op         eq neq gt gte lt lte like ilike match imatch isdistinct
 *   qop        eq gt gte lt lte like ilike match imatch   (PostgREST takes no modifier on neq: not.eq(all) is neq(any))
 *   array      {<e>,<e>,…}  PostgreSQL's array literal: <e> is "quoted" (\ escapes) or bare (trimmed, \ escapes),
 *              an unquoted NULL (any case) is null; {} is empty; nested arrays are refused
 *              a list (in.(…) or an array) holds at most MAX_LIST_VALUES (1,000) values
 *   logic      or=(<cond>,…)  and=(<cond>,…)  not.or=(…)  not.and=(…)
 *   cond       <column>.[not.]<op>.<item> | …in.(<item>,…) | …is.<word> | …<qop>(any|all).<item>
 *              | [not.]and(<cond>,…) | [not.]or(<cond>,…)        nesting at most 10 deep, 200 conds per level
 *   item       "quoted" (\" and \\ escapes; only when the closing quote is followed by , or ) — else the quotes
 *              are plain characters) | {…} up to the first } (in a cond only) | bare text up to the next , or )
 *   whitespace spaces and tabs are skipped before and after each ( , ) of a logic tree, around its column names,
 *              and around the ( and ) of in.(…); nowhere inside [not.]<op>. and never inside an item (so in a
 *              list, the spaces after a comma belong to the next item)
 *   order      <column>[.asc|.desc][.nullsfirst|.nullslast],…
 *   select     *, <column>, <alias>:<column>, count(), <column>.<agg>(), <agg>(<column>), <alias>:<…>
 *
 * Two dialects read the same grammar (the rows reference, docs/api/rows.md, lists every difference):
 *
 *   rule                                     'hearth' (/tables/…/rows)           'postgrest' (/rest/…)
 *   a plain filter value  eq."a,b"           unquoted: a,b                       as written: "a,b"
 *   whitespace around an item                trimmed (also between "a" and ,)    part of the item
 *   whitespace of the structure              any white space                     spaces and tabs
 *   text after a logic tree, an in-list      400 invalid_filter                  ignored
 *     or an is-word of a plain filter
 *   in.("")                                  the empty string                    nothing, like in.()
 *   nulls in order without nullsfirst/last   first ascending (SQLite)            last ascending (PostgreSQL)
 *                                            (the builder's buildOrder)
 *
 * One cohesive thing, kept over 500 lines on purpose: a single recursive-descent parser whose helpers (the cursor,
 * quoting and whitespace rules per dialect) serve every production above; split, the rules a reader checks against
 * this header would live in several files.
 */
import { HearthError, quoteInput } from '../../core/http/errors.ts';

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'isdistinct'] as const;
export type Operator = (typeof OPERATORS)[number];
/** The operators that take PostgREST's `(any)` / `(all)` modifier. */
export const QUANT_OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'] as const;
export type QuantOperator = (typeof QUANT_OPERATORS)[number];
export type Quantifier = 'any' | 'all';
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** Which surface's reading of the grammar (see the table in this file's header). */
export type Dialect = 'hearth' | 'postgrest';

export type Condition =
  | { kind: 'filter'; column: string; op: Operator; negate: boolean; value: string | string[] }
  | { kind: 'quantified'; column: string; op: QuantOperator; quantifier: Quantifier; negate: boolean; values: Array<string | null> }
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
/** The most values one list holds: `in.(…)` or an `(any)`/`(all)` array. */
export const MAX_LIST_VALUES = 1000;
const tooManyValues = (n: number, column: string) =>
  invalidFilter(
    `the list in the filter on ${column} has ${n} values: at most ${MAX_LIST_VALUES} values in one list (split the request, or filter on another column)`,
  );

interface Rules {
  unquotePlainValue: boolean;
  trimItems: boolean;
  isSpace: (ch: string | undefined) => boolean;
  ignoreTrailing: boolean;
  /** in.("") matches nothing (PostgREST turns the list [""] into `= ANY('{}')`). */
  quotedEmptyListIsEmpty: boolean;
}

const RULES: Record<Dialect, Rules> = {
  hearth: {
    unquotePlainValue: true,
    trimItems: true,
    isSpace: (ch) => ch !== undefined && /\s/.test(ch),
    ignoreTrailing: false,
    quotedEmptyListIsEmpty: false,
  },
  postgrest: { unquotePlainValue: false, trimItems: false, isSpace: (ch) => ch === ' ' || ch === '\t', ignoreTrailing: true, quotedEmptyListIsEmpty: true },
};

/** A position in one parameter's value, with the dialect's rules. */
class Reader {
  i = 0;
  readonly s: string;
  readonly rules: Rules;
  constructor(s: string, rules: Rules) {
    this.s = s;
    this.rules = rules;
  }
  /** The character at the position (undefined at the end). */
  at(): string | undefined {
    return this.s[this.i];
  }
  eat(text: string): boolean {
    if (!this.s.startsWith(text, this.i)) return false;
    this.i += text.length;
    return true;
  }
  space(): void {
    while (this.rules.isSpace(this.at())) this.i++;
  }
  /** `"…"` with `\` escaping the next character, or null (and nothing consumed) when no closing quote follows. */
  quoted(): string | null {
    const start = this.i;
    if (!this.eat('"')) return null;
    let out = '';
    while (this.i < this.s.length) {
      const ch = this.s[this.i++]!;
      if (ch === '"') return out;
      if (ch === '\\') {
        if (this.i >= this.s.length) break;
        out += this.s[this.i++];
      } else out += ch;
    }
    this.i = start;
    return null;
  }
  /** Text after a complete filter or tree: an error, or ignored like PostgREST does. */
  end(what: string): void {
    if (this.i < this.s.length && !this.rules.ignoreTrailing) {
      throw invalidFilter(`unexpected ${quoteInput(this.s.slice(this.i))} after ${what}`);
    }
  }
}

/** An item of a list or a logic tree: "quoted", {array} (trees only) or bare up to the next `,` or `)`. */
function readItem(r: Reader, inCond: boolean): { text: string; quoted: boolean } {
  if (r.rules.trimItems) r.space();
  const start = r.i;
  if (r.at() === '"') {
    const q = r.quoted();
    if (q !== null) {
      if (r.rules.trimItems) r.space();
      if (r.at() === ',' || r.at() === ')') return { text: q, quoted: true };
      r.i = start;
    }
  } else if (inCond && r.at() === '{') {
    // PostgREST's {…} in a tree: up to the first }, with no { inside (else the item is bare text).
    let close = r.i + 1;
    while (close < r.s.length && r.s[close] !== '{' && r.s[close] !== '}') close++;
    if (r.s[close] === '}') {
      r.i = close + 1;
      const text = r.s.slice(start, r.i);
      if (r.rules.trimItems) r.space();
      return { text, quoted: false };
    }
  }
  while (r.i < r.s.length && r.at() !== ',' && r.at() !== ')') r.i++;
  const text = r.s.slice(start, r.i);
  return { text: r.rules.trimItems ? text.trim() : text, quoted: false };
}

/** `(item,item,…)` after `in.`. */
function readList(r: Reader, column: string): string[] {
  r.space();
  if (!r.eat('(')) throw invalidFilter(`"in" takes a list in parentheses, like in.(1,2,3) (got ${quoteInput(r.s.slice(r.i))} on ${column})`);
  r.space();
  const items = [readItem(r, false)];
  while (r.eat(',')) items.push(readItem(r, false));
  if (items.length > MAX_LIST_VALUES) throw tooManyValues(items.length, column);
  r.space();
  if (!r.eat(')')) throw invalidFilter(`unterminated list in ${quoteInput(r.s)}: close it with )`);
  const only = items.length === 1 ? items[0]! : null;
  if (only && only.text === '' && (!only.quoted || r.rules.quotedEmptyListIsEmpty)) return [];
  return items.map((i) => i.text);
}

const IS_WORDS = ['null', 'not_null', 'true', 'false', 'unknown'];

/** `null`, `not_null`, `true`, `false` or `unknown` in any case, after `is.`. */
function readIsWord(r: Reader, column: string): string {
  const lower = r.s.slice(r.i).toLowerCase();
  const word = IS_WORDS.find((w) => lower.startsWith(w));
  if (!word) throw invalidFilter(`"is" takes null, not_null, true, false or unknown (got ${quoteInput(r.s.slice(r.i))} on ${column})`);
  r.i += word.length;
  return word;
}

const FTS = ['fts', 'plfts', 'phfts', 'wfts'];
const RANGE_ARRAY = ['cs', 'cd', 'ov', 'sl', 'sr', 'nxr', 'nxl', 'adj'];

/** `[not.]<op>[(any|all)].`: the operator part of a filter, up to and including the dot before the value. */
function readOperator(r: Reader, column: string): { negate: boolean; op: Operator; quantifier: Quantifier | null } {
  const negate = r.eat('not.');
  const start = r.i;
  const m = /^([a-z]*)(\([^)]*\))?/.exec(r.s.slice(r.i))!;
  const name = m[1]!;
  const modifier = m[2];
  r.i += m[0].length;
  if (FTS.includes(name))
    throw invalidFilter(
      `the ${name} operator (PostgreSQL full-text search) is not supported on ${column}: use the search parameter over the table's fts index`,
    );
  if (RANGE_ARRAY.includes(name)) throw invalidFilter(`the ${name} operator (PostgreSQL ranges and arrays) is not supported on ${column}`);
  if (!(OPERATORS as readonly string[]).includes(name)) {
    const shown = name + (modifier ?? '') || r.s.slice(start).split('.')[0]!;
    throw invalidFilter(`unknown operator ${quoteInput(shown)} in filter on ${column}: use one of ${OPERATORS.join(', ')}`);
  }
  const op = name as Operator;
  let quantifier: Quantifier | null = null;
  if (modifier !== undefined) {
    if (!(QUANT_OPERATORS as readonly string[]).includes(op)) {
      throw invalidFilter(
        `operator ${op} takes no (any)/(all) modifier (those go on ${QUANT_OPERATORS.join(', ')}${op === 'neq' ? '; neq(any) is not.eq(all)' : ''})`,
      );
    }
    if (modifier !== '(any)' && modifier !== '(all)')
      throw invalidFilter(`unknown modifier ${quoteInput(modifier)} on operator ${op} in filter on ${column}: use (any) or (all)`);
    quantifier = modifier === '(any)' ? 'any' : 'all';
  }
  if (!r.eat('.')) throw invalidFilter(`filter on ${column}: operator ${op}${modifier ?? ''} needs a value: ${op}${modifier ?? ''}.<value>`);
  return { negate, op, quantifier };
}

const pgSpace = (ch: string | undefined) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r' || ch === '\v' || ch === '\f';

/**
 * A PostgreSQL array literal (`{a,"b,c",NULL}`) as PostgreSQL 17's array_in reads it, one dimension only: elements
 * are separated by commas; a bare element is trimmed and `\` escapes the next character; a quoted one keeps
 * everything between its quotes; an unquoted NULL (any case, no escapes) is null.
 */
export function parseArrayLiteral(text: string, column: string): Array<string | null> {
  const bad = (why: string) => invalidFilter(`malformed array literal: ${quoteInput(text)} (${why}) in filter on ${column}; write a list like {a,b,"c,d"}`);
  let i = 0;
  while (pgSpace(text[i])) i++;
  if (text[i] !== '{') throw bad('it must start with {');
  i++;
  const out: Array<string | null> = [];
  let expectItem = true;
  for (;;) {
    while (pgSpace(text[i])) i++;
    const ch = text[i];
    if (ch === undefined) throw bad('unexpected end');
    if (ch === '{') throw invalidFilter(`nested arrays are not supported in filter on ${column} (got ${quoteInput(text)}): write one list like {a,b}`);
    if (ch === '}') {
      if (expectItem && out.length > 0) throw bad('unexpected }');
      i++;
      break;
    }
    if (ch === ',') {
      if (expectItem) throw bad('unexpected ,');
      expectItem = true;
      i++;
      continue;
    }
    if (!expectItem) throw bad('expected , or }');
    if (ch === '"') {
      let v = '';
      i++;
      for (;;) {
        const c = text[i++];
        if (c === undefined) throw bad('unterminated quote');
        if (c === '"') break;
        if (c === '\\') {
          if (i >= text.length) throw bad('unexpected end');
          v += text[i++];
        } else v += c;
      }
      while (pgSpace(text[i])) i++;
      if (text[i] !== ',' && text[i] !== '}' && text[i] !== '{') throw bad('incorrectly quoted element');
      out.push(v);
    } else {
      let v = '';
      let kept = 0;
      let escaped = false;
      for (;;) {
        const c = text[i];
        if (c === undefined) throw bad('unexpected end');
        if (c === ',' || c === '}') break;
        if (c === '{') throw bad('unexpected {');
        if (c === '"') throw bad('incorrectly quoted element: quote all of an element or none');
        i++;
        if (c === '\\') {
          if (i >= text.length) throw bad('unexpected end');
          v += text[i++];
          kept = v.length;
          escaped = true;
        } else {
          v += c;
          if (!pgSpace(c)) kept = v.length;
        }
      }
      v = v.slice(0, kept);
      out.push(!escaped && v.toLowerCase() === 'null' ? null : v);
    }
    expectItem = false;
  }
  while (pgSpace(text[i])) i++;
  if (i < text.length) throw bad('junk after the closing }');
  if (out.length > MAX_LIST_VALUES) throw tooManyValues(out.length, column);
  return out;
}

/** The operator and value of a filter, after `<column>=` (plain) or `<column>.` (in a logic tree). */
function readOperation(r: Reader, column: string, inCond: boolean): Condition {
  const { negate, op, quantifier } = readOperator(r, column);
  if (quantifier) {
    const text = inCond ? readItem(r, true).text : r.s.slice(r.i);
    if (!inCond) r.i = r.s.length;
    return { kind: 'quantified', column, op: op as QuantOperator, quantifier, negate, values: parseArrayLiteral(text, column) };
  }
  if (op === 'in') {
    const list = readList(r, column);
    if (inCond) r.space();
    return { kind: 'filter', column, op, negate, value: list };
  }
  if (op === 'is') return { kind: 'filter', column, op, negate, value: readIsWord(r, column) };
  if (inCond) {
    const item = readItem(r, true);
    return { kind: 'filter', column, op, negate, value: item.text };
  }
  const raw = r.s.slice(r.i);
  r.i = r.s.length;
  return { kind: 'filter', column, op, negate, value: r.rules.unquotePlainValue ? unquote(raw) : raw };
}

/** A whole value `"quoted, with \" escapes"`, or the text as it is. */
function unquote(v: string): string {
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

/** Parses `[not.]<op>.<value>`, the value of a filter parameter `<column>=…`. */
export function parseOperation(column: string, expr: string, dialect: Dialect = 'hearth'): Condition {
  const r = new Reader(expr, RULES[dialect]);
  const c = readOperation(r, column, false);
  r.end(`the filter on ${column}`);
  return c;
}

/** `(cond,cond,…)` after `and`/`or`, the opening parenthesis still to read. */
function readTree(r: Reader, op: 'and' | 'or', negate: boolean, depth: number): Condition {
  if (depth > MAX_DEPTH) throw invalidFilter(`logical expressions nest at most ${MAX_DEPTH} deep`);
  r.space();
  if (!r.eat('(')) throw invalidFilter(`${op} takes conditions in parentheses, like ${op}=(a.eq.1,b.eq.2) (got ${quoteInput(r.s.slice(r.i))})`);
  r.space();
  if (r.at() === ')') throw invalidFilter(`${op}=() is empty`);
  const conditions: Condition[] = [];
  for (;;) {
    if (conditions.length === MAX_CONDITIONS) throw invalidFilter(`at most ${MAX_CONDITIONS} conditions in one logical expression`);
    conditions.push(readCondition(r, depth + 1));
    r.space();
    if (r.eat(',')) {
      r.space();
      continue;
    }
    if (r.eat(')')) break;
    throw invalidFilter(
      r.i < r.s.length
        ? `cannot read ${quoteInput(r.s.slice(r.i))} in ${op}=…: conditions are separated by , and the list ends with )`
        : `unbalanced "(" in ${quoteInput(r.s)}`,
    );
  }
  r.space();
  return { kind: 'logic', op, negate, conditions };
}

/** One condition of a tree: a nested `[not.]and(…)`/`[not.]or(…)`, or `<column>.<operation>`. */
function readCondition(r: Reader, depth: number): Condition {
  const start = r.i;
  const nested = /^(not\.)?(and|or)/.exec(r.s.slice(r.i));
  if (nested) {
    r.i += nested[0].length;
    r.space();
    if (r.at() === '(') return readTree(r, nested[2] as 'and' | 'or', Boolean(nested[1]), depth);
    r.i = start;
  }
  let column: string;
  if (r.at() === '"') {
    const q = r.quoted();
    if (q === null) throw invalidFilter(`unterminated quote in ${quoteInput(r.s)}`);
    column = q;
  } else {
    const start = r.i;
    while (r.i < r.s.length && !'.,()'.includes(r.at()!)) r.i++;
    column = r.s.slice(start, r.i);
    while (column && r.rules.isSpace(column.at(-1))) column = column.slice(0, -1);
  }
  r.space();
  if (!column || !r.eat('.')) {
    throw invalidFilter(`cannot read condition ${quoteInput(r.s.slice(start).split(/[,)]/)[0])}: write <column>.<operator>.<value>`);
  }
  return readOperation(r, column, true);
}

/** Parses the value of `or=` / `and=` (`not.` in the key gives `negate`): `(cond,cond,…)`. */
export function parseLogic(op: 'and' | 'or', negate: boolean, raw: string, dialect: Dialect = 'hearth'): Condition {
  const r = new Reader(raw, RULES[dialect]);
  const tree = readTree(r, op, negate, 0);
  r.end(`the closing ) of ${negate ? 'not.' : ''}${op}=(…)`);
  return tree;
}

/** Splits on commas at depth 0, honouring double-quoted values and parentheses (order and select). */
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
      if (depth < 0) throw invalidFilter(`unbalanced ")" in ${quoteInput(s)}`);
    } else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (quoted) throw invalidFilter(`unterminated quote in ${quoteInput(s)}`);
  if (depth !== 0) throw invalidFilter(`unbalanced "(" in ${quoteInput(s)}`);
  out.push(cur);
  return out;
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
      else throw invalidFilter(`unknown order modifier ${quoteInput(p)} in ${quoteInput(term)}: use asc, desc, nullsfirst or nullslast`);
    }
    return { column, desc, nulls };
  });
}

export function parseSelect(raw: string): SelectItem[] {
  const items = splitTopLevel(raw).map((t) => t.trim());
  if (items.some((t) => t === '')) throw invalidFilter(`empty item in select=${raw}`);
  return items.map((item): SelectItem => {
    if (item === '*') return { kind: 'star' };
    if (
      item.includes('(') &&
      !/^([A-Za-z_][A-Za-z0-9_]*:)?(count\(\)|[A-Za-z_][A-Za-z0-9_]*\.(count|sum|avg|min|max)\(\)|(count|sum|avg|min|max)\([A-Za-z_][A-Za-z0-9_]*\))$/.test(
        item,
      )
    ) {
      throw invalidFilter(
        `cannot read select item ${quoteInput(item)}: embedding related tables is not supported; aggregates are written count(), column.sum() or sum(column)`,
      );
    }
    if (item.includes('::')) throw invalidFilter(`casts (::) are not supported in select (${quoteInput(item)})`);
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
export const RESERVED_PARAMS = new Set([
  'select',
  'order',
  'limit',
  'offset',
  'count',
  'search',
  'format',
  'bom',
  'or',
  'and',
  'not.or',
  'not.and',
  'on_conflict',
  'columns',
]);

/** Every condition of a query string: column filters and top-level logical parameters, ANDed together. */
export function parseConditions(params: URLSearchParams, dialect: Dialect = 'hearth'): Condition[] {
  const out: Condition[] = [];
  for (const [key, value] of params) {
    if (key === 'or' || key === 'and') out.push(parseLogic(key, false, value, dialect));
    else if (key === 'not.or' || key === 'not.and') out.push(parseLogic(key.slice(4) as 'and' | 'or', true, value, dialect));
    else if (!RESERVED_PARAMS.has(key)) out.push(parseOperation(key, value, dialect));
  }
  if (out.length > MAX_CONDITIONS) throw invalidFilter(`at most ${MAX_CONDITIONS} filters in one request`);
  return out;
}
