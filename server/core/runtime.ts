/**
 * How this server was started, and so how it starts its helpers (worker threads and child processes).
 *
 * - `source` (npm start, the tests, the CLI from a checkout): Node runs the TypeScript files, and a helper is its
 *   own `.ts` file (the `devModule` URL each call site passes).
 * - `bundle` (`node hearth.cjs`, the Electron utility process): everything is one CommonJS file built by esbuild;
 *   a helper is its own small bundle beside it (`helpers/<role>.cjs`, build/lib.ts `bundleHelpers`), or, when that
 *   file is missing, the server's bundle started again with a hidden role argument (`--hearth-role=<name>`).
 * - `sea` (the headless single-executable binary): there are no script files at all. A child process is the binary
 *   itself started again with the role argument; a worker thread evaluates the helper's own bundle, which the binary
 *   carries as the asset `helpers/<role>.cjs` (or, without it, the whole bundle asset), with the role in its argv.
 *
 * A helper's own bundle holds only its module and what that imports: a thread that checkpoints platform.db no longer
 * compiles the whole server (its start took a core for ~150 ms beside the server's own start, and ~20 MB).
 *
 * The bundle's entries (`server/entry/headless.ts`, `server/entry/utility.ts`) call `configureRuntime()` and, when
 * `requestedRole()` names one, run that helper instead of the server (`server/entry/roles.ts`).
 *
 * node:worker_threads and node:child_process load when the first helper starts (after the listener is up), not with
 * this module, which every start imports.
 */
import type { ChildProcess, ForkOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { getAssetKeys, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import type { Worker, WorkerOptions } from 'node:worker_threads';

export type Runtime = { kind: 'source' } | { kind: 'bundle'; file: string; uiDir?: string } | { kind: 'sea'; bundleAsset: string; uiDir?: string };

/** The hidden argument that makes a bundle or the binary run a helper instead of the CLI. */
export const ROLE_FLAG = '--hearth-role=';

let current: Runtime = { kind: 'source' };

export function configureRuntime(runtime: Runtime): void {
  current = runtime;
}

export function runtime(): Runtime {
  return current;
}

/** Where the admin UI's files are when they ship with the bundle or the binary (null when running from source). */
export function bundledUiDir(): string | null {
  return current.kind === 'source' ? null : (current.uiDir ?? null);
}

/** Where a helper's own bundle lives: beside the server's bundle, and under this key among the binary's assets. */
export function helperBundleName(role: string): string {
  return `helpers/${role}.cjs`;
}

const helperFiles = new Map<string, string | null>();

/** The helper's own bundle file beside `bundleFile`, or null when the build did not make one. */
function helperFile(bundleFile: string, role: string): string | null {
  let file = helperFiles.get(role);
  if (file === undefined) {
    const candidate = path.join(path.dirname(bundleFile), helperBundleName(role));
    file = fs.existsSync(candidate) ? candidate : null;
    helperFiles.set(role, file);
  }
  return file;
}

/** The helper's own bundle among the binary's assets, or null. */
function helperAsset(role: string): string | null {
  const key = helperBundleName(role);
  return isSea() && getAssetKeys().includes(key) ? key : null;
}

/** The helper role this process or thread was started for, if any. */
export function requestedRole(argv: readonly string[] = process.argv): string | null {
  const arg = argv.find((a) => a.startsWith(ROLE_FLAG));
  return arg ? arg.slice(ROLE_FLAG.length) : null;
}

/**
 * Starts a worker thread. `devModule` is the worker's own file (used when running from source); `role` names it in
 * a bundle (see `server/entry/roles.ts`).
 */
export function spawnWorker(role: string, devModule: URL, options: WorkerOptions = {}): Worker {
  const argv = [ROLE_FLAG + role, ...(options.argv ?? [])];
  const { Worker } = process.getBuiltinModule('node:worker_threads');
  switch (current.kind) {
    case 'source':
      return new Worker(devModule, options);
    case 'bundle':
      return new Worker(helperFile(current.file, role) ?? current.file, { ...options, argv });
    case 'sea':
      return new Worker(seaWorkerBootstrap(helperAsset(role) ?? current.bundleAsset), { ...options, eval: true, argv });
  }
}

/**
 * Forks a child process that talks over IPC. `devModule` is the child's own file (used when running from source);
 * `role` names it in a bundle (see `server/entry/roles.ts`). Options are child_process.fork's.
 */
export function forkChild(role: string, devModule: URL, args: readonly string[], options: ForkOptions = {}): ChildProcess {
  const { fork } = process.getBuiltinModule('node:child_process');
  switch (current.kind) {
    case 'source':
      return fork(fileURLToPath(devModule), [...args], options);
    case 'bundle':
      return fork(helperFile(current.file, role) ?? current.file, [ROLE_FLAG + role, ...args], options);
    case 'sea':
      // The binary ignores its first argument as a script name: the role flag stands there, and Node options have
      // no meaning for it.
      return fork(ROLE_FLAG + role, [...args], { ...options, execPath: process.execPath, execArgv: [] });
  }
}

/** Code for an `eval` worker inside the binary: evaluates a bundle asset (a helper's own, or the server's) as a CommonJS module. */
function seaWorkerBootstrap(asset: string): string {
  return `'use strict';
const { getAsset } = require('node:sea');
const { compileFunction } = require('node:vm');
const path = require('node:path');
const source = getAsset(${JSON.stringify(asset)}, 'utf8');
const run = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: process.execPath });
const mod = { exports: {} };
run.call(mod.exports, mod.exports, require, mod, process.execPath, path.dirname(process.execPath));`;
}
