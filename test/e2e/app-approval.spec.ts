/**
 * Authenticator approval end to end, in two origins: the admin UI (the platform origin) and the reference
 * authenticator web app (its own listener, `--authenticator-port 0`, `http://localhost:<port>`), each in its own
 * browser context like a laptop and a phone.
 *
 * 1. The administrator pairs the authenticator: "Pair a device" on /me → the phone opens the pairing link, claims it
 *    and shows a six-digit code → the administrator types that code in the browser → the device is listed.
 * 2. A fresh browser signs in with the authenticator app: the phone's inbox shows the request with the same code and
 *    the sign-in context, the person approves, and the browser ends up signed in.
 * 3. A denial: the browser says so and stays on the sign-in page.
 * 4. A terminal sign-in (RFC 8628 with `login_hint`): the phone shows the application, every scope and the lifetime.
 * 5. A second device: its pairing waits for the first phone's approval; renaming; removing it through a device change
 *    that the removed phone itself approves.
 * 6. Assisted pairing from the account dialog, a PIN-locked phone, "Remove this device" on the phone.
 * 7. Administrator revocation from the account dialog; the phone learns it on its next poll.
 * 8. The passkey lock (CDP virtual authenticator with PRF).
 *
 * Runs its own server (fresh data folder) because it creates accounts: the global server of the other specs must stay
 * without any (their first view is the setup). Its authenticator URL is read the same way as global-setup reads it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { shooter, TEST_RESULTS, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';

const TOKEN = `e2e-approval-${crypto.randomBytes(24).toString('hex')}`;
const ADMIN = { login: 'alex', password: 'alex password 1', displayName: 'Alex Admin' };
const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
/** A phone-sized viewport for the authenticator. */
const PHONE = { width: 390, height: 844 };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';
let authenticatorBase = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-approval-'));
  server = await startSpecServer(['--port', '0', '--authenticator-port', '0', '--data', dataDir, '--log-level', 'warn'], {
    ...process.env,
    HEARTH_ADMIN_TOKEN: TOKEN,
    HEARTH_AUTHENTICATOR_ORIGIN: '',
  });
  base = server.publicUrl;
  authenticatorBase = server.authenticatorUrl!;
  expect(new URL(authenticatorBase).origin).not.toBe(new URL(base).origin);
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const created = await request.post(`${base}/api/admin/core/accounts`, {
    headers: auth,
    data: { login: ADMIN.login, displayName: ADMIN.displayName, email: 'alex@app-approval.e2e.test', admin: true },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { sub } = (await created.json()) as { sub: string };
  const pw = await request.put(`${base}/api/admin/core/accounts/${sub}/password`, { headers: auth, data: { password: ADMIN.password } });
  expect(pw.status(), await pw.text()).toBe(204);
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// Both apps must run cleanly under their CSPs: each page's console is watched (watchConsole).
const shot = shooter('app-approval', { dir: TEST_RESULTS });

/** The phone: one context for the whole file (its IndexedDB holds the vault and the binding). */
let phoneContext: BrowserContext;
let phone: Page;
let phoneErrors: string[] = [];

async function newLaptop(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  // A desktop Chrome's user agent (Playwright's says HeadlessChrome, which the sign-in context calls `other`).
  const context = await browser.newContext({ baseURL: base, userAgent: DESKTOP_CHROME });
  const page = await context.newPage();
  return { context, page, errors: watchConsole(page) };
}

test.afterAll(async () => {
  await phoneContext?.close();
});

test('the administrator pairs the reference authenticator from /me', async ({ browser }) => {
  const laptop = await newLaptop(browser);
  const { page } = laptop;
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByLabel('Login').fill(ADMIN.login);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();

  await page.goto(`${base}/me`);
  const card = page.getByRole('region', { name: 'Authenticator app' });
  await expect(card).toBeVisible();
  await expect(card.getByText('No paired devices yet.')).toBeVisible();
  await card.getByRole('button', { name: 'Pair a device' }).click();
  const linkEl = card.getByTestId('pairing-link');
  await expect(linkEl).toBeVisible();
  const link = (await linkEl.getAttribute('href'))!;
  expect(link.startsWith(`${authenticatorBase}/#pairing=`)).toBe(true);
  await shot(page, 'admin-pairing-link');

  // The phone opens the link: a first start asks how to protect the keys.
  phoneContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phone = await phoneContext.newPage();
  phoneErrors = watchConsole(phone);
  await phone.goto(link);
  await expect(phone.getByRole('heading', { name: 'Protect this phone’s keys' })).toBeVisible();
  // The secret left the address bar at once.
  expect(phone.url()).toBe(`${authenticatorBase}/`);
  await shot(phone, 'phone-lock-setup');
  await phone.getByLabel(/No lock/).check();
  await phone.getByRole('button', { name: 'Continue' }).click();

  const pairing = phone.getByTestId('pairing');
  await expect(pairing.getByText(base)).toBeVisible();
  await pairing.getByLabel('Name of this phone').fill('Test phone');
  await shot(phone, 'phone-pair');
  await pairing.getByRole('button', { name: 'Pair this phone' }).click();
  const codeEl = pairing.getByTestId('pairing-code');
  await expect(codeEl).toBeVisible();
  const code = (await codeEl.textContent())!.replace(/\s+/g, '');
  expect(code).toMatch(/^\d{6}$/);
  await shot(phone, 'phone-pairing-code');

  // The browser learns the claim from its status poll and asks for the code.
  const input = card.getByLabel('Code shown on the phone');
  await expect(input).toBeVisible();
  await shot(page, 'admin-pairing-code');
  // A mistyped code is refused next to the field; the pairing survives it.
  const wrong = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
  await input.fill(wrong);
  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(card.getByText('This is not the code the phone shows. Check it and try again.')).toBeVisible();
  await input.fill(code);
  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(card.getByText('Device paired')).toBeVisible();
  await expect(card.getByTestId('app-device').filter({ hasText: 'Test phone' })).toBeVisible();
  await shot(page, 'admin-paired');

  // The phone sees the confirmation and shows the instance's (empty) inbox.
  await expect(pairing.getByText(/Paired\. This phone can now approve sign-ins/)).toBeVisible();
  await pairing.getByRole('button', { name: 'Done' }).click();
  await expect(phone.getByTestId('instance')).toBeVisible();
  await expect(phone.getByTestId('inbox-empty')).toBeVisible();
  await phone.getByRole('button', { name: 'Account' }).click();
  await expect(phone.getByTestId('account').getByText(ADMIN.login, { exact: true })).toBeVisible();
  await expect(phone.getByTestId('account').getByText('Test phone')).toBeVisible();
  await shot(phone, 'phone-paired');
  await phone.getByRole('button', { name: 'Close' }).click();

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await laptop.context.close();
});

/** A fresh browser starts "Sign in with the authenticator app" and returns the code it shows. */
async function startAppSignIn(page: Page): Promise<string> {
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await shot(page, 'signin-page');
  await page.getByRole('button', { name: 'Sign in with the authenticator app' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in with the authenticator app' })).toBeVisible();
  await page.getByLabel('Login or email').fill(ADMIN.login);
  await shot(page, 'signin-app-form');
  await page.getByRole('button', { name: 'Send to my phone' }).click();
  const codeEl = page.getByTestId('app-login-code');
  await expect(codeEl).toBeVisible();
  const code = (await codeEl.textContent())!.replace(/\s+/g, '');
  expect(code).toMatch(/^\d{6}$/);
  // The browser secret stays in this tab's session storage, never in the URL.
  expect(page.url()).toBe(`${base}/`);
  const stored = await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('hearth.app-login:')));
  expect(stored).toEqual(['hearth.app-login:login:/']);
  return code;
}

test('a fresh browser signs in by approving on the phone', async ({ browser }) => {
  const laptop = await newLaptop(browser);
  const { page } = laptop;
  const code = await startAppSignIn(page);
  await shot(page, 'signin-waiting');

  // The phone's inbox shows the request with the same code and the sign-in context.
  const request = phone.getByTestId('login-request');
  await expect(request).toBeVisible();
  await expect(request.getByTestId('request-code')).toHaveText(`${code.slice(0, 3)} ${code.slice(3)}`);
  const context = request.getByTestId('login-context');
  await expect(context).toBeVisible();
  await expect(context.getByText(/Chrome on Linux/)).toBeVisible();
  await expect(request.getByTestId('context-level')).toBeVisible();
  await expect(context.getByText('Same network as this phone')).toBeVisible();
  await shot(phone, 'phone-request');

  await request.getByRole('button', { name: 'Approve' }).click();
  await expect(request.getByText('Does the browser show this code?')).toBeVisible();
  await shot(phone, 'phone-confirm');
  await request.getByRole('button', { name: 'Yes, approve' }).click();
  await expect(phone.getByTestId('decision-outcome')).toHaveText(/Approved/);

  // The held status answers, the browser completes and enters the admin UI as that account.
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: /Alex Admin/ })).toBeVisible();
  const left = await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('hearth.app-login:')));
  expect(left).toEqual([]);
  await shot(page, 'signin-done');
  await expect(phone.getByTestId('inbox-empty')).toBeVisible();

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await laptop.context.close();
});

test('a sign-in denied on the phone is refused in the browser', async ({ browser }) => {
  const laptop = await newLaptop(browser);
  const { page } = laptop;
  const code = await startAppSignIn(page);

  const request = phone.getByTestId('login-request');
  await expect(request).toBeVisible();
  await expect(request.getByTestId('request-code')).toHaveText(`${code.slice(0, 3)} ${code.slice(3)}`);
  await request.getByRole('button', { name: 'Deny' }).click();
  await expect(phone.getByTestId('decision-outcome')).toHaveText(/Denied/);

  await expect(page.getByText('Sign-in denied')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Sign in with the authenticator app' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send to my phone' })).toBeEnabled();
  const session = await page.request.get(`${base}/api/auth/session`);
  expect(session.status()).toBe(401);
  await shot(page, 'signin-denied');
  await shot(phone, 'phone-after-deny');

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await laptop.context.close();
});

test('a terminal sign-in shows the application, every scope and the lifetime, and is approved on the phone', async ({ request }) => {
  const started = await request.post(`${base}/oauth/device_authorization`, {
    form: { client_id: 'hearth-cli', scope: 'openid profile offline_access', login_hint: ADMIN.login },
  });
  expect(started.status(), await started.text()).toBe(200);
  const grant = (await started.json()) as { device_code: string; user_code: string; interval: number };
  expect(grant.user_code).toMatch(/^\d{6}$/);

  const entry = phone.getByTestId('login-request');
  await expect(entry).toBeVisible();
  await expect(entry.getByRole('heading', { name: 'Sign-in from a terminal' })).toBeVisible();
  await expect(entry.getByTestId('request-code')).toHaveText(`${grant.user_code.slice(0, 3)} ${grant.user_code.slice(3)}`);
  for (const scope of ['openid', 'profile', 'offline_access']) await expect(entry.getByRole('listitem').filter({ hasText: scope })).toHaveCount(1);
  await expect(entry.getByText('hearth-cli')).toBeVisible();
  await expect(entry.getByText('7 days')).toBeVisible();
  // A terminal sign-in never carries a browser context.
  await expect(entry.getByTestId('login-context')).toHaveCount(0);
  await shot(phone, 'phone-terminal');

  await entry.getByRole('button', { name: 'Approve' }).click();
  await expect(entry.getByText('Does the terminal show this code?')).toBeVisible();
  await entry.getByRole('button', { name: 'Yes, approve' }).click();
  await expect(phone.getByTestId('decision-outcome')).toHaveText('Approved. The terminal is signing in.');

  const token = await request.post(`${base}/oauth/token`, {
    form: { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: grant.device_code, client_id: 'hearth-cli' },
  });
  expect(token.status(), await token.text()).toBe(200);
  const body = (await token.json()) as { access_token?: string; refresh_token?: string };
  expect(typeof body.access_token).toBe('string');
  expect(typeof body.refresh_token).toBe('string');
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
});

test('a second device needs the first one’s approval, and so does removing it', async ({ browser }) => {
  const laptop = await newLaptop(browser);
  const { page } = laptop;
  await page.goto(`${base}/`);
  await page.getByLabel('Login').fill(ADMIN.login);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await page.goto(`${base}/me`);
  const card = page.getByRole('region', { name: 'Authenticator app' });
  await card.getByRole('button', { name: 'Pair a device' }).click();
  const link = (await card.getByTestId('pairing-link').getAttribute('href'))!;

  const secondContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const second = await secondContext.newPage();
  const secondErrors = watchConsole(second);
  await second.goto(link);
  await second.getByLabel(/No lock/).check();
  await second.getByRole('button', { name: 'Continue' }).click();
  const pairing = second.getByTestId('pairing');
  await pairing.getByLabel('Name of this phone').fill('Second phone');
  await pairing.getByRole('button', { name: 'Pair this phone' }).click();
  const code = (await pairing.getByTestId('pairing-code').textContent())!.replace(/\s+/g, '');
  const input = card.getByLabel('Code shown on the phone');
  await expect(input).toBeVisible();
  await input.fill(code);
  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(card.getByText('Waiting for approval on your other device.')).toBeVisible();
  await shot(page, 'admin-pair-waiting-approval');

  // The first phone is asked; it approves the new device.
  const change = phone.getByTestId('device-change');
  await expect(change).toBeVisible();
  await expect(change.getByRole('heading', { name: 'Add a new device?' })).toBeVisible();
  await expect(change.getByText('Second phone')).toBeVisible();
  await shot(phone, 'phone-change-pair');
  await change.getByRole('button', { name: 'Approve' }).click();
  await change.getByRole('button', { name: 'Yes, add it' }).click();
  await expect(phone.getByTestId('decision-outcome')).toHaveText('Second phone was added.');

  await expect(card.getByText('Device paired')).toBeVisible();
  await expect(card.getByTestId('app-device').filter({ hasText: 'Second phone' })).toBeVisible();
  await expect(pairing.getByText(/Paired\. This phone can now approve sign-ins/)).toBeVisible();
  await pairing.getByRole('button', { name: 'Done' }).click();
  await expect(second.getByTestId('inbox-empty')).toBeVisible();

  // Rename it in the list.
  await card.getByRole('button', { name: 'Rename Second phone' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename device' });
  await rename.getByLabel('Name').fill('Spare phone');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename).toBeHidden();
  await expect(card.getByTestId('app-device').filter({ hasText: 'Spare phone' })).toBeVisible();
  await page.reload();
  await expect(card.getByTestId('app-device').filter({ hasText: 'Spare phone' })).toBeVisible();

  // Removing the second phone: asked of a paired device, which may be the one being removed.
  await card.getByRole('button', { name: 'Remove Spare phone' }).click();
  const remove = page.getByRole('dialog', { name: /Remove Spare phone/ });
  await expect(remove).toBeVisible();
  await remove.getByRole('button', { name: 'Ask my phone' }).click();
  await expect(card.getByText('Waiting for approval on your phone')).toBeVisible();
  await shot(page, 'admin-removal-waiting');
  const removal = second.getByTestId('device-change');
  await expect(removal).toBeVisible();
  await expect(removal.getByRole('heading', { name: 'Remove this phone?' })).toBeVisible();
  await expect(removal.getByText('Spare phone')).toBeVisible();
  await expect(removal.getByRole('button', { name: 'Deny' })).toHaveCount(0);
  await shot(second, 'phone-change-remove-self');
  await removal.getByRole('button', { name: 'Approve' }).click();
  await removal.getByRole('button', { name: 'Yes, remove it' }).click();
  // Approving its own removal: the phone's next inbox is refused at once and it says it was removed.
  await expect(second.getByText('This phone was removed from the account on this server.')).toBeVisible();
  await shot(second, 'phone-removed-self');
  await expect(card.getByText('Spare phone was removed.')).toBeVisible();
  await expect(
    card
      .getByTestId('app-device')
      .filter({ hasText: 'Spare phone' })
      .getByText(/^Removed/),
  ).toBeVisible();
  // The first phone's own inbox no longer shows the (decided) change.
  await expect(phone.getByTestId('inbox-empty')).toBeVisible();

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(secondErrors, 'second authenticator console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await secondContext.close();
  await laptop.context.close();
});

/** Signs the administrator in with login and password in a fresh laptop context. */
async function adminLaptop(browser: Browser) {
  const laptop = await newLaptop(browser);
  await laptop.page.goto(`${base}/`);
  await laptop.page.getByLabel('Login').fill(ADMIN.login);
  await laptop.page.getByLabel('Password').fill(ADMIN.password);
  await laptop.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(laptop.page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  return laptop;
}

async function openAccountDialog(page: Page, login: string) {
  await page.goto(`${base}/accounts`);
  await page.getByRole('button', { name: `Edit ${login}`, exact: true }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  return dialog;
}

test('an administrator pairs a phone for another account (assisted pairing)', async ({ browser, request }) => {
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const created = await request.post(`${base}/api/admin/core/accounts`, {
    headers: auth,
    data: { login: 'sam', displayName: 'Sam Sample', email: 'sam@app-approval.e2e.test' },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { sub } = (await created.json()) as { sub: string };

  const laptop = await adminLaptop(browser);
  const dialog = await openAccountDialog(laptop.page, 'sam');
  const devices = dialog.getByRole('region', { name: 'Authenticator app devices' });
  await expect(devices.getByText('No paired devices.')).toBeVisible();
  await devices.getByRole('button', { name: 'Pair a device for Sam Sample' }).click();
  const link = (await devices.getByTestId('pairing-link').getAttribute('href'))!;
  expect(link.startsWith(`${authenticatorBase}/#pairing=`)).toBe(true);

  // Sam's own phone (another browser profile): a PIN protects its keys this time.
  const samContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const sam = await samContext.newPage();
  const samErrors = watchConsole(sam);
  await sam.goto(link);
  await sam.getByRole('radio', { name: /PIN/ }).check();
  await sam.getByLabel('New PIN').fill('246810');
  await sam.getByLabel('Repeat the PIN').fill('246810');
  await sam.getByRole('button', { name: 'Continue' }).click();
  const pairing = sam.getByTestId('pairing');
  await pairing.getByLabel('Name of this phone').fill('Sam’s phone');
  await pairing.getByRole('button', { name: 'Pair this phone' }).click();
  const code = (await pairing.getByTestId('pairing-code').textContent())!.replace(/\s+/g, '');

  const input = devices.getByLabel('Code shown on the phone');
  await expect(input).toBeVisible();
  await input.fill(code);
  await devices.getByRole('button', { name: 'Confirm' }).click();
  await expect(devices.getByText('Device paired')).toBeVisible();
  const row = devices.getByTestId('account-app-device').filter({ hasText: 'Sam’s phone' });
  await expect(row).toBeVisible();
  await expect(row.getByText('Assisted')).toBeVisible();
  await shot(laptop.page, 'admin-assisted');

  await expect(pairing.getByText(/Paired\. This phone can now approve sign-ins/)).toBeVisible();
  await pairing.getByRole('button', { name: 'Done' }).click();
  await sam.getByRole('button', { name: 'Account' }).click();
  await expect(sam.getByTestId('account').getByText('sam', { exact: true })).toBeVisible();

  // The PIN lock: locking asks for the PIN again; a wrong PIN does not open the keys.
  await sam.getByRole('button', { name: 'Lock' }).click();
  await expect(sam.getByRole('heading', { name: 'Unlock' })).toBeVisible();
  await sam.getByLabel('PIN').fill('135790');
  await sam.getByRole('button', { name: 'Unlock' }).click();
  await expect(sam.getByText('Wrong PIN.')).toBeVisible();
  await sam.getByLabel('PIN').fill('246810');
  await sam.getByRole('button', { name: 'Unlock' }).click();
  await expect(sam.getByTestId('instance')).toBeVisible();
  await expect(sam.getByTestId('inbox-empty')).toBeVisible();
  await shot(sam, 'phone-assisted');

  const listed = await request.get(`${base}/api/admin/core/users/${sub}/app-devices`, { headers: auth });
  expect(listed.status()).toBe(200);
  const items = ((await listed.json()) as { items: { name: string; assisted: boolean; revokedAt: string | null }[] }).items;
  expect(items.map((d) => [d.name, d.assisted, d.revokedAt])).toEqual([['Sam’s phone', true, null]]);

  // "Remove this device" on the phone revokes it (signed `revoke` command) and forgets the binding.
  await sam.getByRole('button', { name: 'Account' }).click();
  await sam.getByRole('button', { name: 'Remove this device' }).click();
  await sam.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(sam.getByRole('heading', { name: 'No server paired yet' })).toBeVisible();
  const after = (
    (await (await request.get(`${base}/api/admin/core/users/${sub}/app-devices`, { headers: auth })).json()) as { items: { revokedAt: string | null }[] }
  ).items;
  expect(after).toHaveLength(1);
  expect(after[0]!.revokedAt).not.toBeNull();

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(samErrors, 'authenticator console errors').toEqual([]);
  await samContext.close();
  await laptop.context.close();
});

test('an administrator revokes a device from the account dialog; the phone learns it', async ({ browser }) => {
  const laptop = await adminLaptop(browser);
  const dialog = await openAccountDialog(laptop.page, ADMIN.login);
  const devices = dialog.getByRole('region', { name: 'Authenticator app devices' });
  const row = devices.getByTestId('account-app-device').filter({ hasText: 'Test phone' });
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Revoke Test phone' }).click();
  await row.getByRole('button', { name: 'Revoke now' }).click();
  await expect(row.getByText(/^Revoked/)).toBeVisible();
  await shot(laptop.page, 'admin-revoked');

  // The phone's next inbox poll is refused: it says so and offers to forget the server.
  await expect(phone.getByText('This phone was removed from the account on this server.')).toBeVisible();
  await shot(phone, 'phone-revoked');
  await phone.getByRole('button', { name: 'Forget this server' }).click();
  await expect(phone.getByRole('heading', { name: 'No server paired yet' })).toBeVisible();

  // /me lists it greyed with its revocation time.
  await laptop.page.goto(`${base}/me`);
  const card = laptop.page.getByRole('region', { name: 'Authenticator app' });
  await expect(
    card
      .getByTestId('app-device')
      .filter({ hasText: 'Test phone' })
      .getByText(/^Removed/),
  ).toBeVisible();
  await shot(laptop.page, 'admin-me-revoked');

  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await laptop.context.close();
});

test('the phone’s keys can be locked with a passkey (virtual authenticator with PRF)', async ({ browser }) => {
  const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors = watchConsole(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      ctap2Version: 'ctap2_1',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      hasPrf: true,
    },
  });
  await page.goto(`${authenticatorBase}/`);
  await page.getByRole('radio', { name: /Passkey/ }).check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { name: 'No server paired yet' })).toBeVisible();

  await page.getByRole('button', { name: 'Lock' }).click();
  await expect(page.getByRole('heading', { name: 'Unlock' })).toBeVisible();
  await expect(page.getByLabel('PIN')).toHaveCount(0);
  await shot(page, 'phone-passkey-locked');
  await page.getByRole('button', { name: 'Unlock with a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'No server paired yet' })).toBeVisible();

  // A reload starts locked: the vault key exists only wrapped by the passkey.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Unlock' })).toBeVisible();
  await page.getByRole('button', { name: 'Unlock with a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'No server paired yet' })).toBeVisible();

  expect(errors, 'authenticator console errors').toEqual([]);
  await context.close();
});
