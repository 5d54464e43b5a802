/**
 * Key pairs generated ahead of need (keys.material.ts `startKeyPairs`): a first start begins generating its signing
 * keys' RSA pairs before the store opens, and `generate` uses those pairs first, in order, then makes new ones. The
 * pairs are real (RSA 2048); a key made from an early pair is sealed and opens like any other.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type KekSet, parseKek } from './keys.crypto.ts';
import { createKeyMaterial, type EarlyKeyPairs, type Material, startKeyPairs } from './keys.material.ts';
import type { KeyRow } from './keys.store.ts';

const keks: KekSet = { current: parseKek(crypto.randomBytes(32).toString('hex'), 'KEK'), next: null, previous: null, source: 'environment' };

/** The stored row of a freshly generated key, as the key store would hold it. */
function rowOf(m: Material): KeyRow {
  return {
    kid: m.kid,
    purpose: m.purpose,
    state: 'active',
    algorithm: 'RS256',
    public_jwk: m.publicJwk,
    thumbprint: m.thumbprint,
    private_key_envelope: m.envelope,
    encryption_key_id: m.encryptionKeyId,
  } as KeyRow;
}

const modulusOf = (m: Material) => (JSON.parse(m.publicJwk) as { n: string }).n;

describe('key pairs generated ahead of need', () => {
  it('generate takes the early pairs in order, then makes new ones; each key opens and signs', async () => {
    const pairs = [0, 1].map(() => crypto.generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 0x10001 }));
    const queue = [...pairs];
    const early: EarlyKeyPairs = {
      take: () => {
        const next = queue.shift();
        return next && Promise.resolve(next);
      },
      get left() {
        return queue.length;
      },
    };
    const material = createKeyMaterial(() => keks, early);
    const made = [await material.generate('session'), await material.generate('oauth'), await material.generate('invocation')];
    const moduli = pairs.map((p) => (p.publicKey.export({ format: 'jwk' }) as { n: string }).n);
    expect(made.slice(0, 2).map(modulusOf)).toEqual(moduli);
    expect(moduli).not.toContain(modulusOf(made[2]!));
    expect(early.left).toBe(0);
    for (const m of made) {
      const { key } = await material.unseal(rowOf(m));
      const signature = await crypto.subtle.sign('RSASSA-PKCS1-v1_5', key, Buffer.from('probe'));
      expect(signature.byteLength).toBe(256);
    }
  });

  it('startKeyPairs starts every pair at once and hands each out once', async () => {
    const early = startKeyPairs(3);
    expect(early.left).toBe(3);
    const taken = await Promise.all([early.take(), early.take(), early.take()]);
    expect(early.left).toBe(0);
    expect(early.take()).toBeUndefined();
    const moduli = taken.map((p) => (p!.publicKey.export({ format: 'jwk' }) as { n: string }).n);
    expect(new Set(moduli).size).toBe(3);
    for (const p of taken) expect(p!.privateKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048, publicExponent: 65537n });
  });
});
