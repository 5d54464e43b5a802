/**
 * Limits of the bulk lane (seed 002, rule 10 and the limits table): a drain run stops claiming after 60 s (moved with
 * the injectable mail clock) and lets the attempts in progress finish; four drainers per worker; one run per profile.
 * The SMTP peer holds messages after their final dot, so attempts stay in progress as long as the test needs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../helpers/wait.ts';
import { call, M, type MailServer, profileBody, registerApp, startMailServer } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;
const PROFILES = ['cap', 'd1', 'd2', 'd3', 'd4', 'd5'];

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer();
  // 6000 per minute: a pacing slot every 10 ms, so the pace never holds these runs back
  for (const key of PROFILES) await call(s, 'PUT', `${M}/profiles/${key}`, profileBody(peer.port, { pacePerMinute: 6000 }), 201);
  app = await registerApp(s, 'news');
  await call(s, 'PUT', `${M}/apps/news/policy`, { mode: 'profiles', profiles: PROFILES });
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

const enqueue = (profile: string, n: number, tag = profile) =>
  call(
    s,
    'POST',
    '/api/mail/enqueue',
    { profile, messages: Array.from({ length: n }, (_, i) => ({ to: [`${tag}-${i}@example.test`], subject: `${tag} ${i}`, text: 'x' })) },
    202,
    app,
  );
/** How many of the profile's messages have each status (from the send log). */
async function counts(profile: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  let cursor: string | null = null;
  do {
    const page: any = await call(s, 'GET', `${M}/messages?profile=${profile}&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    for (const m of page.data) out[m.status] = (out[m.status] ?? 0) + 1;
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

describe('bulk lane limits', () => {
  it('a drain run stops claiming after 60 s; the attempts in progress finish and the next run sends the rest', async () => {
    peer.hold(true);
    const r = await enqueue('cap', 8);
    // the run sends up to four at once and waits for one of them before claiming the next row
    await peer.waitHeld(4);
    expect(await counts('cap')).toEqual({ sending: 4, queued: 4 });

    s.advance(61_000); // the run has now been going for more than 60 s (mail clock)
    peer.releaseOne();
    await until(async () => (await counts('cap')).sent === 1, 'the released message to be sent');
    // an attempt finished: a run under 60 s would claim the next row now; this one stops claiming
    expect(await counts('cap')).toEqual({ sent: 1, sending: 3, queued: 4 });
    peer.releaseOne();
    await until(async () => (await counts('cap')).sent === 2, 'the second released message to be sent');
    expect(await counts('cap')).toEqual({ sent: 2, sending: 2, queued: 4 });

    // the attempts in progress finish; then a new run sends the rest
    peer.hold(false);
    await until(async () => (await counts('cap')).sent === 8, 'every message to be sent');
    const ids = new Set(peer.received.filter((g) => g.parsed.subject?.startsWith('cap ')).map((g) => g.parsed.messageId));
    expect(ids).toEqual(new Set(r.messages.map((m: any) => m.messageId)));
  });

  it('four drainers per worker: a fifth profile waits while four drain; a wake-up does not start a second run of a profile', async () => {
    peer.hold(true);
    for (const key of ['d1', 'd2', 'd3', 'd4', 'd5']) await enqueue(key, 5);
    const sending = async (key: string) => (await counts(key)).sending ?? 0;
    await until(async () => {
      for (const key of ['d1', 'd2', 'd3', 'd4']) if ((await sending(key)) < 4) return false;
      return true;
    }, 'four profiles with four attempts each');
    expect(await counts('d5')).toEqual({ queued: 5 });
    for (const key of ['d1', 'd2', 'd3', 'd4']) expect(await counts(key)).toEqual({ sending: 4, queued: 1 });
    // more mail for a profile that is draining: its run is not doubled
    await enqueue('d1', 2, 'd1-more');
    expect(await counts('d1')).toEqual({ sending: 4, queued: 3 });

    peer.hold(false);
    for (const key of ['d1', 'd2', 'd3', 'd4', 'd5']) await until(async () => (await counts(key)).sent === (key === 'd1' ? 7 : 5), `${key} to be sent`);
  });
});
