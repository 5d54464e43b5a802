#!/usr/bin/env node
// Entry of the `hearth` command. Hearth needs Node.js 24 LTS or newer (it runs its TypeScript sources directly).
import { nodeVersionProblem } from './node-check.mjs';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(problem);
  process.exit(1);
}
// Keep compiled code (TypeScript stripped and compiled by V8) between runs, in Node's cache folder: a command then
// starts on about half the CPU time, which matters on a busy machine. Nothing changes when the cache cannot be used.
const { enableCompileCache, registerHooks } = await import('node:module');
enableCompileCache?.();
// Node gives an ES import of a built-in module every export of it, reading each: for node:fs, node:process and
// node:util that loads fs/promises, readline, worker_threads, the diagnostic report and more, several ms of every
// command. The CLI's own files and commander (an ES module) take their built-in modules from
// process.getBuiltinModule instead, as a CommonJS require would; the headless bundle needs none of this (esbuild makes
// every import a require). Only `import x from 'node:…'` and `import { a, b } from 'node:…'` lines change.
const CLI_FILES = [new URL('../server/cli/', import.meta.url).href, new URL('../node_modules/commander/lib/', import.meta.url).href];
registerHooks?.({
  load(url, context, next) {
    const loaded = next(url, context);
    if (loaded.source == null || !CLI_FILES.some((dir) => url.startsWith(dir))) return loaded;
    const source = String(loaded.source).replace(/^import (\w+|\{ [\w, ]+ \}) from '(node:[\w/]+)';$/gm, (line, binding, id) =>
      /\btype\b/.test(binding) ? line : `const ${binding} = globalThis.process.getBuiltinModule('${id}');`,
    );
    return { ...loaded, source };
  },
});
const { main } = await import('../server/cli/index.ts');
await main(process.argv);
