import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { postLogin } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

/** Each test spawns the CLI many times (about half a second each, more on a busy machine). */
const SLOW = 120_000;

let cwd: string;
let emptyConfig: string;
/** `hearth <args>` with an empty config folder: no `hearth login` of the developer running the tests can interfere. */
const hearth = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { cwd, env: { HEARTH_CONFIG_DIR: emptyConfig, ...opts.env }, input: opts.input });

let s: TestServer;
let conn: string[];
beforeAll(async () => {
  cwd = tempDir('hearth-cli-cwd-');
  emptyConfig = tempDir('hearth-cli-config-');
  s = await startTestServer();
  conn = ['--url', s.url, '--token', s.token];
});
afterAll(async () => {
  await s.stop();
  for (const d of [cwd, emptyConfig]) fs.rmSync(d, { recursive: true, force: true });
});

async function apiJson<T = Record<string, any>>(pathname: string): Promise<T> {
  const res = await s.api(pathname);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}
const accountByLogin = async (login: string) =>
  (await apiJson<{ data: Array<Record<string, any>> }>(`/api/admin/core/accounts?search=${login}&per_page=100`)).data.find((a) => a.login === login);

describe('hearth accounts users', () => {
  it(
    'create (with a password), get, list, update, disable, enable, set-password, delete',
    async () => {
      const c = await hearth(
        [
          'accounts',
          'users',
          'create',
          'alice',
          '--display-name',
          'Alice Liddell',
          '--email',
          'alice@example.org',
          '--admin',
          '--password-stdin',
          ...conn,
          '--json',
        ],
        {
          input: 'correct horse battery\n',
        },
      );
      expect(c.stderr).toBe('');
      expect(c.code).toBe(0);
      const created = JSON.parse(c.stdout);
      expect(created).toMatchObject({
        login: 'alice',
        displayName: 'Alice Liddell',
        email: 'alice@example.org',
        admin: true,
        profile: 'user',
        disabled: false,
      });
      expect(await accountByLogin('alice')).toMatchObject({ sub: created.sub, admin: true });
      expect((await postLogin(s, 'alice', 'correct horse battery')).status).toBe(200);

      const guest = await hearth(['accounts', 'users', 'create', 'bob', '--profile', 'guest', '--expires-at', '2030-01-01T00:00:00Z', ...conn]);
      expect(guest.code).toBe(0);
      expect(guest.stdout).toMatch(/^Created account bob \([0-9a-f-]{36}\)\.\n$/);
      expect(await accountByLogin('bob')).toMatchObject({ profile: 'guest', expiresAt: '2030-01-01T00:00:00.000Z', admin: false });

      // get by login and by sub
      const byLogin = await hearth(['accounts', 'users', 'get', 'alice', ...conn]);
      expect(byLogin.code).toBe(0);
      expect(byLogin.stdout).toMatch(/^login:\s+alice$/m);
      expect(byLogin.stdout).toMatch(/^display name:\s+Alice Liddell$/m);
      expect(byLogin.stdout).toMatch(/^state:\s+active$/m);
      const bySub = await hearth(['accounts', 'users', 'get', created.sub, ...conn, '--json']);
      expect(JSON.parse(bySub.stdout)).toMatchObject({ login: 'alice', groups: [] });

      const table = await hearth(['accounts', 'users', 'list', ...conn]);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^LOGIN\s+DISPLAY_NAME\s+EMAIL\s+PROFILE\s+ADMIN\s+STATE\s+EXPIRES_AT\s+SUB$/m);
      expect(table.stdout).toMatch(/^alice\s+Alice Liddell\s+alice@example.org\s+user\s+yes\s+active\s+-\s+[0-9a-f-]{36}$/m);
      expect(table.stdout).toMatch(/^bob\s+-\s+-\s+guest\s+no\s+active\s+2030-01-01T00:00:00.000Z/m);
      const jsonl = await hearth(['accounts', 'users', 'list', '--search', 'ali', '--jsonl', ...conn]);
      const lines = jsonl.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((a) => a.login)).toEqual(['alice']);

      const upd = await hearth(['accounts', 'users', 'update', 'alice', '--login', 'alicia', '--no-email', '--display-name', 'Alicia', ...conn]);
      expect(upd.code, upd.stderr).toBe(0);
      expect(upd.stdout).toBe('Updated account alicia.\n');
      expect(await apiJson(`/api/admin/core/accounts/${created.sub}`)).toMatchObject({ login: 'alicia', admin: true, email: null, displayName: 'Alicia' });
      expect((await hearth(['accounts', 'users', 'update', 'bob', '--admin', '--no-expiry', ...conn])).code).toBe(0);
      expect(await accountByLogin('bob')).toMatchObject({ admin: true, expiresAt: null });
      expect((await hearth(['accounts', 'users', 'update', 'bob', '--no-admin', ...conn])).code).toBe(0);
      expect((await accountByLogin('bob'))!.admin).toBe(false);
      const nothing = await hearth(['accounts', 'users', 'update', 'bob', ...conn]);
      expect(nothing.code).toBe(1);
      expect(nothing.stderr).toMatch(/nothing to change/);
      // the server's refusals come through with their code
      const lastAdmin = await hearth(['accounts', 'users', 'update', 'alicia', '--no-admin', ...conn]);
      expect(lastAdmin.code).toBe(1);
      expect(lastAdmin.stderr).toMatch(/^hearth: .*\(\w+, HTTP 409\)\n$/);

      const pw = await hearth(['accounts', 'users', 'set-password', 'bob', '--password-stdin', ...conn], { input: 'a new password\r\n' });
      expect(pw.code, pw.stderr).toBe(0);
      expect(pw.stdout).toBe('Set the password of bob.\n');
      expect((await postLogin(s, 'bob', 'a new password')).status).toBe(200);
      const short = await hearth(['accounts', 'users', 'set-password', 'bob', '--password-stdin', ...conn], { input: 'short\n' });
      expect(short.code).toBe(1);
      expect(short.stderr).toMatch(/password must be 8–1024 characters/);
      expect((await hearth(['accounts', 'users', 'set-password', 'bob', ...conn])).stderr).toMatch(/--password-stdin/);

      expect((await hearth(['accounts', 'users', 'disable', 'bob', ...conn])).stdout).toBe('Disabled account bob.\n');
      expect((await accountByLogin('bob'))!.disabled).toBe(true);
      expect((await postLogin(s, 'bob', 'a new password')).status).toBe(401);
      expect((await hearth(['accounts', 'users', 'list', ...conn])).stdout).toMatch(/^bob\s+.*\bdisabled\b/m);
      const bobSub = (await accountByLogin('bob'))!.sub;
      expect((await hearth(['accounts', 'users', 'enable', bobSub, ...conn])).stdout).toBe('Enabled account bob.\n');
      expect((await accountByLogin('bob'))!.disabled).toBe(false);
      expect((await postLogin(s, 'bob', 'a new password')).status).toBe(200);

      const noYes = await hearth(['accounts', 'users', 'delete', 'bob', ...conn]);
      expect(noYes.code).toBe(1);
      expect(noYes.stderr).toMatch(/without --yes/);
      expect(await accountByLogin('bob')).toBeDefined();
      expect((await hearth(['accounts', 'users', 'delete', 'bob', '--yes', ...conn])).stdout).toBe('Deleted account bob.\n');
      expect(await accountByLogin('bob')).toBeUndefined();
    },
    SLOW,
  );

  it(
    'pages: --page/--per-page by default, --all fetches everything',
    async () => {
      for (let i = 0; i < 5; i++) expect((await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: `pager${i}` } })).status).toBe(201);
      const first = await hearth(['accounts', 'users', 'list', '--search', 'pager', '--per-page', '2', ...conn]);
      expect(
        first.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(/\s+/)[0]),
      ).toEqual(['pager0', 'pager1']);
      expect(first.stderr).toBe('Showing 1–2 of 5; use --all, or --page 2 for the next page.\n');
      const second = await hearth(['accounts', 'users', 'list', '--search', 'pager', '--per-page', '2', '--page', '2', '--json', ...conn]);
      expect(JSON.parse(second.stdout).map((a: { login: string }) => a.login)).toEqual(['pager2', 'pager3']);
      const all = await hearth(['accounts', 'users', 'list', '--search', 'pager', '--all', '--jsonl', ...conn]);
      expect(all.stdout.trim().split('\n')).toHaveLength(5);
      expect((await hearth(['accounts', 'users', 'list', '--per-page', '500', ...conn])).stderr).toMatch(/--per-page must be a whole number from 1 to 100/);
    },
    SLOW,
  );

  it(
    "prints the server's message and exits non-zero on errors",
    async () => {
      const missing = await hearth(['accounts', 'users', 'get', 'nobody', ...conn]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe('hearth: no account with login "nobody"\n');
      const missingSub = await hearth(['accounts', 'users', 'get', '00000000-0000-4000-8000-000000000000', ...conn]);
      expect(missingSub.code).toBe(1);
      expect(missingSub.stderr).toMatch(/\(account_not_found, HTTP 404\)\n$/);
      const bad = await hearth(['accounts', 'users', 'create', 'Not Valid', ...conn]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^hearth: .*login must be 1–32 characters/);
      expect((await hearth(['accounts', 'users', 'create', 'dup', ...conn])).code).toBe(0);
      const dup = await hearth(['accounts', 'users', 'create', 'dup', ...conn]);
      expect(dup.code).toBe(1);
      expect(dup.stderr).toMatch(/\(login_taken, HTTP 409\)\n$/);
      const badExpiry = await hearth(['accounts', 'users', 'update', 'dup', '--expires-at', 'tomorrow', ...conn]);
      expect(badExpiry.code).toBe(1);
      expect(badExpiry.stderr).toMatch(/expiresAt must be an ISO 8601 date-time/);
      const unauth = await hearth(['accounts', 'users', 'list', '--url', s.url, '--token', 'wrong']);
      expect(unauth.code).toBe(1);
      expect(unauth.stderr).toMatch(/HTTP 401\)\n$/);
    },
    SLOW,
  );
});

describe('hearth accounts groups', () => {
  it(
    'create, list, get, update, nested members add/remove, delete',
    async () => {
      for (const login of ['carol', 'dave']) expect((await hearth(['accounts', 'users', 'create', login, ...conn])).code).toBe(0);
      const staff = await hearth(['accounts', 'groups', 'create', 'staff', '--description', 'Everyone', ...conn, '--json']);
      expect(staff.code).toBe(0);
      const staffId = JSON.parse(staff.stdout).id;
      expect((await hearth(['accounts', 'groups', 'create', 'office', ...conn])).stdout).toMatch(/^Created group office \([0-9a-f-]{36}\)\.\n$/);

      const add = await hearth(['accounts', 'groups', 'members', 'add', 'staff', 'carol', 'group:office', ...conn]);
      expect(add.code).toBe(0);
      expect(add.stdout).toBe('Added user carol to group staff.\nAdded group office to group staff.\n');
      expect((await hearth(['accounts', 'groups', 'members', 'add', 'office', 'user:dave', ...conn])).code).toBe(0);

      const detail = await apiJson(`/api/admin/core/groups/${staffId}`);
      expect(detail.members.accounts.map((a: { login: string }) => a.login)).toEqual(['carol']);
      expect(detail.members.groups.map((g: { name: string }) => g.name)).toEqual(['office']);
      // dave is in staff through office
      const dave = await accountByLogin('dave');
      expect((await apiJson(`/api/admin/core/accounts/${dave!.sub}`)).groups).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'office', direct: true }), expect.objectContaining({ name: 'staff', direct: false })]),
      );
      expect((await hearth(['accounts', 'users', 'get', 'dave', ...conn])).stdout).toMatch(/^groups:\s+office, staff \(nested\)$/m);

      const cycle = await hearth(['accounts', 'groups', 'members', 'add', 'office', 'staff', ...conn]);
      expect(cycle.code).toBe(1);
      expect(cycle.stderr).toMatch(/\(group_cycle, HTTP 409\)\n$/);
      const typo = await hearth(['accounts', 'groups', 'members', 'add', 'staff', 'dave', 'nobody', ...conn]);
      expect(typo.code).toBe(1);
      expect(typo.stderr).toBe('hearth: no account login or group named "nobody"\n');
      // nothing was added: members are resolved before any change
      expect((await apiJson(`/api/admin/core/groups/${staffId}`)).members.accounts).toHaveLength(1);

      // a name that is both a login and a group must be qualified
      expect((await hearth(['accounts', 'groups', 'create', 'carol', ...conn])).code).toBe(0);
      const ambiguous = await hearth(['accounts', 'groups', 'members', 'add', 'office', 'carol', ...conn]);
      expect(ambiguous.code).toBe(1);
      expect(ambiguous.stderr).toMatch(/both a login and a group name: write user:carol or group:carol/);

      const get = await hearth(['accounts', 'groups', 'get', 'staff', ...conn]);
      expect(get.stdout).toMatch(/^description:\s+Everyone$/m);
      expect(get.stdout).toMatch(/^group\s+office\s+-\s+[0-9a-f-]{36}$/m);
      expect(get.stdout).toMatch(/^user\s+carol\s+-\s+[0-9a-f-]{36}$/m);
      const members = await hearth(['accounts', 'groups', 'members', 'list', 'staff', ...conn, '--json']);
      expect(JSON.parse(members.stdout).groups).toEqual([expect.objectContaining({ name: 'office' })]);

      const list = await hearth(['accounts', 'groups', 'list', ...conn]);
      expect(list.stdout).toMatch(/^NAME\s+DESCRIPTION\s+ID\s+CREATED_AT$/m);
      expect(
        list.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((l) => l.split(/\s+/)[0]),
      ).toEqual(['carol', 'office', 'staff']);

      const rm = await hearth(['accounts', 'groups', 'members', 'remove', 'staff', 'user:carol', 'group:office', ...conn]);
      expect(rm.stdout).toBe('Removed user carol from group staff.\nRemoved group office from group staff.\n');
      expect((await apiJson(`/api/admin/core/groups/${staffId}`)).members).toEqual({ accounts: [], groups: [] });

      expect((await hearth(['accounts', 'groups', 'update', 'staff', '--name', 'team', '--description', 'All of us', ...conn])).stdout).toBe(
        'Updated group team.\n',
      );
      expect(await apiJson(`/api/admin/core/groups/${staffId}`)).toMatchObject({ name: 'team', description: 'All of us' });
      expect((await hearth(['accounts', 'groups', 'delete', 'team', ...conn])).code).toBe(1);
      expect((await hearth(['accounts', 'groups', 'delete', staffId, '--yes', ...conn])).stdout).toBe('Deleted group team.\n');
      expect((await s.api(`/api/admin/core/groups/${staffId}`)).status).toBe(404);
      expect((await hearth(['accounts', 'groups', 'get', 'team', ...conn])).stderr).toBe('hearth: no group named "team"\n');
    },
    SLOW,
  );
});

describe('hearth accounts service-accounts', () => {
  it(
    'create, list, delete',
    async () => {
      const c = await hearth([
        'accounts',
        'service-accounts',
        'create',
        '--app',
        'crm',
        '--resource-type',
        'namespace',
        '--resource-id',
        'sales',
        '--display-name',
        'CRM on sales',
        ...conn,
        '--json',
      ]);
      expect(c.code).toBe(0);
      const sa = JSON.parse(c.stdout);
      expect(sa).toMatchObject({ kind: 'service', appId: 'crm', resourceType: 'namespace', resourceId: 'sales' });
      const dup = await hearth(['accounts', 'service-accounts', 'create', '--app', 'crm', '--resource-type', 'namespace', '--resource-id', 'sales', ...conn]);
      expect(dup.stderr).toMatch(/\(service_account_exists, HTTP 409\)\n$/);
      const list = await hearth(['accounts', 'service-accounts', 'list', ...conn]);
      expect(list.stdout).toMatch(/^APP\s+RESOURCE_TYPE\s+RESOURCE_ID\s+DISPLAY_NAME\s+SUB\s+CREATED_AT$/m);
      expect(list.stdout).toMatch(new RegExp(`^crm\\s+namespace\\s+sales\\s+CRM on sales\\s+${sa.sub}`, 'm'));
      // a service account can be a group member by its sub
      expect((await hearth(['accounts', 'groups', 'create', 'apps', ...conn])).code).toBe(0);
      const add = await hearth(['accounts', 'groups', 'members', 'add', 'apps', sa.sub, ...conn]);
      expect(add.code).toBe(0);
      expect((await hearth(['accounts', 'groups', 'get', 'apps', ...conn])).stdout).toMatch(/^service\s+-\s+CRM on sales\s+/m);
      expect((await hearth(['accounts', 'service-accounts', 'delete', sa.sub, '--yes', ...conn])).stdout).toBe(`Deleted service account ${sa.sub}.\n`);
      expect((await apiJson<{ total: number }>('/api/admin/core/service-accounts')).total).toBe(0);
      // --namespace: the database service's own application and resource type.
      const db = await hearth(['accounts', 'service-accounts', 'create', '--namespace', 'sales', ...conn, '--json']);
      expect(db.code, db.stderr).toBe(0);
      expect(JSON.parse(db.stdout)).toMatchObject({
        appId: 'hearth-db',
        resourceType: 'namespace',
        resourceId: 'sales',
        displayName: 'hearth-db: namespace sales',
      });
      const both = await hearth(['accounts', 'service-accounts', 'create', '--namespace', 'hr', '--app', 'crm', ...conn]);
      expect(both.stderr).toBe('hearth: give either --namespace or --app, --resource-type and --resource-id, not both\n');
      const partial = await hearth(['accounts', 'service-accounts', 'create', '--app', 'crm', ...conn]);
      expect(partial.stderr).toBe('hearth: give --namespace <name> (the database service), or all of --app, --resource-type and --resource-id\n');
    },
    SLOW,
  );
});
