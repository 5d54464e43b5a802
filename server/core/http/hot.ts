/**
 * Hot routes: a few endpoints on which throughput is the product — the OAuth token endpoint, where a
 * client-credentials token costs one RSA signature and the request's own handling is the rest, and the read of one
 * row by id — are answered without Koa's per-request context, compose chain and router walk. What a request gets is
 * the same as on every other route: the `X-Request-ID` (the client's or a new one), the same authentication and
 * access check (`Api`'s authenticator), the `{error, message}` envelope (with `error_description` under `/oauth/`)
 * through the same `errorAnswer`, the same request metrics (route label = the route's path), namespace telemetry and
 * access line through `finishRequest`. A hot route is also registered with Koa (`Api.hotRoute`), so its OpenAPI
 * entry, CORS preflight, `HEAD` and `405` with `Allow` for other methods come from the usual place.
 *
 * The dispatcher takes only the exact method and path of a hot route (with a query string only when the route reads
 * one: a strict route's keys are refused by Koa): literal segments as
 * written (case-sensitive, no trailing slash) and `:param` segments holding one non-empty segment, decoded as the
 * router decodes them. A hot route that needs a credential takes only requests that carry an `Authorization`
 * header; a request signed in by session cookie goes through Koa, where cookies and Origin checks live. A route may
 * hand a request to Koa (`handOff`: a namespace held by another node, forwarded there from Koa). Anything else goes
 * to Koa too, which answers it the same way.
 *
 * What it earns (bench/routing.bench.ts: `BENCH_ROUTING_ROUNDS=11 npm run bench -- routing`, hot on ÷ off, median of
 * the per-round ratios, 2-core machine shared with other work, three runs of 7–11 rounds): one row by id 1.38–1.47×
 * requests/s and 1.38–1.40× lower p50, 1.43–1.54× less server CPU per request; the token endpoint, where the RSA
 * signature dominates, 1.10–1.11× requests/s and 1.14–1.18× lower p50, 1.10–1.17× less CPU per request (one run under
 * heavy load showed no rate gain). Below ~10 % on its route a hot route should go back to Koa.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { HotContext } from './app-context.ts';
import { errorAnswer, finishRequest, RequestState, requestIdOf } from './middleware.ts';

export type HotHandler = (ctx: HotContext, params: Record<string, string>) => Promise<unknown>;

/** Who may call a hot route (as `Access` of `Api.route`). */
export type HotAccess = 'public' | 'authenticated' | 'admin';

export interface HotEntry {
  method: string;
  /** The route's Koa path (also its metrics label), e.g. `/v1/:ns/tables/:table/rows/:id`. */
  path: string;
  access: HotAccess;
  /** False: a request with a query string is left to Koa (which refuses its keys; see `RouteDef.query`). */
  takesQuery?: boolean;
  handler: HotHandler;
  /**
   * True for a request this route must leave to Koa (a namespace held by another node, which Koa forwards): asked
   * before the handler runs, and again with `err` when the handler fails (its namespace moved away meanwhile).
   */
  handOff?: (params: Record<string, string>, err?: unknown) => boolean;
}

/** Hot routes by `METHOD /path` for literal paths, and the routes with `:param` segments. */
export class HotRoutes {
  readonly literal = new Map<string, HotEntry>();
  readonly patterned: Array<HotEntry & { segments: string[] }> = [];

  add(entry: HotEntry): void {
    if (!entry.path.includes('/:')) this.literal.set(`${entry.method} ${entry.path}`, entry);
    else this.patterned.push({ ...entry, segments: entry.path.split('/') });
  }

  /** The route and its decoded parameters for a request, or null. */
  match(method: string, path: string): { entry: HotEntry; params: Record<string, string> } | null {
    const literal = this.literal.get(`${method} ${path}`);
    if (literal) return { entry: literal, params: {} };
    if (this.patterned.length === 0) return null;
    const parts = path.split('/');
    next: for (const e of this.patterned) {
      if (e.method !== method || e.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = e.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          if (part === '') continue next;
          params[seg.slice(1)] = decodeSegment(part);
        } else if (seg !== part) continue next;
      }
      return { entry: e, params };
    }
    return null;
  }
}

/** As @koa/router decodes a path parameter: percent-decoded, or as written when that fails. */
function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export interface HotDeps {
  logger: Logger;
  metrics: Metrics;
  /** `Api`'s authenticator: sets `ctx.state.principal`, throws 401/403. */
  authenticate: (ctx: HotContext, access: HotAccess) => void | Promise<void>;
  /** Called when a request finishes, as the Koa app's `onFinished` (namespace telemetry). */
  onFinished?: (ctx: HotContext, seconds: number) => void;
}

/** The lean request context of a hot route (the subset of Koa's context in `HotContext`). */
class LeanContext implements HotContext {
  readonly method: string;
  readonly path: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly state: RequestState;
  readonly headers: Record<string, string>;
  status = 404;
  body: unknown = undefined;
  constructor(req: IncomingMessage, res: ServerResponse, path: string, state: RequestState) {
    this.method = req.method ?? 'GET';
    this.path = path;
    this.req = req;
    this.res = res;
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

export function hotDispatcher(routes: HotRoutes, deps: HotDeps, next: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const found = routes.match(req.method ?? '', path);
    if (
      !found ||
      (found.entry.access !== 'public' && req.headers.authorization === undefined) ||
      (q >= 0 && found.entry.takesQuery === false) ||
      found.entry.handOff?.(found.params)
    )
      return next(req, res);
    void serve(found.entry, found.params, req, res, path, deps, next);
  };
}

async function serve(
  entry: HotEntry,
  params: Record<string, string>,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  deps: HotDeps,
  next: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<void> {
  const started = process.hrtime.bigint();
  const given = req.headers['x-request-id'];
  const ctx = new LeanContext(req, res, path, new RequestState(requestIdOf(typeof given === 'string' ? given : undefined), deps.logger));
  let payload: string;
  try {
    if (entry.access !== 'public') {
      const pending = deps.authenticate(ctx, entry.access);
      if (pending) await pending;
    }
    const result = await entry.handler(ctx, params);
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
    // The request turned out to be Koa's after all (its namespace moved away meanwhile): nothing was written yet.
    if (entry.handOff?.(params, err) && !res.headersSent) return next(req, res);
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
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (deps.onFinished) {
    try {
      deps.onFinished(ctx, seconds);
    } catch (err) {
      ctx.state.log.warn({ err }, 'request observer failed');
    }
  }
  finishRequest(deps, { requestId: ctx.state.requestId, method: ctx.method, path, route: entry.path, status: ctx.status, seconds, ns: ctx.state.namespace });
}
