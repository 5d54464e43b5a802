import type { Db, Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';

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

/** `%text%` for LIKE with `\` as the escape character. */
const likeOf = (search: string | undefined) => (search ? `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null);

const UPDATABLE = ['login', 'email', 'email_key', 'display_name', 'profile', 'admin', 'disabled', 'expires_at'] as const;

/** SQL of accounts, groups, service accounts and identity settings. Transactions belong to the service. */
export function createAccountStore(db: Db) {
  const accountSearch = `kind = 'person' AND (@like IS NULL OR login LIKE @like ESCAPE '\\' OR email LIKE @like ESCAPE '\\' OR display_name LIKE @like ESCAPE '\\')`;
  const listAccounts = db.prepare(`SELECT * FROM identity_accounts WHERE ${accountSearch} ORDER BY login LIMIT @limit OFFSET @offset`);
  const countAccounts = db.prepare(`SELECT count(*) FROM identity_accounts WHERE ${accountSearch}`).pluck();
  const getAccount = db.prepare('SELECT * FROM identity_accounts WHERE sub = ?');
  const usableAdmins = db
    .prepare(`SELECT count(*) FROM identity_accounts WHERE kind = 'person' AND admin = 1 AND disabled = 0
    AND (expires_at IS NULL OR expires_at > ?)`)
    .pluck();
  const byLogin = db.prepare('SELECT sub FROM identity_accounts WHERE login = ?').pluck();
  const byEmail = db.prepare('SELECT sub FROM identity_accounts WHERE email_key = ?').pluck();
  const insertAccount = db.prepare(`INSERT INTO identity_accounts
    (sub, kind, login, email, email_key, display_name, profile, admin, disabled, expires_at, epoch, created_at, updated_at)
    VALUES (@sub, @kind, @login, @email, @email_key, @display_name, @profile, @admin, @disabled, @expires_at, 0, @created_at, @created_at)`);
  const deleteAccount = db.prepare('DELETE FROM identity_accounts WHERE sub = ?');
  const bumpEpoch = db.prepare('UPDATE identity_accounts SET epoch = epoch + 1, updated_at = @at WHERE sub = @sub');

  const serviceSearch = `(@like IS NULL OR s.app_id LIKE @like ESCAPE '\\' OR s.resource_type LIKE @like ESCAPE '\\' OR s.resource_id LIKE @like ESCAPE '\\' OR a.display_name LIKE @like ESCAPE '\\')`;
  const listServices = db.prepare(`SELECT a.*, s.app_id, s.resource_type, s.resource_id
    FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub
    WHERE ${serviceSearch} ORDER BY s.app_id, s.resource_type, s.resource_id LIMIT @limit OFFSET @offset`);
  const countServices = db.prepare(`SELECT count(*) FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub WHERE ${serviceSearch}`).pluck();
  // Two primary-key lookups rather than the one-row join: SQLite answers the join about ten times slower, and this
  // runs on every client_credentials token and every request bearing a service account's access token.
  const getServiceBinding = db.prepare('SELECT app_id, resource_type, resource_id FROM identity_service_accounts WHERE sub = ?');
  const getAccountRow = db.prepare('SELECT * FROM identity_accounts WHERE sub = ?');
  const getService = (sub: string): ServiceAccountRow | undefined => {
    const b = getServiceBinding.get(sub) as Pick<ServiceAccountRow, 'app_id' | 'resource_type' | 'resource_id'> | undefined;
    if (!b) return undefined;
    const a = getAccountRow.get(sub) as AccountRow | undefined;
    return a && { ...a, app_id: b.app_id, resource_type: b.resource_type, resource_id: b.resource_id };
  };
  const serviceByBinding = db.prepare(`SELECT a.*, s.app_id, s.resource_type, s.resource_id
    FROM identity_service_accounts s JOIN identity_accounts a ON a.sub = s.sub
    WHERE s.app_id = @appId AND s.resource_type = @resourceType AND s.resource_id = @resourceId`);
  const insertBinding = db.prepare(
    'INSERT INTO identity_service_accounts (sub, app_id, resource_type, resource_id) VALUES (@sub, @appId, @resourceType, @resourceId)',
  );

  const groupSearch = `(@like IS NULL OR name LIKE @like ESCAPE '\\' OR description LIKE @like ESCAPE '\\')`;
  const listGroups = db.prepare(`SELECT * FROM identity_groups WHERE ${groupSearch} ORDER BY name LIMIT @limit OFFSET @offset`);
  const countGroups = db.prepare(`SELECT count(*) FROM identity_groups WHERE ${groupSearch}`).pluck();
  const getGroup = db.prepare('SELECT * FROM identity_groups WHERE id = ?');
  const groupByName = db.prepare('SELECT id FROM identity_groups WHERE name = ?').pluck();
  const insertGroup = db.prepare('INSERT INTO identity_groups (id, name, description, created_at, updated_at) VALUES (@id, @name, @description, @at, @at)');
  const updateGroup = db.prepare(
    'UPDATE identity_groups SET name = coalesce(@name, name), description = coalesce(@description, description), updated_at = @at WHERE id = @id',
  );
  const deleteGroup = db.prepare('DELETE FROM identity_groups WHERE id = ?');
  const memberAccounts = db.prepare(`SELECT a.sub, a.login, a.display_name, a.kind FROM identity_group_members m
    JOIN identity_accounts a ON a.sub = m.member_sub WHERE m.group_id = ? ORDER BY a.login, a.sub`);
  const memberGroups = db.prepare(`SELECT g.id, g.name FROM identity_group_members m
    JOIN identity_groups g ON g.id = m.member_group_id WHERE m.group_id = ? ORDER BY g.name`);
  const addAccount = db.prepare('INSERT INTO identity_group_members (group_id, member_sub, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const addGroup = db.prepare('INSERT INTO identity_group_members (group_id, member_group_id, added_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
  const removeAccount = db.prepare('DELETE FROM identity_group_members WHERE group_id = ? AND member_sub = ?');
  const removeGroup = db.prepare('DELETE FROM identity_group_members WHERE group_id = ? AND member_group_id = ?');
  // Whether `target` is `start` or nested (at any depth) inside it: adding `start` to `target` would then close a cycle.
  const contains = db
    .prepare(`WITH RECURSIVE inside(id) AS (
      SELECT @start
      UNION
      SELECT m.member_group_id FROM identity_group_members m JOIN inside ON m.group_id = inside.id WHERE m.member_group_id IS NOT NULL
    ) SELECT EXISTS (SELECT 1 FROM inside WHERE id = @target)`)
    .pluck();
  const memberships = db.prepare(`WITH RECURSIVE up(id) AS (
      SELECT group_id FROM identity_group_members WHERE member_sub = @sub
      UNION
      SELECT m.group_id FROM identity_group_members m JOIN up ON m.member_group_id = up.id
    )
    SELECT g.id, g.name, EXISTS (SELECT 1 FROM identity_group_members d WHERE d.group_id = g.id AND d.member_sub = @sub) AS direct
    FROM up JOIN identity_groups g ON g.id = up.id ORDER BY g.name`);

  const getSetting = db.prepare('SELECT value FROM identity_settings WHERE name = ?').pluck();
  const putSetting = db.prepare(
    'INSERT INTO identity_settings (name, value, updated_at) VALUES (@name, @value, @at) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  );

  return {
    listAccounts: (search: string | undefined, limit: number, offset: number) => listAccounts.all({ like: likeOf(search), limit, offset }) as AccountRow[],
    countAccounts: (search: string | undefined) => countAccounts.get({ like: likeOf(search) }) as number,
    getAccount: (sub: string) => getAccount.get(sub) as AccountRow | undefined,
    /** Administrators that can still sign in (not disabled, not expired). */
    countUsableAdmins: (at: number) => usableAdmins.get(at) as number,
    findSubByLogin: (login: string) => byLogin.get(login) as string | undefined,
    findSubByEmailKey: (emailKey: string) => byEmail.get(emailKey) as string | undefined,
    insertAccount: (row: Omit<AccountRow, 'epoch' | 'updated_at'>) => void insertAccount.run(row),
    updateAccount(sub: string, changes: AccountChanges, at: number): void {
      const cols = UPDATABLE.filter((c) => c in changes);
      const sets = [...cols.map((c) => `${c} = @${c}`), 'updated_at = @at'].join(', ');
      db.prepare(`UPDATE identity_accounts SET ${sets} WHERE sub = @sub`).run({ ...changes, sub, at });
    },
    deleteAccount: (sub: string) => deleteAccount.run(sub).changes === 1,
    bumpEpoch: (sub: string, at: number) => bumpEpoch.run({ sub, at }).changes === 1,

    listServiceAccounts: (search: string | undefined, limit: number, offset: number) =>
      listServices.all({ like: likeOf(search), limit, offset }) as ServiceAccountRow[],
    countServiceAccounts: (search: string | undefined) => countServices.get({ like: likeOf(search) }) as number,
    getServiceAccount: (sub: string) => getService(sub),
    findServiceAccount: (b: { appId: string; resourceType: string; resourceId: string }) => serviceByBinding.get(b) as ServiceAccountRow | undefined,
    insertBinding: (b: { sub: string; appId: string; resourceType: string; resourceId: string }) => void insertBinding.run(b),

    listGroups: (search: string | undefined, limit: number, offset: number) => listGroups.all({ like: likeOf(search), limit, offset }) as GroupRow[],
    countGroups: (search: string | undefined) => countGroups.get({ like: likeOf(search) }) as number,
    getGroup: (id: string) => getGroup.get(id) as GroupRow | undefined,
    findGroupIdByName: (name: string) => groupByName.get(name) as string | undefined,
    insertGroup: (g: { id: string; name: string; description: string; at: number }) => void insertGroup.run(g),
    updateGroup: (id: string, g: { name?: string; description?: string }, at: number) =>
      void updateGroup.run({ id, name: g.name ?? null, description: g.description ?? null, at }),
    deleteGroup: (id: string) => deleteGroup.run(id).changes === 1,
    memberAccounts: (groupId: string) =>
      memberAccounts.all(groupId) as Array<{ sub: string; login: string | null; display_name: string; kind: 'person' | 'service' }>,
    memberGroups: (groupId: string) => memberGroups.all(groupId) as Array<{ id: string; name: string }>,
    /** Adds a member; false when it already was one. */
    addAccountMember: (groupId: string, sub: string, at: number) => addAccount.run(groupId, sub, at).changes === 1,
    addGroupMember: (groupId: string, memberId: string, at: number) => addGroup.run(groupId, memberId, at).changes === 1,
    /** Removes a direct member; false when it was not one. */
    removeAccountMember: (groupId: string, sub: string) => removeAccount.run(groupId, sub).changes === 1,
    removeGroupMember: (groupId: string, memberId: string) => removeGroup.run(groupId, memberId).changes === 1,
    /** Whether `target` is `start` or nested inside it at any depth. */
    groupContains: (start: string, target: string) => contains.get({ start, target }) === 1,
    /** Every group the account belongs to, directly or through nested groups. */
    memberships: (sub: string) =>
      (memberships.all({ sub }) as Array<{ id: string; name: string; direct: 0 | 1 }>).map((g) => ({ ...g, direct: g.direct === 1 })),

    getSetting: (name: string) => getSetting.get(name) as string | undefined,
    putSetting: (name: string, value: string, at: number) => void putSetting.run({ name, value, at }),

    /** Runs `fn` in a BEGIN IMMEDIATE transaction. */
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
