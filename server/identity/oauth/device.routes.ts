/**
 * Routes of terminal sign-in (RFC 8628): the device authorization endpoint and the browser verification pages.
 * The device-code grant itself is served by `POST /oauth/token` (oauth.routes.ts → oauth.service.ts's grant map → grants/device-code.ts → device.ts).
 */

import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api, Cors } from '../../core/http/api.ts';
import { noStore } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { readFormBody } from '../../core/http/body.ts';
import { HearthError } from '../../core/http/errors.ts';
import { createFailureLimiter } from '../sessions/rate-limit.ts';
import { requirePlatformOrigin, type SessionsService } from '../sessions/sessions.service.ts';
import { DEVICE_SIGN_IN_MAX_S } from './device.ts';
import { deviceCodePage, deviceConsentPage, errorPage } from './oauth.pages.ts';
import { DeviceAuthorizationForm, DeviceAuthorizationResponse, OAuthError } from './oauth.schemas.ts';
import type { OAuthService } from './oauth.service.ts';

const FORM_LIMIT = 16 * 1024;
/** Device authorizations per client address per minute (each may notify a phone). */
export const DEVICE_AUTHORIZATIONS_PER_MINUTE = 30;
/** Wrong user codes per client address per minute on the verification page. */
export const USER_CODE_FAILURES_PER_MINUTE = 10;

const Html = z.string().meta({ description: 'An HTML page.' });

/** Any origin may ask for a device authorization, sending client credentials (its preflight as the token endpoint's). */
const DEVICE_AUTHORIZATION_CORS: Cors = { origins: 'any', allowHeaders: ['Authorization', 'Content-Type'] };

export function registerDeviceRoutes(api: Api, oauth: OAuthService, sessions: SessionsService, opts: { issuer: () => string }): void {
  const tags = ['OAuth 2.0 / OpenID Connect'];
  const creations = createFailureLimiter({ limit: DEVICE_AUTHORIZATIONS_PER_MINUTE, windowMs: 60_000, now: Date.now });
  const wrongCodes = createFailureLimiter({ limit: USER_CODE_FAILURES_PER_MINUTE, windowMs: 60_000, now: Date.now });
  const getClient = (id: string) => oauth.getClient(id);

  api.route({
    method: 'post',
    path: '/oauth/device_authorization',
    operationId: 'deviceAuthorization',
    tags,
    access: 'public',
    summary: 'Device authorization (RFC 8628): terminal sign-in',
    description:
      'First-party clients only (`hearth-cli`; other clients `unauthorized_client`, unknown ones `invalid_client` 401). ' +
      "With `login_hint` (a login name or email) the sign-in is approved in the paired authenticator app of that account: the app shows the client, every scope code, the sign-in lifetime and the six-digit comparison code, which is this answer's `user_code`; the device code lives five minutes. " +
      'The answer has the same shape whether or not the hint names an account with a paired app that accepts terminal sign-ins; such a request is never approved and ends in `expired_token`. ' +
      'Without `login_hint` the user enters `user_code` (eight letters, `BCDF-GHJK`) at `verification_uri` (`/oauth/device`) after signing in; that device code lives ten minutes. ' +
      `The resulting sign-in lasts at most ${DEVICE_SIGN_IN_MAX_S / 86400} days (the refresh grant, with \`offline_access\`; one hour without). ` +
      `Poll \`POST /oauth/token\` with \`grant_type=urn:ietf:params:oauth:grant-type:device_code\` every \`interval\` seconds. ${DEVICE_AUTHORIZATIONS_PER_MINUTE} requests a minute per address (429 \`rate_limited\`). ` +
      'Errors: `invalid_request`, `invalid_client`, `unauthorized_client`, `invalid_scope`, `invalid_target` (`resource` is not supported here), `temporarily_unavailable` (503: approval in the app is not available on this server). Audited as `oauth.device_authorization.create`.',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: () => DeviceAuthorizationForm },
    responses: {
      200: { description: 'The device authorization.', schema: () => DeviceAuthorizationResponse },
      400: { description: 'OAuth error.', schema: () => OAuthError },
      401: { description: '`invalid_client`, with `WWW-Authenticate: Basic realm="hearth"`.', schema: () => OAuthError },
      429: { description: 'Too many device authorizations from this address (`rate_limited`, `Retry-After`).', schema: () => OAuthError },
      503: { description: '`temporarily_unavailable`.', schema: () => OAuthError },
    },
    cors: DEVICE_AUTHORIZATION_CORS,
    handler: async (ctx) => {
      noStore(ctx);
      const ip = sessions.clientIp(ctx);
      const wait = creations.retryAfter(ip);
      if (wait > 0)
        throw new HearthError('rate_limited', 'too many device authorizations from this address; try again later', {
          headers: { 'Retry-After': String(wait) },
        });
      const form = await readFormBody(ctx, FORM_LIMIT);
      creations.fail(ip);
      return await oauth.deviceAuthorization(form, ctx.get('authorization'), { ip, userAgent: (ctx.get('user-agent') || '').slice(0, 256) }, actorFor(ctx));
    },
  });

  // ---- verification pages ----
  const tooMany = (ctx: AppContext) => {
    const wait = wrongCodes.retryAfter(sessions.clientIp(ctx));
    if (wait > 0) ctx.set('Retry-After', String(wait));
    return wait > 0;
  };

  /** The approval page for a typed code, or the code page again with the reason. */
  const showCode = async (
    ctx: AppContext,
    userCode: string,
    login: string,
    account: NonNullable<Awaited<ReturnType<SessionsService['sessionView']>>>['account'],
  ) => {
    if (tooMany(ctx)) return deviceCodePage(ctx, { login, userCode, status: 429, error: 'Too many wrong codes. Wait a minute and try again.' });
    const found = await oauth.device.lookupUserCode(userCode, getClient);
    if (!found) {
      wrongCodes.fail(sessions.clientIp(ctx));
      return deviceCodePage(ctx, {
        login,
        userCode,
        status: 400,
        error: 'This code is unknown or has expired. Check the code the terminal shows, or start the sign-in again.',
      });
    }
    deviceConsentPage(ctx, {
      userCode: found.userCode,
      client: found.client,
      scope: found.scope,
      lifetimeSeconds: found.lifetimeSeconds,
      login: account.login ?? '',
    });
  };

  api.route({
    method: 'get',
    path: '/oauth/device',
    operationId: 'deviceVerification',
    tags,
    access: 'public',
    summary: 'Device verification page (RFC 8628 §3.3)',
    description:
      'Explains that a six-digit code (`hearth login --user`) is approved in the authenticator app, and takes the eight-letter code of a terminal sign-in without `--user`. ' +
      'With `user_code` and a session it shows the approval page at once (client, every scope, the sign-in lifetime); without a session the form also asks for the login name and password.',
    query: z.object({ user_code: z.string().max(64).optional() }).loose(),
    responses: { 200: { description: 'The code or approval page.', schema: Html, contentType: 'text/html' } },
    cache: 'no-store',
    handler: async (ctx, { query }) => {
      const session = await sessions.sessionView(ctx);
      const userCode = typeof query.user_code === 'string' ? query.user_code : undefined;
      if (session && userCode) return showCode(ctx, userCode, session.account.login ?? '', session.account);
      deviceCodePage(ctx, { login: session?.account.login ?? null, userCode });
    },
  });

  api.route({
    method: 'post',
    path: '/oauth/device',
    operationId: 'deviceVerificationSubmit',
    tags,
    access: 'public',
    summary: 'Enter a device user code (form post)',
    description:
      `Form fields \`user_code\`, and \`login\` + \`password\` when not signed in (sets the session cookie; the sign-in rate limit applies). Needs this platform's \`Origin\`. ` +
      `Shows the approval page, or the code page again (400 unknown or expired code; 401 wrong password; 429 after ${USER_CODE_FAILURES_PER_MINUTE} wrong codes a minute from one address).`,
    rawBody: {
      contentType: 'application/x-www-form-urlencoded',
      schema: z.object({ user_code: z.string(), login: z.string().optional(), password: z.string().optional() }),
    },
    responses: {
      200: { description: 'The approval page.', schema: Html, contentType: 'text/html' },
      303: { description: 'Signed in: continue at `GET /oauth/device?user_code=…`.' },
      400: { description: 'Unknown or expired code (the code page again).', schema: Html, contentType: 'text/html' },
      401: { description: 'Wrong login or password (the code page again).', schema: Html, contentType: 'text/html' },
      403: { description: 'Wrong or missing Origin (`origin_mismatch`).' },
      429: { description: 'Too many failures (the code page again).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requirePlatformOrigin(ctx, opts.issuer());
      noStore(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      const userCode = (form.user_code ?? '').slice(0, 64);
      const session = await sessions.sessionView(ctx);
      if (session) return showCode(ctx, userCode, session.account.login ?? '', session.account);
      if (!form.login || !form.password) return deviceCodePage(ctx, { login: null, userCode, status: 401, error: 'Sign in to continue.' });
      try {
        const r = await sessions.login(form.login, form.password, sessions.clientIp(ctx), ctx.state.requestId);
        await sessions.signedIn(ctx, r);
      } catch (err) {
        if (err instanceof HearthError && (err.code === 'invalid_credentials' || err.code === 'rate_limited')) {
          for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v);
          return deviceCodePage(ctx, {
            login: null,
            userCode,
            loginName: form.login,
            status: err.status,
            error: err.code === 'rate_limited' ? 'Too many failed attempts. Wait a minute and try again.' : 'The login name or password is wrong.',
          });
        }
        throw err;
      }
      ctx.status = 303;
      ctx.set('Location', `/oauth/device?user_code=${encodeURIComponent(userCode)}`);
      ctx.body = '';
    },
  });

  api.route({
    method: 'post',
    path: '/oauth/device/decision',
    operationId: 'deviceVerificationDecision',
    tags,
    access: 'public',
    summary: 'Approve or deny a terminal sign-in (form post)',
    description:
      "Form fields `user_code`, `decision` = `approve` or `deny`. Needs a session and this platform's `Origin`. Once per code, before it expires (409 page); an account the client does not allow gets 403. " +
      "The terminal's next token request then gets the tokens or `access_denied`. Audited as `oauth.device_authorization.approve` / `.deny`.",
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ user_code: z.string(), decision: z.enum(['approve', 'deny']) }) },
    responses: {
      200: { description: 'Done (an HTML page).', schema: Html, contentType: 'text/html' },
      401: { description: 'Not signed in (an HTML page).', schema: Html, contentType: 'text/html' },
      403: { description: 'Wrong Origin, or the account may not use this client.' },
      409: { description: 'Already answered or expired (an HTML page).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requirePlatformOrigin(ctx, opts.issuer());
      noStore(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      if (form.decision !== 'approve' && form.decision !== 'deny') throw new HearthError('invalid_request', 'decision must be approve or deny');
      const session = await sessions.sessionView(ctx);
      if (!session) return errorPage(ctx, 401, 'Signed out', 'Your session ended. Open the address the terminal shows and sign in again.');
      const r = await oauth.device.decide(form.user_code ?? '', session.account, form.decision === 'approve', getClient, {
        actor: `account:${session.account.login}`,
        requestId: ctx.state.requestId,
      });
      if (r === 'gone')
        return errorPage(ctx, 409, 'This code has expired', 'This sign-in was already answered or has expired. Start the sign-in in the terminal again.');
      if (r === 'not_allowed') return errorPage(ctx, 403, 'Not allowed', 'Your account may not use this application.');
      if (r === 'denied') return errorPage(ctx, 200, 'Sign-in denied', 'The terminal will not be signed in. You can close this tab.');
      errorPage(ctx, 200, 'Terminal signed in', 'You can close this tab and return to the terminal.');
    },
  });
}
