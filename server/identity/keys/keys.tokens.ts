/**
 * The closed set of token shapes Hearth signs, and the validators that accept them. Nothing here holds a private
 * key: the service signs what these builders produce, and each validator trusts only its own purpose's key set.
 *
 * | purpose    | token        | header `typ`            | audience                           | lifetime            | tolerance |
 * |------------|--------------|-------------------------|------------------------------------|---------------------|-----------|
 * | session    | session      | `hearth-session+jwt`    | `urn:hearth:session`               | ≤ 12 h (default)    | 30 s      |
 * | invocation | invocation   | `hearth-invocation+jwt` | the receiving application          | exactly 30 s        | 2 s       |
 * | oauth      | access token | `at+jwt` (RFC 9068)     | the granted resource audiences     | 1 h                 | 60 s      |
 * | oauth      | ID token     | `JWT`                   | the client ID (`azp` the same)     | 1 h                 | 60 s      |
 *
 * Purposes are mutually exclusive twice over: each purpose has its own keys and JWKS, and each validator demands its
 * own `typ` and audience rule.
 *
 * One file because the table above is one contract: the claims a shape's builder writes are the claims its validator
 * demands, and a change to one is checked against the other here; the remote verifiers at the end are the same
 * validators fed from the published key sets.
 */
import crypto from 'node:crypto';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import { JWKS_MAX_AGE_S, type Purpose, TOKEN_POLICY } from './keys.lifecycle.ts';

export const TOKEN_TYPES = {
  session: 'hearth-session+jwt',
  invocation: 'hearth-invocation+jwt',
  accessToken: 'at+jwt',
  idToken: 'JWT',
} as const;

export const SESSION_AUDIENCE = 'urn:hearth:session';
export const ALGORITHM = 'RS256';

export const JWKS_PATHS: Record<Purpose, string> = {
  session: '/.well-known/hearth-session-jwks.json',
  invocation: '/.well-known/hearth-invocation-jwks.json',
  oauth: '/.well-known/jwks.json',
};

const SESSION_MAX_S = TOKEN_POLICY.session.maxLifetimeMs / 1000;
const INVOCATION_S = TOKEN_POLICY.invocation.maxLifetimeMs / 1000;
const OAUTH_S = TOKEN_POLICY.oauth.maxLifetimeMs / 1000;

const id = (max = 200) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');
const scopeToken = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'an RFC 6749 scope token');
const epochSeconds = z.number().int().min(0).max(253402300799);
const actorKind = z.enum(['user', 'service_account']);

export const SessionTokenInput = z
  .object({
    /** The account's immutable UUID. */
    sub: id(),
    /** The server-side session family. */
    sid: id(),
    /** The login name, for display. */
    uid: z.string().min(1).max(64).optional(),
    /** When the person signed in (epoch seconds). */
    authTime: epochSeconds.optional(),
    /** Lifetime in seconds; default and maximum 12 hours. */
    expiresIn: z.number().int().min(1).max(SESSION_MAX_S).optional(),
  })
  .strict();
export type SessionTokenInput = z.infer<typeof SessionTokenInput>;

export const InvocationTokenInput = z
  .object({
    /** The actor: a user UUID or a service-account ID. */
    sub: id(),
    actorKind,
    /** The application the invocation is for (the token's only audience). */
    aud: id(),
    /** The access subject the application authorizes against, when it differs from the actor. */
    accessSubject: id().optional(),
    scope: z.array(scopeToken).max(50).optional(),
  })
  .strict();
export type InvocationTokenInput = z.infer<typeof InvocationTokenInput>;

export const AccessTokenInput = z
  .object({
    /** A user UUID (authorization code) or the bound service account (client credentials). */
    sub: id(),
    actorKind,
    clientId: id(),
    /** The granted audiences (resource indicators); at most 50. */
    audience: z.array(id(2048)).min(1).max(50),
    scope: z.array(scopeToken).max(50),
    uid: z.string().min(1).max(64).optional(),
    authTime: epochSeconds.optional(),
  })
  .strict();
export type AccessTokenInput = z.infer<typeof AccessTokenInput>;

const PRINTABLE = /^[\x21-\x7e]+$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const ACCESS_KEYS = new Set(['sub', 'actorKind', 'clientId', 'audience', 'scope', 'uid', 'authTime']);
const isId = (v: unknown, max: number) => typeof v === 'string' && v.length >= 1 && v.length <= max && PRINTABLE.test(v);

/**
 * `AccessTokenInput.parse` on the token endpoint's hot path: a direct check of exactly the schema's rules; anything
 * it does not accept goes through zod, which then answers with its usual error. Same accepted set, less work.
 */
export function parseAccessTokenInput(input: AccessTokenInput): AccessTokenInput {
  const v = input as unknown as Record<string, unknown>;
  const ok =
    v !== null &&
    typeof v === 'object' &&
    Object.keys(v).every((k) => ACCESS_KEYS.has(k) && v[k] !== undefined) &&
    isId(v.sub, 200) &&
    (v.actorKind === 'user' || v.actorKind === 'service_account') &&
    isId(v.clientId, 200) &&
    Array.isArray(v.audience) &&
    v.audience.length >= 1 &&
    v.audience.length <= 50 &&
    v.audience.every((a) => isId(a, 2048)) &&
    Array.isArray(v.scope) &&
    v.scope.length <= 50 &&
    v.scope.every((t) => typeof t === 'string' && t.length >= 1 && t.length <= 100 && SCOPE_TOKEN.test(t)) &&
    (v.uid === undefined || (typeof v.uid === 'string' && v.uid.length >= 1 && v.uid.length <= 64)) &&
    (v.authTime === undefined || (typeof v.authTime === 'number' && Number.isInteger(v.authTime) && v.authTime >= 0 && v.authTime <= 253402300799));
  return ok ? { ...input } : AccessTokenInput.parse(input);
}

export const IdTokenInput = z
  .object({
    sub: id(),
    clientId: id(),
    nonce: z.string().min(1).max(512).optional(),
    authTime: epochSeconds.optional(),
    sid: id().optional(),
    uid: z.string().min(1).max(64).optional(),
    name: z.string().max(200).optional(),
    preferredUsername: z.string().max(64).optional(),
    email: z.string().max(320).optional(),
    emailVerified: z.boolean().optional(),
    groups: z.array(z.string().min(1).max(200)).max(50).optional(),
    /** The access token issued alongside, for `at_hash`. */
    accessToken: z.string().min(1).max(8192).optional(),
  })
  .strict();
export type IdTokenInput = z.infer<typeof IdTokenInput>;

const jti = () => crypto.randomBytes(16).toString('base64url');
const drop = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JWTPayload;

/** A token to sign: its header type and complete claim set (the issuer included). */
export interface TokenDraft {
  typ: string;
  claims: JWTPayload;
}

export function sessionDraft(input: SessionTokenInput, iss: string, nowS: number): TokenDraft {
  return {
    typ: TOKEN_TYPES.session,
    claims: drop({
      iss,
      aud: SESSION_AUDIENCE,
      sub: input.sub,
      sid: input.sid,
      uid: input.uid,
      auth_time: input.authTime,
      iat: nowS,
      exp: nowS + (input.expiresIn ?? SESSION_MAX_S),
      jti: jti(),
    }),
  };
}

export function invocationDraft(input: InvocationTokenInput, iss: string, nowS: number): TokenDraft {
  return {
    typ: TOKEN_TYPES.invocation,
    claims: drop({
      iss,
      aud: input.aud,
      sub: input.sub,
      hearth_actor: input.actorKind,
      access_subject: input.accessSubject,
      scope: input.scope?.length ? input.scope.join(' ') : undefined,
      iat: nowS,
      exp: nowS + INVOCATION_S,
      jti: jti(),
    }),
  };
}

export function accessTokenDraft(input: AccessTokenInput, iss: string, nowS: number): TokenDraft {
  return {
    typ: TOKEN_TYPES.accessToken,
    claims: drop({
      iss,
      sub: input.sub,
      aud: input.audience.length === 1 ? input.audience[0] : input.audience,
      client_id: input.clientId,
      scope: input.scope.join(' '),
      hearth_actor: input.actorKind,
      uid: input.uid,
      auth_time: input.authTime,
      iat: nowS,
      exp: nowS + OAUTH_S,
      jti: jti(),
    }),
  };
}

export function idTokenDraft(input: IdTokenInput, iss: string, nowS: number): TokenDraft {
  let atHash: string | undefined;
  if (input.accessToken) {
    // OIDC Core 3.1.3.6: left half of SHA-256 (the hash of RS256) of the access token, base64url.
    atHash = crypto.createHash('sha256').update(input.accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
  }
  return {
    typ: TOKEN_TYPES.idToken,
    claims: drop({
      iss,
      sub: input.sub,
      aud: input.clientId,
      azp: input.clientId,
      iat: nowS,
      exp: nowS + OAUTH_S,
      auth_time: input.authTime,
      nonce: input.nonce,
      sid: input.sid,
      uid: input.uid,
      name: input.name,
      preferred_username: input.preferredUsername,
      email: input.email,
      email_verified: input.emailVerified,
      groups: input.groups,
      at_hash: atHash,
    }),
  };
}

/** A token that does not verify. `reason` is jose's stable code (e.g. `ERR_JWT_EXPIRED`) or ours. */
export class InvalidTokenError extends Error {
  readonly code = 'invalid_token';
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.name = 'InvalidTokenError';
    this.reason = reason;
  }
}

export interface VerifiedSession {
  sub: string;
  sid: string;
  uid: string | null;
  authTime: number | null;
  issuedAt: number;
  expiresAt: number;
  jti: string;
}

export interface VerifiedInvocation {
  sub: string;
  actorKind: 'user' | 'service_account';
  accessSubject: string;
  audience: string;
  scope: string[];
  issuedAt: number;
  expiresAt: number;
  jti: string;
}

export interface VerifiedAccessToken {
  sub: string;
  actorKind: 'user' | 'service_account';
  clientId: string;
  audience: string[];
  scope: string[];
  uid: string | null;
  authTime: number | null;
  issuedAt: number;
  expiresAt: number;
  jti: string;
}

export interface VerifyContext {
  key: JWTVerifyGetKey;
  issuer: string;
  /** The verifier's clock (epoch ms); default the system clock. */
  now?: number;
}

async function verify(
  token: string,
  what: string,
  ctx: VerifyContext,
  opts: { typ: string; audience: string | string[]; toleranceS: number; maxLifetimeS: number; required: string[] },
) {
  if (!ctx.issuer) throw new InvalidTokenError(`invalid ${what}: the issuer is not known yet`, 'no_issuer');
  try {
    const { payload } = await jwtVerify(token, ctx.key, {
      algorithms: [ALGORITHM],
      typ: opts.typ,
      issuer: ctx.issuer,
      audience: opts.audience,
      clockTolerance: opts.toleranceS,
      maxTokenAge: opts.maxLifetimeS,
      requiredClaims: ['iat', 'exp', 'jti', 'sub', ...opts.required],
      currentDate: ctx.now === undefined ? undefined : new Date(ctx.now),
    });
    if ((payload.exp as number) - (payload.iat as number) > opts.maxLifetimeS) {
      throw new InvalidTokenError(`invalid ${what}: lifetime exceeds ${opts.maxLifetimeS} seconds`, 'lifetime_too_long');
    }
    return payload;
  } catch (err) {
    if (err instanceof InvalidTokenError) throw err;
    if (err instanceof joseErrors.JOSEError) throw new InvalidTokenError(`invalid ${what}: ${err.message}`, err.code);
    throw err;
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : null);
const num = (v: unknown) => (typeof v === 'number' ? v : null);
const scopes = (v: unknown) => (typeof v === 'string' && v ? v.split(' ') : []);

export async function verifySession(token: string, ctx: VerifyContext): Promise<VerifiedSession> {
  const p = await verify(token, 'session token', ctx, {
    typ: TOKEN_TYPES.session,
    audience: SESSION_AUDIENCE,
    toleranceS: TOKEN_POLICY.session.toleranceMs / 1000,
    maxLifetimeS: SESSION_MAX_S,
    required: ['sid'],
  });
  return { sub: p.sub!, sid: String(p.sid), uid: str(p.uid), authTime: num(p.auth_time), issuedAt: p.iat!, expiresAt: p.exp!, jti: p.jti! };
}

/** `audience`: the application verifying (a token for another application is rejected). */
export async function verifyInvocation(token: string, audience: string, ctx: VerifyContext): Promise<VerifiedInvocation> {
  const p = await verify(token, 'invocation token', ctx, {
    typ: TOKEN_TYPES.invocation,
    audience,
    toleranceS: TOKEN_POLICY.invocation.toleranceMs / 1000,
    maxLifetimeS: INVOCATION_S,
    required: ['hearth_actor'],
  });
  const kind = p.hearth_actor;
  if (kind !== 'user' && kind !== 'service_account') throw new InvalidTokenError('invalid invocation token: unknown actor kind', 'invalid_actor');
  return {
    sub: p.sub!,
    actorKind: kind,
    accessSubject: str(p.access_subject) ?? p.sub!,
    audience,
    scope: scopes(p.scope),
    issuedAt: p.iat!,
    expiresAt: p.exp!,
    jti: p.jti!,
  };
}

/** For the OAuth module and resource servers inside Hearth: a JWT access token for `audience` (any of them, when several). */
export async function verifyAccessToken(token: string, audience: string | string[], ctx: VerifyContext): Promise<VerifiedAccessToken> {
  const p = await verify(token, 'access token', ctx, {
    typ: TOKEN_TYPES.accessToken,
    audience,
    toleranceS: TOKEN_POLICY.oauth.toleranceMs / 1000,
    maxLifetimeS: OAUTH_S,
    required: ['client_id', 'hearth_actor'],
  });
  const kind = p.hearth_actor;
  if (kind !== 'user' && kind !== 'service_account') throw new InvalidTokenError('invalid access token: unknown actor kind', 'invalid_actor');
  return {
    sub: p.sub!,
    actorKind: kind,
    clientId: String(p.client_id),
    audience: Array.isArray(p.aud) ? p.aud : [p.aud!],
    scope: scopes(p.scope),
    uid: str(p.uid),
    authTime: num(p.auth_time),
    issuedAt: p.iat!,
    expiresAt: p.exp!,
    jti: p.jti!,
  };
}

/** The transport origins of the key sets: where verifiers fetch them; each defaults to the issuer, which stays the `iss`. */
export interface RemoteVerifierOptions {
  /** The public origin tokens are issued for: the `iss` every verifier demands, whatever the transport. */
  issuer: string;
  /** The private Core origin for the session and invocation key sets (`HEARTH_IDENTITY_JWKS_ORIGIN`). */
  identityJwksOrigin?: string;
  /** The private OAuth origin for the OAuth key set (`HEARTH_OAUTH_JWKS_ORIGIN`). */
  oauthJwksOrigin?: string;
}

/** The URL each purpose's key set is fetched from by verifiers (the transport, not what discovery publishes). */
export function verifierJwksUrls(opts: RemoteVerifierOptions): Record<Purpose, string> {
  const core = opts.identityJwksOrigin ?? opts.issuer;
  return {
    session: new URL(JWKS_PATHS.session, core).href,
    invocation: new URL(JWKS_PATHS.invocation, core).href,
    oauth: new URL(JWKS_PATHS.oauth, opts.oauthJwksOrigin ?? opts.issuer).href,
  };
}

/**
 * Verifiers for an application that runs outside this process: they fetch only the matching JWKS (session and
 * invocation keys from the private Core origin, OAuth keys from the private OAuth origin, each else the issuer), cache
 * it at most five minutes, and refetch once (at most every 30 seconds) when a token names an unknown `kid`. The issuer
 * they demand is always the public one.
 */
export function createRemoteVerifiers(opts: RemoteVerifierOptions) {
  const urls = verifierJwksUrls(opts);
  const set = (purpose: Purpose) => createRemoteJWKSet(new URL(urls[purpose]), { cacheMaxAge: JWKS_MAX_AGE_S * 1000, cooldownDuration: 30_000 });
  const session = set('session');
  const invocation = set('invocation');
  const oauth = set('oauth');
  return {
    verifySessionToken: (token: string) => verifySession(token, { key: session, issuer: opts.issuer }),
    verifyInvocationToken: (token: string, o: { audience: string }) => verifyInvocation(token, o.audience, { key: invocation, issuer: opts.issuer }),
    /** An RFC 9068 access token for `audience` (any of them, when several). */
    verifyAccessToken: (token: string, o: { audience: string | string[] }) => verifyAccessToken(token, o.audience, { key: oauth, issuer: opts.issuer }),
  };
}
export type RemoteVerifiers = ReturnType<typeof createRemoteVerifiers>;
