/**
 * Backups of the whole appliance (`/api/admin/backups`, docs/operations/backups.md; admin only, every call
 * audited): the list with the running job and the schedule, "Back up now" (one job at a time, polled for its
 * progress), the download and the deletion of a backup file. Paths, bodies and answers are the OpenAPI document's.
 */
import { answer, api, apiUrl, credentials, type Progress, readDownload, type Schemas } from './client.ts';

/** The server refuses a shorter passphrase (400 validation_failed). */
export const MIN_PASSPHRASE_LENGTH = 8;

export type BackupEntry = Schemas['BackupEntry'];
export type BackupJob = Schemas['BackupJob'];
export type BackupSchedule = Schemas['BackupSchedule'];
/**
 * The list, the running job (null when none) and the schedule. (The document writes the nullable job as
 * `allOf: [BackupJob, {type: [object, null]}]`, which the generated types cannot read as "a job or null".)
 */
export type BackupList = Omit<Schemas['BackupList'], 'running'> & { running: BackupJob | null };

const backupPath = (name: string) => ({ params: { path: { name } } });

export async function listBackups(signal?: AbortSignal): Promise<BackupList> {
  return (await answer(api.GET('/api/admin/backups', { signal }))) as BackupList;
}

/** Starts a backup in the background (202); 409 `backup_running` arrives as `ApiError` while one runs. */
export async function createBackup(passphrase?: string): Promise<BackupJob> {
  const body = await answer(api.POST('/api/admin/backups', { body: passphrase ? { passphrase } : {} }));
  return body.job;
}

export function getBackupJob(id: string, signal?: AbortSignal): Promise<BackupJob> {
  return answer(api.GET('/api/admin/backups/jobs/{id}', { params: { path: { id } }, signal }));
}

/** 404 `backup_not_found`; 409 `backup_running` for the file being written. */
export function deleteBackup(name: string): Promise<void> {
  return answer(api.DELETE('/api/admin/backups/{name}', backupPath(name)));
}

/** The download's address: with the session cookie a plain link streams the file to disk. */
export function backupDownloadUrl(name: string): string {
  return apiUrl('/api/admin/backups/{name}', { path: { name } });
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
  const { response } = await api.GET('/api/admin/backups/{name}', {
    ...backupPath(name),
    parseAs: 'stream',
    headers: { Accept: 'application/octet-stream' },
    signal: opts.signal,
  });
  return readDownload(response, 'application/octet-stream', opts.onProgress);
}
