/**
 * Hearth on the office network, end to end over HTTPS: the server runs `--tls internal` with `--tls-name hearth.test`
 * and the reference authenticator on its own https listener; Chromium reaches both by that name
 * (`--host-resolver-rules=MAP hearth.test 127.0.0.1`) and trusts Hearth's root for real — the root is imported into an
 * NSS database (`certutil`, Debian's libnss3-tools) in a HOME of the browser's own, no certificate errors ignored.
 *
 * 1. First-run setup in the UI, on a secure context (`isSecureContext`, `crypto.subtle`).
 * 2. A passkey added on /me with Chromium's virtual authenticator (relying party hearth.test), then a sign-in with it.
 * 3. The reference authenticator, in a second browser context on its own https origin, paired with the account.
 * 4. A browser sign-in approved on it.
 * 5. `hearth login --user` (a child process with `--ca-file`, hearth.test mapped by test/helpers/test-hosts.ts)
 *    approved on it.
 * A browser without the root in its NSS database is refused the page (the trust is what makes it work).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, expect, type Page, test } from '@playwright/test';
import { testHostsEnv } from '../helpers/test-hosts.ts';
import { shooter, TEST_RESULTS, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import config from './playwright.config.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NAME = 'hearth.test';
const ADMIN = { login: 'ada', displayName: 'Ada Lovelace', email: 'ada@hearth.test', password: 'correct horse battery' };
const DESKTOP_CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36';
const PHONE = { width: 390, height: 844 };

let server: SpecServer | null = null;
let work = '';
let dataDir = '';
/** https://hearth.test:<port>: the server's public address. */
let base = '';
/** https://hearth.test:<port>: the reference authenticator's listener. */
let authenticatorBase = '';
let caFile = '';
let browser: Browser;

test.describe.configure({ mode: 'serial' });

/** Chromium as the other specs launch it, reaching hearth.test on loopback, with HOME (and so ~/.pki/nssdb) at `home`. */
function launch(home: string): Promise<Browser> {
  const args = [...(config.use?.launchOptions?.args ?? []), `--host-resolver-rules=MAP ${NAME} 127.0.0.1`];
  return chromium.launch({ executablePath: config.use?.launchOptions?.executablePath, args, env: { ...process.env, HOME: home } });
}

/** A HOME whose NSS database (the one Chromium on Linux reads) trusts `pem` as a CA for servers. */
function nssHome(dir: string, pem: string | null): string {
  const db = path.join(dir, '.pki', 'nssdb');
  fs.mkdirSync(db, { recursive: true });
  execFileSync('certutil', ['-d', `sql:${db}`, '-N', '--empty-password'], { stdio: 'pipe' });
  if (pem) {
    execFileSync('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'hearth', '-i', pem], { stdio: 'pipe' });
    const listed = execFileSync('certutil', ['-d', `sql:${db}`, '-L'], { encoding: 'utf8' });
    expect(listed).toMatch(/^hearth\s+C,,\s*$/m);
  }
  return dir;
}

test.beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-https-'));
  dataDir = path.join(work, 'data');
  const env: NodeJS.ProcessEnv = { ...process.env, HEARTH_TLS: 'internal', HEARTH_TLS_NAMES: NAME };
  for (const k of ['HEARTH_ADMIN_TOKEN', 'HEARTH_AUTHENTICATOR_ORIGIN', 'HEARTH_PUBLIC_URL']) delete env[k];
  server = await startSpecServer(['--host', '127.0.0.1', '--port', '0', '--authenticator-port', '0', '--data', dataDir, '--log-level', 'warn'], env);
  expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  base = `https://${NAME}:${new URL(server.url).port}`;
  authenticatorBase = server.authenticatorUrl!;
  expect(new URL(authenticatorBase).hostname).toBe(NAME);
  expect(new URL(authenticatorBase).origin).not.toBe(base);
  // The root, from the data folder (a channel that needs no trust), as the docs tell an operator on the server machine.
  caFile = path.join(work, 'hearth-ca.pem');
  fs.copyFileSync(path.join(dataDir, 'tls', 'internal', 'root.crt'), caFile);
  browser = await launch(nssHome(path.join(work, 'home'), caFile));
});

test.afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const shot = shooter('https', { dir: TEST_RESULTS });

/** The page is a secure context over https at `origin`, with WebCrypto. */
async function expectSecure(page: Page, origin: string): Promise<void> {
  const s = await page.evaluate(() => ({ origin: location.origin, secure: window.isSecureContext, subtle: typeof crypto.subtle }));
  expect(s).toEqual({ origin, secure: true, subtle: 'object' });
}

async function newLaptop(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ userAgent: DESKTOP_CHROME, viewport: { width: 1360, height: 860 }, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  return { context, page, errors: watchConsole(page) };
}

let laptop: Awaited<ReturnType<typeof newLaptop>>;
let phoneContext: BrowserContext;
let phone: Page;
let phoneErrors: string[] = [];

test.afterAll(async () => {
  await phoneContext?.close();
  await laptop?.context.close();
});

test('a browser without the root is refused the page: the trust comes from the NSS database', async () => {
  const untrusting = await launch(nssHome(path.join(work, 'home-empty'), null));
  try {
    const page = await untrusting.newPage();
    const err = await page.goto(`${base}/`).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/net::ERR_CERT_AUTHORITY_INVALID/);
  } finally {
    await untrusting.close();
  }
});

test('first-run setup over https on a secure context; a passkey for hearth.test; sign-in with it', async () => {
  laptop = await newLaptop();
  const { page } = laptop;
  await page.goto(`${base}/`);
  await expectSecure(page, base);
  await expect(page.getByRole('heading', { name: 'Create the first administrator' })).toBeVisible();
  const form = page.getByRole('form', { name: 'Create the first administrator' });
  await form.getByLabel('Login').fill(ADMIN.login);
  await form.getByLabel('Display name').fill(ADMIN.displayName);
  await form.getByLabel('Email').fill(ADMIN.email);
  await form.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await form.getByLabel('Confirm password').fill(ADMIN.password);
  await form.getByRole('button', { name: 'Create administrator' }).click();
  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText(ADMIN.displayName);
  // The session cookie is Secure over https.
  const cookie = (await laptop.context.cookies(base)).find((c) => c.name === 'hearth_session');
  expect(cookie?.secure).toBe(true);

  // A passkey, with Chromium's virtual authenticator: its relying party is the public name.
  const cdp = await laptop.context.newCDPSession(page);
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
  await page
    .getByRole('banner')
    .getByRole('link', { name: /^Account:/ })
    .click();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  const card = page.getByRole('region', { name: 'Passkeys' });
  await card.getByLabel('Name of the new passkey').fill('Office laptop');
  await card.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByRole('region', { name: 'Notifications' })).toContainText('Passkey Office laptop added');
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials.map((c) => c.rpId)).toEqual([NAME]);

  // Sign out, and in again with the passkey.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await expect(page.getByRole('heading', { name: 'Your account', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner').getByRole('link', { name: /^Account:/ })).toContainText(ADMIN.displayName);
  await expectSecure(page, base);
  await shot(page, 'signed-in-passkey');
  expect(laptop.errors, 'admin UI console errors').toEqual([]);
});

test('the reference authenticator on its own https origin pairs with the account', async () => {
  const { page } = laptop;
  await page.goto(`${base}/me`);
  const card = page.getByRole('region', { name: 'Authenticator app' });
  await card.getByRole('button', { name: 'Pair a device' }).click();
  const link = (await card.getByTestId('pairing-link').getAttribute('href'))!;
  expect(link.startsWith(`${authenticatorBase}/#pairing=`)).toBe(true);

  phoneContext = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  phone = await phoneContext.newPage();
  phoneErrors = watchConsole(phone);
  await phone.goto(link);
  await expectSecure(phone, authenticatorBase);
  await expect(phone.getByRole('heading', { name: 'Protect this phone’s keys' })).toBeVisible();
  await phone.getByLabel(/No lock/).check();
  await phone.getByRole('button', { name: 'Continue' }).click();
  const pairing = phone.getByTestId('pairing');
  await expect(pairing.getByText(base)).toBeVisible();
  await pairing.getByLabel('Name of this phone').fill('Office phone');
  await pairing.getByRole('button', { name: 'Pair this phone' }).click();
  const code = (await pairing.getByTestId('pairing-code').textContent())!.replace(/\s+/g, '');
  expect(code).toMatch(/^\d{6}$/);

  const input = card.getByLabel('Code shown on the phone');
  await expect(input).toBeVisible();
  await input.fill(code);
  await card.getByRole('button', { name: 'Confirm' }).click();
  await expect(card.getByText('Device paired')).toBeVisible();
  await expect(card.getByTestId('app-device').filter({ hasText: 'Office phone' })).toBeVisible();
  await expect(pairing.getByText(/Paired\. This phone can now approve sign-ins/)).toBeVisible();
  await pairing.getByRole('button', { name: 'Done' }).click();
  await expect(phone.getByTestId('inbox-empty')).toBeVisible();
  await shot(phone, 'phone-paired');
  expect(laptop.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
});

test('a fresh browser signs in by approving on the phone', async () => {
  const other = await newLaptop();
  const { page } = other;
  await page.goto(`${base}/`);
  await expectSecure(page, base);
  await page.getByRole('button', { name: 'Sign in with the authenticator app' }).click();
  await page.getByLabel('Login or email').fill(ADMIN.login);
  await page.getByRole('button', { name: 'Send to my phone' }).click();
  const code = (await page.getByTestId('app-login-code').textContent())!.replace(/\s+/g, '');
  expect(code).toMatch(/^\d{6}$/);

  const request = phone.getByTestId('login-request');
  await expect(request).toBeVisible();
  await expect(request.getByTestId('request-code')).toHaveText(`${code.slice(0, 3)} ${code.slice(3)}`);
  await request.getByRole('button', { name: 'Approve' }).click();
  await request.getByRole('button', { name: 'Yes, approve' }).click();
  await expect(phone.getByTestId('decision-outcome')).toHaveText(/Approved/);

  await expect(page.getByRole('heading', { name: 'Home', level: 1 })).toBeVisible();
  await expect(page.getByRole('banner')).toContainText(ADMIN.displayName);
  await expectSecure(page, base);
  await shot(page, 'signed-in-app');
  expect(other.errors, 'admin UI console errors').toEqual([]);
  expect(phoneErrors, 'authenticator console errors').toEqual([]);
  await other.context.close();
});

test('`hearth login --user` with --ca-file is approved on the phone', async () => {
  const configDir = path.join(work, 'cli-config');
  const cli = spawn(process.execPath, [path.join(repoRoot, 'bin/hearth.mjs'), 'login', '--user', ADMIN.login, '--url', base, '--ca-file', caFile], {
    cwd: work,
    env: { PATH: process.env.PATH ?? '', HOME: work, HEARTH_CONFIG_DIR: configDir, ...testHostsEnv([NAME]) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  cli.stdout!.on('data', (c) => (stdout += c));
  cli.stderr!.on('data', (c) => (stderr += c));
  const done = new Promise<number | null>((resolve) => cli.on('close', (code) => resolve(code)));
  try {
    await expect.poll(() => /compare the code (\d{6})\n/.exec(stderr)?.[1] ?? (cli.exitCode !== null ? `exited: ${stderr}` : null)).toMatch(/^\d{6}$/);
    const code = /compare the code (\d{6})\n/.exec(stderr)![1]!;

    const entry = phone.getByTestId('login-request');
    await expect(entry).toBeVisible();
    await expect(entry.getByRole('heading', { name: 'Sign-in from a terminal' })).toBeVisible();
    await expect(entry.getByTestId('request-code')).toHaveText(`${code.slice(0, 3)} ${code.slice(3)}`);
    await expect(entry.getByText('hearth-cli')).toBeVisible();
    await shot(phone, 'phone-terminal');
    await entry.getByRole('button', { name: 'Approve' }).click();
    await entry.getByRole('button', { name: 'Yes, approve' }).click();
    await expect(phone.getByTestId('decision-outcome')).toHaveText('Approved. The terminal is signing in.');

    expect(await done, stderr).toBe(0);
    expect(stdout).toBe(`Signed in to ${base} as ${ADMIN.login}\n`);
    const stored = JSON.parse(fs.readFileSync(path.join(configDir, 'credentials.json'), 'utf8')).servers[base];
    expect(stored).toMatchObject({ issuer: base, account: { login: ADMIN.login } });
    expect(phoneErrors, 'authenticator console errors').toEqual([]);
  } finally {
    if (cli.exitCode === null) cli.kill('SIGTERM');
  }
});
