/**
 * SQL functions every tenant connection gets (the server's own and the query processes'):
 *
 *   hearth_match(value, pattern, flags)   1 when `value` contains a match of the regular expression `pattern`,
 *                                         0 when not, NULL for a NULL value; flags '' or 'i' (case-insensitive).
 *                                         The `match`/`imatch` filters of the rows API are built on it.
 *   pragma_database_list                  (a table) `main` with an empty `file`: see hideHostPaths.
 *
 * Patterns run on RE2 (re2js, a port of Google's RE2): matching time grows linearly with the text, whatever the
 * pattern, so no pattern can stall a query (a backtracking engine takes exponential time on `(a|aa)*c` against a
 * run of a's). RE2 accepts the POSIX-like syntax PostgreSQL users write with `~` and `~*` — literals, `.`, bracket
 * expressions with ranges and `[[:alpha:]]`-style classes, `\d \w \s` (and `\D \W \S`), anchors `^ $`, `\b`,
 * groups `( )` and `(?: )`, alternation `|`, quantifiers `* + ? {n} {n,} {n,m}` (at most 1000) and their lazy forms,
 * flags such as `(?i)` — and refuses what cannot run in linear time: backreferences (`\1`), lookahead and
 * lookbehind (`(?=…)`, `(?<=…)`). A pattern RE2 cannot read is an error: `invalid_filter` from the rows API, the
 * same code from the read-only SQL endpoint.
 */

import { RE2JS } from 're2js';
import { quoteInput } from '../../core/http/errors.ts';
import type { SqliteDb } from '../../core/storage/sqlite.ts';

/** Thrown for a pattern RE2 cannot read; the message says why (safe to show to the caller). */
export class InvalidPatternError extends Error {
  constructor(pattern: string, reason: string) {
    super(`invalid regular expression ${quoteInput(pattern)}: ${reason} (patterns use RE2 syntax: no backreferences or lookaround)`);
    this.name = 'InvalidPatternError';
  }
}

const MAX_CACHED = 500;
const cache = new Map<string, RE2JS | InvalidPatternError>();

/** Compiles (once per pattern and flags) or throws InvalidPatternError. */
export function compilePattern(pattern: string, flags: string): RE2JS {
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern, flags === 'i' ? RE2JS.CASE_INSENSITIVE : 0);
    } catch (err) {
      const reason = (err as Error).message.replace(/^error parsing regexp: /, '');
      re = new InvalidPatternError(pattern, reason);
    }
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
    cache.set(key, re);
  }
  if (re instanceof InvalidPatternError) throw re;
  return re;
}

export function registerFunctions(db: SqliteDb): void {
  db.function('hearth_match', { deterministic: true }, (value: unknown, pattern: unknown, flags: unknown) => {
    if (value === null || value === undefined) return null;
    const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
    return compilePattern(String(pattern), String(flags ?? '')).test(text) ? 1 : 0;
  });
  hideHostPaths(db);
}

/**
 * A tenant never reads the server's file paths. SQLite's only introspection that shows one is `pragma_database_list`
 * (the `file` of each attached database: the namespace file's absolute path). SQLite looks for a module of a
 * `pragma_…` name before it makes its built-in one, so a module of that name registered on the connection takes its
 * place everywhere on it — a tenant's SELECT, a view of an imported file, a `main.`-qualified name: the same columns,
 * `main` (and `temp` when the connection made one), each `file` empty.
 */
function hideHostPaths(db: SqliteDb): void {
  db.table('pragma_database_list', {
    columns: ['seq', 'name', 'file'],
    *rows() {
      yield { seq: 0, name: 'main', file: '' };
    },
  });
}
