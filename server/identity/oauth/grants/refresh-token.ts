/**
 * Grant `refresh_token` (RFC 6749 §6). Refresh tokens rotate on every use; presenting a rotated one revokes the
 * whole family (reuse detection). A refresh can only narrow the granted scopes; a resource-bound grant must repeat
 * its exact `resource`, others may pick one of their audiences. Every refresh rechecks the client and the account
 * (grant rule 2) and revokes the family when that fails.
 *
 * Rule 4 (one-shot reservation): the family is reserved before the signing authority is called; when signing fails,
 * only a reservation proven not to have issued tokens is released (the refresh token stays valid, 503 "try again"),
 * otherwise the family fails closed. The rotation commits only if the reservation is still ours.
 */
import { HearthError, quoteInput } from '../../../core/http/errors.ts';
import { type GrantHandler, json, type OAuthContext, oauthError, parseScope, random, sha256, validResource } from '../action-context.ts';

/** What the grant reads of the token request beside the common parameters (RFC 6749 §6, RFC 8707 §2.2). */
export const refreshTokenParameters: ReadonlySet<string> = new Set(['refresh_token', 'scope', 'resource']);

export function refreshTokenGrant(ctx: OAuthContext): GrantHandler {
  const { store, now, record } = ctx;
  return async (client, form, a) => {
    if (!client.grantTypes.includes('refresh_token')) throw oauthError('unauthorized_client', 'this client may not use the refresh_token grant');
    if (!form.refresh_token) throw oauthError('invalid_request', 'refresh_token is required');
    const hash = sha256(form.refresh_token);
    const token = await store.getRefreshToken(hash);
    const family = token ? await store.getFamily(token.family_id) : undefined;
    const at = now();
    const invalid = (why = 'the refresh token is invalid, expired or revoked') => oauthError('invalid_grant', why);
    if (!token || !family || family.client_id !== client.clientId) throw invalid();
    if (token.rotated_at !== null) {
      if (await store.revokeFamily(family.id, at, 'reuse')) await record(a, 'oauth.refresh.reuse', client.clientId, { sub: family.sub, family: family.id });
      throw invalid('the refresh token was already used; its grant is revoked');
    }
    if (family.revoked_at !== null || family.expires_at <= at) throw invalid();
    if (family.reservation !== null) throw invalid('the grant is unavailable: a refresh is in progress or an earlier one could not be confirmed');
    const granted = json<string[]>(family.scope);
    const requested = parseScope(form.scope);
    let scope = granted;
    if (requested !== null) {
      const wider = requested.find((s) => !granted.includes(s));
      if (wider !== undefined) throw oauthError('invalid_scope', `scope ${quoteInput(wider)} was not granted; a refresh can only narrow the scopes`);
      scope = granted.filter((s) => requested.includes(s));
    }
    const resource = validResource(form.resource);
    const familyAudiences = json<string[]>(family.audiences);
    let audiences = familyAudiences;
    if (family.resource !== null) {
      if (resource !== family.resource) throw oauthError('invalid_target', 'this grant is bound to a resource: repeat the exact resource on every refresh');
    } else if (resource !== null) {
      if (!familyAudiences.includes(resource)) throw oauthError('invalid_target', 'resource is not one of the audiences of this grant');
      audiences = [resource];
    }
    const checked = await ctx.recheck(client.clientId, family.sub, scope, familyAudiences);
    if (typeof checked === 'string') {
      await store.revokeFamily(family.id, at, 'recheck_failed');
      throw invalid(`the grant can no longer be used: ${checked}`);
    }
    // Rule 4: a one-shot reservation (one guarded UPDATE: of two replicas refreshing at once, one reserves). Only a
    // reservation proven not to have issued tokens is released.
    const nonce = random(12);
    const reserved = await store.reserveFamily(family.id, hash, JSON.stringify({ nonce, status: 'reserved', at }));
    if (!reserved) throw invalid('the refresh token was used concurrently');
    let tokens: { accessToken: string; idToken?: string };
    try {
      tokens = await ctx.mintUserTokens(checked.client, checked.row, { scope, audiences, authTime: family.auth_time, sid: family.sid });
    } catch (err) {
      const released = await store.transaction(async () => {
        const f = await store.lockFamily(family.id);
        const r = f?.reservation ? json<{ nonce: string; status: string }>(f.reservation) : null;
        if (r && r.nonce === nonce && r.status === 'reserved') {
          await store.setReservation(family.id, null);
          return true;
        }
        await store.revokeFamily(family.id, now(), 'fail_closed');
        return false;
      });
      ctx.logger.warn({ err: (err as Error).message, released }, 'refresh: the signing authority failed');
      throw oauthError(
        err instanceof HearthError && err.code === 'signing_unavailable' ? 'temporarily_unavailable' : 'server_error',
        released ? 'the token could not be issued; the refresh token is still valid, try again' : 'the token could not be issued',
      );
    }
    const next = `hrt_${random(32)}`;
    const issued = await store.transaction(async () => {
      const f = await store.lockFamily(family.id);
      const r = f?.reservation ? json<{ nonce: string; status: string }>(f.reservation) : null;
      if (!f || f.revoked_at !== null || !r || r.nonce !== nonce || r.status !== 'reserved') return false;
      if (!(await store.rotateRefreshToken(hash, now()))) return false;
      await store.insertRefreshToken(sha256(next), f.id, f.generation + 1, now());
      await store.advanceFamily(f.id, JSON.stringify(scope));
      return true;
    });
    if (!issued) throw invalid('the grant was revoked while the refresh was issued');
    return ctx.tokenResponse(tokens.accessToken, scope, next, tokens.idToken);
  };
}
