/**
 * Route options of `Api.route` (server/core/http/api.ts): `cache: 'no-store'` puts `Cache-Control: no-store` and
 * `Pragma: no-cache` on every answer of the handler, its errors included, on Koa's routes and on hot routes alike;
 * a request refused before the handler (validation) and a route without the option do not get it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
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
