/**
 * API tokens in the core store (`api_tokens`): only each token's SHA-256 is kept, never the token. Async because
 * the core store may be PostgreSQL (core/storage/store.ts); on SQLite each call answers at once.
 */
import type { Store } from '../storage/store.ts';

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

export function createTokenStore(store: Store) {
  return {
    findByHash: (hash: string) => store.get<TokenRow>('SELECT * FROM api_tokens WHERE token_hash = ?', [hash]),
    findById: (id: string) => store.get<TokenRow>('SELECT * FROM api_tokens WHERE id = ?', [id]),
    list: () => store.all<TokenRow>('SELECT * FROM api_tokens ORDER BY created_at, id'),
    insert: async (row: Omit<TokenRow, 'last_used_at' | 'revoked_at'>) => {
      await store.run(
        `INSERT INTO api_tokens (id, name, token_hash, prefix, scope, namespaces, read_only, created_at, expires_at)
         VALUES (@id, @name, @token_hash, @prefix, @scope, @namespaces, @read_only, @created_at, @expires_at)`,
        row,
      );
    },
    revoke: async (id: string, at: string) =>
      (await store.run('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id])).changes > 0,
    touch: async (id: string, at: string) => {
      await store.run('UPDATE api_tokens SET last_used_at = ? WHERE id = ?', [at, id]);
    },
    countActiveAdmin: async (now: string) =>
      (await store.value<number>("SELECT count(*) FROM api_tokens WHERE scope = 'admin' AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)", [
        now,
      ])) ?? 0,
  };
}

export type TokenStore = ReturnType<typeof createTokenStore>;
