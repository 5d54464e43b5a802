import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FullConfig } from '@playwright/test';
import type { SharedServer } from './shared-server.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const READY = /^Hearth (\S+) listening on (http:\/\/\S+)\s*$/m;
/** The reference authenticator web app's own listener (`--authenticator-port 0`), printed by `serve`. */
const AUTHENTICATOR = /^Authenticator app on (http:\/\/\S+)\s*$/m;
/** The one public address (`http://localhost:<port>` on loopback), where sign-in and passkeys work. */
const PUBLIC = /^Public address: (https?:\/\/\S+)\s*$/m;
const READY_TIMEOUT_MS = 60_000;

/** Shared with global-teardown.ts: both run in the Playwright runner process. */
export interface E2eServer {
  child: ChildProcess;
  dataDir: string;
}
export const SERVER_KEY = Symbol.for('hearth.e2e.servers');

/**
 * Starts one real Hearth server per worker (port 0, fresh data folder, random admin token) for the specs that share a
 * server, each with the reference authenticator web app on a second free port (its own origin,
 * `http://localhost:<port>`). Worker `i` (TEST_PARALLEL_INDEX) uses server `i` (shared-server.ts): the specs of one
 * worker run one after another on it, as they did on one server with one worker.
 */
export default async function globalSetup(config: FullConfig): Promise<void> {
  const index = path.join(repoRoot, 'ui/dist/index.html');
  if (!fs.existsSync(index)) {
    throw new Error(`The admin UI is not built (${path.relative(repoRoot, index)} is missing). Run \`npm run build:ui\` before the end-to-end tests.`);
  }
  const servers: E2eServer[] = [];
  (globalThis as Record<symbol, unknown>)[SERVER_KEY] = servers;
  const shared = await Promise.all(Array.from({ length: Math.max(1, config.workers) }, () => startOne(servers)));
  process.env.HEARTH_E2E_SERVERS = JSON.stringify(shared);
}

async function startOne(servers: E2eServer[]): Promise<SharedServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-'));
  const token = `e2e-admin-${crypto.randomBytes(24).toString('hex')}`;
  const child = spawn(process.execPath, ['bin/hearth.mjs', 'serve', '--port', '0', '--authenticator-port', '0', '--data', dataDir, '--log-level', 'warn'], {
    cwd: repoRoot,
    env: { ...process.env, HEARTH_ADMIN_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push({ child, dataDir });

  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
    process.stderr.write(`[hearth] ${chunk}`);
  });

  const [url, authenticatorUrl] = await new Promise<[string, string]>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => fail(new Error(`Hearth did not report "listening" within ${READY_TIMEOUT_MS / 1000} s.\nstdout: ${stdout}\nstderr: ${stderr}`)),
      READY_TIMEOUT_MS,
    );
    const onExit = (code: number | null, signal: string | null) =>
      fail(new Error(`Hearth exited before it was ready (code ${code}, signal ${signal}).\nstdout: ${stdout}\nstderr: ${stderr}`));
    function fail(err: Error) {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
      reject(err);
    }
    child.once('exit', onExit);
    child.once('error', (err) => fail(err));
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      stdout += chunk;
      const m = READY.exec(stdout);
      const a = AUTHENTICATOR.exec(stdout);
      if (m && a && stdout.includes('Sign in:')) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve([PUBLIC.exec(stdout)?.[1] ?? m[2]!, a[1]!]);
      }
    });
  });
  return { url, authenticatorUrl, token, dataDir };
}
