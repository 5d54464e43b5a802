import type { Command } from 'commander';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../identity/contract.ts';
import { type ClientOptions, type HearthClient, serverOptions } from '../../client.ts';
import { CliError, printFields, printJson, printJsonLines, printTable } from '../../output.ts';

/**
 * What the `hearth accounts …` commands share: the wire types, listing and paging, resolving a user (login or sub),
 * a group (name or id) or a member reference to ids, confirmations, the password on standard input, printing.
 */

export const BASE = '/api/admin/core';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const enc = encodeURIComponent;

export interface Account {
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
export interface Group {
  id: string;
  name: string;
  description: string;
  createdAt: string;
  updatedAt: string;
}
export interface GroupDetail extends Group {
  members: {
    accounts: Array<{ sub: string; login: string | null; displayName: string; kind: 'person' | 'service' }>;
    groups: Array<{ id: string; name: string }>;
  };
}
export interface ServiceAccount {
  sub: string;
  kind: 'service';
  appId: string;
  resourceType: string;
  resourceId: string;
  displayName: string;
  createdAt: string;
  updatedAt: string;
}
export interface Page<T> {
  data: T[];
  page: number;
  per_page: number;
  total: number;
}

export type Opts = ClientOptions & { json?: boolean };
export type ListOpts = Opts & { jsonl?: boolean; search?: string; all?: boolean; page?: string; perPage?: string };

export const listOptions = (c: Command) =>
  serverOptions(c)
    .option('--search <text>', 'only entries matching this text (case-insensitive substring)')
    .option('--all', 'fetch every page')
    .option('--page <n>', 'page to show (from 1)', '1')
    .option('--per-page <n>', 'entries per page (1–100)', '50')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line');

export function positiveInt(value: string | undefined, name: string, max = Infinity): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new CliError(`${name} must be a whole number from 1${max === Infinity ? '' : ` to ${max}`} (got ${JSON.stringify(value)})`);
  return n;
}

/** One page, or every page with `--all`. */
export async function fetchList<T>(client: HearthClient, path: string, opts: ListOpts): Promise<{ items: T[]; total: number; page: number; perPage: number }> {
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

export function printList<T>(
  opts: ListOpts,
  list: { items: T[]; total: number; page: number; perPage: number },
  rows: (t: T) => Record<string, unknown>,
  columns: string[],
): void {
  if (opts.json && opts.jsonl) throw new CliError('choose one of --json or --jsonl');
  if (opts.json) printJson(list.items);
  else if (opts.jsonl) printJsonLines(list.items);
  else printTable(list.items.map(rows), columns);
  if (opts.json || opts.jsonl) return;
  if (!opts.all && list.total > list.items.length) {
    const first = (list.page - 1) * list.perPage + 1;
    const shown = list.items.length ? `${first}–${first + list.items.length - 1}` : 'none';
    process.stderr.write(`Showing ${shown} of ${list.total}; use --all, or --page ${list.page + 1} for the next page.\n`);
  }
}

export const isNotFoundError = (err: unknown) => err instanceof CliError && /HTTP 404\)$/.test(err.message);

/** A login or a sub → the account (with its groups). */
export async function findUser(client: HearthClient, ref: string): Promise<Account> {
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
export async function findGroup(client: HearthClient, ref: string): Promise<GroupDetail> {
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
export async function resolveMember(client: HearthClient, ref: string): Promise<{ account: string; label: string } | { group: string; label: string }> {
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
export function notFoundAsNull(err: unknown): null {
  if (err instanceof CliError && /^no (account|group)/.test(err.message)) return null;
  throw err;
}

/** Reads all of stdin; the password is its first line (a trailing CR/LF is not part of it). */
export async function readPassword(): Promise<string> {
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

export async function confirm(yes: boolean | undefined, what: string, name: string): Promise<void> {
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

export const userState = (a: Account) => (a.disabled ? 'disabled' : a.expiresAt && Date.parse(a.expiresAt) <= Date.now() ? 'expired' : 'active');
export const userRow = (a: Account) => ({
  login: a.login,
  display_name: a.displayName || null,
  email: a.email,
  profile: a.profile,
  admin: a.admin ? 'yes' : 'no',
  state: userState(a),
  expires_at: a.expiresAt,
  sub: a.sub,
});
export const USER_COLUMNS = ['login', 'display_name', 'email', 'profile', 'admin', 'state', 'expires_at', 'sub'];

export function printUser(a: Account): void {
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

export function printGroup(g: GroupDetail): void {
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
