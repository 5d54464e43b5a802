/**
 * Routes of browser sign-in by approval (browser-login.ts): start (always 202, throttled per address), the held
 * status, and the one-time completion that sets the session cookie.
 */
import { requirePlatformOrigin } from '../sessions/sessions.service.ts';
import { LOGIN_STARTS_PER_MINUTE } from './approval.core.ts';
import { json, type RouteKit, readBody } from './approval.route-kit.ts';
import { LoginRefBody, LoginStartBody, LoginStartResponse, LoginStatus } from './approval.schemas.ts';

export function registerBrowserLoginRoutes(k: RouteKit): void {
  const { approval, sessions, issuer, tags, P, route, throttle, counted, starts, E } = k;
  route({
    method: 'post',
    path: `${P}/login/start`,
    operationId: 'appLoginStart',
    tags,
    access: 'public',
    summary: 'Start a sign-in approved in the authenticator app',
    description:
      'Body `{identifier, category}`: an exact login or email (case-insensitive) and the account category (`login`, `guest`, `freeipa`). Always 202 `{requestId, browserSecret, comparison, expiresAt, pollAfterSeconds}`, the same for unknown, disabled, ambiguous, unpaired, ' +
      'wrong-category and over-capacity (five outstanding) accounts: such a request simply never gets approved. Keep `browserSecret` in the tab (never in a URL, never to the authenticator). Exact platform `Origin`; ' +
      `${LOGIN_STARTS_PER_MINUTE} starts a minute per address (429).`,
    rawBody: json(LoginStartBody),
    responses: { 202: { description: 'The request.', schema: LoginStartResponse }, 403: { description: '`origin_mismatch`.' }, ...E.common },
    cache: 'no-store',
    handler: async (ctx) => {
      requirePlatformOrigin(ctx, issuer());
      throttle(ctx, starts);
      starts.fail(sessions.clientIp(ctx));
      const body = await readBody(ctx, LoginStartBody);
      const r = await approval.startLogin({
        identifier: body.identifier,
        category: body.category,
        ip: sessions.clientIp(ctx),
        userAgent: ctx.get('user-agent'),
        browserId: sessions.browserId(ctx),
      });
      ctx.status = 202;
      return r;
    },
  });
  route({
    method: 'post',
    path: `${P}/login/status`,
    operationId: 'appLoginStatus',
    tags,
    access: 'public',
    summary: 'State of a sign-in request (held while pending)',
    description:
      'Body `{requestId, browserSecret}`. Answers `{state, expiresAt, pollAfterSeconds}` with `pending`, `approved`, `denied`, `consumed` or `expired`. A pending request is held up to `pollAfterSeconds` (or until it expires) and answered as soon as the app decides. ' +
      '404 for a wrong secret, an unknown request, or one minute after expiry (cleanup).',
    rawBody: json(LoginRefBody),
    responses: {
      200: { description: 'The state.', schema: LoginStatus },
      403: { description: '`origin_mismatch`.' },
      404: { description: 'Unavailable.' },
      ...E.common,
    },
    cache: 'no-store',
    handler: async (ctx) => {
      requirePlatformOrigin(ctx, issuer());
      const body = await readBody(ctx, LoginRefBody);
      const ac = new AbortController();
      const gone = () => ac.abort();
      ctx.res.once('close', gone);
      try {
        return await counted(ctx, () => approval.loginStatus(body.requestId, body.browserSecret, ac.signal));
      } finally {
        ctx.res.off('close', gone);
      }
    },
  });
  route({
    method: 'post',
    path: `${P}/login/complete`,
    operationId: 'appLoginComplete',
    tags,
    access: 'public',
    summary: 'Complete an approved sign-in (sets the session cookie)',
    description:
      'Body `{requestId, browserSecret}`. Once and atomically: 204 with the HttpOnly `hearth_session` cookie (never a token in JSON), audited as `session.login` with `method: app-approval`. ' +
      '409 `login_not_approved` (pending, denied, expired), 409 `login_consumed` (already used: a lost response needs a new sign-in); 403 `login_refused` when the approving device was revoked, the account may no longer sign in, its category changed or its sessions were revoked since the start.',
    rawBody: json(LoginRefBody),
    responses: {
      204: { description: 'Signed in (Set-Cookie).' },
      403: { description: '`origin_mismatch`, `login_refused`.' },
      404: { description: 'Unavailable.' },
      409: { description: '`login_not_approved`, `login_consumed`.' },
      ...E.common,
    },
    cache: 'no-store',
    handler: async (ctx) => {
      requirePlatformOrigin(ctx, issuer());
      const body = await readBody(ctx, LoginRefBody);
      const r = await counted(ctx, () => approval.completeLogin(body.requestId, body.browserSecret, ctx.state.requestId));
      await sessions.signedIn(ctx, r);
      ctx.status = 204;
    },
  });
}
