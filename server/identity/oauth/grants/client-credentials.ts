/**
 * Grant `client_credentials` (RFC 6749 §4.4): a confidential client bound to a resource-bound service account gets an
 * access token for that service account. Scopes: the client's, without the user-only ones (`openid`, `profile`,
 * `email`, `groups`, `offline_access`); `resource` must be one of the client's audiences. No refresh token.
 */

import { quoteInput } from '../../../core/http/errors.ts';
import { type GrantHandler, type OAuthContext, oauthError, parseScope, validResource } from '../action-context.ts';

const USER_ONLY = ['openid', 'profile', 'email', 'groups', 'offline_access'];

/** What the grant reads of the token request beside the common parameters (RFC 6749 §4.4.2, RFC 8707 §2.2). */
export const clientCredentialsParameters: ReadonlySet<string> = new Set(['scope', 'resource']);

export function clientCredentialsGrant(ctx: OAuthContext): GrantHandler {
  return async (client, form) => {
    if (client.isPublic || !client.grantTypes.includes('client_credentials') || !client.serviceAccountId) {
      throw oauthError('unauthorized_client', 'client_credentials needs a confidential client bound to a resource-bound service account');
    }
    // The client was read with whether its service account exists (one round trip on PostgreSQL, not two).
    if (!client.serviceAccountLive) throw oauthError('unauthorized_client', "the client's service account no longer exists");
    const requested = parseScope(form.scope);
    let scope: string[];
    if (requested === null) scope = client.scopes.filter((s) => !USER_ONLY.includes(s));
    else {
      const bad = requested.find((s) => !client.scopes.includes(s) || USER_ONLY.includes(s));
      if (bad !== undefined) throw oauthError('invalid_scope', `scope ${quoteInput(bad)} is not allowed for this client's client_credentials grant`);
      scope = requested;
    }
    const resource = validResource(form.resource);
    if (resource !== null && !client.audiences.includes(resource)) throw oauthError('invalid_target', "resource is not one of this client's audiences");
    const audiences = resource !== null ? [resource] : client.audiences;
    if (audiences.length === 0) throw oauthError('invalid_target', 'this client has no audience configured');
    const accessToken = await ctx.authority.signAccessToken({
      sub: client.serviceAccountId,
      actorKind: 'service_account',
      clientId: client.clientId,
      audience: audiences,
      scope,
    });
    return ctx.tokenResponse(accessToken, scope);
  };
}
