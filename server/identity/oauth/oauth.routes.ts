/**
 * The protocol endpoints of the OAuth 2.0 / OpenID Connect server: discovery (both well-known addresses; the document
 * is built in discovery.ts), the authorization endpoint with its sign-in and consent interactions, the token endpoint
 * (a hot route, answered beside Koa: server/core/http/hot.ts), revocation, UserInfo, dynamic registration and
 * RP-initiated logout; the endpoints browser applications call declare their CORS (`OAUTH_CORS`, which answers their
 * preflights too). Terminal sign-in's pages are device.routes.ts; client administration (`/api/admin/oauth/clients`)
 * is clients.routes.ts. Handlers stay thin: the rules are in the action files oauth.service.ts composes.
 *
 * One file because it is the provider's whole protocol surface, read as its map: the length is the route
 * declarations (parameters, responses and the description each endpoint publishes), not logic.
 */

import { z } from 'zod';
import { actorFor, BEARER } from '../../core/auth/auth.ts';
import type { Api, Cors } from '../../core/http/api.ts';
import { noStore } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { readFormBody, readFormParams, readJsonBody } from '../../core/http/body.ts';
import { HearthError } from '../../core/http/errors.ts';
import { createFailureLimiter } from '../sessions/rate-limit.ts';
import { requirePlatformOrigin, type SessionsService } from '../sessions/sessions.service.ts';
import { registerDeviceRoutes } from './device.routes.ts';
import { discoveryDocument } from './discovery.ts';
import { consentPage, errorPage, signInPage, signOutPage } from './oauth.pages.ts';
import { DELEGATED_SCOPES, OAuthError, RegisterBody, RegisterResponse, TokenForm, TokenResponse } from './oauth.schemas.ts';
import { type AuthorizeOutcome, type OAuthService, oauthError } from './oauth.service.ts';

const FORM_LIMIT = 64 * 1024;
/** Dynamic registrations allowed per client IP per minute. */
export const REGISTRATIONS_PER_MINUTE = 20;

/**
 * Token, revocation, UserInfo, registration and discovery are called by browser applications on other origins (no
 * cookies): any origin, sending its token or client credentials, reading the `WWW-Authenticate` of a refusal.
 */
const OAUTH_CORS: Cors = { origins: 'any', allowHeaders: ['Authorization', 'Content-Type'], exposeHeaders: ['WWW-Authenticate'] };

const Html = z.string().meta({ description: 'An HTML page.' });
const QueryParam = (description: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({ description });
const AuthorizeParams = z
  .object({
    client_id: QueryParam('OAuth client ID.'),
    redirect_uri: QueryParam('Exact registered redirect URI (a loopback `http://127.0.0.1` URI matches with any port).'),
    response_type: QueryParam('Must be `code`.'),
    scope: QueryParam('Space-separated scopes, each allowed for the client. Omitted: every scope of the client.'),
    resource: QueryParam("RFC 8707 resource: one of the client's audiences; mandatory for dynamic clients and then on this origin."),
    state: QueryParam('Returned unchanged (up to 2048 characters).'),
    nonce: QueryParam('Put into the ID token (up to 512 characters).'),
    code_challenge: QueryParam('PKCE challenge (required for public clients).'),
    code_challenge_method: QueryParam('Must be `S256`; `plain` is rejected.'),
    prompt: QueryParam('`none`, `login`, `consent` or `select_account` (treated as `login`).'),
    max_age: QueryParam('Maximum seconds since sign-in before a new sign-in is required.'),
    response_mode: QueryParam('Only `query`.'),
  })
  .loose();
const InteractionParams = z.object({ id: z.string().min(1).max(100) });

export function registerOAuthRoutes(api: Api, oauth: OAuthService, sessions: SessionsService, opts: { issuer: () => string }): void {
  const tags = ['OAuth 2.0 / OpenID Connect'];
  const registrations = createFailureLimiter({ limit: REGISTRATIONS_PER_MINUTE, windowMs: 60_000, now: Date.now });

  const requireOrigin = (ctx: AppContext) => requirePlatformOrigin(ctx, opts.issuer());

  const render = (ctx: AppContext, o: AuthorizeOutcome) => {
    noStore(ctx);
    if (o.kind === 'redirect') {
      ctx.status = 303;
      ctx.set('Location', o.location);
      ctx.body = '';
      return;
    }
    if (o.kind === 'error_page') return errorPage(ctx, o.status, o.title, o.message);
    if (o.kind === 'sign_in') return signInPage(ctx, { interactionId: o.interactionId, client: o.client, error: o.error, status: o.status });
    return consentPage(ctx, o);
  };

  const authorize = async (ctx: AppContext, q: Record<string, unknown>) => {
    const v = await oauth.validateAuthorization(q);
    if ('page' in v) {
      noStore(ctx);
      return errorPage(ctx, v.page.status, v.page.title, v.page.message);
    }
    if ('redirect' in v) return render(ctx, { kind: 'redirect', location: v.redirect });
    render(ctx, await oauth.decide(v.ok, v.client, await sessions.sessionView(ctx)));
  };

  // ---- discovery ----
  for (const [path, operationId] of [
    ['/.well-known/openid-configuration', 'openidConfiguration'],
    ['/.well-known/oauth-authorization-server', 'oauthServerMetadata'],
  ] as const) {
    api.route({
      method: 'get',
      path,
      operationId,
      tags,
      access: 'public',
      summary: path.endsWith('openid-configuration') ? 'OpenID Connect discovery' : 'OAuth 2.0 authorization server metadata (RFC 8414)',
      description:
        'The same document at both addresses. `scopes_supported` lists only the delegated scopes (`groups` and `admin` exist for managed and first-party clients). Cached publicly for five minutes.',
      responses: { 200: { description: 'Metadata.', schema: z.record(z.string(), z.unknown()) } },
      cors: OAUTH_CORS,
      handler: (ctx) => {
        ctx.set('Cache-Control', 'public, max-age=300');
        return discoveryDocument(opts.issuer());
      },
    });
  }

  // ---- authorization ----
  api.route({
    method: 'get',
    path: '/oauth/authorize',
    operationId: 'authorize',
    tags,
    access: 'public',
    summary: 'Authorization endpoint (code flow)',
    description:
      'Validates the request; an unknown client or an unregistered `redirect_uri` shows an error page (never a redirect). Other errors redirect to the client with `error`, `error_description`, `state` and `iss`. ' +
      'Without a session (or with `prompt=login`, or beyond `max_age`) it shows the sign-in page; dynamic clients (and `prompt=consent`) then see the consent page; otherwise it redirects with `code`, `state` and `iss` (RFC 9207). Codes live 60 seconds and are single-use.',
    query: AuthorizeParams,
    responses: {
      200: { description: 'The sign-in or consent page.', schema: Html, contentType: 'text/html' },
      303: { description: 'Redirect to the client with `code` or `error`, `state` and `iss`.' },
      400: { description: 'Unknown client or redirect URI (an HTML page).', schema: Html, contentType: 'text/html' },
    },
    handler: (ctx) => authorize(ctx, ctx.query as Record<string, unknown>),
  });
  api.route({
    method: 'post',
    path: '/oauth/authorize',
    operationId: 'authorizePost',
    tags,
    access: 'public',
    summary: 'Authorization endpoint (form post)',
    description: 'The same as `GET /oauth/authorize` with the parameters form-encoded (OpenID Connect Core §3.1.2.1).',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: AuthorizeParams },
    responses: {
      200: { description: 'The sign-in or consent page.', schema: Html, contentType: 'text/html' },
      303: { description: 'Redirect to the client.' },
      400: {
        description: 'Unknown client or redirect URI (an HTML page); a form body that cannot be read (JSON, e.g. a parameter given twice).',
        schema: Html,
        contentType: 'text/html',
      },
    },
    handler: async (ctx) => authorize(ctx, await readFormBody(ctx, FORM_LIMIT)),
  });

  api.route({
    method: 'get',
    path: '/oauth/interaction/:id',
    operationId: 'resumeAuthorization',
    tags,
    access: 'public',
    summary: 'Continue an authorization after signing in',
    params: InteractionParams,
    responses: {
      200: { description: 'The consent page or the sign-in page.', schema: Html, contentType: 'text/html' },
      303: { description: 'Redirect to the client.' },
      400: {
        description: 'The sign-in has expired or is unknown (an HTML page); an id that is not one (JSON).',
        schema: Html,
        contentType: 'text/html',
      },
    },
    handler: async (ctx, { params }) => {
      const i = await oauth.interaction(params.id);
      if (!i) return render(ctx, { kind: 'error_page', status: 400, title: 'This sign-in has expired', message: 'Return to the application and start again.' });
      render(ctx, await oauth.decide(i.params, i.client, await sessions.sessionView(ctx), { interactionId: params.id, freshSince: i.createdAt }));
    },
  });

  api.route({
    method: 'post',
    path: '/oauth/interaction/:id/login',
    operationId: 'authorizationSignIn',
    tags,
    access: 'public',
    summary: 'Sign in during an authorization (form post)',
    description:
      "Form fields `login`, `password`. Needs this platform's `Origin`. Sets the session cookie and continues with `GET /oauth/interaction/{id}`. A wrong password shows the page again (401); ten failures a minute from one address answer 429.",
    params: InteractionParams,
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ login: z.string(), password: z.string() }) },
    responses: {
      303: { description: 'Signed in; continue.' },
      401: { description: 'Wrong login or password (the sign-in page again).', schema: Html, contentType: 'text/html' },
      403: { description: 'Wrong or missing Origin (`origin_mismatch`).' },
      429: { description: 'Too many failures (the sign-in page with the wait).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx, { params }) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      const i = await oauth.interaction(params.id);
      if (!i) return render(ctx, { kind: 'error_page', status: 400, title: 'This sign-in has expired', message: 'Return to the application and start again.' });
      try {
        const r = await sessions.login(form.login ?? '', form.password ?? '', sessions.clientIp(ctx), ctx.state.requestId);
        await sessions.signedIn(ctx, r);
      } catch (err) {
        if (err instanceof HearthError && (err.code === 'invalid_credentials' || err.code === 'rate_limited')) {
          noStore(ctx);
          for (const [k, v] of Object.entries(err.headers ?? {})) ctx.set(k, v);
          return signInPage(ctx, {
            interactionId: params.id,
            client: i.client,
            error: err.code === 'rate_limited' ? 'Too many failed attempts. Wait a minute and try again.' : 'The login name or password is wrong.',
            status: err.status,
            login: form.login,
          });
        }
        throw err;
      }
      noStore(ctx);
      ctx.status = 303;
      ctx.set('Location', `/oauth/interaction/${encodeURIComponent(params.id)}`);
      ctx.body = '';
    },
  });

  api.route({
    method: 'post',
    path: '/oauth/interaction/:id/consent',
    operationId: 'authorizationConsent',
    tags,
    access: 'public',
    summary: 'Approve or deny an application (form post)',
    description:
      "Form field `decision` = `approve` or `deny`. Needs the session the consent page was shown to and this platform's `Origin`. Single-use; expires five minutes after the page was shown (409 page). Audited as `oauth.consent.approve` / `oauth.consent.deny`.",
    params: InteractionParams,
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ decision: z.enum(['approve', 'deny']) }) },
    responses: {
      303: { description: 'Redirect to the client with `code` or `error=access_denied`.' },
      403: { description: 'Wrong Origin, or another account.' },
      409: { description: 'Already answered or expired (an HTML page).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx, { params }) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      if (form.decision !== 'approve' && form.decision !== 'deny') throw new HearthError('invalid_request', 'decision must be approve or deny');
      const session = await sessions.sessionView(ctx);
      if (!session)
        return render(ctx, { kind: 'error_page', status: 401, title: 'Signed out', message: 'Your session ended. Return to the application and start again.' });
      render(
        ctx,
        await oauth.consent(params.id, session, form.decision === 'approve', { actor: `account:${session.account.login}`, requestId: ctx.state.requestId }),
      );
    },
  });

  // ---- token, revocation, UserInfo, registration (CORS and their preflights: OAUTH_CORS) ----
  registerDeviceRoutes(api, oauth, sessions, opts);

  // The token endpoint is a hot route (server/core/http/hot.ts): answered without Koa's per-request machinery.
  api.hotRoute({
    method: 'post',
    path: '/oauth/token',
    operationId: 'token',
    tags,
    summary: 'Token endpoint',
    description:
      'Grants: `authorization_code` (`code`, `redirect_uri`, `client_id`, `code_verifier` when PKCE was used, `resource` repeated exactly), `client_credentials` (confidential client bound to a resource-bound service account; `scope`, `resource`), ' +
      '`refresh_token` (RFC 6749 §6: `refresh_token`, optional narrower `scope`; `resource` repeated exactly for resource-bound grants), ' +
      '`urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4, first-party clients: `device_code`, `client_id`; until approved `authorization_pending`, polling faster than `interval` `slow_down` (the interval grows by 5 s), `access_denied`, `expired_token`; single-use: a second exchange is `invalid_grant` and revokes what the first issued). Confidential clients authenticate with HTTP Basic or `client_id` + `client_secret` in the form. ' +
      'Refresh tokens rotate on every use; reusing a rotated one revokes the grant. Errors follow RFC 6749 §5.2 (`invalid_request`, `invalid_client` 401, `invalid_grant`, `unauthorized_client`, `unsupported_grant_type`, `invalid_scope`, `invalid_target`; `server_error`/`temporarily_unavailable` 503 when the signing authority fails).',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: () => TokenForm },
    responses: {
      200: { description: 'Tokens.', schema: () => TokenResponse },
      400: { description: 'OAuth error.', schema: () => OAuthError },
      401: {
        description:
          'Client authentication failed (`invalid_client`), with `WWW-Authenticate: Basic realm="hearth"` however the client authenticated (RFC 6749 §5.2).',
        schema: () => OAuthError,
      },
      503: { description: 'The signing authority is unavailable.', schema: () => OAuthError },
    },
    cache: 'no-store',
    cors: OAUTH_CORS,
    handler: async (ctx) => {
      return await oauth.token(await readFormParams(ctx, FORM_LIMIT), ctx.get('authorization'), actorFor(ctx));
    },
  });

  api.route({
    method: 'post',
    path: '/oauth/revoke',
    operationId: 'oauthRevoke',
    tags,
    access: 'public',
    summary: 'Token revocation (RFC 7009)',
    description:
      "Form fields `token`, optional `token_type_hint`, and client authentication. The hint is only a hint: both token types are searched whatever it says, and a hint other than `refresh_token` or `access_token` is ignored (RFC 7009 §2.2), never an error. A refresh token ends its whole grant; an access token is refused by Hearth's APIs until it expires. Unknown tokens and tokens of other clients answer 200 too.",
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ token: z.string(), token_type_hint: z.string().optional() }) },
    responses: {
      200: { description: 'Revoked (or nothing to revoke).' },
      401: { description: '`invalid_client`, with `WWW-Authenticate: Basic realm="hearth"`.', schema: () => OAuthError },
    },
    cache: 'no-store',
    cors: OAUTH_CORS,
    handler: async (ctx) => {
      const form = await readFormBody(ctx, FORM_LIMIT);
      await oauth.revoke(form, ctx.get('authorization'), actorFor(ctx));
      ctx.status = 200;
      ctx.body = '';
    },
  });

  const userinfo = async (ctx: AppContext) => {
    noStore(ctx);
    const m = BEARER.exec(ctx.get('authorization'));
    if (!m) {
      throw oauthError('invalid_token', 'send the access token as Authorization: Bearer <token>', { headers: { 'WWW-Authenticate': 'Bearer realm="hearth"' } });
    }
    return await oauth.userinfo(m[1]!);
  };
  const UserInfo = z
    .object({
      sub: z.string(),
      uid: z.string().optional(),
      name: z.string().optional(),
      preferred_username: z.string().optional(),
      email: z.string().optional(),
      groups: z.array(z.string()).optional(),
    })
    .meta({ id: 'UserInfo' });
  for (const method of ['get', 'post'] as const) {
    api.route({
      method,
      path: '/oauth/userinfo',
      operationId: method === 'get' ? 'userinfo' : 'userinfoPost',
      tags,
      access: 'public',
      summary: 'UserInfo',
      description:
        "Accepts only user access tokens with `openid` for the platform audience `hearth` (tokens requested with `resource` are resource-only and refused), from a registered client, for an active account. ID tokens are refused. Claims follow the token's scopes: `profile` → `name`, `preferred_username`; `email` → `email`; `groups` → `groups`.",
      responses: {
        200: { description: 'Claims.', schema: UserInfo },
        401: { description: '`invalid_token` with `WWW-Authenticate`.', schema: () => OAuthError },
        403: { description: '`insufficient_scope` (no `openid`).', schema: () => OAuthError },
      },
      cors: OAUTH_CORS,
      handler: (ctx) => userinfo(ctx),
    });
  }

  api.route({
    method: 'post',
    path: '/oauth/register',
    operationId: 'registerClient',
    tags,
    access: 'public',
    summary: 'Dynamic client registration (RFC 7591)',
    description: () =>
      `Public clients only: 1–10 redirect URIs (https, or http on localhost, 127.0.0.1 or ::1; no user information or fragments), \`token_endpoint_auth_method: none\`, grant types \`authorization_code\` and optional \`refresh_token\`, \`application_type\` native or web, \`scope\` a subset of \`${DELEGATED_SCOPES.join(' ')}\` (the default). ` +
      `Registration grants nothing: authorization needs PKCE S256, a \`resource\` on this origin and the user's consent. Registrations that never start an authorization are removed after 24 hours. ${REGISTRATIONS_PER_MINUTE} registrations a minute per address (429). Errors: \`invalid_redirect_uri\`, \`invalid_client_metadata\`.`,
    rawBody: { contentType: 'application/json', schema: () => RegisterBody },
    responses: {
      201: { description: 'Registered.', schema: () => RegisterResponse },
      400: { description: '`invalid_redirect_uri` or `invalid_client_metadata`.', schema: () => OAuthError },
      429: { description: 'Too many registrations from this address (`rate_limited`).' },
    },
    cache: 'no-store',
    cors: OAUTH_CORS,
    handler: async (ctx) => {
      const ip = sessions.clientIp(ctx);
      const wait = registrations.retryAfter(ip);
      if (wait > 0)
        throw new HearthError('rate_limited', 'too many registrations from this address; try again later', { headers: { 'Retry-After': String(wait) } });
      const raw = await readJsonBody(ctx, FORM_LIMIT);
      if (raw === undefined || raw === null || typeof raw !== 'object' || Array.isArray(raw))
        throw oauthError('invalid_client_metadata', 'the body must be a JSON object of client metadata');
      const parsed = RegisterBody.safeParse(raw);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        const field = i.path.join('.');
        throw oauthError(field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', `${field ? `${field}: ` : ''}${i.message}`);
      }
      registrations.fail(ip);
      const r = await oauth.register(parsed.data, { actor: 'anonymous', requestId: ctx.state.requestId });
      ctx.status = 201;
      return r;
    },
  });

  // ---- RP-initiated logout ----
  const LogoutFields = z
    .object({
      id_token_hint: z.string().optional(),
      client_id: z.string().optional(),
      post_logout_redirect_uri: z.string().optional(),
      state: z.string().optional(),
    })
    .loose();
  api.route({
    method: 'get',
    path: '/oauth/logout',
    operationId: 'endSession',
    tags,
    access: 'public',
    summary: 'End session (OpenID Connect RP-Initiated Logout)',
    description: 'Shows a confirmation page; the form posts to `POST /oauth/logout`.',
    query: LogoutFields,
    responses: { 200: { description: 'Confirmation page.', schema: Html, contentType: 'text/html' } },
    cache: 'no-store',
    handler: async (ctx, { query }) => {
      const fields: Record<string, string> = {};
      for (const k of ['id_token_hint', 'client_id', 'post_logout_redirect_uri', 'state'] as const) if (typeof query[k] === 'string') fields[k] = query[k]!;
      signOutPage(ctx, { fields, login: (await sessions.sessionView(ctx))?.account.login ?? null });
    },
  });
  api.route({
    method: 'post',
    path: '/oauth/logout',
    operationId: 'endSessionConfirm',
    tags,
    access: 'public',
    summary: 'End session (confirmed)',
    description:
      'Needs this platform\'s `Origin`. Ends the browser session and the refresh grants the named client holds for the account, then redirects to `post_logout_redirect_uri` (with `state`) when it is the client\'s registered logout URI; otherwise shows "Signed out".',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: LogoutFields },
    responses: {
      200: { description: '"Signed out" page.', schema: Html, contentType: 'text/html' },
      303: { description: "Redirect to the client's logout URI." },
      403: { description: "Not posted from this platform's own pages (`origin_mismatch`)." },
    },
    handler: async (ctx) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      let clientId = form.client_id;
      if (!clientId && form.id_token_hint) {
        try {
          const payload = JSON.parse(Buffer.from(form.id_token_hint.split('.')[1] ?? '', 'base64url').toString('utf8')) as { aud?: unknown };
          if (typeof payload.aud === 'string') clientId = payload.aud;
        } catch {
          /* an unreadable hint names no client */
        }
      }
      const session = await sessions.sessionView(ctx);
      const client = clientId ? await oauth.getClient(clientId) : null;
      if (session && client)
        await oauth.endClientGrants(client.clientId, session.account.sub, { actor: `account:${session.account.login}`, requestId: ctx.state.requestId });
      ctx.append('Set-Cookie', await sessions.logout(ctx));
      noStore(ctx);
      if (client && form.post_logout_redirect_uri && client.logoutUri === form.post_logout_redirect_uri) {
        const u = new URL(client.logoutUri);
        if (form.state) u.searchParams.set('state', form.state);
        ctx.status = 303;
        ctx.set('Location', u.toString());
        ctx.body = '';
        return;
      }
      errorPage(ctx, 200, 'Signed out', 'You are signed out of Hearth. You can close this tab.');
    },
  });
}
