import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'ui/sdk/**/*.test.ts', 'test/integration/**/*.test.ts'],
    pool: 'forks',
    // Most test files wait on their peers (servers, SMTP, IMAP, PostgreSQL, browsers, child processes) far more than
    // they compute, so two files per core keep the cores busy where one file per core left them half idle. Each file
    // has its own data folder and port 0; `--maxWorkers` overrides this.
    maxWorkers: os.availableParallelism() * 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
