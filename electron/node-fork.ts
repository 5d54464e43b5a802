/**
 * A `ForkServer` built on `child_process.fork`: the server entry as a Node child speaking the supervisor protocol
 * over IPC. Used by the tests (and usable to run the supervisor without Electron). Plain module (no Electron).
 */
import { fork, type StdioOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ForkServer, ServerProcess } from './server-supervisor.ts';

/** The server entry when running from source. */
export const SOURCE_ENTRY = fileURLToPath(new URL('../server/entry/utility.ts', import.meta.url));

export interface NodeForkOptions {
  /** The entry to run (default: server/entry/utility.ts). */
  entry?: string;
  /** Extra arguments for the entry (e.g. `--log-level silent`). */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** stdout and stderr of the server (default: inherited). */
  stdio?: 'inherit' | 'ignore' | 'pipe';
  /** Called with each started child (tests watch its output). */
  onSpawn?: (child: import('node:child_process').ChildProcess) => void;
}

export function nodeForkServer(opts: NodeForkOptions = {}): ForkServer {
  return (): ServerProcess => {
    const out = opts.stdio ?? 'inherit';
    const stdio: StdioOptions = ['ignore', out, out, 'ipc'];
    const child = fork(opts.entry ?? SOURCE_ENTRY, opts.args ?? [], { execArgv: [], env: opts.env ?? process.env, stdio });
    opts.onSpawn?.(child);
    return {
      get pid() {
        return child.pid;
      },
      send(msg) {
        if (!child.connected) return;
        child.send(msg, (err) => {
          // The process went away between the check and the write: its exit is reported separately.
          void err;
        });
      },
      onMessage(fn) {
        child.on('message', fn);
      },
      onExit(fn) {
        child.once('exit', (code, signal) => fn(code, signal));
        // A child that could not be started at all emits 'error' and never 'exit'.
        child.once('error', () => {
          if (child.pid === undefined) fn(null, null);
        });
      },
      kill() {
        child.kill('SIGKILL');
      },
    };
  };
}
