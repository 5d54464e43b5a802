/**
 * The state read before a token is released (keys.signing.ts): a key revoked elsewhere is reloaded once, else signing
 * fails closed. The store here answers `stateOf` when the test says so, which a real store cannot be made to do at a
 * chosen instant; the signatures are real (WebCrypto RS256).
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../core/logging/logger.ts';
import type { KeyState } from './keys.lifecycle.ts';
import { createSigning } from './keys.signing.ts';
import type { KeyRow, KeyStore } from './keys.store.ts';

interface PendingRead {
  kid: string;
  answer: (state: KeyState) => void;
}

async function setup() {
  const { privateKey } = (await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  )) as CryptoKeyPair;
  let active = 'kid-1';
  const reads: PendingRead[] = [];
  const store = {
    findActive: async () => ({ kid: active, purpose: 'oauth', state: 'active' }) as KeyRow,
    stateOf: (kid: string) => new Promise<KeyState>((answer) => reads.push({ kid, answer })),
  } as unknown as KeyStore;
  const signing = createSigning({
    store,
    log: createLogger({ level: 'silent' }),
    now: Date.now,
    issuer: () => 'https://hearth.example.test',
    unseal: async () => ({ key: privateKey }) as never,
    open: () => true,
    failed: () => {},
  });
  const sign = () => signing.sign('oauth', (iss, t) => ({ typ: 'at+jwt', claims: { iss, iat: t, sub: 's' } }) as never);
  const kidOf = (jws: string) => JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()).kid as string;
  /** Waits until `n` reads are pending (the signature's read starts after its key is opened and the draft built). */
  const pending = async (n: number) => {
    while (reads.length < n) await new Promise((resolve) => setImmediate(resolve));
  };
  return { reads, sign, kidOf, pending, rotate: (kid: string) => (active = kid) };
}

describe('signing: the key state read before release', () => {
  it('releases no token once a read says its key is no longer active: one reload, and the new key signs', async () => {
    const { reads, sign, kidOf, pending, rotate } = await setup();
    const first = sign();
    await pending(1);
    reads[0]!.answer('active');
    expect(kidOf(await first)).toBe('kid-1');
    // Another replica revoked kid-1 and activated kid-2; this process still caches kid-1.
    rotate('kid-2');
    const late = sign();
    await pending(2);
    expect(reads[1]!.kid).toBe('kid-1');
    reads[1]!.answer('revoked');
    await pending(3);
    expect(reads[2]!.kid).toBe('kid-2');
    reads[2]!.answer('active');
    expect(kidOf(await late)).toBe('kid-2');
  });

  it('fails closed when the reloaded key is not active either', async () => {
    const { reads, sign, pending } = await setup();
    const t = sign();
    await pending(1);
    reads[0]!.answer('revoked');
    await pending(2);
    reads[1]!.answer('retired');
    await expect(t).rejects.toMatchObject({ code: 'signing_unavailable' });
  });
});
