/**
 * Backups of the whole appliance (`/api/admin/backups`, docs/operations/backups.md; admin only, every call
 * audited): the list with the running job and the schedule, "Back up now" (one job at a time, polled for its
 * progress), the download and the deletion of a backup file.
 *
 * The types mirror the contract between the server and the UI (issue 17: `BackupJob`, `BackupEntry`,
 * `BackupSchedule`); they become type-only imports from `server/core/contract.ts` once the server exports them.
 */
import { credentials, type Progress, readDownload, request, send } from './client.ts';

export const BACKUPS_BASE = '/api/admin/backups';
/** The server refuses a shorter passphrase (400 validation_failed). */
export const MIN_PASSPHRASE_LENGTH = 8;

export type BackupTrigger = 'manual' | 'schedule';
export type BackupSecrets = 'encrypted' | 'omitted';

export interface BackupJob {
  id: string;
  name: string;
  trigger: BackupTrigger;
  state: 'running' | 'complete' | 'failed';
  /** ISO 8601. */
  startedAt: string;
  finishedAt: string | null;
  secrets: BackupSecrets;
  /** Part `index` of `parts` (1-based once it started), its name and step, and the bytes written so far. */
  progress: { parts: number; index: number; part: string; step: string; bytesWritten: number };
  size: number | null;
  error: { error: string; message: string } | null;
}

export interface BackupEntry {
  name: string;
  size: number;
  createdAt: string | null;
  status: 'complete' | 'damaged' | 'writing' | 'stale';
  trigger: BackupTrigger;
  /** null: not known (a damaged or partial file). */
  secrets: BackupSecrets | null;
  hearthVersion: string | null;
  namespaces: number | null;
}

export interface BackupSchedule {
  /** The cron expression of `HEARTH_BACKUP_SCHEDULE`; null when no schedule is set. */
  cron: string | null;
  dir: string;
  keep: number;
  passphraseSet: boolean;
  lastRun: string | null;
  lastSuccess: string | null;
  lastError: { error: string; message: string; at: string } | null;
  nextRun: string | null;
}

export interface BackupList {
  data: BackupEntry[];
  running: BackupJob | null;
  schedule: BackupSchedule;
}

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
