/**
 * Signing keys: the only code in Hearth that touches a private key.
 *
 * - Keys are RSA 2048 (RS256) JWKs, one set per purpose (session, invocation, oauth). Private JWKs are sealed under
 *   the KEK (keys.crypto.ts) and opened only here, into non-extractable WebCrypto keys.
 * - Lifecycle (keys.lifecycle.ts) is applied by maintenance at start and every minute, in BEGIN IMMEDIATE
 *   transactions with a fresh plan, so processes sharing a data folder never create two active keys (the table's
 *   partial unique indexes enforce one active and one pending key per purpose as well). The periodic tick also takes a
 *   lease so only one process does the work each minute.
 * - Signers: a decrypted, validated signer is cached at most one minute. Before every signature the key's state is
 *   read (one indexed row): a key retired or revoked elsewhere causes one reload, and issuance fails closed
 *   (`signing_unavailable`) when no validated active signer can be loaded. There is no fallback signer.
 * - Verifiers read only their purpose's published keys, cached at most five minutes; a token with an unknown `kid`
 *   triggers one refresh (at most every five seconds).
 */
import type { IdentitySecretsConfig } from '../../core/config/config.ts';
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, errors as joseErrors, importJWK, type JWK, type JWTVerifyGetKey } from 'jose';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { SecretStore } from '../../core/secrets/secrets.ts';
import { EnvelopeError, KEK_ENV, NEXT_KEK_ENV, PREVIOUS_KEK_ENV, kekById, open, resolveKeks, seal, type KekSet } from './keys.crypto.ts';
import {
  JWKS_MAX_AGE_S, MAINTENANCE_INTERVAL_MS, PURPOSES, SIGNER_CACHE_MS, SIGNING_LIFETIME_MS, isPublished, planMaintenance, verificationWindowMs,
  type LifecycleAction, type LifecycleKey, type Purpose,
} from './keys.lifecycle.ts';
import type { KeyRow, KeyStore } from './keys.store.ts';
import type { VerifiedAccessToken } from './keys.tokens.ts';
import {
  ALGORITHM, AccessTokenInput, IdTokenInput, InvocationTokenInput, SessionTokenInput, accessTokenDraft, idTokenDraft, invocationDraft, sessionDraft,
  createRemoteVerifiers, parseAccessTokenInput, verifierJwksUrls, verifyAccessToken, verifyInvocation, verifySession,
  type RemoteVerifierOptions, type RemoteVerifiers, type TokenDraft,
} from './keys.tokens.ts';

const generateKeyPair = promisify(crypto.generateKeyPair);

const LEASE = 'identity-keys-maintenance';
/** A verifier refetches its key set for an unknown `kid` at most this often. */
const REFRESH_COOLDOWN_MS = 5000;
const PUBLIC_MEMBERS = ['kty', 'n', 'e', 'kid', 'alg', 'use'] as const;

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
}

export interface JwksOrigins {
  identity?: string;
  oauth?: string;
}

/** A stored key that cannot be used: wrong KEK, corrupt ciphertext, or a private half that does not match its public half. */
export class KeyIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyIntegrityError';
  }
}

export interface Actor {
  actor: string;
  requestId?: string | null;
}

interface Material {
  kid: string;
  purpose: Purpose;
  publicJwk: string;
  thumbprint: string;
  envelope: string;
  encryptionKeyId: string;
}

interface Signer {
  kid: string;
  key: CryptoKey;
  loadedAt: number;
}

interface VerifierSet {
  version: number;
  loadedAt: number;
  refreshedAt: number;
  keys: Map<string, { key: CryptoKey; withdrawsAt: number | null }>;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function createKeysService(deps: KeysServiceDeps) {
  const { store, logger: log } = deps;
  const now = deps.now ?? (() => Date.now());
  const holder = crypto.randomUUID();
  let keks: KekSet | null = null;
  let problem: string | null = 'signing keys are not loaded yet';
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  /** Bumped on every change this process makes, so in-process verifiers see it at once. */
  let version = 0;
  const signers = new Map<Purpose, Signer>();
  const loadingSigners = new Map<Purpose, Promise<Signer>>();
  const verifierSets = new Map<Purpose, VerifierSet>();
  const publicKeys = new Map<string, CryptoKey>();

  // ---- one thing at a time in this process (other processes: IMMEDIATE transactions) ----
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

  function describeKeks(k: KekSet): string {
    const parts = [k.source === 'environment' ? `${KEK_ENV} = ${k.current.id}` : `the generated KEK in the secret store (no ${KEK_ENV}) = ${k.current.id}`];
    if (k.next) parts.push(`${NEXT_KEK_ENV} = ${k.next.id}`);
    if (k.previous) parts.push(`${PREVIOUS_KEK_ENV} = ${k.previous.id}`);
    return parts.join(', ');
  }

  // ---- key material ----
  async function generate(purpose: Purpose): Promise<Material> {
    const k = requireKeks();
    const { privateKey, publicKey } = await generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    const kid = `${purpose}-${crypto.randomBytes(12).toString('base64url')}`;
    const pub = publicKey.export({ format: 'jwk' }) as JWK;
    const publicJwk = { kty: 'RSA', n: pub.n!, e: pub.e!, kid, alg: ALGORITHM, use: 'sig' };
    const thumbprint = await calculateJwkThumbprint({ kty: 'RSA', n: pub.n!, e: pub.e! }, 'sha256');
    const envelope = seal(k.current, JSON.stringify({ ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg: ALGORITHM }), kid, purpose);
    return { kid, purpose, publicJwk: JSON.stringify(publicJwk), thumbprint, envelope, encryptionKeyId: k.current.id };
  }

  /** Opens a row's envelope and proves its private half matches the stored public half. */
  async function unseal(row: KeyRow): Promise<{ key: CryptoKey; jwkText: string }> {
    const k = requireKeks();
    const who = `signing key ${row.kid} (${row.purpose})`;
    if (!row.private_key_envelope || !row.encryption_key_id) throw new KeyIntegrityError(`${who} has no private key`);
    const kek = kekById(k, row.encryption_key_id);
    if (!kek) {
      throw new KeyIntegrityError(
        `wrong key-encryption key: ${who} is encrypted under KEK ${row.encryption_key_id}, which is none of the configured KEKs (${describeKeks(k)})`,
      );
    }
    let jwkText: string;
    try {
      jwkText = open(kek, row.private_key_envelope, row.kid, row.purpose);
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      throw new KeyIntegrityError(`corrupt ciphertext: ${who} does not decrypt under KEK ${kek.id} (${err.message}); the stored key was altered or damaged`);
    }
    const mismatch = () => new KeyIntegrityError(`key pair mismatch: the private key of ${who} does not match its published public key`);
    let jwk: JWK;
    try {
      jwk = JSON.parse(jwkText) as JWK;
    } catch {
      throw new KeyIntegrityError(`corrupt ciphertext: ${who} decrypts to something that is not a JWK`);
    }
    const pub = JSON.parse(row.public_jwk) as JWK;
    if (jwk.kty !== 'RSA' || !jwk.d || jwk.n !== pub.n || jwk.e !== pub.e) throw mismatch();
    let key: CryptoKey;
    try {
      key = (await importJWK({ ...jwk, alg: ALGORITHM }, ALGORITHM, { extractable: false })) as CryptoKey;
      const probe = crypto.randomBytes(32);
      const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, probe);
      if (!(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', await publicKeyOf(row), signature, probe))) throw mismatch();
    } catch (err) {
      if (err instanceof KeyIntegrityError) throw err;
      throw mismatch();
    }
    return { key, jwkText };
  }

  async function publicKeyOf(row: KeyRow): Promise<CryptoKey> {
    let key = publicKeys.get(row.kid);
    if (!key) {
      const jwk = JSON.parse(row.public_jwk) as JWK;
      key = (await importJWK({ kty: 'RSA', n: jwk.n, e: jwk.e }, ALGORITHM)) as CryptoKey;
      publicKeys.set(row.kid, key);
    }
    return key;
  }

  // ---- signers ----
  function signingUnavailable(why: string) {
    return new HearthError('signing_unavailable', `token signing is unavailable: ${why}`);
  }

  async function loadSigner(purpose: Purpose): Promise<Signer> {
    const row = store.findActive(purpose);
    if (!row) throw signingUnavailable(`no active ${purpose} signing key`);
    let key: CryptoKey;
    try {
      ({ key } = await unseal(row));
    } catch (err) {
      const message = oneLine((err as Error).message);
      problem = message;
      log.error({ kid: row.kid, purpose, problem: message }, 'cannot load the active signing key');
      throw signingUnavailable(message);
    }
    const signer = { kid: row.kid, key, loadedAt: now() };
    signers.set(purpose, signer);
    return signer;
  }

  /** The cached signer while it is fresh (no promise, no microtask), else undefined. */
  function freshSigner(purpose: Purpose): Signer | undefined {
    const cached = signers.get(purpose);
    const t = now();
    return cached && t >= cached.loadedAt && t - cached.loadedAt < SIGNER_CACHE_MS ? cached : undefined;
  }

  /** The base64url protected header `{alg, typ, kid}`, encoded once per key and token type. */
  const headers = new Map<string, string>();
  function protectedHeader(kid: string, typ: string): string {
    const k = `${kid} ${typ}`;
    let h = headers.get(k);
    if (h === undefined) {
      h = Buffer.from(JSON.stringify({ alg: ALGORITHM, typ, kid })).toString('base64url');
      if (headers.size > 64) headers.clear();
      headers.set(k, h);
    }
    return h;
  }

  function signerFor(purpose: Purpose, force = false): Promise<Signer> {
    const cached = signers.get(purpose);
    const t = now();
    if (!force && cached && t >= cached.loadedAt && t - cached.loadedAt < SIGNER_CACHE_MS) return Promise.resolve(cached);
    let loading = loadingSigners.get(purpose);
    if (!loading) {
      loading = loadSigner(purpose).finally(() => loadingSigners.delete(purpose));
      loadingSigners.set(purpose, loading);
    }
    return loading;
  }

  async function sign(purpose: Purpose, build: (iss: string, nowS: number) => TokenDraft): Promise<string> {
    if (!started || closed) throw signingUnavailable('signing keys are not loaded');
    const iss = deps.issuer();
    if (!iss) throw signingUnavailable('the issuer is not known yet');
    let signer = freshSigner(purpose) ?? (await signerFor(purpose));
    // A key retired or revoked by another process since it was cached: reload once, else fail closed.
    if (store.stateOf(signer.kid) !== 'active') {
      signer = await signerFor(purpose, true);
      if (store.stateOf(signer.kid) !== 'active') throw signingUnavailable(`no active ${purpose} signing key`);
    }
    const draft = build(iss, Math.floor(now() / 1000));
    // Compact JWS by hand (RFC 7515 §7.1) rather than jose's SignJWT: the protected header is encoded once per key and
    // type, and WebCrypto signs on libuv's thread pool as before. jose costs the JavaScript thread about three times as
    // much per token (claim-set copy and checks, its own base64url), and that thread is the token endpoint's limit.
    const input = `${protectedHeader(signer.kid, draft.typ)}.${Buffer.from(JSON.stringify(draft.claims)).toString('base64url')}`;
    const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', signer.key, Buffer.from(input));
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  }

  // ---- verifiers ----
  async function loadVerifierSet(purpose: Purpose): Promise<VerifierSet> {
    const t = now();
    const keys: VerifierSet['keys'] = new Map();
    for (const row of store.listPublished(purpose, t)) {
      keys.set(row.kid, { key: await publicKeyOf(row), withdrawsAt: row.state === 'retired' ? row.withdraws_at : null });
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
  const resolvers = { session: keyResolver('session'), invocation: keyResolver('invocation'), oauth: keyResolver('oauth') };

  function changed(purposes: Iterable<Purpose>) {
    version++;
    for (const p of purposes) signers.delete(p);
  }

  // ---- maintenance ----
  const toLifecycle = (r: KeyRow): LifecycleKey => ({
    kid: r.kid, purpose: r.purpose, state: r.state, createdAt: r.created_at, activatesAt: r.activates_at,
    retiresAt: r.retires_at, withdrawsAt: r.withdraws_at, withdrawnAt: r.withdrawn_at,
  });

  function insertMaterial(m: Material, state: 'active' | 'pending', at: number, activatesAt: number) {
    store.insert({
      kid: m.kid, purpose: m.purpose, state, algorithm: ALGORITHM, public_jwk: m.publicJwk, thumbprint: m.thumbprint,
      private_key_envelope: m.envelope, encryption_key_id: m.encryptionKeyId, created_at: at, activates_at: state === 'active' ? at : activatesAt,
      activated_at: state === 'active' ? at : null, retires_at: state === 'active' ? at + SIGNING_LIFETIME_MS : null,
    });
  }

  /** Applies planned actions; returns one log entry per change. */
  function apply(actions: LifecycleAction[], pool: Map<Purpose, Material[]>, t: number) {
    const done: Array<{ purpose: Purpose; kid: string; change: string; reason?: string }> = [];
    for (const a of actions) {
      if (a.type === 'retire') {
        store.retire(a.kid, t, a.reason, t + verificationWindowMs(a.purpose));
        done.push({ purpose: a.purpose, kid: a.kid, change: 'retired', reason: a.reason });
      } else if (a.type === 'activate') {
        store.activate(a.kid, t, t + SIGNING_LIFETIME_MS);
        done.push({ purpose: a.purpose, kid: a.kid, change: 'activated' });
      } else if (a.type === 'withdraw') {
        store.withdraw(a.kid, t);
        done.push({ purpose: a.purpose, kid: a.kid, change: 'withdrawn from the JWKS' });
      } else {
        const m = pool.get(a.purpose)!.shift()!;
        insertMaterial(m, a.state, t, a.activatesAt);
        done.push({ purpose: a.purpose, kid: m.kid, change: a.state === 'active' ? 'created active' : 'created pending (published)' });
      }
    }
    return done;
  }

  /** Applies what the lifecycle plans for now (generating keys outside the transaction). Call inside `exclusive`. */
  async function maintainNow() {
    for (let round = 0; round < 3; round++) {
      const planned = planMaintenance(store.listLive().map(toLifecycle), now());
      if (planned.length === 0) return [];
      const pool = new Map<Purpose, Material[]>();
      const creates = planned.filter((a) => a.type === 'create');
      const made = await Promise.all(creates.map((a) => generate(a.purpose)));
      for (const m of made) pool.set(m.purpose, [...(pool.get(m.purpose) ?? []), m]);
      const applied = store.transaction(() => {
        const t = now();
        // Plan again inside the transaction: another process may have moved the keys meanwhile.
        const fresh = planMaintenance(store.listLive().map(toLifecycle), t);
        for (const p of PURPOSES) {
          const need = fresh.filter((a) => a.type === 'create' && a.purpose === p).length;
          if (need > (pool.get(p)?.length ?? 0)) return null;
        }
        return apply(fresh, pool, t);
      });
      if (applied) {
        if (applied.length) changed(new Set(applied.map((a) => a.purpose)));
        for (const { change, ...entry } of applied) log.info(entry, `signing key ${change}`);
        return applied;
      }
    }
    throw new Error('signing-key maintenance did not settle: another process keeps changing the keys');
  }

  /** One maintenance tick: the lifecycle (when this process holds the lease), then every signer (re)validated. */
  async function tick(): Promise<void> {
    if (!started || closed) return;
    try {
      await exclusive(async () => {
        const mine = store.transaction(() => store.takeLease(LEASE, holder, now(), 2 * MAINTENANCE_INTERVAL_MS));
        if (mine) await maintainNow();
      });
      for (const p of PURPOSES) await signerFor(p);
      // Pending keys are validated too, so a damaged one fails readiness before it is due to sign.
      for (const row of store.listSealed()) if (row.state === 'pending') await unseal(row);
      problem = null;
    } catch (err) {
      problem = oneLine(err instanceof HearthError && err.code === 'signing_unavailable' ? err.message.replace(/^token signing is unavailable: /, '') : (err as Error).message);
      log.error({ problem }, 'signing-key maintenance failed');
    }
  }

  // ---- rewrap ----
  async function rewrapNow(only: 'previous' | 'all', actor: Actor | null) {
    const k = requireKeks();
    const rows = store.listSealed();
    const todo = rows.filter((r) => r.encryption_key_id !== k.current.id && (only === 'all' || (k.previous !== null && r.encryption_key_id === k.previous.id)));
    const updates: Array<{ row: KeyRow; envelope: string }> = [];
    for (const row of todo) {
      const { jwkText } = await unseal(row);
      updates.push({ row, envelope: seal(k.current, jwkText, row.kid, row.purpose) });
    }
    const rewrapped = store.transaction(() => {
      const t = now();
      let n = 0;
      for (const u of updates) if (store.rewrap(u.row.kid, u.row.private_key_envelope!, u.envelope, k.current.id, t)) n++;
      if (actor || n > 0) {
        deps.audit.record({
          actor: actor?.actor ?? 'system', action: 'identity.keys.rewrap', target: k.current.id,
          detail: { rewrapped: n, encryptionKeyId: k.current.id, keys: updates.map((u) => u.row.kid) }, requestId: actor?.requestId ?? null,
        });
      }
      return n;
    });
    if (rewrapped) log.info({ rewrapped, encryptionKeyId: k.current.id }, 'signing keys rewrapped under the current KEK');
    return { rewrapped, unchanged: rows.length - todo.length, encryptionKeyId: k.current.id };
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

  /** Where verifiers fetch the key sets: the configured private origins, else the issuer (seed 001, verifier transport). */
  const transport = (issuer: string): RemoteVerifierOptions => ({ issuer, identityJwksOrigin: deps.jwksOrigins?.identity, oauthJwksOrigin: deps.jwksOrigins?.oauth });
  /** The URL of each purpose's key set that verifiers use (published to administrators with the key list). */
  const verifierJwks = () => verifierJwksUrls(transport(deps.issuer()));
  let remote: { issuer: string; verifiers: RemoteVerifiers } | null = null;

  return {
    /** Validates every stored key (start-up fails on a wrong KEK, corrupt ciphertext or a mismatched pair), then maintains. */
    async start(): Promise<void> {
      try {
        keks = resolveKeks(deps.secretsConfig, deps.secrets);
      } catch (err) {
        throw new Error(`identity signing keys: ${oneLine((err as Error).message)}`);
      }
      const failures: string[] = [];
      for (const row of store.listSealed()) {
        try {
          await unseal(row);
        } catch (err) {
          if (!(err instanceof KeyIntegrityError)) throw err;
          failures.push(err.message);
        }
      }
      if (failures.length) {
        problem = failures[0]!;
        throw new Error(`identity signing keys are not usable: ${failures[0]}${failures.length > 1 ? ` (and ${failures.length - 1} more)` : ''}`);
      }
      started = true;
      await exclusive(async () => {
        await rewrapNow('previous', null);
        await maintainNow();
      });
      for (const p of PURPOSES) await signerFor(p, true);
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
      await chain;
      try {
        store.releaseLease(LEASE, holder);
      } catch {
        // the database may already be closing; the lease expires by itself
      }
      signers.clear();
      verifierSets.clear();
    },

    /** The JWKS document of one purpose: pending, active and not yet withdrawn retired public keys. */
    jwks(purpose: Purpose): { body: string; etag: string } {
      const keys = store.listPublished(purpose, now()).map((r) => {
        const jwk = JSON.parse(r.public_jwk) as Record<string, unknown>;
        return Object.fromEntries(PUBLIC_MEMBERS.map((m) => [m, jwk[m]]));
      });
      const body = JSON.stringify({ keys });
      return { body, etag: `"${crypto.createHash('sha256').update(body).digest('base64url')}"` };
    },

    list() {
      const t = now();
      return { kekFingerprint: requireKeks().current.id, kek: kekInfo(), verifierJwks: verifierJwks(), keys: store.listAll().map((r) => present(r, t)) };
    },

    verifierJwks,
    /** Verifiers for applications in other processes, over the configured transport (one set per issuer). */
    remoteVerifiers(): RemoteVerifiers {
      const issuer = deps.issuer();
      if (remote?.issuer !== issuer) remote = { issuer, verifiers: createRemoteVerifiers(transport(issuer)) };
      return remote.verifiers;
    },

    /** Re-encrypts every private key not yet under the current KEK (idempotent). */
    rewrap(actor: Actor) {
      return exclusive(async () => {
        try {
          return await rewrapNow('all', actor);
        } catch (err) {
          if (err instanceof KeyIntegrityError) throw new HearthError('service_unavailable', `cannot rewrap: ${err.message}`);
          throw err;
        }
      });
    },

    /** Emergency revocation: out of the JWKS at once; an active key is replaced by an immediately active one. */
    revoke(kid: string, reason: string, actor: Actor) {
      return exclusive(async () => {
        for (let round = 0; round < 3; round++) {
          const row = store.get(kid);
          if (!row) throw new HearthError('key_not_found', `no signing key ${JSON.stringify(kid)}`);
          if (row.state !== 'active' && row.state !== 'pending') throw new HearthError('key_not_revocable', `signing key ${kid} is already ${row.state}`);
          const material = row.state === 'active' ? await generate(row.purpose) : null;
          const outcome = store.transaction(() => {
            const cur = store.get(kid)!;
            if (cur.state !== 'active' && cur.state !== 'pending') return { retry: false as const, conflict: cur.state };
            if (cur.state === 'active' && !material) return { retry: true as const };
            const t = now();
            store.revoke(kid, t, reason, actor.actor);
            if (cur.state === 'active') insertMaterial(material!, 'active', t, t);
            const replacementKid = cur.state === 'active' ? material!.kid : null;
            deps.audit.record({
              actor: actor.actor, action: 'identity.key.revoke', target: kid,
              detail: { purpose: cur.purpose, previousState: cur.state, reason, replacementKid }, requestId: actor.requestId ?? null,
            });
            return { retry: false as const, replacementKid, purpose: cur.purpose };
          });
          if ('conflict' in outcome) throw new HearthError('key_not_revocable', `signing key ${kid} is already ${outcome.conflict}`);
          if (outcome.retry) continue;
          changed([outcome.purpose!]);
          log.warn({ kid, purpose: outcome.purpose, replacementKid: outcome.replacementKid }, 'signing key revoked');
          return { revoked: present(store.get(kid)!, now()), replacementKid: outcome.replacementKid ?? null };
        }
        throw new HearthError('conflict', `signing key ${kid} keeps changing; try again`);
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
     * The closed OAuth broker (seed 001, Authentication rule 7): the OAuth module presents the deployment secret it
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
