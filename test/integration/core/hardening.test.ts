/**
 * Defects found from outside by a hostile or careless client, each reproduced here (issue "one malformed upload ends
 * the whole server; and nine smaller defects"): error messages that echo a huge value whole, control characters and
 * bidirectional overrides in names, control-plane reads that ignore unknown query keys, a long filter list answered
 * as a conflict, a tenant reading the server's file paths, answers without `X-Content-Type-Options: nosniff`.
 * The broken uploads are broken-streams.test.ts's; the OpenAPI content types openapi-contract.test.ts's; the full
 * disk db/disk-full.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LIST_VALUES } from '../../../server/db/rows/grammar.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let tenant: string;

beforeAll(async () => {
  s = await startTestServer();
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'ns' } })).status).toBe(201);
  const t = await s.api('/v1/ns/tables', {
    method: 'POST',
    json: {
      type: 'table',
      name: 't',
      columns: [
        { name: 'a', type: 'text' },
        { name: 'n', type: 'integer' },
      ],
    },
  });
  expect(t.status).toBe(201);
  const rows = Array.from({ length: 50 }, (_, i) => ({ a: `v${i}`, n: i }));
  expect((await s.api('/v1/ns/tables/t/rows', { method: 'POST', json: { rows } })).status).toBe(201);
  const tok = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'tenant', scope: 'namespaces', namespaces: ['ns'] } });
  expect(tok.status).toBe(201);
  tenant = (await tok.json()).token;
});
afterAll(async () => {
  await s?.stop();
});

async function answer(res: Response | Promise<Response>) {
  const r = await res;
  const text = await r.text();
  return { status: r.status, text, body: text ? JSON.parse(text) : undefined, headers: r.headers };
}

describe('error messages quote at most 100 characters of a value', () => {
  const huge = 'k'.repeat(1_048_576);

  it('a 1 MiB unknown key in a row body: a short 400 that names the key cut with an ellipsis and its length', async () => {
    const r = await answer(s.api('/v1/ns/tables/t/rows', { method: 'POST', json: { [huge]: 1 } }));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unknown_column');
    expect(r.text.length).toBeLessThan(1000);
    expect(r.body.message).toContain(`"${'k'.repeat(100)}…" (1048576 characters)`);
  });

  it('a huge unknown key in a strict control-plane body', async () => {
    const key = 'q'.repeat(60_000);
    const r = await answer(s.api('/v1/namespaces', { method: 'POST', json: { name: 'x1', [key]: true } }));
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`body: unknown key "${'q'.repeat(100)}…" (60000 characters)`);
  });

  it('a huge filter value, an unknown column in a filter and a huge select item', async () => {
    const v = 'z'.repeat(10_000);
    for (const target of [
      `/v1/ns/tables/t/rows?n=eq.${v}`,
      `/v1/ns/tables/t/rows?${v}=eq.1`,
      `/v1/ns/tables/t/rows?select=${v}::text`,
      `/v1/ns/tables/t/rows?or=(${v}`,
    ]) {
      const r = await answer(s.api(target));
      expect(r.status, target.slice(0, 60)).toBe(400);
      expect(r.text.length, target.slice(0, 60)).toBeLessThan(1000);
      expect(r.body.message).toMatch(/…" \(\d+ characters\)/);
    }
  });

  it('short values are quoted whole, as before', async () => {
    const r = await answer(s.api('/v1/ns/tables/t/rows?n=eq.abc'));
    expect(r.body).toEqual({ error: 'invalid_filter', message: 'n is integer: "abc" is not a number' });
  });
});

describe('human-readable names: no control characters, bidirectional overrides or unpaired surrogates', () => {
  const bad: Array<[string, string]> = [
    ['a right-to-left override and a NUL', 'adm\u202enimda\u0000x'],
    ['a NUL', 'a\u0000b'],
    ['an escape', 'a\u001b[31mred'],
    ['a C1 control', 'a\u0085b'],
    ['a left-to-right isolate', 'a\u2066b'],
    ['a line separator', 'a\u2028b'],
    ['a lone high surrogate', 'a\ud800b'],
    ['a lone low surrogate', 'a\udc00b'],
  ];
  const creations: Array<[string, string, (name: string) => unknown]> = [
    ['an API token', '/api/admin/tokens', (name) => ({ name, scope: 'admin' })],
    ['an OAuth client', '/api/admin/oauth/clients', (name) => ({ name, redirectUris: ['http://localhost/cb'] })],
    ['a service account (appId)', '/api/admin/core/service-accounts', (name) => ({ appId: name, resourceType: 'namespace', resourceId: 'ns' })],
    ['an account (displayName)', '/api/admin/core/accounts', (name) => ({ login: 'someone', displayName: name })],
    ['a mail application', '/api/admin/core/outgoing-mail/apps', (name) => ({ appId: 'app-x', name })],
  ];

  it.each(creations)('%s: each bad name is 400 invalid_request naming the character, and nothing is stored', async (_, target, body) => {
    const before = await answer(s.api(target));
    for (const [what, name] of bad) {
      const r = await answer(s.api(target, { method: 'POST', json: body(name) }));
      expect(r.status, `${what}: ${r.text}`).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.message, what).toMatch(
        /must be plain (one-line )?text: it contains an? (control character|bidirectional control|line separator|unpaired surrogate) \(U\+[0-9A-F]{4}\) at character \d+/,
      );
    }
    const after = await answer(s.api(target));
    expect(after.body).toEqual(before.body);
  });

  it('an OAuth client description may span lines, but takes no override', async () => {
    const ok = await answer(
      s.api('/api/admin/oauth/clients', {
        method: 'POST',
        json: { name: 'Wiki 📚', description: 'line one\nline two\ttab', redirectUris: ['http://localhost/cb'] },
      }),
    );
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.client.name).toBe('Wiki 📚');
    const bidi = await answer(
      s.api('/api/admin/oauth/clients', { method: 'POST', json: { name: 'Wiki', description: 'x\u202ey', redirectUris: ['http://localhost/cb'] } }),
    );
    expect(bidi.status).toBe(400);
    expect(bidi.body.message).toMatch(/^body: description: description must be plain text: it contains a bidirectional control \(U\+202E\) at character 2/);
  });

  it('names with emoji and accents (paired surrogates) are kept', async () => {
    const r = await answer(s.api('/api/admin/tokens', { method: 'POST', json: { name: 'Zoë’s laptop 💻', scope: 'admin' } }));
    expect(r.status, r.text).toBe(201);
    expect(r.body.name).toBe('Zoë’s laptop 💻');
  });
});

describe('control-plane reads refuse unknown query keys', () => {
  it.each(['/v1/namespaces/ns?foo=1', '/v1/namespaces/ns/export?foo=1', '/v1/namespaces?foo=1', '/v1/ns/tables/t/rows/1?foo=1', '/api/admin/tokens?foo=1'])(
    '%s: 400 naming the key',
    async (target) => {
      const r = await answer(s.api(target));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: 'invalid_request', message: 'query: unknown key "foo"', in: 'query' });
    },
  );

  it('the rows listing still reads an unknown key as a column filter, and non-API pages ignore query keys', async () => {
    expect((await answer(s.api('/v1/ns/tables/t/rows?foo=eq.1'))).body.error).toBe('unknown_column');
    expect((await answer(s.api('/v1/ns/tables/t/rows?a=eq.v3'))).body.data).toHaveLength(1);
    expect((await s.api('/v1/ns/tables/t/rows/1')).status).toBe(200);
    expect((await s.api('/healthz?nocache=1', { token: null })).status).toBe(200);
  });
});

describe('a long list in a filter', () => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => String(i % 10)).join(',');

  it(`more than ${MAX_LIST_VALUES} values is 400 invalid_filter naming the limit, not a conflict`, async () => {
    for (const target of [
      `/v1/ns/tables/t/rows?n=in.(${list(6001)})`,
      `/v1/ns/tables/t/rows?n=eq(any).{${list(6001)}}`,
      `/v1/ns/rest/t?n=in.(${list(6001)})`,
    ]) {
      const r = await answer(s.api(target));
      expect(r.status, target.slice(0, 50)).toBe(400);
      expect(r.body.error).toBe('invalid_filter');
      expect(r.body.message).toMatch(new RegExp(`has 6001 values: at most ${MAX_LIST_VALUES} values in one list`));
    }
  });

  it(`${MAX_LIST_VALUES} values work, with in, (any) and (all), on reads and bulk writes`, async () => {
    const l = list(MAX_LIST_VALUES);
    const inList = await answer(s.api(`/v1/ns/tables/t/rows?n=in.(${l})&limit=1000`));
    expect(inList.status, inList.text.slice(0, 200)).toBe(200);
    expect(inList.body.data).toHaveLength(10);
    const any = await answer(s.api(`/v1/ns/tables/t/rows?n=eq(any).{${l}}&limit=1000`));
    expect(any.status, any.text.slice(0, 200)).toBe(200);
    expect(any.body.data.map((r: { n: number }) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const all = await answer(s.api(`/v1/ns/tables/t/rows?n=lt(all).{${Array(MAX_LIST_VALUES).fill('3').join(',')}}&limit=1000`));
    expect(all.status, all.text.slice(0, 200)).toBe(200);
    expect(all.body.data.map((r: { n: number }) => r.n)).toEqual([0, 1, 2]);
    const patched = await answer(s.api(`/v1/ns/tables/t/rows?n=eq(any).{${l}}`, { method: 'PATCH', json: { a: 'touched' } }));
    expect(patched.status, patched.text.slice(0, 200)).toBe(200);
    expect(patched.body).toEqual({ count: 10 });
  });

  it('a long eq(any) list (an IN list) answers as the short one, nulls and not. included', async () => {
    // 2 and 7 (and a null), then the same padded with values no row holds: the long form is `n IN (…)`.
    const pad = Array.from({ length: 40 }, (_, i) => String(1000 + i)).join(',');
    for (const [short, long] of [
      ['n=eq(any).{2,7}', `n=eq(any).{2,7,${pad}}`],
      ['n=eq(any).{2,NULL,7}', `n=eq(any).{2,NULL,7,${pad}}`],
      ['n=not.eq(any).{2,7}', `n=not.eq(any).{2,7,${pad}}`],
      ['n=not.eq(any).{2,NULL,7}', `n=not.eq(any).{2,NULL,7,${pad}}`],
    ]) {
      const a = await answer(s.api(`/v1/ns/tables/t/rows?${short}&limit=1000&order=id`));
      const b = await answer(s.api(`/v1/ns/tables/t/rows?${long}&limit=1000&order=id`));
      expect(a.status, a.text).toBe(200);
      expect(b.body, long.slice(0, 30)).toEqual(a.body);
    }
    expect((await answer(s.api('/v1/ns/tables/t/rows?n=not.eq(any).{2,NULL,7}'))).body.data).toEqual([]);
  });

  it('a logic tree that nests long lists as deep as allowed', async () => {
    let cond = 'n.eq.1';
    for (let depth = 0; depth < 9; depth++) cond = `or(${cond},${Array.from({ length: 150 }, (_, i) => `n.eq.${1000 + i}`).join(',')})`;
    const r = await answer(s.api(`/v1/ns/tables/t/rows?or=(${cond.slice(3, -1)})`));
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.data.map((x: { n: number }) => x.n)).toEqual([1]);
  });
});

describe("a tenant never reads the server's file paths", () => {
  it('pragma_database_list shows main with an empty file: in a query, through a view, qualified', async () => {
    const q = (sql: string) => answer(s.api('/v1/ns/query', { method: 'POST', token: tenant, json: { sql } }));
    const direct = await q('SELECT * FROM pragma_database_list');
    expect(direct.status, direct.text).toBe(200);
    expect(direct.text).not.toContain(s.dataDir);
    expect(direct.body.data).toEqual([{ seq: 0, name: 'main', file: '' }]);
    for (const sql of [
      'SELECT file FROM main.pragma_database_list',
      'SELECT hex(file) AS h FROM "PRAGMA_DATABASE_LIST"',
      "SELECT group_concat(file, '') FROM pragma_database_list",
    ]) {
      const r = await q(sql);
      expect(r.status, `${sql}: ${r.text}`).toBe(200);
      expect(r.text, sql).not.toMatch(/hearth|tmp|\//);
    }
    const view = await answer(
      s.api('/v1/ns/tables', { method: 'POST', token: tenant, json: { type: 'view', name: 'where_am_i', sql: 'SELECT file FROM pragma_database_list' } }),
    );
    expect(view.status, view.text).toBe(201);
    const rows = await answer(s.api('/v1/ns/tables/where_am_i/rows', { token: tenant }));
    expect(rows.body.data).toEqual([{ file: '' }]);
    const viaSql = await q('SELECT * FROM where_am_i');
    expect(viaSql.body.data).toEqual([{ file: '' }]);
  });
});

describe('X-Content-Type-Options: nosniff on every answer', () => {
  it.each([
    ['a JSON answer', '/v1/namespaces', {}],
    ['an error', '/v1/namespaces/none', {}],
    ['an unknown route', '/v1/nothing', {}],
    ['the hot row read', '/v1/ns/tables/t/rows/1', {}],
    ['/healthz', '/healthz', { token: null }],
    ['the sign-in page', '/auth/forgot-password', { token: null }],
    ['the UI', '/', { token: null }],
    ['the OpenAPI document', '/v1/openapi.json', {}],
  ])('%s (%s)', async (_, target, init) => {
    const r = await s.api(target, init as never);
    await r.arrayBuffer();
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
