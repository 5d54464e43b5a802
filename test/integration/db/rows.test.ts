import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../server/db/events/bus.ts';
import { multipart, startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let n = 0;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const post = (p: string, json: unknown, headers?: Record<string, string>) => s.api(p, { method: 'POST', json, headers });
const get = async (p: string) => {
  const res = await s.api(p);
  return { status: res.status, body: await res.json() };
};

const PEOPLE = [
  { name: 'Ann', age: 31, city: 'Oslo', score: 9.5, active: true, tags: ['a', 'b'], born: '1994-02-01' },
  { name: 'bob', age: 17, city: 'Bergen', score: 4.25, active: false, tags: null, born: '2008-07-30' },
  { name: 'Cyd', age: null, city: 'Oslo', score: null, active: null, tags: { x: 1 }, born: null },
  { name: 'Dee', age: 45, city: null, score: 7, active: true, tags: [], born: '1980-12-24' },
  { name: 'Eve', age: 31, city: 'Tromsø', score: 8, active: false, tags: ['c'], born: '1994-05-05' },
  { name: 'fay, "the" 2nd', age: 60, city: 'Oslo', score: 1, active: true, tags: null, born: '1965-01-01' },
];

async function seed() {
  const ns = `rows${++n}`;
  expect((await post('/v1/namespaces', { name: ns })).status).toBe(201);
  const res = await post(`/v1/${ns}/tables`, {
    type: 'table',
    name: 'people',
    columns: [
      { name: 'name', type: 'text', not_null: true, max_length: 40 },
      { name: 'age', type: 'integer', min: 0, max: 150 },
      { name: 'city', type: 'text' },
      { name: 'score', type: 'real' },
      { name: 'active', type: 'boolean' },
      { name: 'tags', type: 'json' },
      { name: 'born', type: 'date' },
      { name: 'email', type: 'text', unique: true },
    ],
  });
  expect(res.status).toBe(201);
  expect((await post(`/v1/${ns}/tables/people/rows`, { rows: PEOPLE })).status).toBe(201);
  return ns;
}

const names = (body: { data: Array<{ name: string }> }) => body.data.map((r) => r.name);

describe('listing with the PostgREST grammar', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await seed();
  });
  const q = async (query: string) => {
    const r = await get(`/v1/${ns}/tables/people/rows?${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return names(r.body);
  };

  it('returns typed rows with meta, ordered by id', async () => {
    const r = await get(`/v1/${ns}/tables/people/rows`);
    expect(r.body.meta).toEqual({ limit: 100, offset: 0 });
    expect(r.body.data[0]).toMatchObject({ id: 1, name: 'Ann', age: 31, score: 9.5, active: true, tags: ['a', 'b'], born: '1994-02-01', email: null });
    expect(r.body.data[2]).toMatchObject({ active: null, tags: { x: 1 } });
    expect(r.body.data[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(names(r.body)).toEqual(PEOPLE.map((p) => p.name));
  });

  it.each([
    ['age=eq.31', ['Ann', 'Eve']],
    ['age=neq.31', ['bob', 'Dee', 'fay, "the" 2nd']],
    ['age=gt.31', ['Dee', 'fay, "the" 2nd']],
    ['age=gte.45', ['Dee', 'fay, "the" 2nd']],
    ['age=lt.31', ['bob']],
    ['age=lte.31', ['Ann', 'bob', 'Eve']],
    ['score=gt.7.5', ['Ann', 'Eve']],
    ['name=like.*e*', ['Dee', 'Eve', 'fay, "the" 2nd']],
    ['name=like.A%', ['Ann']],
    ['name=like.a*', []],
    ['name=ilike.a*', ['Ann']],
    ['name=ilike.B_B', ['bob']],
    ['name=match.^[A-D]', ['Ann', 'Cyd', 'Dee']],
    ['name=imatch.^[a-b]', ['Ann', 'bob']],
    ['city=in.(Oslo,Tromsø)', ['Ann', 'Cyd', 'Eve', 'fay, "the" 2nd']],
    ['name=in.("fay, \\"the\\" 2nd",Ann)', ['Ann', 'fay, "the" 2nd']],
    ['name=in.()', []],
    ['age=is.null', ['Cyd']],
    ['age=is.not_null', ['Ann', 'bob', 'Dee', 'Eve', 'fay, "the" 2nd']],
    ['active=is.true', ['Ann', 'Dee', 'fay, "the" 2nd']],
    ['active=is.false', ['bob', 'Eve']],
    ['active=eq.true', ['Ann', 'Dee', 'fay, "the" 2nd']],
    ['city=isdistinct.Oslo', ['bob', 'Dee', 'Eve']],
    ['city=neq.Oslo', ['bob', 'Eve']],
    ['age=not.eq.31', ['bob', 'Dee', 'fay, "the" 2nd']],
    ['age=not.is.null&city=not.in.(Oslo)', ['bob', 'Eve']],
    ['born=gte.1990-01-01', ['Ann', 'bob', 'Eve']],
    ['age=gte.18&city=eq.Oslo', ['Ann', 'fay, "the" 2nd']],
    ['age=gt.10&age=lt.40', ['Ann', 'bob', 'Eve']],
    ['or=(age.lt.18,city.is.null)', ['bob', 'Dee']],
    ['or=(name.eq.Ann,and(age.gte.40,city.eq.Oslo))', ['Ann', 'fay, "the" 2nd']],
    ['not.or=(city.eq.Oslo,city.is.null)', ['bob', 'Eve']],
    ['and=(age.gte.30,or(city.eq.Bergen,city.eq.Tromsø))', ['Eve']],
    ['or=(name.eq."fay, \\"the\\" 2nd",age.not.gte.18)', ['bob', 'fay, "the" 2nd']],
    ['or=(age.in.(17,45),not.and(active.is.true,age.gt.0))&city=not.is.null', ['bob', 'Cyd', 'Eve']],
  ])('%s', async (query, expected) => {
    expect(await q(query)).toEqual(expected);
  });

  it('orders over several columns with nulls placement and breaks ties by id', async () => {
    expect(await q('order=age.desc')).toEqual(['fay, "the" 2nd', 'Dee', 'Ann', 'Eve', 'bob', 'Cyd']);
    expect(await q('order=age.desc.nullsfirst')).toEqual(['Cyd', 'fay, "the" 2nd', 'Dee', 'Ann', 'Eve', 'bob']);
    expect(await q('order=age.asc.nullslast,name.desc')).toEqual(['bob', 'Eve', 'Ann', 'Dee', 'fay, "the" 2nd', 'Cyd']);
    expect(await q('order=city,score.desc')).toEqual(['Dee', 'bob', 'Ann', 'fay, "the" 2nd', 'Cyd', 'Eve']);
  });

  it('selects columns with renames', async () => {
    const r = await get(`/v1/${ns}/tables/people/rows?select=name,years:age,active&age=eq.31`);
    expect(r.body.data).toEqual([
      { name: 'Ann', years: 31, active: true },
      { name: 'Eve', years: 31, active: false },
    ]);
  });

  it('aggregates, grouped by the plain columns selected, without meta', async () => {
    const r = await get(`/v1/${ns}/tables/people/rows?select=city,count(),total:age.sum(),avg(score),min(age),max(age)&order=city.nullsfirst`);
    expect(r.body).toEqual({
      data: [
        { city: null, count: 1, total: 45, avg: 7, min: 45, max: 45 },
        { city: 'Bergen', count: 1, total: 17, avg: 4.25, min: 17, max: 17 },
        { city: 'Oslo', count: 3, total: 91, avg: 5.25, min: 31, max: 60 },
        { city: 'Tromsø', count: 1, total: 31, avg: 8, min: 31, max: 31 },
      ],
    });
    const all = await get(`/v1/${ns}/tables/people/rows?select=count()&age=gte.18`);
    expect(all.body).toEqual({ data: [{ count: 4 }] });
    const ordered = await get(`/v1/${ns}/tables/people/rows?select=city,n:count()&order=n.desc,city&limit=1`);
    expect(ordered.body).toEqual({ data: [{ city: 'Oslo', n: 3 }] });
  });

  it('pages with limit and offset, and counts with count=exact or Prefer: count=exact', async () => {
    const r = await get(`/v1/${ns}/tables/people/rows?limit=2&offset=1&count=exact&city=eq.Oslo`);
    expect(names(r.body)).toEqual(['Cyd', 'fay, "the" 2nd']);
    expect(r.body.meta).toEqual({ limit: 2, offset: 1, total_count: 6, filter_count: 3 });
    const p = await s.api(`/v1/${ns}/tables/people/rows?limit=1`, { headers: { prefer: 'count=exact' } });
    expect((await p.json()).meta).toEqual({ limit: 1, offset: 0, total_count: 6, filter_count: 6 });
    expect((await get(`/v1/${ns}/tables/people/rows?limit=0`)).body.data).toEqual([]);
    expect((await get(`/v1/${ns}/tables/people/rows?limit=10000`)).status).toBe(200);
  });

  it('applies the default limit of 100 and the maximum of 10000', async () => {
    const big = await seed();
    await post(`/v1/${big}/tables/people/rows`, { rows: Array.from({ length: 250 }, (_, i) => ({ name: `p${i}` })) });
    const r = await get(`/v1/${big}/tables/people/rows`);
    expect(r.body.data).toHaveLength(100);
    const over = await get(`/v1/${big}/tables/people/rows?limit=10001`);
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('invalid_request');
  });

  it.each([
    ['nope=eq.1', 'unknown_column'],
    ['age=eq.abc', 'invalid_filter'],
    ['age=between.1', 'invalid_filter'],
    ['age=eq', 'invalid_filter'],
    ['age=in.1,2', 'invalid_filter'],
    ['age=is.maybe', 'invalid_filter'],
    ['or=age.eq.1', 'invalid_filter'],
    ['or=(age.eq.1', 'invalid_filter'],
    ['or=(nope.eq.1)', 'unknown_column'],
    ['order=age.sideways', 'invalid_filter'],
    ['order=nope', 'unknown_column'],
    ['select=nope', 'unknown_column'],
    ['select=name,name', 'invalid_filter'],
    ['select=*,count()', 'invalid_filter'],
    ['select=name.sum()', 'invalid_filter'],
    ['select=friends(*)', 'invalid_filter'],
    ['select=age::text', 'invalid_filter'],
    ['limit=-1', 'invalid_request'],
    ['offset=x', 'invalid_request'],
    ['count=planned', 'invalid_request'],
    ['search=x', 'invalid_request'],
    ['name=match.(', 'invalid_filter'],
  ])('rejects %s with 400 %s', async (query, code) => {
    const r = await get(`/v1/${ns}/tables/people/rows?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(code);
  });

  it('404s a missing table or namespace', async () => {
    expect((await get(`/v1/${ns}/tables/ghosts/rows`)).body.error).toBe('table_not_found');
    expect((await get(`/v1/${ns}/tables/_hearth_objects/rows`)).body.error).toBe('table_not_found');
    expect((await get(`/v1/${ns}/tables/sqlite_schema/rows`)).body.error).toBe('table_not_found');
    expect((await get('/v1/nope/tables/people/rows')).body.error).toBe('namespace_not_found');
  });
});

describe('injection attempts are 400 and execute nothing', () => {
  it.each([
    'name"; DROP TABLE people; --=eq.1',
    'name=eq.1&order=name; DROP TABLE people',
    'order=name) ; DROP TABLE people; --',
    'select=name,(SELECT sql FROM sqlite_schema)',
    'select=name FROM people; DROP TABLE people; --',
    'select=x:sqlite_version()',
    'or=(name.eq.1) OR 1=1 --)',
    'age=eq.1 OR 1=1',
    'order=age.desc; DELETE FROM people',
    'and=(age.gt.1,name.eq.x)) OR ((1=1',
  ])('%s', async (query) => {
    const ns = await seed();
    const r = await s.api(`/v1/${ns}/tables/people/rows?${query.replace(/ /g, '%20').replace(/;/g, '%3B')}`);
    expect(r.status).toBe(400);
    const check = await get(`/v1/${ns}/tables/people/rows?count=exact`);
    expect(check.body.meta.total_count).toBe(PEOPLE.length);
  });

  it('filter values are data, never SQL', async () => {
    const ns = await seed();
    expect(names((await get(`/v1/${ns}/tables/people/rows?name=eq.${encodeURIComponent("x' OR '1'='1")}`)).body)).toEqual([]);
    expect(names((await get(`/v1/${ns}/tables/people/rows?name=like.${encodeURIComponent("%' OR 1=1 --")}`)).body)).toEqual([]);
    await post(`/v1/${ns}/tables/people/rows`, { name: "Robert'); DROP TABLE people;--" });
    const r = await get(`/v1/${ns}/tables/people/rows?name=eq.${encodeURIComponent("Robert'); DROP TABLE people;--")}`);
    expect(names(r.body)).toEqual(["Robert'); DROP TABLE people;--"]);
    expect((await get(`/v1/${ns}/tables/people`)).status).toBe(200);
  });
});

describe('writes', () => {
  it('inserts one row (201 {count}) and several with Prefer: return=representation', async () => {
    const ns = await seed();
    const one = await post(`/v1/${ns}/tables/people/rows`, { name: 'Gus', age: 5, _meta: { actor: 'alice' } });
    expect(one.status).toBe(201);
    expect(await one.json()).toEqual({ count: 1 });
    const many = await post(
      `/v1/${ns}/tables/people/rows`,
      { rows: [{ name: 'H1' }, { name: 'H2', tags: { deep: [1, { x: null }] } }] },
      { prefer: 'return=representation' },
    );
    expect(many.status).toBe(201);
    const body = await many.json();
    expect(body.data.map((r: { id: number; name: string }) => [r.id, r.name])).toEqual([
      [8, 'H1'],
      [9, 'H2'],
    ]);
    expect(body.data[1].tags).toEqual({ deep: [1, { x: null }] });
    const minimal = await post(`/v1/${ns}/tables/people/rows`, { name: 'I' }, { prefer: 'return=minimal' });
    expect(minimal.status).toBe(201);
    expect(await minimal.text()).toBe('');
  });

  it('rejects a top-level array, unknown columns, service columns and bad values, naming the column', async () => {
    const ns = await seed();
    const cases: Array<[unknown, number, string, string]> = [
      [[{ name: 'x' }], 400, 'invalid_request', 'top-level array'],
      [{ name: 'x', nope: 1 }, 400, 'unknown_column', 'nope'],
      [{ name: 'x', created_at: '2020-01-01T00:00:00Z' }, 400, 'reserved_name', 'created_at'],
      [{ age: 3 }, 400, 'not_null_violation', 'people.name'],
      [{ name: null }, 400, 'not_null_violation', 'people.name'],
      [{ name: 'x'.repeat(41) }, 400, 'max_length_violation', 'people.name'],
      [{ name: 'x', age: -1 }, 400, 'min_violation', 'people.age'],
      [{ name: 'x', age: 151 }, 400, 'max_violation', 'people.age'],
      [{ name: 'x', age: 1.5 }, 400, 'invalid_value', 'people.age'],
      [{ name: 'x', age: '3' }, 400, 'invalid_value', 'people.age'],
      [{ name: 'x', active: 'yes' }, 400, 'invalid_value', 'people.active'],
      [{ name: 'x', born: '2020-13-45' }, 400, 'invalid_value', 'people.born'],
      [{ name: 5 }, 400, 'invalid_value', 'people.name'],
      [{ rows: [{ name: 'ok' }, { name: 'x', age: -5 }] }, 400, 'min_violation', 'people.age'],
      [{ name: 'dup', email: 'a@x' }, 201, '', ''],
      [{ name: 'dup2', email: 'a@x' }, 409, 'unique_violation', 'people.email'],
      [{ rows: 'nope' }, 400, 'unknown_column', 'rows'],
      [{ name: 'x', _meta: 'alice' }, 400, 'invalid_request', '_meta'],
      [{ name: 'x', _meta: { actor: 5 } }, 400, 'invalid_request', '_meta.actor'],
      [{ rows: [{ name: 'x' }], _meta: 'alice' }, 400, 'invalid_request', '_meta'],
      [{ rows: [{ name: 'x' }], _meta: { actor: 5 } }, 400, 'invalid_request', '_meta.actor'],
      [{ rows: [{ name: 'x' }], extra: 1 }, 400, 'invalid_request', '"extra"'],
      [{ rows: [{ name: 'x' }, 5] }, 400, 'invalid_request', 'JSON object'],
    ];
    for (const [body, status, code, mention] of cases) {
      const res = await post(`/v1/${ns}/tables/people/rows`, body);
      const out = status === 201 ? {} : await res.json();
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      if (code) {
        expect(out.error).toBe(code);
        expect(out.message).toContain(mention);
      }
    }
    // nothing from the failed multi-row insert was written
    const count = (await get(`/v1/${ns}/tables/people/rows?count=exact&name=eq.ok`)).body.meta.filter_count;
    expect(count).toBe(0);
  });

  it('refuses more than 100,000 rows in one insert, writing none', async () => {
    const ns = await seed();
    const res = await post(`/v1/${ns}/tables/people/rows`, { rows: Array.from({ length: 100_001 }, () => ({ name: 'many' })) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', in: 'body', field: 'rows', message: expect.stringContaining('at most 100,000 rows') });
    expect((await get(`/v1/${ns}/tables/people/rows?count=exact&name=eq.many`)).body.meta.filter_count).toBe(0);
  });

  it('a multi-row insert is one transaction: a unique conflict in the last row writes nothing', async () => {
    const ns = await seed();
    const rows = Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, email: `e${i}@x` }));
    rows.push({ name: 'clash', email: 'e3@x' });
    const res = await post(`/v1/${ns}/tables/people/rows`, { rows });
    expect(res.status).toBe(409);
    expect((await get(`/v1/${ns}/tables/people/rows?count=exact`)).body.meta.total_count).toBe(PEOPLE.length);
  });

  it('upserts with resolution=merge-duplicates and skips with ignore-duplicates', async () => {
    const ns = await seed();
    await post(`/v1/${ns}/tables/people/rows`, {
      rows: [
        { name: 'A', email: 'a@x', age: 1 },
        { name: 'B', email: 'b@x', age: 2 },
      ],
    });
    const merged = await post(
      `/v1/${ns}/tables/people/rows?on_conflict=email`,
      {
        rows: [
          { name: 'A2', email: 'a@x' },
          { name: 'C', email: 'c@x' },
        ],
      },
      { prefer: 'resolution=merge-duplicates, return=representation' },
    );
    expect(merged.status).toBe(201);
    const data = (await merged.json()).data;
    expect(data.map((r: { name: string; age: number | null }) => [r.name, r.age])).toEqual([
      ['A2', 1],
      ['C', null],
    ]);
    expect(data[0].updated_at > data[0].created_at).toBe(true);
    const ignored = await post(
      `/v1/${ns}/tables/people/rows`,
      {
        rows: [
          { name: 'B2', email: 'b@x' },
          { name: 'D', email: 'd@x' },
        ],
      },
      { prefer: 'resolution=ignore-duplicates,return=representation' },
    );
    expect((await ignored.json()).data.map((r: { name: string }) => r.name)).toEqual(['D']);
    const all = names((await get(`/v1/${ns}/tables/people/rows?email=not.is.null&order=email`)).body);
    expect(all).toEqual(['A2', 'B', 'C', 'D']);
    // by id, too
    const byId = await post(`/v1/${ns}/tables/people/rows`, { id: 1, name: 'Ann again' }, { prefer: 'resolution=merge-duplicates,return=representation' });
    expect((await byId.json()).data[0]).toMatchObject({ id: 1, name: 'Ann again', age: 31 });
    expect((await post(`/v1/${ns}/tables/people/rows?on_conflict=nope`, { name: 'x' }, { prefer: 'resolution=merge-duplicates' })).status).toBe(400);
  });

  it('bulk PATCH and DELETE use the filters', async () => {
    const ns = await seed();
    const patched = await s.api(`/v1/${ns}/tables/people/rows?city=eq.Oslo&age=gte.40`, {
      method: 'PATCH',
      json: { city: 'Bergen', _meta: { actor: 'mover' } },
    });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toEqual({ count: 1 });
    expect(names((await get(`/v1/${ns}/tables/people/rows?city=eq.Bergen`)).body)).toEqual(['bob', 'fay, "the" 2nd']);
    const rep = await s.api(`/v1/${ns}/tables/people/rows?name=eq.bob`, {
      method: 'PATCH',
      json: { active: true },
      headers: { prefer: 'return=representation' },
    });
    const row = (await rep.json()).data[0];
    expect(row.active).toBe(true);
    expect(row.updated_at > row.created_at).toBe(true);
    expect((await s.api(`/v1/${ns}/tables/people/rows?name=eq.bob`, { method: 'PATCH', json: {} })).status).toBe(400);
    expect((await s.api(`/v1/${ns}/tables/people/rows?name=eq.bob`, { method: 'PATCH', json: { id: 9 } })).status).toBe(400);
    const del = await s.api(`/v1/${ns}/tables/people/rows?age=lt.20`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const delRep = await s.api(`/v1/${ns}/tables/people/rows?age=is.null`, { method: 'DELETE', headers: { prefer: 'return=representation' } });
    expect(delRep.status).toBe(200);
    expect(names(await delRep.json())).toEqual(['Cyd']);
    expect(names((await get(`/v1/${ns}/tables/people/rows`)).body)).toEqual(['Ann', 'Dee', 'Eve', 'fay, "the" 2nd']);
    // an unfiltered delete removes every row
    expect((await s.api(`/v1/${ns}/tables/people/rows`, { method: 'DELETE' })).status).toBe(204);
    expect((await get(`/v1/${ns}/tables/people/rows`)).body.data).toEqual([]);
  });

  it('gets, puts and deletes one row by id', async () => {
    const ns = await seed();
    expect((await get(`/v1/${ns}/tables/people/rows/2`)).body).toMatchObject({ id: 2, name: 'bob', active: false });
    const put = await s.api(`/v1/${ns}/tables/people/rows/2`, { method: 'PUT', json: { age: 18, tags: ['grown'] } });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ id: 2, name: 'bob', age: 18, tags: ['grown'] });
    expect((await s.api(`/v1/${ns}/tables/people/rows/99`, { method: 'PUT', json: { age: 1 } })).status).toBe(404);
    expect((await get(`/v1/${ns}/tables/people/rows/99`)).body.error).toBe('row_not_found');
    expect((await get(`/v1/${ns}/tables/people/rows/abc`)).status).toBe(400);
    const del = await s.api(`/v1/${ns}/tables/people/rows/2`, { method: 'DELETE', headers: { prefer: 'return=representation' } });
    expect(del.status).toBe(200);
    expect((await del.json()).name).toBe('bob');
    expect((await s.api(`/v1/${ns}/tables/people/rows/2`, { method: 'DELETE' })).status).toBe(404);
  });

  it('stores datetimes in UTC and blobs as bytes', async () => {
    const ns = `types${++n}`;
    await post('/v1/namespaces', { name: ns });
    await post(`/v1/${ns}/tables`, {
      type: 'table',
      name: 't',
      columns: [
        { name: 'at', type: 'datetime' },
        { name: 'b', type: 'blob' },
      ],
    });
    const res = await post(
      `/v1/${ns}/tables/t/rows`,
      { at: '2026-03-01T10:00:00+02:00', b: Buffer.from([0, 1, 2, 255]).toString('base64') },
      { prefer: 'return=representation' },
    );
    expect((await res.json()).data[0]).toMatchObject({ at: '2026-03-01T08:00:00.000Z', b: 'AAEC/w==' });
    expect((await get(`/v1/${ns}/tables/t/rows?at=gt.${encodeURIComponent('2026-03-01T09:00:00+02:00')}`)).body.data).toHaveLength(1);
    expect((await get(`/v1/${ns}/tables/t/rows?at=gt.${encodeURIComponent('2026-03-01T11:00:00+02:00')}`)).body.data).toHaveLength(0);
    // an unencoded "+" arrives as a space; the offset is still understood
    expect((await get(`/v1/${ns}/tables/t/rows?at=gt.2026-03-01T09:00:00+02:00`)).body.data).toHaveLength(1);
    const raw = s.services.db.namespaces.connection(ns).prepare('SELECT typeof(b) AS t, length(b) AS l FROM t').get();
    expect(raw).toEqual({ t: 'blob', l: 4 });
  });
});

describe('configuration takes effect', () => {
  it('max_db_size is a hard quota: 507 quota_exceeded and nothing changes', async () => {
    const ns = `quota${++n}`;
    await post('/v1/namespaces', { name: ns, config: { max_db_size: 64 * 1024 } });
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'blobs', columns: [{ name: 'data', type: 'text' }] });
    await post(`/v1/${ns}/tables/blobs/rows`, { data: 'small' });
    const big = 'x'.repeat(20_000);
    const res = await post(`/v1/${ns}/tables/blobs/rows`, { rows: [{ data: big }, { data: big }, { data: big }, { data: big }] });
    expect(res.status).toBe(507);
    expect(await res.json()).toEqual({ error: 'quota_exceeded', message: expect.stringContaining('max_db_size') });
    const left = await get(`/v1/${ns}/tables/blobs/rows?count=exact`);
    expect(left.body.meta.total_count).toBe(1);
    // still usable for small writes, and a raised quota lets the write through
    expect((await post(`/v1/${ns}/tables/blobs/rows`, { data: 'tiny' })).status).toBe(201);
    await s.api(`/v1/namespaces/${ns}`, { method: 'PUT', json: { config: { max_db_size: 1024 * 1024 } } });
    expect((await post(`/v1/${ns}/tables/blobs/rows`, { rows: [{ data: big }, { data: big }, { data: big }, { data: big }] })).status).toBe(201);
  });

  it('foreign_keys is enforced when on and not when off', async () => {
    const ns = `fk${++n}`;
    await post('/v1/namespaces', { name: ns });
    const db = s.services.db.namespaces.connection(ns);
    db.exec('CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id))');
    const bad = await post(`/v1/${ns}/tables/child/rows`, { parent_id: 42 });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('foreign_key_violation');
    await s.api(`/v1/namespaces/${ns}`, { method: 'PUT', json: { config: { foreign_keys: false } } });
    expect((await post(`/v1/${ns}/tables/child/rows`, { parent_id: 42 })).status).toBe(201);
  });

  it("busy_timeout: a write waiting on another writer's lock fails after the timeout with 503", async () => {
    const ns = `busy${++n}`;
    await post('/v1/namespaces', { name: ns, config: { busy_timeout: 200 } });
    await post(`/v1/${ns}/tables`, { type: 'table', name: 't', columns: [{ name: 'x', type: 'integer' }] });
    const Database = (await import('better-sqlite3')).default;
    const other = new Database(s.services.db.namespaces.handles.fileOf(ns)!);
    other.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const res = await post(`/v1/${ns}/tables/t/rows`, { x: 1 });
      const took = Date.now() - started;
      expect(res.status).toBe(503);
      expect((await res.json()).error).toBe('service_unavailable');
      expect(took).toBeGreaterThanOrEqual(150);
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await post(`/v1/${ns}/tables/t/rows`, { x: 1 })).status).toBe(201);
  });
});

describe('change events', () => {
  it('publishes insert, update and delete with the row and _meta.actor after commit', async () => {
    const ns = await seed();
    const seen: Array<{ table: string; action: string; row: Record<string, unknown>; _meta: Record<string, unknown> | null; timestamp: string }> = [];
    const sub = s.services.db.events.subscribe(ns, (e: StoredEvent) => seen.push(JSON.parse(e.data)));
    try {
      await post(`/v1/${ns}/tables/people/rows`, { name: 'Zed', _meta: { actor: 'alice' } });
      await s.api(`/v1/${ns}/tables/people/rows?name=eq.Zed`, { method: 'PATCH', json: { age: 3, _meta: { actor: 'bob' } } });
      await s.api(`/v1/${ns}/tables/people/rows/7`, { method: 'DELETE', json: { _meta: { actor: 'carol' } } });
      await post(`/v1/${ns}/tables/people/rows`, { rows: [{ name: 'x', age: -1 }] }); // fails: no event
      await s.api(`/v1/${ns}/tables/people/rows/1`, { method: 'PUT', json: { age: 32 } });
    } finally {
      sub.unsubscribe();
    }
    expect(seen.map((e) => [e.action, e.table, (e.row as { name: string }).name, e._meta?.actor])).toEqual([
      ['insert', 'people', 'Zed', 'alice'],
      ['update', 'people', 'Zed', 'bob'],
      ['delete', 'people', 'Zed', 'carol'],
      ['update', 'people', 'Ann', 'token:env'],
    ]);
    expect((seen[1]!.row as { age: number }).age).toBe(3);
    expect(seen[0]!.timestamp).toMatch(/Z$/);
  });
});

describe('CSV', () => {
  it('exports RFC 4180 CSV with filters, select, order, limit and bom', async () => {
    const ns = await seed();
    const res = await s.api(`/v1/${ns}/tables/people/export?format=csv&select=name,age,active,tags&city=eq.Oslo&order=age.desc.nullslast&limit=2`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="people.csv"');
    expect(await res.text()).toBe('name,age,active,tags\r\n"fay, ""the"" 2nd",60,true,\r\nAnn,31,true,"[""a"",""b""]"\r\n');
    const bom = Buffer.from(await (await s.api(`/v1/${ns}/tables/people/export?format=csv&select=name&limit=1&bom=true`)).arrayBuffer());
    expect([...bom.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect((await s.api(`/v1/${ns}/tables/people/export`)).status).toBe(400);
    expect((await s.api(`/v1/${ns}/tables/people/export?format=json`)).status).toBe(400);
    expect((await s.api(`/v1/${ns}/tables/people/export?format=csv&nope=eq.1`)).status).toBe(400);
  });

  it('round-trips awkward values: quotes, commas, newlines, Unicode, empty strings and NULL', async () => {
    const table = {
      type: 'table',
      name: 't',
      columns: [
        { name: 's', type: 'text' },
        { name: 'i', type: 'integer' },
        { name: 'r', type: 'real' },
        { name: 'b', type: 'boolean' },
        { name: 'j', type: 'json' },
      ],
    };
    const src = `csvsrc${++n}`;
    await post('/v1/namespaces', { name: src });
    await post(`/v1/${src}/tables`, table);
    const awkward = [
      { s: 'plain', i: 1, r: 1.5, b: true, j: { a: [1, 'x,y'] } },
      { s: 'with, comma', i: -2, r: -0.25, b: false, j: 'a "quoted" string' },
      { s: 'line\nbreak\r\nand "quotes"', i: 0, r: 1e-7, b: null, j: null },
      { s: '', i: null, r: null, b: true, j: [] },
      { s: null, i: 9007199254740991, r: 3, b: false, j: { emoji: '😀' } },
      { s: 'Ünïcødé — 日本語 😀', i: 7, r: 2.5, b: true, j: 0 },
      { s: '  leading and trailing  ', i: 8, r: 0, b: false, j: true },
    ];
    await post(`/v1/${src}/tables/t/rows`, { rows: awkward });
    const csv = Buffer.from(await (await s.api(`/v1/${src}/tables/t/export?format=csv&select=s,i,r,b,j`)).arrayBuffer());
    const dst = `csvdst${++n}`;
    await post('/v1/namespaces', { name: dst });
    await post(`/v1/${dst}/tables`, table);
    const m = multipart([{ name: 'file', filename: 't.csv', data: csv, type: 'text/csv' }]);
    const imp = await s.api(`/v1/namespaces/${dst}/import?table=t`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    expect(imp.status).toBe(200);
    expect(await imp.json()).toEqual({ table: 't', inserted: awkward.length });
    const back = (await get(`/v1/${dst}/tables/t/rows?select=s,i,r,b,j`)).body.data;
    expect(back).toEqual(awkward);
  });

  it('imports in one transaction and names the line and column of the first bad value', async () => {
    const ns = await seed();
    const upload = (csv: string) => {
      const m = multipart([{ name: 'file', filename: 'p.csv', data: csv }]);
      return s.api(`/v1/namespaces/${ns}/import?table=people`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    };
    const cases: Array<[string, RegExp]> = [
      ['name,age\nok,1\nbad,abc\n', /^line 3, column "age": expected an integer, got "abc"$/],
      ['name,age\nok,1\nneg,-4\n', /^line 3, column "age": must be at least 0$/],
      ['name,nope\nx,1\n', /^line 1: people has no column "nope"$/],
      ['name,name\nx,y\n', /appears twice/],
      ['name,created_at\nx,2020-01-01\n', /maintained by the service/],
      ['name,active\nx,maybe\n', /^line 2, column "active": expected true or false/],
      ['name,tags\nx,{not json\n', /^line 2, column "tags": not valid JSON$/],
      ['name,age\n"unterminated,1\n', /quote|Quote/],
      ['name,age\nx,1,extra\n', /line 2/],
      ['', /empty/],
    ];
    for (const [csv, message] of cases) {
      const res = await upload(csv);
      const body = await res.json();
      expect([csv, res.status]).toEqual([csv, 400]);
      expect(body.error).toBe('invalid_csv');
      expect(body.message).toMatch(message);
    }
    expect((await get(`/v1/${ns}/tables/people/rows?count=exact`)).body.meta.total_count).toBe(PEOPLE.length);
    const ok = await upload('\uFEFFname,age,active,born\nNew,3,yes,2020-02-02\n"Quo, ted",,0,\n');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ table: 'people', inserted: 2 });
    const added = (await get(`/v1/${ns}/tables/people/rows?id=gt.6&select=name,age,active,born`)).body.data;
    expect(added).toEqual([
      { name: 'New', age: 3, active: true, born: '2020-02-02' },
      { name: 'Quo, ted', age: null, active: false, born: null },
    ]);
    const missing = await s.api(`/v1/namespaces/${ns}/import?table=ghosts`, {
      method: 'POST',
      body: multipart([{ name: 'file', filename: 'x.csv', data: 'a\n1\n' }]).body,
      headers: { 'content-type': multipart([]).contentType },
    });
    expect(missing.status).toBe(400);
  });

  it('reports every bad line of a CSV import (line, column, reason; capped with the total) and imports nothing', async () => {
    const ns = await seed();
    const upload = (csv: string) => {
      const m = multipart([{ name: 'file', filename: 'p.csv', data: csv }]);
      return s.api(`/v1/namespaces/${ns}/import?table=people`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    };
    const res = await upload('name,age,active\nok,1,true\nbad,abc,true\n,4,false\nneg,-4,maybe\nshort,5\nfine,6,false\n');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_csv');
    expect(body.message).toBe('5 problems, nothing was imported; the first: line 3, column "age": expected an integer, got "abc"');
    expect(body.details).toEqual({
      total: 5,
      shown: 5,
      lines: [
        { line: 3, column: 'age', reason: 'expected an integer, got "abc"' },
        { line: 4, column: 'name', reason: 'must not be null' },
        { line: 5, column: 'age', reason: 'must be at least 0' },
        { line: 5, column: 'active', reason: expect.stringMatching(/^expected true or false/) },
        { line: 6, column: null, reason: 'has 2 fields, but the first line names 3 columns' },
      ],
    });
    expect((await get(`/v1/${ns}/tables/people/rows?count=exact`)).body.meta.total_count).toBe(PEOPLE.length);
    // More bad lines than the cap: the first 1,000 are listed, the total is counted.
    const many = await upload(`name,age\n${Array.from({ length: 1200 }, (_, i) => `p${i},x${i}`).join('\n')}\n`);
    const manyBody = await many.json();
    expect(manyBody.details.total).toBe(1200);
    expect(manyBody.details.shown).toBe(1000);
    expect(manyBody.details.lines).toHaveLength(1000);
    expect(manyBody.details.lines[999]).toEqual({ line: 1001, column: 'age', reason: 'expected an integer, got "x999"' });
    expect((await get(`/v1/${ns}/tables/people/rows?count=exact`)).body.meta.total_count).toBe(PEOPLE.length);
  });
});

describe('regressions from review', () => {
  it('dates and date-times: impossible values refused, no zone means UTC', async () => {
    const ns = `dt${++n}`;
    await post('/v1/namespaces', { name: ns });
    await post(`/v1/${ns}/tables`, {
      type: 'table',
      name: 't',
      columns: [
        { name: 'd', type: 'date' },
        { name: 'at', type: 'datetime' },
      ],
    });
    for (const row of [{ d: '2026-02-30' }, { d: '2026-13-01' }, { at: '2026-02-31T10:00Z' }, { at: '2026-01-01T24:00' }, { at: 'yesterday' }]) {
      const res = await post(`/v1/${ns}/tables/t/rows`, row);
      expect([JSON.stringify(row), res.status]).toEqual([JSON.stringify(row), 400]);
    }
    const ok = await post(`/v1/${ns}/tables/t/rows`, { d: '2024-02-29', at: '2026-03-01T08:00' }, { prefer: 'return=representation' });
    expect((await ok.json()).data[0]).toMatchObject({ d: '2024-02-29', at: '2026-03-01T08:00:00.000Z' });
    expect((await get(`/v1/${ns}/tables/t/rows?at=eq.2026-03-01T08:00`)).body.data).toHaveLength(1);
    expect((await get(`/v1/${ns}/tables/t/rows?at=gte.2026-03`)).body.data).toHaveLength(1);
  });

  it('a bad select on a write is refused before anything is written; on_conflict must be unique', async () => {
    const ns = await seed();
    const bad = await post(`/v1/${ns}/tables/people/rows?select=nope`, { name: 'agg2' }, { prefer: 'return=representation' });
    expect(bad.status).toBe(400);
    const agg = await post(`/v1/${ns}/tables/people/rows?select=n:count()`, { name: 'agg3' }, { prefer: 'return=representation' });
    expect(agg.status).toBe(400);
    expect((await get(`/v1/${ns}/tables/people/rows?name=in.(agg2,agg3)`)).body.data).toEqual([]);
    const up = await post(`/v1/${ns}/tables/people/rows?on_conflict=city`, { name: 'x', city: 'Oslo' }, { prefer: 'resolution=merge-duplicates' });
    expect(up.status).toBe(400);
    expect((await up.json()).message).toMatch(/on_conflict/);
  });

  it('strict bodies: envelope keys, DELETE bodies', async () => {
    const ns = await seed();
    expect((await post(`/v1/${ns}/tables/people/rows`, { rows: [{ name: 'x' }], foo: 1 })).status).toBe(400);
    expect((await s.api(`/v1/${ns}/tables/people/rows?name=eq.Ann`, { method: 'DELETE', json: [1] })).status).toBe(400);
    expect((await s.api(`/v1/${ns}/tables/people/rows?name=eq.Ann`, { method: 'DELETE', json: { nope: 1 } })).status).toBe(400);
    expect((await get(`/v1/${ns}/tables/people/rows?name=eq.Ann`)).body.data).toHaveLength(1);
  });

  it('a broken view is listed and droppable; reading it is 409; GET by id on a table without id is 400', async () => {
    const ns = await seed();
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'tmp1', columns: [{ name: 'v', type: 'text' }] });
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'vtmp', sql: 'SELECT v FROM tmp1' });
    // the API refuses to break a view (409 dependent_views); a tool outside it can
    expect((await s.api(`/v1/${ns}/tables/tmp1`, { method: 'DELETE' })).status).toBe(409);
    s.services.db.namespaces.connection(ns).exec('DROP TABLE tmp1');
    expect((await get(`/v1/${ns}/tables`)).status).toBe(200);
    expect((await get(`/v1/${ns}/tables/vtmp`)).status).toBe(200);
    expect((await get(`/v1/${ns}/tables/vtmp/rows`)).status).toBe(409);
    expect((await s.api(`/v1/${ns}/tables/vtmp`, { method: 'DELETE' })).status).toBe(204);
    s.services.db.namespaces.connection(ns).exec('CREATE TABLE nokey (code TEXT, n INTEGER)');
    expect((await get(`/v1/${ns}/tables/nokey/rows/1`)).status).toBe(400);
  });
});
