/**
 * The local vault of the authenticator app: a random 256-bit vault key encrypts the app's
 * records (device bindings with their private keys) with AES-256-GCM; the vault key itself is wrapped by one or two
 * unlock methods — a six-digit PIN (Argon2id 64 MiB, t=3, p=1) and/or a passkey (WebAuthn PRF → HKDF-SHA-256) — or, as
 * the explicitly unprotected `local` method, stored raw beside the records (never combined with a PIN or passkey).
 *
 * Formats (all binary values unpadded base64url):
 * - config `{version: 1, id, methods}`; methods:
 *   `{type: 'pin', kdf: 'argon2id-64m-t3-p1', salt(16), iv(12), wrappedKey(32 + 16-byte tag)}`,
 *   `{type: 'passkey', credentialId, rpId, salt(32, the PRF input), iv(12), wrappedKey(48)}`,
 *   `{type: 'local', key(32)}`.
 * - record blob `{version: 1, iv(12), data}` (AES-256-GCM ciphertext with its 128-bit tag).
 * - envelope AAD: JSON `["hearth-login-vault-envelope", 1, vaultId, method, salt, kdf | credentialId]`;
 *   record AAD: JSON `["hearth-login-vault-record", 1, vaultId, context]`.
 */
import { argon2id } from 'hash-wasm';
import { b64u, fromB64u, randomBytes, utf8 } from './encoding.ts';
import { AppApprovalClientError } from './errors.ts';

export const VAULT_VERSION = 1;
export const VAULT_PIN_KDF = 'argon2id-64m-t3-p1';
/** HKDF `info` of the passkey wrap key. */
export const VAULT_WRAP_INFO = 'hearth-login-vault-wrap-v1';
const PIN_PARAMS = { memorySize: 64 * 1024, iterations: 3, parallelism: 1, hashLength: 32 } as const;
const ENVELOPE_LABEL = 'hearth-login-vault-envelope';
const RECORD_LABEL = 'hearth-login-vault-record';
const KEY_TAG = '$hearthVaultKeyPair';
const PASSKEY_TIMEOUT_MS = 120_000;

export interface VaultPinMethod {
  type: 'pin';
  kdf: typeof VAULT_PIN_KDF;
  salt: string;
  iv: string;
  wrappedKey: string;
}
export interface VaultPasskeyMethod {
  type: 'passkey';
  credentialId: string;
  rpId: string;
  salt: string;
  iv: string;
  wrappedKey: string;
}
export interface VaultLocalMethod {
  type: 'local';
  key: string;
}
export type VaultMethod = VaultPinMethod | VaultPasskeyMethod | VaultLocalMethod;
export type VaultMethodType = VaultMethod['type'];
export interface VaultConfig {
  version: 1;
  id: string;
  methods: VaultMethod[];
}
export interface VaultRecordBlob {
  version: 1;
  iv: string;
  data: string;
}
export type VaultCapability = 'supported' | 'unsupported' | 'unknown';

const fail = (
  code: 'vault_invalid_config' | 'vault_unlock_failed' | 'vault_unsupported' | 'vault_cancelled' | 'vault_record_invalid' | 'invalid_argument' | 'aborted',
  message: string,
) => new AppApprovalClientError(code, message);
const lockedError = () => new AppApprovalClientError('vault_locked', 'The vault is locked: unlock it again.');

// ---------------------------------------------------------------------------------------------------------------
// Validation of configs (unknown KDFs, fields or combinations are refused).

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function bytesOf(value: unknown, length: number | [number, number], what: string): Uint8Array<ArrayBuffer> {
  let out: Uint8Array<ArrayBuffer>;
  try {
    out = fromB64u(value as string);
  } catch {
    throw fail('vault_invalid_config', `${what} is not unpadded base64url`);
  }
  const [min, max] = typeof length === 'number' ? [length, length] : length;
  if (out.length < min || out.length > max) throw fail('vault_invalid_config', `${what} has the wrong length`);
  return out;
}

function exactKeys(o: Record<string, unknown>, keys: string[], what: string): void {
  const have = Object.keys(o).sort();
  const want = [...keys].sort();
  if (have.length !== want.length || have.some((k, i) => k !== want[i])) throw fail('vault_invalid_config', `${what} has unknown or missing fields`);
}

function parseMethod(m: unknown): VaultMethod {
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw fail('vault_invalid_config', 'a method is not an object');
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'pin':
      if (o.kdf !== VAULT_PIN_KDF) throw fail('vault_invalid_config', `unknown PIN KDF parameters (only ${VAULT_PIN_KDF} is accepted)`);
      exactKeys(o, ['type', 'kdf', 'salt', 'iv', 'wrappedKey'], 'the PIN method');
      bytesOf(o.salt, 16, 'the PIN salt');
      bytesOf(o.iv, 12, 'the PIN IV');
      bytesOf(o.wrappedKey, 48, 'the PIN-wrapped key');
      return { type: 'pin', kdf: VAULT_PIN_KDF, salt: o.salt as string, iv: o.iv as string, wrappedKey: o.wrappedKey as string };
    case 'passkey':
      exactKeys(o, ['type', 'credentialId', 'rpId', 'salt', 'iv', 'wrappedKey'], 'the passkey method');
      bytesOf(o.credentialId, [1, 1023], 'the credential ID');
      if (typeof o.rpId !== 'string' || o.rpId.length < 1 || o.rpId.length > 253) throw fail('vault_invalid_config', 'the passkey RP ID is invalid');
      bytesOf(o.salt, 32, 'the PRF salt');
      bytesOf(o.iv, 12, 'the passkey IV');
      bytesOf(o.wrappedKey, 48, 'the passkey-wrapped key');
      return {
        type: 'passkey',
        credentialId: o.credentialId as string,
        rpId: o.rpId,
        salt: o.salt as string,
        iv: o.iv as string,
        wrappedKey: o.wrappedKey as string,
      };
    case 'local':
      exactKeys(o, ['type', 'key'], 'the local method');
      bytesOf(o.key, 32, 'the local key');
      return { type: 'local', key: o.key as string };
    default:
      throw fail('vault_invalid_config', 'unknown unlock method');
  }
}

function checkMethods(methods: VaultMethod[]): void {
  if (methods.length < 1) throw fail('vault_invalid_config', 'a vault needs at least one unlock method');
  const count = (t: VaultMethodType) => methods.filter((m) => m.type === t).length;
  if (count('local') > 0 && methods.length > 1) throw fail('vault_invalid_config', 'the unprotected local method is never combined with a PIN or passkey');
  if (count('pin') > 1) throw fail('vault_invalid_config', 'a vault has at most one PIN');
  if (count('passkey') > 1) throw fail('vault_invalid_config', 'a vault has at most one passkey');
}

/** Validates a stored config; throws `vault_invalid_config` (unknown version, KDF, field or combination). */
export function parseConfig(config: unknown): VaultConfig {
  if (!config || typeof config !== 'object' || Array.isArray(config)) throw fail('vault_invalid_config', 'the vault config is not an object');
  const o = config as Record<string, unknown>;
  if (o.version !== VAULT_VERSION) throw fail('vault_invalid_config', `unknown vault version (only ${VAULT_VERSION})`);
  exactKeys(o, ['version', 'id', 'methods'], 'the vault config');
  if (typeof o.id !== 'string' || !UUID.test(o.id)) throw fail('vault_invalid_config', 'the vault ID is not a UUID');
  if (!Array.isArray(o.methods)) throw fail('vault_invalid_config', 'methods is not a list');
  const methods = o.methods.map(parseMethod);
  checkMethods(methods);
  return { version: 1, id: o.id, methods };
}

// ---------------------------------------------------------------------------------------------------------------
// Crypto.

function envelopeAad(vaultId: string, m: { type: 'pin' | 'passkey'; salt: string; kdfOrCredential: string }): Uint8Array<ArrayBuffer> {
  return utf8(JSON.stringify([ENVELOPE_LABEL, VAULT_VERSION, vaultId, m.type, m.salt, m.kdfOrCredential]));
}
function recordAad(vaultId: string, context: string): Uint8Array<ArrayBuffer> {
  return utf8(JSON.stringify([RECORD_LABEL, VAULT_VERSION, vaultId, context]));
}

const gcm = (iv: Uint8Array<ArrayBuffer>, additionalData: Uint8Array<ArrayBuffer>): AesGcmParams => ({ name: 'AES-GCM', iv, additionalData, tagLength: 128 });

/** The PIN's wrap key: Argon2id (64 MiB, three passes, one lane, 32 bytes) over the six digits and the salt. */
export async function pinWrapKey(pin: string, salt: Uint8Array): Promise<CryptoKey> {
  let raw: Uint8Array;
  try {
    raw = await argon2id({ password: pin, salt, ...PIN_PARAMS, outputType: 'binary' });
  } catch {
    throw fail('vault_unsupported', "The PIN's Argon2id needs WebAssembly and 64 MiB of memory (a Content-Security-Policy must allow 'wasm-unsafe-eval').");
  }
  try {
    return await crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt', 'decrypt']);
  } finally {
    raw.fill(0);
  }
}

/** The passkey's wrap key: HKDF-SHA-256 over the PRF output, salt = the app origin, info = `hearth-login-vault-wrap-v1`. */
export async function prfWrapKey(prfOutput: ArrayBuffer | Uint8Array, appOrigin: string): Promise<CryptoKey> {
  const ikm = new Uint8Array(prfOutput instanceof Uint8Array ? prfOutput : new Uint8Array(prfOutput));
  if (ikm.length < 32) throw fail('vault_unsupported', 'the passkey returned a PRF output that is too short');
  const base = await crypto.subtle.importKey('raw', ikm, 'HKDF', false, ['deriveKey']);
  ikm.fill(0);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: utf8(appOrigin), info: utf8(VAULT_WRAP_INFO) },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

async function wrapVaultKey(wrapKey: CryptoKey, vaultKey: Uint8Array<ArrayBuffer>, aad: Uint8Array<ArrayBuffer>): Promise<{ iv: string; wrappedKey: string }> {
  const iv = randomBytes(12);
  const wrapped = await crypto.subtle.encrypt(gcm(iv, aad), wrapKey, vaultKey);
  return { iv: b64u(iv), wrappedKey: b64u(wrapped) };
}

async function unwrapVaultKey(wrapKey: CryptoKey, m: { iv: string; wrappedKey: string }, aad: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  let raw: ArrayBuffer;
  try {
    raw = await crypto.subtle.decrypt(gcm(fromB64u(m.iv), aad), wrapKey, fromB64u(m.wrappedKey));
  } catch {
    throw fail('vault_unlock_failed', 'The vault does not open with this method (wrong PIN or passkey, or a changed config).');
  }
  if (raw.byteLength !== 32) throw fail('vault_unlock_failed', 'The vault key has the wrong length.');
  return new Uint8Array(raw);
}

// ---------------------------------------------------------------------------------------------------------------
// Passkeys (browsers only).

interface PasskeyEnv {
  origin: string;
  hostname: string;
}

function passkeyEnv(): PasskeyEnv {
  const loc = (globalThis as { location?: Location }).location;
  const cred = (globalThis as { navigator?: Navigator }).navigator?.credentials;
  if (!loc || !cred || typeof PublicKeyCredential === 'undefined' || (globalThis as { isSecureContext?: boolean }).isSecureContext === false) {
    throw fail('vault_unsupported', 'Passkeys are not available here (no WebAuthn in a secure context).');
  }
  return { origin: loc.origin, hostname: loc.hostname };
}

function webauthnError(err: unknown): AppApprovalClientError {
  const name = (err as { name?: unknown } | null)?.name;
  if (err instanceof AppApprovalClientError) return err;
  if (name === 'AbortError') return fail('aborted', 'The passkey request was aborted.');
  if (name === 'NotAllowedError') return fail('vault_cancelled', 'The passkey request was cancelled, timed out or not allowed.');
  return fail('vault_unsupported', 'The passkey could not be used (unsupported authenticator or environment).');
}

function prfFirst(cred: PublicKeyCredential): Uint8Array | null {
  const first = cred.getClientExtensionResults().prf?.results?.first;
  if (!first) return null;
  return first instanceof ArrayBuffer ? new Uint8Array(first) : new Uint8Array(first.buffer, first.byteOffset, first.byteLength);
}

/** Evaluates the PRF of an existing credential with user verification (checked in the authenticator data flags). */
async function passkeyPrf(env: PasskeyEnv, credentialId: Uint8Array<ArrayBuffer>, salt: Uint8Array<ArrayBuffer>, signal?: AbortSignal): Promise<Uint8Array> {
  let cred: PublicKeyCredential | null;
  try {
    cred = (await navigator.credentials.get({
      publicKey: {
        rpId: env.hostname,
        challenge: randomBytes(32),
        allowCredentials: [{ type: 'public-key', id: credentialId }],
        userVerification: 'required',
        timeout: PASSKEY_TIMEOUT_MS,
        extensions: { prf: { eval: { first: salt } } },
      },
      signal,
    })) as PublicKeyCredential | null;
  } catch (err) {
    throw webauthnError(err);
  }
  if (!cred) throw fail('vault_cancelled', 'No passkey was used.');
  const authData = new Uint8Array((cred.response as AuthenticatorAssertionResponse).authenticatorData);
  if (authData.length < 37 || (authData[32]! & 0x04) === 0) throw fail('vault_unlock_failed', 'The passkey did not verify the user.');
  const out = prfFirst(cred);
  if (!out) throw fail('vault_unsupported', 'The passkey does not support the PRF extension.');
  return out;
}

/** Creates a passkey for this host (user verification required, PRF required) and returns it with one PRF output. */
async function createPasskey(
  env: PasskeyEnv,
  vaultId: string,
  salt: Uint8Array<ArrayBuffer>,
  signal?: AbortSignal,
): Promise<{ credentialId: Uint8Array<ArrayBuffer>; prf: Uint8Array }> {
  let cred: PublicKeyCredential | null;
  try {
    cred = (await navigator.credentials.create({
      publicKey: {
        rp: { id: env.hostname, name: 'Hearth authenticator' },
        user: { id: randomBytes(16), name: `vault-${vaultId.slice(0, 8)}`, displayName: 'Hearth authenticator vault' },
        challenge: randomBytes(32),
        pubKeyCredParams: [
          { type: 'public-key', alg: -7 },
          { type: 'public-key', alg: -257 },
        ],
        authenticatorSelection: { userVerification: 'required', residentKey: 'discouraged' },
        attestation: 'none',
        timeout: PASSKEY_TIMEOUT_MS,
        extensions: { prf: { eval: { first: salt } } },
      },
      signal,
    })) as PublicKeyCredential | null;
  } catch (err) {
    throw webauthnError(err);
  }
  if (!cred) throw fail('vault_cancelled', 'No passkey was created.');
  const ext = cred.getClientExtensionResults().prf;
  if (!ext?.enabled) throw fail('vault_unsupported', 'The passkey does not support the PRF extension.');
  const credentialId = new Uint8Array(cred.rawId);
  // Some authenticators evaluate the PRF at creation; the others need one assertion.
  const prf = prfFirst(cred) ?? (await passkeyPrf(env, credentialId, salt, signal));
  return { credentialId, prf };
}

/** Whether passkey unlocking can work here, without opening any dialog. */
export async function capability(): Promise<VaultCapability> {
  const g = globalThis as { PublicKeyCredential?: typeof PublicKeyCredential; isSecureContext?: boolean; navigator?: Navigator; location?: Location };
  if (!g.PublicKeyCredential || !g.navigator?.credentials || !g.location || g.isSecureContext === false) return 'unsupported';
  const getCaps = (g.PublicKeyCredential as { getClientCapabilities?: () => Promise<Record<string, boolean | undefined>> }).getClientCapabilities;
  if (typeof getCaps !== 'function') return 'unknown';
  try {
    const caps = await getCaps.call(g.PublicKeyCredential);
    if (caps['extension:prf'] === true) return 'supported';
    if (caps['extension:prf'] === false) return 'unsupported';
  } catch {
    /* fall through */
  }
  return 'unknown';
}

// ---------------------------------------------------------------------------------------------------------------
// Sessions.

interface Live {
  id: string;
  key: Uint8Array<ArrayBuffer>;
  aes: Promise<CryptoKey>;
  methods: VaultMethod[];
  /** Private JWKs of the key pairs this session created or opened (needed to seal them again). */
  jwks: WeakMap<CryptoKey, JsonWebKey>;
}

type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

function isKeyPair(v: object): v is CryptoKeyPair {
  const k = v as Partial<CryptoKeyPair>;
  return typeof CryptoKey !== 'undefined' && k.privateKey instanceof CryptoKey && k.publicKey instanceof CryptoKey;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An unlocked vault, in memory only. Every method fails with `vault_locked` after `lock()`, including calls in flight. */
export class VaultSession {
  #live: Live | null;
  #onLock: Array<() => void> = [];

  constructor(id: string, key: Uint8Array<ArrayBuffer>, methods: VaultMethod[]) {
    const copy = new Uint8Array(key);
    this.#live = {
      id,
      key: copy,
      methods: [...methods],
      jwks: new WeakMap(),
      aes: crypto.subtle.importKey('raw', copy, 'AES-GCM', false, ['encrypt', 'decrypt']),
    };
  }

  get id(): string {
    return this.#now().id;
  }
  get locked(): boolean {
    return this.#live === null;
  }

  /** Forgets the vault key and every key pair reference; the session cannot be used again (unlock anew). */
  lock(): void {
    if (!this.#live) return;
    this.#live.key.fill(0);
    this.#live = null;
    for (const off of this.#onLock.splice(0)) off();
  }

  /**
   * Locks this session as soon as the page is hidden, frozen or left (`visibilitychange` to hidden, `freeze`,
   * `pagehide`). Returns a function that removes the listeners (they also go once the session is locked).
   */
  lockWhenHidden(doc: Document = globalThis.document): () => void {
    this.#now();
    if (!doc) throw fail('invalid_argument', 'lockWhenHidden needs a document');
    const win = doc.defaultView;
    const onHide = () => {
      if (doc.visibilityState === 'hidden') this.lock();
    };
    const onExit = () => this.lock();
    doc.addEventListener('visibilitychange', onHide);
    doc.addEventListener('freeze', onExit);
    win?.addEventListener('pagehide', onExit);
    const off = () => {
      doc.removeEventListener('visibilitychange', onHide);
      doc.removeEventListener('freeze', onExit);
      win?.removeEventListener('pagehide', onExit);
    };
    this.#onLock.push(off);
    if (doc.visibilityState === 'hidden') this.lock();
    return off;
  }

  /** `{version: 1, id, methods}` with the methods of this session; persist it only after a successful `vault.unlock` round trip. */
  config(): VaultConfig {
    const s = this.#now();
    const methods = s.methods.map((m) => ({ ...m }));
    checkMethods(methods);
    return { version: 1, id: s.id, methods };
  }

  /** Adds (or replaces) the PIN method: the vault key wrapped under Argon2id of the six digits. */
  async pin(pin: string): Promise<VaultPinMethod> {
    if (typeof pin !== 'string' || !/^\d{6}$/.test(pin)) throw fail('invalid_argument', 'the PIN must be exactly six digits');
    const s = this.#now();
    this.#noLocal(s);
    const salt = randomBytes(16);
    const saltText = b64u(salt);
    const wrapKey = await pinWrapKey(pin, salt);
    const wrapped = await wrapVaultKey(wrapKey, this.#after(s).key, envelopeAad(s.id, { type: 'pin', salt: saltText, kdfOrCredential: VAULT_PIN_KDF }));
    const method: VaultPinMethod = { type: 'pin', kdf: VAULT_PIN_KDF, salt: saltText, ...wrapped };
    this.#after(s).methods = [...s.methods.filter((m) => m.type !== 'pin'), method];
    return { ...method };
  }

  /** Adds (or replaces) the passkey method: a new passkey for this host with PRF; its output wraps the vault key. */
  async passkey(signal?: AbortSignal): Promise<VaultPasskeyMethod> {
    const s = this.#now();
    this.#noLocal(s);
    const env = passkeyEnv();
    const salt = randomBytes(32);
    const { credentialId, prf } = await createPasskey(env, s.id, salt, signal);
    this.#after(s);
    const wrapKey = await prfWrapKey(prf, env.origin);
    prf.fill(0);
    const saltText = b64u(salt);
    const credentialText = b64u(credentialId);
    const wrapped = await wrapVaultKey(wrapKey, this.#after(s).key, envelopeAad(s.id, { type: 'passkey', salt: saltText, kdfOrCredential: credentialText }));
    const method: VaultPasskeyMethod = { type: 'passkey', credentialId: credentialText, rpId: env.hostname, salt: saltText, ...wrapped };
    this.#after(s).methods = [...s.methods.filter((m) => m.type !== 'passkey'), method];
    return { ...method };
  }

  /** The explicitly unprotected method: the raw vault key, stored beside the records. Never combined with a PIN or passkey. */
  async local(): Promise<VaultLocalMethod> {
    const s = this.#now();
    if (s.methods.some((m) => m.type !== 'local')) {
      throw fail('vault_invalid_config', 'the unprotected local method is never combined with a PIN or passkey');
    }
    const method: VaultLocalMethod = { type: 'local', key: b64u(s.key) };
    s.methods = [method];
    return { ...method };
  }

  /** A new ECDSA P-256 key pair (private key not extractable) that this vault can seal into records. */
  async createKey(): Promise<CryptoKeyPair> {
    const s = this.#now();
    const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
    const out = await importPair({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d });
    this.#after(s).jwks.set(out.privateKey, { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d });
    return out;
  }

  /**
   * Encrypts a record (JSON values, plus key pairs from `createKey()` or from `openRecord` of this vault, at any depth)
   * under the vault key, bound to this vault and `context` (for example the binding's issuer and device ID).
   */
  async sealRecord(record: unknown, context: string): Promise<VaultRecordBlob> {
    const s = this.#now();
    checkContext(context);
    const plain = utf8(JSON.stringify(encodeValue(record, s.jwks, 0)));
    const iv = randomBytes(12);
    const data = await crypto.subtle.encrypt(gcm(iv, recordAad(s.id, context)), await s.aes, plain);
    plain.fill(0);
    this.#after(s);
    return { version: 1, iv: b64u(iv), data: b64u(data) };
  }

  /**
   * Decrypts a record sealed by this vault under the same `context`, restores its key pairs (private keys not
   * extractable; each pair checked for correspondence) and returns `validate(value)`. Any failure is `vault_record_invalid`.
   */
  async openRecord<T>(blob: VaultRecordBlob, context: string, validate: (value: unknown) => T): Promise<T> {
    const s = this.#now();
    checkContext(context);
    if (typeof validate !== 'function') throw fail('invalid_argument', 'openRecord needs a validate function');
    if (!blob || typeof blob !== 'object' || blob.version !== 1 || Object.keys(blob).length !== 3) throw fail('vault_record_invalid', 'not a vault record');
    let iv: Uint8Array<ArrayBuffer>;
    let data: Uint8Array<ArrayBuffer>;
    try {
      iv = fromB64u(blob.iv);
      data = fromB64u(blob.data);
    } catch {
      throw fail('vault_record_invalid', 'not a vault record');
    }
    if (iv.length !== 12 || data.length < 16) throw fail('vault_record_invalid', 'not a vault record');
    let plain: Uint8Array;
    try {
      plain = new Uint8Array(await crypto.subtle.decrypt(gcm(iv, recordAad(s.id, context)), await s.aes, data));
    } catch {
      this.#after(s);
      throw fail('vault_record_invalid', 'The record does not open with this vault and context (tampered, or another vault or context).');
    }
    this.#after(s);
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plain));
    } catch {
      throw fail('vault_record_invalid', 'The record is not JSON.');
    } finally {
      plain.fill(0);
    }
    const fresh: Array<[CryptoKey, JsonWebKey]> = [];
    const value = await decodeValue(json, fresh, 0);
    const live = this.#after(s);
    for (const [k, jwk] of fresh) live.jwks.set(k, jwk);
    try {
      return validate(value);
    } catch {
      throw fail('vault_record_invalid', "The record failed the caller's validation.");
    }
  }

  #now(): Live {
    if (!this.#live) throw lockedError();
    return this.#live;
  }
  /** After an await: the same live session, else the result is stale (locked meanwhile) and discarded. */
  #after(s: Live): Live {
    if (this.#live !== s) throw lockedError();
    return s;
  }
  #noLocal(s: Live): void {
    if (s.methods.some((m) => m.type === 'local')) {
      throw fail('vault_invalid_config', 'this vault uses the unprotected local method; create a new vault to protect it with a PIN or passkey');
    }
  }
}

function checkContext(context: unknown): asserts context is string {
  if (typeof context !== 'string' || context.length < 1 || context.length > 1024)
    throw fail('invalid_argument', 'the record context must be a text of 1–1024 characters');
}

function encodeValue(v: unknown, jwks: WeakMap<CryptoKey, JsonWebKey>, depth: number): JsonValue {
  if (depth > 32) throw fail('invalid_argument', 'the record is nested too deeply');
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw fail('invalid_argument', 'records hold finite numbers only');
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => encodeValue(x, jwks, depth + 1));
  if (v && typeof v === 'object') {
    if (isKeyPair(v)) {
      const jwk = jwks.get(v.privateKey);
      if (!jwk) throw fail('invalid_argument', 'only key pairs from session.createKey() or opened from this vault can be sealed');
      return { [KEY_TAG]: { ...jwk } as Record<string, string> };
    }
    if (isPlain(v)) {
      if (Object.hasOwn(v, KEY_TAG)) throw fail('invalid_argument', `${KEY_TAG} is a reserved member name`);
      const out: Record<string, JsonValue> = {};
      for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = encodeValue(x, jwks, depth + 1);
      return out;
    }
  }
  throw fail('invalid_argument', 'records hold JSON values and key pairs from session.createKey()');
}

async function decodeValue(v: unknown, fresh: Array<[CryptoKey, JsonWebKey]>, depth: number): Promise<unknown> {
  if (depth > 32) throw fail('vault_record_invalid', 'the record is nested too deeply');
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const x of v) out.push(await decodeValue(x, fresh, depth + 1));
    return out;
  }
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Object.hasOwn(o, KEY_TAG)) {
      if (Object.keys(o).length !== 1) throw fail('vault_record_invalid', 'a sealed key pair is malformed');
      const j = o[KEY_TAG] as Record<string, unknown> | null;
      if (!j || typeof j !== 'object' || j.kty !== 'EC' || j.crv !== 'P-256' || [j.x, j.y, j.d].some((c) => typeof c !== 'string')) {
        throw fail('vault_record_invalid', 'a sealed key pair is malformed');
      }
      const jwk: JsonWebKey = { kty: 'EC', crv: 'P-256', x: j.x as string, y: j.y as string, d: j.d as string };
      const pair = await importPair(jwk);
      fresh.push([pair.privateKey, jwk]);
      return pair;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = await decodeValue(x, fresh, depth + 1);
    return out;
  }
  return v;
}

/** Imports a P-256 private JWK as a non-extractable signing key and its public part, and checks they correspond. */
export async function importPair(jwk: JsonWebKey): Promise<CryptoKeyPair> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  let pair: CryptoKeyPair;
  try {
    pair = {
      privateKey: await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d }, alg, false, ['sign']),
      publicKey: await crypto.subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, alg, true, ['verify']),
    };
  } catch {
    throw fail('vault_record_invalid', 'a sealed key pair does not import');
  }
  const probe = randomBytes(32);
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, probe);
  if (!(await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, pair.publicKey, sig, probe))) {
    throw fail('vault_record_invalid', 'a sealed key pair does not correspond (public and private keys differ)');
  }
  return pair;
}

// ---------------------------------------------------------------------------------------------------------------

/** A new vault: random ID and 256-bit vault key, no methods yet (add `pin`, `passkey` or `local`). */
export function create(): VaultSession {
  const key = randomBytes(32);
  const session = new VaultSession(crypto.randomUUID(), key, []);
  key.fill(0);
  return session;
}

/**
 * Opens a vault with one of its methods (the method object from `config.methods`, or its type). `pin` is needed for
 * the PIN method; `signal` aborts a passkey dialog. Throws `vault_invalid_config`, `vault_unlock_failed` (wrong PIN or
 * passkey, tampered envelope), `vault_unsupported` or `vault_cancelled`.
 */
export async function unlock(config: VaultConfig, method: VaultMethod | VaultMethodType, pin?: string, signal?: AbortSignal): Promise<VaultSession> {
  const c = parseConfig(config);
  const type = typeof method === 'string' ? method : method?.type;
  const m = c.methods.find((x) => x.type === type);
  if (!m) throw fail('invalid_argument', 'the vault has no such unlock method');
  if (typeof method === 'object' && JSON.stringify(parseMethod(method)) !== JSON.stringify(m)) {
    throw fail('invalid_argument', 'the method is not the one in this config');
  }
  let key: Uint8Array<ArrayBuffer>;
  switch (m.type) {
    case 'local':
      key = fromB64u(m.key);
      break;
    case 'pin': {
      if (typeof pin !== 'string' || !/^\d{6}$/.test(pin)) throw fail('invalid_argument', 'the PIN must be exactly six digits');
      const wrapKey = await pinWrapKey(pin, fromB64u(m.salt));
      key = await unwrapVaultKey(wrapKey, m, envelopeAad(c.id, { type: 'pin', salt: m.salt, kdfOrCredential: m.kdf }));
      break;
    }
    case 'passkey': {
      const env = passkeyEnv();
      if (env.hostname !== m.rpId) throw fail('vault_unsupported', 'the passkey belongs to another host name');
      const prf = await passkeyPrf(env, fromB64u(m.credentialId), fromB64u(m.salt), signal);
      const wrapKey = await prfWrapKey(prf, env.origin);
      prf.fill(0);
      key = await unwrapVaultKey(wrapKey, m, envelopeAad(c.id, { type: 'passkey', salt: m.salt, kdfOrCredential: m.credentialId }));
      break;
    }
  }
  const session = new VaultSession(c.id, key, c.methods);
  key.fill(0);
  return session;
}

/** Test seam (Vitest under Node, where no passkey exists): the envelope primitives, for recorded PRF outputs and AAD checks. */
export const envelopeForTests = {
  aad: (vaultId: string, type: 'pin' | 'passkey', salt: string, kdfOrCredential: string) => envelopeAad(vaultId, { type, salt, kdfOrCredential }),
  wrap: wrapVaultKey,
  unwrap: unwrapVaultKey,
};

export const vault = { create, unlock, capability, parseConfig };
