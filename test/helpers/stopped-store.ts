/**
 * The core store a stopped test server left behind, for a test to read or arrange rows before it starts the server
 * again on the same data: platform.db in its data folder, or its PostgreSQL database (the server's `databaseUrl`,
 * under HEARTH_TEST_STORE=postgres). Opened for the call and closed after it, so the next server finds it as it was.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { postgresStore } from '../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../server/core/storage/store.ts';

export async function withStoppedStore<T>(where: { dataDir: string; databaseUrl: string | undefined }, fn: (store: Store) => Promise<T>): Promise<T> {
  if (where.databaseUrl) {
    const store = postgresStore({ url: where.databaseUrl });
    try {
      return await fn(store);
    } finally {
      await store.close();
    }
  }
  const db = new Database(path.join(where.dataDir, 'platform.db'), { fileMustExist: true });
  const store = sqliteStore(db);
  try {
    return await fn(store);
  } finally {
    await store.close();
    if (db.open) db.close();
  }
}
