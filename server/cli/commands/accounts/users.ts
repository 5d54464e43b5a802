import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson, printJsonLines, printTable } from '../../output.ts';
import {
  checkOutput,
  emit,
  linuxAccount,
  type OutputOpts,
  outputOptions,
  prepareLinuxAccount,
  printLinuxAccount,
  requireYes,
  updateLinuxAccount,
} from '../linux.ts';
import {
  type Account,
  BASE,
  confirm,
  enc,
  fetchList,
  findUser,
  type ListOpts,
  listOptions,
  type Opts,
  printList,
  printUser,
  readPassword,
  USER_COLUMNS,
  UUID,
  userRow,
} from './shared.ts';

/** `hearth accounts users …`: person accounts, their Linux identity and their paired authenticator devices. */
export function registerUsers(accounts: Command): void {
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
    .action(
      async (
        login: string,
        opts: Opts & {
          displayName?: string;
          email?: string;
          profile: string;
          admin?: boolean;
          disabled?: boolean;
          expiresAt?: string;
          passwordStdin?: boolean;
        },
      ) => {
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
      },
    );

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
    .action(
      async (
        ref: string,
        opts: Opts & { login?: string; displayName?: string; email?: string | false; profile?: string; admin?: boolean; expiresAt?: string; expiry?: boolean },
      ) => {
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
      },
    );

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
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
    .description("set an account's password (its other sessions end)")
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
      emit(opts, a, () =>
        process.stdout.write(`Updated the Linux identity of ${a.login}: home ${a.identity!.homeDirectory}, shell ${a.identity!.loginShell}.\n`),
      );
    });
}

/** A paired authenticator device, as the administration API lists it. */
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
        const page: { items: AppDevice[]; nextCursor: string | null } = await client.json(
          'GET',
          `${path(a.sub)}${after ? `?${new URLSearchParams({ after })}` : ''}`,
        );
        items.push(...page.items);
        after = page.nextCursor;
      } while (after);
      if (opts.json) return printJson(items);
      if (opts.jsonl) return printJsonLines(items);
      printTable(
        items.map((d) => ({
          id: d.id,
          name: d.name || null,
          state: d.revokedAt ? `revoked ${d.revokedAt}` : 'active',
          created: d.createdAt,
          last_used: d.lastUsedAt,
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
      if (!UUID.test(deviceId))
        throw new CliError(`${JSON.stringify(deviceId)} is not a device ID: give the id shown by \`hearth accounts users devices list ${ref}\``);
      requireYes(opts.yes, `revoke the device ${deviceId} of ${ref}`);
      const client = new HearthClient(opts);
      const a = await findUser(client, ref);
      const d = await client.json<AppDevice>('POST', `${path(a.sub)}/${enc(deviceId.toLowerCase())}/revoke`);
      emit(opts, d, () => process.stdout.write(`Revoked the device ${label(d)} (${d.id}) of ${a.login} at ${d.revokedAt}.\n`));
    });
}
