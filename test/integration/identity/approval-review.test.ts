/**
 * Authenticator approval (`hearth-app-approval-v1`), the gaps of the protocol review: the 8 KiB response budget of the
 * device lists, the disabled protocol (503), audit targets of device changes, only listed changes are decided, email
 * as a required enrolment channel (with an idempotent notice), last use, equal answers of `/login/start`, the broker's
 * scope rules, the `account` command, the failure limiter of the pairing endpoints and the assisted-pairing recheck.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { SecretStore } from '../../../server/core/secrets/secrets.ts';
import { resolveBrokerSecret } from '../../../server/identity/keys/keys.service.ts';
import { APPROVAL_PATH, manage, pairDevice, ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

const APP_ORIGIN = 'https://auth.review.test';
const PASSWORD = 'review-Passw0rd!';
const NOTICE = 'A device was paired with your Hearth account';
let s: TestServer;
let peer: Peer;

async function createUser(t: TestServer, login: string, opts: { email?: string | null; admin?: boolean; displayName?: string } = {}): Promise<string> {
  const email = opts.email === undefined ? `${login}@example.test` : opts.email;
  const r = await t.api('/api/admin/core/accounts', {
    method: 'POST',
    json: { login, ...(email ? { email } : {}), ...(opts.displayName !== undefined ? { displayName: opts.displayName } : {}), admin: opts.admin ?? false },
  });
  expect(r.status, await r.clone().text()).toBe(201);
  const sub = (await r.json()).sub as string;
  expect((await t.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
  return sub;
}
// The core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const db = () => s.services.store;
const audits = async (action: string) =>
  (await db().all<{ target: string; detail: string }>('SELECT target, detail FROM audit_log WHERE action = ? ORDER BY id', [action])).map((r) => ({
    target: r.target,
    ...JSON.parse(r.detail),
  }));
const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const inbox = (d: ScriptedAuthenticator, accept?: string[]) => d.command({ operation: 'inbox', ...(accept ? { accept } : {}) });

/** A first device, then a second one approved by the first; both opted in to device-changes. */
async function twoDevices(t: TestServer, cookie: string) {
  const a = await pairDevice(t, cookie, 'A');
  const start = await manage(t, cookie, '/manage/pairings/start', {});
  const b = await ScriptedAuthenticator.create(t.url);
  const claim = await b.claim(start.body, 'B');
  expect(
    (await manage(t, cookie, '/manage/pairings/confirm', { pairingId: start.body.pairingId, comparison: claim.body.comparison })).body.approval.state,
  ).toBe('pending');
  const pc = (await inbox(a, ['device-changes'])).body.changes[0];
  expect(await a.command({ operation: 'change', changeId: pc.changeId, kind: 'pair', targetId: b.deviceId, endSessions: false, decision: 'approve' })).toEqual({
    status: 200,
    body: { state: 'approved' },
  });
  await inbox(b, ['device-changes']);
  return { a, b, pairChangeId: pc.changeId as string };
}

beforeAll(async () => {
  peer = await startPeer();
  s = await startTestServer({ authenticatorOrigin: APP_ORIGIN });
  const profile = await s.api('/api/admin/core/outgoing-mail/profiles/main', {
    method: 'PUT',
    json: { name: 'Office', fromAddress: 'hearth@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false },
  });
  expect(profile.status, await profile.text()).toBe(201);
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

describe('the 8 KiB response budget', () => {
  it('shrinks device-list pages of long multi-byte names to fit; the cursor reaches all twenty exactly once', async () => {
    const sub = await createUser(s, 'rb-emoji');
    const cookie = await signIn(s, 'rb-emoji', PASSWORD);
    const store = s.services.identity.appApproval.internals.store;
    const name = '📱'.repeat(80);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const id = crypto.randomUUID();
      ids.add(id);
      await store.insertDevice({ id, sub, name, public_key: JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }), assisted: 0, created_at: Date.now() });
    }
    for (const list of [
      (after: string | null) => fetch(`${s.url}${APPROVAL_PATH}/manage/devices${after ? `?after=${after}` : ''}`, { headers: { cookie } }),
      (after: string | null) => s.api(`/api/admin/core/users/${sub}/app-devices${after ? `?after=${after}` : ''}`),
    ]) {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      do {
        const r = await list(after);
        expect(r.status).toBe(200);
        const text = await r.text();
        expect(bytes(text)).toBeLessThanOrEqual(8192);
        const page = JSON.parse(text) as { items: Array<{ id: string; name: string }>; nextCursor: string | null };
        expect(page.items.length).toBeGreaterThan(0);
        expect(page.items.length).toBeLessThan(20);
        for (const d of page.items) expect(d.name).toBe(name);
        seen.push(...page.items.map((d) => d.id));
        if (page.nextCursor !== null) expect(page.nextCursor).toBe(page.items[page.items.length - 1]!.id);
        after = page.nextCursor;
        pages++;
      } while (after !== null && pages < 40);
      expect(pages).toBeGreaterThan(1);
      expect(seen).toHaveLength(20);
      expect(new Set(seen)).toEqual(ids);
      expect(seen).toEqual([...seen].sort());
    }
  });

  it('keeps pending answers within 8 KiB with five sign-ins carrying context', async () => {
    await createUser(s, 'rb-pending');
    const d = await pairDevice(s, await signIn(s, 'rb-pending', PASSWORD), 'Pending phone');
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${s.url}${APPROVAL_PATH}/login/start`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: s.url, 'user-agent': `Mozilla/5.0 ${'x'.repeat(900)}` },
        body: JSON.stringify({ identifier: 'rb-pending', category: 'login' }),
      });
      expect(r.status).toBe(202);
    }
    const body = await d.proofBody({ operation: 'pending', accept: ['login-context'] });
    const r = await fetch(`${s.url}${APPROVAL_PATH}/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await r.text();
    expect(r.status).toBe(200);
    expect(bytes(text)).toBeLessThanOrEqual(8192);
    const json = JSON.parse(text);
    expect(json.requests).toHaveLength(5);
    for (const q of json.requests) expect(q.context).toMatchObject({ level: expect.any(String) });
  });
});

describe('the disabled protocol', () => {
  it('answers 503 approval_disabled on every endpoint but /info, which says enabled: false; admin device routes stay', async () => {
    const t = await startTestServer();
    try {
      const info = await fetch(`${t.url}${APPROVAL_PATH}/info`);
      expect(info.status).toBe(200);
      expect(await info.json()).toMatchObject({ protocol: 'hearth-app-approval-v1', appOrigin: null, features: [], enabled: false });
      const sub = await createUser(t, 'dis');
      const cookie = await signIn(t, 'dis', PASSWORD);
      const origin = t.url.replace(/\/$/, '');
      const posts = [
        '/manage/pairings/start',
        '/pairings/claim',
        '/manage/pairings/status',
        '/manage/pairings/confirm',
        '/pairings/result',
        '/manage/pairings/cancel',
        '/manage/devices/update',
        '/manage/device-changes/start',
        '/manage/device-changes/status',
        '/manage/device-changes/cancel',
        '/login/start',
        '/login/status',
        '/login/complete',
        '/device',
      ];
      for (const p of posts) {
        const r = await fetch(`${t.url}${APPROVAL_PATH}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', origin, cookie }, body: '{}' });
        expect(r.status, p).toBe(503);
        const body = await r.json();
        expect(body.error, p).toBe('approval_disabled');
        expect(body.message).toMatch(/HEARTH_AUTHENTICATOR_ORIGIN/);
        expect(body.message).toMatch(/--authenticator-port/);
      }
      // Before authentication: no session gets 503 too, not 401.
      expect((await fetch(`${t.url}${APPROVAL_PATH}/manage/devices`)).status).toBe(503);
      expect((await fetch(`${t.url}${APPROVAL_PATH}/manage/devices`, { headers: { cookie } })).status).toBe(503);
      expect((await t.api(`/api/admin/core/users/${sub}/app-devices`)).status).toBe(200);
    } finally {
      await t.stop();
    }
  });

  it('answers 503 approval_unavailable with Retry-After while platform.db stays locked past its busy timeout', async () => {
    // About platform.db itself (its file locked by another connection): a server of its own on SQLite under either
    // HEARTH_TEST_STORE.
    const s = await startTestServer({ store: 'sqlite', authenticatorOrigin: APP_ORIGIN });
    onTestFinished(() => s.stop());
    await createUser(s, 'busy');
    const cookie = await signIn(s, 'busy', PASSWORD);
    const other = new Database(path.join(s.dataDir, 'platform.db'));
    try {
      other.prepare('BEGIN EXCLUSIVE').run();
      const r = await manage(s, cookie, '/manage/pairings/start', {});
      expect(r.status).toBe(503);
      expect(r.body.error).toBe('approval_unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      if (other.inTransaction) other.prepare('ROLLBACK').run();
      other.close();
    }
    expect((await manage(s, cookie, '/manage/pairings/start', {})).status).toBe(201);
  });
});

describe('audit of device changes', () => {
  it('targets the device with changeId, kind and endSignIns; approve counts the ended sessions', async () => {
    await createUser(s, 'aud');
    const cookie = await signIn(s, 'aud', PASSWORD);
    const { a, b, pairChangeId } = await twoDevices(s, cookie);
    expect((await audits('auth.app.device_change.request')).find((x) => x.changeId === pairChangeId)).toMatchObject({
      target: b.deviceId,
      changeId: pairChangeId,
      kind: 'pair',
      endSignIns: false,
    });
    expect((await audits('auth.app.device_change.approve')).find((x) => x.changeId === pairChangeId)).toMatchObject({
      target: b.deviceId,
      kind: 'pair',
      endSignIns: false,
      endedSessions: 0,
      decidedBy: a.deviceId,
    });
    await signIn(s, 'aud', PASSWORD);
    const asking = await signIn(s, 'aud', PASSWORD);
    const removal = await manage(s, asking, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: true });
    expect((await audits('auth.app.device_change.request')).find((x) => x.changeId === removal.body.changeId)).toMatchObject({
      target: a.deviceId,
      kind: 'revoke',
      endSignIns: true,
    });
    await inbox(b, ['device-changes']);
    expect(
      (await b.command({ operation: 'change', changeId: removal.body.changeId, kind: 'revoke', targetId: a.deviceId, endSessions: true, decision: 'approve' }))
        .body,
    ).toEqual({ state: 'approved' });
    const approved = (await audits('auth.app.device_change.approve')).find((x) => x.changeId === removal.body.changeId);
    expect(approved).toMatchObject({ target: a.deviceId, kind: 'revoke', endSignIns: true, decidedBy: b.deviceId });
    expect(approved.endedSessions).toBe(2);
    const again = await manage(s, asking, '/manage/device-changes/start', { deviceId: b.deviceId, endSessions: false });
    expect(again.body.state).toBe('revoked');
  });
});

describe('only listed device changes are decided', () => {
  it('refuses (409 change_not_listed) a change beyond the five oldest until older ones are decided', async () => {
    await createUser(s, 'lst');
    const cookie = await signIn(s, 'lst', PASSWORD);
    const { a, b } = await twoDevices(s, cookie);
    const changes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const session = await signIn(s, 'lst', PASSWORD);
      const r = await manage(s, session, '/manage/device-changes/start', { deviceId: a.deviceId, endSessions: false });
      expect(r.body.state).toBe('pending');
      changes.push(r.body.changeId);
    }
    const box = await inbox(b, ['device-changes']);
    expect(box.body.changes.map((c: any) => c.changeId)).toEqual(changes.slice(0, 5));
    expect(box.body.moreChanges).toBe(1);
    const decide = (changeId: string, decision: string) =>
      b.command({ operation: 'change', changeId, kind: 'revoke', targetId: a.deviceId, endSessions: false, decision });
    const refused = await decide(changes[5]!, 'deny');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('change_not_listed');
    expect(await db().value('SELECT state FROM identity_app_device_changes WHERE id = ?', [changes[5]])).toBe('pending');
    expect((await decide(changes[0]!, 'deny')).body).toEqual({ state: 'denied' });
    expect((await decide(changes[5]!, 'deny')).body).toEqual({ state: 'denied' });
  });
});

describe('email is a required enrolment channel', () => {
  it('refuses to start a pairing (also assisted) for an account without an email address', async () => {
    const sub = await createUser(s, 'nomail', { email: null });
    const r = await manage(s, await signIn(s, 'nomail', PASSWORD), '/manage/pairings/start', {});
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('email_required');
    await createUser(s, 'mailadmin', { admin: true });
    const assisted = await manage(s, await signIn(s, 'mailadmin', PASSWORD), '/manage/pairings/start', { userId: sub });
    expect(assisted.status).toBe(409);
    expect(assisted.body.error).toBe('email_required');
    expect(assisted.body.message).toMatch(/add one/);
    expect(await db().value('SELECT count(*) FROM identity_app_pairings WHERE sub = ?', [sub])).toBe(0);
  });

  it('hands the notice to mail with an idempotency key of the device: a repeated delivery sends one message', async () => {
    await createUser(s, 'twice');
    const d = await pairDevice(s, await signIn(s, 'twice', PASSWORD), 'Twice phone');
    const approval = s.services.identity.appApproval;
    await approval.deliverNotices();
    // A crash after mail accepted the notice but before it was marked sent: the notice is delivered again.
    await db().run('UPDATE identity_app_enrol_notices SET sent_at = NULL WHERE device_id = ?', [d.deviceId]);
    await approval.deliverNotices();
    expect(await db().value('SELECT sent_at FROM identity_app_enrol_notices WHERE device_id = ?', [d.deviceId])).not.toBeNull();
    const rows = (await db().all<Record<string, unknown>>('SELECT idempotency_key FROM mail_messages WHERE ref = ?', [`app-device:${d.deviceId}`])).map(
      (r) => Object.values(r)[0],
    );
    expect(rows).toEqual([`app-device-enrol:${d.deviceId}`]);
    await until(() => peer.received.some((m) => m.to.includes('twice@example.test') && m.parsed.subject === NOTICE), 'the enrolment notice');
    await s.services.mail.idle();
    expect(peer.received.filter((m) => m.to.includes('twice@example.test') && m.parsed.subject === NOTICE)).toHaveLength(1);
  });
});

describe('last use', () => {
  it('records only successful commands: refused, replayed and revoked-device commands leave lastUsedAt alone', async () => {
    await createUser(s, 'lu');
    const cookie = await signIn(s, 'lu', PASSWORD);
    const d = await pairDevice(s, cookie, 'LU phone');
    const lastUsed = () => db().value<number | null>('SELECT last_used_at FROM identity_app_devices WHERE id = ?', [d.deviceId]);
    const send = (body: unknown) =>
      fetch(`${s.url}${APPROVAL_PATH}/device`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await lastUsed()).toBeNull();
    const refused = await d.command({ operation: 'decide', requestId: crypto.randomUUID(), challenge: 'c', comparison: '123456', decision: 'approve' });
    expect(refused.status).toBe(404);
    expect(await lastUsed()).toBeNull();
    const body = await d.proofBody({ operation: 'account' });
    expect((await send(body)).status).toBe(200);
    expect(await lastUsed()).not.toBeNull();
    await db().run('UPDATE identity_app_devices SET last_used_at = 1 WHERE id = ?', [d.deviceId]);
    const replay = await send(body);
    expect(replay.status).toBe(409);
    expect((await replay.json()).error).toBe('proof_replayed');
    expect(await lastUsed()).toBe(1);
    expect((await manage(s, cookie, '/manage/devices/update', { operation: 'revoke', deviceId: d.deviceId })).status).toBe(200);
    await db().run('UPDATE identity_app_devices SET last_used_at = 1 WHERE id = ?', [d.deviceId]);
    expect((await d.command({ operation: 'inbox' })).status).toBe(403);
    expect(await lastUsed()).toBe(1);
  });
});

describe('/login/start answers', () => {
  it('gives disabled and ambiguous identifiers the same shape as a paired account, and nothing to approve', async () => {
    await createUser(s, 'eligible');
    await pairDevice(s, await signIn(s, 'eligible', PASSWORD), 'Eligible phone');
    const disabledSub = await createUser(s, 'gone');
    await pairDevice(s, await signIn(s, 'gone', PASSWORD), 'Gone phone');
    expect((await s.api(`/api/admin/core/accounts/${disabledSub}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    // Ambiguous: one account's login (as an older directory import could hold it) is another account's email.
    const ambA = await createUser(s, 'amb-a', { email: 'amb@example.test' });
    const ambB = await createUser(s, 'amb-b');
    await pairDevice(s, await signIn(s, 'amb-a', PASSWORD), 'Amb phone');
    await db().run('UPDATE identity_accounts SET login = ? WHERE sub = ?', ['amb@example.test', ambB]);
    const start = async (identifier: string) => {
      const r = await manage(s, null, '/login/start', { identifier, category: 'login' });
      expect(r.status).toBe(202);
      return r.body;
    };
    const ok = await start('eligible');
    const keys = Object.keys(ok);
    const shape = (b: Record<string, unknown>) => ({
      keys: Object.keys(b),
      comparison: /^\d{6}$/.test(String(b.comparison)),
      secret: String(b.browserSecret).length,
      pollAfterSeconds: b.pollAfterSeconds,
    });
    const row = async (id: string) =>
      (await db().get<{ sub: string | null; context: string | null }>('SELECT sub, context FROM identity_app_logins WHERE id = ?', [id]))!;
    expect((await row(ok.requestId)).sub).not.toBeNull();
    expect((await row(ok.requestId)).context).not.toBeNull();
    for (const identifier of ['gone', 'amb@example.test', 'nobody-at-all']) {
      const b = await start(identifier);
      expect(Object.keys(b)).toEqual(keys);
      expect(shape(b)).toEqual(shape(ok));
      expect(await row(b.requestId)).toEqual({ sub: null, context: null });
    }
    expect(ambA).not.toBe(ambB);
  });
});

describe('terminal broker and the account command', () => {
  it('refuses a terminal sign-in with no scope or more than sixteen', async () => {
    const broker = s.services.identity.appApproval.terminalBroker(resolveBrokerSecret({}, new SecretStore(s.dataDir)));
    const input = { identifier: 'x', client: { id: 'hearth-cli', name: 'Hearth CLI' }, lifetimeSeconds: 60, ip: '127.0.0.1', userAgent: 'cli' };
    for (const scopes of [[], Array.from({ length: 17 }, (_, i) => `s${i}`)]) {
      await expect(broker.create({ ...input, scopes })).rejects.toThrow(/1–16 scope codes/);
    }
    expect((await broker.create({ ...input, scopes: Array.from({ length: 16 }, (_, i) => `s${i}`) })).requestId).toEqual(expect.any(String));
  });

  it('answers account with an empty displayName and mail null', async () => {
    const sub = await createUser(s, 'plain', { displayName: '' });
    const d = await pairDevice(s, await signIn(s, 'plain', PASSWORD), 'Plain phone');
    expect((await s.api(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', json: { email: null } })).status).toBe(200);
    const r = await d.command({ operation: 'account' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ account: { uid: 'plain', displayName: '', mail: null }, device: { name: 'Plain phone', createdAt: expect.any(String) } });
  });
});

describe('failure limiter on the pairing endpoints', () => {
  it('answers 429 with Retry-After and CORS on /pairings/claim and /pairings/result after sixty refused secrets', async () => {
    const t = await startTestServer({ authenticatorOrigin: APP_ORIGIN });
    try {
      await createUser(t, 'lim');
      const start = await manage(t, await signIn(t, 'lim', PASSWORD), '/manage/pairings/start', {});
      const d = await ScriptedAuthenticator.create(t.url, { origin: APP_ORIGIN });
      const wrong = { ...start.body, secret: 'wrong-secret' };
      for (let i = 0; i < 30; i++) expect((await d.claim(wrong, 'Phone')).status).toBe(403);
      for (let i = 0; i < 30; i++) expect((await d.pairingResult(wrong)).status).toBe(403);
      for (const p of ['/pairings/claim', '/pairings/result']) {
        const r = await fetch(`${t.url}${APPROVAL_PATH}${p}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: APP_ORIGIN },
          body: JSON.stringify({ pairingId: start.body.pairingId, secret: start.body.secret, publicKey: d.publicKey }),
        });
        expect(r.status, p).toBe(429);
        expect((await r.json()).error).toBe('rate_limited');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      }
    } finally {
      await t.stop();
    }
  });
});

describe('assisted pairing', () => {
  it('rechecks the target account at confirmation: disabled in between is 409 account_not_eligible, nothing enrolled', async () => {
    const sub = await createUser(s, 'target');
    await createUser(s, 'helper', { admin: true });
    const admin = await signIn(s, 'helper', PASSWORD);
    const start = await manage(s, admin, '/manage/pairings/start', { userId: sub });
    expect(start.status).toBe(201);
    const d = await ScriptedAuthenticator.create(s.url);
    const claim = await d.claim(start.body, 'Target phone');
    expect((await s.api(`/api/admin/core/accounts/${sub}`, { method: 'PATCH', json: { disabled: true } })).status).toBe(200);
    const r = await manage(s, admin, '/manage/pairings/confirm', { pairingId: start.body.pairingId, comparison: claim.body.comparison });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('account_not_eligible');
    expect(await db().value('SELECT count(*) FROM identity_app_devices WHERE sub = ?', [sub])).toBe(0);
    expect((await d.pairingResult(start.body)).body.state).toBe('claimed');
  });
});
