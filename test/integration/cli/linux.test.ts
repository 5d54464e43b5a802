import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

/** Each test spawns the CLI many times (about half a second each, more on a busy machine). */
const SLOW = 120_000;
const L = '/api/admin/core/linux-identities';
const A = '/api/admin/core/accounts';

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

async function api<T = Record<string, any>>(pathname: string, method = 'GET', json?: unknown): Promise<{ status: number; json: T }> {
  const res = await s.api(pathname, { method, json });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as T };
}
const storedConfig = async () => (await api(`${L}/configuration`)).json;
// Rows read and written through the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const auditCount = async (action: string) => (await s.services.store.value<number>('SELECT count(*) AS n FROM audit_log WHERE action = ?', [action])) ?? 0;
const createAccount = async (login: string, extra: Record<string, unknown> = {}) => {
  const r = await api(A, 'POST', { login, ...extra });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json as { sub: string; login: string };
};
const DEFAULT = { enabled: false, rangeStart: null, rangeEnd: null, homeTemplate: '/home/{username}', loginShell: '/bin/bash' };
const ENABLED = { enabled: true, rangeStart: 6000, rangeEnd: 6999, homeTemplate: '/srv/home/{username}', loginShell: '/bin/zsh' };

describe('hearth admin linux config', () => {
  it(
    'get shows the default configuration as a table, JSON and one JSON line',
    async () => {
      const json = await hearth(['admin', 'linux', 'config', 'get', '--json', ...conn]);
      expect(json.stderr).toBe('');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual({ config: DEFAULT, configValid: true });
      const jsonl = await hearth(['admin', 'linux', 'config', 'get', '--jsonl', ...conn]);
      expect(jsonl.stdout.split('\n')).toHaveLength(2);
      expect(JSON.parse(jsonl.stdout)).toEqual({ config: DEFAULT, configValid: true });
      const table = await hearth(['admin', 'linux', 'config', 'get', ...conn]);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^enabled:\s+no$/m);
      expect(table.stdout).toMatch(/^range:\s+none$/m);
      expect(table.stdout).toMatch(/^home template:\s+\/home\/\{username\}$/m);
      expect(table.stdout).toMatch(/^login shell:\s+\/bin\/bash$/m);
      expect(table.stdout).toMatch(/^valid:\s+yes$/m);
      expect((await hearth(['admin', 'linux', 'config', 'get', '--json', '--jsonl', ...conn])).stderr).toBe('hearth: choose one of --json or --jsonl\n');
    },
    SLOW,
  );

  it(
    'set refuses without exactly one input, without --range-reserved when enabling, without --yes, and with a partial configuration',
    async () => {
      const file = path.join(cwd, 'enabled.json');
      fs.writeFileSync(file, JSON.stringify(ENABLED));
      const refusals: Array<[string[], RegExp, string?]> = [
        [['--range-reserved', '--yes'], /^hearth: give the new configuration with exactly one of --config-file <file>, --config <json> or --stdin\n$/],
        [
          ['--config-file', file, '--config', JSON.stringify(ENABLED), '--range-reserved', '--yes'],
          /^hearth: .*exactly one of .*\(got --config-file and --config\)\n$/,
        ],
        [['--config', JSON.stringify(ENABLED), '--stdin', '--range-reserved', '--yes'], /\(got --config and --stdin\)\n$/, JSON.stringify(ENABLED)],
        [
          ['--config-file', file, '--yes'],
          /^hearth: enabling Linux identities needs --range-reserved: confirm that the range 6000–6999 is reserved for Hearth/,
        ],
        [['--stdin', '--yes'], /needs --range-reserved/, JSON.stringify(ENABLED)],
        [['--config-file', file, '--range-reserved'], /^hearth: refusing to replace the Linux identity configuration without --yes/],
        [['--config', JSON.stringify({ ...DEFAULT, rangeStart: 7000, rangeEnd: 7100 })], /without --yes/],
        [
          ['--config', JSON.stringify({ enabled: false, rangeStart: null, rangeEnd: null }), '--yes'],
          /replaced as a whole: --config lacks homeTemplate, loginShell/,
        ],
        [['--config', JSON.stringify({ ...DEFAULT, extra: 1 }), '--yes'], /unknown configuration field in --config: extra/],
        [['--config', '{not json', '--yes'], /^hearth: --config is not valid JSON/],
        [['--config', '[]', '--yes'], /must hold a JSON object/],
        [['--config-file', path.join(cwd, 'missing.json'), '--yes'], /cannot read .*missing\.json: ENOENT/],
      ];
      for (const [args, message, input] of refusals) {
        const r = await hearth(['admin', 'linux', 'config', 'set', ...args, ...conn], { input });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(message);
        expect(r.stdout).toBe('');
      }
      // nothing reached the server
      expect(await storedConfig()).toEqual({ config: DEFAULT, configValid: true });
      expect(await auditCount('linux.config.update')).toBe(0);

      // the server's own refusals come through with their code
      const bad = await hearth([
        'admin',
        'linux',
        'config',
        'set',
        '--config',
        JSON.stringify({ ...ENABLED, loginShell: 'zsh' }),
        '--range-reserved',
        '--yes',
        ...conn,
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^hearth: .*loginShell must be an absolute path.*\(invalid_request, HTTP 400\)\n$/);
      expect(await storedConfig()).toEqual({ config: DEFAULT, configValid: true });
    },
    SLOW,
  );

  it(
    'set replaces the whole configuration from --config, --config-file and --stdin',
    async () => {
      // --config: a range while staying disabled needs no --range-reserved
      const disabled = { ...DEFAULT, rangeStart: 7000, rangeEnd: 7100, homeTemplate: '/u/{username}' };
      const a = await hearth(['admin', 'linux', 'config', 'set', '--config', JSON.stringify(disabled), '--yes', ...conn]);
      expect(a.stderr).toBe('');
      expect(a.code).toBe(0);
      expect(a.stdout).toBe('Saved the Linux identity configuration: disabled, range 7000–7100, home /u/{username}, shell /bin/bash.\n');
      expect(await storedConfig()).toEqual({ config: disabled, configValid: true });

      // --config-file: enabling with --range-reserved
      const file = path.join(cwd, 'enabled.json');
      fs.writeFileSync(file, JSON.stringify(ENABLED, null, 2));
      const b = await hearth(['admin', 'linux', 'config', 'set', '--config-file', file, '--range-reserved', '--yes', '--json', ...conn]);
      expect(b.code, b.stderr).toBe(0);
      expect(JSON.parse(b.stdout)).toEqual({ config: ENABLED });
      expect(await storedConfig()).toEqual({ config: ENABLED, configValid: true });

      // --stdin, here the output of `config get --json` (edited) fed back
      const got = JSON.parse((await hearth(['admin', 'linux', 'config', 'get', '--json', ...conn])).stdout);
      got.config.loginShell = '/bin/bash';
      got.config.rangeEnd = 6499;
      const c = await hearth(['admin', 'linux', 'config', 'set', '--stdin', '--range-reserved', '--yes', '--jsonl', ...conn], { input: JSON.stringify(got) });
      expect(c.code, c.stderr).toBe(0);
      expect(c.stdout.split('\n')).toHaveLength(2);
      const final = { ...ENABLED, rangeEnd: 6499, loginShell: '/bin/bash' };
      expect(JSON.parse(c.stdout)).toEqual({ config: final });
      expect(await storedConfig()).toEqual({ config: final, configValid: true });
      expect(await auditCount('linux.config.update')).toBe(3);

      // the human form reminds that there is no backfill
      const d = await hearth(['admin', 'linux', 'config', 'set', '--config', JSON.stringify(final), '--range-reserved', '--yes', ...conn]);
      expect(d.stdout).toMatch(
        /^Saved the Linux identity configuration: enabled, range 6000–6499, home \/srv\/home\/\{username\}, shell \/bin\/bash\.\nNew full accounts get an identity from now on\. Existing accounts are not backfilled/,
      );
    },
    SLOW,
  );
});

describe('hearth accounts users linux and groups make-posix', () => {
  it(
    'get, prepare (idempotent), update one account',
    async () => {
      // created while disabled: no identity, nothing assigned when enabling
      const cfg = (await storedConfig()).config;
      expect((await api(`${L}/configuration`, 'PUT', { config: { ...cfg, enabled: false }, rangeReserved: false })).status).toBe(200);
      const eve = await createAccount('eve');
      const gus = await createAccount('gus', { profile: 'guest' });
      const off = await hearth(['accounts', 'users', 'linux', 'prepare', 'eve', '--yes', ...conn]);
      expect(off.code).toBe(1);
      expect(off.stderr).toMatch(/^hearth: Linux identity assignment is not enabled \(linux_disabled, HTTP 409\)\n$/);
      expect((await hearth(['admin', 'linux', 'config', 'set', '--config', JSON.stringify(cfg), '--range-reserved', '--yes', ...conn])).code).toBe(0);
      expect((await api(`${L}/users/${eve.sub}`)).json.identity).toBeNull();

      const before = await hearth(['accounts', 'users', 'linux', 'get', 'eve', ...conn]);
      expect(before.code, before.stderr).toBe(0);
      expect(before.stdout).toMatch(/^login:\s+eve$/m);
      expect(before.stdout).toMatch(/^eligible:\s+yes$/m);
      expect(before.stdout).toMatch(/^identity:\s+none$/m);
      expect(before.stdout).toMatch(/^uid:\s+-$/m);

      const noYes = await hearth(['accounts', 'users', 'linux', 'prepare', 'eve', ...conn]);
      expect(noYes.code).toBe(1);
      expect(noYes.stderr).toMatch(/^hearth: refusing to assign a Linux identity to eve without --yes/);
      expect((await api(`${L}/users/${eve.sub}`)).json.identity).toBeNull();

      const first = await hearth(['accounts', 'users', 'linux', 'prepare', 'eve', '--yes', '--json', ...conn]);
      expect(first.code, first.stderr).toBe(0);
      const prepared = JSON.parse(first.stdout);
      expect(prepared).toMatchObject({
        sub: eve.sub,
        created: true,
        identity: { username: 'eve', primaryGroup: 'eve', homeDirectory: '/srv/home/eve', loginShell: '/bin/bash' },
      });
      const uid = prepared.identity.uid as number;
      expect(uid).toBeGreaterThanOrEqual(6000);
      expect(prepared.identity.gid).toBe(uid);
      // a repeat (by sub) changes nothing
      const again = await hearth(['accounts', 'users', 'linux', 'prepare', eve.sub, '--yes', ...conn]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`eve already has the Linux identity eve: uid ${uid}, gid ${uid} (unchanged).\n`);
      const againJson = JSON.parse((await hearth(['accounts', 'users', 'linux', 'prepare', 'eve', '--yes', '--jsonl', ...conn])).stdout);
      expect(againJson).toMatchObject({ created: false, identity: { uid, gid: uid } });
      expect((await api(`${L}/users/${eve.sub}`)).json.identity).toMatchObject({ uid, gid: uid });
      expect(await s.services.store.get("SELECT count(*) AS n FROM audit_log WHERE action = 'linux.identity.assign' AND target = ?", [eve.sub])).toEqual({
        n: 1,
      });

      const shown = await hearth(['accounts', 'users', 'linux', 'get', eve.sub, ...conn]);
      expect(shown.stdout).toMatch(new RegExp(`^uid:\\s+${uid}$`, 'm'));
      expect(shown.stdout).toMatch(/^home:\s+\/srv\/home\/eve$/m);
      expect(shown.stdout).toMatch(/^conflicts:\s+none$/m);
      expect(JSON.parse((await hearth(['accounts', 'users', 'linux', 'get', 'eve', '--json', ...conn])).stdout)).toEqual(
        (await api(`${L}/users/${eve.sub}`)).json,
      );

      // update: both paths and --yes are required
      expect((await hearth(['accounts', 'users', 'linux', 'update', 'eve', '--home', '/data/eve', '--yes', ...conn])).stderr).toBe(
        'hearth: give both --home <path> and --shell <path> (they are set together)\n',
      );
      const updNoYes = await hearth(['accounts', 'users', 'linux', 'update', 'eve', '--home', '/data/eve', '--shell', '/usr/bin/fish', ...conn]);
      expect(updNoYes.code).toBe(1);
      expect(updNoYes.stderr).toMatch(/without --yes/);
      const upd = await hearth(['accounts', 'users', 'linux', 'update', 'eve', '--home', '/data/eve', '--shell', '/usr/bin/fish', '--yes', ...conn]);
      expect(upd.code, upd.stderr).toBe(0);
      expect(upd.stdout).toBe('Updated the Linux identity of eve: home /data/eve, shell /usr/bin/fish.\n');
      expect((await api(`${L}/users/${eve.sub}`)).json.identity).toEqual({
        username: 'eve',
        uid,
        gid: uid,
        primaryGroup: 'eve',
        homeDirectory: '/data/eve',
        loginShell: '/usr/bin/fish',
      });
      const badPath = await hearth(['accounts', 'users', 'linux', 'update', 'eve', '--home', 'data/eve', '--shell', '/bin/sh', '--yes', ...conn]);
      expect(badPath.code).toBe(1);
      expect(badPath.stderr).toMatch(/homeDirectory must be an absolute path.*\(invalid_request, HTTP 400\)\n$/);

      // the server's refusals: a guest, an account without an identity, an unknown login
      const guest = await hearth(['accounts', 'users', 'linux', 'prepare', 'gus', '--yes', ...conn]);
      expect(guest.code).toBe(1);
      expect(guest.stderr).toMatch(/\(linux_not_eligible, HTTP 409\)\n$/);
      expect((await hearth(['accounts', 'users', 'linux', 'get', gus.sub, ...conn])).stdout).toMatch(/^eligible:\s+no/m);
      const fred = await createAccount('fred'); // created while enabled: assigned at once
      expect((await api(`${L}/users/${fred.sub}`)).json.identity).not.toBeNull();
      expect((await api(`${L}/configuration`, 'PUT', { config: { ...cfg, enabled: false }, rangeReserved: false })).status).toBe(200);
      await createAccount('gina');
      const none = await hearth(['accounts', 'users', 'linux', 'update', 'gina', '--home', '/x/gina', '--shell', '/bin/sh', '--yes', ...conn]);
      expect(none.stderr).toMatch(/\(linux_identity_not_found, HTTP 404\)\n$/);
      expect((await hearth(['accounts', 'users', 'linux', 'get', 'nobody', ...conn])).stderr).toBe('hearth: no account with login "nobody"\n');
      // editing works while assignment is disabled
      expect((await hearth(['accounts', 'users', 'linux', 'update', 'eve', '--home', '/data/eve2', '--shell', '/bin/sh', '--yes', ...conn])).code).toBe(0);
      expect((await api(`${L}/users/${eve.sub}`)).json.identity).toMatchObject({ uid, homeDirectory: '/data/eve2', loginShell: '/bin/sh' });
      expect((await api(`${L}/configuration`, 'PUT', { config: cfg, rangeReserved: true })).status).toBe(200);
    },
    SLOW,
  );

  it(
    'groups make-posix gives a group a GID once',
    async () => {
      const staff = (await api('/api/admin/core/groups', 'POST', { name: 'staff' })).json as { id: string };
      const noYes = await hearth(['accounts', 'groups', 'make-posix', 'staff', ...conn]);
      expect(noYes.code).toBe(1);
      expect(noYes.stderr).toMatch(/^hearth: refusing to make group staff a POSIX group without --yes/);
      const posixRows = async (id: string) => await s.services.store.value<number>('SELECT count(*) AS n FROM linux_groups WHERE group_id = ?', [id]);
      expect(await posixRows(staff.id)).toBe(0);
      expect((await hearth(['accounts', 'groups', 'make-posix', staff.id, '--yes', ...conn])).stdout).toMatch(
        /^Group staff is now a POSIX group with GID \d+\.\n$/,
      );
      expect(await posixRows(staff.id)).toBe(1);
      await api('/api/admin/core/groups', 'POST', { name: 'office' });
      const made = await hearth(['accounts', 'groups', 'make-posix', 'office', '--yes', '--json', ...conn]);
      expect(made.code, made.stderr).toBe(0);
      const r = JSON.parse(made.stdout);
      expect(r).toMatchObject({ name: 'office', created: true });
      expect(r.gid).toBeGreaterThanOrEqual(6000);
      const again = await hearth(['accounts', 'groups', 'make-posix', r.id, '--yes', ...conn]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(`Group office already has GID ${r.gid} (unchanged).\n`);
      expect((await api(`${L}/groups/${r.id}`, 'POST')).json).toEqual({ id: r.id, name: 'office', gid: r.gid, created: false });
      // a group cannot take the name of an identity's private group; one that has it (written before such names were
      // refused) cannot become a POSIX group
      expect((await api('/api/admin/core/groups', 'POST', { name: 'eve' })).status).toBe(409);
      await s.services.store.run("INSERT INTO identity_groups (id, name, description, created_at, updated_at) VALUES (?, 'eve', '', 0, 0)", [
        crypto.randomUUID(),
      ]);
      const conflict = await hearth(['accounts', 'groups', 'make-posix', 'eve', '--yes', ...conn]);
      expect(conflict.code).toBe(1);
      expect(conflict.stderr).toMatch(/\(linux_conflict, HTTP 409\)\n$/);
      expect((await hearth(['accounts', 'groups', 'make-posix', 'nogroup', '--yes', ...conn])).stderr).toBe('hearth: no group named "nogroup"\n');
    },
    SLOW,
  );
});

describe('hearth admin linux preview', () => {
  it(
    'pages with --after as JSON, JSON lines and a table, filters by scope and search, and changes nothing',
    async () => {
      // 55 accounts without an identity (assignment off while creating them), so that there are two pages
      const cfg = (await storedConfig()).config;
      expect((await api(`${L}/configuration`, 'PUT', { config: { ...cfg, enabled: false }, rangeReserved: false })).status).toBe(200);
      for (let i = 0; i < 55; i++) await createAccount(`bulk${String(i).padStart(2, '0')}`);
      expect((await api(`${L}/configuration`, 'PUT', { config: cfg, rangeReserved: true })).status).toBe(200);
      const total = (await api(`${A}?per_page=1`)).json.total as number;
      const assigned = async () => await s.services.store.value<number>('SELECT count(*) AS n FROM linux_identities');
      const identitiesBefore = await assigned();

      const p1 = await hearth(['admin', 'linux', 'preview', '--json', ...conn]);
      expect(p1.code, p1.stderr).toBe(0);
      expect(p1.stderr).toBe('');
      const page1 = JSON.parse(p1.stdout);
      expect(page1).toMatchObject({ config: cfg, configValid: true });
      expect(page1.accounts).toHaveLength(50);
      expect(page1.nextCursor).toBe(page1.accounts[49].sub);
      const l2 = await hearth(['admin', 'linux', 'preview', '--after', page1.nextCursor, '--jsonl', ...conn]);
      expect(l2.code, l2.stderr).toBe(0);
      const page2 = l2.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(page1.accounts.length + page2.length).toBe(total);
      expect(l2.stderr).toBe(''); // the last page: no cursor hint
      const subs = [...page1.accounts, ...page2].map((a: { sub: string }) => a.sub);
      expect(new Set(subs).size).toBe(total);
      expect([...subs].sort()).toEqual(subs);
      expect(JSON.parse((await hearth(['admin', 'linux', 'preview', '--after', page1.nextCursor, '--json', ...conn])).stdout)).toMatchObject({
        nextCursor: null,
        accounts: page2,
      });
      // --jsonl of the first page gives the cursor on standard error
      const l1 = await hearth(['admin', 'linux', 'preview', '--jsonl', ...conn]);
      expect(l1.stdout.trim().split('\n')).toHaveLength(50);
      expect(l1.stderr).toBe(`More accounts: next page with \`hearth admin linux preview --after ${page1.nextCursor}\`, or every page with --all.\n`);

      // --all follows the cursors
      const all = await hearth(['admin', 'linux', 'preview', '--all', '--jsonl', ...conn]);
      expect(
        all.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).sub),
      ).toEqual(subs);
      expect(all.stderr).toBe('');

      // the table
      const table = await hearth(['admin', 'linux', 'preview', '--search', 'eve', ...conn]);
      expect(table.code, table.stderr).toBe(0);
      expect(table.stdout).toMatch(/^LOGIN\s+PROFILE\s+ELIGIBLE\s+UID\s+GID\s+HOME\s+SHELL\s+CONFLICTS$/m);
      const eveUid = (await api(`${L}/users/${(await api(`${A}?search=eve`)).json.data[0].sub}`)).json.identity.uid;
      expect(table.stdout).toMatch(new RegExp(`^eve\\s+user\\s+yes\\s+${eveUid}\\s+${eveUid}\\s+/data/eve2\\s+/bin/sh\\s+-$`, 'm'));
      const first = await hearth(['admin', 'linux', 'preview', ...conn]);
      expect(first.stdout.trim().split('\n')).toHaveLength(51);
      expect(first.stderr).toMatch(/--after [0-9a-f-]{36}/);
      const guests = await hearth(['admin', 'linux', 'preview', '--search', 'gus', ...conn]);
      expect(guests.stdout).toMatch(/^gus\s+guest\s+no\s+-\s+-\s+-\s+-\s+-$/m);

      // scope=ready: eligible accounts without an identity only, and the cursor hint keeps the scope
      const ready = await hearth(['admin', 'linux', 'preview', '--scope', 'ready', '--all', '--json', ...conn]);
      const readyAccounts = JSON.parse(ready.stdout).accounts as Array<Record<string, unknown>>;
      expect(readyAccounts.length).toBeGreaterThanOrEqual(56); // bulk00–54 and gina
      for (const a of readyAccounts) expect(a).toMatchObject({ eligible: true, identity: null });
      expect(readyAccounts.some((a) => a.login === 'eve')).toBe(false);
      const readyPage = await hearth(['admin', 'linux', 'preview', '--scope', 'ready', '--search', 'bulk', ...conn]);
      expect(readyPage.stderr).toMatch(/^More accounts: next page with `hearth admin linux preview --after [0-9a-f-]{36} --scope ready --search "bulk"`/);

      // refusals
      expect((await hearth(['admin', 'linux', 'preview', '--scope', 'some', ...conn])).stderr).toBe('hearth: --scope must be all or ready (got "some")\n');
      const badCursor = await hearth(['admin', 'linux', 'preview', '--after', 'not-a-uuid', ...conn]);
      expect(badCursor.code).toBe(1);
      expect(badCursor.stderr).toMatch(/after must be a UUID.*\(invalid_request, HTTP 400\)\n$/);

      // previewing never assigned anything
      expect(await assigned()).toBe(identitiesBefore);
    },
    SLOW,
  );
});
