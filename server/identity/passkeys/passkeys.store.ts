import type { Db, Migration } from '../../core/storage/platform-db.ts';

export const passkeyMigrations: Migration[] = [
  {
    id: 'identity-006-passkeys',
    up: `
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
    `,
  },
];

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

export function createPasskeyStore(db: Db) {
  const q = {
    insert: db.prepare(`INSERT INTO identity_passkeys (id, sub, name, public_key, counter, transports, device_type, backed_up, created_at)
      VALUES (@id, @sub, @name, @public_key, @counter, @transports, @device_type, @backed_up, @created_at)`),
    get: db.prepare('SELECT * FROM identity_passkeys WHERE id = ?'),
    ofSub: db.prepare('SELECT * FROM identity_passkeys WHERE sub = ? ORDER BY created_at, id'),
    count: db.prepare('SELECT count(*) FROM identity_passkeys WHERE sub = ?').pluck(),
    used: db.prepare('UPDATE identity_passkeys SET counter = ?, last_used_at = ? WHERE id = ?'),
    rename: db.prepare('UPDATE identity_passkeys SET name = ? WHERE id = ? AND sub = ?'),
    remove: db.prepare('DELETE FROM identity_passkeys WHERE id = ? AND sub = ?'),
    putChallenge: db.prepare('INSERT INTO identity_webauthn_challenges (id, purpose, sub, challenge, expires_at) VALUES (?, ?, ?, ?, ?)'),
    takeChallenge: db.prepare('DELETE FROM identity_webauthn_challenges WHERE id = ? AND purpose = ? RETURNING sub, challenge, expires_at'),
    purgeChallenges: db.prepare('DELETE FROM identity_webauthn_challenges WHERE expires_at < ?'),
    countChallenges: db.prepare('SELECT count(*) FROM identity_webauthn_challenges').pluck(),
  };
  return {
    insert: (r: Omit<PasskeyRow, 'last_used_at'>) => void q.insert.run(r),
    get: (id: string) => q.get.get(id) as PasskeyRow | undefined,
    ofSub: (sub: string) => q.ofSub.all(sub) as PasskeyRow[],
    count: (sub: string) => q.count.get(sub) as number,
    markUsed: (id: string, counter: number, at: number) => void q.used.run(counter, at, id),
    rename: (id: string, sub: string, name: string) => q.rename.run(name, id, sub).changes > 0,
    remove: (id: string, sub: string) => q.remove.run(id, sub).changes > 0,
    putChallenge: (id: string, purpose: 'register' | 'login', sub: string | null, challenge: string, expiresAt: number) =>
      void q.putChallenge.run(id, purpose, sub, challenge, expiresAt),
    /** Single use: the challenge is deleted as it is read. */
    takeChallenge: (id: string, purpose: 'register' | 'login') =>
      q.takeChallenge.get(id, purpose) as { sub: string | null; challenge: string; expires_at: number } | undefined,
    purgeChallenges: (at: number) => q.purgeChallenges.run(at).changes,
    countChallenges: () => q.countChallenges.get() as number,
  };
}

export type PasskeyStore = ReturnType<typeof createPasskeyStore>;
