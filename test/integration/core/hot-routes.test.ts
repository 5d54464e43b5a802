/**
 * Hot routes (server/core/http/hot.ts): the OAuth token endpoint and the read of one row by id are answered without
 * Koa. A client must not be able to tell: the same request id, authentication, envelope, headers, limits, metrics,
 * telemetry and access line as every other route.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const logs: string[] = [];
const logSink = new Writable({
  write(chunk, _enc, cb) {
    logs.push(chunk.toString());
    cb();
  },
});

let s: TestServer;
let basic: string;
beforeAll(async () => {
  s = await startTestServer({ logLevel: 'info', logDestination: logSink as never });
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'stock' } })).status).toBe(201);
  const sa = await (
    await s.api('/api/admin/core/service-accounts', { method: 'POST', json: { appId: 'sync', resourceType: 'namespace', resourceId: 'stock' } })
  ).json();
  const created = await (
    await s.api('/api/admin/oauth/clients', {
      method: 'POST',
      json: { name: 'Sync job', serviceAccountId: sa.sub, scopes: ['read'], audiences: [`${s.url}/v1/stock`] },
    })
  ).json();
  basic = `Basic ${Buffer.from(`${created.client.clientId}:${created.clientSecret}`).toString('base64')}`;
});
afterAll(async () => {
  await s.stop();
});

const FORM = 'application/x-www-form-urlencoded';
const token = (init: { body?: string; headers?: Record<string, string>; query?: string } = {}) =>
  fetch(`${s.url}/oauth/token${init.query ?? ''}`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': FORM, ...init.headers },
    body: init.body ?? 'grant_type=client_credentials&scope=read',
  });

describe('the OAuth token endpoint as a hot route', () => {
  it('answers tokens with the usual headers, echoing a given request id', async () => {
    const r = await token({ headers: { 'x-request-id': 'trace-42' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe('trace-42');
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('pragma')).toBe('no-cache');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const body = await r.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read' });
    expect(body.access_token.split('.')).toHaveLength(3);
    expect(Number(r.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(body)));
    // A query string does not change the route.
    expect((await token({ query: '?trace=1' })).status).toBe(200);
    // An unusable request id is replaced by a fresh UUID.
    const fresh = await token({ headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses in the OAuth envelope: client authentication, media type, size, repeated parameters', async () => {
    const bad = await token({ headers: { authorization: `Basic ${Buffer.from('nobody:wrong').toString('base64')}` } });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Basic realm="hearth"');
    expect(bad.headers.get('cache-control')).toBe('no-store');
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await bad.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed', message: 'client authentication failed' });

    const json = await token({ headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' });
    expect(json.status).toBe(415);
    expect((await json.json()).error).toBe('unsupported_media_type');

    const big = await token({ body: `grant_type=client_credentials&pad=${'a'.repeat(70 * 1024)}` });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toBe('payload_too_large');

    const twice = await token({ body: 'grant_type=client_credentials&scope=read&scope=write' });
    expect(twice.status).toBe(400);
    expect(await twice.json()).toMatchObject({ error: 'invalid_request', error_description: 'parameter "scope" is given more than once' });

    const unsupported = await token({ body: 'grant_type=password&username=a&password=b' });
    expect(unsupported.status).toBe(400);
    expect((await unsupported.json()).error).toBe('unsupported_grant_type');
  });

  it('answers a failed client authentication exactly as the Koa route does: 401 invalid_client with a Basic challenge, never Bearer', async () => {
    const clientId = Buffer.from(basic.slice(6), 'base64').toString().split(':')[0]!;
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    // [case, Authorization header or none, form]
    const cases: Array<[string, string | null, string]> = [
      ['a Bearer header', 'Bearer abc.def.ghi', 'grant_type=client_credentials'],
      ['another scheme', 'Digest username="x"', 'grant_type=client_credentials'],
      ['Basic, wrong secret', `Basic ${b64(`${clientId}:wrong`)}`, 'grant_type=client_credentials'],
      ['Basic, unknown client', `Basic ${b64('nobody:secret')}`, 'grant_type=client_credentials'],
      ['Basic without a colon', `Basic ${b64('nobody')}`, 'grant_type=client_credentials'],
      ['form, wrong secret', null, `grant_type=client_credentials&client_id=${clientId}&client_secret=wrong`],
      ['form, unknown client', null, 'grant_type=client_credentials&client_id=nobody'],
      ['form, no client', null, 'grant_type=client_credentials'],
    ];
    const answer = async (path: string, header: string | null, body: string) => {
      const r = await fetch(`${s.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': FORM, 'x-request-id': 'same', ...(header ? { authorization: header } : {}) },
        body,
      });
      const h = (n: string) => r.headers.get(n);
      return {
        status: r.status,
        body: await r.json(),
        challenge: h('www-authenticate'),
        cache: h('cache-control'),
        type: h('content-type'),
        cors: h('access-control-allow-origin'),
        id: h('x-request-id'),
      };
    };
    for (const [name, header, body] of cases) {
      const hot = await answer('/oauth/token', header, body);
      expect(hot.status, name).toBe(401);
      expect(hot.body.error, name).toBe('invalid_client');
      expect(hot.challenge, name).toBe('Basic realm="hearth"');
      // The same request through Koa (a trailing slash is not a hot route but is the same Koa route).
      expect(await answer('/oauth/token/', header, body), name).toEqual(hot);
      // The other endpoints that authenticate clients challenge the same way.
      for (const path of ['/oauth/revoke', '/oauth/device_authorization']) {
        const other = await answer(path, header, `${body}&token=x`);
        expect(other.status, `${path}: ${name}`).toBe(401);
        expect(other.body.error, `${path}: ${name}`).toBe('invalid_client');
        expect(other.challenge, `${path}: ${name}`).toBe('Basic realm="hearth"');
      }
    }
  });

  it('other methods still get 405 with Allow, and the preflight its CORS answer', async () => {
    const get = await fetch(`${s.url}/oauth/token`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toContain('POST');
    expect((await get.json()).error).toBe('method_not_allowed');
    const pre = await fetch(`${s.url}/oauth/token`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('keeps a keep-alive connection usable after refusing a body it did not read', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string, contentType: string) =>
      new Promise<{ status: number; body: string; socket: unknown }>((resolve, reject) => {
        const req = http.request(
          `${s.url}/oauth/token`,
          { method: 'POST', agent, headers: { authorization: basic, 'content-type': contentType, 'content-length': Buffer.byteLength(body) } },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode!, body: text, socket: req.socket }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const refused = await send('grant_type=client_credentials', 'text/plain');
    expect(refused.status).toBe(415);
    const ok = await send('grant_type=client_credentials&scope=read', FORM);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).token_type).toBe('Bearer');
    expect(ok.socket).toBe(refused.socket);
    agent.destroy();
  });

  it('counts in the request metrics under its route and writes the access line', async () => {
    const before = logs.length;
    await token({ headers: { 'x-request-id': 'metrics-check' } });
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('hearth_http_requests_total{') && l.includes('route="/oauth/token"') && l.includes('status="200"'));
    expect(line).toBeDefined();
    expect(Number(line!.split(' ').pop())).toBeGreaterThanOrEqual(3);
    const access = logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === 'metrics-check');
    expect(access).toMatchObject({ msg: 'request', method: 'POST', path: '/oauth/token', status: 200 });
  });
});

describe('one row by id as a hot route', () => {
  let ro: string;
  let other: string;
  let jwt: string;
  let foreignJwt: string;
  beforeAll(async () => {
    const ok = async (r: Promise<Response>, status = 201) => {
      const res = await r;
      expect(res.status, await res.clone().text()).toBe(status);
      return res;
    };
    for (const name of ['shelf', 'attic']) await ok(s.api('/v1/namespaces', { method: 'POST', json: { name } }));
    await ok(
      s.api('/v1/shelf/tables', {
        method: 'POST',
        json: {
          type: 'table',
          name: 'items',
          columns: [
            { name: 'title', type: 'text' },
            { name: 'done', type: 'boolean' },
            { name: 'tags', type: 'json' },
            { name: 'pic', type: 'blob' },
          ],
        },
      }),
    );
    await ok(
      s.api('/v1/shelf/tables/items/rows', {
        method: 'POST',
        json: {
          rows: [
            { title: 'Lamp', done: true, tags: ['a', 1], pic: 'AP8=' },
            { title: 'Chair', done: null },
          ],
        },
      }),
    );
    await ok(s.api('/v1/shelf/tables', { method: 'POST', json: { type: 'view', name: 'lamps', sql: "SELECT * FROM items WHERE title = 'Lamp'" } }));
    // A table with a virtual generated column (imported): read in a query process.
    const dir = tempDir('hearth-hot-');
    const file = `${dir}/gen.db`;
    const db = new Database(file);
    db.exec('CREATE TABLE g (id INTEGER PRIMARY KEY, k INTEGER, twice INTEGER GENERATED ALWAYS AS (k * 2) VIRTUAL); INSERT INTO g (k) VALUES (21);');
    db.close();
    const form = multipart([{ name: 'file', filename: 'gen.db', data: (await import('node:fs')).readFileSync(file) }]);
    await ok(s.api('/v1/namespaces/attic/import', { method: 'POST', body: form.body, headers: { 'content-type': form.contentType } }), 200);
    const token = async (body: Record<string, unknown>) =>
      ((await (await ok(s.api('/api/admin/tokens', { method: 'POST', json: body }))).json()) as { token: string }).token;
    ro = await token({ name: 'shelf-ro', scope: 'namespaces', namespaces: ['shelf'], read_only: true });
    other = await token({ name: 'attic-only', scope: 'namespaces', namespaces: ['attic'] });
    const grant = async (appId: string) => {
      const sa = await (
        await ok(s.api('/api/admin/core/service-accounts', { method: 'POST', json: { appId, resourceType: 'namespace', resourceId: 'shelf' } }))
      ).json();
      const c = await (
        await ok(
          s.api('/api/admin/oauth/clients', {
            method: 'POST',
            json: { name: `reader ${appId}`, serviceAccountId: sa.sub, scopes: ['read'], audiences: [`${s.url}/v1/shelf`] },
          }),
        )
      ).json();
      const r = await fetch(`${s.url}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${c.client.clientId}:${c.clientSecret}`).toString('base64')}`, 'content-type': FORM },
        body: 'grant_type=client_credentials&scope=read',
      });
      expect(r.status).toBe(200);
      return ((await r.json()) as { access_token: string }).access_token;
    };
    jwt = await grant('hearth-db');
    foreignJwt = await grant('crm');
  });

  /** Everything a client sees of an answer (the request id is given, so both paths echo it). */
  const answer = async (path: string, authorization: string | null, extra: Record<string, string> = {}) => {
    const r = await fetch(`${s.url}${path}`, { headers: { 'x-request-id': 'same', ...(authorization ? { authorization } : {}), ...extra } });
    const h = (n: string) => r.headers.get(n);
    return {
      status: r.status,
      body: await r.text(),
      type: h('content-type'),
      length: h('content-length'),
      challenge: h('www-authenticate'),
      id: h('x-request-id'),
    };
  };

  it('answers every case exactly as the Koa route does', async () => {
    const admin = `Bearer ${s.token}`;
    // [case, path after /v1, Authorization]
    const cases: Array<[string, string, string | null]> = [
      ['a row', '/shelf/tables/items/rows/1', admin],
      ['a row with nulls', '/shelf/tables/items/rows/2', admin],
      ['a missing row', '/shelf/tables/items/rows/99', admin],
      ['a negative id', '/shelf/tables/items/rows/-1', admin],
      ['an id that is not an integer', '/shelf/tables/items/rows/1.5', admin],
      ['an id past 2^53', '/shelf/tables/items/rows/9007199254740993', admin],
      ['an unknown table', '/shelf/tables/nope/rows/1', admin],
      ['a reserved table name', '/shelf/tables/_hearth_objects/rows/1', admin],
      ['a view', '/shelf/tables/lamps/rows/1', admin],
      ['an unknown namespace', '/nowhere/tables/items/rows/1', admin],
      ['a percent-encoded table name', '/shelf/tables/%69tems/rows/1', admin],
      ['a broken percent-encoding', '/shelf/tables/%E0%A4%A/rows/1', admin],
      ['a table with a generated column (query process)', '/attic/tables/g/rows/1', admin],
      ['a read-only token of the namespace', '/shelf/tables/items/rows/1', `Bearer ${ro}`],
      ['a token of another namespace', '/shelf/tables/items/rows/1', `Bearer ${other}`],
      ['an unknown token', '/shelf/tables/items/rows/1', 'Bearer hth_unknown'],
      ['another scheme', '/shelf/tables/items/rows/1', 'Basic eDp5'],
      ['an empty Authorization header', '/shelf/tables/items/rows/1', ''],
      ['an OAuth access token of the database application', '/shelf/tables/items/rows/1', `Bearer ${jwt}`],
      ['an OAuth access token of another application', '/shelf/tables/items/rows/1', `Bearer ${foreignJwt}`],
      ['an OAuth access token for another namespace', '/attic/tables/g/rows/1', `Bearer ${jwt}`],
      ['no credential', '/shelf/tables/items/rows/1', null],
    ];
    const statuses: number[] = [];
    for (const [name, path, auth] of cases) {
      const hot = await answer(`/v1${path}`, auth);
      // The same request through Koa: a trailing slash is not a hot route but is the same Koa route.
      expect(await answer(`/v1${path}/`, auth), name).toEqual(hot);
      expect(hot.id, name).toBe('same');
      statuses.push(hot.status);
    }
    expect(statuses).toEqual([200, 200, 404, 404, 400, 400, 404, 404, 400, 404, 200, 404, 200, 200, 403, 401, 401, 401, 200, 403, 401, 401]);
    expect(JSON.parse((await answer('/v1/shelf/tables/items/rows/1', admin)).body)).toMatchObject({
      id: 1,
      title: 'Lamp',
      done: true,
      tags: ['a', 1],
      pic: 'AP8=',
    });
    expect(JSON.parse((await answer('/v1/attic/tables/g/rows/1', admin)).body)).toEqual({ id: 1, k: 21, twice: 42 });
  });

  it('HEAD, other methods and a query string behave as on the Koa route', async () => {
    const head = await fetch(`${s.url}/v1/shelf/tables/items/rows/1`, { method: 'HEAD', headers: { authorization: `Bearer ${s.token}` } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const withQuery = await answer('/v1/shelf/tables/items/rows/1?select=title', `Bearer ${s.token}`);
    expect(withQuery).toEqual(await answer('/v1/shelf/tables/items/rows/1/?select=title', `Bearer ${s.token}`));
    const post = await fetch(`${s.url}/v1/shelf/tables/items/rows/1`, { method: 'POST', headers: { authorization: `Bearer ${s.token}` } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
  });

  it('counts in the metrics under its route, in the namespace telemetry and in the access line', async () => {
    const readsOf = async () => {
      const o = await (await s.api('/v1/shelf/overview?window=1h')).json();
      return o.telemetry.rows_read as number;
    };
    const before = await readsOf();
    const logsBefore = logs.length;
    for (let i = 0; i < 3; i++)
      expect(
        (await fetch(`${s.url}/v1/shelf/tables/items/rows/1`, { headers: { authorization: `Bearer ${s.token}`, 'x-request-id': `row-${i}` } })).status,
      ).toBe(200);
    // The overview request itself reads no rows; each GET read one.
    expect(await readsOf()).toBe(before + 3);
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith('hearth_http_requests_total{') && l.includes('route="/v1/:ns/tables/:table/rows/:id"') && l.includes('status="200"'));
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(3);
    const access = logs
      .slice(logsBefore)
      .map((l) => JSON.parse(l))
      .find((l) => l.reqId === 'row-1');
    expect(access).toMatchObject({ msg: 'request', method: 'GET', path: '/v1/shelf/tables/items/rows/1', status: 200, ns: 'shelf' });
  });
});
