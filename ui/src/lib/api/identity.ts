/**
 * Identity administration: accounts, groups, service accounts (server/identity/accounts/accounts.routes.ts),
 * passwords (server/identity/sessions/sessions.routes.ts), signing keys (server/identity/keys/keys.routes.ts),
 * OAuth clients (`/api/admin/oauth/clients`), Linux identities and passkeys. Paths, bodies and answers are the
 * OpenAPI document's (`openapi.ts`), so a server change that breaks the UI fails the typecheck; the rules a form
 * checks before sending come from the identity contract (server/identity/contract.ts), the server's own.
 */
import { type AccountCategory, ACCOUNT_CATEGORIES as CATEGORIES } from '../../../../server/identity/contract.ts';
import { answer, api, apiWith, every, NetworkError, reauthApi, type Schemas, sessionApi } from './client.ts';
import type { operations, paths } from './openapi.ts';

export { checkGroupName, checkLogin, GROUP_PATTERN } from '../../../../server/identity/contract.ts';
export type { AccountCategory };

export type Account = Schemas['Account'];
export type AccountDetail = Schemas['AccountDetail'];
export type Group = Schemas['Group'];
export type GroupDetail = Schemas['GroupDetail'];
export type GroupMembership = Schemas['GroupMembership'];
export type ServiceAccount = Schemas['ServiceAccount'];

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

const accountPath = (sub: string) => ({ params: { path: { sub } } });
const groupPath = (id: string) => ({ params: { path: { id } } });

// --- accounts

export type Profile = Account['profile'];
/** The categories in the order forms list them: the contract's list, checked against the document's enum. */
export const ACCOUNT_CATEGORIES = every<Account['category']>()(CATEGORIES);

/** Fields of a create or an update (`UpdateAccount`); creating needs `login`. */
export type AccountInput = Schemas['UpdateAccount'];

export function listAccounts(p: PageParams = {}): Promise<Schemas['AccountList']> {
  return answer(api.GET('/api/admin/core/accounts', { params: { query: pageQuery(p) }, signal: p.signal }));
}

export function getAccount(sub: string, signal?: AbortSignal): Promise<AccountDetail> {
  return answer(api.GET('/api/admin/core/accounts/{sub}', { ...accountPath(sub), signal }));
}

export function createAccount(body: Schemas['CreateAccount']): Promise<Account> {
  return answer(api.POST('/api/admin/core/accounts', { body }));
}

export function updateAccount(sub: string, body: AccountInput): Promise<Account> {
  return answer(api.PATCH('/api/admin/core/accounts/{sub}', { ...accountPath(sub), body }));
}

export function deleteAccount(sub: string): Promise<void> {
  return answer(api.DELETE('/api/admin/core/accounts/{sub}', accountPath(sub)));
}

export function revokeAccountSessions(sub: string): Promise<Account> {
  return answer(api.POST('/api/admin/core/accounts/{sub}/revoke-sessions', accountPath(sub)));
}

/** Admin sets an account's password (from a browser session: needs a sign-in within ten minutes). */
export function setAccountPassword(sub: string, password: string): Promise<void> {
  return answer(api.PUT('/api/admin/core/accounts/{sub}/password', { ...accountPath(sub), body: { password } }));
}

/** A wrong current password answers 401: that must not sign the user out. */
const ownPasswordApi = apiWith({ signOutOn401: false });

/** The signed-in account changes its own password (account sessions only, not API tokens). */
export function changeOwnPassword(currentPassword: string, newPassword: string): Promise<void> {
  return answer(ownPasswordApi.PUT('/api/auth/password', { body: { currentPassword, newPassword } }));
}

export type AccountPolicy = Schemas['AccountCategoryPolicyState'];

export function getAccountPolicy(signal?: AbortSignal): Promise<AccountPolicy> {
  return answer(api.GET('/api/admin/core/account-policy', { signal }));
}

export function putAccountPolicy(allowedCategories: AccountCategory[]): Promise<AccountPolicy> {
  return answer(api.PUT('/api/admin/core/account-policy', { body: { allowedCategories } }));
}

// --- groups

export type Member = Schemas['GroupMember'];

export function listGroups(p: PageParams = {}): Promise<Schemas['GroupList']> {
  return answer(api.GET('/api/admin/core/groups', { params: { query: pageQuery(p) }, signal: p.signal }));
}

export function getGroup(id: string, signal?: AbortSignal): Promise<GroupDetail> {
  return answer(api.GET('/api/admin/core/groups/{id}', { ...groupPath(id), signal }));
}

export function createGroup(body: Schemas['CreateGroup']): Promise<GroupDetail> {
  return answer(api.POST('/api/admin/core/groups', { body }));
}

export function updateGroup(id: string, body: Schemas['UpdateGroup']): Promise<GroupDetail> {
  return answer(api.PATCH('/api/admin/core/groups/{id}', { ...groupPath(id), body }));
}

export function deleteGroup(id: string): Promise<void> {
  return answer(api.DELETE('/api/admin/core/groups/{id}', groupPath(id)));
}

export function addGroupMember(id: string, member: Member): Promise<GroupDetail> {
  return answer(api.POST('/api/admin/core/groups/{id}/members', { ...groupPath(id), body: member }));
}

export function removeGroupMember(id: string, member: Member): Promise<GroupDetail> {
  return answer(api.DELETE('/api/admin/core/groups/{id}/members', { params: { path: { id }, query: member } }));
}

// --- service accounts

export function listServiceAccounts(p: PageParams = {}): Promise<Schemas['ServiceAccountList']> {
  return answer(api.GET('/api/admin/core/service-accounts', { params: { query: pageQuery(p) }, signal: p.signal }));
}

export function createServiceAccount(body: Schemas['CreateServiceAccount']): Promise<ServiceAccount> {
  return answer(api.POST('/api/admin/core/service-accounts', { body }));
}

export function deleteServiceAccount(sub: string): Promise<void> {
  return answer(api.DELETE('/api/admin/core/service-accounts/{sub}', accountPath(sub)));
}

// --- signing keys

export type KeyList = Schemas['SigningKeyList'];
export type SigningKey = Schemas['SigningKey'];
export type KeyPurpose = SigningKey['purpose'];
export const KEY_PURPOSES = every<KeyPurpose>()(['session', 'invocation', 'oauth']);
export type KeyState = SigningKey['state'];

export function listSigningKeys(signal?: AbortSignal): Promise<KeyList> {
  return answer(api.GET('/api/admin/identity/keys', { signal }));
}

export function rewrapSigningKeys(): Promise<Schemas['RewrapResult']> {
  return answer(api.POST('/api/admin/identity/keys/rewrap'));
}

export function revokeSigningKey(kid: string, reason: string): Promise<Schemas['RevokedSigningKey']> {
  return answer(api.POST('/api/admin/identity/keys/{kid}/revoke', { params: { path: { kid } }, body: { reason } }));
}

// --- OAuth clients

export type OAuthClient = Schemas['OAuthClient'];
/** A create body; an update sends any part of it except `isPublic`. */
export type OAuthClientInput = Schemas['CreateOAuthClient'];
export type OAuthScope = NonNullable<OAuthClientInput['scopes']>[number];
/** Every scope a managed client may have, in the order the form lists them. */
export const OAUTH_SCOPES = every<OAuthScope>()(['openid', 'profile', 'email', 'groups', 'offline_access', 'read', 'write', 'admin']);
export const isOAuthScope = (s: string): s is OAuthScope => (OAUTH_SCOPES as readonly string[]).includes(s);
/** Redirect URIs, scopes, audiences, users and groups: at most this many each. */
export const OAUTH_LIST_MAX = 50;

/** Client names are 1–120 characters. */
export const OAUTH_NAME_MAX = 120;

/** One page of clients as the pages use it. */
export interface OAuthClientPage {
  clients: OAuthClient[];
  page: number;
  perPage: number;
  total: number;
}

const clientPath = (clientId: string) => ({ params: { path: { clientId } } });

export async function listOAuthClients(p: PageParams = {}): Promise<OAuthClientPage> {
  const r = await answer(
    api.GET('/api/admin/oauth/clients', {
      params: { query: { page: p.page ?? 1, per_page: p.perPage ?? 20, search: p.search?.trim() || undefined } },
      signal: p.signal,
    }),
  );
  return { clients: r.data, page: r.page, perPage: r.per_page, total: r.total };
}

export function getOAuthClient(clientId: string, signal?: AbortSignal): Promise<{ client: OAuthClient }> {
  return answer(api.GET('/api/admin/oauth/clients/{clientId}', { ...clientPath(clientId), signal }));
}

export function createOAuthClient(body: OAuthClientInput): Promise<Schemas['OAuthClientWithSecret']> {
  return answer(api.POST('/api/admin/oauth/clients', { body }));
}

export function updateOAuthClient(clientId: string, body: Schemas['UpdateOAuthClient']): Promise<{ client: OAuthClient }> {
  return answer(api.PATCH('/api/admin/oauth/clients/{clientId}', { ...clientPath(clientId), body }));
}

/** A new secret; never null here, as a public client has none to rotate (409 `client_is_public`). */
export async function rotateOAuthClientSecret(clientId: string): Promise<{ client: OAuthClient; clientSecret: string }> {
  const r = await answer(api.POST('/api/admin/oauth/clients/{clientId}/secret', clientPath(clientId)));
  if (r.clientSecret === null) throw new NetworkError('The server sent an answer the admin UI could not read.');
  return { client: r.client, clientSecret: r.clientSecret };
}

export function revokeOAuthClient(clientId: string): Promise<{ client: OAuthClient }> {
  return answer(api.POST('/api/admin/oauth/clients/{clientId}/revoke', clientPath(clientId)));
}

export function deleteOAuthClient(clientId: string): Promise<void> {
  return answer(api.DELETE('/api/admin/oauth/clients/{clientId}', clientPath(clientId)));
}

/**
 * The OpenID Connect discovery document (`GET /.well-known/openid-configuration`, public, OpenID Connect Discovery
 * 1.0 §3 / RFC 8414): the issuer and the endpoint addresses an application needs. Read from the server, never built
 * here, so the UI shows exactly what libraries will find. The OpenAPI document types it as an open object (its
 * members are OpenID Connect's), so these, the members the UI reads, are written here.
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

/** Where discovery lives below an issuer. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration' satisfies keyof paths;

export async function getOidcDiscovery(signal?: AbortSignal): Promise<OidcDiscovery> {
  return (await answer(sessionApi.GET(DISCOVERY_PATH, { signal }))) as unknown as OidcDiscovery;
}

// --- Linux identities (server/identity/linux/linux.routes.ts, docs/api/linux-identities.md)

/**
 * The Linux configuration as the server answers it: every member present. (The document's `LinuxIdentityConfig` is
 * also the request's, where `homeTemplate` and `loginShell` may be left out for their defaults.)
 */
export type LinuxConfig = Required<Schemas['LinuxIdentityConfig']>;
export type LinuxAccount = Schemas['LinuxAccount'];
export type LinuxIdentity = Schemas['LinuxIdentity'];
/** The preview lists this many accounts a page (fixed by the server). */
export const LINUX_PAGE_SIZE = 50;
/** Bounds of the reserved range. */
export const LINUX_ID_MIN = 1000;
export const LINUX_ID_MAX = 2147483647;

export type LinuxPreview = Omit<Schemas['LinuxPreview'], 'config'> & { config: LinuxConfig };
export type LinuxScope = NonNullable<NonNullable<operations['previewLinuxIdentities']['parameters']['query']>['scope']>;
type LinuxConfigState = Omit<Schemas['LinuxConfigState'], 'config'> & { config: LinuxConfig };

const linuxUserPath = (sub: string) => ({ params: { path: { id: sub } } });

export async function getLinuxConfig(signal?: AbortSignal): Promise<LinuxConfigState> {
  return (await answer(api.GET('/api/admin/core/linux-identities/configuration', { signal }))) as LinuxConfigState;
}

export async function putLinuxConfig(config: LinuxConfig, rangeReserved: boolean): Promise<LinuxConfigState> {
  return (await answer(api.PUT('/api/admin/core/linux-identities/configuration', { body: { config, rangeReserved } }))) as LinuxConfigState;
}

export async function previewLinuxIdentities(
  p: { after?: string | null; scope?: LinuxScope; search?: string; signal?: AbortSignal } = {},
): Promise<LinuxPreview> {
  const query = { after: p.after ?? undefined, scope: p.scope ?? 'all', search: p.search?.trim() || undefined };
  return (await answer(api.GET('/api/admin/core/linux-identities', { params: { query }, signal: p.signal }))) as LinuxPreview;
}

export function prepareLinuxIdentity(sub: string) {
  return answer(api.POST('/api/admin/core/linux-identities/users/{id}', linuxUserPath(sub)));
}

export function updateLinuxIdentity(sub: string, body: { homeDirectory: string; loginShell: string }): Promise<LinuxAccount> {
  return answer(api.PATCH('/api/admin/core/linux-identities/users/{id}', { ...linuxUserPath(sub), body }));
}

export function makeGroupPosix(id: string) {
  return answer(api.POST('/api/admin/core/linux-identities/groups/{id}', { params: { path: { id } } }));
}

/** Every group with a GID (`GET /api/admin/core/linux-identities/groups`). */
export function listPosixGroups(signal?: AbortSignal) {
  return answer(api.GET('/api/admin/core/linux-identities/groups', { signal }));
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

export type Passkey = Schemas['Passkey'];

/**
 * A WebAuthn ceremony: the challenge to send back and the options in their JSON form. The document types the
 * options as an open object; they are WebAuthn's, the DOM's `PublicKeyCredential*OptionsJSON`.
 */
export interface PasskeyCeremony<O> {
  challengeId: string;
  options: O;
}

export const PASSKEY_NAME_MAX = 80;

export function listPasskeys(signal?: AbortSignal): Promise<{ data: Passkey[] }> {
  return answer(api.GET('/api/auth/passkeys', { signal }));
}

/** Needs a session signed in within ten minutes (403 `recent_auth_required`). */
export async function passkeyRegistrationOptions(): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
  const c = await answer(api.POST('/api/auth/passkeys/registration'));
  return c as unknown as PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>;
}

/** A credential's JSON form (`PublicKeyCredential.toJSON()`), sent as it is. */
const credentialJson = (credential: unknown) => credential as Record<string, unknown>;

export function registerPasskey(body: { challengeId: string; credential: unknown; name?: string }): Promise<Passkey> {
  return answer(api.POST('/api/auth/passkeys', { body: { ...body, credential: credentialJson(body.credential) } }));
}

export function renamePasskey(id: string, name: string): Promise<Passkey> {
  return answer(api.PATCH('/api/auth/passkeys/{id}', { params: { path: { id } }, body: { name } }));
}

export function removePasskey(id: string): Promise<void> {
  return answer(api.DELETE('/api/auth/passkeys/{id}', { params: { path: { id } } }));
}

export async function passkeyLoginOptions(): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
  const c = await answer(sessionApi.POST('/api/auth/passkeys/login/options'));
  return c as unknown as PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>;
}

/** Sets the `hearth_session` cookie like a password sign-in. */
export function passkeyLogin(challengeId: string, credential: unknown) {
  return answer(sessionApi.POST('/api/auth/passkeys/login', { body: { challengeId, credential: credentialJson(credential) } }));
}

/** Recent authentication with one of the signed-in account's passkeys (a challenge bound to the account). */
export async function passkeyReauthOptions(): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
  const c = await answer(reauthApi.POST('/api/auth/passkeys/reauth/options'));
  return c as unknown as PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>;
}

/** The session counts as signed in now (as `POST /api/auth/reauth` with the password). */
export function passkeyReauthenticate(challengeId: string, credential: unknown): Promise<Schemas['Reauthenticated']> {
  return answer(reauthApi.POST('/api/auth/passkeys/reauth', { body: { challengeId, credential: credentialJson(credential) } }));
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
