/**
 * The OAuth 2.0 / OpenID Connect authorization server (seed 001): clients, authorization with consent, codes,
 * refresh families, client credentials, revocation, UserInfo and dynamic registration. It holds no private key: the
 * keys module's closed OAuth authority signs the two permitted token shapes (RFC 9068 access tokens, ID tokens).
 *
 * Choices where the seed says "not shown" (also in docs/api/oauth.md):
 * - Client IDs: `hc_` + 16 random bytes (managed), `hd_` + 16 random bytes (dynamic), `hearth-cli` (first party).
 *   Client secrets: `hcs_` + 32 random bytes, shown once; stored as SHA-256 and compared in constant time.
 * - Codes live 60 s and are single-use; replaying one revokes the refresh family and the access token minted from it.
 * - Refresh tokens (`hrt_` + 32 random bytes) rotate on every use; a family lives at most 30 days.
 * - Tokens requested without `resource` carry the client's audiences snapshot (default `hearth`, the platform
 *   audience every Hearth API accepts); with `resource` exactly that one audience.
 * - A loopback redirect URI (`http://127.0.0.1`, `http://[::1]`) matches with any port (RFC 8252 §7.3).
 * - Device authorization (RFC 8628, terminal sign-in) is for first-party clients only: see device.ts.
 */
import crypto from 'node:crypto';
import { decodeJwt } from 'jose';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Principal } from '../../core/auth/tokens.service.ts';
import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from '../../core/auth/database-app.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { presentAccount, type AccountsService, type Actor } from '../accounts/accounts.service.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import type { AccessTokenInput, IdTokenInput, VerifiedAccessToken } from '../keys/keys.tokens.ts';
import { InvalidTokenError } from '../keys/keys.tokens.ts';
import type { ClientRow, CodeRow, DeviceAuthorizationRow, FamilyRow, OAuthStore } from './oauth.store.ts';
import { DEVICE_CODE_GRANT, createDeviceFlow, type IssueResult } from './device.ts';
import {
  DELEGATED_SCOPES, PLATFORM_AUDIENCE, SUPPORTED_SCOPES, absoluteUri, type CreateClientBody, type RegisterBody, type UpdateClientBody,
} from './oauth.schemas.ts';
import type { z } from 'zod';

export const CODE_LIFETIME_MS = 60_000;
export const CONSENT_LIFETIME_MS = 5 * 60_000;
export const SIGN_IN_INTERACTION_MS = 10 * 60_000;
export const ACCESS_TOKEN_LIFETIME_S = 3600;
export const REFRESH_FAMILY_LIFETIME_MS = 30 * 24 * 3600_000;
export const ABANDONED_REGISTRATION_MS = 24 * 3600_000;
export const FIRST_PARTY_CLI = 'hearth-cli';
const KEEP_REVOKED_MS = 24 * 3600_000;

/** The closed authority of the keys module. */
export interface OAuthAuthority {
  signAccessToken(input: AccessTokenInput): Promise<string>;
  signIdToken(input: IdTokenInput): Promise<string>;
  verifyAccessToken(token: string, opts: { audience: string | string[] }): Promise<VerifiedAccessToken>;
}

export interface Client {
  clientId: string;
  origin: 'managed' | 'first_party' | 'dynamic';
  name: string;
  description: string | null;
  redirectUris: string[];
  logoutUri: string | null;
  scopes: string[];
  audiences: string[];
  serviceAccountId: string | null;
  allowedProfiles: Array<'user' | 'guest'>;
  accessMode: 'profiles' | 'specific';
  allowedUserIds: string[];
  allowedGroupIds: string[];
  isPublic: boolean;
  secretHash: string | null;
  grantTypes: string[];
  applicationType: string | null;
  createdAt: number;
  updatedAt: number;
  secretRotatedAt: number | null;
  firstUsedAt: number | null;
  revokedAt: number | null;
}

const json = <T>(s: string) => JSON.parse(s) as T;
const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
const random = (n = 32) => crypto.randomBytes(n).toString('base64url');
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function clientOf(r: ClientRow): Client {
  return {
    clientId: r.client_id, origin: r.origin, name: r.name, description: r.description, redirectUris: json(r.redirect_uris), logoutUri: r.logout_uri,
    scopes: json(r.scopes), audiences: json(r.audiences), serviceAccountId: r.service_account_id, allowedProfiles: json(r.allowed_profiles),
    accessMode: r.access_mode, allowedUserIds: json(r.allowed_user_ids), allowedGroupIds: json(r.allowed_group_ids), isPublic: r.is_public === 1,
    secretHash: r.secret_hash, grantTypes: json(r.grant_types), applicationType: r.application_type, createdAt: r.created_at, updatedAt: r.updated_at,
    secretRotatedAt: r.secret_rotated_at, firstUsedAt: r.first_used_at, revokedAt: r.revoked_at,
  };
}

function rowOf(c: Client): ClientRow {
  return {
    client_id: c.clientId, origin: c.origin, name: c.name, description: c.description, redirect_uris: JSON.stringify(c.redirectUris), logout_uri: c.logoutUri,
    scopes: JSON.stringify(c.scopes), audiences: JSON.stringify(c.audiences), service_account_id: c.serviceAccountId,
    allowed_profiles: JSON.stringify(c.allowedProfiles), access_mode: c.accessMode, allowed_user_ids: JSON.stringify(c.allowedUserIds),
    allowed_group_ids: JSON.stringify(c.allowedGroupIds), is_public: c.isPublic ? 1 : 0, secret_hash: c.secretHash, grant_types: JSON.stringify(c.grantTypes),
    application_type: c.applicationType, created_at: c.createdAt, updated_at: c.updatedAt, secret_rotated_at: c.secretRotatedAt,
    first_used_at: c.firstUsedAt, revoked_at: c.revokedAt,
  };
}

export function presentClient(c: Client) {
  return {
    clientId: c.clientId, origin: c.origin, name: c.name, description: c.description, redirectUris: c.redirectUris, logoutUri: c.logoutUri,
    scopes: c.scopes, audiences: c.audiences, serviceAccountId: c.serviceAccountId, allowedProfiles: c.allowedProfiles, accessMode: c.accessMode,
    allowedUserIds: c.allowedUserIds, allowedGroupIds: c.allowedGroupIds, isPublic: c.isPublic, hasSecret: c.secretHash !== null,
    grantTypes: c.grantTypes, createdAt: iso(c.createdAt)!, updatedAt: iso(c.updatedAt)!, secretRotatedAt: iso(c.secretRotatedAt), revokedAt: iso(c.revokedAt),
  };
}

/** An OAuth protocol error (RFC 6749 §5.2 and friends): the body carries `error_description` too. */
export const oauthError = (code: string, description: string, opts: { status?: number; headers?: Record<string, string> } = {}) =>
  new HearthError(code, description, opts);

export function parseScope(s: string | undefined): string[] | null {
  if (s === undefined) return null;
  const parts = s.split(' ').filter(Boolean);
  return [...new Set(parts)];
}

function isLoopbackHost(host: string) {
  return host === '127.0.0.1' || host === '[::1]' || host === 'localhost';
}

/** Exact redirect matching; a loopback IP literal redirect with `http` matches with any port (RFC 8252 §7.3). */
export function redirectMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  const r = absoluteUri(registered);
  const g = absoluteUri(given);
  if (!r || !g || r.protocol !== 'http:' || g.protocol !== 'http:') return false;
  if (!(r.hostname === '127.0.0.1' || r.hostname === '[::1]') || r.hostname !== g.hostname) return false;
  return r.pathname === g.pathname && r.search === g.search && !g.username && !g.password;
}

export interface AuthorizationParams {
  clientId: string;
  redirectUri: string;
  scope: string[];
  resource: string | null;
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  prompt: string[];
  maxAge: number | null;
}

export interface SessionView {
  familyId: string;
  issuedAt: number;
  account: AccountRow;
}

export type AuthorizeOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'error_page'; status: number; title: string; message: string }
  | { kind: 'sign_in'; interactionId: string; client: Client; error?: string; status?: number; loginHint?: string }
  | { kind: 'consent'; interactionId: string; client: Client; params: AuthorizationParams; account: AccountRow };

export function createOAuthService(deps: {
  store: OAuthStore;
  accounts: AccountsService;
  accountStore: AccountStore;
  authority: OAuthAuthority;
  audit: AuditLog;
  logger: Logger;
  issuer: () => string;
  now?: () => number;
}) {
  const { store, accounts, accountStore, authority, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  const getClient = (id: string): Client | null => {
    const r = store.getClient(id);
    return r ? clientOf(r) : null;
  };
  const clientOrThrow = (id: string): Client => {
    const c = getClient(id);
    if (!c) throw new HearthError('client_not_found', `no OAuth client with id ${id}`);
    return c;
  };

  // ---------------------------------------------------------------------------------------------------------------
  // Who may authorize (Authentication rule 2) and the account checks every issuance repeats (grant rule 2).

  function accountUsable(row: AccountRow | undefined): row is AccountRow {
    return !!row && row.kind === 'person' && accounts.isAccountCategoryAllowed(presentAccount(row));
  }

  function mayAuthorize(client: Client, row: AccountRow): boolean {
    if (!client.allowedProfiles.includes(row.profile)) return false;
    if (client.accessMode === 'profiles') return true;
    if (client.allowedUserIds.includes(row.sub)) return true;
    if (client.allowedGroupIds.length === 0) return false;
    const groups = new Set(accounts.memberships(row.sub).map((g) => g.id));
    return client.allowedGroupIds.some((g) => groups.has(g));
  }

  /** The platform's own resources: `hearth`, `{base}/v1`, `{base}/v1/{ns}`, and anything else on the platform origin. */
  function sameOrigin(resource: string): boolean {
    const u = absoluteUri(resource);
    return !!u && u.origin === new URL(deps.issuer()).origin;
  }

  function audienceAllowed(client: Client, audience: string): boolean {
    if (client.origin === 'dynamic') return audience !== PLATFORM_AUDIENCE && sameOrigin(audience);
    return client.audiences.includes(audience);
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Client administration

  function validateBinding(serviceAccountId: string | null, isPublic: boolean) {
    if (serviceAccountId === null) return;
    if (isPublic) throw new HearthError('invalid_request', 'a client bound to a service account must be confidential (isPublic: false)');
    if (!accounts.getServiceAccount(serviceAccountId)) {
      throw new HearthError('invalid_request', `serviceAccountId: no active resource-bound service account ${serviceAccountId}`);
    }
  }

  function validateAccessLists(userIds: string[], groupIds: string[]) {
    for (const sub of userIds) {
      const row = accountStore.getAccount(sub);
      if (!row || row.kind !== 'person') throw new HearthError('invalid_request', `allowedUserIds: no account ${sub}`);
    }
    for (const id of groupIds) {
      try {
        accounts.getGroup(id);
      } catch {
        throw new HearthError('invalid_request', `allowedGroupIds: no group ${id}`);
      }
    }
  }

  const grantTypesFor = (c: Pick<Client, 'isPublic' | 'serviceAccountId'>) =>
    ['authorization_code', 'refresh_token', ...(!c.isPublic && c.serviceAccountId ? ['client_credentials'] : [])];

  function newSecret() {
    const secret = `hcs_${random(32)}`;
    return { secret, hash: sha256(secret) };
  }

  function protect(c: Client, action: string) {
    if (c.origin === 'first_party') throw new HearthError('client_protected', `${c.clientId} is a protected first-party client: it cannot be ${action}`);
  }

  function purgeAbandoned(at: number) {
    const ids = store.abandonedClients(at - ABANDONED_REGISTRATION_MS);
    for (const id of ids) store.deleteClient(id);
    return ids.length;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Token issuance helpers

  function idTokenClaims(row: AccountRow, scope: string[]) {
    const out: Partial<IdTokenInput> = { uid: row.login ?? undefined };
    if (scope.includes('profile')) {
      out.name = row.display_name || row.login || undefined;
      out.preferredUsername = row.login ?? undefined;
    }
    if (scope.includes('email') && row.email) out.email = row.email;
    if (scope.includes('groups')) out.groups = accounts.memberships(row.sub).slice(0, 50).map((g) => g.name);
    return out;
  }

  async function mintUserTokens(client: Client, row: AccountRow, g: { scope: string[]; audiences: string[]; authTime: number; sid: string | null; nonce?: string | null }) {
    const accessToken = await authority.signAccessToken({
      sub: row.sub, actorKind: 'user', clientId: client.clientId, audience: g.audiences, scope: g.scope, uid: row.login ?? undefined, authTime: g.authTime,
    });
    let idToken: string | undefined;
    if (g.scope.includes('openid')) {
      idToken = await authority.signIdToken({
        sub: row.sub, clientId: client.clientId, nonce: g.nonce ?? undefined, authTime: g.authTime, sid: g.sid ?? undefined, accessToken,
        ...idTokenClaims(row, g.scope),
      });
    }
    return { accessToken, idToken };
  }

  const tokenResponse = (accessToken: string, scope: string[], refreshToken?: string, idToken?: string) => ({
    access_token: accessToken,
    token_type: 'Bearer' as const,
    expires_in: ACCESS_TOKEN_LIFETIME_S,
    scope: scope.join(' '),
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(idToken ? { id_token: idToken } : {}),
  });

  /** Grant rule 2: account, client scopes and audiences, profile or explicit access, client existence. */
  function recheck(clientId: string, sub: string, scope: string[], audiences: string[]): { client: Client; row: AccountRow } | string {
    const client = getClient(clientId);
    if (!client || client.revokedAt !== null) return 'the client no longer exists';
    const row = accountStore.getAccount(sub);
    if (!accountUsable(row)) return 'the account is disabled, expired, removed or not allowed to use credential flows';
    if (!scope.every((s) => client.scopes.includes(s))) {
      return 'the client no longer allows every granted scope';
    }
    if (!audiences.every((a) => audienceAllowed(client, a))) return 'the client no longer allows every granted audience';
    if (!mayAuthorize(client, row)) return 'the account may no longer use this client';
    return { client, row };
  }

  function authenticateClient(input: { authorization: string; clientId?: string; clientSecret?: string }): Client {
    let id = input.clientId;
    let secret = input.clientSecret;
    if (input.authorization) {
      const m = /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(input.authorization);
      if (!m) throw oauthError('invalid_client', 'the Authorization header must be HTTP Basic client credentials (or send client_id and client_secret in the form)');
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
    // Every failure is 401 `invalid_client` with `WWW-Authenticate: Basic` (set where errors are answered).
    const fail = (why: string) => oauthError('invalid_client', why);
    if (!id) throw fail('client authentication failed: no client_id');
    const client = getClient(id);
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

  function validResource(value: string | undefined): string | null {
    if (value === undefined) return null;
    if (!absoluteUri(value)) throw oauthError('invalid_target', 'resource must be an absolute URI without fragment (RFC 8707)');
    return value;
  }

  function pkceOk(verifier: string, challenge: string) {
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
    const computed = crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
    return computed.length === challenge.length && crypto.timingSafeEqual(Buffer.from(computed), Buffer.from(challenge));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Grants

  async function exchangeCode(client: Client, form: Record<string, string | undefined>, a: Actor) {
    if (!client.grantTypes.includes('authorization_code')) throw oauthError('unauthorized_client', 'this client may not use the authorization_code grant');
    if (!form.code) throw oauthError('invalid_request', 'code is required');
    if (!form.redirect_uri) throw oauthError('invalid_request', 'redirect_uri is required');
    const hash = sha256(form.code);
    const code = store.getCode(hash);
    const at = now();
    if (!code || code.client_id !== client.clientId) throw oauthError('invalid_grant', 'the authorization code is invalid, expired or was issued to another client');
    if (code.used_at !== null) {
      replayed(code, a);
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
      throw oauthError('invalid_target', code.resource ? 'resource must repeat the exact value of the authorization request' : 'resource was not part of the authorization request');
    }
    const scope = json<string[]>(code.scope);
    const audiences = json<string[]>(code.audiences);
    const checked = recheck(client.clientId, code.sub, scope, audiences);
    if (!store.redeemCode(hash, at)) {
      replayed(code, a);
      throw oauthError('invalid_grant', 'the authorization code was already used; the tokens issued from it are revoked');
    }
    if (typeof checked === 'string') throw oauthError('invalid_grant', checked);
    const { row } = checked;
    const tokens = await mintUserTokens(client, row, { scope, audiences, authTime: code.auth_time, sid: code.sid, nonce: code.nonce });
    let refreshToken: string | undefined;
    store.transaction(() => {
      const jti = decodeJwt(tokens.accessToken).jti!;
      if (scope.includes('offline_access') && client.grantTypes.includes('refresh_token')) {
        const familyId = random(16);
        refreshToken = `hrt_${random(32)}`;
        store.insertFamily({
          id: familyId, client_id: client.clientId, sub: row.sub, scope: code.scope, audiences: code.audiences, resource: code.resource,
          auth_time: code.auth_time, sid: code.sid, created_at: at, expires_at: at + REFRESH_FAMILY_LIFETIME_MS,
        });
        store.insertRefreshToken(sha256(refreshToken), familyId, 0, at);
        store.setCodeIssued(hash, familyId, jti, at + ACCESS_TOKEN_LIFETIME_S * 1000);
      } else store.setCodeIssued(hash, null, jti, at + ACCESS_TOKEN_LIFETIME_S * 1000);
    });
    return tokenResponse(tokens.accessToken, scope, refreshToken, tokens.idToken);
  }

  function replayed(code: CodeRow, a: Actor) {
    const at = now();
    store.transaction(() => {
      if (code.family_id) store.revokeFamily(code.family_id, at, 'code_replay');
      const fresh = store.getCode(code.code_hash);
      if (fresh?.access_jti) store.revokeAccessToken(fresh.access_jti, fresh.access_expires_at ?? at + ACCESS_TOKEN_LIFETIME_S * 1000);
      if (fresh?.family_id && fresh.family_id !== code.family_id) store.revokeFamily(fresh.family_id, at, 'code_replay');
    });
    record(a, 'oauth.code.replay', code.client_id, { sub: code.sub });
  }

  async function clientCredentials(client: Client, form: Record<string, string | undefined>) {
    if (client.isPublic || !client.grantTypes.includes('client_credentials') || !client.serviceAccountId) {
      throw oauthError('unauthorized_client', 'client_credentials needs a confidential client bound to a resource-bound service account');
    }
    const sa = accounts.getServiceAccount(client.serviceAccountId);
    if (!sa) throw oauthError('unauthorized_client', 'the client\'s service account no longer exists');
    const USER_ONLY = ['openid', 'profile', 'email', 'groups', 'offline_access'];
    const requested = parseScope(form.scope);
    let scope: string[];
    if (requested === null) scope = client.scopes.filter((s) => !USER_ONLY.includes(s));
    else {
      const bad = requested.find((s) => !client.scopes.includes(s) || USER_ONLY.includes(s));
      if (bad !== undefined) throw oauthError('invalid_scope', `scope ${JSON.stringify(bad)} is not allowed for this client's client_credentials grant`);
      scope = requested;
    }
    const resource = validResource(form.resource);
    if (resource !== null && !client.audiences.includes(resource)) throw oauthError('invalid_target', 'resource is not one of this client\'s audiences');
    const audiences = resource !== null ? [resource] : client.audiences;
    if (audiences.length === 0) throw oauthError('invalid_target', 'this client has no audience configured');
    const accessToken = await authority.signAccessToken({ sub: sa.sub, actorKind: 'service_account', clientId: client.clientId, audience: audiences, scope });
    return tokenResponse(accessToken, scope);
  }

  async function refresh(client: Client, form: Record<string, string | undefined>, a: Actor) {
    if (!client.grantTypes.includes('refresh_token')) throw oauthError('unauthorized_client', 'this client may not use the refresh_token grant');
    if (!form.refresh_token) throw oauthError('invalid_request', 'refresh_token is required');
    const hash = sha256(form.refresh_token);
    const token = store.getRefreshToken(hash);
    const family = token ? store.getFamily(token.family_id) : undefined;
    const at = now();
    const invalid = (why = 'the refresh token is invalid, expired or revoked') => oauthError('invalid_grant', why);
    if (!token || !family || family.client_id !== client.clientId) throw invalid();
    if (token.rotated_at !== null) {
      if (store.revokeFamily(family.id, at, 'reuse')) record(a, 'oauth.refresh.reuse', client.clientId, { sub: family.sub, family: family.id });
      throw invalid('the refresh token was already used; its grant is revoked');
    }
    if (family.revoked_at !== null || family.expires_at <= at) throw invalid();
    if (family.reservation !== null) throw invalid('the grant is unavailable: a refresh is in progress or an earlier one could not be confirmed');
    const granted = json<string[]>(family.scope);
    const requested = parseScope(form.scope);
    let scope = granted;
    if (requested !== null) {
      const wider = requested.find((s) => !granted.includes(s));
      if (wider !== undefined) throw oauthError('invalid_scope', `scope ${JSON.stringify(wider)} was not granted; a refresh can only narrow the scopes`);
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
    const checked = recheck(client.clientId, family.sub, scope, familyAudiences);
    if (typeof checked === 'string') {
      store.revokeFamily(family.id, at, 'recheck_failed');
      throw invalid(`the grant can no longer be used: ${checked}`);
    }
    // Rule 4: a one-shot reservation. Only a reservation proven not to have issued tokens is released.
    const nonce = random(12);
    const reserved = store.transaction(() => {
      const f = store.getFamily(family.id);
      const t = store.getRefreshToken(hash);
      if (!f || f.revoked_at !== null || f.reservation !== null || !t || t.rotated_at !== null) return false;
      store.setReservation(f.id, JSON.stringify({ nonce, status: 'reserved', at }));
      return true;
    });
    if (!reserved) throw invalid('the refresh token was used concurrently');
    let tokens: { accessToken: string; idToken?: string };
    try {
      tokens = await mintUserTokens(checked.client, checked.row, { scope, audiences, authTime: family.auth_time, sid: family.sid });
    } catch (err) {
      const released = store.transaction(() => {
        const f = store.getFamily(family.id);
        const r = f?.reservation ? json<{ nonce: string; status: string }>(f.reservation) : null;
        if (r && r.nonce === nonce && r.status === 'reserved') {
          store.setReservation(family.id, null);
          return true;
        }
        store.revokeFamily(family.id, now(), 'fail_closed');
        return false;
      });
      deps.logger.warn({ err: (err as Error).message, released }, 'refresh: the signing authority failed');
      throw oauthError(err instanceof HearthError && err.code === 'signing_unavailable' ? 'temporarily_unavailable' : 'server_error',
        released ? 'the token could not be issued; the refresh token is still valid, try again' : 'the token could not be issued', { status: 503 });
    }
    const next = `hrt_${random(32)}`;
    const issued = store.transaction(() => {
      const f = store.getFamily(family.id);
      const r = f?.reservation ? json<{ nonce: string; status: string }>(f.reservation) : null;
      if (!f || f.revoked_at !== null || !r || r.nonce !== nonce || r.status !== 'reserved') return false;
      if (!store.rotateRefreshToken(hash, now())) return false;
      store.insertRefreshToken(sha256(next), f.id, f.generation + 1, now());
      store.advanceFamily(f.id, JSON.stringify(scope));
      return true;
    });
    if (!issued) throw invalid('the grant was revoked while the refresh was issued');
    return tokenResponse(tokens.accessToken, scope, next, tokens.idToken);
  }

  /** Device grant issuance: the usual rechecks, then the tokens and (with `offline_access`) a refresh family of `lifetimeMs`. */
  async function issueDeviceGrant(
    c: { clientId: string }, sub: string,
    g: { scope: string[]; audiences: string[]; authTime: number; lifetimeMs: number; onIssued: (familyId: string | null, jti: string, accessExpiresAt: number) => void },
  ): Promise<IssueResult | string> {
    const checked = recheck(c.clientId, sub, g.scope, g.audiences);
    if (typeof checked === 'string') return checked;
    const { client, row } = checked;
    const tokens = await mintUserTokens(client, row, { scope: g.scope, audiences: g.audiences, authTime: g.authTime, sid: null });
    const at = now();
    const jti = decodeJwt(tokens.accessToken).jti!;
    const accessExpiresAt = at + ACCESS_TOKEN_LIFETIME_S * 1000;
    const offline = g.scope.includes('offline_access') && client.grantTypes.includes('refresh_token');
    const familyId = offline ? random(16) : null;
    const refreshToken = offline ? `hrt_${random(32)}` : undefined;
    // The refresh family and the device authorization's record of what it issued commit together, so a replayed
    // device code can always revoke what the first exchange minted.
    store.transaction(() => {
      if (familyId && refreshToken) {
        store.insertFamily({
          id: familyId, client_id: client.clientId, sub: row.sub, scope: JSON.stringify(g.scope), audiences: JSON.stringify(g.audiences), resource: null,
          auth_time: g.authTime, sid: null, created_at: at, expires_at: at + Math.min(g.lifetimeMs, REFRESH_FAMILY_LIFETIME_MS),
        });
        store.insertRefreshToken(sha256(refreshToken), familyId, 0, at);
      }
      g.onIssued(familyId, jti, accessExpiresAt);
    });
    return { response: tokenResponse(tokens.accessToken, g.scope, refreshToken, tokens.idToken), sub: row.sub, familyId, jti, accessExpiresAt };
  }

  const device = createDeviceFlow({
    store, now, issuer: deps.issuer, record, accessTokenLifetimeS: ACCESS_TOKEN_LIFETIME_S, issue: issueDeviceGrant,
    mayAuthorize: (c, row) => {
      const client = getClient(c.clientId);
      return !!client && accountUsable(row) && mayAuthorize(client, row);
    },
    revokeIssued: (d: DeviceAuthorizationRow) => {
      const at = now();
      store.transaction(() => {
        if (d.family_id) store.revokeFamily(d.family_id, at, 'code_replay');
        if (d.access_jti) store.revokeAccessToken(d.access_jti, d.access_expires_at ?? at + ACCESS_TOKEN_LIFETIME_S * 1000);
      });
    },
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Bearer access tokens on Hearth's own APIs

  /** One query for the warm path: the client and the actor. */
  function resolveActor(v: VerifiedAccessToken) {
    const client = store.getClient(v.clientId);
    if (!client || client.revoked_at !== null) return null;
    if (v.actorKind === 'user') {
      const row = accountStore.getAccount(v.sub);
      return accountUsable(row) ? { client, row, sa: null } : null;
    }
    const sa = accounts.getServiceAccount(v.sub);
    return sa ? { client, row: null, sa } : null;
  }

  async function verifyBearer(token: string, audiences: string[]) {
    let v: VerifiedAccessToken;
    try {
      v = await authority.verifyAccessToken(token, { audience: audiences });
    } catch (err) {
      if (err instanceof InvalidTokenError) return null;
      throw err;
    }
    if (store.isAccessRevoked(v.jti)) return null;
    const who = resolveActor(v);
    return who ? { v, ...who } : null;
  }

  return {
    getClient,
    /** Terminal sign-in (RFC 8628): the device flow; `useTerminalBroker` connects the authenticator approval protocol. */
    device,
    useTerminalBroker: device.useTerminalBroker,

    /** POST /oauth/device_authorization: client authentication, then the device flow. */
    deviceAuthorization(form: Record<string, string | undefined>, authorization: string, req: { ip: string; userAgent: string }, a: Actor) {
      const client = authenticateClient({ authorization, clientId: form.client_id, clientSecret: form.client_secret });
      return device.authorize(client, form, req, { ...a, actor: `oauth-client:${client.clientId}` });
    },

    /** Seeds the protected first-party client used by `hearth login` (idempotent). */
    seed() {
      const at = now();
      const existing = getClient(FIRST_PARTY_CLI);
      const base: Client = {
        clientId: FIRST_PARTY_CLI, origin: 'first_party', name: 'Hearth command-line tool', description: 'Used by hearth login, token refresh and hearth logout.',
        redirectUris: ['http://127.0.0.1/callback', 'http://[::1]/callback'], logoutUri: null,
        scopes: ['openid', 'profile', 'email', 'offline_access', 'read', 'write', 'admin'], audiences: [PLATFORM_AUDIENCE], serviceAccountId: null,
        allowedProfiles: ['user', 'guest'], accessMode: 'profiles', allowedUserIds: [], allowedGroupIds: [], isPublic: true, secretHash: null,
        grantTypes: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT], applicationType: 'native', createdAt: existing?.createdAt ?? at, updatedAt: existing?.updatedAt ?? at,
        secretRotatedAt: null, firstUsedAt: existing?.firstUsedAt ?? null, revokedAt: null,
      };
      if (!existing) store.insertClient(rowOf(base));
      else if (JSON.stringify({ ...rowOf(existing), updated_at: 0, first_used_at: 0 }) !== JSON.stringify({ ...rowOf(base), updated_at: 0, first_used_at: 0 })) {
        store.updateClient(rowOf({ ...base, updatedAt: at }));
      }
    },

    // ---- client administration ----
    listClients(p: { page: number; per_page: number; search?: string }) {
      const search = p.search ? p.search.toLowerCase() : null;
      return {
        data: store.listClients(search, p.per_page, (p.page - 1) * p.per_page).map((r) => presentClient(clientOf(r))),
        page: p.page, per_page: p.per_page, total: store.countClients(search),
      };
    },
    getClientInfo: (id: string) => presentClient(clientOrThrow(id)),

    createClient(input: z.infer<typeof CreateClientBody>, a: Actor) {
      validateBinding(input.serviceAccountId, input.isPublic);
      validateAccessLists(input.allowedUserIds, input.allowedGroupIds);
      const at = now();
      const secret = input.isPublic ? null : newSecret();
      const client: Client = {
        clientId: `hc_${random(16)}`, origin: 'managed', name: input.name, description: input.description ?? null, redirectUris: input.redirectUris,
        logoutUri: input.logoutUri ?? null, scopes: input.scopes, audiences: input.audiences, serviceAccountId: input.serviceAccountId,
        allowedProfiles: input.allowedProfiles, accessMode: input.accessMode, allowedUserIds: input.allowedUserIds, allowedGroupIds: input.allowedGroupIds,
        isPublic: input.isPublic, secretHash: secret?.hash ?? null, grantTypes: [], applicationType: null, createdAt: at, updatedAt: at,
        secretRotatedAt: secret ? at : null, firstUsedAt: null, revokedAt: null,
      };
      client.grantTypes = grantTypesFor(client);
      store.transaction(() => {
        store.insertClient(rowOf(client));
        record(a, 'oauth.client.create', client.clientId, { name: client.name, isPublic: client.isPublic, scopes: client.scopes, audiences: client.audiences });
      });
      return { client: presentClient(client), clientSecret: secret?.secret ?? null };
    },

    updateClient(id: string, input: z.infer<typeof UpdateClientBody>, a: Actor) {
      return store.transaction(() => {
        const c = clientOrThrow(id);
        protect(c, 'edited');
        if (c.origin === 'dynamic') throw new HearthError('client_protected', 'a dynamically registered client cannot be edited: revoke or delete it');
        if (c.revokedAt !== null) throw new HearthError('client_revoked', 'the client is revoked');
        const next: Client = { ...c };
        for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
        validateBinding(next.serviceAccountId, next.isPublic);
        if (input.allowedUserIds || input.allowedGroupIds) validateAccessLists(input.allowedUserIds ?? [], input.allowedGroupIds ?? []);
        next.grantTypes = grantTypesFor(next);
        next.updatedAt = now();
        store.updateClient(rowOf(next));
        record(a, 'oauth.client.update', id, { fields: Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined) });
        return { client: presentClient(next) };
      });
    },

    rotateSecret(id: string, a: Actor) {
      return store.transaction(() => {
        const c = clientOrThrow(id);
        protect(c, 'given a secret');
        if (c.isPublic) throw new HearthError('client_is_public', 'a public client has no secret to rotate');
        if (c.revokedAt !== null) throw new HearthError('client_revoked', 'the client is revoked');
        const secret = newSecret();
        const at = now();
        const next = { ...c, secretHash: secret.hash, secretRotatedAt: at, updatedAt: at };
        store.updateClient(rowOf(next));
        record(a, 'oauth.client.secret.rotate', id, {});
        return { client: presentClient(next), clientSecret: secret.secret };
      });
    },

    /** Revokes a client: it cannot authenticate or authorize any more, its refresh grants end and its access tokens stop verifying. */
    revokeClient(id: string, a: Actor) {
      return store.transaction(() => {
        const c = clientOrThrow(id);
        protect(c, 'revoked');
        if (c.revokedAt !== null) return { client: presentClient(c) };
        const at = now();
        const next = { ...c, revokedAt: at, updatedAt: at };
        store.updateClient(rowOf(next));
        const ended = store.revokeClientFamilies(id, at, 'client_revoked');
        record(a, 'oauth.client.revoke', id, { origin: c.origin, endedGrants: ended });
        return { client: presentClient(next) };
      });
    },

    deleteClient(id: string, a: Actor) {
      store.transaction(() => {
        const c = clientOrThrow(id);
        protect(c, 'deleted');
        store.deleteClient(id);
        record(a, 'oauth.client.delete', id, { origin: c.origin, name: c.name });
      });
    },

    // ---- RFC 7591 ----
    register(body: z.infer<typeof RegisterBody>, a: Actor) {
      for (const uri of body.redirect_uris) {
        const u = absoluteUri(uri);
        if (!u) throw oauthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri)} is not an absolute URI without fragment`);
        if (u.username || u.password || uri.includes('@')) throw oauthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri)} must not carry user information`);
        if (!(u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname)))) {
          throw oauthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri)} must be https, or http on localhost, 127.0.0.1 or ::1`);
        }
      }
      if (new Set(body.redirect_uris).size !== body.redirect_uris.length) throw oauthError('invalid_redirect_uri', 'redirect_uris has duplicates');
      for (const uri of body.post_logout_redirect_uris ?? []) {
        const u = absoluteUri(uri);
        if (!u || u.username || u.password || !(u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname)))) {
          throw oauthError('invalid_client_metadata', `post_logout_redirect_uris: ${JSON.stringify(uri)} is not allowed`);
        }
      }
      let scopes: string[] = [...DELEGATED_SCOPES];
      if (body.scope !== undefined) {
        const asked = parseScope(body.scope)!;
        const bad = asked.find((s) => !(DELEGATED_SCOPES as readonly string[]).includes(s));
        if (bad !== undefined) throw oauthError('invalid_client_metadata', `scope ${JSON.stringify(bad)} cannot be registered; allowed: ${DELEGATED_SCOPES.join(' ')}`);
        if (asked.length === 0) throw oauthError('invalid_client_metadata', 'scope must not be empty');
        scopes = asked;
      }
      const grantTypes = [...new Set(body.grant_types)];
      const appType = body.application_type ?? 'web';
      const at = now();
      const name = body.client_name ?? `Application at ${new URL(body.redirect_uris[0]!).host}`;
      const client: Client = {
        clientId: `hd_${random(16)}`, origin: 'dynamic', name, description: null, redirectUris: body.redirect_uris,
        logoutUri: body.post_logout_redirect_uris?.[0] ?? null, scopes, audiences: [], serviceAccountId: null, allowedProfiles: ['user', 'guest'],
        accessMode: 'profiles', allowedUserIds: [], allowedGroupIds: [], isPublic: true, secretHash: null, grantTypes, applicationType: appType,
        createdAt: at, updatedAt: at, secretRotatedAt: null, firstUsedAt: null, revokedAt: null,
      };
      store.transaction(() => {
        purgeAbandoned(at);
        store.insertClient(rowOf(client));
        record(a, 'oauth.client.register', client.clientId, { name, redirectUris: client.redirectUris, scopes });
      });
      return {
        client_id: client.clientId, client_id_issued_at: Math.floor(at / 1000), client_name: name, redirect_uris: client.redirectUris,
        token_endpoint_auth_method: 'none' as const, grant_types: grantTypes, response_types: ['code' as const], application_type: appType as 'native' | 'web',
        scope: scopes.join(' '),
        ...(client.logoutUri ? { post_logout_redirect_uris: [client.logoutUri] } : {}),
      };
    },

    // ---- authorization ----
    /**
     * Validates an authorization request. Errors before the client and redirect URI are known are shown as a page
     * (never redirected); later errors are redirected with `state` and `iss` (RFC 9207).
     */
    validateAuthorization(q: Record<string, unknown>): { ok: AuthorizationParams; client: Client } | { page: { status: number; title: string; message: string } } | { redirect: string } {
      const one = (k: string): string | undefined | null => {
        const v = q[k];
        if (v === undefined) return undefined;
        if (typeof v !== 'string') return null;
        return v;
      };
      const clientId = one('client_id');
      const redirectUri = one('redirect_uri');
      if (!clientId) return { page: { status: 400, title: 'Invalid request', message: 'The application did not send a client_id.' } };
      const client = getClient(clientId);
      if (!client || client.revokedAt !== null) return { page: { status: 400, title: 'Unknown application', message: 'This application is not registered with Hearth, or it was revoked.' } };
      if (!redirectUri || !client.redirectUris.some((r) => redirectMatches(r, redirectUri))) {
        return { page: { status: 400, title: 'Invalid redirect', message: 'The application asked to return to an address that is not registered for it.' } };
      }
      const state = one('state');
      const fail = (error: string, description: string) => ({
        redirect: authorizationResponse(redirectUri, typeof state === 'string' ? state : null, { error, error_description: description }),
      });
      for (const k of ['response_type', 'scope', 'resource', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'prompt', 'max_age', 'response_mode']) {
        if (one(k) === null) return fail('invalid_request', `${k} must be given once`);
      }
      if (one('request') !== undefined) return fail('request_not_supported', 'request objects are not supported');
      if (one('request_uri') !== undefined) return fail('request_uri_not_supported', 'request_uri is not supported');
      if (one('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
      const mode = one('response_mode');
      if (mode !== undefined && mode !== 'query') return fail('invalid_request', 'only response_mode=query is supported');
      const asked = parseScope(one('scope') as string | undefined);
      let scope: string[];
      if (asked === null || asked.length === 0) scope = client.scopes;
      else {
        const unknown = asked.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
        if (unknown !== undefined) return fail('invalid_scope', `unknown scope ${JSON.stringify(unknown)}`);
        const denied = asked.find((s) => !client.scopes.includes(s));
        if (denied !== undefined) return fail('invalid_scope', `scope ${JSON.stringify(denied)} is not allowed for this client`);
        scope = asked;
      }
      const rawResource = one('resource') as string | undefined;
      let resource: string | null = null;
      if (rawResource !== undefined) {
        if (!absoluteUri(rawResource)) return fail('invalid_target', 'resource must be an absolute URI without fragment');
        if (!audienceAllowed(client, rawResource)) {
          return fail('invalid_target', client.origin === 'dynamic' ? 'resource must be on the platform\'s own origin' : 'resource is not one of this client\'s audiences');
        }
        resource = rawResource;
      } else if (client.origin === 'dynamic') return fail('invalid_target', 'resource is required for this client');
      const challenge = one('code_challenge') as string | undefined;
      const method = one('code_challenge_method') as string | undefined;
      if (method !== undefined && method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
      if (challenge !== undefined) {
        if (method !== 'S256') return fail('invalid_request', 'code_challenge_method=S256 is required with a code_challenge');
        if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
      } else if (client.isPublic) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
      else if (method !== undefined) return fail('invalid_request', 'code_challenge_method without code_challenge');
      const nonce = (one('nonce') as string | undefined) ?? null;
      if (nonce !== null && nonce.length > 512) return fail('invalid_request', 'nonce is longer than 512 characters');
      if (typeof state === 'string' && state.length > 2048) return fail('invalid_request', 'state is longer than 2048 characters');
      const prompt = parseScope(one('prompt') as string | undefined) ?? [];
      if (prompt.some((p) => !['none', 'login', 'consent', 'select_account'].includes(p))) return fail('invalid_request', 'unknown prompt value');
      if (prompt.includes('none') && prompt.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values');
      const rawMaxAge = one('max_age') as string | undefined;
      let maxAge: number | null = null;
      if (rawMaxAge !== undefined) {
        if (!/^\d{1,9}$/.test(rawMaxAge)) return fail('invalid_request', 'max_age must be a non-negative integer');
        maxAge = Number(rawMaxAge);
      }
      if (client.firstUsedAt === null) store.markClientUsed(client.clientId, now());
      return { ok: { clientId: client.clientId, redirectUri, scope, resource, state: state ?? null, nonce, codeChallenge: challenge ?? null, prompt, maxAge }, client };
    },

    /** Continues a validated request for the browser's session (null: not signed in). */
    decide(params: AuthorizationParams, client: Client, session: SessionView | null, opts: { interactionId?: string; freshSince?: number } = {}): AuthorizeOutcome {
      const fail = (error: string, description: string): AuthorizeOutcome => ({ kind: 'redirect', location: errorLocation(params, error, description) });
      const at = now();
      const fresh = (s: SessionView) => opts.freshSince !== undefined && s.issuedAt >= opts.freshSince;
      let needLogin = session === null;
      if (session && !fresh(session)) {
        if (params.prompt.includes('login') || params.prompt.includes('select_account')) needLogin = true;
        if (params.maxAge !== null && at - session.issuedAt > params.maxAge * 1000) needLogin = true;
      }
      if (needLogin) {
        if (params.prompt.includes('none')) return fail('login_required', 'the user is not signed in');
        const interactionId = opts.interactionId ?? newInteraction(params, null, at + SIGN_IN_INTERACTION_MS);
        return { kind: 'sign_in', interactionId, client };
      }
      const row = session!.account;
      if (!mayAuthorize(client, row)) return fail('access_denied', 'this account may not use this application');
      const needConsent = client.origin === 'dynamic' || params.prompt.includes('consent');
      if (needConsent) {
        if (params.prompt.includes('none')) return fail('consent_required', 'the user must approve this application');
        const id = opts.interactionId ?? newInteraction(params, null, at + CONSENT_LIFETIME_MS);
        store.bindInteraction(sha256(id), row.sub, at + CONSENT_LIFETIME_MS);
        return { kind: 'consent', interactionId: id, client, params, account: row };
      }
      return { kind: 'redirect', location: issueCode(params, client, session!) };
    },

    /** The stored request of an interaction (sign-in or consent), or null when unknown, used or expired. */
    interaction(id: string) {
      const row = store.getInteraction(sha256(id));
      if (!row || row.used_at !== null || row.expires_at <= now()) return null;
      const client = getClient(row.client_id);
      if (!client || client.revokedAt !== null) return null;
      return { params: json<AuthorizationParams>(row.params), client, sub: row.sub, createdAt: row.created_at };
    },

    /** Approval or denial: single use, five minutes, bound to the account the consent page was shown to. */
    consent(id: string, session: SessionView, approve: boolean, a: Actor): AuthorizeOutcome {
      const hash = sha256(id);
      const row = store.getInteraction(hash);
      const gone: AuthorizeOutcome = { kind: 'error_page', status: 409, title: 'This request has expired', message: 'This approval request was already answered or has expired. Return to the application and start again.' };
      if (!row || row.sub === null) return gone;
      if (row.sub !== session.account.sub) return { kind: 'error_page', status: 403, title: 'Wrong account', message: 'This approval request was shown to another account.' };
      if (!store.useInteraction(hash, now())) return gone;
      const params = json<AuthorizationParams>(row.params);
      const client = getClient(row.client_id);
      if (!client || client.revokedAt !== null) return { kind: 'error_page', status: 400, title: 'Unknown application', message: 'This application is no longer registered.' };
      record(a, approve ? 'oauth.consent.approve' : 'oauth.consent.deny', client.clientId, { sub: session.account.sub, scope: params.scope, resource: params.resource });
      if (!approve) return { kind: 'redirect', location: errorLocation(params, 'access_denied', 'the user denied the request') };
      if (!mayAuthorize(client, session.account)) return { kind: 'redirect', location: errorLocation(params, 'access_denied', 'this account may not use this application') };
      return { kind: 'redirect', location: issueCode(params, client, session) };
    },

    // ---- token endpoint ----
    async token(form: Record<string, string | undefined>, authorization: string, a: Actor) {
      const grant = form.grant_type;
      if (!grant) throw oauthError('invalid_request', 'grant_type is required');
      const client = authenticateClient({ authorization, clientId: form.client_id, clientSecret: form.client_secret });
      const actor = { ...a, actor: `oauth-client:${client.clientId}` };
      if (grant === 'authorization_code') return exchangeCode(client, form, actor);
      if (grant === 'client_credentials') return clientCredentials(client, form);
      if (grant === 'refresh_token') return refresh(client, form, actor);
      if (grant === DEVICE_CODE_GRANT) return device.exchange(client, form, actor);
      throw oauthError('unsupported_grant_type', `grant_type ${JSON.stringify(grant)} is not supported`);
    },

    /**
     * RFC 7009. Unknown or foreign tokens are not an error (the answer is the same 200). `token_type_hint` is only a
     * hint (§2.1): every token type is searched whatever it says, and a hint this server does not know is ignored (§2.2).
     */
    async revoke(form: Record<string, string | undefined>, authorization: string, a: Actor) {
      const client = authenticateClient({ authorization, clientId: form.client_id, clientSecret: form.client_secret });
      const token = form.token;
      if (!token) throw oauthError('invalid_request', 'token is required');
      const rt = store.getRefreshToken(sha256(token));
      if (rt) {
        const f = store.getFamily(rt.family_id);
        if (f && f.client_id === client.clientId && store.revokeFamily(f.id, now(), 'revoked')) {
          record({ ...a, actor: `oauth-client:${client.clientId}` }, 'oauth.grant.revoke', client.clientId, { sub: f.sub, family: f.id });
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
        const v = await authority.verifyAccessToken(token, { audience: aud }).catch(() => null);
        if (v && v.clientId === client.clientId) store.revokeAccessToken(v.jti, v.expiresAt * 1000);
      }
    },

    /** UserInfo: user access tokens with `openid`, for the platform audience, from a registered client, for an active account. */
    async userinfo(token: string) {
      const invalid = (why: string) => oauthError('invalid_token', why, { headers: { 'WWW-Authenticate': `Bearer realm="hearth", error="invalid_token", error_description="${why}"` } });
      const r = await verifyBearer(token, [PLATFORM_AUDIENCE]);
      if (!r) throw invalid('the access token is invalid, expired, revoked, for another audience, or its client or account is gone');
      if (r.v.actorKind !== 'user' || !r.row) throw invalid('UserInfo needs a user access token');
      if (!r.v.scope.includes('openid')) {
        throw oauthError('insufficient_scope', 'the access token lacks the openid scope', { headers: { 'WWW-Authenticate': 'Bearer realm="hearth", error="insufficient_scope", scope="openid"' } });
      }
      const row = r.row;
      const c = idTokenClaims(row, r.v.scope);
      return {
        sub: row.sub, uid: c.uid,
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
     * and other applications' service accounts none (the database service says why: `requireNamespaceAccess`). `admin` scope + administrator + `hearth` audience
     * → administration.
     */
    async principalFor(token: string, audiences: string[], nsFromPath: string | null): Promise<Principal | null> {
      const r = await verifyBearer(token, audiences);
      if (!r) return null;
      const { v } = r;
      const base = deps.issuer();
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

    /** RP-initiated logout: ends the client's refresh grants for the account. */
    endClientGrants(clientId: string, sub: string, a: Actor) {
      const n = store.revokeUserClientFamilies(clientId, sub, now(), 'logout');
      if (n > 0) record(a, 'oauth.grant.logout', clientId, { sub, endedGrants: n });
      return n;
    },

    /** Background cleanup: expired codes, interactions and refresh families; abandoned dynamic registrations. */
    cleanup() {
      const at = now();
      const purged = store.purge(at, KEEP_REVOKED_MS);
      const abandoned = store.transaction(() => purgeAbandoned(at));
      return { ...purged, abandoned };
    },
  };

  /** The redirect of an authorization response: its fields, `state` unchanged, and `iss` (RFC 9207) always. */
  function authorizationResponse(redirectUri: string, state: string | null, fields: Record<string, string>) {
    const u = new URL(redirectUri);
    for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
    if (state !== null) u.searchParams.set('state', state);
    u.searchParams.set('iss', deps.issuer());
    return u.toString();
  }

  function errorLocation(params: AuthorizationParams, error: string, description: string) {
    return authorizationResponse(params.redirectUri, params.state, { error, error_description: description });
  }

  function newInteraction(params: AuthorizationParams, sub: string | null, expiresAt: number): string {
    const id = random(32);
    store.insertInteraction({ id_hash: sha256(id), client_id: params.clientId, params: JSON.stringify(params), sub, created_at: now(), expires_at: expiresAt });
    return id;
  }

  function issueCode(params: AuthorizationParams, client: Client, session: SessionView): string {
    const code = random(32);
    const at = now();
    store.insertCode({
      code_hash: sha256(code), client_id: client.clientId, sub: session.account.sub, redirect_uri: params.redirectUri, scope: JSON.stringify(params.scope),
      audiences: JSON.stringify(params.resource !== null ? [params.resource] : client.audiences), resource: params.resource, nonce: params.nonce,
      code_challenge: params.codeChallenge, auth_time: Math.floor(session.issuedAt / 1000), sid: sha256(session.familyId).slice(0, 22),
      created_at: at, expires_at: at + CODE_LIFETIME_MS,
    });
    return authorizationResponse(params.redirectUri, params.state, { code });
  }
}

export type OAuthService = ReturnType<typeof createOAuthService>;
export type { FamilyRow };
