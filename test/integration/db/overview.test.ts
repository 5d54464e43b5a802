import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMigrations, startServer } from '../../../server/boot.ts';
import { createLogger } from '../../../server/core/logging/logger.ts';
import { type Db, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { sqliteStore } from '../../../server/core/storage/store.ts';
import { createNamespaceStore } from '../../../server/db/namespaces/namespaces.store.ts';
import {
  createTelemetry,
  decodeHistogram,
  encodeHistogram,
  estimatePercentile,
  HISTOGRAM_BUCKETS,
  HOUR_SLOTS,
  LATENCY_BOUNDS_MS,
  latencyBucket,
  MINUTE_SLOTS,
} from '../../../server/db/overview/telemetry.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('latency histogram', () => {
  it('puts latencies in log-scale buckets (upper bound inclusive, last bucket overflow)', () => {
    expect(HISTOGRAM_BUCKETS).toBe(24);
    expect(latencyBucket(0)).toBe(0);
    expect(latencyBucket(0.25)).toBe(0);
    expect(latencyBucket(0.26)).toBe(1);
    expect(latencyBucket(1)).toBe(2);
    expect(latencyBucket(1.5)).toBe(3);
    expect(latencyBucket(1000)).toBe(12); // (512, 1024]
    expect(latencyBucket(LATENCY_BOUNDS_MS.at(-1)! + 1)).toBe(23);
    expect(latencyBucket(1e12)).toBe(23);
  });

  it('round-trips through the fixed-size blob', () => {
    const h = Array.from({ length: HISTOGRAM_BUCKETS }, (_, i) => i * 1000 + 1);
    const blob = encodeHistogram(h);
    expect(blob.length).toBe(HISTOGRAM_BUCKETS * 4);
    expect(decodeHistogram(blob)).toEqual(h);
    expect(decodeHistogram(null)).toEqual(new Array(HISTOGRAM_BUCKETS).fill(0));
  });

  const histOf = (values: number[]) => {
    const h = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    for (const v of values) h[latencyBucket(v)]!++;
    return h;
  };

  it('is null when empty', () => {
    expect(estimatePercentile(new Array(HISTOGRAM_BUCKETS).fill(0), 0.5)).toBeNull();
  });

  it('never exceeds the largest latency seen', () => {
    const h = histOf([10]);
    expect(estimatePercentile(h, 0.5, 10)).toBe(10);
    expect(estimatePercentile(h, 0.99, 10)).toBe(10);
    // without a max the estimate stays inside the bucket (8, 16]
    const e = estimatePercentile(h, 0.5)!;
    expect(e).toBeGreaterThan(8);
    expect(e).toBeLessThanOrEqual(16);
  });

  it('estimates percentiles of a uniform distribution within the bucket resolution', () => {
    const values = Array.from({ length: 1000 }, (_, i) => i + 1); // 1 … 1000 ms
    const h = histOf(values);
    const p50 = estimatePercentile(h, 0.5, 1000)!;
    const p95 = estimatePercentile(h, 0.95, 1000)!;
    const p99 = estimatePercentile(h, 0.99, 1000)!;
    expect(p50).toBeGreaterThan(500 / 2);
    expect(p50).toBeLessThan(500 * 2);
    expect(p95).toBeGreaterThan(950 / 2);
    expect(p99).toBeLessThanOrEqual(1000);
    expect(p50).toBeLessThanOrEqual(p95);
    expect(p95).toBeLessThanOrEqual(p99);
  });

  it('separates a fast majority from a slow tail', () => {
    const values = [...new Array(90).fill(2), ...new Array(10).fill(400)];
    const h = histOf(values);
    const p50 = estimatePercentile(h, 0.5, 400)!;
    const p95 = estimatePercentile(h, 0.95, 400)!;
    expect(p50).toBeGreaterThan(1);
    expect(p50).toBeLessThanOrEqual(2);
    expect(p95).toBeGreaterThan(256);
    expect(p95).toBeLessThanOrEqual(400);
  });

  it('uses the largest latency to bound the overflow bucket', () => {
    const big = LATENCY_BOUNDS_MS.at(-1)! * 3;
    const p = estimatePercentile(histOf([big]), 0.5, big)!;
    expect(p).toBeGreaterThan(LATENCY_BOUNDS_MS.at(-1)!);
    expect(p).toBeLessThanOrEqual(big);
  });
});

describe('rollups (injected clock)', () => {
  let dir: string;
  let db: Db;
  let clock = 0;
  const logger = createLogger({ level: 'silent' });
  const make = () => {
    const store = sqliteStore(db);
    return createTelemetry({ store, namespaces: createNamespaceStore(store), logger, now: () => clock });
  };
  const rows = (table: 'minute' | 'hour', ns: string) => db.prepare(`SELECT count(*) FROM ns_telemetry_${table} WHERE ns = ?`).pluck().get(ns) as number;
  const addNs = (name: string) =>
    db.prepare('INSERT INTO namespaces (name, file_id, created_at, config) VALUES (?, ?, ?, ?)').run(name, `f-${name}`, new Date().toISOString(), '{}');
  const sample = (ns: string, status = 200, seconds = 0.01) => ({ ns, status, seconds, rowsRead: 2, rowsWritten: 1 });
  // 2030-01-01T00:00:30Z
  const T0 = Date.UTC(2030, 0, 1, 0, 0, 30);

  beforeAll(() => {
    dir = tempDir();
    db = openPlatformDb(dir, allMigrations);
    for (const n of ['a', 'b', 'c', 'd', 'e']) addNs(n);
  });
  afterAll(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the minute ring never holds more than 60 rows per namespace; old minutes leave the 1h window', async () => {
    const t = make();
    for (let m = 0; m < 150; m++) {
      clock = T0 + m * MIN;
      t.observe(sample('a'));
      if (m % 7 === 0) await t.flush();
      expect(rows('minute', 'a')).toBeLessThanOrEqual(MINUTE_SLOTS);
    }
    await t.flush();
    expect(rows('minute', 'a')).toBe(MINUTE_SLOTS);
    expect(rows('hour', 'a')).toBe(3);
    const w = await t.window('a', '1h');
    expect(w.resolution).toBe('minute');
    expect(w.series).toHaveLength(60);
    expect(w.requests).toBe(60); // minutes 90…149 only
    expect(w.series.every((p) => p.requests === 1)).toBe(true);
    expect(w.series.at(-1)!.start).toBe(new Date(T0 - 30_000 + 149 * MIN).toISOString());
    expect(w.rows_read).toBe(120);
    expect(w.rows_written).toBe(60);
    expect((await t.window('a', '24h')).requests).toBe(150);
  });

  it('the hour ring never holds more than 720 rows per namespace; 24h, 7d and 30d count only their buckets', async () => {
    const t = make();
    const last = 799;
    for (let h = 0; h <= last; h++) {
      clock = T0 + h * HOUR;
      t.observe(sample('b'));
      t.observe(sample('b', 500, 0.2));
      if (h % 50 === 0) await t.flush();
      expect(rows('hour', 'b')).toBeLessThanOrEqual(HOUR_SLOTS);
      expect(rows('minute', 'b')).toBeLessThanOrEqual(MINUTE_SLOTS);
    }
    await t.flush();
    expect(rows('hour', 'b')).toBe(HOUR_SLOTS);
    const total = db.prepare('SELECT count(*) FROM ns_telemetry_hour').pluck().get() as number;
    expect(total).toBeLessThanOrEqual(5 * HOUR_SLOTS);

    const d24 = await t.window('b', '24h');
    expect(d24.series).toHaveLength(24);
    expect(d24.requests).toBe(48);
    expect(d24.server_errors).toBe(24);
    expect(d24.client_errors).toBe(0);
    expect(d24.errors).toBe(24);
    const d7 = await t.window('b', '7d');
    expect(d7.series).toHaveLength(168);
    expect(d7.requests).toBe(168 * 2);
    const d30 = await t.window('b', '30d');
    expect(d30.resolution).toBe('day');
    expect(d30.series).toHaveLength(30);
    const lastDay = Math.floor(last / 24);
    const hoursInWindow = last - (lastDay - 29) * 24 + 1; // UTC days lastDay-29 … lastDay
    expect(d30.requests).toBe(hoursInWindow * 2);
    expect(d30.series.at(-1)!.requests).toBe(((last % 24) + 1) * 2);
    expect(d30.series[0]!.requests).toBe(48);
    expect(d30.series.reduce((s, p) => s + p.requests, 0)).toBe(d30.requests);
    const l = d30.latency_ms;
    expect(l.p50).toBeGreaterThan(0);
    expect(l.p50!).toBeLessThanOrEqual(l.p95!);
    expect(l.p95!).toBeLessThanOrEqual(l.p99!);
    expect(l.max).toBe(200);
    expect(l.avg).toBeCloseTo(105, 6);
    const h1 = await t.window('b', '1h');
    expect(h1.requests).toBe(2); // only the current hour's minute
  });

  it('a stale slot is ignored by reads and reset when reused; an older bucket never overwrites a newer one', async () => {
    const t = make();
    clock = T0;
    for (let i = 0; i < 5; i++) t.observe(sample('c', 404));
    await t.flush();
    clock = T0 + 61 * MIN; // the row is still stored but out of the window
    expect(rows('minute', 'c')).toBe(1);
    expect((await t.window('c', '1h')).requests).toBe(0);
    expect(await t.window('c', '24h')).toMatchObject({ requests: 5, client_errors: 5 });
    clock = T0 + 60 * MIN; // same slot as T0
    t.observe(sample('c'));
    await t.flush();
    expect(rows('minute', 'c')).toBe(1);
    const stored = db.prepare('SELECT bucket_start, requests FROM ns_telemetry_minute WHERE ns = ?').get('c') as { bucket_start: number; requests: number };
    expect(stored).toEqual({ bucket_start: (T0 - 30_000 + 60 * MIN) / 1000, requests: 1 });
    clock = T0; // a late sample for the bucket that slot used to hold
    t.observe(sample('c'));
    await t.flush();
    expect(db.prepare('SELECT bucket_start, requests FROM ns_telemetry_minute WHERE ns = ?').get('c')).toEqual(stored);
  });

  it('includes samples not yet flushed, and merges them with stored ones', async () => {
    const t = make();
    clock = T0 + 3 * DAY;
    t.observe(sample('d'));
    await t.flush();
    t.observe(sample('d', 503));
    expect(rows('minute', 'd')).toBe(1);
    expect(await t.window('d', '1h')).toMatchObject({ requests: 2, server_errors: 1 });
    await t.close();
    const r = db.prepare('SELECT requests, server_errors FROM ns_telemetry_minute WHERE ns = ?').get('d');
    expect(r).toEqual({ requests: 2, server_errors: 1 });
  });

  it('keeps nothing for unknown namespaces; forget drops stored and pending telemetry', async () => {
    const t = make();
    clock = T0 + 5 * DAY;
    t.observe(sample('ghost'));
    t.observe(sample('e'));
    await t.flush();
    expect(rows('minute', 'ghost') + rows('hour', 'ghost')).toBe(0);
    expect(rows('minute', 'e')).toBe(1);
    t.observe(sample('e'));
    await t.forget('e');
    expect(rows('minute', 'e') + rows('hour', 'e')).toBe(0);
    expect((await t.window('e', '24h')).requests).toBe(0);
    await t.flush();
    expect(rows('minute', 'e') + rows('hour', 'e')).toBe(0);
  });

  it('the database refuses a slot outside the ring', async () => {
    expect(() => db.prepare(`INSERT INTO ns_telemetry_minute VALUES ('a', 60, 0, 0, 0, 0, 0, 0, 0, 0, x'')`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO ns_telemetry_hour VALUES ('a', 720, 0, 0, 0, 0, 0, 0, 0, 0, x'')`).run()).toThrow(/CHECK/);
  });
});

describe('GET /v1/{ns}/overview', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s.stop();
  });

  const json = async (res: Response, status: number) => {
    expect(res.status).toBe(status);
    return res.json();
  };

  it('reports storage, schema counts and the traffic so far', async () => {
    await json(await s.api('/v1/namespaces', { method: 'POST', json: { name: 'shop' } }), 201);
    let n = 0;
    const call = async (p: string, init: Parameters<TestServer['api']>[1], status: number) => {
      const res = await s.api(p, init);
      expect(res.status, `${init?.method ?? 'GET'} ${p}`).toBe(status);
      await res.arrayBuffer();
      n++;
    };
    await call('/v1/shop/tables', { method: 'POST', json: { type: 'table', name: 't1', columns: [{ name: 'x', type: 'text' }] } }, 201);
    await call(
      '/v1/shop/tables',
      {
        method: 'POST',
        json: {
          type: 'table',
          name: 't2',
          columns: [
            { name: 'x', type: 'text' },
            { name: 'y', type: 'real' },
          ],
        },
      },
      201,
    );
    await call('/v1/shop/tables', { method: 'POST', json: { type: 'view', name: 'v', sql: 'SELECT 1 AS one' } }, 201);
    await call('/v1/shop/tables/t1/indexes', { method: 'POST', json: { type: 'index', name: 'ix', columns: ['x'] } }, 201);
    for (let i = 0; i < 10; i++) await call('/v1/shop/tables', {}, 200);
    for (let i = 0; i < 3; i++) await call('/v1/shop/tables/missing', {}, 404);

    const o = await json(await s.api('/v1/shop/overview?window=1h'), 200);
    expect(o.namespace).toBe('shop');
    expect(o.window).toBe('1h');
    expect(Date.parse(o.generated_at)).toBeGreaterThan(Date.now() - 60_000);

    const file = s.services.db.namespaces.handles.fileOf('shop')!;
    expect(o.storage.size_bytes).toBe(fs.statSync(file).size);
    expect(o.storage.page_size).toBe(4096);
    expect(o.storage.page_count).toBeGreaterThanOrEqual(1);
    expect(o.storage.wal_bytes).toBeGreaterThanOrEqual(0);
    expect(o.storage.free_bytes).toBe(o.storage.free_pages * o.storage.page_size);
    expect(o.storage.max_db_size).toBeNull();
    expect(o.schema).toEqual({ tables: 2, views: 1, indexes: 1, fts_indexes: 0, columns: 3 });

    const tel = o.telemetry;
    expect(tel.resolution).toBe('minute');
    expect(tel.series).toHaveLength(60);
    expect(tel.requests).toBe(n);
    expect(tel.client_errors).toBe(3);
    expect(tel.server_errors).toBe(0);
    expect(tel.errors).toBe(3);
    expect(tel.series.reduce((a: number, p: { requests: number }) => a + p.requests, 0)).toBe(n);
    expect(tel.series.at(-1).requests + (tel.series.at(-2)?.requests ?? 0)).toBe(n); // all within the last minute or two
    const l = tel.latency_ms;
    for (const k of ['p50', 'p95', 'p99', 'avg', 'max']) expect(l[k], k).toBeGreaterThan(0);
    expect(l.p50).toBeLessThanOrEqual(l.p95);
    expect(l.p95).toBeLessThanOrEqual(l.p99);
    expect(l.p99).toBeLessThanOrEqual(l.max);

    // the overview requests themselves count
    const d24 = (await json(await s.api('/v1/shop/overview'), 200)) as {
      window: string;
      telemetry: { requests: number; resolution: string; series: unknown[] };
    };
    expect(d24.window).toBe('24h');
    expect(d24.telemetry).toMatchObject({ requests: n + 1, resolution: 'hour' });
    expect(d24.telemetry.series).toHaveLength(24);
    const d7 = await json(await s.api('/v1/shop/overview?window=7d'), 200);
    expect(d7.telemetry.requests).toBe(n + 2);
    expect(d7.telemetry.series).toHaveLength(168);
    const d30 = await json(await s.api('/v1/shop/overview?window=30d'), 200);
    expect(d30.telemetry).toMatchObject({ requests: n + 3, resolution: 'day', client_errors: 3 });
    expect(d30.telemetry.series).toHaveLength(30);
  });

  it('counts an fts index separately and reports the quota', async () => {
    await json(await s.api('/v1/namespaces', { method: 'POST', json: { name: 'docs', config: { max_db_size: 10_000_000 } } }), 201);
    await json(await s.api('/v1/docs/tables', { method: 'POST', json: { type: 'table', name: 'notes', columns: [{ name: 'body', type: 'text' }] } }), 201);
    await json(await s.api('/v1/docs/tables/notes/indexes', { method: 'POST', json: { type: 'fts', columns: ['body'] } }), 201);
    const o = await json(await s.api('/v1/docs/overview'), 200);
    expect(o.schema).toEqual({ tables: 1, views: 0, indexes: 0, fts_indexes: 1, columns: 1 });
    expect(o.storage.max_db_size).toBe(10_000_000);
  });

  it.each(['2h', '', '1H', 'all'])('rejects window=%j with 400 invalid_request', async (w) => {
    const e = await json(await s.api(`/v1/shop/overview?window=${w}`), 400);
    expect(e.error).toBe('invalid_request');
    expect(e.message).toContain('window');
  });

  it('404 for an unknown namespace, 401 without a token, 403 for a token of another namespace', async () => {
    expect((await json(await s.api('/v1/nope/overview'), 404)).error).toBe('namespace_not_found');
    expect((await s.api('/v1/shop/overview', { token: null })).status).toBe(401);
    const other = await json(
      await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'docs-only', scope: 'namespaces', namespaces: ['docs'], read_only: true } }),
      201,
    );
    expect((await json(await s.api('/v1/shop/overview', { token: other.token }), 403)).error).toBe('forbidden');
    const own = await json(await s.api('/v1/docs/overview?window=1h', { token: other.token }), 200);
    expect(own.namespace).toBe('docs');
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await json(await s.api('/v1/openapi.json', { token: null }), 200);
    const op = doc.paths['/v1/{ns}/overview'].get;
    expect(op.operationId).toBe('namespaceOverview');
    expect(op.description).toContain('720');
    expect(op.parameters.find((p: { name: string }) => p.name === 'window').schema.enum).toEqual(['1h', '24h', '7d', '30d']);
  });
});

describe('persistence', () => {
  it('flushes at shutdown, keeps telemetry across a restart, and drops it with the namespace', async () => {
    const s = await startTestServer();
    let s2: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'keep' } })).status).toBe(201);
      for (let i = 0; i < 4; i++) expect((await s.api('/v1/keep/tables')).status).toBe(200);
      expect((await s.api('/v1/keep/tables/missing')).status).toBe(404);
      expect((await s.api('/v1/ghost/tables')).status).toBe(404);
      await s.close();

      // The core store as the stopped server left it: platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres.
      const { databaseUrl } = s.config;
      const raw = databaseUrl ? postgresStore({ url: databaseUrl }) : sqliteStore(new Database(path.join(s.dataDir, 'platform.db'), { readonly: true }));
      try {
        expect(await raw.value("SELECT CAST(sum(requests) AS BIGINT) FROM ns_telemetry_minute WHERE ns = 'keep'")).toBe(5);
        expect(await raw.value("SELECT CAST(sum(requests) AS BIGINT) FROM ns_telemetry_hour WHERE ns = 'keep'")).toBe(5);
        expect(await raw.value("SELECT count(*) FROM ns_telemetry_minute WHERE ns = 'ghost'")).toBe(0);
      } finally {
        await raw.close();
        if (!databaseUrl) (raw as ReturnType<typeof sqliteStore>).db.close();
      }

      s2 = await startServer({ host: '127.0.0.1', port: 0, logLevel: 'silent', env: {}, dataDir: s.dataDir, adminToken: s.token, databaseUrl });
      const auth = { authorization: `Bearer ${s.token}` };
      const o = await (await fetch(`${s2.url}/v1/keep/overview?window=1h`, { headers: auth })).json();
      expect(o.telemetry).toMatchObject({ requests: 5, client_errors: 1 });

      expect((await fetch(`${s2.url}/v1/namespaces/keep`, { method: 'DELETE', headers: auth })).status).toBe(204);
      const left = await s2.services.store.value(
        "SELECT (SELECT count(*) FROM ns_telemetry_minute WHERE ns = 'keep') + (SELECT count(*) FROM ns_telemetry_hour WHERE ns = 'keep')",
      );
      expect(left).toBe(0);
    } finally {
      await s2?.close();
      await s.stop();
    }
  });
});
