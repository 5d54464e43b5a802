/**
 * A profile's trusted CA (`tlsCaPem`): an office's own mail server with a certificate from a private CA. The CA,
 * the server certificate it issued and an expired CA are made with openssl (test-ca.ts); the SMTP peers
 * (smtp-server, STARTTLS and implicit TLS) and Dovecot present the issued certificate. The server under test trusts
 * only Node's default CAs (no test TLS options): without the profile's CA every connection fails with a TLS error;
 * with it, mail arrives and bounce collection logs in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dovecot, startDovecot } from './dovecot.ts';
import { audit, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';
import { makeTestCa, type TestCa } from './test-ca.ts';

let ca: TestCa;
let s: MailServer;
let starttls: Peer;
let implicit: Peer;
let dove: Dovecot;
let app: string;
/** A message queued while the profile had no CA (delivered once it has). */
let queuedId: string;
const logs: string[] = [];

beforeAll(async () => {
  ca = makeTestCa();
  starttls = await startPeer({ tls: 'starttls', certificate: ca.server });
  implicit = await startPeer({ tls: 'implicit', certificate: ca.server });
  dove = await startDovecot({ certificate: ca.server, trust: ca.caPem });
  s = await startMailServer({
    logLevel: 'warn',
    logDestination: { write: (line: string) => void logs.push(line) },
    mail: { bounces: { intervalMs: 3600_000 } },
  });
  app = await registerApp(s, 'crm');
});
afterAll(async () => {
  await s?.stop();
  await starttls?.close();
  await implicit?.close();
  await dove?.stop();
});

const P = `${M}/profiles`;
const SUBJECT = 'O=Hearth Tests, CN=Hearth Test Office CA';
const logLines = () => logs.map((l) => JSON.parse(l) as Record<string, any>);
/** A profile's stored CA, read in the core store the server uses (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres). */
const column = async (key: string) => s.services.store.value<string | null>('SELECT tls_ca FROM mail_profiles WHERE key = ?', [key]);
const noPem = (value: unknown) => {
  const text = JSON.stringify(value);
  expect(text).not.toContain('BEGIN CERTIFICATE');
  // no line of the certificate's base64 either
  for (const line of ca.caPem.split('\n').filter((l) => l.length > 40 && !l.startsWith('-----'))) expect(text).not.toContain(line);
};

describe("a profile's trusted CA", () => {
  it('refuses what is not a PEM CA certificate with a clear 400, and stores nothing', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['text', 'not a certificate', /tlsCaPem: tlsCaPem holds no PEM certificate/],
      ['empty', '', /tlsCaPem: tlsCaPem holds no PEM certificate/],
      ['a private key', ca.caKeyPem, /tlsCaPem: tlsCaPem holds a private key \(PRIVATE KEY\)/],
      ['a CA with its key', ca.caPem + ca.caKeyPem, /tlsCaPem: tlsCaPem holds a private key \(PRIVATE KEY\)/],
      ['a server certificate', ca.server.cert, /tlsCaPem: tlsCaPem certificate 1 \(CN=localhost\) is not a CA certificate/],
      ['an expired CA', ca.expiredCaPem, /tlsCaPem: tlsCaPem certificate 1 \(CN=Expired Office CA\) expired on 2020-02-01/],
      ['the second of two', ca.caPem + ca.server.cert, /tlsCaPem: tlsCaPem certificate 2 \(CN=localhost\) is not a CA certificate/],
      ['broken base64', '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', /tlsCaPem: tlsCaPem certificate 1 is not a valid X\.509 certificate/],
      ['a number', 42, /tlsCaPem/],
      ['too long', `${ca.caPem}\n${'#'.repeat(70_000)}`, /tlsCaPem must be at most/],
    ];
    for (const [what, tlsCaPem, message] of cases) {
      const r = await s.api(`${P}/refused`, { method: 'PUT', json: profileBody(starttls.port, { tlsCaPem }) });
      const body = await r.json();
      expect(r.status, `${what}: ${JSON.stringify(body)}`).toBe(400);
      expect(body.error, what).toBe('invalid_request');
      expect(body.message, what).toMatch(message);
      expect(body.message, 'the answer never echoes a key').not.toContain('PRIVATE KEY-----\n');
    }
    expect((await s.api(`${P}/refused`)).status).toBe(404);
  });

  it('without the CA, the test send and delivery over STARTTLS fail with a clear TLS error', async () => {
    const p = await call(s, 'PUT', `${P}/office`, profileBody(starttls.port, { fromAddress: 'noreply@office.test' }), 201);
    expect(p.tlsCa).toBeNull();
    const t = await s.api(`${P}/office/test`, { method: 'POST', json: { to: 'admin@office.test' } });
    const body = await t.json();
    expect(t.status).toBe(502);
    expect(body.error).toBe('smtp_failed');
    expect(body.reason).toBe('certificate_untrusted');
    expect(body.message).toMatch(/^The server's certificate is not trusted: if it comes from a private CA, add that CA's certificate to the profile\.$/);
    expect(body.detail).toMatch(
      /TLS: the server's certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate\).*tlsCaPem/,
    );
    const queued = await call(s, 'POST', '/api/mail/send', { to: ['alice@office.test'], subject: 'Waits for the CA', text: 'x' }, 202, app);
    const m = await waitMessage(s, queued.id, (x) => x.status === 'queued' && x.attempts >= 1);
    expect(m.lastError).toMatch(/TLS: the server's certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
    expect(starttls.received).toHaveLength(0);
    queuedId = queued.id;
  });

  it('with the CA: stored with the profile, shown by SHA-256 fingerprint and subject only; mail arrives over STARTTLS and implicit TLS', async () => {
    const before = await call(s, 'GET', `${P}/office`);
    // a bundle as files often hold it: a comment, the CA twice over CRLF lines (the duplicate is kept once)
    const bundle = `# Office CA\r\n${ca.caPem.replace(/\n/g, '\r\n')}\r\n${ca.caPem}`;
    const p = await call(
      s,
      'PUT',
      `${P}/office`,
      profileBody(starttls.port, { fromAddress: 'noreply@office.test', tlsCaPem: bundle, revision: before.revision }),
    );
    expect(p.tlsCa).toEqual([
      { subject: SUBJECT, issuer: SUBJECT, fingerprint256: ca.caFingerprint, validFrom: expect.any(String), validTo: expect.any(String) },
    ]);
    expect(Date.parse(p.tlsCa[0].validTo)).toBeGreaterThan(Date.now());
    noPem(p);
    noPem(await call(s, 'GET', `${P}/office`));
    noPem(await call(s, 'GET', P));
    const update = (await audit(s, 'outgoing_mail.profile.update')).find((a) => a.target === 'office')!;
    expect(update.detail.tlsCa).toEqual({ change: 'replaced', fingerprints: [ca.caFingerprint] });
    noPem(update);
    expect(await column('office')).toBe(`${ca.caPem.trim()}\n`);

    // the test send and the queued message (retried after a minute) arrive
    expect(await call(s, 'POST', `${P}/office/test`, { to: 'admin@office.test' })).toEqual({ ok: true });
    await starttls.waitFor(1);
    expect(starttls.received[0]!.to).toEqual(['admin@office.test']);
    s.advance(61_000);
    await s.mail.kick();
    const sent = await waitMessage(s, queuedId, (x) => x.status === 'sent');
    expect(starttls.received.some((r) => r.parsed.messageId === sent.messageId)).toBe(true);

    // implicit TLS
    const q = await call(s, 'PUT', `${P}/office-tls`, profileBody(implicit.port, { smtpSecure: true, tlsCaPem: ca.caPem }), 201);
    expect(q.tlsCa[0].fingerprint256).toBe(ca.caFingerprint);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['office', 'office-tls'] });
    const acc = await call(s, 'POST', '/api/mail/send', { profile: 'office-tls', to: ['bob@office.test'], subject: 'Over TLS', text: 'x' }, 202, app);
    await waitMessage(s, acc.id, (x) => x.status === 'sent');
    expect(implicit.received.map((r) => r.parsed.messageId)).toContain(acc.messageId);

    // a replacement without tlsCaPem keeps it; null clears it (and the server is distrusted again)
    const kept = await call(s, 'PUT', `${P}/office-tls`, profileBody(implicit.port, { smtpSecure: true, name: 'Renamed', revision: q.revision }));
    expect(kept.tlsCa[0].fingerprint256).toBe(ca.caFingerprint);
    const cleared = await call(s, 'PUT', `${P}/office-tls`, profileBody(implicit.port, { smtpSecure: true, tlsCaPem: null, revision: kept.revision }));
    expect(cleared.tlsCa).toBeNull();
    expect(await column('office-tls')).toBeNull();
    const t = await s.api(`${P}/office-tls/test`, { method: 'POST', json: { to: 'admin@office.test' } });
    expect(t.status).toBe(502);
    expect((await t.json()).message).toMatch(/certificate is not trusted/);
  });

  it('bounce collection: without the CA the check fails (open_failed, the TLS error in the log); with it, it logs in over implicit TLS and STARTTLS', async () => {
    const imap = (extra: Record<string, unknown> = {}) => ({
      host: '127.0.0.1',
      port: dove.imapsPort,
      secure: true,
      user: dove.user,
      password: dove.pass,
      folder: 'INBOX',
      ...extra,
    });
    // only this profile collects bounces
    const p = await call(s, 'PUT', `${P}/bounces`, profileBody(starttls.port, { imap: imap() }), 201);
    expect(await s.mail.checkBounces()).toEqual({ bounces: 'open_failed' });
    expect((await call(s, 'GET', `${P}/bounces`)).bounces.error).toBe('open_failed');
    const warn = logLines().find((l) => l.profile === 'bounces' && l.msg === 'bounce collection check failed');
    expect(warn).toMatchObject({ level: 'warn', error: 'open_failed' });
    expect(warn!.detail).toMatch(/TLS: the server's certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE: unable to verify the first certificate\)/);

    const withCa = await call(s, 'PUT', `${P}/bounces`, profileBody(starttls.port, { imap: imap(), tlsCaPem: ca.caPem, revision: p.revision }));
    expect(await s.mail.checkBounces()).toEqual({ bounces: null });
    const after = await call(s, 'GET', `${P}/bounces`);
    expect(after.bounces.error).toBeNull();
    expect(after.bounces.checkedAt).not.toBeNull();
    // STARTTLS (secure: false) with the same CA
    await call(s, 'PUT', `${P}/bounces`, profileBody(starttls.port, { imap: imap({ port: dove.imapPort, secure: false }), revision: withCa.revision }));
    expect(await s.mail.checkBounces()).toEqual({ bounces: null });
    expect((await call(s, 'GET', `${P}/bounces`)).bounces.error).toBeNull();
    // the PEM never reached a log line
    expect(logs.join('\n')).not.toContain('BEGIN CERTIFICATE');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await call(s, 'GET', '/v1/openapi.json');
    const write = doc.components.schemas.MailProfileWrite.properties.tlsCaPem;
    expect(write.description).toMatch(/PEM/);
    expect(doc.components.schemas.MailProfile.properties.tlsCa.description).toMatch(/fingerprint/i);
  });
});
