/**
 * What a test file of the core store's engines needs (issue 18): one private PostgreSQL cluster for the file (started
 * before its tests, stopped after them), and lists of the stores and temporary folders its tests make, closed and
 * removed after them. Call `coreStoreFixtures()` once at the top level of the file.
 */
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { type Migration, openPlatformDb } from '../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../server/core/storage/store.ts';
import { type Postgres, startPostgres } from './postgres.ts';
import { tempDir } from './temp.ts';

export interface CoreStoreFixtures {
  /** The file's cluster (set once `beforeAll` ran). */
  cluster: Postgres;
  /** Folders removed after the file's tests. */
  dirs: string[];
  /** Stores closed after the file's tests. */
  stores: Store[];
}

export function coreStoreFixtures(): CoreStoreFixtures {
  const f = { dirs: [], stores: [] } as unknown as CoreStoreFixtures;
  beforeAll(async () => {
    f.cluster = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const s of f.stores.splice(0)) await s.close();
    await f.cluster?.stop();
    for (const d of f.dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  return f;
}

/**
 * Two replicas over one fresh core store of the engine, migrated: two connections to one platform.db in a temporary
 * folder, or two pools on a new database of the file's cluster (both migrating at once, as replicas starting
 * together do). Closed and removed after the file's tests.
 */
export async function replicaStores(fx: CoreStoreFixtures, engine: 'sqlite' | 'postgres', migrations: Migration[]): Promise<[Store, Store]> {
  if (engine === 'sqlite') {
    const dir = tempDir('hearth-core-store-');
    fx.dirs.push(dir);
    const pair: [Store, Store] = [sqliteStore(openPlatformDb(dir, migrations)), sqliteStore(openPlatformDb(dir, migrations))];
    fx.stores.push(...pair);
    return pair;
  }
  const url = await fx.cluster.createDatabase();
  const pair: [Store, Store] = [postgresStore({ url }), postgresStore({ url })];
  fx.stores.push(...pair);
  await Promise.all(pair.map((s) => migratePostgres(s, migrations)));
  return pair;
}
