import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHENTICATOR_CSP } from '../../../server/core/http/authenticator-site.ts';
import { appPairingLink, parseAppPairingLink } from '../../../server/identity/approval/contracts.ts';
import { pairingLink } from '../../../ui/src/lib/api/app-approval.ts';
import { manage } from '../../helpers/authenticator.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

/**
 * The reference authenticator web app's own listener (`authenticatorPort`): it serves `ui/dist/authenticator/` with its
 * CSP and nothing else (no API, no admin UI), and the instance announces it as `/info.appOrigin` when
 * HEARTH_AUTHENTICATOR_ORIGIN is unset. The UI folder is a fixture, so the test does not depend on a build.
 */
const INFO = '/api/auth/app-approval/v1/info';

function fixtureUi(): string {
  const dir = tempDir('hearth-ui-');
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>ADMIN-UI</title>');
  fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'assets', 'admin-1.js'), 'console.log("ADMIN-JS")');
  const site = path.join(dir, 'authenticator');
  fs.mkdirSync(path.join(site, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>AUTHENTICATOR-APP</title><script type="module" src="/assets/app-1.js"></script>');
  fs.writeFileSync(path.join(site, 'assets', 'app-1.js'), 'console.log("AUTHENTICATOR-JS")');
  fs.writeFileSync(path.join(site, 'assets', '.hidden.js'), 'secret');
  fs.writeFileSync(path.join(site, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

/** A raw GET (fetch normalises `..` away; the listener must refuse it itself). */
function rawGet(url: string, pathname: string, method = 'GET'): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: u.port, path: pathname, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('authenticator web app listener', () => {
  let s: TestServer;
  let uiDir: string;

  beforeAll(async () => {
    uiDir = fixtureUi();
    s = await startTestServer({ authenticatorPort: 0, uiDir });
  });
  afterAll(async () => {
    await s?.stop();
    fs.rmSync(uiDir, { recursive: true, force: true });
  });

  it('runs on its own port, reached as localhost (a host name), and is announced as /info.appOrigin', async () => {
    expect(s.authenticatorUrl).toMatch(/^http:\/\/localhost:\d+$/);
    expect(new URL(s.authenticatorUrl!).port).not.toBe(String(s.port));
    const info = await fetch(s.url + INFO);
    expect(info.status).toBe(200);
    const body = (await info.json()) as { appOrigin: string | null; issuer: string };
    expect(body.appOrigin).toBe(s.authenticatorUrl);
    expect(body.issuer).toBe(s.url);
    // The instance allows exactly that origin on the device channel.
    const cors = await fetch(s.url + INFO, { headers: { origin: s.authenticatorUrl! } });
    expect(cors.headers.get('access-control-allow-origin')).toBe(s.authenticatorUrl);
    expect(cors.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('serves the app at / with its strict CSP and security headers', async () => {
    const r = await fetch(`${s.authenticatorUrl}/`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await r.text()).toContain('AUTHENTICATOR-APP');
    expect(r.headers.get('content-security-policy')).toBe(AUTHENTICATOR_CSP);
    expect(AUTHENTICATOR_CSP).toContain("default-src 'none'");
    expect(AUTHENTICATOR_CSP).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(AUTHENTICATOR_CSP).not.toContain("'unsafe-inline'");
    expect(AUTHENTICATOR_CSP).toContain("frame-ancestors 'none'");
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    expect(r.headers.get('cache-control')).toBe('no-cache');

    const asset = await fetch(`${s.authenticatorUrl}/assets/app-1.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(AUTHENTICATOR_CSP);
    expect(await asset.text()).toContain('AUTHENTICATOR-JS');

    const icon = await fetch(`${s.authenticatorUrl}/icon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');

    const head = await rawGet(s.authenticatorUrl!, '/', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('serves nothing else: no API, no admin UI, no other files, no other methods', async () => {
    for (const p of [
      INFO,
      '/v1/namespaces',
      '/api/setup',
      '/healthz',
      '/metrics',
      '/.well-known/jwks.json',
      '/oauth/authorize',
      '/favicon.svg',
      '/assets/admin-1.js',
      '/authenticator/index.html',
      '/accounts',
      '/me',
      '/nope.js',
      '/assets/.hidden.js',
      '/assets/',
    ]) {
      const r = await fetch(s.authenticatorUrl + p, { headers: { accept: 'text/html' } });
      const text = await r.text();
      expect(r.status, p).toBe(404);
      expect(text, p).not.toContain('ADMIN');
      expect(r.headers.get('access-control-allow-origin'), p).toBeNull();
    }
    // Dot segments resolve inside the site (to its own index); encoded separators never leave it.
    for (const p of ['/../index.html', '/assets/../../index.html', '/%2e%2e/index.html']) {
      const r = await rawGet(s.authenticatorUrl!, p);
      expect(r.status, p).toBe(200);
      expect(r.body, p).toContain('AUTHENTICATOR-APP');
    }
    for (const p of ['/assets/..%2f..%2findex.html', '/assets/..%2fapp-1.js', '/..%2findex.html', '/assets%2fapp-1.js']) {
      const r = await rawGet(s.authenticatorUrl!, p);
      expect(r.status, p).toBe(404);
      expect(r.body, p).not.toContain('ADMIN');
    }
    const post = await fetch(`${s.authenticatorUrl}/`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const api = await fetch(`${s.authenticatorUrl}/api/auth/app-approval/v1/login/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(api.status).toBe(405);
  });

  it('the platform origin never serves the authenticator app', async () => {
    for (const p of ['/authenticator/', '/authenticator/index.html', '/authenticator/assets/app-1.js']) {
      const r = await fetch(s.url + p, { headers: { accept: 'text/html' } });
      const text = await r.text();
      expect(r.status, p).toBe(404);
      expect(text, p).not.toContain('AUTHENTICATOR');
    }
    // The admin UI itself still works there.
    const admin = await fetch(`${s.url}/`, { headers: { accept: 'text/html' } });
    expect(await admin.text()).toContain('ADMIN-UI');
  });
});

describe('the admin UI pairing link', () => {
  it('is exactly the contracts module’s link, and the authenticator parses it back', async () => {
    const uiDir = fixtureUi();
    const s = await startTestServer({ authenticatorPort: 0, uiDir });
    try {
      const setup = await fetch(`${s.url}/api/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: s.url },
        body: JSON.stringify({ login: 'pat', password: 'pat password 1', email: 'pat@example.test' }),
      });
      expect(setup.status).toBe(201);
      const cookie = await signIn(s, 'pat', 'pat password 1');
      const start = await manage(s, cookie, '/manage/pairings/start', {});
      expect(start.status).toBe(201);
      const payload = start.body;
      const link = pairingLink(s.authenticatorUrl!, payload);
      expect(link).toBe(appPairingLink(s.authenticatorUrl!, payload));
      expect(parseAppPairingLink(link, s.authenticatorUrl!)).toEqual(payload);
    } finally {
      await s.stop();
      fs.rmSync(uiDir, { recursive: true, force: true });
    }
  });
});

describe('authenticator listener with HEARTH_AUTHENTICATOR_ORIGIN set', () => {
  it('keeps the configured origin as appOrigin', async () => {
    const uiDir = fixtureUi();
    const s = await startTestServer({ authenticatorPort: 0, uiDir, env: { HEARTH_AUTHENTICATOR_ORIGIN: 'https://auth.example.com' } });
    try {
      const info = (await (await fetch(s.url + INFO)).json()) as { appOrigin: string | null };
      expect(info.appOrigin).toBe('https://auth.example.com');
      const r = await fetch(`${s.authenticatorUrl}/`);
      expect(r.status).toBe(200);
    } finally {
      await s.stop();
      fs.rmSync(uiDir, { recursive: true, force: true });
    }
  });

  it('without the listener there is no authenticator URL and no appOrigin', async () => {
    const s = await startTestServer();
    try {
      expect(s.authenticatorUrl).toBeNull();
      const info = (await (await fetch(s.url + INFO)).json()) as { appOrigin: string | null };
      expect(info.appOrigin).toBeNull();
    } finally {
      await s.stop();
    }
  });
});
