/**
 * The forwarding proxy between replicas (server/core/net/forward.ts, issue 18): a front replica (the house plumbing
 * and a middleware calling forward()) before a real node:http owner whose handlers the tests drive step by step —
 * what passes, streamed both ways, with which headers, and the loop guard. forward-failures.test.ts holds the owner
 * failing; forward-hearth.test.ts a real Hearth as the owner. Every wait is for a state (the bytes the owner has seen,
 * the events the client has read, the owner seeing its connection close), never for a time.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FORWARDED_BY, forwardedClient } from '../../../server/core/net/forward.ts';
import { echo, type Front, rawRequest, readAll, readText, sharedRig, startFront } from '../../helpers/forward-rig.ts';
import { until } from '../../helpers/wait.ts';

const rig = sharedRig();

describe('forward', () => {
  it('passes a JSON GET, POST and PATCH with their status, end-to-end headers and bodies both ways', async () => {
    rig.up.handlers.set('/v1/shop/tables/items/rows', echo(200));
    const headers = { Authorization: 'Bearer tok', Prefer: 'return=representation', Range: '0-0', Accept: 'application/json', 'If-Match': '"v1"' };
    for (const [method, status, body] of [
      ['GET', 200, undefined],
      ['POST', 200, '{"name":"chair"}'],
      ['PATCH', 200, '{"name":"table"}'],
    ] as const) {
      const res = await fetch(`${rig.front.url}/v1/shop/tables/items/rows?name=eq.chair&limit=1`, {
        method,
        headers: body ? { ...headers, 'Content-Type': 'application/json' } : headers,
        body,
      });
      expect(res.status).toBe(status);
      expect(res.headers.get('etag')).toBe('"v2"');
      expect(res.headers.get('content-range')).toBe('rows 0-0/1');
      expect(res.headers.get('preference-applied')).toBe('return=representation');
      expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
      expect(await res.json()).toEqual({
        method,
        url: '/v1/shop/tables/items/rows?name=eq.chair&limit=1',
        body: body ?? '',
        auth: 'Bearer tok',
        prefer: 'return=representation',
        range: '0-0',
        ifMatch: '"v1"',
        accept: 'application/json',
        ...(body ? { type: 'application/json' } : {}),
      });
    }
    // One kept-alive connection carried the three requests to the owner.
    expect(new Set(rig.up.seen.map((s) => s.socketPort)).size).toBe(1);
  });

  it("passes the owner's error answers as they are (a 404 with its envelope is not the front's own 404)", async () => {
    const res = await fetch(`${rig.front.url}/v1/shop/tables/nope/rows`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'table_not_found', message: 'no such table: nope' });
  });

  it('streams a 50 MB request body: each MiB reaches the owner before the client sends the next', async () => {
    const MIB = 1024 * 1024;
    let received = 0;
    const hash = createHash('sha256');
    rig.up.handlers.set('/v1/shop/import', (req, res) => {
      req.on('data', (c: Buffer) => {
        received += c.length;
        hash.update(c);
      });
      req.on('end', () => {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ bytes: received, sha256: hash.digest('hex') }));
      });
    });
    const sent = createHash('sha256');
    const answer = new Promise<IncomingMessage>((resolve, reject) => {
      const req = http.request(`${rig.front.url}/v1/shop/import`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, agent: false }, resolve);
      req.on('error', reject);
      (async () => {
        for (let i = 0; i < 50; i++) {
          const chunk = Buffer.alloc(MIB, i % 251);
          sent.update(chunk);
          req.write(chunk);
          await until(
            () => received >= (i + 1) * MIB,
            () => `the owner receiving MiB ${i + 1} (has ${received} bytes)`,
          );
        }
        req.end();
      })().catch(reject);
    });
    const res = await answer;
    expect(res.statusCode).toBe(201);
    expect(JSON.parse(await readAll(res))).toEqual({ bytes: 50 * MIB, sha256: sent.digest('hex') });
  });

  it('aborts the request to the owner when the client stops mid-upload: the owner never sees a whole body', async () => {
    let received = 0;
    let outcome: 'complete' | 'aborted' | undefined;
    rig.up.handlers.set('/v1/shop/import', (req, res) => {
      req.on('data', (c: Buffer) => {
        received += c.length;
      });
      req.on('end', () => {
        outcome = 'complete';
        res.end();
      });
      req.on('close', () => {
        outcome ??= 'aborted';
      });
    });
    const client = http.request(`${rig.front.url}/v1/shop/import`, { method: 'POST', headers: { 'Content-Length': String(8 * 1024 * 1024) }, agent: false });
    client.on('error', () => {});
    client.write(Buffer.alloc(1024 * 1024));
    await until(() => received >= 1024 * 1024, 'the first MiB at the owner');
    client.destroy();
    await until(() => outcome, 'the owner seeing the upload end');
    expect(outcome).toBe('aborted');
  });

  it('the owner may answer before reading the whole body (413, as readRawBody does): the client gets that answer', async () => {
    rig.up.handlers.set('/v1/shop/import', (req, res) => {
      req.resume(); // what Hearth does with a body it refuses (server/core/http/body.ts), and Node with one nobody reads
      res.writeHead(413, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'payload_too_large', message: 'too large' }));
    });
    const res = await rawRequest(`${rig.front.url}/v1/shop/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: Buffer.alloc(4 * 1024 * 1024),
    });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(await readAll(res))).toEqual({ error: 'payload_too_large', message: 'too large' });
  });

  it('passes Server-Sent Events one by one while the owner is open, and the owner sees the client leave', async () => {
    let stream: ServerResponse | undefined;
    let upstreamClosed = false;
    rig.up.handlers.set('/v1/shop/events', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
      res.write(': connected\n\n');
      stream = res;
      res.on('close', () => {
        upstreamClosed = true;
      });
    });
    const abort = new AbortController();
    const res = await fetch(`${rig.front.url}/v1/shop/events`, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': '41' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(rig.up.seen[0]?.headers['last-event-id']).toBe('41');
    const sse = readText(res);
    await until(() => sse.text.includes(': connected'), 'the connected comment');
    for (const id of [42, 43, 44]) {
      stream!.write(`id: ${id}\nevent: insert\ndata: {"id":${id}}\n\n`);
      await until(
        () => sse.text.includes(`id: ${id}\n`),
        () => `event ${id} at the client (has ${JSON.stringify(sse.text)})`,
      );
      expect(sse.text).not.toContain(`id: ${id + 1}`);
      expect(upstreamClosed).toBe(false);
    }
    abort.abort();
    await sse.ended;
    await until(() => upstreamClosed, 'the owner seeing the subscriber leave');
    const result = rig.front.results.at(-1)!;
    expect(await result.done).toBe('aborted');
  });

  it('drops hop-by-hop headers both ways and tells the owner who the client is', async () => {
    rig.up.handlers.set('/v1/shop/hops', (_req, res) => {
      res.writeHead(200, {
        'Content-Type': 'text/plain',
        Connection: 'X-Up-Hop',
        'X-Up-Hop': 'secret',
        'Keep-Alive': 'timeout=77',
        'Proxy-Authenticate': 'Basic realm="owner"',
        'X-Up-End': 'kept',
      });
      res.end('ok');
    });
    const res = await rawRequest(`${rig.front.url}/v1/shop/hops`, {
      headers: {
        Connection: 'keep-alive, X-Client-Hop',
        'X-Client-Hop': 'secret',
        'Keep-Alive': 'timeout=77',
        TE: 'trailers',
        'Proxy-Authorization': 'Basic eDp5',
        'X-Client-End': 'kept',
        'X-Forwarded-For': '203.0.113.9',
      },
    });
    expect(await readAll(res)).toBe('ok');
    expect(res.headers['x-up-end']).toBe('kept');
    expect(res.headers['x-up-hop']).toBeUndefined();
    expect(res.headers['proxy-authenticate']).toBeUndefined();
    expect(res.headers['keep-alive'] ?? '').not.toContain('77');
    expect(res.headers.via).toBe('1.1 node-a');
    const h = rig.up.seen[0]!.headers;
    expect(h['x-client-end']).toBe('kept');
    for (const name of ['x-client-hop', 'te', 'proxy-authorization', 'transfer-encoding', 'upgrade']) expect(h[name]).toBeUndefined();
    expect(h['keep-alive'] ?? '').not.toContain('77');
    const frontHost = new URL(rig.front.url).host;
    expect(h.host).toBe(new URL(rig.up.url).host);
    expect(h.forwarded).toBe(`for=127.0.0.1;host="${frontHost}";proto=http`);
    expect(h['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(h['x-forwarded-proto']).toBe('http');
    expect(h['x-forwarded-host']).toBe(frontHost);
    expect(h[FORWARDED_BY]).toBe('node-a');
    expect(h.via).toBe('1.1 node-a');
    // The front's request id travels, so both access logs name the request alike.
    expect(h['x-request-id']).toBe(res.headers['x-request-id']);
  });

  it('takes the forwarded client address only from a trusted peer', () => {
    const req = (headers: Record<string, string>) => ({ headers, socket: { remoteAddress: '::ffff:10.0.0.2' } }) as unknown as IncomingMessage;
    const forwarded = req({ [FORWARDED_BY]: 'node-a', 'x-forwarded-for': '198.51.100.1, 203.0.113.9' });
    expect(forwardedClient(forwarded, (a) => a === '10.0.0.2')).toBe('203.0.113.9');
    expect(forwardedClient(forwarded, () => false)).toBe('10.0.0.2');
    expect(forwardedClient(req({ 'x-forwarded-for': '203.0.113.9' }), () => true)).toBe('10.0.0.2');
  });

  it('never forwards twice: two replicas that each think the other owns a namespace answer 503, not a loop', async () => {
    let b: Front | undefined;
    const a = await startFront('node-a', () => ({ url: b!.url, node: 'node-b' }));
    b = await startFront('node-b', () => ({ url: a.url, node: 'node-a' }));
    try {
      const res = await fetch(`${a.url}/v1/shop/tables`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(await res.json()).toEqual({ error: 'namespace_unavailable', message: expect.stringContaining('forwarded by node node-a') });
      expect(a.results).toHaveLength(1); // A forwarded once; B refused
      expect(b.results).toHaveLength(0);
      // A request that arrives marked is refused at once.
      const marked = await fetch(`${rig.front.url}/v1/shop/tables`, { headers: { [FORWARDED_BY]: 'node-c' } });
      expect(marked.status).toBe(503);
      expect(rig.up.seen).toHaveLength(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
