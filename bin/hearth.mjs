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
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
const { main } = await import('../server/cli/index.ts');
await main(process.argv);
