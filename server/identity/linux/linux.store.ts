import type { Db, Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';

/**
 * Linux identity data. `linux_numbers` records every number ever handed out (UIDs and GIDs share one pool), and
 * is never deleted from: deleting an account or a group never frees its number.
 */
const LINUX_005 = `
      CREATE TABLE linux_numbers (
        number INTEGER PRIMARY KEY CHECK (number BETWEEN 1000 AND 2147483647),
        kind TEXT NOT NULL CHECK (kind IN ('user', 'group')),
        owner TEXT NOT NULL,                  -- the account sub or group id it was assigned to (kept after deletion)
        assigned_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE linux_identities (
        sub TEXT PRIMARY KEY REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        username TEXT NOT NULL UNIQUE,
        uid INTEGER NOT NULL UNIQUE,
        gid INTEGER NOT NULL UNIQUE,          -- the private primary group (named like the user)
        home_directory TEXT NOT NULL,
        login_shell TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE linux_groups (
        group_id TEXT PRIMARY KEY REFERENCES identity_groups (id) ON DELETE CASCADE,
        gid INTEGER NOT NULL UNIQUE,
        created_at INTEGER NOT NULL
      ) STRICT;
    `;

export const linuxMigrations: Migration[] = [{ id: 'identity-005-linux', up: LINUX_005, pg: postgresDdl(LINUX_005) }];

export interface LinuxIdentityRow {
  sub: string;
  username: string;
  uid: number;
  gid: number;
  home_directory: string;
  login_shell: string;
  created_at: number;
  updated_at: number;
}

export interface PreviewRow {
  sub: string;
  login: string;
  profile: 'user' | 'guest';
  disabled: number;
  username: string | null;
  uid: number | null;
  gid: number | null;
  home_directory: string | null;
  login_shell: string | null;
}

export function createLinuxStore(db: Db) {
  const q = {
    identity: db.prepare('SELECT * FROM linux_identities WHERE sub = ?'),
    byUsername: db.prepare('SELECT sub FROM linux_identities WHERE username = ?').pluck(),
    insertIdentity: db.prepare(`INSERT INTO linux_identities (sub, username, uid, gid, home_directory, login_shell, created_at, updated_at)
      VALUES (@sub, @username, @uid, @gid, @home_directory, @login_shell, @created_at, @updated_at)`),
    updateIdentity: db.prepare('UPDATE linux_identities SET home_directory = ?, login_shell = ?, updated_at = ? WHERE sub = ?'),
    nextNumber: db.prepare('SELECT coalesce(max(number) + 1, @start) FROM linux_numbers WHERE number BETWEEN @start AND @end').pluck(),
    insertNumber: db.prepare('INSERT INTO linux_numbers (number, kind, owner, assigned_at) VALUES (?, ?, ?, ?)'),
    numberTaken: db.prepare('SELECT 1 FROM linux_numbers WHERE number = ?').pluck(),
    group: db.prepare('SELECT * FROM linux_groups WHERE group_id = ?'),
    insertGroup: db.prepare('INSERT INTO linux_groups (group_id, gid, created_at) VALUES (?, ?, ?)'),
    posixGroups: db.prepare('SELECT g.id, g.name, l.gid FROM linux_groups l JOIN identity_groups g ON g.id = l.group_id ORDER BY l.gid'),
    preview: db.prepare(`SELECT a.sub, a.login, a.profile, a.disabled, l.username, l.uid, l.gid, l.home_directory, l.login_shell
      FROM identity_accounts a LEFT JOIN linux_identities l ON l.sub = a.sub
      WHERE a.kind = 'person' AND (@after IS NULL OR a.sub > @after)
        AND (@search IS NULL OR instr(lower(a.login), @search) > 0 OR instr(lower(a.display_name), @search) > 0)
        AND (@ready = 0 OR (a.profile = 'user' AND l.sub IS NULL))
      ORDER BY a.sub LIMIT @limit`),
  };
  return {
    getIdentity: (sub: string) => q.identity.get(sub) as LinuxIdentityRow | undefined,
    subByUsername: (username: string) => q.byUsername.get(username) as string | undefined,
    insertIdentity: (r: LinuxIdentityRow) => void q.insertIdentity.run(r),
    updateIdentity: (sub: string, home: string, shell: string, at: number) => void q.updateIdentity.run(home, shell, at, sub),
    /** The next never-used number of the range, or null when the range is exhausted. */
    nextNumber(start: number, end: number): number | null {
      let n = q.nextNumber.get({ start, end }) as number;
      while (n <= end && q.numberTaken.get(n)) n++;
      return n <= end ? n : null;
    },
    takeNumber: (n: number, kind: 'user' | 'group', owner: string, at: number) => void q.insertNumber.run(n, kind, owner, at),
    getGroupGid: (groupId: string) => q.group.get(groupId) as { group_id: string; gid: number; created_at: number } | undefined,
    insertGroupGid: (groupId: string, gid: number, at: number) => void q.insertGroup.run(groupId, gid, at),
    posixGroups: () => q.posixGroups.all() as Array<{ id: string; name: string; gid: number }>,
    preview: (p: { after: string | null; search: string | null; ready: boolean; limit: number }) =>
      q.preview.all({ after: p.after, search: p.search, ready: p.ready ? 1 : 0, limit: p.limit }) as PreviewRow[],
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type LinuxStore = ReturnType<typeof createLinuxStore>;
