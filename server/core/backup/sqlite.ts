/**
 * SQLite for backups: a snapshot function for a database file the engine may open itself, and the reads the engine
 * makes of a snapshot (its migration ids, its integrity check).
 *
 * Why a read transaction around the online backup: SQLite restarts a backup from its first page whenever another
 * connection writes to the source between two steps, so a database written to all the time (platform.db) would
 * never finish copying. A WAL reader that holds one read transaction sees one snapshot for as long as it holds it,
 * and writers go on beside it; the backup, stepping inside that transaction, copies exactly that snapshot and is
 * never restarted. The price: the WAL cannot be checkpointed past that snapshot until the copy ends (it grows by the
 * writes made meanwhile). On a rollback-journal database the same transaction would hold writers off for the whole
 * copy: give such a database a snapshot through its owner's connection instead.
 */
import fs from 'node:fs';
import { privateFile } from '../storage/data-dir.ts';
import { Database } from '../storage/sqlite.ts';

/**
 * Copies a consistent snapshot of a database to `dest`, reporting pages copied so far of the total; answers
 * 'vanished' when the database no longer exists (deleted while the backup ran).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: an owner's snapshot method (Promise<void>) must fit as it is
export type SqliteSnapshot = (dest: string, onProgress: (done: number, total: number) => void) => Promise<void | 'vanished'>;

/** Pages copied per step: 256 pages of 4 KiB is 1 MiB, well under a millisecond between event-loop turns. */
const PAGES_PER_STEP = 256;

/**
 * The snapshot function for a WAL database file the engine may open itself (platform.db): a read-only connection
 * of its own, one read transaction, and SQLite's online backup in steps of `pagesPerStep` pages.
 */
export function sqliteFileSnapshot(file: string, opts: { pagesPerStep?: number } = {}): SqliteSnapshot {
  const step = opts.pagesPerStep ?? PAGES_PER_STEP;
  return async (dest, onProgress) => {
    privateFile(dest);
    const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
    try {
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_schema').get(); // starts the read transaction: this is the snapshot
      await db.backup(dest, {
        progress: ({ totalPages, remainingPages }) => {
          onProgress(totalPages - remainingPages, totalPages);
          return step;
        },
      });
    } finally {
      if (db.inTransaction) db.exec('COMMIT');
      db.close();
    }
  };
}

/** Removes a database file and the files SQLite keeps beside it. */
export function removeDbFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

/**
 * Makes a snapshot one self-contained file. The online backup leaves nothing beside its copy; a snapshot function
 * that did (a -wal, or a hot journal) gets it folded into the file by one read-write connection, whose first read
 * rolls a hot journal back and whose checkpoint moves the WAL in; then the side files go.
 */
export function settleSnapshot(file: string): void {
  const pending = [`${file}-wal`, `${file}-journal`].some((f) => fs.existsSync(f) && fs.statSync(f).size > 0);
  if (pending) {
    const db = new Database(file, { fileMustExist: true });
    try {
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
  }
  for (const f of [`${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

/**
 * Opens a snapshot read-only, answers `read(db)`, and removes the -wal/-shm a read-only connection leaves beside a
 * WAL-mode file (the file itself is never written).
 */
function readSnapshot<T>(file: string, read: (db: Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return read(db);
  } finally {
    db.close();
    for (const f of [`${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
  }
}

/** The ids in a snapshot's `schema_migrations` table (none when it has no such table). */
export function readMigrationIds(file: string): string[] {
  return readSnapshot(file, (db) => {
    const has = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'").get();
    return has ? (db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all() as string[]) : [];
  });
}

/**
 * `PRAGMA integrity_check` of a database file: null when it is healthy, else what SQLite found (at most 10 lines).
 * It runs on the calling thread and reads the whole file.
 */
export function integrityProblem(file: string): string | null {
  try {
    return readSnapshot(file, (db) => {
      const rows = db.prepare('PRAGMA integrity_check(10)').pluck().all() as string[];
      return rows.length === 1 && rows[0] === 'ok' ? null : rows.join('; ');
    });
  } catch (err) {
    return `not a usable SQLite database: ${(err as Error).message}`;
  }
}
