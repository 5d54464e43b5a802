/**
 * `npm run build:desktop`: the desktop app's JavaScript, ready for Electron or electron-builder.
 *
 *   build/out/desktop/main.cjs     the main process (electron/main.ts and the plain modules it uses)
 *   build/out/desktop/preload.cjs  the sandboxed preload (electron/preload.ts)
 *   build/out/desktop/status.html + status.js   the splash / restart / error page
 *   build/out/desktop/server.cjs   the server entry for the utility process (server/entry/utility.ts), with
 *                                  better-sqlite3 left out: it is loaded from node_modules, rebuilt for Electron
 *   build/out/desktop/helpers/     the server's helpers (worker threads, query processes), one small bundle each
 *
 * Run it with `npx electron build/out/desktop/main.cjs` (downloads Electron on first use), package it with
 * `npm run package:desktop` (see README, "Desktop packages").
 */
import fs from 'node:fs';
import path from 'node:path';
import esbuild from 'esbuild';
import { bundleHelpers, bundleServer, log, OUT, ROOT, requireUi } from './lib.ts';

const DIR = path.join(OUT, 'desktop');
const t0 = Date.now();
requireUi();
fs.rmSync(DIR, { recursive: true, force: true });
fs.mkdirSync(DIR, { recursive: true });

const common = {
  bundle: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
} as const;

await esbuild.build({
  ...common,
  entryPoints: [path.join(ROOT, 'electron', 'main.ts')],
  outfile: path.join(DIR, 'main.cjs'),
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['electron'],
  define: { 'import.meta.dirname': '__dirname' },
});
await esbuild.build({
  ...common,
  entryPoints: [path.join(ROOT, 'electron', 'preload.ts')],
  outfile: path.join(DIR, 'preload.cjs'),
  platform: 'node',
  format: 'cjs',
  target: 'node22',
  external: ['electron'],
});
await esbuild.build({
  ...common,
  entryPoints: [path.join(ROOT, 'electron', 'status.ts')],
  outfile: path.join(DIR, 'status.js'),
  platform: 'browser',
  format: 'iife',
  target: 'chrome130',
});
fs.copyFileSync(path.join(ROOT, 'electron', 'status.html'), path.join(DIR, 'status.html'));
await bundleServer({ entry: 'server/entry/utility.ts', outfile: path.join(DIR, 'server.cjs'), external: ['better-sqlite3'] });
await bundleHelpers({ dir: DIR, external: ['better-sqlite3'] });

const files = fs
  .readdirSync(DIR)
  .filter((f) => fs.statSync(path.join(DIR, f)).isFile())
  .map((f) => `${f} ${(fs.statSync(path.join(DIR, f)).size / 1024).toFixed(0)} KB`);
log(`build/out/desktop: ${files.join(', ')} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
