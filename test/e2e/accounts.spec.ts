/**
 * Accounts in the admin UI: first-run setup, password sign-in with the session cookie, sign-out and the
 * sign-in errors. Runs its own server (fresh data folder, no account) so the setup it performs does not
 * change the global server the other specs share.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, type Locator, test } from '@playwright/test';
import { shooter, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-accounts-'));
  const env = { ...process.env };
  delete env.HEARTH_ADMIN_TOKEN;
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], env);
  base = server.publicUrl;
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page);
});
test.afterEach(() => {
  expect(consoleErrors, 'errors in the browser console').toEqual([]);
});

const shot = shooter('accounts');

async function expectFieldError(field: Locator, message: RegExp): Promise<void> {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleErrorMessage(message);
}

test('first-run setup, password sign-in, sign-out and sign-in errors', async ({ page, request }) => {
  expect(await (await request.get(`${base}/api/setup`)).json()).toEqual({ needed: true });

  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Create the first administrator' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use an API token' })).toBeVisible();
  await shot(page, 'setup');

  const form = page.getByRole('form', { name: 'Create the first administrator' });
  const login = form.getByLabel('Login');
  const pw = form.getByLabel('Password', { exact: true });
  const confirm = form.getByLabel('Confirm password');

  // A bad login, a short password, then mismatched passwords: each reported next to its field, nothing sent.
  await login.fill('9Admin');
  await form.getByLabel('Display name').fill('Ada Lovelace');
  await pw.fill('short');
  await form.getByRole('button', { name: 'Create administrator' }).click();
  await expectFieldError(login, /starts with a lowercase letter or _/);
  await expectFieldError(pw, /at least 8 characters/);
  await login.fill('ada');
  await pw.fill('correct horse battery');
  await confirm.fill('correct horse battery staple');
  await form.getByRole('button', { name: 'Create administrator' }).click();
  await expect(login).not.toHaveAttribute('aria-invalid', 'true');
  await expectFieldError(confirm, /do not match/);
  await shot(page, 'setup-errors');
  expect(await (await request.get(`${base}/api/setup`)).json()).toEqual({ needed: true });

  // Created and signed in at once, with the session cookie (no token stored).
  await confirm.fill('correct horse battery');
  await form.getByRole('button', { name: 'Create administrator' }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Ada Lovelace');
  await expect(page.getByRole('banner')).toContainText('@ada');
  expect(await (await request.get(`${base}/api/setup`)).json()).toEqual({ needed: false });
  expect(await page.evaluate(() => [localStorage.getItem('hearth.admin-token'), sessionStorage.getItem('hearth.admin-token')])).toEqual([null, null]);
  expect((await page.context().cookies()).map((c) => c.name)).toContain('hearth_session');

  // The namespaces page works on the cookie: create one.
  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Namespaces' }).click();
  await page.getByRole('button', { name: 'Create namespace' }).click();
  const dialog = page.getByRole('dialog', { name: 'New namespace' });
  await dialog.getByLabel('Name', { exact: true }).fill('notes');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText('Namespace notes created');
  await expect(page).toHaveURL(/\/ns\/notes\/tables$/);
  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Namespaces' }).click();
  await expect(page.getByRole('table', { name: 'Namespaces' }).getByRole('rowheader', { name: 'notes', exact: true })).toBeVisible();
  await shot(page, 'signed-in');

  // A reload keeps the account session (the cookie).
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Ada Lovelace');

  // Sign out ends the session on the server too.
  const loggedOut = page.waitForResponse((r) => r.url().endsWith('/api/auth/logout') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Sign out' }).click();
  expect((await loggedOut).status()).toBe(204);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  // An empty field shows no example that could pass for a value.
  await expect(page.getByLabel('Login')).toHaveValue('');
  expect(await page.getByLabel('Login').getAttribute('placeholder')).toBeNull();

  // A wrong password.
  await page.getByLabel('Login').fill('ada');
  await page.getByLabel('Password').fill('wrong password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expectFieldError(page.getByLabel('Password'), /Wrong login or password/);
  await shot(page, 'sign-in-error');

  // The right one.
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Namespaces' }).getByRole('rowheader', { name: 'notes', exact: true })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText('Ada Lovelace');

  // The session ends behind the UI's back: the next call answers 401 and the UI returns to sign-in.
  await page.context().clearCookies();
  await page.getByRole('button', { name: 'Refresh the list' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await expect(page.getByText(/session has ended/)).toBeVisible();
  await shot(page, 'sign-in');

  // Too many failures: 429 with the time to wait.
  for (let i = 0; i < 10; i++) await request.post(`${base}/api/auth/login`, { data: { login: 'ada', password: `nope ${i}` } });
  await page.getByLabel('Login').fill('ada');
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText(/Too many failed attempts\. Try again in \d+ seconds?\./);
  await shot(page, 'rate-limited');
});
