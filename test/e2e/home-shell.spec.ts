/**
 * The app shell: the home page's setup checklist (live state), recent authentication in a dialog (password, then
 * the original action carries on) and notices cleared on sign-out. Runs its own server (fresh data folder) so the
 * checklist starts from nothing and the session can be aged in its database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';

const SHOTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../test-results/e2e/screenshots');
const TOKEN = 'e2e-home-shell-admin-token-0123456789';
const ADMIN = { login: 'hana', password: 'hana password 1', displayName: 'Hana Admin' };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';
const auth = { Authorization: `Bearer ${TOKEN}` };

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-home-'));
  server = await startSpecServer(['--port', '0', '--authenticator-port', '0', '--data', dataDir, '--log-level', 'warn'], {
    ...process.env,
    HEARTH_ADMIN_TOKEN: TOKEN,
  });
  base = server.publicUrl;
  const setup = await request.post(`${base}/api/setup`, { data: ADMIN });
  expect(setup.status(), await setup.text()).toBe(201);
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

const step = (page: Page, title: string) => page.getByRole('list', { name: 'Setup steps' }).getByRole('listitem').filter({ hasText: title });
const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });

test('home: the setup checklist shows what is done, live, each step linking to where it is done', async ({ page, request }) => {
  const errors = watchConsole(page);
  await signIn(page, ADMIN, { base });
  const nav = page.getByRole('navigation', { name: 'Main', exact: true });
  await expect(nav.getByRole('link').first()).toHaveText('Home');
  await expect(nav.getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');

  await expect(page.getByRole('heading', { name: 'Set up Hearth' })).toBeVisible();
  await expect(page.getByText('0 of 5 done')).toBeVisible();
  for (const title of [
    'Share Hearth on your network with HTTPS',
    'Add a mail profile and send a test',
    'Create a namespace',
    'Add people',
    'Pair your phone',
  ]) {
    await expect(step(page, title)).toContainText('To do');
  }
  await expect(step(page, 'Share Hearth on your network with HTTPS')).toContainText('HTTPS is off');
  await expect(step(page, 'Add people')).toContainText('Only the first administrator has an account.');
  await expect(page.getByRole('region', { name: 'This Hearth' })).toContainText('0 namespaces');
  await page.screenshot({ path: path.join(SHOTS, 'home-start.png'), fullPage: true });

  // Each step links to its page; the namespaces list keeps its own path.
  await step(page, 'Create a namespace').getByRole('link', { name: 'Open namespaces' }).click();
  await expect(page).toHaveURL(/\/namespaces$/);
  await expect(page.getByRole('heading', { name: 'Namespaces', level: 1 })).toBeVisible();

  // Things get done (here through the API, as another admin would): the checklist follows.
  expect((await request.post(`${base}/v1/namespaces`, { headers: auth, data: { name: 'office' } })).status()).toBe(201);
  const made = await request.post(`${base}/api/admin/core/accounts`, { headers: auth, data: { login: 'ivan', displayName: 'Ivan' } });
  expect(made.status(), await made.text()).toBe(201);
  await nav.getByRole('link', { name: 'Home' }).click();
  await expect(step(page, 'Create a namespace')).toContainText('Done: 1 namespace.');
  await expect(step(page, 'Create a namespace')).not.toContainText('To do');
  await expect(step(page, 'Add people')).toContainText('Done: 2 accounts.');
  await expect(step(page, 'Share Hearth on your network with HTTPS')).toContainText('To do');
  await expect(page.getByText('2 of 5 done')).toBeVisible();
  await expect(page.getByRole('region', { name: 'This Hearth' })).toContainText('1 namespace, 0 open');
  // One node (the usual installation): no Nodes card (nodes.spec.ts shows it with two).
  await expect(page.getByRole('region', { name: 'Nodes' })).toHaveCount(0);
  await page.screenshot({ path: path.join(SHOTS, 'home-progress.png'), fullPage: true });
  expect(errors).toEqual([]);
});

test('recent authentication: an old session confirms the password in a dialog and the action carries on; sign-out clears notices', async ({
  page,
  request,
}) => {
  await signIn(page, ADMIN, { base });
  // The sign-in is older than the ten-minute window (as after a long working session).
  const db = new Database(path.join(dataDir, 'platform.db'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE identity_session_families SET issued_at = issued_at - 11 * 60000 WHERE revoked_at IS NULL').run();
  } finally {
    db.close();
  }

  await page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Accounts', exact: true }).click();
  const ivan = page.getByRole('table', { name: 'Accounts' }).getByRole('row').filter({ hasText: 'ivan' });
  await ivan.getByRole('button', { name: 'More actions for ivan' }).click();
  await page.getByRole('menu', { name: 'More actions for ivan' }).getByRole('menuitem', { name: 'Set password…' }).click();
  const set = page.getByRole('dialog', { name: 'Set the password of ivan' });
  await set.getByLabel('New password').fill('ivan password 1');
  await set.getByLabel('Confirm password').fill('ivan password 1');
  await set.getByRole('button', { name: 'Set password' }).click();

  const confirm = page.getByRole('dialog', { name: 'Confirm your password' });
  await expect(confirm).toBeVisible();
  await confirm.getByLabel('Password').fill('not my password');
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(confirm.getByText('Wrong password. Try again.')).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, 'home-reauth.png') });
  await confirm.getByLabel('Password').fill(ADMIN.password);
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(confirm).toBeHidden();
  // The original request was sent again and succeeded.
  await expect(set).toBeHidden();
  await expect(notifications(page)).toContainText('Password of ivan set');
  expect((await request.post(`${base}/api/auth/login`, { data: { login: 'ivan', password: 'ivan password 1' } })).status()).toBe(200);

  // Sign-out takes the notice away with the session (at once: it would otherwise stay for five seconds).
  await expect(notifications(page)).toContainText('Password of ivan set');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await expect(notifications(page).getByText('Password of ivan set')).toHaveCount(0);
});
