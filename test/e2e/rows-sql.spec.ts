/**
 * The rows grid and the SQL console share one grid table and one formatting: a boolean reads true in both, an ISO
 * date-time shows as the locale's date and time (en-GB, UTC here) with the stored value in its title, measures are
 * grouped and ids are not. The filter panel says the filters in words, the raw query behind Details; the SQL console
 * completes table and column names, runs on Ctrl+Enter, places an SQL error and recalls earlier queries.
 */
import { expect, type Page, test } from '@playwright/test';
import { sharedServer } from './shared-server.ts';
import { signIn } from './sign-in.ts';

const { url: API, token: TOKEN } = sharedServer();
const auth = { Authorization: `Bearer ${TOKEN}` };
const NS = 'rowsql';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  expect((await request.post(`${API}/v1/namespaces`, { headers: auth, data: { name: NS } })).status()).toBe(201);
  const columns = [
    { name: 'guest', type: 'text' },
    { name: 'member', type: 'boolean' },
    { name: 'arrived', type: 'datetime' },
    { name: 'spent', type: 'real' },
    { name: 'room_id', type: 'integer' },
  ];
  expect((await request.post(`${API}/v1/${NS}/tables`, { headers: auth, data: { type: 'table', name: 'visits', columns } })).status()).toBe(201);
  const rows = [
    { guest: 'Ann', member: true, arrived: '2026-11-25T14:55:23.009Z', spent: 1234.5, room_id: 1200 },
    { guest: 'Bob', member: false, arrived: '2026-01-02T08:00:00Z', spent: 12, room_id: 7 },
  ];
  expect((await request.post(`${API}/v1/${NS}/tables/visits/rows`, { headers: auth, data: { rows } })).status()).toBe(201);
});

// The other specs share this server.
test.afterAll(async ({ request }) => {
  expect([204, 404]).toContain((await request.delete(`${API}/v1/namespaces/${NS}`, { headers: auth })).status());
});

/** Signs in with the admin token (kept in this tab's sessionStorage), then opens `to`. */
async function open(page: Page, to: string): Promise<void> {
  await signIn(page, { token: TOKEN });
  await page.goto(to);
}

/**
 * Picks the completion `option` from the list. (With the keyboard it is Enter; CodeMirror ignores an Enter within 75 ms
 * of the list opening — it was meant for the line — so the test clicks instead of racing that.)
 */
async function accept(page: Page, option: string, expected: string): Promise<void> {
  await page.getByRole('option', { name: option }).click();
  await expect(page.getByRole('textbox', { name: 'SQL', exact: true })).toHaveText(expected);
}

/** WCAG contrast ratio of two computed `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c
      .match(/[\d.]+/g)!
      .slice(0, 3)
      .map((x) => {
        const v = Number(x) / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

test('the rows grid formats values, shows a clear sort arrow and focus ring, and says its filters in words', async ({ page }) => {
  await open(page, `/ns/${NS}/tables/visits`);
  const grid = page.getByRole('table', { name: 'Rows of visits' });
  const ann = grid.getByRole('row').filter({ hasText: 'Ann' });
  await expect(ann.getByRole('button', { name: /^Edit member of row / })).toHaveText('true');
  await expect(
    grid
      .getByRole('row')
      .filter({ hasText: 'Bob' })
      .getByRole('button', { name: /^Edit member of row / }),
  ).toHaveText('false');
  const arrived = ann.getByRole('button', { name: /^Edit arrived of row / });
  await expect(arrived).toHaveText('25 Nov 2026, 14:55:23');
  await expect(arrived).toHaveAttribute('title', '2026-11-25T14:55:23.009Z');
  await expect(ann.getByRole('button', { name: /^Edit spent of row / })).toHaveText('1,234.5');
  await expect(ann.getByRole('button', { name: /^Edit room_id of row / })).toHaveText('1200');

  // The unsorted arrow reads against the header (≥ 4.5:1); a header button shows a solid ring when focused.
  const header = grid.getByRole('columnheader', { name: /^spent/ });
  const [arrow, background] = await header.evaluate((th) => [getComputedStyle(th.querySelector('.arrow')!).color, getComputedStyle(th).backgroundColor]);
  expect(contrast(arrow!, background!)).toBeGreaterThanOrEqual(4.5);
  await header.getByRole('button').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  await expect(header.getByRole('button')).toBeFocused();
  expect(await header.getByRole('button').evaluate((b) => getComputedStyle(b).outlineStyle)).toBe('solid');

  await page.getByRole('button', { name: 'Filters' }).click();
  const filters = page.getByRole('form', { name: 'Filters' });
  await filters.getByRole('button', { name: 'Add filter' }).click();
  await filters.getByLabel('Filter 1 column').selectOption('spent');
  await filters.getByLabel('Filter 1 operator').selectOption({ label: '≥' });
  await filters.getByLabel('Filter 1 value').fill('100');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page.getByText('Rows 1–1 of 1')).toBeVisible();
  await expect(filters.getByText('spent at least 100 · sorted by spent, largest first')).toBeVisible();
  const raw = filters.getByText('?spent=gte.100&order=spent.desc');
  await expect(raw).toBeHidden();
  await filters.getByText('Details', { exact: true }).click();
  await expect(raw).toBeVisible();
});

test('the SQL console completes names, runs on Ctrl+Enter into the same grid, places errors and recalls history', async ({ page }) => {
  await open(page, `/ns/${NS}/sql`);
  const editor = page.getByRole('textbox', { name: 'SQL', exact: true });
  await expect(page.getByRole('button', { name: 'visits' })).toBeVisible();
  await editor.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');

  // Completion offers the table's columns and the table.
  await editor.pressSequentially('SELECT guest, memb');
  await accept(page, 'member', 'SELECT guest, member');
  await editor.pressSequentially(', arrived FROM visi');
  await accept(page, 'visits', 'SELECT guest, member, arrived FROM visits');
  await editor.pressSequentially(" WHERE guest = 'Ann");
  await expect(editor).toHaveText("SELECT guest, member, arrived FROM visits WHERE guest = 'Ann'");

  await page.keyboard.press('Control+Enter');
  const results = page.getByRole('table', { name: 'Query results' });
  const first = results.getByRole('row').nth(1).getByRole('cell');
  await expect(first.nth(0)).toHaveText('Ann');
  await expect(first.nth(1)).toHaveText('true');
  await expect(first.nth(2)).toHaveText('25 Nov 2026, 14:55:23');
  await expect(first.nth(2).locator('[title]')).toHaveAttribute('title', '2026-11-25T14:55:23.009Z');
  await expect(page.getByRole('status').filter({ hasText: '1 row' })).toBeVisible();

  // The statement under the cursor runs, not the whole text.
  await editor.fill('SELECT count(*) AS n FROM visits;\nSELECT 1 AS other');
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Control+Enter');
  await expect(results.getByRole('columnheader', { name: 'n', exact: true })).toBeVisible();
  await expect(results.getByRole('row').nth(1).getByRole('cell')).toHaveText(['2']);

  // An SQL error in one sentence, with its place.
  await editor.fill('SELEC guest FROM visits');
  await page.keyboard.press('Control+Enter');
  await expect(page.getByRole('alert')).toHaveText('SQL error at line 1, column 1: near "SELEC": syntax error.');

  // Tab leaves the editor.
  await editor.focus();
  await page.keyboard.press('Tab');
  await expect(editor).not.toBeFocused();

  // History: Ctrl+↑ in the editor, and the list after a reload (kept in this browser).
  await editor.fill('');
  await page.keyboard.press('Control+ArrowUp');
  await expect(editor).toHaveText('SELEC guest FROM visits');
  await page.keyboard.press('Control+ArrowUp');
  await expect(editor).toHaveText('SELECT count(*) AS n FROM visits');
  await page.reload();
  await page.getByText('Recent queries (3)').click();
  const recent = page.getByRole('list', { name: 'Recent queries' }).getByRole('button');
  await expect(recent).toHaveText([
    'SELEC guest FROM visits',
    'SELECT count(*) AS n FROM visits',
    "SELECT guest, member, arrived FROM visits WHERE guest = 'Ann'",
  ]);
  await recent.nth(2).click();
  await expect(editor).toHaveText("SELECT guest, member, arrived FROM visits WHERE guest = 'Ann'");
  await expect(editor).toBeFocused();
});
