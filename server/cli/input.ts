/**
 * What commands read from the user besides their flags: standard input, and a JSON object given by exactly one of
 * `--config-file <file>`, `--config <json>` and `--stdin` (a mail profile, the Linux-identity configuration).
 */
import fs from 'node:fs';
import { CliError } from './output.ts';

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** All of standard input; on a terminal, `prompt` first (on standard error). */
export async function readStdin(prompt?: string): Promise<string> {
  if (prompt && process.stdin.isTTY) process.stderr.write(prompt);
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export interface JsonInputOptions {
  configFile?: string;
  config?: string;
  stdin?: boolean;
}

/**
 * The JSON object given by exactly one of `--config-file`, `--config` and `--stdin`. `noun` names it in messages ("the
 * profile"); `order` is how the three flags are listed when none or several are given; `inline` may refuse an inline
 * `--config` text before it is parsed (a password in it). With `secret`, messages never quote the input (JSON.parse's
 * message quotes the text around the error, which may be a password).
 */
export async function readJsonInput(
  opts: JsonInputOptions,
  how: { noun: string; order: readonly ('file' | 'config' | 'stdin')[]; prompt: string; secret?: boolean; inline?: (text: string) => void; shape: string },
): Promise<{ value: Record<string, unknown>; source: string }> {
  const given = [opts.configFile !== undefined && '--config-file', opts.config !== undefined && '--config', opts.stdin && '--stdin'].filter(Boolean);
  if (given.length !== 1) {
    const names = { file: '--config-file', config: '--config', stdin: '--stdin' } as const;
    const full = { file: '--config-file <file>', config: '--config <json>', stdin: '--stdin' } as const;
    const list = (m: Record<string, string>) => `${m[how.order[0]!]}, ${m[how.order[1]!]} or ${m[how.order[2]!]}`;
    throw new CliError(
      given.length === 0
        ? `give ${how.noun} with exactly one of ${list(full)}`
        : `give ${how.noun} with exactly one of ${list(names)} (got ${given.join(' and ')})`,
    );
  }
  let text: string;
  let source: string;
  if (opts.configFile !== undefined) {
    source = opts.configFile;
    try {
      text = fs.readFileSync(opts.configFile, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${opts.configFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } else if (opts.config !== undefined) {
    source = '--config';
    text = opts.config;
    how.inline?.(text);
  } else {
    source = 'standard input';
    text = await readStdin(how.prompt);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(how.secret ? `${source} is not valid JSON` : `${source} is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(value)) throw new CliError(`${source} must hold a JSON object ${how.shape}`);
  return { value, source };
}
