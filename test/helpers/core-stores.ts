/**
 * What a test file of the core store's engines needs (issue 18): one private PostgreSQL cluster for the file (started
 * before its tests, stopped after them), and lists of the stores and temporary folders its tests make, closed and
 * removed after them. Call `coreStoreFixtures()` once at the top level of the file.
 */
import fs from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../server/core/storage/store.ts';
import { type Postgres, startPostgres } from './postgres.ts';

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
