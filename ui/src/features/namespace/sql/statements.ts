/**
 * What the SQL console runs and how it reads the server's answers: the statement under the cursor, the position of a
 * SQLite error, the declared types of result columns, and the per-namespace history.
 */
import type { ColumnType, Row } from '../../../lib/api/data.ts';
import type { GridColumn } from '../values.ts';

/** [from, to) of each statement in `text`: split at `;` outside quotes and comments. */
export function statementRanges(text: string): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"' || ch === '`' || ch === '[') {
      const close = ch === '[' ? ']' : ch;
      const end = text.indexOf(close, i + 1);
      i = end < 0 ? text.length : end + 1;
    } else if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (ch === ';') {
      out.push([start, i]);
      start = ++i;
    } else i++;
  }
  out.push([start, text.length]);
  return out;
}

/** The statement the cursor is in (or just after), trimmed; with one statement, that one. */
export function statementAt(text: string, pos: number): { from: number; to: number; sql: string } {
  const ranges = statementRanges(text).filter(([a, b]) => text.slice(a, b).trim() !== '');
  const hit = ranges.find(([a, b]) => pos >= a && pos <= b + 1) ?? ranges[ranges.length - 1] ?? [0, text.length];
  const raw = text.slice(hit[0], hit[1]);
  const lead = raw.length - raw.trimStart().length;
  const sql = raw.trim();
  return { from: hit[0] + lead, to: hit[0] + lead + sql.length, sql };
}

/**
 * Where SQLite's message points in the statement that ran: `near "SELEC": syntax error` → the offset of SELEC.
 * The server passes SQLite's message on and gives no offset, so the token named after "near" is searched for; when
 * it occurs more than once the position is not guessed.
 */
export function errorRange(sql: string, message: string): { from: number; to: number; line: number; column: number } | null {
  const m = /near "((?:[^"]|"")*)"/.exec(message);
  if (!m) return null;
  const token = m[1]!.replace(/""/g, '"');
  const at = token === '' ? -1 : sql.indexOf(token);
  // Only a token that occurs once can be placed for sure.
  if (at < 0 || sql.indexOf(token, at + 1) >= 0) return null;
  const before = sql.slice(0, at).split('\n');
  return { from: at, to: at + token.length, line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Table name → its columns' declared types. */
export type SchemaTypes = Record<string, Record<string, ColumnType>>;

/**
 * The result's columns in order, each with a declared type when it can be known. The query API answers rows only (no
 * column types), so a result column takes the type of the column of that name in the tables the query names — when
 * those agree; `count(*) AS n` or an ambiguous name stays untyped and is shown by its value.
 */
export function resultColumns(rows: readonly Row[], sql: string, schema: SchemaTypes): GridColumn[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows)
    for (const k of Object.keys(row))
      if (!seen.has(k)) {
        seen.add(k);
        names.push(k);
      }
  const words = new Set((sql.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).map((w) => w.toLowerCase()));
  const named = Object.entries(schema).filter(([t]) => words.has(t.toLowerCase()));
  return names.map((name) => {
    const types = new Set(named.map(([, cols]) => cols[name]).filter((t): t is ColumnType => t !== undefined));
    return types.size === 1 ? { name, type: [...types][0] } : { name };
  });
}

/** The last queries of a namespace, newest first, kept in this browser. */
export class QueryHistory {
  static readonly MAX = 30;
  constructor(private readonly key: string) {}

  load(): string[] {
    try {
      const v: unknown = JSON.parse(localStorage.getItem(this.key) ?? '[]');
      return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, QueryHistory.MAX) : [];
    } catch {
      return [];
    }
  }

  add(list: readonly string[], q: string): string[] {
    const next = [q, ...list.filter((h) => h !== q)].slice(0, QueryHistory.MAX);
    try {
      localStorage.setItem(this.key, JSON.stringify(next));
    } catch {
      // storage full or refused: history for this page only
    }
    return next;
  }
}
