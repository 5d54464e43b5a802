/**
 * The signed proof format of the authenticator-approval protocol: the exact byte
 * strings a device signs (re-exported from contracts.ts, which the browser SDK shares), and their verification here.
 *
 * - A message is a JSON array serialized with `JSON.stringify` (UTF-8, no extra whitespace).
 * - Signatures are ECDSA P-256 with SHA-256, the 64-byte IEEE-P1363 `r || s`, in unpadded base64url — never DER, never
 *   JWS. Any other length is refused (an Android/Java DER signature is 70–72 bytes) rather than converted.
 * - A proof lives at most 60 seconds, has a positive lifetime and may start at most five seconds in the future.
 */
import crypto from 'node:crypto';
import { B64URL_64_SIGNATURE, type DeviceProof, type DevicePublicKey, PROOF_MAX_FUTURE_SKEW_S, PROOF_MAX_LIFETIME_S } from './contracts.ts';

// The pure parts (constants, schemas, message builders) live in contracts.ts, shared with the browser SDK.
export {
  APP_APPROVAL_PROTOCOL,
  appDeviceProofMessage,
  appPairingProofMessage,
  DeviceCommand,
  DeviceProof,
  DevicePublicKey,
  PROOF_MAX_FUTURE_SKEW_S,
  PROOF_MAX_LIFETIME_S,
} from './contracts.ts';

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
  if (typeof signature !== 'string' || !B64URL_64_SIGNATURE.test(signature)) {
    throw new ProofError('signature_format', 'the signature must be the 64-byte IEEE-P1363 r || s in unpadded base64url (DER and JWS are not accepted)');
  }
  const publicKey = crypto.createPublicKey({ key: { ...key }, format: 'jwk' });
  const ok = crypto.verify('sha256', Buffer.from(message, 'utf8'), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) throw new ProofError('bad_signature', 'the signature does not verify with the device key');
}

/** The time rules of a device proof at `nowS` (Unix seconds). */
export function checkProofTimes(proof: Pick<DeviceProof, 'issuedAt' | 'expiresAt'>, nowS: number): void {
  const lifetime = proof.expiresAt - proof.issuedAt;
  if (lifetime <= 0 || lifetime > PROOF_MAX_LIFETIME_S)
    throw new ProofError('lifetime', `a proof lives more than 0 and at most ${PROOF_MAX_LIFETIME_S} seconds`);
  if (proof.issuedAt > nowS + PROOF_MAX_FUTURE_SKEW_S)
    throw new ProofError('not_yet_valid', `the proof starts more than ${PROOF_MAX_FUTURE_SKEW_S} seconds in the future`);
  if (proof.expiresAt <= nowS) throw new ProofError('expired', 'the proof has expired');
}
