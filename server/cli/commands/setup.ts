import path from 'node:path';
import type { Command } from 'commander';
import { cliEnvironment } from '../../core/config/environment.ts';
import { readStdin } from '../input.ts';
import { CliError, printJson } from '../output.ts';

/**
 * `hearth setup` creates the first administrator on the data folder directly (like `hearth tokens`), only while no
 * account exists. The password comes from standard input only, never from an argument (it would show in `ps`).
 */
export function registerSetup(setup: Command): void {
  setup
    .requiredOption('--login <login>', 'login name of the administrator')
    .option('--password-stdin', 'read the password from the first line of standard input (required)')
    .option('--display-name <name>', 'display name')
    .option('--email <email>', 'email address')
    .option('--data <dir>', 'data folder (HEARTH_DATA_DIR, default ./hearth-data)')
    .option('--database-url <url>', 'the core store on PostgreSQL, when the server runs with one (HEARTH_DATABASE_URL)')
    .option('--json', 'print JSON')
    .action(
      async (opts: { login: string; passwordStdin?: boolean; displayName?: string; email?: string; data?: string; databaseUrl?: string; json?: boolean }) => {
        if (!opts.passwordStdin) throw new CliError('pass the password on standard input with --password-stdin (it is never accepted as an argument)');
        // the password is the first line of standard input (a trailing CR/LF is not part of it)
        const password = (await readStdin()).split(/\r?\n/)[0] ?? '';
        if (!password) throw new CliError('no password on standard input');
        const dir = path.resolve(opts.data ?? cliEnvironment().dataDir ?? './hearth-data');
        // loaded here, not at the top: other commands never load the server
        const [{ openDataDir }, { createAuditLog }, { HearthError }, { openIdentityOffline }] = await Promise.all([
          import('../../boot.ts'),
          import('../../core/audit/audit.ts'),
          import('../../core/http/errors.ts'),
          import('../../identity/index.ts'),
        ]);
        const db = await openDataDir(dir, opts.databaseUrl ?? cliEnvironment().databaseUrl).catch((err: Error) => {
          throw new CliError(err.message);
        });
        try {
          // accounts and sessions built exactly as the server builds them (the Linux-identity hook included)
          const { store } = db;
          const { sessions } = openIdentityOffline({ store, audit: createAuditLog(store) });
          let account: Awaited<ReturnType<typeof sessions.setup>>;
          try {
            account = await sessions.setup({ login: opts.login, password, displayName: opts.displayName, email: opts.email }, { actor: 'cli' });
          } catch (err) {
            if (err instanceof HearthError) throw new CliError(err.message);
            throw err;
          }
          const out = { sub: account.sub, login: account.login, displayName: account.displayName, admin: account.admin };
          if (opts.json) printJson(out);
          else process.stdout.write(`Created administrator "${account.login}" (${account.sub}). Sign in with it in the admin UI.\n`);
        } finally {
          await db.close();
        }
      },
    );
}
