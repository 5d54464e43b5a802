/**
 * Identity administration: accounts, groups, service accounts (server/identity/accounts/accounts.routes.ts),
 * passwords (server/identity/sessions/sessions.routes.ts), signing keys (server/identity/keys/keys.routes.ts)
 * and OAuth clients (`/api/admin/oauth/clients`). The types are the server's own (zod-inferred, imported as types
 * only), so a server change that breaks the UI fails the typecheck.
 */

import type {
  Account,
  AccountCategoryPolicyState,
  AccountDetail,
  AccountList,
  CreateServiceAccountBody,
  Group,
  GroupDetail,
  GroupList,
  GroupMembership,
  MemberBody,
  ServiceAccount,
  ServiceAccountList,
  UpdateAccountBody,
} from '../../../../server/identity/accounts/accounts.schemas.ts';
import type { KeyList, KeyMetadata, RevokeResult, RewrapResult } from '../../../../server/identity/keys/keys.schemas.ts';
import type { LinuxAccount, LinuxIdentity } from '../../../../server/identity/linux/linux.routes.ts';
import type { LinuxConfig } from '../../../../server/identity/linux/linux.service.ts';
import type { ClientList, ClientWithSecret, CreateClientBody, OAuthClient, Scope, UpdateClientBody } from '../../../../server/identity/oauth/oauth.schemas.ts';
import type { Passkey } from '../../../../server/identity/passkeys/passkeys.routes.ts';
import type { SessionAccount } from './auth.ts';
import { request } from './client.ts';

export type {
  Account,
  AccountDetail,
  Group,
  GroupDetail,
  GroupMembership,
  KeyList,
  LinuxAccount,
  LinuxConfig,
  LinuxIdentity,
  OAuthClient,
  Passkey,
  ServiceAccount,
};

const CORE = '/api/admin/core';
const enc = encodeURIComponent;

/** Page size bounds of every identity list (`per_page` ≤ 100). */
export const PER_PAGE_MAX = 100;

export interface PageParams {
  page?: number;
  perPage?: number;
  search?: string;
  signal?: AbortSignal;
}

function pageQuery(p: PageParams) {
  return { page: p.page ?? 1, per_page: p.perPage ?? 50, search: p.search?.trim() ? p.search.trim() : undefined };
}

// --- accounts

export type Profile = Account['profile'];
export type AccountCategory = Account['category'];
export const ACCOUNT_CATEGORIES: readonly AccountCategory[] = ['login', 'guest', 'freeipa'];

/** Fields of a create or an update (`UpdateAccountBody`); creating needs `login`. */
export type AccountInput = UpdateAccountBody;

export const GROUP_PATTERN = /^[a-z_][a-z0-9_-]{0,63}$/;

/** Client-side check of a login (same rule as the server). `null` when valid. */
export function checkLogin(login: string): string | null {
  if (login === '') return 'Enter a login.';
  if (login.length > 32) return 'A login is at most 32 characters.';
  if (/^[0-9-]/.test(login)) return 'A login starts with a lowercase letter or _.';
  if (!/^[a-z_][a-z0-9_-]*$/.test(login)) return 'Use only lowercase letters, digits, _ and -.';
  return null;
}

/** Client-side check of a group name (same rule as the server). `null` when valid. */
export function checkGroupName(name: string): string | null {
  if (name === '') return 'Enter a name.';
  if (name.length > 64) return 'A group name is at most 64 characters.';
  if (/^[0-9-]/.test(name)) return 'A group name starts with a lowercase letter or _.';
  if (!GROUP_PATTERN.test(name)) return 'Use only lowercase letters, digits, _ and -.';
  return null;
}

export function listAccounts(p: PageParams = {}): Promise<AccountList> {
  return request(`${CORE}/accounts`, { query: pageQuery(p), signal: p.signal });
}

export function getAccount(sub: string, signal?: AbortSignal): Promise<AccountDetail> {
  return request(`${CORE}/accounts/${enc(sub)}`, { signal });
}

export function createAccount(body: AccountInput & { login: string }): Promise<Account> {
  return request(`${CORE}/accounts`, { method: 'POST', json: body });
}

export function updateAccount(sub: string, body: AccountInput): Promise<Account> {
  return request(`${CORE}/accounts/${enc(sub)}`, { method: 'PATCH', json: body });
}

export function deleteAccount(sub: string): Promise<void> {
  return request(`${CORE}/accounts/${enc(sub)}`, { method: 'DELETE' });
}

export function revokeAccountSessions(sub: string): Promise<Account> {
  return request(`${CORE}/accounts/${enc(sub)}/revoke-sessions`, { method: 'POST' });
}

/** Admin sets an account's password (from a browser session: needs a sign-in within ten minutes). */
export function setAccountPassword(sub: string, password: string): Promise<void> {
  return request(`${CORE}/accounts/${enc(sub)}/password`, { method: 'PUT', json: { password } });
}

/** The signed-in account changes its own password (account sessions only, not API tokens). */
export function changeOwnPassword(currentPassword: string, newPassword: string): Promise<void> {
  // A wrong current password answers 401: that must not sign the user out.
  return request('/api/auth/password', { method: 'PUT', json: { currentPassword, newPassword }, signOutOn401: false });
}

export type AccountPolicy = AccountCategoryPolicyState;

export function getAccountPolicy(signal?: AbortSignal): Promise<AccountPolicy> {
  return request(`${CORE}/account-policy`, { signal });
}

export function putAccountPolicy(allowedCategories: AccountCategory[]): Promise<AccountPolicy> {
  return request(`${CORE}/account-policy`, { method: 'PUT', json: { allowedCategories } });
}

// --- groups

export type Member = MemberBody;

export function listGroups(p: PageParams = {}): Promise<GroupList> {
  return request(`${CORE}/groups`, { query: pageQuery(p), signal: p.signal });
}

export function getGroup(id: string, signal?: AbortSignal): Promise<GroupDetail> {
  return request(`${CORE}/groups/${enc(id)}`, { signal });
}

export function createGroup(body: { name: string; description?: string }): Promise<GroupDetail> {
  return request(`${CORE}/groups`, { method: 'POST', json: body });
}

export function updateGroup(id: string, body: { name?: string; description?: string }): Promise<GroupDetail> {
  return request(`${CORE}/groups/${enc(id)}`, { method: 'PATCH', json: body });
}

export function deleteGroup(id: string): Promise<void> {
  return request(`${CORE}/groups/${enc(id)}`, { method: 'DELETE' });
}

export function addGroupMember(id: string, member: Member): Promise<GroupDetail> {
  return request(`${CORE}/groups/${enc(id)}/members`, { method: 'POST', json: member });
}

export function removeGroupMember(id: string, member: Member): Promise<GroupDetail> {
  return request(`${CORE}/groups/${enc(id)}/members`, { method: 'DELETE', query: member });
}

// --- service accounts

export function listServiceAccounts(p: PageParams = {}): Promise<ServiceAccountList> {
  return request(`${CORE}/service-accounts`, { query: pageQuery(p), signal: p.signal });
}

export function createServiceAccount(body: CreateServiceAccountBody): Promise<ServiceAccount> {
  return request(`${CORE}/service-accounts`, { method: 'POST', json: body });
}

export function deleteServiceAccount(sub: string): Promise<void> {
  return request(`${CORE}/service-accounts/${enc(sub)}`, { method: 'DELETE' });
}

// --- signing keys

export type SigningKey = KeyMetadata;
export type KeyPurpose = SigningKey['purpose'];
export const KEY_PURPOSES: readonly KeyPurpose[] = ['session', 'invocation', 'oauth'];
export type KeyState = SigningKey['state'];

export function listSigningKeys(signal?: AbortSignal): Promise<KeyList> {
  return request('/api/admin/identity/keys', { signal });
}

export function rewrapSigningKeys(): Promise<RewrapResult> {
  return request('/api/admin/identity/keys/rewrap', { method: 'POST' });
}

export function revokeSigningKey(kid: string, reason: string): Promise<RevokeResult> {
  return request(`/api/admin/identity/keys/${enc(kid)}/revoke`, { method: 'POST', json: { reason } });
}

// --- OAuth clients

/** Every scope a managed client may have, in the order the form lists them (the server's `SUPPORTED_SCOPES`). */
export const OAUTH_SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access', 'read', 'write', 'admin'] as const satisfies readonly Scope[];
export type OAuthScope = Scope;
export const isOAuthScope = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s);
/** Redirect URIs, scopes, audiences, users and groups: at most this many each. */
export const OAUTH_LIST_MAX = 50;

/** Client names are 1–120 characters. */
export const OAUTH_NAME_MAX = 120;

/** A create body; an update sends any part of it except `isPublic`. */
export type OAuthClientInput = CreateClientBody;

/** One page of clients as the pages use it. */
export interface OAuthClientPage {
  clients: OAuthClient[];
  page: number;
  perPage: number;
  total: number;
}

const OAUTH = '/api/admin/oauth/clients';

export async function listOAuthClients(p: PageParams = {}): Promise<OAuthClientPage> {
  const r = await request<ClientList>(OAUTH, {
    query: { page: p.page ?? 1, per_page: p.perPage ?? 20, search: p.search?.trim() || undefined },
    signal: p.signal,
  });
  return { clients: r.data, page: r.page, perPage: r.per_page, total: r.total };
}

export function getOAuthClient(clientId: string, signal?: AbortSignal): Promise<{ client: OAuthClient }> {
  return request(`${OAUTH}/${enc(clientId)}`, { signal });
}

export function createOAuthClient(body: OAuthClientInput): Promise<ClientWithSecret> {
  return request(OAUTH, { method: 'POST', json: body });
}

export function updateOAuthClient(clientId: string, body: UpdateClientBody): Promise<{ client: OAuthClient }> {
  return request(`${OAUTH}/${enc(clientId)}`, { method: 'PATCH', json: body });
}

export function rotateOAuthClientSecret(clientId: string): Promise<{ client: OAuthClient; clientSecret: string }> {
  return request(`${OAUTH}/${enc(clientId)}/secret`, { method: 'POST' });
}

export function revokeOAuthClient(clientId: string): Promise<{ client: OAuthClient }> {
  return request(`${OAUTH}/${enc(clientId)}/revoke`, { method: 'POST' });
}

export function deleteOAuthClient(clientId: string): Promise<void> {
  return request(`${OAUTH}/${enc(clientId)}`, { method: 'DELETE' });
}

/**
 * The OpenID Connect discovery document (`GET /.well-known/openid-configuration`, public, OpenID Connect Discovery
 * 1.0 §3 / RFC 8414): the issuer and the endpoint addresses an application needs. Read from the server, never built
 * here, so the UI shows exactly what libraries will find.
 */
export interface OidcDiscovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
  jwks_uri: string;
  revocation_endpoint?: string;
  device_authorization_endpoint?: string;
  end_session_endpoint?: string;
  scopes_supported?: string[];
}

export const DISCOVERY_PATH = '/.well-known/openid-configuration';

export function getOidcDiscovery(signal?: AbortSignal): Promise<OidcDiscovery> {
  return request(DISCOVERY_PATH, { token: null, signOutOn401: false, signal });
}

// --- Linux identities (server/identity/linux/linux.routes.ts, docs/api/linux-identities.md)

const LINUX = `${CORE}/linux-identities`;
/** The preview lists this many accounts a page (fixed by the server). */
export const LINUX_PAGE_SIZE = 50;
/** Bounds of the reserved range. */
export const LINUX_ID_MIN = 1000;
export const LINUX_ID_MAX = 2147483647;

export interface LinuxPreview {
  config: LinuxConfig;
  configValid: boolean;
  accounts: LinuxAccount[];
  nextCursor: string | null;
}

export type LinuxScope = 'all' | 'ready';

export function getLinuxConfig(signal?: AbortSignal): Promise<{ config: LinuxConfig; configValid?: boolean }> {
  return request(`${LINUX}/configuration`, { signal });
}

export function putLinuxConfig(config: LinuxConfig, rangeReserved: boolean): Promise<{ config: LinuxConfig; configValid?: boolean }> {
  return request(`${LINUX}/configuration`, { method: 'PUT', json: { config, rangeReserved } });
}

export function previewLinuxIdentities(p: { after?: string | null; scope?: LinuxScope; search?: string; signal?: AbortSignal } = {}): Promise<LinuxPreview> {
  return request(LINUX, { query: { after: p.after ?? undefined, scope: p.scope ?? 'all', search: p.search?.trim() || undefined }, signal: p.signal });
}

export function prepareLinuxIdentity(sub: string): Promise<LinuxAccount & { created: boolean }> {
  return request(`${LINUX}/users/${enc(sub)}`, { method: 'POST' });
}

export function updateLinuxIdentity(sub: string, body: { homeDirectory: string; loginShell: string }): Promise<LinuxAccount> {
  return request(`${LINUX}/users/${enc(sub)}`, { method: 'PATCH', json: body });
}

export function makeGroupPosix(id: string): Promise<{ id: string; name: string; gid: number; created: boolean }> {
  return request(`${LINUX}/groups/${enc(id)}`, { method: 'POST' });
}

/** Client-side check of a path the server puts in `passwd` lines. `null` when valid. */
export function checkLinuxPath(p: string, what: string): string | null {
  if (p.length < 2 || !p.startsWith('/')) return `${what} must be an absolute path, like /home/alice.`;
  if (p.length > 255) return `${what} is at most 255 characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[:\x00-\x1f\x7f]/.test(p)) return `${what} must not contain ":" or control characters.`;
  return null;
}

// --- passkeys (server/identity/passkeys/passkeys.routes.ts)

/** A WebAuthn ceremony: the challenge to send back and the options in their JSON form. */
export interface PasskeyCeremony<O> {
  challengeId: string;
  options: O;
}

export const PASSKEY_NAME_MAX = 80;

export function listPasskeys(signal?: AbortSignal): Promise<{ data: Passkey[] }> {
  return request('/api/auth/passkeys', { signal });
}

/** Needs a session signed in within ten minutes (403 `recent_auth_required`). */
export function passkeyRegistrationOptions(): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
  return request('/api/auth/passkeys/registration', { method: 'POST' });
}

export function registerPasskey(body: { challengeId: string; credential: unknown; name?: string }): Promise<Passkey> {
  return request('/api/auth/passkeys', { method: 'POST', json: body });
}

export function renamePasskey(id: string, name: string): Promise<Passkey> {
  return request(`/api/auth/passkeys/${enc(id)}`, { method: 'PATCH', json: { name } });
}

export function removePasskey(id: string): Promise<void> {
  return request(`/api/auth/passkeys/${enc(id)}`, { method: 'DELETE' });
}

export function passkeyLoginOptions(): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
  return request('/api/auth/passkeys/login/options', { method: 'POST', token: null, signOutOn401: false });
}

/** Sets the `hearth_session` cookie like a password sign-in. */
export function passkeyLogin(challengeId: string, credential: unknown): Promise<{ account: SessionAccount }> {
  return request('/api/auth/passkeys/login', { method: 'POST', json: { challengeId, credential }, token: null, signOutOn401: false });
}

/** Recent authentication with one of the signed-in account's passkeys (a challenge bound to the account). */
export function passkeyReauthOptions(): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
  return request('/api/auth/passkeys/reauth/options', { method: 'POST', token: null, signOutOn401: false, reauthenticate: false });
}

/** The session counts as signed in now (as `POST /api/auth/reauth` with the password). */
export function passkeyReauthenticate(challengeId: string, credential: unknown): Promise<{ issuedAt: number; recentAuthUntil: number }> {
  return request('/api/auth/passkeys/reauth', { method: 'POST', json: { challengeId, credential }, token: null, signOutOn401: false, reauthenticate: false });
}

/**
 * True when this browser can use passkeys here: `PublicKeyCredential` exists only in secure contexts (HTTPS,
 * localhost), and the JSON helpers the ceremonies use exist in every current browser.
 */
export function passkeysSupported(): boolean {
  if (typeof window === 'undefined' || typeof window.PublicKeyCredential !== 'function') return false;
  const pkc = window.PublicKeyCredential as Partial<typeof PublicKeyCredential>;
  return typeof pkc.parseCreationOptionsFromJSON === 'function' && typeof pkc.parseRequestOptionsFromJSON === 'function';
}

/** Every group with a GID (`GET /api/admin/core/linux-identities/groups`). */
export function listPosixGroups(signal?: AbortSignal): Promise<{ data: Array<{ id: string; name: string; gid: number }> }> {
  return request(`${LINUX}/groups`, { signal });
}
