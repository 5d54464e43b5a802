/**
 * What every route of the authenticator-approval protocol shares: the response guard (8 KiB answers, a locked
 * platform.db as 503 `approval_unavailable`), the strict 8 KiB JSON body reader, the address throttles and the count of
 * refused credentials, CORS for the authenticator origin, the session checks (interactive, exact Origin, recent
 * sign-in) and the common error responses of the OpenAPI description. Each flow's routes file registers its routes
 * through it; approval.routes.ts composes them.
 */

import type { z } from 'zod';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import type { Api, Cors, NoParams, RouteDef } from '../../core/http/api.ts';
import { noStore } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { readJsonBody } from '../../core/http/body.ts';
import { HearthError } from '../../core/http/errors.ts';
import { isBusyError } from '../../core/storage/store.ts';
import { createFailureLimiter } from '../sessions/rate-limit.ts';
import { requirePlatformOrigin, type SessionsService } from '../sessions/sessions.service.ts';
import { AUTH_FAILURES_PER_MINUTE, jsonBytes, LOGIN_STARTS_PER_MINUTE } from './approval.core.ts';
import { APP_APPROVAL_BASE, APPROVAL_LIMITS } from './approval.schemas.ts';
import type { ApprovalService } from './approval.service.ts';

/**
 * The one response guard of the protocol: a serialized answer above 8 KiB (`responseBytes`) is never sent (500
 * `internal_error`; lists shrink their pages before that, so only a defect can reach it), and platform.db being locked
 * past its busy timeout is 503 `approval_unavailable` with `Retry-After`.
 */
async function guardAnswer<T>(fn: () => T | Promise<T>): Promise<T> {
  let r: T;
  try {
    r = await fn();
  } catch (e) {
    if (isBusyError(e)) throw new HearthError('approval_unavailable', 'the platform database is busy; try again shortly', { headers: { 'Retry-After': '1' } });
    throw e;
  }
  if (r !== undefined && jsonBytes(r) > APPROVAL_LIMITS.responseBytes) {
    throw new HearthError('internal_error', `the answer would exceed the ${APPROVAL_LIMITS.responseBytes}-byte response budget of hearth-app-approval-v1`);
  }
  return r;
}

/** Reads a JSON body of at most 8 KiB (413 beyond) and validates it strictly (400, the first issue). */
export async function readBody<T extends z.ZodType>(ctx: AppContext, schema: T): Promise<z.infer<T>> {
  const raw = await readJsonBody(ctx, APPROVAL_LIMITS.requestBodyBytes);
  if (raw === undefined) throw new HearthError('invalid_request', 'a JSON request body is required');
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const at = i.path.length ? `${i.path.join('.')}: ` : '';
  const message =
    i.code === 'unrecognized_keys' ? `unknown ${i.keys.length > 1 ? 'keys' : 'key'} ${i.keys.map((k) => JSON.stringify(k)).join(', ')}` : i.message;
  throw new HearthError('invalid_request', `body: ${at}${message}`);
}

export const json = (schema: z.ZodType, description?: string) => ({ contentType: 'application/json', schema, description });

/** The shared route helpers, made once per registration of the protocol's routes. */
export function createRouteKit(api: Api, approval: ApprovalService, sessions: SessionsService, opts: { issuer: () => string }) {
  const tags = ['Authenticator approval'];
  const P = APP_APPROVAL_BASE;
  /** api.route with the response guard. */
  function route<PP extends z.ZodType = NoParams, Q extends z.ZodType = NoParams, B extends z.ZodType = z.ZodUndefined>(def: RouteDef<PP, Q, B>): void {
    api.route({ ...def, handler: (ctx, input) => guardAnswer(() => def.handler(ctx, input)) });
  }
  const starts = createFailureLimiter({ limit: LOGIN_STARTS_PER_MINUTE, windowMs: 60_000, now: Date.now });
  const failures = createFailureLimiter({ limit: AUTH_FAILURES_PER_MINUTE, windowMs: 60_000, now: Date.now });

  const throttle = (ctx: AppContext, limiter = failures) => {
    const wait = limiter.retryAfter(sessions.clientIp(ctx));
    if (wait > 0) throw new HearthError('rate_limited', 'too many requests from this address; try again later', { headers: { 'Retry-After': String(wait) } });
  };
  /**
   * Counts refused credentials towards the address's failure budget: a wrong secret or key, an unknown device, a
   * signature that does not verify, and (where the ID and secret are the credential) an unknown ID. A revoked device
   * still polling, or a decision on a request that is gone, is not a guess and is not counted.
   */
  const GUESSES = new Set(['forbidden', 'bad_signature', 'device_unknown', 'key_mismatch']);
  const counted = async <T>(ctx: AppContext, fn: () => T | Promise<T>, unknownIdCounts = true): Promise<T> => {
    throttle(ctx);
    try {
      return await fn();
    } catch (e) {
      if (e instanceof HearthError && (GUESSES.has(e.code) || (unknownIdCounts && e.code === 'not_found'))) failures.fail(sessions.clientIp(ctx));
      throw e;
    }
  };
  /** CORS for the authenticator website's origin only, never with credentials (`RouteDef.cors` of the device paths). */
  const cors: Cors = { origins: (origin) => origin === approval.authenticatorOrigin() };
  /** An interactive platform session (API and OAuth tokens cannot manage devices). */
  const session = (ctx: AppContext): SessionInfo => {
    const p = ctx.state.principal;
    if (!p?.session || p.oauth) throw new HearthError('forbidden', 'only an interactive sign-in session can do this (API and OAuth tokens cannot)');
    return p.session;
  };
  const write = (ctx: AppContext): SessionInfo => {
    noStore(ctx);
    const s = session(ctx);
    requirePlatformOrigin(ctx, opts.issuer());
    return s;
  };
  const recent = (ctx: AppContext): SessionInfo => {
    const s = write(ctx);
    sessions.requireRecentAuth(ctx);
    return s;
  };
  const E = {
    session: { 401: { description: 'No session (`unauthorized`).' }, 403: { description: '`forbidden` (not an interactive session), `origin_mismatch`.' } },
    recent: {
      401: { description: 'No session (`unauthorized`).' },
      403: { description: '`forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`.' },
    },
    common: {
      413: { description: 'Body larger than 8 KiB (`payload_too_large`).' },
      415: { description: 'Not `application/json`.' },
      429: { description: '`rate_limited` with `Retry-After`.' },
      503: { description: '`approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`).' },
    },
  };

  return { api, approval, sessions, issuer: opts.issuer, tags, P, route, throttle, counted, cors, session, write, recent, starts, E };
}

export type RouteKit = ReturnType<typeof createRouteKit>;
