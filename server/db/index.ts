/** The database service: the namespace control plane (and, later, the data plane). Other domains use only this file. */
import type { Api } from '../core/http/api.ts';
import type { AuditLog } from '../core/audit/audit.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { Db } from '../core/storage/platform-db.ts';
import type { Metrics } from '../core/metrics/metrics.ts';
import { namespaceMigrations, createNamespaceStore } from './namespaces/namespaces.store.ts';
import { createNamespaceService, type NamespaceService } from './namespaces/namespaces.service.ts';
import { registerNamespaceRoutes } from './namespaces/namespaces.routes.ts';
import { EventBus } from './events/bus.ts';
import { createSchemaService } from './schema/schema.service.ts';
import { registerSchemaRoutes } from './schema/schema.routes.ts';
import { createSqlService, registerSqlRoutes } from './sql/sql.routes.ts';
import { registerEventRoutes } from './events/events.routes.ts';
import { createTelemetry, telemetryMigrations } from './overview/telemetry.ts';
import { registerOverviewRoutes } from './overview/overview.routes.ts';
import type { AppContext } from '../core/http/context.ts';

export const dbMigrations = [...namespaceMigrations, ...telemetryMigrations];

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
  const events = new EventBus();
  const schema = createSchemaService({ events });
  const sql = createSqlService({ namespaces, logger: deps.logger.child({ part: 'sql' }), dataDir: deps.dataDir });
  const telemetry = createTelemetry({ platformDb: deps.platformDb, logger: deps.logger.child({ part: 'telemetry' }) });
  let eventRoutes: { close(): void } | null = null;
  deps.metrics.gauge('hearth_namespaces', 'Namespaces in the registry', () => namespaces.count());
  deps.metrics.gauge('hearth_namespace_handles_open', 'Tenant databases currently open', () => namespaces.handles.size);
  let stopJobs: (() => void) | null = null;
  return {
    namespaces,
    events,
    schema,
    registerRoutes(api: Api) {
      registerNamespaceRoutes(api, { namespaces, uploadLimit: deps.uploadLimit, uploadMemoryLimit: deps.uploadMemoryLimit });
      registerSchemaRoutes(api, { namespaces, schema });
      registerSqlRoutes(api, { namespaces, sql });
      eventRoutes = registerEventRoutes(api, { namespaces, events });
      registerOverviewRoutes(api, { namespaces, telemetry });
    },
    /** Called by the HTTP layer when any request finishes: data-plane requests feed namespace telemetry. */
    observeRequest(ctx: AppContext, seconds: number) {
      const ns = ctx.state.namespace;
      if (!ns || !ctx.path.startsWith(`/v1/${ns}/`)) return;
      telemetry.observe({ ns, status: ctx.status, seconds, rowsRead: ctx.state.rowsRead ?? 0, rowsWritten: ctx.state.rowsWritten ?? 0 });
    },
    start() {
      const removed = namespaces.sweepOrphans();
      if (removed) deps.logger.warn({ removed }, 'removed orphaned namespace files');
      stopJobs = namespaces.startJobs();
      telemetry.start();
    },
    async close() {
      stopJobs?.();
      eventRoutes?.close();
      await sql.close();
      telemetry.close();
      await namespaces.close();
    },
  };
}

export type DbService = ReturnType<typeof createDbService>;
export type { NamespaceService };
