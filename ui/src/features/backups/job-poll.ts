/**
 * Follows a backup job until it ends: asks `GET /api/admin/backups/jobs/{id}` every `everyMs` and hands each answer
 * to `onJob`. Stops on its own when the job is complete or failed, or when `signal` aborts (the dialog closed, the
 * page left). A failed poll (the server restarting) is retried; after `maxFailures` in a row the error is thrown.
 */
import { type BackupJob, getBackupJob } from '../../lib/api/backups.ts';

export const POLL_MS = 500;

export async function followJob(
  job: BackupJob,
  onJob: (job: BackupJob) => void,
  opts: { signal: AbortSignal; everyMs?: number; maxFailures?: number },
): Promise<BackupJob> {
  const every = opts.everyMs ?? POLL_MS;
  const maxFailures = opts.maxFailures ?? 10;
  let current = job;
  let failures = 0;
  while (current.state === 'running') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, every);
      opts.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    if (opts.signal.aborted) throw new DOMException('Stopped following the backup.', 'AbortError');
    try {
      current = await getBackupJob(current.id, opts.signal);
      failures = 0;
      onJob(current);
    } catch (err) {
      if ((err as Error).name === 'AbortError' || ++failures >= maxFailures) throw err;
    }
  }
  return current;
}
