/**
 * The identity platform on three replicas sharing one PostgreSQL core store (issue 18; seed 001's multi-replica
 * rules): what one replica writes another uses at once — accounts, sessions, OAuth clients; an authorization code
 * issued by A is redeemed at B, and a refresh token replayed at C revokes the family; a browser sign-in started on A
 * and approved through B wakes, by B's notification, the `/login/status` held on D (a fourth replica, in the test's own
 * process so that its hold can be watched); a signing key revoked on A is never used again by B or C. Requests go to a
 * named replica directly (A = 0, B = 1, C = 2); the public address, the issuer and the Origin is the balancer's.
 */
import crypto from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { APPROVAL_PATH, pairDevice, watchHold } from '../../helpers/authenticator.ts';
import { type RawInit, rawCall, signIn } from '../../helpers/http.ts';
import { type Replicas, sharedSecrets, startReplicas } from '../../helpers/replicas.ts';
import { startTestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const PASSWORD = 'replica-user-Passw0rd!';
const REDIRECT = 'https://rp.example.test/callback';
let r: Replicas;

/** A call to replica `i` (0 = A, 1 = B, 2 = C) with the public Origin. */
const at = (i: number, pathname: string, init: RawInit = {}) => rawCall(r.replicas[i]!.url, pathname, init, r.publicUrl);
const admin = (i: number, pathname: string, init: RawInit = {}) => at(i, pathname, { token: r.token, origin: null, ...init });
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

async function createUser(i: number, login: string): Promise<string> {
  const c = await admin(i, '/api/admin/core/accounts', { json: { login, email: `${login}@example.test`, displayName: login.toUpperCase() } });
  expect(c.status, c.text).toBe(201);
  return c.json.sub as string;
}

async function setPassword(i: number, sub: string): Promise<void> {
  const pw = await admin(i, `/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } });
  expect(pw.status, pw.text).toBe(204);
}

/** A confidential client acting as a service account of namespace `ns` (created first): client_credentials. */
async function serviceClient(i: number, ns: string): Promise<{ auth: Record<string, string>; clientId: string }> {
  expect((await admin(i, '/v1/namespaces', { json: { name: ns } })).status).toBe(201);
  const sa = await admin(i, '/api/admin/core/service-accounts', { json: { appId: 'hearth-db', resourceType: 'namespace', resourceId: ns } });
  expect(sa.status, sa.text).toBe(201);
  const c = await admin(i, '/api/admin/oauth/clients', {
    json: { name: `Job ${ns}`, serviceAccountId: sa.json.sub, scopes: ['read'], audiences: [`${r.publicUrl}/v1/${ns}`] },
  });
  expect(c.status, c.text).toBe(201);
  return { auth: basic(c.json.client.clientId, c.json.clientSecret), clientId: c.json.client.clientId };
}

/** A client_credentials token request to replica `i`. */
const clientCredentials = (i: number, auth: Record<string, string>) =>
  at(i, '/oauth/token', { form: { grant_type: 'client_credentials', scope: 'read' }, origin: null, headers: auth });
type Issued = Awaited<ReturnType<typeof clientCredentials>>;

/**
 * Eight loops of token requests at B and C; `action` runs at A once 40 have come back, and the loops go on until 40
 * more sent after it answered have come back. Answers the requests sent before `action` and those sent after it.
 */
async function burstAround(auth: Record<string, string>, action: () => Promise<void>): Promise<{ before: Issued[]; after: Issued[] }> {
  // Each request is tagged with the phase it was sent in: before the action started, while it ran, after it answered.
  const issued: Array<{ sent: 'before' | 'during' | 'after'; res: Issued }> = [];
  let phase: 'before' | 'during' | 'after' = 'before';
  const late = () => issued.filter((t) => t.sent === 'after').length;
  const loops = Array.from({ length: 8 }, async (_, n) => {
    while (late() < 40) {
      const sent = phase;
      issued.push({ sent, res: await clientCredentials(1 + (n % 2), auth) });
    }
  });
  await until(
    () => issued.length >= 40,
    () => `40 answers before the action (${issued.length})`,
  );
  phase = 'during';
  await action();
  phase = 'after';
  await Promise.all(loops);
  return {
    before: issued.filter((t) => t.sent === 'before').map((t) => t.res),
    after: issued.filter((t) => t.sent === 'after').map((t) => t.res),
  };
}

/** The secrets every replica shares, known here so that the test can start one more replica in its own process. */
const secrets = sharedSecrets();
const AUTHENTICATOR = 'https://auth.example.test';

beforeAll(async () => {
  r = await startReplicas({ count: 3, options: () => ({ authenticatorOrigin: AUTHENTICATOR, ...secrets }) });
  const setup = await at(0, '/api/setup', { json: { login: 'root', password: 'first-admin-Passw0rd!' } });
  expect(setup.status, setup.text).toBe(201);
}, 120_000);
afterAll(async () => {
  await r?.stop();
});

describe('identity across replicas', () => {
  it('uses on one replica the accounts, sessions and OAuth clients made on another', async () => {
    const sub = await createUser(0, 'ann');
    await setPassword(1, sub);
    const login = await at(2, '/api/auth/login', { json: { login: 'ann', password: PASSWORD } });
    expect(login.status, login.text).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('hearth_session='))!
      .split(';')[0]!;
    for (const i of [0, 1, 2]) {
      const session = await at(i, '/api/auth/session', { cookie, origin: null });
      expect(session.status, `replica ${i}`).toBe(200);
      expect(session.json.account.login).toBe('ann');
    }

    const { auth } = await serviceClient(1, 'reports');
    for (const i of [0, 2]) {
      const t = await clientCredentials(i, auth);
      expect(t.status, `replica ${i}: ${t.text}`).toBe(200);
      expect(t.json.token_type).toBe('Bearer');
    }
  });

  it('redeems at B a code issued by A; a refresh replayed at C revokes the family everywhere', async () => {
    const sub = await createUser(0, 'bob');
    await setPassword(0, sub);
    const created = await admin(0, '/api/admin/oauth/clients', {
      json: { name: 'Portal', redirectUris: [REDIRECT], scopes: ['openid', 'offline_access', 'read'], audiences: [`${r.publicUrl}/v1`] },
    });
    expect(created.status, created.text).toBe(201);
    const client = { id: created.json.client.clientId as string, secret: created.json.clientSecret as string };
    const cookie = await signIn({ url: r.publicUrl }, 'bob', PASSWORD);
    const verifier = crypto.randomBytes(32).toString('base64url');
    const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: 'openid offline_access read',
      state: 'st',
      nonce: 'nn',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${r.publicUrl}/v1`,
    });
    const authz = await at(0, `/oauth/authorize?${q}`, { cookie, origin: null });
    expect(authz.status, authz.text).toBe(303);
    const code = new URL(authz.location!).searchParams.get('code')!;
    expect(code, authz.location!).toBeTruthy();

    const token = (i: number, form: Record<string, string>) => at(i, '/oauth/token', { form, origin: null, headers: basic(client.id, client.secret) });
    const redeemed = await token(1, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${r.publicUrl}/v1` });
    expect(redeemed.status, redeemed.text).toBe(200);
    const again = await token(2, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${r.publicUrl}/v1` });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
    // Code replay revoked what the code minted: start a fresh grant for the refresh test.
    const authz2 = await at(1, `/oauth/authorize?${q}`, { cookie, origin: null });
    const code2 = new URL(authz2.location!).searchParams.get('code')!;
    const first = await token(0, {
      grant_type: 'authorization_code',
      code: code2,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: `${r.publicUrl}/v1`,
    });
    expect(first.status, first.text).toBe(200);
    const rotated = await token(2, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, resource: `${r.publicUrl}/v1` });
    expect(rotated.status, rotated.text).toBe(200);
    const replay = await token(2, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, resource: `${r.publicUrl}/v1` });
    expect(replay.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    // The family is revoked on every replica: the rotated token is refused at A and B too.
    for (const i of [0, 1]) {
      const late = await token(i, { grant_type: 'refresh_token', refresh_token: rotated.json.refresh_token, resource: `${r.publicUrl}/v1` });
      expect(late.status, `replica ${i}`).toBe(400);
      expect(late.json.error).toBe('invalid_grant');
    }
  });

  it('wakes the held status on D the moment a sign-in started on A is approved through B', async () => {
    // D: a fourth replica of the same store in the test's own process, so that the test can see its hold begin and end.
    const d = await startTestServer({
      databaseUrl: r.databaseUrl,
      publicUrl: r.publicUrl,
      nodeId: 'node-d',
      adminToken: r.token,
      authenticatorOrigin: AUTHENTICATOR,
      ...secrets,
    });
    onTestFinished(() => d.stop());
    const approval = d.services.identity.appApproval;
    await approval.internals.listening; // D receives the other replicas' decisions (PostgreSQL's notifications)

    const sub = await createUser(0, 'cat');
    await setPassword(0, sub);
    const cookie = await signIn({ url: r.publicUrl }, 'cat', PASSWORD);
    const device = await pairDevice({ url: r.publicUrl }, cookie, 'Cat phone', r.replicas[1]!.url);
    const started = await at(0, `${APPROVAL_PATH}/login/start`, { json: { identifier: 'cat', category: 'login' } });
    expect(started.status, started.text).toBe(202);
    const req = started.json as { requestId: string; browserSecret: string; comparison: string };
    const box = await device.command({ operation: 'pending' });
    expect(box.status, JSON.stringify(box.body)).toBe(200);
    const entry = box.body.requests.find((x: { requestId: string }) => x.requestId === req.requestId);
    expect(entry).toBeTruthy();

    const { events, held: isHeld } = watchHold(approval, req.requestId);
    const held = rawCall(d.url, `${APPROVAL_PATH}/login/status`, { json: { requestId: req.requestId, browserSecret: req.browserSecret } }, r.publicUrl);
    await isHeld;
    expect(events).toEqual(['held']); // D found it pending and waits: nothing decided yet
    const decided = await device.command({
      operation: 'decide',
      requestId: req.requestId,
      challenge: entry.challenge,
      comparison: req.comparison,
      decision: 'approve',
    });
    expect(decided).toEqual({ status: 200, body: { state: 'approved' } });
    const status = await held;
    expect(status.json.state).toBe('approved');
    // Woken by B's notification: not by D's once-a-second re-read of the row, nor at the end of its hold.
    expect(events, 'how the held status on D ended').toEqual(['held', 'woken']);
    const done = await at(1, `${APPROVAL_PATH}/login/complete`, { json: { requestId: req.requestId, browserSecret: req.browserSecret } });
    expect(done.status, done.text).toBe(204);
  });

  it('never signs again on B or C with a key revoked on A', async () => {
    const { auth } = await serviceClient(0, 'jobs');
    const issue = async (i: number) => {
      const t = await clientCredentials(i, auth);
      expect(t.status, `replica ${i}: ${t.text}`).toBe(200);
      return decodeProtectedHeader(t.json.access_token).kid!;
    };
    const kids = await Promise.all([0, 1, 2].map(issue));
    expect(new Set(kids).size).toBe(1);
    const victim = kids[0]!;
    const revoked = await admin(0, `/api/admin/identity/keys/${victim}/revoke`, { json: { reason: 'replica test' } });
    expect(revoked.status, revoked.text).toBe(200);
    // At once: the very next issuance at B and C uses another key.
    for (const i of [1, 2]) expect(await issue(i), `replica ${i}`).not.toBe(victim);
    const jwks = await at(2, '/.well-known/jwks.json', { origin: null });
    expect(jwks.json.keys.map((k: { kid: string }) => k.kid)).not.toContain(victim);
  });

  it('releases no token under a revoked key from a request sent after the revocation answered, while B and C issue in bursts', async () => {
    // Concurrent requests share the key-state and client reads (core/storage/shared-reads.ts): none may ride on a
    // read that began before it was sent.
    const { auth } = await serviceClient(0, 'burst');
    const victim = decodeProtectedHeader((await clientCredentials(1, auth)).json.access_token).kid!;
    const { before, after } = await burstAround(auth, async () => {
      const revoked = await admin(0, `/api/admin/identity/keys/${victim}/revoke`, { json: { reason: 'burst test' } });
      expect(revoked.status, revoked.text).toBe(200);
    });
    const kid = (t: Issued) => decodeProtectedHeader(t.json.access_token).kid;
    for (const t of [...before, ...after]) expect(t.status, t.text).toBe(200);
    expect(before.filter((t) => kid(t) === victim).length).toBeGreaterThan(0);
    expect(after.filter((t) => kid(t) === victim)).toEqual([]);
  });

  it('refuses the old client secret on every request sent after a rotation on A answered, while B and C issue in bursts', async () => {
    const { auth, clientId } = await serviceClient(0, 'rotate');
    const { before, after } = await burstAround(auth, async () => {
      const rotated = await admin(0, `/api/admin/oauth/clients/${clientId}/secret`, { method: 'POST' });
      expect(rotated.status, rotated.text).toBe(200);
    });
    expect(before.filter((t) => t.status === 200).length).toBeGreaterThan(0);
    expect(after.map((t) => `${t.status} ${t.json.error}`)).toEqual(after.map(() => '401 invalid_client'));
  });
});
