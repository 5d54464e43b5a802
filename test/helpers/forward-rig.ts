/**
 * The forwarding tests' rig (server/core/net/forward.ts): a front replica — a Koa app with the house plumbing whose
 * only middleware forwards every request to `target()` as node `self`, as the db routes' middleware does for a
 * namespace held elsewhere, keeping each forward()'s result so a test can await how an exchange ended — and an owner
 * made of node:http whose answer per path the test sets, plus a raw client (fetch may not send hop-by-hop headers).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { AppState } from '../../server/core/http/app-context.ts';
import { plumbing } from '../../server/core/http/middleware.ts';
import { createLogger } from '../../server/core/logging/logger.ts';
import { createMetrics } from '../../server/core/metrics/metrics.ts';
import { ForwardAgents, type ForwardResult, forward } from '../../server/core/net/forward.ts';

export type Front = Awaited<ReturnType<typeof startFront>>;
export type Upstream = Awaited<ReturnType<typeof startUpstream>>;

/** Starts the front on 127.0.0.1, port 0; its 503s carry `Retry-After: 7`. */
export async function startFront(
  self: string,
  target: () => { url: string; node: string },
  opts: { ca?: string; connectTimeoutMs?: number; answerTimeoutMs?: number } = {},
) {
  const agents = new ForwardAgents({ ca: opts.ca });
  const results: ForwardResult[] = [];
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  app.use(plumbing({ logger: createLogger({ level: 'silent' }), metrics: createMetrics() }));
  app.use(async (ctx) => {
    results.push(
      await forward(ctx, target(), { self, agents, connectTimeoutMs: opts.connectTimeoutMs, answerTimeoutMs: opts.answerTimeoutMs, retryAfterSeconds: 7 }),
    );
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    results,
    agents,
    close: () =>
      new Promise<void>((r) => {
        agents.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The owner: a node:http (or https) server whose answer per path the test sets; it records what it saw. */
export async function startUpstream(tls?: { key: string; cert: string }) {
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
export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}) {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers, agent: false }, resolve);
    req.on('error', reject);
    req.end(opts.body);
  });
}

export function readAll(res: IncomingMessage): Promise<string> {
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

/** The upstream's echo: method, path and query, the end-to-end headers a client sends, and the body. */
export function echo(status: number): Handler {
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

/** One owner and one front (node-a forwarding to node-b) for a whole test file; each test sets its owner's handlers. */
export function sharedRig(): { up: Upstream; front: Front } {
  const rig = {} as { up: Upstream; front: Front };
  beforeAll(async () => {
    rig.up = await startUpstream();
    rig.front = await startFront('node-a', () => ({ url: rig.up.url, node: 'node-b' }));
  });
  afterAll(async () => {
    await rig.front.close();
    await rig.up.close();
  });
  afterEach(() => {
    rig.up.handlers.clear();
    rig.up.seen.length = 0;
  });
  return rig;
}

/** Reads a fetch answer's body as text as it arrives (an SSE stream): `text` so far, `ended` when it ends or is cut. */
export function readText(res: Response): { readonly text: string; ended: Promise<void> } {
  const out = { text: '', ended: Promise.resolve() };
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  out.ended = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      out.text += value;
    }
  })();
  return out;
}
