import { z } from 'zod';
import { plainTextRule } from '../../core/http/text.ts';
import { PageQuery } from '../accounts/accounts.schemas.ts';

/** Every scope Hearth knows. */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'groups', 'offline_access', 'read', 'write', 'admin'] as const;
/** What discovery advertises and dynamic clients may have: `groups` and `admin` need a managed or first-party client. */
export const DELEGATED_SCOPES = ['openid', 'profile', 'email', 'offline_access', 'read', 'write'] as const;
export const DEFAULT_CLIENT_SCOPES = ['openid', 'profile', 'email'];
/** The platform audience, a client's default audience: every Hearth API accepts it. */
export const PLATFORM_AUDIENCE = 'hearth';
export const LIST_MAX = 50;

export type Scope = (typeof SUPPORTED_SCOPES)[number];

const listOf = <T extends z.ZodType>(item: T, what: string) =>
  z
    .array(item)
    .max(LIST_MAX, `${what}: at most ${LIST_MAX} entries`)
    .refine((a) => new Set(a as unknown[]).size === a.length, `${what}: duplicate entries`);

/** An absolute URI without a fragment (RFC 8707 resource, redirect URIs). */
export function absoluteUri(value: string): URL | null {
  if (value.length > 2048 || /\s/.test(value)) return null;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return null;
  }
  if (value.includes('#') || u.hash) return null;
  return u;
}

const RedirectUri = z
  .string()
  .max(2048)
  .refine((v) => {
    const u = absoluteUri(v);
    return !!u && !u.username && !u.password && u.protocol !== 'javascript:' && u.protocol !== 'data:';
  }, 'redirect URIs must be absolute URIs without fragment or user information');
const Audience = z
  .string()
  .max(2048)
  .refine((v) => v === PLATFORM_AUDIENCE || !!absoluteUri(v), `an audience is "${PLATFORM_AUDIENCE}" or an absolute URI without fragment`);
const ScopeName = z.enum(SUPPORTED_SCOPES, { message: `scopes must be among: ${SUPPORTED_SCOPES.join(' ')}` });
const Profile = z.enum(['user', 'guest']);
const Uuid = z.uuid('must be a UUID');

export const ClientOrigin = z.enum(['managed', 'first_party', 'dynamic']);

export const OAuthClient = z
  .object({
    clientId: z.string(),
    origin: ClientOrigin.meta({ description: '`managed` (created by an administrator), `first_party` (seeded, protected), `dynamic` (RFC 7591).' }),
    name: z.string(),
    description: z.string().nullable(),
    redirectUris: z.array(z.string()),
    logoutUri: z.string().nullable(),
    scopes: z.array(z.string()),
    audiences: z.array(z.string()),
    serviceAccountId: z.string().nullable(),
    allowedProfiles: z.array(Profile),
    accessMode: z.enum(['profiles', 'specific']),
    allowedUserIds: z.array(z.string()),
    allowedGroupIds: z.array(z.string()),
    isPublic: z.boolean(),
    hasSecret: z.boolean().meta({ description: 'The secret itself is shown only when created or rotated.' }),
    grantTypes: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
    secretRotatedAt: z.string().nullable(),
    revokedAt: z
      .string()
      .nullable()
      .meta({ description: 'Set once an administrator revoked the client: it can no longer be used and its tokens are invalid.' }),
  })
  .meta({ id: 'OAuthClient' });

const clientFields = {
  name: z.string().trim().min(1, 'name must be 1–120 characters').max(120, 'name must be 1–120 characters').superRefine(plainTextRule('name')),
  description: z
    .string()
    .trim()
    .max(1000, 'description must be at most 1000 characters')
    .superRefine(plainTextRule('description', { multiline: true }))
    .nullable(),
  redirectUris: listOf(RedirectUri, 'redirectUris'),
  logoutUri: RedirectUri.nullable(),
  scopes: listOf(ScopeName, 'scopes'),
  audiences: listOf(Audience, 'audiences'),
  serviceAccountId: Uuid.nullable(),
  allowedProfiles: listOf(Profile, 'allowedProfiles'),
  accessMode: z.enum(['profiles', 'specific']),
  allowedUserIds: listOf(Uuid, 'allowedUserIds'),
  allowedGroupIds: listOf(Uuid, 'allowedGroupIds'),
  isPublic: z.boolean(),
};

export const CreateClientBody = z
  .object({
    name: clientFields.name,
    description: clientFields.description.optional(),
    redirectUris: clientFields.redirectUris.default([]),
    logoutUri: clientFields.logoutUri.optional(),
    scopes: clientFields.scopes.default(DEFAULT_CLIENT_SCOPES as never),
    audiences: clientFields.audiences.default([PLATFORM_AUDIENCE]),
    serviceAccountId: clientFields.serviceAccountId.default(null),
    allowedProfiles: clientFields.allowedProfiles.default(['user', 'guest']),
    accessMode: clientFields.accessMode.default('profiles'),
    allowedUserIds: clientFields.allowedUserIds.default([]),
    allowedGroupIds: clientFields.allowedGroupIds.default([]),
    isPublic: clientFields.isPublic.default(false),
  })
  .strict()
  .meta({ id: 'CreateOAuthClient' });

export const UpdateClientBody = z
  .object({
    name: clientFields.name.optional(),
    description: clientFields.description.optional(),
    redirectUris: clientFields.redirectUris.optional(),
    logoutUri: clientFields.logoutUri.optional(),
    scopes: clientFields.scopes.optional(),
    audiences: clientFields.audiences.optional(),
    serviceAccountId: clientFields.serviceAccountId.optional(),
    allowedProfiles: clientFields.allowedProfiles.optional(),
    accessMode: clientFields.accessMode.optional(),
    allowedUserIds: clientFields.allowedUserIds.optional(),
    allowedGroupIds: clientFields.allowedGroupIds.optional(),
  })
  .strict()
  .meta({ id: 'UpdateOAuthClient', description: 'Only the fields given change. `isPublic` cannot change: create a new client.' });

export const ClientListQuery = PageQuery.meta({ description: '`search` matches name, client ID or description (case-insensitive substring).' });
export const ClientList = z
  .object({ data: z.array(OAuthClient), page: z.number().int(), per_page: z.number().int(), total: z.number().int() })
  .meta({ id: 'OAuthClientList' });
export const ClientWithSecret = z
  .object({ client: OAuthClient, clientSecret: z.string().nullable().meta({ description: 'Shown once; null for public clients.' }) })
  .meta({ id: 'OAuthClientWithSecret' });
export const ClientParams = z.object({ clientId: z.string().min(1).max(200) });

/**
 * RFC 7591 registration metadata: dynamic clients are public (`none`), with 1–10 callbacks, the code grant (and
 * optionally refresh) only. Unknown members are ignored (RFC 7591 §2).
 */
export const RegisterBody = z
  .object({
    redirect_uris: z.array(z.string().max(2048)).min(1, 'redirect_uris: 1–10 callbacks').max(10, 'redirect_uris: 1–10 callbacks'),
    token_endpoint_auth_method: z.literal('none', { message: 'token_endpoint_auth_method must be "none": dynamic clients are public' }).default('none'),
    grant_types: z
      .array(z.enum(['authorization_code', 'refresh_token'], { message: 'grant_types may contain only authorization_code and refresh_token' }))
      .min(1)
      .default(['authorization_code'])
      .refine((g) => g.includes('authorization_code'), 'grant_types must include authorization_code'),
    response_types: z.array(z.literal('code', { message: 'response_types may contain only "code"' })).optional(),
    application_type: z.enum(['native', 'web'], { message: 'application_type must be "native" or "web"' }).optional(),
    client_name: z.string().trim().min(1).max(120, 'client_name must be 1–120 characters').superRefine(plainTextRule('client_name')).optional(),
    scope: z.string().max(1000).optional(),
    post_logout_redirect_uris: z.array(z.string().max(2048)).max(1, 'post_logout_redirect_uris: at most one').optional(),
  })
  .loose()
  .meta({ id: 'ClientRegistration' });

export const RegisterResponse = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    grant_types: z.array(z.string()),
    response_types: z.array(z.literal('code')),
    application_type: z.enum(['native', 'web']),
    scope: z.string(),
  })
  .meta({ id: 'ClientRegistrationResponse' });

export const TokenForm = z
  .object({
    grant_type: z.enum(['authorization_code', 'client_credentials', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']),
    device_code: z.string().optional().meta({ description: 'RFC 8628 §3.4: the device code (grant `urn:ietf:params:oauth:grant-type:device_code`).' }),
    code: z.string().optional(),
    redirect_uri: z.string().optional(),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    code_verifier: z.string().optional(),
    refresh_token: z.string().optional().meta({ description: 'RFC 6749 §6: the refresh token (grant `refresh_token`).' }),
    scope: z.string().optional(),
    resource: z.string().optional(),
  })
  .meta({ id: 'TokenRequest' });

/** RFC 8628 §3.1 device authorization request. */
export const DeviceAuthorizationForm = z
  .object({
    client_id: z.string().meta({ description: 'A first-party client (`hearth-cli`); others get `unauthorized_client`.' }),
    client_secret: z.string().optional(),
    scope: z.string().optional().meta({ description: 'Space-separated scopes (1–16), each allowed for the client. Omitted: every scope of the client.' }),
    login_hint: z.string().optional().meta({
      description:
        "A login name or email (1–254 characters): the sign-in is approved in that account's paired authenticator app. Omitted: the user enters `user_code` at `verification_uri`.",
    }),
  })
  .meta({ id: 'DeviceAuthorizationRequest' });

/** RFC 8628 §3.2 device authorization response. */
export const DeviceAuthorizationResponse = z
  .object({
    device_code: z.string().meta({ description: 'Secret for the token request (`hdc_…`, single-use; stored hashed).' }),
    user_code: z.string().meta({
      description:
        'With `login_hint`: the six-digit comparison code the authenticator app shows. Without: an eight-letter code (`BCDF-GHJK`) to enter at `verification_uri`.',
    }),
    verification_uri: z.string(),
    verification_uri_complete: z.string().optional().meta({ description: 'Without `login_hint` only: `verification_uri` with the user code filled in.' }),
    expires_in: z.number().int().meta({ description: "Seconds: 300 with `login_hint` (the approval request's five minutes), 600 without." }),
    interval: z.number().int().meta({ description: 'Seconds between token requests (5); each `slow_down` adds 5.' }),
  })
  .meta({ id: 'DeviceAuthorizationResponse' });

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    scope: z.string(),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
  })
  .meta({ id: 'TokenResponse' });

export const OAuthError = z
  .object({ error: z.string(), error_description: z.string(), message: z.string().meta({ description: 'The same text as `error_description`.' }) })
  .meta({ id: 'OAuthError' });

// The shapes as the API sends and takes them: the admin UI imports these as types (ui/src/lib/api/identity.ts).
export type OAuthClient = z.output<typeof OAuthClient>;
export type ClientList = z.output<typeof ClientList>;
export type ClientWithSecret = z.output<typeof ClientWithSecret>;
export type CreateClientBody = z.input<typeof CreateClientBody>;
export type UpdateClientBody = z.input<typeof UpdateClientBody>;
