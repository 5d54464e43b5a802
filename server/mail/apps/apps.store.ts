/** Registered applications and their profile policies (`mail_apps`, `mail_app_policies`, `mail_app_grants`) over the core store. */
import type { Store } from '../../core/storage/store.ts';

export interface AppRow {
  app_id: string;
  name: string;
  platform_permissions: string;
  token_id: string | null;
  created_at: number;
  updated_at: number;
}

/** SQL of registered applications and their access policies, over the core store. Transactions belong to the service. */
export function createAppStore(store: Store) {
  // One probe for "may this application use this profile": whether a policy is stored, and whether it grants the key
  // (CASE: an INTEGER 0/1 on both engines, where EXISTS alone is a boolean on PostgreSQL).
  const mayUse = `SELECT CASE WHEN EXISTS (SELECT 1 FROM mail_app_policies WHERE app_id = @app) THEN 1 ELSE 0 END AS policy,
    CASE WHEN EXISTS (SELECT 1 FROM mail_app_grants WHERE app_id = @app AND profile_key = @key) THEN 1 ELSE 0 END AS granted`;
  const column = async (sql: string, params: unknown[] = []) => (await store.all<Record<string, string>>(sql, params)).map((r) => Object.values(r)[0]!);
  return {
    list: () => store.all<AppRow>('SELECT * FROM mail_apps ORDER BY app_id'),
    get: (appId: string) => store.get<AppRow>('SELECT * FROM mail_apps WHERE app_id = ?', [appId]),
    byToken: (tokenId: string) => store.get<AppRow>('SELECT * FROM mail_apps WHERE token_id = ?', [tokenId]),
    insert: async (r: Omit<AppRow, 'created_at' | 'updated_at'>, at: number) =>
      void (await store.run(
        'INSERT INTO mail_apps (app_id, name, platform_permissions, token_id, created_at, updated_at) VALUES (@app_id, @name, @platform_permissions, @token_id, @at, @at)',
        { ...r, at },
      )),
    update: async (r: Pick<AppRow, 'app_id' | 'name' | 'platform_permissions'>, at: number) =>
      void (await store.run('UPDATE mail_apps SET name = @name, platform_permissions = @platform_permissions, updated_at = @at WHERE app_id = @app_id', {
        ...r,
        at,
      })),
    remove: async (appId: string) => (await store.run('DELETE FROM mail_apps WHERE app_id = ?', [appId])).changes > 0,
    policyAppIds: () => column('SELECT app_id FROM mail_app_policies ORDER BY app_id'),
    /** null: no stored policy (follow the default); otherwise the explicit set, possibly empty (none). */
    async grants(appId: string): Promise<string[] | null> {
      if ((await store.get('SELECT 1 FROM mail_app_policies WHERE app_id = ?', [appId])) === undefined) return null;
      return column('SELECT profile_key FROM mail_app_grants WHERE app_id = ? ORDER BY profile_key', [appId]);
    },
    /** null: no stored policy (follow the default); otherwise whether the explicit set holds `key` (same answer as `grants`). */
    async granted(appId: string, key: string): Promise<boolean | null> {
      const r = (await store.get<{ policy: number; granted: number }>(mayUse, { app: appId, key }))!;
      return r.policy ? r.granted === 1 : null;
    },
    async setGrants(appId: string, keys: string[] | null, at: number): Promise<void> {
      if (keys === null) {
        await store.run('DELETE FROM mail_app_policies WHERE app_id = ?', [appId]);
        return;
      }
      await store.run('INSERT INTO mail_app_policies (app_id, updated_at) VALUES (?, ?) ON CONFLICT (app_id) DO UPDATE SET updated_at = excluded.updated_at', [
        appId,
        at,
      ]);
      await store.run('DELETE FROM mail_app_grants WHERE app_id = ?', [appId]);
      for (const k of keys) await store.run('INSERT INTO mail_app_grants (app_id, profile_key) VALUES (?, ?) ON CONFLICT DO NOTHING', [appId, k]);
    },
    appsGrantedProfile: (key: string) => column('SELECT app_id FROM mail_app_grants WHERE profile_key = ? ORDER BY app_id', [key]),
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn),
  };
}

export type AppStore = ReturnType<typeof createAppStore>;
