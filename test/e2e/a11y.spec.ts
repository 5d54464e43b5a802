/**
 * Accessibility of the admin UI: axe-core (`@axe-core/playwright`, its default WCAG 2 A/AA and best-practice rules,
 * `color-contrast` included) over every page and the main dialogs finds no serious or critical violation; the
 * keyboard reaches the controls of the main navigation and a page, each with a visible focus ring (3:1 against what is
 * behind it) that no `overflow` ancestor cuts off; dialogs fit a 390 px phone screen.
 *
 * A server of its own (the first-run setup is only reachable before an account exists); the axe test runs first.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page, test } from '@playwright/test';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';
import { adminApi, seedAdmin, seedProfile, seedTable } from './ui-seed.ts';

const TOKEN = `e2e-a11y-${crypto.randomBytes(24).toString('hex')}`;
const ADMIN = { login: 'ada', password: 'a11y password 1', displayName: 'Ada Admin' };
const NS = 'office';
const BLOCKING = new Set(['serious', 'critical']);

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

// Not serial: a failing test does not skip the others (a new worker starts its own server and seeds it again).

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-a11y-'));
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN });
  base = server.publicUrl;
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

let seeded = false;
/** The administrator, a namespace with a table of rows, a mail profile and a backup (once; the setup page needs none yet). */
async function seed(): Promise<void> {
  if (seeded) return;
  seeded = true;
  const call = adminApi(base, TOKEN);
  await seedAdmin(call, ADMIN);
  const rows = Array.from({ length: 8 }, (_, i) => ({ name: `Customer ${i}`, age: 20 + i, active: i % 2 === 0 }));
  await seedTable(
    call,
    NS,
    'customers',
    [
      { name: 'name', type: 'text' },
      { name: 'age', type: 'integer' },
      { name: 'active', type: 'boolean' },
    ],
    rows,
  );
  // Port 1: nothing listens there.
  await seedProfile(call, 'office', 1);
  // A backup, so the Backups page shows its table.
  await call('POST', '/api/admin/backups');
}

/** Serious and critical violations on what the page shows now, as "rule: target (contrast data)" lines. */
async function violations(page: Page, scope?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  if (scope) builder.include(scope);
  const { violations } = await builder.analyze();
  return violations
    .filter((v) => BLOCKING.has(v.impact ?? ''))
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(1, 2).join('').trim() ?? ''}`));
}

/** Waits until the page has a heading and no list or table is still loading. */
async function settled(page: Page): Promise<void> {
  await expect(page.locator('h1').first()).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

test('axe finds no serious or critical violation on any page or main dialog', async ({ page }) => {
  test.setTimeout(480_000); // every page and dialog, each analysed by axe
  const found: Record<string, string[]> = {};
  const check = async (name: string, scope?: string) => {
    const started = Date.now();
    const v = await violations(page, scope);
    if (v.length) found[name] = v;
    if (process.env.HEARTH_A11Y_LOG) console.log(`${name}: ${v.length} (${Date.now() - started} ms)\n  ${v.join('\n  ')}`);
  };

  // Before any account exists: the first-run setup, then the token sign-in.
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Create the first administrator' })).toBeVisible();
  await check('first-run setup');
  await page.getByRole('button', { name: 'Use an API token' }).click();
  await expect(page.getByLabel('Admin token')).toBeVisible();
  await check('sign-in with a token');

  await seed();
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await check('sign-in');
  await page.goto(`${base}/network/certificate`);
  await expect(page.locator('h1').first()).toBeVisible();
  await check('certificate page before sign-in');

  await signIn(page, ADMIN, { base });

  const pages = [
    '/',
    '/namespaces',
    `/ns/${NS}`,
    `/ns/${NS}/tables`,
    `/ns/${NS}/tables/customers`,
    `/ns/${NS}/tables/customers/structure`,
    `/ns/${NS}/sql`,
    `/ns/${NS}/events`,
    `/ns/${NS}/changelog`,
    '/accounts',
    '/groups',
    '/service-accounts',
    '/oauth-clients',
    '/keys',
    '/mail/profiles',
    '/mail/apps',
    '/mail/log',
    '/mail/retention',
    '/linux',
    '/network',
    '/network/certificate',
    '/backups',
    '/me',
    '/no-such-page',
  ];
  for (const p of pages) {
    await page.goto(base + p);
    await settled(page);
    await check(p);
  }

  // The main dialogs, each opened from its page and closed with Escape.
  const dialog = async (name: string, where: string, open: (page: Page) => Promise<void>) => {
    await page.goto(base + where);
    await settled(page);
    await open(page);
    const d = page.getByRole('dialog').last();
    await expect(d).toBeVisible();
    await check(`dialog: ${name}`);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
  };
  const click = (name: string | RegExp) => (page: Page) => page.getByRole('button', { name }).first().click();
  await dialog('create namespace', '/namespaces', click(/^New namespace/));
  await dialog('insert row', `/ns/${NS}/tables/customers`, click('Insert row'));
  await dialog('CSV import', `/ns/${NS}/tables/customers`, click('Import CSV'));
  await dialog('create account', '/accounts', click(/^New account/));
  await dialog('create OAuth client', '/oauth-clients', click(/^New client/));
  await dialog('mail profile', '/mail/profiles', click(/^New profile/));
  await dialog('back up now', '/backups', click(/^Back up now/));
  await dialog('confirm', '/mail/profiles', async (page) => {
    await page.getByRole('button', { name: 'More actions for office' }).click();
    await page
      .getByRole('menu', { name: 'More actions for office' })
      .getByRole('menuitem', { name: /^Delete/ })
      .click();
  });

  expect(found, 'serious or critical axe violations, by page').toEqual({});
});

/**
 * The focused element's ring: visible (an outline or box-shadow whose colour has at least 3:1 contrast against the
 * background behind the element) and not cut off by an ancestor with `overflow` other than visible.
 */
async function focusRing(page: Page): Promise<{ what: string; problem: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { what: 'body', problem: 'nothing focused' };
    const name = el.getAttribute('aria-label') ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? '';
    const what = `${el.tagName.toLowerCase()} "${name.trim().replace(/\s+/g, ' ').slice(0, 40)}"${el.id ? `#${el.id}` : ''}`;
    const rgba = (c: string): number[] => {
      const m = /rgba?\(([^)]+)\)/.exec(c);
      if (!m) return [0, 0, 0, 0];
      const parts = m[1]!
        .split(/[\s,/]+/)
        .filter(Boolean)
        .map(Number);
      return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]) => {
      const f = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    // The opaque colour behind the element (its own background counts for an inset ring).
    const behind = (from: Element | null): number[] => {
      for (let e = from; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3]! > 0.9) return c;
      }
      return [255, 255, 255, 1];
    };
    const contrast = (color: number[], bg: number[]) => {
      const a = color[3]!;
      const mixed = [0, 1, 2].map((i) => color[i]! * a + bg[i]! * (1 - a));
      const [l1, l2] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
      return (l1! + 0.05) / (l2! + 0.05);
    };
    const cs = getComputedStyle(el);
    let extent = -Infinity;
    let best = 0;
    if (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) {
      const offset = parseFloat(cs.outlineOffset);
      best = Math.max(best, contrast(rgba(cs.outlineColor), behind(offset < 0 ? el : el.parentElement)));
      extent = Math.max(extent, parseFloat(cs.outlineWidth) + offset);
    }
    if (cs.boxShadow !== 'none') {
      for (const layer of cs.boxShadow.split(/,(?![^(]*\))/)) {
        const px = (layer.match(/-?[\d.]+px/g) ?? []).map(parseFloat);
        const [x = 0, y = 0, blur = 0, spread = 0] = px;
        const inset = /\binset\b/.test(layer);
        if (spread <= 0 && !(inset && blur > 0)) continue;
        best = Math.max(best, contrast(rgba(layer), behind(inset ? el : el.parentElement)));
        if (!inset) extent = Math.max(extent, Math.max(Math.abs(x), Math.abs(y)) + spread);
      }
    }
    if (best === 0) return { what, problem: 'no focus ring (outline and box-shadow are none)' };
    if (best < 3) return { what, problem: `focus ring too pale (${best.toFixed(2)}:1)` };
    const r = el.getBoundingClientRect();
    const out = Math.max(0, extent);
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const b = a.getBoundingClientRect();
      const left = b.left + parseFloat(s.borderLeftWidth);
      const top = b.top + parseFloat(s.borderTopWidth);
      const right = left + a.clientWidth;
      const bottom = top + a.clientHeight;
      const tol = 0.5;
      if (r.left - out < left - tol || r.top - out < top - tol || r.right + out > right + tol || r.bottom + out > bottom + tol)
        return { what, problem: `focus ring clipped by ${a.tagName.toLowerCase()}.${[...a.classList].join('.')} (overflow ${s.overflowX}/${s.overflowY})` };
    }
    return { what, problem: null };
  });
}

async function tabThrough(page: Page, stops: number, problems: string[], where: string): Promise<void> {
  const seen = new Set<string>();
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab');
    let last = { what: '', problem: null as string | null };
    // Rings fade in (a 0.12 s transition): wait for the state, not for a time.
    await expect
      .poll(async () => (last = await focusRing(page)).problem, { timeout: 30_000 })
      .toBeNull()
      .catch(() => undefined);
    if (last.problem) problems.push(`${where}: ${last.what}: ${last.problem}`);
    seen.add(last.what);
  }
  if (seen.size <= 5) problems.push(`${where}: the keyboard reached only ${seen.size} controls (${[...seen].join(', ')})`);
}

test('the keyboard reaches the navigation and the page controls, each with a visible, unclipped focus ring', async ({ page }) => {
  await seed();
  await signIn(page, ADMIN, { base });

  const problems: string[] = [];
  // The main navigation, the namespace tabs, the table list and the rows grid's toolbar.
  await page.goto(`${base}/ns/${NS}/tables/customers`);
  await settled(page);
  await tabThrough(page, 40, problems, 'table rows');
  // A list page: search, table actions, the "More" menus.
  await page.goto(`${base}/mail/profiles`);
  await settled(page);
  await tabThrough(page, 20, problems, 'mail profiles');
  // Inside a dialog.
  await page.getByRole('button', { name: /^New profile/ }).click();
  await expect(page.getByRole('dialog')).toBeVisible();
  await tabThrough(page, 12, problems, 'profile dialog');
  await page.keyboard.press('Escape');
  expect(problems).toEqual([]);
});

test('dialogs fit a 390 px phone screen', async ({ page }) => {
  await seed();
  await page.setViewportSize({ width: 390, height: 780 });
  await signIn(page, ADMIN, { base });
  await page.goto(`${base}/namespaces`);
  const fits = async (d: Locator, name: string) => {
    await expect(d).toBeVisible();
    const box = (await d.boundingBox())!;
    expect(box.x, `${name} starts on screen`).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, `${name} ends on screen`).toBeLessThanOrEqual(390);
    expect(box.y + box.height, `${name} fits the height`).toBeLessThanOrEqual(780);
    const sideways = await d.evaluate(
      (el) => [...el.querySelectorAll('*')].filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === 'hidden').length,
    );
    expect(sideways, `${name}: nothing cut off sideways`).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  };
  await page.getByRole('button', { name: /^New namespace/ }).click();
  await fits(page.getByRole('dialog', { name: /namespace/i }), 'create namespace');
  await page.keyboard.press('Escape');
  await page.goto(`${base}/mail/profiles`);
  await settled(page);
  await page.getByRole('button', { name: /^New profile/ }).click();
  await fits(page.getByRole('dialog', { name: /profile/i }), 'mail profile');
  await page.keyboard.press('Escape');
  await page.goto(`${base}/backups`);
  await settled(page);
  await page
    .getByRole('button', { name: /^Back up now/ })
    .first()
    .click();
  await fits(page.getByRole('dialog', { name: 'Back up now' }), 'back up now');
});
