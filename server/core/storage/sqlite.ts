/**
 * The one place that loads better-sqlite3: every module that opens a SQLite database uses this `Database`.
 *
 * Normally better-sqlite3 finds its native addon itself (its prebuilt `.node` beside its JavaScript). Inside the
 * headless single-executable binary there is no such file and `require()` loads built-in modules only, so the
 * binary extracts the addon to a private cache folder, loads it with `process.dlopen` and hands the loaded object to
 * better-sqlite3 through its `nativeBinding` option. `useSqliteAddon(file)` switches to that; the file is also passed
 * to worker threads and child processes through HEARTH_SQLITE_ADDON, which they read on their first open.
 */

import BetterSqlite3 from 'better-sqlite3';
import { handoff, setHandoff } from '../config/environment.ts';

export type SqliteDb = BetterSqlite3.Database;
export type SqliteStatement = BetterSqlite3.Statement;
export type SqliteOptions = BetterSqlite3.Options;

/** Environment variable naming the addon file to load instead of better-sqlite3's own (set by the headless binary). */
export const ADDON_ENV = 'HEARTH_SQLITE_ADDON';

let binding: object | null = null;
let bindingFile: string | null = null;

/** Loads better-sqlite3's native addon from `file` for every database opened from now on, here and in helpers started later. */
export function useSqliteAddon(file: string): void {
  setHandoff(ADDON_ENV, file);
  binding = null;
  bindingFile = null;
}

function nativeBinding(): object | null {
  const file = handoff(ADDON_ENV);
  if (!file) return null;
  if (binding && bindingFile === file) return binding;
  const mod = { exports: {} as object };
  try {
    process.dlopen(mod, file);
  } catch (err) {
    throw new Error(
      `cannot load SQLite's native addon from ${file}: ${(err as Error).message} ` +
        '(is its folder on a noexec mount? set HEARTH_CACHE_DIR to a folder where libraries may be loaded)',
    );
  }
  binding = mod.exports;
  bindingFile = file;
  return binding;
}

/** better-sqlite3's `Database`, with the native addon chosen above. Same constructor signature and instances. */
export class Database extends BetterSqlite3 {
  constructor(filename?: string | Buffer, options?: SqliteOptions) {
    const addon = nativeBinding();
    super(filename, addon ? { ...options, nativeBinding: addon as unknown as string } : options);
  }
}
