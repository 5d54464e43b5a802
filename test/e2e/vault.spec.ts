/**
 * The passkey method of the authenticator's local vault (ui/sdk/app-approval/vault.ts) in a real browser: Chromium's
 * virtual authenticator (CDP `WebAuthn.addVirtualAuthenticator` with PRF and user verification). The vault is bundled
 * with esbuild to an IIFE and served with a one-page harness from a small HTTP server started here; the page is opened
 * at `http://localhost:<port>` (a secure context with a host name, as WebAuthn requires; an IP address is no RP ID),
 * under a strict CSP that allows only its own scripts and WebAssembly (`'wasm-unsafe-eval'`, for Argon2id).
 */
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CDPSession, expect, type Page, test } from '@playwright/test';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'";
let server: http.Server | null = null;
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const bundle = await build({
    entryPoints: [path.join(repoRoot, 'ui/sdk/app-approval/index.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'HearthAppApproval',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const js = bundle.outputFiles[0]!.text;
  const html =
    '<!doctype html><html><head><meta charset="utf-8"><title>Vault harness</title><script src="/sdk.js"></script></head><body><h1>Vault harness</h1></body></html>';
  server = http.createServer((req, res) => {
    if (req.url === '/') {
      // The CSP an authenticator app needs: its own scripts, plus WebAssembly for the PIN's Argon2id.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP }).end(html);
    } else if (req.url === '/no-wasm') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'; script-src 'self'" }).end(html);
    } else if (req.url === '/sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(js);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  base = `http://localhost:${(server.address() as net.AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function authenticator(page: Page, options: { hasPrf: boolean; isUserVerified?: boolean }): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: options.isUserVerified ?? true,
      automaticPresenceSimulation: true,
      hasPrf: options.hasPrf,
    },
  });
  return { cdp, authenticatorId };
}

declare global {
  interface Window {
    HearthAppApproval: typeof import('../../ui/sdk/app-approval/index.ts');
  }
}

test('vault with a passkey: PRF-wrapped vault key, unlock round trip, records, tampering and lock', async ({ page }) => {
  await page.goto(`${base}/`);
  const { cdp, authenticatorId } = await authenticator(page, { hasPrf: true });

  const result = await page.evaluate(async () => {
    const { appApproval, AppApprovalClientError } = window.HearthAppApproval;
    const { vault } = appApproval;
    const codeOf = async (p: Promise<unknown>) => {
      try {
        await p;
        return 'no error';
      } catch (err) {
        return err instanceof AppApprovalClientError ? err.code : `other:${String(err)}`;
      }
    };
    const capability = await vault.capability();
    const session = vault.create();
    const method = await session.passkey();
    const config = session.config();
    const key = await session.createKey();
    const blob = await session.sealRecord({ issuer: 'https://hearth.example', deviceId: 'dev-1', key }, 'ctx');

    // The config is persisted only after this round trip succeeds.
    const opened = await vault.unlock(JSON.parse(JSON.stringify(config)), 'passkey');
    const rec = await opened.openRecord(blob, 'ctx', (v) => v as { deviceId: string; key: CryptoKeyPair });
    const data = new TextEncoder().encode('hello');
    const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, rec.key.privateKey, data);
    const verifies = await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key.publicKey, sig, data);

    // A PIN can sit beside the passkey; local cannot.
    await opened.pin('246810');
    const both = opened.config();
    const viaPin = await vault.unlock(both, 'pin', '246810');
    const localRefused = await codeOf(opened.local());

    // Tampering: another vault ID or a changed wrapped key fails after the passkey answered.
    const flip = (t: string) => (t[0] === 'A' ? 'B' : 'A') + t.slice(1);
    const otherId = await codeOf(vault.unlock({ ...config, id: crypto.randomUUID() }, 'passkey'));
    const m = config.methods[0] as typeof method;
    const tampered = await codeOf(vault.unlock({ ...config, methods: [{ ...m, wrappedKey: flip(m.wrappedKey) }] }, 'passkey'));
    const otherSalt = await codeOf(vault.unlock({ ...config, methods: [{ ...m, salt: flip(m.salt) }] }, 'passkey'));
    const otherHost = await codeOf(vault.unlock({ ...config, methods: [{ ...m, rpId: 'example.com' }] }, 'passkey'));

    // An aborted dialog.
    const controller = new AbortController();
    controller.abort();
    const aborted = await codeOf(vault.unlock(config, 'passkey', undefined, controller.signal));

    opened.lock();
    const afterLock = await codeOf(opened.openRecord(blob, 'ctx', (v) => v));
    return {
      capability,
      method,
      config,
      verifies,
      deviceId: rec.deviceId,
      extractable: rec.key.privateKey.extractable,
      viaPinId: viaPin.id,
      bothTypes: both.methods.map((x) => x.type),
      localRefused,
      otherId,
      tampered,
      otherSalt,
      otherHost,
      aborted,
      afterLock,
      host: location.hostname,
    };
  });

  expect(result.capability).toBe('supported');
  expect(result.method).toMatchObject({ type: 'passkey', rpId: 'localhost' });
  expect(result.config).toEqual({ version: 1, id: expect.stringMatching(/^[0-9a-f-]{36}$/), methods: [result.method] });
  expect(result.verifies).toBe(true);
  expect(result.deviceId).toBe('dev-1');
  expect(result.extractable).toBe(false);
  expect(result.viaPinId).toBe(result.config.id);
  expect(result.bothTypes).toEqual(['passkey', 'pin']);
  expect(result.localRefused).toBe('vault_invalid_config');
  expect(result.otherId).toBe('vault_unlock_failed');
  expect(result.tampered).toBe('vault_unlock_failed');
  expect(result.otherSalt).toBe('vault_unlock_failed');
  expect(result.otherHost).toBe('vault_unsupported');
  expect(result.aborted).toBe('aborted');
  expect(result.afterLock).toBe('vault_locked');

  // The credential lives on the virtual authenticator for RP ID localhost, as a non-discoverable credential.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.rpId).toBe('localhost');
  expect(credentials[0]!.isResidentCredential).toBe(false);
  expect(Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url')).toBe(result.method.credentialId);
});

test('vault with a passkey: an authenticator without PRF is refused', async ({ page }) => {
  await page.goto(`${base}/`);
  await authenticator(page, { hasPrf: false });
  const code = await page.evaluate(async () => {
    const { appApproval, AppApprovalClientError } = window.HearthAppApproval;
    try {
      await appApproval.vault.create().passkey();
      return 'no error';
    } catch (err) {
      return err instanceof AppApprovalClientError ? err.code : `other:${String(err)}`;
    }
  });
  expect(code).toBe('vault_unsupported');
});

test('vault with a passkey: a passkey that cannot verify the user is refused', async ({ page }) => {
  await page.goto(`${base}/`);
  await authenticator(page, { hasPrf: true, isUserVerified: false });
  const code = await page.evaluate(async () => {
    const { appApproval, AppApprovalClientError } = window.HearthAppApproval;
    try {
      await appApproval.vault.create().passkey();
      return 'no error';
    } catch (err) {
      return err instanceof AppApprovalClientError ? err.code : `other:${String(err)}`;
    }
  });
  expect(code).toBe('vault_cancelled');
});

test('vault sessions lock themselves when the page is hidden or left (lockWhenHidden)', async ({ page }) => {
  await page.goto(`${base}/`);
  const result = await page.evaluate(async () => {
    const { vault } = window.HearthAppApproval.appApproval;
    const hidden = vault.create();
    await hidden.local();
    hidden.lockWhenHidden();
    const left = vault.create();
    await left.local();
    left.lockWhenHidden();
    const detached = vault.create();
    await detached.local();
    const off = detached.lockWhenHidden();
    off();
    const before = [hidden.locked, left.locked, detached.locked];

    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
    const afterPagehide = [hidden.locked, left.locked, detached.locked];

    const again = vault.create();
    await again.local();
    again.lockWhenHidden();
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    return { before, afterPagehide, afterHidden: again.locked, detachedStillOpen: !detached.locked };
  });
  expect(result.before).toEqual([false, false, false]);
  expect(result.afterPagehide).toEqual([true, true, false]);
  expect(result.afterHidden).toBe(true);
  expect(result.detachedStillOpen).toBe(true);
});

test('a page whose CSP forbids WebAssembly gets vault_unsupported for a PIN, not a raw CompileError', async ({ page }) => {
  await page.goto(`${base}/no-wasm`);
  const code = await page.evaluate(async () => {
    const { appApproval, AppApprovalClientError } = window.HearthAppApproval;
    try {
      await appApproval.vault.create().pin('123456');
      return 'no error';
    } catch (err) {
      return err instanceof AppApprovalClientError ? err.code : `other:${String(err)}`;
    }
  });
  expect(code).toBe('vault_unsupported');
});

test('createKey: the non-extractable key pair survives IndexedDB (structured clone) and still signs', async ({ page }) => {
  await page.goto(`${base}/`);
  const result = await page.evaluate(async () => {
    const { appApproval } = window.HearthAppApproval;
    const key = await appApproval.createKey();
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('vault-spec', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('keys');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const tx = (mode: IDBTransactionMode) => db.transaction('keys', mode).objectStore('keys');
    await new Promise((resolve, reject) => {
      const put = tx('readwrite').put({ issuer: 'https://hearth.example', deviceId: 'dev-1', key }, 'binding');
      put.onsuccess = resolve;
      put.onerror = () => reject(put.error);
    });
    const stored = await new Promise<{ key: CryptoKeyPair }>((resolve, reject) => {
      const get = tx('readonly').get('binding');
      get.onsuccess = () => resolve(get.result);
      get.onerror = () => reject(get.error);
    });
    const data = new TextEncoder().encode('hello');
    const sig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, stored.key.privateKey, data);
    let exported = 'refused';
    try {
      await crypto.subtle.exportKey('jwk', stored.key.privateKey);
      exported = 'exported';
    } catch {
      /* expected */
    }
    db.close();
    return {
      sameObject: stored.key === key,
      extractable: stored.key.privateKey.extractable,
      exported,
      signatureBytes: sig.byteLength,
      verifies: await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key.publicKey, sig, data),
    };
  });
  expect(result).toEqual({ sameObject: false, extractable: false, exported: 'refused', signatureBytes: 64, verifies: true });
});
