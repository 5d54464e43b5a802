/**
 * Helpers for the specs that run a Hearth server of their own (`bin/hearth.mjs serve` on a free port with a fresh data
 * folder), and for watching a page's console. The other specs still carry their own copies of these lines; new specs
 * use this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const READY = /^Hearth (\S+) listening on (https?:\/\/\S+)\s*$/m;
const AUTHENTICATOR = /^Authenticator app on (https?:\/\/\S+)\s*$/m;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

export interface SpecServer {
  child: ChildProcess;
  /** The address `serve` printed (`http(s)://127.0.0.1:<port>`). */
  url: string;
  /** The reference authenticator's address, with `--authenticator-port`. */
  authenticatorUrl: string | null;
  /** SIGTERM, then SIGKILL when it has not stopped within 5 s. */
  stop(): Promise<void>;
}

/**
 * Starts `hearth serve <args>` with `env` and waits until it printed its address (and the authenticator's, when
 * `--authenticator-port` is among the arguments).
 */
export async function startSpecServer(args: string[], env: NodeJS.ProcessEnv): Promise<SpecServer> {
  const child = spawn(process.execPath, ['bin/hearth.mjs', 'serve', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const wantsAuthenticator = args.includes('--authenticator-port');
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => (stderr += c));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  try {
    const [url, authenticatorUrl] = await new Promise<[string, string | null]>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(() => reject(new Error(`Hearth did not start.\nstdout: ${stdout}\nstderr: ${stderr}`)), START_TIMEOUT_MS);
      child.once('exit', (code) => reject(new Error(`Hearth exited (${code}).\nstderr: ${stderr}`)));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (c: string) => {
        stdout += c;
        const m = READY.exec(stdout);
        const a = AUTHENTICATOR.exec(stdout);
        if (m && (a || !wantsAuthenticator)) {
          clearTimeout(timer);
          resolve([m[2]!, a?.[1] ?? null]);
        }
      });
    });
    return { child, url, authenticatorUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Console errors of a page (the apps must run cleanly under their CSPs; non-2xx fetches are expected answers). */
export function watchConsole(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(msg.text());
  });
  return errors;
}
