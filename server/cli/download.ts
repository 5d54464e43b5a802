/**
 * Files the CLI receives from a running server (a namespace's export, a backup): streamed into `<out>.part-<random>`
 * and renamed when complete, so `out` is whole or absent; a byte progress bar on standard error when it is a
 * terminal. `-` writes to standard output instead.
 */
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { HttpAnswer } from './http.ts';
import { CliError, formatBytes } from './output.ts';

/** cli-progress, loaded when a bar is drawn (a terminal), not by every command that could draw one. */
export async function loadProgress() {
  return (await import('cli-progress')).default;
}

/** A byte progress bar on standard error: `label [███░░] 42% | 1.2 MiB / 3.0 MiB | 2s left`. */
export async function progressBar(label: string, total: number) {
  const cliProgress = await loadProgress();
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {done} / {size} | {eta_formatted} left`, stream: process.stderr, hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { done: formatBytes(0), size: formatBytes(total) });
  let done = 0;
  return {
    add(n: number) {
      done += n;
      bar.update(done, { done: formatBytes(done) });
    },
    stop: () => bar.stop(),
  };
}

/** Writes a response's body to `out` (see the header); `what` names it in the failure ("export", "download"); `mode` before the umask. */
export async function saveBody(res: HttpAnswer, out: string, opts: { what: string; quiet?: boolean; mode?: number }): Promise<void> {
  const total = Number(res.header('content-length') ?? 0);
  const toStdout = out === '-';
  const tmp = toStdout ? '' : `${out}.part-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`;
  const bar = !opts.quiet && process.stderr.isTTY ? await progressBar(opts.what, total) : null;
  const body = res.body;
  body.on('data', (c: Buffer) => bar?.add(c.length));
  try {
    await pipeline(body, toStdout ? process.stdout : fs.createWriteStream(tmp, { mode: opts.mode ?? 0o666 }));
    if (!toStdout) fs.renameSync(tmp, out);
  } catch (err) {
    if (!toStdout) fs.rmSync(tmp, { force: true });
    throw new CliError(`${opts.what} failed: ${(err as Error).message}`);
  } finally {
    bar?.stop();
  }
}
