import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretStore } from '../../core/secrets/secrets.ts';
import { EnvelopeError, KekConfigError, kekFingerprint, open, parseKek, resolveKeks, seal } from './keys.crypto.ts';

const hex = () => crypto.randomBytes(32).toString('hex');

describe('KEK', () => {
  it('accepts exactly 64 hex characters and never echoes a bad value', () => {
    const k = parseKek(hex(), 'X');
    expect(k.key).toHaveLength(32);
    expect(k.id).toMatch(/^[0-9a-f]{16}$/);
    for (const bad of ['abc', 'zz'.repeat(32), `${hex()}aa`, 'secret-value-secret-value-secret-value-secret-value-secret-value!']) {
      expect(() => parseKek(bad, 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY')).toThrow(KekConfigError);
      try {
        parseKek(bad, 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY');
      } catch (err) {
        expect((err as Error).message).toMatch(/^HEARTH_IDENTITY_KEY_ENCRYPTION_KEY must be 64 hexadecimal characters/);
        expect((err as Error).message).not.toContain(bad);
      }
    }
  });

  it('fingerprints are stable, short and differ per key', () => {
    const a = Buffer.from(hex(), 'hex');
    expect(kekFingerprint(a)).toBe(kekFingerprint(Buffer.from(a)));
    expect(kekFingerprint(a)).not.toBe(kekFingerprint(Buffer.from(hex(), 'hex')));
  });

  it('generates the current KEK into the secret store (hex, 0600) when the configuration has none', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-kek-'));
    try {
      const store = new SecretStore(dir);
      const first = resolveKeks({}, store);
      expect(first.source).toBe('secret-store');
      const file = path.join(dir, 'secrets', 'identity-kek');
      expect(fs.readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(resolveKeks({}, store).current.id).toBe(first.current.id);
      const fromEnv = hex();
      const env = resolveKeks({ identityKek: fromEnv, identityNextKek: hex(), identityPreviousKek: fromEnv }, store);
      expect(env.source).toBe('environment');
      expect(env.current.id).toBe(parseKek(fromEnv, 'x').id);
      expect(env.next).not.toBeNull();
      expect(env.previous).toBeNull(); // the same as current: nothing to decrypt with it
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('envelope', () => {
  const kek = parseKek(hex(), 'x');
  const jwk = JSON.stringify({ kty: 'RSA', d: 'private' });

  it('round-trips and uses a fresh IV each time', () => {
    const a = seal(kek, jwk, 'k1', 'session');
    const b = seal(kek, jwk, 'k1', 'session');
    expect(a).not.toBe(b);
    expect(a).not.toContain('private');
    expect(open(kek, a, 'k1', 'session')).toBe(jwk);
  });

  it('fails on a wrong KEK, a moved envelope or altered ciphertext', () => {
    const env = seal(kek, jwk, 'k1', 'session');
    expect(() => open(parseKek(hex(), 'y'), env, 'k1', 'session')).toThrow(EnvelopeError);
    expect(() => open(kek, env, 'k2', 'session')).toThrow(EnvelopeError);
    expect(() => open(kek, env, 'k1', 'oauth')).toThrow(EnvelopeError);
    const parts = env.split('.');
    const ct = Buffer.from(parts[2]!, 'base64url');
    ct[0]! ^= 1;
    expect(() => open(kek, [parts[0], parts[1], ct.toString('base64url'), parts[3]].join('.'), 'k1', 'session')).toThrow(EnvelopeError);
    expect(() => open(kek, 'garbage', 'k1', 'session')).toThrow(/malformed/);
  });
});
