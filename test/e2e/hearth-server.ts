/**
 * Helpers for the specs that run a Hearth server of their own (`bin/hearth.mjs serve` on a free port with a fresh data
 * folder).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const READY = /^Hearth (\S+) listening on (https?:\/\/\S+)\s*$/m;
const AUTHENTICATOR = /^Authenticator app on (https?:\/\/\S+)\s*$/m;
/** Printed when it differs from the listening address: `http://localhost:<port>` on loopback, `https://<name>:<port>` with TLS. */
const PUBLIC = /^Public address: (https?:\/\/\S+)\s*$/m;
const START_TIMEOUT_MS = 120_000; // a hang guard: a start on a busy 2-core machine takes many times its quiet second
const STOP_TIMEOUT_MS = 5_000;

export interface SpecServer {
  child: ChildProcess;
  /** The address `serve` listens on (`http(s)://127.0.0.1:<port>`). */
  url: string;
  /** The public address (`Public address:` in the banner, else `url`): where pages are opened and sign-in works. */
  publicUrl: string;
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
    const [url, publicUrl, authenticatorUrl] = await new Promise<[string, string, string | null]>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(() => reject(new Error(`Hearth did not start.\nstdout: ${stdout}\nstderr: ${stderr}`)), START_TIMEOUT_MS);
      child.once('exit', (code) => reject(new Error(`Hearth exited (${code}).\nstderr: ${stderr}`)));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (c: string) => {
        stdout += c;
        const m = READY.exec(stdout);
        const a = AUTHENTICATOR.exec(stdout);
        // The banner is written at once; 'Sign in:' is in its last lines.
        if (m && (a || !wantsAuthenticator) && stdout.includes('Sign in:')) {
          clearTimeout(timer);
          resolve([m[2]!, PUBLIC.exec(stdout)?.[1] ?? m[2]!, a?.[1] ?? null]);
        }
      });
    });
    return { child, url, publicUrl, authenticatorUrl, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
