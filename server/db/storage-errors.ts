/**
 * SQLite's refusals of a write to a tenant database that concern the database file rather than the data, answered
 * the same way by every writer (rows and CSV import: rows/rows.service.ts; schema changes: schema/schema.service.ts);
 * every such write runs in one transaction, so nothing was changed:
 * - SQLITE_FULL is either the quota or the disk. The quota `max_db_size` is SQLite's max_page_count
 *   (namespaces/handles.ts); a disk with no space left (ENOSPC) is SQLITE_FULL too. They are told apart by facts
 *   measured after the failed write: a namespace without a quota has hit the disk; with a quota, the disk is the
 *   cause when the file system holding the database has less free space (statfs: bavail × bsize, what an
 *   unprivileged writer may use) than the quota still allows (the quota's headroom: max_page_count minus page_count,
 *   in bytes), else the quota. The disk is 507 `disk_full`, the quota 507 `quota_exceeded`.
 * - a read-only file is 409 `namespace_read_only`; a lock held past busy_timeout is 503 with `Retry-After`.
 * Creating a database file on a full disk (namespace creation, duplicate, import), and opening one whose `-shm` file
 * the disk has no room for, is 507 `disk_full` as well (`isDiskFull`, `diskFull`).
 */
import path from 'node:path';
import { HearthError } from '../core/http/errors.ts';
import { freeBytes, humanBytes } from '../core/storage/disk.ts';
import { isBusyError } from '../core/storage/store.ts';
import { quotaHeadroom, type TenantDb } from './namespaces/handles.ts';

/**
 * Whether `err` of creating or opening a database file says the disk (or the user's disk quota) has no space left:
 * SQLite's SQLITE_FULL, SQLITE_IOERR_SHMSIZE (it could not give the `-shm` file the pages it needs, which opening a
 * WAL database whose `-shm` is gone does), or ENOSPC / EDQUOT from a file write.
 */
export function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'SQLITE_IOERR_SHMSIZE' || code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * 507 `disk_full` for a refusal on the disk holding `folder` (the data folder or one inside it): how much is free,
 * with `extra` after it, and that nothing was changed, with `notDone` (what was not done) after it.
 */
export function diskFull(folder: string, opts: { extra?: string; notDone?: string } = {}): HearthError {
  const free = freeBytes(folder);
  const amount = free === null ? 'its free space could not be read' : `${humanBytes(free)} free`;
  return new HearthError(
    'disk_full',
    `the disk holding the data folder is full (${amount}${opts.extra ?? ''}): nothing was changed${opts.notDone ? ` (${opts.notDone})` : ''}; free space on that disk, then try again`,
  );
}

/** The SQLITE_FULL of a write to `db`: the disk or the quota, by the rule in this file's header. */
function fullRefusal(db: TenantDb): HearthError {
  const quota = new HearthError('quota_exceeded', 'the change would make the database larger than its quota max_db_size; nothing was changed');
  const folder = path.dirname(db.name);
  let headroom: number | null;
  try {
    headroom = quotaHeadroom(db);
  } catch {
    return quota; // the connection cannot be asked for its quota: keep the quota's answer
  }
  if (headroom === null) return diskFull(folder);
  const free = freeBytes(folder);
  if (free !== null && free < headroom) {
    return diskFull(folder, { extra: `, less than the ${humanBytes(headroom)} the quota max_db_size still allows` });
  }
  return quota;
}

/** The envelope error for such a refusal of a write to `db`, or null when `err` is something else (the caller maps or rethrows it). */
export function storageRefusal(err: unknown, db: TenantDb): HearthError | null {
  if (isBusyError(err)) return busyRefusal();
  switch ((err as { code?: string } | null)?.code) {
    case 'SQLITE_FULL':
      return fullRefusal(db);
    case 'SQLITE_READONLY':
      return new HearthError('namespace_read_only', 'the namespace is read-only (config read_only: true)');
  }
  return null;
}

/** A namespace database busy past its busy_timeout (`isBusyError`): 503 with `Retry-After`, a write or a read. */
export function busyRefusal(): HearthError {
  return new HearthError('service_unavailable', 'the database is busy (busy_timeout passed); try again', { headers: { 'Retry-After': '1' } });
}
