/**
 * forward() in front of a real Hearth (issue 18): what a client does with the database service — create a namespace
 * and a table, write and read rows, import a CSV file, export it, subscribe to changes — works the same through a
 * replica that forwards every request to the owner. The node:http tests (forward.test.ts) hold the proxy's edges;
 * this one holds that Hearth's own answers (envelopes, Content-Range, SSE frames, streamed CSV) pass whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Front, readText, startFront } from '../../helpers/forward-rig.ts';
import { multipart, startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

let owner: TestServer;
let front: Front;
let token: string;
const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  return fetch(front.url + path, { ...init, headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.body });
};

beforeAll(async () => {
  owner = await startTestServer();
  token = owner.token;
  front = await startFront('node-a', () => ({ url: owner.url, node: 'node-b' }));
  expect((await call('/v1/namespaces', { method: 'POST', json: { name: 'shop' } })).status).toBe(201);
  const table = {
    type: 'table',
    name: 'items',
    columns: [
      { name: 'name', type: 'text', not_null: true },
      { name: 'qty', type: 'integer' },
    ],
  };
  expect((await call('/v1/shop/tables', { method: 'POST', json: table })).status).toBe(201);
});
afterAll(async () => {
  await front.close();
  await owner.stop();
});

describe('forward to a Hearth', () => {
  it('writes and reads rows, and passes its error envelopes and headers', async () => {
    const made = await call('/v1/shop/tables/items/rows', {
      method: 'POST',
      json: { rows: [{ name: 'chair', qty: 4 }] },
      headers: { Prefer: 'return=representation' },
    });
    expect(made.status).toBe(201);
    expect((await made.json()).data).toMatchObject([{ name: 'chair', qty: 4 }]);
    const got = await call('/v1/shop/tables/items/rows?name=eq.chair&select=name,qty', { headers: { Prefer: 'count=exact' } });
    expect(got.status).toBe(200);
    expect((await got.json()).data).toEqual([{ name: 'chair', qty: 4 }]);
    const missing = await call('/v1/shop/tables/nope/rows');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'table_not_found' });
    const anonymous = await call('/v1/shop/tables/items/rows', { headers: { authorization: '' } });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('imports a CSV file of 100 000 rows and exports it back, both streamed', async () => {
    await call('/v1/shop/tables', {
      method: 'POST',
      json: {
        type: 'table',
        name: 'bulk',
        columns: [
          { name: 'name', type: 'text' },
          { name: 'qty', type: 'integer' },
        ],
      },
    });
    const lines = ['name,qty'];
    for (let i = 0; i < 100_000; i++) lines.push(`item ${i},${i}`);
    const csv = `${lines.join('\r\n')}\r\n`;
    const m = multipart([{ name: 'file', filename: 'bulk.csv', data: csv, type: 'text/csv' }]);
    const imp = await call('/v1/namespaces/shop/import?table=bulk', { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    expect(imp.status).toBe(200);
    expect(await imp.json()).toEqual({ table: 'bulk', inserted: 100_000 });
    const exp = await call('/v1/shop/tables/bulk/export?format=csv&select=name,qty&order=qty.asc');
    expect(exp.status).toBe(200);
    expect(exp.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await exp.text()).toBe(csv);
  });

  it("streams the namespace's change events to a subscriber through the front, and the owner sees it leave", async () => {
    const abort = new AbortController();
    const forwarded = front.results.length;
    const res = await call('/v1/shop/subscribe?tables=items', { headers: { accept: 'text/event-stream' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const sse = readText(res);
    await until(() => sse.text.includes(': connected'), 'the connected comment');
    for (const name of ['lamp', 'desk']) {
      expect((await call('/v1/shop/tables/items/rows', { method: 'POST', json: { rows: [{ name, qty: 1 }] } })).status).toBe(201);
      await until(
        () => sse.text.includes(`"${name}"`),
        () => `the insert of ${name} at the subscriber (has ${JSON.stringify(sse.text)})`,
      );
    }
    expect(sse.text).toMatch(/event: insert\ndata: .*"lamp"/);
    expect(owner.services.db.events.subscribers('shop')).toBe(1);
    abort.abort();
    await sse.ended;
    expect(await front.results[forwarded]!.done).toBe('aborted');
    await until(() => owner.services.db.events.subscribers('shop') === 0, 'the owner dropping the subscriber that left');
  });
});
