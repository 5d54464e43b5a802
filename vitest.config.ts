import os from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/helpers/sequencer.ts';

/**
 * Two projects, run together by `npx vitest run` (`npm test` runs them through test/run.ts):
 *  - `sqlite`: every test file, each server's core store in platform.db (as in production);
 *  - `postgres`: the integration files again with the core store in PostgreSQL (HEARTH_TEST_STORE=postgres), every
 *    server in a fresh database of one cluster started for the run (test/helpers/postgres-global.ts).
 * `--project sqlite` or `--project postgres` runs one (npm run test:unit, npm run test:postgres).
 *
 * Most files wait on servers, SMTP and IMAP peers, PostgreSQL and child processes rather than compute: two files per
 * core at once keep the machine busy beside the browser tests (HEARTH_TEST_FILES overrides); more only slow each
 * file down (three per core made a 2-core machine's load average 24, and the waits of the slowest tests ran out).
 *
 * The time limits are hang guards, not speed bounds: a test waits for states (test/helpers/wait.ts), and a busy
 * 2-core machine runs a file several times slower than a quiet one.
 */
const files = Number(process.env.HEARTH_TEST_FILES ?? Math.max(2, os.availableParallelism() * 2));

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: files,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    retry: 0,
    // The longest files first, from test/durations.json (a clean clone has no Vitest cache to order by).
    sequence: { sequencer: LongestFirstSequencer },
    // Argon2id at its lowest cost for the suite's thousands of sign-ins (server/core/config/environment.ts says why;
    // passwords.test.ts and sessions.test.ts check the production parameters).
    env: { HEARTH_TEST_PASSWORD_HASHING: 'light' },
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
          env: { HEARTH_TEST_STORE: 'postgres', HEARTH_TEST_PASSWORD_HASHING: 'light' },
          globalSetup: ['test/helpers/postgres-global.ts'],
        },
      },
    ],
  },
});
