import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  APP_APPROVAL_PROTOCOL,
  appDeviceProofMessage,
  appPairingProofMessage,
  checkProofTimes,
  DeviceProof,
  DevicePublicKey,
  ProofError,
  verifyProofSignature,
} from './proof.ts';

const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwk = publicKey.export({ format: 'jwk' });
const key = DevicePublicKey.parse({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });
const sign = (m: string, enc: 'ieee-p1363' | 'der' = 'ieee-p1363') =>
  crypto.sign('sha256', Buffer.from(m), { key: privateKey, dsaEncoding: enc }).toString('base64url');
const now = 1_800_000_000;
const proof = (command: unknown, t: Partial<{ issuedAt: number; expiresAt: number }> = {}) =>
  DeviceProof.parse({ issuer: 'https://hearth.example', deviceId: 'dev-1', jti: crypto.randomUUID(), issuedAt: now, expiresAt: now + 60, command, ...t });

describe('signed proof format', () => {
  it('builds the exact arrays of the seed', () => {
    const p = proof({ operation: 'decide', requestId: 'r1', challenge: 'c1', comparison: '123456', decision: 'approve' });
    expect(JSON.parse(appDeviceProofMessage(p))).toEqual([
      APP_APPROVAL_PROTOCOL,
      'device',
      'https://hearth.example',
      'dev-1',
      p.jti,
      now,
      now + 60,
      'decide',
      'r1',
      'c1',
      '123456',
      'approve',
    ]);
    expect(appDeviceProofMessage(p)).not.toMatch(/\s/);
    const inbox = proof({ operation: 'inbox', accept: ['device-changes', 'login-context'] });
    expect(JSON.parse(appDeviceProofMessage(inbox)).slice(7)).toEqual(['inbox', ['device-changes', 'login-context']]);
    const change = proof({ operation: 'change', changeId: 'ch', kind: 'revoke', targetId: 'dev-2', endSessions: true, decision: 'deny' });
    expect(JSON.parse(appDeviceProofMessage(change)).slice(7)).toEqual(['change', 'ch', 'revoke', 'dev-2', true, 'deny']);
    expect(JSON.parse(appPairingProofMessage({ issuer: 'https://hearth.example', pairingId: 'p1', secret: 's1', publicKey: key, name: 'Phone' }))).toEqual([
      APP_APPROVAL_PROTOCOL,
      'pair',
      'https://hearth.example',
      'p1',
      's1',
      'EC',
      'P-256',
      key.x,
      key.y,
      'Phone',
    ]);
  });

  it('verifies P1363 signatures and refuses DER, tampering and other keys', () => {
    const p = proof({ operation: 'revoke' });
    const m = appDeviceProofMessage(p);
    expect(() => verifyProofSignature(m, sign(m), key)).not.toThrow();
    expect(() => verifyProofSignature(m, sign(m, 'der'), key)).toThrow(ProofError);
    try {
      verifyProofSignature(m, sign(m, 'der'), key);
    } catch (err) {
      expect((err as ProofError).code).toBe('signature_format');
    }
    const tampered = appDeviceProofMessage({ ...p, deviceId: 'dev-2' });
    expect(() => verifyProofSignature(tampered, sign(m), key)).toThrow(/does not verify/);
    const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    expect(() => verifyProofSignature(m, sign(m), { kty: 'EC', crv: 'P-256', x: other.x!, y: other.y! })).toThrow(/does not verify/);
  });

  it('refuses private key members and malformed keys and commands', () => {
    expect(DevicePublicKey.safeParse({ ...key, d: 'secret' }).success).toBe(false);
    expect(DevicePublicKey.safeParse({ ...key, x: `${key.x}=` }).success).toBe(false);
    expect(DeviceProof.safeParse({ ...proof({ operation: 'revoke' }), extra: 1 }).success).toBe(false);
    expect(() => proof({ operation: 'decide', requestId: 'r', challenge: 'c', comparison: '12345', decision: 'approve' })).toThrow();
    expect(() => proof({ operation: 'push', token: 'short' })).toThrow();
    expect(() => proof({ operation: 'format-disk' })).toThrow();
  });

  it('enforces the 60-second lifetime and five seconds of future skew', () => {
    expect(() => checkProofTimes({ issuedAt: now, expiresAt: now + 60 }, now)).not.toThrow();
    expect(() => checkProofTimes({ issuedAt: now, expiresAt: now + 61 }, now)).toThrow(/at most 60/);
    expect(() => checkProofTimes({ issuedAt: now, expiresAt: now }, now)).toThrow(/more than 0/);
    expect(() => checkProofTimes({ issuedAt: now + 5, expiresAt: now + 30 }, now)).not.toThrow();
    expect(() => checkProofTimes({ issuedAt: now + 6, expiresAt: now + 30 }, now)).toThrow(/future/);
    expect(() => checkProofTimes({ issuedAt: now - 60, expiresAt: now }, now)).toThrow(/expired/);
  });
});
