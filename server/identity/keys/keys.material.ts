/**
 * Signing-key material: where a key pair is made and where a stored private key is opened. Part of the keys service
 * (keys.service.ts composes it); like everything that touches a private key it stays in `server/identity/keys`.
 *
 * - `generate` makes an RSA 2048 (RS256) pair and seals the private JWK under the current KEK (keys.crypto.ts); the
 *   private half leaves this function only as the envelope.
 * - `unseal` opens a row's envelope under the KEK it names, checks the private half against the stored public half
 *   (members, then a probe signature) and imports it as a non-extractable WebCrypto key. Every way a stored key can
 *   be unusable (wrong KEK, corrupt ciphertext, mismatched pair) is a `KeyIntegrityError` that says which.
 * - `publicKeyOf` imports a row's public half once per process.
 * - `startKeyPairs` starts generating RSA pairs before they are asked for: a first start needs one signing key per
 *   purpose, and their generation (tens of milliseconds each, on libuv's thread pool) then runs on another core while
 *   the rest of the start does, instead of after it with the main thread waiting. `generate` takes them in order.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { EnvelopeError, KEK_ENV, type KekSet, kekById, NEXT_KEK_ENV, open, PREVIOUS_KEK_ENV, seal } from './keys.crypto.ts';
import type { Purpose } from './keys.lifecycle.ts';
import type { KeyRow } from './keys.store.ts';
import { ALGORITHM } from './keys.tokens.ts';

const generateKeyPair = promisify(crypto.generateKeyPair);
const newPair = () => generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 });

/** RSA pairs whose generation started before anyone asked for them (`startKeyPairs`). */
export interface EarlyKeyPairs {
  /** The next pair, or undefined once all were taken. A pair whose generation failed is generated again. */
  take(): Promise<crypto.KeyPairKeyObjectResult> | undefined;
  /** Pairs started and not taken yet. */
  readonly left: number;
}

/** Starts generating `count` RSA 2048 pairs now (see the header); `createKeyMaterial` takes them first. */
export function startKeyPairs(count: number): EarlyKeyPairs {
  const pending = Array.from({ length: count }, () => {
    const pair = newPair();
    pair.catch(() => {}); // a failure is met when the pair is taken, and it is then generated again
    return pair;
  });
  return {
    take: () => pending.shift()?.catch(() => newPair()),
    get left() {
      return pending.length;
    },
  };
}

/** A stored key that cannot be used: wrong KEK, corrupt ciphertext, or a private half that does not match its public half. */
export class KeyIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyIntegrityError';
  }
}

/** A freshly generated key, its private half already sealed, ready to be inserted as a row. */
export interface Material {
  kid: string;
  purpose: Purpose;
  publicJwk: string;
  thumbprint: string;
  envelope: string;
  encryptionKeyId: string;
}

export type KeyMaterial = ReturnType<typeof createKeyMaterial>;

/**
 * `requireKeks` gives the resolved KEKs or throws `signing_unavailable` before start-up resolved them; `early`, pairs
 * generated ahead of need (a first start), used before any new one.
 */
export function createKeyMaterial(requireKeks: () => KekSet, early?: EarlyKeyPairs) {
  const publicKeys = new Map<string, CryptoKey>();

  function describeKeks(k: KekSet): string {
    const parts = [k.source === 'environment' ? `${KEK_ENV} = ${k.current.id}` : `the generated KEK in the secret store (no ${KEK_ENV}) = ${k.current.id}`];
    if (k.next) parts.push(`${NEXT_KEK_ENV} = ${k.next.id}`);
    if (k.previous) parts.push(`${PREVIOUS_KEK_ENV} = ${k.previous.id}`);
    return parts.join(', ');
  }

  async function generate(purpose: Purpose): Promise<Material> {
    const k = requireKeks();
    const { privateKey, publicKey } = await (early?.take() ?? newPair());
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

  return { generate, unseal, publicKeyOf };
}
