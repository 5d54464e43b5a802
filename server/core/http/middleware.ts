import crypto from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Principal } from '../auth/tokens.service.ts';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { StoreUnavailableError } from '../storage/store.ts';
import type { AppContext, AppMiddleware } from './app-context.ts';
import { type ErrorCode, HearthError } from './errors.ts';
import { setBody } from './json-body.ts';

const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
/** The longest `message` an error answer carries (characters). */
const MESSAGE_LIMIT = 2000;

/** `ctx.state` of a request: a class rather than a per-request accessor, so every request shares one shape. */
export class RequestState {
  requestId: string;
  principal: Principal | undefined = undefined;
  namespace: string | undefined = undefined;
  rowsRead: number | undefined = undefined;
  rowsWritten: number | undefined = undefined;
  #logger: Logger;
  #log: Logger | undefined;
  constructor(requestId: string, logger: Logger) {
    this.requestId = requestId;
    this.#logger = logger;
  }
  get log(): Logger {
    return (this.#log ??= this.#logger.child({ reqId: this.requestId }));
  }
  set log(v: Logger) {
    this.#log = v;
  }
}

/** The request id of a request: the client's `X-Request-ID` when it is printable ASCII of 1–128 characters, else a new UUID. */
export function requestIdOf(given: string | undefined): string {
  return given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID();
}

/** Metrics and the access line of a finished request (the Koa plumbing and the hot dispatcher alike). */
export function finishRequest(
  deps: { logger: Logger; metrics: Metrics },
  r: { requestId: string; method: string; path: string; route: string; status: number; seconds: number; ns?: string },
): void {
  deps.metrics.observeRequest(r.method, r.route, r.status, r.seconds);
  const level = r.status >= 500 ? 'error' : 'info';
  if (deps.logger.isLevelEnabled(level)) {
    deps.logger[level](
      { reqId: r.requestId, method: r.method, path: r.path, status: r.status, ms: Math.round(r.seconds * 1000 * 10) / 10, ns: r.ns },
      'request',
    );
  }
}

/** Request id, access log, metrics and the error envelope, in that order of wrapping. */
export function plumbing(deps: { logger: Logger; metrics: Metrics; onFinished?: (ctx: AppContext, seconds: number) => void }): AppMiddleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    // The child logger is made on first use (see RequestState): most requests only log their access line.
    ctx.state = new RequestState(requestId, deps.logger) as unknown as AppContext['state'];
    ctx.set('X-Request-ID', requestId);
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw new HearthError('not_found', `no route for ${ctx.method} ${ctx.path}`);
        if (ctx.status === 405 || ctx.status === 501) {
          const allow = ctx.response.get('Allow');
          if (!allow) {
            ctx.response.remove('Allow');
            throw new HearthError('not_found', `no route for ${ctx.method} ${ctx.path}`);
          }
          throw new HearthError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}${allow ? ` (allowed: ${allow})` : ''}`, {
            headers: allow ? { Allow: allow } : undefined,
          });
        }
      }
    } catch (err) {
      renderError(ctx, err);
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as AppContext & { _matchedRoute?: string })._matchedRoute;
      if (deps.onFinished) {
        try {
          deps.onFinished(ctx, seconds);
        } catch (err) {
          ctx.state.log.warn({ err }, 'request observer failed');
        }
      }
      finishRequest(deps, {
        requestId,
        method: ctx.method,
        path: ctx.path,
        route: typeof route === 'string' ? route : 'unmatched',
        status: ctx.status,
        seconds,
        ns: ctx.state.namespace,
      });
    }
  };
}

/**
 * An error as the envelope answer: status, extra headers and `{error, message}` (plus `error_description` on
 * `/oauth/`, and the error's extra `fields`).
 */
export function errorAnswer(path: string, err: unknown, log: Logger): { status: number; headers: Record<string, string>; body: Record<string, unknown> } {
  let e: HearthError;
  if (err instanceof HearthError) e = err;
  else if (err instanceof StoreUnavailableError) {
    log.warn({ error: err.message }, 'core store unavailable');
    e = new HearthError('service_unavailable', 'the core store cannot be reached; try again shortly', { headers: { 'Retry-After': '2' } });
  } else if (isHttpError(err) && err.status < 500) {
    // The code's status is the table's: a 4xx without a code of its own (none of the body parsers throws one) is 400.
    e = new HearthError(codeForStatus(err.status), err.expose ? err.message : (STATUS_CODES[err.status] ?? 'error'));
  } else {
    log.error({ err }, 'unhandled error');
    e = new HearthError('internal_error', 'internal error; the request id identifies it in the server log');
  }
  if (e.status >= 500 && e.code !== 'internal_error') log.warn({ code: e.code, error: e.message }, 'request failed');
  const headers: Record<string, string> = { ...e.headers };
  // RFC 7235 §3.1: a 401 names the scheme to use. A failed OAuth client authentication (`invalid_client`, token,
  // revocation and device-authorization endpoints) names the scheme of client authentication, Basic, whatever the
  // client sent (RFC 6749 §5.2); every other 401 names Bearer.
  if (e.status === 401 && !e.headers?.['WWW-Authenticate'])
    headers['WWW-Authenticate'] = e.code === 'invalid_client' ? 'Basic realm="hearth"' : 'Bearer realm="hearth"';
  // OAuth endpoints answer in RFC 6749's shape too (`error_description`), keeping Hearth's `message`.
  // The last guard against a message that quotes a client's input whole (`quoteInput` cuts each quoted value).
  const message = e.message.length > MESSAGE_LIMIT ? `${e.message.slice(0, MESSAGE_LIMIT)}…` : e.message;
  const body: Record<string, unknown> = path.startsWith('/oauth/')
    ? { error: e.code, error_description: message, message }
    : { ...e.fields, error: e.code, message };
  return { status: e.status, headers, body };
}

function renderError(ctx: AppContext, err: unknown): void {
  const answer = errorAnswer(ctx.path, err, ctx.state.log);
  if (ctx.headerSent) {
    // Streaming already started: the only honest signal left is to cut the connection.
    ctx.req.socket.destroy();
    return;
  }
  const requestId = ctx.state.requestId;
  const allow = ctx.response.get('Allow');
  ctx.response.remove('Allow');
  ctx.response.remove('Content-Disposition');
  ctx.response.remove('Content-Length');
  ctx.set('X-Request-ID', requestId);
  if (allow && answer.status === 405) ctx.set('Allow', allow);
  for (const [k, v] of Object.entries(answer.headers)) ctx.set(k, v);
  ctx.status = answer.status;
  ctx.type = 'application/json';
  setBody(ctx, answer.body);
}

function isHttpError(err: unknown): err is { status: number; message: string; expose?: boolean } {
  return typeof err === 'object' && err !== null && typeof (err as { status?: unknown }).status === 'number';
}

function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'invalid_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 406:
      return 'not_acceptable';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    default:
      return 'invalid_request';
  }
}
