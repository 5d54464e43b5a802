/**
 * The admin UI on the office network (issue 14), against a real server with `--tls internal` (Chromium ignores the
 * certificate errors here; another spec trusts Hearth's root through an NSS database):
 * 1. at an origin other than the public address (https://127.0.0.1 while the public address is https://localhost) a
 *    banner links to the same page at the public address; over plain http on a name of the network it says the
 *    connection is not encrypted (a second server without TLS, reached as `hearth.test`);
 * 2. "Add this device's certificate", reached from the sign-in page: the fingerprint of `/healthz`, QR codes that draw
 *    exactly the download addresses, the three downloads (the DER file hashes to the fingerprint); without TLS, how
 *    to turn it on;
 * 3. the Network page: the certificate, "Renew now" replacing it, and a renewal that really fails (the leaf file's
 *    place is taken by a folder) said in plain words;
 * 4. pairing the authenticator: the link as a QR code, and the warning that a phone cannot reach `localhost`; the
 *    authenticator app opened over plain http at a network name says why it cannot keep keys there.
 * Screenshots at 390 and 1366 px wide go to test-results/e2e/screenshots/network-*.png.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page, request as playwrightRequest, test } from '@playwright/test';
import { create } from 'qrcode';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { SCREENSHOTS, shooter } from './console-and-shots.ts';
import config from './playwright.config.ts';
import { signIn } from './sign-in.ts';

const ADMIN = { login: 'nina', password: 'nina password 1', displayName: 'Nina Network' };
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 900 };
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';

// `hearth.test` is a name of the network that resolves to this machine (the plain server is reached by it).
const launch = config.use!.launchOptions!;
test.use({ ignoreHTTPSErrors: true, launchOptions: { ...launch, args: [...(launch.args ?? []), '--host-resolver-rules=MAP hearth.test 127.0.0.1'] } });
test.describe.configure({ mode: 'serial' });

let server: ServerProcess;
let plain: ServerProcess;
let api: APIRequestContext;
/** https://localhost:<port>: the public address; server.url is https://127.0.0.1:<port>. */
let publicUrl = '';

interface Health {
  tls: { mode: string; public_url: string; ca_fingerprint_sha256: string | null; certificate_fingerprint_sha256: string | null };
}

test.beforeAll(async () => {
  [server, plain] = await Promise.all([startServerProcess({ tls: 'internal', authenticatorPort: 0 }), startServerProcess({ authenticatorPort: 0 })]);
  api = await playwrightRequest.newContext({ baseURL: server.url, ignoreHTTPSErrors: true, extraHTTPHeaders: { Authorization: `Bearer ${server.token}` } });
  publicUrl = ((await (await api.get('/healthz')).json()) as Health).tls.public_url;
  expect(publicUrl).toBe(`https://localhost:${new URL(server.url).port}`);
  const created = await api.post('/api/admin/core/accounts', {
    data: { login: ADMIN.login, displayName: ADMIN.displayName, email: 'nina@network.e2e.test', admin: true },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { sub } = (await created.json()) as { sub: string };
  const pw = await api.put(`/api/admin/core/accounts/${sub}/password`, { data: { password: ADMIN.password } });
  expect(pw.status(), await pw.text()).toBe(204);
});

test.afterAll(async () => {
  await api?.dispose();
  await Promise.all([server?.stop(), plain?.stop()]);
});

async function health(): Promise<Health['tls']> {
  return ((await (await api.get('/healthz')).json()) as Health).tls;
}

const shot = shooter('network', { fromTop: true });

/** Full-page screenshots at a phone's and a laptop's width; neither may scroll sideways. */
async function shots(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['390', PHONE],
    ['1366', LAPTOP],
  ] as const) {
    await page.setViewportSize(size);
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), {
        message: `${name} overflows at ${label} px`,
      })
      .toBe(0);
    await shot(page, `${name}-${label}`);
  }
}

/**
 * Reads the QR code as a camera would: draws the SVG on a canvas and samples the centre of every module; the modules
 * must be those of `text` encoded by the same library (QR encoding is deterministic for a text and a level).
 */
async function expectQrOf(svg: Locator, text: string, level: 'L' | 'M' = 'M'): Promise<void> {
  await expect(svg).toBeVisible();
  const expected = create(text, { errorCorrectionLevel: level }).modules;
  const drawn = await svg.evaluate(async (el, n) => {
    const margin = 4;
    const scale = 8;
    const side = (n + 2 * margin) * scale;
    const img = new Image(side, side);
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(el))}`;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = side;
    const g = canvas.getContext('2d')!;
    g.drawImage(img, 0, 0, side, side);
    const px = g.getImageData(0, 0, side, side).data;
    const bits: number[] = [];
    for (let y = 0; y < n; y++)
      for (let x = 0; x < n; x++) {
        const i = (((y + margin) * scale + scale / 2) * side + (x + margin) * scale + scale / 2) * 4;
        bits.push(px[i]! < 128 ? 1 : 0);
      }
    return { viewBox: el.getAttribute('viewBox'), bits };
  }, expected.size);
  expect(drawn.viewBox).toBe(`0 0 ${expected.size + 8} ${expected.size + 8}`);
  expect(drawn.bits).toEqual(Array.from(expected.data, (b) => (b ? 1 : 0)));
}

test('at an address other than the public one, a banner links to the same page at the public address', async ({ page }) => {
  const port = new URL(server.url).port;
  await page.goto(`${server.url}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  const banner = page.getByRole('region', { name: 'Address warning' });
  await expect(banner).toContainText('Open Hearth at its public address');
  await expect(banner).toContainText(`This page is open at 127.0.0.1:${port}`);
  await expect(banner).toContainText('Sign-in, passkeys and the authenticator app work only at Hearth’s public address');
  await expect(banner.getByRole('link', { name: `Go to localhost:${port}` })).toHaveAttribute('href', `${publicUrl}/`);
  await expect(banner).not.toContainText('not encrypted');
  await shots(page, 'banner-sign-in');

  // The link keeps the page: the certificate page at 127.0.0.1 links to the certificate page at the public address.
  await page.goto(`${server.url}/network/certificate?from=banner`);
  const go = banner.getByRole('link', { name: `Go to localhost:${port}` });
  await expect(go).toHaveAttribute('href', `${publicUrl}/network/certificate?from=banner`);
  await go.click();
  await expect(page).toHaveURL(`${publicUrl}/network/certificate?from=banner`);
  await expect(page.getByTestId('ca-fingerprint')).toBeVisible();
  await expect(banner).toHaveCount(0);

  // Plain http at a name of the network: not encrypted, and the public address is localhost (on loopback).
  const plainPort = new URL(plain.url).port;
  await page.goto(`http://hearth.test:${plainPort}/`);
  await expect(banner).toContainText('This connection is not encrypted');
  await expect(banner).toContainText('hearth serve --tls internal');
  await expect(banner.getByRole('link', { name: `Go to localhost:${plainPort}` })).toHaveAttribute('href', `http://localhost:${plainPort}/`);
  await shots(page, 'banner-plain-http');
});

test('the certificate page shows the fingerprint of /healthz, QR codes of the downloads, and the downloads', async ({ page, browser }) => {
  const tls = await health();
  expect(tls.mode).toBe('internal');
  const fingerprint = tls.ca_fingerprint_sha256!;

  await page.goto(`${publicUrl}/`);
  await page.getByRole('link', { name: 'Add this device’s certificate' }).click();
  await expect(page).toHaveURL(`${publicUrl}/network/certificate`);
  await expect(page.getByRole('heading', { name: 'Add this device’s certificate', level: 1 })).toBeVisible();

  // The fingerprint, in four rows of eight bytes.
  const fp = page.getByTestId('ca-fingerprint');
  await expect(fp.locator('.row')).toHaveCount(4);
  expect((await fp.innerText()).replace(/\s+/g, ':')).toBe(fingerprint);

  // A desktop browser: the iPhone code first (the profile), then the Android one (the DER file).
  const qrLink = page.getByTestId('ca-qr-link');
  await expect(qrLink).toHaveText(`${publicUrl}/ca.mobileconfig`);
  await expectQrOf(page.getByTestId('ca-qr'), `${publicUrl}/ca.mobileconfig`);
  await page.getByRole('radio', { name: 'Android' }).click();
  await expect(qrLink).toHaveText(`${publicUrl}/ca.crt`);
  await expectQrOf(page.getByTestId('ca-qr'), `${publicUrl}/ca.crt`);
  // The public address is localhost: a phone cannot reach it, and the page says so.
  await expect(page.getByText('A phone cannot reach this address')).toBeVisible();

  // Each system's steps are there; the Linux ones (this browser) are open.
  for (const name of ['iPhone and iPad', 'Android', 'Windows', 'macOS', 'Linux', 'Firefox (any system)'])
    await expect(page.locator('summary', { hasText: name })).toBeVisible();
  await expect(page.getByText('sudo update-ca-certificates')).toBeVisible();

  // The downloads: the DER file hashes to the fingerprint, the PEM is the same certificate, the profile carries it.
  const download = async (name: string) => {
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name, exact: true }).click()]);
    expect(d.suggestedFilename()).toBe(name);
    return fs.readFileSync((await d.path())!);
  };
  const der = await download('hearth-ca.crt');
  expect(crypto.createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':')).toBe(fingerprint);
  const pem = (await download('hearth-ca.pem')).toString('utf8');
  expect(new crypto.X509Certificate(pem).fingerprint256).toBe(fingerprint);
  const profile = (await download('hearth-ca.mobileconfig')).toString('utf8');
  expect(profile).toContain('com.apple.security.root');
  expect(profile.replace(/\s+/g, '')).toContain(der.toString('base64'));

  await page.getByRole('radio', { name: 'iPhone or iPad' }).click();
  await shots(page, 'certificate');

  // Open on an iPhone: its own download comes first and its steps are open.
  const iphone = await browser.newContext({ ignoreHTTPSErrors: true, viewport: PHONE, isMobile: true, hasTouch: true, userAgent: IPHONE });
  try {
    const onPhone = await iphone.newPage();
    await onPhone.goto(`${publicUrl}/network/certificate`);
    await expect(onPhone.getByRole('link', { name: 'Install on this iPhone or iPad' })).toHaveAttribute('href', '/ca.mobileconfig');
    await expect(onPhone.getByText('Certificate Trust Settings')).toBeVisible();
    await expect(onPhone.getByText('sudo update-ca-certificates')).toBeHidden();
  } finally {
    await iphone.close();
  }
});

test('without TLS the certificate page says there is nothing to install and how to turn HTTPS on', async ({ page }) => {
  await page.goto(`${plain.url}/network/certificate`);
  const off = page.getByRole('note').filter({ hasText: 'HTTPS is off: there is no certificate to install' });
  await expect(off).toContainText('hearth serve --tls internal');
  await expect(page.getByTestId('ca-qr')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'hearth-ca.crt' })).toHaveCount(0);
  // The sign-in page offers no certificate either.
  await page.goto(`${plain.url}/`);
  await expect(page.getByRole('heading', { name: 'Create the first administrator' })).toBeVisible();
  await expect(page.getByText(/^Hearth v\d/)).toBeVisible(); // the health answer arrived
  await expect(page.getByRole('link', { name: 'Add this device’s certificate' })).toHaveCount(0);
});

test('the Network page shows the certificate, "Renew now" replaces it, and a failed renewal is said in plain words', async ({ page }) => {
  await signIn(page, { token: server.token }, { base: publicUrl });
  // A laptop's width holds every navigation item, Network included (the bar scrolls sideways only on phones).
  await page.setViewportSize(LAPTOP);
  const nav = page.getByRole('navigation', { name: 'Main' });
  expect(await nav.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
  await nav.getByRole('link', { name: 'Network' }).click();
  await expect(page).toHaveURL(`${publicUrl}/network`);
  const panel = page.getByTestId('tls-panel');
  await expect(panel.getByText('Own certificate authority', { exact: true })).toBeVisible();
  await expect(panel.getByTestId('tls-public-url')).toHaveText(publicUrl);
  const names = panel.getByRole('list', { name: 'Names in the certificate' });
  await expect(names).toContainText('localhost');
  await expect(names).toContainText('127.0.0.1');

  const certFp = panel.getByTestId('tls-cert-fingerprint');
  const shown = async () => (await certFp.innerText()).replace(/\s+/g, ':');
  const before = (await health()).certificate_fingerprint_sha256!;
  expect(await shown()).toBe(before);
  const ca = page.getByTestId('ca-panel');
  await expect(ca).toContainText('Hearth Local Authority');
  await expect(ca.getByRole('link', { name: 'hearth-ca.crt' })).toHaveAttribute('href', '/ca.crt');

  // Renew now: a new leaf, shown, and the one the server presents from now on.
  await panel.getByRole('button', { name: 'Renew now' }).click();
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText('Certificate renewed');
  await expect.poll(shown).not.toBe(before);
  const after = await shown();
  expect((await health()).certificate_fingerprint_sha256).toBe(after);

  // A renewal that really fails: a folder sits where the new certificate file goes.
  const leaf = path.join(server.dataDir, 'tls', 'internal', 'leaf.crt');
  fs.rmSync(leaf);
  fs.mkdirSync(leaf);
  fs.writeFileSync(path.join(leaf, 'in-the-way'), 'x');
  try {
    await panel.getByRole('button', { name: 'Renew now' }).click();
    // The 502's message at once, then the recorded failure in the status (after a reload of the page too).
    const failed = panel.getByRole('alert');
    await expect(failed).toContainText('The certificate was not renewed (the current one stays in use): EISDIR');
    await expect(failed).toContainText(/Hearth tries again by itself in \d+ (second|minute)s?\./);
    expect(await shown()).toBe(after);
    expect((await health()).certificate_fingerprint_sha256).toBe(after);
    await shots(page, 'tls-panel-renew-failed');
    await page.reload();
    await expect(panel.getByText('The last renewal failed')).toBeVisible();
    await expect(panel.getByTestId('tls-last-error')).toContainText('leaf.crt');
    await expect(panel).toContainText('The current certificate stays in use until');
    await expect(panel.getByRole('alert')).toHaveCount(0);
    await shots(page, 'tls-panel');
  } finally {
    fs.rmSync(leaf, { recursive: true, force: true });
  }

  // Fixed: the next renewal succeeds and the failure is gone.
  await panel.getByRole('button', { name: 'Renew now' }).click();
  await expect.poll(shown).not.toBe(after);
  await expect(panel.getByText('The last renewal failed')).toHaveCount(0);
  await expect(panel.getByRole('alert')).toHaveCount(0);
});

test('pairing shows the link as a QR code and warns that a phone cannot reach a loopback address', async ({ page }) => {
  await page.goto(`${publicUrl}/`);
  await page.getByLabel('Login').fill(ADMIN.login);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();

  await page.goto(`${publicUrl}/me`);
  const card = page.getByRole('region', { name: 'Authenticator app' });
  await card.getByRole('button', { name: 'Pair a device' }).click();
  const link = (await card.getByTestId('pairing-link').getAttribute('href'))!;
  const appOrigin = ((await (await api.get('/api/auth/app-approval/v1/info')).json()) as { appOrigin: string }).appOrigin;
  expect(new URL(appOrigin).hostname).toBe('localhost');
  expect(link.startsWith(`${appOrigin}/#pairing=`)).toBe(true);
  await expectQrOf(card.getByTestId('pairing-qr'), link, 'L');
  const warning = card.getByText('A phone cannot open this link');
  await expect(warning).toBeVisible();
  await expect(card).toContainText(`The link points at ${new URL(appOrigin).host}: on a phone that means the phone itself`);
  await expect(card).toContainText('--tls internal');
  await shots(page, 'pairing');
  await card.getByRole('button', { name: 'Cancel pairing' }).click();
});

test('the authenticator app opened over plain http at a network name says it needs HTTPS', async ({ browser }) => {
  const info = (await (await fetch(`${plain.url}/api/auth/app-approval/v1/info`)).json()) as { appOrigin: string };
  const port = new URL(info.appOrigin).port;
  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  try {
    const app = await phone.newPage();
    // localhost is a secure context even over http: no note.
    await app.goto(`http://localhost:${port}/`);
    await expect(app.getByRole('heading', { name: 'Protect this phone’s keys' })).toBeVisible();
    await expect(app.getByTestId('insecure')).toHaveCount(0);
    // A name of the network over http is not.
    await app.goto(`http://hearth.test:${port}/`);
    await expect(app.getByTestId('insecure')).toContainText('This page came over plain http, so the browser does not let the app keep keys here');
    await expect(app.getByTestId('insecure')).toContainText('--tls internal');
    await expect(app.getByRole('heading', { name: 'Protect this phone’s keys' })).toHaveCount(0);
    await app.screenshot({ path: path.join(SCREENSHOTS, 'network-authenticator-plain-http-390.png'), fullPage: true, animations: 'disabled', caret: 'hide' });
  } finally {
    await phone.close();
  }
});
