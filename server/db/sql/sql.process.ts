/**
 * One query process as the pool (`sql.pool.ts`) holds it: the child (`sql.child.ts`) forked with an allow-listed
 * environment at nice 5, the watchdog's word on fd 4 that it passed its memory limit, its scheduling priority (lowered
 * for a long job, given back after), and how it is stopped. What runs on it, when and for how long is the pool's.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { inherit } from '../../core/config/environment.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { forkChild } from '../../core/runtime.ts';
import { ADDON_ENV } from '../../core/storage/sqlite.ts';
import type { ChildMessage, ParentMessage } from './sql.protocol.ts';

/** Nice value of every query process: the server's own event loop (nice 0) comes before tenant reads. */
const BASE_PRIORITY = 5;
/** Nice value of a process whose job has run longer than the pool's `demoteAfterMs`. */
const DEMOTED_PRIORITY = 15;

/** The child's environment: an allow-list (no tokens or secrets), where SQLite puts temporary files, Electron as Node. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ELECTRON_RUN_AS_NODE: '1' };
  return { ...env, ...inherit(['PATH', 'TMPDIR', 'TMP', 'TEMP', 'SQLITE_TMPDIR', 'SystemRoot', ADDON_ENV]) };
}

/** Sets a process's nice value; false when the system does not allow it. */
function setPriority(pid: number, priority: number): boolean {
  try {
    os.setPriority(pid, priority);
    return true;
  } catch {
    return false;
  }
}

export interface QueryProcessEvents {
  /** A message from the child (`ready` has already set `ready`). */
  message(msg: ChildMessage): void;
  /** The process is gone, its fd 4 read to the end; called once. */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

export class QueryProcess {
  private readonly proc: ChildProcess;
  /** The child said it is ready for jobs. */
  ready = false;
  /** Set when the pool stops the process on purpose (timeout, abort, idle, close): its exit is expected. */
  retiring = false;
  /** The process said it passed its memory limit (fd 4) before it killed itself. */
  overMemory = false;
  /** Running at DEMOTED_PRIORITY. */
  demoted = false;
  /** Settles when the process is gone. */
  readonly exited: Promise<void>;

  constructor(childUrl: URL, log: Logger, on: QueryProcessEvents) {
    const proc = forkChild('sql-child', childUrl, [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc', 'pipe'],
      env: childEnv(),
    });
    this.proc = proc;
    if (proc.pid !== undefined) setPriority(proc.pid, BASE_PRIORITY);
    let markExited!: () => void;
    this.exited = new Promise<void>((r) => (markExited = r));
    let gone = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (gone) return;
      gone = true;
      markExited();
      on.exit(code, signal);
    };
    // fd 4: the watchdog's word before it kills the process for memory.
    proc.stdio[4]?.on('data', (d: Buffer) => {
      if (d.toString().includes('memory')) this.overMemory = true;
    });
    proc.stdio[4]?.on('error', () => {});
    proc.on('message', (raw) => {
      const msg = raw as ChildMessage;
      if (msg.type === 'ready') this.ready = true;
      on.message(msg);
    });
    proc.on('error', (err) => {
      log.warn({ err }, 'query process error');
      if (proc.pid === undefined) finish(null, null); // it never started: no 'close' will follow
    });
    // 'close' (not 'exit'): it comes after fd 4 has been read to its end.
    proc.once('close', finish);
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Sends a message; `failed` hears when it could not be delivered. */
  send(msg: ParentMessage, failed: (err: Error) => void): void {
    this.proc.send(msg, (err) => {
      if (err) failed(err);
    });
  }

  /** A long job yields the processor to the server and to short jobs; true when the priority was lowered now. */
  demote(): boolean {
    if (this.demoted || this.proc.pid === undefined || !setPriority(this.proc.pid, DEMOTED_PRIORITY)) return false;
    this.demoted = true;
    return true;
  }

  /** Gives a demoted process its priority back; false when the system does not allow it (retire it instead). */
  restorePriority(): boolean {
    if (!this.demoted) return true;
    this.demoted = !setPriority(this.proc.pid!, BASE_PRIORITY);
    return !this.demoted;
  }

  /** Stops the process on purpose. `kill`: at once (SIGKILL); otherwise close its IPC channel so it exits by itself. */
  stop(kill: boolean): void {
    this.retiring = true;
    if (kill) this.proc.kill('SIGKILL');
    else if (this.proc.connected) this.proc.disconnect();
    else this.proc.kill('SIGKILL');
  }
}
