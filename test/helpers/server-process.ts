import { type ChildProcess, fork } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { StartOptions } from '../../server/boot.ts';
import { apiFetch, type TestStoreOption, tempDir, testDatabaseUrl } from './server.ts';

export interface ServerProcess {
  url: string;
  token: string;
  dataDir: string;
  proc: ChildProcess;
  /** fetch relative to the server with the admin token unless another token (or null) is given. */
  api(pathname: string, init?: RequestInit & { json?: unknown; token?: string | null }): Promise<Response>;
  /** Stops the server (SIGKILL if it does not stop within 10 s) and removes its data folder. */
  stop(): Promise<void>;
}

export interface ProcessOptions {
  /**
   * A command the child's node is started through: `[command, ...args]`, then node, its flags and server-child.ts.
   * The command must end by running its arguments with the inherited file descriptors (the IPC channel is fd 3), e.g.
   * `['unshare', '-rm', 'sh', '-c', 'mount -t tmpfs -o size=8m tmpfs "$0" && exec "$@"', dir]` (a small disk).
   */
  wrap?: string[];
}

/**
 * Starts the real server in a child process on 127.0.0.1, port 0, with its own temporary data folder (see
 * server-child.ts). Options must be plain data (they cross the IPC channel).
 */
export async function startServerProcess(
  { store, ...opts }: Omit<StartOptions, 'logDestination'> & TestStoreOption = {},
  how: ProcessOptions = {},
): Promise<ServerProcess> {
  const dataDir = (opts.dataDir as string | undefined) ?? tempDir();
  const token = (opts.adminToken as string | undefined) ?? `test-admin-${crypto.randomBytes(16).toString('hex')}`;
  const wrap = how.wrap?.length ? { execPath: how.wrap[0], execArgv: [...how.wrap.slice(1), process.execPath, ...process.execArgv] } : {};
  const proc = fork(new URL('./server-child.ts', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], ...wrap });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    proc.once('exit', (code, signal) => reject(new Error(`the server process exited before it was ready (${signal ?? code})`)));
    proc.on('message', (m: { type: string; url?: string; message?: string }) => {
      if (m.type === 'ready') resolve(m.url!);
      else if (m.type === 'error') reject(new Error(m.message));
    });
    void (async () => {
      const databaseUrl = opts.databaseUrl ?? (await testDatabaseUrl(store));
      proc.send({ type: 'start', ...opts, dataDir, adminToken: token, databaseUrl });
    })().catch(reject);
  });
  return {
    url,
    token,
    dataDir,
    proc,
    api: apiFetch(url, token),
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.send({ type: 'stop' });
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
