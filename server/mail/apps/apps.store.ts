import type { Db } from '../../core/storage/platform-db.ts';

export interface AppRow {
  app_id: string;
  name: string;
  platform_permissions: string;
  token_id: string | null;
  created_at: number;
  updated_at: number;
}

/** SQL of registered applications and their access policies. Transactions belong to the service. */
export function createAppStore(db: Db) {
  const all = db.prepare('SELECT * FROM mail_apps ORDER BY app_id');
  const get = db.prepare('SELECT * FROM mail_apps WHERE app_id = ?');
  const byToken = db.prepare('SELECT * FROM mail_apps WHERE token_id = ?');
  const insert = db.prepare(
    'INSERT INTO mail_apps (app_id, name, platform_permissions, token_id, created_at, updated_at) VALUES (@app_id, @name, @platform_permissions, @token_id, @at, @at)',
  );
  const update = db.prepare('UPDATE mail_apps SET name = @name, platform_permissions = @platform_permissions, updated_at = @at WHERE app_id = @app_id');
  const remove = db.prepare('DELETE FROM mail_apps WHERE app_id = ?');
  const policyIds = db.prepare('SELECT app_id FROM mail_app_policies ORDER BY app_id').pluck();
  const hasPolicy = db.prepare('SELECT 1 FROM mail_app_policies WHERE app_id = ?').pluck();
  const grants = db.prepare('SELECT profile_key FROM mail_app_grants WHERE app_id = ? ORDER BY profile_key').pluck();
  const putPolicy = db.prepare(
    'INSERT INTO mail_app_policies (app_id, updated_at) VALUES (?, ?) ON CONFLICT (app_id) DO UPDATE SET updated_at = excluded.updated_at',
  );
  const clearGrants = db.prepare('DELETE FROM mail_app_grants WHERE app_id = ?');
  const addGrant = db.prepare('INSERT INTO mail_app_grants (app_id, profile_key) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const removePolicy = db.prepare('DELETE FROM mail_app_policies WHERE app_id = ?');
  // One probe for "may this application use this profile": whether a policy is stored, and whether it grants the key.
  const mayUse = db.prepare(`SELECT EXISTS (SELECT 1 FROM mail_app_policies WHERE app_id = @app) AS policy,
    EXISTS (SELECT 1 FROM mail_app_grants WHERE app_id = @app AND profile_key = @key) AS granted`);
  const grantsOfProfile = db.prepare('SELECT app_id FROM mail_app_grants WHERE profile_key = ? ORDER BY app_id').pluck();
  return {
    list: () => all.all() as AppRow[],
    get: (appId: string) => get.get(appId) as AppRow | undefined,
    byToken: (tokenId: string) => byToken.get(tokenId) as AppRow | undefined,
    insert: (r: Omit<AppRow, 'created_at' | 'updated_at'>, at: number) => void insert.run({ ...r, at }),
    update: (r: Pick<AppRow, 'app_id' | 'name' | 'platform_permissions'>, at: number) => void update.run({ ...r, at }),
    remove: (appId: string) => remove.run(appId).changes > 0,
    policyAppIds: () => policyIds.all() as string[],
    /** null: no stored policy (follow the default); otherwise the explicit set, possibly empty (none). */
    grants: (appId: string): string[] | null => (hasPolicy.get(appId) ? (grants.all(appId) as string[]) : null),
    /** null: no stored policy (follow the default); otherwise whether the explicit set holds `key` (same answer as `grants`). */
    granted(appId: string, key: string): boolean | null {
      const r = mayUse.get({ app: appId, key }) as { policy: number; granted: number };
      return r.policy ? r.granted === 1 : null;
    },
    setGrants(appId: string, keys: string[] | null, at: number): void {
      if (keys === null) {
        removePolicy.run(appId);
        return;
      }
      putPolicy.run(appId, at);
      clearGrants.run(appId);
      for (const k of keys) addGrant.run(appId, k);
    },
    appsGrantedProfile: (key: string) => grantsOfProfile.all(key) as string[],
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type AppStore = ReturnType<typeof createAppStore>;
