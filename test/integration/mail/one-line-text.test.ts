/**
 * Text that becomes a header line — the sender's display name (a profile's `fromName`, else the application's name)
 * and subjects — is one line: no control characters in names, no line breaks in subjects, and never NUL, U+0085,
 * U+2028 or U+2029 (mail clients show those as a new line, a fake header under the real one). Refused with 400 in the
 * envelope; an accepted name arrives at the SMTP peer as exactly one From header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer();
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
});
afterAll(async () => {
  await s.stop();
  await peer.close();
});

/** Line breaks and invisible controls a mail client may render as a new line. */
const BREAKS: Array<[string, string]> = [
  ['CR LF', 'Evil\r\nBcc: victim@example.test'],
  ['LF', 'Evil\nBcc: victim@example.test'],
  ['CR', 'Evil\rBcc: victim@example.test'],
  ['NUL', 'Evil\u0000Bcc'],
  ['U+2028', 'Evil\u2028Bcc: victim@example.test'],
  ['U+2029', 'Evil\u2029Bcc: victim@example.test'],
  ['U+0085', 'Evil\u0085Bcc: victim@example.test'],
];

async function refused(method: string, path: string, json: unknown, field: RegExp, token?: string) {
  const r = await s.api(path, { method, json, token });
  const body = await r.json();
  expect(r.status, `${method} ${path} ${JSON.stringify(json)}: ${JSON.stringify(body)}`).toBe(400);
  expect(body).toMatchObject({ error: 'invalid_request' });
  expect(body.message).toMatch(field);
}

describe('one-line names and subjects', () => {
  it.each(BREAKS)('an application name with %s is refused on register and on rename', async (_what, name) => {
    await refused('POST', `${M}/apps`, { appId: 'evil', name, platformPermissions: ['mail:send'] }, /name/);
    expect((await s.api(`${M}/apps/evil`)).status).toBe(404);
    await registerApp(s, 'renamed');
    await refused('PATCH', `${M}/apps/renamed`, { name }, /name/);
    expect((await call(s, 'GET', `${M}/apps/renamed`)).name).toBe('RENAMED');
    await call(s, 'DELETE', `${M}/apps/renamed`, undefined, 204);
  });

  it('other control characters are refused in application names, as in fromName', async () => {
    for (const name of ['Tab\there', 'Bell\u0007', 'Esc\u001b[31m', 'Del\u007f']) {
      await refused('POST', `${M}/apps`, { appId: 'ctl', name, platformPermissions: ['mail:send'] }, /name/);
    }
  });

  it.each(BREAKS)('a profile fromName with %s is refused', async (_what, fromName) => {
    await refused('PUT', `${M}/profiles/other`, profileBody(peer.port, { fromName }), /fromName/);
    expect((await s.api(`${M}/profiles/other`)).status).toBe(404);
  });

  it.each(BREAKS)('a send or enqueue subject with %s is refused', async (_what, subject) => {
    const token = await registerApp(s, `subj-${Math.random().toString(36).slice(2, 8)}`);
    await refused('POST', '/api/mail/send', { to: ['a@example.test'], subject, text: 't' }, /subject/, token);
    await refused('POST', '/api/mail/enqueue', { messages: [{ to: ['a@example.test'], subject, text: 't' }] }, /subject/, token);
  });

  it('an accepted name arrives at the SMTP peer as one From header with exactly that display name', async () => {
    const name = 'Zoë "Bcc:" <Office>, Ltd. — Ünïcode';
    const token = (await call(s, 'POST', `${M}/apps`, { appId: 'crm', name, platformPermissions: ['mail:send'] }, 201)).token as string;
    const acc = await call(s, 'POST', '/api/mail/send', { to: ['alice@example.test'], subject: 'Tab\tin a subject is one line', text: 'x' }, 202, token);
    await waitMessage(s, acc.id, (m) => m.status === 'sent');
    // `sent` is recorded after the peer's 250: the message is there
    const got = peer.received.find((r) => r.parsed.messageId === acc.messageId);
    expect(got!.to).toEqual(['alice@example.test']);
    expect(got!.parsed.from?.value).toEqual([{ name, address: 'noreply@example.test' }]);
    expect(got!.parsed.bcc).toBeUndefined();
    expect(got!.parsed.subject).toBe('Tab\tin a subject is one line');
    // the header block holds one From field and no Bcc field
    const head = got!.raw.toString('utf8').split('\r\n\r\n')[0]!;
    const fields = head
      .split('\r\n')
      .filter((l) => !/^[ \t]/.test(l))
      .map((l) => l.split(':')[0]!.toLowerCase());
    expect(fields.filter((f) => f === 'from')).toHaveLength(1);
    expect(fields).not.toContain('bcc');
    // the log keeps the sender as given
    expect((await call(s, 'GET', `${M}/messages/${acc.id}`)).from).toEqual({ name, address: 'noreply@example.test' });
  });

  it("Core's own mail follows the same rule: an announcement with a line separator in its subject is a 400, not a crash", async () => {
    await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'rita', email: 'rita@example.test' } });
    const r = await s.api('/api/admin/core/announcements', { method: 'POST', json: { subject: 'Maintenance\u2028Bcc: everyone@example.test', text: 'x' } });
    const body = await r.json();
    expect(r.status, JSON.stringify(body)).toBe(400);
    expect(body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/subject must be one line/) });
    expect((await call(s, 'GET', `${M}/messages?app=core`)).data).toEqual([]);
  });
});
