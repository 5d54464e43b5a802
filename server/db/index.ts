/** The database service: the namespace control plane (and, later, the data plane). Other domains use only this file. */
import type { Api } from '../core/http/api.ts';
import type { AuditLog } from '../core/audit/audit.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { Db } from '../core/storage/platform-db.ts';
import type { Metrics } from '../core/metrics/metrics.ts';
import { namespaceMigrations, createNamespaceStore } from './namespaces/namespaces.store.ts';
import { createNamespaceService, type NamespaceService } from './namespaces/namespaces.service.ts';
import { registerNamespaceRoutes } from './namespaces/namespaces.routes.ts';

export const dbMigrations = [...namespaceMigrations];

export interface DbServiceDeps {
  platformDb: Db;
  audit: AuditLog;
  logger: Logger;
  metrics: Metrics;
  dataDir: string;
  maxOpenNamespaces: number;
  uploadLimit: number;
  uploadMemoryLimit: number;
}

export function createDbService(deps: DbServiceDeps) {
  const namespaces = createNamespaceService({
    store: createNamespaceStore(deps.platformDb),
    audit: deps.audit,
    logger: deps.logger,
    dataDir: deps.dataDir,
    maxOpen: deps.maxOpenNamespaces,
  });
  deps.metrics.gauge('hearth_namespaces', 'Namespaces in the registry', () => namespaces.count());
  deps.metrics.gauge('hearth_namespace_handles_open', 'Tenant databases currently open', () => namespaces.handles.size);
  let stopJobs: (() => void) | null = null;
  return {
    namespaces,
    registerRoutes(api: Api) {
      registerNamespaceRoutes(api, { namespaces, uploadLimit: deps.uploadLimit, uploadMemoryLimit: deps.uploadMemoryLimit });
    },
    start() {
      const removed = namespaces.sweepOrphans();
      if (removed) deps.logger.warn({ removed }, 'removed orphaned namespace files');
      stopJobs = namespaces.startJobs();
    },
    async close() {
      stopJobs?.();
      await namespaces.close();
    },
  };
}

export type DbService = ReturnType<typeof createDbService>;
export type { NamespaceService };
