import type { Access } from '../http/api.ts';
import type { AppContext, HotContext } from '../http/app-context.ts';
import { HearthError, quoteInput } from '../http/errors.ts';
import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from './database-app.ts';
import { actorOf, type Principal, type TokenService } from './tokens.service.ts';

/** `Authorization: Bearer <token>`; group 1 is the token. */
export const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i;

/**
 * Resolves a platform session cookie (identity domain; the session lives in the core store, so it answers a
 * Promise): the principal, null when no session cookie was sent; it rejects with 401 for an ended session and 403
 * `origin_mismatch` for a state-changing request from another origin.
 */
export type SessionAuthenticator = (ctx: AppContext) => Promise<Principal | null>;

/**
 * Resolves an OAuth access token (a JWT) for the request: the principal, or null when it does not verify for this
 * request's audiences (the identity domain decides which audiences a path accepts).
 */
export type OAuthBearerAuthenticator = (token: string, ctx: { path: string }) => Promise<Principal | null>;

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Resolves `Authorization: Bearer …` (an API token, or an OAuth access token) or, without that header, the platform
 * session cookie, for a route's declared access: 401 when absent or invalid, 403 when not allowed. A bearer token
 * always wins over a cookie.
 */
export function createAuthenticator(tokens: TokenService, sessions?: SessionAuthenticator, oauth?: OAuthBearerAuthenticator) {
  const finish = (ctx: AppContext | HotContext, access: Access, principal: Principal) => {
    ctx.state.principal = principal;
    if (access === 'admin' && principal.kind !== 'admin') {
      throw new HearthError(
        'forbidden',
        principal.session
          ? 'this account may not use administration endpoints: the administrator role is required'
          : principal.oauth
            ? "this access token may not use administration endpoints: an administrator account's token with the admin scope and the hearth audience is required"
            : 'this token may not use administration endpoints: an admin token is required',
      );
    }
  };
  return (ctx: AppContext | HotContext, access: Access): void | Promise<void> => {
    if (access === 'public') return;
    const header = ctx.get('authorization');
    if (!header) {
      // Session cookies are read on Koa's context only: the hot dispatcher sends requests without an Authorization
      // header to Koa (server/core/http/hot.ts).
      if (!sessions) throw new HearthError('unauthorized', 'missing Authorization: Bearer <token> header');
      return sessions(ctx as AppContext).then((p) => {
        if (!p) throw new HearthError('unauthorized', 'missing Authorization: Bearer <token> header');
        finish(ctx, access, p);
      });
    }
    const m = BEARER.exec(header);
    if (!m) throw new HearthError('unauthorized', 'the Authorization header must be "Bearer <token>"');
    const token = m[1]!;
    if (oauth && JWT.test(token)) {
      return oauth(token, ctx).then((p) => {
        if (!p) {
          throw new HearthError('unauthorized', 'the access token is invalid, expired, revoked or not meant for this resource', {
            headers: { 'WWW-Authenticate': 'Bearer realm="hearth", error="invalid_token"' },
          });
        }
        finish(ctx, access, p);
      });
    }
    return tokens.authenticate(token).then((p) => {
      if (!p) throw new HearthError('unauthorized', 'the bearer token is invalid, expired or revoked');
      finish(ctx, access, p);
    });
  };
}

/** Data-plane check: may this principal reach namespace `ns`, and write to it? */
export function requireNamespaceAccess(ctx: { state: { principal?: Principal } }, ns: string, mode: 'read' | 'write'): Principal {
  const p = ctx.state.principal;
  if (!p) throw new HearthError('unauthorized', 'missing Authorization: Bearer <token> header');
  if (p.kind === 'admin') return p;
  const service = p.oauth?.service;
  if (service && service.appId !== DATABASE_APP_ID) {
    throw new HearthError(
      'forbidden',
      `this access token acts as a service account of application ${quoteInput(service.appId)} (${p.oauth!.actor}): the database service accepts only service accounts of its own application ${quoteInput(DATABASE_APP_ID)}`,
    );
  }
  if (service && (service.resourceType !== NAMESPACE_RESOURCE || service.resourceId !== ns)) {
    throw new HearthError(
      'forbidden',
      `this access token's service account is bound to ${service.resourceType} ${quoteInput(service.resourceId)}, not to namespace ${quoteInput(ns)}`,
    );
  }
  if (!p.anyNamespace && !p.namespaces.includes(ns)) throw new HearthError('forbidden', `this credential may not use namespace ${quoteInput(ns)}`);
  if (mode === 'write' && p.readOnly) throw new HearthError('forbidden', p.oauth ? 'this access token has no write scope' : 'this token is read-only');
  return p;
}

export function actorFor(ctx: { state: { principal?: Principal; requestId: string } }) {
  return { actor: ctx.state.principal ? actorOf(ctx.state.principal) : 'anonymous', requestId: ctx.state.requestId };
}

/** The request context every domain reads after `requireRole`: who acts, and as which subject. */
export interface RequestIdentity {
  /** Who acts, for audit and `_meta.actor`: `account:<login>`, `service:<appId>:<resourceType>:<resourceId>`, `token:<name>`. */
  actor: string;
  /** What the domain authorizes against: the account's UUID, the service account's ID, or `token:<id>` for an API token. */
  accessSubject: string;
  /** `user` (a person, by session or OAuth), `service_account` (client credentials) or `token` (an API token). */
  kind: 'user' | 'service_account' | 'token';
  admin: boolean;
  /** OAuth scopes when the credential is an access token (the credential's scope cap), otherwise null. */
  scope: string[] | null;
}

/**
 * `requireRole(ctx, 'authenticated')` (or `'admin'`): 401 without a credential, 403 without the role; then the
 * request's `actor` and `accessSubject`. Routes declared `authenticated`/`admin` have already authenticated.
 */
export function requireRole(ctx: AppContext, role: 'authenticated' | 'admin'): RequestIdentity {
  const p = ctx.state.principal;
  if (!p) throw new HearthError('unauthorized', 'this request needs a credential: a session, an API token or an OAuth access token');
  if (role === 'admin' && p.kind !== 'admin') throw new HearthError('forbidden', 'the administrator role is required');
  const kind = p.oauth ? p.oauth.actorKind : p.session ? 'user' : 'token';
  const accessSubject = p.oauth ? p.oauth.sub : p.session ? p.session.sub : `token:${p.tokenId}`;
  return { actor: actorOf(p), accessSubject, kind, admin: p.kind === 'admin', scope: p.oauth ? p.oauth.scope : null };
}
