/**
 * Backups of the running server: the jobs behind `POST /api/admin/backups` and the schedule (`HEARTH_BACKUP_*`),
 * on top of the engine in this folder. Still no domain is known here: boot hands in the parts as a port.
 *
 * Rules:
 *  - one backup at a time: a manual one while another runs is `backup_running`; a scheduled run waits for a manual
 *    one to end, then runs;
 *  - jobs run in the background; the last 20 are remembered in memory with their progress (a restart forgets them,
 *    the files stay and are listed from their manifests);
 *  - file names are `hearth-<UTC yyyymmdd-hhmmss>-<manual|schedule>.hearth-backup` (`-2`, `-3`… when a second one
 *    starts within the same second); a name from outside must match `BACKUP_NAME` and is only ever joined to the
 *    backup folder;
 *  - before each scheduled run the partial files a crash left are removed (`cleanupPartials`), after it the
 *    scheduled backups beyond `keep` are pruned (manual ones never are);
 *  - `close()` stops the schedule and cancels a running backup (the engine removes its partial file).
 * Passphrases are used, never stored in a job, logged or returned.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { HearthError, quoteInput } from '../http/errors.ts';
import type { Logger } from '../logging/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { BackupEntry, BackupHealth, BackupJob, BackupList, BackupSchedule as ScheduleInfo } from './backup.schemas.ts';
import { BACKUP_NAME } from './backup.schemas.ts';
import { listBackups, pruneBackups } from './catalog.ts';
import { type BackupPart, createBackup } from './create.ts';
import { BACKUP_EXTENSION } from './format.ts';
import { cleanupPartials } from './partials.ts';
import { type BackupSchedule, createBackupSchedule, type ScheduleClock } from './schedule.ts';

export interface BackupServiceDeps {
  /** The parts of a backup, listed when it starts (boot asks each domain through its index.ts). */
  parts: () => Promise<BackupPart[]>;
  /** The backup folder (HEARTH_BACKUP_DIR). */
  dir: string;
  /** Where snapshots are copied one at a time (the data folder's tmp/). */
  tmpDir: string;
  hearthVersion: string;
  /** The fingerprint of the identity KEK, recorded in the manifest (never the KEK). */
  kekFingerprint: () => string | null;
  /** HEARTH_BACKUP_SCHEDULE; unset: no scheduled backups. */
  cron?: string;
  /** HEARTH_BACKUP_KEEP. */
  keep: number;
  /** HEARTH_BACKUP_PASSPHRASE: scheduled backups seal their secrets with it. */
  passphrase?: string;
  logger: Logger;
  metrics: Metrics;
  /** Tests: the schedule's clock (also names the files and dates the jobs). */
  clock?: ScheduleClock;
}

const KEPT_JOBS = 20;

interface Job {
  view: BackupJob;
  done: Promise<void>;
  controller: AbortController;
}

type ErrorBody = { error: string; message: string };

const asError = (err: unknown): ErrorBody =>
  err instanceof HearthError ? { error: err.code, message: err.message } : { error: 'backup_failed', message: (err as Error).message };

/** `20261126-030000` for a UTC time. */
function stamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/** A backup name from a request, or 400: never a path. */
export function checkBackupName(name: string): string {
  if (!BACKUP_NAME.test(name) || name.startsWith('.')) {
    throw new HearthError('invalid_request', `${quoteInput(name)} is not a backup name (letters, digits, ".", "_" and "-", ending in ${BACKUP_EXTENSION})`);
  }
  return name;
}

const isScheduled = (name: string) => name.includes(`-schedule${BACKUP_EXTENSION}`);

export function createBackupService(deps: BackupServiceDeps) {
  const now = () => deps.clock?.now() ?? new Date();
  const jobs = new Map<string, Job>();
  let current: Job | null = null;
  let schedule: BackupSchedule | null = null;
  let closed = false;
  const last = { success: null as Date | null, failure: null as (ErrorBody & { at: Date }) | null, durationSeconds: 0 };
  const planned = { lastRun: null as Date | null, lastSuccess: null as Date | null, lastError: null as (ErrorBody & { at: Date }) | null };

  const seconds = (d: Date | null | undefined) => (d ? d.getTime() / 1000 : 0);
  deps.metrics.gauge('hearth_backup_last_success_timestamp_seconds', 'When the last backup (manual or scheduled) succeeded (0: never)', () =>
    seconds(last.success),
  );
  deps.metrics.gauge('hearth_backup_last_failure_timestamp_seconds', 'When the last backup failed (0: never since start)', () => seconds(last.failure?.at));
  deps.metrics.gauge('hearth_backup_running', '1 while a backup is being written', () => (current ? 1 : 0));
  deps.metrics.gauge('hearth_backup_duration_seconds', 'How long the last finished backup took', () => last.durationSeconds);

  /** A name in the backup folder no file and no running job has yet. */
  const freshName = (at: Date, trigger: BackupJob['trigger']) => {
    const base = `hearth-${stamp(at)}-${trigger}`;
    for (let n = 1; ; n++) {
      const name = `${base}${n === 1 ? '' : `-${n}`}${BACKUP_EXTENSION}`;
      if (!fs.existsSync(path.join(deps.dir, name))) return name;
    }
  };

  function start(trigger: BackupJob['trigger'], passphrase: string | undefined): Job {
    if (closed) throw new HearthError('service_unavailable', 'the server is shutting down');
    if (current) throw new HearthError('backup_running', `a backup is already running (${current.view.name}); try again when it has finished`);
    const startedAt = now();
    const name = freshName(startedAt, trigger);
    const controller = new AbortController();
    const view: BackupJob = {
      id: crypto.randomUUID(),
      name,
      trigger,
      state: 'running',
      startedAt: startedAt.toISOString(),
      finishedAt: null,
      secrets: passphrase === undefined ? 'omitted' : 'encrypted',
      progress: { parts: 0, index: 0, part: 'starting', step: 'snapshot', bytesWritten: 0 },
      size: null,
      error: null,
    };
    const job: Job = { view, controller, done: Promise.resolve() };
    current = job;
    jobs.set(view.id, job);
    for (const id of jobs.keys()) if (jobs.size > KEPT_JOBS) jobs.delete(id);
    job.done = (async () => {
      try {
        const parts = await deps.parts();
        const result = await createBackup({
          parts,
          out: path.join(deps.dir, name),
          tmpDir: deps.tmpDir,
          passphrase,
          hearthVersion: deps.hearthVersion,
          kekFingerprint: deps.kekFingerprint(),
          now: startedAt,
          signal: controller.signal,
          onProgress: (p) => {
            view.progress = { parts: p.parts, index: p.index, part: p.part ?? p.step, step: p.step, bytesWritten: p.bytesWritten };
          },
        });
        view.state = 'complete';
        view.size = result.size;
        last.success = now();
        deps.logger.info({ backup: name, size: result.size, trigger, vanished: result.manifest.vanished }, 'backup written');
      } catch (err) {
        view.state = 'failed';
        view.error = asError(err);
        last.failure = { ...view.error, at: now() };
        deps.logger.error({ backup: name, trigger, error: view.error.error, err: view.error.message }, 'backup failed');
        throw err;
      } finally {
        const end = now();
        view.finishedAt = end.toISOString();
        last.durationSeconds = (end.getTime() - startedAt.getTime()) / 1000;
        current = null;
      }
    })();
    job.done.catch(() => {}); // the job records its failure; callers that await it see it too
    return job;
  }

  /** One scheduled run: clean leftovers, wait for a manual backup to end, back up, prune. Throws its failure. */
  async function scheduledRun(): Promise<void> {
    planned.lastRun = now();
    try {
      while (current) await current.done.catch(() => {});
      const removed = cleanupPartials(deps.dir, { tmpDir: deps.tmpDir });
      if (removed.length) deps.logger.warn({ removed }, 'removed partial backup files a crash left');
      await start('schedule', deps.passphrase).done;
      const { removed: pruned } = await pruneBackups(deps.dir, deps.keep, isScheduled);
      if (pruned.length) deps.logger.info({ removed: pruned.map((f) => path.basename(f)) }, 'pruned old scheduled backups');
      planned.lastSuccess = now();
      planned.lastError = null;
    } catch (err) {
      planned.lastError = { ...asError(err), at: now() };
      throw err;
    }
  }

  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  const withAt = (e: (ErrorBody & { at: Date }) | null) => (e ? { error: e.error, message: e.message, at: e.at.toISOString() } : null);

  function scheduleInfo(): ScheduleInfo {
    return {
      cron: deps.cron ?? null,
      dir: deps.dir,
      keep: deps.keep,
      passphraseSet: deps.passphrase !== undefined,
      lastRun: iso(planned.lastRun),
      lastSuccess: iso(planned.lastSuccess),
      lastError: withAt(planned.lastError),
      nextRun: iso(schedule?.status().nextRun),
    };
  }

  function present(b: Awaited<ReturnType<typeof listBackups>>[number]): BackupEntry {
    return {
      name: b.name,
      size: b.size,
      createdAt: b.createdAt.toISOString(),
      status: b.status,
      trigger: isScheduled(b.name) ? 'schedule' : 'manual',
      secrets: b.secrets ?? null,
      hearthVersion: b.hearthVersion ?? null,
      namespaces: b.manifest ? b.manifest.entries.filter((e) => e.kind === 'sqlite' && e.name.startsWith('namespaces/')).length : null,
    };
  }

  /** The path of an existing backup, or 404 `backup_not_found`. */
  function existing(name: string): { file: string; size: number } {
    const file = path.join(deps.dir, checkBackupName(name));
    try {
      const st = fs.statSync(file);
      if (st.isFile()) return { file, size: st.size };
    } catch {
      // answered below
    }
    throw new HearthError('backup_not_found', `there is no backup named ${name} in the backup folder`);
  }

  return {
    /** Removes what a crash left and starts the schedule (a bad cron expression throws `invalid_value`). */
    start(): void {
      const removed = cleanupPartials(deps.dir, { tmpDir: deps.tmpDir });
      if (removed.length) deps.logger.warn({ removed }, 'removed partial backup files a crash left');
      if (deps.cron) {
        schedule = createBackupSchedule({ cron: deps.cron, run: scheduledRun, clock: deps.clock });
        if (deps.passphrase === undefined) deps.logger.warn('scheduled backups leave the secrets out: set HEARTH_BACKUP_PASSPHRASE to include them');
      }
    },

    /** Starts a backup in the background (`backup_running` when one runs). */
    create(opts: { passphrase?: string; trigger?: BackupJob['trigger'] } = {}): BackupJob {
      return { ...start(opts.trigger ?? 'manual', opts.passphrase).view };
    },

    /** Waits for a job to end (tests, the CLI's in-process use); throws its failure. */
    async wait(id: string): Promise<BackupJob> {
      const job = jobs.get(id);
      if (!job) throw new HearthError('not_found', `no backup job ${id}`);
      await job.done;
      return { ...job.view };
    },

    job(id: string): BackupJob {
      const job = jobs.get(id);
      if (!job) throw new HearthError('not_found', `no backup job ${id} (the last ${KEPT_JOBS} jobs since the server started are remembered)`);
      return { ...job.view, progress: { ...job.view.progress } };
    },

    async list(): Promise<BackupList> {
      const data = (await listBackups(deps.dir)).map(present);
      return { data, running: current ? { ...current.view } : null, schedule: scheduleInfo() };
    },

    /** The file of a complete backup to download. */
    file: existing,

    /** Deletes a complete backup; on the libuv pool: unlinking gigabytes with their cached pages takes a while. */
    async remove(name: string): Promise<void> {
      checkBackupName(name);
      if (current?.view.name === name) throw new HearthError('backup_running', `${name} is being written; delete it once the backup has finished`);
      await fsp.rm(existing(name).file, { force: true });
    },

    health(): BackupHealth {
      const failure = last.failure && (!last.success || last.failure.at > last.success) ? last.failure : null;
      return { lastSuccess: iso(last.success), lastError: withAt(failure), nextRun: iso(schedule?.status().nextRun), running: current !== null };
    },

    schedule: scheduleInfo,

    /** Stops the schedule and cancels a running backup (its partial file is removed). */
    async close(): Promise<void> {
      closed = true;
      const running = current;
      running?.controller.abort();
      await running?.done.catch(() => {});
      await schedule?.stop();
    },
  };
}

export type BackupService = ReturnType<typeof createBackupService>;
