import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import type { NamespaceRecord } from '../../db/contract.ts';
import { type ClientOptions, HearthClient, serverOptions } from '../client.ts';
import { progressBar, saveBody } from '../download.ts';
import { CliError, formatBytes, printJson, printTable } from '../output.ts';

type Opts = ClientOptions & { json?: boolean };

const row = (n: NamespaceRecord) => ({
  name: n.name,
  size: formatBytes(n.storage?.size_bytes),
  journal: n.config.journal_mode,
  quota: n.config.max_db_size === null ? '-' : formatBytes(n.config.max_db_size),
  read_only: n.config.read_only ? 'yes' : 'no',
  created_at: n.created_at,
  last_activity_at: n.last_activity_at,
});
const COLUMNS = ['name', 'size', 'journal', 'quota', 'read_only', 'created_at', 'last_activity_at'];

/** Parses `key=value` pairs of `--set` into a configuration, coercing numbers, booleans and null. */
function applySets(config: Record<string, unknown>, sets: string[]): Record<string, unknown> {
  const out = { ...config };
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq < 1) throw new CliError(`--set takes key=value (got ${JSON.stringify(s)})`);
    const key = s.slice(0, eq);
    const raw = s.slice(eq + 1);
    out[key] = raw === 'null' || raw === 'none' ? null : raw === 'true' ? true : raw === 'false' ? false : /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  return out;
}

/** Checks a configuration against the server's schema before sending it (zod is loaded for `ns config` only). */
async function parseConfig(value: Record<string, unknown>) {
  const { NamespaceConfig } = await import('../../db/contract.ts');
  const parsed = NamespaceConfig.safeParse(value);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new CliError(`config ${i.path.join('.') || ''}: ${i.code === 'unrecognized_keys' ? `unknown setting ${i.keys.join(', ')}` : i.message}`);
  }
  return parsed.data;
}

export function registerNamespaces(ns: Command): void {
  const enc = encodeURIComponent;

  serverOptions(ns.command('list'))
    .description('list namespaces')
    .option('--limit <n>', 'page size when fetching (1–500)', '500')
    .option('--json', 'print JSON')
    .action(async (opts: Opts & { limit: string }) => {
      const client = new HearthClient(opts);
      const all: NamespaceRecord[] = [];
      let cursor: string | null = null;
      do {
        const q = new URLSearchParams({ limit: opts.limit });
        if (cursor) q.set('cursor', cursor);
        const page: { data: NamespaceRecord[]; next_cursor: string | null } = await client.json('GET', `/v1/namespaces?${q}`);
        all.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      if (opts.json) printJson(all);
      else printTable(all.map(row), COLUMNS);
    });

  serverOptions(ns.command('create <name>'))
    .description('create a namespace')
    .option('--set <key=value...>', 'configuration settings, e.g. --set synchronous=normal max_db_size=1048576')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts & { set?: string[] }) => {
      const client = new HearthClient(opts);
      const body: Record<string, unknown> = { name };
      if (opts.set?.length) body.config = await parseConfig(applySets({}, opts.set));
      const rec = await client.json<NamespaceRecord>('POST', '/v1/namespaces', body);
      if (opts.json) printJson(rec);
      else process.stdout.write(`Created namespace ${rec.name}.\n`);
    });

  serverOptions(ns.command('get <name>'))
    .description('show a namespace')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts) => {
      const rec = await new HearthClient(opts).json<NamespaceRecord>('GET', `/v1/namespaces/${enc(name)}`);
      if (opts.json) printJson(rec);
      else {
        printTable([row(rec)], COLUMNS);
        process.stdout.write(
          `\nconfig:\n${Object.entries(rec.config)
            .map(([k, v]) => `  ${k} = ${v}`)
            .join('\n')}\n`,
        );
      }
    });

  serverOptions(ns.command('config <name>'))
    .description('show the configuration, or replace it with --set/--file (settings not given keep their current value)')
    .option('--set <key=value...>', 'settings to change')
    .option('--file <config.json>', 'a JSON file with the whole configuration')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts & { set?: string[]; file?: string }) => {
      const client = new HearthClient(opts);
      let rec = await client.json<NamespaceRecord>('GET', `/v1/namespaces/${enc(name)}`);
      if (opts.set?.length || opts.file) {
        let config: Record<string, unknown> = rec.config;
        if (opts.file) {
          try {
            config = JSON.parse(fs.readFileSync(opts.file, 'utf8')) as Record<string, unknown>;
          } catch (err) {
            throw new CliError(`cannot read ${opts.file}: ${(err as Error).message}`);
          }
        }
        config = await parseConfig(applySets(config, opts.set ?? []));
        rec = await client.json<NamespaceRecord>('PUT', `/v1/namespaces/${enc(name)}`, { config });
      }
      if (opts.json) printJson(rec.config);
      else
        process.stdout.write(
          `${Object.entries(rec.config)
            .map(([k, v]) => `${k} = ${v}`)
            .join('\n')}\n`,
        );
    });

  serverOptions(ns.command('delete <name>'))
    .description('delete a namespace and its data')
    .option('--yes', 'do not ask for confirmation')
    .action(async (name: string, opts: Opts & { yes?: boolean }) => {
      if (!opts.yes) {
        if (!process.stdin.isTTY) throw new CliError(`refusing to delete ${name} without --yes`);
        const answer = await ask(`Delete namespace ${name} and all its data? Type its name to confirm: `);
        if (answer.trim() !== name) throw new CliError('not deleted');
      }
      await new HearthClient(opts).json('DELETE', `/v1/namespaces/${enc(name)}`);
      process.stdout.write(`Deleted namespace ${name}.\n`);
    });

  serverOptions(ns.command('duplicate <name> <newName>'))
    .description('copy a namespace into a new one')
    .option('--json', 'print JSON')
    .action(async (name: string, newName: string, opts: Opts) => {
      const rec = await new HearthClient(opts).json<NamespaceRecord>('POST', `/v1/namespaces/${enc(name)}/duplicate`, { name: newName });
      if (opts.json) printJson(rec);
      else process.stdout.write(`Duplicated ${name} into ${rec.name}.\n`);
    });

  serverOptions(ns.command('export <name>'))
    .description('download the database file')
    .option('-o, --output <file>', 'where to write it (default <name>.db; - for stdout)')
    .option('--quiet', 'no progress bar')
    .action(async (name: string, opts: Opts & { output?: string; quiet?: boolean }) => {
      const res = await new HearthClient(opts).request('GET', `/v1/namespaces/${enc(name)}/export`);
      const out = opts.output ?? `${name}.db`;
      await saveBody(res, out, { what: 'export', quiet: opts.quiet });
      if (out !== '-') process.stderr.write(`Exported ${name} to ${out} (${formatBytes(fs.statSync(out).size)}).\n`);
    });

  serverOptions(ns.command('import <name> <file>'))
    .description('replace the database of a namespace with a SQLite file')
    .option('--quiet', 'no progress bar')
    .option('--json', 'print JSON')
    .action(async (name: string, file: string, opts: Opts & { quiet?: boolean }) => {
      let size: number;
      try {
        size = fs.statSync(file).size;
      } catch (err) {
        throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
      }
      const boundary = `----hearth${process.getBuiltinModule('node:crypto').randomBytes(12).toString('hex')}`;
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${path.basename(file).replace(/"/g, '')}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      );
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const bar = !opts.quiet && process.stderr.isTTY ? await progressBar('import', size) : null;
      const body = Readable.from(
        (async function* () {
          yield head;
          for await (const chunk of fs.createReadStream(file)) {
            bar?.add((chunk as Buffer).length);
            yield chunk as Buffer;
          }
          yield tail;
        })(),
      );
      let rec: NamespaceRecord;
      try {
        const res = await new HearthClient(opts).request('POST', `/v1/namespaces/${enc(name)}/import`, {
          body,
          length: head.length + size + tail.length,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
        rec = (await res.json()) as NamespaceRecord;
      } finally {
        bar?.stop();
      }
      if (opts.json) printJson(rec);
      else process.stdout.write(`Imported ${file} into ${name} (${formatBytes(rec.storage?.size_bytes)}).\n`);
    });
}

async function ask(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
