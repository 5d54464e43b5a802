import type { Command } from 'commander';
import { type ClientOptions, HearthClient, serverOptions } from '../client.ts';
import { isObject, type JsonInputOptions, readJsonInput } from '../input.ts';
import { CliError, printFields, printJson, printJsonLines, printTable } from '../output.ts';

/**
 * `hearth admin linux config get|set` and `hearth admin linux preview`: the Linux identity API
 * (`/api/admin/core/linux-identities`, docs/api/linux-identities.md) of a running server.
 *
 * The per-account and per-group commands (`hearth accounts users linux …`, `hearth accounts groups make-posix`) live
 * with the other accounts commands and use the helpers exported here. Nothing here backfills in bulk: every
 * identity is assigned by a command naming one account.
 */

export const LINUX_BASE = '/api/admin/core/linux-identities';
const enc = encodeURIComponent;

export interface LinuxConfig {
  enabled: boolean;
  rangeStart: number | null;
  rangeEnd: number | null;
  homeTemplate: string;
  loginShell: string;
}
export interface LinuxIdentity {
  username: string;
  uid: number;
  gid: number;
  primaryGroup: string;
  homeDirectory: string;
  loginShell: string;
}
export interface LinuxAccount {
  sub: string;
  login: string;
  profile: 'user' | 'guest';
  disabled: boolean;
  eligible: boolean;
  identity: LinuxIdentity | null;
  conflicts: string[];
  created?: boolean;
}
export interface PosixGroup {
  id: string;
  name: string;
  gid: number;
  created: boolean;
}
interface PreviewPage {
  config: LinuxConfig;
  configValid: boolean;
  accounts: LinuxAccount[];
  nextCursor: string | null;
}

export type OutputOpts = { json?: boolean; jsonl?: boolean };
type Opts = ClientOptions & OutputOpts;

const CONFIG_FIELDS = ['enabled', 'rangeStart', 'rangeEnd', 'homeTemplate', 'loginShell'] as const;

/** `--json` and `--jsonl` for commands that print one record. */
export const outputOptions = (c: Command) => c.option('--json', 'print JSON').option('--jsonl', 'print JSON on one line');

export function checkOutput(opts: OutputOpts): void {
  if (opts.json && opts.jsonl) throw new CliError('choose one of --json or --jsonl');
}

/** Prints one record as JSON (`--json`), one JSON line (`--jsonl`), or for people. */
export function emit(opts: OutputOpts, value: unknown, human: () => void): void {
  checkOutput(opts);
  if (opts.json) printJson(value);
  else if (opts.jsonl) printJsonLines([value]);
  else human();
}

/** Changes need `--yes` (there is nothing to type back, unlike deleting by name). */
export function requireYes(yes: boolean | undefined, what: string): void {
  if (!yes) throw new CliError(`refusing to ${what} without --yes (it changes the server's data)`);
}

const conflictCodes = (a: LinuxAccount) => a.conflicts.map((c) => c.split(':')[0]!);

/** The fields of one account's identity state, for `hearth accounts users linux get|prepare|update`. */
export function printLinuxAccount(a: LinuxAccount): void {
  const i = a.identity;
  printFields([
    ['login', a.login],
    ['sub', a.sub],
    ['profile', a.profile],
    ['eligible', a.eligible ? 'yes' : 'no (guests get no Linux identity)'],
    ['identity', i ? 'assigned' : 'none'],
    ['username', i?.username],
    ['uid', i?.uid],
    ['gid', i?.gid],
    ['primary group', i?.primaryGroup],
    ['home', i?.homeDirectory],
    ['shell', i?.loginShell],
    ['conflicts', a.conflicts.length ? a.conflicts.join('; ') : 'none'],
  ]);
}

export async function linuxAccount(client: HearthClient, sub: string): Promise<LinuxAccount> {
  return client.json<LinuxAccount>('GET', `${LINUX_BASE}/users/${enc(sub)}`);
}
export async function prepareLinuxAccount(client: HearthClient, sub: string): Promise<LinuxAccount> {
  return client.json<LinuxAccount>('POST', `${LINUX_BASE}/users/${enc(sub)}`);
}
export async function updateLinuxAccount(client: HearthClient, sub: string, homeDirectory: string, loginShell: string): Promise<LinuxAccount> {
  return client.json<LinuxAccount>('PATCH', `${LINUX_BASE}/users/${enc(sub)}`, { homeDirectory, loginShell });
}
export async function makePosix(client: HearthClient, groupId: string): Promise<PosixGroup> {
  return client.json<PosixGroup>('POST', `${LINUX_BASE}/groups/${enc(groupId)}`);
}

const range = (c: LinuxConfig) => (c.rangeStart === null || c.rangeEnd === null ? 'none' : `${c.rangeStart}–${c.rangeEnd}`);

function printConfig(c: LinuxConfig, valid?: boolean): void {
  const fields: Array<[string, unknown]> = [
    ['enabled', c.enabled ? 'yes' : 'no'],
    ['range', range(c)],
    ['home template', c.homeTemplate],
    ['login shell', c.loginShell],
  ];
  if (valid !== undefined)
    fields.push(['valid', valid ? 'yes' : 'no (the stored value is unreadable: assignment is off until a valid configuration is saved)']);
  printFields(fields);
}

/**
 * The new configuration from exactly one of `--config-file`, `--config` and `--stdin`. The value is the whole
 * configuration (all five fields); the `{config, configValid}` printed by `config get --json` is accepted too.
 */
async function readConfigInput(opts: JsonInputOptions): Promise<Record<string, unknown>> {
  const input = await readJsonInput(opts, {
    noun: 'the new configuration',
    order: ['file', 'config', 'stdin'],
    prompt: 'Configuration JSON (then Ctrl-D): ',
    shape: `{${CONFIG_FIELDS.join(', ')}}`,
  });
  const source = input.source;
  let value = input.value;
  // the output of `hearth admin linux config get --json`
  if (isObject(value.config) && Object.keys(value).every((k) => k === 'config' || k === 'configValid')) value = value.config;
  const config = value as Record<string, unknown>;
  const missing = CONFIG_FIELDS.filter((f) => !(f in config));
  if (missing.length) {
    throw new CliError(
      `the configuration is replaced as a whole: ${source} lacks ${missing.join(', ')} (give all of ${CONFIG_FIELDS.join(', ')}; unset a range with null)`,
    );
  }
  const unknown = Object.keys(config).filter((k) => !(CONFIG_FIELDS as readonly string[]).includes(k));
  if (unknown.length)
    throw new CliError(
      `unknown configuration field${unknown.length > 1 ? 's' : ''} in ${source}: ${unknown.join(', ')} (the fields are ${CONFIG_FIELDS.join(', ')})`,
    );
  return config;
}

const PREVIEW_COLUMNS = ['login', 'profile', 'eligible', 'uid', 'gid', 'home', 'shell', 'conflicts'];
const previewRow = (a: LinuxAccount) => ({
  login: a.login,
  profile: a.disabled ? `${a.profile} (disabled)` : a.profile,
  eligible: a.eligible ? 'yes' : 'no',
  uid: a.identity?.uid,
  gid: a.identity?.gid,
  home: a.identity?.homeDirectory,
  shell: a.identity?.loginShell,
  conflicts: a.conflicts.length ? conflictCodes(a) : null,
});

/** Registers `hearth admin linux …` under `admin` (mail.ts registers `admin outgoing-mail`). */
export function registerLinux(admin: Command): void {
  const linux = admin
    .command('linux')
    .description(
      'Linux identity data (UID, private group, home, shell) for local full accounts; see also `hearth accounts users linux` and `hearth accounts groups make-posix`',
    );
  const config = linux.command('config').description('the Linux identity configuration');

  outputOptions(serverOptions(config.command('get')))
    .description('show the configuration (enabled, range, home template, login shell)')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<{ config: LinuxConfig; configValid: boolean }>('GET', `${LINUX_BASE}/configuration`);
      emit(opts, r, () => printConfig(r.config, r.configValid));
    });

  outputOptions(serverOptions(config.command('set')))
    .description(
      `replace the whole configuration {${CONFIG_FIELDS.join(', ')}} from exactly one of --config-file, --config or --stdin. Enabling runs no backfill and existing identities are never rewritten`,
    )
    .option('--config-file <file>', 'read the configuration (a JSON object) from this file')
    .option('--config <json>', 'the configuration as a JSON object')
    .option('--stdin', 'read the configuration (a JSON object) from standard input')
    .option('--range-reserved', 'confirm that the range is reserved for Hearth on every machine using these identities (required to enable)')
    .option('--yes', 'confirm the change (required)')
    .action(async (opts: Opts & { configFile?: string; config?: string; stdin?: boolean; rangeReserved?: boolean; yes?: boolean }) => {
      checkOutput(opts);
      const next = await readConfigInput(opts);
      if (next.enabled === true && !opts.rangeReserved) {
        const r = typeof next.rangeStart === 'number' && typeof next.rangeEnd === 'number' ? ` ${next.rangeStart}–${next.rangeEnd}` : '';
        throw new CliError(
          `enabling Linux identities needs --range-reserved: confirm that the range${r} is reserved for Hearth, and that no other system hands out numbers in it, on every machine that uses these identities`,
        );
      }
      requireYes(opts.yes, 'replace the Linux identity configuration');
      const client = new HearthClient(opts);
      const saved = await client.json<{ config: LinuxConfig }>('PUT', `${LINUX_BASE}/configuration`, { config: next, rangeReserved: !!opts.rangeReserved });
      emit(opts, saved, () => {
        const c = saved.config;
        process.stdout.write(
          `Saved the Linux identity configuration: ${c.enabled ? 'enabled' : 'disabled'}, range ${range(c)}, home ${c.homeTemplate}, shell ${c.loginShell}.\n`,
        );
        if (c.enabled) {
          process.stdout.write(
            'New full accounts get an identity from now on. Existing accounts are not backfilled: see `hearth admin linux preview --scope ready` and `hearth accounts users linux prepare <user> --yes`.\n',
          );
        }
      });
    });

  serverOptions(linux.command('preview'))
    .description(`list person accounts and their Linux identity state, 50 a page ordered by sub (changes nothing)`)
    .option('--after <cursor>', 'the page after this cursor (the nextCursor of the previous page)')
    .option('--scope <scope>', 'all, or ready (eligible accounts without an identity)', 'all')
    .option('--search <text>', 'only accounts whose login or display name contains this text')
    .option('--all', 'follow the cursors and fetch every page')
    .option('--json', 'print the page as JSON ({config, configValid, accounts, nextCursor})')
    .option('--jsonl', 'print one account per line (the next cursor goes to standard error)')
    .action(async (opts: Opts & { after?: string; scope: string; search?: string; all?: boolean }) => {
      checkOutput(opts);
      if (opts.scope !== 'all' && opts.scope !== 'ready') throw new CliError(`--scope must be all or ready (got ${JSON.stringify(opts.scope)})`);
      const client = new HearthClient(opts);
      const fetchPage = (after: string | undefined) => {
        const q = new URLSearchParams({ scope: opts.scope });
        if (after) q.set('after', after);
        if (opts.search) q.set('search', opts.search);
        return client.json<PreviewPage>('GET', `${LINUX_BASE}?${q}`);
      };
      let page = await fetchPage(opts.after);
      if (opts.all) {
        const accounts = [...page.accounts];
        while (page.nextCursor) {
          page = await fetchPage(page.nextCursor);
          accounts.push(...page.accounts);
        }
        page = { ...page, accounts, nextCursor: null };
      }
      if (opts.json) printJson(page);
      else if (opts.jsonl) printJsonLines(page.accounts);
      else {
        if (!page.configValid) process.stderr.write('Warning: the stored configuration is unreadable; assignment is off until a valid one is saved.\n');
        printTable(page.accounts.map(previewRow), PREVIEW_COLUMNS);
      }
      if (page.nextCursor && !opts.json) {
        const more = [`--after ${page.nextCursor}`];
        if (opts.scope !== 'all') more.push(`--scope ${opts.scope}`);
        if (opts.search) more.push(`--search ${JSON.stringify(opts.search)}`);
        process.stderr.write(`More accounts: next page with \`hearth admin linux preview ${more.join(' ')}\`, or every page with --all.\n`);
      }
    });
}
