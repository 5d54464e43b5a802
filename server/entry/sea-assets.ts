/**
 * The headless binary's files: the server's bundle and its code cache, SQLite's native addon and the admin UI travel
 * inside the executable as SEA assets. At start they are written to a private cache folder (once per build) so the
 * bundle is read from a file (launch.ts: the binary's own pages it would touch stay resident), the addon can be loaded
 * with `process.dlopen` and the UI served from disk. Later starts compare only each file's size with its asset's: reading every asset back
 * to compare its bytes cost each start ~4 MB of the binary's pages, which then stayed resident. A file of the wrong
 * size (a crash half-way, a truncated copy) is written again.
 *
 * The cache folder, first that applies: HEARTH_CACHE_DIR; systemd's CACHE_DIRECTORY (`CacheDirectory=` in the
 * unit); `$XDG_CACHE_HOME/hearth`; `~/.cache/hearth`; `<tmp>/hearth-<uid>`. It must be a real folder owned by this
 * user that nobody else can write to, or Hearth refuses to load code from it.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { getAsset, getRawAsset } from 'node:sea';
import { processEnvironment } from '../core/config/environment.ts';

/** Written by build/headless.ts into the binary. */
export interface SeaManifest {
  /** `<version>-<hash of the assets>`: the cache sub-folder of this build. */
  id: string;
  /** Asset key of SQLite's addon. */
  addon: string;
  /** Asset keys of the admin UI's files, each `ui/<path>`. */
  ui: string[];
}

export const MANIFEST_ASSET = 'manifest.json';
/**
 * The server's bundle (server/entry/headless.ts) as an asset: the binary's main script (launch.ts) compiles it, and
 * a worker thread evaluates it when the build made no bundle of the helper's own (core/runtime.ts).
 */
export const BUNDLE_ASSET = 'hearth.cjs';
/** The server's bundle as a file beside `hearth.cjs` (launch.ts), which `node hearth.cjs` runs. */
export const SERVER_BUNDLE_FILE = 'hearth-server.cjs';
/** V8's code cache of the server's start, made at build time: an asset of the binary, and a file beside the bundle. */
export const CODE_CACHE_ASSET = 'hearth-server.cache';
/**
 * The CLI's own bundle (server/entry/headless.ts without the commands that need the server, server/cli/command-line.ts):
 * the commands that only talk to a running server, `--version` and `--help` run it. An asset of the binary, read in
 * place, and a file beside `hearth.cjs`.
 */
export const CLI_BUNDLE_ASSET = 'hearth-cli.cjs';
/** V8's code cache of the CLI's bundle as `--help` leaves it: asset and file as above. */
export const CLI_CODE_CACHE_ASSET = 'hearth-cli.cache';
/**
 * V8's code cache of the server's bundle as `tokens --help` leaves it, for the commands other than `serve` that run
 * the server's bundle (`tokens`, `setup`, `backup`, `migrate-store`): asset and file as above.
 */
export const LOCAL_CODE_CACHE_ASSET = 'hearth-local.cache';
/**
 * What `hearth --version`, `hearth --help` and each top-level command's `--help` print, recorded at build time from the
 * bundle itself (build/headless.ts `recordAnswers`): launch.ts answers those command lines from it without loading the
 * bundle. An asset of the binary, and a file beside the bundle.
 */
export const CLI_ANSWERS_ASSET = 'hearth-cli-answers.json';
/** One recorded command line (its arguments after `hearth`, joined by NUL) and what it printed. */
export interface CliAnswer {
  stdout: string;
  stderr: string;
  status: number;
}
/** Build time only: where launch.ts writes the code cache (on SIGUSR2, or when the process exits). */
export const CODE_CACHE_OUT_ENV = 'HEARTH_CODE_CACHE_OUT';

export function cacheRoot(env: NodeJS.ProcessEnv = processEnvironment()): string {
  if (env.HEARTH_CACHE_DIR) return path.resolve(env.HEARTH_CACHE_DIR);
  if (env.CACHE_DIRECTORY) return path.resolve(env.CACHE_DIRECTORY.split(':')[0]!);
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'hearth');
  let home = '';
  try {
    home = os.homedir();
  } catch {
    // no home folder (a system user without one)
  }
  if (home && home !== '/' && isWritableDir(home)) return path.join(home, '.cache', 'hearth');
  return path.join(os.tmpdir(), `hearth-${process.getuid?.() ?? 'user'}`);
}

function isWritableDir(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Creates `dir` (0700) if needed and checks nobody else can put files in it. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  const problem = !st.isDirectory()
    ? 'it is not a folder'
    : uid !== undefined && st.uid !== uid
      ? `it belongs to user ${st.uid}, not ${uid}`
      : process.platform !== 'win32' && (st.mode & 0o022) !== 0
        ? `others can write to it (mode ${(st.mode & 0o777).toString(8)})`
        : null;
  if (problem) throw new Error(`refusing to use the cache folder ${dir}: ${problem}; set HEARTH_CACHE_DIR to a private folder`);
}

/**
 * Writes asset `key` to `file` unless the file already has the asset's size, atomically (several processes may start
 * at once). The asset's bytes are read only when written: `getRawAsset` maps them without copying.
 */
export function extractAsset(key: string, file: string, mode: number): void {
  const raw = getRawAsset(key);
  try {
    if (fs.statSync(file).size === raw.byteLength) return;
  } catch {
    // missing: write it
  }
  // A read-only view of the binary's own pages: written out as it is, never modified.
  const data = new Uint8Array(raw);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // Unique per process and call (no node:crypto: the launcher, which imports this file, stays light for `--version`).
  const tmp = `${file}.${process.pid}.${process.hrtime.bigint()}.tmp`;
  fs.writeFileSync(tmp, data, { mode });
  fs.renameSync(tmp, file);
}

/** This build's private cache folder, `<cache root>/<manifest id>` (created when missing), and the manifest. */
export function buildCacheDir(env: NodeJS.ProcessEnv = processEnvironment()): { dir: string; manifest: SeaManifest } {
  const manifest = JSON.parse(getAsset(MANIFEST_ASSET, 'utf8')) as SeaManifest;
  const root = cacheRoot(env);
  ensurePrivateDir(root);
  const dir = path.join(root, manifest.id);
  ensurePrivateDir(dir);
  return { dir, manifest };
}

/** Extracts this build's assets into the cache folder; returns the addon file and the UI folder. */
export function extractSeaAssets(env: NodeJS.ProcessEnv = processEnvironment()): { addon: string; uiDir: string; dir: string } {
  const { dir, manifest } = buildCacheDir(env);
  const addon = path.join(dir, 'better_sqlite3.node');
  extractAsset(manifest.addon, addon, 0o700);
  const uiDir = path.join(dir, 'ui');
  for (const key of manifest.ui) {
    const rel = key.slice('ui/'.length);
    const file = path.join(uiDir, rel);
    if (!file.startsWith(uiDir + path.sep)) continue;
    extractAsset(key, file, 0o600);
  }
  return { addon, uiDir, dir };
}
