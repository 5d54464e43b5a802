/**
 * JSON body limits: the general limit (HEARTH_JSON_BODY_LIMIT, the value docs/operations/running.md states) and the
 * small limit of the unauthenticated and credential routes (64 KiB), answered 413 `payload_too_large` before more
 * than the limit is read.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS, loadConfig } from '../../../server/core/config/config.ts';
import { TOKEN_BODY_LIMIT } from '../../../server/core/core.routes.ts';
import { SMALL_BODY_LIMIT } from '../../../server/core/http/body.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const PASSWORD = 'limits-Passw0rd!';
const KiB = 1024;

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  const setup = await fetch(`${s.url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: 'root', password: PASSWORD }),
  });
  expect(setup.status).toBe(201);
});
afterAll(async () => {
  await s?.stop();
});

/** A JSON body of exactly `bytes` bytes: `{"login":"root","password":"…","pad":"xxx…"}`. */
function padded(fields: Record<string, string>, bytes: number): string {
  const base = JSON.stringify({ ...fields, pad: '' });
  return JSON.stringify({ ...fields, pad: 'x'.repeat(bytes - Buffer.byteLength(base)) });
}

/** POSTs `body` announced with Content-Length, or chunked (the server finds the size while reading). */
function post(pathname: string, body: string, chunked: boolean, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = http.request(
      `${s.url}${pathname}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < body.length; i += 8 * KiB) req.write(body.slice(i, i + 8 * KiB));
      req.end();
    } else req.end(body);
  });
}

describe('small routes (sign-in, setup, passwords, token creation)', () => {
  it('answers a 65 KiB sign-in body 413 payload_too_large in the envelope, announced or chunked; a normal one still signs in', async () => {
    expect(SMALL_BODY_LIMIT).toBe(64 * KiB);
    const big = padded({ login: 'root', password: PASSWORD }, 65 * KiB);
    for (const chunked of [false, true]) {
      const r = await post('/api/auth/login', big, chunked);
      expect(r.status, `chunked: ${chunked}`).toBe(413);
      expect(r.json).toEqual({ error: 'payload_too_large', message: `request body is larger than the limit of ${64 * KiB} bytes` });
    }
    // Just under the limit is read (and then refused for its unknown key, not for its size).
    const under = await post('/api/auth/login', padded({ login: 'root', password: PASSWORD }, 64 * KiB), false);
    expect(under.status).toBe(400);
    expect(under.json.error).toBe('invalid_request');
    const ok = await post('/api/auth/login', JSON.stringify({ login: 'root', password: PASSWORD }), false);
    expect(ok.status).toBe(200);
    expect(ok.json.account.login).toBe('root');
  });

  it('applies the same 64 KiB to setup, password, passkey and email-link routes, and 128 KiB to token creation', async () => {
    const auth = { authorization: `Bearer ${s.token}` };
    const cases: Array<[string, Record<string, string>]> = [
      ['/api/setup', {}],
      ['/api/auth/password-reset', {}],
      ['/api/auth/magic-link', {}],
      ['/api/auth/passkeys/login', {}],
    ];
    for (const [pathname, headers] of cases) {
      const r = await post(pathname, padded({}, 65 * KiB), false, headers);
      expect(r.status, pathname).toBe(413);
      expect(r.json.error, pathname).toBe('payload_too_large');
    }
    const me = (await (await s.api('/api/admin/core/accounts?search=root')).json()).data[0].sub as string;
    const put = await fetch(`${s.url}/api/admin/core/accounts/${me}/password`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: padded({ password: PASSWORD }, 65 * KiB),
    });
    expect(put.status).toBe(413);
    // Token creation: twice that, because its largest valid body (1000 namespace names of 64 characters) is ~67 KB.
    expect(TOKEN_BODY_LIMIT).toBe(128 * KiB);
    const names = Array.from({ length: 1000 }, (_, i) => `ns${String(i).padStart(4, '0')}${'n'.repeat(58)}`);
    const largest = JSON.stringify({
      name: 'x'.repeat(100),
      scope: 'namespaces',
      namespaces: names,
      read_only: true,
      expires_at: '2999-12-31T23:59:59.999+00:00',
    });
    expect(Buffer.byteLength(largest)).toBeGreaterThan(64 * KiB);
    expect((await post('/api/admin/tokens', largest, false, auth)).status).toBe(201);
    const tooBig = await post('/api/admin/tokens', padded({ name: 'x', scope: 'admin' }, 129 * KiB), true, auth);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.error).toBe('payload_too_large');
  });

  it('says so in the OpenAPI document', async () => {
    const doc = await (await fetch(`${s.url}/v1/openapi.json`)).json();
    expect(doc.paths['/api/auth/login'].post.responses['413'].description).toMatch(/64 KiB/);
    expect(doc.paths['/api/admin/tokens'].post.responses['413'].description).toMatch(/128 KiB/);
    expect(doc.paths['/v1/namespaces'].post.responses['413'].description).toMatch(/HEARTH_JSON_BODY_LIMIT/);
  });
});

describe('the general JSON body limit', () => {
  it('is the default the operator guide states, and applies to other routes', async () => {
    const guide = fs.readFileSync(path.join(repo, 'docs/operations/running.md'), 'utf8');
    const row = guide.split('\n').find((l) => l.startsWith('| `HEARTH_JSON_BODY_LIMIT`'))!;
    const documented = Number(/`(\d+)`/.exec(row.split('|')[4]!)![1]); // variable | flag | file key | default
    expect(documented).toBe(DEFAULTS.jsonBodyLimit);
    expect(loadConfig({}, {}).jsonBodyLimit).toBe(documented);
    // A 2 MiB body to a general route is read (and refused for its content, not its size) ...
    const two = await post('/v1/namespaces', padded({ name: 'big' }, 2 * 1024 * KiB), false, { authorization: `Bearer ${s.token}` });
    expect(two.status).toBe(400);
    // ... one byte over the general limit is not.
    const over = await post('/v1/namespaces', padded({ name: 'big' }, documented + 1), false, { authorization: `Bearer ${s.token}` });
    expect(over.status).toBe(413);
    expect(over.json.error).toBe('payload_too_large');
  });
});
