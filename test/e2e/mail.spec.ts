/**
 * Outgoing mail in the admin UI: sender profiles (against a real SMTP peer), applications and their access policies,
 * the send log with the audited content view, cancelling queued mail and batches, and retention. Runs its own server
 * (fresh data folder, an admin token) and its own smtp-server peer (test/integration/mail/peer.ts); a second
 * profile points at a closed port, so its mail stays queued (temporary failures are retried after a minute).
 *
 * Bounce collection ("Check now", a profile's trusted CA) runs against Dovecot with a certificate from a private CA
 * made with openssl (test/integration/mail/dovecot.ts, test-ca.ts).
 *
 * The pages live at /mail/profiles, /mail/apps, /mail/log and /mail/retention (routes `mail` in router.svelte.ts).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type APIRequestContext, expect, type Locator, type Page, test } from '@playwright/test';
import { freePort } from '../helpers/ports.ts';
import { dsnReport, startDovecot } from '../integration/mail/dovecot.ts';
import { type Peer, startPeer } from '../integration/mail/peer.ts';
import { fingerprint, makeTestCa } from '../integration/mail/test-ca.ts';
import { shooter, TEST_RESULTS, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';

const TOKEN = `e2e-mail-${crypto.randomBytes(24).toString('hex')}`;
const auth = { Authorization: `Bearer ${TOKEN}` };
const M = '/api/admin/core/outgoing-mail';
const PEER_AUTH = { user: 'mailer', pass: 'peer secret 1' };

let server: SpecServer | null = null;
let dataDir = '';
let base = '';
let peer: Peer;
/** A port nothing listens on: the profile `dead` points at it. */
let closedPort = 0;
/** The token of the application `crm`, shown once by the register dialog. */
let appToken = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  peer = await startPeer({ auth: PEER_AUTH });
  closedPort = await freePort();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-mail-'));
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN });
  base = server.publicUrl;
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  await peer?.close();
});

// The pages must run cleanly under the server's CSP. Non-2xx fetches log "Failed to load resource": expected answers.
// The sandboxed HTML view blocking the message's script is expected too (that is the point of the sandbox).
let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page, (msg) => msg.location().url === 'about:srcdoc' || /about:srcdoc/.test(msg.text()));
});
test.afterEach(() => {
  expect(consoleErrors, 'errors in the browser console').toEqual([]);
});

const shot = shooter('mail', { dir: TEST_RESULTS });

/** Signs in with the admin token, then opens the mail page at `to`. */
async function openMail(page: Page, to: string): Promise<void> {
  await signIn(page, { token: TOKEN }, { base });
  await page.goto(base + to);
  await expect(page.getByRole('heading', { name: 'Outgoing mail', level: 1 })).toBeVisible();
}

const notifications = (page: Page) => page.getByRole('region', { name: 'Notifications' });
const tabs = (page: Page) => page.getByRole('navigation', { name: 'Outgoing mail sections' });
const rowOf = (table: Locator, name: string | RegExp) =>
  table.getByRole('row').filter({ has: table.page().getByRole('rowheader', typeof name === 'string' ? { name, exact: false } : { name }) });

async function menuAction(page: Page, row: Locator, menuName: string, item: string): Promise<void> {
  await row.getByRole('button', { name: menuName }).click();
  await page.getByRole('menu', { name: menuName }).getByRole('menuitem', { name: item }).click();
}

async function api<T>(request: APIRequestContext, method: 'GET' | 'POST' | 'PUT', p: string, data?: unknown): Promise<T> {
  const res = await request.fetch(base + p, { method, headers: auth, data });
  expect(res.ok(), `${method} ${p}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

type Profile = { key: string; hasPassword: boolean; isDefault: boolean; smtpHost: string; revision: number; imap: { hasPassword: boolean } | null };
type Message = { id: string; status: string; attempts: number; batchId: string | null };

async function ensureProfiles(request: APIRequestContext): Promise<void> {
  const list = (await api<{ data: Profile[] }>(request, 'GET', `${M}/profiles`)).data;
  const common = { name: 'x', fromAddress: 'noreply@example.org', smtpSecure: false, smtpUser: PEER_AUTH.user };
  if (!list.some((p) => p.key === 'relay'))
    await api(request, 'PUT', `${M}/profiles/relay`, {
      ...common,
      name: 'Relay',
      fromName: 'Example Office',
      smtpHost: '127.0.0.1',
      smtpPort: peer.port,
      smtpPassword: PEER_AUTH.pass,
    });
  if (!list.some((p) => p.key === 'dead'))
    await api(request, 'PUT', `${M}/profiles/dead`, { ...common, name: 'Unreachable', smtpHost: '127.0.0.1', smtpPort: closedPort, pacePerMinute: 1 });
}

async function ensureApp(request: APIRequestContext): Promise<void> {
  if (appToken) return;
  await ensureProfiles(request);
  const res = await request.post(`${base}${M}/apps`, { headers: auth, data: { appId: 'crm', name: 'CRM', platformPermissions: ['mail:send'] } });
  expect(res.status()).toBe(201);
  appToken = (await res.json()).token;
  await api(request, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['relay', 'dead'] });
}

/** Waits until the record reaches `status` (and, for queued mail, a first failed attempt). */
async function waitForStatus(request: APIRequestContext, id: string, status: string): Promise<Message> {
  let last: Message | null = null;
  await expect
    .poll(
      async () => {
        last = await api<Message>(request, 'GET', `${M}/messages/${id}`);
        return last.status === status && (status !== 'queued' || last.attempts >= 1);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return last!;
}

test('sender profiles: create against a real SMTP peer, send a test, password rules, bounce settings, default and delete', async ({ page, request }) => {
  await openMail(page, '/mail/profiles');
  await expect(page).toHaveTitle('Sender profiles · Outgoing mail · Hearth');
  await expect(tabs(page).getByRole('link', { name: 'Sender profiles' })).toHaveAttribute('aria-current', 'page');
  const table = page.getByRole('table', { name: 'Sender profiles' });
  await expect(table).toContainText('No sender profile yet');

  // Create the profile against the peer (authenticated; the peer offers no STARTTLS).
  await page.getByRole('button', { name: 'New profile' }).click();
  const dialog = page.getByRole('dialog', { name: 'New sender profile' });
  await dialog.getByLabel('Key').fill('Relay');
  await dialog.getByRole('button', { name: 'Create profile' }).click();
  await expect(dialog.getByLabel('Key')).toHaveAccessibleErrorMessage(/Lowercase letters/);
  await dialog.getByLabel('Key').fill('relay');
  await dialog.getByLabel('Name', { exact: true }).fill('Relay');
  await dialog.getByLabel('From address').fill('noreply@example.org');
  await dialog.getByLabel('From name').fill('Example Office');
  await dialog.getByLabel('SMTP host').fill('127.0.0.1');
  await dialog.getByLabel('SMTP port').fill(String(peer.port));
  await dialog.getByLabel('Connection security').selectOption({ label: 'STARTTLS when the server offers it' });
  await dialog.getByLabel('SMTP user').fill(PEER_AUTH.user);
  await dialog.getByLabel('SMTP password').fill(PEER_AUTH.pass);
  await dialog.getByLabel('Daily recipient limit').fill('500');
  await shot(page, 'profile-create');
  await dialog.getByRole('button', { name: 'Create profile' }).click();
  await expect(dialog).toBeHidden();
  await expect(notifications(page)).toContainText('Profile relay created');
  const relay = rowOf(table, /^relay/);
  await expect(relay).toContainText('Default');
  await expect(relay).toContainText(`127.0.0.1:${peer.port}`);
  await expect(relay).toContainText('password stored');
  await expect(relay).toContainText('500 recipients/day');

  // Test send: the peer receives it, authenticated with the stored password.
  await relay.getByRole('button', { name: 'Send test through relay' }).click();
  const testDialog = page.getByRole('dialog', { name: 'Send a test through relay' });
  await testDialog.getByLabel('Recipient').fill('admin@example.org');
  await testDialog.getByRole('button', { name: 'Send test' }).click();
  await expect(testDialog.getByRole('note')).toContainText('The SMTP server accepted the test message');
  const [received] = await peer.waitFor(1);
  expect(received!.to).toEqual(['admin@example.org']);
  expect(received!.from).toBe('noreply@example.org');
  expect(received!.user).toBe(PEER_AUTH.user);
  expect(received!.parsed.from?.text).toContain('Example Office');
  await shot(page, 'profile-test-ok');
  await testDialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(testDialog).toBeHidden();
  await expect(relay).toContainText('Test passed');

  // A second profile on a closed port, with bounce collection settings.
  await page.getByRole('button', { name: 'New profile' }).click();
  await dialog.getByLabel('Key').fill('dead');
  await dialog.getByLabel('Name', { exact: true }).fill('Unreachable');
  await dialog.getByLabel('From address').fill('bulk@example.org');
  await dialog.getByLabel('SMTP host').fill('127.0.0.1');
  await dialog.getByLabel('SMTP port').fill(String(closedPort));
  await dialog.getByLabel('Bulk pace (per minute)').fill('1');
  await dialog.getByLabel('Collect bounces from a mailbox').check();
  await dialog.getByLabel('IMAP host').fill('127.0.0.1');
  await dialog.getByLabel('IMAP port').fill(String(closedPort));
  await dialog.getByLabel('IMAP security').selectOption({ label: 'STARTTLS (required)' });
  await dialog.getByLabel('IMAP user').fill('bounces');
  await dialog.getByLabel('IMAP password', { exact: true }).fill('imap secret');
  await dialog.getByRole('button', { name: 'Create profile' }).click();
  await expect(dialog).toBeHidden();
  const dead = rowOf(table, /^dead/);
  await expect(dead).not.toContainText('Default');
  await expect(dead).toContainText(/Waiting for first check|Error: open_failed|OK/);
  let stored = await api<Profile>(request, 'GET', `${M}/profiles/dead`);
  expect(stored.imap).toMatchObject({ hasPassword: true });

  // Its test send fails: the explanation in words, the raw answer behind Details; the list keeps the failed test.
  await expect(dead).toContainText('Not tested yet');
  await dead.getByRole('button', { name: 'Send test through dead' }).click();
  const deadTest = page.getByRole('dialog', { name: 'Send a test through dead' });
  await deadTest.getByLabel('Recipient').fill('admin@example.org');
  await deadTest.getByRole('button', { name: 'Send test' }).click();
  const why = deadTest.getByRole('alert');
  await expect(why).toContainText(`Nothing is listening on 127.0.0.1:${closedPort}: check the host name and port, and that the mail server is running.`);
  const raw = why.getByText(/ECONNREFUSED/);
  await expect(raw).toBeHidden();
  await why.getByText('Details', { exact: true }).click();
  await expect(raw).toBeVisible();
  await shot(page, 'profile-test-failed');
  const wide = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, 'profile-test-failed-390');
  await deadTest.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(dead).toContainText('Test failed');
  await expect(dead).toContainText(`Nothing is listening on 127.0.0.1:${closedPort}`);
  await shot(page, 'profiles-390');
  await page.setViewportSize(wide);

  // Password rules: a host change needs the password again (the server's error shows on the field); empty keeps it.
  await relay.getByRole('button', { name: 'Edit relay' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit profile relay' });
  await expect(edit.getByLabel('SMTP host')).toHaveValue('127.0.0.1');
  await expect(edit.getByLabel('SMTP password')).toHaveValue('');
  await edit.getByLabel('SMTP host').fill('localhost');
  await expect(edit).toContainText('The host changed: enter the password again or clear it.');
  await edit.getByRole('button', { name: 'Save profile' }).click();
  await expect(edit.getByLabel('SMTP password')).toHaveAccessibleErrorMessage('smtpPassword must be given again or cleared (null) when the SMTP host changes.');
  await shot(page, 'profile-password-required');
  await edit.getByLabel('SMTP host').fill('127.0.0.1');
  await edit.getByLabel('Name', { exact: true }).fill('Office relay');
  await edit.getByRole('button', { name: 'Save profile' }).click();
  await expect(edit).toBeHidden();
  await expect(notifications(page)).toContainText('Profile relay saved');
  stored = await api<Profile>(request, 'GET', `${M}/profiles/relay`);
  expect(stored).toMatchObject({ hasPassword: true, smtpHost: '127.0.0.1', revision: 2 });
  await expect(relay).toContainText('Office relay');

  // Clear the IMAP password of `dead` with the checkbox (null), keep its SMTP settings.
  await dead.getByRole('button', { name: 'Edit dead' }).click();
  const editDead = page.getByRole('dialog', { name: 'Edit profile dead' });
  await editDead.getByLabel('Clear the stored IMAP password').check();
  await expect(editDead.getByLabel('IMAP password', { exact: true })).toBeDisabled();
  await shot(page, 'profile-edit');
  await editDead.getByRole('button', { name: 'Save profile' }).click();
  await expect(editDead).toBeHidden();
  stored = await api<Profile>(request, 'GET', `${M}/profiles/dead`);
  expect(stored.imap).toMatchObject({ hasPassword: false });

  // The default profile cannot be deleted while another exists.
  await menuAction(page, relay, 'More actions for relay', 'Delete…');
  const confirm = page.getByRole('dialog', { name: 'Delete the profile relay?' });
  await expect(confirm.getByRole('button', { name: 'Delete profile' })).toBeDisabled();
  await confirm.getByLabel('Type relay to confirm').fill('relay');
  await confirm.getByRole('button', { name: 'Delete profile' }).click();
  await expect(confirm.getByRole('alert')).toContainText('relay is the default profile: make another profile the default first.');
  await shot(page, 'profile-delete-default');
  await confirm.getByRole('button', { name: 'Cancel' }).click();

  // Move the default and back.
  await menuAction(page, dead, 'More actions for dead', 'Make default');
  await expect(dead).toContainText('Default');
  await expect(relay).not.toContainText('Default');
  await menuAction(page, relay, 'More actions for relay', 'Make default');
  await expect(relay).toContainText('Default');
  await expect(dead).not.toContainText('Default');

  // A throwaway profile can be deleted.
  await api(request, 'PUT', `${M}/profiles/spare`, {
    name: 'Spare',
    fromAddress: 'spare@example.org',
    smtpHost: 'smtp.example.org',
    smtpPort: 587,
    smtpSecure: false,
  });
  await page.getByRole('button', { name: 'Refresh' }).click();
  const spare = rowOf(table, /^spare/);
  await menuAction(page, spare, 'More actions for spare', 'Delete…');
  const confirmSpare = page.getByRole('dialog', { name: 'Delete the profile spare?' });
  await confirmSpare.getByLabel('Type spare to confirm').fill('spare');
  await confirmSpare.getByRole('button', { name: 'Delete profile' }).click();
  await expect(confirmSpare).toBeHidden();
  await expect(notifications(page)).toContainText('Profile spare deleted');
  await expect(spare).toHaveCount(0);
  await shot(page, 'profiles');
});

test('applications: register (token shown once), explicit policy', async ({ page, request }) => {
  await ensureProfiles(request);
  await openMail(page, '/mail/apps');
  await expect(tabs(page).getByRole('link', { name: 'Applications' })).toHaveAttribute('aria-current', 'page');
  const table = page.getByRole('table', { name: 'Applications' });
  const core = rowOf(table, /^core/);
  await expect(core).toContainText('Hearth');
  await expect(core).toContainText('Default profile (fixed)');
  await expect(core.getByRole('button', { name: /Edit the mail access/ })).toHaveCount(0);

  await page.getByRole('button', { name: 'Register application' }).click();
  const dialog = page.getByRole('dialog', { name: 'Register an application' });
  await dialog.getByLabel('Application ID').fill('core');
  await dialog.getByLabel('Name').fill('Hearth again');
  await dialog.getByRole('button', { name: 'Register application' }).click();
  await expect(dialog.getByLabel('Application ID')).toHaveAccessibleErrorMessage(/cannot be registered/);
  await dialog.getByLabel('Application ID').fill('crm');
  await dialog.getByLabel('Name').fill('CRM');
  await expect(dialog.getByLabel('May send mail')).toBeChecked();
  await dialog.getByLabel('Other platform permissions').fill('contacts:read');
  await dialog.getByRole('button', { name: 'Register application' }).click();
  const tokenDialog = page.getByRole('dialog', { name: 'Application CRM registered' });
  await expect(tokenDialog).toContainText('It is shown only this once.');
  appToken = await tokenDialog.getByTestId('app-token').inputValue();
  expect(appToken).toMatch(/^hth_/);
  await shot(page, 'app-token');
  await tokenDialog.getByRole('button', { name: 'I have copied the token' }).click();
  await expect(tokenDialog).toBeHidden();

  const crm = rowOf(table, /^crm/);
  await expect(crm).toContainText('Registered');
  await expect(crm).toContainText('mail:send');
  await expect(crm).toContainText('contacts:read');
  await expect(crm).toContainText('Default profile');
  await expect(crm).toContainText('relay');

  // The token works only on the application mail API: it sees the profiles its policy allows.
  const seen = await (await request.get(`${base}/api/mail/profiles`, { headers: { Authorization: `Bearer ${appToken}` } })).json();
  expect(seen.data.map((p: { key: string }) => p.key)).toEqual(['relay']);

  // Registering twice is refused on the field.
  await page.getByRole('button', { name: 'Register application' }).click();
  await dialog.getByLabel('Application ID').fill('crm');
  await dialog.getByLabel('Name').fill('CRM');
  await dialog.getByRole('button', { name: 'Register application' }).click();
  await expect(dialog.getByLabel('Application ID')).toHaveAccessibleErrorMessage(/.+/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  // An explicit set of profiles.
  await crm.getByRole('button', { name: 'Edit the mail access of crm' }).click();
  const policy = page.getByRole('dialog', { name: 'Mail access of CRM' });
  await expect(policy.getByLabel('Follow the default profile')).toBeChecked();
  await policy.getByLabel('Only these profiles').check();
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await expect(policy.getByRole('alert')).toContainText('Choose at least one profile');
  await policy.getByRole('group', { name: 'Allowed profiles' }).getByLabel(/relay/).check();
  await policy.getByRole('group', { name: 'Allowed profiles' }).getByLabel(/dead/).check();
  await shot(page, 'app-policy');
  await policy.getByRole('button', { name: 'Save policy' }).click();
  await expect(policy).toBeHidden();
  await expect(notifications(page)).toContainText('Mail access of crm saved');
  await expect(crm).toContainText('Explicit set');
  await expect(crm).toContainText('dead');
  const stored = await api<{ policy: { mode: string; profiles: string[] } }>(request, 'GET', `${M}/apps/crm`);
  expect({ ...stored.policy, profiles: [...stored.policy.profiles].sort() }).toEqual({ mode: 'profiles', profiles: ['dead', 'relay'] });

  // A policy for an application that is not registered yet.
  await page.getByRole('button', { name: 'Policy for an unregistered app…' }).click();
  const offline = page.getByRole('dialog', { name: 'Policy for an unregistered application' });
  await offline.getByLabel('Application ID').fill('Billing!');
  await offline.getByRole('button', { name: 'Continue' }).click();
  await expect(offline.getByLabel('Application ID')).toHaveAccessibleErrorMessage(/lowercase/);
  await offline.getByLabel('Application ID').fill('billing');
  await offline.getByRole('button', { name: 'Continue' }).click();
  const offlinePolicy = page.getByRole('dialog', { name: 'Mail access of billing' });
  await expect(offlinePolicy).toContainText('applies once the application is registered');
  await offlinePolicy.getByLabel('No profile').check();
  await offlinePolicy.getByRole('button', { name: 'Save policy' }).click();
  await expect(offlinePolicy).toBeHidden();
  const billing = rowOf(table, /^billing/);
  await expect(billing).toContainText('Not registered');
  await expect(billing).toContainText('No profile');
  await expect(billing).toContainText('sending blocked');
  expect((await api<{ policy: unknown }>(request, 'GET', `${M}/apps/billing`)).policy).toEqual({ mode: 'none', profiles: [] });

  // Edit the application itself.
  await menuAction(page, crm, 'More actions for crm', 'Edit application…');
  const editApp = page.getByRole('dialog', { name: 'Edit application crm' });
  await editApp.getByLabel('Name').fill('CRM (sales)');
  await editApp.getByRole('button', { name: 'Save application' }).click();
  await expect(editApp).toBeHidden();
  await expect(crm).toContainText('CRM (sales)');
  await shot(page, 'apps');
});

test('send log: a message sent through the application API, its audited content, filters, cancelling queued mail and a batch', async ({ page, request }) => {
  await ensureApp(request);
  const appAuth = { Authorization: `Bearer ${appToken}` };
  const attachment = Buffer.from('Invoice 42\nTotal: 12.00 EUR\n');
  const sha = crypto.createHash('sha256').update(attachment).digest('hex');
  const before = peer.received.length;
  const sent = await request.post(`${base}/api/mail/send`, {
    headers: appAuth,
    data: {
      to: ['alice@example.org'],
      cc: ['accounts@example.org'],
      subject: 'Invoice 42',
      text: 'Hello Alice,\nyour invoice is attached.',
      html: '<p>Hello <b>Alice</b>, your invoice is attached.</p><script>document.body.insertAdjacentHTML("beforeend", "<p>pwned</p>")</script>',
      headers: { 'X-Invoice': '42' },
      attachments: [{ filename: 'invoice-42.txt', contentType: 'text/plain', content: attachment.toString('base64') }],
      profile: 'relay',
      ref: 'invoice:42',
    },
  });
  expect(sent.status(), await sent.text()).toBe(202);
  const sentId = (await sent.json()).id as string;
  await peer.waitFor(before + 1);
  expect(peer.received.at(-1)!.parsed.subject).toBe('Invoice 42');
  await waitForStatus(request, sentId, 'sent');

  // Two messages on the closed port: they stay queued after a failed attempt.
  const stuck: string[] = [];
  for (const subject of ['Stuck reminder', 'Stuck follow-up']) {
    const r = await request.post(`${base}/api/mail/send`, {
      headers: appAuth,
      data: { to: ['bob@example.org'], subject, text: 'Hi Bob', profile: 'dead', ref: 'reminder' },
    });
    expect(r.status(), await r.text()).toBe(202);
    stuck.push((await r.json()).id);
  }
  // A batch on the bulk lane of the same profile (pace 1/min: the second waits for its slot).
  const batch = await request.post(`${base}/api/mail/enqueue`, {
    headers: appAuth,
    data: {
      profile: 'dead',
      ref: 'newsletter:2026-11',
      messages: [1, 2, 3].map((n) => ({ to: [`reader${n}@example.org`], subject: `Newsletter ${n}/3`, text: 'News' })),
    },
  });
  expect(batch.status(), await batch.text()).toBe(202);
  const batchId = (await batch.json()).batchId as string;
  for (const id of stuck) await waitForStatus(request, id, 'queued');

  await openMail(page, '/mail/log');
  await expect(page).toHaveTitle('Send log · Outgoing mail · Hearth');
  const table = page.getByRole('table', { name: 'Send log' });
  const invoice = rowOf(table, 'Invoice 42');
  await expect(invoice).toContainText('Sent');
  await expect(invoice).toContainText('alice@example.org +1');
  await expect(invoice).toContainText('crm');
  await expect(invoice).toContainText('invoice:42');
  // Newest first.
  await expect(table.getByRole('rowheader').first()).toContainText('Newsletter');
  await shot(page, 'log');

  // Filters.
  const filters = page.getByRole('form', { name: 'Send log filters' });
  await filters.getByLabel('Recipient').fill('ALICE');
  await filters.getByLabel('Recipient').press('Enter');
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(invoice).toBeVisible();
  await filters.getByLabel('Recipient').fill('');
  await filters.getByLabel('Status').selectOption('queued');
  await expect(rowOf(table, 'Stuck reminder')).toBeVisible();
  await expect(invoice).toHaveCount(0);
  await filters.getByLabel('Status').selectOption('');
  await filters.getByLabel('Reference').fill('newsletter');
  await filters.getByLabel('Reference').press('Enter');
  await expect(table.getByRole('row')).toHaveCount(4);
  await filters.getByLabel('Reference').fill('not a ref!');
  await filters.getByLabel('Reference').press('Enter');
  await expect(page.getByRole('alert')).toContainText('ref must be');
  await page.getByRole('button', { name: 'Clear filters' }).click();
  await expect(invoice).toBeVisible();
  await filters.getByLabel('Profile').selectOption('relay');
  await expect(table.getByRole('row')).toHaveCount(2);
  await filters.getByLabel('Application').selectOption('crm');
  await expect(table.getByRole('row')).toHaveCount(2);
  await page.getByRole('button', { name: 'Clear filters' }).click();

  // Details: metadata, attachments with size and SHA-256, then the audited content read.
  const auditCount = async () => (await api<{ data: unknown[] }>(request, 'GET', '/api/admin/audit?action=outgoing_mail.message.read')).data.length;
  const readsBefore = await auditCount();
  await invoice.getByRole('button', { name: 'Details of Invoice 42' }).click();
  const detail = page.getByRole('dialog', { name: 'Invoice 42' });
  await expect(detail).toContainText('alice@example.org');
  await expect(detail).toContainText('accounts@example.org');
  await expect(detail).toContainText('Example Office');
  await expect(detail).toContainText('Message queued as test-');
  const attachments = detail.getByRole('region', { name: 'Attachments (1)' });
  await expect(attachments).toContainText('invoice-42.txt');
  await expect(attachments).toContainText(`${attachment.length} bytes`);
  await expect(attachments).toContainText(sha);
  await expect(detail.getByText('Hello Alice')).toHaveCount(0);
  expect(await auditCount()).toBe(readsBefore);
  await detail.getByRole('button', { name: 'Show content' }).click();
  await expect(detail.getByLabel('Text body')).toContainText('your invoice is attached.');
  await expect(detail).toContainText('X-Invoice');
  const frame = detail.locator('iframe');
  await expect(frame).toHaveAttribute('sandbox', '');
  const inner = detail.frameLocator('iframe');
  await expect(inner.getByText('Alice')).toBeVisible();
  await expect(inner.getByText('pwned')).toHaveCount(0);
  expect(await auditCount()).toBe(readsBefore + 1);
  await frame.scrollIntoViewIfNeeded();
  await shot(page, 'message');
  await detail.getByRole('button', { name: 'Source' }).click();
  await expect(detail.getByLabel('HTML source')).toContainText('<b>Alice</b>');
  await expect(detail.getByRole('button', { name: 'Cancel message…' })).toHaveCount(0);
  await detail.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(detail).toBeHidden();

  // Cancel a queued message.
  await rowOf(table, 'Stuck reminder').getByRole('button', { name: 'Details of Stuck reminder' }).click();
  const stuckDetail = page.getByRole('dialog', { name: 'Stuck reminder' });
  await expect(stuckDetail).toContainText('Queued');
  await expect(stuckDetail).toContainText(/ECONNREFUSED|connect/i);
  await stuckDetail.getByRole('button', { name: 'Cancel message…' }).click();
  const confirm = page.getByRole('dialog', { name: 'Cancel this message?' });
  await confirm.getByRole('button', { name: 'Cancel message' }).click();
  await expect(confirm).toBeHidden();
  await expect(notifications(page)).toContainText('Message cancelled');
  await expect(stuckDetail).toContainText('Cancelled by an administrator');
  await shot(page, 'message-cancelled');
  await stuckDetail.getByRole('button', { name: 'Close', exact: true }).last().click();
  await expect(rowOf(table, 'Stuck reminder')).toContainText('Cancelled');
  expect((await api<Message>(request, 'GET', `${M}/messages/${stuck[0]}`)).status).toBe('cancelled');

  // A message that stops being queued while its dialog is open: the server's message_not_queued shows.
  await rowOf(table, 'Stuck follow-up').getByRole('button', { name: 'Details of Stuck follow-up' }).click();
  const other = page.getByRole('dialog', { name: 'Stuck follow-up' });
  await expect(other.getByRole('button', { name: 'Cancel message…' })).toBeVisible();
  await api(request, 'POST', `${M}/messages/${stuck[1]}/cancel`);
  await other.getByRole('button', { name: 'Cancel message…' }).click();
  await confirm.getByRole('button', { name: 'Cancel message' }).click();
  await expect(confirm.getByRole('alert')).toContainText('It is no longer queued');
  await confirm.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(other).toContainText('Cancelled');
  await other.getByRole('button', { name: 'Close', exact: true }).last().click();

  // Cancel the batch from one of its messages.
  await page.getByRole('button', { name: 'Refresh' }).click();
  await rowOf(table, 'Newsletter 3/3').getByRole('button', { name: 'Details of Newsletter 3/3' }).click();
  const news = page.getByRole('dialog', { name: 'Newsletter 3/3' });
  await expect(news).toContainText(batchId);
  await news.getByRole('button', { name: 'Cancel batch…' }).click();
  const batchDialog = page.getByRole('dialog', { name: 'Cancel a batch' });
  await expect(batchDialog.getByLabel('Batch ID')).toHaveValue(batchId);
  await shot(page, 'batch-cancel');
  await batchDialog.getByRole('button', { name: 'Cancel queued messages' }).click();
  await expect(batchDialog).toBeHidden();
  await expect(notifications(page)).toContainText(/[1-3] queued messages? cancelled/);
  await expect(news).toContainText('Cancelled by an administrator');
  await news.getByRole('button', { name: 'Close', exact: true }).last().click();
  const batchRows = (await api<{ data: Message[] }>(request, 'GET', `${M}/messages?ref=newsletter`)).data;
  expect(batchRows.filter((m) => m.status === 'queued')).toEqual([]);

  // Cancelling it again from the toolbar: nothing left.
  await page.getByRole('button', { name: 'Cancel a batch…' }).click();
  await batchDialog.getByLabel('Batch ID').fill('not-a-uuid');
  await batchDialog.getByRole('button', { name: 'Cancel queued messages' }).click();
  await expect(batchDialog.getByLabel('Batch ID')).toHaveAccessibleErrorMessage(/batch id/);
  await batchDialog.getByLabel('Batch ID').fill(crypto.randomUUID());
  await batchDialog.getByRole('button', { name: 'Cancel queued messages' }).click();
  await expect(batchDialog.getByLabel('Batch ID')).toHaveAccessibleErrorMessage(/.+/);
  await batchDialog.getByLabel('Batch ID').fill(batchId);
  await batchDialog.getByRole('button', { name: 'Cancel queued messages' }).click();
  await expect(notifications(page)).toContainText('No queued message was left in the batch');
  await shot(page, 'log-after-cancel');

  // Cursor paging: 50 per page, newest first.
  const digest = await request.post(`${base}/api/mail/enqueue`, {
    headers: appAuth,
    data: {
      profile: 'dead',
      ref: 'digest',
      messages: Array.from({ length: 50 }, (_, i) => ({ to: [`d${i}@example.org`], subject: `Digest ${i + 1}`, text: 'Digest' })),
    },
  });
  expect(digest.status(), await digest.text()).toBe(202);
  const total = (await api<{ data: Message[] }>(request, 'GET', `${M}/messages?limit=100`)).data.length;
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(table.getByRole('row')).toHaveCount(51);
  await expect(page.getByText('1–50 · page 1 · newest first')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Newer' })).toBeDisabled();
  await page.getByRole('button', { name: 'Older' }).click();
  await expect(page.getByText(`51–${total} · page 2 · newest first`)).toBeVisible();
  await expect(invoice).toBeVisible();
  await expect(page.getByRole('button', { name: 'Older' })).toBeDisabled();
  await page.getByRole('button', { name: 'Newer' }).click();
  await expect(page.getByText('1–50 · page 1 · newest first')).toBeVisible();
  await api(request, 'POST', `${M}/batches/${(await digest.json()).batchId}/cancel`);
});

test('retention: show, validation messages from the server, save', async ({ page, request }) => {
  await openMail(page, '/mail/retention');
  const content = page.getByLabel('Content retention (days)');
  const records = page.getByLabel('Record retention (days)');
  await expect(content).toHaveValue('90');
  await expect(records).toHaveValue('365');
  await expect(page.getByRole('button', { name: 'Save retention' })).toBeDisabled();

  await content.fill('400');
  await page.getByRole('button', { name: 'Save retention' }).click();
  await expect(records).toHaveAccessibleErrorMessage('Keep records at least as long as content.');
  await shot(page, 'retention-error');
  await content.fill('0');
  await page.getByRole('button', { name: 'Save retention' }).click();
  await expect(content).toHaveAccessibleErrorMessage(/^Enter 1 to 36.?500 days\.$/);

  await content.fill('30');
  await records.fill('180');
  await page.getByRole('button', { name: 'Save retention' }).click();
  await expect(notifications(page)).toContainText('Retention saved');
  await expect(page.getByRole('button', { name: 'Save retention' })).toBeDisabled();
  expect(await api(request, 'GET', `${M}/retention`)).toEqual({ contentDays: 30, recordDays: 180 });
  await shot(page, 'retention');

  // The tab bar navigates without a reload.
  await tabs(page).getByRole('link', { name: 'Sender profiles' }).click();
  await expect(page).toHaveURL(`${base}/mail/profiles`);
  await expect(page.getByRole('table', { name: 'Sender profiles' })).toBeVisible();
  await tabs(page).getByRole('link', { name: 'Send log' }).click();
  await expect(page).toHaveURL(`${base}/mail/log`);
  await expect(page.getByRole('table', { name: 'Send log' })).toBeVisible();
});

test('bounce collection: a trusted CA from the profile dialog, and "Check now" against Dovecot with a real report', async ({ page, request }) => {
  // The office mail server (Dovecot here) has a certificate from a private CA that Hearth does not know.
  const ca = makeTestCa('E2E Office CA');
  const dove = await startDovecot({ certificate: ca.server, trust: ca.caPem });
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-ca-'));
  try {
    await ensureApp(request);
    // a message through `relay`, and the standard delivery report for it in the bounce mailbox
    const sent = await request.post(`${base}/api/mail/send`, {
      headers: { Authorization: `Bearer ${appToken}` },
      data: { profile: 'relay', to: ['gone@example.org'], subject: 'Will bounce', text: 'x' },
    });
    expect(sent.status()).toBe(202);
    const msg = (await sent.json()) as { id: string; messageId: string };
    await waitForStatus(request, msg.id, 'sent');
    await dove.append(
      'INBOX',
      dsnReport({ messageId: msg.messageId, recipients: [{ final: 'rfc822; gone@example.org', action: 'failed', diag: 'smtp; 550 5.1.1 no such user' }] }),
    );

    await openMail(page, '/mail/profiles');
    const table = page.getByRole('table', { name: 'Sender profiles' });
    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'New sender profile' });
    await dialog.getByLabel('Key').fill('office');
    await dialog.getByLabel('Name', { exact: true }).fill('Office mailbox');
    await dialog.getByLabel('From address').fill('noreply@example.org');
    await dialog.getByLabel('SMTP host').fill('127.0.0.1');
    await dialog.getByLabel('SMTP port').fill(String(peer.port));
    await dialog.getByLabel('Collect bounces from a mailbox').check();
    await dialog.getByLabel('IMAP host').fill('127.0.0.1');
    await dialog.getByLabel('IMAP port').fill(String(dove.imapsPort));
    await dialog.getByLabel('IMAP security').selectOption({ label: 'Implicit TLS' });
    await dialog.getByLabel('IMAP user').fill(dove.user);
    await dialog.getByLabel('IMAP password', { exact: true }).fill(dove.pass);
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await expect(dialog).toBeHidden();
    const office = rowOf(table, /^office/);
    await expect(office).toContainText('Waiting for first check');

    // Check now without the CA: the TLS error is shown.
    await office.getByRole('button', { name: 'Check the bounce mailbox of office now' }).click();
    await expect(notifications(page)).toContainText('The bounce check of office failed: open_failed');
    await expect(notifications(page)).toContainText("TLS: the server's certificate is not trusted");
    await expect(office).toContainText('Error: open_failed');
    await shot(page, 'bounces-check-untrusted');

    // The server's own certificate is refused as a CA, on the field; the CA loaded from a file is saved.
    await office.getByRole('button', { name: 'Edit office' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit profile office' });
    await edit.getByLabel('CA certificate (PEM)').fill(ca.server.cert);
    await edit.getByRole('button', { name: 'Save profile' }).click();
    await expect(edit.getByLabel('CA certificate (PEM)')).toHaveAccessibleErrorMessage(/certificate 1 \(CN=localhost\) is not a CA certificate/);
    const caFile = path.join(files, 'office-ca.pem');
    fs.writeFileSync(caFile, ca.caPem);
    await edit.getByLabel('CA certificate file').setInputFiles(caFile);
    await expect(edit.getByLabel('CA certificate (PEM)')).toHaveValue(ca.caPem);
    await shot(page, 'profile-trusted-ca');
    await edit.getByRole('button', { name: 'Save profile' }).click();
    await expect(edit).toBeHidden();
    const stored = await api<{ tlsCa: Array<{ fingerprint256: string }> | null }>(request, 'GET', `${M}/profiles/office`);
    expect(stored.tlsCa?.map((c) => c.fingerprint256)).toEqual([fingerprint(ca.caPem)]);

    // The dialog shows the CA by subject and fingerprint, never its PEM.
    await office.getByRole('button', { name: 'Edit office' }).click();
    const list = edit.getByRole('list', { name: 'Trusted CA certificates' });
    await expect(list).toContainText('O=Hearth Tests, CN=E2E Office CA');
    await expect(list).toContainText(`SHA-256 ${fingerprint(ca.caPem)}`);
    await expect(edit.getByLabel('Replace with this CA certificate (PEM)')).toHaveValue('');
    await edit.getByRole('button', { name: 'Cancel' }).click();

    // Check now with the CA: Hearth logs in, reads the report and records the bounce.
    await office.getByRole('button', { name: 'Check the bounce mailbox of office now' }).click();
    await expect(notifications(page)).toContainText('Bounce mailbox of office checked');
    await expect(office).toContainText('Last check: 1 message, 1 delivery report, 1 bounce recorded.');
    await expect(office).toContainText('OK');
    await shot(page, 'bounces-check-now');
    const bounced = await api<{ status: string; failures: Array<{ recipient: string; kind: string }> }>(request, 'GET', `${M}/messages/${msg.id}`);
    expect(bounced).toMatchObject({ status: 'bounced', failures: [{ recipient: 'gone@example.org', kind: 'bounced' }] });
    // profiles without bounce collection have no such button
    await expect(rowOf(table, /^relay/).getByRole('button', { name: /Check the bounce mailbox/ })).toHaveCount(0);
  } finally {
    await dove.stop();
    fs.rmSync(files, { recursive: true, force: true });
  }
});
