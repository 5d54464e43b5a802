import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { RunResult, Store } from '../../core/storage/store.ts';

const SESSIONS_003 = `
      CREATE TABLE identity_passwords (
        sub TEXT PRIMARY KEY REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        hash TEXT NOT NULL,                  -- Argon2id PHC string
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE identity_session_families (
        id TEXT PRIMARY KEY,                 -- the family; the cookie carries it with a secret
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        secret_hash TEXT NOT NULL,           -- SHA-256 of the cookie secret (hex)
        epoch INTEGER NOT NULL,              -- the account epoch at issue: a later epoch revokes the family
        issued_at INTEGER NOT NULL,          -- epoch ms (interactive sign-in: "recent authentication" is measured from it)
        expires_at INTEGER NOT NULL,
        last_seen INTEGER NOT NULL,
        revoked_at INTEGER,
        revocation TEXT                      -- logout | password | admin
      ) STRICT;
      CREATE INDEX identity_session_families_by_sub ON identity_session_families (sub);
      CREATE INDEX identity_session_families_by_expiry ON identity_session_families (expires_at);
    `;

export const sessionMigrations: Migration[] = [{ id: 'identity-003-passwords-sessions', up: SESSIONS_003, pg: postgresDdl(SESSIONS_003) }];

export interface SessionFamilyRow {
  id: string;
  sub: string;
  secret_hash: string;
  epoch: number;
  issued_at: number;
  expires_at: number;
  last_seen: number;
  revoked_at: number | null;
  revocation: string | null;
}

/**
 * Passwords and session families in the core store (SQLite or PostgreSQL; one SQL text, store.ts). A session created
 * at one replica is a row every replica reads, so its cookie is accepted by all of them; a revocation is one UPDATE
 * every replica sees at its next request.
 */
export function createSessionStore(store: Store) {
  const done = async (r: Promise<RunResult>) => void (await r);
  const changes = async (r: Promise<RunResult>) => (await r).changes;
  return {
    getPassword: (sub: string) => store.value<string>('SELECT hash FROM identity_passwords WHERE sub = ?', [sub]),
    putPassword: (sub: string, hash: string, at: number) =>
      done(
        store.run(
          `INSERT INTO identity_passwords (sub, hash, updated_at) VALUES (@sub, @hash, @at)
          ON CONFLICT (sub) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`,
          { sub, hash, at },
        ),
      ),
    insertFamily: (row: Omit<SessionFamilyRow, 'last_seen' | 'revoked_at' | 'revocation'>) =>
      done(
        store.run(
          `INSERT INTO identity_session_families (id, sub, secret_hash, epoch, issued_at, expires_at, last_seen)
          VALUES (@id, @sub, @secret_hash, @epoch, @issued_at, @expires_at, @issued_at)`,
          { ...row },
        ),
      ),
    getFamily: (id: string) => store.get<SessionFamilyRow>('SELECT * FROM identity_session_families WHERE id = ?', [id]),
    touch: (id: string, at: number) => done(store.run('UPDATE identity_session_families SET last_seen = @at WHERE id = @id', { id, at })),
    /** Re-authentication: the family counts as signed in at `at` (recent authentication, OAuth `auth_time`). */
    reauthenticated: async (id: string, at: number) =>
      (await changes(store.run('UPDATE identity_session_families SET issued_at = @at, last_seen = @at WHERE id = @id AND revoked_at IS NULL', { id, at }))) ===
      1,
    revoke: async (id: string, at: number, why: string) =>
      (await changes(
        store.run('UPDATE identity_session_families SET revoked_at = @at, revocation = @why WHERE id = @id AND revoked_at IS NULL', { id, at, why }),
      )) === 1,
    /** Revokes every live family of the account except `keep`; returns how many. */
    revokeAll: (sub: string, at: number, why: string, keep: string | null = null) =>
      changes(
        store.run(
          `UPDATE identity_session_families SET revoked_at = @at, revocation = @why
          WHERE sub = @sub AND revoked_at IS NULL AND (CAST(@keep AS TEXT) IS NULL OR id <> @keep)`,
          { sub, at, why, keep },
        ),
      ),
    /** Removes families that expired before `before`. */
    purge: (before: number) => changes(store.run('DELETE FROM identity_session_families WHERE expires_at < ?', [before])),
    countPersons: async () => (await store.value<number>("SELECT count(*) FROM identity_accounts WHERE kind = 'person'")) ?? 0,
    /** Runs `fn` in one transaction of the core store (ambient: the store's calls inside join it). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'sessions' }),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
