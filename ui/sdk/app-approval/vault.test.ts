/**
 * The local vault under Node's WebCrypto: the PIN and local methods end to end, the passkey wrap path with a recorded
 * PRF output (the WebAuthn part runs in test/e2e/vault.spec.ts), tampering, AAD bindings, config validation and lock.
 */
import nodeCrypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { b64u, fromB64u } from './encoding.ts';
import { AppApprovalClientError, appApproval, VAULT_PIN_KDF, type VaultConfig, type VaultPinMethod, type VaultRecordBlob } from './index.ts';
import { envelopeForTests, importPair, parseConfig, pinWrapKey, prfWrapKey, VaultSession } from './vault.ts';

const { vault } = appApproval;
const enc = new TextEncoder();

async function code(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return err instanceof AppApprovalClientError ? err.code : `other:${String(err)}`;
  }
  return 'no error';
}

/** Flips one bit of a base64url field at byte `at` (negative: from the end). */
function flip(text: string, at: number): string {
  const bytes = fromB64u(text);
  const i = at < 0 ? bytes.length + at : at;
  bytes[i] = bytes[i]! ^ 0x01;
  return b64u(bytes);
}

const record = (key: CryptoKeyPair) => ({ issuer: 'https://hearth.example', deviceId: 'dev-1', key, labels: ['a', 1, true, null] });
const isBinding = (v: unknown) => {
  const o = v as { issuer?: unknown; deviceId?: unknown; key?: CryptoKeyPair };
  if (typeof o?.issuer !== 'string' || typeof o.deviceId !== 'string' || !(o.key?.privateKey instanceof CryptoKey)) throw new Error('not a binding');
  return o as { issuer: string; deviceId: string; key: CryptoKeyPair; labels: unknown[] };
};

async function signsFor(opened: CryptoKeyPair, original: CryptoKeyPair): Promise<boolean> {
  const data = enc.encode('hello');
  const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, opened.privateKey, data);
  return crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, original.publicKey, sig, data);
}

describe('vault with a PIN', () => {
  it('wraps the vault key under Argon2id(64 MiB, t=3, p=1) and round-trips records with key pairs', async () => {
    const s = vault.create();
    expect(s.locked).toBe(false);
    const pin = await s.pin('482913');
    expect(pin).toMatchObject({ type: 'pin', kdf: 'argon2id-64m-t3-p1' });
    expect(fromB64u(pin.salt)).toHaveLength(16);
    expect(fromB64u(pin.iv)).toHaveLength(12);
    expect(fromB64u(pin.wrappedKey)).toHaveLength(48);
    const config = s.config();
    expect(config).toEqual({ version: 1, id: s.id, methods: [pin] });
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/);

    // The exact KDF: Node's own Argon2id with the same parameters opens the envelope.
    const raw = nodeCrypto.argon2Sync('argon2id', {
      message: '482913',
      nonce: Buffer.from(fromB64u(pin.salt)),
      parallelism: 1,
      tagLength: 32,
      memory: 65536,
      passes: 3,
    });
    const wrapKey = await crypto.subtle.importKey('raw', new Uint8Array(raw), 'AES-GCM', false, ['decrypt']);
    const vaultKey = await envelopeForTests.unwrap(wrapKey, pin, envelopeForTests.aad(s.id, 'pin', pin.salt, VAULT_PIN_KDF));
    expect(vaultKey).toHaveLength(32);

    const key = await s.createKey();
    expect(key.privateKey.extractable).toBe(false);
    const blob = await s.sealRecord(record(key), 'https://hearth.example dev-1');
    expect(Object.keys(blob).sort()).toEqual(['data', 'iv', 'version']);
    expect(JSON.stringify(blob)).not.toContain('dev-1');
    const again = await s.sealRecord(record(key), 'https://hearth.example dev-1');
    expect(again.iv).not.toBe(blob.iv);

    // Persist only after a successful unlock round trip.
    const opened = await vault.unlock(JSON.parse(JSON.stringify(config)), config.methods[0]!, '482913');
    expect(opened.id).toBe(s.id);
    const r = await opened.openRecord(blob, 'https://hearth.example dev-1', isBinding);
    expect(r).toMatchObject({ issuer: 'https://hearth.example', deviceId: 'dev-1', labels: ['a', 1, true, null] });
    expect(r.key.privateKey.extractable).toBe(false);
    await expect(crypto.subtle.exportKey('jwk', r.key.privateKey)).rejects.toThrow();
    expect(await signsFor(r.key, key)).toBe(true);
    // An opened key pair can be sealed again by that session.
    const resealed = await opened.sealRecord({ ...r, deviceId: 'dev-2' }, 'ctx');
    expect((await opened.openRecord(resealed, 'ctx', isBinding)).deviceId).toBe('dev-2');
    // The method can be named by its type too.
    expect((await vault.unlock(config, 'pin', '482913')).id).toBe(s.id);
  });

  it('refuses a wrong PIN, a malformed PIN and a tampered envelope', async () => {
    const s = vault.create();
    const pin = await s.pin('000000');
    const config = s.config();
    expect(await code(vault.unlock(config, 'pin', '000001'))).toBe('vault_unlock_failed');
    expect(await code(vault.unlock(config, 'pin', '12345'))).toBe('invalid_argument');
    expect(await code(vault.unlock(config, 'pin', 'abcdef'))).toBe('invalid_argument');
    expect(await code(vault.unlock(config, 'pin'))).toBe('invalid_argument');
    expect(await code(s.pin('1234567'))).toBe('invalid_argument');
    const tampered = (m: Partial<VaultPinMethod>): VaultConfig => ({ ...config, methods: [{ ...pin, ...m }] });
    expect(await code(vault.unlock(tampered({ wrappedKey: flip(pin.wrappedKey, 0) }), 'pin', '000000'))).toBe('vault_unlock_failed');
    expect(await code(vault.unlock(tampered({ wrappedKey: flip(pin.wrappedKey, -1) }), 'pin', '000000'))).toBe('vault_unlock_failed'); // tag
    expect(await code(vault.unlock(tampered({ iv: flip(pin.iv, 3) }), 'pin', '000000'))).toBe('vault_unlock_failed');
    expect(await code(vault.unlock(tampered({ salt: flip(pin.salt, 5) }), 'pin', '000000'))).toBe('vault_unlock_failed');
    // The envelope is bound to the vault ID.
    expect(await code(vault.unlock({ ...config, id: crypto.randomUUID() }, 'pin', '000000'))).toBe('vault_unlock_failed');
    // A method object must be the config's own.
    expect(await code(vault.unlock(config, { ...pin, iv: flip(pin.iv, 0) }, '000000'))).toBe('invalid_argument');
    expect(await code(vault.unlock(config, 'passkey'))).toBe('invalid_argument');
  });
});

describe('vault envelopes and records', () => {
  it('binds the envelope to version, vault ID, method, salt and KDF or credential ID (recorded PRF output)', async () => {
    const prf = fromB64u('q2u0n3cXfQ1v6D0c2mV1Q6Z9cH8y3xY0bWq1sT4uV7w');
    const origin = 'http://localhost:4173';
    const vaultKey = crypto.getRandomValues(new Uint8Array(32));
    const id = crypto.randomUUID();
    const salt = b64u(crypto.getRandomValues(new Uint8Array(32)));
    const cred = b64u(crypto.getRandomValues(new Uint8Array(16)));
    const wrapKey = await prfWrapKey(prf, origin);
    const m = await envelopeForTests.wrap(wrapKey, vaultKey, envelopeForTests.aad(id, 'passkey', salt, cred));

    // The derivation is exactly HKDF-SHA-256(PRF output, salt = app origin, info = hearth-login-vault-wrap-v1).
    const okm = Buffer.from(nodeCrypto.hkdfSync('sha256', Buffer.from(prf), Buffer.from(origin), Buffer.from('hearth-login-vault-wrap-v1'), 32));
    const independent = await crypto.subtle.importKey('raw', new Uint8Array(okm), 'AES-GCM', false, ['decrypt']);
    expect(await envelopeForTests.unwrap(independent, m, envelopeForTests.aad(id, 'passkey', salt, cred))).toEqual(vaultKey);
    expect(await envelopeForTests.unwrap(await prfWrapKey(prf, origin), m, envelopeForTests.aad(id, 'passkey', salt, cred))).toEqual(vaultKey);

    const refused = async (key: CryptoKey, aad: Uint8Array<ArrayBuffer>) => code(envelopeForTests.unwrap(key, m, aad));
    expect(await refused(wrapKey, envelopeForTests.aad(crypto.randomUUID(), 'passkey', salt, cred))).toBe('vault_unlock_failed'); // other vault
    expect(await refused(wrapKey, envelopeForTests.aad(id, 'pin', salt, cred))).toBe('vault_unlock_failed'); // other method
    expect(await refused(wrapKey, envelopeForTests.aad(id, 'passkey', flip(salt, 0), cred))).toBe('vault_unlock_failed'); // other salt
    expect(await refused(wrapKey, envelopeForTests.aad(id, 'passkey', salt, flip(cred, 0)))).toBe('vault_unlock_failed'); // other credential
    expect(await refused(await prfWrapKey(prf, 'http://localhost:4174'), envelopeForTests.aad(id, 'passkey', salt, cred))).toBe('vault_unlock_failed'); // other origin
    expect(await refused(await prfWrapKey(fromB64u(flip(b64u(prf), 0)), origin), envelopeForTests.aad(id, 'passkey', salt, cred))).toBe('vault_unlock_failed'); // other PRF output
    expect(await code(prfWrapKey(new Uint8Array(16), origin))).toBe('vault_unsupported');
  });

  it('refuses tampered records, IVs and tags, another context and another vault ID under the same key', async () => {
    const s = vault.create();
    const local = await s.local();
    const rawKey = fromB64u(local.key);
    const blob = await s.sealRecord({ n: 1 }, 'ctx-a');
    const id = (v: unknown) => v;
    expect(await s.openRecord(blob, 'ctx-a', id)).toEqual({ n: 1 });
    const bad: VaultRecordBlob[] = [
      { ...blob, data: flip(blob.data, 0) },
      { ...blob, data: flip(blob.data, -1) }, // the tag
      { ...blob, iv: flip(blob.iv, 11) },
      { ...blob, data: blob.data.slice(0, -4) },
      { ...blob, version: 2 as 1 },
      { ...blob, extra: 1 } as VaultRecordBlob,
      { ...blob, iv: 'not base64url!' },
    ];
    for (const b of bad) expect(await code(s.openRecord(b, 'ctx-a', id))).toBe('vault_record_invalid');
    expect(await code(s.openRecord(blob, 'ctx-b', id))).toBe('vault_record_invalid');
    // Same vault key, other vault ID: the record AAD binds the ID.
    const twin = new VaultSession(crypto.randomUUID(), rawKey, []);
    expect(await code(twin.openRecord(blob, 'ctx-a', id))).toBe('vault_record_invalid');
    expect(await new VaultSession(s.id, rawKey, []).openRecord(blob, 'ctx-a', id)).toEqual({ n: 1 });
    // Validation failures are record failures too; the validator's result is returned.
    expect(
      await code(
        s.openRecord(blob, 'ctx-a', () => {
          throw new Error('nope');
        }),
      ),
    ).toBe('vault_record_invalid');
    expect(await s.openRecord(blob, 'ctx-a', (v) => (v as { n: number }).n + 1)).toBe(2);
    expect(await code(s.openRecord(blob, '', id))).toBe('invalid_argument');
  });

  it('seals only JSON values and its own key pairs, and checks imported pairs correspond', async () => {
    const s = vault.create();
    await s.local();
    const foreign = await appApproval.createKey();
    expect(await code(s.sealRecord({ key: foreign }, 'c'))).toBe('invalid_argument');
    expect(await code(s.sealRecord({ when: new Date() }, 'c'))).toBe('invalid_argument');
    expect(await code(s.sealRecord({ n: Number.NaN }, 'c'))).toBe('invalid_argument');
    expect(await code(s.sealRecord({ $hearthVaultKeyPair: {} }, 'c'))).toBe('invalid_argument');
    const nested = await s.createKey();
    const blob = await s.sealRecord({ devices: [{ key: nested }] }, 'c');
    const out = await s.openRecord(blob, 'c', (v) => v as { devices: Array<{ key: CryptoKeyPair }> });
    expect(await signsFor(out.devices[0]!.key, nested)).toBe(true);

    const a = await crypto.subtle.exportKey('jwk', (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])).privateKey);
    const b = await crypto.subtle.exportKey('jwk', (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign'])).privateKey);
    expect((await importPair(a)).privateKey.extractable).toBe(false);
    expect(await code(importPair({ ...a, d: b.d }))).toBe('vault_record_invalid');
  });
});

describe('vault configs', () => {
  it('keeps the unprotected local method alone', async () => {
    const s = vault.create();
    const local = await s.local();
    expect(s.config().methods).toEqual([local]);
    expect(await code(s.pin('123456'))).toBe('vault_invalid_config');
    const opened = await vault.unlock(s.config(), 'local');
    expect(opened.id).toBe(s.id);

    const p = vault.create();
    const pin = await p.pin('123456');
    expect(await code(p.local())).toBe('vault_invalid_config');
    expect(await code(() => parseConfig({ version: 1, id: p.id, methods: [local, pin] }))).toBe('vault_invalid_config');
    expect(await code(() => parseConfig({ version: 1, id: p.id, methods: [pin, local] }))).toBe('vault_invalid_config');
    expect(await code(vault.unlock({ version: 1, id: p.id, methods: [local, pin] }, 'local'))).toBe('vault_invalid_config');
  });

  it('validates version, ID, methods, fields and the KDF', async () => {
    const s = vault.create();
    const pin = await s.pin('123456');
    const ok = s.config();
    expect(parseConfig(JSON.parse(JSON.stringify(ok)))).toEqual(ok);
    const passkey = {
      type: 'passkey',
      credentialId: b64u(new Uint8Array(16)),
      rpId: 'localhost',
      salt: b64u(new Uint8Array(32)),
      iv: b64u(new Uint8Array(12)),
      wrappedKey: b64u(new Uint8Array(48)),
    };
    expect(parseConfig({ ...ok, methods: [pin, passkey] }).methods).toHaveLength(2);
    const invalid: unknown[] = [
      null,
      [],
      'x',
      { ...ok, version: 2 },
      { ...ok, id: 'not-a-uuid' },
      { ...ok, methods: [] },
      { ...ok, methods: 'pin' },
      { ...ok, methods: [pin, pin] },
      { ...ok, methods: [passkey, passkey] },
      { ...ok, extra: true },
      { version: 1, id: ok.id },
      { ...ok, methods: [{ ...pin, kdf: 'argon2id-19m-t2-p1' }] },
      { ...ok, methods: [{ ...pin, kdf: undefined }] },
      { ...ok, methods: [{ ...pin, memory: 65536 }] },
      { ...ok, methods: [{ ...pin, salt: b64u(new Uint8Array(8)) }] },
      { ...ok, methods: [{ ...pin, iv: `${pin.iv}=` }] },
      { ...ok, methods: [{ ...passkey, rpId: '' }] },
      { ...ok, methods: [{ type: 'local', key: b64u(new Uint8Array(16)) }] },
      { ...ok, methods: [{ type: 'password' }] },
    ];
    for (const c of invalid) expect(await code(() => parseConfig(c)), JSON.stringify(c)?.slice(0, 120)).toBe('vault_invalid_config');
    expect(() => parseConfig({ ...ok, methods: [{ ...pin, kdf: 'argon2id-19m-t2-p1' }] })).toThrow(/unknown PIN KDF/);
    expect(await code(vault.unlock({ ...ok, methods: [{ ...pin, kdf: 'argon2id-19m-t2-p1' as typeof VAULT_PIN_KDF }] }, 'pin', '123456'))).toBe(
      'vault_invalid_config',
    );
    expect(await code(() => vault.create().config())).toBe('vault_invalid_config');
  });

  it('adds a second method to an unlocked vault with the same vault key', async () => {
    const s = vault.create();
    await s.pin('111111');
    const blob = await s.sealRecord({ v: 'x' }, 'c');
    const opened = await vault.unlock(s.config(), 'pin', '111111');
    await opened.pin('222222'); // replaces the PIN
    const config = opened.config();
    expect(config.methods).toHaveLength(1);
    const again = await vault.unlock(config, 'pin', '222222');
    expect(await again.openRecord(blob, 'c', (v) => v)).toEqual({ v: 'x' });
    expect(await code(vault.unlock(config, 'pin', '111111'))).toBe('vault_unlock_failed');
  });

  it('reports passkeys as unsupported under Node without opening anything', async () => {
    expect(await vault.capability()).toBe('unsupported');
    expect(await code(vault.create().passkey())).toBe('vault_unsupported');
  });
});

describe('vault lock', () => {
  it('invalidates the session: every later call fails and results in flight are discarded', async () => {
    const s = vault.create();
    await s.local();
    const key = await s.createKey();
    const blob = await s.sealRecord({ key }, 'c');

    // Each call's outcome is taken at once (code() attaches the handler): one that fails while the test awaits another
    // is never an unhandled rejection.
    const opening = code(s.openRecord(blob, 'c', (v) => v));
    const sealing = code(s.sealRecord({ key }, 'c'));
    const creating = code(s.createKey());
    const pinning = s.pin('123456').catch((e: unknown) => e);
    s.lock();
    expect(s.locked).toBe(true);
    expect(await opening).toBe('vault_locked');
    expect(await sealing).toBe('vault_locked');
    expect(await creating).toBe('vault_locked');
    expect(((await pinning) as AppApprovalClientError).code).toBe('vault_invalid_config'); // local vaults refuse a PIN first

    const p = vault.create();
    const slow = code(p.pin('123456'));
    p.lock();
    expect(await slow).toBe('vault_locked');

    for (const call of [
      () => s.id,
      () => s.config(),
      () => s.sealRecord({}, 'c'),
      () => s.openRecord(blob, 'c', (v) => v),
      () => s.createKey(),
      () => s.local(),
      () => s.pin('123456'),
      () => s.passkey(),
    ]) {
      expect(await code(call)).toBe('vault_locked');
    }
    s.lock(); // idempotent
    expect(await code(pinWrapKey('123456', new Uint8Array(16)).then(() => null))).toBe('no error');
  });
});
