/**
 * The core store's health probe (`health_probe`, created by migration core-001): /healthz proves the store takes
 * writes by writing its one row. One SQL text for both engines (store.ts).
 */
import type { Store } from './store.ts';

export function createHealthStore(store: Store) {
  return {
    /** Writes the probe row (id 1) with the time `at`: inserted the first time, updated after. */
    probe: async (at: string): Promise<void> => {
      await store.run('INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at', [at]);
    },
  };
}

export type HealthStore = ReturnType<typeof createHealthStore>;
