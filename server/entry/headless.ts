/**
 * Entry of the headless bundle (`build/out/headless/hearth.cjs`) and of the single-executable binary built from it
 * (`build/out/hearth-linux-x64`): the full `hearth` CLI, or one of the server's helpers when started with
 * `--hearth-role=<name>` (see core/runtime.ts). From a checkout, `bin/hearth.mjs` is the entry instead.
 *
 * Start-up is most of what a CLI command costs, so this file loads nothing it does not need (esbuild runs a module's
 * body when it is first imported): SQLite's module is imported, and the binary's assets (SQLite's addon, the admin UI)
 * are unpacked, only before a command that works locally (serve, tokens, setup, backup verify/restore: the CLI's
 * `beforeLocal`) or in a helper. `--version`, `--help` and the commands that talk to a server need neither.
 *
 * CommonJS once bundled: no top-level await here.
 */

import fs from 'node:fs';
import path from 'node:path';
import { isSea } from 'node:sea';
import { nodeVersionProblem } from '../../bin/node-check.mjs';
import { handoff } from '../core/config/environment.ts';
import { configureRuntime, requestedRole } from '../core/runtime.ts';

/**
 * What a command that works locally, or a helper, needs before it runs. The binary configures the runtime for its
 * helpers and unpacks its assets (once per build; later starts compare the bytes), then points SQLite and the UI at
 * them; a helper inherits the addon's location from the server (the environment) and unpacks nothing. `node
 * hearth.cjs` finds the addon and the UI beside the bundle.
 */
async function prepare(helper: boolean): Promise<void> {
  const { ADDON_ENV, useSqliteAddon } = await import('../core/storage/sqlite.ts');
  const inherited = handoff(ADDON_ENV) !== undefined;
  if (isSea()) {
    const sea = await import('./sea-assets.ts');
    if (helper && inherited) return configureRuntime({ kind: 'sea', bundleAsset: sea.BUNDLE_ASSET });
    const assets = sea.extractSeaAssets();
    configureRuntime({ kind: 'sea', bundleAsset: sea.BUNDLE_ASSET, uiDir: assets.uiDir });
    useSqliteAddon(assets.addon);
  } else {
    const dir = path.dirname(__filename);
    configureRuntime({ kind: 'bundle', file: __filename, uiDir: path.join(dir, 'ui') });
    const addon = path.join(dir, 'better_sqlite3.node');
    if (!inherited && fs.existsSync(addon)) useSqliteAddon(addon);
  }
}

async function main(): Promise<void> {
  const role = requestedRole();
  if (!isSea()) {
    const problem = nodeVersionProblem(process.versions.node);
    if (problem) {
      process.stderr.write(problem);
      process.exit(1);
    }
  }
  if (role) {
    await prepare(true);
    const { runRole } = await import('./roles.ts');
    return runRole(role);
  }
  const cli = await import('../cli/index.ts');
  let prepared: Promise<void> | null = null;
  return cli.main(process.argv, { beforeLocal: () => (prepared ??= prepare(false)) });
}

main().catch((err: unknown) => {
  process.stderr.write(`hearth: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
