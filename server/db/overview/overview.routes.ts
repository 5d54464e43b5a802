import { z } from 'zod';
import type { Api } from '../../core/http/api.ts';
import { measureStorage, type TenantDb } from '../namespaces/handles.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import { NsParams, openTenant } from '../plane.ts';
import { describe, listIndexes, listObjects } from '../schema/catalog.ts';
import { HISTOGRAM_BUCKETS, HOUR_SLOTS, MINUTE_SLOTS, OVERVIEW_WINDOWS, type Telemetry } from './telemetry.ts';

const tags = ['Overview'];

export const OverviewQuery = z
  .object({
    window: z.enum(OVERVIEW_WINDOWS).default('24h').meta({ description: 'Telemetry window: `1h`, `24h` (default), `7d` or `30d`.' }),
  })
  .strict();

const ms = z.number().nullable();

const SeriesPoint = z
  .object({
    start: z.string().meta({ description: 'Start of the bucket, UTC ISO 8601.' }),
    requests: z.number().int(),
    errors: z.number().int().meta({ description: '`client_errors + server_errors`.' }),
    client_errors: z.number().int().meta({ description: 'Responses with status 400–499.' }),
    server_errors: z.number().int().meta({ description: 'Responses with status 500 and above.' }),
    rows_read: z.number().int(),
    rows_written: z.number().int(),
    p50_ms: ms,
    p95_ms: ms,
    avg_ms: ms,
  })
  .meta({ id: 'OverviewSeriesPoint' });

export const OverviewSchema = z
  .object({
    namespace: z.string(),
    window: z.enum(OVERVIEW_WINDOWS),
    generated_at: z.string().meta({ description: 'UTC ISO 8601.' }),
    storage: z.object({
      size_bytes: z.number().int().meta({ description: 'Size of the database file.' }),
      wal_bytes: z.number().int().meta({ description: 'Size of the write-ahead log (0 when there is none).' }),
      page_size: z.number().int(),
      page_count: z.number().int(),
      free_pages: z.number().int().meta({ description: 'Pages on the free list (reusable without growing the file).' }),
      free_bytes: z.number().int().meta({ description: '`free_pages × page_size`.' }),
      max_db_size: z.number().int().nullable().meta({ description: 'The namespace quota in bytes (`config.max_db_size`); null without a quota.' }),
    }),
    schema: z.object({
      tables: z.number().int(),
      views: z.number().int(),
      indexes: z.number().int().meta({ description: 'Indexes of kind `index` and `unique` created on tables.' }),
      fts_indexes: z.number().int().meta({ description: 'Tables with a full-text-search index.' }),
      columns: z.number().int().meta({ description: 'Columns of tables, without the service-maintained `id`, `created_at` and `updated_at`.' }),
    }),
    telemetry: z.object({
      resolution: z.enum(['minute', 'hour', 'day']).meta({ description: 'Width of one `series` point.' }),
      from: z.string().meta({ description: 'Start of the first series point, UTC ISO 8601.' }),
      to: z.string().meta({ description: 'End of the window (now), UTC ISO 8601.' }),
      requests: z.number().int(),
      errors: z.number().int(),
      client_errors: z.number().int(),
      server_errors: z.number().int(),
      rows_read: z.number().int(),
      rows_written: z.number().int(),
      latency_ms: z
        .object({ p50: ms, p95: ms, p99: ms, avg: ms, max: ms })
        .meta({ description: 'Estimated from a log-scale histogram; null when the window has no requests.' }),
      series: z.array(SeriesPoint),
    }),
  })
  .meta({ id: 'NamespaceOverview' });

export type Overview = z.infer<typeof OverviewSchema>;

const DESCRIPTION = `Live storage (measured now on the open database), schema counts, and request telemetry of the namespace over \`window\`.

**Telemetry.** Every finished data-plane request (\`/v1/{ns}/…\`, including this one, counted after it answers) adds to its namespace's rollups: requests, client errors (status 400–499), server errors (≥ 500), rows read and written, and request latency. Requests that fail before the namespace is resolved (401, 403, body validation) are not attributed to it.

**Windows and series.** The window is the most recent \`series\` buckets, the current (partial) bucket last:
- \`1h\`: 60 one-minute points;
- \`24h\`: 24 one-hour points;
- \`7d\`: 168 one-hour points;
- \`30d\`: 30 UTC-day points (summed from hour rollups).

Totals are the sums over \`series\`. Buckets start on UTC minute, hour or day boundaries.

**Latency.** Each bucket keeps a fixed ${HISTOGRAM_BUCKETS}-bucket log-scale histogram (upper bounds 0.25 ms × 2^i); \`p50\`, \`p95\` and \`p99\` are estimated by interpolating inside the bucket holding the rank (so an estimate is within the factor-of-2 range of its histogram bucket, and never above the largest latency seen), \`avg\` and \`max\` are exact.

**Bounded storage.** Rollups live in the platform database with a fixed number of rows per namespace: a ring of ${MINUTE_SLOTS} minute buckets and a ring of ${HOUR_SLOTS} hour buckets; a bucket's slot is reset when a newer bucket reuses it. Samples are aggregated in memory and written every few seconds and at shutdown; this endpoint includes the not-yet-written samples. Telemetry is dropped with the namespace.`;

/** `GET /v1/{ns}/overview`. */
export function registerOverviewRoutes(api: Api, deps: { namespaces: NamespaceService; telemetry: Telemetry }): void {
  const { namespaces, telemetry } = deps;

  api.route({
    method: 'get',
    path: '/v1/:ns/overview',
    operationId: 'namespaceOverview',
    tags,
    access: 'authenticated',
    summary: 'Namespace overview: storage, schema and telemetry',
    description: DESCRIPTION,
    params: NsParams,
    query: OverviewQuery,
    responses: {
      200: { description: 'The overview.', schema: OverviewSchema },
      400: { description: '`window` is not one of `1h`, `24h`, `7d`, `30d`, or an unknown query parameter (`invalid_request`).' },
      403: { description: 'The token may not use this namespace (`forbidden`).' },
      404: { description: 'No such namespace (`namespace_not_found`).' },
    },
    handler: async (ctx, { params, query }): Promise<Overview> => {
      const t = openTenant(ctx, namespaces, params.ns, 'read');
      const file = namespaces.handles.fileOf(t.ns);
      const st = measureStorage(t.db, file ?? '');
      const traffic = await telemetry.window(t.ns, query.window);
      return {
        namespace: t.ns,
        window: query.window,
        generated_at: new Date().toISOString(),
        storage: {
          size_bytes: st.size_bytes,
          wal_bytes: st.wal_bytes,
          page_size: st.page_size,
          page_count: st.page_count,
          free_pages: st.free_pages,
          free_bytes: st.free_pages * st.page_size,
          max_db_size: t.config.max_db_size ?? null,
        },
        schema: schemaCounts(t.db),
        telemetry: traffic,
      };
    },
  });
}

export function schemaCounts(db: TenantDb): Overview['schema'] {
  const out = { tables: 0, views: 0, indexes: 0, fts_indexes: 0, columns: 0 };
  for (const o of listObjects(db)) {
    if (o.type === 'view') {
      out.views++;
      continue;
    }
    out.tables++;
    const info = describe(db, o.name);
    if (!info) continue;
    out.columns += info.columns.filter((c) => !c.system).length;
    for (const ix of listIndexes(db, info)) {
      if (ix.type === 'fts') out.fts_indexes++;
      else out.indexes++;
    }
  }
  return out;
}
