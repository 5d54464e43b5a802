import crypto from 'node:crypto';
import { HearthError } from '../http/errors.ts';
import type { TokenRow, TokenStore } from './tokens.store.ts';

/** A platform session behind a principal (set by the identity domain's session cookie; absent for API tokens). */
export interface SessionInfo {
  sub: string;
  login: string;
  familyId: string;
  /** Epoch ms of the interactive sign-in ("recent authentication" is measured from it). */
  issuedAt: number;
}

/** An OAuth access token behind a principal (identity domain). */
export interface OAuthInfo {
  clientId: string;
  scope: string[];
  audience: string[];
  /** The audit and `_meta.actor` name: `account:<login>` or `service:<appId>:<resourceType>:<resourceId>`. */
  actor: string;
  /** The user UUID or service-account ID (the request context's `accessSubject`). */
  sub: string;
  actorKind: 'user' | 'service_account';
  /** The binding of the service account a client-credentials token acts as (absent for a user's token). */
  service?: { appId: string; resourceType: string; resourceId: string };
}

/**
 * Who is calling. `admin` may do everything; a namespace token reaches only the data plane of its namespaces.
 * A signed-in account is `admin` when it has the administrator role, otherwise `namespaces` with none; `session` is set.
 */
export type Principal =
  | { kind: 'admin'; tokenId: string; name: string; session?: SessionInfo; oauth?: OAuthInfo }
  | {
      kind: 'namespaces';
      tokenId: string;
      name: string;
      namespaces: string[];
      anyNamespace?: boolean;
      readOnly: boolean;
      session?: SessionInfo;
      oauth?: OAuthInfo;
    };

export interface TokenInfo {
  id: string;
  name: string;
  prefix: string;
  scope: 'admin' | 'namespaces';
  namespaces: string[] | null;
  read_only: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CreateTokenInput {
  name: string;
  scope: 'admin' | 'namespaces';
  namespaces?: string[];
  readOnly?: boolean;
  expiresAt?: string | null;
}

const TOKEN_PREFIX = 'hth_';
const TOUCH_INTERVAL_MS = 60_000;

export const hashToken = (token: string) => crypto.hash('sha256', token, 'hex');

export function presentToken(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    namespaces: row.namespaces ? (JSON.parse(row.namespaces) as string[]) : null,
    read_only: row.read_only === 1,
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

export function createTokenService(store: TokenStore, opts: { adminToken?: string; now?: () => Date }) {
  const now = opts.now ?? (() => new Date());
  const adminToken = opts.adminToken ? Buffer.from(opts.adminToken) : null;

  const lastTouched = new Map<string, number>();

  return {
    /** Creates a token; the secret is returned exactly once and only its SHA-256 is stored. */
    async create(input: CreateTokenInput): Promise<{ token: string; info: TokenInfo }> {
      const secret = TOKEN_PREFIX + crypto.randomBytes(32).toString('base64url');
      const row = {
        id: crypto.randomUUID(),
        name: input.name,
        token_hash: hashToken(secret),
        prefix: secret.slice(0, TOKEN_PREFIX.length + 6),
        scope: input.scope,
        namespaces: input.scope === 'namespaces' ? JSON.stringify([...new Set(input.namespaces ?? [])].sort()) : null,
        read_only: input.scope === 'namespaces' && input.readOnly ? 1 : 0,
        created_at: now().toISOString(),
        expires_at: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
      };
      await store.insert(row);
      return { token: secret, info: presentToken({ ...row, last_used_at: null, revoked_at: null }) };
    },

    async list(): Promise<TokenInfo[]> {
      return (await store.list()).map(presentToken);
    },

    async get(id: string): Promise<TokenInfo> {
      const row = await store.findById(id);
      if (!row) throw new HearthError('token_not_found', `no API token with id ${id}`);
      return presentToken(row);
    },

    async revoke(id: string): Promise<TokenInfo> {
      const row = await store.findById(id);
      if (!row) throw new HearthError('token_not_found', `no API token with id ${id}`);
      await store.revoke(id, now().toISOString());
      return presentToken((await store.findById(id))!);
    },

    async hasActiveAdminToken(): Promise<boolean> {
      return (await store.countActiveAdmin(now().toISOString())) > 0;
    },

    /** Resolves a bearer token to a principal, or null when it is unknown, revoked or expired. */
    async authenticate(token: string): Promise<Principal | null> {
      if (adminToken) {
        // Constant time for equal lengths; the length of the token is not a secret.
        const given = Buffer.from(token);
        if (given.length === adminToken.length && crypto.timingSafeEqual(given, adminToken))
          return { kind: 'admin', tokenId: 'env', name: 'HEARTH_ADMIN_TOKEN' };
      }
      if (!token.startsWith(TOKEN_PREFIX)) return null;
      // Looked up on every request (no cache): a revocation, also from `hearth tokens revoke`, takes effect at once.
      const row = await store.findByHash(hashToken(token));
      if (!row || row.revoked_at) return null;
      const at = now();
      if (row.expires_at && Date.parse(row.expires_at) <= at.getTime()) return null;
      const last = lastTouched.get(row.id) ?? 0;
      if (at.getTime() - last >= TOUCH_INTERVAL_MS) {
        lastTouched.set(row.id, at.getTime());
        await store.touch(row.id, at.toISOString());
      }
      if (row.scope === 'admin') return { kind: 'admin', tokenId: row.id, name: row.name };
      return {
        kind: 'namespaces',
        tokenId: row.id,
        name: row.name,
        namespaces: JSON.parse(row.namespaces ?? '[]') as string[],
        readOnly: row.read_only === 1,
      };
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;

/** The audit actor: `token:<name>` (`token:env`) for API tokens, `account:<login>` for a signed-in account or a user's OAuth token, `service:…` for a client-credentials token. */
export const actorOf = (p: Principal) =>
  p.oauth ? p.oauth.actor : p.session ? `account:${p.session.login}` : p.tokenId === 'env' ? 'token:env' : `token:${p.name}`;
