/** The database service: the namespace control plane (and, later, the data plane). Other domains use only this file. */

import type { AuditLog } from '../core/audit/audit.ts';
import type { BackupPart } from '../core/backup/index.ts';
import type { Api } from '../core/http/api.ts';
import type { AppContext, HotContext } from '../core/http/app-context.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { Metrics } from '../core/metrics/metrics.ts';
import { ForwardAgents } from '../core/net/forward.ts';
import type { Store } from '../core/storage/store.ts';
import { EventBus } from './events/bus.ts';
import { registerEventRoutes } from './events/events.routes.ts';
import { registerNamespaceRoutes } from './namespaces/namespaces.routes.ts';
import { createNamespaceService, type NamespaceService } from './namespaces/namespaces.service.ts';
import { createNamespaceStore, namespaceMigrations } from './namespaces/namespaces.store.ts';
import { createForwarding, WriteGate } from './nodes/forwarding.ts';
import { createMover } from './nodes/move.ts';
import { createNodes, type NodeHealth, nodeIdOf, nodeMigrations, type Owner } from './nodes/nodes.ts';
import { registerOverviewRoutes } from './overview/overview.routes.ts';
import { createTelemetry, telemetryMigrations } from './overview/telemetry.ts';
import { csvImportHandler } from './rows/csv.routes.ts';
import { registerFunctions } from './rows/functions.ts';
import { registerRestRoutes, registerRowRoutes } from './rows/rows.routes.ts';
import { createRowsService, type InlineReads } from './rows/rows.service.ts';
import { registerSchemaRoutes } from './schema/schema.routes.ts';
import { createSchemaService } from './schema/schema.service.ts';
import { createSqlService, registerSqlRoutes } from './sql/sql.routes.ts';

export const dbMigrations = [...namespaceMigrations, ...telemetryMigrations, ...nodeMigrations];
export type { NodeHealth, Owner };

export interface DbServiceDeps {
  /** The core store (platform.db or PostgreSQL): the namespace registry and the telemetry rollups. */
  store: Store;
  audit: AuditLog;
  logger: Logger;
  metrics: Metrics;
  dataDir: string;
  maxOpenNamespaces: number;
  uploadLimit: number;
  uploadMemoryLimit: number;
  /** Query processes at most (tenant reads run there: read-only SQL, listings, exports). */
  queryProcesses?: number;
  /** Resident set a query process may reach while it works (bytes). */
  queryMemoryLimit?: number;
  /** Change events (HEARTH_SSE_*, declared in server/core/config): keepalive, retry hint, per-subscriber backlog, replay buffer. */
  events?: { keepaliveMs?: number; retryMs?: number; maxQueueBytes?: number; bufferEvents?: number; bufferBytes?: number };
  /** This node among the replicas sharing the core store (HEARTH_NODE_*, declared in server/core/config). */
  node?: {
    id?: string;
    healthyMs?: number;
    version?: string;
    /** Forwarding to the node holding a namespace (HEARTH_NODE_CONNECT_TIMEOUT_MS, …_ANSWER_TIMEOUT_MS, …_CA_FILE's PEM). */
    connectTimeoutMs?: number;
    answerTimeoutMs?: number;
    ca?: string | Buffer | Array<string | Buffer>;
    /** APP_SECRET, the same on every replica: node-to-node requests (a namespace's move) are signed under it. */
    secret?: string;
  };
  /** Knobs for tests and benchmarks (defaults otherwise). */
  options?: DbOptions;
}

export interface DbOptions {
  /** When a listing may run on the server's own connection (server/db/rows/rows.service.ts). */
  inlineReads?: Partial<InlineReads>;
}

export function createDbService(deps: DbServiceDeps) {
  const events = new EventBus({ bufferSize: deps.events?.bufferEvents, bufferBytes: deps.events?.bufferBytes });
  const registry = createNamespaceStore(deps.store, { logger: deps.logger.child({ part: 'registry' }) });
  const telemetry = createTelemetry({ store: deps.store, namespaces: registry, logger: deps.logger.child({ part: 'telemetry' }) });
  const nodeId = nodeIdOf(deps.dataDir, deps.node?.id);
  const nodes = createNodes({
    store: deps.store,
    logger: deps.logger.child({ part: 'nodes' }),
    id: nodeId,
    version: deps.node?.version ?? 'unknown',
    healthyMs: deps.node?.healthyMs ?? 15_000,
    namespacesOn: () => registry.perNode(),
    openHere: () => namespaces.handles.size,
  });
  const namespaces = createNamespaceService({
    store: registry,
    node: nodeId,
    place: (requested) => nodes.place(requested),
    audit: deps.audit,
    logger: deps.logger,
    dataDir: deps.dataDir,
    maxOpen: deps.maxOpenNamespaces,
    // A namespace just opened will be read: start a query process ahead of the first read.
    onOpen: (db) => {
      registerFunctions(db);
      sql.pool.prewarm();
    },
    // A deleted or replaced database: end its event streams (old ids now read as lost) and forget pending telemetry.
    onGone: (ns, why) => {
      events.drop(ns);
      if (why === 'deleted') void telemetry.forget(ns);
    },
  });
  const agents = new ForwardAgents({ ca: deps.node?.ca });
  const gate = new WriteGate();
  const ownerOf = (ns: string): Owner | null => {
    const row = registry.get(ns);
    if (!row) return null;
    const node = row.node ?? nodeId;
    return nodes.owner(node) ?? { node, url: '', healthy: false };
  };
  const forwarding = createForwarding({
    self: nodeId,
    agents,
    ownerOf,
    refresh: (ns) => registry.refresh(ns),
    writeWaitMs: (ns) => {
      const row = registry.get(ns);
      return Math.max(1000, row ? (JSON.parse(row.config) as { busy_timeout: number }).busy_timeout : 0);
    },
    nodeUrls: () => nodes.list().map((n) => n.url),
    gate,
    connectTimeoutMs: deps.node?.connectTimeoutMs,
    answerTimeoutMs: deps.node?.answerTimeoutMs,
  });
  // A node gone dark: its connections are dropped, so no request waits on them.
  nodes.onDown((n) => {
    if (n.url) agents.drop(n.url);
  });
  const mover = createMover({
    self: nodeId,
    secret: deps.node?.secret,
    agents,
    nodes,
    registry,
    namespaces,
    audit: deps.audit,
    gate,
    logger: deps.logger.child({ part: 'move' }),
    connectTimeoutMs: deps.node?.connectTimeoutMs,
  });
  const schema = createSchemaService({ events });
  const sql = createSqlService({
    namespaces,
    logger: deps.logger.child({ part: 'queries' }),
    poolSize: deps.queryProcesses,
    memoryLimit: deps.queryMemoryLimit,
  });
  const rows = createRowsService({ events, queries: sql, inline: deps.options?.inlineReads });
  let eventRoutes: { close(): void } | null = null;
  deps.metrics.gauge('hearth_namespaces', 'Namespaces in the registry', () => namespaces.count());
  deps.metrics.gauge('hearth_nodes_healthy', 'Nodes whose heartbeat is recent (replicas sharing the core store)', () =>
    nodes.list().reduce((n, x) => n + Number(x.healthy), 0),
  );
  deps.metrics.labelledGauge('hearth_node_namespaces', 'Namespaces placed on each node', 'node', () => [...registry.perNode()]);
  deps.metrics.gauge('hearth_namespace_handles_open', 'Tenant databases currently open', () => namespaces.handles.size);
  deps.metrics.gauge('hearth_sql_children', 'Query processes running (tenant reads: read-only SQL, listings, exports)', () => sql.pool.stats.children);
  deps.metrics.gauge('hearth_sql_busy', 'Query processes running a read', () => sql.pool.stats.busy);
  deps.metrics.gauge(
    'hearth_namespace_writes_held',
    "Namespaces whose new writes wait for a CSV import (its worker thread holds the database's write lock)",
    () => gate.holds,
  );
  deps.metrics.gauge('hearth_sse_subscribers', 'Open change-event streams', () => events.subscribers());
  deps.metrics.gauge('hearth_sse_dropped_subscribers', 'Change-event subscribers dropped for falling behind since start', () => events.droppedSubscribers);
  deps.metrics.gauge('hearth_sql_idle', 'Query processes started and waiting for a read', () => sql.pool.stats.idle);
  deps.metrics.gauge('hearth_sql_queued', 'Reads waiting for a query process', () => sql.pool.stats.queued);
  deps.metrics.gauge(
    'hearth_sql_exports_waiting',
    'CSV exports paused until their client reads on (their query_timeout does not run meanwhile)',
    () => sql.pool.stats.waiting,
  );
  deps.metrics.gauge('hearth_query_timeouts', 'Reads stopped at their query_timeout since start', () => sql.pool.stats.timeouts);
  deps.metrics.gauge('hearth_query_memory_exceeded', "Reads stopped at the query processes' memory limit since start", () => sql.pool.stats.memoryExceeded);
  let stopJobs: (() => void) | null = null;
  return {
    namespaces,
    events,
    schema,
    rows,
    /** Tenant reads in query processes (the pool's stats are read by tests and diagnostics). */
    queries: sql,
    /** The nodes sharing the core store, as `/healthz` shows them. */
    nodes: (): NodeHealth[] => nodes.list(),
    /** Where a namespace's database lives (whom to forward its requests to); null when there is no such namespace. */
    ownerOf,
    /** The Koa middleware that forwards a request for a namespace held by another node there (nodes/forwarding.ts). */
    forwarding: forwarding.middleware,
    /** Moves a namespace to another node (nodes/move.ts). */
    move: mover.move,
    /** Calls `fn` when another node turns unhealthy (stopped, or its heartbeat too old). */
    onNodeDown: (fn: (node: Owner) => void) => nodes.onDown(fn),
    /** The URL other replicas reach this node at (once listening, and after the listener moves). */
    setNodeUrl: (url: string) => nodes.setUrl(url),
    registerRoutes(api: Api) {
      registerNamespaceRoutes(api, {
        namespaces,
        uploadLimit: deps.uploadLimit,
        uploadMemoryLimit: deps.uploadMemoryLimit,
        // `POST /v1/namespaces/{ns}/import?table=…`: CSV rows into a table, in one transaction.
        importTable: csvImportHandler({ namespaces, rows, gate, uploadLimit: deps.uploadLimit, uploadMemoryLimit: deps.uploadMemoryLimit }),
      });
      registerSchemaRoutes(api, { namespaces, schema });
      registerRowRoutes(api, { namespaces, rows, queries: sql, elsewhere: forwarding.elsewhere });
      mover.registerRoutes(api);
      registerRestRoutes(api, { namespaces, rows });
      registerSqlRoutes(api, { namespaces, sql });
      eventRoutes = registerEventRoutes(api, {
        namespaces,
        events,
        keepaliveMs: deps.events?.keepaliveMs,
        retryMs: deps.events?.retryMs,
        maxQueueBytes: deps.events?.maxQueueBytes,
      });
      registerOverviewRoutes(api, { namespaces, telemetry });
    },
    /** Ends every change-event stream (first step of a graceful shutdown, so open streams do not hold it up). */
    closeStreams() {
      eventRoutes?.close();
    },
    /**
     * A backup's parts of the database service: one SQLite part per namespace (`namespaces/<fileId>.db`), copied by
     * the namespace's own online backup; a namespace deleted or replaced meanwhile is left out (`vanished`).
     */
    backupParts(): BackupPart[] {
      return namespaces.files().map(({ name, fileId }) => ({
        kind: 'sqlite',
        name: `namespaces/${fileId}.db`,
        snapshot: (dest, onProgress) => namespaces.snapshot(name, fileId, dest, onProgress),
        meta: { namespace: name, fileId },
      }));
    },
    /** Called by the HTTP layer when any request finishes: data-plane requests feed namespace telemetry. */
    observeRequest(ctx: AppContext | HotContext, seconds: number) {
      // Only requests that passed the namespace gate count: unauthenticated traffic cannot inflate the figures.
      const ns = ctx.state.namespace;
      if (!ns || !ctx.path.startsWith(`/v1/${ns}/`)) return;
      telemetry.observe({ ns, status: ctx.status, seconds, rowsRead: ctx.state.rowsRead ?? 0, rowsWritten: ctx.state.rowsWritten ?? 0 });
    },
    /** Loads the namespace registry (before the first request), removes orphaned files, starts the jobs. */
    async start() {
      await registry.start();
      const claimed = await registry.claim(nodeId, deps.store.dialect === 'sqlite');
      if (claimed) deps.logger.info({ node: nodeId, claimed }, 'namespaces placed on this node');
      await nodes.start();
      namespaces.materializePlaced();
      const removed = await namespaces.sweepOrphans();
      if (removed) deps.logger.warn({ removed }, 'removed orphaned namespace files');
      stopJobs = namespaces.startJobs();
      telemetry.start();
    },
    async close() {
      stopJobs?.();
      await nodes.stop();
      agents.close();
      eventRoutes?.close();
      await sql.close();
      await telemetry.close();
      await namespaces.close();
    },
  };
}

export type DbService = ReturnType<typeof createDbService>;
export type { NamespaceService };
