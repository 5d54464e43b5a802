// Schema changes and what depends on them: views over dropped or renamed tables and columns, the indexes a column
// takes with it, no-op renames, and the changelog of a renamed table.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

let s: TestServer;
let work: string;
let n = 0;
beforeAll(async () => {
  s = await startTestServer();
  work = tempDir('hearth-schema-');
});
afterAll(async () => {
  await s.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

async function freshNs() {
  const name = `chg${++n}`;
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name } })).status).toBe(201);
  return name;
}
const post = (p: string, json: unknown) => s.api(p, { method: 'POST', json });
const put = (p: string, json: unknown) => s.api(p, { method: 'PUT', json });
const del = (p: string, json?: unknown) => s.api(p, { method: 'DELETE', json });
const json = async (res: Response | Promise<Response>) => (await res).json();
const changelog = async (ns: string, query = '') =>
  (await json(s.api(`/v1/${ns}/changelog${query}`))) as Array<{
    id: number;
    action: string;
    table: string;
    detail: Record<string, unknown>;
    _meta: Record<string, unknown> | null;
  }>;
const names = async (ns: string) => ((await json(s.api(`/v1/${ns}/tables`))).data as Array<{ name: string }>).map((o) => o.name);
const rows = async (ns: string, table: string) => {
  const res = await s.api(`/v1/${ns}/tables/${table}/rows`);
  expect(res.status, `${table}: ${await res.clone().text()}`).toBe(200);
  return (await res.json()).data as Array<Record<string, unknown>>;
};

/** Change events of a namespace as an SSE client receives them. */
async function subscribe(ns: string) {
  const abort = new AbortController();
  const res = await s.api(`/v1/${ns}/subscribe`, { headers: { accept: 'text/event-stream' }, signal: abort.signal });
  expect(res.status).toBe(200);
  const events: Array<{ event: string; data: { table: string; action: string; row: unknown; _meta: Record<string, unknown> } }> = [];
  let text = '';
  void (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += dec.decode(value, { stream: true });
        let i: number;
        while ((i = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, i);
          text = text.slice(i + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) events.push({ event, data: JSON.parse(data) });
        }
      }
    } catch {
      // closed
    }
  })();
  return {
    events,
    /** The events once at least `count` have arrived. */
    async until(count: number) {
      await until(
        () => events.length >= count,
        () => `${count} events (have ${events.length}: ${JSON.stringify(events)})`,
      );
      return events;
    },
    close: () => abort.abort(),
  };
}

const people = {
  type: 'table',
  name: 'people',
  columns: [
    { name: 'name', type: 'text' },
    { name: 'age', type: 'integer' },
    { name: 'city', type: 'text' },
  ],
};

async function withViews() {
  const ns = await freshNs();
  expect((await post(`/v1/${ns}/tables`, people)).status).toBe(201);
  expect((await post(`/v1/${ns}/tables`, { type: 'table', name: 'other', columns: [{ name: 'x', type: 'text' }] })).status).toBe(201);
  await post(`/v1/${ns}/tables/people/rows`, {
    rows: [
      { name: 'Ann', age: 30, city: 'Oslo' },
      { name: 'Kid', age: 9, city: 'Bergen' },
    ],
  });
  expect((await post(`/v1/${ns}/tables`, { type: 'view', name: 'adults', sql: 'SELECT name, age FROM people WHERE age >= 18' })).status).toBe(201);
  expect((await post(`/v1/${ns}/tables`, { type: 'view', name: 'adult_names', sql: 'SELECT name FROM adults' })).status).toBe(201);
  expect((await post(`/v1/${ns}/tables`, { type: 'view', name: 'cities', sql: 'SELECT DISTINCT city FROM people' })).status).toBe(201);
  return ns;
}

/** Everything still works: every view reads, and other tables can still be renamed and altered. */
async function healthy(ns: string) {
  for (const o of (await json(s.api(`/v1/${ns}/tables`))).data as Array<{ name: string; type: string }>) {
    if (o.type === 'view') await rows(ns, o.name);
  }
  const renamed = await put(`/v1/${ns}/tables/other`, { rename: 'other2' });
  expect(renamed.status, await renamed.clone().text()).toBe(200);
  const col = `c${++n}`;
  const added = await put(`/v1/${ns}/tables/other2`, { add_columns: [{ name: col, type: 'text' }] });
  expect(added.status, await added.clone().text()).toBe(200);
  const dropped = await put(`/v1/${ns}/tables/other2`, { drop_columns: [col] });
  expect(dropped.status, await dropped.clone().text()).toBe(200);
  expect((await put(`/v1/${ns}/tables/other2`, { rename: 'other' })).status).toBe(200);
}

describe('views depend on what they read', () => {
  it('dropping a table a view reads is 409 dependent_views naming the views; nothing changes', async () => {
    const ns = await withViews();
    const before = await changelog(ns);
    const res = await del(`/v1/${ns}/tables/people`);
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.error).toBe('dependent_views');
    expect(body.message).toContain('people');
    for (const v of ['adults', 'adult_names', 'cities']) expect(body.message).toContain(v);
    expect(await names(ns)).toEqual(['adult_names', 'adults', 'cities', 'other', 'people']);
    expect(await rows(ns, 'adult_names')).toEqual([{ name: 'Ann' }]);
    expect(await changelog(ns)).toEqual(before);
    await healthy(ns);
  });

  it('DELETE ?cascade=true drops the dependent views too, each recorded in the changelog and published', async () => {
    const ns = await withViews();
    const sse = await subscribe(ns);
    const res = await s.api(`/v1/${ns}/tables/people?cascade=true`, { method: 'DELETE', json: { _meta: { actor: 'dba' } } });
    expect(res.status, await res.clone().text()).toBe(204);
    expect(await names(ns)).toEqual(['other']);
    const log = await changelog(ns, '?limit=4');
    expect(log.map((e) => [e.action, e.table])).toEqual([
      ['drop_table', 'people'],
      ['drop_view', 'cities'],
      ['drop_view', 'adults'],
      ['drop_view', 'adult_names'],
    ]);
    expect(log[0]!.detail).toEqual({ dropped_views: ['adult_names', 'adults', 'cities'] });
    for (const e of log.slice(1)) {
      expect(e.detail).toEqual({ dropped_with: 'people' });
      expect(e._meta).toEqual({ actor: 'dba' });
    }
    const events = await sse.until(4);
    expect(events.map((e) => `${e.event}:${e.data.table}`)).toEqual(['drop_view:adult_names', 'drop_view:adults', 'drop_view:cities', 'drop_table:people']);
    expect(events[0]!.data).toMatchObject({ action: 'drop_view', row: null, _meta: { actor: 'dba' } });
    sse.close();
    await healthy(ns);
    expect((await s.api(`/v1/${ns}/tables/people?cascade=maybe`, { method: 'DELETE' })).status).toBe(400);
  });

  it('dropping a view another view reads is refused the same way, or cascades', async () => {
    const ns = await withViews();
    const res = await del(`/v1/${ns}/tables/adults`);
    expect(res.status).toBe(409);
    expect(await json(res)).toEqual({ error: 'dependent_views', message: expect.stringContaining('adult_names') });
    expect((await s.api(`/v1/${ns}/tables/adults?cascade=true`, { method: 'DELETE' })).status).toBe(204);
    expect(await names(ns)).toEqual(['cities', 'other', 'people']);
    // a view nothing reads is dropped without cascade
    expect((await del(`/v1/${ns}/tables/cities`)).status).toBe(204);
  });

  it.each([
    ['dropping', { drop_columns: ['age'] }, ['adults', 'adult_names']],
    ['renaming', { rename_columns: { age: 'years' } }, ['adults', 'adult_names']],
    ['renaming away and re-adding the name of', { rename_columns: { city: 'town' }, add_columns: [{ name: 'city', type: 'text' }] }, ['cities']],
    ['swapping', { rename_columns: { name: 'city', city: 'name' } }, ['adults', 'adult_names', 'cities']],
  ])('%s a column a view reads is 409 dependent_views naming the views; ?cascade=true drops them', async (_what, change, dependents) => {
    const ns = await withViews();
    const before = await changelog(ns);
    const res = await put(`/v1/${ns}/tables/people`, change);
    expect(res.status).toBe(409);
    const body = await res.json();
    expect(body.error).toBe('dependent_views');
    for (const v of dependents) expect(body.message).toContain(v);
    for (const v of ['adults', 'adult_names', 'cities'].filter((x) => !dependents.includes(x))) expect(body.message).not.toContain(v);
    expect((await json(s.api(`/v1/${ns}/tables/people`))).columns.map((c: { name: string }) => c.name)).toEqual([
      'id',
      'name',
      'age',
      'city',
      'created_at',
      'updated_at',
    ]);
    expect(await changelog(ns)).toEqual(before);
    await healthy(ns);

    const cascaded = await s.api(`/v1/${ns}/tables/people?cascade=true`, { method: 'PUT', json: change });
    expect(cascaded.status, await cascaded.clone().text()).toBe(200);
    const left = await names(ns);
    for (const v of dependents) expect(left).not.toContain(v);
    const log = await changelog(ns, `?limit=${dependents.length + 1}`);
    expect(log[0]!.action).toBe('update_table');
    expect(log.slice(1).map((e) => e.action)).toEqual(dependents.map(() => 'drop_view'));
    expect(
      log
        .slice(1)
        .map((e) => e.table)
        .sort(),
    ).toEqual([...dependents].sort());
    expect(log[0]!.detail.dropped_views).toEqual([...dependents].sort());
    await healthy(ns);
  });

  it('a SELECT * view follows its table; a view naming a column it loses depends on the change', async () => {
    const ns = await withViews();
    expect((await post(`/v1/${ns}/tables`, { type: 'view', name: 'everyone', sql: 'SELECT * FROM people' })).status).toBe(201);
    expect((await post(`/v1/${ns}/tables`, { type: 'view', name: 'ages', sql: 'SELECT age FROM everyone' })).status).toBe(201);
    const res = await s.api(`/v1/${ns}/tables/people?cascade=true`, { method: 'PUT', json: { drop_columns: ['age'] } });
    expect(res.status).toBe(200);
    expect((await changelog(ns, '?limit=1'))[0]!.detail.dropped_views).toEqual(['adult_names', 'adults', 'ages']);
    expect(Object.keys((await rows(ns, 'everyone'))[0]!)).toEqual(['id', 'name', 'city', 'created_at', 'updated_at']);
    await healthy(ns);
  });

  it('a column change no view reads keeps every view working', async () => {
    const ns = await withViews();
    const res = await put(`/v1/${ns}/tables/people`, { add_columns: [{ name: 'email', type: 'text' }] });
    expect(res.status).toBe(200);
    expect(await rows(ns, 'adults')).toEqual([{ name: 'Ann', age: 30 }]);
    await healthy(ns);
  });

  it('renaming a table keeps the views that read it working: SQLite rewrites them to the new name', async () => {
    const ns = await withViews();
    const res = await put(`/v1/${ns}/tables/people`, { rename: 'persons' });
    expect(res.status).toBe(200);
    const adults = await json(s.api(`/v1/${ns}/tables/adults`));
    expect(adults.sql).toBe('SELECT name, age FROM "persons" WHERE age >= 18');
    expect(adults.columns).toEqual([
      { name: 'name', type: 'text' },
      { name: 'age', type: 'integer' },
    ]);
    expect(await rows(ns, 'adults')).toEqual([{ name: 'Ann', age: 30 }]);
    expect(await rows(ns, 'adult_names')).toEqual([{ name: 'Ann' }]);
    expect((await rows(ns, 'cities')).map((r) => r.city).sort()).toEqual(['Bergen', 'Oslo']);
    // a case-only rename too (it goes through a temporary name)
    expect((await put(`/v1/${ns}/tables/persons`, { rename: 'Persons' })).status).toBe(200);
    expect((await json(s.api(`/v1/${ns}/tables/adults`))).sql).toBe('SELECT name, age FROM "Persons" WHERE age >= 18');
    expect(await rows(ns, 'adult_names')).toEqual([{ name: 'Ann' }]);
    // and a table with a full-text index
    expect((await post(`/v1/${ns}/tables/Persons/indexes`, { type: 'fts', columns: ['name'] })).status).toBe(201);
    expect((await put(`/v1/${ns}/tables/Persons`, { rename: 'people' })).status).toBe(200);
    expect(await rows(ns, 'adults')).toEqual([{ name: 'Ann', age: 30 }]);
    expect((await json(s.api(`/v1/${ns}/tables/people/rows?search=ann`))).data).toHaveLength(1);
    await healthy(ns);
  });

  it('renaming a view, or changing its sql, that another view reads is refused the same way, or cascades', async () => {
    const ns = await withViews();
    const renamed = await put(`/v1/${ns}/tables/adults`, { rename: 'grown_ups' });
    expect(renamed.status).toBe(409);
    expect(await json(renamed)).toEqual({ error: 'dependent_views', message: expect.stringContaining('adult_names') });
    const resql = await put(`/v1/${ns}/tables/adults`, { sql: 'SELECT age FROM people' });
    expect(resql.status).toBe(409);
    expect((await json(resql)).error).toBe('dependent_views');
    expect(await names(ns)).toEqual(['adult_names', 'adults', 'cities', 'other', 'people']);
    // a new sql that keeps the columns the other view reads is fine
    expect((await put(`/v1/${ns}/tables/adults`, { sql: 'SELECT name, age FROM people WHERE age >= 21' })).status).toBe(200);
    expect(await rows(ns, 'adult_names')).toEqual([{ name: 'Ann' }]);
    expect((await s.api(`/v1/${ns}/tables/adults?cascade=true`, { method: 'PUT', json: { rename: 'grown_ups' } })).status).toBe(200);
    expect(await names(ns)).toEqual(['cities', 'grown_ups', 'other', 'people']);
    await healthy(ns);
  });

  it('a view that was already broken in an imported file blocks nothing it does not read, and is not blamed', async () => {
    const file = path.join(work, 'broken-view.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);
      CREATE TABLE gone (id INTEGER PRIMARY KEY);
      CREATE VIEW stale AS SELECT id FROM gone;
      CREATE VIEW names AS SELECT name FROM people;
      INSERT INTO people (name) VALUES ('Ann');`);
    db.pragma('legacy_alter_table = ON');
    db.exec('DROP TABLE gone');
    db.close();
    const ns = await freshNs();
    const m = multipart([{ name: 'file', filename: 'b.db', data: fs.readFileSync(file) }]);
    expect((await s.api(`/v1/namespaces/${ns}/import`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } })).status).toBe(200);
    expect((await post(`/v1/${ns}/tables`, { type: 'table', name: 'other', columns: [{ name: 'x', type: 'text' }] })).status).toBe(201);
    const altered = await put(`/v1/${ns}/tables/other`, { drop_columns: ['x'], add_columns: [{ name: 'y', type: 'text' }] });
    expect(altered.status, await altered.clone().text()).toBe(200);
    expect((await del(`/v1/${ns}/tables/other`)).status).toBe(204);
    // dropping a table the healthy view reads still names only that view
    const refused = await del(`/v1/${ns}/tables/people`);
    expect(refused.status).toBe(409);
    const msg = (await refused.json()).message as string;
    expect(msg).toContain('names');
    expect(msg).not.toContain('stale');
    // a rename SQLite cannot do while the broken view exists is a clear 409, not a 500
    const rename = await put(`/v1/${ns}/tables/people`, { rename: 'persons' });
    expect(rename.status, await rename.clone().text()).toBe(409);
    expect((await rename.json()).message).toContain('stale');
    expect((await del(`/v1/${ns}/tables/stale`)).status).toBe(204);
    expect((await put(`/v1/${ns}/tables/people`, { rename: 'persons' })).status).toBe(200);
    expect(await rows(ns, 'names')).toEqual([{ name: 'Ann' }]);
  });
});

describe('indexes dropped with their columns', () => {
  it('records each index a column drop removes in the changelog and publishes it', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, {
      type: 'table',
      name: 'docs',
      columns: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'text' },
        { name: 'tag', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
    });
    await post(`/v1/${ns}/tables/docs/rows`, {
      rows: [
        { title: 'Tea', body: 'green tea', tag: 'a', n: 1 },
        { title: 'Coffee', body: 'black', tag: 'b', n: 2 },
      ],
    });
    for (const ix of [
      { type: 'index', name: 'by_tag', columns: ['tag'] },
      { type: 'unique', name: 'tag_n', columns: ['tag', 'n'] },
      { type: 'index', name: 'by_n', columns: ['n'] },
      { type: 'fts', columns: ['body'] },
    ])
      expect((await post(`/v1/${ns}/tables/docs/indexes`, ix)).status).toBe(201);
    const sse = await subscribe(ns);
    const res = await put(`/v1/${ns}/tables/docs`, { drop_columns: ['tag', 'body'], _meta: { actor: 'dba' } });
    expect(res.status).toBe(200);
    expect((await res.json()).indexes).toEqual([{ name: 'by_n', type: 'index', columns: ['n'] }]);
    const log = await changelog(ns, '?limit=4');
    expect(log.map((e) => [e.action, e.table, e.detail])).toEqual([
      ['update_table', 'docs', { from: 'docs', drop_columns: ['tag', 'body'] }],
      ['drop_index', 'docs', { name: 'fts', type: 'fts', columns: ['body'], dropped_with: ['body'] }],
      ['drop_index', 'docs', { name: 'tag_n', type: 'unique', columns: ['tag', 'n'], dropped_with: ['tag'] }],
      ['drop_index', 'docs', { name: 'by_tag', type: 'index', columns: ['tag'], dropped_with: ['tag'] }],
    ]);
    for (const e of log) expect(e._meta).toEqual({ actor: 'dba' });
    const events = await sse.until(4);
    expect(events.map((e) => e.event)).toEqual(['drop_index', 'drop_index', 'drop_index', 'update_table']);
    expect(events.every((e) => e.data.table === 'docs' && e.data._meta.actor === 'dba')).toBe(true);
    sse.close();
  });

  it('a full-text index that keeps some of its columns is recorded as dropped and created again over them', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, {
      type: 'table',
      name: 'docs',
      columns: [
        { name: 'title', type: 'text' },
        { name: 'body', type: 'text' },
      ],
    });
    await post(`/v1/${ns}/tables/docs/rows`, { title: 'Tea', body: 'green' });
    await post(`/v1/${ns}/tables/docs/indexes`, { type: 'fts', columns: ['title', 'body'] });
    expect((await put(`/v1/${ns}/tables/docs`, { drop_columns: ['body'] })).status).toBe(200);
    const log = await changelog(ns, '?limit=3');
    expect(log.map((e) => [e.action, e.detail])).toEqual([
      ['update_table', { from: 'docs', drop_columns: ['body'] }],
      ['create_index', { type: 'fts', columns: ['title'] }],
      ['drop_index', { name: 'fts', type: 'fts', columns: ['title', 'body'], dropped_with: ['body'] }],
    ]);
    expect((await json(s.api(`/v1/${ns}/tables/docs/rows?search=tea`))).data).toHaveLength(1);
    // renaming a column moves its indexes along: nothing is dropped
    await post(`/v1/${ns}/tables/docs/indexes`, { type: 'index', name: 'by_title', columns: ['title'] });
    const renamed = await put(`/v1/${ns}/tables/docs`, { rename_columns: { title: 'heading' } });
    expect((await renamed.json()).indexes).toEqual([
      { name: 'by_title', type: 'index', columns: ['heading'] },
      { name: 'fts', type: 'fts', columns: ['heading'] },
    ]);
    expect((await changelog(ns, '?limit=1'))[0]!.action).toBe('update_table');
    expect((await changelog(ns, '?limit=2'))[1]!.action).toBe('create_index');
  });
});

describe('renames to the same name', () => {
  it('renaming a table or a column to its own name changes nothing: 200, no changelog entry, no event', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, people);
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'v', sql: 'SELECT name FROM people' });
    await post(`/v1/${ns}/tables/people/rows`, { name: 'Ann', age: 3 });
    const before = await changelog(ns);
    const schemaBefore = await json(s.api(`/v1/${ns}/tables/people`));
    const sse = await subscribe(ns);
    for (const [table, body] of [
      ['people', { rename: 'people' }],
      ['people', { rename_columns: { age: 'age' } }],
      ['people', { rename: 'people', rename_columns: { age: 'age', name: 'name' }, _meta: { actor: 'x' } }],
      ['v', { rename: 'v' }],
    ] as const) {
      const res = await put(`/v1/${ns}/tables/${table}`, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      if (table === 'people') expect(await res.json()).toEqual(schemaBefore);
    }
    expect(await changelog(ns)).toEqual(before);
    // the next real change is the first event the subscriber sees
    expect((await put(`/v1/${ns}/tables/people`, { rename: 'people', metadata: { label: 'P' } })).status).toBe(200);
    const events = await sse.until(1);
    expect(events.map((e) => e.event)).toEqual(['update_table']);
    sse.close();
    const log = await changelog(ns);
    expect(log).toHaveLength(before.length + 1);
    expect(log[0]!.detail).toEqual({ from: 'people', metadata: { label: 'P' } });
    expect(await rows(ns, 'people')).toHaveLength(1);
  });
});

describe('the changelog of a renamed table', () => {
  it('?table= follows the whole chain of renames, but not a later table that took an old name', async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, { type: 'table', name: 't0', columns: [{ name: 'a', type: 'text' }] });
    await post(`/v1/${ns}/tables/t0/indexes`, { type: 'index', name: 'ix_a', columns: ['a'] });
    await put(`/v1/${ns}/tables/t0`, { rename: 't1' });
    await put(`/v1/${ns}/tables/t1`, { metadata: { step: 1 } });
    await put(`/v1/${ns}/tables/t1`, { rename: 't2' });
    // another table takes the old names afterwards
    await post(`/v1/${ns}/tables`, { type: 'table', name: 't1', columns: [] });
    await put(`/v1/${ns}/tables/t1`, { metadata: { other: true } });
    await post(`/v1/${ns}/tables`, { type: 'table', name: 't0', columns: [] });
    await put(`/v1/${ns}/tables/t2`, { add_columns: [{ name: 'b', type: 'text' }] });

    const t2 = await changelog(ns, '?table=t2');
    expect(t2.map((e) => [e.action, e.table, e.detail.from ?? e.detail.name ?? null])).toEqual([
      ['update_table', 't2', 't2'],
      ['update_table', 't2', 't1'],
      ['update_table', 't1', 't1'],
      ['update_table', 't1', 't0'],
      ['create_index', 't0', 'ix_a'],
      ['create_table', 't0', null],
    ]);
    const t1 = await changelog(ns, '?table=t1');
    expect(t1.map((e) => [e.action, e.detail])).toEqual([
      ['update_table', { from: 't1', metadata: { other: true } }],
      ['create_table', { columns: [], metadata: {} }],
    ]);
    expect((await changelog(ns, '?table=t0')).map((e) => e.action)).toEqual(['create_table']);
    // paging applies to the followed history
    expect((await changelog(ns, '?table=t2&limit=2&offset=3')).map((e) => e.id)).toEqual([t2[3]!.id, t2[4]!.id]);

    // further renames extend the same history, and a view's rename is followed too
    await put(`/v1/${ns}/tables/t2`, { rename: 't9' });
    await put(`/v1/${ns}/tables/t9`, { rename: 't2x' });
    expect((await changelog(ns, '?table=t2x')).length).toBe(t2.length + 2);
    await post(`/v1/${ns}/tables`, { type: 'view', name: 'v1', sql: 'SELECT 1 AS one' });
    await put(`/v1/${ns}/tables/v1`, { rename: 'v2' });
    expect((await changelog(ns, '?table=v2')).map((e) => e.action)).toEqual(['update_table', 'create_view']);
  });

  it("a dropped table's history ends at its drop; a table created again under its name starts afresh", async () => {
    const ns = await freshNs();
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'old', columns: [] });
    await put(`/v1/${ns}/tables/old`, { rename: 'gone' });
    await del(`/v1/${ns}/tables/gone`);
    expect((await changelog(ns, '?table=gone')).map((e) => e.action)).toEqual(['drop_table', 'update_table', 'create_table']);
    await post(`/v1/${ns}/tables`, { type: 'table', name: 'gone', columns: [] });
    expect((await changelog(ns, '?table=gone')).map((e) => e.action)).toEqual(['create_table']);
  });
});
