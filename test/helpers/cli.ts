/**
 * The real `hearth` command (bin/hearth.mjs) as a child process, for the CLI tests: a clean environment (PATH and
 * HOME only, plus what the test gives), output collected as it arrives.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const repo = path.resolve(import.meta.dirname, '../..');

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** The exit status (-1 when a signal ended it). */
  done: Promise<number>;
}

/** Starts `hearth <args>` in `cwd` with PATH, HOME and `env`. */
export function startCli(args: string[], opts: { cwd: string; env?: Record<string, string> }): CliRun {
  const child = spawn(process.execPath, [path.join(repo, 'bin/hearth.mjs'), ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c) => (stdout += c));
  child.stderr!.on('data', (c) => (stderr += c));
  const done = new Promise<number>((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? -1 : -2))));
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `hearth <args>` to its end. */
export async function runCli(args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = startCli(args, opts);
  const code = await r.done;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}
