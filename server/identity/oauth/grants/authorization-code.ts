/**
 * Grant `authorization_code` (RFC 6749 §4.1.3, PKCE RFC 7636, resource RFC 8707). The code is single-use and lives
 * 60 s; it must come back to the client it was issued to, with the same `redirect_uri`, the PKCE verifier when a
 * challenge was sent, and the exact `resource` of the authorization request. A replayed code revokes the refresh
 * family and the access token minted from it. With `offline_access` (and a client allowed `refresh_token`) a refresh
 * family starts; the code records what it issued in the same transaction, so a replay can always revoke it.
 */
import crypto from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Actor } from '../../accounts/accounts.service.ts';
import {
  ACCESS_TOKEN_LIFETIME_S,
  type GrantHandler,
  json,
  type OAuthContext,
  oauthError,
  REFRESH_FAMILY_LIFETIME_MS,
  sha256,
  validResource,
} from '../action-context.ts';
import type { CodeRow } from '../oauth.store.ts';

function pkceOk(verifier: string, challenge: string) {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return computed.length === challenge.length && crypto.timingSafeEqual(Buffer.from(computed), Buffer.from(challenge));
}

/** What the grant reads of the token request beside the common parameters (RFC 6749 §4.1.3, RFC 7636 §4.5, RFC 8707 §2.2). */
export const authorizationCodeParameters: ReadonlySet<string> = new Set(['code', 'redirect_uri', 'code_verifier', 'resource']);

export function authorizationCodeGrant(ctx: OAuthContext): GrantHandler {
  const { store, now, record } = ctx;

  async function replayed(code: CodeRow, a: Actor) {
    const at = now();
    await store.transaction(async () => {
      if (code.family_id) await store.revokeFamily(code.family_id, at, 'code_replay');
      const fresh = await store.getCode(code.code_hash);
      if (fresh?.access_jti) await store.revokeAccessToken(fresh.access_jti, fresh.access_expires_at ?? at + ACCESS_TOKEN_LIFETIME_S * 1000);
      if (fresh?.family_id && fresh.family_id !== code.family_id) await store.revokeFamily(fresh.family_id, at, 'code_replay');
      await record(a, 'oauth.code.replay', code.client_id, { sub: code.sub });
    });
  }

  return async (client, form, a) => {
    if (!client.grantTypes.includes('authorization_code')) throw oauthError('unauthorized_client', 'this client may not use the authorization_code grant');
    if (!form.code) throw oauthError('invalid_request', 'code is required');
    if (!form.redirect_uri) throw oauthError('invalid_request', 'redirect_uri is required');
    const hash = sha256(form.code);
    const code = await store.getCode(hash);
    const at = now();
    if (!code || code.client_id !== client.clientId)
      throw oauthError('invalid_grant', 'the authorization code is invalid, expired or was issued to another client');
    if (code.used_at !== null) {
      await replayed(code, a);
      throw oauthError('invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked');
    }
    if (code.expires_at <= at) throw oauthError('invalid_grant', 'the authorization code has expired');
    if (code.redirect_uri !== form.redirect_uri) throw oauthError('invalid_grant', 'redirect_uri does not match the authorization request');
    if (code.code_challenge) {
      if (!form.code_verifier) throw oauthError('invalid_grant', 'code_verifier is required (PKCE was used)');
      if (!pkceOk(form.code_verifier, code.code_challenge)) throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge');
    } else if (form.code_verifier !== undefined) {
      throw oauthError('invalid_grant', 'code_verifier was sent but the authorization request had no code_challenge');
    }
    const resource = validResource(form.resource);
    if ((code.resource ?? null) !== resource) {
      throw oauthError(
        'invalid_target',
        code.resource ? 'resource must repeat the exact value of the authorization request' : 'resource was not part of the authorization request',
      );
    }
    const scope = json<string[]>(code.scope);
    const audiences = json<string[]>(code.audiences);
    const checked = await ctx.recheck(client.clientId, code.sub, scope, audiences);
    // The one redemption (a guarded UPDATE): of two replicas redeeming the same code at once, exactly one gets here.
    if (!(await store.redeemCode(hash, at))) {
      await replayed(code, a);
      throw oauthError('invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked');
    }
    if (typeof checked === 'string') throw oauthError('invalid_grant', checked);
    const { row } = checked;
    const tokens = await ctx.mintUserTokens(client, row, { scope, audiences, authTime: code.auth_time, sid: code.sid, nonce: code.nonce });
    let refreshToken: string | undefined;
    await store.transaction(async () => {
      const jti = decodeJwt(tokens.accessToken).jti!;
      if (scope.includes('offline_access') && client.grantTypes.includes('refresh_token')) {
        const family = await ctx.startRefreshFamily({
          clientId: client.clientId,
          sub: row.sub,
          scope: code.scope,
          audiences: code.audiences,
          resource: code.resource,
          authTime: code.auth_time,
          sid: code.sid,
          at,
          expiresAt: at + REFRESH_FAMILY_LIFETIME_MS,
        });
        refreshToken = family.refreshToken;
        await store.setCodeIssued(hash, family.familyId, jti, at + ACCESS_TOKEN_LIFETIME_S * 1000);
      } else await store.setCodeIssued(hash, null, jti, at + ACCESS_TOKEN_LIFETIME_S * 1000);
    });
    return ctx.tokenResponse(tokens.accessToken, scope, refreshToken, tokens.idToken);
  };
}
