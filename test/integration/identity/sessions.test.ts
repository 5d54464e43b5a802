import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startServer } from '../../../server/boot.ts';
import { runCli } from '../../helpers/cli.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const ADMIN_PASSWORD = 'first-admin-Passw0rd!';
const USER_PASSWORD = 'user-secret-Passw0rd?';
const NEW_PASSWORD = 'changed-secret-Passw0rd#';
const PASSWORDS = [ADMIN_PASSWORD, USER_PASSWORD, NEW_PASSWORD];

let s: TestServer;
const logLines: string[] = [];
const bodies: string[] = [];

/** fetch with no bearer token; every response body is kept (the password must never appear in one). */
async function call(pathname: string, init: { method?: string; json?: unknown; cookie?: string; origin?: string | null; token?: string } = {}) {
  const headers = new Headers();
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.origin) headers.set('origin', init.origin);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const r = await fetch(s.url + pathname, { method: init.method ?? 'GET', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await r.text();
  bodies.push(text);
  return { status: r.status, headers: r.headers, text, json: text ? (JSON.parse(text) as Record<string, any>) : null };
}

const sessionCookie = (h: Headers) => h.getSetCookie().find((c) => c.startsWith('hearth_session='))!;
const cookiePair = (setCookie: string) => setCookie.split(';')[0]!;

async function login(loginName: string, password: string) {
  const r = await call('/api/auth/login', { method: 'POST', json: { login: loginName, password } });
  expect(r.status, r.text).toBe(200);
  return { ...r, cookie: cookiePair(sessionCookie(r.headers)) };
}

async function createUser(loginName: string, password: string, extra: Record<string, unknown> = {}) {
  const created = await call('/api/admin/core/accounts', { method: 'POST', token: s.token, json: { login: loginName, ...extra } });
  expect(created.status, created.text).toBe(201);
  const sub = created.json!.sub as string;
  const set = await call(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', token: s.token, json: { password } });
  expect(set.status, set.text).toBe(204);
  return sub;
}

beforeAll(async () => {
  s = await startTestServer({ logLevel: 'trace', logDestination: { write: (l: string) => void logLines.push(l) } as never });
});
afterAll(async () => {
  await s.stop();
});

describe('first-run setup', () => {
  it('creates the first administrator only once, its password hashed with the production parameters', async () => {
    // The suite hashes with light parameters (HEARTH_TEST_PASSWORD_HASHING, vitest.config.ts); this account is hashed
    // as a real installation hashes, and the sign-ins below verify it at that cost.
    const light = process.env.HEARTH_TEST_PASSWORD_HASHING;
    delete process.env.HEARTH_TEST_PASSWORD_HASHING;
    onTestFinished(() => {
      if (light !== undefined) process.env.HEARTH_TEST_PASSWORD_HASHING = light;
    });
    expect((await call('/api/setup')).json).toEqual({ needed: true });
    const bad = await call('/api/setup', { method: 'POST', json: { login: 'root', password: 'short' } });
    expect(bad.status).toBe(400);
    const first = await call('/api/setup', { method: 'POST', json: { login: 'root', password: ADMIN_PASSWORD, displayName: 'Root' } });
    expect(first.status, first.text).toBe(201);
    expect(first.json!.account).toMatchObject({ login: 'root', displayName: 'Root', admin: true });
    const second = await call('/api/setup', { method: 'POST', json: { login: 'other', password: ADMIN_PASSWORD } });
    expect(second.status).toBe(409);
    expect(second.json!.error).toBe('already_set_up');
    expect((await call('/api/setup')).json).toEqual({ needed: false });
    const hash = (await s.services.store.value<string>('SELECT hash FROM identity_passwords'))!;
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
  });
});

describe('sign-in', () => {
  it('sets an HttpOnly SameSite cookie that works on admin routes and the data plane', async () => {
    const r = await login('root', ADMIN_PASSWORD);
    expect(r.json).toEqual({ account: { sub: expect.any(String), login: 'root', displayName: 'Root', admin: true } });
    const set = sessionCookie(r.headers);
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=(Lax|Strict)/);
    expect(set).toMatch(/; Path=\//);
    expect(set).not.toMatch(/; Secure/); // the public URL is http here
    expect((await call('/api/admin/core/accounts', { cookie: r.cookie })).status).toBe(200);
    expect((await call('/v1/namespaces', { cookie: r.cookie })).status).toBe(200);
    const me = await call('/api/auth/session', { cookie: r.cookie });
    expect(me.status).toBe(200);
    expect(me.json!.account).toMatchObject({ login: 'root', admin: true });
    expect(me.json!.session.recentAuth).toBe(true);
    expect((await call('/api/auth/session')).status).toBe(401);
    expect((await call('/api/admin/core/accounts', { cookie: 'hearth_session=bogus.value' })).status).toBe(401);
  });

  it('answers the same 401 for a wrong password, an unknown login and a disabled account', async () => {
    const sub = await createUser('dora', USER_PASSWORD);
    expect((await call(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', token: s.token, json: { disabled: true } })).status).toBe(200);
    const wrong = await call('/api/auth/login', { method: 'POST', json: { login: 'root', password: 'not-the-password' } });
    const unknown = await call('/api/auth/login', { method: 'POST', json: { login: 'nobody', password: USER_PASSWORD } });
    const disabled = await call('/api/auth/login', { method: 'POST', json: { login: 'dora', password: USER_PASSWORD } });
    for (const r of [wrong, unknown, disabled]) {
      expect(r.status).toBe(401);
      expect(r.json!.error).toBe('invalid_credentials');
      expect(r.headers.getSetCookie()).toEqual([]);
    }
    expect(unknown.text).toBe(wrong.text);
    expect(disabled.text).toBe(wrong.text);
  });

  it('a non-administrator session reaches neither administration nor foreign namespaces', async () => {
    await createUser('uma', USER_PASSWORD);
    const r = await login('uma', USER_PASSWORD);
    expect(r.json!.account.admin).toBe(false);
    const admin = await call('/api/admin/core/accounts', { cookie: r.cookie });
    expect(admin.status).toBe(403);
    expect(admin.json!.error).toBe('forbidden');
    expect((await call('/v1/namespaces', { method: 'POST', token: s.token, json: { name: 'shop' } })).status).toBe(201);
    expect((await call('/v1/shop/tables', { cookie: r.cookie })).status).toBe(403);
    const root = await login('root', ADMIN_PASSWORD);
    expect((await call('/v1/shop/tables', { cookie: root.cookie })).status).toBe(200);
  });

  it('logout revokes the session family and clears the cookie', async () => {
    const r = await login('root', ADMIN_PASSWORD);
    const noOrigin = await call('/api/auth/logout', { method: 'POST', cookie: r.cookie });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.json!.error).toBe('origin_mismatch');
    const out = await call('/api/auth/logout', { method: 'POST', cookie: r.cookie, origin: s.url });
    expect(out.status).toBe(204);
    expect(sessionCookie(out.headers)).toMatch(/^hearth_session=; .*Max-Age=0/);
    expect((await call('/api/admin/core/accounts', { cookie: r.cookie })).status).toBe(401);
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(401);
    const row = (await s.services.store.get<{ revoked_at: number; revocation: string }>(
      'SELECT revoked_at, revocation FROM identity_session_families WHERE id = ?',
      [r.cookie.split('=')[1]!.split('.')[0]],
    ))!;
    expect(row.revocation).toBe('logout');
  });

  it('an epoch bump (revoke-sessions) ends the session', async () => {
    const r = await login('uma', USER_PASSWORD);
    const sub = r.json!.account.sub as string;
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(200);
    expect((await call(`/api/admin/core/accounts/${sub}/revoke-sessions`, { method: 'POST', token: s.token })).status).toBe(200);
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(401);
    // a new sign-in carries the new epoch
    const again = await login('uma', USER_PASSWORD);
    expect((await call('/api/auth/session', { cookie: again.cookie })).status).toBe(200);
  });

  it('disabling the account ends its sessions', async () => {
    const r = await login('uma', USER_PASSWORD);
    const sub = r.json!.account.sub as string;
    expect((await call(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', token: s.token, json: { disabled: true } })).status).toBe(200);
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(401);
    expect((await call(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', token: s.token, json: { disabled: false } })).status).toBe(200);
    // re-enabling does not bring the old session back
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(401);
  });

  it('cookie-authenticated writes need the exact platform Origin; bearer tokens do not', async () => {
    const r = await login('root', ADMIN_PASSWORD);
    const missing = await call('/api/admin/core/groups', { method: 'POST', cookie: r.cookie, json: { name: 'staff' } });
    expect(missing.status).toBe(403);
    expect(missing.json!.error).toBe('origin_mismatch');
    const wrong = await call('/api/admin/core/groups', { method: 'POST', cookie: r.cookie, origin: 'http://evil.example', json: { name: 'staff' } });
    expect(wrong.status).toBe(403);
    expect(wrong.json!.error).toBe('origin_mismatch');
    const prefix = await call('/api/admin/core/groups', { method: 'POST', cookie: r.cookie, origin: `${s.url}.evil.example`, json: { name: 'staff' } });
    expect(prefix.status).toBe(403);
    const ok = await call('/api/admin/core/groups', { method: 'POST', cookie: r.cookie, origin: s.url, json: { name: 'staff' } });
    expect(ok.status, ok.text).toBe(201);
    const bearer = await call('/api/admin/core/groups', { method: 'POST', token: s.token, json: { name: 'ops' } });
    expect(bearer.status).toBe(201);
    // audit actor of a session
    const actor = (await s.services.store.all<{ actor: string }>("SELECT actor FROM audit_log WHERE action = 'group.create' ORDER BY id")).map((r) => r.actor);
    expect(actor).toEqual(['account:root', 'token:env']);
  });

  it('admin sets a password; the account changes its own with the current one', async () => {
    const sub = await createUser('pat', USER_PASSWORD);
    const r = await login('pat', USER_PASSWORD);
    const wrong = await call('/api/auth/password', {
      method: 'PUT',
      cookie: r.cookie,
      origin: s.url,
      json: { currentPassword: 'nope-nope', newPassword: NEW_PASSWORD },
    });
    expect(wrong.status).toBe(401);
    const changed = await call('/api/auth/password', {
      method: 'PUT',
      cookie: r.cookie,
      origin: s.url,
      json: { currentPassword: USER_PASSWORD, newPassword: NEW_PASSWORD },
    });
    expect(changed.status, changed.text).toBe(204);
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(200);
    expect((await call('/api/auth/login', { method: 'POST', json: { login: 'pat', password: USER_PASSWORD } })).status).toBe(401);
    await login('pat', NEW_PASSWORD);
    // an admin session (recent) sets it back; the account's sessions end
    const admin = await login('root', ADMIN_PASSWORD);
    const set = await call(`/api/admin/core/accounts/${sub}/password`, {
      method: 'PUT',
      cookie: admin.cookie,
      origin: s.url,
      json: { password: USER_PASSWORD },
    });
    expect(set.status, set.text).toBe(204);
    expect((await call('/api/auth/session', { cookie: r.cookie })).status).toBe(401);
    await login('pat', USER_PASSWORD);
    // API tokens have no own password
    expect(
      (await call('/api/auth/password', { method: 'PUT', token: s.token, json: { currentPassword: USER_PASSWORD, newPassword: NEW_PASSWORD } })).status,
    ).toBe(403);
  });

  it('an old session confirms its password again and may do sensitive actions, with the same cookie', async () => {
    const sub = await createUser('rhea', USER_PASSWORD);
    const admin = await login('root', ADMIN_PASSWORD);
    const family = admin.cookie.split('=')[1]!.split('.')[0]!;
    await s.services.store.run('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000 WHERE id = ?', [family]);
    const setPassword = () =>
      call(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', cookie: admin.cookie, origin: s.url, json: { password: NEW_PASSWORD } });
    expect((await setPassword()).json!.error).toBe('recent_auth_required');
    expect((await call('/api/auth/session', { cookie: admin.cookie })).json!.session.recentAuth).toBe(false);

    // A wrong password: 401, the session goes on (still old).
    const wrong = await call('/api/auth/reauth', { method: 'POST', cookie: admin.cookie, origin: s.url, json: { password: 'not-the-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json!.error).toBe('invalid_credentials');
    expect((await call('/api/auth/session', { cookie: admin.cookie })).json!.session.recentAuth).toBe(false);
    // Without the platform Origin a cookie write is refused.
    expect((await call('/api/auth/reauth', { method: 'POST', cookie: admin.cookie, json: { password: ADMIN_PASSWORD } })).json!.error).toBe('origin_mismatch');

    const before = Date.now();
    const ok = await call('/api/auth/reauth', { method: 'POST', cookie: admin.cookie, origin: s.url, json: { password: ADMIN_PASSWORD } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.headers.getSetCookie()).toEqual([]);
    expect(ok.json!.issuedAt).toBeGreaterThanOrEqual(before);
    expect(ok.json!.recentAuthUntil).toBe(ok.json!.issuedAt + 10 * 60000);
    expect((await call('/api/auth/session', { cookie: admin.cookie })).json!.session).toMatchObject({ recentAuth: true, issuedAt: ok.json!.issuedAt });
    expect((await setPassword()).status).toBe(204);
    const audit = await s.services.store.all<{ actor: string; target: string; detail: string }>(
      "SELECT actor, target, detail FROM audit_log WHERE action = 'session.reauthenticate'",
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.actor).toBe('account:root');
    expect(JSON.parse(audit[0]!.detail)).toMatchObject({ login: 'root', session: family, method: 'password' });

    // An API token has no password to confirm; a revoked session cannot re-authenticate.
    expect((await call('/api/auth/reauth', { method: 'POST', token: s.token, json: { password: ADMIN_PASSWORD } })).json!.error).toBe('forbidden');
    expect((await call('/api/auth/logout', { method: 'POST', cookie: admin.cookie, origin: s.url })).status).toBe(204);
    expect((await call('/api/auth/reauth', { method: 'POST', cookie: admin.cookie, origin: s.url, json: { password: ADMIN_PASSWORD } })).status).toBe(401);
  });

  it('never returns or logs a password', async () => {
    expect(logLines.length).toBeGreaterThan(0);
    const all = [...logLines, ...bodies].join('\n');
    for (const p of PASSWORDS) expect(all).not.toContain(p);
    const audit = JSON.stringify(await s.services.store.all('SELECT * FROM audit_log'));
    for (const p of PASSWORDS) expect(audit).not.toContain(p);
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After after ten failures a minute from one address', async () => {
    const r = await startTestServer();
    try {
      const attempt = () =>
        fetch(`${r.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login: 'x', password: 'wrong-password' }),
        });
      for (let i = 0; i < 10; i++) expect((await attempt()).status).toBe(401);
      const limited = await attempt();
      expect(limited.status).toBe(429);
      expect((await limited.json()).error).toBe('rate_limited');
      const after = Number(limited.headers.get('retry-after'));
      expect(after).toBeGreaterThanOrEqual(1);
      expect(after).toBeLessThanOrEqual(60);
    } finally {
      await r.stop();
    }
  });
});

describe('password-change rate limit', () => {
  it('counts wrong current passwords per account, apart from sign-in failures per address', async () => {
    const r = await startTestServer();
    try {
      const post = (p: string, json: unknown, headers: Record<string, string> = {}, method = 'POST') =>
        fetch(r.url + p, { method, headers: { 'content-type': 'application/json', origin: r.url, ...headers }, body: JSON.stringify(json) });
      expect((await post('/api/setup', { login: 'root', password: ADMIN_PASSWORD })).status).toBe(201);
      const signedIn = await post('/api/auth/login', { login: 'root', password: ADMIN_PASSWORD });
      const cookie = signedIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('hearth_session='))!
        .split(';')[0]!;
      const change = () => post('/api/auth/password', { currentPassword: 'not-the-password', newPassword: NEW_PASSWORD }, { cookie }, 'PUT');
      for (let i = 0; i < 5; i++) expect((await change()).status).toBe(401);
      const limited = await change();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Signing in from the same address is not affected.
      expect((await post('/api/auth/login', { login: 'root', password: ADMIN_PASSWORD })).status).toBe(200);
    } finally {
      await r.stop();
    }
  });
});

describe('hearth setup (CLI)', () => {
  const hearth = (args: string[], stdin: string) => runCli(args, { cwd: tempDir('hearth-cli-cwd-'), input: stdin });

  it('creates the first administrator on the data folder, once', async () => {
    const dir = tempDir();
    try {
      const noStdin = await hearth(['setup', '--login', 'boss', '--data', dir], '');
      expect(noStdin.code).toBe(1);
      const made = await hearth(['setup', '--login', 'boss', '--password-stdin', '--display-name', 'The Boss', '--data', dir, '--json'], `${ADMIN_PASSWORD}\n`);
      expect(made.code, made.stderr).toBe(0);
      expect(JSON.parse(made.stdout)).toMatchObject({ login: 'boss', displayName: 'The Boss', admin: true });
      expect(made.stdout + made.stderr).not.toContain(ADMIN_PASSWORD);
      const again = await hearth(['setup', '--login', 'boss2', '--password-stdin', '--data', dir], `${ADMIN_PASSWORD}\n`);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/already set up/);
      const srv = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
      try {
        const r = await fetch(`${srv.url}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ login: 'boss', password: ADMIN_PASSWORD }),
        });
        expect(r.status).toBe(200);
        expect((await (await fetch(`${srv.url}/api/setup`)).json()).needed).toBe(false);
      } finally {
        await srv.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the first administrator a Linux identity when Linux identities are on, as POST /api/setup does', async () => {
    const dir = tempDir();
    const adminToken = `t-${'a'.repeat(32)}`;
    const L = '/api/admin/core/linux-identities';
    const call = (url: string, p: string, init: { method?: string; json?: unknown } = {}) =>
      fetch(`${url}${p}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    try {
      let srv = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {}, adminToken });
      try {
        const on = await call(srv.url, `${L}/configuration`, {
          method: 'PUT',
          json: { config: { enabled: true, rangeStart: 5000, rangeEnd: 5009, homeTemplate: '/home/{username}', loginShell: '/bin/bash' }, rangeReserved: true },
        });
        expect(on.status).toBe(200);
      } finally {
        await srv.close();
      }
      const made = await hearth(['setup', '--login', 'boss', '--password-stdin', '--data', dir, '--json'], `${ADMIN_PASSWORD}\n`);
      expect(made.code, made.stderr).toBe(0);
      const sub = JSON.parse(made.stdout).sub as string;
      srv = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {}, adminToken });
      try {
        const got = await call(srv.url, `${L}/users/${sub}`);
        expect(got.status).toBe(200);
        expect((await got.json()).identity).toMatchObject({ username: 'boss', uid: 5000, homeDirectory: '/home/boss' });
      } finally {
        await srv.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
