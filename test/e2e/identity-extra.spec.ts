/**
 * More identity pages of the admin UI: Linux identities (configuration, preview, prepare, home/shell, POSIX groups),
 * passkeys (on /me and on the sign-in page, with Chromium's virtual authenticator) and the email-link pages linked
 * from the sign-in page. Runs its own server because it creates accounts and because WebAuthn needs the server's
 * public origin to be the page's origin: the server listens on a port chosen here and calls itself
 * `http://localhost:<port>` (HEARTH_PUBLIC_URL); the pages are opened at that address (localhost is a secure context
 * and a valid relying-party ID, an IP address is not).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { freePort } from '../helpers/ports.ts';
import { shooter, TEST_RESULTS, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';

const TOKEN = `e2e-identity-extra-${crypto.randomBytes(24).toString('hex')}`;
const auth = { Authorization: `Bearer ${TOKEN}` };
const ROOT = { login: 'root', password: 'root password 1', displayName: 'Root Admin' };
/** Person accounts created for the preview: more than one page of 50. */
const USERS = 56;
const RANGE = { start: 200000, end: 200999 };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-identity-extra-'));
  const port = await freePort();
  base = `http://localhost:${port}`;
  server = await startSpecServer(['--host', '127.0.0.1', '--port', String(port), '--data', dataDir, '--log-level', 'warn'], {
    ...process.env,
    HEARTH_ADMIN_TOKEN: TOKEN,
    HEARTH_PUBLIC_URL: base,
  });
  // The administrator the UI tests sign in as, and accounts for the preview (before assignment is enabled: none
  // of them has an identity yet).
  await createAccountViaApi(request, { login: ROOT.login, displayName: ROOT.displayName, admin: true }, ROOT.password);
  for (let i = 1; i <= USERS; i++) await createAccountViaApi(request, { login: `user-${String(i).padStart(3, '0')}`, displayName: `User ${i}` });
  await createAccountViaApi(request, { login: 'visitor', displayName: 'A guest', profile: 'guest' });
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

// The pages must run cleanly under the server's CSP. Non-2xx fetches log "Failed to load resource": expected answers.
let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page);
});
test.afterEach(() => {
  expect(consoleErrors, 'errors in the browser console').toEqual([]);
});

// From the top: a full-page shot of a scrolled page draws the sticky header in the middle.
const shot = shooter('identity-extra', { dir: TEST_RESULTS, fromTop: true });

async function createAccountViaApi(request: APIRequestContext, body: Record<string, unknown>, password?: string): Promise<{ sub: string; login: string }> {
  const res = await request.post(`${base}/api/admin/core/accounts`, { headers: auth, data: body });
  expect(res.status(), await res.text()).toBe(201);
  const account = (await res.json()) as { sub: string; login: string };
  if (password) {
    const pw = await request.put(`${base}/api/admin/core/accounts/${account.sub}/password`, { headers: auth, data: { password } });
    expect(pw.status(), await pw.text()).toBe(204);
  }
  return account;
}

async function ensureGroup(request: APIRequestContext, name: string): Promise<string> {
  const list = (await (await request.get(`${base}/api/admin/core/groups`, { headers: auth, params: { search: name } })).json()).data as {
    id: string;
    name: string;
  }[];
  const found = list.find((g) => g.name === name);
  if (found) return found.id;
  const res = await request.post(`${base}/api/admin/core/groups`, { headers: auth, data: { name } });
  expect(res.status()).toBe(201);
  return (await res.json()).id;
}

/** Enables assignment through the API (each test also runs alone with -g). */
async function ensureLinuxEnabled(request: APIRequestContext): Promise<void> {
  const res = await request.put(`${base}/api/admin/core/linux-identities/configuration`, {
    headers: auth,
    data: {
      config: { enabled: true, rangeStart: RANGE.start, rangeEnd: RANGE.end, homeTemplate: '/home/{username}', loginShell: '/bin/bash' },
      rangeReserved: true,
    },
  });
  expect(res.status(), await res.text()).toBe(200);
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const rowOf = (table: Locator, name: string) => table.getByRole('row').filter({ has: table.page().getByRole('rowheader', { name, exact: true }) });
/** A group row: its header cell is the name, followed by a GID badge once known. */
const groupRow = (table: Locator, name: string) =>
  table.getByRole('row').filter({ has: table.page().getByRole('rowheader', { name: new RegExp(`^${name}( GID \\d+)?$`) }) });
const bodyRows = (table: Locator) => table.locator('tbody tr');

async function openLinux(page: Page): Promise<void> {
  await nav(page).getByRole('link', { name: 'Linux IDs', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Linux identities', level: 1 })).toBeVisible();
  await expect(page).toHaveURL(`${base}/linux`);
  await expect(page).toHaveTitle('Linux identities · Hearth');
}

test('Linux identities: saving an enabled configuration needs the range confirmation', async ({ page }) => {
  await signIn(page, ROOT, { base });
  await openLinux(page);
  const form = page.getByRole('form', { name: 'Configuration' });
  await expect(page.getByRole('region', { name: 'Configuration' })).toContainText('Disabled');
  await expect(form.getByLabel('Home template')).toHaveValue('/home/{username}');
  await expect(form.getByLabel('Login shell')).toHaveValue('/bin/bash');
  // Disabled: no Prepare possible yet. (The preview is ordered by account ID: search to find one.)
  const table = page.getByRole('table', { name: 'Linux identities' });
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('user-001');
  await expect(bodyRows(table)).toHaveCount(1);
  await expect(rowOf(table, 'user-001')).toContainText('No identity yet');
  await expect(rowOf(table, 'user-001').getByRole('button', { name: 'Prepare user-001' })).toBeDisabled();
  await expect(page.getByRole('note').filter({ hasText: 'Assignment is disabled' })).toBeVisible();

  // A range below 1000: the server's 400 message lands next to the field.
  await form.getByLabel('Assign Linux identities').check();
  await form.getByLabel('Range start').fill('5');
  await form.getByLabel('Range end').fill(String(RANGE.end));
  await form.getByLabel('I confirm this range is reserved for Hearth').check();
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByLabel('Range start')).toHaveAccessibleErrorMessage('The range start must be at least 1000.');
  await expect(form).not.toContainText('rangeStart');

  // Enabling without the confirmation: refused (400 range_not_confirmed).
  await form.getByLabel('Range start').fill(String(RANGE.start));
  await form.getByLabel('I confirm this range is reserved for Hearth').uncheck();
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(form.getByLabel('I confirm this range is reserved for Hearth')).toHaveAccessibleErrorMessage(
    'Confirm that no other system hands out numbers in this range before enabling.',
  );
  await expect(form.getByRole('alert').filter({ hasText: 'The settings were not saved' })).toHaveCount(0);
  await shot(page, 'linux-refused');

  // With the confirmation: saved.
  await form.getByLabel('I confirm this range is reserved for Hearth').check();
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(notifications(page)).toContainText('Linux identity settings saved');
  await expect(page.getByRole('region', { name: 'Configuration' })).toContainText('Enabled');
  await expect(form.getByRole('button', { name: 'Save settings' })).toBeDisabled();
  await expect(page.getByRole('note').filter({ hasText: 'Assignment is disabled' })).toHaveCount(0);
  await expect(rowOf(table, 'user-001').getByRole('button', { name: 'Prepare user-001' })).toBeEnabled();

  // Stored: a reload shows it.
  await page.reload();
  await expect(page.getByRole('form', { name: 'Configuration' }).getByLabel('Range start')).toHaveValue(String(RANGE.start));
  await expect(page.getByRole('form', { name: 'Configuration' }).getByLabel('Assign Linux identities')).toBeChecked();
  await shot(page, 'linux-config');
});

test('Linux identities: preview pages of 50, scope, search; prepare an account, edit its home and shell', async ({ page, request }) => {
  await ensureLinuxEnabled(request);
  await signIn(page, ROOT, { base });
  await openLinux(page);
  const table = page.getByRole('table', { name: 'Linux identities' });
  const range = page.locator('.range');

  // Paging: 1 root + 56 users + 1 guest = 58 accounts → 50 + 8.
  await expect(bodyRows(table)).toHaveCount(50);
  await expect(range).toHaveText('1–50 · page 1');
  const pages = page.getByRole('navigation', { name: 'Pages' });
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(range).toHaveText('51–58 · page 2');
  await expect(bodyRows(table)).toHaveCount(8);
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(range).toHaveText('1–50 · page 1');

  // The guest is listed but not eligible.
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('visitor');
  await expect(bodyRows(table)).toHaveCount(1);
  await expect(rowOf(table, 'visitor')).toContainText('Not eligible: guests get no identity');
  await expect(rowOf(table, 'visitor').getByRole('button')).toHaveCount(0);
  await expect(range).toHaveText('1 account');

  // Scope "ready": eligible accounts without an identity (the guest is not one).
  await page.getByRole('radio', { name: 'Ready to prepare' }).check();
  await expect(page.getByRole('cell', { name: /No account matches “visitor” among those ready to prepare/ })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('user-007');
  await expect(bodyRows(table)).toHaveCount(1);
  const row = rowOf(table, 'user-007');
  await expect(row).toContainText('No identity yet');
  await expect(row).toContainText('None');

  // Prepare: UID and private group from the range.
  await row.getByRole('button', { name: 'Prepare user-007' }).click();
  await expect(notifications(page)).toContainText('user-007 prepared');
  await expect(row).toContainText('/home/user-007');
  await expect(row).toContainText('/bin/bash');
  await expect(row).toContainText('(user-007)');
  const uid = Number((await row.getByRole('cell').nth(1).textContent())!.trim());
  expect(uid).toBeGreaterThanOrEqual(RANGE.start);
  expect(uid).toBeLessThanOrEqual(RANGE.end);
  await shot(page, 'linux-prepared');

  // It is no longer "ready"; under "all" it keeps its identity.
  await page.getByRole('button', { name: 'Refresh the list' }).click();
  await expect(page.getByRole('cell', { name: /No account matches “user-007” among those ready to prepare/ })).toBeVisible();
  await shot(page, 'linux-ready-empty', false);
  await page.getByRole('radio', { name: 'All accounts' }).check();
  await expect(rowOf(table, 'user-007')).toContainText(String(uid));

  // Edit home and shell: client-side check, then saved.
  await rowOf(table, 'user-007').getByRole('button', { name: 'Edit home and shell of user-007' }).click();
  const dialog = page.getByRole('dialog', { name: 'Home and shell of user-007' });
  await expect(dialog.getByLabel('Home directory')).toHaveValue('/home/user-007');
  await expect(dialog).toContainText(`UID ${uid}`);
  await dialog.getByLabel('Home directory').fill('home/user-007');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('The home directory must be an absolute path')).toBeVisible();
  await dialog.getByLabel('Home directory').fill('/srv/homes/user-007');
  await dialog.getByLabel('Login shell').fill('/bin/zsh');
  await shot(page, 'linux-edit');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(notifications(page)).toContainText('Home and shell of user-007 saved');
  await expect(rowOf(table, 'user-007')).toContainText('/srv/homes/user-007');
  await expect(rowOf(table, 'user-007')).toContainText('/bin/zsh');

  // Stored on the server.
  const sub = (await (await request.get(`${base}/api/admin/core/accounts`, { headers: auth, params: { search: 'user-007' } })).json()).data[0].sub as string;
  const stored = await (await request.get(`${base}/api/admin/core/linux-identities/users/${sub}`, { headers: auth })).json();
  expect(stored.identity).toMatchObject({ uid, gid: uid, homeDirectory: '/srv/homes/user-007', loginShell: '/bin/zsh' });
});

test('groups: make a group POSIX and see its GID', async ({ page, request }) => {
  await ensureLinuxEnabled(request);
  await ensureGroup(request, 'developers');
  await signIn(page, ROOT, { base });
  await nav(page).getByRole('link', { name: 'Groups', exact: true }).click();
  const table = page.getByRole('table', { name: 'Groups' });
  const row = groupRow(table, 'developers');
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'More actions for developers' }).click();
  await page.getByRole('menu', { name: 'More actions for developers' }).getByRole('menuitem', { name: 'Make POSIX group…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Make developers a POSIX group?' });
  await expect(dialog).toContainText('It grants nothing by itself');
  await dialog.getByRole('button', { name: 'Make POSIX group' }).click();
  await expect(dialog).toBeHidden();
  await expect(notifications(page)).toContainText('developers is now a POSIX group');
  await expect(row).toContainText(/GID 200\d{3}/);
  const gid = Number(/GID (\d+)/.exec((await row.getByRole('rowheader').textContent())!)![1]);
  expect(gid).toBeGreaterThanOrEqual(RANGE.start);
  await shot(page, 'groups-posix');

  // Idempotent: asking again shows the same GID.
  await row.getByRole('button', { name: 'More actions for developers' }).click();
  await page.getByRole('menu', { name: 'More actions for developers' }).getByRole('menuitem', { name: 'Make POSIX group…' }).click();
  await dialog.getByRole('button', { name: 'Make POSIX group' }).click();
  await expect(notifications(page)).toContainText('developers already is a POSIX group');
  await expect(notifications(page)).toContainText(`GID ${gid}.`);

  // While assignment is disabled a new group is refused, with a pointer to the Linux page.
  const off = await request.put(`${base}/api/admin/core/linux-identities/configuration`, {
    headers: auth,
    data: { config: { enabled: false, rangeStart: RANGE.start, rangeEnd: RANGE.end, homeTemplate: '/home/{username}', loginShell: '/bin/bash' } },
  });
  expect(off.status()).toBe(200);
  await ensureGroup(request, 'printers');
  await page.getByRole('button', { name: 'Refresh the list' }).click();
  await groupRow(table, 'printers').getByRole('button', { name: 'More actions for printers' }).click();
  await page.getByRole('menu', { name: 'More actions for printers' }).getByRole('menuitem', { name: 'Make POSIX group…' }).click();
  const refused = page.getByRole('dialog', { name: 'Make printers a POSIX group?' });
  await refused.getByRole('button', { name: 'Make POSIX group' }).click();
  await expect(refused.getByRole('alert')).toContainText('not enabled');
  await refused.getByRole('link', { name: 'Linux IDs' }).click();
  await expect(page.getByRole('heading', { name: 'Linux identities', level: 1 })).toBeVisible();
  await ensureLinuxEnabled(request);
});

test('sign-in page: email links, and the forgot-password page loads', async ({ page }) => {
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  const forgot = page.getByRole('link', { name: 'Forgot your password?' });
  const magic = page.getByRole('link', { name: 'Email me a sign-in link' });
  await expect(forgot).toHaveAttribute('href', '/auth/forgot-password');
  await expect(magic).toHaveAttribute('href', '/auth/email-sign-in/request');
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toBeVisible();
  await shot(page, 'sign-in');
  // Not on the API-token form.
  await page.getByRole('button', { name: 'Use an API token' }).click();
  await expect(page.getByRole('link', { name: 'Forgot your password?' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Sign in with a passkey' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Use a login and password' }).click();

  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(`${base}/auth/forgot-password`);
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  await expect(page.getByLabel('Login name or email')).toBeVisible();
  await shot(page, 'forgot-password');
  await page.goBack();
  await page.getByRole('link', { name: 'Email me a sign-in link' }).click();
  await expect(page).toHaveURL(`${base}/auth/email-sign-in/request`);
  await expect(page.getByRole('heading', { name: 'Email me a sign-in link' })).toBeVisible();
});

test('passkeys: add on /me, sign out, sign in with the passkey, rename, remove', async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await signIn(page, ROOT, { base });
  await page
    .getByRole('banner')
    .getByRole('link', { name: /^Account:/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  const card = page.getByRole('region', { name: 'Passkeys' });
  const table = card.getByRole('table', { name: 'Passkeys' });
  await expect(table).toContainText('No passkeys yet.');

  await card.getByLabel('Name of the new passkey').fill('Test laptop');
  await card.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(notifications(page)).toContainText('Passkey Test laptop added');
  await expect(rowOf(table, 'Test laptop')).toContainText('Never');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.rpId).toBe('localhost');
  await shot(page, 'passkey-added');

  // Sign out, then in with the passkey: the same account session as after a password sign-in.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  // Signed in where the person was (/me), as after a password sign-in.
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner').getByRole('link', { name: /^Account:/ })).toContainText('Root Admin');
  // The cookie session survives a reload.
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Signed in' })).toContainText('root');
  await expect(rowOf(table, 'Test laptop')).not.toContainText('Never');

  // Rename.
  await rowOf(table, 'Test laptop').getByRole('button', { name: 'Rename Test laptop' }).click();
  const rename = page.getByRole('dialog', { name: 'Rename passkey' });
  await rename.getByLabel('Name').fill('');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename.getByText('Enter a name.')).toBeVisible();
  await rename.getByLabel('Name').fill('Office desktop');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await expect(rename).toBeHidden();
  await expect(notifications(page)).toContainText('Passkey renamed to Office desktop');
  await expect(rowOf(table, 'Office desktop')).toBeVisible();
  await shot(page, 'passkey-renamed');

  // Remove. The server first answers recent_auth_required (as it would for a sign-in older than ten minutes): the
  // dialog offers the account's passkey, the virtual authenticator confirms it, and the removal carries on.
  let refused = false;
  await page.route('**/api/auth/passkeys/*', (route) => {
    if (refused || route.request().method() !== 'DELETE') return route.fallback();
    refused = true;
    return route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'recent_auth_required', message: 'confirm it is you again' }),
    });
  });
  await rowOf(table, 'Office desktop').getByRole('button', { name: 'Remove Office desktop' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove passkey Office desktop?' });
  await remove.getByRole('button', { name: 'Remove passkey' }).click();
  const confirmIt = page.getByRole('dialog', { name: 'Confirm it’s you' });
  await expect(confirmIt.getByRole('button', { name: 'Use a passkey' })).toBeVisible();
  await expect(confirmIt.getByLabel('Password')).toBeVisible();
  await confirmIt.getByRole('button', { name: 'Use a passkey' }).click();
  await expect(confirmIt).toBeHidden();
  expect(refused).toBe(true);
  await page.unroute('**/api/auth/passkeys/*');
  await expect(remove).toBeHidden();
  await expect(notifications(page)).toContainText('Passkey Office desktop removed');
  await expect(table).toContainText('No passkeys yet.');

  // The removed passkey no longer signs in (the authenticator still holds it).
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('alert')).toContainText('This passkey was not accepted');
  await shot(page, 'passkey-refused');
});

test('passkeys: an old session is asked for its password; an API-token session has no passkeys', async ({ page }) => {
  await signIn(page, ROOT, { base });
  await page.goto(`${base}/me`);
  // The server answers 403 recent_auth_required when the sign-in is older than ten minutes.
  await page.route('**/api/auth/passkeys/registration', (route) =>
    route.fulfill({
      status: 403,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'recent_auth_required', message: 'sign in again to do this' }),
    }),
  );
  const card = page.getByRole('region', { name: 'Passkeys' });
  await card.getByRole('button', { name: 'Add a passkey' }).click();
  // The password is asked for in a dialog (home-shell.spec.ts carries on); given up, the card says what to do.
  const confirm = page.getByRole('dialog', { name: 'Confirm your password' });
  await expect(confirm).toBeVisible();
  await shot(page, 'passkey-recent-auth');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(card.getByRole('alert')).toContainText('Try again and confirm your password when asked.');
  await page.unroute('**/api/auth/passkeys/registration');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();

  await signIn(page, { token: TOKEN }, { base });
  await page.goto(`${base}/me`);
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await expect(page.getByRole('note').filter({ hasText: 'Signed in with an API token' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Passkeys' })).toHaveCount(0);
});
