import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const logs: string[] = [];
const logSink = new Writable({
  write(chunk, _enc, cb) {
    logs.push(chunk.toString());
    cb();
  },
});

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ jsonBodyLimit: 4096, logLevel: 'info', logDestination: logSink as never });
  await s.api('/v1/namespaces', { method: 'POST', json: { name: 'shop' } });
  await s.api('/v1/namespaces', { method: 'POST', json: { name: 'other' } });
});
afterAll(async () => {
  await s.stop();
});

/** `where`: the members naming where a validation error is (`in`, `field`), beside `error` and `message`. */
async function expectEnvelope(res: Response, status: number, code: string, where: { in: string; field?: string } | null = null) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-request-id')).toMatch(/^[\x21-\x7e]{1,128}$/);
  const body = await res.json();
  expect(body).toEqual({ error: code, message: expect.any(String), ...where });
  expect(body.message.length).toBeGreaterThan(5);
  return body;
}

describe('error envelope and X-Request-ID', () => {
  it('401 without a token, with WWW-Authenticate', async () => {
    const res = await s.api('/v1/namespaces', { token: null });
    await expectEnvelope(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it.each(['Bearer nope', 'Bearer hth_notarealtoken', 'Basic abc', 'Bearer', 'bearer  '])('401 for Authorization %j', async (header) => {
    const res = await fetch(`${s.url}/v1/namespaces`, { headers: { authorization: header } });
    await expectEnvelope(res, 401, 'unauthorized');
  });

  it('403 for a namespace token on the control plane', async () => {
    const created = await (await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'shop-only', scope: 'namespaces', namespaces: ['shop'] } })).json();
    await expectEnvelope(await s.api('/v1/namespaces', { token: created.token }), 403, 'forbidden');
    await expectEnvelope(await s.api('/v1/namespaces/shop', { token: created.token }), 403, 'forbidden');
    await expectEnvelope(await s.api('/api/admin/tokens', { token: created.token }), 403, 'forbidden');
  });

  it('404 for an unknown route, and for a missing namespace', async () => {
    await expectEnvelope(await s.api('/v1/nothing-here'), 404, 'not_found');
    await expectEnvelope(await s.api('/v1/namespaces/none'), 404, 'namespace_not_found');
    await expectEnvelope(await fetch(`${s.url}/api/unknown`), 404, 'not_found');
    // routes are case-sensitive, like namespace names
    await expectEnvelope(await s.api('/V1/namespaces', { method: 'POST', json: { name: 'upper' } }), 404, 'not_found');
  });

  it('405 for a wrong method, with Allow', async () => {
    const res = await s.api('/v1/namespaces/shop', { method: 'PATCH', json: {} });
    await expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toContain('PUT');
    const post = await s.api('/healthz', { method: 'POST' });
    await expectEnvelope(post, 405, 'method_not_allowed');
  });

  it('413 for a body over the limit', async () => {
    const res = await s.api('/v1/namespaces', {
      method: 'POST',
      body: JSON.stringify({ name: 'x'.repeat(10_000) }),
      headers: { 'content-type': 'application/json' },
    });
    await expectEnvelope(res, 413, 'payload_too_large');
  });

  it('413 for a chunked body over the limit (no Content-Length)', async () => {
    const big = new ReadableStream({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('x'.repeat(1000)));
        c.close();
      },
    });
    const res = await fetch(`${s.url}/v1/namespaces`, {
      method: 'POST',
      body: big,
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      duplex: 'half',
    } as RequestInit);
    await expectEnvelope(res, 413, 'payload_too_large');
  });

  it('415 for a JSON route without Content-Type: application/json', async () => {
    const res = await s.api('/v1/namespaces', { method: 'POST', body: '{"name":"plain"}', headers: { 'content-type': 'text/plain' } });
    await expectEnvelope(res, 415, 'unsupported_media_type');
    const none = await s.api('/v1/namespaces', { method: 'POST', body: new Blob(['{"name":"plain"}']) });
    await expectEnvelope(none, 415, 'unsupported_media_type');
    expect((await s.api('/v1/namespaces/plain')).status).toBe(404);
  });

  it('400 invalid_json for malformed JSON', async () => {
    const res = await s.api('/v1/namespaces', { method: 'POST', body: '{"name":', headers: { 'content-type': 'application/json' } });
    await expectEnvelope(res, 400, 'invalid_json');
  });

  it('accepts application/json with a charset', async () => {
    const res = await s.api('/v1/namespaces', { method: 'POST', body: '{"name":"charset"}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(201);
  });

  it('keeps the client X-Request-ID, generates one otherwise, and logs it', async () => {
    const mine = 'my-trace-0001';
    const res = await s.api('/v1/namespaces/shop', { headers: { 'x-request-id': mine } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(mine);
    const err = await s.api('/v1/namespaces/none', { headers: { 'x-request-id': mine } });
    expect(err.headers.get('x-request-id')).toBe(mine);
    const generated = (await s.api('/v1/namespaces/shop')).headers.get('x-request-id');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    // an unusable client value is replaced
    const bad = await s.api('/v1/namespaces/shop', { headers: { 'x-request-id': 'x'.repeat(200) } });
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const lines = logs.map((l) => JSON.parse(l));
    expect(lines.some((l) => l.reqId === mine && l.status === 200 && l.path === '/v1/namespaces/shop')).toBe(true);
    expect(lines.some((l) => l.reqId === generated)).toBe(true);
    // static UI and health answers carry it too
    expect((await fetch(`${s.url}/healthz`)).headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`${s.url}/`)).headers.get('x-request-id')).toBeTruthy();
  });

  it('never logs tokens', async () => {
    const created = await (await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'secret-check', scope: 'admin' } })).json();
    await s.api('/v1/namespaces', { token: created.token });
    await s.api('/v1/namespaces', { token: 'hth_wrongwrongwrong' });
    const all = logs.join('');
    expect(all).not.toContain(created.token);
    expect(all).not.toContain(s.token);
    expect(all).not.toContain('hth_wrongwrongwrong');
  });
});

describe('API tokens', () => {
  it('creates, lists (without secrets), uses and revokes tokens', async () => {
    const res = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'ci', scope: 'admin' } });
    expect(res.status).toBe(201);
    const created = await res.json();
    expect(created.token).toMatch(/^hth_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'ci', scope: 'admin', namespaces: null, read_only: false, revoked_at: null });
    expect((await s.api('/v1/namespaces', { token: created.token })).status).toBe(200);
    const list = await (await s.api('/api/admin/tokens')).json();
    const entry = list.data.find((t: { id: string }) => t.id === created.id);
    expect(entry.prefix).toBe(created.token.slice(0, 10));
    expect(entry.last_used_at).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain(created.token);
    expect(JSON.stringify(list)).not.toMatch(/token_hash|hash/);
    // only the hash is stored
    // (read through the core store the server used: platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres)
    const stored = await s.services.store.get('SELECT * FROM api_tokens WHERE id = ?', [created.id]);
    expect(JSON.stringify(stored)).not.toContain(created.token);
    expect((await s.api(`/api/admin/tokens/${created.id}`, { method: 'DELETE' })).status).toBe(204);
    await expectEnvelope(await s.api('/v1/namespaces', { token: created.token }), 401, 'unauthorized');
    await expectEnvelope(await s.api('/api/admin/tokens/nope', { method: 'DELETE' }), 404, 'token_not_found');
  });

  it('an expired token is refused', async () => {
    const created = await s.services.tokens.create({ name: 'old', scope: 'admin', expiresAt: new Date(Date.now() + 50).toISOString() });
    const lasting = await s.services.tokens.create({ name: 'lasting', scope: 'admin', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    // the state, not a sleep: this process's clock (the server's) is past the expiry
    const expiry = Date.parse(created.info.expires_at!);
    await until(() => Date.now() > expiry, `the clock to pass ${created.info.expires_at}`);
    await expectEnvelope(await s.api('/v1/namespaces', { token: created.token }), 401, 'unauthorized');
    expect((await s.api('/v1/namespaces', { token: lasting.token })).status).toBe(200); // the same kind of token, not expired
  });

  it.each([
    [{ name: 'x', scope: 'namespaces' }, 'namespaces'],
    [{ name: 'x', scope: 'admin', namespaces: ['a'] }, 'scope'],
    [{ name: '', scope: 'admin' }, 'name'],
    [{ name: 'x', scope: 'root' }, 'scope'],
    [{ name: 'x', scope: 'namespaces', namespaces: ['_bad'] }, 'namespaces.0'],
    [{ name: 'x', scope: 'admin', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
  ])('rejects %j, naming the field', async (body, field) => {
    const res = await s.api('/api/admin/tokens', { method: 'POST', json: body });
    const e = await expectEnvelope(res, 400, 'invalid_request', { in: 'body', field });
    expect(e.message.startsWith(`body: ${field}: `)).toBe(true);
  });

  it('a body or query refused as a whole names where, without a field', async () => {
    await expectEnvelope(await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'x', scope: 'admin', extra: 1 } }), 400, 'invalid_request', {
      in: 'body',
    });
    await expectEnvelope(await s.api('/api/admin/tokens', { method: 'POST', json: [] }), 400, 'invalid_request', { in: 'body' });
    await expectEnvelope(await s.api('/v1/namespaces?limit=1&extra=1'), 400, 'invalid_request', { in: 'query' });
    await expectEnvelope(await s.api('/v1/namespaces?limit=0'), 400, 'invalid_request', { in: 'query', field: 'limit' });
  });

  it('namespace tokens: scoped to their namespaces, read-only refuses writes', async () => {
    const { requireNamespaceAccess } = await import('../../../server/core/auth/auth.ts');
    const ro = (
      await (await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'ro', scope: 'namespaces', namespaces: ['shop'], read_only: true } })).json()
    ).token;
    const p = (await s.services.tokens.authenticate(ro))!;
    expect(p).toMatchObject({ kind: 'namespaces', namespaces: ['shop'], readOnly: true });
    const ctx = { state: { principal: p } } as never;
    expect(requireNamespaceAccess(ctx, 'shop', 'read')).toBe(p);
    expect(() => requireNamespaceAccess(ctx, 'shop', 'write')).toThrow(/read-only/);
    expect(() => requireNamespaceAccess(ctx, 'other', 'read')).toThrow(/may not use namespace/);
  });

  it('audits token creation and revocation', async () => {
    const data = (await (await s.api('/api/admin/audit?action=token.create')).json()).data;
    expect(data.length).toBeGreaterThan(0);
    expect(data[0]).toMatchObject({ action: 'token.create', actor: 'token:env', request_id: expect.any(String) });
    expect(JSON.stringify(data)).not.toMatch(/hth_[A-Za-z0-9_-]{43}/);
  });
});

describe('operational endpoints', () => {
  it('/healthz is public JSON and turns 503 when the platform database cannot be written', async () => {
    // About platform.db itself (made read-only with SQLite's query_only): a server of its own on SQLite under either
    // HEARTH_TEST_STORE (postgres-mode.test.ts has PostgreSQL going away).
    const s = await startTestServer({ store: 'sqlite' });
    onTestFinished(() => s.stop());
    const res = await fetch(`${s.url}/healthz`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', version: expect.any(String), checks: { platform_db: { ok: true } }, namespaces: { count: expect.any(Number) } });
    s.services.platformDb.pragma('query_only = 1');
    try {
      const down = await fetch(`${s.url}/healthz`);
      expect(down.status).toBe(503);
      const d = await down.json();
      expect(d.status).toBe('unavailable');
      expect(d.checks.platform_db.ok).toBe(false);
    } finally {
      s.services.platformDb.pragma('query_only = 0');
    }
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('/metrics is public Prometheus text with request, namespace and event-loop metrics', async () => {
    await s.api('/v1/namespaces/shop');
    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/hearth_http_requests_total\{method="GET",route="\/v1\/namespaces\/:ns",status="200"\} \d+/);
    expect(text).toMatch(/hearth_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v1\/namespaces\/:ns",status="200"\}/);
    expect(text).toMatch(/hearth_http_requests_total\{method="GET",route="unmatched",status="404"\}/);
    expect(text).toMatch(/^hearth_namespaces \d+$/m);
    expect(text).toMatch(/^hearth_namespace_handles_open \d+$/m);
    expect(text).toMatch(/^hearth_nodejs_eventloop_lag_seconds /m);
  });

  it('/v1/openapi.json is an OpenAPI 3.1 document of the routes, from the validating schemas', async () => {
    const res = await fetch(`${s.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/v1/namespaces',
      '/v1/namespaces/{ns}',
      '/v1/namespaces/{ns}/duplicate',
      '/v1/namespaces/{ns}/export',
      '/v1/namespaces/{ns}/import',
      '/healthz',
      '/metrics',
      '/api/admin/tokens',
    ]) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(doc.paths['/v1/namespaces'].get.parameters.find((x: { name: string }) => x.name === 'limit').schema).toMatchObject({
      minimum: 1,
      maximum: 500,
      default: 100,
    });
    const cfg = doc.components.schemas.NamespaceConfig;
    expect(cfg.properties.journal_mode.enum).toEqual(['wal', 'delete', 'truncate', 'persist']);
    expect(cfg.properties.synchronous.enum).toEqual(['full', 'normal']);
    expect(cfg.additionalProperties).toBe(false);
    expect(doc.paths['/v1/namespaces'].post.responses['409'].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    expect(doc.paths['/v1/namespaces/{ns}/import'].post.requestBody.content['multipart/form-data']).toBeDefined();
    expect(doc.paths['/v1/namespaces/{ns}/import'].post.responses['507']).toBeDefined();
  });
});
