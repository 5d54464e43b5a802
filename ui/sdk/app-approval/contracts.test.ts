import nodeCrypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import * as server from '../../../server/identity/approval/proof.ts';
import {
  APP_APPROVAL_ACCEPT,
  APP_APPROVAL_LIMITS,
  APP_APPROVAL_PATH,
  APP_APPROVAL_PENDING_ACCEPT,
  APP_APPROVAL_PROTOCOL,
  AppApprovalClientError,
  AppPairingLinkError,
  appApproval,
  appDeviceProofMessage,
  appPairingLink,
  appPairingProofMessage,
  parseAppPairingLink,
} from './index.ts';

const APP = 'https://auth.example';
const payload = {
  protocol: APP_APPROVAL_PROTOCOL,
  issuer: 'https://hearth.example:8443',
  pairingId: '6f1c2b8e-2d0a-4f4e-9a57-0d1f3b2c4a5e',
  secret: 'Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5',
  expiresAt: '2026-11-23T16:05:00.000Z',
} as const;

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof AppApprovalClientError ? err.code : `other:${(err as Error).name}`;
  }
  return 'no error';
}

describe('contracts exports', () => {
  it('names the protocol, path and accept lists of the seed (with hearth for platform)', () => {
    expect(APP_APPROVAL_PROTOCOL).toBe('hearth-app-approval-v1');
    expect(APP_APPROVAL_PATH).toBe('/api/auth/app-approval/v1');
    expect([...APP_APPROVAL_PENDING_ACCEPT]).toEqual(['login-context']);
    expect([...APP_APPROVAL_ACCEPT]).toEqual(['device-changes', 'login-context']);
    expect(APP_APPROVAL_LIMITS).toMatchObject({
      requestBodyBytes: 8192,
      responseBytes: 8192,
      proofLifetimeSeconds: 60,
      proofFutureSkewSeconds: 5,
      sdkCallTimeoutSeconds: 60,
      deviceNameLength: 80,
      changesPerInbox: 5,
    });
    expect(Object.isFrozen(APP_APPROVAL_LIMITS)).toBe(true);
  });

  it('round-trips a pairing link through the URL fragment, percent-encoded', () => {
    const link = appPairingLink(APP, payload);
    expect(link.startsWith(`${APP}/#pairing=`)).toBe(true);
    expect(link).not.toMatch(/[{}"\s]/);
    expect(new URL(link).hash.startsWith('#pairing=%7B')).toBe(true);
    expect(parseAppPairingLink(link, APP)).toEqual(payload);
    expect(appApproval.parsePairingLink(`  ${link}\n`, APP)).toEqual(payload);
  });

  it('refuses links for another authenticator, protocol or shape, and garbage, without echoing the payload', () => {
    const link = appPairingLink(APP, payload);
    for (const origin of ['https://evil.example', 'http://auth.example', 'https://auth.example:444', 'https://sub.auth.example']) {
      expect(codeOf(() => appApproval.parsePairingLink(link, origin))).toBe('invalid_pairing_link');
    }
    expect(() => parseAppPairingLink(link, 'https://evil.example')).toThrow(/another authenticator/);
    const other = (p: unknown) => `${APP}/#pairing=${encodeURIComponent(JSON.stringify(p))}`;
    expect(() => parseAppPairingLink(other({ ...payload, protocol: 'hearth-app-approval-v2' }), APP)).toThrow(/another protocol/);
    expect(() => parseAppPairingLink(other({ ...payload, protocol: undefined }), APP)).toThrow(/another protocol/);
    const bad = [
      '',
      'hello',
      'https://auth.example',
      `${APP}/#pairing=`,
      `${APP}/#pairing=%7Bnot-json`,
      `${APP}/path#pairing=${encodeURIComponent(JSON.stringify(payload))}`,
      `${APP}/?x=1#pairing=${encodeURIComponent(JSON.stringify(payload))}`,
      `${APP}/#pairing=${encodeURIComponent('[1,2]')}`,
      `${APP}/#pairing=null`,
      other({ ...payload, extra: 1 }),
      other({ ...payload, issuer: 'https://hearth.example/path' }),
      other({ ...payload, issuer: 'ftp://hearth.example' }),
      other({ ...payload, issuer: 'https://user:pw@hearth.example' }),
      other({ ...payload, secret: '' }),
      other({ ...payload, expiresAt: 'tomorrow' }),
      other({ ...payload, pairingId: 42 }),
      `${APP}/#pairing=${'a'.repeat(5000)}`,
    ];
    for (const text of bad) {
      expect(
        codeOf(() => appApproval.parsePairingLink(text, APP)),
        text.slice(0, 80),
      ).toBe('invalid_pairing_link');
    }
    try {
      parseAppPairingLink(other({ ...payload, extra: 1 }), APP);
    } catch (err) {
      expect(err).toBeInstanceOf(AppPairingLinkError);
      expect((err as Error).message).not.toContain(payload.secret);
    }
    expect(() => appPairingLink('https://auth.example/', payload)).toThrow(AppPairingLinkError);
    expect(() => appPairingLink(APP, { ...payload, issuer: 'not an origin' })).toThrow(AppPairingLinkError);
    expect(codeOf(() => appApproval.parsePairingLink(link, 'not an origin'))).toBe('invalid_pairing_link');
  });

  it('builds the same proof messages as the server (one source of truth)', () => {
    expect(appDeviceProofMessage).toBe(server.appDeviceProofMessage);
    expect(appPairingProofMessage).toBe(server.appPairingProofMessage);
    const proof = server.DeviceProof.parse({
      issuer: payload.issuer,
      deviceId: 'd1',
      jti: nodeCrypto.randomUUID(),
      issuedAt: 1_800_000_000,
      expiresAt: 1_800_000_060,
      command: { operation: 'pending', accept: ['login-context'] },
    });
    expect(appDeviceProofMessage(proof)).toBe(
      JSON.stringify([APP_APPROVAL_PROTOCOL, 'device', payload.issuer, 'd1', proof.jti, 1_800_000_000, 1_800_000_060, 'pending', ['login-context']]),
    );
    const publicKey = { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'B'.repeat(43) } as const;
    expect(appPairingProofMessage({ issuer: payload.issuer, pairingId: 'p', secret: 's', publicKey, name: 'Phone' })).toBe(
      `["hearth-app-approval-v1","pair","${payload.issuer}","p","s","EC","P-256","${'A'.repeat(43)}","${'B'.repeat(43)}","Phone"]`,
    );
  });

  it('createKey makes an ECDSA P-256 pair whose private key cannot be exported', async () => {
    const key = await appApproval.createKey();
    expect(key.privateKey.extractable).toBe(false);
    expect(key.privateKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    await expect(crypto.subtle.exportKey('jwk', key.privateKey)).rejects.toThrow();
    const jwk = await crypto.subtle.exportKey('jwk', key.publicKey);
    expect(server.DevicePublicKey.safeParse({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }).success).toBe(true);
    // WebCrypto signatures are already the 64-byte P1363 form the server verifies.
    const sig = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, new TextEncoder().encode('m')));
    expect(sig.length).toBe(64);
    expect(() => server.verifyProofSignature('m', Buffer.from(sig).toString('base64url'), { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! })).not.toThrow();
  });

  it('connect refuses non-origins before any network call', async () => {
    await expect(appApproval.connect({ issuer: 'https://hearth.example/', authenticatorOrigin: APP })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(appApproval.connect({ issuer: 'https://hearth.example', authenticatorOrigin: 'auth.example' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
