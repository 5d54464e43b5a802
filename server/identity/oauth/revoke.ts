/**
 * Ending grants: token revocation (RFC 7009) and the end of a client's grants at RP-initiated logout.
 *
 * RFC 7009: unknown or foreign tokens are not an error (the answer is the same 200). `token_type_hint` is only a
 * hint (§2.1): every token type is searched whatever it says, and a hint this server does not know is ignored
 * (§2.2). A refresh token ends its whole family; an access token (a JWT of this client) is refused by Hearth's APIs
 * until it expires.
 */
import { decodeJwt } from 'jose';
import type { Actor } from '../accounts/accounts.service.ts';
import { type Form, type OAuthContext, oauthError, sha256 } from './action-context.ts';
import { authenticateClient, credentialsOf } from './client-auth.ts';

export function createRevocation(ctx: OAuthContext) {
  const { store, now, record } = ctx;
  return {
    /** POST /oauth/revoke: client authentication, then the token (refresh token first, then an access token). */
    async revoke(form: Form, authorization: string, a: Actor) {
      const client = await authenticateClient(ctx, credentialsOf(form, authorization));
      const token = form.token;
      if (!token) throw oauthError('invalid_request', 'token is required');
      const rt = await store.getRefreshToken(sha256(token));
      if (rt) {
        const f = await store.getFamily(rt.family_id);
        if (f && f.client_id === client.clientId && (await store.revokeFamily(f.id, now(), 'revoked'))) {
          await record({ ...a, actor: `oauth-client:${client.clientId}` }, 'oauth.grant.revoke', client.clientId, { sub: f.sub, family: f.id });
        }
        return;
      }
      if (token.split('.').length === 3) {
        let aud: string[] = [];
        try {
          const c = decodeJwt(token);
          aud = Array.isArray(c.aud) ? c.aud : c.aud ? [c.aud] : [];
        } catch {
          return;
        }
        if (aud.length === 0) return;
        const v = await ctx.authority.verifyAccessToken(token, { audience: aud }).catch(() => null);
        if (v && v.clientId === client.clientId) await store.revokeAccessToken(v.jti, v.expiresAt * 1000);
      }
    },

    /** RP-initiated logout: ends the client's refresh grants for the account. */
    async endClientGrants(clientId: string, sub: string, a: Actor) {
      const n = await store.revokeUserClientFamilies(clientId, sub, now(), 'logout');
      if (n > 0) await record(a, 'oauth.grant.logout', clientId, { sub, endedGrants: n });
      return n;
    },
  };
}
