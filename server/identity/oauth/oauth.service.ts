/**
 * The OAuth 2.0 / OpenID Connect authorization server, composed from one file per action the way
 * node-oidc-provider is: this file builds the shared context and hands it to each action, and keeps the surface the
 * identity domain and the routes use (`OAuthService`). It holds no private key: the keys module's closed OAuth
 * authority signs the two permitted token shapes (RFC 9068 access tokens, ID tokens).
 *
 * Where each rule lives (choices of Hearth's own are in each file's header and docs/api/oauth.md):
 * - `action-context.ts`: the client model, lifetimes, who may authorize, the recheck of every issuance, token responses.
 * - `client-auth.ts`: client authentication at the token, revocation and device authorization endpoints.
 * - `clients.ts`: the first-party client, client administration, dynamic registration (RFC 7591).
 * - `authorize.ts`: the authorization endpoint, sign-in and consent interactions, codes.
 * - `grants/*.ts`: the token endpoint's grants, chosen by `grant_type` below, each with the parameters it reads
 *   (`grants/parameters.ts`: RFC 6749 §3.2).
 * - `revoke.ts`: revocation (RFC 7009) and the end of a client's grants at logout.
 * - `userinfo.ts`: UserInfo and the principal of a bearer access token on Hearth's own APIs.
 * - `device.ts`: terminal sign-in (RFC 8628), for first-party clients only.
 */

import { quoteInput } from '../../core/http/errors.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import { createOAuthContext, type Form, type Grant, KEEP_REVOKED_MS, type OAuthContextDeps, oauthError } from './action-context.ts';
import { createAuthorize } from './authorize.ts';
import { authenticateClient, credentialsOf } from './client-auth.ts';
import { createClients } from './clients.ts';
import { DEVICE_CODE_GRANT, type TerminalBroker } from './device.ts';
import { authorizationCodeGrant, authorizationCodeParameters } from './grants/authorization-code.ts';
import { clientCredentialsGrant, clientCredentialsParameters } from './grants/client-credentials.ts';
import { deviceCodeGrant, deviceCodeParameters } from './grants/device-code.ts';
import { COMMON_PARAMETERS, tokenParameter, tokenParameters } from './grants/parameters.ts';
import { refreshTokenGrant, refreshTokenParameters } from './grants/refresh-token.ts';
import type { FamilyRow } from './oauth.store.ts';
import { createRevocation } from './revoke.ts';
import { createBearer } from './userinfo.ts';

export {
  ABANDONED_REGISTRATION_MS,
  ACCESS_TOKEN_LIFETIME_S,
  type Client,
  CODE_LIFETIME_MS,
  CONSENT_LIFETIME_MS,
  FIRST_PARTY_CLI,
  type OAuthAuthority,
  oauthError,
  parseScope,
  REFRESH_FAMILY_LIFETIME_MS,
  SIGN_IN_INTERACTION_MS,
} from './action-context.ts';
export { type AuthorizationParams, type AuthorizeOutcome, redirectMatches, type SessionView } from './authorize.ts';
export { presentClient } from './clients.ts';

export function createOAuthService(
  deps: OAuthContextDeps & {
    /** The approval protocol's terminal broker for terminal sign-in with `login_hint` (null: that mode answers 503). */
    terminalBroker: TerminalBroker | null;
  },
) {
  const ctx = createOAuthContext(deps);
  const clients = createClients(ctx);
  const authorize = createAuthorize(ctx);
  const revocation = createRevocation(ctx);
  const bearer = createBearer(ctx);
  const device = deviceCodeGrant(ctx, deps.terminalBroker);

  /** The token endpoint's grants by `grant_type`, each with its parameters (a Map: a name such as `constructor` is simply unsupported). */
  const grants = new Map<string, Grant>([
    ['authorization_code', { parameters: authorizationCodeParameters, handler: authorizationCodeGrant(ctx) }],
    ['client_credentials', { parameters: clientCredentialsParameters, handler: clientCredentialsGrant(ctx) }],
    ['refresh_token', { parameters: refreshTokenParameters, handler: refreshTokenGrant(ctx) }],
    [DEVICE_CODE_GRANT, { parameters: deviceCodeParameters, handler: device.handler }],
  ]);

  return {
    getClient: ctx.getClient,
    /** Terminal sign-in (RFC 8628): the device flow (its broker was given at construction). */
    device: device.flow,

    /** POST /oauth/device_authorization: client authentication, then the device flow. */
    async deviceAuthorization(form: Form, authorization: string, req: { ip: string; userAgent: string }, a: Actor) {
      const client = await authenticateClient(ctx, credentialsOf(form, authorization));
      return device.flow.authorize(client, form, req, { ...a, actor: `oauth-client:${client.clientId}` });
    },

    seed: clients.seed,
    listClients: clients.listClients,
    getClientInfo: clients.getClientInfo,
    createClient: clients.createClient,
    updateClient: clients.updateClient,
    rotateSecret: clients.rotateSecret,
    revokeClient: clients.revokeClient,
    deleteClient: clients.deleteClient,
    register: clients.register,

    validateAuthorization: authorize.validateAuthorization,
    decide: authorize.decide,
    interaction: authorize.interaction,
    consent: authorize.consent,

    /**
     * POST /oauth/token: `grant_type` is required; the grant's parameters and the common ones are read (given twice:
     * `invalid_request`; any other: ignored; see grants/parameters.ts); the client authenticates; then its grant answers.
     */
    async token(body: URLSearchParams, authorization: string, a: Actor) {
      const grantType = tokenParameter(body, 'grant_type');
      if (!grantType) throw oauthError('invalid_request', 'grant_type is required');
      const grant = grants.get(grantType);
      const form = tokenParameters(body, grant?.parameters ?? COMMON_PARAMETERS);
      const client = await authenticateClient(ctx, credentialsOf(form, authorization));
      if (!grant) throw oauthError('unsupported_grant_type', `grant_type ${quoteInput(grantType)} is not supported`);
      return grant.handler(client, form, { ...a, actor: `oauth-client:${client.clientId}` });
    },

    revoke: revocation.revoke,
    endClientGrants: revocation.endClientGrants,
    userinfo: bearer.userinfo,
    principalFor: bearer.principalFor,

    /** Background cleanup: expired codes, interactions and refresh families; abandoned dynamic registrations. */
    async cleanup() {
      const at = ctx.now();
      const purged = await ctx.store.purge(at, KEEP_REVOKED_MS);
      const abandoned = await ctx.store.transaction(() => clients.purgeAbandoned(at));
      return { ...purged, abandoned };
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
export type { FamilyRow };
