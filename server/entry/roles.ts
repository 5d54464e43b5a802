import { quoteInput } from '../core/http/errors.ts';

/**
 * The server's helpers, by the role name their call sites give `spawnWorker` / `forkChild` (core/runtime.ts).
 * In a bundle or the headless binary a helper is the same code started again with `--hearth-role=<name>`; its
 * entry asks `runRole` to load the helper's module, whose top-level code then does the work.
 */
const ROLES: Record<string, () => Promise<unknown>> = {
  /** Checks an uploaded database off the event loop (worker thread). */
  'db-check': () => import('../db/namespaces/check.worker.ts'),
  /** Parses, checks and inserts a CSV import's rows off the event loop (worker thread). */
  'db-csv-import': () => import('../db/rows/csv.worker.ts'),
  /** Copies WAL databases (backups, namespace exports and duplicates) off the event loop (worker thread). */
  'db-snapshot': () => import('../core/storage/snapshot.worker.ts'),
  /** Checkpoints platform.db's WAL beside the event loop (worker thread). */
  'db-checkpoint': () => import('../core/storage/checkpoint.worker.ts'),
  /** Composes and sends the delivery lanes' mail (worker thread). */
  'mail-smtp': () => import('../mail/delivery/smtp.worker.ts'),
  /** Runs read-only SQL for the query pool (child process, IPC). */
  'sql-child': () => import('../db/sql/sql.child.ts'),
};

export const ROLE_NAMES = Object.keys(ROLES);

export async function runRole(name: string): Promise<void> {
  const load = ROLES[name];
  if (!load) {
    process.stderr.write(`hearth: unknown helper role ${quoteInput(name)}\n`);
    process.exit(2);
  }
  await load();
}
