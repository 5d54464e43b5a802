/**
 * The signing-key table and the maintenance lease, in the core store (SQLite's platform.db or PostgreSQL; one SQL text
 * for both, store.ts). Epoch-millisecond columns are BIGINT on PostgreSQL. The partial unique indexes keep one active
 * and one pending key per purpose on both engines; the service owns the transactions (`transaction`, `lockKeys`).
 */
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import { sharedReads } from '../../core/storage/shared-reads.ts';
import type { Store } from '../../core/storage/store.ts';
import type { KeyState, Purpose } from './keys.lifecycle.ts';

const SIGNING_KEYS_001 = `
      CREATE TABLE identity_signing_keys (
        kid TEXT PRIMARY KEY,
        purpose TEXT NOT NULL CHECK (purpose IN ('session', 'invocation', 'oauth')),
        state TEXT NOT NULL CHECK (state IN ('pending', 'active', 'retired', 'revoked')),
        algorithm TEXT NOT NULL,
        public_jwk TEXT NOT NULL,            -- public members only (kty, n, e, kid, alg, use)
        thumbprint TEXT NOT NULL,            -- RFC 7638 SHA-256 thumbprint of the public key
        private_key_envelope TEXT,           -- AES-256-GCM envelope of the private JWK; NULL once retired or revoked
        encryption_key_id TEXT,              -- fingerprint of the KEK that sealed the envelope
        created_at INTEGER NOT NULL,         -- epoch ms; also when the public key entered the JWKS
        activates_at INTEGER NOT NULL,       -- scheduled activation
        activated_at INTEGER,
        retires_at INTEGER,                  -- end of the 30-day target signing lifetime (set on activation)
        retired_at INTEGER,                  -- when it stopped signing (retired or revoked)
        retirement TEXT,                     -- rotated | downtime | revoked
        withdraws_at INTEGER,                -- when the public key leaves the JWKS
        withdrawn_at INTEGER,
        revoked_at INTEGER,
        revoked_by TEXT,
        revocation_reason TEXT,
        rewrapped_at INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX identity_signing_keys_one_active ON identity_signing_keys (purpose) WHERE state = 'active';
      CREATE UNIQUE INDEX identity_signing_keys_one_pending ON identity_signing_keys (purpose) WHERE state = 'pending';
      CREATE TABLE identity_leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `;

export const keyMigrations: Migration[] = [{ id: 'identity-001-signing-keys', up: SIGNING_KEYS_001, pg: postgresDdl(SIGNING_KEYS_001) }];

export interface KeyRow {
  kid: string;
  purpose: Purpose;
  state: KeyState;
  algorithm: string;
  public_jwk: string;
  thumbprint: string;
  private_key_envelope: string | null;
  encryption_key_id: string | null;
  created_at: number;
  activates_at: number;
  activated_at: number | null;
  retires_at: number | null;
  retired_at: number | null;
  retirement: string | null;
  withdraws_at: number | null;
  withdrawn_at: number | null;
  revoked_at: number | null;
  revoked_by: string | null;
  revocation_reason: string | null;
  rewrapped_at: number | null;
}

export type NewKeyRow = Pick<
  KeyRow,
  | 'kid'
  | 'purpose'
  | 'state'
  | 'algorithm'
  | 'public_jwk'
  | 'thumbprint'
  | 'private_key_envelope'
  | 'encryption_key_id'
  | 'created_at'
  | 'activates_at'
  | 'activated_at'
  | 'retires_at'
>;

/** Every column except the private-key envelope: what may be listed, logged or compared. */
export const METADATA_COLUMNS = [
  'kid',
  'purpose',
  'state',
  'algorithm',
  'public_jwk',
  'thumbprint',
  'encryption_key_id',
  'created_at',
  'activates_at',
  'activated_at',
  'retires_at',
  'retired_at',
  'retirement',
  'withdraws_at',
  'withdrawn_at',
  'revoked_at',
  'revoked_by',
  'revocation_reason',
  'rewrapped_at',
] as const;

const ORDER = `ORDER BY CASE state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'retired' THEN 2 ELSE 3 END, created_at DESC, kid`;

/**
 * SQL of the signing-key table, in the core store (SQLite or PostgreSQL, server/core/storage/store.ts). Transactions
 * belong to the service (`transaction`, the store's ambient transaction); `lockKeys` inside one serialises the
 * writers of every replica (SQLite's BEGIN IMMEDIATE does it already; PostgreSQL takes a table lock that readers
 * pass through), so two replicas never plan and apply on the same rows at once.
 */
export function createKeyStore(store: Store) {
  const stateOf = sharedReads(
    (kid) => store.value<KeyState>('SELECT state FROM identity_signing_keys WHERE kid = ?', [kid]),
    () => store.inTx(),
  );
  const insert = `INSERT INTO identity_signing_keys
    (kid, purpose, state, algorithm, public_jwk, thumbprint, private_key_envelope, encryption_key_id, created_at, activates_at, activated_at, retires_at)
    VALUES (@kid, @purpose, @state, @algorithm, @public_jwk, @thumbprint, @private_key_envelope, @encryption_key_id, @created_at, @activates_at, @activated_at, @retires_at)`;
  // A retired key never signs again: its private half is destroyed with the transition.
  const retire = `UPDATE identity_signing_keys
    SET state = 'retired', retired_at = @at, retirement = @reason, withdraws_at = @withdrawsAt,
        private_key_envelope = NULL, encryption_key_id = NULL
    WHERE kid = @kid AND state IN ('pending', 'active')`;
  const revoke = `UPDATE identity_signing_keys
    SET state = 'revoked', retired_at = @at, retirement = 'revoked', withdraws_at = @at, withdrawn_at = @at,
        revoked_at = @at, revoked_by = @by, revocation_reason = @reason, private_key_envelope = NULL, encryption_key_id = NULL
    WHERE kid = @kid AND state IN ('pending', 'active')`;
  const rewrap = `UPDATE identity_signing_keys
    SET private_key_envelope = @envelope, encryption_key_id = @encryptionKeyId, rewrapped_at = @at
    WHERE kid = @kid AND private_key_envelope = @previous`;
  // One statement: the lease is taken when it is free, expired or already ours; answers a row only then.
  const takeLease = `INSERT INTO identity_leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
    WHERE identity_leases.holder = excluded.holder OR identity_leases.expires_at <= @now
    RETURNING holder`;
  const changed = async (r: Promise<{ changes: number }>) => (await r).changes === 1;

  return {
    listAll: () => store.all<KeyRow>(`SELECT * FROM identity_signing_keys ${ORDER}`),
    get: (kid: string) => store.get<KeyRow>('SELECT * FROM identity_signing_keys WHERE kid = ?', [kid]),
    /** The key's state, by a read that began after the call (concurrent signatures share one: core/storage/shared-reads.ts). */
    stateOf,
    findActive: (purpose: Purpose) => store.get<KeyRow>("SELECT * FROM identity_signing_keys WHERE purpose = ? AND state = 'active'", [purpose]),
    /** Pending, active and not yet withdrawn retired keys (what maintenance looks at). */
    listLive: () =>
      store.all<KeyRow>("SELECT * FROM identity_signing_keys WHERE state IN ('pending', 'active') OR (state = 'retired' AND withdrawn_at IS NULL)"),
    /** What a purpose's JWKS holds at `now`. */
    listPublished: (purpose: Purpose, now: number) =>
      store.all<KeyRow>(
        `SELECT * FROM identity_signing_keys WHERE purpose = @purpose AND (state IN ('pending', 'active') OR (state = 'retired' AND withdraws_at > @now)) ${ORDER}`,
        { purpose, now },
      ),
    /** Keys that still hold an encrypted private half. */
    listSealed: () => store.all<KeyRow>(`SELECT * FROM identity_signing_keys WHERE private_key_envelope IS NOT NULL ${ORDER}`),
    insert: async (row: NewKeyRow) => void (await store.run(insert, row)),
    activate: (kid: string, at: number, retiresAt: number) =>
      changed(
        store.run("UPDATE identity_signing_keys SET state = 'active', activated_at = @at, retires_at = @retiresAt WHERE kid = @kid AND state = 'pending'", {
          kid,
          at,
          retiresAt,
        }),
      ),
    retire: (kid: string, at: number, reason: string, withdrawsAt: number) => changed(store.run(retire, { kid, at, reason, withdrawsAt })),
    revoke: (kid: string, at: number, reason: string, by: string) => changed(store.run(revoke, { kid, at, reason, by })),
    withdraw: (kid: string, at: number) =>
      changed(store.run("UPDATE identity_signing_keys SET withdrawn_at = @at WHERE kid = @kid AND state = 'retired' AND withdrawn_at IS NULL", { kid, at })),
    /** Replaces an envelope only if it is still `previous` (another process may have rewrapped it first). */
    rewrap: (kid: string, previous: string, envelope: string, encryptionKeyId: string, at: number) =>
      changed(store.run(rewrap, { kid, previous, envelope, encryptionKeyId, at })),
    /** Takes or renews the named lease unless another holder has an unexpired one (one statement: atomic on both engines). */
    takeLease: async (name: string, holder: string, now: number, ttlMs: number): Promise<boolean> =>
      (await store.get(takeLease, { name, holder, now, expiresAt: now + ttlMs })) !== undefined,
    releaseLease: async (name: string, holder: string) => void (await store.run('DELETE FROM identity_leases WHERE name = ? AND holder = ?', [name, holder])),
    /** Inside `transaction`: keeps other replicas' key writers out until it ends (readers go on). */
    lockKeys: async (): Promise<void> => {
      if (store.dialect === 'postgres') await store.run('LOCK TABLE identity_signing_keys IN SHARE ROW EXCLUSIVE MODE');
    },
    /** Runs `fn` in one transaction of the core store (SQLite: BEGIN IMMEDIATE, writers on the same data folder queue). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'identity keys' }),
    /** Tells every replica that keys changed (at commit when inside `transaction`): their signers and verifiers reload. */
    notifyChanged: (purposes: Iterable<Purpose>) => store.notify(KEYS_CHANNEL, [...purposes].join(',')),
    /** Calls `fn` with the purposes another replica (or this one) changed; resolves to the unsubscribe. */
    onChanged: (fn: (purposes: Purpose[]) => void) => store.listen(KEYS_CHANNEL, (p) => fn(p.split(',').filter(Boolean) as Purpose[])),
  };
}

/** The notification channel of key changes (revocation, rotation): replicas drop their cached signers and key sets. */
export const KEYS_CHANNEL = 'hearth_identity_keys';

export type KeyStore = ReturnType<typeof createKeyStore>;
