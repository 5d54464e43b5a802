/**
 * Hearth over HTTPS with its own certificate authority (`--tls internal`), reached by a non-loopback name
 * (`hearth.test` resolved to 127.0.0.1 in this process) by clients that trust nothing but Hearth's root: Node's
 * fetch, `https.request`, `openid-client`. Also the redirect listener, renewal under an open SSE stream, and the
 * start-up errors of the TLS settings.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretStore } from '../../../server/core/secrets/secrets.ts';
import { TlsStore } from '../../../server/identity/keys/tls/tls.store.ts';
import { rawCall } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { resolveTestHosts } from '../../helpers/test-hosts.ts';
import { until } from '../../helpers/wait.ts';

const NAME = 'hearth.test';
const PASSWORD = 'first-admin-Passw0rd!';

// hearth.test → 127.0.0.1 for everything in this process.
resolveTestHosts([NAME]);

/** A TLS handshake with `ca` as the only trust; resolves with the peer certificate, rejects on a certificate error. */
function handshake(port: number, ca: string[] | undefined, servername = NAME): Promise<tls.DetailedPeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
      const cert = socket.getPeerCertificate(true);
      socket.end();
      resolve(cert);
    });
    socket.once('error', reject);
  });
}

let s: TestServer;
let root: string;
let base: string;

beforeAll(async () => {
  s = await startTestServer({ tls: 'internal', tlsNames: [NAME], httpRedirectPort: 0, authenticatorPort: 0, mdns: false });
  root = s.tls.caPem()!;
  base = s.publicUrl;
  // From here on, global fetch (and openid-client) trusts Hearth's root and nothing else.
  tls.setDefaultCACertificates([root]);
});
afterAll(async () => {
  await s?.stop();
});

describe('--tls internal', () => {
  it('serves a leaf that verifies with only the root as trust, for the name, the .local name, localhost and the listening address', async () => {
    expect(base).toBe(`https://${NAME}:${s.port}`);
    expect(s.url).toBe(base);
    const cert = await handshake(s.port, [root]);
    const sans = (cert.subjectaltname ?? '').split(', ');
    expect(sans).toEqual(expect.arrayContaining([`DNS:${NAME}`, 'DNS:localhost', 'IP Address:127.0.0.1']));
    expect(sans.some((n) => /^DNS:[a-z0-9-]+\.local$/.test(n))).toBe(true);
    const lifetimeDays = (Date.parse(cert.valid_to) - Date.parse(cert.valid_from)) / 86_400_000;
    expect(lifetimeDays).toBeGreaterThan(29);
    expect(lifetimeDays).toBeLessThan(31);
    expect(cert.issuerCertificate.subject.CN).toMatch(/^Hearth Local Authority - \d{4} ECC Root$/);
    // Each name verifies (the hostname check of a real client), and the public roots alone do not trust it.
    for (const n of [NAME, 'localhost']) await expect(handshake(s.port, [root], n)).resolves.toBeTruthy();
    await expect(handshake(s.port, [...tls.getCACertificates('bundled')])).rejects.toThrow(/certificate/i);
    const viaName = await fetch(`${base}/healthz`);
    expect(viaName.status).toBe(200);
    const viaAddress = await fetch(`https://127.0.0.1:${s.port}/healthz`);
    expect(viaAddress.status).toBe(200);
  });

  it('publishes the root at /ca.pem, /ca.crt and /ca.mobileconfig, its fingerprint in /healthz and /v1/tls, and keeps its key sealed', async () => {
    const pem = await fetch(`${base}/ca.pem`);
    expect(pem.status).toBe(200);
    expect(pem.headers.get('content-type')).toBe('application/x-pem-file');
    const pemText = await pem.text();
    expect(pemText).toBe(root);
    const rootCert = new crypto.X509Certificate(root);
    expect(rootCert.ca).toBe(true);
    expect(rootCert.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const der = await fetch(`${base}/ca.crt`);
    expect(der.headers.get('content-type')).toBe('application/pkix-cert');
    expect(Buffer.from(await der.arrayBuffer()).equals(rootCert.raw)).toBe(true);
    const profile = await fetch(`${base}/ca.mobileconfig`);
    expect(profile.headers.get('content-type')).toBe('application/x-apple-aspen-config');
    const xml = await profile.text();
    expect(xml).toContain('<string>com.apple.security.root</string>');
    expect(xml.replace(/\s+/g, '')).toContain(rootCert.raw.toString('base64'));
    const health = (await (await fetch(`${base}/healthz`)).json()) as { tls: Record<string, unknown> };
    expect(health.tls).toEqual({
      mode: 'internal',
      public_url: base,
      ca_fingerprint_sha256: rootCert.fingerprint256,
      certificate_fingerprint_sha256: s.tls.certificate()!.fingerprintSha256,
      certificate_not_after: s.tls.certificate()!.notAfter,
      last_error: null,
    });
    const status = await s.api('/v1/tls');
    expect(status.status).toBe(200);
    const body = (await status.json()) as {
      mode: string;
      publicUrl: string;
      ca: { fingerprintSha256: string };
      certificate: { names: string[]; renewAt: string; notBefore: string; notAfter: string };
    };
    expect(body.mode).toBe('internal');
    expect(body.publicUrl).toBe(base);
    expect(body.ca.fingerprintSha256).toBe(rootCert.fingerprint256);
    const { notBefore, notAfter, renewAt } = body.certificate;
    expect(Date.parse(renewAt)).toBeCloseTo(Date.parse(notBefore) + ((Date.parse(notAfter) - Date.parse(notBefore)) * 2) / 3, -4);
    expect((await s.api('/v1/tls', { token: null })).status).toBe(401);
    // On disk: the certificates in the clear, the private keys only as sealed envelopes.
    const dir = path.join(s.dataDir, 'tls', 'internal');
    for (const f of ['root.key', 'leaf.key']) {
      const stored = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(stored).not.toContain('PRIVATE KEY');
      expect(JSON.parse(stored)).toEqual({ encryptionKeyId: expect.any(String), envelope: expect.stringMatching(/^hk1\./) });
      expect(fs.statSync(path.join(dir, f)).mode & 0o777).toBe(0o600);
    }
  });

  it('answers 308 to the https address on the plain listener, path and query kept, and never serves the API in clear text', async () => {
    const r = await fetch(`${s.redirectUrl}/v1/namespaces?limit=5`, { redirect: 'manual', headers: { authorization: `Bearer ${s.token}` } });
    expect(r.status).toBe(308);
    expect(r.headers.get('location')).toBe(`${base}/v1/namespaces?limit=5`);
    expect(await r.text()).not.toContain('namespaces"');
    // Plain HTTP on the https port itself: a 400 naming the https address, not a reset connection.
    const plain = await new Promise<string>((resolve, reject) => {
      const c = net.connect(s.port, '127.0.0.1', () => c.write(`GET / HTTP/1.1\r\nHost: ${NAME}\r\n\r\n`));
      let t = '';
      c.on('data', (d) => (t += d));
      c.on('close', () => resolve(t));
      c.on('error', reject);
    });
    expect(plain).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(plain).toContain(`This port speaks HTTPS. Open ${base} instead.`);
    // Following it lands on the API over TLS.
    const followed = await fetch(`${s.redirectUrl}/healthz`);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/healthz`);
  });

  it('serves the authenticator app over https on its own origin at the public name', async () => {
    expect(s.authenticatorUrl).toMatch(new RegExp(`^https://${NAME.replace('.', '\\.')}:\\d+$`));
    const r = await fetch(`${s.authenticatorUrl}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    const info = (await (await fetch(`${base}/api/auth/app-approval/v1/info`)).json()) as { appOrigin: string; issuer: string; enabled: boolean };
    expect(info).toMatchObject({ appOrigin: s.authenticatorUrl, issuer: base, enabled: true });
  });

  it('sets Secure cookies, names the https issuer in discovery, and completes an openid-client code flow over HTTPS', async () => {
    const call = (p: string, init: Parameters<typeof rawCall>[2] = {}) => rawCall(base, p, init, base);
    expect((await call('/api/setup', { json: { login: 'root', password: PASSWORD } })).status).toBe(201);
    const login = await call('/api/auth/login', { json: { login: 'root', password: PASSWORD } });
    expect(login.status).toBe(200);
    const setCookie = login.headers.getSetCookie().find((c) => c.startsWith('hearth_session='))!;
    expect(setCookie).toMatch(/; Secure/);
    const cookie = setCookie.split(';')[0]!;
    // Signing in from another origin (the IP address) is refused: the public address is the only one.
    const foreign = await rawCall(base, '/api/auth/login', { json: { login: 'root', password: PASSWORD } }, `https://127.0.0.1:${s.port}`);
    expect(foreign.status).toBe(403);
    expect(foreign.json).toEqual({
      error: 'origin_mismatch',
      message: `the Origin "https://127.0.0.1:${s.port}" is not this platform's origin: open Hearth at ${base} (if people reach it at another address, set HEARTH_PUBLIC_URL to that address)`,
    });

    const discovery = (await (await fetch(`${base}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(discovery.issuer).toBe(base);
    expect(discovery.token_endpoint).toBe(`${base}/oauth/token`);
    expect(discovery.jwks_uri.startsWith(`${base}/`)).toBe(true);

    const created = await call('/api/admin/oauth/clients', {
      token: s.token,
      origin: null,
      json: { name: 'Notes', redirectUris: ['https://rp.example.test/cb'], scopes: ['openid', 'profile'] },
    });
    expect(created.status, created.text).toBe(201);
    // No allowInsecureRequests: openid-client talks to Hearth over verified TLS only.
    const config = await client.discovery(
      new URL(base),
      created.json.client.clientId as string,
      undefined,
      client.ClientSecretBasic(created.json.clientSecret as string),
    );
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'https://rp.example.test/cb',
      scope: 'openid profile',
      state: 'st',
      nonce: 'no',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    expect(url.origin).toBe(base);
    const consented = await until(async () => {
      const r = await call(url.toString(), { cookie, origin: null });
      if (r.status === 303) return r;
      // A consent page: approve it.
      const action = /action="([^"]+)"/.exec(r.text)?.[1];
      if (!action) throw new Error(`unexpected authorization answer ${r.status}: ${r.text.slice(0, 200)}`);
      const approved = await call(action.replace(/&amp;/g, '&'), { cookie, form: { decision: 'approve' } });
      return approved.status === 303 ? await call(approved.location!, { cookie, origin: null }) : null;
    }, 'the authorization redirect');
    const callback = new URL(consented.location!);
    expect(callback.searchParams.get('iss')).toBe(base);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'st',
      expectedNonce: 'no',
      idTokenExpected: true,
    });
    expect(tokens.claims()!.iss).toBe(base);
    expect(tokens.claims()!.sub).toEqual(expect.any(String));
  });

  it('keeps the root and the leaf across a restart', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir, tls: 'internal', tlsNames: [NAME], mdns: false });
    const rootBefore = first.tls.status().ca!.fingerprintSha256;
    const leafBefore = first.tls.certificate()!.fingerprintSha256;
    await first.close();
    const second = await startTestServer({ dataDir, tls: 'internal', tlsNames: [NAME], mdns: false });
    try {
      expect(second.tls.status().ca!.fingerprintSha256).toBe(rootBefore);
      expect(second.tls.certificate()!.fingerprintSha256).toBe(leafBefore);
    } finally {
      await second.close();
    }
    // A key and certificate that do not pair (a write cut between the two files) are not reused: a new leaf.
    new TlsStore(dataDir, 'internal', {}, new SecretStore(dataDir)).writeSealed(
      'leaf.key',
      crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    );
    const repaired = await startTestServer({ dataDir, tls: 'internal', tlsNames: [NAME], mdns: false });
    try {
      expect(repaired.tls.status().ca!.fingerprintSha256).toBe(rootBefore);
      expect(repaired.tls.certificate()!.fingerprintSha256).not.toBe(leafBefore);
      expect((await handshake(repaired.port, [repaired.tls.caPem()!])).fingerprint256).toBe(repaired.tls.certificate()!.fingerprintSha256);
    } finally {
      await repaired.close();
    }
    // Another name: the same root signs a new leaf that covers it.
    const third = await startTestServer({ dataDir, tls: 'internal', tlsNames: ['other.test'], mdns: false });
    try {
      expect(third.tls.status().ca!.fingerprintSha256).toBe(rootBefore);
      expect(third.tls.certificate()!.names).toContain('other.test');
      expect(third.tls.certificate()!.names).not.toContain(NAME);
    } finally {
      await third.stop();
    }
  });
});

describe('renewal', () => {
  it('renews at two thirds of the life and swaps the certificate without dropping an open SSE stream', async () => {
    const r = await startTestServer({ tls: 'internal', tlsNames: [NAME], mdns: false, tlsTuning: { leafLifetimeMs: 6000 } });
    try {
      const caRoot = r.tls.caPem()!;
      tls.setDefaultCACertificates([root, caRoot]);
      const first = r.tls.certificate()!;
      expect(Date.parse(first.renewAt!) - Date.parse(first.notBefore)).toBeLessThan(6000);
      expect((await r.api('/v1/namespaces', { method: 'POST', json: { name: 'live' } })).status).toBe(201);
      // An SSE stream opened on the first certificate's connection…
      const abort = new AbortController();
      const res = await fetch(`${r.publicUrl}/v1/live/subscribe`, {
        headers: { authorization: `Bearer ${r.token}`, accept: 'text/event-stream' },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      let text = '';
      const reader = res.body!.getReader();
      void (async () => {
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done) break;
          text += new TextDecoder().decode(value);
        }
      })();
      // A TLS session ticket taken before the renewal…
      const ticket = await new Promise<Buffer>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: r.port, servername: NAME, ca: [caRoot] });
        socket.once('session', (session: Buffer) => {
          resolve(session);
          socket.end();
        });
        socket.once('error', reject);
      });
      // …outlives the scheduled renewal: new handshakes get the new leaf…
      const renewed = await until(async () => {
        const c = await handshake(r.port, [caRoot]);
        const fp = c.fingerprint256;
        return fp !== first.fingerprintSha256 ? fp : null;
      }, 'a renewed certificate');
      expect(renewed).toBe(r.tls.certificate()!.fingerprintSha256);
      // …and still resumes (the ticket keys survive the swap: no full handshake for every client after a renewal).
      const resumed = await new Promise<boolean>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: r.port, servername: NAME, ca: [caRoot], session: ticket }, () => {
          resolve(socket.isSessionReused());
          socket.end();
        });
        socket.once('error', reject);
      });
      expect(resumed).toBe(true);
      expect(r.tls.status().lastRenewalAt).not.toBeNull();
      // …and the old stream still delivers.
      r.services.db.events.publish('live', { table: 't', action: 'insert', row: { id: 1 }, _meta: { actor: 'test' }, timestamp: new Date().toISOString() });
      await until(() => text.includes('"action":"insert"'), 'the event on the stream opened before the renewal');
      abort.abort();
      // Renew on request too (the UI's button, `hearth tls renew`).
      const before = r.tls.certificate()!.fingerprintSha256;
      const asked = await r.api('/v1/tls/renew', { method: 'POST' });
      expect(asked.status).toBe(200);
      expect(((await asked.json()) as { certificate: { fingerprintSha256: string } }).certificate.fingerprintSha256).not.toBe(before);
    } finally {
      await r.stop();
    }
  });

  it('without TLS, renewing is 409 tls_off and the CA routes are 404', async () => {
    const plain = await startTestServer({ mdns: false });
    try {
      const r = await plain.api('/v1/tls/renew', { method: 'POST' });
      expect(r.status).toBe(409);
      expect(await r.json()).toEqual({ error: 'tls_off', message: expect.stringContaining('--tls internal') });
      expect((await plain.api('/ca.pem')).status).toBe(404);
      expect(((await (await plain.api('/healthz')).json()) as { tls: { mode: string } }).tls.mode).toBe('off');
    } finally {
      await plain.stop();
    }
  });
});
