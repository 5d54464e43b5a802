/**
 * The namespace page (data plane), driven in Chromium against the real server started by
 * global-setup.ts: tables and views, the rows grid, CSV, SQL console, live events, changelog and
 * overview. Every step checks what the admin sees and, where it changes data, what the API says.
 */
import fs from 'node:fs';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { shooter, watchConsole } from './console-and-shots.ts';
import { sharedServer } from './shared-server.ts';
import { signIn } from './sign-in.ts';

const { url: API, token: TOKEN } = sharedServer();
const auth = { Authorization: `Bearer ${TOKEN}` };
const NS = 'shop';

test.describe.configure({ mode: 'serial' });

let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page);
});
test.afterEach(() => {
  expect(consoleErrors, 'errors in the browser console').toEqual([]);
});

test.beforeAll(async ({ request }) => {
  const res = await request.post(`${API}/v1/namespaces`, { headers: auth, data: { name: NS } });
  expect([201, 409]).toContain(res.status());
});

// The other specs share this server and expect to start without namespaces.
test.afterAll(async ({ request }) => {
  const res = await request.delete(`${API}/v1/namespaces/${NS}`, { headers: auth });
  expect([204, 404]).toContain(res.status());
});

const shot = shooter('ns');

/** Signs in on `/` (the token lives in this tab's sessionStorage), then opens `to`. */
async function open(page: Page, to: string): Promise<void> {
  await signIn(page, { token: TOKEN });
  if (to !== '/') await page.goto(to);
}

const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const grid = (page: Page, table = 'people') => page.getByRole('table', { name: `Rows of ${table}` });
/** The texts of one column of the grid, top to bottom. */
const columnTexts = (page: Page, column: string) =>
  grid(page)
    .getByRole('button', { name: new RegExp(`^Edit ${column} of row `) })
    .allTextContents();

async function expectFieldError(field: Locator, message: RegExp): Promise<void> {
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleErrorMessage(message);
}

async function rows(request: APIRequestContext, query = ''): Promise<Record<string, unknown>[]> {
  const res = await request.get(`${API}/v1/${NS}/tables/people/rows${query}`, { headers: auth });
  expect(res.status()).toBe(200);
  return (await res.json()).data;
}

async function idOf(request: APIRequestContext, name: string): Promise<number> {
  const [row] = await rows(request, `?name=eq.${encodeURIComponent(name)}`);
  expect(row, `row ${name}`).toBeTruthy();
  return row!.id as number;
}

test('opens a namespace from the list and creates a table with typed columns', async ({ page, request }) => {
  await open(page, '/namespaces');
  await page.getByRole('table', { name: 'Namespaces' }).getByRole('link', { name: NS, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/ns/${NS}$`));
  await expect(page.getByRole('heading', { name: NS, level: 1 })).toBeVisible();
  await expect(page).toHaveTitle(`Overview · ${NS} · Hearth`);

  await page.getByRole('navigation', { name: 'Namespace sections' }).getByRole('link', { name: 'Tables' }).click();
  await expect(page.getByText(`No tables in ${NS} yet`)).toBeVisible();
  await shot(page, 'tables-empty');

  await page.getByRole('button', { name: 'Create a table' }).click();
  const dialog = page.getByRole('dialog', { name: 'New table' });
  await dialog.getByLabel('Table name').fill('people');
  await dialog.getByLabel('Label').fill('People');
  // A reserved column name is refused next to the field, before anything is sent.
  await dialog.getByLabel('Column 1 name').fill('id');
  await dialog.getByRole('button', { name: 'Create table' }).click();
  await expectFieldError(dialog.getByLabel('Column 1 name'), /reserved/);

  await dialog.getByLabel('Column 1 name').fill('name');
  await dialog.getByLabel('Column 1 not null').check();
  await dialog.getByLabel('Column 1 max length').fill('40');
  await dialog.getByRole('button', { name: 'Add column' }).click();
  await dialog.getByLabel('Column 2 name').fill('email');
  await dialog.getByLabel('Column 2 unique').check();
  await dialog.getByRole('button', { name: 'Add column' }).click();
  await dialog.getByLabel('Column 3 name').fill('age');
  await dialog.getByLabel('Column 3 type').selectOption('integer');
  await dialog.getByLabel('Column 3 min').fill('0');
  await dialog.getByLabel('Column 3 max', { exact: true }).fill('150');
  await dialog.getByRole('button', { name: 'Add column' }).click();
  await dialog.getByLabel('Column 4 name').fill('active');
  await dialog.getByLabel('Column 4 type').selectOption('boolean');
  await dialog.getByRole('button', { name: 'Add column' }).click();
  await dialog.getByLabel('Column 5 name').fill('profile');
  await dialog.getByLabel('Column 5 type').selectOption('json');
  // Max length only applies to text.
  await expect(dialog.getByLabel('Column 3 max length')).toBeDisabled();
  await shot(page, 'create-table');
  await dialog.getByRole('button', { name: 'Create table' }).click();

  await expect(notifications(page)).toContainText('Table people created');
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/ns/${NS}/tables/people$`));
  await expect(page.getByRole('heading', { name: /people/, level: 2 })).toBeVisible();
  await expect(page.getByText('No rows yet.')).toBeVisible();

  const res = await request.get(`${API}/v1/${NS}/tables/people`, { headers: auth });
  expect(res.status()).toBe(200);
  const schema = await res.json();
  expect(schema.metadata).toEqual({ label: 'People' });
  expect(schema.columns.filter((c: { system?: boolean }) => !c.system)).toEqual([
    { name: 'name', type: 'text', not_null: true, max_length: 40 },
    { name: 'email', type: 'text', unique: true },
    { name: 'age', type: 'integer', min: 0, max: 150 },
    { name: 'active', type: 'boolean' },
    { name: 'profile', type: 'json' },
  ]);

  // The structure tab lists the columns with their rules.
  await page.getByRole('link', { name: /^Structure/ }).click();
  const cols = page.getByRole('table', { name: 'Columns of people' });
  await expect(cols.getByRole('row').filter({ hasText: 'email' })).toContainText('unique');
  await expect(cols.getByRole('row').filter({ hasText: 'age' })).toContainText('≥ 0 · ≤ 150');
  await shot(page, 'structure');
});

test('inserts rows through the form; invalid values are shown next to their field', async ({ page, request }) => {
  await open(page, `/ns/${NS}/tables/people`);
  await page.getByRole('button', { name: 'Insert row' }).first().click();
  let dialog = page.getByRole('dialog', { name: 'Insert row into people' });
  await dialog.getByLabel('name', { exact: true }).fill('Ann');
  await dialog.getByLabel('email', { exact: true }).fill('ann@example.com');
  await dialog.getByLabel('age', { exact: true }).fill('34');
  await dialog.getByLabel('active', { exact: true }).selectOption('true');
  await dialog.getByLabel('profile', { exact: true }).fill('{"team": "ops"}');
  await dialog.getByRole('button', { name: 'Insert row', exact: true }).click();
  await expect(notifications(page)).toContainText('inserted into people');
  await expect(dialog).toBeHidden();
  await expect(grid(page).getByRole('row').filter({ hasText: 'ann@example.com' })).toContainText('{"team":"ops"}');
  const [ann] = await rows(request);
  expect(ann).toMatchObject({ name: 'Ann', email: 'ann@example.com', age: 34, active: true, profile: { team: 'ops' } });

  await page.getByRole('button', { name: 'Insert row' }).first().click();
  dialog = page.getByRole('dialog', { name: 'Insert row into people' });
  const name = dialog.getByLabel('name', { exact: true });
  const email = dialog.getByLabel('email', { exact: true });
  const age = dialog.getByLabel('age', { exact: true });
  // Caught in the browser: a required column left empty, a number that is not one.
  await age.fill('abc');
  await dialog.getByRole('button', { name: 'Insert row', exact: true }).click();
  await expectFieldError(name, /Required/);
  await expectFieldError(age, /whole number/);
  // Refused by the server (409 unique_violation, 400 min_violation): the message lands next to the column it names.
  await name.fill('Bob');
  await email.fill('ann@example.com');
  await age.fill('41');
  await dialog.getByRole('button', { name: 'Insert row', exact: true }).click();
  await expectFieldError(email, /^Must be unique/);
  await expect(name).not.toHaveAttribute('aria-invalid', 'true');
  await email.fill('bob@example.com');
  await age.fill('-3');
  await dialog.getByRole('button', { name: 'Insert row', exact: true }).click();
  await expectFieldError(age, /^Must be at least 0/);
  await shot(page, 'insert-error');
  await age.fill('41');
  await dialog.getByRole('button', { name: 'Insert row', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(grid(page).getByRole('row').filter({ hasText: 'bob@example.com' })).toBeVisible();

  // More rows through the API, for sorting and filtering.
  for (const r of [
    { name: 'Cleo', email: 'cleo@example.com', age: 27, active: false },
    { name: 'Dan', email: 'dan@example.com', age: 52, active: true },
    { name: 'Eve', email: 'eve@example.com', age: 19 },
  ]) {
    expect((await request.post(`${API}/v1/${NS}/tables/people/rows`, { headers: auth, data: r })).status()).toBe(201);
  }
  await page.getByRole('button', { name: 'Refresh rows' }).click();
  await expect(page.getByText('Rows 1–5 of 5')).toBeVisible();
  await shot(page, 'rows');
});

test('edits a cell inline and saves it with PUT', async ({ page, request }) => {
  await open(page, `/ns/${NS}/tables/people`);
  const annId = await idOf(request, 'Ann');
  await grid(page)
    .getByRole('button', { name: `Edit age of row ${annId}` })
    .click();
  const input = grid(page).getByRole('textbox', { name: `New value for age of row ${annId}` });
  await expect(input).toBeFocused();
  await expect(input).toHaveValue('34');
  // Out of range: the server's message stays next to the cell, nothing changes.
  await input.fill('200');
  await input.press('Enter');
  await expectFieldError(input, /^Must be at most 150/);
  await shot(page, 'inline-edit-error');
  await input.press('Escape');
  await expect(input).toBeHidden();
  expect((await rows(request, `?id=eq.${annId}`))[0]!.age).toBe(34);

  await grid(page)
    .getByRole('button', { name: `Edit age of row ${annId}` })
    .click();
  await input.fill('35');
  await input.press('Enter');
  await expect(input).toBeHidden();
  await expect(grid(page).getByRole('button', { name: `Edit age of row ${annId}` })).toHaveText('35');
  await expect(grid(page).getByRole('button', { name: `Edit age of row ${annId}` })).toBeFocused();
  expect((await rows(request, `?id=eq.${annId}`))[0]!.age).toBe(35);

  // A boolean cell edits with a list; NULL is one of the choices for a nullable column.
  const eveId = await idOf(request, 'Eve');
  await grid(page)
    .getByRole('button', { name: `Edit active of row ${eveId}` })
    .click();
  await grid(page)
    .getByRole('combobox', { name: `New value for active of row ${eveId}` })
    .selectOption('true');
  await grid(page).getByRole('button', { name: 'Save' }).click();
  await expect(grid(page).getByRole('button', { name: `Edit active of row ${eveId}` })).toHaveText('true');
  expect((await rows(request, `?id=eq.${eveId}`))[0]!.active).toBe(true);
});

test('filters and sorts the grid with PostgREST parameters', async ({ page }) => {
  await open(page, `/ns/${NS}/tables/people`);
  await expect(page.getByText('Rows 1–5 of 5')).toBeVisible();

  // Sort by clicking the header: ascending, then descending.
  const nameHeader = grid(page).getByRole('columnheader', { name: /^name/ });
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'ascending');
  await expect.poll(() => columnTexts(page, 'name')).toEqual(['Ann', 'Bob', 'Cleo', 'Dan', 'Eve']);
  await nameHeader.getByRole('button').click();
  await expect(nameHeader).toHaveAttribute('aria-sort', 'descending');
  await expect.poll(() => columnTexts(page, 'name')).toEqual(['Eve', 'Dan', 'Cleo', 'Bob', 'Ann']);

  // Two filters, combined: age ≥ 30 and name does not contain "b".
  await page.getByRole('button', { name: 'Filters' }).click();
  const filters = page.getByRole('form', { name: 'Filters' });
  await filters.getByRole('button', { name: 'Add filter' }).click();
  await filters.getByLabel('Filter 1 column').selectOption('age');
  await filters.getByLabel('Filter 1 operator').selectOption({ label: '≥' });
  await filters.getByLabel('Filter 1 value').fill('30');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => columnTexts(page, 'name')).toEqual(['Dan', 'Bob', 'Ann']);
  await expect(page.getByText('Rows 1–3 of 3')).toBeVisible();
  await expect(page.getByText('(filtered from 5)')).toBeVisible();

  await filters.getByRole('button', { name: 'Add filter' }).click();
  await filters.getByLabel('Filter 2 column').selectOption('name');
  await filters.getByLabel('Filter 2 operator').selectOption({ label: 'does not contain' });
  await filters.getByLabel('Filter 2 value').fill('b');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect.poll(() => columnTexts(page, 'name')).toEqual(['Dan', 'Ann']);
  await expect(filters.getByText('age at least 30 · name does not contain “b” · sorted by name, Z to A')).toBeVisible();
  await filters.getByText('Details', { exact: true }).click();
  await expect(filters.getByText('?age=gte.30&name=not.ilike.*b*&order=name.desc')).toBeVisible();
  await shot(page, 'filters');

  // A value the column cannot hold: the server's message is shown with the filters.
  await filters.getByLabel('Filter 1 value').fill('thirty');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(filters.getByRole('alert')).toContainText('not a number');

  await filters.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByText('Rows 1–5 of 5')).toBeVisible();
});

test('pages through rows with limit and offset', async ({ page, request }) => {
  const many = Array.from({ length: 60 }, (_, i) => ({ name: `Bulk ${String(i).padStart(2, '0')}`, age: 60 + (i % 30) }));
  expect((await request.post(`${API}/v1/${NS}/tables/people/rows`, { headers: auth, data: { rows: many } })).status()).toBe(201);
  await open(page, `/ns/${NS}/tables/people`);
  await expect(page.getByText('Rows 1–50 of 65')).toBeVisible();
  await expect(grid(page).getByRole('rowheader')).toHaveCount(50);
  await page.getByRole('navigation', { name: 'Row pages' }).getByRole('button', { name: 'Next' }).click();
  await expect(page.getByText('Rows 51–65 of 65')).toBeVisible();
  await expect(grid(page).getByRole('rowheader')).toHaveCount(15);
  await expect(page.getByRole('navigation', { name: 'Row pages' }).getByRole('button', { name: 'Next' })).toBeDisabled();
  await page.getByLabel('Rows per page').selectOption('100');
  await expect(page.getByText('Rows 1–65 of 65')).toBeVisible();

  // Clean up through the grid: select the page's bulk rows and delete them together.
  await page.getByRole('button', { name: 'Filters' }).click();
  const filters = page.getByRole('form', { name: 'Filters' });
  await filters.getByRole('button', { name: 'Add filter' }).click();
  await filters.getByLabel('Filter 1 column').selectOption('name');
  await filters.getByLabel('Filter 1 operator').selectOption({ label: 'like (pattern)' });
  await filters.getByLabel('Filter 1 value').fill('Bulk*');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('Rows 1–60 of 60')).toBeVisible();
  await grid(page).getByLabel('Select all rows on this page').check();
  await page.getByRole('button', { name: 'Delete 60 rows' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete 60 rows?' });
  await dialog.getByRole('button', { name: 'Delete 60 rows' }).click();
  await expect(notifications(page)).toContainText('60 rows deleted');
  expect(await rows(request, '?name=like.Bulk*')).toHaveLength(0);
});

test('deletes a row after confirmation', async ({ page, request }) => {
  const res = await request.post(`${API}/v1/${NS}/tables/people/rows`, { headers: { ...auth, Prefer: 'return=representation' }, data: { name: 'Temp' } });
  const id = (await res.json()).data[0].id as number;
  await open(page, `/ns/${NS}/tables/people`);
  await grid(page)
    .getByRole('button', { name: `Delete row ${id}` })
    .click();
  const dialog = page.getByRole('dialog', { name: `Delete row ${id}?` });
  await expect(dialog).toContainText('cannot be undone');
  await shot(page, 'delete-row');
  await dialog.getByRole('button', { name: 'Delete row' }).click();
  await expect(notifications(page)).toContainText(`Row ${id} deleted`);
  await expect(grid(page).getByRole('rowheader', { name: String(id), exact: true })).toHaveCount(0);
  const gone = await request.get(`${API}/v1/${NS}/tables/people/rows/${id}`, { headers: auth });
  expect(gone.status()).toBe(404);
});

test('exports the rows as CSV and imports rows from CSV', async ({ page, request }, testInfo) => {
  await open(page, `/ns/${NS}/tables/people`);
  await expect(page.getByText('Rows 1–5 of 5')).toBeVisible();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('people.csv');
  const file = testInfo.outputPath('people.csv');
  await download.saveAs(file);
  const csv = fs.readFileSync(file, 'utf8');
  expect(csv.charCodeAt(0)).toBe(0xfeff); // BOM, for spreadsheets
  const lines = csv.slice(1).trim().split(/\r?\n/);
  expect(lines[0]).toBe('id,name,email,age,active,profile,created_at,updated_at');
  expect(lines).toHaveLength(6);
  expect(csv).toContain('Ann,ann@example.com,35,true');
  expect(csv).toContain('Eve,eve@example.com,19,true');
  await expect(notifications(page)).toContainText('Exported people.csv');

  // A file with several bad lines: refused as a whole, every problem listed by line and column.
  const bad = testInfo.outputPath('bad.csv');
  fs.writeFileSync(bad, 'name,email,age\nFay,fay@example.com,33\nGus,gus@example.com,abc\nHal,hal@example.com\nIda,ida@example.com,old\n');
  await page.getByRole('button', { name: 'Import CSV' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import CSV into people' });
  const picker = dialog.getByLabel('CSV file');
  await picker.setInputFiles(bad);
  await expect(dialog.getByText('Columns: name email age')).toBeVisible();
  await dialog.getByRole('button', { name: 'Import rows' }).click();
  await expectFieldError(picker, /^3 problems in this file\. Nothing was imported/);
  const problems = dialog.getByRole('region', { name: 'Problems in the file' }).getByRole('row');
  await expect(problems).toHaveCount(4); // the header row and three problems, in line order
  await expect(problems.nth(1)).toHaveText(/^3\s*age\s*Expected an integer, got "abc"\.$/);
  await expect(problems.nth(2)).toContainText(/^4\s*Whole line\s*Has 2 fields, but the first line names 3 columns/);
  await expect(problems.nth(3)).toContainText(/^5\s*age/);
  await shot(page, 'import-error');
  expect(await rows(request, '?name=eq.Fay')).toHaveLength(0);

  const good = testInfo.outputPath('good.csv');
  fs.writeFileSync(good, 'name,email,age,active\nFay,fay@example.com,33,true\nGus,gus@example.com,45,false\n');
  await picker.setInputFiles(good);
  await dialog.getByRole('button', { name: 'Import rows' }).click();
  await expect(notifications(page)).toContainText('Imported 2 rows into people');
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Rows 1–7 of 7')).toBeVisible();
  await expect(grid(page).getByRole('row').filter({ hasText: 'gus@example.com' })).toContainText('45');
  expect(await rows(request, '?name=in.(Fay,Gus)&order=name.asc&select=name,age,active')).toEqual([
    { name: 'Fay', age: 33, active: true },
    { name: 'Gus', age: 45, active: false },
  ]);
});

// Altering columns runs before the view exists: the server cannot yet rebuild a table a view reads from (reported).
test('alters a table: rename and add columns, drop a table', async ({ page, request }) => {
  await open(page, `/ns/${NS}/tables/people`);
  await page.getByRole('button', { name: 'Alter table…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Alter table people' });
  await dialog.getByLabel('Name of column profile').fill('settings');
  await dialog.getByRole('button', { name: 'Add a column' }).click();
  await dialog.getByLabel('New column 1 name').fill('city');
  await dialog.getByLabel('New column 1 max length').fill('60');
  await shot(page, 'alter');
  await dialog.getByRole('button', { name: 'Save changes' }).click();
  await expect(notifications(page)).toContainText('Table people saved');
  await expect(grid(page).getByRole('columnheader', { name: /^settings/ })).toBeVisible();
  await expect(grid(page).getByRole('columnheader', { name: /^city/ })).toBeVisible();
  const schema = await (await request.get(`${API}/v1/${NS}/tables/people`, { headers: auth })).json();
  const names = schema.columns.map((c: { name: string }) => c.name);
  expect(names).toContain('settings');
  expect(names).not.toContain('profile');
  expect(schema.columns).toContainEqual({ name: 'city', type: 'text', max_length: 60 });
  // The renamed column kept its values.
  expect((await rows(request, '?name=eq.Ann&select=settings'))[0]).toEqual({ settings: { team: 'ops' } });

  // A table to throw away: dropping it asks for its name.
  expect(
    (
      await request.post(`${API}/v1/${NS}/tables`, { headers: auth, data: { type: 'table', name: 'scratch', columns: [{ name: 'note', type: 'text' }] } })
    ).status(),
  ).toBe(201);
  await page.goto(`/ns/${NS}/tables/scratch`);
  await page.getByRole('button', { name: 'More actions for scratch' }).click();
  await page.getByRole('menuitem', { name: 'Delete table…' }).click();
  const drop = page.getByRole('dialog', { name: 'Delete scratch?' });
  await expect(drop.getByRole('button', { name: 'Delete table' })).toBeDisabled();
  await drop.getByLabel('Type scratch to confirm').fill('scratch');
  await drop.getByRole('button', { name: 'Delete table' }).click();
  await expect(notifications(page)).toContainText('Table scratch deleted');
  expect((await request.get(`${API}/v1/${NS}/tables/scratch`, { headers: auth })).status()).toBe(404);

  // A table a view reads: the dialog names the view and, confirmed again, deletes both.
  expect(
    (
      await request.post(`${API}/v1/${NS}/tables`, { headers: auth, data: { type: 'table', name: 'draft', columns: [{ name: 'note', type: 'text' }] } })
    ).status(),
  ).toBe(201);
  expect(
    (await request.post(`${API}/v1/${NS}/tables`, { headers: auth, data: { type: 'view', name: 'draft_notes', sql: 'SELECT note FROM draft' } })).status(),
  ).toBe(201);
  await page.goto(`/ns/${NS}/tables/draft`);
  await page.getByRole('button', { name: 'More actions for draft' }).click();
  await page.getByRole('menuitem', { name: 'Delete table…' }).click();
  const withView = page.getByRole('dialog', { name: 'Delete draft?' });
  await withView.getByLabel('Type draft to confirm').fill('draft');
  await withView.getByRole('button', { name: 'Delete table' }).click();
  await expect(withView.getByRole('alert')).toContainText('draft_notes');
  await shot(page, 'drop-with-views');
  expect((await request.get(`${API}/v1/${NS}/tables/draft`, { headers: auth })).status()).toBe(200);
  await withView.getByRole('button', { name: 'Delete table and views' }).click();
  await expect(notifications(page)).toContainText('Table draft deleted, with the views that read it');
  expect((await request.get(`${API}/v1/${NS}/tables/draft`, { headers: auth })).status()).toBe(404);
  expect((await request.get(`${API}/v1/${NS}/tables/draft_notes`, { headers: auth })).status()).toBe(404);
});

test('creates a view and shows its rows', async ({ page }) => {
  await open(page, `/ns/${NS}/tables/people`);
  await page.getByRole('button', { name: 'New view' }).click();
  const dialog = page.getByRole('dialog', { name: 'New view' });
  await dialog.getByLabel('View name').fill('seniors');
  const sql = dialog.getByLabel('SQL');
  await sql.fill('SELECT name, age FROM people WHERE age >=');
  await dialog.getByRole('button', { name: 'Create view' }).click();
  await expectFieldError(sql, /does not compile/);
  await sql.fill('SELECT name, age FROM people WHERE age >= 40 ORDER BY age DESC');
  await dialog.getByRole('button', { name: 'Create view' }).click();
  await expect(notifications(page)).toContainText('View seniors created');
  await expect(page).toHaveURL(new RegExp(`/ns/${NS}/tables/seniors$`));
  const view = grid(page, 'seniors');
  await expect(view.getByRole('row')).toHaveCount(4); // header + Dan, Gus, Bob
  await expect(view.getByRole('row').nth(1)).toContainText('Dan');
  await expect(view.getByRole('row').nth(1)).toContainText('52');
  // Views are read-only: no insert, no import, no inline edit.
  await expect(page.getByRole('button', { name: 'Insert row' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Import CSV' })).toHaveCount(0);
  await expect(view.getByRole('button', { name: /^Edit / })).toHaveCount(0);
  await expect(page.getByRole('complementary', { name: 'Tables and views' }).getByRole('link', { name: 'seniors' })).toHaveAttribute('aria-current', 'page');
  await shot(page, 'view');
});

test('creates indexes, searches with the full-text index, drops an index', async ({ page, request }) => {
  await open(page, `/ns/${NS}/tables/people/structure`);
  await page.getByRole('button', { name: 'Add index' }).click();
  let dialog = page.getByRole('dialog', { name: 'Add index to people' });
  await dialog.getByRole('radio', { name: /Full-text/ }).check();
  await dialog.getByRole('checkbox', { name: 'name' }).check();
  await dialog.getByRole('checkbox', { name: 'email' }).check();
  await shot(page, 'index-dialog');
  await dialog.getByRole('button', { name: 'Create full-text index' }).click();
  await expect(notifications(page)).toContainText('Full-text index created on name, email');
  const indexes = page.getByRole('table', { name: 'Indexes of people' });
  await expect(indexes.getByRole('row').filter({ hasText: 'full-text' })).toContainText('name, email');

  await page.getByRole('button', { name: 'Add index' }).click();
  dialog = page.getByRole('dialog', { name: 'Add index to people' });
  await dialog.getByRole('checkbox', { name: 'age' }).check();
  await expect(dialog.getByLabel('Index name')).toHaveValue('people_age_idx');
  await dialog.getByRole('button', { name: 'Create index' }).click();
  await expect(indexes.getByRole('rowheader', { name: 'people_age_idx' })).toBeVisible();
  await shot(page, 'indexes');

  const schema = await (await request.get(`${API}/v1/${NS}/tables/people`, { headers: auth })).json();
  expect(schema.indexes).toEqual(
    expect.arrayContaining([
      { name: 'fts', type: 'fts', columns: ['name', 'email'] },
      { name: 'people_age_idx', type: 'index', columns: ['age'] },
    ]),
  );

  // Drop the plain index after confirming.
  await indexes.getByRole('button', { name: 'Drop index people_age_idx' }).click();
  const confirm = page.getByRole('dialog', { name: 'Drop index people_age_idx?' });
  await confirm.getByRole('button', { name: 'Drop index' }).click();
  await expect(notifications(page)).toContainText('Index people_age_idx dropped');
  await expect(indexes.getByRole('rowheader', { name: 'people_age_idx' })).toHaveCount(0);

  // Full-text search from the rows tab.
  await page.getByRole('link', { name: 'Rows', exact: true }).click();
  await page.getByRole('searchbox', { name: 'Full-text search' }).fill('gus');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect.poll(() => columnTexts(page, 'name')).toEqual(['Gus']);
  await shot(page, 'search');
  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(page.getByText('Rows 1–7 of 7')).toBeVisible();
});

test('SQL console runs read-only queries and explains refusals', async ({ page, request }) => {
  const expected = (await rows(request, '?select=id&limit=1000')).length;
  await open(page, `/ns/${NS}/sql`);
  const editor = page.getByLabel('SQL', { exact: true });
  await editor.fill('SELECT count(*) AS n FROM people');
  await page.getByRole('button', { name: 'Run query' }).click();
  const results = page.getByRole('table', { name: 'Query results' });
  await expect(results.getByRole('columnheader', { name: 'n', exact: true })).toBeVisible();
  await expect(results.getByRole('row').nth(1).getByRole('cell')).toHaveText([String(expected)]);
  await expect(page.getByRole('status').filter({ hasText: /1 row/ })).toBeVisible();
  await shot(page, 'sql');

  await editor.fill('DELETE FROM people');
  await editor.press('Control+Enter');
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('Only read-only statements are run here; this statement would write');
  await expect(results).toHaveCount(0);
  await shot(page, 'sql-error');
  expect((await rows(request, '?select=id&limit=1000')).length).toBe(expected);

  await editor.fill('SELEC 1');
  await page.getByRole('button', { name: 'Run query' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'SQL error' })).toContainText('syntax error');
});

test('live events show changes made through the API', async ({ page, request }) => {
  await open(page, `/ns/${NS}/events`);
  await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
  await expect(page.getByText(`Listening for changes in ${NS}`)).toBeVisible();
  const log = page.getByRole('log', { name: 'Live events' });

  const res = await request.post(`${API}/v1/${NS}/tables/people/rows`, {
    headers: { ...auth, Prefer: 'return=representation' },
    data: { name: 'Zed', email: 'zed@example.com' },
  });
  expect(res.status()).toBe(201);
  const id = (await res.json()).data[0].id as number;
  const insert = log.getByRole('listitem').filter({ hasText: 'zed@example.com' });
  await expect(insert).toContainText('insert');
  await expect(insert).toContainText('people');
  await expect(insert).toContainText(`id ${id}`);

  expect((await request.put(`${API}/v1/${NS}/tables/people/rows/${id}`, { headers: auth, data: { age: 77 } })).status()).toBe(200);
  await expect(log.getByRole('listitem').first()).toContainText('update');
  await expect(log.getByRole('listitem').first()).toContainText('"age":77');
  expect((await request.delete(`${API}/v1/${NS}/tables/people/rows/${id}`, { headers: auth })).status()).toBe(204);
  await expect(log.getByRole('listitem').first()).toContainText('delete');
  await expect(log.getByRole('listitem')).toHaveCount(3);

  // Paused: events wait until resumed.
  await page.getByRole('button', { name: 'Pause' }).click();
  expect((await request.post(`${API}/v1/${NS}/tables/people/rows`, { headers: auth, data: { name: 'Quinn' } })).status()).toBe(201);
  await expect(page.getByRole('button', { name: 'Resume (1 new)' })).toBeVisible();
  await expect(log.getByRole('listitem')).toHaveCount(3);
  await page.getByRole('button', { name: 'Resume (1 new)' }).click();
  await expect(log.getByRole('listitem')).toHaveCount(4);
  await expect(log.getByRole('listitem').first()).toContainText('Quinn');

  await shot(page, 'events');
});

test('the live indicator pulses, and stands still when the browser asks for less motion', async ({ browser }) => {
  /** Animations of the page that never end and run now. */
  const endless = (page: Page) =>
    page.evaluate(
      () => document.getAnimations().filter((a) => a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY && a.playState === 'running').length,
    );
  for (const reducedMotion of ['no-preference', 'reduce'] as const) {
    const context = await browser.newContext({ reducedMotion });
    try {
      const page = await context.newPage();
      await open(page, `/ns/${NS}/events`);
      await expect(page.getByRole('status').filter({ hasText: 'Live' })).toBeVisible();
      if (reducedMotion === 'reduce') expect(await endless(page)).toBe(0);
      else await expect.poll(() => endless(page)).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  }
});

test('the changelog lists the schema changes', async ({ page }) => {
  await open(page, `/ns/${NS}/changelog`);
  const log = page.getByRole('table', { name: 'Changelog' });
  const entry = (action: string, table: string) => log.getByRole('row').filter({ hasText: action }).filter({ hasText: table });
  // Actions in words; the identifier and the raw actor behind Details.
  await expect(entry('Created table', 'people')).toContainText('columns: name text, email text, age integer, active boolean, profile json');
  await expect(entry('Created view', 'seniors')).toContainText('SELECT name, age FROM people');
  await expect(entry('Added index', 'people').first()).toBeVisible();
  await expect(entry('Removed index', 'people')).toContainText('people_age_idx');
  const changed = entry('Changed table', 'people');
  await expect(changed).toContainText('renamed profile → settings');
  await expect(changed.getByRole('cell').nth(1)).toHaveText('Changed table');
  await changed.getByText('Details', { exact: true }).click();
  await expect(changed.locator('pre')).toContainText('"action": "update_table"');
  const actor = changed.getByRole('cell').last();
  expect(await actor.getAttribute('title')).toMatch(/^\w+:/); // the raw actor, e.g. token:… or account:…
  await expect(actor).not.toContainText(/^(account|token):/);
  await expect(entry('Deleted table', 'scratch')).toBeVisible();
  // Newest first: the last change was dropping people_age_idx.
  await expect(log.getByRole('row').nth(1)).toContainText('Removed index');
  await shot(page, 'changelog');

  await page.getByLabel('Table', { exact: true }).selectOption('seniors');
  await expect(log.getByRole('row')).toHaveCount(2);
  await expect(log.getByRole('row').nth(1)).toContainText('Created view');
});

test('the overview shows totals and draws charts', async ({ page, request }) => {
  const api = await (await request.get(`${API}/v1/${NS}/overview?window=1h`, { headers: auth })).json();
  expect(api.telemetry.requests).toBeGreaterThan(0);
  await open(page, `/ns/${NS}`);
  const totals = page.getByRole('region', { name: /^Totals/ });
  // The page's own requests add to the count: at least what the API said a moment ago.
  await expect
    .poll(async () => Number((await totals.getByTestId('total-requests').textContent())!.replace(/[^\d]/g, '')))
    .toBeGreaterThanOrEqual(api.telemetry.requests);
  await expect(totals).toContainText('p95');
  const schema = page.getByRole('region', { name: 'Schema' });
  await expect(schema).toContainText('1 table');
  await expect(schema).toContainText(/\d+ columns/);
  // Settings and storage in words; the identifiers behind Details.
  await expect(page.getByText('Write-ahead log, safe against power loss.')).toBeVisible();
  await expect(page.getByText('journal wal')).toHaveCount(0);
  const storage = page.getByRole('region', { name: 'Storage' });
  await expect(storage).not.toContainText('×');
  await storage.getByText('Details', { exact: true }).click();
  await expect(storage).toContainText(/\d+ pages? of 4 KiB/);
  await expect(storage).toContainText('page_count');
  await page.getByText('Details', { exact: true }).first().click();
  await expect(page.getByText(/journal_mode\s*wal · synchronous\s*full/)).toBeVisible();

  const requests = page.getByRole('img', { name: /^Requests and errors per minute/ });
  await expect(requests).toBeVisible();
  expect(await requests.locator('rect').count()).toBeGreaterThan(0);
  const latency = page.getByRole('img', { name: /^Latency/ });
  await expect(latency.locator('path, circle').first()).toBeAttached();
  await shot(page, 'overview');

  // The x-axis tick labels never touch, from a phone to a laptop (24h at 390 px had them overlapping).
  for (const width of [390, 1024, 1366]) {
    await page.setViewportSize({ width, height: 900 });
    for (const w of ['1h', '24h']) {
      await page.getByRole('radio', { name: w }).click();
      await expect(page.getByRole('img', { name: new RegExp(`^Requests and errors per \\w+, last ${w === '1h' ? 'hour' : '24 hours'}`) })).toBeVisible();
      for (const chart of await page
        .getByRole('img')
        .filter({ has: page.locator('g.xlabels') })
        .all()) {
        await expect(chart.locator('g.xlabels text').first()).toBeVisible();
        const boxes = await chart
          .locator('g.xlabels text')
          .evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ left: r.left, right: r.right })));
        expect(boxes.length, `ticks at ${width} px, ${w}`).toBeGreaterThan(1);
        for (let i = 1; i < boxes.length; i++) expect(boxes[i]!.left, `tick ${i} at ${width} px, ${w}`).toBeGreaterThan(boxes[i - 1]!.right);
      }
    }
    if (width === 390) await shot(page, 'overview-390');
  }
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.getByRole('radio', { name: '1h' }).click();

  await page.getByRole('radio', { name: '24h' }).click();
  await expect(page.getByRole('radio', { name: '24h' })).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByRole('img', { name: /^Requests and errors per \w+, last 24 hours/ })).toBeVisible();
});
