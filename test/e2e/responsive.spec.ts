/**
 * Every width an office admin uses: a phone (390 px), a small laptop or tablet (1024 px) and a laptop (1366 px).
 * Below 1280 px the main navigation is a menu button with a drawer; at every width every navigation target is
 * reachable and no page scrolls sideways (`scrollWidth <= innerWidth`). A screenshot of each page at each width.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { sharedServer } from './shared-server.ts';
import { signIn } from './sign-in.ts';

const { url: API, token: TOKEN } = sharedServer();
const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/e2e/screenshots');
const NS = 'responsive';

/** The main navigation's targets: link label, path, and the page's heading. */
const TARGETS: Array<{ label: string; path: RegExp; heading: RegExp }> = [
  { label: 'Home', path: /\/$/, heading: /^Home$/ },
  { label: 'Namespaces', path: /\/namespaces$/, heading: /^Namespaces$/ },
  { label: 'Accounts', path: /\/accounts$/, heading: /^Accounts$/ },
  { label: 'Groups', path: /\/groups$/, heading: /^Groups$/ },
  { label: 'Service accounts', path: /\/service-accounts$/, heading: /^Service accounts$/ },
  { label: 'OAuth clients', path: /\/oauth-clients$/, heading: /^OAuth clients$/ },
  { label: 'Signing keys', path: /\/keys$/, heading: /^Signing keys$/ },
  { label: 'Mail', path: /\/mail\/profiles$/, heading: /^Outgoing mail$/ },
  { label: 'Linux IDs', path: /\/linux$/, heading: /^Linux identities$/ },
  { label: 'Network', path: /\/network$/, heading: /^Network$/ },
  { label: 'Backups', path: /\/backups$/, heading: /^Backups$/ },
];
/** Pages reached otherwise: a namespace's tabs (with a table of rows) and the account page. */
const PAGES = [`/ns/${NS}`, `/ns/${NS}/tables/people`, `/ns/${NS}/sql`, `/ns/${NS}/events`, `/ns/${NS}/changelog`, '/me'];

test.beforeAll(async ({ request }) => {
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const made = await request.post(`${API}/v1/namespaces`, { headers: auth, data: { name: NS } });
  expect([201, 409]).toContain(made.status());
  const table = await request.post(`${API}/v1/${NS}/tables`, {
    headers: auth,
    data: {
      type: 'table',
      name: 'people',
      columns: [
        { name: 'name', type: 'text' },
        { name: 'email', type: 'text' },
        { name: 'notes', type: 'text' },
      ],
    },
  });
  expect([201, 409]).toContain(table.status());
  const rows = Array.from({ length: 30 }, (_, i) => ({
    name: `Person number ${i} with a rather long name`,
    email: `person.${i}@a-long-domain-name.example.com`,
    notes: 'x'.repeat(120),
  }));
  expect((await request.post(`${API}/v1/${NS}/tables/people/rows`, { headers: auth, data: { rows } })).status()).toBe(201);
});

async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, `${where} scrolls sideways (${scrollWidth} > ${innerWidth})`).toBeLessThanOrEqual(innerWidth);
}

for (const width of [390, 1024, 1366]) {
  test(`at ${width} px every page is reachable from the navigation and none scrolls sideways`, async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await signIn(page, { token: TOKEN });
    const menu = page.getByRole('button', { name: 'Menu' });
    const inline = page.getByRole('navigation', { name: 'Main', exact: true });
    if (width < 1280) {
      await expect(menu).toBeVisible();
      await expect(inline).toBeHidden();
    } else {
      await expect(menu).toBeHidden();
      await expect(inline).toBeVisible();
      // Every item fits: none is cut off at the bar's edge.
      expect(await inline.evaluate((n) => n.scrollWidth <= n.clientWidth)).toBe(true);
    }
    for (const t of TARGETS) {
      if (width < 1280) {
        await menu.click();
        await expect(menu).toHaveAttribute('aria-expanded', 'true');
        const drawer = page.getByRole('dialog', { name: 'Menu' });
        await drawer.getByRole('link', { name: t.label, exact: true }).click();
        await expect(drawer).toBeHidden();
      } else {
        await inline.getByRole('link', { name: t.label, exact: true }).click();
      }
      await expect(page).toHaveURL(t.path);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(t.heading);
      await expectNoSidewaysScroll(page, `${t.label} at ${width} px`);
      await page.screenshot({ path: path.join(SHOTS, `responsive-${t.label.toLowerCase().replace(/\W+/g, '-')}-${width}.png`), fullPage: true });
    }
    for (const p of PAGES) {
      await page.goto(p);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expectNoSidewaysScroll(page, `${p} at ${width} px`);
      await page.screenshot({ path: path.join(SHOTS, `responsive${p.replace(/\W+/g, '-')}-${width}.png`), fullPage: true });
    }
    if (width < 1280) {
      // The drawer: Escape closes it and gives the focus back to the menu button; Sign out is in it.
      await menu.click();
      const drawer = page.getByRole('dialog', { name: 'Menu' });
      await expect(drawer.getByRole('button', { name: 'Sign out' })).toBeVisible();
      await expect(drawer.getByRole('link', { name: 'Your account' })).toBeVisible();
      await page.screenshot({ path: path.join(SHOTS, `responsive-drawer-${width}.png`) });
      await page.keyboard.press('Escape');
      await expect(drawer).toBeHidden();
      await expect(menu).toBeFocused();
    }
    await context.close();
  });
}
