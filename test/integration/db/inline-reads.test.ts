/**
 * Which listings answer from the server's own connection (cheap by construction) and which run in query processes
 * (server/db/rows/rows.service.ts, InlineReads) — and that a client cannot tell the two apart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let inline: TestServer;
let pooled: TestServer;

async function seed(s: TestServer): Promise<void> {
  const ok = async (r: Promise<Response>, status = 201) => {
    const res = await r;
    expect(res.status, await res.clone().text()).toBe(status);
  };
  await ok(s.api('/v1/namespaces', { method: 'POST', json: { name: 'shop' } }));
  await ok(
    s.api('/v1/shop/tables', {
      method: 'POST',
      json: {
        type: 'table',
        name: 'items',
        columns: [
          { name: 'title', type: 'text' },
          { name: 'qty', type: 'integer' },
          { name: 'price', type: 'real' },
          { name: 'ok', type: 'boolean' },
          { name: 'tags', type: 'json' },
          { name: 'pic', type: 'blob' },
        ],
      },
    }),
  );
  const rows = Array.from({ length: 60 }, (_, i) => ({
    title: i % 7 === 0 ? null : `item ${i}`,
    qty: i % 5,
    price: i / 3,
    ok: i % 3 === 0 ? null : i % 2 === 0,
    tags: { i },
    pic: i % 4 === 0 ? 'AP8=' : null,
  }));
  await ok(s.api('/v1/shop/tables/items/rows', { method: 'POST', json: { rows } }));
  await ok(s.api('/v1/shop/tables', { method: 'POST', json: { type: 'view', name: 'cheap', sql: 'SELECT * FROM items WHERE qty < 2' } }));
  await ok(s.api('/v1/shop/tables/items/indexes', { method: 'POST', json: { type: 'fts', columns: ['title'] } }));
}

beforeAll(async () => {
  [inline, pooled] = await Promise.all([startTestServer(), startTestServer({ db: { inlineReads: { maxBytes: 0 } } })]);
  await Promise.all([seed(inline), seed(pooled)]);
});
afterAll(async () => {
  await Promise.all([inline?.stop(), pooled?.stop()]);
});

const jobs = (s: TestServer) => s.services.db.queries.pool.stats.jobs;

/** The answer and whether it took a query process. */
async function read(s: TestServer, path: string, headers: Record<string, string> = {}) {
  const before = jobs(s);
  const r = await s.api(path, { headers });
  // The two servers wrote their rows at other instants: timestamps are left out of the comparison.
  const body = (await r.text()).replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"');
  const answer = { status: r.status, body, range: r.headers.get('content-range'), type: r.headers.get('content-type') };
  return { answer, pooled: jobs(s) > before };
}

describe('listings on the server’s own connection', () => {
  it.each([
    ['a page', '/v1/shop/tables/items/rows', false],
    [
      'filters, order with nulls, select with aliases',
      '/v1/shop/tables/items/rows?qty=gte.2&or=(ok.is.true,title.is.null)&order=title.desc.nullsfirst,price&select=t:title,qty,ok,tags,pic',
      false,
    ],
    ['count=exact', '/v1/shop/tables/items/rows?count=exact&qty=eq.3&limit=5&offset=2', false],
    ['any/all and in', '/v1/shop/tables/items/rows?qty=eq(any).{1,3}&price=not.in.(1,2)', false],
    ['a blob filter', '/v1/shop/tables/items/rows?pic=eq.AP8=&select=id', false],
    ['the /rest surface with a count', '/v1/shop/rest/items?qty=lt.2&order=price.desc&limit=10', false],
    ['a page ending at row 1000', '/v1/shop/tables/items/rows?limit=500&offset=500', false],
    ['a page ending past row 1000', '/v1/shop/tables/items/rows?limit=500&offset=501', true],
    ['a view', '/v1/shop/tables/cheap/rows', true],
    ['like', '/v1/shop/tables/items/rows?title=like.item*', true],
    ['ilike inside a logical expression', '/v1/shop/tables/items/rows?or=(qty.eq.1,title.ilike.*4*)', true],
    ['match', '/v1/shop/tables/items/rows?title=match.^item 1', true],
    ['full-text search', '/v1/shop/tables/items/rows?search=item', true],
    ['an aggregate', '/v1/shop/tables/items/rows?select=qty,count()', true],
  ])('%s (query process: %s), answered exactly as a query process answers it', async (_what, path, viaPool) => {
    const a = await read(inline, path, { prefer: 'count=exact' });
    expect(a.pooled).toBe(viaPool);
    const b = await read(pooled, path, { prefer: 'count=exact' });
    expect(b.pooled).toBe(true);
    expect([200, 206]).toContain(a.answer.status);
    expect(a.answer).toEqual(b.answer);
  });

  it('a namespace with a short query_timeout reads in query processes', async () => {
    const put = (ms: number) => inline.api('/v1/namespaces/shop', { method: 'PUT', json: { config: { query_timeout: ms } } });
    expect((await put(500)).status).toBe(200);
    try {
      expect((await read(inline, '/v1/shop/tables/items/rows')).pooled).toBe(true);
    } finally {
      expect((await put(10_000)).status).toBe(200);
    }
    expect((await read(inline, '/v1/shop/tables/items/rows')).pooled).toBe(false);
  });
});

describe('limits of inline reads', () => {
  it('a database larger than the limit is read in query processes; a small one is not', async () => {
    const s = await startTestServer({ db: { inlineReads: { maxBytes: 64 * 1024 } } });
    try {
      for (const name of ['big', 'small']) expect((await s.api('/v1/namespaces', { method: 'POST', json: { name } })).status).toBe(201);
      for (const ns of ['big', 'small']) {
        expect((await s.api(`/v1/${ns}/tables`, { method: 'POST', json: { type: 'table', name: 't', columns: [{ name: 'v', type: 'text' }] } })).status).toBe(
          201,
        );
      }
      const rows = Array.from({ length: 100 }, (_, i) => ({ v: `${i} ${'x'.repeat(1000)}` }));
      expect((await s.api('/v1/big/tables/t/rows', { method: 'POST', json: { rows } })).status).toBe(201);
      expect((await s.api('/v1/small/tables/t/rows', { method: 'POST', json: { v: 'a' } })).status).toBe(201);
      expect((await read(s, '/v1/big/tables/t/rows?select=id&limit=1')).pooled).toBe(true);
      expect((await read(s, '/v1/small/tables/t/rows?select=id&limit=1')).pooled).toBe(false);
    } finally {
      await s.stop();
    }
  });

  it('a table whose inline read took too long is read in query processes for a while', async () => {
    // Every inline read counts as slow here (0 ms); the backoff is longer than the test.
    const s = await startTestServer({ db: { inlineReads: { slowMs: -1, backoffMs: 600_000 } } });
    try {
      expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'n' } })).status).toBe(201);
      for (const t of ['a', 'b'])
        expect((await s.api('/v1/n/tables', { method: 'POST', json: { type: 'table', name: t, columns: [{ name: 'v', type: 'text' }] } })).status).toBe(201);
      const first = await read(s, '/v1/n/tables/a/rows');
      expect(first.pooled).toBe(false);
      const again = await read(s, '/v1/n/tables/a/rows');
      expect(again.pooled).toBe(true);
      expect(again.answer).toEqual(first.answer);
      // Only that table: another one still reads inline (and is then slow too).
      expect((await read(s, '/v1/n/tables/b/rows')).pooled).toBe(false);
    } finally {
      await s.stop();
    }
  });
});
