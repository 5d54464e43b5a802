/**
 * The authenticator-approval protocol end to end (`hearth-app-approval-v1`): a real server, a real SMTP peer and
 * scripted authenticators holding real P-256 keys.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_PATH, manage, pairDevice, ScriptedAuthenticator, watchHold } from '../../helpers/authenticator.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

const APP_ORIGIN = 'https://auth.example.test';
const PASSWORD = 'approval-Passw0rd!';
const M = '/api/admin/core/outgoing-mail';
let s: TestServer;
let peer: Peer;
let origin: string;

async function createUser(login: string, opts: { email?: string | null; admin?: boolean; profile?: 'user' | 'guest' } = {}): Promise<string> {
  const email = opts.email === undefined ? `${login}@example.test` : opts.email;
  const r = await s.api('/api/admin/core/accounts', {
    method: 'POST',
    json: { login, ...(email ? { email } : {}), displayName: login.toUpperCase(), admin: opts.admin ?? false, profile: opts.profile ?? 'user' },
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const sub = (await r.json()).sub as string;
  expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
  return sub;
}
const login = (name: string) => signIn(s, name, PASSWORD);
const call = (cookie: string | null, path: string, body: unknown = {}) => manage(s, cookie, path, body);
async function raw(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const r = await fetch(s.url + APPROVAL_PATH + path, { method: init.method ?? 'POST', headers: init.headers, body: init.body });
  const text = await r.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: r.status, headers: r.headers, json };
}
// The core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const db = () => s.services.store;
const audits = async (action: string) =>
  (await db().all<{ target: string; detail: string }>('SELECT target, detail FROM audit_log WHERE action = ? ORDER BY id', [action])).map((r) => ({
    target: r.target,
    ...JSON.parse(r.detail),
  }));
function mailTo(address: string, subject: string) {
  return until(
    () => peer.received.find((r) => r.to.map((t) => t.toLowerCase()).includes(address) && r.parsed.subject === subject),
    `mail "${subject}" to ${address}`,
  );
}
/** Starts a pairing, claims it with a new scripted device. */
async function startAndClaim(cookie: string, name = 'Phone', body: Record<string, unknown> = {}) {
  const start = await call(cookie, '/manage/pairings/start', body);
  expect(start.status, JSON.stringify(start.body)).toBe(201);
  const device = await ScriptedAuthenticator.create(s.url, { origin: APP_ORIGIN });
  const claim = await device.claim(start.body, name);
  expect(claim.status, JSON.stringify(claim.body)).toBe(200);
  return { pairing: start.body, device, claim: claim.body };
}
const inbox = (d: ScriptedAuthenticator, accept?: string[]) => d.command({ operation: 'inbox', ...(accept ? { accept } : {}) });
async function startLogin(identifier: string, category = 'login') {
  const r = await call(null, '/login/start', { identifier, category });
  expect(r.status).toBe(202);
  return r.body as { requestId: string; browserSecret: string; comparison: string; expiresAt: string; pollAfterSeconds: number };
}
const _ALL = ['device-changes', 'login-context', 'terminal-logins'];

beforeAll(async () => {
  peer = await startPeer();
  s = await startTestServer({ authenticatorOrigin: APP_ORIGIN });
  origin = s.url.replace(/\/$/, '');
  const profile = await s.api(`${M}/profiles/main`, {
    method: 'PUT',
    json: { name: 'Office', fromAddress: 'hearth@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false },
  });
  expect(profile.status, await profile.text()).toBe(201);
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

describe('discovery and transport rules', () => {
  it('answers /info with the protocol, exact issuer, limits and features', async () => {
    const r = await raw('/info', { method: 'GET' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      protocol: 'hearth-app-approval-v1',
      issuer: origin,
      api: `${origin}${APPROVAL_PATH}`,
      appOrigin: APP_ORIGIN,
      algorithm: 'ES256',
      enabled: true,
    });
    expect(r.json.features).toEqual(expect.arrayContaining(['device-changes', 'terminal-logins']));
    expect(r.json.limits).toMatchObject({
      outstandingPairingsPerAccount: 5,
      outstandingLoginsPerAccount: 5,
      activeDevicesPerAccount: 20,
      devicePageSize: 20,
      requestBodyBytes: 8192,
      responseBytes: 8192,
    });
  });

  it('sends CORS for the authenticator origin on exactly the four device paths, never credentials', async () => {
    for (const p of ['/info', '/pairings/claim', '/pairings/result', '/device']) {
      const pre = await raw(p, {
        method: 'OPTIONS',
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(pre.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(pre.headers.get('access-control-allow-headers')).toBe('Content-Type');
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
      const other = await raw(p, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    }
    const info = await raw('/info', { method: 'GET', headers: { origin: APP_ORIGIN } });
    expect(info.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    // Errors on the device paths carry CORS too, so the app can read them.
    const bad = await raw('/device', { headers: { origin: APP_ORIGIN, 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    for (const p of ['/manage/pairings/start', '/manage/devices', '/login/start', '/login/status', '/manage/device-changes/status']) {
      const pre = await raw(p, { method: 'OPTIONS', headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin'), p).toBeNull();
      const r = await raw(p, { headers: { origin: APP_ORIGIN, 'content-type': 'application/json' }, body: '{}' });
      expect(r.headers.get('access-control-allow-origin'), p).toBeNull();
    }
  });

  it('without HEARTH_AUTHENTICATOR_ORIGIN answers /info with appOrigin null and sends no CORS', async () => {
    const bare = await startTestServer();
    try {
      const r = await fetch(`${bare.url}${APPROVAL_PATH}/info`, { headers: { origin: APP_ORIGIN } });
      expect(await r.clone().json()).toMatchObject({ appOrigin: null, features: [], enabled: false });
      expect((await r.json()).appOrigin).toBeNull();
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await bare.stop();
    }
  });

  it('requires the exact platform Origin on management and browser-login writes', async () => {
    await createUser('olga');
    const cookie = await login('olga');
    const base = { 'content-type': 'application/json', cookie };
    for (const o of [undefined, 'https://evil.example', APP_ORIGIN]) {
      const h: Record<string, string> = { ...base, ...(o ? { origin: o } : {}) };
      const r = await raw('/manage/pairings/start', { headers: h, body: '{}' });
      expect(r.status).toBe(403);
      expect(r.json.error).toBe('origin_mismatch');
      const l = await raw('/login/start', {
        headers: { 'content-type': 'application/json', ...(o ? { origin: o } : {}) },
        body: JSON.stringify({ identifier: 'olga', category: 'login' }),
      });
      expect(l.status).toBe(403);
    }
  });

  it('refuses unknown members, private JWK members and bodies over 8 KiB; errors use {error, message}', async () => {
    await createUser('stan');
    const cookie = await login('stan');
    const extra = await call(cookie, '/manage/pairings/start', { userId: undefined, extra: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body).toEqual({ error: 'invalid_request', message: expect.stringContaining('"extra"') });
    const start = await call(cookie, '/manage/pairings/start', {});
    const device = await ScriptedAuthenticator.create(s.url);
    const withD = await raw('/pairings/claim', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pairingId: start.body.pairingId,
        secret: start.body.secret,
        publicKey: { ...device.publicKey, d: 'A'.repeat(43) },
        name: 'x',
        signature: 'A'.repeat(86),
      }),
    });
    expect(withD.status).toBe(400);
    expect(withD.json.message).toContain('"d"');
    const big = await raw('/login/start', {
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ identifier: 'x', category: 'login', pad: 'x'.repeat(9000) }),
    });
    expect(big.status).toBe(413);
    expect(big.json.error).toBe('payload_too_large');
    const bigDevice = await raw('/device', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ proof: { pad: 'x'.repeat(8200) }, signature: 'x' }),
    });
    expect(bigDevice.status).toBe(413);
  });
});

describe('pairing', () => {
  it('pairs a first device: claim, comparison, confirm, result, audit and the enrolment email', async () => {
    const sub = await createUser('amy');
    const cookie = await login('amy');
    const { pairing, device, claim } = await startAndClaim(cookie, '  Amy’s phone  ');
    expect(pairing).toEqual({
      protocol: 'hearth-app-approval-v1',
      issuer: origin,
      pairingId: expect.any(String),
      secret: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(claim).toEqual({ deviceId: expect.any(String), comparison: expect.stringMatching(/^\d{6}$/), expiresAt: pairing.expiresAt });
    // A claim alone creates no usable device.
    expect((await device.command({ operation: 'account' })).status).toBe(403);
    expect((await device.claim(pairing, 'Again')).status).toBe(409);
    const status = await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId });
    expect(status.body).toMatchObject({ state: 'claimed', deviceId: claim.deviceId, name: 'Amy’s phone', assisted: false, approval: null });
    const result = await device.pairingResult(pairing);
    expect(result).toEqual({ status: 200, body: { state: 'claimed', deviceId: claim.deviceId, comparison: claim.comparison } });
    const other = await ScriptedAuthenticator.create(s.url);
    expect((await other.pairingResult(pairing)).status).toBe(403);
    expect((await other.pairingResult({ ...pairing, secret: 'wrong' })).status).toBe(403);
    const wrongCode = claim.comparison === '000000' ? '000001' : '000000';
    const wrong = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: wrongCode });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('comparison_mismatch');
    const confirm = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(confirm).toMatchObject({ status: 200, body: { deviceId: claim.deviceId, approval: null } });
    expect((await device.pairingResult(pairing)).body).toEqual({ state: 'confirmed', deviceId: claim.deviceId });
    expect((await call(cookie, '/manage/pairings/cancel', { pairingId: pairing.pairingId })).status).toBe(409);
    const account = await device.command({ operation: 'account' });
    expect(account).toEqual({
      status: 200,
      body: { account: { uid: 'amy', displayName: 'AMY', mail: 'amy@example.test' }, device: { name: 'Amy’s phone', createdAt: expect.any(String) } },
    });
    expect((await audits('auth.app.device.enroll')).find((a) => a.deviceId === claim.deviceId)).toMatchObject({ target: sub, assisted: false, login: 'amy' });
    const mail = await mailTo('amy@example.test', 'A device was paired with your Hearth account');
    expect(mail.parsed.text).toContain('Amy’s phone');
    expect(mail.parsed.text).toContain('Administrator assisted: no');
    const notice = (await db().get('SELECT sent_at, attempts FROM identity_app_enrol_notices WHERE device_id = ?', [claim.deviceId])) as {
      sent_at: number | null;
    };
    expect(notice.sent_at).not.toBeNull();
  });

  it('only lets an interactive, recent session of the initiating family act', async () => {
    await createUser('ben');
    const cookie = await login('ben');
    const token = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'ben-token', scope: 'admin' } });
    const apiToken = (await token.json()).token as string;
    const byToken = await fetch(`${s.url}${APPROVAL_PATH}/manage/pairings/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json', origin },
      body: '{}',
    });
    expect(byToken.status).toBe(403);
    expect((await call(null, '/manage/pairings/start', {})).status).toBe(401);
    const { pairing, claim } = await startAndClaim(cookie);
    const second = await login('ben');
    expect((await call(second, '/manage/pairings/status', { pairingId: pairing.pairingId })).status).toBe(404);
    expect((await call(second, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison })).status).toBe(404);
    expect((await call(second, '/manage/pairings/cancel', { pairingId: pairing.pairingId })).status).toBe(404);
    // A session issued more than ten minutes ago cannot pair.
    const family = second.split('=')[1]!.split('.')[0]!;
    await db().run('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000 WHERE id = ?', [family]);
    const stale = await call(second, '/manage/pairings/start', {});
    expect(stale.status).toBe(403);
    expect(stale.body.error).toBe('recent_auth_required');
    expect((await call(cookie, '/manage/pairings/cancel', { pairingId: pairing.pairingId })).status).toBe(204);
    expect((await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId })).body.state).toBe('cancelled');
  });

  it('expires after five minutes, stays readable one minute, then answers 404', async () => {
    await createUser('carl');
    const cookie = await login('carl');
    const { pairing, device, claim } = await startAndClaim(cookie);
    await db().run('UPDATE identity_app_pairings SET expires_at = ? WHERE id = ?', [Date.now() - 1000, pairing.pairingId]);
    expect((await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId })).body.state).toBe('expired');
    expect((await device.pairingResult(pairing)).body).toEqual({ state: 'expired', deviceId: claim.deviceId });
    const late = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(late.status).toBe(409);
    const unclaimed = await call(cookie, '/manage/pairings/start', {});
    await db().run('UPDATE identity_app_pairings SET expires_at = ? WHERE id = ?', [Date.now() - 1000, unclaimed.body.pairingId]);
    const d2 = await ScriptedAuthenticator.create(s.url);
    expect((await d2.claim(unclaimed.body, 'Late')).status).toBe(409);
    await db().run('UPDATE identity_app_pairings SET expires_at = ? WHERE id = ?', [Date.now() - 61_000, pairing.pairingId]);
    expect((await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId })).status).toBe(404);
    expect((await device.pairingResult(pairing)).status).toBe(404);
    await s.services.identity.appApproval.cleanup();
    expect(await db().value('SELECT count(*) FROM identity_app_pairings WHERE id = ?', [pairing.pairingId])).toBe(0);
  });

  it('cancels a pairing after five wrong comparison codes', async () => {
    await createUser('cody');
    const cookie = await login('cody');
    const { pairing, device, claim } = await startAndClaim(cookie);
    const wrongCode = claim.comparison === '000000' ? '000001' : '000000';
    for (let i = 1; i <= 5; i++) {
      const r = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: wrongCode });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('comparison_mismatch');
    }
    expect((await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison })).body.error).toBe(
      'pairing_cancelled',
    );
    expect((await device.pairingResult(pairing)).body.state).toBe('cancelled');
  });

  it('allows five outstanding pairings per account (409 pairing_limit)', async () => {
    await createUser('dora');
    const cookie = await login('dora');
    for (let i = 0; i < 5; i++) expect((await call(cookie, '/manage/pairings/start', {})).status).toBe(201);
    const sixth = await call(cookie, '/manage/pairings/start', {});
    expect(sixth.status).toBe(409);
    expect(sixth.body.error).toBe('pairing_limit');
  });

  it('pairs a further device only after an opted-in device approves the pair change', async () => {
    await createUser('eve');
    const cookie = await login('eve');
    const first = await pairDevice(s, cookie, 'First');
    const { pairing, device: second, claim } = await startAndClaim(cookie, 'Second');
    const confirm = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(confirm.status).toBe(200);
    expect(confirm.body).toEqual({ deviceId: claim.deviceId, approval: { state: 'pending', expiresAt: expect.any(String) } });
    const again = await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(again.body).toEqual(confirm.body);
    expect((await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId })).body).toMatchObject({
      state: 'claimed',
      approval: { state: 'pending' },
    });
    // Without the device-changes opt-in the change is neither listed nor decidable.
    const plain = await inbox(first);
    expect(plain.body.changes).toBeUndefined();
    expect(plain.body.moreChanges).toBeUndefined();
    const box = await inbox(first, ['device-changes']);
    expect(box.status).toBe(200);
    expect(box.body.changes).toHaveLength(1);
    const change = box.body.changes[0];
    expect(change).toEqual({
      changeId: expect.any(String),
      kind: 'pair',
      device: { id: claim.deviceId, name: 'Second' },
      endSessions: false,
      createdAt: expect.any(String),
      expiresAt: confirm.body.approval.expiresAt,
    });
    expect(box.body.moreChanges).toBe(0);
    const decide = (d: ScriptedAuthenticator, over: Record<string, unknown> = {}) =>
      d.command({ operation: 'change', changeId: change.changeId, kind: 'pair', targetId: claim.deviceId, endSessions: false, decision: 'approve', ...over });
    await inbox(first); // clears the opt-in
    expect((await decide(first)).status).toBe(409);
    await inbox(first, ['device-changes']);
    expect((await decide(first, { endSessions: true })).status).toBe(409);
    expect((await decide(first, { kind: 'revoke' })).status).toBe(409);
    expect(await decide(first)).toEqual({ status: 200, body: { state: 'approved' } });
    expect((await decide(first)).status).toBe(409);
    expect((await second.pairingResult(pairing)).body.state).toBe('confirmed');
    expect((await call(cookie, '/manage/pairings/status', { pairingId: pairing.pairingId })).body).toMatchObject({
      state: 'confirmed',
      approval: { state: 'approved' },
    });
    expect((await second.command({ operation: 'account' })).status).toBe(200);
    expect((await audits('auth.app.device_change.approve')).find((a) => a.changeId === change.changeId)).toMatchObject({
      kind: 'pair',
      endSignIns: false,
      endedSessions: 0,
    });

    // A denied pair change cancels the pairing; nothing is enrolled.
    const third = await startAndClaim(cookie, 'Third');
    const c3 = await call(cookie, '/manage/pairings/confirm', { pairingId: third.pairing.pairingId, comparison: third.claim.comparison });
    expect(c3.body.approval.state).toBe('pending');
    const box3 = await inbox(second, ['device-changes']);
    const ch3 = box3.body.changes.find((c: any) => c.device.id === third.claim.deviceId);
    expect(
      await second.command({ operation: 'change', changeId: ch3.changeId, kind: 'pair', targetId: third.claim.deviceId, endSessions: false, decision: 'deny' }),
    ).toEqual({ status: 200, body: { state: 'denied' } });
    expect((await third.device.pairingResult(third.pairing)).body.state).toBe('cancelled');
    expect((await call(cookie, '/manage/pairings/status', { pairingId: third.pairing.pairingId })).body).toMatchObject({
      state: 'cancelled',
      approval: { state: 'denied' },
    });
    expect((await audits('auth.app.device_change.deny')).find((a) => a.changeId === ch3.changeId)).toMatchObject({ kind: 'pair', endSignIns: false });

    // Cancelling an unconfirmed pairing cancels its pending change.
    const fourth = await startAndClaim(cookie, 'Fourth');
    await call(cookie, '/manage/pairings/confirm', { pairingId: fourth.pairing.pairingId, comparison: fourth.claim.comparison });
    const ch4 = (await inbox(first, ['device-changes'])).body.changes.find((c: any) => c.device.id === fourth.claim.deviceId);
    expect((await call(cookie, '/manage/pairings/cancel', { pairingId: fourth.pairing.pairingId })).status).toBe(204);
    expect(
      (
        await first.command({
          operation: 'change',
          changeId: ch4.changeId,
          kind: 'pair',
          targetId: fourth.claim.deviceId,
          endSessions: false,
          decision: 'approve',
        })
      ).status,
    ).toBe(409);
    expect((await call(cookie, '/manage/pairings/status', { pairingId: fourth.pairing.pairingId })).body.approval.state).toBe('cancelled');
  });

  it('lets an administrator pair a device for an account (assisted), audited and mailed as such', async () => {
    const sub = await createUser('fay');
    await createUser('root1', { admin: true });
    const admin = await login('root1');
    const plainUser = await login('fay');
    expect((await call(plainUser, '/manage/pairings/start', { userId: crypto.randomUUID() })).status).toBe(403);
    const { pairing, claim } = await startAndClaim(admin, 'Issued phone', { userId: sub });
    // The account itself is not the initiating session.
    expect((await call(plainUser, '/manage/pairings/status', { pairingId: pairing.pairingId })).status).toBe(404);
    const confirm = await call(admin, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    expect(confirm.body).toEqual({ deviceId: claim.deviceId, approval: null });
    expect((await audits('auth.app.device.enroll')).find((a) => a.deviceId === claim.deviceId)).toMatchObject({ target: sub, assisted: true });
    const mail = await mailTo('fay@example.test', 'A device was paired with your Hearth account');
    expect(mail.parsed.text).toContain('An administrator paired');
    const list = await fetch(`${s.url}${APPROVAL_PATH}/manage/devices`, { headers: { cookie: plainUser } });
    expect((await list.json()).items).toEqual([
      { id: claim.deviceId, name: 'Issued phone', createdAt: expect.any(String), lastUsedAt: null, revokedAt: null, assisted: true },
    ]);
  });

  it('enforces twenty active devices and pages the device list by twenty, revoked included', async () => {
    const sub = await createUser('gus');
    await createUser('root2', { admin: true });
    const admin = await login('root2');
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const { pairing, claim } = await startAndClaim(admin, `Device ${i}`, { userId: sub });
      expect((await call(admin, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison })).status).toBe(200);
      ids.push(claim.deviceId);
    }
    const full = await call(admin, '/manage/pairings/start', { userId: sub });
    expect(full.status).toBe(409);
    expect(full.body.error).toBe('device_limit');
    const revoke = await s.api(`/api/admin/core/users/${sub}/app-devices/${ids[3]}/revoke`, { method: 'POST' });
    expect(revoke.status).toBe(200);
    expect((await revoke.json()).revokedAt).not.toBeNull();
    expect((await audits('auth.app.device.revoke')).find((a) => a.deviceId === ids[3])).toMatchObject({ by: 'administrator', target: sub });
    const { pairing, claim } = await startAndClaim(admin, 'Device 20', { userId: sub });
    expect((await call(admin, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison })).status).toBe(200);
    ids.push(claim.deviceId);
    const cookie = await login('gus');
    const page1 = await (await fetch(`${s.url}${APPROVAL_PATH}/manage/devices`, { headers: { cookie } })).json();
    expect(page1.items).toHaveLength(20);
    expect(page1.nextCursor).toBe(page1.items[19].id);
    const page2 = await (await fetch(`${s.url}${APPROVAL_PATH}/manage/devices?after=${page1.nextCursor}`, { headers: { cookie } })).json();
    expect(page2.items).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();
    const all = [...page1.items, ...page2.items];
    expect(all.map((d: any) => d.id).sort()).toEqual([...ids].sort());
    expect(all.find((d: any) => d.id === ids[3]).revokedAt).not.toBeNull();
    const adminList = await (await s.api(`/api/admin/core/users/${sub}/app-devices`)).json();
    expect(adminList.items).toHaveLength(20);
    expect((await s.api(`/api/admin/core/users/${sub}/app-devices`, { token: null })).status).toBe(401);
  });
});

describe('devices', () => {
  it('renames and revokes with recent authentication and ownership; a revoked device cannot sign', async () => {
    await createUser('hal');
    await createUser('ivy');
    const cookie = await login('hal');
    const other = await login('ivy');
    const device = await pairDevice(s, cookie, 'Hal phone');
    const id = device.deviceId!;
    expect((await call(other, '/manage/devices/update', { operation: 'rename', deviceId: id, name: 'Mine' })).status).toBe(404);
    const renamed = await call(cookie, '/manage/devices/update', { operation: 'rename', deviceId: id, name: '  New name ' });
    expect(renamed.body).toMatchObject({ id, name: 'New name', revokedAt: null });
    expect((await call(cookie, '/manage/devices/update', { operation: 'rename', deviceId: id, name: '   ' })).status).toBe(400);
    expect((await call(cookie, '/manage/devices/update', { operation: 'rename', deviceId: id, name: 'x'.repeat(81) })).status).toBe(400);
    const family = cookie.split('=')[1]!.split('.')[0]!;
    await db().run('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000 WHERE id = ?', [family]);
    expect((await call(cookie, '/manage/devices/update', { operation: 'revoke', deviceId: id })).body.error).toBe('recent_auth_required');
    const fresh = await login('hal');
    const revoked = await call(fresh, '/manage/devices/update', { operation: 'revoke', deviceId: id });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).not.toBeNull();
    const r = await device.command({ operation: 'inbox' });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('device_revoked');
    expect((await device.command({ operation: 'account' })).status).toBe(403);
  });

  it('signs the commands revoke, push and account for the signing device only, and records its last use', async () => {
    await createUser('jay');
    const cookie = await login('jay');
    const device = await pairDevice(s, cookie, 'Jay phone');
    const before = (await db().value('SELECT last_used_at FROM identity_app_devices WHERE id = ?', [device.deviceId])) as number | null;
    expect(before).toBeNull();
    const token = crypto.randomBytes(32).toString('base64url');
    expect(await device.command({ operation: 'push', token })).toEqual({ status: 200, body: { state: 'updated' } });
    expect(await db().value('SELECT push_token FROM identity_app_devices WHERE id = ?', [device.deviceId])).toBe(token);
    expect((await device.command({ operation: 'push', token: 'short' })).status).toBe(400);
    expect(await db().value('SELECT last_used_at FROM identity_app_devices WHERE id = ?', [device.deviceId])).not.toBeNull();
    expect(await device.command({ operation: 'revoke' })).toEqual({ status: 200, body: { state: 'revoked' } });
    expect((await audits('auth.app.device.revoke')).find((a) => a.deviceId === device.deviceId)).toMatchObject({ by: 'device', login: 'jay' });
    expect((await device.command({ operation: 'revoke' })).status).toBe(403);
  });
});

describe('the device channel', () => {
  let device: ScriptedAuthenticator;
  beforeAll(async () => {
    await createUser('kim');
    device = await pairDevice(s, await login('kim'), 'Kim phone');
  });

  it('refuses replayed, expired, long-lived, future and foreign proofs and DER signatures', async () => {
    const jti = crypto.randomUUID();
    expect((await device.command({ operation: 'inbox' }, { jti })).status).toBe(200);
    const replay = await device.command({ operation: 'inbox' }, { jti });
    expect(replay.status).toBe(409);
    expect(replay.body.error).toBe('proof_replayed');
    const nowS = Math.floor(Date.now() / 1000);
    const expired = await device.command({ operation: 'inbox' }, { issuedAt: nowS - 70, expiresAt: nowS - 10 });
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('invalid_proof');
    expect((await device.command({ operation: 'inbox' }, { issuedAt: nowS, expiresAt: nowS + 61 })).status).toBe(400);
    expect((await device.command({ operation: 'inbox' }, { issuedAt: nowS, expiresAt: nowS })).status).toBe(400);
    expect((await device.command({ operation: 'inbox' }, { issuedAt: nowS + 30, expiresAt: nowS + 60 })).body.error).toBe('invalid_proof');
    expect((await device.command({ operation: 'inbox' }, { issuedAt: nowS + 4, expiresAt: nowS + 30 })).status).toBe(200);
    // DER: the same signature re-encoded.
    const body = await device.proofBody({ operation: 'inbox' });
    const p1363 = Buffer.from(body.signature, 'base64url');
    const der = crypto.createPublicKey({ key: { ...device.publicKey }, format: 'jwk' }) && p1363ToDer(p1363);
    const derRes = await device.command({ operation: 'inbox' }, { signature: der.toString('base64url') });
    expect(derRes.status).toBe(400);
    expect(derRes.body.error).toBe('invalid_signature');
    expect(derRes.body.message).toMatch(/DER/);
    const tampered = await device.command({ operation: 'inbox' }, { signature: Buffer.alloc(64, 7).toString('base64url') });
    expect(tampered.status).toBe(403);
    expect(tampered.body.error).toBe('bad_signature');
    const foreign = await fetch(`${s.url}${APPROVAL_PATH}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, proof: { ...body.proof, issuer: 'https://other.example' } }),
    });
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error).toBe('wrong_issuer');
    const unknown = await ScriptedAuthenticator.create(s.url);
    unknown.deviceId = crypto.randomUUID();
    expect((await unknown.command({ operation: 'inbox' })).body.error).toBe('device_unknown');
    expect((await device.command({ operation: 'format-disk' })).status).toBe(400);
    expect((await device.command({ operation: 'inbox', extra: true })).status).toBe(400);
  });

  it('answers 429 with Retry-After after too many refused proofs from one address', async () => {
    const t = await startTestServer({ authenticatorOrigin: APP_ORIGIN });
    try {
      const body = JSON.stringify({
        proof: { issuer: t.url, deviceId: crypto.randomUUID(), jti: crypto.randomUUID(), issuedAt: 1, expiresAt: 2, command: { operation: 'inbox' } },
        signature: 'A'.repeat(86),
      });
      const send = () => fetch(`${t.url}${APPROVAL_PATH}/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      for (let i = 0; i < 60; i++) expect((await send()).status).toBe(403);
      const limited = await send();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      const starts = () =>
        fetch(`${t.url}${APPROVAL_PATH}/login/start`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: t.url },
          body: JSON.stringify({ identifier: 'x', category: 'login' }),
        });
      for (let i = 0; i < 30; i++) expect((await starts()).status).toBe(202);
      const l = await starts();
      expect(l.status).toBe(429);
      expect(l.headers.get('retry-after')).toBeTruthy();
    } finally {
      await t.stop();
    }
  });
});

/** IEEE-P1363 r||s → DER SEQUENCE { INTEGER r, INTEGER s }. */
function p1363ToDer(sig: Buffer): Buffer {
  const int = (b: Buffer) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.subarray(i);
    if (v[0]! & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02, v.length]), v]);
  };
  const body = Buffer.concat([int(sig.subarray(0, 32)), int(sig.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

describe('browser sign-in', () => {
  let device: ScriptedAuthenticator;
  beforeAll(async () => {
    await createUser('lea', { email: 'Lea.Mail@Example.test' });
    device = await pairDevice(s, await login('lea'), 'Lea phone');
  });
  const decide = (d: ScriptedAuthenticator, entry: { requestId: string; challenge: string; comparison: string }, decision: 'approve' | 'deny') =>
    d.command({ operation: 'decide', requestId: entry.requestId, challenge: entry.challenge, comparison: entry.comparison, decision });

  it('answers every start the same way; only a real, paired account gets an approvable request', async () => {
    await createUser('nopair');
    await createUser('gina', { profile: 'guest' });
    const shape = {
      requestId: expect.any(String),
      browserSecret: expect.any(String),
      comparison: expect.stringMatching(/^\d{6}$/),
      expiresAt: expect.any(String),
      pollAfterSeconds: 5,
    };
    for (const [identifier, category] of [
      ['nobody', 'login'],
      ['nopair', 'login'],
      ['LEA', 'guest'],
      ['gina', 'guest'],
      ['lea.mail@example.TEST', 'login'],
    ]) {
      const r = await call(null, '/login/start', { identifier, category });
      expect(r.status).toBe(202);
      expect(r.body).toEqual(shape);
      expect(Object.keys(r.body)).toEqual(['requestId', 'browserSecret', 'comparison', 'expiresAt', 'pollAfterSeconds']);
    }
    const box = await inbox(device);
    // Only the email start (case-insensitive) for Lea in the right category is listed; the secret never is.
    expect(box.body.logins).toHaveLength(1);
    expect(JSON.stringify(box.body)).not.toContain('browserSecret');
    const stored = (await db().value('SELECT secret_hash FROM identity_app_logins WHERE id = ?', [box.body.logins[0].requestId])) as string;
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    await decide(device, box.body.logins[0], 'deny');
  });

  it('holds the status until the app decides, completes once with the session cookie', async () => {
    const req = await startLogin('lea');
    const box = await device.command({ operation: 'pending' });
    const entry = box.body.requests.find((r: any) => r.requestId === req.requestId);
    expect(entry).toEqual({
      requestId: req.requestId,
      challenge: expect.any(String),
      comparison: req.comparison,
      createdAt: expect.any(String),
      expiresAt: req.expiresAt,
    });
    expect(box.body.pollAfterSeconds).toBe(5);
    const approval = s.services.identity.appApproval;
    await approval.internals.listening; // the decision's wake-up reaches this process (on PostgreSQL, its notification)
    const { events, held: isHeld } = watchHold(approval, req.requestId);
    const held = call(null, '/login/status', { requestId: req.requestId, browserSecret: req.browserSecret });
    let answered = false;
    void held.then(() => (answered = true));
    // Held: the server found it pending and waits, instead of answering at once.
    await isHeld;
    expect(answered).toBe(false);
    // A wrong binding does not decide.
    expect(
      (
        await device.command({
          operation: 'decide',
          requestId: req.requestId,
          challenge: entry.challenge,
          comparison: req.comparison === '111111' ? '222222' : '111111',
          decision: 'approve',
        })
      ).status,
    ).toBe(409);
    expect(await decide(device, entry, 'approve')).toEqual({ status: 200, body: { state: 'approved' } });
    const status = await held;
    expect(status.body).toEqual({ state: 'approved', expiresAt: req.expiresAt, pollAfterSeconds: 5 });
    // Held until the app decided: the decision woke it (not the once-a-second re-read, not the end of the hold).
    expect(events).toEqual(['held', 'woken']);
    expect((await decide(device, entry, 'deny')).status).toBe(409);
    expect((await call(null, '/login/status', { requestId: req.requestId, browserSecret: 'x'.repeat(43) })).status).toBe(404);
    expect((await call(null, '/login/complete', { requestId: req.requestId, browserSecret: 'x'.repeat(43) })).status).toBe(404);
    const done = await call(null, '/login/complete', { requestId: req.requestId, browserSecret: req.browserSecret });
    expect(done.status).toBe(204);
    const cookie = done.headers.getSetCookie().find((c) => c.startsWith('hearth_session='))!;
    expect(cookie).toContain('HttpOnly');
    const session = await fetch(`${s.url}/api/auth/session`, { headers: { cookie: cookie.split(';')[0]! } });
    expect((await session.json()).account.login).toBe('lea');
    // Like every sign-in, it is remembered for the sign-in context: the browser cookie and a history row.
    const browser = done.headers.getSetCookie().find((c) => c.startsWith('hearth_browser='))!;
    expect(browser).toContain('HttpOnly');
    const browserHash = crypto.createHash('sha256').update(browser.split(';')[0]!.slice('hearth_browser='.length)).digest('hex');
    const sub = (await db().value("SELECT sub FROM identity_accounts WHERE login = 'lea'")) as string;
    expect(await db().value('SELECT count(*) FROM identity_signin_history WHERE sub = ? AND browser_hash = ?', [sub, browserHash])).toBe(1);
    const again = await call(null, '/login/complete', { requestId: req.requestId, browserSecret: req.browserSecret });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('login_consumed');
    expect((await call(null, '/login/status', { requestId: req.requestId, browserSecret: req.browserSecret })).body.state).toBe('consumed');
    const audit = (await db().value("SELECT detail FROM audit_log WHERE action = 'session.login' ORDER BY id DESC LIMIT 1")) as string;
    expect(JSON.parse(audit)).toMatchObject({ login: 'lea', method: 'app-approval' });
  });

  it('reports denial and expiry, and forgets the request after the readable window', async () => {
    const req = await startLogin('lea');
    const entry = (await inbox(device)).body.logins.find((l: any) => l.requestId === req.requestId);
    await decide(device, entry, 'deny');
    expect((await call(null, '/login/status', { requestId: req.requestId, browserSecret: req.browserSecret })).body.state).toBe('denied');
    expect((await call(null, '/login/complete', { requestId: req.requestId, browserSecret: req.browserSecret })).status).toBe(409);
    const old = await startLogin('lea');
    await db().run('UPDATE identity_app_logins SET expires_at = ? WHERE id = ?', [Date.now() - 1000, old.requestId]);
    expect((await call(null, '/login/status', { requestId: old.requestId, browserSecret: old.browserSecret })).body.state).toBe('expired');
    const oldEntry = {
      requestId: old.requestId,
      challenge: (await db().value('SELECT challenge FROM identity_app_logins WHERE id = ?', [old.requestId])) as string,
      comparison: old.comparison,
    };
    expect((await decide(device, oldEntry, 'approve')).status).toBe(409);
    await db().run('UPDATE identity_app_logins SET expires_at = ? WHERE id = ?', [Date.now() - 61_000, old.requestId]);
    expect((await call(null, '/login/status', { requestId: old.requestId, browserSecret: old.browserSecret })).status).toBe(404);
    await s.services.identity.appApproval.cleanup();
    expect(await db().value('SELECT count(*) FROM identity_app_logins WHERE id = ?', [old.requestId])).toBe(0);
  });

  it('refuses completion after the approving device is revoked or the account epoch changed', async () => {
    const sub = await createUser('max');
    const cookie = await login('max');
    const d = await pairDevice(s, cookie, 'Max phone');
    const req = await startLogin('max');
    const entry = (await inbox(d)).body.logins[0];
    await decide(d, entry, 'approve');
    expect((await call(cookie, '/manage/devices/update', { operation: 'revoke', deviceId: d.deviceId })).status).toBe(200);
    const refused = await call(null, '/login/complete', { requestId: req.requestId, browserSecret: req.browserSecret });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('login_refused');
    expect(refused.headers.getSetCookie()).toEqual([]);

    const d2 = await pairDevice(s, await login('max'), 'Max second');
    const req2 = await startLogin('max');
    await decide(d2, (await inbox(d2)).body.logins[0], 'approve');
    await db().run('UPDATE identity_accounts SET epoch = epoch + 1 WHERE sub = ?', [sub]);
    expect((await call(null, '/login/complete', { requestId: req2.requestId, browserSecret: req2.browserSecret })).body.error).toBe('login_refused');
  });

  it('refuses completion when the account was disabled after the approval', async () => {
    const sub = await createUser('nia');
    const d = await pairDevice(s, await login('nia'), 'Nia phone');
    const req = await startLogin('nia');
    await decide(d, (await inbox(d)).body.logins[0], 'approve');
    expect((await s.api(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    const r = await call(null, '/login/complete', { requestId: req.requestId, browserSecret: req.browserSecret });
    expect(r.status).toBe(403);
    expect(r.body.error).toBe('login_refused');
  });

  it('keeps at most five outstanding sign-ins per account; more get the same answer but are never listed', async () => {
    await createUser('ned');
    const d = await pairDevice(s, await login('ned'), 'Ned phone');
    const reqs = [];
    for (let i = 0; i < 6; i++) reqs.push(await startLogin('ned'));
    const box = await inbox(d);
    expect(box.body.logins.map((l: any) => l.requestId)).toEqual(reqs.slice(0, 5).map((r) => r.requestId));
    expect(await db().value('SELECT sub FROM identity_app_logins WHERE id = ?', [reqs[5]!.requestId])).toBeNull();
  });
});

describe('device changes', () => {
  it('removes a device after another opted-in device approves; endSessions ends the other sessions', async () => {
    const sub = await createUser('oli');
    const cookie = await login('oli');
    const a = await pairDevice(s, cookie, 'A');
    const { pairing, device: b, claim } = await startAndClaim(cookie, 'B');
    await call(cookie, '/manage/pairings/confirm', { pairingId: pairing.pairingId, comparison: claim.comparison });
    const pairChange = (await inbox(a, ['device-changes'])).body.changes[0];
    await a.command({ operation: 'change', changeId: pairChange.changeId, kind: 'pair', targetId: b.deviceId, endSessions: false, decision: 'approve' });
    await inbox(b, ['device-changes']);
    const otherSession = await login('oli');
    const asking = await login('oli');

    const start = await call(asking, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
    expect(start.body).toEqual({
      changeId: expect.any(String),
      state: 'pending',
      expiresAt: expect.any(String),
      kind: 'revoke',
      deviceId: a.deviceId,
      endSessions: false,
    });
    const same = await call(asking, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
    expect(same.body.changeId).toBe(start.body.changeId);
    const replaced = await call(asking, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: true });
    expect(replaced.body.changeId).not.toBe(start.body.changeId);
    expect((await call(asking, '/manage/device-changes/status', { changeId: start.body.changeId })).body.state).toBe('cancelled');
    expect((await call(asking, '/manage/device-changes/status', { deviceId: a.deviceId })).body).toEqual({
      changeId: replaced.body.changeId,
      state: 'pending',
      expiresAt: replaced.body.expiresAt,
    });
    expect((await call(otherSession, '/manage/device-changes/status', { deviceId: a.deviceId })).status).toBe(404);
    expect((await call(otherSession, '/manage/device-changes/status', { changeId: replaced.body.changeId })).status).toBe(404);
    expect((await call(otherSession, '/manage/device-changes/cancel', { changeId: replaced.body.changeId })).status).toBe(404);
    expect((await audits('auth.app.device_change.request')).find((x) => x.changeId === replaced.body.changeId)).toMatchObject({
      target: a.deviceId,
      kind: 'revoke',
      endSignIns: true,
      deviceId: a.deviceId,
      login: 'oli',
    });
    expect(sub).toMatch(/./);

    // The device being removed sees the change but cannot deny it; it stays pending for the others.
    const boxA = await inbox(a, ['device-changes']);
    const change = boxA.body.changes.find((c: any) => c.changeId === replaced.body.changeId);
    expect(change).toMatchObject({ kind: 'revoke', device: { id: a.deviceId, name: 'A' }, endSessions: true });
    const selfDeny = await a.command({
      operation: 'change',
      changeId: change.changeId,
      kind: 'revoke',
      targetId: a.deviceId,
      endSessions: true,
      decision: 'deny',
    });
    expect(selfDeny.status).toBe(409);
    expect((await call(asking, '/manage/device-changes/status', { changeId: change.changeId })).body.state).toBe('pending');
    // Bound exactly: a different endSessions is refused.
    expect(
      (await b.command({ operation: 'change', changeId: change.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: false, decision: 'approve' }))
        .status,
    ).toBe(409);
    expect(
      await b.command({ operation: 'change', changeId: change.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: true, decision: 'approve' }),
    ).toEqual({ status: 200, body: { state: 'approved' } });
    expect((await call(asking, '/manage/device-changes/status', { changeId: change.changeId })).body.state).toBe('approved');
    expect((await a.command({ operation: 'inbox' })).status).toBe(403);
    // Every other session ended (the asking one stays).
    expect((await fetch(`${s.url}/api/auth/session`, { headers: { cookie: otherSession } })).status).toBe(401);
    expect((await fetch(`${s.url}/api/auth/session`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${s.url}/api/auth/session`, { headers: { cookie: asking } })).status).toBe(200);
    const approved = (await audits('auth.app.device_change.approve')).find((x) => x.changeId === change.changeId);
    expect(approved).toMatchObject({
      target: a.deviceId,
      changeId: change.changeId,
      kind: 'revoke',
      endSignIns: true,
      deviceId: a.deviceId,
      decidedBy: b.deviceId,
    });
    expect(approved!.endedSessions).toBeGreaterThanOrEqual(2);
    expect(
      (await b.command({ operation: 'change', changeId: change.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: true, decision: 'approve' }))
        .status,
    ).toBe(409);
    expect((await call(asking, '/manage/device-changes/cancel', { changeId: change.changeId })).status).toBe(409);
  });

  it('lets the device being removed approve its own removal, denies by others, cancels, and revokes plainly without other deciders', async () => {
    await createUser('pia');
    const cookie = await login('pia');
    const a = await pairDevice(s, cookie, 'A');
    // No other opted-in device: a plain revoke.
    const b = await startAndClaim(cookie, 'B');
    await call(cookie, '/manage/pairings/confirm', { pairingId: b.pairing.pairingId, comparison: b.claim.comparison });
    const pc = (await inbox(a, ['device-changes'])).body.changes[0];
    await a.command({ operation: 'change', changeId: pc.changeId, kind: 'pair', targetId: b.device.deviceId, endSessions: false, decision: 'approve' });
    await inbox(a); // A no longer opted in; B never did
    const plain = await call(cookie, '/manage/device-changes/start', { deviceId: b.device.deviceId, endSessions: false });
    expect(plain.body).toEqual({ changeId: null, state: 'revoked', deviceId: b.device.deviceId, endSessions: false, endedSessions: 0 });
    expect((await b.device.command({ operation: 'inbox' })).status).toBe(403);

    const c = await startAndClaim(cookie, 'C');
    await call(cookie, '/manage/pairings/confirm', { pairingId: c.pairing.pairingId, comparison: c.claim.comparison });
    const pc2 = (await inbox(a, ['device-changes'])).body.changes[0];
    await a.command({ operation: 'change', changeId: pc2.changeId, kind: 'pair', targetId: c.device.deviceId, endSessions: false, decision: 'approve' });
    await inbox(c.device, ['device-changes']);
    // Removal of A: C denies.
    const r1 = await call(cookie, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
    const ch1 = (await inbox(c.device, ['device-changes'])).body.changes.find((x: any) => x.changeId === r1.body.changeId);
    expect(
      await c.device.command({ operation: 'change', changeId: ch1.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: false, decision: 'deny' }),
    ).toEqual({ status: 200, body: { state: 'denied' } });
    expect((await call(cookie, '/manage/device-changes/status', { deviceId: a.deviceId })).body.state).toBe('denied');
    expect((await audits('auth.app.device_change.deny')).find((x) => x.changeId === ch1.changeId)).toMatchObject({
      target: a.deviceId,
      kind: 'revoke',
      endSignIns: false,
    });
    // Another removal, cancelled by the session.
    const r2 = await call(cookie, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
    expect(r2.body.changeId).not.toBe(r1.body.changeId);
    expect((await call(cookie, '/manage/device-changes/cancel', { deviceId: a.deviceId })).status).toBe(204);
    expect(
      (
        await c.device.command({
          operation: 'change',
          changeId: r2.body.changeId,
          kind: 'revoke',
          targetId: a.deviceId,
          endSessions: false,
          decision: 'approve',
        })
      ).status,
    ).toBe(409);
    // A third one, approved by A itself.
    const r3 = await call(cookie, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
    await inbox(a, ['device-changes']);
    expect(
      await a.command({ operation: 'change', changeId: r3.body.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: false, decision: 'approve' }),
    ).toEqual({ status: 200, body: { state: 'approved' } });
    expect((await a.command({ operation: 'account' })).status).toBe(403);
    // Expiry: pending → expired, then 404 after the window.
    const d = await startAndClaim(cookie, 'D');
    await call(cookie, '/manage/pairings/confirm', { pairingId: d.pairing.pairingId, comparison: d.claim.comparison });
    const r4 = await call(cookie, '/manage/device-changes/start', { deviceId: c.device.deviceId, endSessions: false });
    expect(r4.body.changeId).toBeNull(); // C is the only device and no other device opted in: a plain revoke
  });
});

describe('device change expiry', () => {
  it('expires a pending removal after five minutes: not decidable, readable one more minute, then 404', async () => {
    await createUser('zed');
    const cookie = await login('zed');
    const a = await pairDevice(s, cookie, 'A');
    const b = await startAndClaim(cookie, 'B');
    await call(cookie, '/manage/pairings/confirm', { pairingId: b.pairing.pairingId, comparison: b.claim.comparison });
    const pc = (await inbox(a, ['device-changes'])).body.changes[0];
    expect(
      (await a.command({ operation: 'change', changeId: pc.changeId, kind: 'pair', targetId: b.device.deviceId, endSessions: false, decision: 'approve' }))
        .status,
    ).toBe(200);
    const r = await call(cookie, '/manage/device-changes/start', { deviceId: b.device.deviceId, endSessions: false });
    expect(r.body.state).toBe('pending');
    await db().run('UPDATE identity_app_device_changes SET expires_at = ? WHERE id = ?', [Date.now() - 1000, r.body.changeId]);
    expect((await call(cookie, '/manage/device-changes/status', { changeId: r.body.changeId })).body.state).toBe('expired');
    expect((await inbox(a, ['device-changes'])).body.changes).toEqual([]);
    const late = await a.command({
      operation: 'change',
      changeId: r.body.changeId,
      kind: 'revoke',
      targetId: b.device.deviceId,
      endSessions: false,
      decision: 'approve',
    });
    expect(late.status).toBe(409);
    expect((await call(cookie, '/manage/device-changes/cancel', { changeId: r.body.changeId })).status).toBe(409);
    expect((await b.device.command({ operation: 'account' })).status).toBe(200);
    await db().run('UPDATE identity_app_device_changes SET expires_at = ? WHERE id = ?', [Date.now() - 61_000, r.body.changeId]);
    expect((await call(cookie, '/manage/device-changes/status', { changeId: r.body.changeId })).status).toBe(404);
    expect((await call(cookie, '/manage/device-changes/status', { deviceId: b.device.deviceId })).status).toBe(404);
  });
});

describe('the inbox budget', () => {
  it('keeps inbox responses within 8 KiB: drops the newest changes, never a login', async () => {
    const sub = await createUser('quinn');
    const cookie = await login('quinn');
    const a = await pairDevice(s, cookie, 'A');
    await inbox(a, ['device-changes', 'terminal-logins']);
    // Five pending pair changes with long names.
    for (let i = 0; i < 5; i++) {
      const p = await startAndClaim(cookie, `${'📱'.repeat(70)} ${i}`);
      expect((await call(cookie, '/manage/pairings/confirm', { pairingId: p.pairing.pairingId, comparison: p.claim.comparison })).body.approval.state).toBe(
        'pending',
      );
    }
    const small = await inbox(a, ['device-changes', 'terminal-logins']);
    expect(small.body.changes).toHaveLength(5);
    expect(small.body.moreChanges).toBe(0);
    // Five terminal sign-ins with sixteen long scope codes each.
    const { resolveBrokerSecret } = await import('../../../server/identity/keys/keys.service.ts');
    const { SecretStore } = await import('../../../server/core/secrets/secrets.ts');
    const broker = s.services.identity.appApproval.terminalBroker(resolveBrokerSecret({}, new SecretStore(s.dataDir)));
    for (let i = 0; i < 5; i++) {
      await broker.create({
        identifier: 'quinn',
        client: { id: 'hearth-cli', name: '🖥'.repeat(80) },
        scopes: Array.from({ length: 16 }, (_, j) => `scope-${j}-${'x'.repeat(50)}`),
        lifetimeSeconds: 3600,
        ip: '127.0.0.1',
        userAgent: 'test',
      });
    }
    const r = await fetch(`${s.url}${APPROVAL_PATH}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(await a.proofBody({ operation: 'inbox', accept: ['device-changes', 'terminal-logins'] })),
    });
    const text = await r.text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(8192);
    const body = JSON.parse(text);
    expect(body.logins).toHaveLength(5);
    expect(body.logins[0].terminal.client.name).toBe('🖥'.repeat(60));
    expect(body.changes.length).toBeLessThan(5);
    expect(body.moreChanges).toBe(5 - body.changes.length);
    // Oldest first: the kept changes are the oldest ones.
    expect(body.changes.map((c: any) => c.changeId)).toEqual(small.body.changes.slice(0, body.changes.length).map((c: any) => c.changeId));
    expect(body).toMatchObject({ actions: [], moreActions: 0, pollAfterSeconds: 5 });
    expect(sub).toBeTruthy();
  });
});

describe('terminal sign-in broker', () => {
  it('creates requests only an opted-in device sees and decides; consume works once', async () => {
    const sub = await createUser('rue');
    const d = await pairDevice(s, await login('rue'), 'Rue phone');
    const { resolveBrokerSecret } = await import('../../../server/identity/keys/keys.service.ts');
    const { SecretStore } = await import('../../../server/core/secrets/secrets.ts');
    expect(() => s.services.identity.appApproval.terminalBroker('wrong-secret')).toThrow(/broker secret/);
    const broker = s.services.identity.appApproval.terminalBroker(resolveBrokerSecret({}, new SecretStore(s.dataDir)));
    const input = {
      identifier: 'RUE',
      client: { id: 'hearth-cli', name: 'Hearth CLI' },
      scopes: ['openid', 'offline_access'],
      lifetimeSeconds: 3600,
      ip: '127.0.0.1',
      userAgent: 'hearth-cli',
    };
    const t = await broker.create(input);
    expect(t).toEqual({ requestId: expect.any(String), comparison: expect.stringMatching(/^\d{6}$/), expiresAt: expect.any(Number) });
    const ghost = await broker.create({ ...input, identifier: 'nobody-here' });
    expect(Object.keys(ghost)).toEqual(Object.keys(t));
    expect(await broker.state(ghost.requestId)).toBe('pending');
    // Not in `pending`, not in an inbox without the opt-in.
    expect(
      (await d.command({ operation: 'pending', accept: ['login-context', 'terminal-logins'] })).body.requests.find((r: any) => r.requestId === t.requestId),
    ).toBeUndefined();
    expect((await inbox(d)).body.logins.find((r: any) => r.requestId === t.requestId)).toBeUndefined();
    const challenge = (await db().value('SELECT challenge FROM identity_app_logins WHERE id = ?', [t.requestId])) as string;
    const decide = () => d.command({ operation: 'decide', requestId: t.requestId, challenge, comparison: t.comparison, decision: 'approve' });
    expect((await decide()).body.error).toBe('not_opted_in');
    const box = await inbox(d, ['terminal-logins', 'login-context']);
    const entry = box.body.logins.find((r: any) => r.requestId === t.requestId);
    expect(entry).toEqual({
      requestId: t.requestId,
      challenge,
      comparison: t.comparison,
      createdAt: expect.any(String),
      expiresAt: new Date(t.expiresAt).toISOString(),
      terminal: { client: { id: 'hearth-cli', name: 'Hearth CLI' }, scopes: ['openid', 'offline_access'], lifetimeSeconds: 3600 },
    });
    expect(await broker.state(t.requestId)).toBe('pending');
    expect(await broker.consume(t.requestId)).toBeNull();
    expect((await decide()).body).toEqual({ state: 'approved' });
    expect(await broker.state(t.requestId)).toBe('approved');
    expect(await broker.consume(t.requestId)).toEqual({ sub });
    expect(await broker.consume(t.requestId)).toBeNull();
    expect(await broker.state(t.requestId)).toBe('consumed');
    expect(await broker.state(crypto.randomUUID())).toBe('unavailable');
  });
});
