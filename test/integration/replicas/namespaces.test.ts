/**
 * Namespaces on three replicas sharing one PostgreSQL core store, used through a round-robin balancer (issue 18):
 * a namespace moved from one node to another and on to the third while writers and a reader keep using it loses
 * nothing (every acknowledged row is there afterwards, none twice) and no read misses a row acknowledged before it
 * began; a replica killed with SIGKILL makes its namespaces answer 503 `namespace_unavailable` with `Retry-After` at
 * the others, while their own namespaces and the core store keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replicas, startReplicas } from '../../helpers/replicas.ts';
import { until } from '../../helpers/wait.ts';

let r: Replicas;

interface NodeHealth {
  id: string;
  healthy: boolean;
}

beforeAll(async () => {
  // A node counts as down 3 s after its last heartbeat (one every second).
  r = await startReplicas({ count: 3, options: () => ({ nodeHealthyMs: 3000 }) });
  await until(async () => {
    const nodes = (await (await r.replicas[0]!.api('/healthz')).json()).nodes as NodeHealth[];
    return nodes.length === 3 && nodes.every((n) => n.healthy);
  }, 'three healthy nodes');
}, 120_000);
afterAll(async () => {
  await r?.stop();
});

const post = (path: string, json: unknown) => r.api(path, { method: 'POST', json });

async function createOn(ns: string, node: string) {
  expect((await post('/v1/namespaces', { name: ns, node })).status).toBe(201);
  // Every replica has heard of it before it is used through the balancer.
  await until(
    async () => (await Promise.all(r.replicas.map(async (x) => (await x.api(`/v1/namespaces/${ns}`)).status))).every((s) => s === 200),
    `${ns} known everywhere`,
  );
  await until(
    async () => (await post(`/v1/${ns}/tables`, { type: 'table', name: 'w', columns: [{ name: 'k', type: 'text', not_null: true }] })).status === 201,
    `${ns}.w`,
  );
}

describe('a namespace moved while it is used', () => {
  it('loses no acknowledged write, writes none twice, and no read misses an acknowledged row', async () => {
    await createOn('busy', 'node-a');
    const acked = new Set<string>();
    const problems: string[] = [];
    let retried = 0;
    let reads = 0;
    let stop = false;

    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const k = `w${w}-${n}`;
        for (;;) {
          const res = await post('/v1/busy/tables/w/rows', { k });
          if (res.status === 201) {
            await res.body?.cancel();
            acked.add(k);
            break;
          }
          const body = await res.json().catch(() => ({}));
          // Refused before it was applied (the pause lasted too long, or a replica had not heard of the move yet).
          if (res.status === 503 && body.error === 'namespace_unavailable' && res.headers.get('retry-after')) {
            retried++;
            continue;
          }
          problems.push(`write ${k}: ${res.status} ${JSON.stringify(body)}`);
          return;
        }
      }
    };
    const reader = async () => {
      while (!stop) {
        const before = [...acked];
        const res = await r.api('/v1/busy/tables/w/rows?select=k&limit=10000');
        if (res.status === 503) {
          await res.body?.cancel();
          continue;
        }
        if (res.status !== 200) {
          problems.push(`read: ${res.status} ${await res.text()}`);
          return;
        }
        const seen = new Set(((await res.json()).data as Array<{ k: string }>).map((x) => x.k));
        const missing = before.filter((k) => !seen.has(k));
        if (missing.length) problems.push(`a read missed ${missing.length} acknowledged rows (${missing.slice(0, 3).join(', ')}…)`);
        reads++;
      }
    };
    const running = [writer(0), writer(1), writer(2), reader()];
    const moves: Array<Record<string, unknown>> = [];
    try {
      // Each phase waits for writes and for full reads: on a busy machine one read can take as long as 40 writes.
      for (const to of ['node-b', 'node-c']) {
        const [at, readsAt] = [acked.size, reads];
        await until(() => (acked.size >= at + 40 && reads > readsAt) || problems.length > 0, `40 more writes and a full read before the move to ${to}`);
        const res = await post('/v1/namespaces/busy/move', { node: to });
        const body = await res.json();
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(body).toMatchObject({ name: 'busy', node: to, moved: { to } });
        moves.push(body.moved);
      }
      const [at, readsAt] = [acked.size, reads];
      await until(() => (acked.size >= at + 40 && reads > readsAt) || problems.length > 0, '40 more writes and a full read after the moves');
    } finally {
      stop = true;
      await Promise.all(running);
    }
    expect(problems).toEqual([]);
    expect(reads).toBeGreaterThan(0);

    const rows = ((await (await r.api('/v1/busy/tables/w/rows?select=k&limit=10000')).json()).data as Array<{ k: string }>).map((x) => x.k);
    const counts = new Map<string, number>();
    for (const k of rows) counts.set(k, (counts.get(k) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]); // none twice
    expect([...acked].filter((k) => !counts.has(k))).toEqual([]); // none lost
    expect(rows.length).toBe(acked.size); // and none that was not acknowledged
    expect(moves.map((m) => [m.from, m.to])).toEqual([
      ['node-a', 'node-b'],
      ['node-b', 'node-c'],
    ]);
    console.log(`moves: ${JSON.stringify(moves)}; ${acked.size} writes acknowledged, ${retried} retried after a 503, ${reads} full reads`);
  });
});

describe('a replica killed with SIGKILL', () => {
  it('its namespaces answer 503 namespace_unavailable with Retry-After at the others; theirs and the core store keep working', async () => {
    await createOn('doomed', 'node-c');
    await createOn('alive', 'node-a');
    for (const ns of ['doomed', 'alive']) expect((await post(`/v1/${ns}/tables/w/rows`, { k: 'before' })).status).toBe(201);

    r.replicas[2]!.proc.kill('SIGKILL');
    await until(async () => {
      const nodes = (await (await r.replicas[0]!.api('/healthz')).json()).nodes as NodeHealth[];
      return nodes.find((n) => n.id === 'node-c')?.healthy === false;
    }, 'node-c counted down');

    for (const x of r.replicas.slice(0, 2)) {
      for (const [method, body] of [
        ['GET', undefined],
        ['POST', { k: 'after' }],
      ] as const) {
        const res = await x.api('/v1/doomed/tables/w/rows', { method, json: body });
        expect(res.status).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await res.json()).toMatchObject({ error: 'namespace_unavailable' });
      }
      // Another node's namespace, and the core store (the registry: a new namespace goes to a healthy node).
      expect((await x.api('/v1/alive/tables/w/rows', { method: 'POST', json: { k: `from-${x.url}` } })).status).toBe(201);
      expect((await x.api('/v1/alive/tables/w/rows')).status).toBe(200);
    }
    const placed = await (await r.replicas[1]!.api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } })).json();
    expect(['node-a', 'node-b']).toContain(placed.node);
    expect((await r.replicas[0]!.api('/v1/namespaces/doomed')).status).toBe(200); // its record is in the core store
  });
});
