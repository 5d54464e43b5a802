/**
 * What the server bundles (build/lib.ts `bundleServer`) load in place of a few libraries, so that a start does not
 * pay for what it does not use (issue 19; measured on `node hearth.cjs serve` on an existing data folder, each
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
 * Only what is imported by a bare name is replaced; the facade loads the real file by its path.
 */
import type esbuild from 'esbuild';

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
    build.onLoad({ filter: /.*/, namespace: 'start-shim' }, (args) =>
      args.pluginData === 'mime-types'
        ? { contents: mimeTypesFacade(args.path), loader: 'js', resolveDir: '/' }
        : { contents: DEPD, loader: 'js', resolveDir: '/' },
    );
  },
};
