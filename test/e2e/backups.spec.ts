/**
 * The Backups page (issue 17) against a server of its own, started with a schedule (HEARTH_BACKUP_SCHEDULE) and a
 * fresh data folder: the empty state and the schedule panel; "Back up now" with a passphrase, its progress, then the
 * new row; the download (the file's size is the listed size) through the session cookie's plain link and through a
 * token session's fetch; the deletion. Screenshots at 1366 and 390 px go to test-results/e2e/screenshots.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { shooter, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';
import { adminApi, seedAdmin, seedTable } from './ui-seed.ts';

const TOKEN = `e2e-backups-${crypto.randomBytes(24).toString('hex')}`;
const ADMIN = { login: 'bea', password: 'backup password 1', displayName: 'Bea Admin' };
const PASSPHRASE = 'correct horse battery';

let server: SpecServer | null = null;
let dataDir = '';
let base = '';

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-backups-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HEARTH_ADMIN_TOKEN: TOKEN, HEARTH_BACKUP_SCHEDULE: '0 3 * * *', HEARTH_BACKUP_KEEP: '5' };
  delete env.HEARTH_BACKUP_PASSPHRASE;
  delete env.HEARTH_BACKUP_DIR;
  server = await startSpecServer(['--port', '0', '--data', dataDir, '--log-level', 'warn'], env);
  base = server.publicUrl;
  const call = adminApi(base, TOKEN);
  await seedAdmin(call, ADMIN);
  // A few namespaces with rows, so the backup has parts to count.
  for (const ns of ['sales', 'stock', 'staff']) {
    const rows = Array.from({ length: 200 }, (_, i) => ({ name: `${ns} ${i}`, notes: 'x'.repeat(200) }));
    await seedTable(
      call,
      ns,
      'items',
      [
        { name: 'name', type: 'text' },
        { name: 'notes', type: 'text' },
      ],
      rows,
    );
  }
});

test.afterAll(async () => {
  await server?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

let consoleErrors: string[] = [];
test.beforeEach(({ page }) => {
  consoleErrors = watchConsole(page);
});
test.afterEach(() => {
  expect(consoleErrors).toEqual([]);
});

/** The backups the API lists (name, size, status…). */
async function listed(): Promise<Array<{ name: string; size: number; status: string; secrets: string | null; trigger: string }>> {
  const res = await fetch(`${base}/api/admin/backups`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ name: string; size: number; status: string; secrets: string | null; trigger: string }> }).data;
}

const shot = shooter('');

test('before the first backup: the empty state says how to make one, and the schedule panel reads in words', async ({ page }) => {
  await signIn(page, ADMIN, { base, at: '/backups', lands: 'Backups' });
  await expect(page).toHaveTitle('Backups · Hearth');
  await expect(page.getByRole('navigation', { name: 'Main', exact: true }).getByRole('link', { name: 'Backups' })).toHaveAttribute('aria-current', 'page');

  const empty = page.getByRole('region', { name: 'No backups yet' });
  await expect(empty).toContainText('Back up now…');
  await expect(empty).toContainText('hearth backup create');
  await expect(empty).toContainText('Scheduled backups appear here too.');
  await expect(page.getByRole('table', { name: 'Backups' })).toHaveCount(0);

  const schedule = page.getByRole('region', { name: 'Schedule' });
  await expect(schedule.getByTestId('schedule-words')).toHaveText('Every day at 03:00');
  // The raw cron is behind Details.
  const cron = schedule.getByTestId('schedule-cron');
  await expect(cron).toBeHidden();
  await schedule.getByText('Cron expression').click();
  await expect(cron).toHaveText('0 3 * * *');
  await expect(schedule).toContainText('Next run');
  await expect(schedule).toContainText('03:00');
  await expect(schedule).toContainText('None yet');
  await expect(schedule).toContainText('The newest 5 scheduled backups');
  await expect(schedule.getByTestId('schedule-secrets')).toHaveText('Left out (no passphrase configured)');
  await expect(schedule).toContainText(path.join(dataDir, 'backups'));
  await schedule.getByText('How to change it').click();
  await expect(schedule).toContainText('HEARTH_BACKUP_SCHEDULE');
  await expect(schedule).toContainText('HEARTH_BACKUP_PASSPHRASE');
  await shot(page, 'backups-empty-1366');
});

test('back up now with a passphrase: progress, then the row; download it (same size as listed); delete it', async ({ page }) => {
  await signIn(page, ADMIN, { base, at: '/backups', lands: 'Backups' });
  await page.getByRole('button', { name: 'Back up now…' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Back up now' });
  await expect(dialog).toBeVisible();
  // Without a passphrase the dialog says what is left out.
  await expect(dialog.getByTestId('no-passphrase-note')).toContainText('the secrets are left out');

  // A short passphrase and a mismatch are caught before anything starts.
  await dialog.getByLabel('Passphrase (optional)').fill('short');
  await dialog.getByLabel('Repeat the passphrase').fill('short');
  await dialog.getByRole('button', { name: 'Back up now' }).click();
  await expect(dialog.getByText('At least 8 characters, or none.')).toBeVisible();
  await dialog.getByLabel('Passphrase (optional)').fill(PASSPHRASE);
  await dialog.getByLabel('Repeat the passphrase').fill(`${PASSPHRASE}!`);
  await dialog.getByRole('button', { name: 'Back up now' }).click();
  await expect(dialog.getByText('The two passphrases differ.')).toBeVisible();
  expect(await listed()).toEqual([]);

  await dialog.getByLabel('Repeat the passphrase').fill(PASSPHRASE);
  await expect(dialog.getByText('The two passphrases differ.')).toHaveCount(0);
  await shot(page, 'backups-dialog-1366');
  await dialog.getByRole('button', { name: 'Back up now' }).click();
  // The running job's progress, then the result.
  const progress = page.getByRole('progressbar');
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute('aria-valuetext', /written$/);
  const done = page.getByRole('dialog', { name: 'Backup complete' });
  await expect(done).toBeVisible({ timeout: 30_000 });
  const saved = (await done.getByText(/^Saved as /).textContent())!;
  const name = /Saved as (\S+)/.exec(saved)![1]!;
  expect(name).toMatch(/^hearth-\d{8}-\d{6}-manual\.hearth-backup$/);
  await expect(done).toContainText('secrets sealed with your passphrase');
  await done.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);

  // The new row.
  const [entry] = await listed();
  expect(entry).toMatchObject({ name, status: 'complete', secrets: 'encrypted', trigger: 'manual' });
  const row = page.getByRole('row', { name: new RegExp(name.replace(/\./g, '\\.')) });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(0)).toHaveText(/just now|minute/);
  await expect(row).toContainText('Complete');
  await expect(row).toContainText('Manual');
  await expect(row).toContainText('Encrypted');
  await expect(row.getByTestId('backup-size')).toHaveAttribute('data-bytes', String(entry!.size));
  const note = page.getByRole('region', { name: 'Notifications' });
  await expect(note).toContainText('Backup complete');
  await note.getByRole('button', { name: 'Dismiss notification' }).click();
  await expect(note.getByText('Backup complete')).toHaveCount(0);
  await shot(page, 'backups-1366');
  await page.setViewportSize({ width: 390, height: 860 });
  await expect(row).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, 'backups-390');
  await page.setViewportSize({ width: 1366, height: 860 });

  // Download: a plain link under the session cookie; the file is the listed size.
  const downloading = page.waitForEvent('download');
  await row.getByRole('link', { name: `Download ${name}` }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(name);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-dl-')), name);
  await download.saveAs(file);
  expect(fs.statSync(file).size).toBe(entry!.size);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });

  // Delete, confirmed.
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this backup?' });
  await expect(confirm).toContainText(name);
  await confirm.getByRole('button', { name: 'Delete backup' }).click();
  await expect(page.getByRole('region', { name: 'No backups yet' })).toBeVisible();
  expect(await listed()).toEqual([]);
});

test('a token session downloads through its header (no cookie), with the listed size', async ({ page }) => {
  // Made through the API: the UI flow is the test above.
  const started = await fetch(`${base}/api/admin/backups`, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}` } });
  expect(started.status).toBe(202);
  await expect.poll(async () => (await listed())[0]?.status, { timeout: 30_000 }).toBe('complete');
  const [entry] = await listed();

  await signIn(page, { token: TOKEN }, { base, at: '/backups', lands: 'Backups' });
  const row = page.getByRole('row', { name: new RegExp(entry!.name.replace(/\./g, '\\.')) });
  await expect(row).toContainText('Left out');
  const downloading = page.waitForEvent('download');
  await row.getByRole('button', { name: `Download ${entry!.name}` }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(entry!.name);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-e2e-dl-')), entry!.name);
  await download.saveAs(file);
  expect(fs.statSync(file).size).toBe(entry!.size);
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  await expect(page.getByText(`Downloaded ${entry!.name}`)).toBeVisible();
});
