/**
 * `hearth migrate-store --from <data folder> --to <postgres url>`: moves an installation's core store (platform.db)
 * into an empty PostgreSQL database (docs/operations/replicas.md), while the server may keep running on the
 * folder: an online copy, then a short pause of platform.db's writes for the tail and the verification. The engine is
 * core/storage/migrate-store.ts (imported when the command runs); this file is its options and its output: progress
 * on standard error (a bar on a terminal, a line per table otherwise, nothing with --quiet), the summary and the next
 * step on standard output, or JSON with --json. Exit 0 when every table is verified equal; 1 with the reason
 * otherwise (then the target holds a partial copy, to be dropped).
 */
import path from 'node:path';
import type { Command } from 'commander';
import type { MigrateProgress, MigrateStoreResult } from '../../core/storage/migrate-store.ts';
import { loadProgress } from '../download.ts';
import { CliError, formatBytes, printJson } from '../output.ts';

interface Opts {
  from: string;
  to: string;
  resume?: boolean;
  quiet?: boolean;
  json?: boolean;
}

/** The URL without its password, for the output. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    throw new CliError(`--to: ${JSON.stringify(url)} is not a URL (postgres://user:password@host:port/database)`);
  }
}

const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`);

/** Progress on standard error: a bar of rows copied on a terminal, a line per table and per step otherwise. */
async function reporter(quiet: boolean | undefined): Promise<{ on: (p: MigrateProgress) => void; stop: () => void }> {
  if (quiet) return { on: () => {}, stop: () => {} };
  const say = (line: string) => process.stderr.write(`migrate-store: ${line}\n`);
  const cliProgress = process.stderr.isTTY ? await loadProgress() : null;
  const bar = cliProgress
    ? new cliProgress.SingleBar(
        { format: 'copy [{bar}] {value}/{total} rows | {table}', stream: process.stderr, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      )
    : null;
  let barStarted = false;
  const stopBar = () => {
    if (barStarted) bar?.stop();
    barStarted = false;
  };
  return {
    stop: stopBar,
    on(p) {
      if (p.phase === 'schema') say(`schema created on the target (${p.applied} migrations)`);
      else if (p.phase === 'copy') {
        if (bar) {
          if (!barStarted) bar.start(Math.max(1, p.totalRows), 0, { table: p.table });
          barStarted = true;
          bar.update(p.copied, { table: `${p.table} (${p.index + 1}/${p.tables})` });
        } else if (p.done) say(`copied ${p.table}: ${p.tableRows} row${p.tableRows === 1 ? '' : 's'} (${p.index + 1}/${p.tables} tables)`);
      } else if (p.phase === 'catch-up') {
        stopBar();
        say(p.changed.length ? `changed during the copy, brought up to date: ${p.changed.join(', ')}` : 'nothing changed during the copy');
      } else if (p.step === 'locked') say("pausing platform.db's writes for the tail (a running server's writes wait)");
      else if (p.step === 'compared' && p.changed?.length) say(`changed since: ${p.changed.join(', ')}; bringing them up to date`);
      else if (p.step === 'verified') say(`verified every table (row counts and checksums) in ${ms(p.ms)}`);
    },
  };
}

export function registerMigrateStore(cmd: Command): void {
  cmd
    .requiredOption('--from <folder>', 'the data folder (a server may keep running on it)')
    .requiredOption('--to <url>', 'the empty target database: postgres://user@host:port/database (the password in the URL or in PGPASSWORD)')
    .option('--resume', 'bring a target an earlier run copied up to date instead of refusing it (e.g. with the server stopped, right before the switch)')
    .option('--quiet', 'no progress')
    .option('--json', 'print the result as JSON')
    .action(async (opts: Opts) => {
      const dataDir = path.resolve(opts.from);
      const target = redact(opts.to);
      const [{ migrateStore, MigrateStoreError }, { allMigrations }, { runningServerPid }, { BUSY_TIMEOUT_MS }] = await Promise.all([
        import('../../core/storage/migrate-store.ts'),
        import('../../boot.ts'),
        import('../../core/storage/server-pid.ts'),
        import('../../core/storage/platform-db.ts'),
      ]);
      const progress = await reporter(opts.quiet || opts.json);
      let r: MigrateStoreResult;
      try {
        r = await migrateStore({ dataDir, url: opts.to, migrations: allMigrations, resume: opts.resume, onProgress: progress.on });
      } catch (err) {
        if (err instanceof MigrateStoreError) throw new CliError(`${err.message} [${err.code}]`);
        throw err;
      } finally {
        progress.stop();
      }
      const server = runningServerPid(dataDir);
      const next = [
        server !== null
          ? `A Hearth server (process ${server}) is still running on ${opts.from}: what it writes from now on is in platform.db only. Stop it, run this command again with --resume (it copies what changed), then`
          : 'Next:',
        `start Hearth with HEARTH_DATABASE_URL (or --database-url) set to the URL given to --to (${target}) and the same data folder (namespaces, secrets and TLS stay there).`,
      ].join(' ');
      // A server's write waits BUSY_TIMEOUT_MS for the lock, then fails: a longer pause may have failed some of its writes.
      const warning =
        r.pauseMs > BUSY_TIMEOUT_MS
          ? `the pause (${ms(r.pauseMs)}) was longer than a server's ${ms(BUSY_TIMEOUT_MS)} wait for platform.db's lock: writes a running server tried then failed (see its log); for a store this large, stop the server and use --resume`
          : null;
      if (opts.json) {
        printJson({ dataDir, target, ...r, serverRunning: server, warning, next });
        return;
      }
      if (warning) process.stderr.write(`warning: ${warning}\n`);
      const recopied = r.caughtUp.length ? `; changed during the copy and caught up: ${r.caughtUp.join(', ')}` : '';
      const tail = r.changedInPause.length ? ` (copied in the pause: ${r.changedInPause.join(', ')})` : '';
      process.stdout.write(
        [
          `Moved the core store of ${opts.from} into ${target}:`,
          `  ${r.tables.length} tables, ${r.rows} rows, ${formatBytes(r.bytes)}; every table verified (row count and SHA-256 checksum equal on both sides)`,
          `  online copy ${ms(r.copyMs)}${recopied}`,
          `  platform.db's writes paused for ${ms(r.pauseMs)}${tail}`,
          next,
          '',
        ].join('\n'),
      );
    });
}
