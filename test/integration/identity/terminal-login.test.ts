/**
 * Terminal sign-in: the device authorization grant (RFC 8628) of the first-party client `hearth-cli`, approved in
 * the paired authenticator app (`login_hint`) or on the browser verification page (no hint), against a real server.
 */
import crypto from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairDevice, type ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { type RawInit, rawCall, signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const ADMIN_PASSWORD = 'first-admin-Passw0rd!';
const USER_PASSWORD = 'user-secret-Passw0rd?';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CLI_SCOPE = 'openid profile email offline_access read write admin';

let s: TestServer;
let issuer: string;
let bob: { sub: string; login: string };
let bobCookie: string;

const call = (pathname: string, init: RawInit = {}) => rawCall(s.url, pathname, init);
const admin = (pathname: string, init: { method?: string; json?: unknown } = {}) =>
  call(pathname, { ...init, headers: { authorization: `Bearer ${s.token}` } });

async function passwordSignIn(login: string, password: string) {
  const r = await call('/api/auth/login', { json: { login, password }, origin: issuer });
  expect(r.status, r.text).toBe(200);
  return r.headers
    .getSetCookie()
    .find((c) => c.startsWith('hearth_session='))!
    .split(';')[0]!;
}

async function createUser(login: string, extra: Record<string, unknown> = {}) {
  const r = await admin('/api/admin/core/accounts', { json: { login, email: `${login}@example.test`, displayName: login.toUpperCase(), ...extra } });
  expect(r.status, r.text).toBe(201);
  const pw = await admin(`/api/admin/core/accounts/${r.json.sub}/password`, { method: 'PUT', json: { password: USER_PASSWORD } });
  expect(pw.status, pw.text).toBe(204);
  return r.json as { sub: string; login: string };
}

const deviceAuthorization = (form: Record<string, string>) => call('/oauth/device_authorization', { form });
const poll = (deviceCode: string, clientId = 'hearth-cli') =>
  call('/oauth/token', { form: { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId } });
const hash = (v: string) => crypto.hash('sha256', v, 'hex');
// Rows read and written through the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const row = (deviceCode: string) =>
  s.services.store.get<Record<string, any>>('SELECT * FROM oauth_device_authorizations WHERE device_code_hash = ?', [hash(deviceCode)]);
/** There is no injectable clock: the passing of time is written into the stored row. */
const rewindLastPoll = (deviceCode: string, ms: number) =>
  s.services.store.run('UPDATE oauth_device_authorizations SET last_poll_at = last_poll_at - ? WHERE device_code_hash = ?', [ms, hash(deviceCode)]);
const expire = (deviceCode: string) =>
  s.services.store.run('UPDATE oauth_device_authorizations SET expires_at = ? WHERE device_code_hash = ?', [Date.now() - 1, hash(deviceCode)]);
const auditActions = (action: string) => s.services.store.all<Record<string, any>>('SELECT * FROM audit_log WHERE action = ? ORDER BY id', [action]);

async function verifyTokens(t: Record<string, any>, sub: string) {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
  const at = await jwtVerify(t.access_token, jwks, { issuer, audience: 'hearth', typ: 'at+jwt' });
  expect(at.payload).toMatchObject({ sub, client_id: 'hearth-cli', scope: CLI_SCOPE });
  const id = await jwtVerify(t.id_token, jwks, { issuer, audience: 'hearth-cli' });
  expect(id.payload.sub).toBe(sub);
  return { at: at.payload, id: id.payload };
}

beforeAll(async () => {
  // The approval protocol is disabled without an authenticator origin (503 approval_disabled).
  s = await startTestServer({ authenticatorOrigin: 'https://auth.example.test' });
  issuer = s.url.replace(/\/$/, '');
  const setup = await call('/api/setup', { json: { login: 'root', password: ADMIN_PASSWORD }, origin: issuer });
  expect(setup.status, setup.text).toBe(201);
  bob = await createUser('bob');
  bobCookie = await passwordSignIn('bob', USER_PASSWORD);
});

afterAll(async () => {
  await s?.stop();
});

describe('device authorization endpoint', () => {
  it('is advertised in discovery with the device-code grant', async () => {
    const r = await call('/.well-known/openid-configuration');
    expect(r.json.device_authorization_endpoint).toBe(`${issuer}/oauth/device_authorization`);
    expect(r.json.grant_types_supported).toContain(DEVICE_GRANT);
    const cli = await admin('/api/admin/oauth/clients/hearth-cli');
    expect(cli.json.client.grantTypes).toEqual(['authorization_code', 'refresh_token', DEVICE_GRANT]);
  });

  it('is only for first-party clients: a managed client gets unauthorized_client, an unknown one invalid_client', async () => {
    const c = await admin('/api/admin/oauth/clients', {
      json: { name: 'Kiosk', isPublic: true, redirectUris: ['https://kiosk.example/cb'], scopes: ['openid', 'offline_access'] },
    });
    expect(c.status, c.text).toBe(201);
    const managed = await deviceAuthorization({ client_id: c.json.client.clientId, login_hint: 'bob' });
    expect(managed.status).toBe(400);
    expect(managed.json).toMatchObject({ error: 'unauthorized_client' });
    const plain = await deviceAuthorization({ client_id: c.json.client.clientId });
    expect(plain.json).toMatchObject({ error: 'unauthorized_client' });
    const unknown = await deviceAuthorization({ client_id: 'nobody', login_hint: 'bob' });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toBe('invalid_client');
    // and a managed client cannot use the grant at the token endpoint either
    const t = await poll('hdc_whatever', c.json.client.clientId);
    expect(t.json).toMatchObject({ error: 'unauthorized_client' });
  });

  it('checks the scopes and refuses resource', async () => {
    expect((await deviceAuthorization({ client_id: 'hearth-cli', scope: 'openid groups' })).json).toMatchObject({ error: 'invalid_scope' });
    expect((await deviceAuthorization({ client_id: 'hearth-cli', scope: 'openid telepathy' })).json).toMatchObject({ error: 'invalid_scope' });
    expect((await deviceAuthorization({ client_id: 'hearth-cli', resource: `${issuer}/v1` })).json).toMatchObject({ error: 'invalid_target' });
    expect((await deviceAuthorization({ client_id: 'hearth-cli', login_hint: ' ' })).json).toMatchObject({ error: 'invalid_request' });
  });

  it('a device code of another client, or an unknown one, is invalid_grant; a missing one invalid_request', async () => {
    expect((await poll('hdc_unknown')).json).toMatchObject({ error: 'invalid_grant' });
    expect((await call('/oauth/token', { form: { grant_type: DEVICE_GRANT, client_id: 'hearth-cli' } })).json).toMatchObject({ error: 'invalid_request' });
  });
});

describe('browser verification (no login_hint)', () => {
  async function start(scope?: string) {
    const r = await deviceAuthorization({ client_id: 'hearth-cli', ...(scope ? { scope } : {}) });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    return r.json as {
      device_code: string;
      user_code: string;
      verification_uri: string;
      verification_uri_complete: string;
      expires_in: number;
      interval: number;
    };
  }
  const decide = (userCode: string, decision: 'approve' | 'deny', cookie = bobCookie) =>
    call('/oauth/device/decision', { form: { user_code: userCode, decision }, cookie, origin: issuer });

  it('answers RFC 8628 §3.2; the signed-in user enters the code, sees client, scopes and lifetime, approves; the terminal gets verifiable tokens once', async () => {
    const d = await start();
    expect(d.device_code).toMatch(/^hdc_[A-Za-z0-9_-]{43}$/);
    expect(d.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(d.verification_uri).toBe(`${issuer}/oauth/device`);
    expect(d.verification_uri_complete).toBe(`${issuer}/oauth/device?user_code=${d.user_code}`);
    expect(d.expires_in).toBe(600);
    expect(d.interval).toBe(5);
    const stored = (await row(d.device_code))!;
    expect(stored).toMatchObject({
      mode: 'browser',
      state: 'pending',
      lifetime_s: 7 * 86400,
      scope: JSON.stringify(CLI_SCOPE.split(' ')),
      approval_request_id: null,
    });
    expect(JSON.stringify(stored)).not.toContain(d.device_code);

    const pending = await poll(d.device_code);
    expect(pending.status).toBe(400);
    expect(pending.json).toMatchObject({ error: 'authorization_pending' });

    // the page without a session asks for the sign-in too; with one, the code in lower case without dash is accepted
    const page = await call('/oauth/device');
    expect(page.status).toBe(200);
    expect(page.text).toContain('authenticator app');
    expect(page.text).toContain('name="password"');
    const consent = await call('/oauth/device', { form: { user_code: d.user_code.replace('-', '').toLowerCase() }, cookie: bobCookie, origin: issuer });
    expect(consent.status, consent.text).toBe(200);
    expect(consent.text).toContain('Hearth command-line tool');
    expect(consent.text).toContain('7 days');
    for (const sc of CLI_SCOPE.split(' ')) expect(consent.text).toContain(`<code>${sc}</code>`);
    expect(consent.text).toContain(d.user_code);

    const ok = await decide(d.user_code, 'approve');
    expect(ok.status, ok.text).toBe(200);
    expect(ok.text).toContain('Terminal signed in');
    expect(await row(d.device_code)).toMatchObject({ state: 'approved', sub: bob.sub });
    // answered once
    expect((await decide(d.user_code, 'deny')).status).toBe(409);

    await rewindLastPoll(d.device_code, 5000);
    const t = await poll(d.device_code);
    expect(t.status, t.text).toBe(200);
    expect(t.headers.get('cache-control')).toBe('no-store');
    expect(t.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: CLI_SCOPE });
    expect(t.json.refresh_token).toMatch(/^hrt_/);
    await verifyTokens(t.json, bob.sub);
    expect(await row(d.device_code)).toMatchObject({ state: 'consumed', sub: bob.sub });
    // the refresh grant lasts the capped seven days, and works
    const fam = (await s.services.store.get<Record<string, number>>('SELECT * FROM oauth_refresh_families WHERE id = ?', [
      (await row(d.device_code))!.family_id,
    ]))!;
    expect(fam.expires_at - fam.created_at).toBe(7 * 86400_000);
    const refreshed = await call('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: t.json.refresh_token, client_id: 'hearth-cli' } });
    expect(refreshed.status, refreshed.text).toBe(200);
    // the access token works on Hearth's API
    const who = await call('/api/auth/whoami', { headers: { authorization: `Bearer ${refreshed.json.access_token}` } });
    expect(who.status, who.text).toBe(200);

    // replay: invalid_grant, and the grant minted from it ends
    const again = await poll(d.device_code);
    expect(again.status).toBe(400);
    expect(again.json).toMatchObject({ error: 'invalid_grant' });
    const after = await call('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token, client_id: 'hearth-cli' } });
    expect(after.json).toMatchObject({ error: 'invalid_grant' });
    expect((await auditActions('oauth.device_code.replay')).length).toBeGreaterThanOrEqual(1);
    const audit = await Promise.all(
      ['oauth.device_authorization.create', 'oauth.device_authorization.approve', 'oauth.device_authorization.token'].map(
        async (a) => (await auditActions(a)).length,
      ),
    );
    expect(audit.every((n) => n >= 1)).toBe(true);
  });

  it('a denied request answers access_denied', async () => {
    const d = await start('openid read');
    const no = await decide(d.user_code, 'deny');
    expect(no.status).toBe(200);
    expect(no.text).toContain('Sign-in denied');
    const t = await poll(d.device_code);
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({ error: 'access_denied' });
    expect((await auditActions('oauth.device_authorization.deny')).some((e) => JSON.parse(e.detail).sub === bob.sub)).toBe(true);
  });

  it('polling faster than the interval answers slow_down and adds five seconds for good', async () => {
    const d = await start('openid');
    expect((await poll(d.device_code)).json.error).toBe('authorization_pending');
    const fast = await poll(d.device_code);
    expect(fast.status).toBe(400);
    expect(fast.json).toMatchObject({ error: 'slow_down' });
    expect((await row(d.device_code))!.interval_s).toBe(10);
    // five seconds later is now too early as well
    await rewindLastPoll(d.device_code, 5000);
    expect((await poll(d.device_code)).json.error).toBe('slow_down');
    expect((await row(d.device_code))!.interval_s).toBe(15);
    await rewindLastPoll(d.device_code, 15_000);
    expect((await poll(d.device_code)).json.error).toBe('authorization_pending');
  });

  it('an expired device code answers expired_token, and its user code can no longer be approved', async () => {
    const d = await start('openid');
    await expire(d.device_code);
    const t = await poll(d.device_code);
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({ error: 'expired_token' });
    expect((await row(d.device_code))!.state).toBe('expired');
    expect((await decide(d.user_code, 'approve')).status).toBe(409);
    const page = await call(`/oauth/device?user_code=${d.user_code}`, { cookie: bobCookie });
    expect(page.status).toBe(400);
    expect(page.text).toContain('unknown or has expired');
  });

  it('signs in on the page when there is no session, then shows the approval; decisions need the exact Origin', async () => {
    const d = await start('openid profile');
    const wrongPw = await call('/oauth/device', { form: { user_code: d.user_code, login: 'bob', password: 'nope-nope-nope' }, origin: issuer });
    expect(wrongPw.status).toBe(401);
    const noOrigin = await call('/oauth/device', { form: { user_code: d.user_code, login: 'bob', password: USER_PASSWORD } });
    expect(noOrigin.status).toBe(403);
    const signedIn = await call('/oauth/device', { form: { user_code: d.user_code, login: 'bob', password: USER_PASSWORD }, origin: issuer });
    expect(signedIn.status).toBe(303);
    expect(signedIn.location).toBe(`/oauth/device?user_code=${d.user_code}`);
    const cookie = signedIn.headers
      .getSetCookie()
      .find((c) => c.startsWith('hearth_session='))!
      .split(';')[0]!;
    const consent = await call(signedIn.location!, { cookie });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Allow Hearth command-line tool to sign in?');
    expect(consent.text).toContain('1 hour'); // no offline_access: the sign-in lasts as long as the access token
    // a decision needs the exact Origin
    expect((await call('/oauth/device/decision', { form: { user_code: d.user_code, decision: 'approve' }, cookie })).status).toBe(403);
  });
});

describe('verification page limits', () => {
  it('after ten wrong codes a minute from one address even a right code answers 429', async () => {
    const d = (await deviceAuthorization({ client_id: 'hearth-cli', scope: 'openid' })).json;
    for (let i = 0; i < 10; i++) {
      const r = await call('/oauth/device', { form: { user_code: 'ZZZZ-ZZZZ' }, cookie: bobCookie, origin: issuer });
      expect([400, 429]).toContain(r.status);
    }
    const right = await call('/oauth/device', { form: { user_code: d.user_code }, cookie: bobCookie, origin: issuer });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(right.text).toContain('Too many wrong codes');
  });
});

describe('authenticator app (login_hint)', () => {
  let alice: { sub: string; login: string };
  let phone: ScriptedAuthenticator;
  let carolPhone: ScriptedAuthenticator;
  const TERMINAL = ['terminal-logins'];

  beforeAll(async () => {
    alice = await createUser('alice');
    phone = await pairDevice(s, await signIn(s, 'alice', USER_PASSWORD), 'Alice phone');
    await createUser('carol');
    carolPhone = await pairDevice(s, await signIn(s, 'carol', USER_PASSWORD), 'Carol phone');
  });

  async function start(loginHint: string, scope?: string) {
    const r = await deviceAuthorization({ client_id: 'hearth-cli', login_hint: loginHint, ...(scope ? { scope } : {}) });
    expect(r.status, r.text).toBe(200);
    return r.json as { device_code: string; user_code: string; verification_uri: string; expires_in: number; interval: number };
  }
  const inbox = async (device: ScriptedAuthenticator, accept?: string[]) => {
    const r = await device.command({ operation: 'inbox', ...(accept ? { accept } : {}) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.logins as Array<Record<string, any>>;
  };
  const decide = (device: ScriptedAuthenticator, e: Record<string, any>, decision: 'approve' | 'deny') =>
    device.command({ operation: 'decide', requestId: e.requestId, challenge: e.challenge, comparison: e.comparison, decision });
  const entryFor = (logins: Array<Record<string, any>>, userCode: string) => logins.find((l) => l.comparison === userCode);

  it('links the device authorization to the paired app: the opted-in inbox carries the terminal extension; approval yields verifiable tokens, once', async () => {
    const d = await start('alice');
    expect(Object.keys(d).sort()).toEqual(['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri']);
    expect(d.user_code).toMatch(/^\d{6}$/);
    expect(d.verification_uri).toBe(`${issuer}/oauth/device`);
    expect(d.expires_in).toBeGreaterThanOrEqual(299);
    expect(d.expires_in).toBeLessThanOrEqual(300);
    expect(d.interval).toBe(5);
    expect(await row(d.device_code)).toMatchObject({ mode: 'app', state: 'pending', user_code_hash: null, lifetime_s: 7 * 86400 });
    expect((await poll(d.device_code)).json).toMatchObject({ error: 'authorization_pending' });

    // an inbox that does not accept terminal-logins does not show it, and that device cannot decide it
    expect(entryFor(await inbox(phone), d.user_code)).toBeUndefined();
    const withTerminal = await inbox(phone, TERMINAL);
    const e = entryFor(withTerminal, d.user_code)!;
    expect(e).toBeDefined();
    expect(Object.keys(e).sort()).toEqual(['challenge', 'comparison', 'createdAt', 'expiresAt', 'requestId', 'terminal']);
    expect(e.terminal).toEqual({ client: { id: 'hearth-cli', name: 'Hearth command-line tool' }, scopes: CLI_SCOPE.split(' '), lifetimeSeconds: 7 * 86400 });
    expect(Date.parse(e.expiresAt)).toBe((await row(d.device_code))!.expires_at); // the device code lives as long as the approval request
    await inbox(phone); // the latest inbox no longer accepts terminal sign-ins
    const refused = await decide(phone, e, 'approve');
    expect(refused.status).toBe(409);
    await inbox(phone, TERMINAL);
    const ok = await decide(phone, e, 'approve');
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ state: 'approved' });

    await rewindLastPoll(d.device_code, 5000);
    const t = await poll(d.device_code);
    expect(t.status, t.text).toBe(200);
    expect(t.json).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: CLI_SCOPE });
    const { at } = await verifyTokens(t.json, alice.sub);
    expect(at.uid).toBe('alice');
    expect(await row(d.device_code)).toMatchObject({ state: 'consumed', sub: alice.sub });
    const fam = (await s.services.store.get<Record<string, number>>('SELECT * FROM oauth_refresh_families WHERE id = ?', [
      (await row(d.device_code))!.family_id,
    ]))!;
    expect(fam.expires_at - fam.created_at).toBe(7 * 86400_000);
    const userinfo = await call('/oauth/userinfo', { headers: { authorization: `Bearer ${t.json.access_token}` } });
    expect(userinfo.json).toMatchObject({ sub: alice.sub, preferred_username: 'alice' });

    // single use: a replay is invalid_grant and ends the refresh grant
    const replay = await poll(d.device_code);
    expect(replay.json).toMatchObject({ error: 'invalid_grant' });
    const refresh = await call('/oauth/token', { form: { grant_type: 'refresh_token', refresh_token: t.json.refresh_token, client_id: 'hearth-cli' } });
    expect(refresh.json).toMatchObject({ error: 'invalid_grant' });
    // the request is no longer in the inbox
    expect(entryFor(await inbox(phone, TERMINAL), d.user_code)).toBeUndefined();

    const created = (await auditActions('oauth.device_authorization.create'))
      .map((x) => JSON.parse(x.detail))
      .find((x) => x.mode === 'app' && x.loginHint === 'alice');
    expect(created).toMatchObject({ scope: CLI_SCOPE.split(' '), lifetimeSeconds: 7 * 86400 });
    expect(
      (await auditActions('oauth.device_authorization.approve')).some((x) => JSON.parse(x.detail).sub === alice.sub && x.actor === 'oauth-client:hearth-cli'),
    ).toBe(true);
    expect((await auditActions('oauth.device_authorization.token')).some((x) => JSON.parse(x.detail).sub === alice.sub)).toBe(true);
  });

  it('an email works as login hint; a denial in the app answers access_denied', async () => {
    const d = await start('Alice@Example.test', 'openid read');
    const e = entryFor(await inbox(phone, TERMINAL), d.user_code)!;
    expect(e.terminal).toEqual({ client: { id: 'hearth-cli', name: 'Hearth command-line tool' }, scopes: ['openid', 'read'], lifetimeSeconds: 3600 });
    expect((await decide(phone, e, 'deny')).body).toEqual({ state: 'denied' });
    const t = await poll(d.device_code);
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({ error: 'access_denied' });
    expect((await row(d.device_code))!.state).toBe('denied');
    expect((await auditActions('oauth.device_authorization.deny')).some((x) => JSON.parse(x.detail).mode === 'app')).toBe(true);
  });

  it('a device that does not accept terminal sign-ins never sees the request and cannot decide it', async () => {
    const d = await start('carol');
    expect(entryFor(await inbox(carolPhone), d.user_code)).toBeUndefined();
    expect(entryFor(await inbox(carolPhone, ['device-changes']), d.user_code)).toBeUndefined();
    // learn the request while opted in, then opt out: the latest inbox decides
    const e = entryFor(await inbox(carolPhone, TERMINAL), d.user_code)!;
    await inbox(carolPhone, ['device-changes']);
    const r = await decide(carolPhone, e, 'approve');
    expect(r.status).toBe(409);
    expect((await poll(d.device_code)).json).toMatchObject({ error: 'authorization_pending' });
  });

  it('an unknown user, or one without a paired app, gets the same answer and is never approvable', async () => {
    const known = await start('alice', 'openid');
    for (const hint of ['nobody-here', 'nobody@example.test', 'bob']) {
      const d = await start(hint, 'openid');
      expect(Object.keys(d).sort()).toEqual(Object.keys(known).sort());
      expect(d.user_code).toMatch(/^\d{6}$/);
      expect(d.expires_in).toBeGreaterThanOrEqual(299);
      expect(d.interval).toBe(5);
      for (const device of [phone, carolPhone]) expect(entryFor(await inbox(device, TERMINAL), d.user_code)).toBeUndefined();
      expect((await poll(d.device_code)).json).toMatchObject({ error: 'authorization_pending' });
      await expire(d.device_code);
      const t = await poll(d.device_code);
      expect(t.json).toMatchObject({ error: 'expired_token' });
    }
  });

  it('polling too fast answers slow_down; an expired request answers expired_token even after approval', async () => {
    const d = await start('alice', 'openid');
    expect((await poll(d.device_code)).json.error).toBe('authorization_pending');
    expect((await poll(d.device_code)).json.error).toBe('slow_down');
    expect((await row(d.device_code))!.interval_s).toBe(10);
    const e = entryFor(await inbox(phone, TERMINAL), d.user_code)!;
    expect((await decide(phone, e, 'approve')).body).toEqual({ state: 'approved' });
    await expire(d.device_code);
    const t = await poll(d.device_code);
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({ error: 'expired_token' });
    expect((await row(d.device_code))!.state).toBe('expired');
  });

  it('revoking the device before the exchange voids even an approved request', async () => {
    const dave = await createUser('dave');
    const davePhone = await pairDevice(s, await signIn(s, 'dave', USER_PASSWORD), 'Dave phone');
    const d = await start('dave', 'openid');
    const e = entryFor(await inbox(davePhone, TERMINAL), d.user_code)!;
    expect((await decide(davePhone, e, 'approve')).body).toEqual({ state: 'approved' });
    expect((await davePhone.command({ operation: 'revoke' })).body).toEqual({ state: 'revoked' });
    const t = await poll(d.device_code);
    expect(t.status).toBe(400);
    expect(t.json).toMatchObject({ error: 'invalid_grant' });
    expect((await auditActions('oauth.device_authorization.token')).some((x) => JSON.parse(x.detail).sub === dave.sub)).toBe(false);
  });
});
