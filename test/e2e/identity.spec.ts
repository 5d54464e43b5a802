/**
 * Identity administration in the admin UI: accounts, groups, service accounts, signing keys, the signed-in
 * account's own password and OAuth clients. Runs its own server (fresh data folder, an admin token) because it
 * creates accounts: the global server of the other specs must stay without any (their first view is the setup).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { shooter, TEST_RESULTS, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';

const TOKEN = `e2e-identity-${crypto.randomBytes(24).toString('hex')}`;
const auth = { Authorization: `Bearer ${TOKEN}` };
const ROOT = { login: 'root', password: 'root password 1', displayName: 'Root Admin' };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-identity-'));
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN });
  base = server.publicUrl;
  // The administrator the UI tests sign in as.
  await createAccountViaApi(request, { login: ROOT.login, displayName: ROOT.displayName, admin: true }, ROOT.password);
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

const shot = shooter('identity', { dir: TEST_RESULTS });

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

async function findAccount(request: APIRequestContext, login: string) {
  const res = await request.get(`${base}/api/admin/core/accounts`, { headers: auth, params: { search: login } });
  expect(res.status()).toBe(200);
  return (
    (await res.json()).data as {
      sub: string;
      login: string;
      displayName: string;
      email: string | null;
      disabled: boolean;
      admin: boolean;
      expiresAt: string | null;
    }[]
  ).find((a) => a.login === login);
}

/** The account `login` (created when an earlier test did not: each test also runs alone with -g). */
async function ensureAccount(request: APIRequestContext, login: string): Promise<string> {
  return (await findAccount(request, login))?.sub ?? (await createAccountViaApi(request, { login })).sub;
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

async function canLogIn(request: APIRequestContext, login: string, password: string): Promise<number> {
  return (await request.post(`${base}/api/auth/login`, { data: { login, password } })).status();
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });
/** The row whose header cell is `name` (a string matches exactly; a RegExp matches the header's whole text). */
const rowOf = (table: Locator, name: string | RegExp) =>
  table.getByRole('row').filter({ has: table.page().getByRole('rowheader', typeof name === 'string' ? { name, exact: true } : { name }) });
const startsWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`);

async function menuAction(page: Page, row: Locator, menuName: string, item: string): Promise<void> {
  await row.getByRole('button', { name: menuName }).click();
  await page.getByRole('menu', { name: menuName }).getByRole('menuitem', { name: item }).click();
}

async function goTo(page: Page, link: string, heading: string): Promise<void> {
  await nav(page).getByRole('link', { name: link, exact: true }).click();
  await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
  await expect(nav(page).getByRole('link', { name: link, exact: true })).toHaveAttribute('aria-current', 'page');
}

test('navigation between the identity pages; an API-token session cannot change a password', async ({ page }) => {
  await signIn(page, { token: TOKEN }, { base });
  await goTo(page, 'Accounts', 'Accounts');
  await expect(page).toHaveURL(`${base}/accounts`);
  await goTo(page, 'Groups', 'Groups');
  await goTo(page, 'Service accounts', 'Service accounts');
  await goTo(page, 'Signing keys', 'Signing keys');
  await goTo(page, 'Namespaces', 'Namespaces');

  // Real paths: every page loads directly (the server answers index.html) and sets its title.
  for (const [p, heading] of [
    ['/accounts', 'Accounts'],
    ['/groups', 'Groups'],
    ['/service-accounts', 'Service accounts'],
    ['/oauth-clients', 'OAuth clients'],
    ['/keys', 'Signing keys'],
    ['/me', 'Your account'],
  ]) {
    await page.goto(base + p);
    await expect(page.getByRole('heading', { name: heading, level: 1 })).toBeVisible();
    await expect(page).toHaveTitle(`${heading} · Hearth`);
  }
  await page.goto(`${base}/groups`);

  await page
    .getByRole('banner')
    .getByRole('link', { name: /^Account:/ })
    .click();
  await expect(page).toHaveURL(`${base}/me`);
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  const note = page.getByRole('note').filter({ hasText: 'Signed in with an API token' });
  await expect(note).toBeVisible();
  await expect(note).toContainText('sign out and sign in with your login and password');
  await expect(page.getByLabel('Current password')).toHaveCount(0);
  await shot(page, 'me-token');
});

test('accounts: create with a password, edit, set the password, disable, enable, delete', async ({ page, request }) => {
  await signIn(page, ROOT, { base });
  await page.goto(`${base}/accounts`);
  const table = page.getByRole('table', { name: 'Accounts' });
  await expect(rowOf(table, 'root')).toBeVisible();
  await expect(rowOf(table, 'root')).toContainText('You');

  // Create: client-side checks first, then the real thing.
  await page.getByRole('button', { name: 'New account' }).click();
  const dialog = page.getByRole('dialog', { name: 'New account' });
  await dialog.getByLabel('Login').fill('Bob');
  await dialog.getByLabel('Password', { exact: true }).fill('short');
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await expect(dialog.getByLabel('Login')).toHaveAccessibleErrorMessage(/lowercase/);
  await dialog.getByLabel('Login').fill('bob');
  await dialog.getByLabel('Display name').fill('Bob Builder');
  await dialog.getByLabel('Email').fill('bob@example.com');
  await dialog.getByLabel('Profile').selectOption('guest');
  await dialog.getByLabel('Expires').fill('2031-05-01T12:00');
  await dialog.getByLabel('Password', { exact: true }).fill('bob password 1');
  await dialog.getByLabel('Confirm password').fill('bob password 1');
  await shot(page, 'account-create');
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await expect(dialog).toBeHidden();
  await expect(notifications(page)).toContainText('Account bob created');
  const bob = rowOf(table, 'bob');
  await expect(bob).toContainText('Bob Builder');
  await expect(bob).toContainText('bob@example.com');
  await expect(bob).toContainText('Guest');
  await expect(bob).toContainText('Active');
  let api = await findAccount(request, 'bob');
  expect(api).toMatchObject({
    displayName: 'Bob Builder',
    email: 'bob@example.com',
    profile: 'guest',
    admin: false,
    disabled: false,
    expiresAt: '2031-05-01T12:00:00.000Z',
  });
  expect(await canLogIn(request, 'bob', 'bob password 1')).toBe(200);

  // A taken login is reported on its field.
  await page.getByRole('button', { name: 'New account' }).click();
  await dialog.getByLabel('Login').fill('bob');
  await dialog.getByRole('button', { name: 'Create account' }).click();
  await expect(dialog.getByLabel('Login')).toHaveAccessibleErrorMessage(/already in use/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // Search.
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('builder');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(rowOf(table, 'bob')).toBeVisible();
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('nobody-here');
  await expect(table).toContainText('No account matches “nobody-here”.');
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('');
  await expect(rowOf(table, 'root')).toBeVisible();
  await shot(page, 'accounts');

  // Edit: rename the display name, make it a user, clear the expiry.
  await bob.getByRole('button', { name: 'Edit bob' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit bob' });
  await expect(edit.getByLabel('Display name')).toHaveValue('Bob Builder');
  await edit.getByLabel('Display name').fill('Robert Builder');
  await edit.getByLabel('Profile').selectOption('user');
  await edit.getByLabel('Expires').fill('');
  await shot(page, 'account-edit');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(notifications(page)).toContainText('Account bob saved');
  await expect(bob).toContainText('Robert Builder');
  await expect(bob).toContainText('Never');
  api = await findAccount(request, 'bob');
  expect(api).toMatchObject({ displayName: 'Robert Builder', profile: 'user', expiresAt: null, email: 'bob@example.com' });

  // Set the password.
  await menuAction(page, bob, 'More actions for bob', 'Set password…');
  const pw = page.getByRole('dialog', { name: 'Set the password of bob' });
  await pw.getByLabel('New password').fill('bob password 2');
  await pw.getByLabel('Confirm password').fill('bob password 2');
  await shot(page, 'account-password');
  await pw.getByRole('button', { name: 'Set password' }).click();
  await expect(pw).toBeHidden();
  await expect(notifications(page)).toContainText('Password of bob set');
  expect(await canLogIn(request, 'bob', 'bob password 2')).toBe(200);
  expect(await canLogIn(request, 'bob', 'bob password 1')).toBe(401);

  // Disable, then enable.
  await menuAction(page, bob, 'More actions for bob', 'Disable…');
  const disable = page.getByRole('dialog', { name: 'Disable bob?' });
  await disable.getByRole('button', { name: 'Disable account' }).click();
  await expect(disable).toBeHidden();
  await expect(bob).toContainText('Disabled');
  expect((await findAccount(request, 'bob'))?.disabled).toBe(true);
  expect(await canLogIn(request, 'bob', 'bob password 2')).toBe(401);
  await shot(page, 'accounts-disabled');
  await menuAction(page, bob, 'More actions for bob', 'Enable');
  await expect(bob).toContainText('Active');
  expect((await findAccount(request, 'bob'))?.disabled).toBe(false);

  // Delete needs the login typed; a throwaway account goes.
  await createAccountViaApi(request, { login: 'temp' });
  await page.getByRole('button', { name: 'Refresh the list' }).click();
  const temp = rowOf(table, 'temp');
  await menuAction(page, temp, 'More actions for temp', 'Delete…');
  const del = page.getByRole('dialog', { name: 'Delete temp?' });
  await expect(del.getByRole('button', { name: 'Delete account' })).toBeDisabled();
  await del.getByLabel('Type temp to confirm').fill('temp');
  await del.getByRole('button', { name: 'Delete account' }).click();
  await expect(del).toBeHidden();
  await expect(temp).toHaveCount(0);
  expect(await findAccount(request, 'temp')).toBeUndefined();

  // The credential-flow policy: guests may no longer use credential flows.
  const policy = page.getByRole('region', { name: 'Credential flows' });
  await expect(policy.getByLabel('Guests')).toBeChecked();
  await expect(policy.getByRole('button', { name: 'Save policy' })).toBeDisabled();
  // The reserved directory category is out of the way, behind a disclosure, and says it changes nothing today.
  await expect(policy.getByLabel('Directory accounts')).toBeHidden();
  await expect(policy).not.toContainText('Reserved: nothing creates them yet');
  await policy.getByText('Reserved for later').click();
  await expect(policy.getByLabel('Directory accounts')).toBeVisible();
  await expect(policy).toContainText('Hearth does not create any yet, so this changes nothing today.');
  await policy.getByLabel('Guests').uncheck();
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await expect(notifications(page)).toContainText('Credential policy saved');
  expect((await (await request.get(`${base}/api/admin/core/account-policy`, { headers: auth })).json()).allowedCategories).toEqual(['login']);
  await policy.getByLabel('Guests').check();
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await expect(policy.getByRole('button', { name: 'Save policy' })).toBeDisabled();
  expect((await (await request.get(`${base}/api/admin/core/account-policy`, { headers: auth })).json()).allowedCategories).toEqual(['login', 'guest']);
});

test('groups: create, rename, add an account and a nested group, remove, delete', async ({ page, request }) => {
  await ensureAccount(request, 'bob');
  await signIn(page, ROOT, { base });
  await goTo(page, 'Groups', 'Groups');
  const table = page.getByRole('table', { name: 'Groups' });
  await expect(table).toContainText('No groups yet');

  for (const [name, description] of [
    ['staf', 'Everyone on the payroll'],
    ['everyone', 'All people'],
  ]) {
    await page.getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    await dialog.getByLabel('Name').fill(name!);
    await dialog.getByLabel('Description').fill(description!);
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect(dialog).toBeHidden();
    await expect(notifications(page)).toContainText(`Group ${name} created`);
  }

  // Rename staf → staff.
  await menuAction(page, rowOf(table, 'staf'), 'More actions for staf', 'Edit…');
  const edit = page.getByRole('dialog', { name: 'Edit group staf' });
  await edit.getByLabel('Name').fill('staff');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(rowOf(table, 'staff')).toContainText('Everyone on the payroll');

  // Members of staff: bob.
  await rowOf(table, 'staff').getByRole('button', { name: 'Members of staff' }).click();
  const members = page.getByRole('dialog', { name: 'Members of staff' });
  await expect(members.getByText('No accounts.')).toBeVisible();
  // One searchable picker (combobox): type, move with the keyboard, Enter adds.
  const picker = members.getByRole('combobox', { name: 'Add a member' });
  await picker.fill('bob');
  const options = members.getByRole('listbox', { name: 'Add a member' }).getByRole('option');
  await expect(options).toHaveCount(1);
  await expect(options.first()).toContainText('Person');
  await expect(options.first()).toHaveAttribute('aria-selected', 'true');
  await expect(picker).toHaveAttribute('aria-activedescendant', (await options.first().getAttribute('id'))!);
  await picker.press('Enter');
  await expect(members.getByRole('list', { name: 'Member accounts' })).toContainText('bob');
  await expect(picker).toHaveValue('');
  // bob is now a member: still found, but cannot be picked again.
  await picker.fill('bob');
  await expect(options.first()).toHaveAttribute('aria-disabled', 'true');
  await picker.press('Escape');
  await expect(picker).toHaveAttribute('aria-expanded', 'false');
  await shot(page, 'group-members');
  const bobSub = (await findAccount(request, 'bob'))!.sub;
  await members.getByRole('button', { name: 'Done' }).click();

  // everyone contains staff (nested).
  await rowOf(table, 'everyone').getByRole('button', { name: 'Members of everyone' }).click();
  const everyone = page.getByRole('dialog', { name: 'Members of everyone' });
  await everyone.getByRole('combobox', { name: 'Add a member' }).fill('staff');
  await everyone.getByRole('option', { name: /^staff Group/ }).click();
  await expect(everyone.getByRole('list', { name: 'Nested groups' })).toContainText('staff');
  await everyone.getByRole('button', { name: 'Done' }).click();

  // A cycle is refused with an explanation.
  await rowOf(table, 'staff').getByRole('button', { name: 'Members of staff' }).click();
  await picker.fill('everyone');
  await members.getByRole('option', { name: /^everyone Group/ }).click();
  await expect(members.getByRole('alert')).toContainText('cycle');
  await members.getByRole('button', { name: 'Done' }).click();

  const groups = (await (await request.get(`${base}/api/admin/core/groups`, { headers: auth })).json()).data as { id: string; name: string }[];
  const staff = groups.find((g) => g.name === 'staff')!;
  const all = groups.find((g) => g.name === 'everyone')!;
  expect(
    (await (await request.get(`${base}/api/admin/core/groups/${staff.id}`, { headers: auth })).json()).members.accounts.map((a: { login: string }) => a.login),
  ).toEqual(['bob']);
  expect(
    (await (await request.get(`${base}/api/admin/core/groups/${all.id}`, { headers: auth })).json()).members.groups.map((g: { name: string }) => g.name),
  ).toEqual(['staff']);
  // bob is in everyone through staff: the account dialog shows both.
  const bobDetail = await (await request.get(`${base}/api/admin/core/accounts/${bobSub}`, { headers: auth })).json();
  expect(bobDetail.groups).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'staff', direct: true }), expect.objectContaining({ name: 'everyone', direct: false })]),
  );
  await shot(page, 'groups');

  // Remove the nested group, then delete everyone.
  await rowOf(table, 'everyone').getByRole('button', { name: 'Members of everyone' }).click();
  await everyone.getByRole('button', { name: 'Remove group staff' }).click();
  await expect(everyone.getByText('No nested groups.')).toBeVisible();
  await everyone.getByRole('button', { name: 'Done' }).click();
  await menuAction(page, rowOf(table, 'everyone'), 'More actions for everyone', 'Delete…');
  const del = page.getByRole('dialog', { name: 'Delete group everyone?' });
  await del.getByLabel('Type everyone to confirm').fill('everyone');
  await del.getByRole('button', { name: 'Delete group' }).click();
  await expect(rowOf(table, 'everyone')).toHaveCount(0);
  await expect(rowOf(table, 'staff')).toBeVisible();
});

test('service accounts: create and delete', async ({ page, request }) => {
  await signIn(page, ROOT, { base });
  await goTo(page, 'Service accounts', 'Service accounts');
  const table = page.getByRole('table', { name: 'Service accounts' });
  for (const [app, type, id, name] of [
    ['invoicing', 'namespace', 'sales', 'Invoicing on sales'],
    ['reports', 'namespace', 'sales', ''],
  ]) {
    await page.getByRole('button', { name: 'New service account' }).click();
    const dialog = page.getByRole('dialog', { name: 'New service account' });
    await dialog.getByLabel('Application ID').fill(app!);
    await dialog.getByLabel('Resource type').fill(type!);
    await dialog.getByLabel('Resource ID').fill(id!);
    if (name) await dialog.getByLabel('Display name').fill(name);
    await dialog.getByRole('button', { name: 'Create service account' }).click();
    await expect(dialog).toBeHidden();
  }
  const row = rowOf(table, 'Invoicing on sales');
  await expect(row).toContainText('invoicing');
  await expect(row).toContainText('namespace');
  await expect(row).toContainText('sales');
  // The triple is unique.
  await page.getByRole('button', { name: 'New service account' }).click();
  const dialog = page.getByRole('dialog', { name: 'New service account' });
  await dialog.getByLabel('Application ID').fill('invoicing');
  await dialog.getByLabel('Resource type').fill('namespace');
  await dialog.getByLabel('Resource ID').fill('sales');
  await dialog.getByRole('button', { name: 'Create service account' }).click();
  await expect(dialog.getByLabel('Resource ID')).toHaveAccessibleErrorMessage(/already has a service account/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  // The database service's own application and resource type, in one click.
  await page.getByRole('button', { name: 'New service account' }).click();
  const db = page.getByRole('dialog', { name: 'New service account' });
  await db.getByRole('button', { name: 'For a database namespace' }).click();
  await expect(db.getByLabel('Application ID')).toHaveValue('hearth-db');
  await expect(db.getByLabel('Resource type')).toHaveValue('namespace');
  await expect(db.getByLabel('Resource ID')).toBeFocused();
  await db.getByLabel('Resource ID').fill('sales');
  await db.getByRole('button', { name: 'Create service account' }).click();
  await expect(db).toBeHidden();
  await expect(rowOf(table, 'hearth-db: namespace sales')).toContainText('hearth-db');
  await shot(page, 'service-accounts');

  await rowOf(table, startsWith('reports'))
    .getByRole('button', { name: /Delete service account reports/ })
    .click();
  await page.getByRole('dialog', { name: 'Delete this service account?' }).getByRole('button', { name: 'Delete service account' }).click();
  await expect(rowOf(table, startsWith('reports'))).toHaveCount(0);
  const list = (await (await request.get(`${base}/api/admin/core/service-accounts`, { headers: auth })).json()).data as { appId: string }[];
  expect(list.map((s) => s.appId)).toEqual(['hearth-db', 'invoicing']);
});

test('signing keys: tables per purpose, KEK fingerprint, rewrap, revoke with a reason', async ({ page, request }) => {
  await signIn(page, ROOT, { base });
  await goTo(page, 'Signing keys', 'Signing keys');
  const before = await (await request.get(`${base}/api/admin/identity/keys`, { headers: auth })).json();
  await expect(page.getByTestId('kek-fingerprint')).toHaveText(before.kekFingerprint);
  for (const [purpose, title] of [
    ['session', 'Session keys'],
    ['invocation', 'Invocation keys'],
    ['oauth', 'OAuth keys'],
  ] as const) {
    const table = page.getByRole('table', { name: title });
    for (const k of before.keys.filter((k: { purpose: string }) => k.purpose === purpose)) {
      await expect(rowOf(table, k.kid)).toContainText(k.state === 'active' ? 'Active' : k.state === 'pending' ? 'Pending' : /Retired|Revoked/);
      await expect(rowOf(table, k.kid)).toContainText('Current KEK');
    }
  }

  await page.getByRole('button', { name: 'Re-encrypt keys under the current KEK' }).click();
  await expect(notifications(page)).toContainText('Every private key already uses the current KEK');
  await expect(page.getByRole('note').filter({ hasText: 'Rewrap done' })).toContainText('Every private key is now under the current key-encryption key.');
  await expect(page.getByTestId('rewrap-kek')).toHaveText(before.kekFingerprint);
  await shot(page, 'keys');

  // Revoke the active invocation key: a replacement is created at once.
  const invocation = before.keys.find((k: { purpose: string; state: string }) => k.purpose === 'invocation' && k.state === 'active');
  const table = page.getByRole('table', { name: 'Invocation keys' });
  await expect(page.getByRole('button', { name: /Revoke/ })).toHaveCount(0);
  await menuAction(page, rowOf(table, invocation.kid), `More actions for key ${invocation.kid}`, 'Revoke…');
  const dialog = page.getByRole('dialog', { name: `Revoke key ${invocation.kid}?` });
  await expect(dialog).toContainText('Hearth stops signing with it at once, on every replica. A new key takes over immediately');
  await expect(dialog).toContainText('at most five minutes');
  await expect(dialog.getByRole('button', { name: 'Revoke key' })).toBeDisabled();
  await dialog.getByLabel('Reason').fill('INC-42: key file copied to a laptop');
  await shot(page, 'keys-revoke');
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await expect(dialog).toBeHidden();
  await expect(notifications(page)).toContainText(`Key ${invocation.kid} revoked`);
  await expect(rowOf(table, invocation.kid)).toContainText('Revoked');
  await expect(rowOf(table, invocation.kid)).toContainText('INC-42: key file copied to a laptop');
  await expect(rowOf(table, invocation.kid)).toContainText(`by ${ROOT.login}`);
  await expect(rowOf(table, invocation.kid).getByRole('button', { name: /More actions/ })).toHaveCount(0);
  const after = await (await request.get(`${base}/api/admin/identity/keys`, { headers: auth })).json();
  const revoked = after.keys.find((k: { kid: string }) => k.kid === invocation.kid);
  expect(revoked).toMatchObject({ state: 'revoked', revocationReason: 'INC-42: key file copied to a laptop' });
  const replacement = after.keys.find((k: { purpose: string; state: string }) => k.purpose === 'invocation' && k.state === 'active');
  expect(replacement.kid).not.toBe(invocation.kid);
  await expect(rowOf(table, replacement.kid)).toContainText('Active');
});

test('own password change on /me with a signed-in account', async ({ page, request }) => {
  await createAccountViaApi(request, { login: 'carol', displayName: 'Carol Admin', admin: true }, 'carol password 1');
  await signIn(page, { login: 'carol', password: 'carol password 1' }, { base });
  await page
    .getByRole('banner')
    .getByRole('link', { name: /^Account:/ })
    .click();
  await expect(page).toHaveURL(`${base}/me`);
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await expect(page.getByRole('main')).toContainText('carol');
  await expect(page.getByRole('main')).toContainText('Carol Admin');

  const form = page.getByRole('form', { name: 'Change your password' });
  // Mismatch: caught before sending.
  await form.getByLabel('Current password').fill('carol password 1');
  await form.getByLabel('New password', { exact: true }).fill('carol password 2');
  await form.getByLabel('Confirm new password').fill('carol password 3');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByLabel('Confirm new password')).toHaveAccessibleErrorMessage(/do not match/);
  // A wrong current password: reported, and the session stays.
  await form.getByLabel('Current password').fill('not my password');
  await form.getByLabel('Confirm new password').fill('carol password 2');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByLabel('Current password')).toHaveAccessibleErrorMessage(/wrong/);
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await shot(page, 'me-error');

  await form.getByLabel('Current password').fill('carol password 1');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('Your password was changed.')).toBeVisible();
  await expect(notifications(page)).toContainText('Password changed');
  await expect(form.getByLabel('Current password')).toHaveValue('');
  await shot(page, 'me');
  expect(await canLogIn(request, 'carol', 'carol password 2')).toBe(200);
  expect(await canLogIn(request, 'carol', 'carol password 1')).toBe(401);

  // Still signed in: the other pages work.
  await goTo(page, 'Accounts', 'Accounts');
  await expect(rowOf(page.getByRole('table', { name: 'Accounts' }), 'carol')).toContainText('You');
});

test('OAuth clients: create with a secret, rotate it, revoke, protected first-party clients', async ({ page, request }) => {
  const bobSub = await ensureAccount(request, 'bob');
  const staffId = await ensureGroup(request, 'staff');
  await signIn(page, ROOT, { base });
  await goTo(page, 'OAuth clients', 'OAuth clients');
  const table = page.getByRole('table', { name: 'OAuth clients' });

  await page.getByRole('button', { name: 'New client' }).click();
  const dialog = page.getByRole('dialog', { name: 'New OAuth client' });
  await dialog.getByLabel('Name', { exact: true }).fill('Wiki');
  await dialog.getByLabel('Description').fill('The team wiki');
  await dialog.getByLabel('Redirect URIs').fill('not a uri');
  await dialog.getByRole('button', { name: 'Create client' }).click();
  await expect(dialog.getByLabel('Redirect URIs')).toHaveAccessibleErrorMessage(/not an absolute URI/);
  await dialog.getByLabel('Redirect URIs').fill('https://wiki.example.com/callback\nhttps://wiki.example.com/callback2');
  await dialog.getByLabel('Post-logout redirect URI').fill('https://wiki.example.com/');
  await dialog.getByRole('checkbox', { name: /groups/ }).check();
  await dialog.getByRole('checkbox', { name: /offline_access/ }).check();
  await dialog.getByRole('radio', { name: 'Only specific users and groups' }).check();
  await dialog
    .getByRole('group', { name: /^Groups/ })
    .getByRole('checkbox', { name: /staff/ })
    .check();
  await dialog
    .getByRole('group', { name: /^Users/ })
    .getByRole('checkbox', { name: /^bob/ })
    .check();
  await shot(page, 'oauth-create');
  await dialog.getByRole('button', { name: 'Create client' }).click();

  const secretDialog = page.getByRole('dialog', { name: 'Client Wiki created' });
  await expect(secretDialog).toBeVisible();
  await expect(secretDialog.getByText('Copy the client secret now')).toBeVisible();
  const secret1 = await secretDialog.getByTestId('client-secret').inputValue();
  expect(secret1.length).toBeGreaterThan(10);
  const clientId = await secretDialog.getByRole('textbox', { name: 'Client ID' }).inputValue();
  await shot(page, 'oauth-secret');

  // "Connect your app": every value is the discovery document's; copy buttons put it on the clipboard.
  const discovery = (await (await request.get(`${base}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const expectConnectPanel = async (scope: Locator) => {
    const panel = scope.getByRole('region', { name: 'Connect your app' });
    const values: [string, string][] = [
      ['Issuer', discovery.issuer!],
      ['Discovery URL', `${discovery.issuer}/.well-known/openid-configuration`],
      ['Authorization endpoint', discovery.authorization_endpoint!],
      ['Token endpoint', discovery.token_endpoint!],
      ['UserInfo endpoint', discovery.userinfo_endpoint!],
      ['Signing keys (JWKS)', discovery.jwks_uri!],
      ['Revocation endpoint', discovery.revocation_endpoint!],
      ['Device authorization endpoint', discovery.device_authorization_endpoint!],
      ['Client ID', clientId],
    ];
    for (const [label, value] of values) await expect(panel.getByRole('textbox', { name: label, exact: true })).toHaveValue(value);
    await expect(panel.getByRole('listitem')).toHaveText(['https://wiki.example.com/callback', 'https://wiki.example.com/callback2']);
    await expect(panel.getByRole('region', { name: 'Example code' })).toContainText(`'${clientId}'`);
    return panel;
  };
  const fresh = await expectConnectPanel(secretDialog);
  await expect(fresh).toContainText('Shown above, this once only');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await fresh.getByRole('button', { name: 'Copy the Token endpoint' }).click();
  await expect(fresh.getByRole('status')).toHaveText('Token endpoint copied to the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(discovery.token_endpoint);
  await fresh.getByRole('tab', { name: 'Python (Authlib)' }).click();
  await expect(fresh.getByRole('tabpanel')).toContainText(`server_metadata_url="${discovery.issuer}/.well-known/openid-configuration"`);
  await secretDialog.getByRole('button', { name: 'I have copied the secret' }).click();

  const wiki = rowOf(table, startsWith('Wiki'));
  await expect(table).toContainText(clientId);
  const created = (await (await request.get(`${base}/api/admin/oauth/clients/${clientId}`, { headers: auth })).json()).client;
  expect(created).toMatchObject({
    name: 'Wiki',
    description: 'The team wiki',
    redirectUris: ['https://wiki.example.com/callback', 'https://wiki.example.com/callback2'],
    logoutUri: 'https://wiki.example.com/',
    scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    accessMode: 'specific',
    isPublic: false,
    hasSecret: true,
    revokedAt: null,
  });
  expect(created.allowedGroupIds).toEqual([staffId]);
  expect(created.allowedUserIds).toEqual([bobSub]);

  // The panel again, from the list: the secret is not shown again, the note says where it was.
  await wiki.getByRole('button', { name: 'Connect your app to Wiki' }).click();
  const connect = page.getByRole('dialog', { name: 'Connect Wiki' });
  await expect(await expectConnectPanel(connect)).toContainText('Shown only once, when the client was created');
  await expect(connect.getByTestId('client-secret')).toHaveCount(0);
  await shot(page, 'oauth-connect');
  await connect.getByRole('button', { name: 'Done' }).click();

  // Edit: a new description.
  await wiki.getByRole('button', { name: 'Edit Wiki' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit Wiki' });
  await expect(edit.getByLabel('Redirect URIs')).toHaveValue('https://wiki.example.com/callback\nhttps://wiki.example.com/callback2');
  // The client's dialog leads to its panel too.
  await edit.getByRole('button', { name: 'Connect your app…' }).click();
  await expect(page.getByRole('dialog', { name: 'Connect Wiki' }).getByRole('textbox', { name: 'Client ID' })).toHaveValue(clientId);
  await page.getByRole('dialog', { name: 'Connect Wiki' }).getByRole('button', { name: 'Done' }).click();
  await wiki.getByRole('button', { name: 'Edit Wiki' }).click();
  await edit.getByLabel('Description').fill('The company wiki');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit).toBeHidden();
  await expect(wiki).toContainText('The company wiki');

  // Rotate: a new secret, shown once.
  await menuAction(page, wiki, 'More actions for Wiki', 'Rotate secret…');
  await page.getByRole('dialog', { name: 'Rotate the secret of Wiki?' }).getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = page.getByRole('dialog', { name: 'New secret for Wiki' });
  await expect(rotated).toBeVisible();
  const secret2 = await rotated.getByTestId('client-secret').inputValue();
  expect(secret2.length).toBeGreaterThan(10);
  expect(secret2).not.toBe(secret1);
  await rotated.getByRole('button', { name: 'I have copied the secret' }).click();

  // Revoke.
  await menuAction(page, wiki, 'More actions for Wiki', 'Revoke…');
  await page.getByRole('dialog', { name: 'Revoke Wiki?' }).getByRole('button', { name: 'Revoke client' }).click();
  await expect(wiki).toContainText('Revoked');
  await expect(wiki.getByRole('button', { name: 'Edit Wiki' })).toHaveCount(0);
  await expect(wiki.getByRole('button', { name: 'View Wiki' })).toBeVisible();
  await shot(page, 'oauth');
  const revoked = (await (await request.get(`${base}/api/admin/oauth/clients/${clientId}`, { headers: auth })).json()).client;
  expect(revoked.revokedAt).not.toBeNull();

  // A public client: no secret to show or rotate.
  await page.getByRole('button', { name: 'New client' }).click();
  await dialog.getByLabel('Name', { exact: true }).fill('Desk app');
  await dialog.getByRole('radio', { name: /^Public/ }).check();
  await dialog.getByLabel('Redirect URIs').fill('http://127.0.0.1:7777/callback');
  await dialog.getByRole('button', { name: 'Create client' }).click();
  await expect(dialog).toBeHidden();
  const deskCreated = page.getByRole('dialog', { name: 'Client Desk app created' });
  await expect(deskCreated.getByRole('region', { name: 'Connect your app' })).toContainText('None: this is a public client');
  await deskCreated.getByRole('button', { name: 'Done' }).click();
  const desk = rowOf(table, startsWith('Desk app'));
  await expect(desk).toContainText('Public');
  await desk.getByRole('button', { name: 'More actions for Desk app' }).click();
  await expect(page.getByRole('menu', { name: 'More actions for Desk app' }).getByRole('menuitem', { name: 'Rotate secret…' })).toBeDisabled();
  await page.keyboard.press('Escape');

  // Delete the revoked client: the name must be typed.
  await menuAction(page, wiki, 'More actions for Wiki', 'Delete…');
  const del = page.getByRole('dialog', { name: 'Delete Wiki?' });
  await del.getByLabel('Type Wiki to confirm').fill('Wiki');
  await del.getByRole('button', { name: 'Delete client' }).click();
  await expect(wiki).toHaveCount(0);
  expect((await request.get(`${base}/api/admin/oauth/clients/${clientId}`, { headers: auth })).status()).toBe(404);

  // First-party clients are read-only.
  const firstParty = (await (await request.get(`${base}/api/admin/oauth/clients`, { headers: auth, params: { per_page: 100 } })).json()) as {
    clients?: { name: string; origin: string }[];
    data?: { name: string; origin: string }[];
  };
  const builtIn = (firstParty.clients ?? firstParty.data ?? []).find((c) => c.origin === 'first_party');
  if (builtIn) {
    const row = rowOf(table, startsWith(builtIn.name));
    await expect(row).toContainText('Built-in');
    await expect(row.getByRole('button', { name: `Edit ${builtIn.name}` })).toHaveCount(0);
    await expect(row.getByRole('button', { name: `More actions for ${builtIn.name}` })).toHaveCount(0);
    await row.getByRole('button', { name: `View ${builtIn.name}` }).click();
    const view = page.getByRole('dialog', { name: builtIn.name });
    await expect(view.getByLabel('Name', { exact: true })).toBeDisabled();
    await expect(view.getByRole('button', { name: 'Save changes' })).toHaveCount(0);
    await view.getByRole('button', { name: 'Done' }).click();
  }
});

test('accounts list pages through more than one page and keeps the search', async ({ page, request }) => {
  for (let i = 1; i <= 30; i++) await createAccountViaApi(request, { login: `user${String(i).padStart(2, '0')}`, displayName: `Paged user ${i}` });
  const total = ((await (await request.get(`${base}/api/admin/core/accounts`, { headers: auth })).json()) as { total: number }).total;
  await signIn(page, ROOT, { base });
  await page.goto(`${base}/accounts`);
  const table = page.getByRole('table', { name: 'Accounts' });
  await expect(page.getByText(`1–25 of ${total} accounts · page 1 of 2`)).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(26);
  const pages = page.getByRole('navigation', { name: 'Pages' });
  await expect(pages.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText(`26–${total} of ${total} accounts · page 2 of 2`)).toBeVisible();
  await expect(table.getByRole('row')).toHaveCount(total - 25 + 1);
  await expect(pages.getByRole('button', { name: 'Next' })).toBeDisabled();
  await shot(page, 'accounts-page-2');
  // A search starts again on page 1.
  await page.getByRole('searchbox', { name: 'Search accounts' }).fill('paged user');
  await expect(page.getByText('1–25 of 30 accounts · page 1 of 2')).toBeVisible();
  await pages.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('26–30 of 30 accounts · page 2 of 2')).toBeVisible();
  await pages.getByRole('button', { name: 'Previous' }).click();
  await expect(page.getByText('1–25 of 30 accounts · page 1 of 2')).toBeVisible();
});
