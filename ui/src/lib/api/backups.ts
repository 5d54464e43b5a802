/**
 * Backups of the whole appliance (`/api/admin/backups`, docs/operations/backups.md; admin only, every call
 * audited): the list with the running job and the schedule, "Back up now" (one job at a time, polled for its
 * progress), the download and the deletion of a backup file.
 *
 * The types are the server's zod schemas' own (server/core/backup/backup.schemas.ts through server/core/contract.ts,
 * type-only), so a server change that breaks the page fails the typecheck.
 */
import type { BackupEntry, BackupJob, BackupList, BackupSchedule } from '../../../../server/core/contract.ts';
import { credentials, type Progress, readDownload, request, send } from './client.ts';

export const BACKUPS_BASE = '/api/admin/backups';
/** The server refuses a shorter passphrase (400 validation_failed). */
export const MIN_PASSPHRASE_LENGTH = 8;

export type { BackupEntry, BackupJob, BackupList, BackupSchedule };

const enc = encodeURIComponent;

export function listBackups(signal?: AbortSignal): Promise<BackupList> {
  return request(BACKUPS_BASE, { signal });
}

/** Starts a backup in the background (202); 409 `backup_running` arrives as `ApiError` while one runs. */
export async function createBackup(passphrase?: string): Promise<BackupJob> {
  const body = await request<{ job: BackupJob }>(BACKUPS_BASE, { method: 'POST', json: passphrase ? { passphrase } : {} });
  return body.job;
}

export function getBackupJob(id: string, signal?: AbortSignal): Promise<BackupJob> {
  return request(`${BACKUPS_BASE}/jobs/${enc(id)}`, { signal });
}

/** 404 `backup_not_found`; 409 `backup_running` for the file being written. */
export function deleteBackup(name: string): Promise<void> {
  return request(`${BACKUPS_BASE}/${enc(name)}`, { method: 'DELETE' });
}

/** The download's address: with the session cookie a plain link streams the file to disk. */
export function backupDownloadUrl(name: string): string {
  return `${BACKUPS_BASE}/${enc(name)}`;
}

/** Whether a plain link can download (the cookie authenticates); a token session fetches with its header instead. */
export function linkDownloads(): boolean {
  return credentials.token === null;
}

/**
 * Downloads a backup with the session's token (token sessions, e.g. the desktop window), reporting progress from
 * `Content-Length`; a download cut short is an error, never a short file.
 */
export async function fetchBackup(name: string, opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal } = {}): Promise<Blob> {
  const res = await send(backupDownloadUrl(name), { headers: { Accept: 'application/octet-stream' }, signal: opts.signal });
  return readDownload(res, 'application/octet-stream', opts.onProgress);
}
