/**
 * Forwarding between nodes and online moves (issue 18): two Hearth servers (`node-a`, `node-b`) on one PostgreSQL core
 * store. A namespace placed on B is used entirely through A — rows written and read (the hot one-row read included),
 * a CSV import and exports, a change-event stream, the control plane — as if A held it; B sees the real client and
 * the hop; a browser session's cookie passes and its Origin check holds at the owner. `POST /v1/namespaces/{ns}/move` moves it to A online and back; its errors are in the envelope; the
 * node-to-node routes refuse an unsigned caller. With B stopped, its namespaces answer 503 `namespace_unavailable`
 * with `Retry-After` at A, while A's own keep working.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Postgres, startPostgres } from '../../helpers/postgres.ts';
import { sharedSecrets } from '../../helpers/replicas.ts';
import { multipart, startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const PUBLIC = 'http://hearth.test';
let cluster: Postgres;
let a: TestServer;
let b: TestServer;

/** The secrets every replica of one core store shares. */
const shared = sharedSecrets();

beforeAll(async () => {
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase();
  const token = `test-admin-${crypto.randomBytes(16).toString('hex')}`;
  // All replicas share one public address (the Origin of browser requests); the tests reach each at its own.
  a = await startTestServer({ databaseUrl, adminToken: token, nodeId: 'node-a', nodeHealthyMs: 5000, publicUrl: PUBLIC, ...shared });
  b = await startTestServer({ databaseUrl, adminToken: token, nodeId: 'node-b', nodeHealthyMs: 5000, publicUrl: PUBLIC, ...shared });
  await until(async () => {
    const nodes = (await (await a.api('/healthz')).json()).nodes as Array<{ healthy: boolean }>;
    return nodes.length === 2 && nodes.every((n) => n.healthy);
  }, 'both nodes healthy at A');
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await cluster?.stop();
});

const json = async (res: Response) => ({ status: res.status, body: await res.json() });
const fileOf = (s: TestServer, fileId: string) => path.join(s.dataDir, 'namespaces', `${fileId}.db`);
const fileIdOf = async (ns: string) => (await a.services.store.get<{ file_id: string }>('SELECT file_id FROM namespaces WHERE name = ?', [ns]))!.file_id;

async function placeOnB(ns: string) {
  expect((await a.api('/v1/namespaces', { method: 'POST', json: { name: ns, node: 'node-b' } })).status).toBe(201);
  await until(() => a.services.db.ownerOf(ns)?.node === 'node-b' && b.services.db.ownerOf(ns)?.node === 'node-b', `${ns} known on both`);
  const created = await a.api(`/v1/${ns}/tables`, {
    method: 'POST',
    json: {
      type: 'table',
      name: 'items',
      columns: [
        { name: 'label', type: 'text', not_null: true },
        { name: 'qty', type: 'integer' },
      ],
    },
  });
  expect(created.status).toBe(201);
}

describe('forwarding to the node holding a namespace', () => {
  it('rows written and read at the node that does not hold it, as at its owner', async () => {
    await placeOnB('fwd');
    const written = await json(
      await a.api('/v1/fwd/tables/items/rows', {
        method: 'POST',
        json: {
          rows: [
            { label: 'one', qty: 1 },
            { label: 'two', qty: 2 },
          ],
        },
        headers: { 'x-request-id': 'fwd-write-1' },
      }),
    );
    expect(written.status).toBe(201);
    const listed = await json(await a.api('/v1/fwd/tables/items/rows?order=qty'));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((r: { label: string }) => r.label)).toEqual(['one', 'two']);
    // The same rows at the owner: one database, on B only.
    expect((await json(await b.api('/v1/fwd/tables/items/rows?order=qty'))).body.data).toEqual(listed.body.data);
    expect(fs.existsSync(fileOf(a, await fileIdOf('fwd')))).toBe(false);

    // The hot one-row read (an Authorization header) is handed to Koa and forwarded.
    const id = listed.body.data[1].id;
    const one = await a.api(`/v1/fwd/tables/items/rows/${id}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toMatchObject({ label: 'two', qty: 2 });
    expect(one.headers.get('via')).toMatch(/node-a/);
    const patched = await json(await a.api(`/v1/fwd/tables/items/rows/${id}`, { method: 'PUT', json: { label: 'two', qty: 20 } }));
    expect(patched).toMatchObject({ status: 200 });
    expect((await json(await b.api(`/v1/fwd/tables/items/rows/${id}`))).body.qty).toBe(20);

    // Errors come from the owner, in the envelope.
    const missing = await json(await a.api('/v1/fwd/tables/nope/rows'));
    expect(missing).toMatchObject({ status: 404, body: { error: 'table_not_found' } });
    // The client's credentials pass through: none is 401 from the owner.
    expect((await a.api('/v1/fwd/tables/items/rows', { token: null })).status).toBe(401);
    // The record and the listing answer anywhere.
    expect((await json(await a.api('/v1/namespaces/fwd'))).body).toMatchObject({ name: 'fwd', node: 'node-b' });
  });

  it('a CSV import and exports through the other node', async () => {
    const m = multipart([{ name: 'file', filename: 'items.csv', data: 'label,qty\nthree,3\nfour,4\n', type: 'text/csv' }]);
    const imp = await a.api('/v1/namespaces/fwd/import?table=items', { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    expect(await json(imp)).toEqual({ status: 200, body: { table: 'items', inserted: 2 } });
    const csv = await (await a.api('/v1/fwd/tables/items/export?format=csv&select=label,qty&order=label')).text();
    expect(csv.trim().split(/\r?\n/)).toEqual(['label,qty', 'four,4', 'one,1', 'three,3', 'two,20']);
    const exp = await a.api('/v1/namespaces/fwd/export');
    expect(exp.status).toBe(200);
    const bytes = Buffer.from(await exp.arrayBuffer());
    expect(Number(exp.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
  });

  it('a change-event stream opened at the other node carries the owner’s events', async () => {
    const abort = new AbortController();
    const res = await a.api('/v1/fwd/subscribe', { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const reading = (async () => {
      const dec = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += dec.decode(value, { stream: true });
      }
    })();
    await until(() => b.services.db.events.subscribers('fwd') === 1, 'the subscriber at the owner');
    expect((await b.api('/v1/fwd/tables/items/rows', { method: 'POST', json: { label: 'streamed', qty: 5 } })).status).toBe(201);
    await until(() => text.includes('streamed'), 'the event through A');
    abort.abort();
    await reading;
    await until(() => b.services.db.events.subscribers('fwd') === 0, 'the owner to see the stream closed');
  });

  it('the answer names the hop and keeps the request id', async () => {
    const res = await a.api('/v1/fwd/tables/items/rows?limit=1', { headers: { 'x-request-id': 'fwd-seen' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('fwd-seen');
    expect(res.headers.get('via')).toBe('1.1 node-a');
  });
});

describe('a browser session through the other node', () => {
  it('the session cookie passes and its Origin check still holds at the owner', async () => {
    const sendTo = (s: TestServer, p: string, body: unknown, headers: Record<string, string>) =>
      fetch(s.url + p, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const send = (p: string, body: unknown, headers: Record<string, string>) => sendTo(a, p, body, headers);
    const password = 'a long enough passphrase 42';
    // Signed in at the owner (accounts and sessions are still in each node's platform.db), used through A.
    expect((await sendTo(b, '/api/setup', { login: 'root', password }, { origin: PUBLIC })).status).toBe(201);
    const login = await sendTo(b, '/api/auth/login', { login: 'root', password }, { origin: PUBLIC });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .find((c) => c.startsWith('hearth_session='))!
      .split(';')[0]!;
    const write = await send('/v1/fwd/tables/items/rows', { label: 'by cookie', qty: 7 }, { cookie, origin: PUBLIC });
    expect(write.status).toBe(201);
    expect(write.headers.get('via')).toBe('1.1 node-a');
    const foreign = await send('/v1/fwd/tables/items/rows', { label: 'cross-site', qty: 8 }, { cookie, origin: 'http://evil.test' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: 'origin_mismatch' });
    expect((await send('/v1/fwd/tables/items/rows', { label: 'no origin', qty: 9 }, { cookie })).status).toBe(403);
    const read = await fetch(`${a.url}/v1/fwd/tables/items/rows?select=label`, { headers: { cookie } });
    expect(((await read.json()).data as Array<{ label: string }>).map((r) => r.label)).toContain('by cookie');
  });
});

describe('moving a namespace online', () => {
  it('moves to another node and back, keeping every row; the old copy is removed', async () => {
    const before = await fileIdOf('fwd');
    const res = await json(await a.api('/v1/namespaces/fwd/move', { method: 'POST', json: { node: 'node-a' } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'fwd', node: 'node-a', moved: { from: 'node-b', to: 'node-a' } });
    expect(res.body.moved.bytes).toBeGreaterThan(0);
    expect(res.body.moved.pause_ms).toBeGreaterThanOrEqual(0);
    const after = await fileIdOf('fwd');
    expect(after).not.toBe(before);
    expect(fs.existsSync(fileOf(a, after))).toBe(true);
    await until(() => !fs.existsSync(fileOf(b, before)), 'B to remove its copy');
    // A serves it now; B forwards to A.
    const viaB = await json(await b.api('/v1/fwd/tables/items/rows?order=label&select=label'));
    expect(viaB.body.data.map((r: { label: string }) => r.label)).toEqual(['by cookie', 'four', 'one', 'streamed', 'three', 'two']);
    expect((await a.api('/v1/fwd/tables/items/rows', { method: 'POST', json: { label: 'after', qty: 6 } })).status).toBe(201);
    const audit = await a.services.store.get<{ detail: string }>("SELECT detail FROM audit_log WHERE action = 'namespace.move' AND target = 'fwd'");
    expect(JSON.parse(audit!.detail)).toMatchObject({ from: 'node-b', to: 'node-a' });

    // And back, asked at the node that does not hold it.
    const back = await json(await b.api('/v1/namespaces/fwd/move', { method: 'POST', json: { node: 'node-b' } }));
    expect(back).toMatchObject({ status: 200, body: { node: 'node-b', moved: { from: 'node-a', to: 'node-b' } } });
    expect((await json(await a.api('/v1/fwd/tables/items/rows?select=label'))).body.data).toHaveLength(7);
  });

  it('refuses a node that is unknown or holds it already, in the envelope', async () => {
    expect(await json(await a.api('/v1/namespaces/fwd/move', { method: 'POST', json: { node: 'node-z' } }))).toMatchObject({
      status: 400,
      body: { error: 'node_unknown' },
    });
    expect(await json(await a.api('/v1/namespaces/fwd/move', { method: 'POST', json: { node: 'node-b' } }))).toMatchObject({
      status: 409,
      body: { error: 'already_on_node' },
    });
    expect((await a.api('/v1/namespaces/nothing/move', { method: 'POST', json: { node: 'node-b' } })).status).toBe(404);
  });

  it('the node-to-node routes refuse a caller without the shared secret', async () => {
    const res = await fetch(`${b.url}/internal/nodes/namespaces/fwd/file`, { method: 'PUT', body: 'x' });
    expect(res.status).toBe(401);
    const forged = await fetch(`${b.url}/internal/nodes/namespaces/fwd/refresh`, {
      method: 'POST',
      headers: { 'hearth-node-auth': `v1 node=node-a,t=${Date.now()},file=,sha256=,size=0,sig=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
  });
});

describe('a node that is down', () => {
  it("its namespaces answer 503 namespace_unavailable with Retry-After; the other node's keep working", async () => {
    expect((await a.api('/v1/namespaces', { method: 'POST', json: { name: 'local_a', node: 'node-a' } })).status).toBe(201);
    await b.close();
    const res = await a.api('/v1/fwd/tables/items/rows');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toMatchObject({ error: 'namespace_unavailable' });
    const write = await a.api('/v1/fwd/tables/items/rows', { method: 'POST', json: { label: 'x' } });
    expect(write.status).toBe(503);
    expect((await a.api('/v1/local_a/tables')).status).toBe(200);
    expect((await a.api('/v1/namespaces')).status).toBe(200);
  });
});
