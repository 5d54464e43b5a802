import type { Command } from 'commander';
import { HearthClient, serverOptions, type ClientOptions } from '../client.ts';
import { CliError, printFields, printJson, printJsonLines, printTable } from '../output.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../identity/contract.ts';
import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from '../../core/auth/database-app.ts';
import { checkOutput, emit, linuxAccount, makePosix, outputOptions, prepareLinuxAccount, printLinuxAccount, requireYes, updateLinuxAccount, type OutputOpts } from './linux.ts';

/**
 * `hearth accounts users|groups|service-accounts …`: the accounts admin API (`/api/admin/core/…`) of a running server.
 * Users are named by login or sub, groups by name or id; both are resolved to their ids before anything changes.
 */

const BASE = '/api/admin/core';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const enc = encodeURIComponent;

interface Account {
  sub: string;
  kind: 'person';
  login: string;
  email: string | null;
  displayName: string;
  profile: 'user' | 'guest';
  admin: boolean;
  disabled: boolean;
  expiresAt: string | null;
  epoch: number;
  category: string;
  createdAt: string;
  updatedAt: string;
  groups?: Array<{ id: string; name: string; direct: boolean }>;
}
interface Group {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}
interface GroupDetail extends Group {
  members: {
    accounts: Array<{ sub: string; login: string | null; displayName: string; kind: 'person' | 'service' }>;
    groups: Array<{ id: string; name: string }>;
  };
}
interface ServiceAccount {
  sub: string;
  kind: 'service';
  appId: string;
  resourceType: string;
  resourceId: string;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  page: number;
  per_page: number;
  total: number;
}

type Opts = ClientOptions & { json?: boolean };
type ListOpts = Opts & { jsonl?: boolean; search?: string; all?: boolean; page?: string; perPage?: string };


const listOptions = (c: Command) =>
  serverOptions(c)
    .option('--search <text>', 'only entries matching this text (case-insensitive substring)')
    .option('--all', 'fetch every page')
    .option('--page <n>', 'page to show (from 1)', '1')
    .option('--per-page <n>', 'entries per page (1–100)', '50')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line');

function positiveInt(value: string | undefined, name: string, max = Infinity): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new CliError(`${name} must be a whole number from 1${max === Infinity ? '' : ` to ${max}`} (got ${JSON.stringify(value)})`);
  return n;
}

/** One page, or every page with `--all`. */
async function fetchList<T>(client: HearthClient, path: string, opts: ListOpts): Promise<{ items: T[]; total: number; page: number; perPage: number }> {
  const search = opts.search;
  const get = (page: number, perPage: number) => {
    const q = new URLSearchParams({ page: String(page), per_page: String(perPage) });
    if (search) q.set('search', search);
    return client.json<Page<T>>('GET', `${path}?${q}`);
  };
  if (opts.all) {
    const items: T[] = [];
    let total = 0;
    for (let page = 1; ; page++) {
      const p = await get(page, 100);
      items.push(...p.data);
      total = p.total;
      if (p.data.length === 0 || items.length >= p.total) break;
    }
    return { items, total, page: 1, perPage: items.length };
  }
  const page = positiveInt(opts.page, '--page');
  const perPage = positiveInt(opts.perPage, '--per-page', 100);
  const p = await get(page, perPage);
  return { items: p.data, total: p.total, page, perPage };
}

function printList<T>(opts: ListOpts, list: { items: T[]; total: number; page: number; perPage: number }, rows: (t: T) => Record<string, unknown>, columns: string[]): void {
  if (opts.json && opts.jsonl) throw new CliError('choose one of --json or --jsonl');
  if (opts.json) return printJson(list.items);
  if (opts.jsonl) return printJsonLines(list.items);
  printTable(list.items.map(rows), columns);
  if (!opts.all && list.total > list.items.length) {
    const first = (list.page - 1) * list.perPage + 1;
    const shown = list.items.length ? `${first}–${first + list.items.length - 1}` : 'none';
    process.stderr.write(`Showing ${shown} of ${list.total}; use --all, or --page ${list.page + 1} for the next page.\n`);
  }
}

const isNotFoundError = (err: unknown) => err instanceof CliError && /HTTP 404\)$/.test(err.message);

/** A login or a sub → the account (with its groups). */
async function findUser(client: HearthClient, ref: string): Promise<Account> {
  if (UUID.test(ref)) return client.json<Account>('GET', `${BASE}/accounts/${enc(ref.toLowerCase())}`);
  const login = ref.toLowerCase();
  for (let page = 1; ; page++) {
    const p = await client.json<Page<Account>>('GET', `${BASE}/accounts?${new URLSearchParams({ search: login, page: String(page), per_page: '100' })}`);
    const hit = p.data.find((a) => a.login === login);
    if (hit) return client.json<Account>('GET', `${BASE}/accounts/${enc(hit.sub)}`);
    if (p.data.length === 0 || page * 100 >= p.total) break;
  }
  throw new CliError(`no account with login "${ref}"`);
}

/** A group name or id → the group with its direct members. */
async function findGroup(client: HearthClient, ref: string): Promise<GroupDetail> {
  if (UUID.test(ref)) return client.json<GroupDetail>('GET', `${BASE}/groups/${enc(ref.toLowerCase())}`);
  const name = ref.toLowerCase();
  for (let page = 1; ; page++) {
    const p = await client.json<Page<Group>>('GET', `${BASE}/groups?${new URLSearchParams({ search: name, page: String(page), per_page: '100' })}`);
    const hit = p.data.find((g) => g.name === name);
    if (hit) return client.json<GroupDetail>('GET', `${BASE}/groups/${enc(hit.id)}`);
    if (p.data.length === 0 || page * 100 >= p.total) break;
  }
  throw new CliError(`no group named "${ref}"`);
}

/**
 * A member argument: `user:<login|sub>`, `group:<name|id>`, or a bare name that must match exactly one of an account
 * login or a group name (a bare UUID is a group id if such a group exists, else an account or service-account sub).
 */
async function resolveMember(client: HearthClient, ref: string): Promise<{ account: string; label: string } | { group: string; label: string }> {
  const m = /^(user|account|group):(.+)$/.exec(ref);
  if (m) {
    if (m[1] === 'group') {
      const g = await findGroup(client, m[2]!);
      return { group: g.id, label: `group ${g.name}` };
    }
    if (UUID.test(m[2]!)) return { account: m[2]!.toLowerCase(), label: `account ${m[2]}` };
    const a = await findUser(client, m[2]!);
    return { account: a.sub, label: `user ${a.login}` };
  }
  if (UUID.test(ref)) {
    const id = ref.toLowerCase();
    try {
      const g = await client.json<GroupDetail>('GET', `${BASE}/groups/${enc(id)}`);
      return { group: g.id, label: `group ${g.name}` };
    } catch (err) {
      if (!isNotFoundError(err)) throw err;
    }
    return { account: id, label: `account ${id}` };
  }
  const [user, group] = await Promise.all([findUser(client, ref).catch(notFoundAsNull), findGroup(client, ref).catch(notFoundAsNull)]);
  if (user && group) throw new CliError(`"${ref}" is both a login and a group name: write user:${ref} or group:${ref}`);
  if (user) return { account: user.sub, label: `user ${user.login}` };
  if (group) return { group: group.id, label: `group ${group.name}` };
  throw new CliError(`no account login or group named "${ref}"`);
}
function notFoundAsNull(err: unknown): null {
  if (err instanceof CliError && /^no (account|group)/.test(err.message)) return null;
  throw err;
}

/** Reads all of stdin; the password is its first line (a trailing CR/LF is not part of it). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password (then Enter and Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (!password) throw new CliError('no password on standard input');
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new CliError(`password must be ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters`);
  }
  return password;
}

async function confirm(yes: boolean | undefined, what: string, name: string): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) throw new CliError(`refusing to delete ${what} ${name} without --yes`);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    if ((await rl.question(`Delete ${what} ${name}? Type its name to confirm: `)).trim() !== name) throw new CliError('not deleted');
  } finally {
    rl.close();
  }
}

const userState = (a: Account) => (a.disabled ? 'disabled' : a.expiresAt && Date.parse(a.expiresAt) <= Date.now() ? 'expired' : 'active');
const userRow = (a: Account) => ({
  login: a.login,
  display_name: a.displayName || null,
  email: a.email,
  profile: a.profile,
  admin: a.admin ? 'yes' : 'no',
  state: userState(a),
  expires_at: a.expiresAt,
  sub: a.sub,
});
const USER_COLUMNS = ['login', 'display_name', 'email', 'profile', 'admin', 'state', 'expires_at', 'sub'];

function printUser(a: Account): void {
  const fields: Array<[string, unknown]> = [
    ['login', a.login],
    ['sub', a.sub],
    ['display name', a.displayName],
    ['email', a.email],
    ['profile', a.profile],
    ['admin', a.admin ? 'yes' : 'no'],
    ['state', userState(a)],
    ['expires at', a.expiresAt ?? 'never'],
    ['category', a.category],
    ['created at', a.createdAt],
    ['updated at', a.updatedAt],
  ];
  if (a.groups) fields.push(['groups', a.groups.map((g) => (g.direct ? g.name : `${g.name} (nested)`))]);
  printFields(fields);
}

function printGroup(g: GroupDetail): void {
  printFields([
    ['name', g.name],
    ['id', g.id],
    ['description', g.description],
    ['created at', g.createdAt],
    ['updated at', g.updatedAt],
  ]);
  const rows = [
    ...g.members.groups.map((m) => ({ type: 'group', name: m.name, display_name: null, id: m.id })),
    ...g.members.accounts.map((m) => ({ type: m.kind === 'service' ? 'service' : 'user', name: m.login, display_name: m.displayName || null, id: m.sub })),
  ];
  process.stdout.write('\nmembers:\n');
  printTable(rows, ['type', 'name', 'display_name', 'id']);
}

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('manage accounts, groups and service accounts on a running server');
  registerUsers(accounts);
  registerGroups(accounts);
  registerServiceAccounts(accounts);
}

function registerUsers(accounts: Command): void {
  const users = accounts.command('users').description('person accounts (named by login or sub)');

  listOptions(users.command('list'))
    .description('list accounts, ordered by login')
    .action(async (opts: ListOpts) => {
      const list = await fetchList<Account>(new HearthClient(opts), `${BASE}/accounts`, opts);
      printList(opts, list, userRow, USER_COLUMNS);
    });

  serverOptions(users.command('get <user>'))
    .description('show an account and its groups (direct and nested)')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts) => {
      const a = await findUser(new HearthClient(opts), ref);
      if (opts.json) printJson(a);
      else printUser(a);
    });

  serverOptions(users.command('create <login>'))
    .description('create an account')
    .option('--display-name <name>', 'display name')
    .option('--email <email>', 'email address')
    .option('--profile <profile>', 'user or guest', 'user')
    .option('--admin', 'give it the administrator role')
    .option('--disabled', 'create it disabled')
    .option('--expires-at <iso>', 'expiry (ISO 8601 with a time zone); unusable from then on')
    .option('--password-stdin', 'set a password read from the first line of standard input')
    .option('--json', 'print JSON')
    .action(async (login: string, opts: Opts & { displayName?: string; email?: string; profile: string; admin?: boolean; disabled?: boolean; expiresAt?: string; passwordStdin?: boolean }) => {
      const client = new HearthClient(opts);
      const password = opts.passwordStdin ? await readPassword() : undefined;
      const body: Record<string, unknown> = { login, profile: opts.profile, admin: !!opts.admin, disabled: !!opts.disabled };
      if (opts.displayName !== undefined) body.displayName = opts.displayName;
      if (opts.email !== undefined) body.email = opts.email;
      if (opts.expiresAt !== undefined) body.expiresAt = opts.expiresAt;
      const a = await client.json<Account>('POST', `${BASE}/accounts`, body);
      if (password !== undefined) {
        try {
          await client.json('PUT', `${BASE}/accounts/${enc(a.sub)}/password`, { password });
        } catch (err) {
          throw new CliError(`created account ${a.login} (${a.sub}) but could not set its password: ${(err as Error).message}`);
        }
      }
      if (opts.json) printJson(a);
      else process.stdout.write(`Created account ${a.login} (${a.sub})${password !== undefined ? ' with a password' : ''}.\n`);
    });

  serverOptions(users.command('update <user>'))
    .description('change an account (only the options given change)')
    .option('--login <login>', 'new login (the sub stays the same)')
    .option('--display-name <name>', 'display name')
    .option('--email <email>', 'email address')
    .option('--no-email', 'remove the email address')
    .option('--profile <profile>', 'user or guest')
    .option('--admin', 'give it the administrator role')
    .option('--no-admin', 'take the administrator role away')
    .option('--expires-at <iso>', 'expiry (ISO 8601 with a time zone)')
    .option('--no-expiry', 'never expires')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts & { login?: string; displayName?: string; email?: string | false; profile?: string; admin?: boolean; expiresAt?: string; expiry?: boolean }) => {
      if (opts.expiresAt !== undefined && opts.expiry === false) throw new CliError('choose one of --expires-at or --no-expiry');
      const body: Record<string, unknown> = {};
      if (opts.login !== undefined) body.login = opts.login;
      if (opts.displayName !== undefined) body.displayName = opts.displayName;
      if (opts.email === false) body.email = null;
      else if (typeof opts.email === 'string') body.email = opts.email;
      if (opts.profile !== undefined) body.profile = opts.profile;
      if (opts.admin !== undefined) body.admin = opts.admin;
      if (opts.expiresAt !== undefined) body.expiresAt = opts.expiresAt;
      if (opts.expiry === false) body.expiresAt = null;
      if (Object.keys(body).length === 0) throw new CliError('nothing to change: give at least one option (see --help)');
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      const updated = await client.json<Account>('PATCH', `${BASE}/accounts/${enc(a.sub)}`, body);
      if (opts.json) printJson(updated);
      else process.stdout.write(`Updated account ${updated.login}.\n`);
    });

  for (const [name, disabled] of [['disable', true], ['enable', false]] as const) {
    serverOptions(users.command(`${name} <user>`))
      .description(disabled ? 'disable an account (its sessions end)' : 'enable a disabled account')
      .option('--json', 'print JSON')
      .action(async (ref: string, opts: Opts) => {
        const client = new HearthClient(opts);
        const a = await findUser(client, ref);
        const updated = await client.json<Account>('PATCH', `${BASE}/accounts/${enc(a.sub)}`, { disabled });
        if (opts.json) printJson(updated);
        else process.stdout.write(`${disabled ? 'Disabled' : 'Enabled'} account ${updated.login}.\n`);
      });
  }

  serverOptions(users.command('delete <user>'))
    .description('delete an account and its group memberships')
    .option('--yes', 'do not ask for confirmation')
    .action(async (ref: string, opts: Opts & { yes?: boolean }) => {
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      await confirm(opts.yes, 'account', a.login);
      await client.json('DELETE', `${BASE}/accounts/${enc(a.sub)}`);
      process.stdout.write(`Deleted account ${a.login}.\n`);
    });

  serverOptions(users.command('set-password <user>'))
    .description('set an account\'s password (its other sessions end)')
    .option('--password-stdin', 'read the password from the first line of standard input (required)')
    .action(async (ref: string, opts: Opts & { passwordStdin?: boolean }) => {
      if (!opts.passwordStdin) throw new CliError('pass the password on standard input with --password-stdin (it is never accepted as an argument)');
      const client = new HearthClient(opts);
      const password = await readPassword();
      const a = await findUser(client, ref);
      await client.json('PUT', `${BASE}/accounts/${enc(a.sub)}/password`, { password });
      process.stdout.write(`Set the password of ${a.login}.\n`);
    });

  registerUserLinux(users);
  registerUserDevices(users);

  serverOptions(users.command('revoke-sessions <user>'))
    .description('end every session of an account')
    .action(async (ref: string, opts: Opts) => {
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      await client.json('POST', `${BASE}/accounts/${enc(a.sub)}/revoke-sessions`);
      process.stdout.write(`Ended every session of ${a.login}.\n`);
    });
}

/** `hearth accounts users linux get|prepare|update`: one account's Linux identity (see `hearth admin linux`). */
function registerUserLinux(users: Command): void {
  const linux = users.command('linux').description('the Linux identity (UID, private group, home, shell) of one account');
  type LinuxOpts = Opts & OutputOpts & { yes?: boolean };

  outputOptions(serverOptions(linux.command('get <user>')))
    .description('show whether an account is eligible, its identity and any conflicts')
    .action(async (ref: string, opts: LinuxOpts) => {
      checkOutput(opts);
      const client = new HearthClient(opts);
      const a = await linuxAccount(client, (await findUser(client, ref)).sub);
      emit(opts, a, () => printLinuxAccount(a));
    });

  outputOptions(serverOptions(linux.command('prepare <user>')))
    .description('backfill one account: assign its UID and private group with the configured home and shell (idempotent: a repeat changes nothing)')
    .option('--yes', 'confirm the change (required)')
    .action(async (ref: string, opts: LinuxOpts) => {
      checkOutput(opts);
      requireYes(opts.yes, `assign a Linux identity to ${ref}`);
      const client = new HearthClient(opts);
      const a = await prepareLinuxAccount(client, (await findUser(client, ref)).sub);
      emit(opts, a, () => {
        const i = a.identity!;
        process.stdout.write(
          a.created
            ? `Assigned ${a.login} the Linux identity ${i.username}: uid ${i.uid}, gid ${i.gid}, home ${i.homeDirectory}, shell ${i.loginShell}.\n`
            : `${a.login} already has the Linux identity ${i.username}: uid ${i.uid}, gid ${i.gid} (unchanged).\n`,
        );
      });
    });

  outputOptions(serverOptions(linux.command('update <user>')))
    .description('set the home directory and login shell of an existing identity (both required; works while assignment is disabled too)')
    .option('--home <path>', 'home directory (absolute path)')
    .option('--shell <path>', 'login shell (absolute path)')
    .option('--yes', 'confirm the change (required)')
    .action(async (ref: string, opts: LinuxOpts & { home?: string; shell?: string }) => {
      checkOutput(opts);
      if (opts.home === undefined || opts.shell === undefined) throw new CliError('give both --home <path> and --shell <path> (they are set together)');
      requireYes(opts.yes, `change the Linux identity of ${ref}`);
      const client = new HearthClient(opts);
      const a = await updateLinuxAccount(client, (await findUser(client, ref)).sub, opts.home, opts.shell);
      emit(opts, a, () => process.stdout.write(`Updated the Linux identity of ${a.login}: home ${a.identity!.homeDirectory}, shell ${a.identity!.loginShell}.\n`));
    });
}

/** A paired authenticator device (seed 001, "Device record"). */
interface AppDevice {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  assisted: boolean;
}

/**
 * `hearth accounts users devices list|revoke`: an account's paired authenticator devices
 * (`/api/admin/core/users/:id/app-devices`). Revocation is immediate; revoked devices stay listed.
 */
function registerUserDevices(users: Command): void {
  const devices = users.command('devices').description("an account's paired authenticator (phone approval) devices");
  type DeviceOpts = Opts & OutputOpts & { yes?: boolean };
  const path = (sub: string) => `${BASE}/users/${enc(sub)}/app-devices`;
  const label = (d: AppDevice) => (d.name ? JSON.stringify(d.name) : '(unnamed)');

  outputOptions(serverOptions(devices.command('list <user>')))
    .description('list the devices of an account, revoked ones included (every page)')
    .action(async (ref: string, opts: DeviceOpts) => {
      checkOutput(opts);
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      const items: AppDevice[] = [];
      let after: string | null = null;
      do {
        const page: { items: AppDevice[]; nextCursor: string | null } = await client.json('GET', `${path(a.sub)}${after ? `?${new URLSearchParams({ after })}` : ''}`);
        items.push(...page.items);
        after = page.nextCursor;
      } while (after);
      if (opts.json) return printJson(items);
      if (opts.jsonl) return printJsonLines(items);
      printTable(
        items.map((d) => ({
          id: d.id, name: d.name || null, state: d.revokedAt ? `revoked ${d.revokedAt}` : 'active', created: d.createdAt, last_used: d.lastUsedAt,
          assisted: d.assisted ? 'yes' : 'no',
        })),
        ['id', 'name', 'state', 'created', 'last_used', 'assisted'],
      );
    });

  outputOptions(serverOptions(devices.command('revoke <user> <deviceId>')))
    .description('revoke one device of an account now (it can no longer approve sign-ins; sessions it approved stay)')
    .option('--yes', 'confirm the revocation (required)')
    .action(async (ref: string, deviceId: string, opts: DeviceOpts) => {
      checkOutput(opts);
      if (!UUID.test(deviceId)) throw new CliError(`${JSON.stringify(deviceId)} is not a device ID: give the id shown by \`hearth accounts users devices list ${ref}\``);
      requireYes(opts.yes, `revoke the device ${deviceId} of ${ref}`);
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      const d = await client.json<AppDevice>('POST', `${path(a.sub)}/${enc(deviceId.toLowerCase())}/revoke`);
      emit(opts, d, () => process.stdout.write(`Revoked the device ${label(d)} (${d.id}) of ${a.login} at ${d.revokedAt}.\n`));
    });
}

function registerGroups(accounts: Command): void {
  const groups = accounts.command('groups').description('groups (named by name or id); groups can contain accounts and other groups');
  const groupRow = (g: Group) => ({ name: g.name, description: g.description || null, id: g.id, created_at: g.createdAt });

  listOptions(groups.command('list'))
    .description('list groups, ordered by name')
    .action(async (opts: ListOpts) => {
      const list = await fetchList<Group>(new HearthClient(opts), `${BASE}/groups`, opts);
      printList(opts, list, groupRow, ['name', 'description', 'id', 'created_at']);
    });

  serverOptions(groups.command('get <group>'))
    .description('show a group and its direct members')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts) => {
      const g = await findGroup(new HearthClient(opts), ref);
      if (opts.json) printJson(g);
      else printGroup(g);
    });

  serverOptions(groups.command('create <name>'))
    .description('create a group')
    .option('--description <text>', 'description')
    .option('--json', 'print JSON')
    .action(async (name: string, opts: Opts & { description?: string }) => {
      const body: Record<string, unknown> = { name };
      if (opts.description !== undefined) body.description = opts.description;
      const g = await new HearthClient(opts).json<GroupDetail>('POST', `${BASE}/groups`, body);
      if (opts.json) printJson(g);
      else process.stdout.write(`Created group ${g.name} (${g.id}).\n`);
    });

  serverOptions(groups.command('update <group>'))
    .description('rename a group or change its description')
    .option('--name <name>', 'new name')
    .option('--description <text>', 'new description')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts & { name?: string; description?: string }) => {
      const body: Record<string, unknown> = {};
      if (opts.name !== undefined) body.name = opts.name;
      if (opts.description !== undefined) body.description = opts.description;
      if (Object.keys(body).length === 0) throw new CliError('nothing to change: give --name or --description');
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      const updated = await client.json<GroupDetail>('PATCH', `${BASE}/groups/${enc(g.id)}`, body);
      if (opts.json) printJson(updated);
      else process.stdout.write(`Updated group ${updated.name}.\n`);
    });

  serverOptions(groups.command('delete <group>'))
    .description('delete a group (its memberships go with it; member accounts stay)')
    .option('--yes', 'do not ask for confirmation')
    .action(async (ref: string, opts: Opts & { yes?: boolean }) => {
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      await confirm(opts.yes, 'group', g.name);
      await client.json('DELETE', `${BASE}/groups/${enc(g.id)}`);
      process.stdout.write(`Deleted group ${g.name}.\n`);
    });

  outputOptions(serverOptions(groups.command('make-posix <group>')))
    .description('give a group a GID from the Linux ID range (idempotent: a repeat keeps its GID); it grants nothing (no sudo)')
    .option('--yes', 'confirm the change (required)')
    .action(async (ref: string, opts: Opts & OutputOpts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `make group ${ref} a POSIX group`);
      const client = new HearthClient(opts);
      const g = await findGroup(client, ref);
      const r = await makePosix(client, g.id);
      emit(opts, r, () => process.stdout.write(r.created ? `Group ${r.name} is now a POSIX group with GID ${r.gid}.\n` : `Group ${r.name} already has GID ${r.gid} (unchanged).\n`));
    });

  const members = groups.command('members').description('direct members of a group: accounts (user:<login|sub>) and nested groups (group:<name|id>)');
  serverOptions(members.command('list <group>'))
    .description('list the direct members of a group')
    .option('--json', 'print JSON')
    .action(async (ref: string, opts: Opts) => {
      const g = await findGroup(new HearthClient(opts), ref);
      if (opts.json) printJson(g.members);
      else
        printTable(
          [
            ...g.members.groups.map((m) => ({ type: 'group', name: m.name, display_name: null, id: m.id })),
            ...g.members.accounts.map((m) => ({ type: m.kind === 'service' ? 'service' : 'user', name: m.login, display_name: m.displayName || null, id: m.sub })),
          ],
          ['type', 'name', 'display_name', 'id'],
        );
    });

  for (const [name, add] of [['add', true], ['remove', false]] as const) {
    serverOptions(members.command(`${name} <group> <members...>`))
      .description(
        `${add ? 'add accounts or nested groups to' : 'remove direct members from'} a group. A member is user:<login|sub>, group:<name|id>, or a bare name matching exactly one login or group name`,
      )
      .option('--json', 'print the group as JSON afterwards')
      .action(async (ref: string, refs: string[], opts: Opts) => {
        const client = new HearthClient(opts);
        const g = await findGroup(client, ref);
        // resolve every member first, so a typo changes nothing
        const resolved = [];
        for (const r of refs) resolved.push(await resolveMember(client, r));
        let detail: GroupDetail = g;
        for (const m of resolved) {
          const { label, ...member } = m;
          detail = add
            ? await client.json<GroupDetail>('POST', `${BASE}/groups/${enc(g.id)}/members`, member)
            : await client.json<GroupDetail>('DELETE', `${BASE}/groups/${enc(g.id)}/members?${new URLSearchParams(member as Record<string, string>)}`);
          if (!opts.json) process.stdout.write(`${add ? 'Added' : 'Removed'} ${label} ${add ? 'to' : 'from'} group ${g.name}.\n`);
        }
        if (opts.json) printJson(detail);
      });
  }
}

function registerServiceAccounts(accounts: Command): void {
  const sa = accounts.command('service-accounts').description('resource-bound service accounts (used by applications, never sign in)');
  const row = (s: ServiceAccount) => ({ app: s.appId, resource_type: s.resourceType, resource_id: s.resourceId, display_name: s.displayName, sub: s.sub, created_at: s.createdAt });

  listOptions(sa.command('list'))
    .description('list service accounts')
    .action(async (opts: ListOpts) => {
      const list = await fetchList<ServiceAccount>(new HearthClient(opts), `${BASE}/service-accounts`, opts);
      printList(opts, list, row, ['app', 'resource_type', 'resource_id', 'display_name', 'sub', 'created_at']);
    });

  serverOptions(sa.command('create'))
    .description(`create a service account for an application and a resource (the triple is unique); --namespace <name> is the database service's (--app ${DATABASE_APP_ID} --resource-type ${NAMESPACE_RESOURCE} --resource-id <name>)`)
    .option('--namespace <name>', `for the database service: the namespace it may use (application ${DATABASE_APP_ID})`)
    .option('--app <appId>', 'application id')
    .option('--resource-type <type>', 'resource type')
    .option('--resource-id <id>', 'resource id')
    .option('--display-name <name>', 'display name')
    .option('--json', 'print JSON')
    .action(async (opts: Opts & { namespace?: string; app?: string; resourceType?: string; resourceId?: string; displayName?: string }) => {
      const triple = [opts.app, opts.resourceType, opts.resourceId];
      if (opts.namespace !== undefined && triple.some((v) => v !== undefined)) throw new CliError('give either --namespace or --app, --resource-type and --resource-id, not both');
      if (opts.namespace === undefined && triple.some((v) => v === undefined)) throw new CliError('give --namespace <name> (the database service), or all of --app, --resource-type and --resource-id');
      const body: Record<string, unknown> = opts.namespace !== undefined
        ? { appId: DATABASE_APP_ID, resourceType: NAMESPACE_RESOURCE, resourceId: opts.namespace }
        : { appId: opts.app, resourceType: opts.resourceType, resourceId: opts.resourceId };
      if (opts.displayName !== undefined) body.displayName = opts.displayName;
      const s = await new HearthClient(opts).json<ServiceAccount>('POST', `${BASE}/service-accounts`, body);
      if (opts.json) printJson(s);
      else process.stdout.write(`Created service account ${s.sub} for ${s.appId} on ${s.resourceType}/${s.resourceId}.\n`);
    });

  serverOptions(sa.command('delete <sub>'))
    .description('delete a service account')
    .option('--yes', 'do not ask for confirmation')
    .action(async (sub: string, opts: Opts & { yes?: boolean }) => {
      if (!UUID.test(sub)) throw new CliError(`a service account is named by its sub (a UUID), got ${JSON.stringify(sub)}`);
      await confirm(opts.yes, 'service account', sub);
      await new HearthClient(opts).json('DELETE', `${BASE}/service-accounts/${enc(sub.toLowerCase())}`);
      process.stdout.write(`Deleted service account ${sub}.\n`);
    });
}
