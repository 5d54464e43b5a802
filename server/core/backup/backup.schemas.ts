/**
 * The zod schemas of the backup routes (`/api/admin/backups…`): they validate the requests, describe the answers in
 * the OpenAPI document, and give the admin UI its types through server/core/contract.ts. Browser-safe (zod only).
 * Names of backups are plain file names in the backup folder: `BACKUP_NAME` never lets a path through.
 */
import { z } from 'zod';

/** A backup's file name: `[A-Za-z0-9._-]+.hearth-backup`, no path separators, never `.` or `..` alone. */
export const BACKUP_NAME = /^[A-Za-z0-9._-]+\.hearth-backup$/;

const ErrorBody = z.object({ error: z.string(), message: z.string() });

export const BackupJob = z
  .object({
    id: z.string(),
    name: z.string().meta({ description: 'The file name the backup gets in the backup folder when it is complete.' }),
    trigger: z.enum(['manual', 'schedule']),
    state: z.enum(['running', 'complete', 'failed']),
    startedAt: z.string().meta({ description: 'ISO 8601.' }),
    finishedAt: z.string().nullable(),
    secrets: z.enum(['encrypted', 'omitted']).meta({ description: '`omitted`: made without a passphrase, the secret files are left out.' }),
    progress: z.object({
      parts: z.number().int().meta({ description: 'Parts written in plain (databases and files); the secrets count as one step after them.' }),
      index: z.number().int().meta({ description: '0-based position of the part being written.' }),
      part: z.string().meta({ description: 'The part being written (`platform.db`, `namespaces/<id>.db`, …), or the step when none.' }),
      step: z.string().meta({ description: '`snapshot`, `archive`, `secrets` or `finish`.' }),
      bytesWritten: z.number().int(),
    }),
    size: z.number().int().nullable().meta({ description: 'Bytes of the finished file.' }),
    error: ErrorBody.nullable().meta({ description: 'Why a failed job failed (`backup_failed`, `backup_no_space`, …).' }),
  })
  .meta({ id: 'BackupJob' });
export type BackupJob = z.infer<typeof BackupJob>;

export const BackupEntry = z
  .object({
    name: z.string(),
    size: z.number().int(),
    createdAt: z.string().nullable().meta({ description: "The manifest's creation time; for a damaged or partial file, its modification time." }),
    status: z.enum(['complete', 'damaged', 'writing', 'stale']).meta({
      description:
        '`complete`: the manifest is intact (`hearth backup verify` checks every byte); `damaged`: the manifest cannot be read; `writing`: a backup being written; `stale`: a partial file a crash left (removed before the next scheduled run).',
    }),
    trigger: z.enum(['manual', 'schedule']).meta({ description: 'From the file name (`…-schedule.hearth-backup`); other names count as manual.' }),
    secrets: z.enum(['encrypted', 'omitted']).nullable(),
    hearthVersion: z.string().nullable(),
    namespaces: z.number().int().nullable().meta({ description: 'Namespace databases in the backup.' }),
  })
  .meta({ id: 'BackupEntry' });
export type BackupEntry = z.infer<typeof BackupEntry>;

export const BackupSchedule = z
  .object({
    cron: z.string().nullable().meta({ description: '`HEARTH_BACKUP_SCHEDULE`; null: no scheduled backups.' }),
    dir: z.string().meta({ description: 'The backup folder (`HEARTH_BACKUP_DIR`).' }),
    keep: z.number().int().meta({ description: 'Scheduled backups kept (`HEARTH_BACKUP_KEEP`); manual ones are never pruned.' }),
    passphraseSet: z.boolean().meta({ description: '`HEARTH_BACKUP_PASSPHRASE` is set: scheduled backups hold the secrets, sealed under it.' }),
    lastRun: z.string().nullable(),
    lastSuccess: z.string().nullable(),
    lastError: ErrorBody.extend({ at: z.string() }).nullable().meta({ description: "The last scheduled run's failure; null once a later one succeeds." }),
    nextRun: z.string().nullable(),
  })
  .meta({ id: 'BackupSchedule' });
export type BackupSchedule = z.infer<typeof BackupSchedule>;

export const BackupList = z
  .object({
    data: z.array(BackupEntry).meta({ description: 'Newest first.' }),
    running: BackupJob.nullable(),
    schedule: BackupSchedule,
  })
  .meta({ id: 'BackupList' });
export type BackupList = z.infer<typeof BackupList>;

export const CreateBackupBody = z
  .object({
    passphrase: z.string().min(8, 'the passphrase must be at least 8 characters').max(1024).optional().meta({
      description: 'Seals the secret files (keys, secrets, TLS) into the backup; without it they are left out. Never stored or logged.',
    }),
  })
  .strict()
  .meta({ id: 'CreateBackup' });
export type CreateBackupBody = z.infer<typeof CreateBackupBody>;

export const BackupNameParams = z.object({ name: z.string().max(255) });
export const BackupJobParams = z.object({ id: z.string().max(64) });

/** `/healthz`'s `backup` member. */
export const BackupHealth = z
  .object({
    lastSuccess: z.string().nullable().meta({ description: 'When the last backup (manual or scheduled) finished successfully.' }),
    lastError: ErrorBody.extend({ at: z.string() }).nullable().meta({ description: 'The last failure, unless a backup succeeded after it.' }),
    nextRun: z.string().nullable().meta({ description: 'The next scheduled run; null without a schedule.' }),
    running: z.boolean(),
  })
  .meta({ id: 'BackupHealth' });
export type BackupHealth = z.infer<typeof BackupHealth>;
