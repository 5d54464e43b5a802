/**
 * Outgoing mail on three replicas sharing one PostgreSQL core store (issue 18; seed 002 rule 10: bulk pacing holds
 * across all applications and Core replicas): bulk mail enqueued through all three reaches a real SMTP peer at the
 * profile's pace and once per message, and a replica killed with SIGKILL in the middle of bulk sends loses nothing —
 * the others recover what it held, and only what it held may arrive twice (the seed's at-least-once rule; the copies
 * share their Message-ID).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replicas, startReplicas } from '../../helpers/replicas.ts';
import type { TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { call, M, profileBody } from '../mail/helpers.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

let r: Replicas;
let peer: Peer;
const asServer = (x: { api: TestServer['api'] }) => x as unknown as TestServer;

beforeAll(async () => {
  peer = await startPeer();
  // Recovery every 500 ms, a `sending` row counted stuck after 3 s: a killed replica's claims come back within seconds.
  r = await startReplicas({ count: 3, options: () => ({ mail: { delivery: { recoveryIntervalMs: 500, stuckAfterMs: 3000 } } }) });
}, 120_000);
afterAll(async () => {
  await r?.stop();
  await peer?.close();
});

async function app(appId: string): Promise<string> {
  const created = await call(asServer(r), 'POST', `${M}/apps`, { appId, name: appId, platformPermissions: ['mail:send'] }, 201);
  return created.token as string;
}

/** Enqueues `n` bulk messages through `profile` at replica `i` as the application with `token`. */
async function enqueue(i: number, token: string, profile: string, prefix: string, n: number): Promise<string[]> {
  const acc = await call(
    asServer(r.replicas[i]!),
    'POST',
    '/api/mail/enqueue',
    {
      profile,
      messages: Array.from({ length: n }, (_, k) => ({ to: [`${prefix}${k}@example.test`], subject: `${prefix}${k}`, text: 'Hello' })),
    },
    202,
    token,
  );
  return acc.messages.map((m: { messageId: string }) => m.messageId);
}

describe('bulk mail from three replicas', () => {
  it("keeps the profile's pace across all of them and sends each message once", async () => {
    await call(asServer(r.replicas[0]!), 'PUT', `${M}/profiles/paced`, profileBody(peer.port, { pacePerMinute: 300 }), 201);
    const token = await app('news');
    const before = peer.received.length;
    // Ten messages through each replica at once: 30 messages, one pacing slot (200 ms) apart whoever sends them.
    const ids = (await Promise.all([0, 1, 2].map((i) => enqueue(i, token, 'paced', `p${i}-`, 10)))).flat();
    const got = (await peer.waitFor(before + ids.length, 60_000)).slice(before);
    let sent: Array<{ messageId: string; lastAttemptAt: string | null }> = [];
    await until(
      async () => (sent = (await call(asServer(r), 'GET', `${M}/messages?profile=paced&status=sent&limit=100`)).data).length === 30,
      () => `30 paced messages recorded as sent (${sent.length} are)`,
    );
    const arrived = got.map((x) => x.parsed.messageId!);
    expect([...arrived].sort()).toEqual([...ids].sort()); // each once, none missing
    expect(sent.map((m) => m.messageId).sort()).toEqual([...ids].sort());
    // The pace, from the send log: the pacing slot of each attempt, reserved with the time its replica claimed the row
    // through the one gate in the core store. Whichever replica took them, slots are 200 ms (300 a minute) apart or
    // more. (That the pace is not slower than asked is a speed figure: bench/replicas.bench.ts prints it.)
    const slots = sent.map((m) => Date.parse(m.lastAttemptAt!)).sort((a, b) => a - b);
    expect(slots.every(Number.isFinite)).toBe(true);
    const gaps = slots.slice(1).map((t, k) => t - slots[k]!);
    for (const [k, gap] of gaps.entries()) expect(gap, `slot gap ${k + 1} of ${gaps.join(', ')}`).toBeGreaterThanOrEqual(200);
  });

  it('loses nothing when a replica is killed (SIGKILL) during bulk sends; the others recover what it held', async () => {
    const slow = await startPeer({ dataDelayMs: 150 });
    try {
      await call(asServer(r.replicas[0]!), 'PUT', `${M}/profiles/crash`, profileBody(slow.port, { pacePerMinute: 1200 }), 201);
      const token = await app('crashy');
      await call(asServer(r.replicas[1]!), 'PUT', `${M}/apps/crashy/policy`, { mode: 'profiles', profiles: ['crash'] });
      const ids = (await Promise.all([0, 1, 2].map((i) => enqueue(i, token, 'crash', `k${i}-`, 10)))).flat();
      await slow.waitFor(6, 30_000);
      const victim = r.replicas[2]!;
      victim.proc.kill('SIGKILL');
      await until(() => victim.proc.signalCode === 'SIGKILL', 'the replica killed');
      const atKill = slow.received.length;
      expect(atKill).toBeLessThan(30);
      let sent = 0;
      await until(
        async () =>
          (sent = (await call(asServer(r.replicas[0]!), 'GET', `${M}/messages?status=sent&limit=100`)).data.filter(
            (m: any) => m.profile === 'crash',
          ).length) === 30,
        () => `30 sent after the kill (${sent} are)`,
        60_000,
      );
      const arrived = slow.received.map((x) => x.parsed.messageId!);
      for (const id of ids) expect(arrived, id).toContain(id);
      for (const id of arrived) expect(ids).toContain(id);
      // Only what the killed replica had in flight may have gone out twice: at most its bulk sends per profile (4).
      expect(arrived.length - new Set(arrived).size).toBeLessThanOrEqual(4);
    } finally {
      await slow.close();
    }
  }, 120_000);
});
