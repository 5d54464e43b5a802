/**
 * Vitest's global setup of the `postgres` project: one private PostgreSQL cluster for the whole run, started once in
 * the runner process (it ends with it: the cluster has a parent-death signal, see postgres.ts). Every test server
 * whose core store is PostgreSQL gets a fresh database of it (test/helpers/server.ts `testDatabaseUrl`), instead of
 * an `initdb` and a cluster per test file. Tests about PostgreSQL itself (stopping it, its roles, several replicas)
 * start clusters of their own with `startPostgres`.
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared cluster: its superuser URL and the `hearth` role's URL (see postgres.ts). */
    postgres: { adminUrl: string; url: string };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Many test servers at once, each with a pool of up to HEARTH_DATABASE_POOL (10) connections.
  const cluster = await startPostgres({ settings: { max_connections: 1500 } });
  project.provide('postgres', { adminUrl: cluster.adminUrl, url: cluster.url });
  return () => cluster.stop();
}
