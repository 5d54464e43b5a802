/**
 * What the server bundles (build/lib.ts `bundleServer`) load in place of a few libraries, so that a start does not
 * pay for what it does not use (measured on `node hearth.cjs serve` on an existing data folder, each
 * module's own initialisation, median of three):
 *
 * - `depd` (deprecation warnings of http-errors and cookies, loaded with Koa) captures a stack trace with call sites
 *   when a library calls `depd('name')` at load. Reading a call site's position makes V8 re-parse the functions on
 *   the stack for their source positions, and one of them is the bundle's whole top-level function: ~15 ms at every
 *   start. The stand-in has depd's API (`deprecate(message)`, `.function`, `.property`) and emits a plain
 *   `DeprecationWarning` once per message, without the caller's location.
 * - `mime-types` (Koa's `ctx.type`, `accepts`, `type-is`) builds its extension tables from mime-db's 2,000 types when
 *   it loads: ~10 ms for the two copies. Each copy is replaced by a facade with the same members that loads the real
 *   module (the same copy its importer would have had) on first use.
 *
 * - The routes' zod schemas (`*.schemas.ts`: ~58 ms of a start's 178 ms of module set-up, uncached) are built when
 *   a route is first documented or requested (server/core/http/api.ts reads a route's schemas then, and the route
 *   definitions name them through getters). Each such module is replaced, for every importer but its facade, by a
 *   CommonJS facade whose exports are getters that evaluate the real module on the first read of any of them: the
 *   importers read `facade.Name` at each use, and get the very objects the module made (no copies, no proxies: zod's
 *   `.meta()` registry and the OpenAPI generator know a schema by its identity).
 *
 * Only what is imported by a bare name is replaced; the facade loads the real file by its path.
 */
import fs from 'node:fs';
import esbuild from 'esbuild';

const DEPD = `'use strict';
const seen = new Set();
module.exports = function depd(namespace) {
  function deprecate(message) {
    const text = namespace + ' deprecated ' + message;
    if (seen.has(text)) return;
    seen.add(text);
    process.emitWarning(text, 'DeprecationWarning');
  }
  deprecate.function = function (fn, message) {
    return function () {
      deprecate(message || (fn.name || 'function') + '()');
      return fn.apply(this, arguments);
    };
  };
  deprecate.property = function (obj, prop, message) {
    const desc = Object.getOwnPropertyDescriptor(obj, prop);
    if (!desc || !desc.configurable) return;
    const text = message || JSON.stringify(prop);
    if ('value' in desc) {
      let value = desc.value;
      Object.defineProperty(obj, prop, {
        configurable: true,
        enumerable: desc.enumerable,
        get() { deprecate(text); return value; },
        set(v) { deprecate(text); value = v; },
      });
    } else {
      Object.defineProperty(obj, prop, {
        configurable: true,
        enumerable: desc.enumerable,
        get() { deprecate(text); return desc.get ? desc.get.call(this) : undefined; },
        set(v) { deprecate(text); if (desc.set) desc.set.call(this, v); },
      });
    }
  };
  return deprecate;
};
`;

/** A facade of mime-types 2.x/3.x loading `file` (the real index.js) on first use. */
function mimeTypesFacade(file: string): string {
  return `'use strict';
let real;
const load = () => (real ??= require(${JSON.stringify(file)}));
exports.charset = (type) => load().charset(type);
exports.charsets = { lookup: (type) => load().charset(type) };
exports.contentType = (str) => load().contentType(str);
exports.extension = (type) => load().extension(type);
exports.lookup = (path) => load().lookup(path);
for (const name of ['extensions', 'types', '_extensionConflicts']) {
  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });
}
`;
}

/**
 * A facade of the module `file` (its value exports `names`) that evaluates it on the first read of one of them, but
 * for `constants`: exports the module declares as a string or number literal, which the facade holds itself (a start
 * reads a few, such as oauth.schemas.ts's PLATFORM_AUDIENCE, without needing the module's schemas).
 */
function lazyModuleFacade(file: string, names: string[], constants: Map<string, string>): string {
  return `'use strict';
let real;
const load = () => (real ??= require(${JSON.stringify(file)}));
for (const name of ${JSON.stringify(names.filter((n) => !constants.has(n)))}) {
  Object.defineProperty(exports, name, { enumerable: true, get: () => load()[name] });
}
${[...constants].map(([name, literal]) => `exports.${name} = ${literal};`).join('\n')}
`;
}

/** The names a TypeScript module exports as values (its types are gone once compiled). */
async function valueExports(file: string): Promise<string[]> {
  const result = await esbuild.build({ entryPoints: [file], bundle: false, write: false, outdir: '/', format: 'esm', metafile: true, logLevel: 'silent' });
  return Object.values(result.metafile.outputs).flatMap((o) => o.exports);
}

/** `export const NAME = <a string or number literal>;` lines of a module: each name with its literal. */
const LITERAL_EXPORT = /^export const ([A-Za-z_$][\w$]*) = ('(?:[^'\\\n]|\\.)*'|-?\d[\d_]*(?:\.\d+)?);$/gm;
function literalExports(source: string): Map<string, string> {
  return new Map([...source.matchAll(LITERAL_EXPORT)].map((m) => [m[1]!, m[2]!]));
}

export const startShims: esbuild.Plugin = {
  name: 'start-shims',
  setup(build) {
    build.onResolve({ filter: /^depd$/ }, () => ({ path: 'depd', namespace: 'start-shim' }));
    build.onResolve({ filter: /^mime-types$/ }, async (args) => {
      if (args.pluginData === 'facade') return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'facade' });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'start-shim', pluginData: 'mime-types' };
    });
    build.onResolve({ filter: /\.schemas\.ts$/ }, async (args) => {
      if (args.namespace === 'lazy-module') return undefined;
      const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, namespace: 'lazy-module' });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'lazy-module' };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, async (args) => ({
      contents: lazyModuleFacade(args.path, await valueExports(args.path), literalExports(await fs.promises.readFile(args.path, 'utf8'))),
      loader: 'js',
      resolveDir: '/',
    }));
    build.onLoad({ filter: /.*/, namespace: 'start-shim' }, (args) =>
      args.pluginData === 'mime-types'
        ? { contents: mimeTypesFacade(args.path), loader: 'js', resolveDir: '/' }
        : { contents: DEPD, loader: 'js', resolveDir: '/' },
    );
  },
};
