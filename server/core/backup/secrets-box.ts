/**
 * Sealing the secrets of a backup under a passphrase.
 *
 *   key material = Argon2id(passphrase NFC-normalized, salt 16 random bytes, 64 MiB, 3 passes, 4 lanes, 64 bytes)
 *                  (RFC 9106 §4, the second recommended option: for machines where 2 GiB is too much)
 *   key          = the first 32 bytes: AES-256-GCM, a 12-byte random nonce, 16-byte tag appended to the ciphertext,
 *                  associated data "hearth-backup/secrets.enc/v1"
 *   keyCheck     = SHA-256 of the last 32 bytes, stored in the manifest: a wrong passphrase is told apart from a
 *                  damaged file before anything is decrypted (it helps a guesser no more than the GCM tag would:
 *                  each guess still costs one Argon2id)
 *
 * The parameters, salt and nonce are recorded in the manifest (`encryption`), so a later Hearth with stronger
 * defaults still opens this backup. Decryption authenticates the whole box before answering any plaintext.
 */
import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { HearthError } from '../http/errors.ts';
import type { EncryptionInfo } from './format.ts';

const argon2 = promisify(crypto.argon2);

export const KDF_DEFAULTS = { memoryKiB: 65536, passes: 3, parallelism: 4 } as const;
const AAD = Buffer.from('hearth-backup/secrets.enc/v1');
const TAG_BYTES = 16;
/** Bounds on parameters read from a manifest, so a crafted file cannot ask for 1 TiB of memory. */
const MAX_MEMORY_KIB = 2 * 1024 * 1024;
const MAX_PASSES = 64;
const MAX_PARALLELISM = 64;

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length === 0) throw new HearthError('invalid_value', 'the backup passphrase is empty');
}

async function derive(passphrase: string, kdf: EncryptionInfo['kdf']): Promise<{ key: Buffer; keyCheck: string }> {
  const material = await argon2('argon2id', {
    message: Buffer.from(passphrase.normalize('NFC'), 'utf8'),
    nonce: Buffer.from(kdf.salt, 'base64'),
    memory: kdf.memoryKiB,
    passes: kdf.passes,
    parallelism: kdf.parallelism,
    tagLength: 64,
  });
  return {
    key: material.subarray(0, 32),
    keyCheck: crypto.createHash('sha256').update(material.subarray(32)).digest('base64'),
  };
}

/** A key derived for sealing: `seal` encrypts with it, and answers what the manifest records. */
export interface Sealer {
  seal(plain: Buffer): { box: Buffer; encryption: EncryptionInfo };
}

/**
 * Derives a sealing key under a fresh salt. Argon2id takes a few hundred milliseconds on the libuv pool: a backup
 * starts it before its first snapshot, so it runs beside the copies instead of after them.
 */
export async function sealer(passphrase: string): Promise<Sealer> {
  checkPassphrase(passphrase);
  const kdf = { name: 'argon2id' as const, version: 19 as const, ...KDF_DEFAULTS, salt: crypto.randomBytes(16).toString('base64') };
  const { key, keyCheck } = await derive(passphrase, kdf);
  return {
    seal(plain) {
      const nonce = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(AAD);
      const box = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return { box, encryption: { kdf, cipher: { name: 'aes-256-gcm', nonce: nonce.toString('base64'), tagBytes: TAG_BYTES }, keyCheck } };
    },
  };
}

/**
 * Checks the passphrase against the manifest's key check: `wrong_passphrase` when it is not the one the backup was
 * made with. Answers the key for `open`.
 */
export async function unlock(passphrase: string, encryption: EncryptionInfo): Promise<Buffer> {
  checkPassphrase(passphrase);
  const { kdf } = encryption;
  if (kdf.memoryKiB > MAX_MEMORY_KIB || kdf.passes > MAX_PASSES || kdf.parallelism > MAX_PARALLELISM) {
    throw new HearthError('backup_invalid', 'the key derivation parameters in the manifest are out of bounds (the backup is damaged or not from Hearth)');
  }
  const { key, keyCheck } = await derive(passphrase, kdf);
  const expected = Buffer.from(encryption.keyCheck, 'base64');
  const actual = Buffer.from(keyCheck, 'base64');
  if (expected.length !== actual.length || !crypto.timingSafeEqual(expected, actual)) {
    throw new HearthError('wrong_passphrase', 'wrong passphrase: this is not the passphrase the backup was made with');
  }
  return key;
}

/** Decrypts and authenticates a box with the key from `unlock`; a damaged box is `backup_invalid`. */
export function open(box: Buffer, key: Buffer, encryption: EncryptionInfo): Buffer {
  if (box.length < TAG_BYTES) throw new HearthError('backup_invalid', 'secrets.enc is too short to be a sealed box (the backup is damaged)');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(encryption.cipher.nonce, 'base64'), { authTagLength: TAG_BYTES });
  decipher.setAAD(AAD);
  decipher.setAuthTag(box.subarray(box.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(box.subarray(0, box.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new HearthError('backup_invalid', 'secrets.enc fails authentication although the passphrase is right (the backup is damaged)');
  }
}
