/**
 * Rules and limits of seed 002 that the other mail tests do not reach: the retry schedule (one minute doubling to one
 * hour), the attachment byte limit on the bulk API (rule 1, "both mail APIs"), and bounce polling every five minutes
 * (through a mail clock that records the timers the domain asks for and lets the test fire the poller's).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailClock } from '../../../server/mail/index.ts';
import { startTestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';

let s: MailServer;
let app: string;

beforeAll(async () => {
  s = await startMailServer();
  await call(s, 'PUT', `${M}/profiles/down`, profileBody(CLOSED_PORT, { maxAttachmentBytes: 1000 }), 201);
  app = await registerApp(s, 'crm');
});
afterAll(async () => {
  await s?.stop();
});

describe('outgoing mail rules and limits', () => {
  it('temporary failures are retried after one minute, doubling up to one hour, with the last answer kept', async () => {
    const acc = await call(s, 'POST', '/api/mail/send', { to: ['retry@example.test'], subject: 'r', text: 'x' }, 202, app);
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      const m = await waitMessage(s, acc.id, (x) => x.attempts === attempt && x.status === 'queued');
      expect(m.lastError).toMatch(/ECONNREFUSED|connect/i);
      const delay = Date.parse(m.nextAttemptAt) - Date.parse(m.updatedAt);
      delays.push(Math.round(delay / 60_000));
      // not due before its time
      s.advance(delay - 2000);
      await s.mail.kick();
      await s.mail.idle();
      expect((await call(s, 'GET', `${M}/messages/${acc.id}`)).attempts).toBe(attempt);
      s.advance(3000);
      await s.mail.kick();
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
    await waitMessage(s, acc.id, (x) => x.attempts === 9 && x.status === 'queued');
    await call(s, 'POST', `${M}/messages/${acc.id}/cancel`);
  });

  it('queued bulk mail past the 24-hour deadline fails by recovery, with the last answer kept, without using a pacing slot', async () => {
    await call(s, 'PUT', `${M}/profiles/slow`, profileBody(CLOSED_PORT, { pacePerMinute: 1 }), 201);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['down', 'slow'] });
    const r = await call(
      s,
      'POST',
      '/api/mail/enqueue',
      { profile: 'slow', messages: [1, 2, 3].map((i) => ({ to: [`late${i}@example.test`], subject: 'late', text: 'x' })) },
      202,
      app,
    );
    const [first, ...waiting] = r.messages.map((m: any) => m.id as string);
    // the first takes the profile's slot and fails temporarily; the others wait for the next slot, a minute later
    await waitMessage(s, first!, (m) => m.attempts === 1 && m.status === 'queued');
    await s.mail.idle();
    const slot = () => s.services.store.value("SELECT next_slot_at FROM mail_profiles WHERE key = 'slow'");
    const before = await slot();
    s.advance(24 * 3600_000 + 1000);
    expect((await s.mail.recover()).expired).toBe(3);
    expect(await slot()).toBe(before);
    const failed = await waitMessage(s, first!, (m) => m.status === 'failed');
    expect(failed.lastError).toMatch(/ECONNREFUSED|connect/i); // the last answer is kept
    for (const id of waiting) {
      const m = await call(s, 'GET', `${M}/messages/${id}`);
      expect(m).toMatchObject({ status: 'failed', attempts: 0 });
      expect(m.lastError).toMatch(/24-hour/);
    }
  });

  it('both mail APIs enforce the profile attachment byte limit: an enqueue is refused whole', async () => {
    const ok = { to: ['a@example.test'], subject: 's', text: 't', attachments: [{ filename: 'a.bin', content: crypto.randomBytes(1000).toString('base64') }] };
    const big = { ...ok, attachments: [{ filename: 'b.bin', content: crypto.randomBytes(1001).toString('base64') }] };
    const r = await s.api('/api/mail/enqueue', { method: 'POST', token: app, json: { profile: 'down', ref: 'limit-test', messages: [ok, big] } });
    expect(r.status).toBe(413);
    expect((await r.json()).error).toBe('attachment_too_large');
    expect((await call(s, 'GET', `${M}/messages?ref=limit-test`)).data).toEqual([]);
    expect(await s.mail.attachmentBytes()).toBe(0);
    const two = await call(s, 'POST', '/api/mail/enqueue', { profile: 'down', ref: 'limit-test', messages: [ok, ok] }, 202, app);
    expect(two.messages).toHaveLength(2);
    await call(s, 'POST', `${M}/batches/${two.batchId}/cancel`);
  });
});

describe('bounce polling schedule', () => {
  it('checks the mailboxes every five minutes, the next check counted from the end of the previous one', async () => {
    // Real timers for the rest of the domain; the five-minute timers are recorded and fired by the test.
    const polls: Array<{ fn: () => void; ms: number }> = [];
    const clock: MailClock = {
      now: () => Date.now(),
      setTimeout: (fn, ms) => {
        if (ms === 5 * 60_000) {
          const h = { fn, ms };
          polls.push(h);
          return h;
        }
        const t = setTimeout(fn, ms);
        t.unref();
        return t;
      },
      clearTimeout: (h) => {
        const i = polls.indexOf(h as never);
        if (i >= 0) polls.splice(i, 1);
        else clearTimeout(h as NodeJS.Timeout);
      },
    };
    const srv = await startTestServer({ mail: { clock } });
    try {
      expect(polls).toHaveLength(1); // scheduled at start
      await call(
        srv,
        'PUT',
        `${M}/profiles/main`,
        profileBody(CLOSED_PORT, { imap: { host: '127.0.0.1', port: CLOSED_PORT, secure: true, user: 'u', password: 'p', folder: 'INBOX' } }),
        201,
      );
      expect((await call(srv, 'GET', `${M}/profiles/main`)).bounces).toEqual({ checkedAt: null, error: null });
      polls.shift()!.fn(); // five minutes later
      const p = await until(
        async () => {
          const p = await call(srv, 'GET', `${M}/profiles/main`);
          return p.bounces.checkedAt && p;
        },
        'the bounce check to run',
        10_000,
      );
      expect(p.bounces.error).toBe('open_failed'); // nothing listens there: the check ran and recorded it
      // the next check is five minutes after this one ended
      await until(() => polls.length > 0, 'the next check to be scheduled');
      expect(polls.map((t) => t.ms)).toEqual([5 * 60_000]);
    } finally {
      await srv.stop();
    }
    expect(polls).toEqual([]); // shutdown clears the timer
  });
});
