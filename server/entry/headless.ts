/**
 * Entry of the headless bundle (`build/out/headless/hearth.cjs`) and of the single-executable binary built from it
 * (`build/out/hearth-linux-x64`): the full `hearth` CLI, or one of the server's helpers when started with
 * `--hearth-role=<name>` (see core/runtime.ts). From a checkout, `bin/hearth.mjs` is the entry instead.
 *
 * CommonJS once bundled: no top-level await here.
 */

import fs from 'node:fs';
import path from 'node:path';
import { isSea } from 'node:sea';
import { nodeVersionProblem } from '../../bin/node-check.mjs';
import { handoff } from '../core/config/environment.ts';
import { configureRuntime, requestedRole } from '../core/runtime.ts';
import { ADDON_ENV, useSqliteAddon } from '../core/storage/sqlite.ts';
import { runRole } from './roles.ts';
import { BUNDLE_ASSET, extractSeaAssets } from './sea-assets.ts';

function main(): Promise<void> {
  const role = requestedRole();
  if (isSea()) {
    // A helper inherits the addon's location from the server; only the CLI itself extracts.
    const assets = role && handoff(ADDON_ENV) ? null : extractSeaAssets();
    configureRuntime({ kind: 'sea', bundleAsset: BUNDLE_ASSET, uiDir: assets?.uiDir });
    if (assets) useSqliteAddon(assets.addon);
  } else {
    // `node hearth.cjs`: the addon and the UI sit beside the bundle.
    const problem = nodeVersionProblem(process.versions.node);
    if (problem) {
      process.stderr.write(problem);
      process.exit(1);
    }
    const dir = path.dirname(__filename);
    configureRuntime({ kind: 'bundle', file: __filename, uiDir: path.join(dir, 'ui') });
    const addon = path.join(dir, 'better_sqlite3.node');
    if (!handoff(ADDON_ENV) && fs.existsSync(addon)) useSqliteAddon(addon);
  }
  if (role) return runRole(role);
  return import('../cli/index.ts').then((cli) => cli.main(process.argv));
}

main().catch((err: unknown) => {
  process.stderr.write(`hearth: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
