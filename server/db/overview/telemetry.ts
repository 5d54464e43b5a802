/**
 * Bounded per-namespace telemetry.
 *
 * Two ring tables in the core store (platform.db or PostgreSQL) hold rollups with a FIXED number of rows per namespace:
 *   ns_telemetry_minute: 60 slots of one minute (the `1h` window),
 *   ns_telemetry_hour:  720 slots of one hour   (the `24h`, `7d` and `30d` windows).
 * A bucket starting at `bucket_start` (unix seconds) lives in slot `(bucket_start / bucket) % slots`; when a slot is
 * reused by a newer bucket its row is reset, so a namespace never has more than 60 + 720 rows (a CHECK on `slot`
 * enforces it). Rows reference the registry (ON DELETE CASCADE): deleting a namespace drops its telemetry.
 *
 * `observe()` only aggregates in memory; `flush()` (every few seconds and on `close()`) writes all pending buckets
 * in one transaction. Reads merge the pending buckets in, so the overview is current. Flushes and reads run one at a
 * time (a read never sees a batch half written, nor counts one twice). A slot's row is read and written back under
 * a row lock on PostgreSQL (two replicas flushing the same namespace add up instead of overwriting each other).
 * A flush writes rows only for the namespaces the registry holds when its transaction asks (`isStored`, read inside
 * the flush's transaction).
 *
 * One file because the ring tables, the pending aggregates and the window reads are one arithmetic: the same buckets,
 * slots and aggregate (`Agg`, merged the same way when written and when read), and the histogram codec is the format
 * of a stored row; split, each part would reach into the others' internals.
 */
import type { Logger } from '../../core/logging/logger.ts';
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';
import type { NamespaceStore } from '../namespaces/namespaces.store.ts';

export const MINUTE_SLOTS = 60;
export const HOUR_SLOTS = 24 * 30;
const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;

/**
 * Latency histogram: log-scale buckets with upper bounds 0.25 ms · 2^i (i = 0…22, up to ~17.5 minutes) plus an
 * overflow bucket: 24 counts, stored as 24 little-endian uint32 (96 bytes).
 */
export const LATENCY_BOUNDS_MS: readonly number[] = Array.from({ length: 23 }, (_, i) => 0.25 * 2 ** i);
export const HISTOGRAM_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

const TELEMETRY_002 = ['ns_telemetry_minute', 'ns_telemetry_hour']
  .map(
    (table, i) => `
      CREATE TABLE ${table} (
        ns TEXT NOT NULL REFERENCES namespaces (name) ON DELETE CASCADE,
        slot INTEGER NOT NULL CHECK (slot >= 0 AND slot < ${i === 0 ? MINUTE_SLOTS : HOUR_SLOTS}),
        bucket_start INTEGER NOT NULL,    -- unix seconds, start of the ${i === 0 ? 'minute' : 'hour'}
        requests INTEGER NOT NULL,
        client_errors INTEGER NOT NULL,   -- status 400-499
        server_errors INTEGER NOT NULL,   -- status >= 500
        rows_read INTEGER NOT NULL,
        rows_written INTEGER NOT NULL,
        latency_sum_ms REAL NOT NULL,
        latency_max_ms REAL NOT NULL,
        latency_hist BLOB NOT NULL,       -- ${HISTOGRAM_BUCKETS} x uint32 LE, see LATENCY_BOUNDS_MS
        PRIMARY KEY (ns, slot)
      ) STRICT, WITHOUT ROWID;`,
  )
  .join('\n');

export const telemetryMigrations: Migration[] = [{ id: 'db-002-telemetry', up: TELEMETRY_002, pg: postgresDdl(TELEMETRY_002) }];

/** One finished data-plane request, as the HTTP layer saw it. */
export interface RequestSample {
  ns: string;
  status: number;
  seconds: number;
  rowsRead: number;
  rowsWritten: number;
}

export type OverviewWindow = '1h' | '24h' | '7d' | '30d';
export const OVERVIEW_WINDOWS = ['1h', '24h', '7d', '30d'] as const satisfies readonly OverviewWindow[];

interface Agg {
  requests: number;
  clientErrors: number;
  serverErrors: number;
  rowsRead: number;
  rowsWritten: number;
  latencySumMs: number;
  latencyMaxMs: number;
  hist: number[];
}

const emptyAgg = (): Agg => ({
  requests: 0,
  clientErrors: 0,
  serverErrors: 0,
  rowsRead: 0,
  rowsWritten: 0,
  latencySumMs: 0,
  latencyMaxMs: 0,
  hist: new Array<number>(HISTOGRAM_BUCKETS).fill(0),
});

function mergeInto(a: Agg, b: Agg): void {
  a.requests += b.requests;
  a.clientErrors += b.clientErrors;
  a.serverErrors += b.serverErrors;
  a.rowsRead += b.rowsRead;
  a.rowsWritten += b.rowsWritten;
  a.latencySumMs += b.latencySumMs;
  a.latencyMaxMs = Math.max(a.latencyMaxMs, b.latencyMaxMs);
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) a.hist[i]! += b.hist[i] ?? 0;
}

/** Index of the histogram bucket a latency falls in (upper bounds inclusive; the last bucket is overflow). */
export function latencyBucket(ms: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (ms <= LATENCY_BOUNDS_MS[i]!) return i;
  return LATENCY_BOUNDS_MS.length;
}

/**
 * Estimates the q-quantile (0 < q ≤ 1) of a latency histogram: finds the bucket holding rank q·n and interpolates
 * log-linearly inside it (linearly in the first bucket, which starts at 0). The estimate never exceeds `maxMs`, the
 * largest latency seen, which also bounds the overflow bucket. Null when the histogram is empty.
 */
export function estimatePercentile(hist: readonly number[], q: number, maxMs?: number): number | null {
  let total = 0;
  for (const c of hist) total += c;
  if (total === 0) return null;
  const rank = Math.min(Math.max(q, 0), 1) * total;
  let before = 0;
  let i = 0;
  for (; i < hist.length - 1; i++) {
    const c = hist[i]!;
    if (c > 0 && before + c >= rank) break;
    before += c;
  }
  const count = hist[i]!;
  const f = count > 0 ? Math.min(Math.max((rank - before) / count, 0), 1) : 1;
  const lower = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
  let upper = i < LATENCY_BOUNDS_MS.length ? LATENCY_BOUNDS_MS[i]! : lower * 2;
  if (i >= LATENCY_BOUNDS_MS.length && maxMs !== undefined && maxMs > lower) upper = maxMs;
  let est = lower === 0 ? upper * f : lower * (upper / lower) ** f;
  if (maxMs !== undefined && maxMs > 0) est = Math.min(est, maxMs);
  return est;
}

export function encodeHistogram(hist: readonly number[]): Buffer {
  const buf = Buffer.alloc(HISTOGRAM_BUCKETS * 4);
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) buf.writeUInt32LE(Math.min(hist[i] ?? 0, 0xffffffff), i * 4);
  return buf;
}

export function decodeHistogram(buf: Buffer | Uint8Array | null | undefined): number[] {
  const out = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  if (!buf) return out;
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf);
  for (let i = 0; i < HISTOGRAM_BUCKETS && (i + 1) * 4 <= b.length; i++) out[i] = b.readUInt32LE(i * 4);
  return out;
}

interface StoredRow {
  ns: string;
  slot: number;
  bucket_start: number;
  requests: number;
  client_errors: number;
  server_errors: number;
  rows_read: number;
  rows_written: number;
  latency_sum_ms: number;
  latency_max_ms: number;
  latency_hist: Buffer;
}

const rowToAgg = (r: StoredRow): Agg => ({
  requests: r.requests,
  clientErrors: r.client_errors,
  serverErrors: r.server_errors,
  rowsRead: r.rows_read,
  rowsWritten: r.rows_written,
  latencySumMs: r.latency_sum_ms,
  latencyMaxMs: r.latency_max_ms,
  hist: decodeHistogram(r.latency_hist),
});

const round = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000);
const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export interface LatencySummary {
  p50: number | null;
  p95: number | null;
  p99: number | null;
  avg: number | null;
  max: number | null;
}

export interface SeriesPoint {
  start: string;
  requests: number;
  errors: number;
  client_errors: number;
  server_errors: number;
  rows_read: number;
  rows_written: number;
  p50_ms: number | null;
  p95_ms: number | null;
  avg_ms: number | null;
}

export interface WindowTelemetry {
  resolution: 'minute' | 'hour' | 'day';
  from: string;
  to: string;
  requests: number;
  errors: number;
  client_errors: number;
  server_errors: number;
  rows_read: number;
  rows_written: number;
  latency_ms: LatencySummary;
  series: SeriesPoint[];
}

function latencyOf(a: Agg): LatencySummary {
  const n = a.hist.reduce((s, c) => s + c, 0);
  const max = n > 0 ? a.latencyMaxMs : undefined;
  return {
    p50: round(estimatePercentile(a.hist, 0.5, max)),
    p95: round(estimatePercentile(a.hist, 0.95, max)),
    p99: round(estimatePercentile(a.hist, 0.99, max)),
    avg: n > 0 ? round(a.latencySumMs / n) : null,
    max: n > 0 ? round(a.latencyMaxMs) : null,
  };
}

const WINDOWS: Record<OverviewWindow, { resolution: 'minute' | 'hour' | 'day'; step: number; points: number; table: 'minute' | 'hour' }> = {
  '1h': { resolution: 'minute', step: MINUTE, points: 60, table: 'minute' },
  '24h': { resolution: 'hour', step: HOUR, points: 24, table: 'hour' },
  '7d': { resolution: 'hour', step: HOUR, points: 24 * 7, table: 'hour' },
  '30d': { resolution: 'day', step: DAY, points: 30, table: 'hour' },
};

/** Most namespaces held in memory between flushes (requests naming unknown namespaces cannot grow it further). */
const MAX_PENDING_NAMESPACES = 10_000;

/** Bounded per-namespace telemetry rollups in the core store. */
export function createTelemetry(deps: {
  store: Store;
  /** The registry: a flush keeps rollups only for the namespaces stored when its transaction reads them. */
  namespaces: Pick<NamespaceStore, 'isStored'>;
  logger: Logger;
  now?: () => number;
  flushIntervalMs?: number;
}) {
  const { store, namespaces, logger } = deps;
  const now = deps.now ?? Date.now;
  const flushIntervalMs = deps.flushIntervalMs ?? 5000;

  const tables = {
    minute: { name: 'ns_telemetry_minute', bucket: MINUTE, slots: MINUTE_SLOTS },
    hour: { name: 'ns_telemetry_hour', bucket: HOUR, slots: HOUR_SLOTS },
  } as const;
  type Kind = keyof typeof tables;

  const sql = Object.fromEntries(
    (Object.keys(tables) as Kind[]).map((k) => {
      const t = tables[k].name;
      const columns = 'ns, slot, bucket_start, requests, client_errors, server_errors, rows_read, rows_written, latency_sum_ms, latency_max_ms, latency_hist';
      const values =
        '@ns, @slot, @bucket_start, @requests, @client_errors, @server_errors, @rows_read, @rows_written, @latency_sum_ms, @latency_max_ms, @latency_hist';
      return [
        k,
        {
          get: `SELECT * FROM ${t} WHERE ns = ? AND slot = ?${store.forUpdate}`,
          add: `INSERT INTO ${t} (${columns}) VALUES (${values}) ON CONFLICT (ns, slot) DO NOTHING`,
          put: `UPDATE ${t} SET bucket_start = @bucket_start, requests = @requests, client_errors = @client_errors, server_errors = @server_errors,
                  rows_read = @rows_read, rows_written = @rows_written, latency_sum_ms = @latency_sum_ms, latency_max_ms = @latency_max_ms,
                  latency_hist = @latency_hist
                WHERE ns = @ns AND slot = @slot`,
          range: `SELECT * FROM ${t} WHERE ns = ? AND bucket_start >= ? AND bucket_start <= ?`,
          forget: `DELETE FROM ${t} WHERE ns = ?`,
        },
      ];
    }),
  ) as Record<Kind, { get: string; add: string; put: string; range: string; forget: string }>;
  /** Flushes and reads, one at a time. */
  let serial: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = serial.then(fn, fn);
    serial = next.catch(() => {});
    return next;
  };

  /** ns → kind → bucket_start → not-yet-flushed aggregate. */
  let pending = new Map<string, Record<Kind, Map<number, Agg>>>();
  let timer: NodeJS.Timeout | null = null;
  let warnedFull = false;

  function bucketOf(map: Map<number, Agg>, start: number): Agg {
    let a = map.get(start);
    if (!a) map.set(start, (a = emptyAgg()));
    return a;
  }

  function observe(s: RequestSample): void {
    let p = pending.get(s.ns);
    if (!p) {
      if (pending.size >= MAX_PENDING_NAMESPACES) {
        if (!warnedFull) logger.warn({ max: MAX_PENDING_NAMESPACES }, 'telemetry buffer full; dropping samples until the next flush');
        warnedFull = true;
        return;
      }
      pending.set(s.ns, (p = { minute: new Map(), hour: new Map() }));
    }
    const t = Math.floor(now() / 1000);
    const ms = Number.isFinite(s.seconds) && s.seconds > 0 ? s.seconds * 1000 : 0;
    const bucket = latencyBucket(ms);
    const read = Number.isFinite(s.rowsRead) && s.rowsRead > 0 ? Math.floor(s.rowsRead) : 0;
    const written = Number.isFinite(s.rowsWritten) && s.rowsWritten > 0 ? Math.floor(s.rowsWritten) : 0;
    for (const kind of ['minute', 'hour'] as const) {
      const size = tables[kind].bucket;
      const a = bucketOf(p[kind], t - (t % size));
      a.requests++;
      if (s.status >= 500) a.serverErrors++;
      else if (s.status >= 400) a.clientErrors++;
      a.rowsRead += read;
      a.rowsWritten += written;
      a.latencySumMs += ms;
      if (ms > a.latencyMaxMs) a.latencyMaxMs = ms;
      a.hist[bucket]!++;
    }
  }

  const stored = (ns: string, slot: number, start: number, a: Agg) => ({
    ns,
    slot,
    bucket_start: start,
    requests: a.requests,
    client_errors: a.clientErrors,
    server_errors: a.serverErrors,
    rows_read: a.rowsRead,
    rows_written: a.rowsWritten,
    latency_sum_ms: a.latencySumMs,
    latency_max_ms: a.latencyMaxMs,
    latency_hist: encodeHistogram(a.hist),
  });

  const writeAll = (batch: Map<string, Record<Kind, Map<number, Agg>>>) =>
    store.tx(
      async () => {
        let rows = 0;
        for (const [ns, kinds] of batch) {
          if (!(await namespaces.isStored(ns))) continue; // unknown or deleted namespace: nothing to keep
          for (const kind of ['minute', 'hour'] as const) {
            const { bucket, slots } = tables[kind];
            const q = sql[kind];
            for (const [start, agg] of kinds[kind]) {
              const slot = Math.floor(start / bucket) % slots;
              let existing = await store.get<StoredRow>(q.get, [ns, slot]);
              if (!existing) {
                // A new slot: inserted, unless another replica inserted it meanwhile (then read and merged, locked).
                if ((await store.run(q.add, stored(ns, slot, start, agg))).changes > 0) {
                  rows++;
                  continue;
                }
                existing = await store.get<StoredRow>(q.get, [ns, slot]);
              }
              let next = agg;
              if (existing) {
                if (existing.bucket_start > start) continue; // the slot already holds a newer bucket: this one is gone
                if (existing.bucket_start === start) {
                  next = rowToAgg(existing);
                  mergeInto(next, agg);
                }
              }
              await store.run(q.put, stored(ns, slot, start, next));
              rows++;
            }
          }
        }
        return rows;
      },
      { name: 'telemetry flush' },
    );

  /**
   * Writes every pending bucket in one transaction. Samples observed meanwhile wait for the next flush; on failure the
   * batch goes back to pending for the next attempt.
   */
  function flush(): Promise<void> {
    return oneAtATime(async () => {
      if (pending.size === 0) return;
      const batch = pending;
      pending = new Map();
      try {
        await writeAll(batch);
        warnedFull = false;
      } catch (err) {
        logger.warn({ err }, 'could not write namespace telemetry; will retry');
        // Keep only what could still be shown, so a persistent failure cannot grow memory without bound.
        const t = Math.floor(now() / 1000);
        for (const [ns, kinds] of batch) {
          let p = pending.get(ns);
          if (!p) pending.set(ns, (p = { minute: new Map(), hour: new Map() }));
          for (const kind of ['minute', 'hour'] as const) {
            const { bucket, slots } = tables[kind];
            for (const [start, agg] of kinds[kind]) if (start > t - bucket * slots) mergeInto(bucketOf(p[kind], start), agg);
          }
        }
      }
    });
  }

  /** Telemetry of one namespace over a window, with not-yet-flushed samples included. */
  const window = (ns: string, w: OverviewWindow): Promise<WindowTelemetry> => oneAtATime(() => windowNow(ns, w));
  async function windowNow(ns: string, w: OverviewWindow): Promise<WindowTelemetry> {
    const def = WINDOWS[w];
    const t = Math.floor(now() / 1000);
    const { bucket } = tables[def.table];
    const current = t - (t % bucket);
    const firstPoint = t - (t % def.step) - (def.points - 1) * def.step;
    const points = Array.from({ length: def.points }, () => emptyAgg());
    const add = (start: number, agg: Agg) => {
      if (start < firstPoint || start > current) return;
      const i = Math.floor((start - firstPoint) / def.step);
      if (i >= 0 && i < points.length) mergeInto(points[i]!, agg);
    };
    for (const r of await store.all<StoredRow>(sql[def.table].range, [ns, firstPoint, current])) add(r.bucket_start, rowToAgg(r));
    const p = pending.get(ns);
    if (p) for (const [start, agg] of p[def.table]) add(start, agg);

    const total = emptyAgg();
    for (const a of points) mergeInto(total, a);
    return {
      resolution: def.resolution,
      from: iso(firstPoint),
      to: new Date(now()).toISOString(),
      requests: total.requests,
      errors: total.clientErrors + total.serverErrors,
      client_errors: total.clientErrors,
      server_errors: total.serverErrors,
      rows_read: total.rowsRead,
      rows_written: total.rowsWritten,
      latency_ms: latencyOf(total),
      series: points.map((a, i) => {
        const l = latencyOf(a);
        return {
          start: iso(firstPoint + i * def.step),
          requests: a.requests,
          errors: a.clientErrors + a.serverErrors,
          client_errors: a.clientErrors,
          server_errors: a.serverErrors,
          rows_read: a.rowsRead,
          rows_written: a.rowsWritten,
          p50_ms: l.p50,
          p95_ms: l.p95,
          avg_ms: l.avg,
        };
      }),
    };
  }

  return {
    observe,
    /** Drops a namespace's telemetry, stored and pending (registry deletion also cascades to the stored rows). */
    forget(ns: string): Promise<void> {
      pending.delete(ns);
      return oneAtATime(async () => {
        pending.delete(ns);
        try {
          for (const kind of ['minute', 'hour'] as const) await store.run(sql[kind].forget, [ns]);
        } catch (err) {
          logger.warn({ err, ns }, 'could not drop namespace telemetry');
        }
      });
    },
    flush,
    window,
    start(): void {
      if (timer) return;
      timer = setInterval(() => void flush(), flushIntervalMs);
      timer.unref();
    },
    close(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      return flush();
    },
  };
}
export type Telemetry = ReturnType<typeof createTelemetry>;
