/**
 * Documentation screenshots of the admin UI (issue 15's before/after set): the namespaces page, a table's rows, the
 * SQL console, a mail profile's failed test send and the OAuth client page after creating a client, each at 1366 and
 * 390 px, full page (cut at MAX_HEIGHT so the PNGs stay small).
 *
 * Not part of `npm test`. Needs the built UI (`npm run build:ui`) and Chromium (`/usr/bin/chromium`, or
 * HEARTH_E2E_CHROMIUM). Starts its own server on port 0 with a fresh data folder and seeds it through the API.
 *
 *   npm run screenshots -- --out docs/screenshots/after
 *
 * Pages change: everything is found by role and label, and a part that is missing (for example a panel a later
 * version adds) is skipped with a note while the page is captured anyway.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Browser, chromium, type Page } from '@playwright/test';
import { startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';
import { adminApi, seedAdmin, seedProfile, seedTable } from './ui-seed.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WIDTHS = [1366, 390] as const;
const MAX_HEIGHT = 2400;
const TOKEN = `screenshots-${crypto.randomBytes(24).toString('hex')}`;
const ADMIN = { login: 'alex', password: 'a screenshot password 1', displayName: 'Alex Office' };
const NS = 'office';
const WAIT = 15_000;

const { values } = parseArgs({ options: { out: { type: 'string' } } });
if (!values.out) {
  console.error('Usage: npm run screenshots -- --out docs/screenshots/<before|after>');
  process.exit(2);
}
const outDir = path.resolve(repoRoot, values.out);
if (!fs.existsSync(path.join(repoRoot, 'ui/dist/index.html'))) {
  console.error('The admin UI is not built: run `npm run build:ui` first.');
  process.exit(2);
}

/** A port on which nothing listens (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function seed(base: string, deadPort: number): Promise<void> {
  const call = adminApi(base, TOKEN);
  await seedAdmin(call, ADMIN);
  const cities = ['Lyon', 'Leeds', 'Porto', 'Graz', 'Turku', 'Ghent'];
  const first = ['Ana', 'Ben', 'Chloé', 'Dev', 'Eli', 'Fatou', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kai', 'Lea'];
  const rows = Array.from({ length: 36 }, (_, i) => ({
    name: `${first[i % first.length]} ${['Moreau', 'Okafor', 'Silva', 'Berg'][i % 4]}`,
    email: `${first[i % first.length]!.toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '')}.${i}@example.com`,
    city: cities[i % cities.length],
    age: 21 + ((i * 7) % 45),
    active: i % 3 !== 0,
  }));
  const text = (name: string) => ({ name, type: 'text' });
  await seedTable(
    call,
    NS,
    'customers',
    [text('name'), text('email'), text('city'), { name: 'age', type: 'integer' }, { name: 'active', type: 'boolean' }],
    rows,
  );
  await call('POST', `/v1/${NS}/tables`, { type: 'table', name: 'orders', columns: [text('customer'), { name: 'total', type: 'real' }] });
  await seedProfile(call, 'office', deadPort);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate(() => document.fonts.ready);
  const { width } = page.viewportSize()!;
  const height = await page.evaluate(() => Math.max(document.documentElement.scrollHeight, window.innerHeight));
  const file = path.join(outDir, `${name}-${width}.png`);
  await page.screenshot({
    path: file,
    fullPage: true,
    animations: 'disabled',
    caret: 'hide',
    clip: { x: 0, y: 0, width, height: Math.min(height, MAX_HEIGHT) },
  });
  console.log(`  ${path.relative(repoRoot, file)}`);
}

/** Runs `step`; a part that a version of the UI does not have is noted, not fatal. */
async function optional(what: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    console.warn(`  (skipped: ${what}: ${(err as Error).message.split('\n')[0]})`);
  }
}

async function capture(browser: Browser, base: string, width: number): Promise<void> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-GB', timezoneId: 'UTC', colorScheme: 'light' });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  try {
    await signIn(page, ADMIN, { base, timeout: WAIT });
  } catch (err) {
    await page.screenshot({ path: path.join(repoRoot, '.tmp/screenshots-sign-in-failed.png') });
    throw err;
  }

  // The namespaces page.
  await page.goto(`${base}/namespaces`);
  await page.getByRole('heading', { name: 'Namespaces', level: 1 }).waitFor();
  await page.getByText(NS, { exact: true }).first().waitFor();
  await shot(page, 'namespaces');

  // A table's rows.
  await page.goto(`${base}/ns/${NS}/tables/customers`);
  await page.getByText('Ana Moreau').first().waitFor();
  await shot(page, 'rows');

  // The SQL console, with a query run.
  await page.goto(`${base}/ns/${NS}/sql`);
  const editor = page.getByRole('textbox').first();
  await editor.waitFor();
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('SELECT name, city, age, active FROM customers WHERE age >= 30 ORDER BY age DESC LIMIT 12');
  await page.getByRole('button', { name: /^Run/ }).first().click();
  await optional('SQL results', () =>
    page
      .getByText(/12 rows|rows? returned|12 row/i)
      .first()
      .waitFor({ timeout: 8_000 }),
  );
  await shot(page, 'sql');

  // A mail profile's test send that fails (nothing listens on its port).
  await page.goto(`${base}/mail/profiles`);
  await page
    .getByRole('button', { name: /Send a test through office|Send test/ })
    .first()
    .click();
  const testDialog = page.getByRole('dialog').filter({ has: page.getByLabel('Recipient') });
  await testDialog.getByLabel('Recipient').fill('alex@example.com');
  await testDialog.getByRole('button', { name: /^Send test/ }).click();
  await testDialog.getByRole('alert').first().waitFor({ timeout: 30_000 });
  await shot(page, 'mail-test-failed');
  await optional('closing the test dialog', async () => {
    await page.keyboard.press('Escape');
    await testDialog.waitFor({ state: 'hidden', timeout: 3_000 });
  });
  await optional('profile after the test', async () => {
    await page
      .getByText(/office/)
      .first()
      .waitFor();
    await shot(page, 'mail-profiles');
  });

  // The OAuth client page right after creating a client (the "Connect your app" panel when there is one).
  await page.goto(`${base}/oauth-clients`);
  await page.getByRole('button', { name: /New client/ }).click();
  const dialog = page.getByRole('dialog', { name: /New OAuth client/ });
  const clientName = `Wiki ${width}`;
  await dialog.getByLabel('Name', { exact: true }).fill(clientName);
  await optional('description', () => dialog.getByLabel('Description').fill('The team wiki', { timeout: 2_000 }));
  await dialog.getByLabel(/Redirect URIs?/).fill('https://wiki.example.com/callback');
  await dialog.getByRole('button', { name: /Create client/ }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByText(clientName).first().waitFor();
  await optional('"Connect your app" panel', () =>
    page
      .getByText(/Connect your app/i)
      .first()
      .waitFor({ timeout: 3_000 }),
  );
  await shot(page, 'oauth-client-created');
  await optional('the client page after the secret', async () => {
    const done = page.getByRole('button', { name: /I have copied|Done|Close/ }).first();
    await done.click({ timeout: 3_000 });
    await page.getByText(clientName).first().waitFor();
    await shot(page, 'oauth-client');
  });

  await context.close();
}

async function main(): Promise<void> {
  fs.mkdirSync(outDir, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-screenshots-'));
  const server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN });
  let browser: Browser | null = null;
  try {
    const base = server.publicUrl;
    await seed(base, await closedPort());
    browser = await chromium.launch({
      executablePath: process.env.HEARTH_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    for (const width of WIDTHS) {
      console.log(`${width} px:`);
      await capture(browser, base, width);
    }
  } finally {
    await browser?.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
