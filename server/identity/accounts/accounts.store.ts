import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Params, RunResult, Store } from '../../core/storage/store.ts';

const ACCOUNTS_002 = `
      CREATE TABLE identity_accounts (
        sub TEXT PRIMARY KEY,                -- immutable UUID
        kind TEXT NOT NULL CHECK (kind IN ('person', 'service')),
        login TEXT UNIQUE,                   -- NULL for service accounts (they never sign in)
        email TEXT,
        email_key TEXT UNIQUE,               -- lower-cased email: uniqueness is case-insensitive
        display_name TEXT NOT NULL DEFAULT '',
        profile TEXT NOT NULL CHECK (profile IN ('user', 'guest')),
        admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1)),
        disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
        expires_at INTEGER,                  -- epoch ms
        epoch INTEGER NOT NULL DEFAULT 0,    -- bumped to revoke every session of the account
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        CHECK ((kind = 'person') = (login IS NOT NULL))
      ) STRICT;
      CREATE TABLE identity_service_accounts (
        sub TEXT PRIMARY KEY REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        app_id TEXT NOT NULL,
        resource_type TEXT NOT NULL,
        resource_id TEXT NOT NULL,
        UNIQUE (app_id, resource_type, resource_id)
      ) STRICT;
      CREATE TABLE identity_groups (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        description TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE identity_group_members (
        group_id TEXT NOT NULL REFERENCES identity_groups (id) ON DELETE CASCADE,
        member_sub TEXT REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        member_group_id TEXT REFERENCES identity_groups (id) ON DELETE CASCADE,
        added_at INTEGER NOT NULL,
        CHECK ((member_sub IS NULL) <> (member_group_id IS NULL)),
        CHECK (member_group_id IS NULL OR member_group_id <> group_id)
      ) STRICT;
      CREATE UNIQUE INDEX identity_group_members_account ON identity_group_members (group_id, member_sub) WHERE member_sub IS NOT NULL;
      CREATE UNIQUE INDEX identity_group_members_group ON identity_group_members (group_id, member_group_id) WHERE member_group_id IS NOT NULL;
      CREATE INDEX identity_group_members_by_sub ON identity_group_members (member_sub);
      CREATE INDEX identity_group_members_by_group ON identity_group_members (member_group_id);
      CREATE TABLE identity_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,                 -- JSON, validated when read
        updated_at INTEGER NOT NULL
      ) STRICT;
    `;

export const accountMigrations: Migration[] = [{ id: 'identity-002-accounts', up: ACCOUNTS_002, pg: postgresDdl(ACCOUNTS_002) }];

export interface AccountRow {
  sub: string;
  kind: 'person' | 'service';
  login: string | null;
  email: string | null;
  email_key: string | null;
  display_name: string;
  profile: 'user' | 'guest';
  admin: 0 | 1;
  disabled: 0 | 1;
  expires_at: number | null;
  epoch: number;
  created_at: number;
  updated_at: number;
}
export type AccountChanges = Partial<Pick<AccountRow, 'login' | 'email' | 'email_key' | 'display_name' | 'profile' | 'admin' | 'disabled' | 'expires_at'>>;

export interface ServiceAccountRow extends AccountRow {
  app_id: string;
  resource_type: string;
  resource_id: string;
}

export interface GroupRow {
  id: string;
  name: string;
  description: string;
  created_at: number;
  updated_at: number;
}

/** `%text%` for LIKE with `\` as the escape character, lower-cased (compared with lower-cased columns). */
const likeOf = (search: string | undefined) => (search ? `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null);
/** A case-insensitive, literal `LIKE` on both engines (SQLite's LIKE ignores ASCII case, PostgreSQL's does not). */
const like = (col: string) => `lower(${col}) LIKE @like ESCAPE '\\'`;

const UPDATABLE = ['login', 'email', 'email_key', 'display_name', 'profile', 'admin', 'disabled', 'expires_at'] as const;

/**
 * Accounts, groups, service accounts and identity settings in the core store (SQLite or PostgreSQL; one SQL text,
 * store.ts). Transactions belong to the service (`transaction`, ambient); `lockAccount` reads an account FOR UPDATE
 * inside one, so that two replicas changing one account apply their changes one after the other.
 */
export function createAccountStore(store: Store) {
  const noLike = 'CAST(@like AS TEXT) IS NULL';
  const accountSearch = `kind = 'person' AND (${noLike} OR ${like('login')} OR ${like('email')} OR ${like('display_name')})`;
  const serviceSearch = `(${noLike} OR ${like('s.app_id')} OR ${like('s.resource_type')} OR ${like('s.resource_id')} OR ${like('a.display_name')})`;
  const groupSearch = `(${noLike} OR ${like('name')} OR ${like('description')})`;
  const done = async (r: Promise<RunResult>) => void (await r);
  const one = async (r: Promise<RunResult>) => (await r).changes === 1;
  const count = async (sql: string, params: Params) => (await store.value<number>(sql, params)) ?? 0;
  const getAccount = (sub: string) => store.get<AccountRow>('SELECT * FROM identity_accounts WHERE sub = ?', [sub]);

  return {
    listAccounts: (search: string | undefined, limit: number, offset: number) =>
      store.all<AccountRow>(`SELECT * FROM identity_accounts WHERE ${accountSearch} ORDER BY login LIMIT @limit OFFSET @offset`, {
        like: likeOf(search),
        limit,
        offset,
      }),
    countAccounts: (search: string | undefined) => count(`SELECT count(*) FROM identity_accounts WHERE ${accountSearch}`, { like: likeOf(search) }),
    getAccount,
    /** The account row-locked until the transaction ends (call inside `transaction`). */
    lockAccount: (sub: string) => store.get<AccountRow>(`SELECT * FROM identity_accounts WHERE sub = ?${store.forUpdate}`, [sub]),
    /** Administrators that can still sign in (not disabled, not expired). */
    countUsableAdmins: (at: number) =>
      count(
        `SELECT count(*) FROM identity_accounts WHERE kind = 'person' AND admin = 1 AND disabled = 0
        AND (expires_at IS NULL OR expires_at > ?)`,
        [at],
      ),
    /**
     * Locks every usable administrator's row (PostgreSQL; SQLite's transaction holds the write lock), so that two
     * replicas each removing one of the last two administrators cannot both see the other one still there.
     */
    lockUsableAdmins: (at: number) =>
      store.all(
        `SELECT sub FROM identity_accounts WHERE kind = 'person' AND admin = 1 AND disabled = 0 AND (expires_at IS NULL OR expires_at > ?)${store.forUpdate}`,
        [at],
      ),
    findSubByLogin: (login: string) => store.value<string>('SELECT sub FROM identity_accounts WHERE login = ?', [login]),
    findSubByEmailKey: (emailKey: string) => store.value<string>('SELECT sub FROM identity_accounts WHERE email_key = ?', [emailKey]),
    insertAccount: (row: Omit<AccountRow, 'epoch' | 'updated_at'>) =>
      done(
        store.run(
          `INSERT INTO identity_accounts
          (sub, kind, login, email, email_key, display_name, profile, admin, disabled, expires_at, epoch, created_at, updated_at)
          VALUES (@sub, @kind, @login, @email, @email_key, @display_name, @profile, @admin, @disabled, @expires_at, 0, @created_at, @created_at)`,
          { ...row },
        ),
      ),
    updateAccount(sub: string, changes: AccountChanges, at: number): Promise<void> {
      const cols = UPDATABLE.filter((c) => c in changes);
      const sets = [...cols.map((c) => `${c} = @${c}`), 'updated_at = @at'].join(', ');
      return done(store.run(`UPDATE identity_accounts SET ${sets} WHERE sub = @sub`, { ...changes, sub, at }));
    },
    deleteAccount: (sub: string) => one(store.run('DELETE FROM identity_accounts WHERE sub = ?', [sub])),
    bumpEpoch: (sub: string, at: number) => one(store.run('UPDATE identity_accounts SET epoch = epoch + 1, updated_at = @at WHERE sub = @sub', { sub, at })),

    listServiceAccounts: (search: string | undefined, limit: number, offset: number) =>
      store.all<ServiceAccountRow>(
        `SELECT a.*, s.app_id, s.resource_type, s.resource_id
        FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub
        WHERE ${serviceSearch} ORDER BY s.app_id, s.resource_type, s.resource_id LIMIT @limit OFFSET @offset`,
        { like: likeOf(search), limit, offset },
      ),
    countServiceAccounts: (search: string | undefined) =>
      count(`SELECT count(*) FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub WHERE ${serviceSearch}`, { like: likeOf(search) }),
    // Two primary-key lookups rather than the one-row join on SQLite, which answers the join about ten times slower;
    // the join on PostgreSQL, where each statement is a round trip. This runs on every client_credentials token and
    // every request bearing a service account's access token.
    async getServiceAccount(sub: string): Promise<ServiceAccountRow | undefined> {
      if (store.dialect === 'postgres') {
        return store.get<ServiceAccountRow>(
          'SELECT a.*, s.app_id, s.resource_type, s.resource_id FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub WHERE s.sub = ?',
          [sub],
        );
      }
      const b = await store.get<Pick<ServiceAccountRow, 'app_id' | 'resource_type' | 'resource_id'>>(
        'SELECT app_id, resource_type, resource_id FROM identity_service_accounts WHERE sub = ?',
        [sub],
      );
      if (!b) return undefined;
      const a = await getAccount(sub);
      return a && { ...a, app_id: b.app_id, resource_type: b.resource_type, resource_id: b.resource_id };
    },
    findServiceAccount: (b: { appId: string; resourceType: string; resourceId: string }) =>
      store.get<ServiceAccountRow>(
        `SELECT a.*, s.app_id, s.resource_type, s.resource_id
        FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub
        WHERE s.app_id = @appId AND s.resource_type = @resourceType AND s.resource_id = @resourceId`,
        { ...b },
      ),
    insertBinding: (b: { sub: string; appId: string; resourceType: string; resourceId: string }) =>
      done(
        store.run('INSERT INTO identity_service_accounts (sub, app_id, resource_type, resource_id) VALUES (@sub, @appId, @resourceType, @resourceId)', {
          ...b,
        }),
      ),

    listGroups: (search: string | undefined, limit: number, offset: number) =>
      store.all<GroupRow>(`SELECT * FROM identity_groups WHERE ${groupSearch} ORDER BY name LIMIT @limit OFFSET @offset`, {
        like: likeOf(search),
        limit,
        offset,
      }),
    countGroups: (search: string | undefined) => count(`SELECT count(*) FROM identity_groups WHERE ${groupSearch}`, { like: likeOf(search) }),
    getGroup: (id: string) => store.get<GroupRow>('SELECT * FROM identity_groups WHERE id = ?', [id]),
    /** The group row-locked until the transaction ends (call inside `transaction`). */
    lockGroup: (id: string) => store.get<GroupRow>(`SELECT * FROM identity_groups WHERE id = ?${store.forUpdate}`, [id]),
    findGroupIdByName: (name: string) => store.value<string>('SELECT id FROM identity_groups WHERE name = ?', [name]),
    insertGroup: (g: { id: string; name: string; description: string; at: number }) =>
      done(store.run('INSERT INTO identity_groups (id, name, description, created_at, updated_at) VALUES (@id, @name, @description, @at, @at)', { ...g })),
    updateGroup: (id: string, g: { name?: string; description?: string }, at: number) =>
      done(
        store.run(
          'UPDATE identity_groups SET name = coalesce(CAST(@name AS TEXT), name), description = coalesce(CAST(@description AS TEXT), description), updated_at = @at WHERE id = @id',
          { id, name: g.name ?? null, description: g.description ?? null, at },
        ),
      ),
    deleteGroup: (id: string) => one(store.run('DELETE FROM identity_groups WHERE id = ?', [id])),
    memberAccounts: (groupId: string) =>
      store.all<{ sub: string; login: string | null; display_name: string; kind: 'person' | 'service' }>(
        `SELECT a.sub, a.login, a.display_name, a.kind FROM identity_group_members m
        JOIN identity_accounts a ON a.sub = m.member_sub WHERE m.group_id = ? ORDER BY a.login, a.sub`,
        [groupId],
      ),
    memberGroups: (groupId: string) =>
      store.all<{ id: string; name: string }>(
        `SELECT g.id, g.name FROM identity_group_members m
        JOIN identity_groups g ON g.id = m.member_group_id WHERE m.group_id = ? ORDER BY g.name`,
        [groupId],
      ),
    /** Adds a member; false when it already was one. */
    addAccountMember: (groupId: string, sub: string, at: number) =>
      one(store.run('INSERT INTO identity_group_members (group_id, member_sub, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [groupId, sub, at])),
    addGroupMember: (groupId: string, memberId: string, at: number) =>
      one(
        store.run('INSERT INTO identity_group_members (group_id, member_group_id, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [groupId, memberId, at]),
      ),
    /** Removes a direct member; false when it was not one. */
    removeAccountMember: (groupId: string, sub: string) =>
      one(store.run('DELETE FROM identity_group_members WHERE group_id = ? AND member_sub = ?', [groupId, sub])),
    removeGroupMember: (groupId: string, memberId: string) =>
      one(store.run('DELETE FROM identity_group_members WHERE group_id = ? AND member_group_id = ?', [groupId, memberId])),
    /** Whether `target` is `start` or nested (at any depth) inside it: adding `start` to `target` would then close a cycle. */
    groupContains: async (start: string, target: string) =>
      (await store.value<number>(
        `WITH RECURSIVE inside(id) AS (
          SELECT CAST(@start AS TEXT)
          UNION
          SELECT m.member_group_id FROM identity_group_members m JOIN inside ON m.group_id = inside.id WHERE m.member_group_id IS NOT NULL
        ) SELECT count(*) FROM inside WHERE id = @target`,
        { start, target },
      )) !== 0,
    /** Every group the account belongs to, directly or through nested groups. */
    memberships: async (sub: string) =>
      (
        await store.all<{ id: string; name: string; direct: number }>(
          `WITH RECURSIVE up(id) AS (
            SELECT group_id FROM identity_group_members WHERE member_sub = @sub
            UNION
            SELECT m.group_id FROM identity_group_members m JOIN up ON m.member_group_id = up.id
          )
          SELECT g.id, g.name, CASE WHEN EXISTS (SELECT 1 FROM identity_group_members d WHERE d.group_id = g.id AND d.member_sub = @sub) THEN 1 ELSE 0 END AS direct
          FROM up JOIN identity_groups g ON g.id = up.id ORDER BY g.name`,
          { sub },
        )
      ).map((g) => ({ ...g, direct: g.direct === 1 })),

    getSetting: (name: string) => store.value<string>('SELECT value FROM identity_settings WHERE name = ?', [name]),
    putSetting: (name: string, value: string, at: number) =>
      done(
        store.run(
          'INSERT INTO identity_settings (name, value, updated_at) VALUES (@name, @value, @at) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
          { name, value, at },
        ),
      ),

    /** Runs `fn` in one transaction of the core store (ambient: the store's calls inside join it). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'accounts' }),
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
