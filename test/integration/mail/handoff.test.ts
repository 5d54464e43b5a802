/**
 * The immediate lane hands rows to the SMTP thread ahead of a free attempt slot (server/mail/delivery/lanes.ts
 * `handOff`): the thread still runs at most eight attempts at once, and a row it never started goes back to the queue
 * untouched when the server stops.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { withStoppedStore } from '../../helpers/stopped-store.ts';
import { until } from '../../helpers/wait.ts';
import { call, M, profileBody, registerApp, startMailServer } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

const peers: Peer[] = [];
afterAll(async () => {
  for (const p of peers) await p.close();
});

describe('immediate lane hand-off to the SMTP thread', () => {
  it('at most eight attempts run across profiles while more rows are handed over; those never started are queued again, unattempted, at shutdown', async () => {
    // Two profiles (two connection pools of up to eight sessions each): the cap of eight attempts is the lane's.
    const pa = await startPeer();
    const pb = await startPeer();
    peers.push(pa, pb);
    pa.hold(true);
    pb.hold(true);
    const held = () => pa.held() + pb.held();
    const s = await startMailServer({ mail: { delivery: { closeGraceMs: 300 } } });
    let closed = false;
    try {
      await call(s, 'PUT', `${M}/profiles/a`, profileBody(pa.port), 201);
      await call(s, 'PUT', `${M}/profiles/b`, profileBody(pb.port), 201);
      const app = await registerApp(s);
      await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['a', 'b'] });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        ids.push(
          (await call(s, 'POST', '/api/mail/send', { profile: i % 2 ? 'b' : 'a', to: [`h${i}@example.test`], subject: `h${i}`, text: 'x' }, 202, app)).id,
        );
      }
      const status = async () => {
        const all = await Promise.all(ids.map((id) => call(s, 'GET', `${M}/messages/${id}`)));
        return { sending: all.filter((m) => m.status === 'sending').length, queued: all.filter((m) => m.status === 'queued').length };
      };
      /** The SMTP thread holds `running` attempts and `waiting` handed-over rows waiting for a slot. */
      const thread = (running: number, waiting: number) => async () => {
        const t = await s.mail.smtpThreadState();
        return t.running === running && t.waiting === waiting;
      };
      await until(() => held() === 8, 'eight attempts at the peers');
      // Sixteen rows claimed (eight in an attempt, eight handed over and waiting), four still queued; no ninth attempt:
      // the thread has taken all sixteen and keeps eight waiting for a slot, which frees only when an attempt ends,
      // and no attempt ends while the peers hold every answer (the lane claims no more: its sixteen are out).
      await until(async () => (await status()).sending === 16, 'sixteen claimed rows');
      await until(thread(8, 8), () => 'eight attempts in the SMTP thread and eight waiting there');
      expect(await status()).toEqual({ sending: 16, queued: 4 });
      expect(held()).toBe(8);

      // One attempt ends: a waiting row starts at once, still eight at a time, and the lane claims the next row.
      (pa.held() ? pa : pb).releaseOne();
      await until(() => pa.received.length + pb.received.length === 1, 'the released message');
      await until(() => held() === 8, 'eight attempts again');
      await until(async () => (await status()).sending === 16, 'sixteen claimed rows again');
      // The lane's replacement row reached the thread and waits there: eight at a time still, nothing else to start.
      await until(thread(8, 8), () => 'eight attempts in the SMTP thread and eight waiting there, again');
      expect(await status()).toEqual({ sending: 16, queued: 3 });
      expect(held()).toBe(8);

      await s.close();
      closed = true;
      // the stopped server's core store: platform.db, or its PostgreSQL database under HEARTH_TEST_STORE=postgres
      await withStoppedStore({ dataDir: s.dataDir, databaseUrl: s.config.databaseUrl }, async (store) => {
        const rows = await store.all<{ status: string; attempts: number; claimed_by: string | null; last_error: string | null }>(
          `SELECT status, attempts, claimed_by, last_error FROM mail_messages WHERE id IN (${ids.map(() => '?').join(',')})`,
          ids,
        );
        expect(rows).toHaveLength(20);
        // 1 sent; 8 cut in their attempt at shutdown (an attempt counted, back in the queue); 8 handed over but never
        // started and 3 never claimed: queued, no attempt, nothing recorded.
        expect(rows.filter((r) => r.status === 'sent')).toHaveLength(1);
        expect(rows.filter((r) => r.status === 'queued' && r.attempts === 1)).toHaveLength(8);
        const untouched = rows.filter((r) => r.attempts === 0);
        expect(untouched).toHaveLength(11);
        for (const r of untouched) expect(r).toMatchObject({ status: 'queued', claimed_by: null, last_error: null });
      });
    } finally {
      if (!closed) await s.close();
      pa.hold(false);
      pb.hold(false);
      fs.rmSync(s.dataDir, { recursive: true, force: true });
    }
  });
});
