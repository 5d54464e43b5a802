import type { Db } from '../storage/platform-db.ts';

export interface TokenRow {
  id: string;
  name: string;
  token_hash: string;
  prefix: string;
  scope: 'admin' | 'namespaces';
  namespaces: string | null;
  read_only: number;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function createTokenStore(db: Db) {
  const byHash = db.prepare('SELECT * FROM api_tokens WHERE token_hash = ?');
  const byId = db.prepare('SELECT * FROM api_tokens WHERE id = ?');
  const all = db.prepare('SELECT * FROM api_tokens ORDER BY created_at, id');
  const insert = db.prepare(
    `INSERT INTO api_tokens (id, name, token_hash, prefix, scope, namespaces, read_only, created_at, expires_at)
     VALUES (@id, @name, @token_hash, @prefix, @scope, @namespaces, @read_only, @created_at, @expires_at)`,
  );
  const revoke = db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touch = db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?');
  const countActiveAdmin = db.prepare(
    "SELECT count(*) FROM api_tokens WHERE scope = 'admin' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)",
  );
  return {
    findByHash: (hash: string) => byHash.get(hash) as TokenRow | undefined,
    findById: (id: string) => byId.get(id) as TokenRow | undefined,
    list: () => all.all() as TokenRow[],
    insert: (row: Omit<TokenRow, 'last_used_at' | 'revoked_at'>) => void insert.run(row),
    revoke: (id: string, at: string) => revoke.run(at, id).changes > 0,
    touch: (id: string, at: string) => void touch.run(at, id),
    countActiveAdmin: (now: string) => countActiveAdmin.pluck().get(now) as number,
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
