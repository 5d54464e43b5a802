/**
 * Signing: the active key of each purpose as a cached signer, and the one `sign` every token goes through. Part of the
 * keys service (keys.service.ts composes it and exposes only the typed token shapes); it stays in
 * `server/identity/keys`, the only folder that touches a private key.
 *
 * - A decrypted, validated signer is cached at most one minute (`SIGNER_CACHE_MS`); concurrent loads of one purpose
 *   share one promise.
 * - Before every token is released the key's state is read (one indexed row) by a read that began after the signature
 *   was asked for (the key store shares it between concurrent signatures, core/storage/shared-reads.ts): a key
 *   retired or revoked elsewhere causes one reload, and issuance fails closed (`signing_unavailable`) when no validated
 *   active signer can be loaded. There is no fallback signer. The read runs beside the signature, not before it.
 * - The JWS is compact serialization by hand (RFC 7515 §7.1), its protected header encoded once per key and type.
 */
import crypto from 'node:crypto';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { type Purpose, SIGNER_CACHE_MS } from './keys.lifecycle.ts';
import type { KeyMaterial } from './keys.material.ts';
import type { KeyStore } from './keys.store.ts';
import { ALGORITHM, type TokenDraft } from './keys.tokens.ts';

interface Signer {
  kid: string;
  key: CryptoKey;
  loadedAt: number;
}

export interface SigningDeps {
  store: KeyStore;
  log: Logger;
  now: () => number;
  issuer: () => string;
  unseal: KeyMaterial['unseal'];
  /** Whether the service has started and is not closed: signing before or after fails closed. */
  open: () => boolean;
  /** Called with the reason when the active key of a purpose cannot be loaded (the service's readiness). */
  failed: (problem: string) => void;
}

export const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function signingUnavailable(why: string) {
  return new HearthError('signing_unavailable', `token signing is unavailable: ${why}`);
}

export type Signing = ReturnType<typeof createSigning>;

export function createSigning(deps: SigningDeps) {
  const { store, log, now } = deps;
  const signers = new Map<Purpose, Signer>();
  const loadingSigners = new Map<Purpose, Promise<Signer>>();

  async function loadSigner(purpose: Purpose): Promise<Signer> {
    const row = await store.findActive(purpose);
    if (!row) throw signingUnavailable(`no active ${purpose} signing key`);
    let key: CryptoKey;
    try {
      ({ key } = await deps.unseal(row));
    } catch (err) {
      const message = oneLine((err as Error).message);
      deps.failed(message);
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

  /** The signer of a purpose: the cached one while fresh (unless `force`), else one (shared) load. */
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
    if (!deps.open()) throw signingUnavailable('signing keys are not loaded');
    const iss = deps.issuer();
    if (!iss) throw signingUnavailable('the issuer is not known yet');
    const signer = freshSigner(purpose) ?? (await signerFor(purpose));
    const draft = build(iss, Math.floor(now() / 1000));
    // The state read runs while libuv's pool signs; nothing is released before it answers `active`.
    const [state, token] = await Promise.all([store.stateOf(signer.kid), signWith(signer, draft)]);
    if (state === 'active') return token;
    // A key retired or revoked by another process since it was cached: reload once, else fail closed.
    const reloaded = await signerFor(purpose, true);
    if ((await store.stateOf(reloaded.kid)) !== 'active') throw signingUnavailable(`no active ${purpose} signing key`);
    return signWith(reloaded, draft);
  }

  // Compact JWS by hand (RFC 7515 §7.1) rather than jose's SignJWT: the protected header is encoded once per key and
  // type, and WebCrypto signs on libuv's thread pool as before. jose costs the JavaScript thread about three times as
  // much per token (claim-set copy and checks, its own base64url), and that thread is the token endpoint's limit.
  async function signWith(signer: Signer, draft: TokenDraft): Promise<string> {
    const input = `${protectedHeader(signer.kid, draft.typ)}.${Buffer.from(JSON.stringify(draft.claims)).toString('base64url')}`;
    const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', signer.key, Buffer.from(input));
    return `${input}.${Buffer.from(signature).toString('base64url')}`;
  }

  return {
    signerFor,
    sign,
    /** Caches a signer the caller has just opened and proved (start-up validates every key before it signs). */
    adopt(purpose: Purpose, kid: string, key: CryptoKey): void {
      signers.set(purpose, { kid, key, loadedAt: now() });
    },
    /** Drops the cached signers of purposes whose keys changed (the next signature reloads). */
    forget(purposes: Iterable<Purpose>): void {
      for (const p of purposes) signers.delete(p);
    },
    clear(): void {
      signers.clear();
    },
  };
}
