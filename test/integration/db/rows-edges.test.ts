// Rows at the edges: filters on blob columns, SQLite's own constraint and size errors on writes (from imported files
// whose tables carry triggers, generated columns, STRICT types and virtual tables), and row bodies whose keys
// JavaScript treats specially.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

let s: TestServer;
let work: string;
let n = 0;
beforeAll(async () => {
  s = await startTestServer();
  work = tempDir('hearth-rows-');
});
afterAll(async () => {
  await s.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

async function freshNs() {
  const name = `edge${++n}`;
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name } })).status).toBe(201);
  return name;
}
const post = (p: string, json: unknown) => s.api(p, { method: 'POST', json });
/** Sends `text` as the JSON body, byte for byte (so keys such as __proto__ arrive as written). */
const raw = (method: string, p: string, text: string, headers: Record<string, string> = {}) =>
  s.api(p, { method, body: text, headers: { 'content-type': 'application/json', ...headers } });
const query = (p: string, params: Record<string, string>) => s.api(`${p}?${new URLSearchParams(params)}`);

describe('filters on blob columns compare the decoded bytes', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await freshNs();
    expect(
      (
        await post(`/v1/${ns}/tables`, {
          type: 'table',
          name: 'files',
          columns: [
            { name: 'label', type: 'text' },
            { name: 'b', type: 'blob' },
          ],
        })
      ).status,
    ).toBe(201);
    const res = await post(`/v1/${ns}/tables/files/rows`, {
      rows: [
        { label: 'a', b: 'AP8=' }, // 00 ff
        { label: 'b', b: 'AAEC' }, // 00 01 02
        { label: 'c', b: null },
        { label: 'd', b: '-_8' }, // fb ff, URL-safe without padding
      ],
    });
    expect(res.status).toBe(201);
  });
  const labels = async (params: Record<string, string>, p = `/v1/${ns}/tables/files/rows`) => {
    const res = await query(p, { order: 'id', ...params });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    return ((Array.isArray(body) ? body : body.data) as Array<{ label: string }>).map((r) => r.label);
  };

  it.each([
    [{ b: 'eq.AP8=' }, ['a']],
    [{ b: 'eq.AP8' }, ['a']],
    [{ b: 'eq.+/8=' }, ['d']],
    [{ b: 'eq.-_8=' }, ['d']],
    [{ b: 'eq. /8=' }, ['d']], // a "+" sent unencoded arrives as a space
    [{ b: 'neq.AP8=' }, ['b', 'd']],
    [{ b: 'not.eq.AAEC' }, ['a', 'd']],
    [{ b: 'in.(AP8=,AAEC)' }, ['a', 'b']],
    [{ b: 'not.in.(AP8=)' }, ['b', 'd']],
    [{ b: 'isdistinct.AP8=' }, ['b', 'c', 'd']],
    [{ b: 'is.null' }, ['c']],
    [{ b: 'not.is.null' }, ['a', 'b', 'd']],
    [{ b: 'gt.AP8=' }, ['d']],
    [{ or: '(b.eq.AAEC,b.eq.-_8)' }, ['b', 'd']],
    [{ b: 'eq.' }, []],
  ])('%j matches %j', async (params, expected) => {
    expect(await labels(params)).toEqual(expected);
  });

  it('on the PostgREST surface, in writes by filter and in CSV export too', async () => {
    expect(await labels({ b: 'eq.AP8=' }, `/v1/${ns}/rest/files`)).toEqual(['a']);
    const patched = await s.api(`/v1/${ns}/tables/files/rows?${new URLSearchParams({ b: 'eq.AAEC' })}`, { method: 'PATCH', json: { label: 'b2' } });
    expect(await patched.json()).toEqual({ count: 1 });
    const csv = await query(`/v1/${ns}/tables/files/export`, { format: 'csv', select: 'label,b', b: 'in.(AAEC,-_8)' });
    expect(await csv.text()).toBe('label,b\r\nb2,AAEC\r\nd,+/8=\r\n');
  });

  it.each(['@@@', 'A', 'AP8==', 'A=P8', 'AP8=AP8='])('%j is not base64: 400 invalid_filter', async (value) => {
    for (const params of [{ b: `eq.${value}` }, { b: `in.(AAEC,${value})` }, { or: `(b.eq.${value})` }] as Array<Record<string, string>>) {
      const res = await query(`/v1/${ns}/tables/files/rows`, params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(await res.json()).toEqual({ error: 'invalid_filter', message: expect.stringContaining('base64') });
    }
  });
});

describe('SQLite refusing a write is a 4xx, never a 500', () => {
  let ns: string;
  beforeAll(async () => {
    const file = path.join(work, 'constraints.db');
    const db = new Database(file);
    db.exec(`
      CREATE TABLE big (id INTEGER PRIMARY KEY, n INTEGER, g BLOB GENERATED ALWAYS AS (zeroblob(n)) STORED);
      CREATE TABLE typed (id INTEGER PRIMARY KEY, v INTEGER, g INTEGER GENERATED ALWAYS AS (v || 'x') STORED) STRICT;
      CREATE TABLE doubled (id INTEGER PRIMARY KEY, v INTEGER, g INTEGER GENERATED ALWAYS AS (v * 2) STORED CHECK (g < 100));
      CREATE TABLE labelled (id INTEGER PRIMARY KEY, v TEXT, g TEXT GENERATED ALWAYS AS (nullif(v, 'none')) STORED NOT NULL);
      CREATE TABLE guarded (id INTEGER PRIMARY KEY, v INTEGER);
      CREATE TRIGGER guard_abort BEFORE INSERT ON guarded WHEN new.v < 0 BEGIN SELECT RAISE(ABORT, 'v must not be negative'); END;
      CREATE TRIGGER guard_fail BEFORE INSERT ON guarded WHEN new.v = 13 BEGIN SELECT RAISE(FAIL, 'thirteen is unlucky'); END;
      CREATE TRIGGER guard_rollback BEFORE UPDATE ON guarded WHEN new.v > 1000 BEGIN SELECT RAISE(ROLLBACK, 'at most 1000'); END;
      CREATE TRIGGER guard_delete BEFORE DELETE ON guarded WHEN old.v = 7 BEGIN SELECT RAISE(ABORT, 'seven stays'); END;
      CREATE TABLE events (id INTEGER PRIMARY KEY, word TEXT);
      CREATE TABLE log (id INTEGER PRIMARY KEY, note TEXT);
      CREATE TABLE slots (k TEXT);
      CREATE VIRTUAL TABLE words USING fts5(w);
      INSERT INTO words VALUES ('x y');
      CREATE TRIGGER ev_mismatch AFTER INSERT ON events WHEN new.word = 'mismatch' BEGIN INSERT INTO log (id) VALUES ('not an integer'); END;
      CREATE TRIGGER ev_range AFTER INSERT ON events WHEN new.word = 'range' BEGIN INSERT INTO log (note) SELECT snippet(words, 5, '[', ']', '', 3) FROM words WHERE words MATCH 'x'; END;
      CREATE TRIGGER ev_rowid AFTER INSERT ON events WHEN new.word = 'rowid' BEGIN INSERT INTO slots (rowid, k) VALUES (1, 'a'); INSERT INTO slots (rowid, k) VALUES (1, 'b'); END;
      CREATE TRIGGER ev_overflow AFTER INSERT ON events WHEN new.word = 'overflow' BEGIN INSERT INTO log (note) SELECT sum(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 1); END;
      CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx);
      CREATE TABLE notes (id INTEGER PRIMARY KEY, v TEXT);
      CREATE TABLE gone (id INTEGER PRIMARY KEY, x TEXT);
      CREATE TRIGGER notes_gone AFTER INSERT ON notes BEGIN INSERT INTO gone (x) VALUES (new.v); END;
      DROP TABLE gone;
      CREATE TABLE tiles (id INTEGER PRIMARY KEY, v TEXT);
      CREATE TRIGGER tiles_ntile AFTER INSERT ON tiles BEGIN INSERT INTO log (note) SELECT ntile(0) OVER () FROM (SELECT 1); END;
      INSERT INTO guarded (id, v) VALUES (1, 5), (2, 7);
    `);
    db.close();
    ns = await freshNs();
    const m = multipart([{ name: 'file', filename: 'constraints.db', data: fs.readFileSync(file) }]);
    const res = await s.api(`/v1/namespaces/${ns}/import`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    expect(res.status).toBe(200);
  });

  const count = (table: string) => s.services.db.namespaces.connection(ns).prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;

  it.each([
    // [what SQLite says, method, path, status, error, message, body]
    ['SQLITE_TOOBIG from a generated column', 'POST', 'big/rows', 400, 'value_too_large', /big: .*string or blob too big/, { n: 2_000_000_000 }],
    ['SQLITE_TOOBIG on update', 'PATCH', 'big/rows?id=eq.1', 400, 'value_too_large', /string or blob too big/, { n: 2_000_000_000 }],
    [
      'SQLITE_CONSTRAINT_DATATYPE from a STRICT generated column',
      'POST',
      'typed/rows',
      400,
      'datatype_mismatch',
      /cannot store TEXT value in INTEGER column typed\.g/,
      { v: 1 },
    ],
    ['SQLITE_CONSTRAINT_CHECK on a generated column', 'POST', 'doubled/rows', 400, 'check_violation', /g < 100/, { v: 60 }],
    ['SQLITE_CONSTRAINT_NOTNULL on a generated column', 'POST', 'labelled/rows', 400, 'not_null_violation', /labelled\.g must not be null/, { v: 'none' }],
    ['SQLITE_CONSTRAINT_TRIGGER from RAISE(ABORT)', 'POST', 'guarded/rows', 400, 'trigger_violation', /v must not be negative/, { v: -1 }],
    ['SQLITE_CONSTRAINT_TRIGGER from RAISE(FAIL)', 'POST', 'guarded/rows', 400, 'trigger_violation', /thirteen is unlucky/, { rows: [{ v: 1 }, { v: 13 }] }],
    ['SQLITE_CONSTRAINT_TRIGGER from RAISE(ROLLBACK)', 'PATCH', 'guarded/rows', 400, 'trigger_violation', /at most 1000/, { v: 5000 }],
    ['SQLITE_CONSTRAINT_TRIGGER on PUT', 'PUT', 'guarded/rows/1', 400, 'trigger_violation', /at most 1000/, { v: 5000 }],
    ['SQLITE_CONSTRAINT_TRIGGER on delete', 'DELETE', 'guarded/rows?v=eq.7', 400, 'trigger_violation', /seven stays/, undefined],
    ['SQLITE_MISMATCH from a trigger', 'POST', 'events/rows', 400, 'datatype_mismatch', /datatype mismatch/, { word: 'mismatch' }],
    ['SQLITE_RANGE from a trigger', 'POST', 'events/rows', 400, 'value_out_of_range', /column index out of range/, { word: 'range' }],
    ['SQLITE_CONSTRAINT_ROWID from a trigger', 'POST', 'events/rows', 409, 'unique_violation', /rowid/, { word: 'rowid' }],
    ['integer overflow from a trigger', 'POST', 'events/rows', 400, 'value_too_large', /integer overflow/, { word: 'overflow' }],
    [
      'SQLITE_CONSTRAINT from a virtual table (R*Tree)',
      'POST',
      'boxes/rows',
      400,
      'constraint_violation',
      /rtree constraint failed/,
      { id: 1, minx: 5, maxx: 1 },
    ],
    ['SQLITE_ERROR from a trigger naming a dropped table', 'POST', 'notes/rows', 409, 'conflict', /no such table: main\.gone/, { v: 'x' }],
    ['SQLITE_ERROR from a function a trigger calls', 'POST', 'tiles/rows', 409, 'conflict', /ntile/, { v: 'x' }],
  ] as const)('%s: %s %s is %i %s', async (_what, method, p, status, error, message, body) => {
    const table = p.split('/')[0]!;
    const before = count(table);
    const logBefore = count('log');
    if (table === 'big' && method === 'PATCH') expect((await post(`/v1/${ns}/tables/big/rows`, { id: 1, n: 3 })).status).toBe(201);
    const res = await s.api(`/v1/${ns}/tables/${p}`, { method, json: body });
    const got = await res.json();
    expect(res.status, JSON.stringify(got)).toBe(status);
    expect(got).toEqual({ error, message: expect.stringMatching(message) });
    // nothing was written
    expect(count(table)).toBe(table === 'big' && method === 'PATCH' ? before + 1 : before);
    expect(count('log')).toBe(logBefore);
  });

  it('the PostgREST surface and CSV import answer the same', async () => {
    const rest = await raw('POST', `/v1/${ns}/rest/guarded`, '[{"v": 2}, {"v": -5}]');
    expect(rest.status).toBe(400);
    expect((await rest.json()).error).toBe('trigger_violation');
    const m = multipart([{ name: 'file', filename: 'g.csv', data: 'v\n3\n-4\n' }]);
    const csv = await s.api(`/v1/namespaces/${ns}/import?table=guarded`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    expect(csv.status).toBe(400);
    expect(await csv.json()).toEqual({ error: 'trigger_violation', message: expect.stringContaining('v must not be negative') });
    expect(count('guarded')).toBe(2);
  });
});

describe('row bodies with __proto__', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await freshNs();
    expect((await post(`/v1/${ns}/tables`, { type: 'table', name: 't', columns: [{ name: 'a', type: 'integer' }] })).status).toBe(201);
    expect((await post(`/v1/${ns}/tables/t/rows`, { a: 1 })).status).toBe(201);
  });
  const rowsNow = async () => (await (await s.api(`/v1/${ns}/tables/t/rows?select=id,a`)).json()).data;

  it.each([
    ['POST one row', 'POST', 'tables/t/rows', '{"__proto__": 1, "a": 2}'],
    ['POST one row (object value)', 'POST', 'tables/t/rows', '{"a": 2, "__proto__": {"a": 3}}'],
    ['POST {rows}', 'POST', 'tables/t/rows', '{"rows": [{"a": 2}, {"__proto__": 1, "a": 3}]}'],
    ['PUT one row', 'PUT', 'tables/t/rows/1', '{"__proto__": 1, "a": 2}'],
    ['PATCH by filter', 'PATCH', 'tables/t/rows?a=eq.1', '{"__proto__": 1, "a": 2}'],
    ['PATCH with only __proto__', 'PATCH', 'tables/t/rows', '{"__proto__": {"a": 9}}'],
    ['/rest POST one row', 'POST', 'rest/t', '{"__proto__": 1, "a": 2}'],
    ['/rest POST an array', 'POST', 'rest/t', '[{"a": 2}, {"__proto__": null, "a": 3}]'],
    ['/rest PATCH', 'PATCH', 'rest/t?a=eq.1', '{"__proto__": 1, "a": 2}'],
  ])('%s: 400 unknown_column, nothing written', async (_what, method, p, body) => {
    const before = await rowsNow();
    const res = await raw(method, `/v1/${ns}/${p}`, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'unknown_column', message: 't has no column "__proto__"' });
    expect(await rowsNow()).toEqual(before);
  });

  it('beside "rows" it is an unknown envelope key', async () => {
    const res = await raw('POST', `/v1/${ns}/tables/t/rows`, '{"rows": [{"a": 2}], "__proto__": 1}');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining('"__proto__"'), in: 'body' });
  });
});
