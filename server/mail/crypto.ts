/**
 * SMTP and IMAP passwords at rest: AES-256-GCM under a key derived from APP_SECRET (HKDF-SHA-256), a fresh 12-byte
 * IV per seal, a 128-bit tag, and additional data binding the profile key and field so a ciphertext cannot be moved
 * to another profile. Stored as `hm1.<iv>.<ciphertext>.<tag>` (base64url). APP_SECRET must stay the same across
 * upgrades: a password sealed under another secret does not open (the profile then has to be given it again).
 */
import crypto from 'node:crypto';

const VERSION = 'hm1';

export interface SecretBox {
  seal(plain: string, profileKey: string, field: 'smtp' | 'imap'): string;
  /** The password, or null when the envelope does not open (other APP_SECRET, altered). */
  open(envelope: string, profileKey: string, field: 'smtp' | 'imap'): string | null;
}

export function createSecretBox(appSecret: string): SecretBox {
  const key = Buffer.from(
    crypto.hkdfSync('sha256', Buffer.from(appSecret, 'utf8'), Buffer.from('hearth-outgoing-mail'), Buffer.from('password-envelope-v1'), 32),
  );
  const aad = (profileKey: string, field: string) => Buffer.from(`hearth-mail:${field}:${profileKey}`);
  return {
    seal(plain, profileKey, field) {
      const iv = crypto.randomBytes(12);
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
      cipher.setAAD(aad(profileKey, field));
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(envelope, profileKey, field) {
      const parts = envelope.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) return null;
      try {
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'), { authTagLength: 16 });
        decipher.setAAD(aad(profileKey, field));
        decipher.setAuthTag(Buffer.from(parts[3]!, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(parts[2]!, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
