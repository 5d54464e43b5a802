/**
 * The forwarding proxy when the owner fails (server/core/net/forward.ts, issue 18): refused, silent, stopped answering
 * on a kept-alive connection, dropped as dark, dying mid-answer, closing an idle connection under a request, or behind
 * a certificate the front does not trust. Before an answer has begun the client gets 503 `namespace_unavailable` with
 * `Retry-After`; after, its connection is cut. Waits are for states, never for a time.
 */
import type { ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { echo, rawRequest, sharedRig, startFront, startUpstream } from '../../helpers/forward-rig.ts';
import { freePort } from '../../helpers/ports.ts';
import { until } from '../../helpers/wait.ts';
import { selfSigned } from '../mail/peer.ts';

const rig = sharedRig();

describe('forward, when the owner fails', () => {
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
      rig.up.handlers.set('/v1/shop/export', (_req, res) => {
        res.writeHead(200, sized ? { 'Content-Type': 'text/csv', 'Content-Length': '1000' } : { 'Content-Type': 'text/csv' });
        res.write('id,name\n1,chair\n');
        upstreamRes = res;
      });
      const res = await rawRequest(`${rig.front.url}/v1/shop/export`);
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
