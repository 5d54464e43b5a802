#!/usr/bin/env node
// Entry of the `hearth` command. Hearth needs Node.js 24 LTS or newer (it runs its TypeScript sources directly).
import { nodeVersionProblem } from './node-check.mjs';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  process.stderr.write(problem);
  process.exit(1);
}
const { main } = await import('../server/cli/index.ts');
await main(process.argv);
