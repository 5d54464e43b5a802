/**
 * The authorization server's metadata (OpenID Connect Discovery 1.0 and RFC 8414): one document, served at both
 * well-known addresses by oauth.routes.ts. It names only what Hearth does: the code flow with PKCE S256, four
 * grants, RS256 ID tokens, the delegated scopes (`groups` and `admin` exist only for managed and first-party
 * clients, so they are not advertised).
 */
import { JWKS_PATHS } from '../keys/keys.tokens.ts';
import { DEVICE_CODE_GRANT } from './device.ts';
import { DELEGATED_SCOPES } from './oauth.schemas.ts';

export function discoveryDocument(base: string): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    userinfo_endpoint: `${base}/oauth/userinfo`,
    jwks_uri: `${base}${JWKS_PATHS.oauth}`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    device_authorization_endpoint: `${base}/oauth/device_authorization`,
    end_session_endpoint: `${base}/oauth/logout`,
    scopes_supported: [...DELEGATED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'azp',
      'at_hash',
      'sid',
      'uid',
      'name',
      'preferred_username',
      'email',
      'groups',
    ],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    claims_parameter_supported: false,
    resource_indicators_supported: true,
  };
}
