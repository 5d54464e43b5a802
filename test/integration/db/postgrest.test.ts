import { PostgrestClient } from '@supabase/postgrest-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

// A real PostgREST client against Hearth's PostgREST-compatible surface (/v1/{ns}/rest/{table}).
let s: TestServer;
let db: PostgrestClient;
beforeAll(async () => {
  s = await startTestServer();
  await s.api('/v1/namespaces', { method: 'POST', json: { name: 'shop' } });
  await s.api('/v1/shop/tables', {
    method: 'POST',
    json: {
      type: 'table',
      name: 'products',
      columns: [
        { name: 'sku', type: 'text', not_null: true, unique: true },
        { name: 'title', type: 'text', not_null: true },
        { name: 'category', type: 'text' },
        { name: 'price', type: 'real' },
        { name: 'stock', type: 'integer' },
        { name: 'featured', type: 'boolean' },
      ],
    },
  });
  db = new PostgrestClient(`${s.url}/v1/shop/rest`, { headers: { Authorization: `Bearer ${s.token}` } });
  const { error, status } = await db.from('products').insert([
    { sku: 'A1', title: 'Apple', category: 'fruit', price: 1.2, stock: 50, featured: true },
    { sku: 'B1', title: 'Banana', category: 'fruit', price: 0.5, stock: 0, featured: false },
    { sku: 'C1', title: 'Carrot', category: 'veg', price: 0.3, stock: 100, featured: null },
    { sku: 'D1', title: 'Dates', category: null, price: 4.5, stock: 7, featured: true },
  ]);
  expect(error).toBeNull();
  expect(status).toBe(201);
});
afterAll(async () => {
  await s.stop();
});

const skus = (rows: Array<{ sku: string }> | null) => (rows ?? []).map((r) => r.sku);

describe('postgrest-js against Hearth', () => {
  it('select with filters and ordering', async () => {
    const r1 = await db.from('products').select('sku').eq('category', 'fruit').order('price', { ascending: false });
    expect(r1.error).toBeNull();
    expect(skus(r1.data)).toEqual(['A1', 'B1']);
    expect(skus((await db.from('products').select('sku').gt('price', 1)).data)).toEqual(['A1', 'D1']);
    expect(skus((await db.from('products').select('sku').in('sku', ['C1', 'D1'])).data)).toEqual(['C1', 'D1']);
    expect(skus((await db.from('products').select('sku').is('category', null)).data)).toEqual(['D1']);
    expect(skus((await db.from('products').select('sku').ilike('title', '%AN%')).data)).toEqual(['B1']);
    expect(skus((await db.from('products').select('sku').like('title', 'C%')).data)).toEqual(['C1']);
    expect(skus((await db.from('products').select('sku').neq('stock', 0).lte('stock', 50)).data)).toEqual(['A1', 'D1']);
    expect(skus((await db.from('products').select('sku').not('category', 'is', null).order('sku', { ascending: false })).data)).toEqual(['C1', 'B1', 'A1']);
    expect(skus((await db.from('products').select('sku').match({ category: 'fruit', featured: true })).data)).toEqual(['A1']);
    expect(skus((await db.from('products').select('sku').order('featured', { ascending: true, nullsFirst: true })).data)).toEqual(['C1', 'B1', 'A1', 'D1']);
  });

  it('or() with nested and()', async () => {
    const r = await db.from('products').select('sku').or('stock.eq.0,and(category.eq.veg,price.lt.1)');
    expect(r.error).toBeNull();
    expect(skus(r.data)).toEqual(['B1', 'C1']);
  });

  it('select with renames and aggregates', async () => {
    const renamed = await db.from('products').select('code:sku, title').eq('sku', 'A1');
    expect(renamed.data).toEqual([{ code: 'A1', title: 'Apple' }]);
    const agg = await db.from('products').select('category, count(), stock.sum()').order('category', { nullsFirst: true });
    expect(agg.error).toBeNull();
    expect(agg.data).toEqual([
      { category: null, count: 1, sum: 7 },
      { category: 'fruit', count: 2, sum: 50 },
      { category: 'veg', count: 1, sum: 100 },
    ]);
  });

  it('counts (exact) with ranges and head requests', async () => {
    const r = await db.from('products').select('sku', { count: 'exact' }).eq('category', 'fruit').range(0, 0);
    expect(r.error).toBeNull();
    expect(r.count).toBe(2);
    expect(skus(r.data)).toEqual(['A1']);
    const head = await db.from('products').select('*', { count: 'exact', head: true });
    expect(head.error).toBeNull();
    expect(head.count).toBe(4);
    expect(head.data).toBeNull();
    const limited = await db.from('products').select('sku').order('sku').limit(2);
    expect(skus(limited.data)).toEqual(['A1', 'B1']);
  });

  it('single() and maybeSingle()', async () => {
    const one = await db.from('products').select('sku, price').eq('sku', 'D1').single();
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ sku: 'D1', price: 4.5 });
    const many = await db.from('products').select('sku').eq('category', 'fruit').single();
    expect(many.data).toBeNull();
    expect(many.error).not.toBeNull();
    expect(many.status).toBe(406);
    const none = await db.from('products').select('sku').eq('sku', 'nope').maybeSingle();
    expect(none.error).toBeNull();
    expect(none.data).toBeNull();
  });

  it('insert with representation, update, delete', async () => {
    const ins = await db.from('products').insert({ sku: 'E1', title: 'Egg', price: 0.2, stock: 12 }).select();
    expect(ins.error).toBeNull();
    expect(ins.status).toBe(201);
    expect(ins.data![0]).toMatchObject({ sku: 'E1', title: 'Egg', id: expect.any(Number), created_at: expect.any(String) });
    const upd = await db.from('products').update({ stock: 11 }).eq('sku', 'E1').select('sku, stock');
    expect(upd.error).toBeNull();
    expect(upd.data).toEqual([{ sku: 'E1', stock: 11 }]);
    const quiet = await db.from('products').update({ stock: 10 }).eq('sku', 'E1');
    expect(quiet.error).toBeNull();
    expect(quiet.status).toBe(204);
    const del = await db.from('products').delete().eq('sku', 'E1').select('sku');
    expect(del.error).toBeNull();
    expect(skus(del.data)).toEqual(['E1']);
    expect((await db.from('products').select('sku').eq('sku', 'E1')).data).toEqual([]);
  });

  it('upserts on a unique column, and ignores duplicates on request', async () => {
    const up = await db.from('products').upsert([{ sku: 'A1', title: 'Apple (red)', price: 1.5 }, { sku: 'F1', title: 'Fig', price: 3 }], { onConflict: 'sku' }).select('sku, title, price, stock');
    expect(up.error).toBeNull();
    expect(up.data).toEqual([
      { sku: 'A1', title: 'Apple (red)', price: 1.5, stock: 50 },
      { sku: 'F1', title: 'Fig', price: 3, stock: null },
    ]);
    const ign = await db.from('products').upsert([{ sku: 'A1', title: 'ignored' }, { sku: 'G1', title: 'Grape' }], { onConflict: 'sku', ignoreDuplicates: true }).select('sku, title');
    expect(ign.error).toBeNull();
    expect(ign.data).toEqual([{ sku: 'G1', title: 'Grape' }]);
    expect((await db.from('products').select('title').eq('sku', 'A1').single()).data).toEqual({ title: 'Apple (red)' });
  });

  it('reports errors with the Hearth envelope', async () => {
    const bad = await db.from('products').select('nope');
    expect(bad.status).toBe(400);
    expect(bad.error).toMatchObject({ message: expect.stringContaining('nope') });
    const dup = await db.from('products').insert({ sku: 'B1', title: 'again' });
    expect(dup.status).toBe(409);
    const missing = await db.from('ghosts').select('*');
    expect(missing.status).toBe(404);
  });
});
