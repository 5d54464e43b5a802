/**
 * The core store a stopped test server left behind, for a test to read or arrange rows before it starts the server
 * again on the same data: platform.db in its data folder, or its PostgreSQL database (the server's `databaseUrl`,
 * under HEARTH_TEST_STORE=postgres). Opened for the call and closed after it, so the next server finds it as it was.
 * `openCoreStore` is that second connection kept open, also beside a running server (another process's view).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { postgresStore } from '../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../server/core/storage/store.ts';

/** Where a test server's core store is: its data folder, and its PostgreSQL database when it has one. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl: string | undefined;
}

/**
 * Another connection to a test server's core store (running or stopped): to platform.db (busy timeout 5 s), or to its
 * PostgreSQL database, as the CLI or a second replica would hold. `close()` ends it.
 */
export async function openCoreStore(where: StoreLocation): Promise<Store> {
  if (where.databaseUrl) return postgresStore({ url: where.databaseUrl });
  const db = new Database(path.join(where.dataDir, 'platform.db'), { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const store = sqliteStore(db);
  return {
    ...store,
    async close() {
      await store.close();
      if (db.open) db.close();
    },
  };
}

export async function withStoppedStore<T>(where: StoreLocation, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openCoreStore(where);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
