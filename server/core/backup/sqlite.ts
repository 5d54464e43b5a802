/**
 * SQLite for backups: a snapshot function for a database file the engine may open itself, and the reads the engine
 * makes of a snapshot (its migration ids, its integrity check).
 *
 * Why one read transaction: SQLite's online backup restarts from its first page whenever another connection writes
 * to the source between two steps, so a database written to all the time (platform.db) would never finish copying.
 * VACUUM INTO is one statement, so one read transaction; a WAL reader sees one snapshot for as long as it holds it,
 * and writers go on beside it, so the copy is exactly that snapshot and is never restarted. The price: the WAL
 * cannot be checkpointed past that snapshot until the copy ends (it grows by the writes made meanwhile). On a
 * rollback-journal database the same transaction would hold writers off for the whole copy: give such a database a
 * snapshot through its owner's connection instead.
 */
import fs from 'node:fs';
import { privateFile } from '../storage/data-dir.ts';
import { BACKUP_IMAGE_MAX, copyWalDatabase, type HeldImage } from '../storage/snapshot-thread.ts';
import { Database } from '../storage/sqlite.ts';

/**
 * Copies a consistent snapshot of a database to `dest`, reporting pages copied so far of the total; answers
 * 'vanished' when the database no longer exists (deleted while the backup ran). A snapshot function that already
 * read its finished copy (on another thread) may answer its size and SHA-256: the copy must then be one
 * self-contained file, and the engine appends it without hashing it again.
 */
export type SqliteSnapshot = (
  dest: string,
  onProgress: (done: number, total: number) => void,
  // biome-ignore lint/suspicious/noConfusingVoidType: an owner's snapshot method (Promise<void>) must fit as it is
) => Promise<void | 'vanished' | SnapshotDigest | null | undefined>;

/**
 * What a snapshot function may answer about the copy it took: its size in bytes and its SHA-256 (hex), and for a
 * database small enough to be taken in memory its image held on the snapshot thread (`held`; then nothing was
 * written to `dest`, and the engine writes the image into the backup, or releases it).
 */
export interface SnapshotDigest {
  size: number;
  sha256: string | null;
  held?: HeldImage;
}

/**
 * The snapshot function for a WAL database file the engine may open itself (platform.db): VACUUM INTO on a
 * read-only connection of the snapshot thread (core/storage/snapshot-thread.ts), off the event loop; the temporary
 * copy is not fsynced, and its size and SHA-256 are read on that thread too. A database of at most BACKUP_IMAGE_MAX
 * bytes is taken as an in-memory image instead (sqlite3_serialize in one read transaction, hashed and held on the
 * thread, which later writes it into the backup file itself). Progress reports the file's pages at
 * the start and the end (VACUUM INTO has no steps).
 */
export function sqliteFileSnapshot(file: string): SqliteSnapshot {
  return async (dest, onProgress) => {
    privateFile(dest);
    const pages = Math.ceil(fs.statSync(file).size / 4096);
    onProgress(0, pages);
    const copy = await copyWalDatabase({ file, dest, durable: false, hash: true, timeout: 5000, imageMax: BACKUP_IMAGE_MAX });
    onProgress(pages, pages);
    return copy;
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
