/**
 * The settled-status topic (seed 002, internal wake-ups): the trigger that publishes settling status changes into
 * `mail_settled`, its five-minute retention, and `?wait=` on the message reads, woken by the topic (locally, and by
 * the tail for changes made by another connection to the core store: platform.db, or PostgreSQL under
 * HEARTH_TEST_STORE=postgres).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../server/core/storage/store.ts';
import type { WaitEnd } from '../../../server/mail/index.ts';
import { openCoreStore } from '../../helpers/stopped-store.ts';
import { until } from '../../helpers/wait.ts';
import { CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;
let other: string;
let db: Store;
/** How each `?wait=` read ended, in order (the server's own account: woken by the topic, or at its deadline). */
const ends: Array<{ id: string; end: WaitEnd }> = [];
const endsOf = (id: string) => ends.filter((e) => e.id === id).map((e) => e.end);

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer({ mail: { settled: { trimBatch: 2 }, onWaitEnd: (id, end) => ends.push({ id, end }) } });
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
  await call(s, 'PUT', `${M}/profiles/down`, profileBody(CLOSED_PORT), 201);
  app = await registerApp(s, 'crm');
  await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'down'] });
  other = await registerApp(s, 'other');
  // Another connection to the same core store (as the CLI or a second server on the data folder would hold).
  db = await openCoreStore({ dataDir: s.dataDir, databaseUrl: s.config.databaseUrl });
});
afterAll(async () => {
  await db?.close();
  await s?.stop();
  await peer?.close();
});

const send = (json: Record<string, unknown>) => call(s, 'POST', '/api/mail/send', { subject: 's', text: 't', ...json }, 202, app);
/** The topic's entries for some records, oldest first. */
const entries = (...ids: string[]) =>
  db.all<{ id: string; status: string; at: number }>(
    `SELECT message_id AS id, status, at FROM mail_settled WHERE message_id IN (${ids.map(() => '?').join(', ')}) ORDER BY seq`,
    ids,
  );
/** Every record with an entry in the topic. */
const topicIds = async () => (await db.all<{ message_id: string }>('SELECT message_id FROM mail_settled')).map((r) => r.message_id);
/** A message parked in `queued` after a temporary failure (connection refused): nothing retries it for a minute. */
async function parked(): Promise<string> {
  const { id } = await send({ profile: 'down', to: ['parked@example.test'] });
  await waitMessage(s, id, (m) => m.status === 'queued' && m.attempts === 1);
  return id;
}
/**
 * Starts a held read and resolves once the server holds it (the topic has a waiter for the record), with the answer
 * still to come (wrapped: an async function returning a promise would wait for it).
 */
async function startWait(path: string, token: string | undefined, id: string) {
  const before = s.mail.settledWaiting();
  let answered = false;
  const answer = s.api(path, { token }).then(async (r) => {
    const got = { status: r.status, body: await r.json() };
    answered = true;
    return got;
  });
  await until(async () => {
    if (s.mail.settledWaiting() > before) return true;
    if (answered) throw new Error(`the read of ${id} answered at once: ${JSON.stringify(await answer)}`);
    return false;
  }, `the server to hold the read of ${id}`);
  return { answer };
}

describe('settled-status topic: the trigger', () => {
  it('publishes exactly the moves into sent, failed, cancelled and bounced (also sent → bounced; not bounced → bounced), with updated_at as its time', async () => {
    const [a, b, c] = [await parked(), await parked(), await parked()];
    // The lane's own moves so far (queued → sending → queued after the temporary failure) published nothing.
    expect(await entries(a, b, c)).toEqual([]);
    const set = (id: string, status: string, at: number) => db.run('UPDATE mail_messages SET status = ?, updated_at = ? WHERE id = ?', [status, at, id]);
    await set(a, 'sending', 1001);
    await set(a, 'queued', 1002);
    await db.run('UPDATE mail_messages SET updated_at = 1003 WHERE id = ?', [a]); // not a status change
    await db.run('UPDATE mail_messages SET status = status, updated_at = 1004 WHERE id = ?', [a]); // status set, unchanged
    expect(await entries(a)).toEqual([]);
    await set(a, 'sent', 2000);
    await set(a, 'bounced', 2001);
    await db.run("UPDATE mail_messages SET failures = '[]', status = 'bounced', updated_at = 2002 WHERE id = ?", [a]); // a second report
    await set(b, 'failed', 2003);
    await set(c, 'cancelled', 2004);
    expect(await entries(a, b, c)).toEqual([
      { id: a, status: 'sent', at: 2000 },
      { id: a, status: 'bounced', at: 2001 },
      { id: b, status: 'failed', at: 2003 },
      { id: c, status: 'cancelled', at: 2004 },
    ]);
    // The entry commits with the status change: a rolled-back change publishes nothing.
    const d = await parked();
    await expect(
      db.tx(async () => {
        await set(d, 'failed', 3000);
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    expect(await entries(d)).toEqual([]);
    expect((await call(s, 'GET', `${M}/messages/${d}`)).status).toBe('queued');
  });

  it('the lanes and cancellations publish through it: a real delivery (sent), a permanent rejection (failed), an admin cancel', async () => {
    const ok = await send({ to: ['ok@example.test'] });
    await s.mail.idle(); // the fault below is for the next DATA only
    peer.dataFaults.push({ code: 550, message: 'mailbox unavailable' });
    const bad = await send({ to: ['bad@example.test'] });
    await s.mail.idle();
    const queued = await parked();
    await call(s, 'POST', `${M}/messages/${queued}/cancel`);
    await s.mail.idle();
    expect((await entries(ok.id, bad.id, queued)).map((e) => [e.id, e.status]).sort()).toEqual(
      [
        [ok.id, 'sent'],
        [bad.id, 'failed'],
        [queued, 'cancelled'],
      ].sort(),
    );
  });
});

describe('GET …/messages/{id}?wait=', () => {
  it('answers as soon as the SMTP peer accepts the message (application API), not at the end of the wait', async () => {
    peer.hold(true);
    try {
      const { id } = await send({ to: ['held@example.test'] });
      await peer.waitHeld(1);
      expect((await call(s, 'GET', `/api/mail/messages/${id}`, undefined, 200, app)).status).toBe('sending');
      const { answer } = await startWait(`/api/mail/messages/${id}?wait=25`, app, id);
      peer.releaseOne();
      const r = await answer;
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id, status: 'sent', attempts: 1, app: 'crm' });
      expect(r.body.smtpResponse).toMatch(/^250/);
      expect(endsOf(id)).toEqual(['settled']); // answered by the wake-up: the 25-second wait did not run out
      expect(r.body).not.toHaveProperty('text');
      expect(s.mail.settledWaiting()).toBe(0);
    } finally {
      peer.hold(false);
    }
  });

  it('answers on a permanent rejection (admin read), with the SMTP answer', async () => {
    // A message waits in the queue after a temporary failure; the profile is then pointed at the peer, which refuses it.
    await call(s, 'PUT', `${M}/profiles/later`, profileBody(CLOSED_PORT), 201);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'down', 'later'] });
    const { id } = await send({ profile: 'later', to: ['reject@example.test'] });
    await s.mail.idle();
    await waitMessage(s, id, (m) => m.attempts === 1);
    const { answer } = await startWait(`${M}/messages/${id}?wait=25`, undefined, id);
    const { revision } = await call(s, 'GET', `${M}/profiles/later`);
    await call(s, 'PUT', `${M}/profiles/later`, profileBody(peer.port, { revision }));
    peer.dataFaults.push({ code: 554, message: 'rejected for policy reasons' });
    s.advance(61_000); // the retry is due
    await s.mail.kick();
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'failed', attempts: 2 });
    expect(r.body.lastError).toMatch(/rejected for policy reasons/);
    expect(r.body.smtpResponse).toMatch(/^554/);
    expect(endsOf(id)).toEqual(['settled']);
    await call(s, 'DELETE', `${M}/profiles/later`, undefined, 204);
  });

  it('a message settled by another connection to the core store wakes a waiter within the tail interval', async () => {
    const id = await parked();
    const { answer } = await startWait(`/api/mail/messages/${id}?wait=25`, app, id);
    const { answer: admin } = await startWait(`${M}/messages/${id}?wait=25`, undefined, id);
    await db.run("UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'cancelled_by_admin', updated_at = ? WHERE id = ?", [Date.now(), id]);
    for (const r of [await answer, await admin]) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id, status: 'cancelled', cancelReason: 'cancelled_by_admin' });
    }
    // Both woken (the tail reads every second; PostgreSQL also notifies): neither 25-second wait ran out.
    expect(endsOf(id)).toEqual(['settled', 'settled']);
    expect(s.mail.settledWaiting()).toBe(0);
  });

  it('answers at once when already settled or without wait; at the end of the wait with the current record otherwise', async () => {
    const { id } = await send({ to: ['done@example.test'] });
    await s.mail.idle();
    const settled = await call(s, 'GET', `/api/mail/messages/${id}?wait=60`, undefined, 200, app);
    expect(settled.status).toBe('sent');
    expect(endsOf(id)).toEqual(['at_once']); // never held
    const queued = await parked();
    expect((await call(s, 'GET', `/api/mail/messages/${queued}`, undefined, 200, app)).status).toBe('queued');
    // Held first (the server counts the waiter before any answer comes), answered when the one-second wait ran out.
    const { answer } = await startWait(`/api/mail/messages/${queued}?wait=1`, app, queued);
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: queued, status: 'queued', attempts: 1 });
    expect(endsOf(queued)).toEqual(['deadline']); // held for the whole wait
    expect(s.mail.settledWaiting()).toBe(0);
  });

  it('validates wait (whole seconds 1–60) on both reads', async () => {
    const { id } = await send({ to: ['v@example.test'] });
    for (const w of ['0', '61', 'abc', '1.5', '', '-1', '1e1', ' 5']) {
      for (const [path, token] of [
        [`/api/mail/messages/${id}`, app],
        [`${M}/messages/${id}`, undefined],
      ] as const) {
        const r = await s.api(`${path}?wait=${encodeURIComponent(w)}`, { token });
        const body = await r.json();
        expect(r.status, `${path}?wait=${w}`).toBe(400);
        expect(body.error).toBe('invalid_request');
        expect(body.message).toMatch(/wait/);
      }
    }
    const twice = await s.api(`/api/mail/messages/${id}?wait=1&wait=2`, { token: app });
    expect(twice.status).toBe(400);
  });

  it("an application cannot wait on another application's message: 404 at once, as for reads", async () => {
    const id = await parked();
    const r = await s.api(`/api/mail/messages/${id}?wait=60`, { token: other });
    expect(r.status).toBe(404);
    expect((await r.json()).error).toBe('message_unknown');
    expect(s.mail.settledWaiting()).toBe(0);
    // an unknown id, too
    expect((await s.api(`/api/mail/messages/00000000-0000-4000-8000-000000000000?wait=5`, { token: app })).status).toBe(404);
    expect((await s.api(`${M}/messages/00000000-0000-4000-8000-000000000000?wait=5`)).status).toBe(404);
    // the admin token is not an application
    expect((await s.api(`/api/mail/messages/${id}?wait=5`)).status).toBe(403);
  });
});

describe('settled-status topic: retention', () => {
  it('recovery deletes entries older than five minutes (mail clock), in batches, and keeps newer ones', async () => {
    const old = [await parked(), await parked(), await parked()];
    for (const id of old) await call(s, 'POST', `${M}/messages/${id}/cancel`);
    expect(await entries(...old)).toHaveLength(3);
    s.advance(4 * 60_000);
    await s.mail.recover();
    expect(await entries(...old)).toHaveLength(3); // four minutes: kept
    s.advance(60_000 + 1000);
    const fresh = await parked();
    await call(s, 'POST', `${M}/messages/${fresh}/cancel`);
    // (The 30-second recovery timer may run first: the end state is what counts.)
    expect(typeof (await s.mail.recover()).settledTrimmed).toBe('number');
    // Batches of two (trimBatch) until none older remain: every earlier test's entries are gone too.
    expect(await entries(...old)).toEqual([]);
    expect(await topicIds()).toEqual([fresh]);
    // The newest entry is kept even when old, so seq (a plain rowid) never starts again from 1.
    const freshSeq = (await db.value<number>('SELECT seq FROM mail_settled WHERE message_id = ?', [fresh]))!;
    s.advance(6 * 60_000);
    await s.mail.recover();
    expect(await topicIds()).toEqual([fresh]);
    const next = await parked();
    await call(s, 'POST', `${M}/messages/${next}/cancel`);
    expect(await db.value<number>('SELECT seq FROM mail_settled WHERE message_id = ?', [next])).toBeGreaterThan(freshSeq);
    await s.mail.recover();
    expect(await topicIds()).toEqual([next]);
    // the durable rows stay: losing a wake-up entry never loses the record
    for (const id of old) expect((await call(s, 'GET', `/api/mail/messages/${id}?wait=5`, undefined, 200, app)).status).toBe('cancelled');
  });
});

describe('settled-status topic: shutdown', () => {
  it('a held wait answers the current record when the server stops, instead of holding the shutdown', async () => {
    const s2 = await startMailServer();
    try {
      await call(s2, 'PUT', `${M}/profiles/down`, profileBody(CLOSED_PORT), 201);
      const token = await registerApp(s2, 'crm');
      const { id } = await call(s2, 'POST', '/api/mail/send', { to: ['x@example.test'], subject: 's', text: 't' }, 202, token);
      const answer = s2
        .api(`/api/mail/messages/${id}?wait=25`, { token })
        .then(async (r) => ({ status: r.status, connection: r.headers.get('connection'), body: await r.json() }));
      await until(() => s2.mail.settledWaiting() > 0, 'the server to hold the read');
      const stopped = s2.stop();
      const r = await answer;
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(id);
      expect(['queued', 'sending']).toContain(r.body.status);
      expect(r.connection).toBe('close');
      await stopped;
    } finally {
      await s2.stop().catch(() => {});
    }
  });
});
