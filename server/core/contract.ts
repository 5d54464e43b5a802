/** Core constants and wire types the admin UI shares with the server (browser-safe). See `.dependency-cruiser.cjs`. */
export { DATABASE_APP_ID, NAMESPACE_RESOURCE } from './auth/database-app.ts';
/** The backups page: `/api/admin/backups…` answers and `/healthz`'s `backup` (zod schemas in backup/backup.schemas.ts). */
export type { BackupEntry, BackupHealth, BackupJob, BackupList, BackupSchedule, CreateBackupBody } from './backup/backup.schemas.ts';
