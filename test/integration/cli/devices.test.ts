/**
 * `hearth accounts users devices list|revoke` with the real CLI against a real server: devices are paired with the
 * real protocol (administrator-assisted pairing, a scripted authenticator with a real P-256 key).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { runCli } from '../../helpers/cli.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

/** Each test spawns the CLI several times (about half a second each, more on a busy machine). */
const SLOW = 120_000;
const A = '/api/admin/core/accounts';
const PASSWORD = 'devices-admin-Passw0rd!';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let cwd: string;
let emptyConfig: string;
/** `hearth <args>` with an empty config folder: no `hearth login` of the developer running the tests can interfere. */
const hearth = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { cwd, env: { HEARTH_CONFIG_DIR: emptyConfig, ...opts.env }, input: opts.input });

let s: TestServer;
let conn: string[];
let admin: string;
beforeAll(async () => {
  cwd = tempDir('hearth-cli-cwd-');
  emptyConfig = tempDir('hearth-cli-config-');
  // The approval protocol is disabled without an authenticator origin (503 approval_disabled).
  s = await startTestServer({ authenticatorOrigin: 'https://auth.example.test' });
  conn = ['--url', s.url, '--token', s.token];
  const root = await createAccount('root', { admin: true });
  expect((await s.api(`${A}/${root.sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
  admin = await signIn(s, 'root', PASSWORD);
});
afterAll(async () => {
  await s.stop();
  for (const d of [cwd, emptyConfig]) fs.rmSync(d, { recursive: true, force: true });
});

async function createAccount(login: string, extra: Record<string, unknown> = {}) {
  // An email address: pairing a device needs one (409 email_required otherwise).
  const r = await s.api(A, { method: 'POST', json: { login, email: `${login}@example.test`, ...extra } });
  const body = await r.json();
  expect(r.status, JSON.stringify(body)).toBe(201);
  return body as { sub: string; login: string };
}
/** Administrator-assisted pairing of a device for `sub` (start, claim by the device, confirm). */
async function pair(sub: string, name: string): Promise<ScriptedAuthenticator> {
  const start = await manage(s, admin, '/manage/pairings/start', { userId: sub });
  expect(start.status, JSON.stringify(start.body)).toBe(201);
  const device = await ScriptedAuthenticator.create(s.url);
  const claim = await device.claim(start.body, name);
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  const confirm = await manage(s, admin, '/manage/pairings/confirm', { pairingId: start.body.pairingId, comparison: claim.body.comparison });
  expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
  return device;
}
const apiDevices = async (sub: string) => (await (await s.api(`/api/admin/core/users/${sub}/app-devices`)).json()).items as Array<Record<string, any>>;
// Audit rows read through the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const audits = async () =>
  (
    await s.services.store.all<{ actor: string; target: string; detail: string }>(
      "SELECT actor, target, detail FROM audit_log WHERE action = 'auth.app.device.revoke' ORDER BY id",
    )
  ).map((r) => ({ ...r, detail: JSON.parse(r.detail) }));

describe('hearth accounts users devices: usage', () => {
  it(
    'refuses without --yes, with a malformed device id, with both --json and --jsonl, and for an unknown user',
    async () => {
      const pat = await createAccount('pat');
      const id = '0b5d6b0e-8f0b-4a8e-9c55-9d1c3f5b2a11';
      const refusals: Array<[string[], string]> = [
        [['revoke', 'pat', id], `hearth: refusing to revoke the device ${id} of pat without --yes (it changes the server's data)\n`],
        [['revoke', 'pat', 'phone', '--yes'], 'hearth: "phone" is not a device ID: give the id shown by `hearth accounts users devices list pat`\n'],
        [['revoke', 'pat', id, '--yes', '--json', '--jsonl'], 'hearth: choose one of --json or --jsonl\n'],
        [['list', 'pat', '--json', '--jsonl'], 'hearth: choose one of --json or --jsonl\n'],
        [['list', 'nobody'], 'hearth: no account with login "nobody"\n'],
        [['revoke', 'nobody', id, '--yes'], 'hearth: no account with login "nobody"\n'],
      ];
      for (const [args, stderr] of refusals) {
        const r = await hearth(['accounts', 'users', 'devices', ...args, ...conn]);
        expect(r.stderr, args.join(' ')).toBe(stderr);
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stdout).toBe('');
      }
      // a well-formed id that is not one of the account's devices: the server's answer comes through
      const unknown = await hearth(['accounts', 'users', 'devices', 'revoke', 'pat', id, '--yes', ...conn]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^hearth: .*\(device_not_found, HTTP 404\)\n$/);
      expect(await audits()).toEqual([]);
      // no devices yet
      expect(await hearth(['accounts', 'users', 'devices', 'list', 'pat', ...conn])).toEqual({ code: 0, stdout: '(none)\n', stderr: '' });
      const json = await hearth(['accounts', 'users', 'devices', 'list', pat.sub, '--json', ...conn]);
      expect(JSON.parse(json.stdout)).toEqual([]);
    },
    SLOW,
  );
});

describe('hearth accounts users devices list and revoke', () => {
  it(
    'lists the devices as a table, JSON and JSON lines; revokes one at once (the device can no longer sign), revoked ones stay listed',
    async () => {
      const quinn = await createAccount('quinn');
      const phone = await pair(quinn.sub, 'Quinn phone');
      const tablet = await pair(quinn.sub, 'Tablet');
      expect((await phone.command({ operation: 'account' })).status).toBe(200);

      const api = await apiDevices(quinn.sub);
      expect(api).toHaveLength(2);
      const json = await hearth(['accounts', 'users', 'devices', 'list', 'quinn', '--json', ...conn]);
      expect(json.stderr).toBe('');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual(api);
      expect(api.map((d) => [d.id, d.name, d.revokedAt, d.assisted])).toEqual(
        expect.arrayContaining([
          [phone.deviceId, 'Quinn phone', null, true],
          [tablet.deviceId, 'Tablet', null, true],
        ]),
      );
      const jsonl = await hearth(['accounts', 'users', 'devices', 'list', 'QUINN', '--jsonl', ...conn]);
      expect(
        jsonl.stdout
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual(api);
      const table = await hearth(['accounts', 'users', 'devices', 'list', 'quinn', ...conn]);
      expect(table.code).toBe(0);
      const lines = table.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+NAME\s+STATE\s+CREATED\s+LAST_USED\s+ASSISTED$/);
      expect(lines.slice(1).find((l) => l.startsWith(phone.deviceId!))).toMatch(
        new RegExp(`^${phone.deviceId}\\s+Quinn phone\\s+active\\s+\\S+Z\\s+\\S+\\s+yes$`),
      );
      expect(lines).toHaveLength(3);

      // revoke by login, for people
      const revoked = await hearth(['accounts', 'users', 'devices', 'revoke', 'quinn', phone.deviceId!, '--yes', ...conn]);
      expect(revoked.stderr).toBe('');
      expect(revoked.code).toBe(0);
      const after = await apiDevices(quinn.sub);
      const gone = after.find((d) => d.id === phone.deviceId)!;
      expect(gone.revokedAt).toEqual(expect.any(String));
      expect(revoked.stdout).toBe(`Revoked the device "Quinn phone" (${phone.deviceId}) of quinn at ${gone.revokedAt}.\n`);
      expect(await phone.command({ operation: 'account' })).toMatchObject({ status: 403, body: { error: 'device_revoked' } });
      expect((await tablet.command({ operation: 'account' })).status).toBe(200);
      expect(await audits()).toEqual([
        expect.objectContaining({ target: quinn.sub, detail: expect.objectContaining({ deviceId: phone.deviceId, by: 'administrator' }) }),
      ]);

      // revoke by sub, as JSON
      const asJson = await hearth(['accounts', 'users', 'devices', 'revoke', quinn.sub, tablet.deviceId!.toUpperCase(), '--yes', '--json', ...conn]);
      expect(asJson.code).toBe(0);
      expect(JSON.parse(asJson.stdout)).toEqual({
        id: tablet.deviceId,
        name: 'Tablet',
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        revokedAt: expect.any(String),
        assisted: true,
      });
      expect(await tablet.command({ operation: 'account' })).toMatchObject({ status: 403, body: { error: 'device_revoked' } });

      // both stay listed with their revocation time
      const listed = await hearth(['accounts', 'users', 'devices', 'list', 'quinn', ...conn]);
      const rows = listed.stdout.trimEnd().split('\n').slice(1);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row).toMatch(new RegExp(`^${UUID.source.slice(1, -1)}\\s+\\S.*\\s+revoked \\S+Z\\s`));
    },
    SLOW,
  );

  it(
    'list reads every page (devices come in pages of twenty)',
    async () => {
      const rae = await createAccount('rae');
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await pair(rae.sub, `Device ${i}`)).deviceId!);
      expect((await s.api(`/api/admin/core/users/${rae.sub}/app-devices/${ids[0]}/revoke`, { method: 'POST' })).status).toBe(200);
      ids.push((await pair(rae.sub, 'Device 20')).deviceId!);
      const first = await (await s.api(`/api/admin/core/users/${rae.sub}/app-devices`)).json();
      expect(first.nextCursor).not.toBeNull(); // the API needs a second page

      const json = await hearth(['accounts', 'users', 'devices', 'list', 'rae', '--json', ...conn]);
      expect(json.code).toBe(0);
      const listed = JSON.parse(json.stdout) as Array<{ id: string; revokedAt: string | null }>;
      expect(listed.map((d) => d.id).sort()).toEqual([...ids].sort());
      expect(listed.filter((d) => d.revokedAt !== null).map((d) => d.id)).toEqual([ids[0]]);
    },
    SLOW,
  );
});
