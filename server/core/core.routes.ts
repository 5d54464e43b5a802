import fs from 'node:fs';
import { z } from 'zod';
import type { AuditLog } from './audit/audit.ts';
import { actorFor } from './auth/auth.ts';
import type { TokenService } from './auth/tokens.service.ts';
import { BackupHealth } from './backup/backup.schemas.ts';
import type { Api } from './http/api.ts';
import { SMALL_BODY_LIMIT } from './http/body.ts';
import { HearthError } from './http/errors.ts';
import { plainTextRule } from './http/text.ts';
import type { Metrics } from './metrics/metrics.ts';
import { humanBytes } from './storage/disk.ts';
import { createHealthStore } from './storage/health.store.ts';
import type { Store } from './storage/store.ts';

/** How long /healthz waits for the core store's probe write before it answers 503 (a hung PostgreSQL). */
const PROBE_TIMEOUT_MS = 3000;

/**
 * The `disk` check of /healthz fails when a file system holding the data folder (or its namespaces folder, when that
 * is another one) has less free space than its reserve: 1 % of its size, at most 64 MiB. Free space is what an
 * unprivileged writer may use (statfs: bavail × bsize). A failing `disk` check alone is `degraded`, still 200: the
 * server answers every request, and only writes that need more space are refused (507 `disk_full`).
 */
const DISK_RESERVE_SHARE = 0.01;
const DISK_RESERVE_MAX = 64 * 1024 * 1024;
/** Checks that make the answer `degraded` (200) rather than `unavailable` (503) when they alone fail. */
const DEGRADING_CHECKS = new Set(['disk']);

/** The `disk` check over `folders` (the name a message gives each → its path); each file system is measured once. */
function diskCheck(folders: Record<string, string>): { ok: boolean; message?: string } {
  const seen = new Set<number>();
  const problems: string[] = [];
  for (const [name, folder] of Object.entries(folders)) {
    try {
      const { dev } = fs.statSync(folder);
      if (seen.has(dev)) continue;
      seen.add(dev);
      const st = fs.statfsSync(folder);
      const size = st.blocks * st.bsize;
      const free = st.bavail * st.bsize;
      const reserve = Math.min(Math.floor(size * DISK_RESERVE_SHARE), DISK_RESERVE_MAX);
      if (free < reserve) problems.push(`the disk holding the ${name} has ${humanBytes(free)} free of ${humanBytes(size)} (reserve ${humanBytes(reserve)})`);
    } catch (err) {
      // The code only (ENOENT, EACCES): the answer is public, and the error's message names the path.
      problems.push(`the free space of the disk holding the ${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (!problems.length) return { ok: true };
  return { ok: false, message: `${problems.join('; ')}: writes that need more space are refused with 507 disk_full` };
}

/** `p`, or a rejection with `message` after `ms` (the timer never holds the process open). */
function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The body of /healthz, made when the OpenAPI document is (its `backup` part is backup.schemas.ts's, see server/core/http/api.ts). */
const makeHealth = () =>
  z
    .object({
      status: z.enum(['ok', 'degraded', 'unavailable']).meta({
        description:
          '`ok`: every check passed (200). `degraded`: only the `disk` check failed; every request is still answered, writes that need more space are refused with 507 `disk_full` (200). `unavailable`: another check failed (503).',
      }),
      version: z.string(),
      uptime_seconds: z.number(),
      checks: z.record(z.string(), z.object({ ok: z.boolean(), message: z.string().optional() })).meta({
        description:
          '`platform_db`: a probe write to the core store. `disk`: the disk holding the data folder (and its namespaces folder) has its reserve free (1 % of the disk, at most 64 MiB). `identity_keys`: the signing keys are loaded. `server`: present only while shutting down.',
      }),
      namespaces: z.object({ count: z.number().int(), open: z.number().int() }),
      tls: z
        .object({
          mode: z.enum(['off', 'internal', 'acme', 'files']),
          public_url: z.string().meta({ description: 'The address clients should use (issuer, passkeys, links).' }),
          ca_fingerprint_sha256: z
            .string()
            .nullable()
            .meta({ description: "`internal`: the SHA-256 fingerprint of Hearth's root (`/ca.pem`), to compare on a device before trusting it." }),
          certificate_fingerprint_sha256: z.string().nullable(),
          certificate_not_after: z.string().nullable(),
          last_error: z.string().nullable().meta({ description: 'The last failed renewal (the current certificate stays in use), until one succeeds.' }),
        })
        .optional(),
      backup: BackupHealth.optional().meta({ description: 'The last backup, the last failure and the next scheduled run.' }),
      nodes: z
        .array(
          z.object({
            id: z.string(),
            url: z.string().meta({ description: 'Where the other replicas reach it.' }),
            healthy: z.boolean().meta({ description: 'Its heartbeat is younger than HEARTH_NODE_HEALTHY_MS and it has not stopped.' }),
            heartbeat_age_ms: z.number().int(),
            namespaces: z.number().int().meta({ description: 'Namespaces placed on it.' }),
            started_at: z.string(),
            version: z.string(),
            self: z.boolean().meta({ description: 'The node that answered.' }),
          }),
        )
        .optional()
        .meta({ description: 'The nodes sharing the core store, each holding the databases of the namespaces placed on it.' }),
    })
    .meta({ id: 'Health' });
let healthSchema: ReturnType<typeof makeHealth> | undefined;
const Health = () => (healthSchema ??= makeHealth());
/** The `/healthz` answer (the admin UI reads it before any sign-in). */
export type Health = z.infer<ReturnType<typeof makeHealth>>;

const TokenInfo = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().meta({ description: 'First characters of the token, to recognise it.' }),
    scope: z.enum(['admin', 'namespaces']),
    namespaces: z.array(z.string()).nullable(),
    read_only: z.boolean(),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable().meta({ description: 'Updated at most once a minute.' }),
    revoked_at: z.string().nullable(),
  })
  .meta({ id: 'ApiToken' });

/**
 * A credential route, so a small body limit; twice the small routes' 64 KiB because the largest valid body (1000
 * namespace names of 64 characters) is about 67 KB.
 */
export const TOKEN_BODY_LIMIT = 2 * SMALL_BODY_LIMIT;

export const CreateTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100).superRefine(plainTextRule('name')),
    scope: z.enum(['admin', 'namespaces']).meta({
      description: '`admin`: control plane, administration and every namespace. `namespaces`: the data plane of the listed namespaces only.',
    }),
    namespaces: z
      .array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/))
      .min(1)
      .max(1000)
      .optional(),
    read_only: z.boolean().optional().meta({ description: 'Namespace tokens only: refuse every write.' }),
    expires_at: z.iso.datetime({ offset: true }).optional().meta({ description: 'Optional expiry (ISO 8601).' }),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.scope === 'namespaces' && !v.namespaces)
      ctx.addIssue({ code: 'custom', path: ['namespaces'], message: 'a namespaces token needs a list of namespaces' });
    if (v.scope === 'admin' && (v.namespaces || v.read_only))
      ctx.addIssue({ code: 'custom', path: ['scope'], message: 'an admin token takes neither namespaces nor read_only' });
    if (v.expires_at && Date.parse(v.expires_at) <= Date.now())
      ctx.addIssue({ code: 'custom', path: ['expires_at'], message: 'expires_at must be in the future' });
  })
  .meta({ id: 'CreateApiToken' });

export function registerCoreRoutes(
  api: Api,
  deps: {
    /** The core store (platform.db or PostgreSQL): /healthz writes its probe row (storage/health.store.ts). */
    store: Store;
    metrics: Metrics;
    tokens: TokenService;
    audit: AuditLog;
    version: string;
    startedAt: number;
    counts: () => { count: number; open: number };
    isClosing: () => boolean;
    readiness?: () => Record<string, string | null>;
    tls?: () => Health['tls'];
    backup?: () => Health['backup'];
    nodes?: () => Health['nodes'];
    /** The folders whose disks the `disk` check measures, by the name its message gives each ('data folder', …). */
    dataFolders?: Record<string, string>;
  },
): void {
  const health = createHealthStore(deps.store);

  api.route({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    tags: ['Operations'],
    access: 'public',
    summary: 'Health',
    description:
      'Answers 200 when the server can serve requests: `status: ok`, or `degraded` when only the `disk` check fails (less free space than its reserve, 1 % of the disk and at most 64 MiB, on the disk holding the data folder: writes that need more space answer 507 `disk_full`). Answers 503 `unavailable` when the platform database cannot be written, the signing keys are not loaded, or the server is shutting down.',
    responses: {
      200: { description: 'Serving: `status: ok`, or `degraded` with the failing `disk` check and its message.', schema: Health },
      503: { description: 'Unhealthy (same body, `status: unavailable`).', schema: Health },
    },
    handler: async (ctx) => {
      const checks: Record<string, { ok: boolean; message?: string }> = {};
      // The key keeps its name on PostgreSQL too (monitors match on it); the message names the engine.
      const what = deps.store.dialect === 'postgres' ? 'core store (PostgreSQL)' : 'platform database';
      try {
        await withTimeout(health.probe(new Date().toISOString()), PROBE_TIMEOUT_MS, `no answer within ${PROBE_TIMEOUT_MS} ms`);
        checks.platform_db = { ok: true };
      } catch (err) {
        checks.platform_db = { ok: false, message: `${what} cannot be written: ${(err as Error).message}` };
      }
      if (deps.dataFolders) checks.disk = diskCheck(deps.dataFolders);
      for (const [name, problem] of Object.entries(deps.readiness?.() ?? {})) checks[name] = problem === null ? { ok: true } : { ok: false, message: problem };
      if (deps.isClosing()) checks.server = { ok: false, message: 'shutting down' };
      const failed = Object.keys(checks).filter((name) => !checks[name]!.ok);
      const serving = failed.every((name) => DEGRADING_CHECKS.has(name));
      ctx.status = serving ? 200 : 503;
      ctx.set('Cache-Control', 'no-store');
      const counts = serving || checks.platform_db?.ok ? safeCounts(deps.counts) : { count: 0, open: 0 };
      return {
        status: !failed.length ? 'ok' : serving ? 'degraded' : 'unavailable',
        version: deps.version,
        uptime_seconds: Math.round((Date.now() - deps.startedAt) / 1000),
        checks,
        namespaces: counts,
        tls: deps.tls?.(),
        backup: deps.backup?.(),
        nodes: deps.nodes?.(),
      };
    },
  });

  api.route({
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tags: ['Operations'],
    access: 'public',
    summary: 'Prometheus metrics',
    description:
      'Prometheus text format: `hearth_http_requests_total` and `hearth_http_request_duration_seconds` by method, route and status; `hearth_namespaces`; `hearth_namespace_handles_open`; `hearth_nodes_healthy` and `hearth_node_namespaces` by node; `hearth_backup_last_success_timestamp_seconds`, `hearth_backup_last_failure_timestamp_seconds`, `hearth_backup_running` and `hearth_backup_duration_seconds`; Node.js process metrics including `hearth_nodejs_eventloop_lag_seconds`.',
    responses: { 200: { description: 'Metrics.', contentType: 'text/plain; version=0.0.4', schema: z.string() } },
    handler: async (ctx) => {
      ctx.type = deps.metrics.registry.contentType;
      ctx.set('Cache-Control', 'no-store');
      return await deps.metrics.registry.metrics();
    },
  });

  api.route({
    method: 'get',
    path: '/api/admin/tokens',
    operationId: 'listTokens',
    tags: ['API tokens'],
    access: 'admin',
    summary: 'List API tokens',
    description: 'Never returns token secrets.',
    responses: { 200: { description: 'All tokens, revoked ones included.', schema: z.object({ data: z.array(TokenInfo) }) } },
    handler: async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      return { data: await deps.tokens.list() };
    },
  });

  api.route({
    method: 'post',
    path: '/api/admin/tokens',
    operationId: 'createToken',
    tags: ['API tokens'],
    access: 'admin',
    summary: 'Create an API token',
    description: 'The secret `token` is in this answer only; Hearth stores its SHA-256.',
    body: CreateTokenBody,
    bodyLimit: { max: TOKEN_BODY_LIMIT },
    responses: { 201: { description: 'Created.', schema: TokenInfo.extend({ token: z.string() }).meta({ id: 'CreatedApiToken' }) } },
    handler: async (ctx, { body }) => {
      const { token, info } = await deps.tokens.create({
        name: body.name,
        scope: body.scope,
        namespaces: body.namespaces,
        readOnly: body.read_only,
        expiresAt: body.expires_at ?? null,
      });
      const a = actorFor(ctx);
      deps.audit.record({
        actor: a.actor,
        action: 'token.create',
        target: info.id,
        detail: { name: info.name, scope: info.scope, namespaces: info.namespaces, read_only: info.read_only },
        requestId: a.requestId,
      });
      ctx.status = 201;
      ctx.set('Cache-Control', 'no-store');
      return { ...info, token };
    },
  });

  api.route({
    method: 'delete',
    path: '/api/admin/tokens/:id',
    operationId: 'revokeToken',
    tags: ['API tokens'],
    access: 'admin',
    summary: 'Revoke an API token',
    description: 'The record stays (with `revoked_at`) for the audit trail.',
    params: z.object({ id: z.string() }),
    responses: { 204: { description: 'Revoked.' }, 404: { description: 'No such token (`token_not_found`).' } },
    handler: async (ctx, { params }) => {
      const before = await deps.tokens.get(params.id);
      const info = await deps.tokens.revoke(params.id);
      const a = actorFor(ctx);
      if (!before.revoked_at)
        await deps.audit.record({ actor: a.actor, action: 'token.revoke', target: info.id, detail: { name: info.name }, requestId: a.requestId });
      ctx.status = 204;
    },
  });

  api.route({
    method: 'get',
    path: '/api/admin/audit',
    operationId: 'listAudit',
    tags: ['Audit'],
    access: 'admin',
    summary: 'Read the audit log',
    description: 'Newest first. Pass the last `id` of a page as `before` for the next one.',
    query: z
      .object({
        limit: z.coerce.number().int().min(1).max(500).default(100),
        before: z.coerce.number().int().min(1).optional(),
        action: z.string().max(100).optional(),
      })
      .strict(),
    responses: {
      200: {
        description: 'Audit records.',
        schema: z.object({
          data: z.array(
            z.object({
              id: z.number(),
              at: z.string(),
              actor: z.string(),
              action: z.string(),
              target: z.string().nullable(),
              detail: z.record(z.string(), z.unknown()).nullable(),
              request_id: z.string().nullable(),
            }),
          ),
        }),
      },
    },
    handler: async (_ctx, { query }) => ({ data: await deps.audit.list(query) }),
  });
}

function safeCounts(read: () => { count: number; open: number }) {
  try {
    return read();
  } catch (err) {
    throw new HearthError('service_unavailable', `cannot read the namespace registry: ${(err as Error).message}`);
  }
}
