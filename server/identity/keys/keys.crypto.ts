/**
 * The key-encryption key (KEK) and the envelope that keeps private signing JWKs encrypted at rest.
 *
 * KEKs are 32 bytes, given as 64 hexadecimal characters: `HEARTH_IDENTITY_KEY_ENCRYPTION_KEY` (current, the only one
 * that encrypts), `HEARTH_IDENTITY_NEXT_KEY` and `HEARTH_IDENTITY_PREVIOUS_KEY` (decrypt only, for the rolling rewrap).
 * Without the environment variable the current KEK is generated on first run into the data folder's secret store
 * (`<data>/secrets/identity-kek`, hex, mode 0600). `APP_SECRET` is never a fallback.
 *
 * Envelope: AES-256-GCM, a fresh 12-byte IV per seal, 128-bit tag, and additional data binding the key id and purpose
 * so an envelope cannot be moved to another row. Stored as `hk1.<iv>.<ciphertext>.<tag>` (base64url).
 */

import crypto from 'node:crypto';
import type { IdentitySecretsConfig } from '../../core/config/config.ts';
import type { SecretStore } from '../../core/secrets/secrets.ts';

export const KEK_ENV = 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY';
export const NEXT_KEK_ENV = 'HEARTH_IDENTITY_NEXT_KEY';
export const PREVIOUS_KEK_ENV = 'HEARTH_IDENTITY_PREVIOUS_KEY';
export const KEK_SECRET_NAME = 'identity-kek';

const ENVELOPE_VERSION = 'hk1';

/** A bad KEK setting: the message names the variable and never echoes its value. */
export class KekConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KekConfigError';
  }
}

/** An envelope that does not open: wrong KEK, or ciphertext that was altered. */
export class EnvelopeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EnvelopeError';
  }
}

export interface Kek {
  /** Short fingerprint of the key: the `encryptionKeyId` of everything it seals. */
  id: string;
  key: Buffer;
}

export interface KekSet {
  current: Kek;
  next: Kek | null;
  previous: Kek | null;
  /** Where the current KEK came from. */
  source: 'environment' | 'secret-store';
}

/** A 16-hex-character fingerprint (HMAC-SHA-256 under the key itself, so it reveals nothing about the key). */
export function kekFingerprint(key: Buffer): string {
  return crypto.createHmac('sha256', key).update('hearth-identity-kek-fingerprint-v1').digest('hex').slice(0, 16);
}

export function parseKek(value: string, name: string): Kek {
  const v = value.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(v)) {
    throw new KekConfigError(
      `${name} must be 64 hexadecimal characters (32 random bytes, e.g. \`openssl rand -hex 32\`); the given value has ${v.length} characters${/^[0-9a-fA-F]*$/.test(v) ? '' : ' and is not hexadecimal'}`,
    );
  }
  const key = Buffer.from(v, 'hex');
  return { id: kekFingerprint(key), key };
}

/** The KEK settings (declared and validated in server/core/config: HEARTH_IDENTITY_KEY_ENCRYPTION_KEY, …_NEXT_KEY, …_PREVIOUS_KEY). */
export type KekSettings = Pick<IdentitySecretsConfig, 'identityKek' | 'identityNextKek' | 'identityPreviousKek'>;

/** The KEKs from the configuration, generating the current one into the secret store when none is given. */
export function resolveKeks(settings: KekSettings, secrets: SecretStore): KekSet {
  const given = settings.identityKek?.trim();
  let current: Kek;
  let source: KekSet['source'];
  if (given) {
    current = parseKek(given, KEK_ENV);
    source = 'environment';
  } else {
    current = parseKek(storedKek(secrets), `the stored KEK ${secrets.file(KEK_SECRET_NAME)}`);
    source = 'secret-store';
  }
  const next = settings.identityNextKek?.trim() ? parseKek(settings.identityNextKek, NEXT_KEK_ENV) : null;
  const previous = settings.identityPreviousKek?.trim() ? parseKek(settings.identityPreviousKek, PREVIOUS_KEK_ENV) : null;
  return {
    current,
    next: next && next.id !== current.id ? next : null,
    previous: previous && previous.id !== current.id ? previous : null,
    source,
  };
}

/** `<data>/secrets/identity-kek`: 32 random bytes as hex (the format of the environment variable), created once. */
const storedKek = (secrets: SecretStore): string => secrets.getOrCreate(KEK_SECRET_NAME, 32, 'hex');

/** The KEK with this fingerprint, if configured. */
export function kekById(keks: KekSet, id: string): Kek | null {
  for (const k of [keks.current, keks.previous, keks.next]) if (k && k.id === id) return k;
  return null;
}

function aad(kid: string, purpose: string): Buffer {
  return Buffer.from(`hearth-identity-signing-key-v1\0${kid}\0${purpose}`, 'utf8');
}

/** Encrypts a private JWK (its JSON text) under `kek`. */
export function seal(kek: Kek, plaintext: string, kid: string, purpose: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', kek.key, iv, { authTagLength: 16 });
  cipher.setAAD(aad(kid, purpose));
  const data = Buffer.from(plaintext, 'utf8');
  const ct = Buffer.concat([cipher.update(data), cipher.final()]);
  data.fill(0);
  return [ENVELOPE_VERSION, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Decrypts an envelope; throws `EnvelopeError` when it is malformed or fails authentication. */
export function open(kek: Kek, envelope: string, kid: string, purpose: string): string {
  const parts = envelope.split('.');
  if (parts.length !== 4 || parts[0] !== ENVELOPE_VERSION) throw new EnvelopeError('the envelope is malformed');
  const [, ivText, ctText, tagText] = parts as [string, string, string, string];
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== 12 || tag.length !== 16) throw new EnvelopeError('the envelope is malformed');
  try {
    const decipher = crypto.createDecipheriv('aes-256-gcm', kek.key, iv, { authTagLength: 16 });
    decipher.setAAD(aad(kid, purpose));
    decipher.setAuthTag(tag);
    const pt = Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]);
    const text = pt.toString('utf8');
    pt.fill(0);
    return text;
  } catch {
    throw new EnvelopeError('authentication failed');
  }
}
