/**
 * Runs the Hearth server as a supervised child process and expects it to fail. Plain module (no Electron): the
 * desktop app passes a fork function built on `utilityProcess.fork` (electron/utility-fork.ts), the tests one built
 * on `child_process.fork` (electron/node-fork.ts); both run the real server entry, `server/entry/utility.ts`,
 * speaking `server/entry/protocol.ts`.
 *
 * - Start: fork, send `start` with the settings, wait for `ready` (the URL) within `readyTimeoutMs`. A server that
 *   reports `start-failed` (bad settings, address in use, a newer data folder) is not restarted: the same error
 *   would come back. The state says why, for the error page.
 * - Crash (any exit the supervisor did not ask for, or no `ready` in time): restart after the policy's backoff;
 *   after too many crashes in a row, give up and report `failed`.
 * - Stop: send `shutdown`; the server finishes requests in flight and closes its databases. Past `stopTimeoutMs`
 *   the process is killed.
 * - Requests (`rebind`, `issueLoginToken`) go to the running server and fail fast when there is none.
 */
import type { LoginToken, ParentMessage, ReadyInfo, RebindResult, ServerMessage, StartSettings } from '../server/entry/protocol.ts';
import { parseServerMessage } from '../server/entry/protocol.ts';
import { RestartPolicy } from './restart-policy.ts';

/** One server process, whatever started it. */
export interface ServerProcess {
  readonly pid: number | undefined;
  /** Sends a message; a message to a process that has gone is dropped. */
  send(msg: ParentMessage): void;
  onMessage(fn: (msg: unknown) => void): void;
  onExit(fn: (code: number | null, signal: string | null) => void): void;
  /** Ends the process at once (SIGKILL where the platform has it). */
  kill(): void;
}

export type ForkServer = () => ServerProcess;

export type SupervisorState =
  | { phase: 'idle' }
  | { phase: 'starting'; restarts: number }
  | ({ phase: 'running' } & ReadyInfo)
  | { phase: 'restarting'; crashes: number; delayMs: number; reason: string }
  | { phase: 'failed'; message: string; crashes: number }
  | { phase: 'stopping' }
  | { phase: 'stopped'; graceful: boolean };

export interface SupervisorOptions {
  fork: ForkServer;
  /** The settings for each start (read again at every restart, so a changed address survives a crash). */
  settings: () => StartSettings;
  policy?: RestartPolicy;
  /** A server that has not said `ready` after this long is killed and counted as a crash (default 60 s). */
  readyTimeoutMs?: number;
  /** How long a graceful stop may take before the process is killed (default 15 s). */
  stopTimeoutMs?: number;
  /** How long a request (rebind, sign-in token) may wait for its answer (default 15 s). */
  requestTimeoutMs?: number;
  /** The timers every wait above runs on (default: Node's); tests record or drive them. */
  timers?: SupervisorTimers;
}

/** A clock to schedule on: `setTimeout` answers a handle that `clearTimeout` cancels. */
export interface SupervisorTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const nodeTimers: SupervisorTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface StopResult {
  /** The server stopped by itself within the limit, with exit code 0. */
  graceful: boolean;
  code: number | null;
  signal: string | null;
}

interface Run {
  proc: ServerProcess;
  ready: ReadyInfo | null;
  startFailure: string | null;
  readyTimedOut: boolean;
  readyTimer: unknown;
  pending: Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: unknown }>;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

export class ServerSupervisor {
  private readonly fork: ForkServer;
  private readonly settings: () => StartSettings;
  readonly policy: RestartPolicy;
  private readonly readyTimeoutMs: number;
  private readonly stopTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private readonly timers: SupervisorTimers;
  private run: Run | null = null;
  private restartTimer: unknown = null;
  private stopping: Promise<StopResult> | null = null;
  private restarts = 0;
  private seq = 0;
  private current: SupervisorState = { phase: 'idle' };
  private readonly listeners = new Set<(state: SupervisorState) => void>();
  /** Process ids of every server this supervisor started (tests use them to check nothing is left behind). */
  readonly pids: number[] = [];

  constructor(opts: SupervisorOptions) {
    this.fork = opts.fork;
    this.settings = opts.settings;
    this.policy = opts.policy ?? new RestartPolicy();
    this.readyTimeoutMs = opts.readyTimeoutMs ?? 60_000;
    this.stopTimeoutMs = opts.stopTimeoutMs ?? 15_000;
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 15_000;
    this.timers = opts.timers ?? nodeTimers;
  }

  /** Resolves with null after `ms` (a wait that does not keep the process alive on Node's timers). */
  private sleep(ms: number): Promise<null> {
    return new Promise<null>((resolve) => (this.timers.setTimeout(() => resolve(null), ms) as { unref?: () => void } | null)?.unref?.());
  }

  get state(): SupervisorState {
    return this.current;
  }

  /** The running server's process id, if there is one. */
  get pid(): number | undefined {
    return this.run?.proc.pid;
  }

  /** Calls `fn` at every change of state; returns a function that stops it. */
  onState(fn: (state: SupervisorState) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Starts the server (if it is not running or starting) and resolves once it is ready. */
  start(): Promise<ReadyInfo> {
    const phase = this.current.phase;
    if (phase === 'stopping') return Promise.reject(new Error('the server is stopping'));
    if (phase === 'idle' || phase === 'stopped' || phase === 'failed') {
      this.stopping = null;
      this.restarts = 0;
      this.spawn();
    }
    return this.whenRunning();
  }

  /** After a failure: forgets earlier crashes and starts again. */
  retry(): Promise<ReadyInfo> {
    this.policy.reset();
    return this.start();
  }

  /** Resolves when the server is next (or already) running; rejects if it fails or is stopped first. */
  whenRunning(): Promise<ReadyInfo> {
    return new Promise((resolve, reject) => {
      const check = (s: SupervisorState): boolean => {
        if (s.phase === 'running') resolve(readyInfo(s));
        else if (s.phase === 'failed') reject(new Error(s.message));
        else if (s.phase === 'stopped' || s.phase === 'stopping' || s.phase === 'idle') reject(new Error('the server was stopped'));
        else return false;
        return true;
      };
      if (check(this.current)) return;
      const off = this.onState((s) => {
        if (check(s)) off();
      });
    });
  }

  /** Moves the server's listener (LAN sharing on or off). Resolves with the new address. */
  async rebind(host: string, port: number, tls?: 'off' | 'internal'): Promise<RebindResult> {
    const result = (await this.request({ type: 'rebind', id: 0, host, port, ...(tls ? { tls } : {}) })) as RebindResult;
    const run = this.run;
    if (run?.ready) {
      run.ready = { ...run.ready, url: result.url, publicUrl: result.publicUrl, caFingerprint: result.caFingerprint, host: result.host, port: result.port };
      this.setState({ phase: 'running', ...run.ready });
    }
    return result;
  }

  /** A fresh short-lived admin API token for the desktop window; the previous one stops working. */
  async issueLoginToken(ttlMs?: number): Promise<LoginToken> {
    return (await this.request({ type: 'issue-login-token', id: 0, ...(ttlMs !== undefined ? { ttlMs } : {}) })) as LoginToken;
  }

  /** Asks the server to shut down gracefully; kills it past the time limit. Never restarts it. */
  stop(): Promise<StopResult> {
    this.stopping ??= (async (): Promise<StopResult> => {
      if (this.restartTimer !== null) this.timers.clearTimeout(this.restartTimer);
      this.restartTimer = null;
      const run = this.run;
      this.setState({ phase: 'stopping' });
      if (!run) {
        this.setState({ phase: 'stopped', graceful: true });
        return { graceful: true, code: null, signal: null };
      }
      run.proc.send({ type: 'shutdown' });
      let exit = await Promise.race([run.exited, this.sleep(this.stopTimeoutMs)]);
      let graceful = exit !== null && exit.code === 0;
      if (exit === null) {
        run.proc.kill();
        exit = (await Promise.race([run.exited, this.sleep(5_000)])) ?? { code: null, signal: null };
        graceful = false;
      }
      this.setState({ phase: 'stopped', graceful });
      return { graceful, ...exit };
    })();
    return this.stopping;
  }

  private setState(state: SupervisorState): void {
    this.current = state;
    for (const fn of [...this.listeners]) {
      try {
        fn(state);
      } catch {
        // a listener's problem is not the supervisor's
      }
    }
  }

  private spawn(): void {
    this.restartTimer = null;
    let markExited!: (v: { code: number | null; signal: string | null }) => void;
    const proc = this.fork();
    const run: Run = {
      proc,
      ready: null,
      startFailure: null,
      readyTimedOut: false,
      readyTimer: null,
      pending: new Map(),
      exited: new Promise((resolve) => (markExited = resolve)),
    };
    this.run = run;
    if (proc.pid !== undefined) this.pids.push(proc.pid);
    this.setState({ phase: 'starting', restarts: this.restarts });
    run.readyTimer = this.timers.setTimeout(() => {
      run.readyTimedOut = true;
      proc.kill();
    }, this.readyTimeoutMs);
    proc.onMessage((raw) => this.onMessage(run, raw));
    let gone = false;
    proc.onExit((code, signal) => {
      if (gone) return;
      gone = true;
      markExited({ code, signal });
      this.onExit(run, code, signal);
    });
    proc.send({ type: 'start', settings: this.settings() });
  }

  private onMessage(run: Run, raw: unknown): void {
    const msg: ServerMessage | null = parseServerMessage(raw);
    if (!msg) return;
    switch (msg.type) {
      case 'ready': {
        if (run.readyTimer !== null) this.timers.clearTimeout(run.readyTimer);
        run.readyTimer = null;
        const { type: _type, ...info } = msg;
        run.ready = info;
        if (!this.pids.includes(info.pid)) this.pids.push(info.pid);
        if (this.run === run && !this.stopping) this.setState({ phase: 'running', ...info });
        return;
      }
      case 'start-failed':
        run.startFailure = msg.message;
        return;
      case 'reply': {
        const p = run.pending.get(msg.id);
        if (!p) return;
        run.pending.delete(msg.id);
        this.timers.clearTimeout(p.timer);
        if (msg.ok) p.resolve(msg.result);
        else p.reject(new Error(msg.message));
        return;
      }
      case 'stopped':
        return;
    }
  }

  private onExit(run: Run, code: number | null, signal: string | null): void {
    if (run.readyTimer !== null) this.timers.clearTimeout(run.readyTimer);
    for (const [, p] of run.pending) {
      this.timers.clearTimeout(p.timer);
      p.reject(new Error('the server stopped before answering'));
    }
    run.pending.clear();
    if (this.run !== run) return;
    this.run = null;
    if (this.stopping) return; // stop() reports
    if (run.startFailure !== null) {
      this.setState({ phase: 'failed', message: run.startFailure, crashes: 0 });
      return;
    }
    const reason = run.readyTimedOut
      ? `the server did not become ready within ${this.readyTimeoutMs} ms`
      : signal
        ? `the server was killed by ${signal}`
        : `the server exited with code ${code}`;
    const decision = this.policy.crashed();
    if (!decision.restart) {
      this.setState({
        phase: 'failed',
        message: `The server stopped unexpectedly ${decision.crashes} times in a row; the last time ${reason}.`,
        crashes: decision.crashes,
      });
      return;
    }
    this.restarts++;
    this.setState({ phase: 'restarting', crashes: decision.crashes, delayMs: decision.delayMs, reason });
    this.restartTimer = this.timers.setTimeout(() => this.spawn(), decision.delayMs);
  }

  private request(msg: Extract<ParentMessage, { id: number }>): Promise<unknown> {
    const run = this.run;
    if (!run?.ready || this.stopping) return Promise.reject(new Error('the server is not running'));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = this.timers.setTimeout(() => {
        run.pending.delete(id);
        reject(new Error(`the server did not answer within ${this.requestTimeoutMs} ms`));
      }, this.requestTimeoutMs);
      run.pending.set(id, { resolve, reject, timer });
      run.proc.send({ ...msg, id });
    });
  }
}

function readyInfo(s: Extract<SupervisorState, { phase: 'running' }>): ReadyInfo {
  const { phase: _phase, ...info } = s;
  return info;
}

/**
 * The server's environment: an allow-list of the parent's variables (locale, paths, time zone), never the
 * parent's secrets or HEARTH_* settings (the supervisor passes those in the `start` message).
 */
export function serverEnvironment(env: NodeJS.ProcessEnv, extra: Record<string, string> = {}): Record<string, string> {
  const allowed =
    /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|TMP|TEMP|SystemRoot|SYSTEMROOT|windir|APPDATA|LOCALAPPDATA|USERPROFILE|XDG_[A-Z_]+)$/;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && allowed.test(k)) out[k] = v;
  return { ...out, ...extra };
}
