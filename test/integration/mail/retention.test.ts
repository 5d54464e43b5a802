import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;
const DAY = 86_400_000;

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer({ mail: { retention: { batchSize: 2 } } });
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
  app = await registerApp(s, 'crm');
});
afterAll(async () => {
  await s.stop();
  await peer.close();
});

describe('retention', () => {
  it('reads defaults (90 / 365) and validates updates; both saved together; audited with old and new values', async () => {
    expect(await call(s, 'GET', `${M}/retention`)).toEqual({ contentDays: 90, recordDays: 365 });
    for (const body of [
      { contentDays: 0, recordDays: 10 },
      { contentDays: 10, recordDays: 36501 },
      { contentDays: 1.5, recordDays: 10 },
      { contentDays: 30, recordDays: 10 },
      { contentDays: 30 },
    ]) {
      const r = await s.api(`${M}/retention`, { method: 'PUT', json: body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((await r.json()).error).toBe('invalid_request');
    }
    expect(await call(s, 'GET', `${M}/retention`)).toEqual({ contentDays: 90, recordDays: 365 });
    expect(await call(s, 'PUT', `${M}/retention`, { contentDays: 10, recordDays: 20 })).toEqual({ contentDays: 10, recordDays: 20 });
    const a = (await audit(s, 'outgoing_mail.retention.update'))[0]!;
    expect(a.detail).toEqual({ old: { contentDays: 90, recordDays: 365 }, new: { contentDays: 10, recordDays: 20 } });
    expect((await s.api(`${M}/retention`, { token: app })).status).toBe(403);
  });

  it('purges content past content retention (marker), deletes records past record retention, in batches', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await call(s, 'POST', '/api/mail/send', { to: [`r${i}@example.test`], subject: `r${i}`, text: 'body', idempotencyKey: `k${i}` }, 202, app);
      ids.push(r.id);
    }
    for (const id of ids) await waitMessage(s, id, (m) => m.status === 'sent');
    expect(await s.mail.runRetention()).toEqual({ purged: 0, deleted: 0, complete: true });
    s.advance(11 * DAY);
    expect(await s.mail.runRetention()).toEqual({ purged: 5, deleted: 0, complete: true });
    const m = await call(s, 'GET', `${M}/messages/${ids[0]}`);
    expect(m.contentPurgedAt).not.toBeNull();
    expect(m.subject).toBe('r0');
    const c = await call(s, 'GET', `${M}/messages/${ids[0]}/content`);
    expect(c).toMatchObject({ purged: true, text: null, html: null, headers: null });
    expect(c.purgedAt).toBe(m.contentPurgedAt);
    s.advance(10 * DAY);
    expect(await s.mail.runRetention()).toEqual({ purged: 0, deleted: 5, complete: true });
    expect((await s.api(`${M}/messages/${ids[0]}`)).status).toBe(404);
    // an idempotency key is reusable once its row is gone
    const again = await call(s, 'POST', '/api/mail/send', { to: ['r0@example.test'], subject: 'again', text: 'body', idempotencyKey: 'k0' }, 202, app);
    expect(again.duplicate).toBe(false);
    await waitMessage(s, again.id, (x) => x.status === 'sent');
  });

  it('stops after its time budget and continues on the next run', async () => {
    const budgeted = await startMailServer({ mail: { retention: { batchSize: 1, budgetMs: 0 } } });
    try {
      expect(await budgeted.mail.runRetention()).toEqual({ purged: 0, deleted: 0, complete: false });
    } finally {
      await budgeted.stop();
    }
  });
});
