/**
 * The forwarding proxy between replicas (server/core/net/forward.ts, issue 18): a Koa app with the house plumbing
 * and a middleware calling forward() stands in front of a real node:http upstream (the owner) whose handlers the
 * tests drive step by step. Every wait is for a state (the bytes the upstream has seen, the events the client has read,
 * the upstream seeing its connection close), never for a time.
 */
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FORWARDED_BY, forwardedClient } from '../../../server/core/net/forward.ts';
import { type Front, startFront } from '../../helpers/forward-front.ts';
import { freePort } from '../../helpers/ports.ts';
import { until } from '../../helpers/wait.ts';
import { selfSigned } from '../mail/peer.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http (or https) server whose answer per path the test sets; it records what it saw. */
async function startUpstream(tls?: { key: string; cert: string }) {
  const handlers = new Map<string, Handler>();
  const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; socketPort: number }> = [];
  const listener: Handler = (req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, socketPort: req.socket.remotePort ?? 0 });
    const h = handlers.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (h) h(req, res);
    else {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'table_not_found', message: 'no such table: nope' }));
    }
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    handlers,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A raw node:http call (fetch may not send hop-by-hop headers); resolves at the answer's head. */
function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, resolve);
    req.on('error', reject);
    req.end(opts.body);
  });
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      text += c;
    });
    res.on('end', () => resolve(text));
    res.on('error', reject);
  });
}

let up: Awaited<ReturnType<typeof startUpstream>>;
let front: Front;
beforeAll(async () => {
  up = await startUpstream();
  front = await startFront('node-a', () => ({ url: up.url, node: 'node-b' }));
});
afterAll(async () => {
  await front.close();
  await up.close();
});
afterEach(() => {
  up.handlers.clear();
  up.seen.length = 0;
});

/** The upstream's echo: method, path and query, the end-to-end headers a client sends, and the body. */
function echo(status: number): Handler {
  return (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      res.writeHead(
        status,
        [
          ['Content-Type', 'application/json'],
          ['ETag', '"v2"'],
          ['Content-Range', 'rows 0-0/1'],
          ['Set-Cookie', 'a=1; Path=/'],
          ['Set-Cookie', 'b=2; Path=/'],
          ['Preference-Applied', 'return=representation'],
        ].flat(),
      );
      const h = req.headers;
      res.end(
        JSON.stringify({
          method: req.method,
          url: req.url,
          body,
          auth: h.authorization,
          prefer: h.prefer,
          range: h.range,
          ifMatch: h['if-match'],
          accept: h.accept,
          type: h['content-type'],
        }),
      );
    });
  };
}

describe('forward', () => {
  it('passes a JSON GET, POST and PATCH with their status, end-to-end headers and bodies both ways', async () => {
    up.handlers.set('/v1/shop/tables/items/rows', echo(200));
    const headers = { Authorization: 'Bearer tok', Prefer: 'return=representation', Range: '0-0', Accept: 'application/json', 'If-Match': '"v1"' };
    for (const [method, status, body] of [
      ['GET', 200, undefined],
      ['POST', 200, '{"name":"chair"}'],
      ['PATCH', 200, '{"name":"table"}'],
    ] as const) {
      const res = await fetch(`${front.url}/v1/shop/tables/items/rows?name=eq.chair&limit=1`, {
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
    expect(new Set(up.seen.map((s) => s.socketPort)).size).toBe(1);
  });

  it("passes the owner's error answers as they are (a 404 with its envelope is not the front's own 404)", async () => {
    const res = await fetch(`${front.url}/v1/shop/tables/nope/rows`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'table_not_found', message: 'no such table: nope' });
  });

  it('streams a 50 MB request body: each MiB reaches the owner before the client sends the next', async () => {
    const MIB = 1024 * 1024;
    let received = 0;
    const hash = createHash('sha256');
    up.handlers.set('/v1/shop/import', (req, res) => {
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
      const req = http.request(`${front.url}/v1/shop/import`, { method: 'POST', headers: { 'Content-Type': 'text/csv' }, agent: false }, resolve);
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
    up.handlers.set('/v1/shop/import', (req, res) => {
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
    const client = http.request(`${front.url}/v1/shop/import`, { method: 'POST', headers: { 'Content-Length': String(8 * 1024 * 1024) }, agent: false });
    client.on('error', () => {});
    client.write(Buffer.alloc(1024 * 1024));
    await until(() => received >= 1024 * 1024, 'the first MiB at the owner');
    client.destroy();
    await until(() => outcome, 'the owner seeing the upload end');
    expect(outcome).toBe('aborted');
  });

  it('the owner may answer before reading the whole body (413, as readRawBody does): the client gets that answer', async () => {
    up.handlers.set('/v1/shop/import', (req, res) => {
      req.resume(); // what Hearth does with a body it refuses (server/core/http/body.ts), and Node with one nobody reads
      res.writeHead(413, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'payload_too_large', message: 'too large' }));
    });
    const res = await rawRequest(`${front.url}/v1/shop/import`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/csv' },
      body: Buffer.alloc(4 * 1024 * 1024),
    });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(await readAll(res))).toEqual({ error: 'payload_too_large', message: 'too large' });
  });

  it('sends a bodiless GET again once when a kept-alive connection was closed under it, never a request with a body', async () => {
    const owner = await startUpstream();
    const f = await startFront('node-a', () => ({ url: owner.url, node: 'node-b' }));
    let drops = 0;
    owner.handlers.set('/v1/shop/warm', (_req, res) => res.end('warm'));
    // The first request of each method on a reused connection finds it closed, as when the owner times an idle one out.
    const dropped = new Set<string>();
    owner.handlers.set('/v1/shop/flaky', (req, res) => {
      if (!dropped.has(req.method!)) {
        dropped.add(req.method!);
        drops++;
        req.socket.destroy();
        return;
      }
      res.end('fresh');
    });
    try {
      expect(await (await fetch(`${f.url}/v1/shop/warm`)).text()).toBe('warm');
      const get = await fetch(`${f.url}/v1/shop/flaky`);
      expect(get.status).toBe(200);
      expect(await get.text()).toBe('fresh');
      expect(await (await fetch(`${f.url}/v1/shop/warm`)).text()).toBe('warm');
      const post = await fetch(`${f.url}/v1/shop/flaky`, { method: 'POST', body: 'x=1' });
      expect(post.status).toBe(503);
      expect(owner.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
      expect(drops).toBe(2);
    } finally {
      await f.close();
      await owner.close();
    }
  });

  it('passes Server-Sent Events one by one while the owner is open, and the owner sees the client leave', async () => {
    let stream: ServerResponse | undefined;
    let upstreamClosed = false;
    up.handlers.set('/v1/shop/events', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store' });
      res.write(': connected\n\n');
      stream = res;
      res.on('close', () => {
        upstreamClosed = true;
      });
    });
    const abort = new AbortController();
    const res = await fetch(`${front.url}/v1/shop/events`, { headers: { Accept: 'text/event-stream', 'Last-Event-ID': '41' }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(up.seen[0]?.headers['last-event-id']).toBe('41');
    let text = '';
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const pump = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += value;
      }
    })();
    await until(() => text.includes(': connected'), 'the connected comment');
    for (const id of [42, 43, 44]) {
      stream!.write(`id: ${id}\nevent: insert\ndata: {"id":${id}}\n\n`);
      await until(
        () => text.includes(`id: ${id}\n`),
        () => `event ${id} at the client (has ${JSON.stringify(text)})`,
      );
      expect(text).not.toContain(`id: ${id + 1}`);
      expect(upstreamClosed).toBe(false);
    }
    abort.abort();
    await pump;
    await until(() => upstreamClosed, 'the owner seeing the subscriber leave');
    const result = front.results.at(-1)!;
    expect(await result.done).toBe('aborted');
  });

  it('drops hop-by-hop headers both ways and tells the owner who the client is', async () => {
    up.handlers.set('/v1/shop/hops', (_req, res) => {
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
    const res = await rawRequest(`${front.url}/v1/shop/hops`, {
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
    const h = up.seen[0]!.headers;
    expect(h['x-client-end']).toBe('kept');
    for (const name of ['x-client-hop', 'te', 'proxy-authorization', 'transfer-encoding', 'upgrade']) expect(h[name]).toBeUndefined();
    expect(h['keep-alive'] ?? '').not.toContain('77');
    const frontHost = new URL(front.url).host;
    expect(h.host).toBe(new URL(up.url).host);
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
      const marked = await fetch(`${front.url}/v1/shop/tables`, { headers: { [FORWARDED_BY]: 'node-c' } });
      expect(marked.status).toBe(503);
      expect(up.seen).toHaveLength(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('answers 503 namespace_unavailable with Retry-After when the owner refuses connections or never completes one', async () => {
    const closedPort = await freePort({ host: '127.0.0.1' });
    const down = await startFront('node-a', () => ({ url: `http://127.0.0.1:${closedPort}`, node: 'node-down' }));
    // A peer that accepts TCP but never answers the TLS handshake: only the connect timeout ends the wait.
    const silent = net.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const mute = await startFront('node-a', () => ({ url: `https://127.0.0.1:${(silent.address() as AddressInfo).port}`, node: 'node-mute' }), {
      connectTimeoutMs: 300,
    });
    try {
      for (const [f, node] of [
        [down, 'node-down'],
        [mute, 'node-mute'],
      ] as const) {
        for (const method of ['GET', 'POST']) {
          const res = await fetch(`${f.url}/v1/shop/tables/items/rows`, { method, body: method === 'POST' ? '{"a":1}' : undefined });
          expect(res.status).toBe(503);
          expect(res.headers.get('retry-after')).toBe('7');
          expect(await res.json()).toEqual({ error: 'namespace_unavailable', message: expect.stringContaining(node) });
        }
      }
    } finally {
      await down.close();
      await mute.close();
      silent.close();
    }
  });

  it('answers 503 when an owner stops answering on a kept-alive connection, and drop() cuts what waits on a dark node', async () => {
    const owner = await startUpstream();
    owner.handlers.set('/v1/shop/warm', (_req, res) => res.end('warm'));
    owner.handlers.set('/v1/shop/hang', () => {}); // received, never answered
    let streamClosed = false;
    owner.handlers.set('/v1/shop/events', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(': connected\n\n');
      res.on('close', () => {
        streamClosed = true;
      });
    });
    const timed = await startFront('node-a', () => ({ url: owner.url, node: 'node-dark' }), { answerTimeoutMs: 300 });
    const plain = await startFront('node-a', () => ({ url: owner.url, node: 'node-dark' }));
    try {
      expect(await (await fetch(`${timed.url}/v1/shop/warm`)).text()).toBe('warm');
      const late = await fetch(`${timed.url}/v1/shop/hang`);
      expect(late.status).toBe(503);
      expect((await late.json()).error).toBe('namespace_unavailable');
      expect(owner.seen.filter((s) => s.url === '/v1/shop/hang')).toHaveLength(1); // a timeout is not replayed

      // Without a timeout, dropping the node's connections ends both a request waiting for its answer and a stream.
      expect(await (await fetch(`${plain.url}/v1/shop/warm`)).text()).toBe('warm');
      const waiting = fetch(`${plain.url}/v1/shop/hang`);
      const sse = await rawRequest(`${plain.url}/v1/shop/events`);
      let got = '';
      let cut = false;
      sse.on('data', (c: Buffer) => {
        got += c.toString();
      });
      sse.on('error', () => {});
      sse.on('aborted', () => {
        cut = true;
      });
      sse.on('close', () => {
        cut ||= !sse.complete;
      });
      await until(
        () => got.includes(': connected') && owner.seen.filter((s) => s.url === '/v1/shop/hang').length === 2,
        'the stream open and the request at the owner',
      );
      plain.agents.drop(owner.url);
      const res = await waiting;
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('7');
      await until(() => cut, 'the stream cut at the client');
      await until(() => streamClosed, 'the owner seeing the stream closed');
      expect(owner.seen.filter((s) => s.url === '/v1/shop/hang')).toHaveLength(2);
    } finally {
      await timed.close();
      await plain.close();
      await owner.close();
    }
  });

  it('cuts the client connection when the owner dies mid-answer (sized and chunked)', async () => {
    for (const sized of [true, false]) {
      let upstreamRes: ServerResponse | undefined;
      up.handlers.set('/v1/shop/export', (_req, res) => {
        res.writeHead(200, sized ? { 'Content-Type': 'text/csv', 'Content-Length': '1000' } : { 'Content-Type': 'text/csv' });
        res.write('id,name\n1,chair\n');
        upstreamRes = res;
      });
      const res = await rawRequest(`${front.url}/v1/shop/export`);
      expect(res.statusCode).toBe(200);
      let got = '';
      let ended = false;
      let failed: Error | undefined;
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        got += c;
      });
      res.on('end', () => {
        ended = true;
      });
      res.on('error', (err) => {
        failed = err;
      });
      res.on('aborted', () => {
        failed ??= new Error('aborted');
      });
      await until(() => got.includes('1,chair'), 'the first rows at the client');
      upstreamRes!.socket!.destroy();
      await until(() => failed !== undefined || ended, 'the client seeing the end of the answer');
      expect(ended).toBe(false);
      expect(failed?.message).toMatch(/aborted/);
      expect(res.complete).toBe(false);
    }
  });

  it('reaches an https owner through the given CA, and refuses one it cannot verify', async () => {
    const tls = selfSigned();
    const secure = await startUpstream(tls);
    secure.handlers.set('/v1/shop/tables', echo(200));
    const trusting = await startFront('node-a', () => ({ url: secure.url, node: 'node-tls' }), { ca: tls.cert });
    const wary = await startFront('node-a', () => ({ url: secure.url, node: 'node-tls' }));
    try {
      const ok = await fetch(`${trusting.url}/v1/shop/tables?x=1`, { headers: { Authorization: 'Bearer t' } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ method: 'GET', url: '/v1/shop/tables?x=1', auth: 'Bearer t' });
      const refused = await fetch(`${wary.url}/v1/shop/tables`);
      expect(refused.status).toBe(503);
      expect((await refused.json()).error).toBe('namespace_unavailable');
    } finally {
      await trusting.close();
      await wary.close();
      await secure.close();
    }
  });
});
