/**
 * Signing keys: the service the rest of Hearth uses. `server/identity/keys` is the only code in Hearth that touches a
 * private key; other code gets typed token shapes signed, verifies tokens, and reads the public key sets.
 *
 * - Keys are RSA 2048 (RS256) JWKs, one set per purpose (session, invocation, oauth). Private JWKs are sealed under
 *   the KEK (keys.crypto.ts) and opened only in keys.material.ts, into non-extractable WebCrypto keys.
 * - Lifecycle (keys.lifecycle.ts plans it, keys.rotation.ts applies it) runs at start and every minute, in core-store
 *   transactions that keep other replicas' key writers out, with a fresh plan; the periodic tick also takes a lease so
 *   only one replica does the work each minute. Revocation and the KEK rewrap are in keys.rotation.ts too; in this process all three run one at a
 *   time (`exclusive`).
 * - Signers (keys.signing.ts): cached at most one minute, the key's state read before every signature, failing closed
 *   (`signing_unavailable`) with no fallback signer.
 * - Public keys (keys.jwks.ts): the JWKS documents, the in-process verifiers' key resolvers, the verifier transport.
 *
 * This file holds the service's state (KEKs, readiness, started/closed), start-up validation, the maintenance tick,
 * the administrators' key list, and the closed signing authorities (typed token shapes only; the OAuth broker).
 */

import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import type { IdentitySecretsConfig } from '../../core/config/config.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { SecretStore } from '../../core/secrets/secrets.ts';
import { type KekSet, resolveKeks } from './keys.crypto.ts';
import { createJwks, type JwksOrigins } from './keys.jwks.ts';
import { isPublished, MAINTENANCE_INTERVAL_MS, PURPOSES } from './keys.lifecycle.ts';
import { createKeyMaterial, type EarlyKeyPairs, KeyIntegrityError } from './keys.material.ts';
import { type Actor, createRotation } from './keys.rotation.ts';
import { createSigning, oneLine } from './keys.signing.ts';
import type { KeyRow, KeyStore } from './keys.store.ts';
import type { VerifiedAccessToken } from './keys.tokens.ts';
import {
  type AccessTokenInput,
  accessTokenDraft,
  IdTokenInput,
  InvocationTokenInput,
  idTokenDraft,
  invocationDraft,
  parseAccessTokenInput,
  SessionTokenInput,
  sessionDraft,
  verifyAccessToken,
  verifyInvocation,
  verifySession,
} from './keys.tokens.ts';

export type { JwksOrigins } from './keys.jwks.ts';

const LEASE = 'identity-keys-maintenance';

export interface KeysServiceDeps {
  store: KeyStore;
  secrets: SecretStore;
  audit: AuditLog;
  logger: Logger;
  /** The KEKs and the broker secret (server/core/config). */
  secretsConfig: IdentitySecretsConfig;
  issuer: () => string;
  /** The clock (epoch ms). Injectable so tests can cross the ten-minute and thirty-day boundaries. */
  now?: () => number;
  /** Verifier transport origins (HEARTH_IDENTITY_JWKS_ORIGIN, HEARTH_OAUTH_JWKS_ORIGIN); unset: the issuer. */
  jwksOrigins?: JwksOrigins;
  /** RSA pairs generated ahead of need (a first start, `startKeyPairs`): new keys use them first. */
  earlyKeyPairs?: EarlyKeyPairs;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function createKeysService(deps: KeysServiceDeps) {
  const { store, logger: log } = deps;
  const now = deps.now ?? (() => Date.now());
  const holder = crypto.randomUUID();
  let keks: KekSet | null = null;
  let problem: string | null = 'signing keys are not loaded yet';
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let unlisten: (() => void) | null = null;

  // ---- one thing at a time in this process (other replicas: the key store's transactions and lock) ----
  let chain: Promise<unknown> = Promise.resolve();
  function exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  }

  function requireKeks(): KekSet {
    if (!keks) throw new HearthError('signing_unavailable', 'signing keys are not loaded');
    return keks;
  }

  const material = createKeyMaterial(requireKeks, deps.earlyKeyPairs);
  const signing = createSigning({
    store,
    log,
    now,
    issuer: deps.issuer,
    unseal: material.unseal,
    open: () => started && !closed,
    failed: (message) => {
      problem = message;
    },
  });
  const publication = createJwks({ store, now, issuer: deps.issuer, publicKeyOf: material.publicKeyOf, jwksOrigins: deps.jwksOrigins });
  const { resolvers } = publication;
  const rotation = createRotation({
    store,
    log,
    audit: deps.audit,
    now,
    material,
    requireKeks,
    changed: (purposes) => {
      publication.changed();
      signing.forget(purposes);
    },
  });
  const { signerFor, sign } = signing;

  /** One maintenance tick: the lifecycle (when this process holds the lease), then every signer (re)validated. */
  async function tick(): Promise<void> {
    if (!started || closed) return;
    try {
      await exclusive(async () => {
        const mine = await store.takeLease(LEASE, holder, now(), 2 * MAINTENANCE_INTERVAL_MS);
        if (mine) await rotation.maintainNow();
      });
      for (const p of PURPOSES) await signerFor(p);
      // Pending keys are validated too, so a damaged one fails readiness before it is due to sign.
      for (const row of await store.listSealed()) if (row.state === 'pending') await material.unseal(row);
      problem = null;
    } catch (err) {
      problem = oneLine(
        err instanceof HearthError && err.code === 'signing_unavailable' ? err.message.replace(/^token signing is unavailable: /, '') : (err as Error).message,
      );
      log.error({ problem }, 'signing-key maintenance failed');
    }
  }

  // ---- presentation ----
  function present(row: KeyRow, t: number) {
    return {
      kid: row.kid,
      purpose: row.purpose,
      state: row.state,
      algorithm: row.algorithm,
      thumbprint: row.thumbprint,
      published: isPublished({ state: row.state, withdrawsAt: row.withdraws_at }, t),
      encryptionKeyId: row.encryption_key_id,
      createdAt: iso(row.created_at)!,
      activatesAt: iso(row.activates_at)!,
      activatedAt: iso(row.activated_at),
      retiresAt: iso(row.retires_at),
      retiredAt: iso(row.retired_at),
      retirement: row.retirement as 'rotated' | 'downtime' | 'revoked' | null,
      withdrawsAt: iso(row.withdraws_at),
      withdrawnAt: iso(row.withdrawn_at),
      revokedAt: iso(row.revoked_at),
      revokedBy: row.revoked_by,
      revocationReason: row.revocation_reason,
      rewrappedAt: iso(row.rewrapped_at),
    };
  }

  function kekInfo() {
    const k = requireKeks();
    return { fingerprint: k.current.id, source: k.source, next: k.next?.id ?? null, previous: k.previous?.id ?? null };
  }

  /** Signs what the OAuth module may ask for; `ready()` loads a validated active OAuth signer or fails closed. */
  const oauthAuthority = {
    ready: async (): Promise<void> => {
      await signerFor('oauth');
    },
    signAccessToken: async (input: AccessTokenInput) => {
      const v = parseAccessTokenInput(input);
      return sign('oauth', (iss, t) => accessTokenDraft(v, iss, t));
    },
    signIdToken: async (input: IdTokenInput) => {
      const v = IdTokenInput.parse(input);
      return sign('oauth', (iss, t) => idTokenDraft(v, iss, t));
    },
    verifyAccessToken: (token: string, opts: { audience: string | string[] }) =>
      verifyAccessToken(token, opts.audience, { key: resolvers.oauth, issuer: deps.issuer(), now: now() }),
  };

  return {
    /** The fingerprint of the current KEK once started (recorded in backups: a restore says which KEK it needs). */
    kekFingerprint: (): string | null => keks?.current.id ?? null,
    /** Validates every stored key (start-up fails on a wrong KEK, corrupt ciphertext or a mismatched pair), then maintains. */
    async start(): Promise<void> {
      try {
        keks = resolveKeks(deps.secretsConfig, deps.secrets);
      } catch (err) {
        throw new Error(`identity signing keys: ${oneLine((err as Error).message)}`);
      }
      // Every stored key is opened and proved at once (the probe signatures run side by side on libuv's pool).
      const rows = await store.listSealed();
      const opened = await Promise.allSettled(rows.map((row) => material.unseal(row)));
      const failures: string[] = [];
      const validated = new Map<string, CryptoKey>();
      for (const [i, r] of opened.entries()) {
        if (r.status === 'fulfilled') validated.set(rows[i]!.kid, r.value.key);
        else if (r.reason instanceof KeyIntegrityError) failures.push(r.reason.message);
        else throw r.reason;
      }
      if (failures.length) {
        problem = failures[0]!;
        throw new Error(`identity signing keys are not usable: ${failures[0]}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ''}`);
      }
      // Keys changed by another replica (revoked, rotated): drop the cached signers and verifier sets at once. The
      // state read before every signature and the one-minute caches stay the fallback when a notification is lost.
      unlisten = await store.onChanged((purposes) => {
        publication.changed();
        signing.forget(purposes);
      });
      started = true;
      await exclusive(async () => {
        await rotation.rewrapNow('previous', null);
        await rotation.maintainNow();
      });
      // The active key of each purpose was just proved, unless maintenance replaced it: it signs without a second opening.
      for (const p of PURPOSES) {
        const row = await store.findActive(p);
        const key = row ? validated.get(row.kid) : undefined;
        if (row && key) signing.adopt(p, row.kid, key);
        else await signerFor(p, true);
      }
      problem = null;
      log.info({ kek: kekInfo() }, 'signing keys ready');
      timer = setInterval(() => void tick(), MAINTENANCE_INTERVAL_MS);
      timer.unref();
    },

    /** null when every purpose has a validated active signer; otherwise why not. */
    readiness: (): string | null => problem,

    /** Runs one maintenance tick now (the timer does this every minute). */
    maintain: tick,

    async close(): Promise<void> {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      unlisten?.();
      unlisten = null;
      await chain;
      try {
        await store.releaseLease(LEASE, holder);
      } catch {
        // the database may already be closing; the lease expires by itself
      }
      signing.clear();
      publication.clear();
    },

    /** The JWKS document of one purpose: pending, active and not yet withdrawn retired public keys. */
    jwks: publication.document,

    async list() {
      const t = now();
      const rows = await store.listAll();
      return {
        kekFingerprint: requireKeks().current.id,
        kek: kekInfo(),
        verifierJwks: publication.verifierJwks(),
        keys: rows.map((r) => present(r, t)),
      };
    },

    verifierJwks: publication.verifierJwks,
    /** Verifiers for applications in other processes, over the configured transport (one set per issuer). */
    remoteVerifiers: publication.remoteVerifiers,

    /** Re-encrypts every private key not yet under the current KEK (idempotent). */
    rewrap(actor: Actor) {
      return exclusive(async () => {
        try {
          return await rotation.rewrapNow('all', actor);
        } catch (err) {
          if (err instanceof KeyIntegrityError) throw new HearthError('service_unavailable', `cannot rewrap: ${err.message}`);
          throw err;
        }
      });
    },

    /** Emergency revocation: out of the JWKS at once; an active key is replaced by an immediately active one. */
    revoke(kid: string, reason: string, actor: Actor) {
      return exclusive(async () => {
        const replacementKid = await rotation.revokeNow(kid, reason, actor);
        return { revoked: present((await store.get(kid))!, now()), replacementKid };
      });
    },

    // ---- the closed signing authority: typed token shapes only ----
    signSessionToken: async (input: SessionTokenInput) => {
      const v = SessionTokenInput.parse(input);
      return sign('session', (iss, t) => sessionDraft(v, iss, t));
    },
    signInvocationToken: async (input: InvocationTokenInput) => {
      const v = InvocationTokenInput.parse(input);
      return sign('invocation', (iss, t) => invocationDraft(v, iss, t));
    },
    /**
     * The closed OAuth broker: the OAuth module presents the deployment secret it
     * shares with Core (`HEARTH_OAUTH_BROKER_SECRET`, generated into the secret store when unset) and gets the typed
     * authority — two token shapes, no arbitrary claims, no fallback signer. A wrong secret fails start-up.
     */
    oauthBroker(secret: string): OAuthAuthority {
      const expected = Buffer.from(resolveBrokerSecret(deps.secretsConfig, deps.secrets));
      const given = Buffer.from(secret);
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        throw new Error(`identity OAuth broker: the broker secret does not match Core's (${BROKER_SECRET_ENV})`);
      }
      return oauthAuthority;
    },
    verifySessionToken: (token: string) => verifySession(token, { key: resolvers.session, issuer: deps.issuer(), now: now() }),
    verifyInvocationToken: (token: string, opts: { audience: string }) =>
      verifyInvocation(token, opts.audience, { key: resolvers.invocation, issuer: deps.issuer(), now: now() }),
  };
}

export type KeysService = ReturnType<typeof createKeysService>;

export const BROKER_SECRET_ENV = 'HEARTH_OAUTH_BROKER_SECRET';

/** The OAuth broker's deployment secret: `HEARTH_OAUTH_BROKER_SECRET` (validated in server/core/config) or a generated one in the secret store. */
export function resolveBrokerSecret(settings: Pick<IdentitySecretsConfig, 'oauthBrokerSecret'>, secrets: SecretStore): string {
  return settings.oauthBrokerSecret?.trim() || secrets.getOrCreate('oauth-broker-secret', 32);
}

export interface OAuthAuthority {
  ready(): Promise<void>;
  signAccessToken(input: AccessTokenInput): Promise<string>;
  signIdToken(input: IdTokenInput): Promise<string>;
  verifyAccessToken(token: string, opts: { audience: string | string[] }): Promise<VerifiedAccessToken>;
}
