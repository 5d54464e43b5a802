/**
 * Authenticator approval: the sign-in context opt-in, the inbox trim order, the durable enrolment notice (retried until
 * outgoing mail accepts it), administrator rules and the OpenAPI document.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { fitInbox, type InboxBody } from '../../../server/identity/approval/approval.channel.ts';
import { APPROVAL_PATH, manage, pairDevice, ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

const PASSWORD = 'approval-Passw0rd!';
let s: TestServer;

async function createUser(t: TestServer, login: string, opts: { admin?: boolean; email?: string } = {}): Promise<string> {
  const r = await t.api('/api/admin/core/accounts', {
    method: 'POST',
    json: { login, email: opts.email ?? `${login}@example.test`, admin: opts.admin ?? false },
  });
  expect(r.status).toBe(201);
  const sub = (await r.json()).sub as string;
  expect((await t.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
  return sub;
}

beforeAll(async () => {
  s = await startTestServer({ authenticatorOrigin: 'https://auth.example.test' });
});
afterAll(async () => {
  await s?.stop();
});

describe('sign-in context', () => {
  it('adds the stored context (and sameNetwork) only for a device that opted in to login-context', async () => {
    const info = await (await fetch(`${s.url}${APPROVAL_PATH}/info`)).json();
    expect(info.features).toEqual(['device-changes', 'login-context', 'terminal-logins']);
    await createUser(s, 'uma');
    const d = await pairDevice(s, await signIn(s, 'uma', PASSWORD), 'Uma phone');
    const start = await manage(s, null, '/login/start', { identifier: 'uma', category: 'login' });
    expect(start.status).toBe(202);
    const stored = JSON.parse((await s.services.store.value<string>('SELECT context FROM identity_app_logins WHERE id = ?', [start.body.requestId]))!);
    expect(stored).toMatchObject({ level: expect.any(String), browser: expect.any(String), os: expect.any(String) });

    const plain = await d.command({ operation: 'pending' });
    expect(plain.body.requests[0]).not.toHaveProperty('context');
    const withContext = await d.command({ operation: 'pending', accept: ['login-context'] });
    // The phone and the browser share 127.0.0.1 here.
    expect(withContext.body.requests[0].context).toEqual({ ...stored, sameNetwork: true });
    const box = await d.command({ operation: 'inbox', accept: ['login-context'] });
    expect(box.body.logins[0].context).toEqual({ ...stored, sameNetwork: true });
    expect(box.body).not.toHaveProperty('changes');
    const noOpt = await d.command({ operation: 'inbox' });
    expect(noOpt.body.logins[0]).not.toHaveProperty('context');
    expect(await s.services.store.value('SELECT accept FROM identity_app_devices WHERE id = ?', [d.deviceId])).toBe('[]');
  });
});

describe('held sign-in status', () => {
  it('answers a decision written by another process (another connection to platform.db) before the hold ends', async () => {
    // About platform.db itself (a second connection to its file): a server of its own on SQLite under either
    // HEARTH_TEST_STORE (store-postgres.test.ts has PostgreSQL's form: a held status released by another replica's notification).
    const s = await startTestServer({ store: 'sqlite', authenticatorOrigin: 'https://auth.example.test' });
    onTestFinished(() => s.stop());
    await createUser(s, 'otto');
    const d = await pairDevice(s, await signIn(s, 'otto', PASSWORD), 'Otto phone');
    const start = await manage(s, null, '/login/start', { identifier: 'otto', category: 'login' });
    expect(start.status).toBe(202);
    const events: string[] = [];
    let nowHeld!: () => void;
    const isHeld = new Promise<void>((resolve) => (nowHeld = resolve));
    onTestFinished(
      s.services.identity.appApproval.internals.observeHolds((e) => {
        if (e.requestId !== start.body.requestId) return;
        events.push(e.event);
        if (e.event === 'held') nowHeld();
      }),
    );
    const held = manage(s, null, '/login/status', { requestId: start.body.requestId, browserSecret: start.body.browserSecret });
    // Written the moment the status is held (its first read found the request pending), so only a re-read can see it.
    await isHeld;
    // What a second Hearth process on the same data folder writes when its device channel takes the decision.
    const other = new Database(path.join(s.dataDir, 'platform.db'));
    try {
      other.pragma('busy_timeout = 5000');
      const changed = other
        .prepare("UPDATE identity_app_logins SET state = 'denied', device_id = ?, decided_at = ? WHERE id = ? AND state = 'pending'")
        .run(d.deviceId, Date.now(), start.body.requestId).changes;
      expect(changed).toBe(1);
    } finally {
      other.close();
    }
    const answer = await held;
    expect(answer.body.state).toBe('denied');
    // Answered by the one-second recheck, not at the end of the five-second hold (nor by a wake: nothing notified).
    expect(events).toEqual(['held', 'recheck']);
  });
});

describe('inbox trim order', () => {
  const login = (i: number, context: boolean) => ({
    requestId: `r${i}`,
    challenge: 'c'.repeat(32),
    comparison: '123456',
    createdAt: new Date(0).toISOString(),
    expiresAt: new Date(0).toISOString(),
    ...(context ? { context: { city: 'x'.repeat(900) } } : {}),
  });
  const change = (i: number) => ({
    changeId: `c${i}`,
    kind: 'pair' as const,
    device: { id: `d${i}`, name: 'n'.repeat(300) },
    endSessions: false,
    createdAt: 'a',
    expiresAt: 'b',
  });

  it('drops actions first, then context from the last login backwards, then the newest changes; never a login', () => {
    const body: InboxBody = {
      logins: [0, 1, 2, 3, 4].map((i) => login(i, true)),
      actions: [{ big: 'a'.repeat(2000) }],
      moreActions: 0,
      changes: [0, 1, 2, 3, 4].map(change),
      moreChanges: 0,
      pollAfterSeconds: 5,
    };
    const size = (b: unknown) => Buffer.byteLength(JSON.stringify(b));
    expect(size(body)).toBeGreaterThan(8192);
    const a = fitInbox(body, 5, size(body) - 100);
    expect(a.actions).toEqual([]);
    expect(a.moreActions).toBe(1);
    expect(a.logins.every((l) => 'context' in l)).toBe(true);
    expect(a.changes).toHaveLength(5);
    const b = fitInbox(body, 5, size(body) - 3000);
    expect(b.logins.map((l) => 'context' in l)).toEqual([true, true, true, false, false]);
    expect(b.changes).toHaveLength(5);
    expect(b.moreChanges).toBe(0);
    const twoChanges = {
      ...body,
      logins: [0, 1, 2, 3, 4].map((i) => login(i, false)),
      actions: [],
      moreActions: 1,
      changes: body.changes!.slice(0, 2),
      moreChanges: 5,
    };
    const c = fitInbox(body, 7, size(twoChanges));
    expect(c.logins).toHaveLength(5);
    expect(c.logins.some((l) => 'context' in l)).toBe(false);
    expect(c.changes!.map((x) => x.changeId)).toEqual(['c0', 'c1']);
    expect(c.moreChanges).toBe(5);
    expect(c).toEqual(twoChanges);
    // The original is left as it was.
    expect(body.actions).toHaveLength(1);
  });
});

describe('enrolment notices', () => {
  let t: TestServer;
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeer();
    t = await startTestServer({ authenticatorOrigin: 'https://auth.example.test' });
  });
  afterAll(async () => {
    await t?.stop();
    await peer?.close();
  });

  it('keeps the notice in the outbox while mail is unavailable and delivers it once when it is', async () => {
    await createUser(t, 'vic');
    const cookie = await signIn(t, 'vic', PASSWORD);
    const d = await pairDevice(t, cookie, 'Vic phone');
    // No mail profile yet: the enrolment stands, the notice waits.
    expect((await d.command({ operation: 'account' })).status).toBe(200);
    const row = async () =>
      (await t.services.store.get<{ sent_at: number | null; attempts: number }>('SELECT * FROM identity_app_enrol_notices WHERE device_id = ?', [d.deviceId]))!;
    expect((await row()).sent_at).toBeNull();
    expect(await t.services.identity.appApproval.deliverNotices()).toBe(0);
    expect((await row()).attempts).toBeGreaterThanOrEqual(1);
    const profile = await t.api('/api/admin/core/outgoing-mail/profiles/main', {
      method: 'PUT',
      json: { name: 'Office', fromAddress: 'hearth@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false },
    });
    expect(profile.status).toBe(201);
    expect(await t.services.identity.appApproval.deliverNotices()).toBe(1);
    expect((await row()).sent_at).not.toBeNull();
    expect(await t.services.identity.appApproval.deliverNotices()).toBe(0);
    await until(() => peer.received.some((m) => m.parsed.subject === 'A device was paired with your Hearth account'), 'the enrolment notice');
    const mails = peer.received.filter((m) => m.parsed.subject === 'A device was paired with your Hearth account');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['vic@example.test']);
    expect(mails[0]!.parsed.text).toContain('Vic phone');
  });
});

describe('enrolment notices without a default mail profile', () => {
  const lines: Array<{ level: string; msg: string; deviceId?: string; waiting?: number; code?: string; err?: string }> = [];
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      authenticatorOrigin: 'https://auth.example.test',
      logLevel: 'info',
      logDestination: { write: (l: string) => void lines.push(JSON.parse(l)) } as never,
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('logs each waiting notice once, and the reason once per pass', async () => {
    const devices: string[] = [];
    for (const login of ['nia', 'ned', 'nox']) {
      await createUser(t, login);
      devices.push((await pairDevice(t, await signIn(t, login, PASSWORD), `${login} phone`)).deviceId!);
    }
    // (sum() over BIGINT is NUMERIC on PostgreSQL: cast back.)
    let seen = 0;
    const attempts = async () =>
      (seen = (await t.services.store.value<number>('SELECT CAST(sum(attempts) AS BIGINT) FROM identity_app_enrol_notices WHERE sent_at IS NULL')) ?? 0);
    // Every confirmation runs a pass of its own: wait for the third one before counting.
    await until(
      async () => (await attempts()) >= 3 && lines.some((l) => l.deviceId === devices[2]),
      () => `the enrolment passes (${seen} attempts)`,
    );
    const noticeLines = () => lines.filter((l) => /enrolment notice/.test(l.msg));
    const before = noticeLines().length;
    const approval = t.services.identity.appApproval;
    expect(await approval.deliverNotices()).toBe(0);
    expect(await approval.deliverNotices()).toBe(0);
    // One line per notice over the whole run, never repeated by a later pass ...
    for (const id of devices)
      expect(
        noticeLines().filter((l) => l.deviceId === id),
        id,
      ).toHaveLength(1);
    // ... and each of the two passes states the reason in one line for all three.
    const passes = noticeLines().slice(before);
    expect(passes).toHaveLength(2);
    for (const p of passes) {
      expect(p).toMatchObject({ level: 'warn', waiting: 3, code: 'mail_not_configured' });
      expect(p.err).toMatch(/profile/);
      expect(p.msg).toBe(`3 device enrolment notices wait: ${p.err}; retrying every minute`);
      expect(p.deviceId).toBeUndefined();
    }
  });
});

describe('administrators', () => {
  it('rechecks the administrator on assisted confirmation; admin device routes need the role', async () => {
    const sub = await createUser(s, 'wes');
    const adminSub = await createUser(s, 'boss', { admin: true });
    const admin = await signIn(s, 'boss', PASSWORD);
    const start = await manage(s, admin, '/manage/pairings/start', { userId: sub });
    expect(start.status).toBe(201);
    const d = await ScriptedAuthenticator.create(s.url);
    const claim = await d.claim(start.body, 'Wes phone');
    // Another administrator remains, so this one can be demoted.
    await createUser(s, 'boss2', { admin: true });
    expect((await s.api(`/api/admin/core/accounts/${adminSub}`, { method: 'PATCH', json: { admin: false } })).status).toBe(200);
    const refused = await manage(s, admin, '/manage/pairings/confirm', { pairingId: start.body.pairingId, comparison: claim.body.comparison });
    expect(refused.status).toBe(403);
    expect((await d.pairingResult(start.body)).body.state).toBe('claimed');
    const wes = await signIn(s, 'wes', PASSWORD);
    const list = await fetch(`${s.url}/api/admin/core/users/${sub}/app-devices`, { headers: { cookie: wes } });
    expect(list.status).toBe(403);
    const revoke = await fetch(`${s.url}/api/admin/core/users/${sub}/app-devices/${crypto.randomUUID()}/revoke`, {
      method: 'POST',
      headers: { cookie: wes, origin: s.url },
    });
    expect(revoke.status).toBe(403);
    expect((await s.api(`/api/admin/core/users/${sub}/app-devices/${crypto.randomUUID()}/revoke`, { method: 'POST' })).status).toBe(404);
    expect((await s.api(`/api/admin/core/users/${crypto.randomUUID()}/app-devices`)).status).toBe(404);
  });

  it('describes every route in the OpenAPI document with unique operation IDs', async () => {
    const doc = await (await fetch(`${s.url}/v1/openapi.json`)).json();
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith(APPROVAL_PATH) || p.includes('app-devices'));
    expect(paths.sort()).toEqual(
      [
        '/api/admin/core/users/{id}/app-devices',
        '/api/admin/core/users/{id}/app-devices/{deviceId}/revoke',
        ...[
          '/device',
          '/info',
          '/login/complete',
          '/login/start',
          '/login/status',
          '/manage/device-changes/cancel',
          '/manage/device-changes/start',
          '/manage/device-changes/status',
          '/manage/devices',
          '/manage/devices/update',
          '/manage/pairings/cancel',
          '/manage/pairings/confirm',
          '/manage/pairings/start',
          '/manage/pairings/status',
          '/pairings/claim',
          '/pairings/result',
        ].map((p) => APPROVAL_PATH + p),
      ].sort(),
    );
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap((ops) =>
      Object.values(ops).map((o) => o.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });
});
