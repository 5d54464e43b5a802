/**
 * Hot routes: a few public endpoints on which throughput is the product (today the OAuth token endpoint, where a
 * client-credentials token costs one RSA signature and the request's own handling is the rest) are answered without
 * Koa's per-request context, compose chain and router walk. What a request gets is the same as on every other route:
 * the `X-Request-ID` (the client's or a new one), the `{error, message}` envelope (with `error_description` under
 * `/oauth/`) through the same `errorAnswer`, the same request metrics (route label = the route's path) and access
 * line through `finishRequest`. A hot route is also registered with Koa (`Api.hotRoute`), so its OpenAPI entry,
 * CORS preflight and `405` with `Allow` for other methods come from the usual place; the dispatcher only takes the
 * exact method and path (any query string) of a hot route.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { HotContext } from './context.ts';
import { RequestState, errorAnswer, finishRequest, requestIdOf } from './middleware.ts';

export type HotHandler = (ctx: HotContext) => Promise<unknown>;

/** The lean request context of a hot route (the subset of Koa's context in `HotContext`). */
class LeanContext implements HotContext {
  readonly method: string;
  readonly path: string;
  readonly req: IncomingMessage;
  readonly state: RequestState;
  readonly headers: Record<string, string>;
  status = 404;
  body: unknown = undefined;
  constructor(req: IncomingMessage, path: string, state: RequestState) {
    this.method = req.method ?? 'GET';
    this.path = path;
    this.req = req;
    this.state = state;
    this.headers = { 'X-Request-ID': state.requestId };
  }
  /** A request header ('' when absent), like Koa's `ctx.get` (`referer`/`referrer` are one). */
  get(field: string): string {
    const name = field.toLowerCase();
    const v = this.req.headers[name === 'referrer' ? 'referer' : name];
    return v === undefined ? '' : Array.isArray(v) ? v.join(', ') : v;
  }
  set(field: string, value: string): void {
    this.headers[field] = value;
  }
  /** The request's media type when it is one of `types` (exact `type/subtype`, parameters ignored), else false; null without a body. */
  is(...types: string[]): string | false | null {
    const len = this.req.headers['content-length'];
    if ((len === undefined || len === '0') && this.req.headers['transfer-encoding'] === undefined) return null;
    const ct = this.req.headers['content-type'];
    if (!ct) return false;
    const semi = ct.indexOf(';');
    const media = (semi < 0 ? ct : ct.slice(0, semi)).trim().toLowerCase();
    return types.some((t) => t.toLowerCase() === media) ? media : false;
  }
}

export function hotDispatcher(
  routes: ReadonlyMap<string, HotHandler>,
  deps: { logger: Logger; metrics: Metrics },
  next: RequestListener,
): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const handler = routes.get(`${req.method} ${path}`);
    if (!handler) return next(req, res);
    void serve(handler, req, res, path, deps);
  };
}

async function serve(handler: HotHandler, req: IncomingMessage, res: ServerResponse, path: string, deps: { logger: Logger; metrics: Metrics }): Promise<void> {
  const started = process.hrtime.bigint();
  const given = req.headers['x-request-id'];
  const ctx = new LeanContext(req, path, new RequestState(requestIdOf(typeof given === 'string' ? given : undefined), deps.logger));
  let payload: string;
  try {
    const result = await handler(ctx);
    if (result !== undefined) ctx.body = result;
    if (ctx.body === undefined) throw new Error(`hot route ${path} answered no body`);
    if (ctx.status === 404) ctx.status = 200;
    if (typeof ctx.body === 'string') {
      payload = ctx.body;
      ctx.headers['Content-Type'] ??= 'text/plain; charset=utf-8';
    } else {
      payload = JSON.stringify(ctx.body);
      ctx.headers['Content-Type'] = 'application/json; charset=utf-8';
    }
  } catch (err) {
    const answer = errorAnswer(path, err, ctx.state.log);
    // Headers a handler set stay (CORS, Cache-Control), as on Koa; the error's own headers are added.
    Object.assign(ctx.headers, answer.headers);
    ctx.status = answer.status;
    payload = JSON.stringify(answer.body);
    ctx.headers['Content-Type'] = 'application/json; charset=utf-8';
  }
  ctx.headers['Content-Length'] = String(Buffer.byteLength(payload));
  if (!res.destroyed) {
    res.writeHead(ctx.status, ctx.headers);
    res.end(payload);
  }
  // A body the handler did not read (an early refusal) is drained so the connection can be reused.
  if (!req.complete) req.resume();
  finishRequest(deps, {
    requestId: ctx.state.requestId, method: ctx.method, path, route: path, status: ctx.status, seconds: Number(process.hrtime.bigint() - started) / 1e9,
  });
}
