/**
 * Publishing the public keys and verifying with them: each purpose's JWKS document, the in-process key resolvers the
 * token verifiers use, and the verifier transport (where applications in other processes fetch the key sets). Part of
 * the keys service (keys.service.ts composes it). Only public halves are read here.
 *
 * - The JWKS of a purpose lists its pending, active and not yet withdrawn retired keys, with a strong ETag.
 * - In-process verifiers read only their purpose's published keys, cached at most `JWKS_MAX_AGE_S` and dropped at
 *   once when this process changes a key (`changed`); a token with an unknown `kid` triggers one refresh (at most
 *   every five seconds). A retired key stops verifying at its withdrawal time even while cached.
 */
import crypto from 'node:crypto';
import { type JWTVerifyGetKey, errors as joseErrors } from 'jose';
import { JWKS_MAX_AGE_S, type Purpose } from './keys.lifecycle.ts';
import type { KeyMaterial } from './keys.material.ts';
import type { KeyStore } from './keys.store.ts';
import { createRemoteVerifiers, type RemoteVerifierOptions, type RemoteVerifiers, verifierJwksUrls } from './keys.tokens.ts';

/** A verifier refetches its key set for an unknown `kid` at most this often. */
const REFRESH_COOLDOWN_MS = 5000;
const PUBLIC_MEMBERS = ['kty', 'n', 'e', 'kid', 'alg', 'use'] as const;

/** Verifier transport origins (HEARTH_IDENTITY_JWKS_ORIGIN, HEARTH_OAUTH_JWKS_ORIGIN); unset: the issuer. */
export interface JwksOrigins {
  identity?: string;
  oauth?: string;
}

export interface JwksDeps {
  store: KeyStore;
  now: () => number;
  issuer: () => string;
  publicKeyOf: KeyMaterial['publicKeyOf'];
  jwksOrigins?: JwksOrigins;
}

interface VerifierSet {
  version: number;
  loadedAt: number;
  refreshedAt: number;
  keys: Map<string, { key: CryptoKey; withdrawsAt: number | null }>;
}

export function createJwks(deps: JwksDeps) {
  const { store, now } = deps;
  /** Bumped on every change this process makes, so in-process verifiers see it at once. */
  let version = 0;
  const verifierSets = new Map<Purpose, VerifierSet>();

  async function loadVerifierSet(purpose: Purpose): Promise<VerifierSet> {
    const t = now();
    const keys: VerifierSet['keys'] = new Map();
    for (const row of await store.listPublished(purpose, t)) {
      keys.set(row.kid, { key: await deps.publicKeyOf(row), withdrawsAt: row.state === 'retired' ? row.withdraws_at : null });
    }
    const set = { version, loadedAt: t, refreshedAt: performance.now(), keys };
    verifierSets.set(purpose, set);
    return set;
  }

  function keyResolver(purpose: Purpose): JWTVerifyGetKey {
    return async (header) => {
      const t = now();
      let set = verifierSets.get(purpose);
      if (!set || set.version !== version || t < set.loadedAt || t - set.loadedAt >= JWKS_MAX_AGE_S * 1000) set = await loadVerifierSet(purpose);
      const usable = (s: VerifierSet) => {
        const e = header.kid ? s.keys.get(header.kid) : undefined;
        return e && (e.withdrawsAt === null || t < e.withdrawsAt) ? e.key : null;
      };
      let key = usable(set);
      if (!key && performance.now() - set.refreshedAt >= REFRESH_COOLDOWN_MS) key = usable(await loadVerifierSet(purpose));
      if (!key) throw new joseErrors.JWKSNoMatchingKey();
      return key;
    };
  }

  /** Where verifiers fetch the key sets: the configured private origins, else the issuer. */
  const transport = (issuer: string): RemoteVerifierOptions => ({
    issuer,
    identityJwksOrigin: deps.jwksOrigins?.identity,
    oauthJwksOrigin: deps.jwksOrigins?.oauth,
  });
  let remote: { issuer: string; verifiers: RemoteVerifiers } | null = null;

  return {
    /** The key resolver of each purpose, for the in-process verifiers. */
    resolvers: { session: keyResolver('session'), invocation: keyResolver('invocation'), oauth: keyResolver('oauth') },

    /** A key of this process changed: every cached verifier set is stale. */
    changed(): void {
      version++;
    },

    clear(): void {
      verifierSets.clear();
    },

    /** The JWKS document of one purpose: pending, active and not yet withdrawn retired public keys. */
    async document(purpose: Purpose): Promise<{ body: string; etag: string }> {
      const keys = (await store.listPublished(purpose, now())).map((r) => {
        const jwk = JSON.parse(r.public_jwk) as Record<string, unknown>;
        return Object.fromEntries(PUBLIC_MEMBERS.map((m) => [m, jwk[m]]));
      });
      const body = JSON.stringify({ keys });
      return { body, etag: `"${crypto.createHash('sha256').update(body).digest('base64url')}"` };
    },

    /** The URL of each purpose's key set that verifiers use (published to administrators with the key list). */
    verifierJwks: () => verifierJwksUrls(transport(deps.issuer())),

    /** Verifiers for applications in other processes, over the configured transport (one set per issuer). */
    remoteVerifiers(): RemoteVerifiers {
      const issuer = deps.issuer();
      if (remote?.issuer !== issuer) remote = { issuer, verifiers: createRemoteVerifiers(transport(issuer)) };
      return remote.verifiers;
    },
  };
}
