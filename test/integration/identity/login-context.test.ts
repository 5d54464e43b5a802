/**
 * Sign-in context on a real server: the `hearth_browser` cookie and the sign-in history written by every sign-in
 * method (password, passkey, email link), the GeoIP settings (a readable and an unreadable MaxMind DB file), and
 * `identity.loginContext.compute` reading that history.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/core/config/config.ts';
import { type RawInit, rawCall } from '../../helpers/http.ts';
import { asnRecord, cityRecord, writeMmdb } from '../../helpers/mmdb.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { SoftAuthenticator } from '../../helpers/webauthn.ts';
import { type Peer, startPeer } from '../mail/peer.ts';

const PASSWORD = 'context-owner-Passw0rd!';
const DAY = 24 * 60 * 60 * 1000;
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const files = tempDir('hearth-geoip-files-');
const logLines: Array<Record<string, any>> = [];
let s: TestServer;
let peer: Peer;
let origin: string;
let sub: string;

const call = (pathname: string, init: RawInit = {}) => rawCall(s.url, pathname, init, origin);
const setCookie = (h: Headers, name: string) => h.getSetCookie().find((c) => c.startsWith(`${name}=`));
const cookieValue = (c: string | undefined) => c?.split(';')[0]?.split('=')[1];
const sha256 = (v: string) => crypto.createHash('sha256').update(v).digest('hex');
// Rows read through the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const history = () =>
  s.services.store.all<{ sub: string; browser_hash: string; country: string | null; at: number }>(
    'SELECT sub, browser_hash, country, at FROM identity_signin_history ORDER BY id',
  );
const browsers = () => s.services.store.all('SELECT sub, browser_hash, first_at, last_at FROM identity_signin_browsers ORDER BY first_at');
const setting = async (name: string, srv = s) => {
  const v = await srv.services.store.value<string>('SELECT value FROM identity_settings WHERE name = ?', [name]);
  return v === undefined ? undefined : JSON.parse(v);
};
const login = (cookie?: string) => call('/api/auth/login', { json: { login: 'pat', password: PASSWORD }, cookie });

beforeAll(async () => {
  const cityDb = path.join(files, 'city.mmdb');
  const asnDb = path.join(files, 'asn.mmdb');
  fs.writeFileSync(cityDb, writeMmdb([{ network: '203.0.113.0/24', data: cityRecord('DE', 'Berlin') }]));
  fs.writeFileSync(asnDb, writeMmdb([{ network: '203.0.113.0/24', data: asnRecord(64500, 'Example Telecom GmbH') }], { databaseType: 'GeoLite2-ASN' }));
  peer = await startPeer();
  s = await startTestServer({
    geoipCityDb: cityDb,
    geoipAsnDb: asnDb,
    logLevel: 'info',
    logDestination: { write: (l: string) => void logLines.push(JSON.parse(l)) } as never,
  });
  origin = s.url.replace(/\/$/, '');
  const profile = await s.api('/api/admin/core/outgoing-mail/profiles/main', {
    method: 'PUT',
    json: { name: 'Office', fromAddress: 'hearth@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false },
  });
  expect(profile.status, await profile.text()).toBe(201);
  const made = await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'pat', email: 'pat@example.test', displayName: 'Pat' } });
  sub = (await made.json()).sub;
  expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
  fs.rmSync(files, { recursive: true, force: true });
});

describe('GeoIP settings', () => {
  it('come from HEARTH_GEOIP_DB and HEARTH_GEOIP_ASN_DB (both optional)', () => {
    expect(loadConfig({}, { HEARTH_GEOIP_DB: '/srv/geo/GeoLite2-City.mmdb', HEARTH_GEOIP_ASN_DB: '/srv/geo/GeoLite2-ASN.mmdb' })).toMatchObject({
      geoipCityDb: '/srv/geo/GeoLite2-City.mmdb',
      geoipAsnDb: '/srv/geo/GeoLite2-ASN.mmdb',
    });
    const none = loadConfig({}, { HEARTH_GEOIP_DB: '' });
    expect(none.geoipCityDb).toBeUndefined();
    expect(none.geoipAsnDb).toBeUndefined();
  });

  it('a readable file is loaded at start and sets geoip_since once', async () => {
    expect(logLines.filter((l) => /^GeoIP database loaded/.test(l.msg)).map((l) => l.msg)).toEqual([
      'GeoIP database loaded (HEARTH_GEOIP_DB)',
      'GeoIP database loaded (HEARTH_GEOIP_ASN_DB)',
    ]);
    expect(logLines.filter((l) => l.level === 'warn' && /GeoIP/.test(l.msg))).toEqual([]);
    const since = await setting('login_context.geoip_since');
    expect(since).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(since).toBeLessThanOrEqual(Date.now());
    const c = await s.services.identity.loginContext.compute({ sub, userAgent: CHROME_WINDOWS, ip: '203.0.113.9', browserId: null, at: Date.now() });
    expect(c).toEqual({ level: 'info', browser: 'chrome', os: 'windows', country: 'DE', city: 'Berlin', network: 'Example Telecom GmbH', history: null });
  });

  it('an unreadable file is a start-up warning, never a failure, and gives null geo fields; https makes the browser cookie Secure', async () => {
    const lines: Array<Record<string, any>> = [];
    const broken = path.join(files, 'broken.mmdb');
    fs.writeFileSync(broken, 'not a MaxMind DB');
    const missing = path.join(files, 'missing.mmdb');
    const t = await startTestServer({
      geoipCityDb: broken,
      geoipAsnDb: missing,
      logLevel: 'warn',
      env: { HEARTH_PUBLIC_URL: 'https://hearth.example.test' },
      logDestination: { write: (l: string) => void lines.push(JSON.parse(l)) } as never,
    });
    try {
      expect(lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.file])).toEqual([
        ['GeoIP database HEARTH_GEOIP_DB cannot be read: sign-in context has no country, city or network until it can (Hearth runs without it)', broken],
        ['GeoIP database HEARTH_GEOIP_ASN_DB cannot be read: sign-in context has no country, city or network until it can (Hearth runs without it)', missing],
      ]);
      expect(await setting('login_context.geoip_since', t)).toBeUndefined();
      const made = await t.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'quinn' } });
      const quinn = (await made.json()).sub;
      expect((await t.api(`/api/admin/core/accounts/${quinn}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
      expect(
        await t.services.identity.loginContext.compute({ sub: quinn, userAgent: CHROME_WINDOWS, ip: '203.0.113.9', browserId: null, at: Date.now() }),
      ).toMatchObject({ country: null, city: null, network: null });

      const r = await fetch(`${t.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'quinn', password: PASSWORD }),
      });
      expect(r.status).toBe(200);
      expect(setCookie(r.headers, 'hearth_browser')).toMatch(/^hearth_browser=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=31536000; HttpOnly; SameSite=Lax; Secure$/);
      expect(setCookie(r.headers, 'hearth_session')).toMatch(/; Secure$/);
    } finally {
      await t.stop();
    }
  });
});

describe('sign-in history', () => {
  it('a password sign-in sets the hearth_browser cookie and records the sign-in; the same browser keeps its id', async () => {
    const before = Date.now();
    const first = await login();
    expect(first.status).toBe(200);
    const cookie = setCookie(first.headers, 'hearth_browser');
    expect(cookie).toMatch(/^hearth_browser=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=31536000; HttpOnly; SameSite=Lax$/);
    const id = cookieValue(cookie)!;
    const rows = await history();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ sub, browser_hash: sha256(id), country: null });
    expect(rows[0]!.at).toBeGreaterThanOrEqual(before);
    expect(JSON.stringify(rows)).not.toContain(id); // only the hash is stored

    // the browser sends its cookie back: the same id, sent again for another year
    const again = await login(`hearth_browser=${id}; hearth_session=whatever`);
    expect(again.status).toBe(200);
    expect(cookieValue(setCookie(again.headers, 'hearth_browser'))).toBe(id);
    expect((await history()).map((r) => r.browser_hash)).toEqual([sha256(id), sha256(id)]);
    expect(await browsers()).toEqual([{ sub, browser_hash: sha256(id), first_at: rows[0]!.at, last_at: (await history())[1]!.at }]);

    // a malformed cookie is a new browser; a refused sign-in records nothing and sets no cookie
    const other = await login('hearth_browser=not-an-id');
    const otherId = cookieValue(setCookie(other.headers, 'hearth_browser'))!;
    expect(otherId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(otherId).not.toBe(id);
    const refused = await call('/api/auth/login', { json: { login: 'pat', password: 'wrong-password-123' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(await history()).toHaveLength(3);
  });

  it('passkey and email-link sign-ins are recorded too', async () => {
    const n = (await history()).length;
    const session = cookieValue(setCookie((await login()).headers, 'hearth_session'));
    const auth = new SoftAuthenticator(origin);
    const start = await call('/api/auth/passkeys/registration', { method: 'POST', cookie: `hearth_session=${session}` });
    const made = await call('/api/auth/passkeys', {
      cookie: `hearth_session=${session}`,
      json: { challengeId: start.json.challengeId, credential: auth.create(start.json.options) },
    });
    expect(made.status, made.text).toBe(201);

    const options = await call('/api/auth/passkeys/login/options', { method: 'POST' });
    const phone = crypto.randomBytes(32).toString('base64url');
    const viaPasskey = await call('/api/auth/passkeys/login', {
      cookie: `hearth_browser=${phone}`,
      json: { challengeId: options.json.challengeId, credential: auth.get(options.json.options) },
    });
    expect(viaPasskey.status).toBe(200);
    expect(cookieValue(setCookie(viaPasskey.headers, 'hearth_browser'))).toBe(phone);

    const mails = peer.received.length;
    expect((await call('/auth/email-sign-in/request', { form: { login: 'pat' } })).status).toBe(200);
    const mail = await until(() => peer.received.slice(mails).find((m) => m.parsed.subject === 'Your Hearth sign-in link'), 'the sign-in link mail');
    const token = new URL(/(http:\/\/\S+\?token=[A-Za-z0-9_-]+)/.exec(mail.parsed.text!)![1]!).searchParams.get('token')!;
    const viaLink = await call('/auth/email-sign-in', { form: { token } });
    expect(viaLink.status).toBe(303);
    const linkBrowser = cookieValue(setCookie(viaLink.headers, 'hearth_browser'))!;
    expect(linkBrowser).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const added = (await history()).slice(n);
    expect(added.map((r) => r.browser_hash)).toEqual([expect.any(String), sha256(phone), sha256(linkBrowser)]);
    expect(added.every((r) => r.sub === sub)).toBe(true);
  });

  it('after the introduction phase, compute knows the browser from its first sign-in and flags an unknown one', async () => {
    const first = await login();
    const id = cookieValue(setCookie(first.headers, 'hearth_browser'))!;
    const firstAt = ((await browsers()) as Array<{ browser_hash: string; first_at: number }>).find((b) => b.browser_hash === sha256(id))!.first_at;
    await login(`hearth_browser=${id}`);
    const ctx = s.services.identity.loginContext;
    const at = Date.now();
    // still inside the introduction phase: no claims
    expect((await ctx.compute({ sub, userAgent: CHROME_WINDOWS, ip: '127.0.0.1', browserId: id, at })).history).toBeNull();
    // the installation began 15 days ago
    await s.services.store.run("UPDATE identity_settings SET value = ? WHERE name = 'signin_history.introduction_started_at'", [JSON.stringify(at - 15 * DAY)]);
    expect(await ctx.compute({ sub, userAgent: CHROME_WINDOWS, ip: '127.0.0.1', browserId: id, at })).toEqual({
      level: 'info',
      browser: 'chrome',
      os: 'windows',
      country: null,
      city: null,
      network: null,
      history: {
        knownSince: new Date(firstAt).toISOString(),
        newCountry: false,
        countriesSince: new Date(await setting('login_context.geoip_since')).toISOString(),
      },
    });
    const unknown = await ctx.compute({ sub, userAgent: CHROME_WINDOWS, ip: '203.0.113.9', browserId: crypto.randomBytes(32).toString('base64url'), at });
    // a new browser from a country never seen (no earlier country to compare with): a hint
    expect(unknown).toMatchObject({ level: 'hint', country: 'DE', history: { knownSince: null, newCountry: true } });
  });
});
