/**
 * SQLite's refusals of a write to a tenant database that concern the database file rather than the data, answered
 * the same way by every writer (rows and CSV import: rows/rows.service.ts; schema changes: schema/schema.service.ts):
 * the quota `max_db_size` is SQLite's max_page_count (namespaces/handles.ts), so a write past it is SQLITE_FULL, 507
 * `quota_exceeded`; a read-only file is 409 `namespace_read_only`; a lock held past busy_timeout is 503 with
 * `Retry-After`. Every such write runs in one transaction, so nothing was changed.
 */
import { HearthError } from '../core/http/errors.ts';

/** The envelope error for such a refusal, or null when `err` is something else (the caller maps or rethrows it). */
export function storageRefusal(err: unknown): HearthError | null {
  switch ((err as { code?: string } | null)?.code) {
    case 'SQLITE_FULL':
      return new HearthError('quota_exceeded', 'the change would make the database larger than its quota max_db_size; nothing was changed');
    case 'SQLITE_READONLY':
      return new HearthError('namespace_read_only', 'the namespace is read-only (config read_only: true)');
    case 'SQLITE_BUSY':
    case 'SQLITE_LOCKED':
      return new HearthError('service_unavailable', 'the database is busy (busy_timeout passed); try again', { headers: { 'Retry-After': '1' } });
  }
  return null;
}
