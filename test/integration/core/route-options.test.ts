/**
 * Route options of `Api.route` (server/core/http/api.ts): `cache: 'no-store'` puts `Cache-Control: no-store` and
 * `Pragma: no-cache` on every answer of the handler, its errors included, on Koa's routes and on hot routes alike;
 * a request refused before the handler (validation) and a route without the option do not get it. `cors` does the
 * same with the CORS answer headers (any origin, or an origin test with `Vary: Origin`) and answers the path's
 * preflight.
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Api, type Cors } from '../../../server/core/http/api.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const APP_ORIGIN = 'https://auth.example.test';
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ authenticatorOrigin: APP_ORIGIN });
});
afterAll(() => s?.stop());

const cacheHeaders = (res: Response) => ({ cacheControl: res.headers.get('cache-control'), pragma: res.headers.get('pragma') });
const NO_STORE = { cacheControl: 'no-store', pragma: 'no-cache' };

describe("cache: 'no-store'", () => {
  it.each([
    ['accounts', '/api/admin/core/accounts', 200],
    ['groups', '/api/admin/core/groups', 200],
    ['mail profiles', '/api/admin/core/outgoing-mail/profiles', 200],
    ['mail applications', '/api/admin/core/outgoing-mail/apps', 200],
    ['the send log', '/api/admin/core/outgoing-mail/messages', 200],
    ['mail retention', '/api/admin/core/outgoing-mail/retention', 200],
    ['an account that does not exist (the handler throws)', '/api/admin/core/accounts/00000000-0000-4000-8000-000000000000', 404],
  ])('%s: every answer of the handler says not to store it', async (_, path, status) => {
    const res = await s.api(path);
    expect(res.status).toBe(status);
    expect(cacheHeaders(res)).toEqual(NO_STORE);
  });

  it('a hot route with the option (the OAuth token endpoint) says so too, on its error answers', async () => {
    const res = await s.api('/oauth/token', {
      method: 'POST',
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=nope&client_id=nobody',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await res.json()).error).toMatch(/^invalid_/);
    expect(cacheHeaders(res)).toEqual(NO_STORE);
  });

  it('a request refused before its handler runs, and a route without the option, carry no such header', async () => {
    const refused = await s.api('/api/admin/core/accounts?per_page=abc');
    expect(refused.status).toBe(400);
    expect(cacheHeaders(refused).pragma).toBeNull();
    const plain = await s.api('/v1/namespaces');
    expect(plain.status).toBe(200);
    expect(cacheHeaders(plain).pragma).toBeNull();
    expect(cacheHeaders(plain).cacheControl ?? '').not.toContain('no-store');
  });
});

const corsHeaders = (res: Response) => {
  const out: Record<string, string> = {};
  for (const [k, v] of res.headers) if (k.startsWith('access-control-') || k === 'vary') out[k] = v;
  return out;
};
const preflight = (url: string, origin: string) =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });

describe('cors', () => {
  const OAUTH_ANSWER = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'WWW-Authenticate' };
  const OAUTH_PREFLIGHT = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, POST',
    'access-control-allow-headers': 'Authorization, Content-Type',
    'access-control-max-age': '600',
  };

  it("'any': every answer of the handler, its errors too, on Koa's routes and the hot route, without Vary", async () => {
    for (const [path, init] of [
      ['/.well-known/openid-configuration', {}],
      ['/oauth/userinfo', {}],
      [
        '/oauth/token',
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials&client_id=nobody' },
      ],
    ] as const) {
      const res = await fetch(s.url + path, { ...init, headers: { ...('headers' in init ? init.headers : {}), origin: 'https://app.example' } });
      expect(corsHeaders(res), path).toEqual(OAUTH_ANSWER);
    }
  });

  it("'any': the path answers its preflight whatever the origin", async () => {
    for (const path of ['/oauth/token', '/oauth/userinfo', '/oauth/register', '/.well-known/openid-configuration']) {
      const res = await preflight(s.url + path, 'https://app.example');
      expect(res.status, path).toBe(204);
      expect(corsHeaders(res), path).toEqual(OAUTH_PREFLIGHT);
    }
  });

  it('an origin test: the allowed origin is echoed, any other gets nothing, and every answer varies on Origin', async () => {
    const info = `${s.url}/api/auth/app-approval/v1/info`;
    expect(corsHeaders(await fetch(info, { headers: { origin: APP_ORIGIN } }))).toEqual({ 'access-control-allow-origin': APP_ORIGIN, vary: 'Origin' });
    expect(corsHeaders(await fetch(info, { headers: { origin: 'https://evil.example' } }))).toEqual({ vary: 'Origin' });
    expect(corsHeaders(await fetch(info))).toEqual({ vary: 'Origin' });
    const allowed = await preflight(info, APP_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(corsHeaders(allowed)).toEqual({
      vary: 'Origin',
      'access-control-allow-origin': APP_ORIGIN,
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': 'Content-Type',
      'access-control-max-age': '600',
    });
    const refused = await preflight(info, 'https://evil.example');
    expect(refused.status).toBe(204);
    expect(corsHeaders(refused)).toEqual({ vary: 'Origin' });
  });

  it('a request refused before its handler runs, and a route without the option, carry none of it', async () => {
    const refused = await fetch(`${s.url}/api/auth/app-approval/v1/info?x=1`, { headers: { origin: APP_ORIGIN } });
    expect(refused.status).toBe(400);
    expect(corsHeaders(refused)).toEqual({});
    const plain = await fetch(`${s.url}/oauth/authorize`, { headers: { origin: 'https://app.example' } });
    expect(corsHeaders(plain)).toEqual({});
  });

  describe('on an Api of its own: credentials, an asynchronous origin test, other methods, an existing Vary', () => {
    let url: string;
    let close: () => void;
    beforeAll(async () => {
      const api = new Api({ authenticate: () => {}, jsonBodyLimit: 1024 });
      const cors: Cors = {
        origins: async (origin) => origin === 'https://one.example',
        credentials: true,
        allowHeaders: ['Content-Type', 'X-Trace'],
        exposeHeaders: ['X-Total', 'X-Trace'],
      };
      const common = { path: '/things', tags: ['t'], access: 'public' as const, responses: { 200: { description: 'ok' } }, cors };
      api.route({
        ...common,
        method: 'get',
        operationId: 'listThings',
        summary: 'list',
        handler: (ctx) => {
          ctx.vary('Accept');
          return { ok: true };
        },
      });
      api.route({ ...common, method: 'put', operationId: 'putThings', summary: 'put', handler: () => ({ ok: true }) });
      api.route({ ...common, method: 'delete', operationId: 'dropThings', summary: 'drop', handler: () => ({ ok: true }) });
      expect(() => api.route({ ...common, cors: { ...cors }, method: 'post', operationId: 'other', summary: 'x', handler: () => ({}) })).toThrow(
        /must share one cors value/,
      );
      const app = new Koa();
      app.use(api.router.routes());
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
      close = () => server.close();
    });
    afterAll(() => close?.());

    it('answers the allowed origin with credentials and the exposed headers; Vary keeps what the handler adds', async () => {
      const res = await fetch(url, { headers: { origin: 'https://one.example' } });
      expect(res.status).toBe(200);
      expect(corsHeaders(res)).toEqual({
        vary: 'Origin, Accept',
        'access-control-allow-origin': 'https://one.example',
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': 'X-Total, X-Trace',
      });
      expect(corsHeaders(await fetch(url, { headers: { origin: 'https://two.example' } }))).toEqual({ vary: 'Origin, Accept' });
    });

    it("the preflight lists the path's other methods after GET and POST, and never answers another origin", async () => {
      const res = await preflight(url, 'https://one.example');
      expect(res.status).toBe(204);
      expect(corsHeaders(res)).toEqual({
        vary: 'Origin',
        'access-control-allow-origin': 'https://one.example',
        'access-control-allow-credentials': 'true',
        'access-control-allow-methods': 'GET, POST, PUT, DELETE',
        'access-control-allow-headers': 'Content-Type, X-Trace',
        'access-control-max-age': '600',
      });
      expect(corsHeaders(await preflight(url, 'https://two.example'))).toEqual({ vary: 'Origin' });
    });
  });
});
