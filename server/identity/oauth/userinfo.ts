/**
 * OAuth access tokens presented as bearer tokens: UserInfo (OpenID Connect Core §5.3) and, for Hearth's own APIs,
 * the principal of an access token. A token counts only when it verifies for one of the accepted audiences, is not
 * revoked, its client still exists unrevoked, and its actor is an active account allowed credential flows (user
 * tokens) or an existing service account (client-credentials tokens) — one query each on the warm path.
 */
import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from '../../core/auth/database-app.ts';
import type { Principal } from '../../core/auth/tokens.service.ts';
import { InvalidTokenError, type VerifiedAccessToken } from '../keys/keys.tokens.ts';
import { type OAuthContext, oauthError } from './action-context.ts';
import { PLATFORM_AUDIENCE } from './oauth.schemas.ts';

export function createBearer(ctx: OAuthContext) {
  const { store, accountStore, accounts } = ctx;

  /** One query for the warm path: the client and the actor. */
  async function resolveActor(v: VerifiedAccessToken) {
    const client = await store.getClient(v.clientId);
    if (!client || client.revoked_at !== null) return null;
    if (v.actorKind === 'user') {
      const row = await accountStore.getAccount(v.sub);
      return row && (await ctx.accountUsable(row)) ? { client, row, sa: null } : null;
    }
    const sa = await accounts.getServiceAccount(v.sub);
    return sa ? { client, row: null, sa } : null;
  }

  async function verifyBearer(token: string, audiences: string[]) {
    let v: VerifiedAccessToken;
    try {
      v = await ctx.authority.verifyAccessToken(token, { audience: audiences });
    } catch (err) {
      if (err instanceof InvalidTokenError) return null;
      throw err;
    }
    if (await store.isAccessRevoked(v.jti)) return null;
    const who = await resolveActor(v);
    return who ? { v, ...who } : null;
  }

  return {
    /** UserInfo: user access tokens with `openid`, for the platform audience, from a registered client, for an active account. */
    async userinfo(token: string) {
      const invalid = (why: string) =>
        oauthError('invalid_token', why, { headers: { 'WWW-Authenticate': `Bearer realm="hearth", error="invalid_token", error_description="${why}"` } });
      const r = await verifyBearer(token, [PLATFORM_AUDIENCE]);
      if (!r) throw invalid('the access token is invalid, expired, revoked, for another audience, or its client or account is gone');
      if (r.v.actorKind !== 'user' || !r.row) throw invalid('UserInfo needs a user access token');
      if (!r.v.scope.includes('openid')) {
        throw oauthError('insufficient_scope', 'the access token lacks the openid scope', {
          headers: { 'WWW-Authenticate': 'Bearer realm="hearth", error="insufficient_scope", scope="openid"' },
        });
      }
      const row = r.row;
      const c = await ctx.idTokenClaims(row, r.v.scope);
      return {
        sub: row.sub,
        uid: c.uid,
        ...(c.name !== undefined ? { name: c.name, preferred_username: c.preferredUsername } : {}),
        ...(c.email !== undefined ? { email: c.email } : {}),
        ...(c.groups !== undefined ? { groups: c.groups } : {}),
      };
    },

    /**
     * For Hearth's own APIs: the principal of an OAuth access token whose audience is one of `audiences`; null when
     * it does not verify or its client or actor is gone. Namespace rights: an administrator account's token reaches
     * every namespace its audience names (all for `hearth` and `{base}/v1`); a service account of the database
     * application (`appId: hearth-db`, `resourceType: namespace`) reaches the namespace it is bound to; other accounts
     * and other applications' service accounts none (the database service says why: `requireNamespaceAccess`).
     * `admin` scope + administrator + `hearth` audience → administration.
     */
    async principalFor(token: string, audiences: string[], nsFromPath: string | null): Promise<Principal | null> {
      const r = await verifyBearer(token, audiences);
      if (!r) return null;
      const { v } = r;
      const base = ctx.issuer();
      const wide = v.audience.includes(PLATFORM_AUDIENCE) || v.audience.includes(`${base}/v1`);
      const readOnly = !v.scope.includes('write');
      const dataScope = v.scope.includes('read') || v.scope.includes('write');
      const actor = r.row ? `account:${r.row.login}` : `service:${r.sa!.appId}:${r.sa!.resourceType}:${r.sa!.resourceId}`;
      const service = r.sa ? { appId: r.sa.appId, resourceType: r.sa.resourceType, resourceId: r.sa.resourceId } : undefined;
      const oauth = { clientId: v.clientId, scope: v.scope, audience: v.audience, actor, sub: v.sub, actorKind: v.actorKind, ...(service ? { service } : {}) };
      const name = r.row ? r.row.login! : r.sa!.displayName || r.sa!.sub;
      if (r.row && r.row.admin === 1 && v.scope.includes('admin') && v.audience.includes(PLATFORM_AUDIENCE)) {
        return { kind: 'admin', tokenId: `oauth:${v.jti}`, name, oauth };
      }
      let namespaces: string[] = [];
      let anyNamespace = false;
      if (dataScope) {
        if (r.row && r.row.admin === 1) {
          if (wide) anyNamespace = true;
          else if (nsFromPath && v.audience.includes(`${base}/v1/${nsFromPath}`)) namespaces = [nsFromPath];
        } else if (r.sa && r.sa.appId === DATABASE_APP_ID && r.sa.resourceType === NAMESPACE_RESOURCE) {
          const ns = r.sa.resourceId;
          if (wide || v.audience.includes(`${base}/v1/${ns}`)) namespaces = [ns];
        }
      }
      return { kind: 'namespaces', tokenId: `oauth:${v.jti}`, name, namespaces, anyNamespace, readOnly, oauth };
    },
  };
}
