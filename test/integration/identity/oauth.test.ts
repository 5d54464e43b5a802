/**
 * The OAuth 2.0 / OpenID Connect server against a real relying party (`openid-client`), with the browser steps
 * (sign-in form, consent form) driven over HTTP, and the attacks of issue 5 each as a test.
 */
import crypto from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawInit, rawCall, signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const ADMIN_PASSWORD = 'first-admin-Passw0rd!';
const USER_PASSWORD = 'user-secret-Passw0rd?';

let s: TestServer;
let issuer: string;
let adminCookie: string;
let aliceCookie: string;
let alice: { sub: string; login: string };
let managed: { clientId: string; secret: string };
const REDIRECT = 'https://rp.example.test/callback';

const call = (pathname: string, init: RawInit = {}) => rawCall(s.url, pathname, init, issuer);

const admin = (pathname: string, init: Parameters<typeof call>[1] = {}) => call(pathname, { token: s.token, origin: null, ...init });

async function createUser(login: string, extra: Record<string, unknown> = {}) {
  const r = await admin('/api/admin/core/accounts', { json: { login, email: `${login}@example.test`, displayName: login.toUpperCase(), ...extra } });
  expect(r.status, r.text).toBe(201);
  const pw = await admin(`/api/admin/core/accounts/${r.json.sub}/password`, { method: 'PUT', json: { password: USER_PASSWORD } });
  expect(pw.status, pw.text).toBe(204);
  return r.json as { sub: string; login: string };
}

async function createClient(body: Record<string, unknown>) {
  const r = await admin('/api/admin/oauth/clients', { json: body });
  expect(r.status, r.text).toBe(201);
  return { clientId: r.json.client.clientId as string, secret: r.json.clientSecret as string | null, client: r.json.client };
}

async function rp(clientId: string, secret?: string | null) {
  return client.discovery(new URL(issuer), clientId, undefined, secret ? client.ClientSecretBasic(secret) : client.None(), {
    execute: [client.allowInsecureRequests],
  });
}

/** Follows the authorization request as the browser with `cookie`; answers the final redirect's URL (or the page). */
async function authorize(url: URL | string, cookie: string) {
  const r = await call(url.toString(), { cookie, origin: null });
  return r;
}

async function codeFlow(o: {
  clientId: string;
  secret?: string | null;
  cookie: string;
  scope?: string;
  resource?: string;
  redirectUri?: string;
  extra?: Record<string, string>;
}) {
  const config = await rp(o.clientId, o.secret);
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const params: Record<string, string> = {
    redirect_uri: o.redirectUri ?? REDIRECT,
    scope: o.scope ?? 'openid profile email offline_access',
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...(o.resource ? { resource: o.resource } : {}),
    ...o.extra,
  };
  const r = await authorize(client.buildAuthorizationUrl(config, params), o.cookie);
  expect(r.status, r.text).toBe(303);
  const callback = new URL(r.location!);
  const openid = params.scope!.split(' ').includes('openid');
  const tokens = await client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: verifier, expectedState: state, ...(openid ? { expectedNonce: nonce, idTokenExpected: true } : {}) },
    o.resource ? { resource: o.resource } : undefined,
  );
  return { config, tokens, callback, verifier };
}

async function rawToken(form: Record<string, string>, basic?: { id: string; secret: string }) {
  return call('/oauth/token', {
    form,
    origin: null,
    headers: basic ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}` } : {},
  });
}

beforeAll(async () => {
  s = await startTestServer();
  issuer = s.url.replace(/\/$/, '');
  const setup = await call('/api/setup', { json: { login: 'root', password: ADMIN_PASSWORD } });
  expect(setup.status, setup.text).toBe(201);
  adminCookie = await signIn(s, 'root', ADMIN_PASSWORD);
  alice = await createUser('alice');
  aliceCookie = await signIn(s, 'alice', USER_PASSWORD);
  const c = await createClient({
    name: 'Reporting portal',
    redirectUris: [REDIRECT],
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access', 'read', 'write'],
    audiences: ['hearth', `${issuer}/v1`, `${issuer}/v1/sales`],
  });
  managed = { clientId: c.clientId, secret: c.secret! };
});

afterAll(async () => {
  await s?.stop();
});

describe('discovery', () => {
  it('publishes the same metadata at both addresses, advertising only the delegated scopes and the iss parameter', async () => {
    const a = await call('/.well-known/openid-configuration');
    const b = await call('/.well-known/oauth-authorization-server');
    expect(a.status).toBe(200);
    expect(b.json).toEqual(a.json);
    expect(a.json).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      userinfo_endpoint: `${issuer}/oauth/userinfo`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(a.json.scopes_supported).toEqual(['openid', 'profile', 'email', 'offline_access', 'read', 'write']);
    expect(a.headers.get('cache-control')).toBe('public, max-age=300');
  });
});

describe('authorization code + PKCE with openid-client', () => {
  it('signs in through the sign-in page, then issues verified tokens, UserInfo, rotation and revocation', async () => {
    const config = await rp(managed.clientId, managed.secret);
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile email groups offline_access read',
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    // No session: the sign-in page.
    const page = await call(url.toString(), { origin: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).toContain('Reporting portal');
    const action = /action="(\/oauth\/interaction\/[^"]+\/login)"/.exec(page.text)![1]!;
    // A wrong password shows the page again; a post from another origin is refused.
    const wrong = await call(action, { form: { login: 'alice', password: 'nope-nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('wrong');
    const foreign = await call(action, { form: { login: 'alice', password: USER_PASSWORD }, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const signed = await call(action, { form: { login: 'alice', password: USER_PASSWORD } });
    expect(signed.status).toBe(303);
    const cookie = signed.headers
      .getSetCookie()
      .find((c) => c.startsWith('hearth_session='))!
      .split(';')[0]!;
    const resumed = await call(signed.location!, { cookie, origin: null });
    expect(resumed.status).toBe(303);
    const callback = new URL(resumed.location!);
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    expect(callback.searchParams.get('iss')).toBe(issuer);
    expect(callback.searchParams.get('state')).toBe(state);

    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('openid profile email groups offline_access read');
    const claims = tokens.claims()!;
    expect(claims).toMatchObject({
      iss: issuer,
      aud: managed.clientId,
      sub: alice.sub,
      uid: 'alice',
      preferred_username: 'alice',
      email: 'alice@example.test',
      nonce,
    });
    expect(claims.sub).toMatch(/^[0-9a-f-]{36}$/);

    // The access token verifies against the OAuth JWKS only (RFC 9068 header type, audience snapshot).
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer, typ: 'at+jwt', audience: 'hearth' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: alice.sub, uid: 'alice', client_id: managed.clientId, scope: 'openid profile email groups offline_access read' });
    expect(payload.exp! - payload.iat!).toBe(3600);
    await expect(jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${issuer}/.well-known/hearth-session-jwks.json`)))).rejects.toThrow();

    const info = await client.fetchUserInfo(config, tokens.access_token, alice.sub);
    expect(info).toMatchObject({ sub: alice.sub, uid: 'alice', preferred_username: 'alice', name: 'ALICE', email: 'alice@example.test', groups: [] });

    // Rotation: every refresh answers a new refresh token; the old one is then reuse.
    const r1 = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(r1.refresh_token).toBeTruthy();
    expect(r1.refresh_token).not.toBe(tokens.refresh_token);
    expect(r1.access_token).not.toBe(tokens.access_token);
    const r2 = await client.refreshTokenGrant(config, r1.refresh_token!);
    await client.tokenRevocation(config, r2.refresh_token!, { token_type_hint: 'refresh_token' });
    await expect(client.refreshTokenGrant(config, r2.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('accepts confidential credentials in the form too, and refuses a wrong secret with 401 invalid_client', async () => {
    const config = await client.discovery(new URL(issuer), managed.clientId, undefined, client.ClientSecretPost(managed.secret), {
      execute: [client.allowInsecureRequests],
    });
    const { tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie });
    const again = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(again.access_token).toBeTruthy();
    const bad = await rawToken({ grant_type: 'refresh_token', refresh_token: again.refresh_token! }, { id: managed.clientId, secret: 'hcs_wrong' });
    expect(bad.status).toBe(401);
    expect(bad.json).toMatchObject({ error: 'invalid_client' });
    expect(bad.json.error_description).toBeTruthy();
    expect(bad.headers.get('www-authenticate')).toContain('Basic');
  });

  it('needs grant_type, authenticates the client first, and answers unsupported_grant_type for any other name, Object property names included', async () => {
    const basic = { id: managed.clientId, secret: managed.secret };
    const missing = await rawToken({}, basic);
    expect(missing.status).toBe(400);
    expect(missing.json).toMatchObject({ error: 'invalid_request', error_description: 'grant_type is required' });
    const wrongSecret = await rawToken({ grant_type: 'constructor' }, { id: managed.clientId, secret: 'hcs_wrong' });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.json).toMatchObject({ error: 'invalid_client' });
    for (const grant of ['password', 'implicit', 'constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const r = await rawToken({ grant_type: grant }, basic);
      expect(r.status, grant).toBe(400);
      expect(r.json, grant).toMatchObject({ error: 'unsupported_grant_type', error_description: `grant_type ${JSON.stringify(grant)} is not supported` });
    }
  });
});

describe("the token request's parameters (RFC 6749 §3.2)", () => {
  const basic = () => ({ authorization: `Basic ${Buffer.from(`${managed.clientId}:${managed.secret}`).toString('base64')}` });
  /** A token request whose form is written out, so that a parameter can be given twice. */
  const post = async (body: string) => {
    const r = await fetch(`${s.url}/oauth/token`, {
      method: 'POST',
      headers: { ...basic(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return { status: r.status, json: await r.json() };
  };
  /** An authorization code for alice (not redeemed) and its PKCE verifier. */
  async function issueCode(scope: string) {
    const config = await rp(managed.clientId, managed.secret);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const r = await call(url.toString(), { cookie: aliceCookie, origin: null });
    expect(r.status, r.text).toBe(303);
    return { code: new URL(r.location!).searchParams.get('code')!, verifier };
  }
  const form = (fields: Array<[string, string]>) => new URLSearchParams(fields).toString();

  it('refuses a parameter of the grant given twice, before the grant runs (the code stays redeemable)', async () => {
    const { code, verifier } = await issueCode('openid offline_access read');
    const base: Array<[string, string]> = [
      ['grant_type', 'authorization_code'],
      ['redirect_uri', REDIRECT],
      ['code_verifier', verifier],
    ];
    const twice = await post(form([...base, ['code', code], ['code', code]]));
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({ error: 'invalid_request', error_description: 'parameter "code" is given more than once' });
    const grantTwice = await post(form([...base, ['code', code], ['grant_type', 'authorization_code']]));
    expect(grantTwice.json).toMatchObject({ error: 'invalid_request', error_description: 'parameter "grant_type" is given more than once' });
    const idTwice = await post(form([...base, ['code', code], ['client_id', managed.clientId], ['client_id', managed.clientId]]));
    expect(idTwice.json).toMatchObject({ error: 'invalid_request', error_description: 'parameter "client_id" is given more than once' });
    const ok = await post(form([...base, ['code', code]]));
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json.refresh_token).toBeTruthy();
  });

  it("ignores another grant's parameters (a code at a refresh, even twice), unknown parameters, and empty values", async () => {
    const { tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie, scope: 'openid offline_access read' });
    const withCode = await post(
      form([
        ['grant_type', 'refresh_token'],
        ['refresh_token', tokens.refresh_token!],
        ['code', 'not-a-code'],
        ['code', 'another'],
        ['code_verifier', 'x'],
        ['device_code', 'y'],
      ]),
    );
    expect(withCode.status, JSON.stringify(withCode.json)).toBe(200);
    expect(withCode.json.scope).toBe('openid offline_access read');
    const unknown = await post(
      form([
        ['grant_type', 'refresh_token'],
        ['refresh_token', withCode.json.refresh_token],
        ['audience', 'https://elsewhere.example.test'],
        ['x-trace', '1'],
        ['x-trace', '2'],
        // Sent without a value: as if omitted (the granted scopes), not an empty scope.
        ['scope', ''],
        ['resource', ''],
      ]),
    );
    expect(unknown.status, JSON.stringify(unknown.json)).toBe(200);
    expect(unknown.json.scope).toBe('openid offline_access read');
    expect(unknown.json.refresh_token).toBeTruthy();
    // An unsupported grant still authenticates the client from the common parameters first.
    const other = await post(
      form([
        ['grant_type', 'password'],
        ['username', 'alice'],
        ['password', USER_PASSWORD],
      ]),
    );
    expect(other.json).toMatchObject({ error: 'unsupported_grant_type' });
  });
});

describe('revocation (RFC 7009)', () => {
  const revoke = (form: Record<string, string>) =>
    call('/oauth/revoke', {
      form,
      origin: null,
      headers: { authorization: `Basic ${Buffer.from(`${managed.clientId}:${managed.secret}`).toString('base64')}` },
    });

  it('ignores a token_type_hint it does not know and revokes the token anyway (§2.2: the server searches all types)', async () => {
    for (const hint of ['id_token', 'urn:ietf:params:oauth:token-type:jwt', '']) {
      const { config, tokens } = await codeFlow({
        clientId: managed.clientId,
        secret: managed.secret,
        cookie: aliceCookie,
        scope: 'openid offline_access read',
      });
      expect((await call('/api/auth/whoami', { token: tokens.access_token, origin: null })).status).toBe(200);
      const rt = await revoke({ token: tokens.refresh_token!, token_type_hint: hint });
      expect(rt.status, `${hint}: ${rt.text}`).toBe(200);
      await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
      const at = await revoke({ token: tokens.access_token, token_type_hint: hint });
      expect(at.status, `${hint}: ${at.text}`).toBe(200);
      expect((await call('/api/auth/whoami', { token: tokens.access_token, origin: null })).status).toBe(401);
    }
    // A hint naming the other type is a hint only: the refresh token is found anyway.
    const { config, tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie, scope: 'openid offline_access read' });
    expect((await revoke({ token: tokens.refresh_token!, token_type_hint: 'access_token' })).status).toBe(200);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});

describe('attacks', () => {
  it('code replay is refused and revokes the refresh family and access token minted from the code', async () => {
    const { config, tokens, callback, verifier } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie });
    const replay = await rawToken(
      { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier },
      { id: managed.clientId, secret: managed.secret },
    );
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const ui = await call('/oauth/userinfo', { token: tokens.access_token, origin: null });
    expect(ui.status).toBe(401);
  });

  it('refuses a redirect URI that is not registered (a page, no redirect) and other errors redirect with state and iss', async () => {
    const verifier = client.randomPKCECodeVerifier();
    const q = (extra: Record<string, string>) =>
      `/oauth/authorize?${new URLSearchParams({ client_id: managed.clientId, response_type: 'code', scope: 'openid', state: 'st-1', code_challenge: crypto.createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', redirect_uri: REDIRECT, ...extra })}`;
    const bad = await call(q({ redirect_uri: 'https://rp.example.test/other' }), { cookie: aliceCookie, origin: null });
    expect(bad.status).toBe(400);
    expect(bad.location).toBeNull();
    expect(bad.text).toContain('not registered');
    const unknown = await call(q({ client_id: 'hc_nope' }), { cookie: aliceCookie, origin: null });
    expect(unknown.status).toBe(400);
    expect(unknown.location).toBeNull();
    const wrongScope = await call(q({ scope: 'openid admin' }), { cookie: aliceCookie, origin: null });
    expect(wrongScope.status).toBe(303);
    const loc = new URL(wrongScope.location!);
    expect(loc.searchParams.get('error')).toBe('invalid_scope');
    expect(loc.searchParams.get('state')).toBe('st-1');
    expect(loc.searchParams.get('iss')).toBe(issuer);
    const foreignResource = new URL((await call(q({ resource: 'https://other.example/api' }), { cookie: aliceCookie, origin: null })).location!);
    expect(foreignResource.searchParams.get('error')).toBe('invalid_target');
    const withFragment = new URL((await call(q({ resource: `${issuer}/v1#x` }), { cookie: aliceCookie, origin: null })).location!);
    expect(withFragment.searchParams.get('error')).toBe('invalid_target');
    const responseType = new URL((await call(q({ response_type: 'token' }), { cookie: aliceCookie, origin: null })).location!);
    expect(responseType.searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('requires PKCE S256 from public clients and rejects plain everywhere', async () => {
    const cli = 'hearth-cli';
    const base = { client_id: cli, response_type: 'code', redirect_uri: 'http://127.0.0.1:53682/callback', scope: 'openid', state: 'xyz' };
    const none = new URL((await call(`/oauth/authorize?${new URLSearchParams(base)}`, { cookie: aliceCookie, origin: null })).location!);
    expect(none.searchParams.get('error')).toBe('invalid_request');
    expect(none.searchParams.get('error_description')).toContain('PKCE');
    expect(none.searchParams.get('iss')).toBe(issuer);
    const plain = new URL(
      (
        await call(`/oauth/authorize?${new URLSearchParams({ ...base, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' })}`, {
          cookie: aliceCookie,
          origin: null,
        })
      ).location!,
    );
    expect(plain.searchParams.get('error')).toBe('invalid_request');
    expect(plain.searchParams.get('error_description')).toContain('S256');
    const plainManaged = await call(
      `/oauth/authorize?${new URLSearchParams({ ...base, client_id: managed.clientId, redirect_uri: REDIRECT, code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' })}`,
      { cookie: aliceCookie, origin: null },
    );
    expect(new URL(plainManaged.location!).searchParams.get('error')).toBe('invalid_request');
    // The loopback redirect of the first-party CLI matches with any port (RFC 8252 §7.3), and a wrong verifier fails.
    const { tokens } = await codeFlow({
      clientId: cli,
      cookie: aliceCookie,
      redirectUri: 'http://127.0.0.1:41234/callback',
      scope: 'openid offline_access read',
    });
    expect(decodeJwt(tokens.access_token).aud).toBe('hearth');
    const config = await rp(cli);
    const v = client.randomPKCECodeVerifier();
    const r = await call(
      client
        .buildAuthorizationUrl(config, {
          redirect_uri: 'http://127.0.0.1:5/callback',
          scope: 'openid',
          code_challenge: await client.calculatePKCECodeChallenge(v),
          code_challenge_method: 'S256',
        })
        .toString(),
      { cookie: aliceCookie, origin: null },
    );
    const code = new URL(r.location!).searchParams.get('code')!;
    const wrong = await rawToken({
      grant_type: 'authorization_code',
      client_id: cli,
      code,
      redirect_uri: 'http://127.0.0.1:5/callback',
      code_verifier: client.randomPKCECodeVerifier(),
    });
    expect(wrong.json).toMatchObject({ error: 'invalid_grant' });
  });

  it('binds the exact resource: the token endpoint and every refresh must repeat it', async () => {
    const resource = `${issuer}/v1/sales`;
    const config = await rp(managed.clientId, managed.secret);
    const v = client.randomPKCECodeVerifier();
    const r = await call(
      client
        .buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: 'openid offline_access read',
          resource,
          code_challenge: await client.calculatePKCECodeChallenge(v),
          code_challenge_method: 'S256',
        })
        .toString(),
      { cookie: aliceCookie, origin: null },
    );
    const code = new URL(r.location!).searchParams.get('code')!;
    const basic = { id: managed.clientId, secret: managed.secret };
    const missing = await rawToken({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: v }, basic);
    expect(missing.json).toMatchObject({ error: 'invalid_target' });
    // The failed attempt did not consume the code.
    const ok = await rawToken({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: v, resource }, basic);
    expect(ok.status, ok.text).toBe(200);
    expect(decodeJwt(ok.json.access_token).aud).toBe(resource);
    const noResource = await rawToken({ grant_type: 'refresh_token', refresh_token: ok.json.refresh_token }, basic);
    expect(noResource.json).toMatchObject({ error: 'invalid_target' });
    const other = await rawToken({ grant_type: 'refresh_token', refresh_token: ok.json.refresh_token, resource: `${issuer}/v1` }, basic);
    expect(other.json).toMatchObject({ error: 'invalid_target' });
    const good = await rawToken({ grant_type: 'refresh_token', refresh_token: ok.json.refresh_token, resource }, basic);
    expect(good.status, good.text).toBe(200);
    // A resource-only token is refused by UserInfo.
    const ui = await call('/oauth/userinfo', { token: good.json.access_token, origin: null });
    expect(ui.status).toBe(401);
  });

  it('refuses scope widening on refresh, and a narrowing persists', async () => {
    const { tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie, scope: 'openid profile offline_access read' });
    const basic = { id: managed.clientId, secret: managed.secret };
    const wider = await rawToken(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'openid profile offline_access read write' },
      basic,
    );
    expect(wider.json).toMatchObject({ error: 'invalid_scope' });
    const narrow = await rawToken({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'openid offline_access' }, basic);
    expect(narrow.status, narrow.text).toBe(200);
    expect(narrow.json.scope).toBe('openid offline_access');
    const later = await rawToken({ grant_type: 'refresh_token', refresh_token: narrow.json.refresh_token }, basic);
    expect(later.json.scope).toBe('openid offline_access');
    const back = await rawToken({ grant_type: 'refresh_token', refresh_token: later.json.refresh_token, scope: 'openid profile offline_access' }, basic);
    expect(back.json).toMatchObject({ error: 'invalid_scope' });
  });

  it('reuse of a rotated refresh token revokes the whole family', async () => {
    const { config, tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie });
    const next = await client.refreshTokenGrant(config, tokens.refresh_token!);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, next.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    const audit = await admin('/api/admin/audit?limit=500');
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.json)).toContain('oauth.refresh.reuse');
  });

  it('UserInfo refuses an ID token, a token without openid, and a missing token', async () => {
    const { tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie });
    const id = await call('/oauth/userinfo', { token: tokens.id_token!, origin: null });
    expect(id.status).toBe(401);
    expect(id.json.error).toBe('invalid_token');
    expect(id.headers.get('www-authenticate')).toContain('invalid_token');
    const { tokens: t2 } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie, scope: 'profile read' });
    const noOpenid = await call('/oauth/userinfo', { token: t2.access_token, origin: null });
    expect(noOpenid.status).toBe(403);
    expect(noOpenid.json.error).toBe('insufficient_scope');
    const none = await call('/oauth/userinfo', { origin: null });
    expect(none.status).toBe(401);
  });

  it('the rechecks of every refresh: a disabled account or a narrowed client ends the grant', async () => {
    const bob = await createUser('bob');
    const bobCookie = await signIn(s, 'bob', USER_PASSWORD);
    const c = await createClient({ name: 'Recheck', redirectUris: [REDIRECT], scopes: ['openid', 'offline_access', 'read'] });
    const a = await codeFlow({ clientId: c.clientId, secret: c.secret, cookie: bobCookie, scope: 'openid offline_access read' });
    const b = await codeFlow({ clientId: c.clientId, secret: c.secret, cookie: bobCookie, scope: 'openid offline_access read' });
    const basic = { id: c.clientId, secret: c.secret! };
    expect((await admin(`/api/admin/oauth/clients/${c.clientId}`, { method: 'PATCH', json: { scopes: ['openid', 'offline_access'] } })).status).toBe(200);
    expect((await rawToken({ grant_type: 'refresh_token', refresh_token: a.tokens.refresh_token! }, basic)).json.error).toBe('invalid_grant');
    expect((await admin(`/api/admin/oauth/clients/${c.clientId}`, { method: 'PATCH', json: { scopes: ['openid', 'offline_access', 'read'] } })).status).toBe(
      200,
    );
    expect((await admin(`/api/admin/core/accounts/${bob.sub}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    expect((await rawToken({ grant_type: 'refresh_token', refresh_token: b.tokens.refresh_token! }, basic)).json.error).toBe('invalid_grant');
    // The disabled account's access token no longer works on Hearth's APIs either.
    expect((await call('/oauth/userinfo', { token: b.tokens.access_token, origin: null })).status).toBe(401);
  });

  it('who may authorize: profiles and specific users or nested groups', async () => {
    const guest = await createUser('gina', { profile: 'guest' });
    const ginaCookie = await signIn(s, 'gina', USER_PASSWORD);
    const usersOnly = await createClient({ name: 'Users only', redirectUris: [REDIRECT], allowedProfiles: ['user'] });
    const denied = await call(
      `/oauth/authorize?${new URLSearchParams({ client_id: usersOnly.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 's' })}`,
      { cookie: ginaCookie, origin: null },
    );
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    const outer = await admin('/api/admin/core/groups', { json: { name: 'staff' } });
    const inner = await admin('/api/admin/core/groups', { json: { name: 'interns' } });
    expect((await admin(`/api/admin/core/groups/${outer.json.id}/members`, { json: { group: inner.json.id } })).status).toBeLessThan(300);
    expect((await admin(`/api/admin/core/groups/${inner.json.id}/members`, { json: { account: guest.sub } })).status).toBeLessThan(300);
    const specific = await createClient({ name: 'Staff tool', redirectUris: [REDIRECT], accessMode: 'specific', allowedGroupIds: [outer.json.id] });
    const { tokens } = await codeFlow({ clientId: specific.clientId, secret: specific.secret, cookie: ginaCookie, scope: 'openid' });
    expect(decodeJwt(tokens.id_token!).sub).toBe(guest.sub);
    const notMember = await call(
      `/oauth/authorize?${new URLSearchParams({ client_id: specific.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 's' })}`,
      { cookie: aliceCookie, origin: null },
    );
    expect(new URL(notMember.location!).searchParams.get('error')).toBe('access_denied');
    const byUser = await createClient({ name: 'Alice tool', redirectUris: [REDIRECT], accessMode: 'specific', allowedUserIds: [alice.sub] });
    const ok = await codeFlow({ clientId: byUser.clientId, secret: byUser.secret, cookie: aliceCookie, scope: 'openid' });
    expect(ok.tokens.access_token).toBeTruthy();
  });

  it('prompt=none answers login_required without a session; prompt=login asks to sign in again', async () => {
    const q = (extra: Record<string, string>) =>
      `/oauth/authorize?${new URLSearchParams({ client_id: managed.clientId, redirect_uri: REDIRECT, response_type: 'code', scope: 'openid', state: 's', ...extra })}`;
    const none = await call(q({ prompt: 'none' }), { origin: null });
    expect(new URL(none.location!).searchParams.get('error')).toBe('login_required');
    const again = await call(q({ prompt: 'login' }), { cookie: aliceCookie, origin: null });
    expect(again.status).toBe(200);
    expect(again.text).toContain('Sign in');
  });
});

describe('dynamic clients (RFC 7591) and consent', () => {
  it('enforces the registration rules', async () => {
    const reg = (body: unknown) => call('/oauth/register', { json: body, origin: null });
    expect((await reg({ redirect_uris: ['http://app.example/cb'] })).json.error).toBe('invalid_redirect_uri');
    expect((await reg({ redirect_uris: ['https://u:p@app.example/cb'] })).json.error).toBe('invalid_redirect_uri');
    expect((await reg({ redirect_uris: ['https://app.example/cb#frag'] })).json.error).toBe('invalid_redirect_uri');
    expect((await reg({ redirect_uris: [] })).json.error).toBe('invalid_redirect_uri');
    expect((await reg({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) })).json.error).toBe('invalid_redirect_uri');
    expect((await reg({ redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_basic' })).json.error).toBe(
      'invalid_client_metadata',
    );
    expect((await reg({ redirect_uris: ['https://app.example/cb'], grant_types: ['client_credentials'] })).json.error).toBe('invalid_client_metadata');
    expect((await reg({ redirect_uris: ['https://app.example/cb'], application_type: 'service' })).json.error).toBe('invalid_client_metadata');
    expect((await reg({ redirect_uris: ['https://app.example/cb'], scope: 'openid admin' })).json.error).toBe('invalid_client_metadata');
    const ok = await reg({ redirect_uris: ['http://127.0.0.1:8123/cb', 'https://app.example/cb'], client_name: 'Notes app', scope: 'openid read' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.json).toMatchObject({ token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], scope: 'openid read', client_name: 'Notes app' });
    const dflt = await reg({ redirect_uris: ['http://[::1]/cb'] });
    expect(dflt.json.scope).toBe('openid profile email offline_access read write');
  });

  it('needs a same-origin resource and consent; approval and denial are single-use', async () => {
    const dyn = await client.dynamicClientRegistration(
      new URL(issuer),
      {
        redirect_uris: ['https://notes.example/cb'],
        client_name: 'Notes <b>app</b>',
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      },
      client.None(),
      { execute: [client.allowInsecureRequests] },
    );
    const clientId = dyn.clientMetadata().client_id;
    const v = client.randomPKCECodeVerifier();
    const params = (extra: Record<string, string>) =>
      client
        .buildAuthorizationUrl(dyn, {
          redirect_uri: 'https://notes.example/cb',
          scope: 'openid read offline_access',
          state: 'st',
          code_challenge: crypto.createHash('sha256').update(v).digest('base64url'),
          code_challenge_method: 'S256',
          ...extra,
        })
        .toString();
    const noResource = await call(params({}), { cookie: aliceCookie, origin: null });
    expect(new URL(noResource.location!).searchParams.get('error')).toBe('invalid_target');
    const foreign = await call(params({ resource: 'https://evil.example/v1' }), { cookie: aliceCookie, origin: null });
    expect(new URL(foreign.location!).searchParams.get('error')).toBe('invalid_target');
    const resource = `${issuer}/v1/sales`;
    const consent = await call(params({ resource }), { cookie: aliceCookie, origin: null });
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Notes &lt;b&gt;app&lt;/b&gt;');
    expect(consent.text).toContain('notes.example');
    expect(consent.text).toContain(resource);
    expect(consent.text).toContain('<code>read</code>');
    const action = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(consent.text)![1]!;
    // Another account cannot answer it; another origin cannot post it.
    expect((await call(action, { form: { decision: 'approve' }, cookie: adminCookie })).status).toBe(403);
    expect((await call(action, { form: { decision: 'approve' }, cookie: aliceCookie, origin: 'https://notes.example' })).status).toBe(403);
    const approved = await call(action, { form: { decision: 'approve' }, cookie: aliceCookie });
    expect(approved.status).toBe(303);
    const cb = new URL(approved.location!);
    expect(cb.searchParams.get('iss')).toBe(issuer);
    const second = await call(action, { form: { decision: 'deny' }, cookie: aliceCookie });
    expect(second.status).toBe(409);
    const tokens = await client.authorizationCodeGrant(dyn, cb, { pkceCodeVerifier: v, expectedState: 'st' }, { resource });
    expect(decodeJwt(tokens.access_token).aud).toBe(resource);

    const deny = await call(params({ resource }), { cookie: aliceCookie, origin: null });
    const denyAction = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(deny.text)![1]!;
    const denied = await call(denyAction, { form: { decision: 'deny' }, cookie: aliceCookie });
    expect(new URL(denied.location!).searchParams.get('error')).toBe('access_denied');
    expect((await call(denyAction, { form: { decision: 'approve' }, cookie: aliceCookie })).status).toBe(409);

    // Revoking a dynamic client invalidates its access and refresh tokens.
    const rev = await admin(`/api/admin/oauth/clients/${clientId}/revoke`, { method: 'POST' });
    expect(rev.status, rev.text).toBe(200);
    expect(rev.json.client.revokedAt).not.toBeNull();
    const ns = await admin('/v1/namespaces', { json: { name: 'sales' } });
    expect([201, 409]).toContain(ns.status);
    expect((await call('/v1/sales/tables', { token: tokens.access_token, origin: null })).status).toBe(401);
    expect((await rawToken({ grant_type: 'refresh_token', client_id: clientId, refresh_token: tokens.refresh_token!, resource })).json.error).toBe(
      'invalid_client',
    );
  });
});

describe('client credentials and the database service', () => {
  it('a confidential client bound to a namespace service account writes to that namespace only, as its actor', async () => {
    expect([201, 409]).toContain((await admin('/v1/namespaces', { json: { name: 'sales' } })).status);
    expect((await admin('/v1/namespaces', { json: { name: 'hr' } })).status).toBe(201);
    const sa = await admin('/api/admin/core/service-accounts', { json: { appId: 'hearth-db', resourceType: 'namespace', resourceId: 'sales' } });
    expect(sa.status, sa.text).toBe(201);
    // Binding needs a confidential client and an existing service account.
    expect((await admin('/api/admin/oauth/clients', { json: { name: 'x', serviceAccountId: sa.json.sub, isPublic: true } })).status).toBe(400);
    expect((await admin('/api/admin/oauth/clients', { json: { name: 'x', serviceAccountId: crypto.randomUUID() } })).status).toBe(400);
    const etl = await createClient({ name: 'ETL job', serviceAccountId: sa.json.sub, scopes: ['read', 'write'], audiences: [`${issuer}/v1/sales`] });
    expect(etl.client.grantTypes).toContain('client_credentials');
    const config = await rp(etl.clientId, etl.secret);
    const t = await client.clientCredentialsGrant(config, { scope: 'read write' });
    expect(t.refresh_token).toBeUndefined();
    const claims = decodeJwt(t.access_token);
    expect(claims).toMatchObject({ sub: sa.json.sub, hearth_actor: 'service_account', aud: `${issuer}/v1/sales`, client_id: etl.clientId });

    const create = await call('/v1/sales/tables', {
      token: t.access_token,
      origin: null,
      json: { type: 'table', name: 'orders', columns: [{ name: 'total', type: 'integer' }] },
    });
    expect(create.status, create.text).toBe(201);
    const log = await call('/v1/sales/changelog', { token: t.access_token, origin: null });
    expect(JSON.stringify(log.json)).toContain('service:hearth-db:namespace:sales');
    expect((await call('/v1/hr/tables', { token: t.access_token, origin: null })).status).toBe(401);
    expect((await call('/api/admin/core/accounts', { token: t.access_token, origin: null })).status).toBe(401);

    const readOnly = await client.clientCredentialsGrant(config, { scope: 'read' });
    expect((await call('/v1/sales/tables', { token: readOnly.access_token, origin: null })).status).toBe(200);
    const w = await call('/v1/sales/tables', {
      token: readOnly.access_token,
      origin: null,
      json: { type: 'table', name: 'x', columns: [{ name: 'a', type: 'text' }] },
    });
    expect(w.status).toBe(403);

    await expect(client.clientCredentialsGrant(config, { scope: 'admin' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(client.clientCredentialsGrant(config, { scope: 'openid' })).rejects.toMatchObject({ error: 'invalid_scope' });
    await expect(client.clientCredentialsGrant(config, { resource: `${issuer}/v1/hr` })).rejects.toMatchObject({ error: 'invalid_target' });
    // Public or unbound clients may not use the grant.
    expect((await rawToken({ grant_type: 'client_credentials', client_id: 'hearth-cli' })).json.error).toBe('unauthorized_client');
    expect((await rawToken({ grant_type: 'client_credentials' }, { id: managed.clientId, secret: managed.secret })).json.error).toBe('unauthorized_client');
    // Revocation of the access token (RFC 7009) is honoured by the database service.
    await client.tokenRevocation(config, t.access_token);
    expect((await call('/v1/sales/tables', { token: t.access_token, origin: null })).status).toBe(401);
    // The service account removed: the client stays, the grant refuses it (read with the client in one round trip).
    expect((await admin(`/api/admin/core/service-accounts/${sa.json.sub}`, { method: 'DELETE' })).status).toBe(204);
    const gone = await rawToken({ grant_type: 'client_credentials', scope: 'read' }, { id: etl.clientId, secret: etl.secret! });
    expect(gone.json).toMatchObject({ error: 'unauthorized_client', message: expect.stringContaining('service account no longer exists') });
  });

  it("takes only service accounts of the database application (hearth-db): another application's namespace account is 403", async () => {
    expect([201, 409]).toContain((await admin('/v1/namespaces', { json: { name: 'sales' } })).status);
    const sa = await admin('/api/admin/core/service-accounts', { json: { appId: 'crm', resourceType: 'namespace', resourceId: 'sales' } });
    expect(sa.status, sa.text).toBe(201);
    const crm = await createClient({ name: 'CRM sync', serviceAccountId: sa.json.sub, scopes: ['read', 'write'], audiences: [`${issuer}/v1/sales`, 'hearth'] });
    const config = await rp(crm.clientId, crm.secret);
    // With the namespace's own audience, and with every audience of the client (the platform's `hearth` included).
    for (const resource of [`${issuer}/v1/sales`, undefined]) {
      const t = await client.clientCredentialsGrant(config, { scope: 'read write', ...(resource ? { resource } : {}) });
      // The token is valid (for the platform audience the request context knows its actor); the database service
      // refuses it, and says why.
      if (!resource) expect((await call('/api/auth/whoami', { token: t.access_token, origin: null })).json.actor).toBe('service:crm:namespace:sales');
      const refusals = [
        await call('/v1/sales/tables', { token: t.access_token, origin: null }),
        await call('/v1/sales/tables', {
          token: t.access_token,
          origin: null,
          json: { type: 'table', name: 'crm_only', columns: [{ name: 'a', type: 'text' }] },
        }),
        await call('/v1/sales/query', { token: t.access_token, origin: null, json: { sql: 'SELECT 1' } }),
      ];
      for (const r of refusals) {
        expect(r.status, `${resource}: ${r.text}`).toBe(403);
        expect(r.json.error).toBe('forbidden');
        expect(r.json.message).toMatch(/application "crm"/);
        expect(r.json.message).toMatch(/"hearth-db"/);
      }
    }
    expect((await admin('/v1/sales/tables/crm_only')).status).toBe(404);
  });

  it("an administrator's user token reaches the data plane and, with the admin scope, administration", async () => {
    const cli = 'hearth-cli';
    const { tokens } = await codeFlow({
      clientId: cli,
      cookie: adminCookie,
      redirectUri: 'http://127.0.0.1:9/callback',
      scope: 'openid offline_access read write admin',
    });
    expect((await call('/v1/namespaces', { token: tokens.access_token, origin: null })).status).toBe(200);
    expect((await call('/api/admin/oauth/clients', { token: tokens.access_token, origin: null })).status).toBe(200);
    const r = await call('/v1/sales/tables/orders/rows', { token: tokens.access_token, origin: null, json: { total: 5 } });
    expect([200, 201]).toContain(r.status);
    const { tokens: readOnly } = await codeFlow({ clientId: cli, cookie: adminCookie, redirectUri: 'http://127.0.0.1:9/callback', scope: 'openid read' });
    expect((await call('/api/admin/oauth/clients', { token: readOnly.access_token, origin: null })).status).toBe(403);
    // A non-administrator's token (even with the admin scope) is refused on administration endpoints.
    const { tokens: aliceTokens } = await codeFlow({
      clientId: cli,
      cookie: aliceCookie,
      redirectUri: 'http://127.0.0.1:9/callback',
      scope: 'openid read write admin',
    });
    const forbidden = await call('/api/admin/oauth/clients', { token: aliceTokens.access_token, origin: null });
    expect(forbidden.status).toBe(403);
    expect((await call('/api/admin/oauth/clients', { cookie: aliceCookie, origin: null })).status).toBe(403);
    expect((await call('/v1/sales/tables', { token: aliceTokens.access_token, origin: null })).status).toBe(403);
    // A token for another namespace's audience is refused.
    const other = await createClient({ name: 'HR only', redirectUris: [REDIRECT], scopes: ['openid', 'read'], audiences: [`${issuer}/v1/hr`] });
    const { tokens: hrTokens } = await codeFlow({
      clientId: other.clientId,
      secret: other.secret,
      cookie: adminCookie,
      scope: 'openid read',
      resource: `${issuer}/v1/hr`,
    });
    expect((await call('/v1/hr/tables', { token: hrTokens.access_token, origin: null })).status).toBe(200);
    expect((await call('/v1/sales/tables', { token: hrTokens.access_token, origin: null })).status).toBe(401);
    expect(decodeProtectedHeader(hrTokens.access_token).typ).toBe('at+jwt');
  });
});

describe('client administration', () => {
  it('pages and searches, rotates secrets, protects the first-party client, and enforces list limits', async () => {
    for (let i = 0; i < 3; i++) await createClient({ name: `Paging ${i}`, description: 'bulk-created' });
    const page = await admin('/api/admin/oauth/clients?per_page=2&page=1&search=BULK-created');
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ page: 1, per_page: 2, total: 3 });
    expect(page.json.data).toHaveLength(2);
    expect(page.json.data[0]).not.toHaveProperty('secretHash');
    expect(JSON.stringify(page.json)).not.toContain('hcs_');
    expect((await admin('/api/admin/oauth/clients?per_page=101')).status).toBe(400);
    const cli = await admin('/api/admin/oauth/clients?search=hearth-cli');
    expect(cli.json.data[0]).toMatchObject({ clientId: 'hearth-cli', origin: 'first_party', isPublic: true });
    for (const [method, path, json] of [
      ['PATCH', '/api/admin/oauth/clients/hearth-cli', { name: 'mine' }],
      ['POST', '/api/admin/oauth/clients/hearth-cli/secret', undefined],
      ['POST', '/api/admin/oauth/clients/hearth-cli/revoke', undefined],
      ['DELETE', '/api/admin/oauth/clients/hearth-cli', undefined],
    ] as const) {
      const r = await admin(path, { method, json });
      expect(r.status, `${method} ${path}`).toBe(409);
      expect(r.json.error).toBe('client_protected');
    }
    const tooMany = await admin('/api/admin/oauth/clients', {
      json: { name: 'x', redirectUris: Array.from({ length: 51 }, (_, i) => `https://a.example/${i}`) },
    });
    expect(tooMany.status).toBe(400);
    expect((await admin('/api/admin/oauth/clients', { json: { name: '' } })).status).toBe(400);
    expect((await admin('/api/admin/oauth/clients', { json: { name: 'x'.repeat(121) } })).status).toBe(400);
    expect((await admin('/api/admin/oauth/clients', { json: { name: 'x', description: 'd'.repeat(1001) } })).status).toBe(400);
    expect((await admin('/api/admin/oauth/clients', { json: { name: 'x', scopes: ['openid', 'superuser'] } })).status).toBe(400);

    const c = await createClient({ name: 'Rotating', scopes: ['read'], serviceAccountId: null });
    const rotated = await admin(`/api/admin/oauth/clients/${c.clientId}/secret`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    expect(rotated.json.clientSecret).toMatch(/^hcs_/);
    const old = await rawToken({ grant_type: 'client_credentials' }, { id: c.clientId, secret: c.secret! });
    expect(old.json.error).toBe('invalid_client');
    const del = await admin(`/api/admin/oauth/clients/${c.clientId}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect((await admin(`/api/admin/oauth/clients/${c.clientId}`)).status).toBe(404);
    const audit = await admin('/api/admin/audit?limit=500');
    expect(audit.status).toBe(200);
    const text = JSON.stringify(audit.json);
    for (const action of ['oauth.client.create', 'oauth.client.secret.rotate', 'oauth.client.delete']) expect(text).toContain(action);
    expect(text).not.toContain(rotated.json.clientSecret);
  });

  it('documents every OAuth route in the OpenAPI document', async () => {
    const doc = await call('/v1/openapi.json', { origin: null });
    for (const p of [
      '/oauth/authorize',
      '/oauth/token',
      '/oauth/register',
      '/oauth/revoke',
      '/oauth/userinfo',
      '/oauth/logout',
      '/.well-known/openid-configuration',
      '/api/admin/oauth/clients',
      '/api/admin/oauth/clients/{clientId}/secret',
    ]) {
      expect(Object.keys(doc.json.paths)).toContain(p);
    }
    // Every operation of the whole document has its own operationId (client generators rely on it).
    const ids = Object.values(doc.json.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
      Object.values(ops).map((o) => o.operationId),
    );
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });
});

describe('lifetimes, cleanup and the fail-closed refresh reservation', () => {
  // The core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
  const db = () => s.services.store;

  it('an expired code is refused; a consent answered after five minutes is refused', async () => {
    const config = await rp(managed.clientId, managed.secret);
    const v = client.randomPKCECodeVerifier();
    const r = await call(
      client
        .buildAuthorizationUrl(config, {
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: await client.calculatePKCECodeChallenge(v),
          code_challenge_method: 'S256',
        })
        .toString(),
      { cookie: aliceCookie, origin: null },
    );
    const code = new URL(r.location!).searchParams.get('code')!;
    const hash = crypto.createHash('sha256').update(code).digest('hex');
    const row = (await db().get<{ created_at: number; expires_at: number }>('SELECT created_at, expires_at FROM oauth_codes WHERE code_hash = ?', [hash]))!;
    expect(row.expires_at - row.created_at).toBe(60_000);
    await db().run('UPDATE oauth_codes SET expires_at = ? WHERE code_hash = ?', [Date.now() - 1, hash]);
    const late = await rawToken(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: v },
      { id: managed.clientId, secret: managed.secret },
    );
    expect(late.json).toMatchObject({ error: 'invalid_grant' });

    const reg = await call('/oauth/register', { json: { redirect_uris: ['https://late.example/cb'], client_name: 'Late' }, origin: null });
    const page = await call(
      `/oauth/authorize?${new URLSearchParams({ client_id: reg.json.client_id, redirect_uri: 'https://late.example/cb', response_type: 'code', scope: 'openid', resource: `${issuer}/v1`, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
      { cookie: aliceCookie, origin: null },
    );
    expect(page.status).toBe(200);
    const action = /action="(\/oauth\/interaction\/[^"]+\/consent)"/.exec(page.text)![1]!;
    const i = (await db().get<{ created_at: number; expires_at: number }>('SELECT created_at, expires_at FROM oauth_interactions WHERE client_id = ?', [
      reg.json.client_id,
    ]))!;
    expect(i.expires_at - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    expect(i.expires_at - Date.now()).toBeGreaterThan(4 * 60_000);
    await db().run('UPDATE oauth_interactions SET expires_at = ? WHERE client_id = ?', [Date.now() - 1, reg.json.client_id]);
    const answered = await call(action, { form: { decision: 'approve' }, cookie: aliceCookie });
    expect(answered.status).toBe(409);
    expect(answered.location).toBeNull();
  });

  it('removes registrations abandoned for a day, and keeps used ones', async () => {
    const abandoned = await call('/oauth/register', { json: { redirect_uris: ['https://gone.example/cb'] }, origin: null });
    const used = await call('/oauth/register', { json: { redirect_uris: ['https://kept.example/cb'] }, origin: null });
    await call(
      `/oauth/authorize?${new URLSearchParams({ client_id: used.json.client_id, redirect_uri: 'https://kept.example/cb', response_type: 'code', resource: `${issuer}/v1`, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
      { cookie: aliceCookie, origin: null },
    );
    const dayAgo = Date.now() - 25 * 3600_000;
    await db().run('UPDATE oauth_clients SET created_at = ? WHERE client_id IN (?, ?)', [dayAgo, abandoned.json.client_id, used.json.client_id]);
    const r = await s.services.identity.oauth.cleanup();
    expect(r.abandoned).toBeGreaterThanOrEqual(1);
    expect((await admin(`/api/admin/oauth/clients/${abandoned.json.client_id}`)).status).toBe(404);
    expect((await admin(`/api/admin/oauth/clients/${used.json.client_id}`)).status).toBe(200);
  });

  it('a signing failure during refresh releases a reservation proven not to have issued, and otherwise fails closed', async () => {
    const authority = s.services.identity.oauthAuthority;
    const real = authority.signAccessToken;
    const basic = { id: managed.clientId, secret: managed.secret };
    const { tokens } = await codeFlow({ clientId: managed.clientId, secret: managed.secret, cookie: aliceCookie });
    try {
      authority.signAccessToken = async () => {
        throw new Error('authority transport failed');
      };
      const failed = await rawToken({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, basic);
      expect(failed.status).toBe(503);
      expect(failed.json.error).toBe('server_error');
      expect(failed.json.error_description).toContain('still valid');
    } finally {
      authority.signAccessToken = real;
    }
    const retried = await rawToken({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, basic);
    expect(retried.status, retried.text).toBe(200);

    // The outcome is unknown (the reservation no longer reads "reserved"): the family stays closed.
    try {
      authority.signAccessToken = async () => {
        // (JSON edited here, not in SQL: json_set is SQLite's.)
        for (const f of await db().all<{ id: string; reservation: string }>(
          'SELECT id, reservation FROM oauth_refresh_families WHERE reservation IS NOT NULL',
        )) {
          await db().run('UPDATE oauth_refresh_families SET reservation = ? WHERE id = ?', [
            JSON.stringify({ ...JSON.parse(f.reservation), status: 'issued' }),
            f.id,
          ]);
        }
        throw new Error('authority answered nothing');
      };
      const unknown = await rawToken({ grant_type: 'refresh_token', refresh_token: retried.json.refresh_token }, basic);
      expect(unknown.status).toBe(503);
      expect(unknown.json.error_description).not.toContain('still valid');
    } finally {
      authority.signAccessToken = real;
    }
    const closed = await rawToken({ grant_type: 'refresh_token', refresh_token: retried.json.refresh_token }, basic);
    expect(closed.json).toMatchObject({ error: 'invalid_grant' });
  });

  it("RP-initiated logout ends the session and the client's refresh grants, and returns to the registered logout URI", async () => {
    const c = await createClient({
      name: 'Logout RP',
      redirectUris: [REDIRECT],
      logoutUri: 'https://rp.example.test/bye',
      scopes: ['openid', 'offline_access'],
    });
    const cookie = await signIn(s, 'alice', USER_PASSWORD);
    const { tokens } = await codeFlow({ clientId: c.clientId, secret: c.secret, cookie, scope: 'openid offline_access' });
    const confirm = await call(
      `/oauth/logout?${new URLSearchParams({ id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://rp.example.test/bye', state: 'bye-1' })}`,
      { cookie, origin: null },
    );
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Sign out of Hearth?');
    const done = await call('/oauth/logout', {
      cookie,
      form: { id_token_hint: tokens.id_token!, post_logout_redirect_uri: 'https://rp.example.test/bye', state: 'bye-1' },
    });
    expect(done.status).toBe(303);
    expect(done.location).toBe('https://rp.example.test/bye?state=bye-1');
    expect((await call('/api/auth/session', { cookie, origin: null })).status).toBe(401);
    expect((await rawToken({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { id: c.clientId, secret: c.secret! })).json.error).toBe(
      'invalid_grant',
    );
    // The access token stays valid until it expires (seed: signing out prevents refreshes only).
    expect((await call('/oauth/userinfo', { token: tokens.access_token, origin: null })).status).toBe(200);
    const foreign = await call('/oauth/logout', { cookie: aliceCookie, form: {}, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
  });
});

describe('the request context (requireRole, actor, accessSubject)', () => {
  it('is the same shape for a session, an API token, a user access token and a service-account token', async () => {
    const bySession = await call('/api/auth/whoami', { cookie: aliceCookie, origin: null });
    expect(bySession.json).toEqual({ actor: 'account:alice', accessSubject: alice.sub, kind: 'user', admin: false, scope: null });
    const byToken = await admin('/api/auth/whoami');
    expect(byToken.json).toMatchObject({ actor: 'token:env', accessSubject: 'token:env', kind: 'token', admin: true });
    const { tokens } = await codeFlow({ clientId: 'hearth-cli', cookie: aliceCookie, redirectUri: 'http://127.0.0.1:7/callback', scope: 'openid read' });
    const byOAuth = await call('/api/auth/whoami', { token: tokens.access_token, origin: null });
    expect(byOAuth.json).toEqual({ actor: 'account:alice', accessSubject: alice.sub, kind: 'user', admin: false, scope: ['openid', 'read'] });
    const sa = await admin('/api/admin/core/service-accounts', { json: { appId: 'whoami', resourceType: 'namespace', resourceId: 'sales' } });
    const c = await createClient({ name: 'whoami', serviceAccountId: sa.json.sub, scopes: ['read'], audiences: ['hearth'] });
    const cc = await client.clientCredentialsGrant(await rp(c.clientId, c.secret), {});
    const bySa = await call('/api/auth/whoami', { token: cc.access_token, origin: null });
    expect(bySa.json).toEqual({ actor: 'service:whoami:namespace:sales', accessSubject: sa.json.sub, kind: 'service_account', admin: false, scope: ['read'] });
    expect((await call('/api/auth/whoami', { origin: null })).status).toBe(401);
  });
});

describe('the OAuth broker secret', () => {
  it('start-up refuses a HEARTH_OAUTH_BROKER_SECRET shorter than 32 characters, and uses a given one', async () => {
    await expect(startTestServer({ env: { HEARTH_OAUTH_BROKER_SECRET: 'too-short' } })).rejects.toThrow(/HEARTH_OAUTH_BROKER_SECRET/);
    const ok = await startTestServer({ env: { HEARTH_OAUTH_BROKER_SECRET: 'b'.repeat(40) } });
    try {
      expect((await fetch(`${ok.url}/.well-known/openid-configuration`)).status).toBe(200);
    } finally {
      await ok.stop();
    }
  });
});
