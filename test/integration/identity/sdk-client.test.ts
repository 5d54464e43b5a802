/**
 * The browser SDK (`ui/sdk/app-approval`) used from Node against the real server: discovery, pairing, the signed
 * device channel and decisions; and its transport rules (8 KiB responses, redirects, statuses, aborts, what it sends)
 * against a small local HTTP server that records what arrived.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDeviceProofMessage, checkProofTimes, DeviceProof, verifyProofSignature } from '../../../server/identity/approval/proof.ts';
import {
  APP_APPROVAL_ACCEPT,
  APP_APPROVAL_PATH,
  APP_APPROVAL_PROTOCOL,
  AppApprovalClient,
  AppApprovalClientError,
  type AppDeviceBinding,
  type AppPairingPayload,
  appApproval,
  appPairingLink,
} from '../../../ui/sdk/app-approval/index.ts';
import { callJson } from '../../../ui/sdk/app-approval/transport.ts';
import { manage } from '../../helpers/authenticator.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const APP = 'https://auth.example.test';
const PASSWORD = 'sdk-client-Passw0rd!';
let s: TestServer;
let issuer: string;

async function createUser(login: string): Promise<void> {
  const r = await s.api('/api/admin/core/accounts', {
    method: 'POST',
    json: { login, email: `${login}@example.test`, displayName: `${login} person`, admin: false, profile: 'user' },
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const sub = (await r.json()).sub as string;
  expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
}

async function startPairing(cookie: string): Promise<AppPairingPayload> {
  const r = await manage(s, cookie, '/manage/pairings/start', {});
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  // The browser hands it over as a link; the app parses it.
  return appApproval.parsePairingLink(appPairingLink(APP, r.body), APP);
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; status?: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppApprovalClientError) return { code: err.code, status: err.status, message: err.message };
    return { code: `other:${String(err)}`, message: String(err) };
  }
  return { code: 'no error', message: '' };
}

beforeAll(async () => {
  s = await startTestServer({ authenticatorOrigin: APP });
  issuer = s.url.replace(/\/+$/, '');
});
afterAll(async () => {
  await s?.stop();
});

describe('SDK client against the real server', () => {
  let client: AppApprovalClient;
  let cookie: string;
  let phone: AppDeviceBinding;

  it('connects: exact protocol, issuer, ES256 and app origin; feature flags from /info', async () => {
    client = await appApproval.connect({ issuer, authenticatorOrigin: APP });
    const info = await (await fetch(`${issuer}${APP_APPROVAL_PATH}/info`)).json();
    expect(client.issuer).toBe(issuer);
    expect(client.info).toMatchObject({ protocol: APP_APPROVAL_PROTOCOL, issuer, algorithm: 'ES256', appOrigin: APP });
    expect([...client.features].sort()).toEqual([...info.features].sort());
    expect(client.deviceChanges).toBe(info.features.includes('device-changes'));
    expect(client.loginContext).toBe(info.features.includes('login-context'));
    expect(client.terminalLogins).toBe(info.features.includes('terminal-logins'));
    expect(client.deviceChanges).toBe(true);

    expect((await codeOf(appApproval.connect({ issuer, authenticatorOrigin: 'https://other-app.example.test' }))).code).toBe('origin_mismatch');
    const alias = issuer.replace('localhost', '127.0.0.1');
    expect((await codeOf(appApproval.connect({ issuer: alias, authenticatorOrigin: APP }))).code).toBe('issuer_mismatch');
  });

  it('pairs: claim (signed pairing proof), pairingResult until confirmed, account', async () => {
    await createUser('sdkuser');
    cookie = await signIn(s, 'sdkuser', PASSWORD);
    const pairing = await startPairing(cookie);
    const key = await appApproval.createKey();
    const claim = await client.claim(pairing, key, '  SDK phone \n');
    expect(claim.comparison).toMatch(/^\d{6}$/);
    expect(await client.pairingResult(pairing, key)).toEqual({ state: 'claimed', deviceId: claim.deviceId, comparison: claim.comparison });

    // A repeated claim is a conflict; another key may not read the result.
    expect(await codeOf(client.claim(pairing, key, 'again'))).toMatchObject({ code: 'conflict', status: 409 });
    expect(await codeOf(client.pairingResult(pairing, await appApproval.createKey()))).toMatchObject({ code: 'forbidden', status: 403 });
    expect((await codeOf(client.claim(pairing, key, ' '))).code).toBe('invalid_argument');
    expect((await codeOf(client.claim({ ...pairing, issuer: 'https://elsewhere.example' }, key, 'x'))).code).toBe('wrong_instance');

    const confirm = await manage(s, cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(confirm.status, JSON.stringify(confirm.body)).toBe(200);
    const result = await client.pairingResult(pairing, key);
    expect(result).toEqual({ state: 'confirmed', deviceId: claim.deviceId });

    phone = { issuer: client.issuer, deviceId: claim.deviceId, key };
    const account = await client.account(phone);
    expect(account.account).toMatchObject({ uid: 'sdkuser', displayName: 'sdkuser person', mail: 'sdkuser@example.test' });
    expect(account.device.name).toBe('SDK phone');
  });

  it('inbox and pending show a browser sign-in; decide approves it once', async () => {
    const start = await manage(s, null, '/login/start', { identifier: 'sdkuser', category: 'login' });
    expect(start.status).toBe(202);

    const inbox = await client.inbox(phone, undefined, { accept: [...APP_APPROVAL_ACCEPT, 'terminal-logins', 'no-such-feature'] });
    expect(inbox.logins.map((l) => l.requestId)).toEqual([start.body.requestId]);
    expect(inbox.logins[0]!.comparison).toBe(start.body.comparison);
    // The sign-in context arrives on opt-in (and the browser and this "phone" share 127.0.0.1).
    expect(client.loginContext).toBe(true);
    expect(inbox.logins[0]!.context).toMatchObject({ level: expect.stringMatching(/^(info|hint|warn)$/), sameNetwork: true });
    expect(inbox.changes).toEqual([]);
    expect(inbox.moreChanges).toBe(0);
    expect(inbox.actions).toEqual([]);
    expect(inbox.pollAfterSeconds).toBeGreaterThan(0);
    // Without device-changes in accept, no changes key at all.
    const plain = await client.inbox(phone, new AbortController().signal, { accept: ['nothing'] });
    expect('changes' in plain).toBe(false);
    expect('context' in plain.logins[0]!).toBe(false);
    expect(plain.logins).toHaveLength(1);

    const pending = await client.pending(phone, undefined, { accept: ['login-context', 'terminal-logins', 'device-changes'] });
    expect(pending.requests.map((r) => r.requestId)).toEqual([start.body.requestId]);

    expect(await client.decide(phone, inbox.logins[0]!, 'approve')).toEqual({ state: 'approved' });
    const status = await manage(s, null, '/login/status', { requestId: start.body.requestId, browserSecret: start.body.browserSecret });
    expect(status.body.state).toBe('approved');
    expect(await codeOf(client.decide(phone, inbox.logins[0]!, 'deny'))).toMatchObject({ code: 'conflict', status: 409 });
    expect((await codeOf(client.decide(phone, { ...inbox.logins[0]!, comparison: '12345' }, 'approve'))).code).toBe('invalid_argument');
  });

  it('terminal sign-ins reach the inbox only with the terminal-logins opt-in, never pending, and are decided', async () => {
    const r = await fetch(`${issuer}/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'hearth-cli', login_hint: 'sdkuser' }),
    });
    expect(r.status).toBe(200);
    expect(client.terminalLogins).toBe(true);
    expect((await client.inbox(phone, undefined, { accept: APP_APPROVAL_ACCEPT })).logins).toEqual([]);
    expect((await client.pending(phone, undefined, { accept: ['terminal-logins', 'login-context'] })).requests).toEqual([]);
    const inbox = await client.inbox(phone, undefined, { accept: [...APP_APPROVAL_ACCEPT, 'terminal-logins'] });
    expect(inbox.logins).toHaveLength(1);
    const entry = inbox.logins[0]!;
    expect(entry.terminal).toMatchObject({ client: { id: 'hearth-cli' } });
    expect(entry.terminal!.scopes.length).toBeGreaterThan(0);
    expect(entry.terminal!.lifetimeSeconds).toBeGreaterThan(0);
    expect('context' in entry).toBe(false);
    expect(await client.decide(phone, entry, 'deny')).toEqual({ state: 'denied' });
  });

  it('a further device is approved through decideChange; revoke ends it', async () => {
    // The first device opts in to device changes (its latest inbox accepts them).
    await client.inbox(phone, undefined, { accept: APP_APPROVAL_ACCEPT });
    const pairing = await startPairing(cookie);
    const key = await appApproval.createKey();
    const claim = await client.claim(pairing, key, 'Tablet');
    const confirm = await manage(s, cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(confirm.status).toBe(200);
    expect(confirm.body.approval).toMatchObject({ state: 'pending' });

    const inbox = await client.inbox(phone, undefined, { accept: APP_APPROVAL_ACCEPT });
    expect(inbox.changes).toHaveLength(1);
    const change = inbox.changes![0]!;
    expect(change).toMatchObject({ kind: 'pair', device: { id: claim.deviceId, name: 'Tablet' }, endSessions: false });
    expect(await client.decideChange(phone, change, 'approve')).toEqual({ state: 'approved' });
    expect(await client.pairingResult(pairing, key)).toEqual({ state: 'confirmed', deviceId: claim.deviceId });

    const tablet: AppDeviceBinding = { issuer, deviceId: claim.deviceId, key };
    expect((await client.account(tablet)).device.name).toBe('Tablet');
    expect(await client.push(tablet, 'a'.repeat(43))).toEqual({ state: 'updated' });
    expect(await client.revoke(tablet)).toEqual({ state: 'revoked' });
    expect(await codeOf(client.account(tablet))).toMatchObject({ code: 'forbidden', status: 403 });
    // The other device is unaffected.
    expect((await client.account(phone)).device.name).toBe('SDK phone');
  });

  it('rejects bindings and pairings of another instance before any request', async () => {
    expect((await codeOf(client.account({ ...phone, issuer: 'https://other.example' }))).code).toBe('wrong_instance');
    expect((await codeOf(client.inbox({ ...phone, issuer: `${issuer}/` }))).code).toBe('wrong_instance');
    expect((await codeOf(client.account({ ...phone, key: {} as CryptoKeyPair }))).code).toBe('invalid_argument');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// A local instance stand-in: a plain HTTP server whose answers each test sets, recording what arrived.

interface Arrived {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

describe('SDK transport rules against a local HTTP server', () => {
  let srv: http.Server;
  let base: string;
  const arrived: Arrived[] = [];
  const routes = new Map<string, Handler>();
  const features = ['device-changes', 'login-context', 'terminal-logins'];
  const info = (over: Record<string, unknown> = {}) => ({
    protocol: APP_APPROVAL_PROTOCOL,
    issuer: base,
    api: `${base}${APP_APPROVAL_PATH}`,
    appOrigin: APP,
    algorithm: 'ES256',
    limits: {},
    features,
    ...over,
  });
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body));
  const on = (path: string, h: Handler) => routes.set(`${APP_APPROVAL_PATH}${path}`, h);

  beforeAll(async () => {
    srv = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        arrived.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        const h = routes.get(req.url!);
        if (h) h(req, res, body);
        else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => {
    srv.closeAllConnections();
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  });

  it('reads at most 8 KiB: exactly 8192 bytes pass, more fail (declared or streamed)', async () => {
    const padded = (n: number) => {
      const b = JSON.stringify(info({ pad: '' }));
      return JSON.stringify(info({ pad: 'x'.repeat(n - b.length) }));
    };
    on('/info', (_q, res) => json(res, 200, padded(8192)));
    expect(Buffer.byteLength(padded(8192))).toBe(8192);
    await expect(appApproval.connect({ issuer: base, authenticatorOrigin: APP })).resolves.toBeInstanceOf(AppApprovalClient);

    on('/info', (_q, res) => json(res, 200, padded(8193)));
    expect(await codeOf(appApproval.connect({ issuer: base, authenticatorOrigin: APP }))).toMatchObject({ code: 'response_too_large' });

    // No Content-Length: the body arrives in chunks and the SDK stops reading past 8 KiB.
    on('/info', (_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"pad":"${'y'.repeat(6000)}`);
      res.write('y'.repeat(6000));
      res.end('"}');
    });
    expect(await codeOf(appApproval.connect({ issuer: base, authenticatorOrigin: APP }))).toMatchObject({ code: 'response_too_large' });
  });

  it('never follows a redirect', async () => {
    const before = arrived.length;
    on('/info', (_q, res) => res.writeHead(302, { location: `${base}/elsewhere` }).end());
    routes.set('/elsewhere', (_q, res) => json(res, 200, info()));
    expect(await codeOf(appApproval.connect({ issuer: base, authenticatorOrigin: APP }))).toMatchObject({ code: 'redirected' });
    expect(arrived.slice(before).map((a) => a.url)).toEqual([`${APP_APPROVAL_PATH}/info`]);
  });

  it('maps statuses to stable codes and never puts a remote body into the message', async () => {
    const cases: Array<[number, string, Record<string, string>?]> = [
      [400, 'bad_request'],
      [401, 'unauthorized'],
      [403, 'forbidden'],
      [404, 'not_found'],
      [409, 'conflict'],
      [413, 'payload_too_large'],
      [429, 'rate_limited', { 'retry-after': '7' }],
      [503, 'unavailable'],
      [500, 'server_error'],
      [418, 'unexpected_status'],
    ];
    for (const [status, code, headers] of cases) {
      on('/info', (_q, res) => json(res, status, { error: 'REMOTE-CODE', message: 'REMOTE TEXT <script>' }, headers));
      const e = await codeOf(appApproval.connect({ issuer: base, authenticatorOrigin: APP }));
      expect(e).toMatchObject({ code, status });
      expect(e.message).not.toMatch(/REMOTE/);
    }
    on('/info', (_q, res) => json(res, 429, {}, { 'retry-after': '7' }));
    try {
      await appApproval.connect({ issuer: base, authenticatorOrigin: APP });
    } catch (err) {
      expect((err as AppApprovalClientError).retryAfterSeconds).toBe(7);
    }
  });

  it('refuses other protocols, algorithms, API locations and malformed answers', async () => {
    const cases: Array<[Handler, string]> = [
      [(_q, res) => json(res, 200, info({ protocol: 'hearth-app-approval-v2' })), 'protocol_mismatch'],
      [(_q, res) => json(res, 200, info({ algorithm: 'RS256' })), 'protocol_mismatch'],
      [(_q, res) => json(res, 200, info({ api: `${base}/api/v2` })), 'protocol_mismatch'],
      [(_q, res) => json(res, 200, info({ issuer: 'https://hearth.example' })), 'issuer_mismatch'],
      [(_q, res) => json(res, 200, info({ appOrigin: null })), 'origin_mismatch'],
      [(_q, res) => json(res, 200, info({ features: 'all' })), 'invalid_response'],
      [(_q, res) => json(res, 200, '{"protocol":'), 'invalid_response'],
      [(_q, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(JSON.stringify(info())), 'invalid_response'],
    ];
    for (const [h, code] of cases) {
      on('/info', h);
      expect((await codeOf(appApproval.connect({ issuer: base, authenticatorOrigin: APP }))).code).toBe(code);
    }
    // Unknown features are ignored, not fatal.
    on('/info', (_q, res) => json(res, 200, info({ features: ['login-context', 'teleport'] })));
    const c = await appApproval.connect({ issuer: base, authenticatorOrigin: APP });
    expect(c.features).toEqual(['login-context']);
    expect([c.loginContext, c.deviceChanges, c.terminalLogins]).toEqual([true, false, false]);
  });

  it('sends signed proofs without cookies, with accept filtered against /info.features', async () => {
    on('/info', (_q, res) => json(res, 200, info({ features: ['login-context', 'terminal-logins'] })));
    const c = await appApproval.connect({ issuer: base, authenticatorOrigin: APP });
    const key = await appApproval.createKey();
    const jwk = await crypto.subtle.exportKey('jwk', key.publicKey);
    const device: AppDeviceBinding = { issuer: base, deviceId: 'dev-1', key };
    const sent: Array<{ proof: DeviceProof; signature: string }> = [];
    on('/device', (_req, res, body) => {
      const parsed = JSON.parse(body);
      sent.push(parsed);
      const op = parsed.proof.command.operation;
      json(res, 200, op === 'pending' ? { requests: [], pollAfterSeconds: 5 } : { logins: [], actions: [], moreActions: 0, pollAfterSeconds: 5 });
    });

    await c.inbox(device, undefined, { accept: ['device-changes', 'login-context', 'terminal-logins'] });
    await c.inbox(device, undefined, { accept: ['device-changes'] });
    await c.inbox(device);
    await c.pending(device, undefined, { accept: ['login-context', 'terminal-logins'] });
    await c.pending(device, undefined, { accept: ['terminal-logins'] });
    expect(sent.map((b) => b.proof.command)).toEqual([
      { operation: 'inbox', accept: ['login-context', 'terminal-logins'] },
      { operation: 'inbox' },
      { operation: 'inbox' },
      { operation: 'pending', accept: ['login-context'] },
      { operation: 'pending' },
    ]);
    const now = Math.floor(Date.now() / 1000);
    for (const b of sent) {
      const proof = DeviceProof.parse(b.proof);
      expect(Object.keys(b).sort()).toEqual(['proof', 'signature']);
      expect(proof).toMatchObject({ issuer: base, deviceId: 'dev-1' });
      expect(proof.expiresAt - proof.issuedAt).toBe(60);
      expect(() => checkProofTimes(proof, now)).not.toThrow();
      expect(() => verifyProofSignature(appDeviceProofMessage(proof), b.signature, { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! })).not.toThrow();
    }
    expect(new Set(sent.map((b) => b.proof.jti)).size).toBe(sent.length);
    const deviceCalls = arrived.filter((a) => a.url.endsWith('/device'));
    for (const a of deviceCalls) {
      expect(a.method).toBe('POST');
      expect(a.headers['content-type']).toBe('application/json');
      expect(a.headers.cookie).toBeUndefined();
      expect(a.headers.authorization).toBeUndefined();
    }

    // A shape the client does not expect is invalid_response, with the inbox's changes/moreChanges pairing checked.
    on('/device', (_q, res) => json(res, 200, { logins: [], actions: [], moreActions: 0, pollAfterSeconds: 5, changes: [] }));
    expect((await codeOf(c.inbox(device))).code).toBe('invalid_response');
    on('/device', (_q, res) => json(res, 200, { logins: [{ requestId: 'r' }], actions: [], moreActions: 0, pollAfterSeconds: 5 }));
    expect((await codeOf(c.inbox(device))).code).toBe('invalid_response');
  });

  it('an aborted call ends with aborted; an unreachable instance with network', async () => {
    on('/info', (_q, res) => json(res, 200, info()));
    const c = await appApproval.connect({ issuer: base, authenticatorOrigin: APP });
    const device: AppDeviceBinding = { issuer: base, deviceId: 'dev-1', key: await appApproval.createKey() };
    const controller = new AbortController();
    let held: http.ServerResponse | null = null;
    on('/device', (_q, res) => {
      held = res;
      controller.abort();
    });
    expect((await codeOf(c.inbox(device, controller.signal))).code).toBe('aborted');
    (held as http.ServerResponse | null)?.destroy();
    expect((await codeOf(c.inbox(device, controller.signal))).code).toBe('aborted');

    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect((await codeOf(appApproval.connect({ issuer: `http://127.0.0.1:${port}`, authenticatorOrigin: APP }))).code).toBe('network');
  });

  it('refuses request bodies over 8 KiB before sending, and oversized arguments before signing', async () => {
    on('/info', (_q, res) => json(res, 200, info()));
    const c = await appApproval.connect({ issuer: base, authenticatorOrigin: APP });
    routes.set('/echo', (_q, res) => json(res, 200, {}));
    const before = arrived.length;
    expect((await codeOf(callJson(`${base}/echo`, { method: 'POST', body: { pad: 'x'.repeat(8192) } }))).code).toBe('request_too_large');
    const pairing = { protocol: APP_APPROVAL_PROTOCOL, issuer: base, pairingId: 'p'.repeat(9000), secret: 's', expiresAt: new Date().toISOString() } as const;
    expect((await codeOf(c.claim(pairing, await appApproval.createKey(), 'x'))).code).toBe('invalid_argument');
    expect(arrived.length).toBe(before);
    await expect(callJson(`${base}/echo`, { method: 'POST', body: { pad: 'x'.repeat(8100) } })).resolves.toEqual({});
  });
});
