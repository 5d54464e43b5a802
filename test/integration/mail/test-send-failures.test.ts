/**
 * Test sends that fail, against real peers: each failure is classified (`reason`), explained in one sentence that says
 * what to check (`message`), and carries the raw answer (`detail`, credentials redacted). The last test send stays
 * on the profile (`lastTest`), across a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../../helpers/server.ts';
import { CLOSED_PORT, call, M, type MailServer, profileBody, startMailServer } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

const P = `${M}/profiles`;
const PASSWORD = 'Wrong-Secret-77';

let s: MailServer;
let plain: Peer;
let implicit: Peer;
let authPeer: Peer;
let slow: Peer;
beforeAll(async () => {
  plain = await startPeer();
  plain.rejectRcpt.set('nobody@example.test', { code: 550, message: '5.1.1 No such user here' });
  plain.rejectMail.set('blocked@example.test', { code: 553, message: '5.7.1 Sender address rejected: not owned by you' });
  implicit = await startPeer({ tls: 'implicit' });
  // refuses every login and echoes the credentials in its answer (a careless server): they must never come back
  authPeer = await startPeer({ auth: { user: 'mailer', pass: 'the-right-one' }, authFailMessage: (u, p) => `5.7.8 Authentication failed for ${u} with ${p}` });
  slow = await startPeer();
  slow.hold(true);
  // no trusted CA for the peers' self-signed certificate; a short attempt budget for the timeouts
  s = await startMailServer({ mail: { smtp: { timeoutMs: 2500 } } });
});
afterAll(async () => {
  await s?.stop();
  await Promise.all([plain, implicit, authPeer, slow].map((p) => p?.close()));
});

async function failedTest(key: string, profile: Record<string, unknown>, to = 'admin@example.test') {
  await call(s, 'PUT', `${P}/${key}`, profile, 201);
  const r = await s.api(`${P}/${key}/test`, { method: 'POST', json: { to } });
  const body = await r.json();
  expect(r.status, JSON.stringify(body)).toBe(502);
  expect(body.error).toBe('smtp_failed');
  return body as { error: string; message: string; reason: string; detail: string | null };
}

describe('test send failures are explained', () => {
  it('nothing listening on host:port (connection refused)', async () => {
    const b = await failedTest('refused', profileBody(CLOSED_PORT));
    expect(b.reason).toBe('connection_refused');
    expect(b.message).toBe(`Nothing is listening on 127.0.0.1:${CLOSED_PORT}: check the host name and port, and that the mail server is running.`);
    expect(b.detail).toMatch(/ECONNREFUSED/);
  });

  it('host name not found', async () => {
    const b = await failedTest('nohost', profileBody(25, { smtpHost: 'mail.nonexistent.invalid' }));
    expect(b.reason).toBe('host_not_found');
    expect(b.message).toMatch(/^The host name mail\.nonexistent\.invalid was not found: check its spelling/);
    expect(b.detail).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it('a TLS server answering a plain client: Secure must be on', async () => {
    const b = await failedTest('needs-tls', profileBody(implicit.port, { smtpSecure: false }));
    expect(b.reason).toBe('tls_required');
    expect(b.message).toBe(`The server on port ${implicit.port} expects TLS from the first byte: turn Secure on (implicit TLS).`);
    expect(b.detail).toMatch(/no SMTP greeting/);
  });

  it('Secure on against a plain server: turn Secure off and use STARTTLS', async () => {
    const b = await failedTest('no-tls', profileBody(plain.port, { smtpSecure: true }));
    expect(b.reason).toBe('tls_not_supported');
    expect(b.message).toBe('This server does not use TLS on this port — turn Secure off and use STARTTLS.');
    expect(b.detail).toMatch(/wrong version number/);
  });

  it('certificate not trusted', async () => {
    const b = await failedTest('untrusted', profileBody(implicit.port, { smtpSecure: true }));
    expect(b.reason).toBe('certificate_untrusted');
    expect(b.message).toMatch(/^The server's certificate is not trusted: .*add that CA's certificate to the profile/);
    expect(b.detail).toMatch(/SELF_SIGNED/);
  });

  it('authentication refused (535), the password never in the answer, the profile or the audit', async () => {
    const b = await failedTest('auth', profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: PASSWORD }));
    expect(b.reason).toBe('auth_failed');
    expect(b.message).toBe('The server refused the user name or password: check them (some providers want an app password).');
    expect(b.detail).toMatch(/535/);
    expect(b.detail).toMatch(/\[redacted\]/);
    const p = await call(s, 'GET', `${P}/auth`);
    const audit = await call(s, 'GET', '/api/admin/audit?action=outgoing_mail.profile.test&limit=100');
    for (const text of [JSON.stringify(b), JSON.stringify(p), JSON.stringify(audit)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(Buffer.from(PASSWORD).toString('base64'));
      expect(text).not.toContain(Buffer.from(`\u0000mailer\u0000${PASSWORD}`).toString('base64'));
    }
  });

  it('authentication required but no user name given (530)', async () => {
    const b = await failedTest('no-user', profileBody(authPeer.port));
    expect(b.reason).toBe('auth_required');
    expect(b.message).toBe('The server requires a user name and password: enter them in the profile.');
    expect(b.detail).toMatch(/530/);
  });

  it('timeout: the server stops answering', async () => {
    const b = await failedTest('slow', profileBody(slow.port));
    expect(b.reason).toBe('timeout');
    expect(b.message).toBe(`The server at 127.0.0.1:${slow.port} did not answer in time: check that it is working and that no firewall holds the connection.`);
    expect(b.detail).toMatch(/exceeded 3 s|exceeded 2\.5 s/);
  });

  it('the recipient refused (5xx to RCPT)', async () => {
    const b = await failedTest('rcpt', profileBody(plain.port), 'nobody@example.test');
    expect(b.reason).toBe('recipient_refused');
    expect(b.message).toBe('The server refused the recipient nobody@example.test: check the address, or whether this account may send to it.');
    expect(b.detail).toMatch(/550 5\.1\.1 No such user here/);
  });

  it('the sender refused (5xx to MAIL FROM)', async () => {
    const b = await failedTest('sender', profileBody(plain.port, { fromAddress: 'blocked@example.test' }));
    expect(b.reason).toBe('sender_refused');
    expect(b.message).toBe('The server refused the sender address blocked@example.test: use an address this account may send from.');
    expect(b.detail).toMatch(/553 5\.7\.1 Sender address rejected/);
  });
});

describe('the last test send stays on the profile', () => {
  it('is null before any test, then records success and failure (time, ok, code, summary, detail), and survives a restart', async () => {
    const created = await call(s, 'PUT', `${P}/kept`, profileBody(plain.port), 201);
    expect(created.lastTest).toBeNull();
    const before = Date.now();
    expect(await call(s, 'POST', `${P}/kept/test`, { to: 'admin@example.test' })).toEqual({ ok: true });
    const ok = (await call(s, 'GET', `${P}/kept`)).lastTest;
    expect(ok).toMatchObject({ ok: true, code: null, summary: 'The server accepted the test message.' });
    expect(ok.detail).toMatch(/^250 /);
    expect(Date.parse(ok.at)).toBeGreaterThanOrEqual(before - 1000);

    plain.rejectRcpt.set('gone@example.test', { code: 550, message: '5.1.1 Gone' });
    const r = await s.api(`${P}/kept/test`, { method: 'POST', json: { to: 'gone@example.test' } });
    expect(r.status).toBe(502);
    const failed = (await call(s, 'GET', `${P}/kept`)).lastTest;
    expect(failed).toMatchObject({
      ok: false,
      code: 'recipient_refused',
      summary: expect.stringMatching(/^The server refused the recipient gone@example\.test/),
    });
    expect(failed.detail).toMatch(/550 5\.1\.1 Gone/);
    // the list shows it too
    const list = await call(s, 'GET', P);
    expect(list.data.find((p: any) => p.key === 'kept').lastTest).toEqual(failed);
    // an edit keeps it
    const edited = await call(s, 'PUT', `${P}/kept`, profileBody(plain.port, { name: 'Kept', revision: created.revision }));
    expect(edited.lastTest).toEqual(failed);

    // across a restart (on the same core store: the data folder's platform.db, or the same PostgreSQL database)
    await s.close();
    const databaseUrl = s.config.databaseUrl;
    const again = await startTestServer({ dataDir: s.dataDir, databaseUrl, adminToken: s.token });
    try {
      expect((await call(again, 'GET', `${P}/kept`)).lastTest).toEqual(failed);
    } finally {
      await again.close();
    }
    s = await startMailServer({ dataDir: s.dataDir, databaseUrl, adminToken: s.token, mail: { smtp: { timeoutMs: 2500 } } });
  });

  it('is in the OpenAPI description of a profile', async () => {
    const doc = await call(s, 'GET', '/v1/openapi.json');
    const schema = doc.components.schemas.MailProfile;
    expect(schema.required).toContain('lastTest');
    expect(Object.keys(schema.properties.lastTest.anyOf?.[0]?.properties ?? schema.properties.lastTest.properties ?? {})).toEqual(
      expect.arrayContaining(['at', 'ok', 'code', 'summary', 'detail']),
    );
  });
});
