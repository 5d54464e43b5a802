import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { RunResult, Store } from '../../core/storage/store.ts';

const PASSKEYS_006 = `
      CREATE TABLE identity_passkeys (
        id TEXT PRIMARY KEY,                 -- the credential ID (base64url)
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        name TEXT NOT NULL,
        public_key BLOB NOT NULL,            -- COSE public key
        counter INTEGER NOT NULL,
        transports TEXT NOT NULL,            -- JSON array
        device_type TEXT NOT NULL,           -- singleDevice | multiDevice
        backed_up INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      ) STRICT;
      CREATE INDEX identity_passkeys_by_sub ON identity_passkeys (sub);
      CREATE TABLE identity_webauthn_challenges (
        id TEXT PRIMARY KEY,
        purpose TEXT NOT NULL CHECK (purpose IN ('register', 'login')),
        sub TEXT,
        challenge TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `;

export const passkeyMigrations: Migration[] = [{ id: 'identity-006-passkeys', up: PASSKEYS_006, pg: postgresDdl(PASSKEYS_006) }];

export interface PasskeyRow {
  id: string;
  sub: string;
  name: string;
  public_key: Uint8Array;
  counter: number;
  transports: string;
  device_type: string;
  backed_up: number;
  created_at: number;
  last_used_at: number | null;
}

/**
 * Passkeys and WebAuthn challenges in the core store (SQLite or PostgreSQL; one SQL text, store.ts). A challenge is
 * taken by one `DELETE … RETURNING`: of two replicas answering the same ceremony, one gets it.
 */
export function createPasskeyStore(store: Store) {
  const done = async (r: Promise<RunResult>) => void (await r);
  const changed = async (r: Promise<RunResult>) => (await r).changes > 0;
  return {
    insert: (r: Omit<PasskeyRow, 'last_used_at'>) =>
      done(
        store.run(
          `INSERT INTO identity_passkeys (id, sub, name, public_key, counter, transports, device_type, backed_up, created_at)
          VALUES (@id, @sub, @name, @public_key, @counter, @transports, @device_type, @backed_up, @created_at)`,
          { ...r },
        ),
      ),
    get: (id: string) => store.get<PasskeyRow>('SELECT * FROM identity_passkeys WHERE id = ?', [id]),
    ofSub: (sub: string) => store.all<PasskeyRow>('SELECT * FROM identity_passkeys WHERE sub = ? ORDER BY created_at, id', [sub]),
    count: async (sub: string) => (await store.value<number>('SELECT count(*) FROM identity_passkeys WHERE sub = ?', [sub])) ?? 0,
    markUsed: (id: string, counter: number, at: number) =>
      done(store.run('UPDATE identity_passkeys SET counter = ?, last_used_at = ? WHERE id = ?', [counter, at, id])),
    rename: (id: string, sub: string, name: string) => changed(store.run('UPDATE identity_passkeys SET name = ? WHERE id = ? AND sub = ?', [name, id, sub])),
    remove: (id: string, sub: string) => changed(store.run('DELETE FROM identity_passkeys WHERE id = ? AND sub = ?', [id, sub])),
    putChallenge: (id: string, purpose: 'register' | 'login', sub: string | null, challenge: string, expiresAt: number) =>
      done(
        store.run('INSERT INTO identity_webauthn_challenges (id, purpose, sub, challenge, expires_at) VALUES (?, ?, ?, ?, ?)', [
          id,
          purpose,
          sub,
          challenge,
          expiresAt,
        ]),
      ),
    /** Single use: the challenge is deleted as it is read. */
    takeChallenge: (id: string, purpose: 'register' | 'login') =>
      store.get<{ sub: string | null; challenge: string; expires_at: number }>(
        'DELETE FROM identity_webauthn_challenges WHERE id = ? AND purpose = ? RETURNING sub, challenge, expires_at',
        [id, purpose],
      ),
    purgeChallenges: async (at: number) => (await store.run('DELETE FROM identity_webauthn_challenges WHERE expires_at < ?', [at])).changes,
    countChallenges: async () => (await store.value<number>('SELECT count(*) FROM identity_webauthn_challenges')) ?? 0,
  };
}

export type PasskeyStore = ReturnType<typeof createPasskeyStore>;
