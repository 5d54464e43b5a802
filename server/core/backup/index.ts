/**
 * The backup engine: one file holding consistent snapshots of the SQLite databases and the files of a data folder,
 * checked and restored in one call each. Generic: the caller (boot) lists the parts; no domain is known here. On top of
 * it, the backup service (jobs, schedule, health) and its routes (`/api/admin/backups…`).
 * docs/operations/backups.md describes the file format.
 */
export type { ArchiveEntry } from './archive.ts';
export { registerBackupRoutes } from './backup.routes.ts';
export { BACKUP_NAME, type BackupEntry, BackupHealth, type BackupJob, type BackupList } from './backup.schemas.ts';
export { type BackupService, type BackupServiceDeps, checkBackupName, createBackupService } from './backup.service.ts';
export { type BackupListing, backupFileName, listBackups, pruneBackups } from './catalog.ts';
export { type BackupPart, type BackupProgress, type BackupResult, type CreateBackupOptions, createBackup } from './create.ts';
export { BACKUP_EXTENSION, BACKUP_FORMAT_VERSION, type BackupManifest, type ManifestEntry, PLATFORM_DB } from './format.ts';
export { cleanupPartials } from './partials.ts';
export { openBackup, readBackupManifest } from './read.ts';
export { type RestoreOptions, type RestoreResult, restoreBackup } from './restore.ts';
export { type BackupSchedule, createBackupSchedule, type ScheduleClock, type ScheduleStatus } from './schedule.ts';
export { type SqliteSnapshot, sqliteFileSnapshot } from './sqlite.ts';
export { type VerifyOptions, type VerifyReport, verifyBackup } from './verify.ts';
