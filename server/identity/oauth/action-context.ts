/**
 * The small context every OAuth action receives (the way node-oidc-provider hands its actions one provider): the
 * store, the clock, the audit record, the signing authority, the issuer, and the rules more than one action applies —
 * who may authorize a client (Authentication rule 2), the recheck every issuance repeats (grant rule 2), the audience
 * rule, and the token-response helpers. It owns the `Client` model (row ↔ object) and the lifetimes; it owns no
 * endpoint. The actions in `server/identity/oauth/` import this file; it imports none of them, only the wire schemas
 * and the store (no cycles).
 */
import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { type AccountsService, type Actor, presentAccount } from '../accounts/accounts.service.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import type { AccessTokenInput, IdTokenInput, VerifiedAccessToken } from '../keys/keys.tokens.ts';
import { absoluteUri, PLATFORM_AUDIENCE } from './oauth.schemas.ts';
import type { ClientRow, OAuthStore } from './oauth.store.ts';

export const CODE_LIFETIME_MS = 60_000;
export const CONSENT_LIFETIME_MS = 5 * 60_000;
export const SIGN_IN_INTERACTION_MS = 10 * 60_000;
export const ACCESS_TOKEN_LIFETIME_S = 3600;
export const REFRESH_FAMILY_LIFETIME_MS = 30 * 24 * 3600_000;
export const ABANDONED_REGISTRATION_MS = 24 * 3600_000;
export const FIRST_PARTY_CLI = 'hearth-cli';
export const KEEP_REVOKED_MS = 24 * 3600_000;

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
  /** Whether the bound service account exists, when the client was read with it (`getClient`); null otherwise. */
  serviceAccountLive?: boolean | null;
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

/** A form-encoded request body (token, revocation, device authorization). */
export type Form = Record<string, string | undefined>;

export const json = <T>(s: string) => JSON.parse(s) as T;
export const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
export const random = (n = 32) => crypto.randomBytes(n).toString('base64url');

export function clientOf(r: ClientRow): Client {
  return {
    clientId: r.client_id,
    origin: r.origin,
    name: r.name,
    description: r.description,
    redirectUris: json(r.redirect_uris),
    logoutUri: r.logout_uri,
    scopes: json(r.scopes),
    audiences: json(r.audiences),
    serviceAccountId: r.service_account_id,
    serviceAccountLive: r.service_account_live == null ? null : Boolean(r.service_account_live),
    allowedProfiles: json(r.allowed_profiles),
    accessMode: r.access_mode,
    allowedUserIds: json(r.allowed_user_ids),
    allowedGroupIds: json(r.allowed_group_ids),
    isPublic: r.is_public === 1,
    secretHash: r.secret_hash,
    grantTypes: json(r.grant_types),
    applicationType: r.application_type,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    secretRotatedAt: r.secret_rotated_at,
    firstUsedAt: r.first_used_at,
    revokedAt: r.revoked_at,
  };
}

export function rowOf(c: Client): ClientRow {
  return {
    client_id: c.clientId,
    origin: c.origin,
    name: c.name,
    description: c.description,
    redirect_uris: JSON.stringify(c.redirectUris),
    logout_uri: c.logoutUri,
    scopes: JSON.stringify(c.scopes),
    audiences: JSON.stringify(c.audiences),
    service_account_id: c.serviceAccountId,
    allowed_profiles: JSON.stringify(c.allowedProfiles),
    access_mode: c.accessMode,
    allowed_user_ids: JSON.stringify(c.allowedUserIds),
    allowed_group_ids: JSON.stringify(c.allowedGroupIds),
    is_public: c.isPublic ? 1 : 0,
    secret_hash: c.secretHash,
    grant_types: JSON.stringify(c.grantTypes),
    application_type: c.applicationType,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    secret_rotated_at: c.secretRotatedAt,
    first_used_at: c.firstUsedAt,
    revoked_at: c.revokedAt,
  };
}

/**
 * An OAuth protocol error (RFC 6749 §5.2 and friends): the body carries `error_description` too. Its status is the
 * code's in `ERROR_CODES`; an answer that needs another status needs another code there.
 */
export const oauthError = (code: string, description: string, opts: { headers?: Record<string, string> } = {}) => new HearthError(code, description, opts);

export function parseScope(s: string | undefined): string[] | null {
  if (s === undefined) return null;
  const parts = s.split(' ').filter(Boolean);
  return [...new Set(parts)];
}

/** An RFC 8707 `resource` of the token endpoint (null when absent). */
export function validResource(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!absoluteUri(value)) throw oauthError('invalid_target', 'resource must be an absolute URI without fragment (RFC 8707)');
  return value;
}

export interface OAuthContextDeps {
  store: OAuthStore;
  accounts: AccountsService;
  accountStore: AccountStore;
  authority: OAuthAuthority;
  audit: AuditLog;
  logger: Logger;
  issuer: () => string;
  now?: () => number;
}

export function createOAuthContext(deps: OAuthContextDeps) {
  const { store, accounts, accountStore, authority } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    deps.audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  /** The client; with `lock`, row-locked until the caller's transaction ends (read-modify-write by two replicas). */
  const getClient = async (id: string, lock = false): Promise<Client | null> => {
    const r = await (lock ? store.lockClient(id) : store.getClient(id));
    return r ? clientOf(r) : null;
  };

  // Who may authorize (Authentication rule 2) and the account checks every issuance repeats (grant rule 2).
  async function accountUsable(row: AccountRow | undefined): Promise<boolean> {
    return !!row && row.kind === 'person' && (await accounts.isAccountCategoryAllowed(presentAccount(row)));
  }

  async function mayAuthorize(client: Client, row: AccountRow): Promise<boolean> {
    if (!client.allowedProfiles.includes(row.profile)) return false;
    if (client.accessMode === 'profiles') return true;
    if (client.allowedUserIds.includes(row.sub)) return true;
    if (client.allowedGroupIds.length === 0) return false;
    const groups = new Set((await accounts.memberships(row.sub)).map((g) => g.id));
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

  /** Grant rule 2: account, client scopes and audiences, profile or explicit access, client existence. */
  async function recheck(clientId: string, sub: string, scope: string[], audiences: string[]): Promise<{ client: Client; row: AccountRow } | string> {
    const client = await getClient(clientId);
    if (!client || client.revokedAt !== null) return 'the client no longer exists';
    const row = await accountStore.getAccount(sub);
    if (!row || !(await accountUsable(row))) return 'the account is disabled, expired, removed or not allowed to use credential flows';
    if (!scope.every((s) => client.scopes.includes(s))) {
      return 'the client no longer allows every granted scope';
    }
    if (!audiences.every((a) => audienceAllowed(client, a))) return 'the client no longer allows every granted audience';
    if (!(await mayAuthorize(client, row))) return 'the account may no longer use this client';
    return { client, row };
  }

  // Token issuance

  async function idTokenClaims(row: AccountRow, scope: string[]) {
    const out: Partial<IdTokenInput> = { uid: row.login ?? undefined };
    if (scope.includes('profile')) {
      out.name = row.display_name || row.login || undefined;
      out.preferredUsername = row.login ?? undefined;
    }
    if (scope.includes('email') && row.email) out.email = row.email;
    if (scope.includes('groups')) out.groups = (await accounts.memberships(row.sub)).slice(0, 50).map((g) => g.name);
    return out;
  }

  async function mintUserTokens(
    client: Client,
    row: AccountRow,
    g: { scope: string[]; audiences: string[]; authTime: number; sid: string | null; nonce?: string | null },
  ) {
    const accessToken = await authority.signAccessToken({
      sub: row.sub,
      actorKind: 'user',
      clientId: client.clientId,
      audience: g.audiences,
      scope: g.scope,
      uid: row.login ?? undefined,
      authTime: g.authTime,
    });
    let idToken: string | undefined;
    if (g.scope.includes('openid')) {
      idToken = await authority.signIdToken({
        sub: row.sub,
        clientId: client.clientId,
        nonce: g.nonce ?? undefined,
        authTime: g.authTime,
        sid: g.sid ?? undefined,
        accessToken,
        ...(await idTokenClaims(row, g.scope)),
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

  /** A new refresh family with its first token (inside the caller's transaction); returns the family id and the token. */
  async function startRefreshFamily(f: {
    clientId: string;
    sub: string;
    scope: string;
    audiences: string;
    resource: string | null;
    authTime: number;
    sid: string | null;
    at: number;
    expiresAt: number;
  }) {
    const familyId = random(16);
    const refreshToken = `hrt_${random(32)}`;
    await store.insertFamily({
      id: familyId,
      client_id: f.clientId,
      sub: f.sub,
      scope: f.scope,
      audiences: f.audiences,
      resource: f.resource,
      auth_time: f.authTime,
      sid: f.sid,
      created_at: f.at,
      expires_at: f.expiresAt,
    });
    await store.insertRefreshToken(sha256(refreshToken), familyId, 0, f.at);
    return { familyId, refreshToken };
  }

  return {
    store,
    accounts,
    accountStore,
    authority,
    logger: deps.logger,
    issuer: deps.issuer,
    now,
    record,
    getClient,
    accountUsable,
    mayAuthorize,
    audienceAllowed,
    recheck,
    idTokenClaims,
    mintUserTokens,
    tokenResponse,
    startRefreshFamily,
  };
}

export type OAuthContext = ReturnType<typeof createOAuthContext>;
/** A grant of the token endpoint: the authenticated client, the form, the actor (`oauth-client:{id}`). */
export type GrantHandler = (client: Client, form: Form, a: Actor) => Promise<Record<string, unknown>>;

/**
 * A grant of the token endpoint: the parameters it reads beside the common ones (`grant_type` and client
 * authentication), and its handler, which is given only those (see grants/parameters.ts).
 */
export interface Grant {
  parameters: ReadonlySet<string>;
  handler: GrantHandler;
}
