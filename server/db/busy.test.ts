import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/temp.ts';
import { HearthError } from '../core/http/errors.ts';
import { Database } from '../core/storage/sqlite.ts';
import { isBusyError } from '../core/storage/store.ts';
import { readError } from './rows/rows.errors.ts';
import { busyRefusal } from './storage-errors.ts';

/** The error better-sqlite3 throws when `db` cannot take a write lock another connection holds (busy_timeout 0). */
function realBusy(): unknown {
  const file = `${tempDir('hearth-busy-')}/busy.db`;
  const a = new Database(file);
  const b = new Database(file, { timeout: 0 });
  try {
    a.exec('CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
    b.exec('BEGIN IMMEDIATE');
  } catch (err) {
    return err;
  } finally {
    a.close();
    b.close();
  }
  throw new Error('expected SQLITE_BUSY');
}

describe('isBusyError: one test of "the database is busy" for both engines', () => {
  it('a real SQLITE_BUSY from better-sqlite3', () => {
    const err = realBusy();
    expect((err as { code: string }).code).toBe('SQLITE_BUSY');
    expect(isBusyError(err)).toBe(true);
  });
  it.each(['SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_TIMEOUT', 'SQLITE_LOCKED', 'SQLITE_LOCKED_SHAREDCACHE', '55P03', '40001', '40P01'])(
    '%s is busy',
    (code) => expect(isBusyError(Object.assign(new Error('x'), { code }))).toBe(true),
  );
  it.each(['SQLITE_FULL', 'SQLITE_BUSYX', 'SQLITE_ERROR', '23505', '08006', undefined, 5])('%s is not', (code) =>
    expect(isBusyError(Object.assign(new Error('x'), { code }))).toBe(false),
  );
  it('is false for what is not an error object', () => {
    for (const v of [null, undefined, 'SQLITE_BUSY', 42]) expect(isBusyError(v)).toBe(false);
  });
});

describe('a read of the rows API that meets a busy database', () => {
  // rows.errors.ts answered only the plain SQLITE_BUSY; LOCKED and the extended codes fell through to a 500.
  it.each(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_SNAPSHOT'])('%s: 503 service_unavailable with Retry-After', (code) => {
    let thrown: unknown;
    try {
      readError(Object.assign(new Error('database is locked'), { code }));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(HearthError);
    expect(thrown).toMatchObject({ code: 'service_unavailable', status: 503, headers: { 'Retry-After': '1' } });
    expect((thrown as HearthError).message).toBe(busyRefusal().message);
  });
});
