import type Database from 'better-sqlite3';

const cache = new Map<string, RegExp | null>();

function compile(pattern: string, flags: string): RegExp | null {
  const key = `${flags}/${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, flags === 'i' ? 'iu' : 'u');
    } catch {
      re = null;
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, re);
  }
  return re;
}

export class InvalidPatternError extends Error {}

/** SQL functions every tenant connection gets: `hearth_match(value, pattern, flags)` for match/imatch filters. */
export function registerFunctions(db: Database.Database): void {
  db.function('hearth_match', { deterministic: true }, (value: unknown, pattern: unknown, flags: unknown) => {
    if (value === null || value === undefined) return null;
    const re = compile(String(pattern), String(flags ?? ''));
    if (!re) throw new InvalidPatternError(`invalid regular expression ${JSON.stringify(pattern)}`);
    return re.test(String(value)) ? 1 : 0;
  });
}
