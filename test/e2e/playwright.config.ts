import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { sharedServerOrNull } from './shared-server.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

/**
 * End-to-end tests of the admin UI against the real server, in `workers` browsers at once. The global setup starts
 * one `bin/hearth.mjs serve` per worker on a free port with a fresh data folder and hands their URLs and admin tokens
 * to the workers (shared-server.ts: worker i uses server i; each worker re-reads this file after the setup ran, so
 * `baseURL` below is its own server's). Specs that need a server of their own start it (hearth-server.ts).
 *
 * Run: npm run build:ui && npx playwright test -c test/e2e/playwright.config.ts (HEARTH_E2E_WORKERS: how many at once).
 */
// The servers the specs start inherit this: Argon2id at its lowest cost, as in vitest (server/core/config/environment.ts).
process.env.HEARTH_TEST_PASSWORD_HASHING ??= 'light';

export default defineConfig({
  testDir: here,
  testMatch: '**/*.spec.ts',
  outputDir: path.join(repoRoot, 'test-results/e2e'),
  reporter: 'list',
  workers: Number(process.env.HEARTH_E2E_WORKERS ?? 2),
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Hang guards, not speed bounds: a busy 2-core machine (CI, stress-ng beside it) slows a page several times over.
  timeout: 240_000,
  expect: { timeout: 30_000 },
  globalSetup: './global-setup.ts',
  globalTeardown: './global-teardown.ts',
  use: {
    browserName: 'chromium',
    baseURL: sharedServerOrNull()?.url,
    viewport: { width: 1360, height: 860 },
    locale: 'en-GB',
    timezoneId: 'UTC',
    // The browser asks for less motion, as a user may: the UI then runs no endless animation (placeholders, the live
    // indicator, spinners), which would keep a software-rendering browser drawing frames for as long as a page is open.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: process.env.HEARTH_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
