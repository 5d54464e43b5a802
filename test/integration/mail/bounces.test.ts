import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOVECOT, type Dovecot, dsnReport, startDovecot } from './dovecot.ts';
import { call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, selfSigned, startPeer } from './peer.ts';

// Dovecot is a required test peer (`.ci/run` installs dovecot-imapd): without it this suite fails instead of skipping.
const d = describe;

let s: MailServer;
let peer: Peer;
let dove: Dovecot;
let app: string;
const FOLDER = 'Bounces';

beforeAll(async () => {
  if (!DOVECOT) return;
  peer = await startPeer();
  dove = await startDovecot();
  s = await startMailServer({ mail: { bounces: { tls: { ca: selfSigned().cert }, intervalMs: 3600_000, perProfile: 200 } } });
  app = await registerApp(s, 'crm');
});
afterAll(async () => {
  if (!DOVECOT) return;
  await s.stop();
  await peer.close();
  await dove.stop();
});

const imap = (extra: Record<string, unknown> = {}) => ({
  host: '127.0.0.1',
  port: dove.imapsPort,
  secure: true,
  user: dove.user,
  password: dove.pass,
  folder: FOLDER,
  ...extra,
});
const profile = () => call(s, 'GET', `${M}/profiles/main`);
/** The profile's bounce progress, read in the core store the server uses (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres). */
const cursor = async () =>
  (await s.services.store.get<{ imap_cursor: number | null; imap_uidvalidity: string | null }>(
    "SELECT imap_cursor, imap_uidvalidity FROM mail_profiles WHERE key = 'main'",
  ))!;

d('bounce collection (dovecot)', () => {
  it('has the dovecot binary (apt-get install dovecot-imapd)', () => {
    expect(DOVECOT, 'dovecot is not installed: apt-get install -y dovecot-imapd').toBeTruthy();
  });
  let m1: any;
  let m2: any;

  it('a new mailbox is pending; the first run reads the last seven days of standard reports only, read-only', async () => {
    await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { imap: imap() }), 201);
    expect((await profile()).bounces).toEqual({ checkedAt: null, error: null });
    m1 = await call(s, 'POST', '/api/mail/send', { to: ['Alice@Example.test', 'bob@example.test'], subject: 'one', text: 'x' }, 202, app);
    m2 = await call(s, 'POST', '/api/mail/send', { to: ['carol@example.test'], subject: 'two', text: 'x' }, 202, app);
    await waitMessage(s, m1.id, (m) => m.status === 'sent');
    await waitMessage(s, m2.id, (m) => m.status === 'sent');

    // older than seven days: not read on the first run
    await dove.append(
      FOLDER,
      dsnReport({ messageId: m2.messageId, recipients: [{ final: 'rfc822; carol@example.test', action: 'failed', diag: 'smtp; 550 old' }] }),
      new Date(Date.now() - 10 * 86_400_000),
    );
    // the standard report for alice (other case), and bob delayed
    await dove.append(
      FOLDER,
      dsnReport({
        messageId: m1.messageId.toUpperCase(),
        recipients: [
          { final: 'rfc822; alice@example.test', action: 'failed', diag: 'smtp; 550 5.1.1 User unknown' },
          { final: 'rfc822; bob@example.test', action: 'delayed', status: '4.4.1' },
        ],
      }),
    );
    // the same report again: no duplicate
    await dove.append(
      FOLDER,
      dsnReport({ messageId: m1.messageId, recipients: [{ final: 'rfc822; alice@example.test', action: 'failed', diag: 'smtp; 550 5.1.1 User unknown' }] }),
    );
    // a non-standard bounce naming the Message-ID
    await dove.append(
      FOLDER,
      `From: postmaster@example.test\r\nSubject: failure\r\nContent-Type: text/plain\r\n\r\nMessage ${m2.messageId} failed: carol@example.test 550\r\n`,
    );
    // an unrelated recipient
    await dove.append(FOLDER, dsnReport({ messageId: m2.messageId, recipients: [{ final: 'rfc822; zed@example.test', action: 'failed' }] }));
    // an oversized delivery-status part
    await dove.append(
      FOLDER,
      dsnReport({ messageId: m2.messageId, bigDs: true, recipients: [{ final: 'rfc822; carol@example.test', action: 'failed', diag: 'smtp; 550 big' }] }),
    );
    const before = await dove.flags(FOLDER);

    expect(await s.mail.checkBounces()).toEqual({ main: null });
    const r1 = await call(s, 'GET', `${M}/messages/${m1.id}`);
    expect(r1.status).toBe('bounced');
    expect(r1.failures).toEqual([{ recipient: 'Alice@Example.test', reason: 'smtp; 550 5.1.1 User unknown', kind: 'bounced' }]);
    expect((await call(s, 'GET', `${M}/messages/${m2.id}`)).status).toBe('sent');
    const p = await profile();
    expect(p.bounces.error).toBeNull();
    expect(p.bounces.checkedAt).not.toBeNull();
    expect((await cursor()).imap_cursor).toBe(6);
    // nothing marked, moved or deleted
    expect(await dove.flags(FOLDER)).toEqual(before);
    expect((await dove.flags(FOLDER)).every((m) => !m.flags.includes('\\Seen'))).toBe(true);
  });

  it('later runs read UIDs above the cursor; Original-Recipient without an address type; message/rfc822 originals', async () => {
    await dove.append(
      FOLDER,
      dsnReport({ messageId: m2.messageId, rfc822: true, recipients: [{ original: 'CAROL@example.test', action: 'failed', status: '5.2.2' }] }),
    );
    expect(await s.mail.checkBounces()).toEqual({ main: null });
    const r2 = await call(s, 'GET', `${M}/messages/${m2.id}`);
    expect(r2).toMatchObject({ status: 'bounced', failures: [{ recipient: 'carol@example.test', reason: '5.2.2', kind: 'bounced' }] });
    expect((await cursor()).imap_cursor).toBe(7);
    // nothing new: the cursor stays (UID 7:* returns the newest message, which is filtered out)
    expect(await s.mail.checkBounces()).toEqual({ main: null });
    expect((await cursor()).imap_cursor).toBe(7);
  });

  it('a UIDVALIDITY change restarts from the last seven days without duplicating reasons', async () => {
    dove.setUidValidity(FOLDER, 4242);
    expect(await s.mail.checkBounces()).toEqual({ main: null });
    expect(await cursor()).toEqual({ imap_cursor: 7, imap_uidvalidity: '4242' });
    expect((await call(s, 'GET', `${M}/messages/${m1.id}`)).failures).toHaveLength(1);
  });

  it('open_failed on bad credentials is shown in the profile and cleared by the next successful check; STARTTLS works', async () => {
    let p = await profile();
    await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { imap: imap({ password: 'wrong' }), revision: p.revision }));
    expect(await s.mail.checkBounces()).toEqual({ main: 'open_failed' });
    p = await profile();
    expect(p.bounces.error).toBe('open_failed');
    expect((await cursor()).imap_cursor).toBe(7); // same mailbox: progress kept
    // STARTTLS on the plain port (secure: false requires it)
    await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { imap: imap({ port: dove.imapPort, secure: false }), revision: p.revision }));
    expect((await cursor()).imap_cursor).toBeNull(); // port changed: cursor and status reset
    expect((await profile()).bounces).toEqual({ checkedAt: null, error: null });
    expect(await s.mail.checkBounces()).toEqual({ main: null });
    p = await profile();
    expect(p.bounces.error).toBeNull();
    expect((await cursor()).imap_cursor).toBe(7);
  });

  it('a report whose Original-Envelope-Id names another message is skipped; a matching one applies', async () => {
    const m3 = await call(s, 'POST', '/api/mail/send', { to: ['dan@example.test'], subject: 'three', text: 'x' }, 202, app);
    const m4 = await call(s, 'POST', '/api/mail/send', { to: ['erin@example.test'], subject: 'four', text: 'x' }, 202, app);
    await waitMessage(s, m3.id, (m) => m.status === 'sent');
    await waitMessage(s, m4.id, (m) => m.status === 'sent');
    // m3's Message-ID with m4's envelope ID (Hearth's ENVID is the send-log ID): not applied to either.
    await dove.append(
      FOLDER,
      dsnReport({
        messageId: m3.messageId,
        envelopeId: m4.id,
        recipients: [{ final: 'rfc822; dan@example.test', action: 'failed', diag: 'smtp; 550 forged' }],
      }),
    );
    await dove.append(
      FOLDER,
      dsnReport({ messageId: m4.messageId, envelopeId: m4.id, recipients: [{ final: 'rfc822; erin@example.test', action: 'failed', diag: 'smtp; 550 gone' }] }),
    );
    expect(await s.mail.checkBounces()).toEqual({ main: null });
    expect((await call(s, 'GET', `${M}/messages/${m3.id}`)).status).toBe('sent');
    expect(await call(s, 'GET', `${M}/messages/${m4.id}`)).toMatchObject({
      status: 'bounced',
      failures: [{ recipient: 'erin@example.test', reason: 'smtp; 550 gone', kind: 'bounced' }],
    });
  });

  it('at most the configured number of messages per profile and run, oldest first; servers without ESEARCH use UID windows', async () => {
    const plain = await startDovecot({ noEsearch: true });
    const limited = await startMailServer({ mail: { bounces: { tls: { ca: selfSigned().cert }, intervalMs: 3600_000, perProfile: 2, windowSize: 2 } } });
    try {
      const token = await registerApp(limited, 'crm');
      await call(
        limited,
        'PUT',
        `${M}/profiles/main`,
        profileBody(peer.port, { imap: { host: '127.0.0.1', port: plain.imapsPort, secure: true, user: plain.user, password: plain.pass, folder: 'INBOX' } }),
        201,
      );
      const ids: any[] = [];
      for (let i = 0; i < 3; i++) ids.push(await call(limited, 'POST', '/api/mail/send', { to: [`r${i}@example.test`], subject: 's', text: 'x' }, 202, token));
      for (const m of ids) await waitMessage(limited, m.id, (x) => x.status === 'sent');
      for (const m of ids)
        await plain.append(
          'INBOX',
          dsnReport({
            messageId: m.messageId,
            recipients: [{ final: `rfc822; ${m.id === ids[0].id ? 'r0' : m.id === ids[1].id ? 'r1' : 'r2'}@example.test`, action: 'failed' }],
          }),
        );
      expect(await limited.mail.checkBounces()).toEqual({ main: null });
      const statuses = async () => Promise.all(ids.map(async (m) => (await call(limited, 'GET', `${M}/messages/${m.id}`)).status));
      expect(await statuses()).toEqual(['bounced', 'bounced', 'sent']);
      await plain.append('INBOX', 'Subject: not a report\r\n\r\nhello\r\n');
      expect(await limited.mail.checkBounces()).toEqual({ main: null });
      expect(await statuses()).toEqual(['bounced', 'bounced', 'bounced']);
    } finally {
      await limited.stop();
      await plain.stop();
    }
  });
});
