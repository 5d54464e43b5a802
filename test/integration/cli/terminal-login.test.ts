import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairDevice, type ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { type CliRun, printed, runCli, startCli } from '../../helpers/cli.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

/**
 * `hearth login --user` against the real server: the CLI requests a device authorization with `login_hint` and
 * polls, while the scripted authenticator (a real P-256 key, signed device commands) approves or denies in its inbox.
 */
/** Each sign-in waits for at least one polling interval (5 s) of the real CLI. */
const SLOW = 120_000;
/**
 * How long the CLI may take to start and print its code before the test gives up: a start from source is a second
 * on a quiet machine and many more on a loaded one, so only a hang ends the wait (the rest of the test fits in SLOW).
 */
const PRINTS_WITHIN = 60_000;
const PASSWORD = 'correct horse battery';
const SCOPE = 'openid profile email offline_access read write admin';

const dirs: string[] = [tempDir('hearth-cli-cwd-')];
const start = (args: string[], configDir: string): CliRun => startCli(args, { cwd: dirs[0]!, env: { HEARTH_CONFIG_DIR: configDir } });
const hearth = (args: string[], configDir: string) => runCli(args, { cwd: dirs[0]!, env: { HEARTH_CONFIG_DIR: configDir } });
const configDir = () => {
  const d = tempDir('hearth-config-');
  dirs.push(d);
  return path.join(d, 'hearth');
};

/** Waits for the comparison code the CLI prints. */
async function comparisonCode(r: CliRun): Promise<string> {
  return (await printed(r, /Approve the sign-in in your authenticator app; compare the code (\d{6})\n/, 'the comparison code', PRINTS_WITHIN))[1]!;
}

let s: TestServer;
let phone: ScriptedAuthenticator;
let aliceSub: string;

async function decideInApp(code: string, decision: 'approve' | 'deny') {
  const inbox = await phone.command({ operation: 'inbox', accept: ['terminal-logins'] });
  expect(inbox.status).toBe(200);
  const e = (inbox.body.logins as Array<Record<string, any>>).find((l) => l.comparison === code)!;
  expect(e.terminal).toMatchObject({ client: { id: 'hearth-cli' }, scopes: SCOPE.split(' '), lifetimeSeconds: 7 * 86400 });
  const r = await phone.command({ operation: 'decide', requestId: e.requestId, challenge: e.challenge, comparison: e.comparison, decision });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

beforeAll(async () => {
  // The approval protocol is disabled without an authenticator origin (503 approval_disabled).
  s = await startTestServer({ authenticatorOrigin: 'https://auth.example.test' });
  const setup = await fetch(`${s.url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: s.url },
    body: JSON.stringify({ login: 'root', password: PASSWORD }),
  });
  expect(setup.status).toBe(201);
  const created = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'alice', email: 'alice@example.test' } });
  expect(created.status).toBe(201);
  aliceSub = (await created.json()).sub;
  const pw = await s.api(`/api/admin/core/accounts/${aliceSub}/password`, { method: 'PUT', json: { password: PASSWORD } });
  expect(pw.status).toBe(204);
  phone = await pairDevice(s, await signIn(s, 'alice', PASSWORD), 'Alice phone');
}, SLOW);
afterAll(async () => {
  await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('hearth login --user', () => {
  it(
    'prints the code, client and scopes, polls while the app approves, stores the sign-in; whoami shows the account',
    async () => {
      const dir = configDir();
      const r = start(['login', '--user', 'alice', '--url', s.url], dir);
      const code = await comparisonCode(r);
      expect(r.stderr()).toContain(`  client: hearth-cli\n  scopes: ${SCOPE}\n`);
      await decideInApp(code, 'approve');
      expect(await r.done, r.stderr()).toBe(0);
      expect(r.stdout()).toBe(`Signed in to ${s.url} as alice\n`);

      const entry = JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8')).servers[s.url];
      expect(entry).toMatchObject({ issuer: s.url, clientId: 'hearth-cli', scope: SCOPE, account: { sub: aliceSub, login: 'alice' } });
      expect(entry.refreshToken).toMatch(/^hrt_/);
      expect(fs.statSync(path.join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
      // the refresh grant of a terminal sign-in is capped at seven days
      // Rows read and written through the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
      const fam = (await s.services.store.get<Record<string, number>>('SELECT * FROM oauth_refresh_families WHERE sub = ? ORDER BY created_at DESC', [
        aliceSub,
      ]))!;
      expect(fam.expires_at - fam.created_at).toBe(7 * 86400_000);

      const who = await hearth(['whoami', '--url', s.url], dir);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).toMatch(new RegExp(`^account:\\s+alice \\(${aliceSub}\\)$`, 'm'));
      // the stored sign-in works against the API
      const me = await fetch(`${s.url}/api/auth/whoami`, { headers: { authorization: `Bearer ${entry.accessToken}` } });
      expect(me.status).toBe(200);
    },
    SLOW,
  );

  it(
    'a denial in the app ends with a one-line error and exit status 3; nothing is stored',
    async () => {
      const dir = configDir();
      const r = start(['login', '--user', 'alice@example.test', '--url', s.url], dir);
      await decideInApp(await comparisonCode(r), 'deny');
      expect(await r.done).toBe(3);
      expect(r.stderr().trim().split('\n').at(-1)).toBe('hearth: the sign-in was denied in the authenticator app');
      expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
    },
    SLOW,
  );

  it(
    'an expired request ends with exit status 4',
    async () => {
      const dir = configDir();
      const r = start(['login', '--user', 'alice', '--url', s.url], dir);
      await comparisonCode(r);
      // no injectable clock: the request's expiry is moved into the past in the stored rows
      const rows = await s.services.store.run("UPDATE oauth_device_authorizations SET expires_at = ? WHERE state = 'pending' AND mode = 'app'", [
        Date.now() - 1,
      ]);
      expect(rows.changes).toBe(1);
      expect(await r.done).toBe(4);
      expect(r.stderr().trim().split('\n').at(-1)).toBe('hearth: the sign-in request expired before it was approved: run `hearth login --user` again');
    },
    SLOW,
  );

  it(
    'Ctrl-C stops the waiting with exit status 130',
    async () => {
      const dir = configDir();
      const r = start(['login', '--user', 'alice', '--url', s.url], dir);
      await comparisonCode(r);
      r.child.kill('SIGINT');
      expect(await r.done).toBe(130);
      expect(r.stderr().trim().split('\n').at(-1)).toBe('hearth: sign-in stopped (Ctrl-C)');
      expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
    },
    SLOW,
  );

  it(
    'refusals of the server are one line with exit status 1',
    async () => {
      const r = await hearth(['login', '--user', ' ', '--url', s.url], configDir());
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('hearth: --user needs a login name or email address\n');
      const long = await hearth(['login', '--user', `${'x'.repeat(300)}`, '--url', s.url], configDir());
      expect(long.code).toBe(1);
      expect(long.stderr).toMatch(/^hearth: the server refused the terminal sign-in: login_hint must be .* \(invalid_request\)\n$/);
    },
    SLOW,
  );
});

describe('hearth login --device', () => {
  /** Waits for the code and address the CLI prints for the browser page. */
  async function printedCode(r: CliRun): Promise<{ uri: string; code: string }> {
    const m = await printed(
      r,
      /To sign in, open (\S+) in a browser on any device and enter the code ([A-Z]{4}-[A-Z]{4})\n/,
      'the page and code',
      PRINTS_WITHIN,
    );
    return { uri: m[1]!, code: m[2]! };
  }
  const decideInBrowser = async (cookie: string, code: string, decision: 'approve' | 'deny') => {
    const form = (body: Record<string, string>) => ({
      method: 'POST',
      headers: { cookie, origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body),
    });
    const consent = await fetch(`${s.url}/oauth/device`, form({ user_code: code }));
    expect(consent.status).toBe(200);
    expect(await consent.text()).toContain(code);
    const r = await fetch(`${s.url}/oauth/device/decision`, form({ user_code: code, decision }));
    expect(r.status).toBe(200);
  };

  it(
    'prints the page and code, polls while the user approves in a browser, stores the sign-in; whoami shows the account',
    async () => {
      const dir = configDir();
      const r = start(['login', '--device', '--url', s.url], dir);
      const { uri, code } = await printedCode(r);
      expect(uri).toBe(`${s.url}/oauth/device`);
      expect(r.stderr()).toContain(`(or open ${s.url}/oauth/device?user_code=${code})`);
      await decideInBrowser(await signIn(s, 'alice', PASSWORD), code, 'approve');
      expect(await r.done, r.stderr()).toBe(0);
      expect(r.stdout()).toBe(`Signed in to ${s.url} as alice\n`);
      const who = await hearth(['whoami', '--url', s.url], dir);
      expect(who.code, who.stderr).toBe(0);
      expect(who.stdout).toMatch(new RegExp(`^account:\\s+alice \\(${aliceSub}\\)$`, 'm'));
    },
    SLOW,
  );

  it(
    'a denial in the browser ends with exit status 3; --device and --user together are refused',
    async () => {
      const dir = configDir();
      const r = start(['login', '--device', '--url', s.url], dir);
      const { code } = await printedCode(r);
      await decideInBrowser(await signIn(s, 'alice', PASSWORD), code, 'deny');
      expect(await r.done).toBe(3);
      expect(r.stderr().trim().split('\n').at(-1)).toBe('hearth: the sign-in was denied in the browser');
      expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
      const both = await hearth(['login', '--device', '--user', 'alice', '--url', s.url], configDir());
      expect(both.code).toBe(1);
      expect(both.stderr).toBe('hearth: use either --user (approve in the authenticator app) or --device (enter the code in a browser), not both\n');
    },
    SLOW,
  );
});
