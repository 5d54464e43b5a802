/** Core's notifications (seed 002, behaviour rule 5), delivered to a real SMTP peer with a movable clock. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, M, type MailServer, profileBody, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer();
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { dailyRecipientLimit: 3, pacePerMinute: 600 }), 201);
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

describe('individual notifications', () => {
  it("go out as core on the immediate lane in Hearth's HTML frame", async () => {
    const before = peer.received.length;
    const acc = await s.mail.notify({
      to: ['nina@example.test'],
      subject: 'Password changed',
      text: 'Your password was changed.\n\nIf this was not you, <tell> an administrator.',
    });
    const done = await waitMessage(s, acc.id, (m) => m.status === 'sent');
    expect(done).toMatchObject({ app: 'core', lane: 'immediate', profile: 'main' });
    const [got] = (await peer.waitFor(before + 1)).slice(before);
    expect(got!.parsed.text).toContain('If this was not you, <tell> an administrator.');
    expect(got!.parsed.html).toContain('data-hearth-notification-body');
    expect(got!.parsed.html).toContain('&lt;tell&gt;');
    expect(got!.parsed.html).toContain('This is an automatic message from Hearth.');
  });

  it('stay pending through temporary SMTP failures past the 24-hour deadline of ordinary mail, then go out', async () => {
    const before = peer.received.length;
    for (let i = 0; i < 3; i++) peer.dataFaults.push({ code: 451, message: 'Try again later' });
    const acc = await s.mail.notify({ to: ['otto@example.test'], subject: 'Notice', text: 'pending' });
    await waitMessage(s, acc.id, (m) => m.attempts === 1);
    for (let i = 2; i <= 3; i++) {
      s.advance(25 * 3600_000);
      await s.mail.recover();
      await s.mail.kick();
      const m = await waitMessage(s, acc.id, (x) => x.attempts === i);
      expect(m.status).toBe('queued');
      expect(m.lastError).toMatch(/451/);
    }
    s.advance(2 * 3600_000);
    await s.mail.kick();
    const sent = await waitMessage(s, acc.id, (m) => m.status === 'sent');
    expect(sent.attempts).toBe(4);
    expect((await peer.waitFor(before + 1)).slice(before).map((r) => r.parsed.messageId)).toEqual([acc.messageId]);
  });
});

describe('notification batches', () => {
  it('are never refused by the daily limit: they wait for the rolling window to free capacity', async () => {
    // Move past the window of the earlier tests.
    s.advance(25 * 3600_000);
    const before = peer.received.length;
    const batch = await s.mail.notifyBatch({
      ref: 'announce:1',
      messages: ['a', 'b', 'c', 'd', 'e'].map((x) => ({ to: [`${x}@example.test`], subject: 'Maintenance', text: `Hello ${x}` })),
    });
    expect(batch.messages).toHaveLength(5);
    await s.mail.kick();
    await peer.waitFor(before + 3);
    await s.mail.idle();
    // Wait for the state — three sent, two rescheduled past the window — rather than for a time.
    const settled = (r: { status: string; nextAttemptAt: string | null }) =>
      r.status === 'sent' || (r.status === 'queued' && r.nextAttemptAt !== null && Date.parse(r.nextAttemptAt) > Date.now() + 23 * 3600_000);
    for (const m of batch.messages) await waitMessage(s, m.id, settled);
    expect(peer.received.length).toBe(before + 3);
    const rows = await Promise.all(batch.messages.map((m) => call(s, 'GET', `${M}/messages/${m.id}`)));
    const waiting = rows.filter((r) => r.status === 'queued');
    expect(waiting).toHaveLength(2);
    for (const w of waiting) {
      expect(w.lane).toBe('bulk');
      expect(Date.parse(w.nextAttemptAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);
    }
    // An ordinary send is still refused while the window is full.
    const app = await call(s, 'POST', `${M}/apps`, { appId: 'crm', name: 'CRM', platformPermissions: ['mail:send'] }, 201);
    const refused = await s.api('/api/mail/send', { method: 'POST', token: app.token, json: { to: ['x@example.test'], subject: 's', text: 't' } });
    expect(refused.status).toBe(429);
    // A day later the window has room again and the rest goes out.
    s.advance(24 * 3600_000 + 5000);
    await s.mail.kick();
    await peer.waitFor(before + 5);
    // The peer has the mail; the server records each outcome just after: wait for that state.
    for (const m of batch.messages) expect((await waitMessage(s, m.id, (r) => r.status !== 'queued' && r.status !== 'sending')).status).toBe('sent');
    const to = peer.received
      .slice(before)
      .map((r) => r.to[0])
      .sort();
    expect(to).toEqual(['a@example.test', 'b@example.test', 'c@example.test', 'd@example.test', 'e@example.test']);
  });
});
