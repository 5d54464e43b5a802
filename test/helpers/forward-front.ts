/**
 * A front replica for the forwarding tests (server/core/net/forward.ts): a Koa app with the house plumbing whose only
 * middleware forwards every request to `target()` as node `self`, as the db routes' middleware does for a namespace
 * held elsewhere. It keeps each forward()'s result, so a test can await how an exchange ended.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { AppState } from '../../server/core/http/context.ts';
import { plumbing } from '../../server/core/http/middleware.ts';
import { createLogger } from '../../server/core/logging/logger.ts';
import { createMetrics } from '../../server/core/metrics/metrics.ts';
import { ForwardAgents, type ForwardResult, forward } from '../../server/core/net/forward.ts';

export type Front = Awaited<ReturnType<typeof startFront>>;

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
