/**
 * The database service's core-store parts on both engines: the namespace registry and the telemetry
 * rollups give the same answers on SQLite (platform.db through `sqliteStore`) and on a private PostgreSQL cluster
 * (`postgresStore`, migrated by `migratePostgres`), and so does node placement (by load, checked, a node going down
 * told once; an injected clock ages the heartbeats); and two registries on one PostgreSQL database (two replicas)
 * keep their caches current from each other's notifications: a namespace created, reconfigured or deleted through
 * one is seen by the other's cache (the periodic re-read is off, so only the notification can bring it).
 */
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import { createLogger } from '../../../server/core/logging/logger.ts';
import { coreMigrations, type Migration } from '../../../server/core/storage/platform-db.ts';
import type { Store } from '../../../server/core/storage/store.ts';
import { dbMigrations } from '../../../server/db/index.ts';
import { createNamespaceService, defaultConfig } from '../../../server/db/namespaces/namespaces.service.ts';
import { createNamespaceStore, type NamespaceStore } from '../../../server/db/namespaces/namespaces.store.ts';
import { createNodes } from '../../../server/db/nodes/nodes.ts';
import { createTelemetry } from '../../../server/db/overview/telemetry.ts';
import { coreStoreFixtures, replicaStores } from '../../helpers/core-stores.ts';
import { tempDir } from '../../helpers/temp.ts';
import { until } from '../../helpers/wait.ts';

const MIGRATIONS: Migration[] = [...coreMigrations, ...dbMigrations];
const logger = createLogger({ level: 'silent' });
const actor = { actor: 'test' };

const fx = coreStoreFixtures();
const registries: NamespaceStore[] = [];

/** Two replicas over one fresh core store of the engine (test/helpers/core-stores.ts). */
const replicas = (engine: 'sqlite' | 'postgres') => replicaStores(fx, engine, MIGRATIONS);

/** A registry that follows other replicas by notification only. */
async function registry(store: Store): Promise<NamespaceStore> {
  const r = createNamespaceStore(store, { logger, resyncMs: 0 });
  registries.push(r);
  await r.start();
  return r;
}

/** A namespace service (one replica's control plane) with its namespace files in a folder of its own. */
function service(store: Store, reg: NamespaceStore) {
  const dataDir = tempDir('hearth-db-files-');
  fx.dirs.push(dataDir);
  return createNamespaceService({ store: reg, audit: createAuditLog(store), logger, dataDir, maxOpen: 4 });
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`the namespace registry on ${engine}`, () => {
    it('creates, lists, reconfigures, duplicates and deletes namespaces, each with its audit record', async () => {
      const [a] = await replicas(engine);
      const reg = await registry(a);
      const svc = service(a, reg);
      try {
        const created = await svc.create({ name: 'shop' }, actor);
        expect(created).toMatchObject({ name: 'shop', config: defaultConfig(), last_activity_at: created.created_at });
        expect(created.storage?.page_size).toBeGreaterThan(0);
        expect(reg.get('shop')?.name).toBe('shop');
        await expect(svc.create({ name: 'shop' }, actor)).rejects.toMatchObject({ code: 'namespace_exists' });

        svc.connection('shop').exec('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (7)');
        const copy = await svc.duplicate('shop', 'shop_copy', actor);
        expect(copy.name).toBe('shop_copy');
        expect(svc.connection('shop_copy').prepare('SELECT x FROM t').pluck().get()).toBe(7);

        const config = { ...defaultConfig(), read_only: true };
        expect((await svc.updateConfig('shop', config, actor)).config).toEqual(config);
        expect(svc.config('shop')).toEqual(config);
        expect((await svc.get('shop')).config).toEqual(config);

        const page = await svc.list({ limit: 1 });
        expect(page.data.map((n) => n.name)).toEqual(['shop']);
        expect((await svc.list({ limit: 5, cursor: page.next_cursor! })).data.map((n) => n.name)).toEqual(['shop_copy']);
        expect(svc.count()).toBe(2);

        await svc.delete('shop', actor);
        expect(svc.exists('shop')).toBe(false);
        await expect(svc.get('shop')).rejects.toMatchObject({ code: 'namespace_not_found' });
        expect(await svc.sweepOrphans()).toBe(0);
        const actions = await a.all<{ action: string; target: string }>('SELECT action, target FROM audit_log ORDER BY id');
        expect(actions).toEqual([
          { action: 'namespace.create', target: 'shop' },
          { action: 'namespace.duplicate', target: 'shop_copy' },
          { action: 'namespace.config', target: 'shop' },
          { action: 'namespace.delete', target: 'shop' },
        ]);
      } finally {
        await svc.close();
      }
    });

    it('a registry write that fails leaves neither the row nor the cache changed', async () => {
      const [a] = await replicas(engine);
      const reg = await registry(a);
      await expect(
        reg.tx(async () => {
          await reg.insert({ name: 'gone', file_id: 'f-gone', created_at: new Date().toISOString(), config: '{}' });
          throw new Error('after the insert');
        }),
      ).rejects.toThrow('after the insert');
      expect(reg.get('gone')).toBeUndefined();
      expect(await reg.fetch('gone')).toBeUndefined();
      await expect(a.tx(() => reg.remove('gone'))).rejects.toThrow(/registry/);
    });

    it('namespaces from before nodes are claimed by the first node; on platform.db every row follows its node', async () => {
      const [a] = await replicas(engine);
      const reg = await registry(a);
      const at = new Date().toISOString();
      await reg.insert({ name: 'old', file_id: 'f-old', created_at: at, config: '{}' });
      await reg.insert({ name: 'elsewhere', file_id: 'f-else', created_at: at, config: '{}', node: 'node-x' });
      expect(reg.get('old')?.node).toBeNull();
      expect(await reg.claim('node-a')).toBe(1);
      expect(reg.get('old')?.node).toBe('node-a');
      expect(reg.get('elsewhere')?.node).toBe('node-x');
      expect(await reg.claim('node-a')).toBe(0);
      expect(await reg.claim('node-b', true)).toBe(2);
      expect([...reg.perNode()]).toEqual([['node-b', 2]]);
      expect(reg.files('node-b').map((f) => f.name)).toEqual(['elsewhere', 'old']);
    });

    it('nodes: placement by load (this node first among equals), a requested node checked, a node going down told once', async () => {
      const [a, b] = await replicas(engine);
      const reg = await registry(a);
      let clock = Date.UTC(2030, 0, 1);
      const make = (store: Store, id: string) =>
        createNodes({ store, logger, id, version: 't', healthyMs: 3000, namespacesOn: () => reg.perNode(), openHere: () => 0, now: () => clock });
      const na = make(a, 'node-a');
      const nb = make(b, 'node-b');
      await na.setUrl('http://a.test');
      await nb.setUrl('http://b.test');
      const down: string[] = [];
      na.onDown((n) => down.push(`${n.node}@${n.url}`));
      expect(await na.place()).toBe('node-a'); // both hold none: this node
      expect(await nb.place()).toBe('node-b');
      await reg.insert({ name: 'n1', file_id: 'f-n1', created_at: new Date().toISOString(), config: '{}', node: 'node-a' });
      expect(await na.place()).toBe('node-b');
      expect(await na.place('node-a')).toBe('node-a');
      await expect(na.place('node-z')).rejects.toMatchObject({ code: 'node_unknown' });
      expect(na.list().map((n) => [n.id, n.healthy, n.namespaces, n.self])).toEqual([
        ['node-a', true, 1, true],
        ['node-b', true, 0, false],
      ]);

      clock += 3000; // node-b's heartbeat is now as old as the limit; node-a beats again
      await na.heartbeat();
      expect(down).toEqual(['node-b@http://b.test']);
      await expect(na.place('node-b')).rejects.toMatchObject({ code: 'node_unavailable' });
      expect(await na.place()).toBe('node-a'); // the only healthy node, though it holds more
      expect(na.owner('node-b')).toEqual({ node: 'node-b', url: 'http://b.test', healthy: false });
      await nb.heartbeat();
      expect(await na.place()).toBe('node-b');
      await nb.stop(); // a stop counts at once
      await na.heartbeat();
      expect(down).toEqual(['node-b@http://b.test', 'node-b@http://b.test']);
      await na.stop();
    });

    it('telemetry rollups: flushed, read back with their latency histogram, dropped with the namespace', async () => {
      const [a] = await replicas(engine);
      const reg = await registry(a);
      await reg.insert({ name: 'tel', file_id: 'f-tel', created_at: new Date().toISOString(), config: '{}' });
      const t = createTelemetry({ store: a, namespaces: reg, logger });
      for (let i = 0; i < 10; i++) t.observe({ ns: 'tel', status: i < 8 ? 200 : 500, seconds: 0.002 * (i + 1), rowsRead: 3, rowsWritten: 1 });
      t.observe({ ns: 'ghost', status: 200, seconds: 0.001, rowsRead: 0, rowsWritten: 0 });
      await t.flush();
      expect(await a.value('SELECT count(*) FROM ns_telemetry_minute')).toBe(1);
      const w = await t.window('tel', '1h');
      expect(w).toMatchObject({ requests: 10, server_errors: 2, rows_read: 30, rows_written: 10 });
      expect(w.latency_ms.max).toBeCloseTo(20, 6);
      expect(w.latency_ms.avg).toBeCloseTo(11, 6);
      await reg.remove('tel');
      expect(await a.value('SELECT count(*) FROM ns_telemetry_hour')).toBe(0);
      await t.close();
    });

    it('two replicas flushing the same minute add up', async () => {
      const [a, b] = await replicas(engine);
      const reg = await registry(a);
      await reg.insert({ name: 'both', file_id: 'f-both', created_at: new Date().toISOString(), config: '{}' });
      const now = () => Date.UTC(2030, 0, 1, 0, 0, 30);
      const ta = createTelemetry({ store: a, namespaces: reg, logger, now });
      const tb = createTelemetry({ store: b, namespaces: createNamespaceStore(b), logger, now });
      for (let round = 0; round < 5; round++) {
        for (let i = 0; i < 3; i++) ta.observe({ ns: 'both', status: 200, seconds: 0.001, rowsRead: 1, rowsWritten: 0 });
        for (let i = 0; i < 4; i++) tb.observe({ ns: 'both', status: 200, seconds: 0.001, rowsRead: 1, rowsWritten: 0 });
        await Promise.all([ta.flush(), tb.flush()]);
      }
      expect(await a.value('SELECT requests FROM ns_telemetry_minute WHERE ns = ?', ['both'])).toBe(35);
      expect((await ta.window('both', '24h')).requests).toBe(35);
    });
  });
}

describe('two registries on one PostgreSQL (two replicas)', () => {
  it("a namespace created, reconfigured or deleted through one is seen by the other's cache", async () => {
    const [a, b] = await replicas('postgres');
    const ra = await registry(a);
    const rb = await registry(b);
    const svc = service(a, ra);
    try {
      await svc.create({ name: 'seen' }, actor);
      const row = await until(() => rb.get('seen'), "replica B's cache to hold the namespace created at A");
      expect(row.file_id).toBe(ra.get('seen')!.file_id);
      expect(rb.count()).toBe(1);

      await svc.updateConfig('seen', { ...defaultConfig(), busy_timeout: 1234 }, actor);
      await until(() => rb.get('seen')?.config.includes('1234'), "replica B's cache to hold the new configuration");

      const changes: string[] = [];
      rb.onRemoteChange((name, _before, after) => changes.push(`${name}:${after ? 'changed' : 'gone'}`));
      await svc.delete('seen', actor);
      await until(() => rb.get('seen') === undefined, "replica B's cache to drop the namespace deleted at A");
      expect(rb.count()).toBe(0);
      expect(changes).toEqual(['seen:gone']);

      // And the other way round: a write at B reaches A.
      await rb.insert({ name: 'from_b', file_id: 'f-from-b', created_at: new Date().toISOString(), config: '{}' });
      await until(() => ra.get('from_b'), "replica A's cache to hold the namespace created at B");
    } finally {
      await svc.close();
      for (const r of registries.splice(0)) r.stop();
    }
  });
});
