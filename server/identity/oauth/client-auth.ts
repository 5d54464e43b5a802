/**
 * Client authentication at the token, revocation and device authorization endpoints (RFC 6749 §2.3): HTTP Basic
 * (`client_secret_basic`, RFC 6749 §2.3.1 form-encoding of id and secret), `client_id` + `client_secret` in the form
 * (`client_secret_post`), or `client_id` alone for a public client (`none`). One method per request. Secrets are
 * compared as SHA-256 in constant time. Every failure is 401 `invalid_client` (the `WWW-Authenticate: Basic` header is
 * set where errors are answered); a body `client_id` that differs from the Basic one is `invalid_request`.
 */
import crypto from 'node:crypto';
import { type Client, type OAuthContext, oauthError, sha256 } from './action-context.ts';

export interface ClientCredentials {
  /** The request's `Authorization` header ('' when absent). */
  authorization: string;
  clientId?: string;
  clientSecret?: string;
}

export async function authenticateClient(ctx: Pick<OAuthContext, 'getClient'>, input: ClientCredentials): Promise<Client> {
  let id = input.clientId;
  let secret = input.clientSecret;
  if (input.authorization) {
    const m = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(input.authorization);
    if (!m)
      throw oauthError('invalid_client', 'the Authorization header must be HTTP Basic client credentials (or send client_id and client_secret in the form)');
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthError('invalid_client', 'malformed HTTP Basic credentials');
    let bid: string;
    let bsecret: string;
    try {
      bid = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      bsecret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw oauthError('invalid_client', 'malformed HTTP Basic credentials');
    }
    if (id !== undefined && id !== bid) throw oauthError('invalid_request', 'client_id in the body differs from the HTTP Basic client');
    if (secret !== undefined) throw oauthError('invalid_request', 'use one client authentication method, not both HTTP Basic and client_secret');
    id = bid;
    secret = bsecret;
  }
  const fail = (why: string) => oauthError('invalid_client', why);
  if (!id) throw fail('client authentication failed: no client_id');
  const client = await ctx.getClient(id);
  if (!client || client.revokedAt !== null) throw fail('client authentication failed');
  if (client.isPublic) {
    if (secret) throw fail('client authentication failed: a public client has no secret');
    return client;
  }
  if (!secret || !client.secretHash) throw fail('client authentication failed: this confidential client must authenticate');
  const given = Buffer.from(sha256(secret), 'hex');
  if (!crypto.timingSafeEqual(given, Buffer.from(client.secretHash, 'hex'))) throw fail('client authentication failed');
  return client;
}

/**
 * The form parameters of client authentication: those of `client_secret_post` and `none`, the methods Hearth takes
 * (no `client_assertion`: JWT client authentication is not offered).
 */
export const CLIENT_AUTH_PARAMETERS = ['client_id', 'client_secret'] as const;

/** The credentials of a form-encoded request: the header and the form's `client_id` / `client_secret`. */
export const credentialsOf = (form: Record<string, string | undefined>, authorization: string): ClientCredentials => ({
  authorization,
  clientId: form.client_id,
  clientSecret: form.client_secret,
});
