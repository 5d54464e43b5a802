import { HearthError } from '../http/errors.ts';
import type { AppContext } from '../http/context.ts';
import type { Access } from '../http/api.ts';
import { actorOf, type Principal, type TokenService } from './tokens.service.ts';

const BEARER = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i;

/** Resolves `Authorization: Bearer …` for a route's declared access: 401 when absent or invalid, 403 when not allowed. */
export function createAuthenticator(tokens: TokenService) {
  return (ctx: AppContext, access: Access): void => {
    if (access === 'public') return;
    const header = ctx.get('authorization');
    if (!header) throw new HearthError('unauthorized', 'missing Authorization: Bearer <token> header');
    const m = BEARER.exec(header);
    if (!m) throw new HearthError('unauthorized', 'the Authorization header must be "Bearer <token>"');
    const principal = tokens.authenticate(m[1]!);
    if (!principal) throw new HearthError('unauthorized', 'the bearer token is invalid, expired or revoked');
    ctx.state.principal = principal;
    if (access === 'admin' && principal.kind !== 'admin') {
      throw new HearthError('forbidden', 'this token may not use administration endpoints: an admin token is required');
    }
  };
}

/** Data-plane check: may this principal reach namespace `ns`, and write to it? */
export function requireNamespaceAccess(ctx: AppContext, ns: string, mode: 'read' | 'write'): Principal {
  const p = ctx.state.principal;
  if (!p) throw new HearthError('unauthorized', 'missing Authorization: Bearer <token> header');
  if (p.kind === 'admin') return p;
  if (!p.namespaces.includes(ns)) throw new HearthError('forbidden', `this token may not use namespace ${JSON.stringify(ns)}`);
  if (mode === 'write' && p.readOnly) throw new HearthError('forbidden', 'this token is read-only');
  return p;
}

export function actorFor(ctx: AppContext) {
  return { actor: ctx.state.principal ? actorOf(ctx.state.principal) : 'anonymous', requestId: ctx.state.requestId };
}
