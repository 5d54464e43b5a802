import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { RunResult, Store } from '../../core/storage/store.ts';

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

/**
 * Linux identities in the core store (SQLite or PostgreSQL; one SQL text, store.ts). A number is taken by inserting
 * its `linux_numbers` row (the primary key): two replicas picking the same next number cannot both take it, and the
 * loser's transaction fails instead of handing the number out twice. `lockNumbers` (PostgreSQL: a table lock inside
 * the transaction; SQLite's transaction holds the write lock) makes replicas assigning at once wait for each other.
 */
export function createLinuxStore(store: Store) {
  const instr = store.dialect === 'postgres' ? 'strpos' : 'instr';
  const done = async (r: Promise<RunResult>) => void (await r);
  return {
    getIdentity: (sub: string) => store.get<LinuxIdentityRow>('SELECT * FROM linux_identities WHERE sub = ?', [sub]),
    subByUsername: (username: string) => store.value<string>('SELECT sub FROM linux_identities WHERE username = ?', [username]),
    insertIdentity: (r: LinuxIdentityRow) =>
      done(
        store.run(
          `INSERT INTO linux_identities (sub, username, uid, gid, home_directory, login_shell, created_at, updated_at)
          VALUES (@sub, @username, @uid, @gid, @home_directory, @login_shell, @created_at, @updated_at)`,
          { ...r },
        ),
      ),
    updateIdentity: (sub: string, home: string, shell: string, at: number) =>
      done(store.run('UPDATE linux_identities SET home_directory = ?, login_shell = ?, updated_at = ? WHERE sub = ?', [home, shell, at, sub])),
    /** Inside a transaction that takes numbers: replicas assigning at once take turns (see above). */
    async lockNumbers(): Promise<void> {
      if (store.dialect === 'postgres') await store.run('LOCK TABLE linux_numbers IN SHARE ROW EXCLUSIVE MODE');
    },
    /** The next never-used number of the range, or null when the range is exhausted. */
    async nextNumber(start: number, end: number): Promise<number | null> {
      let n = (await store.value<number>('SELECT coalesce(max(number) + 1, @start) FROM linux_numbers WHERE number BETWEEN @start AND @end', { start, end }))!;
      while (n <= end && (await store.value('SELECT 1 FROM linux_numbers WHERE number = ?', [n])) !== undefined) n++;
      return n <= end ? n : null;
    },
    takeNumber: (n: number, kind: 'user' | 'group', owner: string, at: number) =>
      done(store.run('INSERT INTO linux_numbers (number, kind, owner, assigned_at) VALUES (?, ?, ?, ?)', [n, kind, owner, at])),
    getGroupGid: (groupId: string) =>
      store.get<{ group_id: string; gid: number; created_at: number }>('SELECT * FROM linux_groups WHERE group_id = ?', [groupId]),
    insertGroupGid: (groupId: string, gid: number, at: number) =>
      done(store.run('INSERT INTO linux_groups (group_id, gid, created_at) VALUES (?, ?, ?)', [groupId, gid, at])),
    posixGroups: () =>
      store.all<{ id: string; name: string; gid: number }>(
        'SELECT g.id, g.name, l.gid FROM linux_groups l JOIN identity_groups g ON g.id = l.group_id ORDER BY l.gid',
      ),
    preview: (p: { after: string | null; search: string | null; ready: boolean; limit: number }) =>
      store.all<PreviewRow>(
        `SELECT a.sub, a.login, a.profile, a.disabled, l.username, l.uid, l.gid, l.home_directory, l.login_shell
        FROM identity_accounts a LEFT JOIN linux_identities l ON l.sub = a.sub
        WHERE a.kind = 'person' AND (CAST(@after AS TEXT) IS NULL OR a.sub > @after)
          AND (CAST(@search AS TEXT) IS NULL OR ${instr}(lower(a.login), @search) > 0 OR ${instr}(lower(a.display_name), @search) > 0)
          AND (@ready = 0 OR (a.profile = 'user' AND l.sub IS NULL))
        ORDER BY a.sub LIMIT @limit`,
        { after: p.after, search: p.search, ready: p.ready ? 1 : 0, limit: p.limit },
      ),
    /** Runs `fn` in one transaction of the core store (ambient: the store's calls inside join it). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'linux' }),
  };
}

export type LinuxStore = ReturnType<typeof createLinuxStore>;
