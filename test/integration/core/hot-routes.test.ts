/**
 * Hot routes (server/core/http/hot.ts): the OAuth token endpoint is answered without Koa. A client must not be able to
 * tell: the same request id, envelope, headers, limits, metrics and access line as every other route.
 */
import http from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

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
  const sa = await (await s.api('/api/admin/core/service-accounts', { method: 'POST', json: { appId: 'sync', resourceType: 'namespace', resourceId: 'stock' } })).json();
  const created = await (
    await s.api('/api/admin/oauth/clients', { method: 'POST', json: { name: 'Sync job', serviceAccountId: sa.sub, scopes: ['read'], audiences: [`${s.url}/v1/stock`] } })
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
    const bad = await token({ headers: { authorization: 'Basic ' + Buffer.from('nobody:wrong').toString('base64') } });
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
      const r = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': FORM, 'x-request-id': 'same', ...(header ? { authorization: header } : {}) }, body });
      const h = (n: string) => r.headers.get(n);
      return { status: r.status, body: await r.json(), challenge: h('www-authenticate'), cache: h('cache-control'), type: h('content-type'), cors: h('access-control-allow-origin'), id: h('x-request-id') };
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
        const req = http.request(`${s.url}/oauth/token`, { method: 'POST', agent, headers: { authorization: basic, 'content-type': contentType, 'content-length': Buffer.byteLength(body) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text, socket: req.socket }));
        });
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
    const line = metrics.split('\n').find((l) => l.startsWith('hearth_http_requests_total{') && l.includes('route="/oauth/token"') && l.includes('status="200"'));
    expect(line).toBeDefined();
    expect(Number(line!.split(' ').pop())).toBeGreaterThanOrEqual(3);
    const access = logs.slice(before).map((l) => JSON.parse(l)).find((l) => l.reqId === 'metrics-check');
    expect(access).toMatchObject({ msg: 'request', method: 'POST', path: '/oauth/token', status: 200 });
  });
});
