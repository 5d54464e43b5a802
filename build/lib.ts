/**
 * Shared by the build scripts: paths, the esbuild settings for server bundles, small file helpers.
 */
import fs from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import esbuild from 'esbuild';
import pkg from '../package.json' with { type: 'json' };
import { helperBundleName } from '../server/core/runtime.ts';
import { ROLE_NAMES } from '../server/entry/roles.ts';
import { startShims } from './shims.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(ROOT, 'build', 'out');
export const UI_DIST = path.join(ROOT, 'ui', 'dist');
export const VERSION: string = pkg.version;
export const require = createRequire(import.meta.url);

export function log(msg: string): void {
  process.stdout.write(`build: ${msg}\n`);
}

export function fail(msg: string): never {
  process.stderr.write(`build: ${msg}\n`);
  process.exit(1);
}

export function requireUi(): void {
  if (!fs.existsSync(path.join(UI_DIST, 'index.html'))) fail('the admin UI is not built (ui/dist/index.html is missing): run `npm run build:ui` first');
}

/** Every file under `dir`, as paths relative to it with forward slashes, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

export function copyDir(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  fs.cpSync(from, to, { recursive: true });
}

/**
 * The module of each helper role (server/entry/roles.ts lists the same roles; `bundleHelpers` refuses to build when
 * the two disagree). Each becomes its own small bundle, so a worker thread compiles only what it runs.
 */
export const HELPER_MODULES: Record<string, string> = {
  'db-check': 'server/db/namespaces/check.worker.ts',
  'db-csv-import': 'server/db/rows/csv.worker.ts',
  'db-snapshot': 'server/core/storage/snapshot.worker.ts',
  'db-checkpoint': 'server/core/storage/checkpoint.worker.ts',
  'mail-smtp': 'server/mail/delivery/smtp.worker.ts',
  'sql-child': 'server/db/sql/sql.child.ts',
};

/** Bundles every helper role's module into `<dir>/helpers/<role>.cjs` (core/runtime.ts finds them there); returns the files by role. */
export async function bundleHelpers(opts: { dir: string; external?: string[] }): Promise<Record<string, string>> {
  const roles = Object.keys(HELPER_MODULES).sort();
  if (roles.join() !== [...ROLE_NAMES].sort().join())
    fail(`build/lib.ts HELPER_MODULES (${roles.join(', ')}) and server/entry/roles.ts (${ROLE_NAMES.join(', ')}) list different roles`);
  const files: Record<string, string> = {};
  for (const role of roles) {
    files[role] = path.join(opts.dir, helperBundleName(role));
    await bundleServer({ entry: HELPER_MODULES[role]!, outfile: files[role], external: opts.external });
  }
  return files;
}

/**
 * `import('node:…')` of a built-in module becomes a `require` inside the bundle. The bundles run as compiled scripts
 * (server/entry/launch.ts compiles the server's with its code cache; the binary's workers evaluate theirs), and a
 * script compiled that way has no loader for a real `import()`: the CLI's confirmation prompt, which loads
 * node:readline/promises on first use, failed with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING.
 */
const BUILTIN = new RegExp(`^(node:.+|${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);
const dynamicBuiltins: esbuild.Plugin = {
  name: 'dynamic-builtins',
  setup(build) {
    build.onResolve({ filter: BUILTIN }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, namespace: 'dynamic-builtin' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'dynamic-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * One module namespace per CommonJS module. esbuild turns every `import x from 'node:fs'` of an ES module into
 * `__toESM(require('node:fs'))` at that module's set-up, and `__toESM` copies each of the module's properties onto a
 * new object as a getter: the server bundle has ~320 such calls (57 for node:crypto, 52 for node:fs, 41 for
 * node:path, …), ~11,000 property definitions at every start for 16 built-ins and a few dozen facades. A module's
 * namespace is one object in ES modules too, so each call site calls `__hearthToESM`, which answers the object the
 * first call made for the same module (and the same `isNodeMode`).
 */
const TO_ESM_MEMO =
  'var __hearthEsm = [new WeakMap(), new WeakMap()];\n' +
  'function __hearthToESM(mod, isNodeMode) {\n' +
  "  if (mod === null || (typeof mod !== 'object' && typeof mod !== 'function')) return (0, __toESM)(mod, isNodeMode);\n" +
  '  const seen = __hearthEsm[isNodeMode ? 1 : 0];\n' +
  '  let ns = seen.get(mod);\n' +
  '  if (ns === undefined) seen.set(mod, (ns = (0, __toESM)(mod, isNodeMode)));\n' +
  '  return ns;\n' +
  '}';

/**
 * Points a bundle's `__toESM(` call sites at `__hearthToESM` (see TO_ESM_MEMO); its definition `__toESM=(` stays, and
 * so do the memo's own calls, written `(0, __toESM)(`.
 */
function memoizeToEsm(file: string): void {
  const text = fs.readFileSync(file, 'utf8');
  const calls = text.split('__toESM(').length - 1;
  if (calls === 0) return;
  if (!/\b__toESM=\(/.test(text)) fail(`${file}: ${calls} __toESM calls but no esbuild __toESM helper (did esbuild's runtime change?)`);
  fs.writeFileSync(file, text.replaceAll('__toESM(', '__hearthToESM('));
}

/**
 * Bundles a server entry into one CommonJS file for Node 24. `import.meta.url` becomes the bundle's own file URL
 * (it names helper modules that the runtime seam replaces, and the default UI folder, which entries override);
 * `supports-color` (pulled in by `debug`) is replaced by an empty module; a dynamic import of a built-in module is a
 * `require` (see `dynamicBuiltins`); `depd` and `mime-types` are replaced by what build/shims.ts says.
 */
export async function bundleServer(opts: { entry: string; outfile: string; external?: string[]; plugins?: esbuild.Plugin[] }): Promise<esbuild.Metafile> {
  const empty = path.join(OUT, '.empty-module.cjs');
  fs.mkdirSync(OUT, { recursive: true });
  fs.writeFileSync(empty, 'module.exports = {};\n');
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, opts.entry)],
    outfile: opts.outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    external: opts.external ?? [],
    alias: { 'supports-color': empty },
    define: { 'import.meta.url': '__hearth_import_meta_url' },
    banner: { js: `'use strict';\nvar __hearth_import_meta_url = require('node:url').pathToFileURL(__filename).href;\n${TO_ESM_MEMO}` },
    minifySyntax: true,
    minifyWhitespace: true,
    keepNames: false,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'silent' },
    plugins: [dynamicBuiltins, startShims, ...(opts.plugins ?? [])],
  });
  memoizeToEsm(opts.outfile);
  return result.metafile;
}
