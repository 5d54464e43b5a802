import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { SoftAuthenticator } from '../../helpers/webauthn.ts';

const PASSWORD = 'passkey-owner-Passw0rd!';
let s: TestServer;
let origin: string;
let sub: string;

async function call(path: string, init: { method?: string; json?: unknown; cookie?: string; origin?: string | null; token?: string } = {}) {
  const headers = new Headers();
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.origin !== null) headers.set('origin', init.origin ?? origin);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const r = await fetch(s.url + path, {
    method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, json: text ? JSON.parse(text) : null };
}
const cookieOf = (h: Headers) =>
  h
    .getSetCookie()
    .find((c) => c.startsWith('hearth_session='))!
    .split(';')[0]!;

async function register(auth: SoftAuthenticator, cookie: string, name?: string) {
  const start = await call('/api/auth/passkeys/registration', { method: 'POST', cookie });
  expect(start.status, JSON.stringify(start.json)).toBe(200);
  const credential = auth.create(start.json.options);
  return call('/api/auth/passkeys', { cookie, json: { challengeId: start.json.challengeId, credential, ...(name ? { name } : {}) } });
}

async function passkeySignIn(auth: SoftAuthenticator, which = 0, overrides: { origin?: string; counter?: number } = {}) {
  const start = await call('/api/auth/passkeys/login/options', { method: 'POST' });
  expect(start.status).toBe(200);
  const credential = auth.get(start.json.options, which, overrides);
  return call('/api/auth/passkeys/login', { json: { challengeId: start.json.challengeId, credential } });
}

beforeAll(async () => {
  s = await startTestServer();
  origin = s.url.replace(/\/$/, '');
  const made = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'pat', displayName: 'Pat' } });
  sub = (await made.json()).sub;
  expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
});
afterAll(async () => {
  await s.stop();
});

describe('passkeys', () => {
  it("confirms an old session with one of its own passkeys (recent authentication), never with another account's", async () => {
    const auth = new SoftAuthenticator(origin);
    const made = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'rhea', displayName: 'Rhea' } });
    expect((await s.api(`/api/admin/core/accounts/${(await made.json()).sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
    const cookie = await signIn(s, 'rhea', PASSWORD);
    expect((await register(auth, cookie, 'Reauth key')).status).toBe(201);
    const family = cookie.split('=')[1]!.split('.')[0]!;
    await s.services.store.run('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000 WHERE id = ?', [family]);
    expect((await call('/api/auth/passkeys/registration', { method: 'POST', cookie })).json.error).toBe('recent_auth_required');

    // A sign-in challenge does not confirm a session, and a re-authentication challenge does not sign in.
    const signInStart = await call('/api/auth/passkeys/login/options', { method: 'POST' });
    const viaSignIn = await call('/api/auth/passkeys/reauth', {
      cookie,
      json: { challengeId: signInStart.json.challengeId, credential: auth.get(signInStart.json.options) },
    });
    expect(viaSignIn.status).toBe(401);
    const start = await call('/api/auth/passkeys/reauth/options', { method: 'POST', cookie });
    expect(start.status, JSON.stringify(start.json)).toBe(200);
    expect(start.json.options.allowCredentials.map((c: { id: string }) => c.id)).toHaveLength(1);
    const asSignIn = await call('/api/auth/passkeys/login', { json: { challengeId: start.json.challengeId, credential: auth.get(start.json.options) } });
    expect(asSignIn.status).toBe(401);
    expect((await call('/api/auth/session', { cookie, origin: null })).json.session.recentAuth).toBe(false);

    const again = await call('/api/auth/passkeys/reauth/options', { method: 'POST', cookie });
    const ok = await call('/api/auth/passkeys/reauth', { cookie, json: { challengeId: again.json.challengeId, credential: auth.get(again.json.options) } });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.recentAuthUntil).toBe(ok.json.issuedAt + 10 * 60000);
    expect((await call('/api/auth/session', { cookie, origin: null })).json.session.recentAuth).toBe(true);
    expect((await call('/api/auth/passkeys/registration', { method: 'POST', cookie })).status).toBe(200);
    const audit = (await s.services.store.value<string>("SELECT detail FROM audit_log WHERE action = 'session.reauthenticate' ORDER BY id DESC LIMIT 1"))!;
    expect(JSON.parse(audit)).toMatchObject({ login: 'rhea', method: 'passkey' });

    // Another account's session cannot use rhea's passkey; an account without a passkey gets 404.
    const other = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'quinn', displayName: 'Quinn' } });
    const quinn = (await other.json()).sub as string;
    expect((await s.api(`/api/admin/core/accounts/${quinn}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
    const q = await call('/api/auth/login', { json: { login: 'quinn', password: PASSWORD } });
    const qCookie = cookieOf(q.headers);
    expect((await call('/api/auth/passkeys/reauth/options', { method: 'POST', cookie: qCookie })).json.error).toBe('passkey_not_found');
    const rheaStart = await call('/api/auth/passkeys/reauth/options', { method: 'POST', cookie });
    const stolen = await call('/api/auth/passkeys/reauth', {
      cookie: qCookie,
      json: { challengeId: rheaStart.json.challengeId, credential: auth.get(rheaStart.json.options) },
    });
    expect(stolen.status).toBe(401);
    expect(stolen.json.error).toBe('invalid_credentials');
  });

  it('registers from a recent session and signs in with it, opening a normal session', async () => {
    const auth = new SoftAuthenticator(origin);
    const cookie = await signIn(s, 'pat', PASSWORD);
    const made = await register(auth, cookie, 'Laptop');
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    expect(made.json).toMatchObject({ name: 'Laptop', lastUsedAt: null });
    const list = await call('/api/auth/passkeys', { cookie });
    expect(list.json.data).toHaveLength(1);
    expect(JSON.stringify(list.json)).not.toContain('public');

    const r = await passkeySignIn(auth);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.account).toMatchObject({ sub, login: 'pat' });
    const session = await call('/api/auth/session', { cookie: cookieOf(r.headers), origin: null });
    expect(session.json.account.login).toBe('pat');
    const audit = (await s.services.store.value<string>("SELECT detail FROM audit_log WHERE action = 'session.login' ORDER BY id DESC LIMIT 1"))!;
    expect(JSON.parse(audit)).toMatchObject({ method: 'passkey' });
    expect((await call('/api/auth/passkeys', { cookie })).json.data[0].lastUsedAt).not.toBeNull();
  });

  it('refuses replayed challenges, other origins, missing user verification, a counter going back and disabled accounts', async () => {
    const auth = new SoftAuthenticator(origin);
    const cookie = await signIn(s, 'pat', PASSWORD);
    expect((await register(auth, cookie)).status).toBe(201);
    // Replay: a challenge is single-use.
    const start = await call('/api/auth/passkeys/login/options', { method: 'POST' });
    const cred = auth.get(start.json.options);
    expect((await call('/api/auth/passkeys/login', { json: { challengeId: start.json.challengeId, credential: cred } })).status).toBe(200);
    expect((await call('/api/auth/passkeys/login', { json: { challengeId: start.json.challengeId, credential: cred } })).json.error).toBe(
      'invalid_credentials',
    );
    expect((await passkeySignIn(auth, 0, { origin: 'https://evil.example' })).status).toBe(401);
    auth.userVerified = false;
    expect((await passkeySignIn(auth)).status).toBe(401);
    auth.userVerified = true;
    expect((await passkeySignIn(auth, 0, { counter: 1 })).status).toBe(401);
    expect((await passkeySignIn(auth, 0, { counter: 100 })).status).toBe(200);
    expect((await s.api(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    expect((await passkeySignIn(auth, 0, { counter: 101 })).status).toBe(401);
    expect((await s.api(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', json: { disabled: false } })).status).toBe(200);
    // An unknown credential.
    const stranger = new SoftAuthenticator(origin);
    stranger.create({ challenge: 'x', rp: {}, user: { id: 'nobody' } });
    expect((await passkeySignIn(stranger)).status).toBe(401);
  });

  it('needs a session (not a token) and a recent sign-in to register or remove; renames and removes', async () => {
    expect((await call('/api/auth/passkeys/registration', { method: 'POST', token: s.token, origin: null })).status).toBe(403);
    const cookie = await signIn(s, 'pat', PASSWORD);
    const auth = new SoftAuthenticator(origin);
    const made = await register(auth, cookie, 'Phone');
    const renamed = await call(`/api/auth/passkeys/${made.json.id}`, { method: 'PATCH', cookie, json: { name: 'Old phone' } });
    expect(renamed.json.name).toBe('Old phone');
    expect((await call(`/api/auth/passkeys/${made.json.id}`, { method: 'PATCH', cookie, json: { name: '' } })).status).toBe(400);
    // Ten minutes later, removal needs a fresh sign-in.
    await s.services.store.run('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000');
    expect((await call(`/api/auth/passkeys/${made.json.id}`, { method: 'DELETE', cookie })).json.error).toBe('recent_auth_required');
    const fresh = await signIn(s, 'pat', PASSWORD);
    expect((await call(`/api/auth/passkeys/${made.json.id}`, { method: 'DELETE', cookie: fresh })).status).toBe(204);
    expect((await call(`/api/auth/passkeys/${made.json.id}`, { method: 'DELETE', cookie: fresh })).json.error).toBe('passkey_not_found');
    expect((await passkeySignIn(auth)).status).toBe(401);
  });

  it('counts passkey failures towards the per-address sign-in limit', async () => {
    const r = await startTestServer();
    try {
      const o = r.url.replace(/\/$/, '');
      const stranger = new SoftAuthenticator(o);
      stranger.create({ challenge: 'x', rp: {}, user: { id: 'nobody' } });
      let last = 0;
      for (let i = 0; i < 11; i++) {
        const start = await (await fetch(`${r.url}/api/auth/passkeys/login/options`, { method: 'POST' })).json();
        const res = await fetch(`${r.url}/api/auth/passkeys/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ challengeId: start.challengeId, credential: stranger.get(start.options) }),
        });
        last = res.status;
        if (i < 10) expect(res.status).toBe(401);
      }
      expect(last).toBe(429);
    } finally {
      await r.stop();
    }
  });
});
