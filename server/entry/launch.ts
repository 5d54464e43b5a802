/**
 * The first code of `node hearth.cjs` and of the headless binary (build/headless.ts bundles it as `hearth.cjs` and
 * makes it the binary's main script): it compiles the server's bundle (server/entry/headless.ts, built as
 * `hearth-server.cjs` beside it; the binary carries it as an asset and writes it to its private cache folder,
 * sea-assets.ts) with V8's code cache, then runs it as a CommonJS module, exactly as Node would have run it.
 *
 * The code cache is made at build time (build/headless.ts starts `node hearth.cjs serve` once with
 * CODE_CACHE_OUT_ENV set; this file writes the cache when the build signals SIGUSR2 after the first healthy
 * /healthz), so it holds the bytecode of
 * everything a start compiled, not only the top level that SEA's own `useCodeCache` or Node's compile cache would
 * keep: the binary then skips most of compiling and lazy compiling during start. V8 refuses a cache made by another
 * V8 or with other flags (`cachedDataRejected`); the bundle then compiles from source as before, so `node hearth.cjs`
 * works under any Node 24. Nothing is written at run time.
 *
 * CommonJS once bundled: no top-level await here; nothing else of the server is imported, so this stays small.
 */

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { getAsset, getRawAsset, isSea } from 'node:sea';
import vm from 'node:vm';
import { handoff } from '../core/config/environment.ts';
import { BUNDLE_ASSET, buildCacheDir, CODE_CACHE_ASSET, CODE_CACHE_OUT_ENV, extractAsset, SERVER_BUNDLE_FILE } from './sea-assets.ts';

function launch(): void {
  const sea = isSea();
  // In the binary `require` loads built-in modules only, as for SEA's own main script.
  const { file, cache } = sea ? seaFiles() : { file: path.join(__dirname, SERVER_BUNDLE_FILE), cache: path.join(__dirname, CODE_CACHE_ASSET) };
  const filename = sea ? process.execPath : file!;
  const source = file ? fs.readFileSync(file, 'utf8') : getAsset(BUNDLE_ASSET, 'utf8');
  const out = handoff(CODE_CACHE_OUT_ENV);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData: out ? undefined : readCache(cache),
  });
  // Build time: the build signals once the server has answered its first /healthz, so the cache holds what a start
  // compiles and not the shutdown's code too.
  if (out) process.once('SIGUSR2', () => fs.writeFileSync(out, script.createCachedData()));
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  const mod = { exports: {}, filename, id: '.', loaded: false };
  const req = sea ? require : createRequire(filename);
  run.call(mod.exports, mod.exports, req, mod, filename, path.dirname(filename));
}

/**
 * The binary's bundle and code cache as files of the private cache folder (written at the first start of a build).
 * Reading them from the binary itself would leave ~9 MB of its pages resident for the life of the process. When the
 * folder cannot be used, the assets are read in place (the server's own start then says what is wrong with it).
 */
function seaFiles(): { file: string | null; cache: string | null } {
  try {
    const { dir } = buildCacheDir();
    const file = path.join(dir, SERVER_BUNDLE_FILE);
    const cache = path.join(dir, CODE_CACHE_ASSET);
    extractAsset(BUNDLE_ASSET, file, 0o600);
    extractAsset(CODE_CACHE_ASSET, cache, 0o600);
    return { file, cache };
  } catch {
    return { file: null, cache: null };
  }
}

/** The code cache made at build time, or none (a build without one, an unusable cache folder). */
function readCache(file: string | null): Buffer | undefined {
  try {
    return file ? fs.readFileSync(file) : Buffer.from(getRawAsset(CODE_CACHE_ASSET));
  } catch {
    return undefined;
  }
}

launch();
