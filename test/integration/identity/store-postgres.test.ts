/**
 * The identity domain's stores on both core-store engines (issue 18): each converted store's key operations give the
 * same rows and answers on SQLite (platform.db through `sqliteStore`) and on a private PostgreSQL cluster
 * (`postgresStore`, migrated by `migratePostgres`), and the seed's multi-replica rules hold between two Store
 * instances over one database (two replicas; on SQLite, two connections to one platform.db in this process): one
 * key writer at a time, one lease holder, key changes notified at commit.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreMigrations, type Migration, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../../server/core/storage/store.ts';
import { createKeyStore, keyMigrations, type NewKeyRow } from '../../../server/identity/keys/keys.store.ts';
import { type Postgres, startPostgres } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/temp.ts';
import { until } from '../../helpers/wait.ts';

/** The identity migrations converted so far, in boot order (the core's first: identity's tables reference none of them). */
const MIGRATIONS: Migration[] = [...coreMigrations, ...keyMigrations];

let pgCluster: Postgres;
const dirs: string[] = [];
const stores: Store[] = [];

beforeAll(async () => {
  pgCluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const s of stores.splice(0)) await s.close();
  await pgCluster?.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Two replicas over one fresh core store of the engine: two connections to one platform.db, or two pools. */
async function replicas(engine: 'sqlite' | 'postgres'): Promise<[Store, Store]> {
  if (engine === 'sqlite') {
    const dir = tempDir('hearth-identity-store-');
    dirs.push(dir);
    const pair: [Store, Store] = [sqliteStore(openPlatformDb(dir, MIGRATIONS)), sqliteStore(openPlatformDb(dir, MIGRATIONS))];
    stores.push(...pair);
    return pair;
  }
  const url = await pgCluster.createDatabase();
  const pair: [Store, Store] = [postgresStore({ url }), postgresStore({ url })];
  stores.push(...pair);
  await Promise.all(pair.map((s) => migratePostgres(s, MIGRATIONS)));
  return pair;
}

const T0 = Date.UTC(2026, 10, 26); // epoch ms above 2^31: BIGINT on PostgreSQL

function keyRow(kid: string, state: 'active' | 'pending', purpose: NewKeyRow['purpose'] = 'oauth'): NewKeyRow {
  return {
    kid,
    purpose,
    state,
    algorithm: 'RS256',
    public_jwk: JSON.stringify({ kty: 'RSA', kid }),
    thumbprint: `tp-${kid}`,
    private_key_envelope: `env-${kid}`,
    encryption_key_id: 'kek-1',
    created_at: T0,
    activates_at: T0,
    activated_at: state === 'active' ? T0 : null,
    retires_at: null,
  };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`identity stores on ${engine}`, () => {
    it('keys: insert, activate, retire, revoke, rewrap and the published set', async () => {
      const [a] = await replicas(engine);
      const keys = createKeyStore(a);
      await keys.transaction(async () => {
        await keys.insert(keyRow('k1', 'active'));
        await keys.insert(keyRow('k2', 'pending'));
      });
      expect((await keys.findActive('oauth'))?.kid).toBe('k1');
      expect(await keys.stateOf('k2')).toBe('pending');
      expect(await keys.stateOf('nobody')).toBeUndefined();
      // The partial unique index: one active key per purpose, on both engines.
      await expect((async () => keys.insert(keyRow('k3', 'active')))()).rejects.toThrow(/unique|UNIQUE/);
      expect(await keys.retire('k1', T0 + 1, 'rotated', T0 + 1000)).toBe(true);
      expect(await keys.retire('k1', T0 + 2, 'rotated', T0 + 1000)).toBe(false);
      expect(await keys.activate('k2', T0 + 1, T0 + 30 * 86_400_000)).toBe(true);
      const k1 = await keys.get('k1');
      expect(k1).toMatchObject({ state: 'retired', private_key_envelope: null, withdraws_at: T0 + 1000, retired_at: T0 + 1 });
      expect(typeof k1!.created_at).toBe('number');
      expect((await keys.listPublished('oauth', T0 + 999)).map((r) => r.kid)).toEqual(['k2', 'k1']);
      expect((await keys.listPublished('oauth', T0 + 1000)).map((r) => r.kid)).toEqual(['k2']);
      expect((await keys.listLive()).map((r) => r.kid).sort()).toEqual(['k1', 'k2']);
      expect(await keys.withdraw('k1', T0 + 1000)).toBe(true);
      expect((await keys.listLive()).map((r) => r.kid)).toEqual(['k2']);
      expect(await keys.rewrap('k2', 'env-other', 'env-new', 'kek-2', T0 + 3)).toBe(false);
      expect(await keys.rewrap('k2', 'env-k2', 'env-new', 'kek-2', T0 + 3)).toBe(true);
      expect((await keys.listSealed()).map((r) => [r.kid, r.encryption_key_id])).toEqual([['k2', 'kek-2']]);
      expect(await keys.revoke('k2', T0 + 4, 'stolen', 'token:admin')).toBe(true);
      expect(await keys.get('k2')).toMatchObject({ state: 'revoked', revoked_by: 'token:admin', revocation_reason: 'stolen', private_key_envelope: null });
      expect((await keys.listAll()).map((r) => r.kid)).toEqual(['k1', 'k2']);
    });

    it('keys: two replicas planning at once create one active key, one holds the lease, and a change reaches the other at commit', async () => {
      const [a, b] = await replicas(engine);
      const [ka, kb] = [createKeyStore(a), createKeyStore(b)];
      // Each replica looks for an active key and creates one when there is none, as maintenance does.
      const plan = (keys: typeof ka, kid: string) =>
        keys.transaction(async () => {
          await keys.lockKeys();
          if (await keys.findActive('session')) return false;
          await keys.insert(keyRow(kid, 'active', 'session'));
          return true;
        });
      const created = await Promise.all([plan(ka, 'from-a'), plan(kb, 'from-b')]);
      expect(created.filter(Boolean)).toHaveLength(1);
      expect((await ka.listAll()).filter((r) => r.purpose === 'session')).toHaveLength(1);

      const leases = await Promise.all([ka.takeLease('maint', 'a', T0, 120_000), kb.takeLease('maint', 'b', T0, 120_000)]);
      expect(leases.filter(Boolean)).toHaveLength(1);
      const [holder, other] = leases[0] ? (['a', 'b'] as const) : (['b', 'a'] as const);
      const storeOf = { a: ka, b: kb };
      expect(await storeOf[holder].takeLease('maint', holder, T0 + 1, 120_000)).toBe(true); // renewed by its holder
      expect(await storeOf[other].takeLease('maint', other, T0 + 60_000, 120_000)).toBe(false);
      expect(await storeOf[other].takeLease('maint', other, T0 + 120_001, 120_000)).toBe(true); // expired: taken over
      await storeOf[holder].releaseLease('maint', holder); // not the holder any more: nothing released
      expect(await storeOf[holder].takeLease('maint', holder, T0 + 120_002, 120_000)).toBe(false);

      if (engine === 'postgres') {
        // Between replicas only on PostgreSQL (SQLite's notifications stay in their store; processes poll).
        const got: string[][] = [];
        const stop = await kb.onChanged((p) => got.push(p));
        await ka.transaction(async () => {
          await ka.revoke((await ka.findActive('session'))!.kid, T0 + 5, 'test', 'token:admin');
          await ka.notifyChanged(['session']);
        });
        await until(() => got.length > 0, 'the key change at replica b');
        expect(got).toEqual([['session']]);
        stop();
      }
    });
  });
}
