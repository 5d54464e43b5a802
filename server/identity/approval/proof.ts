/**
 * The signed proof format of the authenticator-approval protocol (seed 001, "Signed proof format"): the exact byte
 * strings a device signs, and their verification. Shared by the server and the browser SDK (no Node-only imports in
 * the message builders).
 *
 * - A message is a JSON array serialized with `JSON.stringify` (UTF-8, no extra whitespace).
 * - Signatures are ECDSA P-256 with SHA-256, the 64-byte IEEE-P1363 `r || s`, in unpadded base64url — never DER, never
 *   JWS. Any other length is refused (an Android/Java DER signature is 70–72 bytes) rather than converted.
 * - A proof lives at most 60 seconds, has a positive lifetime and may start at most five seconds in the future.
 */
import crypto from 'node:crypto';
import { z } from 'zod';

export const APP_APPROVAL_PROTOCOL = 'hearth-app-approval-v1';
export const PROOF_MAX_LIFETIME_S = 60;
export const PROOF_MAX_FUTURE_SKEW_S = 5;

const B64URL_32 = /^[A-Za-z0-9_-]{43}$/;
const B64URL_64 = /^[A-Za-z0-9_-]{86}$/;

/** Exactly `{kty: EC, crv: P-256, x, y}` with 32-byte coordinates; private members or anything else are refused. */
export const DevicePublicKey = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string().regex(B64URL_32, 'x must be 32 bytes of unpadded base64url'),
    y: z.string().regex(B64URL_32, 'y must be 32 bytes of unpadded base64url'),
  })
  .strict();
export type DevicePublicKey = z.infer<typeof DevicePublicKey>;

const Accept = z.array(z.enum(['device-changes', 'login-context', 'terminal-logins'])).max(3);
export const DeviceCommand = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('pending'), accept: Accept.optional() }).strict(),
  z.object({ operation: z.literal('inbox'), accept: Accept.optional() }).strict(),
  z.object({
    operation: z.literal('decide'), requestId: z.string().min(1).max(100), challenge: z.string().min(1).max(200),
    comparison: z.string().regex(/^\d{6}$/, 'comparison must be six digits'), decision: z.enum(['approve', 'deny']),
  }).strict(),
  z.object({
    operation: z.literal('change'), changeId: z.string().min(1).max(100), kind: z.enum(['pair', 'revoke']), targetId: z.string().min(1).max(100),
    endSessions: z.boolean(), decision: z.enum(['approve', 'deny']),
  }).strict(),
  z.object({ operation: z.literal('revoke') }).strict(),
  z.object({ operation: z.literal('push'), token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'token must be 43 URL-safe characters') }).strict(),
  z.object({ operation: z.literal('account') }).strict(),
]);
export type DeviceCommand = z.infer<typeof DeviceCommand>;

export const DeviceProof = z
  .object({
    issuer: z.string().min(1).max(2048),
    deviceId: z.string().min(1).max(100),
    jti: z.uuid('jti must be a fresh UUID'),
    issuedAt: z.number().int(),
    expiresAt: z.number().int(),
    command: DeviceCommand,
  })
  .strict();
export type DeviceProof = z.infer<typeof DeviceProof>;

/** The array a pairing claim signs. */
export function appPairingProofMessage(p: { issuer: string; pairingId: string; secret: string; publicKey: DevicePublicKey; name: string }): string {
  return JSON.stringify([APP_APPROVAL_PROTOCOL, 'pair', p.issuer, p.pairingId, p.secret, p.publicKey.kty, p.publicKey.crv, p.publicKey.x, p.publicKey.y, p.name]);
}

/** The array a device command signs: the proof header, the operation, then every other parameter of the command. */
export function appDeviceProofMessage(proof: DeviceProof): string {
  const c = proof.command;
  const base: unknown[] = [APP_APPROVAL_PROTOCOL, 'device', proof.issuer, proof.deviceId, proof.jti, proof.issuedAt, proof.expiresAt, c.operation];
  switch (c.operation) {
    case 'decide':
      base.push(c.requestId, c.challenge, c.comparison, c.decision);
      break;
    case 'change':
      base.push(c.changeId, c.kind, c.targetId, c.endSessions, c.decision);
      break;
    case 'pending':
    case 'inbox':
      base.push(c.accept ?? null);
      break;
    case 'push':
      base.push(c.token);
      break;
    case 'revoke':
    case 'account':
      break;
  }
  return JSON.stringify(base);
}

export class ProofError extends Error {
  readonly code: 'bad_signature' | 'signature_format' | 'expired' | 'not_yet_valid' | 'lifetime';
  constructor(code: ProofError['code'], message: string) {
    super(message);
    this.name = 'ProofError';
    this.code = code;
  }
}

/** Verifies a 64-byte P1363 signature over `message` with the device key; throws ProofError. */
export function verifyProofSignature(message: string, signature: string, key: DevicePublicKey): void {
  if (typeof signature !== 'string' || !B64URL_64.test(signature)) {
    throw new ProofError('signature_format', 'the signature must be the 64-byte IEEE-P1363 r || s in unpadded base64url (DER and JWS are not accepted)');
  }
  const publicKey = crypto.createPublicKey({ key: { ...key }, format: 'jwk' });
  const ok = crypto.verify('sha256', Buffer.from(message, 'utf8'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) throw new ProofError('bad_signature', 'the signature does not verify with the device key');
}

/** The time rules of a device proof at `nowS` (Unix seconds). */
export function checkProofTimes(proof: Pick<DeviceProof, 'issuedAt' | 'expiresAt'>, nowS: number): void {
  const lifetime = proof.expiresAt - proof.issuedAt;
  if (lifetime <= 0 || lifetime > PROOF_MAX_LIFETIME_S) throw new ProofError('lifetime', `a proof lives more than 0 and at most ${PROOF_MAX_LIFETIME_S} seconds`);
  if (proof.issuedAt > nowS + PROOF_MAX_FUTURE_SKEW_S) throw new ProofError('not_yet_valid', `the proof starts more than ${PROOF_MAX_FUTURE_SKEW_S} seconds in the future`);
  if (proof.expiresAt <= nowS) throw new ProofError('expired', 'the proof has expired');
}
