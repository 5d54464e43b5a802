import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two projects, run together by `npx vitest run` (`npm test` runs them through test/run.ts):
 *  - `sqlite`: every test file, each server's core store in platform.db (as in production);
 *  - `postgres`: the integration files again with the core store in PostgreSQL (HEARTH_TEST_STORE=postgres), every
 *    server in a fresh database of one cluster started for the run (test/helpers/postgres-global.ts).
 * `--project sqlite` or `--project postgres` runs one (npm run test:unit, npm run test:postgres).
 *
 * Most files wait on servers, SMTP and IMAP peers, PostgreSQL and child processes rather than compute: three files per
 * core at once keep the machine busy (HEARTH_TEST_FILES overrides).
 */
const files = Number(process.env.HEARTH_TEST_FILES ?? Math.max(2, os.availableParallelism() * 3));

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: files,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    retry: 0,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['server/**/*.test.ts', 'ui/sdk/**/*.test.ts', 'test/integration/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          env: { HEARTH_TEST_STORE: 'postgres' },
          globalSetup: ['test/helpers/postgres-global.ts'],
        },
      },
    ],
  },
});
