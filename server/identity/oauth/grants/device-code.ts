/**
 * Grant `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4): the token side of terminal sign-in. The
 * protocol itself (device authorization, polling, `slow_down`, app and browser modes, the broker) is `../device.ts`;
 * this file gives it what it needs from the authorization server: issuance with the usual rechecks (grant rule 2),
 * the access check before a browser approval, and the revocation of what a replayed device code had minted.
 * With `offline_access` a refresh family starts whose lifetime is the device authorization's (at most seven days);
 * the family and the device authorization's record of what it issued commit together.
 */
import { decodeJwt } from 'jose';
import { ACCESS_TOKEN_LIFETIME_S, type GrantHandler, type OAuthContext, REFRESH_FAMILY_LIFETIME_MS } from '../action-context.ts';
import { createDeviceFlow, type DeviceFlow, type IssueResult, type TerminalBroker } from '../device.ts';
import type { DeviceAuthorizationRow } from '../oauth.store.ts';

/** What the grant reads of the token request beside the common parameters (RFC 8628 §3.4). */
export const deviceCodeParameters: ReadonlySet<string> = new Set(['device_code']);

export function deviceCodeGrant(ctx: OAuthContext, broker: TerminalBroker | null): { flow: DeviceFlow; handler: GrantHandler } {
  const { store, now } = ctx;

  /** Device grant issuance: the usual rechecks, then the tokens and (with `offline_access`) a refresh family of `lifetimeMs`. */
  async function issue(
    c: { clientId: string },
    sub: string,
    g: {
      scope: string[];
      audiences: string[];
      authTime: number;
      lifetimeMs: number;
      onIssued: (familyId: string | null, jti: string, accessExpiresAt: number) => Promise<void>;
    },
  ): Promise<IssueResult | string> {
    const checked = await ctx.recheck(c.clientId, sub, g.scope, g.audiences);
    if (typeof checked === 'string') return checked;
    const { client, row } = checked;
    const tokens = await ctx.mintUserTokens(client, row, { scope: g.scope, audiences: g.audiences, authTime: g.authTime, sid: null });
    const at = now();
    const jti = decodeJwt(tokens.accessToken).jti!;
    const accessExpiresAt = at + ACCESS_TOKEN_LIFETIME_S * 1000;
    const offline = g.scope.includes('offline_access') && client.grantTypes.includes('refresh_token');
    const family = await store.transaction(async () => {
      const f = offline
        ? await ctx.startRefreshFamily({
            clientId: client.clientId,
            sub: row.sub,
            scope: JSON.stringify(g.scope),
            audiences: JSON.stringify(g.audiences),
            resource: null,
            authTime: g.authTime,
            sid: null,
            at,
            expiresAt: at + Math.min(g.lifetimeMs, REFRESH_FAMILY_LIFETIME_MS),
          })
        : null;
      await g.onIssued(f?.familyId ?? null, jti, accessExpiresAt);
      return f;
    });
    const familyId = family?.familyId ?? null;
    return { response: ctx.tokenResponse(tokens.accessToken, g.scope, family?.refreshToken, tokens.idToken), sub: row.sub, familyId, jti, accessExpiresAt };
  }

  const flow = createDeviceFlow({
    store,
    now,
    issuer: ctx.issuer,
    record: ctx.record,
    accessTokenLifetimeS: ACCESS_TOKEN_LIFETIME_S,
    issue,
    broker,
    mayAuthorize: async (c, row) => {
      const client = await ctx.getClient(c.clientId);
      return !!client && (await ctx.accountUsable(row)) && (await ctx.mayAuthorize(client, row));
    },
    revokeIssued: async (d: DeviceAuthorizationRow) => {
      const at = now();
      await store.transaction(async () => {
        if (d.family_id) await store.revokeFamily(d.family_id, at, 'code_replay');
        if (d.access_jti) await store.revokeAccessToken(d.access_jti, d.access_expires_at ?? at + ACCESS_TOKEN_LIFETIME_S * 1000);
      });
    },
  });
  return { flow, handler: (client, form, a) => flow.exchange(client, form, a) };
}
