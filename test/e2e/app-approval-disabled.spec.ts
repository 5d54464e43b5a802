/**
 * Phone-authenticator approval turned off: a server without an authenticator origin (no `HEARTH_AUTHENTICATOR_ORIGIN`,
 * no `--authenticator-port`) answers `/info` with `enabled: false`, and the admin UI offers no phone features: no
 * "Sign in with the authenticator app" on the sign-in page, and the account page's card says how to turn it on
 * instead of listing devices or offering a pairing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { type SpecServer, startSpecServer } from './hearth-server.ts';

const TOKEN = `e2e-approval-off-${crypto.randomBytes(24).toString('hex')}`;
const USER = { login: 'olive', password: 'olive password 1' };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async ({ request }) => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-approval-off-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN };
  delete env.HEARTH_AUTHENTICATOR_ORIGIN;
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], env);
  base = server.publicUrl;
  const auth = { Authorization: `Bearer ${TOKEN}` };
  const created = await request.post(`${base}/api/admin/core/accounts`, {
    headers: auth,
    data: { login: USER.login, email: 'olive@approval-off.e2e.test', admin: true },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { sub } = (await created.json()) as { sub: string };
  expect((await request.put(`${base}/api/admin/core/accounts/${sub}/password`, { headers: auth, data: { password: USER.password } })).status()).toBe(204);
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('without an authenticator origin the UI hides the phone features', async ({ page, request }) => {
  const info = await request.get(`${base}/api/auth/app-approval/v1/info`);
  expect(await info.json()).toMatchObject({ appOrigin: null, features: [], enabled: false });

  const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/app-approval/v1/info'));
  await page.goto(`${base}/`);
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  expect((await (await answered).json()).enabled).toBe(false);
  await expect(page.getByRole('button', { name: 'Sign in with the authenticator app' })).toHaveCount(0);

  await page.getByLabel('Login').fill(USER.login);
  await page.getByLabel('Password').fill(USER.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await page.goto(`${base}/me`);
  const card = page.getByRole('region', { name: 'Authenticator app' });
  await expect(card.getByText('Phone approval is turned off on this server')).toBeVisible();
  await expect(card.getByText('HEARTH_AUTHENTICATOR_ORIGIN')).toBeVisible();
  await expect(card.getByRole('button', { name: 'Pair a device' })).toHaveCount(0);
  await expect(card.getByText('No paired devices yet.')).toHaveCount(0);
});
