/** Password reset and magic-link sign-in, delivered through outgoing mail to a real SMTP peer. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RawInit, rawCall, signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

const M = '/api/admin/core/outgoing-mail';
const PASSWORD = 'old-password-Passw0rd!';
let s: TestServer;
let peer: Peer;
let origin: string;

const call = (pathname: string, init: RawInit = {}) => rawCall(s.url, pathname, init, origin);
const cookieOf = (h: Headers) =>
  h
    .getSetCookie()
    .find((c) => c.startsWith('hearth_session='))
    ?.split(';')[0];
/** The first mail with this subject received after index `after`. */
function mailWithSubject(subject: string, after = 0) {
  return until(
    () => peer.received.slice(after).find((r) => r.parsed.subject === subject),
    () =>
      `mail "${subject}" (got: ${peer.received
        .slice(after)
        .map((r) => r.parsed.subject)
        .join(', ')})`,
  );
}
const countSubject = (subject: string, after = 0) => peer.received.slice(after).filter((r) => r.parsed.subject === subject).length;
/**
 * Core's messages with this subject in the send log (to `recipient` when given). A link request answers once its mail
 * is committed there, so after the answers this is every mail the requests will ever send.
 */
async function logged(subject: string, recipient?: string): Promise<number> {
  const r = await s.api(`${M}/messages?app=core&limit=100${recipient ? `&recipient=${encodeURIComponent(recipient)}` : ''}`);
  expect(r.status).toBe(200);
  const page = (await r.json()) as { data: Array<{ subject: string }>; nextCursor?: string | null };
  expect(page.nextCursor ?? null).toBeNull(); // every message on one page
  return page.data.filter((m) => m.subject === subject).length;
}
const linkIn = (text: string) => /(http:\/\/\S+\?token=[A-Za-z0-9_-]+)/.exec(text)![1]!;

beforeAll(async () => {
  peer = await startPeer();
  s = await startTestServer();
  origin = s.url.replace(/\/$/, '');
  const profile = await s.api(`${M}/profiles/main`, {
    method: 'PUT',
    json: { name: 'Office', fromAddress: 'hearth@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false },
  });
  expect(profile.status, await profile.text()).toBe(201);
  const made = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'rita', email: 'Rita@Example.test', displayName: 'Rita' } });
  const sub = (await made.json()).sub;
  expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
  await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'nomail' } });
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

describe('password reset by email', () => {
  it('mails a single-use link that sets a new password, ends other sessions and signs the browser in', async () => {
    const oldCookie = await signIn(s, 'rita', PASSWORD);
    const r = await call('/api/auth/password-reset', { json: { login: 'rita@example.test' } });
    expect(r.status).toBe(202);
    expect(r.json).toEqual({ accepted: true });
    const mail = await mailWithSubject('Reset your Hearth password');
    expect(mail!.to.map((a) => a.toLowerCase())).toEqual(['rita@example.test']);
    expect(mail!.parsed.subject).toBe('Reset your Hearth password');
    const link = linkIn(mail!.parsed.text!);
    expect(link.startsWith(`${origin}/auth/reset-password?token=`)).toBe(true);
    // The send log shows it as Core's mail.
    const log = await s.api(`${M}/messages?limit=10`);
    expect(JSON.stringify(await log.json())).toContain('"core"');

    // Opening the link (a mail scanner) does not use it.
    for (let i = 0; i < 2; i++) {
      const page = await call(link, { origin: null });
      expect(page.status).toBe(200);
      expect(page.text).toContain('rita');
    }
    const token = new URL(link).searchParams.get('token')!;
    expect((await call('/auth/reset-password', { form: { token, password: 'newpass-Passw0rd!' }, origin: 'https://evil.example' })).status).toBe(403);
    expect((await call('/auth/reset-password', { form: { token, password: 'short' } })).status).toBe(400);
    const done = await call('/auth/reset-password', { form: { token, password: 'newpass-Passw0rd!' } });
    expect(done.status).toBe(303);
    expect(done.location).toBe('/');
    const cookie = cookieOf(done.headers)!;
    expect((await call('/api/auth/session', { cookie, origin: null })).json.account.login).toBe('rita');
    expect((await call('/api/auth/session', { cookie: oldCookie, origin: null })).status).toBe(401);
    expect((await call('/api/auth/login', { json: { login: 'rita', password: 'newpass-Passw0rd!' } })).status).toBe(200);
    // Single use.
    expect((await call('/auth/reset-password', { form: { token, password: 'another-Passw0rd!' } })).status).toBe(400);
    expect((await call(link, { origin: null })).status).toBe(400);
  });

  it('answers the same for unknown accounts and accounts without email, and sends nothing', async () => {
    const n = peer.received.length;
    const before = await logged('Reset your Hearth password');
    for (const login of ['nobody', 'nomail', 'x@y.example'])
      expect((await call('/api/auth/password-reset', { json: { login } })).json).toEqual({ accepted: true });
    // Nothing was handed to outgoing mail, so nothing can reach the peer later.
    expect(await logged('Reset your Hearth password')).toBe(before);
    expect(countSubject('Reset your Hearth password', n)).toBe(0);
  });
});

describe('magic-link sign-in', () => {
  it('mails a link whose page signs in once with a POST', async () => {
    const n = peer.received.length;
    const page = await call('/auth/email-sign-in/request', { origin: null });
    expect(page.text).toContain('Email me a sign-in link');
    const sent = await call('/auth/email-sign-in/request', { form: { login: 'rita' } });
    expect(sent.status).toBe(200);
    expect(sent.text).toContain('Check your email');
    const signInMail = await mailWithSubject('Your Hearth sign-in link', n);
    const link = linkIn(signInMail.parsed.text!);
    const token = new URL(link).searchParams.get('token')!;
    const confirm = await call(link, { origin: null });
    expect(confirm.text).toContain('Sign in to Hearth');
    const done = await call('/auth/email-sign-in', { form: { token } });
    expect(done.status).toBe(303);
    expect((await call('/api/auth/session', { cookie: cookieOf(done.headers)!, origin: null })).json.account.login).toBe('rita');
    expect((await call('/auth/email-sign-in', { form: { token } })).status).toBe(400);
    const audit = (await s.services.store.value<string>("SELECT detail FROM audit_log WHERE action = 'session.login' ORDER BY id DESC LIMIT 1"))!;
    expect(JSON.parse(audit).method).toBe('email_link');
  });

  it('keeps at most three live links per account and limits requests per address', async () => {
    const r = await startTestServer();
    try {
      const ask = () =>
        fetch(`${r.url}/api/auth/magic-link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'someone' }) });
      for (let i = 0; i < 20; i++) expect((await ask()).status).toBe(202);
      const limited = await ask();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBeTruthy();
    } finally {
      await r.stop();
    }
    const n = peer.received.length;
    const before = await logged('Your Hearth sign-in link', 'rita@example.test');
    for (let i = 0; i < 4; i++) await call('/api/auth/magic-link', { json: { login: 'rita' }, origin: null });
    // Rita used one link above; three more live ones may be sent, the fourth is not: three in the send log ...
    expect(await logged('Your Hearth sign-in link', 'rita@example.test')).toBe(before + 3);
    // ... and those three, and no other, at the peer.
    await until(
      () => countSubject('Your Hearth sign-in link', n) >= 3,
      () => `three sign-in links (got ${countSubject('Your Hearth sign-in link', n)})`,
    );
    expect(countSubject('Your Hearth sign-in link', n)).toBe(3);
  });
});

describe('notices and announcements', () => {
  it('emails a security notice when a password changes or a passkey is added', async () => {
    const n = peer.received.length;
    const rita = (await (await s.api('/api/admin/core/accounts?search=rita')).json()).data[0];
    expect((await s.api(`/api/admin/core/accounts/${rita.sub}/password`, { method: 'PUT', json: { password: 'admin-set-Passw0rd!' } })).status).toBe(204);
    const notice = await mailWithSubject('Your Hearth password was changed', n);
    expect(notice.parsed.html).toContain('data-hearth-notification-body');
    const log = await (await s.api(`${M}/messages?limit=5`)).json();
    expect(log.data[0]).toMatchObject({ app: 'core', lane: 'immediate', subject: 'Your Hearth password was changed' });
  });

  it("sends an announcement as a notification batch to every account with an address, or one group's members", async () => {
    const made = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'sam', email: 'sam@example.test' } });
    const sam = await made.json();
    const group = await (await s.api('/api/admin/core/groups', { method: 'POST', json: { name: 'night-shift' } })).json();
    await s.api(`/api/admin/core/groups/${group.id}/members`, { method: 'POST', json: { account: sam.sub } });
    const n = peer.received.length;
    const all = await s.api('/api/admin/core/announcements', { method: 'POST', json: { subject: 'Maintenance tonight', text: 'Hearth restarts at 22:00.' } });
    expect(all.status).toBe(202);
    const body = await all.json();
    expect(body.recipients).toBe(2);
    await until(
      () => countSubject('Maintenance tonight', n) >= 2,
      () => `two announcements (got ${countSubject('Maintenance tonight', n)})`,
    );
    const got = peer.received.slice(n).filter((m) => m.parsed.subject === 'Maintenance tonight');
    expect(got.map((m) => m.to[0]!.toLowerCase()).sort()).toEqual(['rita@example.test', 'sam@example.test']);
    const batch = await (await s.api(`${M}/messages?limit=2`)).json();
    expect(batch.data.every((m: { lane: string; batchId: string }) => m.lane === 'bulk' && body.batchIds.includes(m.batchId))).toBe(true);
    const onlyGroup = await (
      await s.api('/api/admin/core/announcements', { method: 'POST', json: { subject: 'Night shift', text: 'Hello', groupId: group.id } })
    ).json();
    expect(onlyGroup.recipients).toBe(1);
    expect((await s.api('/api/admin/core/announcements', { method: 'POST', json: { subject: 'x', text: 'y', groupId: crypto.randomUUID() } })).status).toBe(
      404,
    );
    expect((await s.api('/api/admin/core/announcements', { method: 'POST', json: { subject: 'two\nlines', text: 'y' } })).status).toBe(400);
  });
});
