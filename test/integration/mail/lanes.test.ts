/**
 * The delivery lanes (seed 002): at most eight SMTP attempts at once in the immediate lane, implicit TLS with AUTH,
 * an attempt past its timeout back in the queue, Core's own mail through the default profile, and a password that
 * cannot be opened keeping mail queued with a clear error.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/boot.ts';
import { until } from '../../helpers/wait.ts';
import { call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, selfSigned, startPeer } from './peer.ts';

let s: MailServer;
let slow: Peer;
let tlsPeer: Peer;
let app: string;

beforeAll(async () => {
  slow = await startPeer({ dataDelayMs: 700 });
  tlsPeer = await startPeer({ tls: 'implicit', auth: { user: 'u', pass: 'implicit-Pass-1' } });
  s = await startMailServer({ mail: { smtp: { tls: { ca: selfSigned().cert } }, delivery: { attemptTimeoutMs: 1500 } } });
  await call(s, 'PUT', `${M}/profiles/slow`, profileBody(slow.port), 201);
  await call(
    s,
    'PUT',
    `${M}/profiles/tls`,
    profileBody(tlsPeer.port, { smtpSecure: true, smtpUser: 'u', smtpPassword: 'implicit-Pass-1', fromName: 'Office' }),
    201,
  );
  app = await registerApp(s, 'crm');
  await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['slow', 'tls'] });
});
afterAll(async () => {
  await s.stop();
  await slow.close();
  await tlsPeer.close();
});

describe('delivery lanes', () => {
  it('the immediate lane runs at most eight SMTP attempts at once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await call(s, 'POST', '/api/mail/send', { profile: 'slow', to: [`i${i}@example.test`], subject: `i${i}`, text: 'x' }, 202, app)).id);
    await slow.waitFor(12, 15_000);
    expect(slow.maxConcurrent()).toBe(8);
    for (const id of ids) await waitMessage(s, id, (m) => m.status === 'sent');
  });

  it('implicit TLS with AUTH delivers; the sender name comes from the profile', async () => {
    const acc = await call(s, 'POST', '/api/mail/send', { profile: 'tls', to: ['t@example.test'], subject: 'tls', text: 'x' }, 202, app);
    const [got] = await tlsPeer.waitFor(1);
    expect(got!.user).toBe('u');
    expect(got!.parsed.from?.value[0]).toMatchObject({ name: 'Office', address: 'noreply@example.test' });
    expect(got!.parsed.messageId).toBe(acc.messageId);
  });

  it('an attempt past its timeout is a temporary failure: the row goes back to the queue', async () => {
    const slowest = await startPeer({ dataDelayMs: 4000 });
    try {
      await call(s, 'PUT', `${M}/profiles/stall`, profileBody(slowest.port), 201);
      await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['slow', 'tls', 'stall'] });
      const acc = await call(s, 'POST', '/api/mail/send', { profile: 'stall', to: ['t@example.test'], subject: 'stall', text: 'x' }, 202, app);
      const m = await waitMessage(s, acc.id, (x) => x.attempts === 1);
      expect(m.status).toBe('queued');
      expect(m.lastError).toMatch(/exceeded 2 s|timeout/i);
    } finally {
      await slowest.close();
    }
  });

  it('Core mail goes out as application core through the default profile and shows in the send log', async () => {
    await call(s, 'POST', `${M}/profiles/tls/default`);
    const before = tlsPeer.received.length;
    const acc = await s.mail.sendAsCore({
      to: ['user@example.test'],
      cc: [],
      bcc: [],
      subject: 'Reset your password',
      text: 'link',
      headers: {},
      attachments: [],
    });
    const rec = await waitMessage(s, acc.id, (m) => m.status === 'sent');
    expect(rec).toMatchObject({ app: 'core', profile: 'tls', actor: { actor: 'core' }, from: { name: 'Office' } });
    await tlsPeer.waitFor(before + 1);
  });

  it('a password sealed under another APP_SECRET keeps mail queued with a clear error (never sent without it)', async () => {
    // An APP_SECRET changed between starts of one installation: on platform.db under either HEARTH_TEST_STORE
    // (store: 'sqlite'). On PostgreSQL the replicas' shared-secret record (core/secrets) refuses the start first, with
    // its own message (shared-secrets.test.ts).
    const first = await startMailServer({ store: 'sqlite', appSecret: 'a'.repeat(40) });
    const token = await registerApp(first, 'crm');
    await call(first, 'PUT', `${M}/profiles/auth`, profileBody(tlsPeer.port, { smtpSecure: true, smtpUser: 'u', smtpPassword: 'implicit-Pass-1' }), 201);
    await first.close();
    const again = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: first.dataDir,
      adminToken: first.token,
      appSecret: 'b'.repeat(40),
      logLevel: 'silent',
      env: {},
    });
    try {
      const r = await fetch(`${again.url}/api/mail/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ to: ['x@example.test'], subject: 's', text: 't' }),
      });
      expect(r.status).toBe(202);
      const { id } = await r.json();
      const m = await until(
        async () => {
          const m = await (await fetch(`${again.url}${M}/messages/${id}`, { headers: { authorization: `Bearer ${first.token}` } })).json();
          return m.lastError && m;
        },
        'an error on the message',
        3_000,
      );
      expect(m).toMatchObject({ status: 'queued', attempts: 0 });
      expect(m.lastError).toMatch(/APP_SECRET/);
    } finally {
      await again.close();
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
