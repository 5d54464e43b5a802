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
    const up = await db
      .from('products')
      .upsert(
        [
          { sku: 'A1', title: 'Apple (red)', price: 1.5 },
          { sku: 'F1', title: 'Fig', price: 3 },
        ],
        { onConflict: 'sku' },
      )
      .select('sku, title, price, stock');
    expect(up.error).toBeNull();
    expect(up.data).toEqual([
      { sku: 'A1', title: 'Apple (red)', price: 1.5, stock: 50 },
      { sku: 'F1', title: 'Fig', price: 3, stock: null },
    ]);
    const ign = await db
      .from('products')
      .upsert(
        [
          { sku: 'A1', title: 'ignored' },
          { sku: 'G1', title: 'Grape' },
        ],
        { onConflict: 'sku', ignoreDuplicates: true },
      )
      .select('sku, title');
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

// PostgREST's own query tests (QuerySpec, AndOrParamsSpec, RangeSpec of PostgREST/postgrest), replayed on one table
// through both surfaces: where Hearth's own surface differs, the difference is asserted too.
describe('PostgREST query semantics on /rest', () => {
  const ENTITIES = [
    { name: 'Ann', score: 10 }, // 1
    { name: 'Liz', score: null }, // 2
    { name: 'bob', score: 30 }, // 3
    { name: 'Anz', score: 40 }, // 4
    { name: 'Double"Quote"McGraw"', score: 50 }, // 5
    { name: '"q"', score: 60 }, // 6
    { name: 'q', score: 70 }, // 7
    { name: 'a,b', score: null }, // 8
    { name: '', score: 90 }, // 9
  ];
  const N = ENTITIES.length;
  beforeAll(async () => {
    const res = await s.api('/v1/shop/tables', {
      method: 'POST',
      json: {
        type: 'table',
        name: 'entities',
        columns: [
          { name: 'name', type: 'text', not_null: true },
          { name: 'score', type: 'integer' },
        ],
      },
    });
    expect(res.status).toBe(201);
    const { error } = await db.from('entities').insert(ENTITIES);
    expect(error).toBeNull();
  });

  /** Percent-encodes each value of a query written plainly (`a=b&c=d`), so the server sees exactly what is written. */
  const enc = (query: string) =>
    query
      .split('&')
      .map((p) => {
        const i = p.indexOf('=');
        return `${encodeURIComponent(p.slice(0, i))}=${encodeURIComponent(p.slice(i + 1))}`;
      })
      .join('&');
  const rest = async (query: string, headers: Record<string, string> = {}) => {
    const r = await s.api(`/v1/shop/rest/entities?${enc(query)}`, { headers });
    const text = await r.text();
    return { status: r.status, range: r.headers.get('content-range'), body: text ? JSON.parse(text) : null };
  };
  const restIds = async (query: string) => {
    const r = await rest(query.includes('order=') ? query : `${query}&order=id`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body as Array<{ id: number }>).map((x) => x.id);
  };
  const hearth = async (query: string) => {
    const r = await s.api(`/v1/shop/tables/entities/rows?${enc(query)}`);
    return { status: r.status, body: await r.json() };
  };
  const hearthIds = async (query: string) => {
    const r = await hearth(query.includes('order=') ? query : `${query}&order=id`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body.data as Array<{ id: number }>).map((x) => x.id);
  };
  const all = Array.from({ length: N }, (_, i) => i + 1);

  describe('(any) and (all) modifiers with {a,b} lists', () => {
    it.each([
      ['id=eq(any).{3,4,5}', [3, 4, 5]],
      ['id=gt(all).{4,3}', [5, 6, 7, 8, 9]],
      ['id=gte(all).{4,3}', [4, 5, 6, 7, 8, 9]],
      ['id=lt(all).{4,3}', [1, 2]],
      ['id=lte(all).{4,3}', [1, 2, 3]],
      ['id=lt(any).{4,3}', [1, 2, 3]],
      ['name=like(any).{A*,*z}', [1, 2, 4]],
      ['name=like(all).{A*,*z}', [4]],
      ['name=like(any).{%nn,L%}', [1, 2]],
      ['name=ilike(all).{a*,*N}', [1]],
      ['name=ilike(any).{B*,*Z}', [2, 3, 4]],
      ['name=match(any).{^b,z$}', [2, 3, 4]],
      ['name=imatch(any).{^B,^L}', [2, 3]],
      ['name=match(all).{^A,n$}', [1]],
      ['id=not.eq(any).{1,2,3}', [4, 5, 6, 7, 8, 9]],
      ['id=not.lt(all).{3,5}', [3, 4, 5, 6, 7, 8, 9]],
      ['name=eq(any).{"a,b",Ann}', [1, 8]],
      ['name=eq(any).{ "\\"q\\"" , q }', [6, 7]],
      ['name=eq(any).{nULl,Liz}', [2]],
      ['id=eq(any).{}', []],
      ['id=gt(all).{}', all],
      ['score=gt(all).{}', all],
      ['id=eq(any).{1,NULL}', [1]],
      ['id=not.eq(any).{1,NULL}', []],
      ['id=lt(all).{5,NULL}', []],
      ['or=(id.eq(any).{1,2},name.like(all).{A*,*z})', [1, 2, 4]],
      ['and=(id.gt(all).{1,2},id.lt(any).{5,4})', [3, 4]],
      ['or=(id.not.eq(any).{1,2,3,4,5,6,7},name.eq(any).{"a,b"})', [8, 9]],
      ['name=eq(any).{""}', [9]],
    ])('%s', async (query, expected) => {
      expect(await restIds(query)).toEqual(expected);
    });

    it('postgrest-js likeAnyOf / likeAllOf / ilikeAllOf', async () => {
      const any = await db.from('entities').select('id').likeAnyOf('name', ['A*', '*z']).order('id');
      expect(any.error).toBeNull();
      expect(any.data).toEqual([{ id: 1 }, { id: 2 }, { id: 4 }]);
      const allOf = await db.from('entities').select('id').likeAllOf('name', ['A*', '*z']);
      expect(allOf.data).toEqual([{ id: 4 }]);
      const iall = await db.from('entities').select('id').ilikeAllOf('name', ['a*', '*N']);
      expect(iall.data).toEqual([{ id: 1 }]);
    });

    it('work on the /tables surface too', async () => {
      expect(await hearthIds('id=eq(any).{3,4,5}')).toEqual([3, 4, 5]);
      expect(await hearthIds('or=(id.gt(all).{6,5},name.eq(any).{Ann,"a,b"})')).toEqual([1, 7, 8, 9]);
    });

    it.each([
      ['id=eq(any).3', 'malformed array literal'], // PostgreSQL: malformed array literal: "3"
      ['id=eq(any).{1,x}', 'not a number'],
      ['id=eq(any).{1,{2}}', 'array'],
      ['id=eq(any).{1,2', 'malformed array literal'],
      ['id=eq(any).{1,2}x', 'malformed array literal'],
      ['id=eq(any).{1,,2}', 'malformed array literal'],
      ['name=eq(any).{a"b"}', 'malformed array literal'],
      ['id=neq(any).{1}', 'operator'], // PostgREST: neq takes no modifier (not.eq(all) is the same test)
      ['id=in(any).(1)', 'operator'],
      ['id=is(any).{null}', 'operator'],
      ['id=eq(some).{1}', 'operator'],
      ['id=eq(any){1}', 'operator'],
    ])('rejects %s with 400 invalid_filter', async (query, words) => {
      for (const r of [await rest(query), await hearth(query)]) {
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.error).toBe('invalid_filter');
        expect(r.body.message).toContain(words);
      }
    });
  });

  describe('whitespace in logic trees', () => {
    it('is skipped around parentheses, commas and column names (AndOrParamsSpec "allows whitespace")', async () => {
      expect(await restIds('and=( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )&select=id')).toEqual([3]);
      expect(await restIds('or=( id.eq.1, id.eq.2, and(id.in.(1,3), id.in.(2,3)), id.eq.4 )')).toEqual([1, 2, 3, 4]);
      expect(await restIds('and=( id.eq.1, not.or(id.eq.2, id.eq.3), id.in.(1,4), or(id.eq.1, id.eq.4) )')).toEqual([1]);
      expect(await restIds('or=(\tid.eq.1 ,\tnot.and ( id.gt.1 , id.lt.8 ) )')).toEqual([1, 8, 9]);
      expect(await restIds('or= (id.eq.1)')).toEqual([1]);
    });

    it('is part of a value on /rest (PostgREST keeps it) and trimmed on /tables', async () => {
      // Integer columns read " 3 " as 3, as PostgreSQL does; text columns compare the value as written.
      expect(await restIds('or=(name.eq. bob,name.eq.Ann )')).toEqual([]);
      expect(await hearthIds('or=(name.eq. bob,name.eq.Ann )')).toEqual([1, 3]);
      expect(await restIds('name=in.(Ann, bob)')).toEqual([1]);
      expect(await hearthIds('name=in.(Ann, bob)')).toEqual([1, 3]);
      expect(await restIds('name=in.( Ann,bob )')).toEqual([1]);
      // A quoted value must end right at its , or ): otherwise the quotes and spaces are part of the value.
      expect(await restIds('or=(name.eq."bob" ,name.eq. "Ann")')).toEqual([]);
      expect(await hearthIds('or=(name.eq."bob" ,name.eq. "Ann")')).toEqual([1, 3]);
      expect(await restIds('or=(id.eq. 1 ,id.in.( 2 , 3 ))')).toEqual([1, 2, 3]);
    });

    it('is not allowed inside an operator or between a quoted value and its comma', async () => {
      for (const query of ['or=(id. eq.1)', 'or=(id.eq .1)', 'or=(id.not. eq.1)', 'or=(id.eq(any) .{1})']) {
        const r = await rest(query);
        expect(r.status, query).toBe(400);
        expect(r.body.error).toBe('invalid_filter');
      }
    });
  });

  describe('quotes in in.(…)', () => {
    it('a " opens a quoted value only at the start of a value (QuerySpec "IN values without quotes")', async () => {
      expect(await restIds('name=in.(Double"Quote"McGraw")')).toEqual([5]);
      expect(await restIds('name=in.("Double\\"Quote\\"McGraw\\"")')).toEqual([5]);
      expect(await restIds('name=in.(Double"Quote"McGraw",a"b)')).toEqual([5]);
      expect(await restIds('name=in.("a,b",\\"q\\")')).toEqual([8]);
      expect(await restIds('name=in.("q")')).toEqual([7]);
      expect(await restIds('name=in.("q"x,Ann)')).toEqual([1]);
      expect(await restIds('name=in.("\\"q\\"")')).toEqual([6]);
      expect(await restIds('name=in.("D\\o\\u\\ble\\"Quote\\"McGraw\\"")')).toEqual([5]);
      expect(await hearthIds('name=in.(Double"Quote"McGraw")')).toEqual([5]);
    });

    it('postgrest-js in() sends values with quotes unescaped', async () => {
      const r = await db.from('entities').select('id').in('name', ['Double"Quote"McGraw"', 'a,b']).order('id');
      expect(r.error).toBeNull();
      expect(r.data).toEqual([{ id: 5 }, { id: 8 }]);
    });

    it("an empty list, or a list of one empty value, matches nothing (PostgREST: = ANY('{}'))", async () => {
      expect(await restIds('name=in.()')).toEqual([]);
      expect(await restIds('name=in.(    )')).toEqual([]);
      expect(await restIds('name=in.("")')).toEqual([]);
      expect(await hearthIds('name=in.("")')).toEqual([9]);
      expect(await restIds('name=in.("",Ann)')).toEqual([1, 9]);
      expect(await restIds('id=not.in.()')).toEqual(all);
      const r = await rest('id=in.( ,3,4)');
      expect(r.status).toBe(400);
    });
  });

  describe('ranges: limit, offset and Content-Range', () => {
    const exact = { prefer: 'count=exact' };
    it("an offset past the end with Prefer: count=exact is 416 with Content-Range */N and PostgREST's error body", async () => {
      const r = await rest('offset=100', exact);
      expect(r.status).toBe(416);
      expect(r.range).toBe(`*/${N}`);
      expect(r.body).toEqual({
        error: 'range_not_satisfiable',
        message: 'Requested range not satisfiable',
        code: 'PGRST103',
        details: `An offset of 100 was requested, but there are only ${N} rows.`,
        hint: null,
      });
      const none = await rest('id=eq.0&offset=1', exact);
      expect(none.status).toBe(416);
      expect(none.range).toBe('*/0');
      expect(none.body.details).toBe('An offset of 1 was requested, but there are only 0 rows.');
      const js = await db.from('entities').select('id', { count: 'exact' }).range(100, 109);
      expect(js.status).toBe(416);
      expect(js.error).toMatchObject({ code: 'PGRST103', message: 'Requested range not satisfiable' });
    });

    it('an offset at the end is an empty 206 (PostgREST issue #2824), any offset without a count an empty 200', async () => {
      const end = await rest(`offset=${N}`, exact);
      expect([end.status, end.range, end.body]).toEqual([206, `*/${N}`, []]);
      const empty = await rest('id=eq.0&offset=0', exact);
      expect([empty.status, empty.range, empty.body]).toEqual([200, '*/0', []]);
      const blind = await rest('offset=100');
      expect([blind.status, blind.range, blind.body]).toEqual([200, '*/*', []]);
    });

    it('a partial page with a count is 206 Partial Content', async () => {
      const r = await rest('select=id&order=id&limit=2&offset=1', exact);
      expect([r.status, r.range, r.body]).toEqual([206, `1-2/${N}`, [{ id: 2 }, { id: 3 }]]);
      const whole = await rest('select=id&order=id', exact);
      expect([whole.status, whole.range]).toEqual([200, `0-${N - 1}/${N}`]);
    });

    it('a negative offset is ignored (RangeSpec "succeeds if offset is negative as a no-op")', async () => {
      const r = await rest('select=id&offset=-4&order=id');
      expect([r.status, r.range]).toEqual([200, `0-${N - 1}/*`]);
      expect(r.body).toHaveLength(N);
      // With a limit PostgREST keeps its window: rows offset … offset+limit-1, clipped at 0.
      const w = await rest('select=id&limit=4&offset=-2&order=id');
      expect([w.status, w.range, w.body]).toEqual([200, '0-1/*', [{ id: 1 }, { id: 2 }]]);
    });

    it('a negative limit is 416 (RangeSpec "fails if limit is negative"); limit=0 is an empty page', async () => {
      const r = await rest('select=id&limit=-1');
      expect(r.status).toBe(416);
      expect(r.body).toEqual({
        error: 'range_not_satisfiable',
        message: 'Requested range not satisfiable',
        code: 'PGRST103',
        details: 'Limit should be greater than or equal to zero.',
        hint: null,
      });
      expect(r.range).toBeNull();
      const zero = await rest('select=id&limit=0');
      expect([zero.status, zero.range, zero.body]).toEqual([200, '*/*', []]);
      // A window ending on row -1 is an empty page; one ending before its first row is refused like a negative limit.
      const before = await rest('select=id&limit=2&offset=-2');
      expect([before.status, before.range, before.body]).toEqual([200, '*/*', []]);
      const past = await rest('select=id&limit=0&offset=5');
      expect([past.status, past.body.details]).toEqual([416, 'Limit should be greater than or equal to zero.']);
      expect((await rest('limit=x')).status).toBe(400);
      // The /tables surface keeps its own rules.
      expect((await hearth('limit=-1')).status).toBe(400);
      expect((await hearth('offset=-1')).status).toBe(400);
    });
  });

  describe('text after a logic tree', () => {
    it('a stray closing parenthesis is tolerated (AndOrParamsSpec "can handle eq and neq")', async () => {
      expect(await restIds('and=(id.eq.1,id.neq.2))&select=id')).toEqual([1]);
      expect(await restIds('or=(id.eq.1,id.eq.2)))')).toEqual([1, 2]);
      expect(await restIds('id=in.(1,2))')).toEqual([1, 2]);
      // PostgREST stops reading after the tree, the list or the is-value: whatever follows is ignored.
      expect(await restIds('or=(id.eq.1) OR 1=1 --')).toEqual([1]);
      expect(await restIds('score=is.null)')).toEqual([2, 8]);
    });

    it('is an error on the /tables surface', async () => {
      const r = await hearth('and=(id.eq.1,id.neq.2))');
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_filter');
    });
  });

  describe('PostgreSQL conventions for nulls order and plain values', () => {
    it('nulls sort last ascending and first descending on /rest, as in PostgreSQL', async () => {
      expect(await restIds('select=id&order=score')).toEqual([1, 3, 4, 5, 6, 7, 9, 2, 8]);
      expect(await restIds('select=id&order=score.desc')).toEqual([2, 8, 9, 7, 6, 5, 4, 3, 1]);
      expect(await restIds('select=id&order=score.asc.nullsfirst')).toEqual([2, 8, 1, 3, 4, 5, 6, 7, 9]);
      const js = await db.from('entities').select('id').order('score', { ascending: false }).limit(3);
      expect(js.data).toEqual([{ id: 2 }, { id: 8 }, { id: 9 }]);
      // Hearth's own surface keeps SQLite's rule.
      expect(await hearthIds('select=id&order=score')).toEqual([2, 8, 1, 3, 4, 5, 6, 7, 9]);
      expect(await hearthIds('select=id&order=score.desc')).toEqual([9, 7, 6, 5, 4, 3, 1, 2, 8]);
    });

    it('a plain filter value keeps its quotes on /rest; lists and logic trees unquote', async () => {
      expect(await restIds('name=eq."q"')).toEqual([6]);
      expect(await restIds('name=neq."q"&name=like.*q*')).toEqual([7]);
      const js = await db.from('entities').select('id').eq('name', '"q"');
      expect(js.data).toEqual([{ id: 6 }]);
      expect(await restIds('or=(name.eq."q")')).toEqual([7]);
      expect(await restIds('name=in.("q")')).toEqual([7]);
      expect(await restIds('name=eq.a,b')).toEqual([8]);
      // Hearth's own surface strips the quotes of a plain value.
      expect(await hearthIds('name=eq."q"')).toEqual([7]);
    });

    it('PATCH and DELETE on /rest read their filters the same way', async () => {
      const rep = { prefer: 'return=representation' };
      const upd = await s.api(`/v1/shop/rest/entities?${enc('name=eq."q"&select=id,score')}`, { method: 'PATCH', json: { score: 61 }, headers: rep });
      expect(await upd.json()).toEqual([{ id: 6, score: 61 }]);
      expect((await db.from('entities').update({ score: 60 }).eq('id', 6)).status).toBe(204);
      expect((await db.from('entities').insert({ name: '"tmp"' })).status).toBe(201);
      const del = await s.api(`/v1/shop/rest/entities?${enc('name=eq."tmp"&and=(id.gt(all).{8,9}))&select=name')}`, { method: 'DELETE', headers: rep });
      expect(await del.json()).toEqual([{ name: '"tmp"' }]);
      expect(await restIds('select=id')).toEqual(all);
    });
  });
});
