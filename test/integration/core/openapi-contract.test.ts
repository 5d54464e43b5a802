/**
 * The published OpenAPI document says what is sent. For every operation of `/v1/openapi.json`, a small fuzzer sends
 * the requests an outside client would try first — no credential, a garbage one, an admin token with made-up path
 * parameters, an unknown query key, no body, a wrong body type, malformed JSON, an empty object — and checks each
 * answer against the operation's declaration: its status is one the operation declares, and the answer's media type
 * is the one declared for that status (an error declared as JSON is JSON; an HTML page is declared as `text/html`).
 * Every answer also carries `X-Content-Type-Options: nosniff` and `X-Request-ID`.
 *
 * The server is a throwaway: a made-up id that happens to act (a backup started by `POST /api/admin/backups {}`) is
 * harmless there. Operations that end the server's ability to answer are left out, named below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
let doc: { paths: Record<string, Record<string, Operation>> };

interface Operation {
  operationId: string;
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

beforeAll(async () => {
  s = await startTestServer();
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'ns' } })).status).toBe(201);
  const t = await s.api('/v1/ns/tables', { method: 'POST', json: { type: 'table', name: 't', columns: [{ name: 'a', type: 'text' }] } });
  expect(t.status).toBe(201);
  doc = await (await s.api('/v1/openapi.json')).json();
});
afterAll(async () => {
  await s?.stop();
});

/** Path parameter values: the existing namespace and table where the name says so, made-up ids elsewhere. */
function fill(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'ns') return 'ns';
    if (name === 'table') return 't';
    return 'zz-made-up';
  });
}

interface Attempt {
  label: string;
  token?: string | null;
  query?: string;
  body?: { type: string; data: string };
}

function attempts(op: Operation): Attempt[] {
  const list: Attempt[] = [
    { label: 'no credential', token: null },
    { label: 'a garbage credential', token: 'hth_garbage' },
    { label: 'an admin token' },
    { label: 'an unknown query key', query: 'zz_unknown=1' },
  ];
  if (op.requestBody) {
    list.push(
      { label: 'a text body', body: { type: 'text/plain', data: 'hello' } },
      { label: 'malformed JSON', body: { type: 'application/json', data: '{"a":' } },
      { label: 'an empty object', body: { type: 'application/json', data: '{}' } },
      { label: 'a JSON array', body: { type: 'application/json', data: '[1]' } },
    );
  }
  return list;
}

const mediaType = (ct: string | null) => (ct ?? '').split(';')[0]!.trim().toLowerCase();

/** Operations left out: they end the server's answering or its credentials for the rest of the run. */
const LEFT_OUT = new Set<string>([]);

describe('the OpenAPI document matches what the server sends', () => {
  it('for every operation and every answer the fuzzer sees: a declared status with its declared media type, nosniff, X-Request-ID', async () => {
    const problems: string[] = [];
    let answers = 0;
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (LEFT_OUT.has(op.operationId)) continue;
        for (const a of attempts(op)) {
          const target = fill(path) + (a.query ? `?${a.query}` : '');
          const headers: Record<string, string> = {};
          if (a.body) headers['content-type'] = a.body.type;
          const res = await s.api(target, { method: method.toUpperCase(), token: a.token, headers, body: a.body?.data, redirect: 'manual' });
          const text = method === 'head' ? '' : await res.text();
          answers++;
          const where = `${method.toUpperCase()} ${path} (${op.operationId}) with ${a.label}: ${res.status}`;
          const declared = op.responses[String(res.status)] ?? op.responses.default;
          if (res.headers.get('x-content-type-options') !== 'nosniff') problems.push(`${where}: no X-Content-Type-Options: nosniff`);
          if (!res.headers.get('x-request-id')) problems.push(`${where}: no X-Request-ID`);
          if (!declared) {
            problems.push(`${where}: status not declared (declared: ${Object.keys(op.responses).join(', ')})`);
            continue;
          }
          const sent = mediaType(res.headers.get('content-type'));
          const types = Object.keys(declared.content ?? {}).map((t) => t.split(';')[0]!.trim().toLowerCase());
          if (text.length === 0 && types.length === 0) continue;
          if (types.length === 0) problems.push(`${where}: sends ${sent} but declares no content`);
          else if (!types.includes(sent)) problems.push(`${where}: sends ${sent || 'no type'} but declares ${types.join(', ')}`);
        }
      }
    }
    expect(answers).toBeGreaterThan(500);
    if (problems.length) console.log(problems.join('\n'));
    expect(problems).toEqual([]);
  }, 120_000);
});
