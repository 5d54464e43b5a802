/**
 * The real `hearth` command (bin/hearth.mjs) as a child process, for the CLI tests: a clean environment (PATH and
 * HOME only, plus what the test gives), output collected as it arrives.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { until } from './wait.ts';

const repo = path.resolve(import.meta.dirname, '../..');

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The exit status (-1 when a signal ended it). */
  done: Promise<number>;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string>;
  /** Written to standard input, which is then closed; without it standard input is /dev/null. */
  input?: string;
}

const testSwitches = (): Record<string, string> =>
  process.env.HEARTH_TEST_PASSWORD_HASHING ? { HEARTH_TEST_PASSWORD_HASHING: process.env.HEARTH_TEST_PASSWORD_HASHING } : {};

/** Starts `hearth <args>` in `cwd` with PATH, HOME and `env`. */
export function startCli(args: string[], opts: CliOptions): CliRun {
  const child = spawn(process.execPath, [path.join(repo, 'bin/hearth.mjs'), ...args], {
    cwd: opts.cwd,
    // and the suite's light password hashing (HEARTH_TEST_PASSWORD_HASHING: core/config/environment.ts), as in-process servers
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...testSwitches(), ...opts.env },
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const done = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : -2))));
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `hearth <args>` to its end. */
export async function runCli(args: string[], opts: CliOptions): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = startCli(args, opts);
  const code = await r.done;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/**
 * Waits until the running command printed a match of `re` on standard error (a code to approve, an address to open),
 * and returns the match; fails with what it printed if it exits first or `ms` pass.
 */
export function printed(r: CliRun, re: RegExp, what: string, ms?: number): Promise<RegExpExecArray> {
  return until(
    () => {
      const m = re.exec(r.stderr());
      if (!m && r.child.exitCode !== null) throw new Error(`hearth exited early (${r.child.exitCode}) before printing ${what}: ${r.stderr()}`);
      return m;
    },
    () => `${what}: ${r.stderr()}`,
    ms,
  );
}
