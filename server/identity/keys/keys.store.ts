import type { Db, Migration } from '../../core/storage/platform-db.ts';
import type { KeyState, Purpose } from './keys.lifecycle.ts';

export const keyMigrations: Migration[] = [
  {
    id: 'identity-001-signing-keys',
    up: `
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
    `,
  },
];

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

/** SQL of the signing-key table. Transactions belong to the service (`transaction`, BEGIN IMMEDIATE). */
export function createKeyStore(db: Db) {
  const all = db.prepare(`SELECT * FROM identity_signing_keys ${ORDER}`);
  const get = db.prepare('SELECT * FROM identity_signing_keys WHERE kid = ?');
  const stateOf = db.prepare('SELECT state FROM identity_signing_keys WHERE kid = ?').pluck();
  const active = db.prepare("SELECT * FROM identity_signing_keys WHERE purpose = ? AND state = 'active'");
  const live = db.prepare("SELECT * FROM identity_signing_keys WHERE state IN ('pending', 'active') OR (state = 'retired' AND withdrawn_at IS NULL)");
  const published = db.prepare(
    `SELECT * FROM identity_signing_keys WHERE purpose = @purpose AND (state IN ('pending', 'active') OR (state = 'retired' AND withdraws_at > @now)) ${ORDER}`,
  );
  const sealed = db.prepare(`SELECT * FROM identity_signing_keys WHERE private_key_envelope IS NOT NULL ${ORDER}`);
  const insert = db.prepare(`INSERT INTO identity_signing_keys
    (kid, purpose, state, algorithm, public_jwk, thumbprint, private_key_envelope, encryption_key_id, created_at, activates_at, activated_at, retires_at)
    VALUES (@kid, @purpose, @state, @algorithm, @public_jwk, @thumbprint, @private_key_envelope, @encryption_key_id, @created_at, @activates_at, @activated_at, @retires_at)`);
  const activate = db.prepare(
    "UPDATE identity_signing_keys SET state = 'active', activated_at = @at, retires_at = @retiresAt WHERE kid = @kid AND state = 'pending'",
  );
  // A retired key never signs again: its private half is destroyed with the transition.
  const retire = db.prepare(`UPDATE identity_signing_keys
    SET state = 'retired', retired_at = @at, retirement = @reason, withdraws_at = @withdrawsAt,
        private_key_envelope = NULL, encryption_key_id = NULL
    WHERE kid = @kid AND state IN ('pending', 'active')`);
  const revoke = db.prepare(`UPDATE identity_signing_keys
    SET state = 'revoked', retired_at = @at, retirement = 'revoked', withdraws_at = @at, withdrawn_at = @at,
        revoked_at = @at, revoked_by = @by, revocation_reason = @reason, private_key_envelope = NULL, encryption_key_id = NULL
    WHERE kid = @kid AND state IN ('pending', 'active')`);
  const withdraw = db.prepare("UPDATE identity_signing_keys SET withdrawn_at = @at WHERE kid = @kid AND state = 'retired' AND withdrawn_at IS NULL");
  const rewrap = db.prepare(`UPDATE identity_signing_keys
    SET private_key_envelope = @envelope, encryption_key_id = @encryptionKeyId, rewrapped_at = @at
    WHERE kid = @kid AND private_key_envelope = @previous`);
  const getLease = db.prepare('SELECT holder, expires_at FROM identity_leases WHERE name = ?');
  const putLease = db.prepare(
    'INSERT INTO identity_leases (name, holder, expires_at) VALUES (@name, @holder, @expiresAt) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at',
  );
  const dropLease = db.prepare('DELETE FROM identity_leases WHERE name = ? AND holder = ?');

  return {
    listAll: () => all.all() as KeyRow[],
    get: (kid: string) => get.get(kid) as KeyRow | undefined,
    stateOf: (kid: string) => stateOf.get(kid) as KeyState | undefined,
    findActive: (purpose: Purpose) => active.get(purpose) as KeyRow | undefined,
    /** Pending, active and not yet withdrawn retired keys (what maintenance looks at). */
    listLive: () => live.all() as KeyRow[],
    /** What a purpose's JWKS holds at `now`. */
    listPublished: (purpose: Purpose, now: number) => published.all({ purpose, now }) as KeyRow[],
    /** Keys that still hold an encrypted private half. */
    listSealed: () => sealed.all() as KeyRow[],
    insert: (row: NewKeyRow) => void insert.run(row),
    activate: (kid: string, at: number, retiresAt: number) => activate.run({ kid, at, retiresAt }).changes === 1,
    retire: (kid: string, at: number, reason: string, withdrawsAt: number) => retire.run({ kid, at, reason, withdrawsAt }).changes === 1,
    revoke: (kid: string, at: number, reason: string, by: string) => revoke.run({ kid, at, reason, by }).changes === 1,
    withdraw: (kid: string, at: number) => withdraw.run({ kid, at }).changes === 1,
    /** Replaces an envelope only if it is still `previous` (another process may have rewrapped it first). */
    rewrap: (kid: string, previous: string, envelope: string, encryptionKeyId: string, at: number) =>
      rewrap.run({ kid, previous, envelope, encryptionKeyId, at }).changes === 1,
    /** Takes or renews the named lease unless another holder has an unexpired one. Call inside `transaction`. */
    takeLease(name: string, holder: string, now: number, ttlMs: number): boolean {
      const cur = getLease.get(name) as { holder: string; expires_at: number } | undefined;
      if (cur && cur.holder !== holder && cur.expires_at > now) return false;
      putLease.run({ name, holder, expiresAt: now + ttlMs });
      return true;
    },
    releaseLease: (name: string, holder: string) => void dropLease.run(name, holder),
    /** Runs `fn` in a BEGIN IMMEDIATE transaction: writers on the same data folder queue behind each other. */
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
