import type { Db, Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';

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

export function createSessionStore(db: Db) {
  const getPassword = db.prepare('SELECT hash FROM identity_passwords WHERE sub = ?').pluck();
  const putPassword = db.prepare(`INSERT INTO identity_passwords (sub, hash, updated_at) VALUES (@sub, @hash, @at)
    ON CONFLICT (sub) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at`);
  const insertFamily = db.prepare(`INSERT INTO identity_session_families (id, sub, secret_hash, epoch, issued_at, expires_at, last_seen)
    VALUES (@id, @sub, @secret_hash, @epoch, @issued_at, @expires_at, @issued_at)`);
  const getFamily = db.prepare('SELECT * FROM identity_session_families WHERE id = ?');
  const touch = db.prepare('UPDATE identity_session_families SET last_seen = @at WHERE id = @id');
  const reauthenticated = db.prepare('UPDATE identity_session_families SET issued_at = @at, last_seen = @at WHERE id = @id AND revoked_at IS NULL');
  const revoke = db.prepare('UPDATE identity_session_families SET revoked_at = @at, revocation = @why WHERE id = @id AND revoked_at IS NULL');
  const revokeAll = db.prepare(`UPDATE identity_session_families SET revoked_at = @at, revocation = @why
    WHERE sub = @sub AND revoked_at IS NULL AND (@keep IS NULL OR id <> @keep)`);
  const purge = db.prepare('DELETE FROM identity_session_families WHERE expires_at < ?');
  const countPersons = db.prepare("SELECT count(*) FROM identity_accounts WHERE kind = 'person'").pluck();

  return {
    getPassword: (sub: string) => getPassword.get(sub) as string | undefined,
    putPassword: (sub: string, hash: string, at: number) => void putPassword.run({ sub, hash, at }),
    insertFamily: (row: Omit<SessionFamilyRow, 'last_seen' | 'revoked_at' | 'revocation'>) => void insertFamily.run(row),
    getFamily: (id: string) => getFamily.get(id) as SessionFamilyRow | undefined,
    touch: (id: string, at: number) => void touch.run({ id, at }),
    /** Re-authentication: the family counts as signed in at `at` (recent authentication, OAuth `auth_time`). */
    reauthenticated: (id: string, at: number) => reauthenticated.run({ id, at }).changes === 1,
    revoke: (id: string, at: number, why: string) => revoke.run({ id, at, why }).changes === 1,
    /** Revokes every live family of the account except `keep`; returns how many. */
    revokeAll: (sub: string, at: number, why: string, keep: string | null = null) => revokeAll.run({ sub, at, why, keep }).changes,
    /** Removes families that expired before `before`. */
    purge: (before: number) => purge.run(before).changes,
    countPersons: () => countPersons.get() as number,
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
