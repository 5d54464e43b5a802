import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let n = 0;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

async function freshNs(config?: unknown) {
  const name = `sch${++n}`;
  const res = await s.api('/v1/namespaces', { method: 'POST', json: config ? { name, config } : { name } });
  expect(res.status).toBe(201);
  return name;
}
const post = (p: string, json: unknown) => s.api(p, { method: 'POST', json });
const put = (p: string, json: unknown) => s.api(p, { method: 'PUT', json });
const people = {
  type: 'table',
  name: 'people',
  metadata: { label: 'People' },
  columns: [
    { name: 'name', type: 'text', not_null: true, max_length: 20 },
    { name: 'age', type: 'integer', min: 0, max: 150 },
    { name: 'bio', type: 'text' },
  ],
};

describe('tables', () => {
  it('creates a table with system columns and describes it', async () => {
    const ns = await freshNs();
    const res = await post(`/v1/${ns}/tables`, people);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/${ns}/tables/people`);
    const t = await res.json();
    expect(t).toMatchObject({ name: 'people', type: 'table', managed: true, metadata: { label: 'People' }, sql: null, row_count_estimate: 0, indexes: [] });
    expect(t.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'name', 'age', 'bio', 'created_at', 'updated_at']);
    expect(t.columns[0]).toEqual({ name: 'id', type: 'integer', not_null: true, unique: true, system: true });
    expect(t.columns[1]).toEqual({ name: 'name', type: 'text', not_null: true, max_length: 20 });
    expect(await (await s.api(`/v1/${ns}/tables/people`)).json()).toEqual(t);
    const list = await (await s.api(`/v1/${ns}/tables`)).json();
    expect(list).toEqual({ data: [{ name: 'people', type: 'table', metadata: { label: 'People' }, row_count_estimate: 0 }] });
  });

  it('accepts every column type', async () => {
    const ns = await freshNs();
    const columns = ['text', 'integer', 'real', 'boolean', 'datetime', 'date', 'json', 'blob'].map((type) => ({ name: `c_${type}`, type }));
    const res = await post(`/v1/${ns}/tables`, { type: 'table', name: 'all_types', columns });
    expect(res.status).toBe(201);
    expect((await res.json()).columns.slice(1, -2)).toEqual(columns);
  });

  it.each([
    [{ type: 'table', name: '_hidden', columns: [] }, 'reserved_name'],
    [{ type: 'table', name: 'sqlite_x', columns: [] }, 'reserved_name'],
    [{ type: 'table', name: 'bad name', columns: [] }, 'invalid_identifier'],
    [{ type: 'table', name: 't1', columns: [{ name: 'id', type: 'text' }] }, 'reserved_name'],
    [{ type: 'table', name: 't1', columns: [{ name: 'created_at', type: 'text' }] }, 'reserved_name'],
    [{ type: 'table', name: 't1', columns: [{ name: '_meta', type: 'text' }] }, 'reserved_name'],
    [{ type: 'table', name: 't1', columns: [{ name: 'x"; DROP TABLE y; --', type: 'text' }] }, 'invalid_identifier'],
    [
      {
        type: 'table',
        name: 't1',
        columns: [
          { name: 'a', type: 'text' },
          { name: 'a', type: 'text' },
        ],
      },
      'column_exists',
    ],
    [{ type: 'table', name: 't1', columns: [{ name: 'a', type: 'varchar' }] }, 'invalid_request'],
    [{ type: 'table', name: 't1', columns: [{ name: 'a', type: 'integer', max_length: 3 }] }, 'invalid_request'],
    [{ type: 'table', name: 't1', columns: [{ name: 'a', type: 'text', min: 3 }] }, 'invalid_request'],
    [{ type: 'thing', name: 't1' }, 'invalid_request'],
  ])('rejects %j with %s', async (body, code) => {
    const ns = await freshNs();
    const res = await post(`/v1/${ns}/tables`, body);
    expect(res.status).toBe(code === 'column_exists' ? 409 : 400);
    expect((await res.json()).error).toBe(code);
    expect((await (await s.api(`/v1/${ns}/tables`)).json()).data).toEqual([]);
  });

  it('refuses a taken name with 409 table_exists (case-insensitively, like SQLite)', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    for (const name of ['people', 'PEOPLE']) {
      const res = await post(`/v1/${ns}/tables`, { ...people, name });
      expect(res.status).toBe(409);
      expect((await res.json()).error).toBe('table_exists');
    }
  });

  it('PUT renames, adds, drops and renames columns and keeps the data', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables/people/rows`, {
      rows: [
        { name: 'Ann', age: 30, bio: 'likes tea' },
        { name: 'Bob', age: 40, bio: 'cyclist' },
      ],
    });
    await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'by_age', columns: ['age'] });
    await post(`/v1/${ns}/tables/people/indexes`, { type: 'fts', columns: ['name', 'bio'] });
    const res = await put(`/v1/${ns}/tables/people`, {
      rename: 'persons',
      add_columns: [{ name: 'email', type: 'text', unique: true }],
      drop_columns: ['age'],
      rename_columns: { bio: 'about' },
      metadata: { label: 'Persons' },
      _meta: { actor: 'alice' },
    });
    expect(res.status).toBe(200);
    const t = await res.json();
    expect(t.name).toBe('persons');
    expect(t.metadata).toEqual({ label: 'Persons' });
    expect(t.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'name', 'about', 'email', 'created_at', 'updated_at']);
    expect(t.indexes).toEqual([{ name: 'fts', type: 'fts', columns: ['name', 'about'] }]);
    expect((await s.api(`/v1/${ns}/tables/people`)).status).toBe(404);
    const rows = (await (await s.api(`/v1/${ns}/tables/persons/rows?order=id`)).json()).data;
    expect(rows.map((r: { name: string; about: string; id: number }) => [r.id, r.name, r.about])).toEqual([
      [1, 'Ann', 'likes tea'],
      [2, 'Bob', 'cyclist'],
    ]);
    // the full-text index followed the rename
    const found = (await (await s.api(`/v1/${ns}/tables/persons/rows?search=cyclist`)).json()).data;
    expect(found.map((r: { name: string }) => r.name)).toEqual(['Bob']);
    // the new unique column is enforced
    await s.api(`/v1/${ns}/tables/persons/rows/1`, { method: 'PUT', json: { email: 'x@y' } });
    const dup = await s.api(`/v1/${ns}/tables/persons/rows/2`, { method: 'PUT', json: { email: 'x@y' } });
    expect(dup.status).toBe(409);
    expect(await dup.json()).toEqual({ error: 'unique_violation', message: expect.stringContaining('email') });
  });

  it('PUT validates its operations', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'other', columns: [] });
    const cases: Array<[unknown, number, string]> = [
      [{}, 400, 'invalid_request'],
      [{ drop_columns: ['nope'] }, 400, 'unknown_column'],
      [{ drop_columns: ['id'] }, 400, 'unknown_column'],
      [{ rename_columns: { name: '_x' } }, 400, 'reserved_name'],
      [{ rename_columns: { name: 'age' } }, 409, 'column_exists'],
      [{ add_columns: [{ name: 'name', type: 'text' }] }, 409, 'column_exists'],
      [{ add_columns: [{ name: 'req', type: 'text', not_null: true }] }, 400, 'invalid_request'],
      [{ rename: 'other' }, 409, 'table_exists'],
      [{ sql: 'SELECT 1' }, 400, 'invalid_request'],
      [{ bogus: 1 }, 400, 'invalid_request'],
    ];
    for (const [body, status, code] of cases) {
      const res = await put(`/v1/${ns}/tables/people`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      expect((await res.json()).error).toBe(code);
    }
    expect((await put(`/v1/${ns}/tables/ghost`, { metadata: {} })).status).toBe(404);
  });

  it('DELETE drops a table', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    const res = await s.api(`/v1/${ns}/tables/people`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect((await s.api(`/v1/${ns}/tables/people`)).status).toBe(404);
    const again = await s.api(`/v1/${ns}/tables/people`, { method: 'DELETE' });
    expect(again.status).toBe(404);
    expect((await again.json()).error).toBe('table_not_found');
  });
});

describe('views', () => {
  it('creates, reads through, alters and drops a view', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables/people/rows`, {
      rows: [
        { name: 'Ann', age: 30 },
        { name: 'Kid', age: 9 },
      ],
    });
    const res = await post(`/v1/${ns}/tables`, { type: 'view', name: 'adults', sql: 'SELECT id, name, age FROM people WHERE age >= 18' });
    expect(res.status).toBe(201);
    const v = await res.json();
    expect(v).toMatchObject({ name: 'adults', type: 'view', sql: 'SELECT id, name, age FROM people WHERE age >= 18', row_count_estimate: null });
    expect(v.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'text' },
      { name: 'age', type: 'integer' },
    ]);
    const rows = (await (await s.api(`/v1/${ns}/tables/adults/rows`)).json()).data;
    expect(rows).toEqual([{ id: 1, name: 'Ann', age: 30 }]);
    const writes = await post(`/v1/${ns}/tables/adults/rows`, { name: 'x' });
    expect(writes.status).toBe(400);
    expect((await writes.json()).error).toBe('object_is_view');
    const altered = await put(`/v1/${ns}/tables/adults`, { sql: 'SELECT name FROM people WHERE age < 18', rename: 'kids' });
    expect(altered.status).toBe(200);
    expect((await (await s.api(`/v1/${ns}/tables/kids/rows`)).json()).data).toEqual([{ name: 'Kid' }]);
    expect((await s.api(`/v1/${ns}/tables/kids`, { method: 'DELETE' })).status).toBe(204);
    expect((await (await s.api(`/v1/${ns}/tables`)).json()).data.map((o: { name: string }) => o.name)).toEqual(['people']);
  });

  it.each([
    'DELETE FROM people',
    'INSERT INTO people (name) VALUES (1)',
    'SELECT 1; DROP TABLE people',
    'SELECT * FROM nowhere',
    'PRAGMA table_info(people)',
    'not sql at all',
  ])('refuses view sql %j', async (sql) => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    const res = await post(`/v1/${ns}/tables`, { type: 'view', name: 'v', sql });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_sql');
    expect((await s.api(`/v1/${ns}/tables/people`)).status).toBe(200);
  });
});

describe('indexes', () => {
  it('creates and drops index, unique and fts indexes', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    const ix = await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'by_age', columns: ['age'], _meta: { actor: 'ops' } });
    expect(ix.status).toBe(201);
    expect(await ix.json()).toEqual({ name: 'by_age', type: 'index', columns: ['age'] });
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'unique', name: 'uniq_name', columns: ['name'] })).status).toBe(201);
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'fts', columns: ['name', 'bio'] })).status).toBe(201);
    const t = await (await s.api(`/v1/${ns}/tables/people`)).json();
    expect(t.indexes).toEqual([
      { name: 'by_age', type: 'index', columns: ['age'] },
      { name: 'uniq_name', type: 'unique', columns: ['name'] },
      { name: 'fts', type: 'fts', columns: ['name', 'bio'] },
    ]);
    // the unique index is enforced
    await post(`/v1/${ns}/tables/people/rows`, { name: 'Ann' });
    expect((await post(`/v1/${ns}/tables/people/rows`, { name: 'Ann' })).status).toBe(409);
    // errors
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'by_age', columns: ['age'] })).status).toBe(409);
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'fts', columns: ['name'] })).status).toBe(409);
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'x', columns: ['nope'] })).status).toBe(400);
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', columns: ['age'] })).status).toBe(400);
    expect((await post(`/v1/${ns}/tables/people/indexes`, { type: 'fts', columns: ['age'] })).status).toBe(400);
    // drop with _meta in the body, as the seed shows
    const del = await s.api(`/v1/${ns}/tables/people/indexes/by_age`, { method: 'DELETE', json: { _meta: { actor: 'ops' } } });
    expect(del.status).toBe(204);
    expect((await s.api(`/v1/${ns}/tables/people/indexes/fts`, { method: 'DELETE' })).status).toBe(204);
    expect((await s.api(`/v1/${ns}/tables/people/indexes/fts`, { method: 'DELETE' })).status).toBe(404);
    const after = await (await s.api(`/v1/${ns}/tables/people`)).json();
    expect(after.indexes).toEqual([{ name: 'uniq_name', type: 'unique', columns: ['name'] }]);
    expect((await s.api(`/v1/${ns}/tables/people/rows?search=Ann`)).status).toBe(400);
  });

  it('an index that would pass max_db_size is 507 quota_exceeded and changes nothing', async () => {
    const ns = await freshNs({ max_db_size: 64 * 1024 });
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'docs', columns: [{ name: 'body', type: 'text' }] });
    // 16 rows of 1000 characters fit the quota; an index holding them all again does not
    expect((await post(`/v1/${ns}/tables/docs/rows`, { rows: Array.from({ length: 16 }, (_, i) => ({ body: `${i}`.padEnd(1000, 'x') })) })).status).toBe(201);
    const res = await post(`/v1/${ns}/tables/docs/indexes`, { type: 'index', name: 'by_body', columns: ['body'] });
    expect(res.status).toBe(507);
    expect(await res.json()).toEqual({ error: 'quota_exceeded', message: expect.stringContaining('max_db_size') });
    expect((await (await s.api(`/v1/${ns}/tables/docs`)).json()).indexes).toEqual([]);
    expect((await (await s.api(`/v1/${ns}/changelog?table=docs`)).json()).map((e: { action: string }) => e.action)).toEqual(['create_table']);
  });

  it('keeps the fts index in sync with inserts, updates and deletes', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables/people/rows`, {
      rows: [
        { name: 'Ann', bio: 'Loves green tea' },
        { name: 'Bob', bio: 'Coffee and cycling' },
      ],
    });
    await post(`/v1/${ns}/tables/people/indexes`, { type: 'fts', columns: ['name', 'bio'] });
    const search = async (q: string) =>
      ((await (await s.api(`/v1/${ns}/tables/people/rows?search=${encodeURIComponent(q)}`)).json()).data as Array<{ name: string }>).map((r) => r.name);
    expect(await search('tea')).toEqual(['Ann']);
    expect(await search('cycl*')).toEqual(['Bob']);
    expect(await search('coffee cycling')).toEqual(['Bob']);
    await post(`/v1/${ns}/tables/people/rows`, { name: 'Cy', bio: 'tea and coffee' });
    expect(await search('tea')).toEqual(['Ann', 'Cy']);
    await s.api(`/v1/${ns}/tables/people/rows/1`, { method: 'PUT', json: { bio: 'now prefers water' } });
    expect(await search('tea')).toEqual(['Cy']);
    expect(await search('water')).toEqual(['Ann']);
    await s.api(`/v1/${ns}/tables/people/rows/3`, { method: 'DELETE' });
    expect(await search('tea')).toEqual([]);
    expect(await search('"quoted')).toEqual([]);
  });
});

describe('changelog', () => {
  it('records every schema change with actor, newest first, paged and filtered by table', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, { ...people, _meta: { actor: 'alice' } });
    await post(`/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'ix', columns: ['age'], _meta: { actor: 'bob' } });
    await put(`/v1/${ns}/tables/people`, { metadata: { x: 1 } });
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'v', sql: 'SELECT name FROM people' });
    await s.api(`/v1/${ns}/tables/people/indexes/ix`, { method: 'DELETE', json: { _meta: { actor: 'carol' } } });
    await s.api(`/v1/${ns}/tables/v`, { method: 'DELETE' });
    const all = await (await s.api(`/v1/${ns}/changelog`)).json();
    expect(all.map((e: { action: string }) => e.action)).toEqual(['drop_view', 'drop_index', 'create_view', 'update_table', 'create_index', 'create_table']);
    for (const e of all) expect(Object.keys(e).sort()).toEqual(['_meta', 'action', 'detail', 'id', 'table', 'timestamp']);
    expect(all.at(-1)).toMatchObject({ table: 'people', _meta: { actor: 'alice' }, detail: { columns: people.columns } });
    expect(all[1]._meta).toEqual({ actor: 'carol' });
    expect(all[2]._meta.actor).toBe('token:env');
    const paged = await (await s.api(`/v1/${ns}/changelog?limit=2&offset=1`)).json();
    expect(paged.map((e: { id: number }) => e.id)).toEqual([all[1].id, all[2].id]);
    const onlyV = await (await s.api(`/v1/${ns}/changelog?table=v`)).json();
    expect(onlyV.map((e: { action: string }) => e.action)).toEqual(['drop_view', 'create_view']);
    expect((await s.api(`/v1/${ns}/changelog?limit=0`)).status).toBe(400);
    expect((await s.api(`/v1/${ns}/changelog?limit=x`)).status).toBe(400);
  });

  it('defaults to 50 entries and is empty for a new namespace', async () => {
    const ns = await freshNs();
    expect(await (await s.api(`/v1/${ns}/changelog`)).json()).toEqual([]);
    for (let i = 0; i < 55; i++) await post(`/v1/${ns}/tables`, { type: 'table', name: `t${i}`, columns: [] });
    expect(await (await s.api(`/v1/${ns}/changelog`)).json()).toHaveLength(50);
  });

  it('a failed change writes no entry', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables/people/rows`, { rows: [{ name: 'a' }, { name: 'a' }] });
    const res = await post(`/v1/${ns}/tables/people/indexes`, { type: 'unique', name: 'u', columns: ['name'] });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toBe('unique_violation');
    const log = await (await s.api(`/v1/${ns}/changelog`)).json();
    expect(log.map((e: { action: string }) => e.action)).toEqual(['create_table']);
  });
});

describe('read-only namespaces and scoped tokens', () => {
  it('refuses schema writes on a read_only namespace with 409 namespace_read_only, reads still work', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await put(`/v1/namespaces/${ns}`, { config: { read_only: true } });
    for (const [method, path, json] of [
      ['POST', `/v1/${ns}/tables`, { type: 'table', name: 'x', columns: [] }],
      ['PUT', `/v1/${ns}/tables/people`, { metadata: {} }],
      ['DELETE', `/v1/${ns}/tables/people`, undefined],
      ['POST', `/v1/${ns}/tables/people/indexes`, { type: 'index', name: 'i', columns: ['age'] }],
      ['POST', `/v1/${ns}/tables/people/rows`, { name: 'x' }],
      ['PATCH', `/v1/${ns}/tables/people/rows`, { name: 'x' }],
      ['DELETE', `/v1/${ns}/tables/people/rows`, undefined],
    ] as const) {
      const res = await s.api(path, { method, json });
      expect([method, path, res.status]).toEqual([method, path, 409]);
      expect((await res.json()).error).toBe('namespace_read_only');
    }
    expect((await s.api(`/v1/${ns}/tables/people`)).status).toBe(200);
    expect((await s.api(`/v1/${ns}/tables/people/rows`)).status).toBe(200);
  });

  it('namespace tokens reach only their namespaces; read-only tokens only read', async () => {
    const ns = await freshNs();
    const other = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    const rw = (await (await post('/api/admin/tokens', { name: 'rw', scope: 'namespaces', namespaces: [ns] })).json()).token;
    const ro = (await (await post('/api/admin/tokens', { name: 'ro', scope: 'namespaces', namespaces: [ns], read_only: true })).json()).token;
    expect((await s.api(`/v1/${ns}/tables`, { token: rw })).status).toBe(200);
    expect((await s.api(`/v1/${other}/tables`, { token: rw })).status).toBe(403);
    expect((await s.api(`/v1/ghost/tables`, { token: rw })).status).toBe(403);
    expect((await s.api(`/v1/ghost/tables`)).status).toBe(404);
    const ins = await s.api(`/v1/${ns}/tables/people/rows`, { method: 'POST', json: { name: 'Ann' }, token: rw });
    expect(ins.status).toBe(201);
    const log = await (await s.api(`/v1/${ns}/tables/people/rows`, { token: ro })).json();
    expect(log.data).toHaveLength(1);
    const denied = await s.api(`/v1/${ns}/tables/people/rows`, { method: 'POST', json: { name: 'x' }, token: ro });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error).toBe('forbidden');
    expect((await s.api(`/v1/${ns}/tables`, { token: null })).status).toBe(401);
  });
});

describe('regressions', () => {
  it('a metadata-only update is visible at once and survives later changes', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'v3', sql: 'SELECT 1 AS x' });
    const res = await put(`/v1/${ns}/tables/v3`, { metadata: { label: 'V3' } });
    expect((await res.json()).metadata).toEqual({ label: 'V3' });
    expect((await (await s.api(`/v1/${ns}/tables/v3`)).json()).metadata).toEqual({ label: 'V3' });
    await put(`/v1/${ns}/tables/people`, { metadata: { label: 'A' } });
    const renamed = await (await put(`/v1/${ns}/tables/people`, { rename: 'grown' })).json();
    expect(renamed.metadata).toEqual({ label: 'A' });
  });

  it('altering the columns of a table a view reads keeps the view, or refuses when the view would break', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables/people/rows`, {
      rows: [
        { name: 'Old', age: 70 },
        { name: 'Young', age: 20 },
      ],
    });
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'seniors', sql: 'SELECT name, age FROM people WHERE age >= 40' });
    const add = await put(`/v1/${ns}/tables/people`, { add_columns: [{ name: 'city', type: 'text' }] });
    expect(add.status).toBe(200);
    expect((await (await s.api(`/v1/${ns}/tables/seniors/rows`)).json()).data).toEqual([{ name: 'Old', age: 70 }]);
    const drop = await put(`/v1/${ns}/tables/people`, { drop_columns: ['age'] });
    expect(drop.status).toBe(409);
    expect(await drop.json()).toEqual({
      error: 'dependent_views',
      message: expect.stringMatching(/^view seniors reads what this change to people removes or renames/),
    });
    // nothing changed
    const t = await (await s.api(`/v1/${ns}/tables/people`)).json();
    expect(t.columns.map((c: { name: string }) => c.name)).toContain('age');
    expect((await (await s.api(`/v1/${ns}/tables/seniors/rows`)).json()).data).toEqual([{ name: 'Old', age: 70 }]);
    expect((await put(`/v1/${ns}/tables/people`, { drop_columns: ['bio'] })).status).toBe(200);
  });
});

describe('more regressions', () => {
  it('case-only renames work; columns differing only in case are refused; unnamed index is a clear 400', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'casey', columns: [{ name: 'v', type: 'text' }] });
    const r = await put(`/v1/${ns}/tables/casey`, { rename: 'Casey' });
    expect(r.status).toBe(200);
    expect((await r.json()).name).toBe('Casey');
    const dup = await post(`/v1/${ns}/tables`, {
      type: 'table',
      name: 'ab',
      columns: [
        { name: 'A', type: 'text' },
        { name: 'a', type: 'text' },
      ],
    });
    expect(dup.status).toBe(409);
    const ix = await post(`/v1/${ns}/tables/Casey/indexes`, { type: 'index', columns: ['v'] });
    expect(ix.status).toBe(400);
    expect((await ix.json()).message).toBe('an index of type index needs a name');
  });
});
