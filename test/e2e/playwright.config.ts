import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

/**
 * End-to-end tests of the admin UI against the real server. The global setup starts
 * `bin/hearth.mjs serve` on a free port with a fresh data folder and hands its URL and admin token
 * to the tests through HEARTH_E2E_URL / HEARTH_E2E_TOKEN (workers re-read this file after the setup
 * ran, so `baseURL` below sees the URL).
 *
 * Run: npm run build:ui && npx playwright test -c test/e2e/playwright.config.ts
 */
export default defineConfig({
  testDir: here,
  testMatch: '**/*.spec.ts',
  outputDir: path.join(repoRoot, 'test-results/e2e'),
  reporter: 'list',
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  globalSetup: './global-setup.ts',
  globalTeardown: './global-teardown.ts',
  use: {
    browserName: 'chromium',
    baseURL: process.env.HEARTH_E2E_URL,
    viewport: { width: 1360, height: 860 },
    locale: 'en-GB',
    timezoneId: 'UTC',
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
