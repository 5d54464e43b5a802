/**
 * The namespaces page, driven in Chromium against the real server started by global-setup.ts.
 * Every step checks what the admin sees and what the API says afterwards.
 */
import fs from 'node:fs';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { shooter, watchConsole } from './console-and-shots.ts';
import { sharedServer } from './shared-server.ts';
import { signIn } from './sign-in.ts';

const { url: API, token: TOKEN } = sharedServer();
const auth = { Authorization: `Bearer ${TOKEN}` };
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const DEFAULTS = {
  journal_mode: 'wal',
  synchronous: 'full',
  busy_timeout: 5000,
  max_db_size: null,
  query_timeout: 10000,
  foreign_keys: true,
  read_only: false,
};

test.describe.configure({ mode: 'serial' });

// The page must run cleanly under the server's CSP: no script errors, no refused resources. The browser
// logs every non-2xx fetch as "Failed to load resource"; those are expected answers (401, 409…) here.
let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page);
});
test.afterEach(() => {
  expect(consoleErrors, 'errors in the browser console').toEqual([]);
});

const shot = shooter('namespaces');

const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const table = (page: Page) => page.getByRole('table', { name: 'Namespaces' });
const row = (page: Page, name: string) =>
  table(page)
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) });

async function menuAction(page: Page, ns: string, item: string): Promise<void> {
  await row(page, ns)
    .getByRole('button', { name: `More actions for ${ns}` })
    .click();
  await page
    .getByRole('menu', { name: `More actions for ${ns}` })
    .getByRole('menuitem', { name: item })
    .click();
}

async function apiGet(request: APIRequestContext, name: string) {
  return request.get(`${API}/v1/namespaces/${name}`, { headers: auth });
}

async function configOf(request: APIRequestContext, name: string) {
  const res = await apiGet(request, name);
  expect(res.status()).toBe(200);
  return (await res.json()).config as Record<string, unknown>;
}

function rowsIn(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) FROM greetings').pluck().get() as number;
  } finally {
    db.close();
  }
}

async function expectFieldError(field: Locator, message: RegExp): Promise<void> {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleErrorMessage(message);
}

test('sign-in refuses bad tokens, remembers a good one and returns on 401', async ({ page, request }) => {
  await page.goto('/');
  // The global server has no account yet: the first view is the first-run setup, the token sign-in one click away.
  await expect(page.getByRole('heading', { name: 'Create the first administrator' })).toBeVisible();
  await page.getByRole('button', { name: 'Use an API token' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in with an API token' })).toBeVisible();
  await shot(page, 'sign-in');

  // An unknown token.
  await page.getByLabel('Admin token').fill('hth_not-a-real-token');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expectFieldError(page.getByLabel('Admin token'), /Token invalid/);
  await shot(page, 'sign-in-error');

  // A valid token without the admin scope.
  const nsToken = await request.post(`${API}/api/admin/tokens`, {
    headers: auth,
    data: { name: 'e2e data plane', scope: 'namespaces', namespaces: ['nowhere'] },
  });
  expect(nsToken.status()).toBe(201);
  await page.getByLabel('Admin token').fill((await nsToken.json()).token);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expectFieldError(page.getByLabel('Admin token'), /not an admin token/);

  // A second admin token, remembered on this device (localStorage) and kept across reloads.
  const created = await request.post(`${API}/api/admin/tokens`, { headers: auth, data: { name: 'e2e short-lived admin', scope: 'admin' } });
  expect(created.status()).toBe(201);
  const second = (await created.json()) as { id: string; token: string };
  await signIn(page, { token: second.token, remember: true }, { at: '/namespaces', lands: 'Namespaces' });
  expect(await page.evaluate(() => [localStorage.getItem('hearth.admin-token'), sessionStorage.getItem('hearth.admin-token')])).toEqual([second.token, null]);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();

  // Revoked behind the UI's back: the next call answers 401 and the UI returns to sign-in with a message.
  expect((await request.delete(`${API}/api/admin/tokens/${second.id}`, { headers: auth })).status()).toBe(204);
  await page.getByRole('button', { name: 'Refresh the list' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText(/session has ended/)).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('hearth.admin-token'))).toBeNull();

  // The configured admin token, for this tab only; sign out clears it.
  await page.getByLabel('Admin token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();
  expect(await page.evaluate(() => [localStorage.getItem('hearth.admin-token'), sessionStorage.getItem('hearth.admin-token')])).toEqual([null, TOKEN]);
  await expect(page.getByRole('banner')).toContainText(/v\d+\.\d+\.\d+/);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem('hearth.admin-token'))).toBeNull();
});

test('namespace lifecycle: create, configure, duplicate, export, import, delete', async ({ page, request }, testInfo) => {
  // A small database with data, to import and to find again after export and re-import.
  const fixture = testInfo.outputPath('fixture.db');
  {
    const db = new Database(fixture);
    db.exec("CREATE TABLE greetings (id INTEGER PRIMARY KEY, text TEXT NOT NULL); INSERT INTO greetings (text) VALUES ('hello'), ('bonjour'), ('hallo');");
    db.close();
  }
  const notSqlite = testInfo.outputPath('notes.txt');
  fs.writeFileSync(notSqlite, 'these are not the pages you are looking for\n'.repeat(40));

  await signIn(page, { token: TOKEN }, { at: '/namespaces', lands: 'Namespaces' });
  await expect(page.getByText('No namespaces yet — create the first one')).toBeVisible();
  await shot(page, 'empty');

  // --- create with defaults
  await page.getByRole('button', { name: 'Create namespace' }).click();
  let dialog = page.getByRole('dialog', { name: 'New namespace' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Name', { exact: true }).fill('alpha');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expect(notifications(page)).toContainText('Namespace alpha created');
  await expect(dialog).toBeHidden();
  // The new namespace opens on its Tables tab, where the first table is made.
  await expect(page).toHaveURL(/\/ns\/alpha\/tables$/);
  await expect(page.getByRole('heading', { name: 'alpha', level: 1 })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Namespaces' }).click();
  await expect(row(page, 'alpha')).toContainText('Write-ahead log');
  await expect(row(page, 'alpha')).toContainText('None');
  await expect(row(page, 'alpha')).toContainText('Read-write');
  await expect(row(page, 'alpha')).toContainText('just now');
  expect(await configOf(request, 'alpha')).toEqual(DEFAULTS);
  // One node: no Node column, no node to choose, no "Move to…" (nodes.spec.ts shows them with two).
  await expect(table(page).getByRole('columnheader', { name: 'Node' })).toHaveCount(0);

  // --- invalid and taken names, reported next to the name field
  await page.getByRole('button', { name: 'New namespace' }).click();
  dialog = page.getByRole('dialog', { name: 'New namespace' });
  const name = dialog.getByLabel('Name', { exact: true });
  await expect(dialog.getByLabel('Node')).toHaveCount(0);
  await name.fill('_x');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expectFieldError(name, /start with a letter or a digit/);
  // A name only the server refuses (reserved): its 400 message lands next to the field too.
  await name.fill('namespaces');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expectFieldError(name, /reserved/);
  await name.fill('alpha');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expectFieldError(name, /already exists/);
  await expect(dialog).toBeVisible();
  await shot(page, 'create-error');

  // --- create with advanced settings; an out-of-range value is caught next to its field first
  await name.fill('beta');
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await dialog.getByText('Advanced settings').click();
  await dialog.getByLabel('Synchronous').selectOption('normal');
  await dialog.getByLabel('Journal mode').selectOption('truncate');
  const busy = dialog.getByLabel('Lock wait');
  await busy.fill('700000');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expectFieldError(busy, /between 0 and 600,000/);
  await busy.fill('9000');
  await shot(page, 'create-advanced');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  await expect(notifications(page)).toContainText('Namespace beta created');
  await expect(page).toHaveURL(/\/ns\/beta\/tables$/);
  await page.goBack();
  await expect(row(page, 'beta')).toContainText('Rollback journal');
  expect(await configOf(request, 'beta')).toEqual({ ...DEFAULTS, journal_mode: 'truncate', synchronous: 'normal', busy_timeout: 9000 });

  // --- configure: read-only and an 8 MiB quota
  await row(page, 'alpha').getByRole('button', { name: 'Configure alpha' }).click();
  dialog = page.getByRole('dialog', { name: 'Configure alpha' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Journal mode')).toHaveValue('wal');
  await expect(dialog.getByLabel('Synchronous')).toHaveAccessibleDescription(/newest transactions may be lost/);
  // Words in the choices; the settings' API names behind Details.
  await expect(dialog.getByLabel('Synchronous').getByRole('option', { name: 'Safe against power loss' })).toBeAttached();
  await dialog.getByText('Details', { exact: true }).click();
  await expect(dialog.getByText(/Journal mode\s+journal_mode\s+\(wal\)/)).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Save changes' })).toBeDisabled();
  await dialog.getByLabel('Read-only').check();
  await dialog.getByLabel('Size quota').fill('8');
  await dialog.getByLabel('Quota unit').selectOption('MiB');
  await shot(page, 'config-dialog');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(notifications(page)).toContainText('Settings of alpha saved');
  await expect(dialog).toBeHidden();
  await expect(row(page, 'alpha').getByText('Read-only')).toBeVisible();
  await expect(row(page, 'alpha')).toContainText('8 MiB');
  expect(await configOf(request, 'alpha')).toEqual({ ...DEFAULTS, read_only: true, max_db_size: 8 * 1024 * 1024 });

  // --- import a database with data into alpha (a non-SQLite file is refused next to the picker)
  await menuAction(page, 'alpha', 'Import…');
  dialog = page.getByRole('dialog', { name: 'Import into alpha' });
  await expect(dialog.getByText('Importing replaces all data')).toBeVisible();
  const picker = dialog.getByLabel('Database file');
  await picker.setInputFiles(notSqlite);
  await expectFieldError(picker, /not a SQLite database/);
  await expect(dialog.getByRole('button', { name: 'Continue' })).toBeDisabled();
  await picker.setInputFiles(fixture);
  await expect(picker).not.toHaveAttribute('aria-invalid', 'true');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(dialog.getByText('Replace all data in alpha with fixture.db')).toBeVisible();
  await dialog.getByRole('button', { name: 'Replace data' }).click();
  await expect(notifications(page)).toContainText('Imported fixture.db into alpha');
  await expect(dialog).toBeHidden();

  // --- duplicate alpha (a taken name is refused next to the field); one node: the menu has no "Move to…"
  await row(page, 'alpha').getByRole('button', { name: 'More actions for alpha' }).click();
  const menu = page.getByRole('menu', { name: 'More actions for alpha' });
  await expect(menu.getByRole('menuitem', { name: 'Duplicate…' })).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'Move to…' })).toHaveCount(0);
  await menu.getByRole('menuitem', { name: 'Duplicate…' }).click();
  dialog = page.getByRole('dialog', { name: 'Duplicate alpha' });
  const newName = dialog.getByLabel('New name');
  await expect(newName).toHaveValue('alpha-copy');
  await newName.fill('beta');
  await dialog.getByRole('button', { name: 'Duplicate' }).click();
  await expectFieldError(newName, /already exists/);
  await newName.fill('alpha-copy');
  await dialog.getByRole('button', { name: 'Duplicate' }).click();
  await expect(notifications(page)).toContainText('Duplicated alpha as alpha-copy');
  await expect(row(page, 'alpha-copy')).toBeVisible();
  expect(await configOf(request, 'alpha-copy')).toEqual({ ...DEFAULTS, read_only: true, max_db_size: 8 * 1024 * 1024 });

  // --- export alpha-copy: a real SQLite file holding the imported rows
  const downloading = page.waitForEvent('download');
  await menuAction(page, 'alpha-copy', 'Export');
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('alpha-copy.db');
  const exported = testInfo.outputPath('alpha-copy.db');
  await download.saveAs(exported);
  const bytes = fs.readFileSync(exported);
  expect(bytes.subarray(0, 16).equals(SQLITE_MAGIC)).toBe(true);
  expect(rowsIn(exported)).toBe(3);
  await expect(notifications(page)).toContainText('Exported alpha-copy.db');

  // --- import the exported file into beta, with confirmation
  await menuAction(page, 'beta', 'Import…');
  dialog = page.getByRole('dialog', { name: 'Import into beta' });
  await dialog.getByLabel('Database file').setInputFiles(exported);
  await dialog.getByRole('button', { name: 'Continue' }).click();
  await expect(dialog.getByText('Replace all data in beta with alpha-copy.db')).toBeVisible();
  await shot(page, 'import-confirm');
  await dialog.getByRole('button', { name: 'Replace data' }).click();
  await expect(notifications(page)).toContainText('Imported alpha-copy.db into beta');
  await expect(dialog).toBeHidden();
  const betaExport = await request.get(`${API}/v1/namespaces/beta/export`, { headers: auth });
  expect(betaExport.status()).toBe(200);
  const betaFile = testInfo.outputPath('beta.db');
  fs.writeFileSync(betaFile, await betaExport.body());
  expect(rowsIn(betaFile)).toBe(3);
  // The import replaced the data, not the settings.
  expect(await configOf(request, 'beta')).toEqual({ ...DEFAULTS, journal_mode: 'truncate', synchronous: 'normal', busy_timeout: 9000 });

  await page.getByRole('button', { name: 'Refresh the list' }).click();
  await expect(table(page).getByRole('rowheader')).toHaveText(['alpha', 'alpha-copy', 'beta']);
  await shot(page, 'list');

  // --- delete alpha-copy after typing its name
  await menuAction(page, 'alpha-copy', 'Delete…');
  dialog = page.getByRole('dialog', { name: 'Delete alpha-copy?' });
  const confirmButton = dialog.getByRole('button', { name: 'Delete namespace' });
  await expect(confirmButton).toBeDisabled();
  await dialog.getByLabel('Type alpha-copy to confirm').fill('alpha-cop');
  await expect(confirmButton).toBeDisabled();
  await dialog.getByLabel('Type alpha-copy to confirm').fill('alpha-copy');
  await shot(page, 'delete-confirm');
  await confirmButton.click();
  await expect(notifications(page)).toContainText('Namespace alpha-copy deleted');
  await expect(dialog).toBeHidden();
  await expect(row(page, 'alpha-copy')).toHaveCount(0);
  await expect(table(page).getByRole('rowheader')).toHaveText(['alpha', 'beta']);
  const gone = await apiGet(request, 'alpha-copy');
  expect(gone.status()).toBe(404);
  expect((await gone.json()).error).toBe('namespace_not_found');
});

test('pages through more than 100 namespaces with Next and Previous', async ({ page, request }) => {
  const names = Array.from({ length: 101 }, (_, i) => `p-${String(i).padStart(3, '0')}`);
  for (const n of names) {
    const res = await request.post(`${API}/v1/namespaces`, { headers: auth, data: { name: n } });
    expect(res.status(), n).toBe(201);
  }
  // alpha, beta and p-000…p-100 exist: 103 in all, 100 per page.
  await signIn(page, { token: TOKEN }, { at: '/namespaces', lands: 'Namespaces' });
  const headers = table(page).getByRole('rowheader');
  await expect(headers).toHaveCount(100);
  await expect(headers.first()).toHaveText('alpha');
  await expect(headers.last()).toHaveText('p-097');
  await expect(page.getByRole('button', { name: 'Previous' })).toBeDisabled();
  await expect(page.getByText('1–100 · page 1', { exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Next' }).click();
  await expect(headers).toHaveText(['p-098', 'p-099', 'p-100']);
  await expect(page.getByRole('button', { name: 'Next' })).toBeDisabled();
  await expect(page.getByText('101–103 · page 2', { exact: true })).toBeVisible();
  await shot(page, 'page-2');

  await page.getByRole('button', { name: 'Previous' }).click();
  await expect(headers).toHaveCount(100);
  await expect(headers.first()).toHaveText('alpha');
});
