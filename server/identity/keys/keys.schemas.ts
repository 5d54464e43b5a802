import { z } from 'zod';
import { plainTextRule } from '../../core/http/text.ts';

const time = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} (ISO 8601), or null.` });

export const PublicJwk = z
  .object({
    kty: z.literal('RSA'),
    n: z.string(),
    e: z.string(),
    kid: z.string(),
    alg: z.literal('RS256'),
    use: z.literal('sig'),
  })
  .meta({ id: 'PublicJwk', description: 'An RSA public key. Private members never appear.' });

export const Jwks = z
  .object({ keys: z.array(PublicJwk) })
  .meta({ id: 'Jwks', description: 'Pending, active and not yet withdrawn retired public keys of one purpose. Revoked keys never appear.' });

export const KeyMetadata = z
  .object({
    kid: z.string(),
    purpose: z.enum(['session', 'invocation', 'oauth']),
    state: z.enum(['pending', 'active', 'retired', 'revoked']),
    algorithm: z.literal('RS256'),
    thumbprint: z.string().meta({ description: 'RFC 7638 SHA-256 thumbprint of the public key.' }),
    published: z.boolean().meta({ description: 'Whether the public key is in its JWKS now.' }),
    encryptionKeyId: z.string().nullable().meta({
      description: 'Fingerprint of the KEK that encrypts the private key; null once the key is retired or revoked (its private half is destroyed then).',
    }),
    createdAt: z.string().meta({ description: 'Creation and publication time (ISO 8601).' }),
    activatesAt: z.string().meta({ description: 'Scheduled activation: at least ten minutes after publication, except for immediate replacements.' }),
    activatedAt: time('When it started signing'),
    retiresAt: time('End of the 30-day target signing lifetime'),
    retiredAt: time('When it stopped signing'),
    retirement: z.enum(['rotated', 'downtime', 'revoked']).nullable().meta({ description: 'Why it stopped signing.' }),
    withdrawsAt: time('When the public key leaves the JWKS (after every token it signed plus margins has expired)'),
    withdrawnAt: time('When maintenance recorded the withdrawal'),
    revokedAt: time('Emergency revocation time'),
    revokedBy: z.string().nullable(),
    revocationReason: z.string().nullable().meta({ description: 'The durable incident reason given at revocation.' }),
    rewrappedAt: time('Last re-encryption under a new KEK'),
  })
  .meta({ id: 'SigningKey', description: 'Lifecycle metadata of a signing key. Never contains key material or token contents.' });

export const KekInfo = z
  .object({
    fingerprint: z.string().meta({ description: 'Fingerprint (`encryptionKeyId`) of the current KEK, the only one that encrypts.' }),
    source: z
      .enum(['environment', 'secret-store'])
      .meta({ description: '`environment`: HEARTH_IDENTITY_KEY_ENCRYPTION_KEY; `secret-store`: generated into <data>/secrets/identity-kek.' }),
    next: z.string().nullable().meta({ description: 'Fingerprint of HEARTH_IDENTITY_NEXT_KEY (decrypts only).' }),
    previous: z.string().nullable().meta({ description: 'Fingerprint of HEARTH_IDENTITY_PREVIOUS_KEY (decrypts only).' }),
  })
  .meta({ id: 'KeyEncryptionKeyInfo' });

export const KeyList = z
  .object({
    kekFingerprint: z
      .string()
      .meta({ description: 'Fingerprint of the current KEK; after a rewrap every key with a private half reports it as `encryptionKeyId`.' }),
    kek: KekInfo,
    verifierJwks: z.object({ session: z.string(), invocation: z.string(), oauth: z.string() }).meta({
      description:
        'Where verifiers fetch each key set: `HEARTH_IDENTITY_JWKS_ORIGIN` (session, invocation) and `HEARTH_OAUTH_JWKS_ORIGIN` (OAuth), each else the public issuer. ' +
        'The transport only: tokens keep the public issuer, and discovery publishes the public `jwks_uri`.',
    }),
    keys: z.array(KeyMetadata).meta({ description: 'Every key, newest first within active, pending, retired, revoked.' }),
  })
  .meta({ id: 'SigningKeyList' });

export const RewrapResult = z
  .object({
    rewrapped: z.number().int().meta({ description: 'Private keys re-encrypted by this call (0 when all already were under the current KEK).' }),
    unchanged: z.number().int().meta({ description: 'Private keys already under the current KEK.' }),
    encryptionKeyId: z.string().meta({ description: 'Fingerprint of the current KEK.' }),
  })
  .meta({ id: 'RewrapResult' });

export const KidParams = z.object({ kid: z.string().min(1).max(100) });

export const RevokeBody = z
  .object({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .superRefine(plainTextRule('reason', { multiline: true }))
      .meta({ description: 'The incident reason, stored durably with the key and in the audit log.' }),
  })
  .strict()
  .meta({ id: 'RevokeSigningKey' });

export const RevokeResult = z
  .object({
    revoked: KeyMetadata,
    replacementKid: z.string().nullable().meta({ description: 'The immediately active replacement when the revoked key was active; null for a pending key.' }),
  })
  .meta({ id: 'RevokedSigningKey' });

// The shapes as the API sends them: the admin UI imports these as types (ui/src/lib/api/identity.ts).
export type KeyMetadata = z.output<typeof KeyMetadata>;
export type KeyList = z.output<typeof KeyList>;
export type RewrapResult = z.output<typeof RewrapResult>;
export type RevokeResult = z.output<typeof RevokeResult>;
