/**
 * Tables of the authenticator-approval protocol: devices, pairings, device changes, browser and terminal
 * sign-in requests, consumed proof nonces and the durable enrolment-notice outbox. Times are epoch ms.
 */
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Params, RunResult, Store } from '../../core/storage/store.ts';

const APP_APPROVAL_008 = `
      CREATE TABLE identity_app_devices (
        id TEXT PRIMARY KEY,                 -- UUID, announced at claim
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        name TEXT NOT NULL,
        public_key TEXT NOT NULL,            -- JSON {kty, crv, x, y}
        assisted INTEGER NOT NULL CHECK (assisted IN (0, 1)),
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        revoked_at INTEGER,
        accept TEXT NOT NULL DEFAULT '[]',   -- the accept list of the device's latest inbox
        push_token TEXT
      ) STRICT;
      CREATE INDEX identity_app_devices_by_sub ON identity_app_devices (sub, id);
      CREATE TABLE identity_app_pairings (
        id TEXT PRIMARY KEY,
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,   -- the account the device is for
        initiator_sub TEXT NOT NULL,         -- who started it (the account itself, or the assisting administrator)
        family_id TEXT NOT NULL,             -- the initiating session family
        assisted INTEGER NOT NULL CHECK (assisted IN (0, 1)),
        secret_hash TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('created', 'claimed', 'confirmed', 'cancelled')),
        device_id TEXT,
        public_key TEXT,
        name TEXT,
        comparison TEXT,
        change_id TEXT,                      -- the device change of kind pair awaiting approval
        wrong_codes INTEGER NOT NULL DEFAULT 0,   -- wrong comparison codes typed at confirmation
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX identity_app_pairings_by_sub ON identity_app_pairings (sub, state, expires_at);
      CREATE TABLE identity_app_device_changes (
        id TEXT PRIMARY KEY,
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('pair', 'revoke')),
        target_id TEXT NOT NULL,             -- the device (for pair: the claimed device ID)
        target_name TEXT NOT NULL,
        end_sessions INTEGER NOT NULL CHECK (end_sessions IN (0, 1)),
        family_id TEXT NOT NULL,             -- the requesting session family
        pairing_id TEXT,
        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'cancelled')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER,
        decided_by TEXT,                     -- the deciding device
        ended_sessions INTEGER
      ) STRICT;
      CREATE INDEX identity_app_device_changes_by_sub ON identity_app_device_changes (sub, state, created_at);
      CREATE TABLE identity_app_logins (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('browser', 'terminal')),
        sub TEXT REFERENCES identity_accounts (sub) ON DELETE CASCADE,   -- NULL: nobody can approve it (no distinct answer)
        category TEXT,
        secret_hash TEXT,                    -- SHA-256 of the browser secret (browser requests)
        challenge TEXT NOT NULL,
        comparison TEXT NOT NULL,
        epoch INTEGER,                       -- the account epoch at start
        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'consumed')),
        device_id TEXT,                      -- the deciding device
        context TEXT,                        -- JSON snapshot of the sign-in context at start
        start_ip TEXT NOT NULL,
        terminal TEXT,                       -- JSON {client, scopes, lifetimeSeconds} (terminal requests)
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER,
        consumed_at INTEGER
      ) STRICT;
      CREATE INDEX identity_app_logins_by_sub ON identity_app_logins (sub, state, expires_at);
      CREATE INDEX identity_app_logins_by_expiry ON identity_app_logins (expires_at);
      CREATE TABLE identity_app_proof_nonces (
        device_id TEXT NOT NULL,
        jti TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        PRIMARY KEY (device_id, jti)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE identity_app_enrol_notices (
        device_id TEXT PRIMARY KEY,          -- de-duplicates the notice per device
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        assisted INTEGER NOT NULL,
        device_name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_attempt_at INTEGER,
        sent_at INTEGER
      ) STRICT;
    `;

/**
 * The insertion order of device changes and sign-in requests (`seq`), assigned by the database on both engines: a
 * trigger copying the rowid on SQLite, an identity column on PostgreSQL (lists of pending rows were ordered by rowid,
 * which PostgreSQL has not).
 */
const seqOf = (table: string) => ({
  sqlite: `ALTER TABLE ${table} ADD COLUMN seq INTEGER;
      UPDATE ${table} SET seq = rowid;
      CREATE TRIGGER ${table}_seq AFTER INSERT ON ${table} BEGIN UPDATE ${table} SET seq = new.rowid WHERE rowid = new.rowid; END;`,
  pg: `ALTER TABLE ${table} ADD COLUMN seq BIGINT GENERATED BY DEFAULT AS IDENTITY;`,
});
const ORDERED = ['identity_app_device_changes', 'identity_app_logins'].map(seqOf);

export const approvalMigrations: Migration[] = [
  { id: 'identity-008-app-approval', up: APP_APPROVAL_008, pg: postgresDdl(APP_APPROVAL_008) },
  { id: 'identity-011-approval-order', up: ORDERED.map((m) => m.sqlite).join('\n'), pg: ORDERED.map((m) => m.pg).join('\n') },
];

export interface DeviceRow {
  id: string;
  sub: string;
  name: string;
  public_key: string;
  assisted: 0 | 1;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  accept: string;
  push_token: string | null;
}

export interface PairingRow {
  id: string;
  sub: string;
  initiator_sub: string;
  family_id: string;
  assisted: 0 | 1;
  secret_hash: string;
  state: 'created' | 'claimed' | 'confirmed' | 'cancelled';
  device_id: string | null;
  public_key: string | null;
  name: string | null;
  comparison: string | null;
  change_id: string | null;
  wrong_codes: number;
  created_at: number;
  expires_at: number;
}

export interface ChangeRow {
  id: string;
  sub: string;
  kind: 'pair' | 'revoke';
  target_id: string;
  target_name: string;
  end_sessions: 0 | 1;
  family_id: string;
  pairing_id: string | null;
  state: 'pending' | 'approved' | 'denied' | 'cancelled';
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  ended_sessions: number | null;
}

export interface LoginRow {
  id: string;
  kind: 'browser' | 'terminal';
  sub: string | null;
  category: string | null;
  secret_hash: string | null;
  challenge: string;
  comparison: string;
  epoch: number | null;
  state: 'pending' | 'approved' | 'denied' | 'consumed';
  device_id: string | null;
  context: string | null;
  start_ip: string;
  terminal: string | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  consumed_at: number | null;
}

export interface NoticeRow {
  device_id: string;
  sub: string;
  assisted: 0 | 1;
  device_name: string;
  created_at: number;
  attempts: number;
  last_attempt_at: number | null;
  sent_at: number | null;
}

/**
 * The approval tables in the core store (SQLite or PostgreSQL; one SQL text, store.ts). Every decision is one guarded
 * UPDATE (`… WHERE state = 'pending'`), so of two replicas deciding one request or change, one wins (`true`); a proof
 * nonce is a unique row (`useNonce`); a pairing is claimed once (`claimPairing`); `getPairing`, `getChange` and
 * `getLogin` with `lock` read a row FOR UPDATE (PostgreSQL; SQLite's transaction holds the write lock). Lists of pending rows are ordered by
 * `created_at`, then `seq` (the insertion order the database assigns, identity-011).
 */
export function createApprovalStore(store: Store) {
  const done = async (r: Promise<RunResult>) => void (await r);
  const changed = async (r: Promise<RunResult>) => (await r).changes === 1;
  const changes = async (r: Promise<RunResult>) => (await r).changes;
  const count = async (sql: string, params: Params) => (await store.value<number>(sql, params)) ?? 0;
  return {
    insertDevice: (r: Pick<DeviceRow, 'id' | 'sub' | 'name' | 'public_key' | 'assisted' | 'created_at'>) =>
      done(
        store.run(
          `INSERT INTO identity_app_devices (id, sub, name, public_key, assisted, created_at)
          VALUES (@id, @sub, @name, @public_key, @assisted, @created_at)`,
          { ...r },
        ),
      ),
    getDevice: (id: string) => store.get<DeviceRow>('SELECT * FROM identity_app_devices WHERE id = ?', [id]),
    devicePage: (sub: string, after: string | null, limit: number) =>
      store.all<DeviceRow>('SELECT * FROM identity_app_devices WHERE sub = @sub AND (CAST(@after AS TEXT) IS NULL OR id > @after) ORDER BY id LIMIT @limit', {
        sub,
        after,
        limit,
      }),
    activeDevices: (sub: string) =>
      store.all<DeviceRow>('SELECT * FROM identity_app_devices WHERE sub = ? AND revoked_at IS NULL ORDER BY created_at, id', [sub]),
    countActiveDevices: (sub: string) => count('SELECT count(*) FROM identity_app_devices WHERE sub = ? AND revoked_at IS NULL', [sub]),
    renameDevice: (id: string, name: string) => done(store.run('UPDATE identity_app_devices SET name = ? WHERE id = ?', [name, id])),
    revokeDevice: (id: string, at: number) =>
      changed(store.run('UPDATE identity_app_devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id])),
    touchDevice: (id: string, at: number) => done(store.run('UPDATE identity_app_devices SET last_used_at = ? WHERE id = ?', [at, id])),
    setAccept: (id: string, accept: string[]) => done(store.run('UPDATE identity_app_devices SET accept = ? WHERE id = ?', [JSON.stringify(accept), id])),
    setPushToken: (id: string, token: string) => done(store.run('UPDATE identity_app_devices SET push_token = ? WHERE id = ?', [token, id])),

    insertPairing: (r: Pick<PairingRow, 'id' | 'sub' | 'initiator_sub' | 'family_id' | 'assisted' | 'secret_hash' | 'created_at' | 'expires_at'>) =>
      done(
        store.run(
          `INSERT INTO identity_app_pairings (id, sub, initiator_sub, family_id, assisted, secret_hash, state, created_at, expires_at)
          VALUES (@id, @sub, @initiator_sub, @family_id, @assisted, @secret_hash, 'created', @created_at, @expires_at)`,
          { ...r },
        ),
      ),
    /** With `lock` (inside `transaction`): row-locked until it ends, for a decision read before it is written. */
    getPairing: (id: string, lock = false) => store.get<PairingRow>(`SELECT * FROM identity_app_pairings WHERE id = ?${lock ? store.forUpdate : ''}`, [id]),
    outstandingPairings: (sub: string, at: number) =>
      count(`SELECT count(*) FROM identity_app_pairings WHERE sub = ? AND state IN ('created', 'claimed') AND expires_at > ?`, [sub, at]),
    /** Claims a created, unexpired pairing; false when another claim (any replica) came first. */
    claimPairing: (r: { id: string; device_id: string; public_key: string; name: string; comparison: string; now: number }) =>
      changed(
        store.run(
          `UPDATE identity_app_pairings SET state = 'claimed', device_id = @device_id, public_key = @public_key, name = @name, comparison = @comparison
          WHERE id = @id AND state = 'created' AND expires_at > @now`,
          { ...r },
        ),
      ),
    setPairingState: (id: string, state: PairingRow['state']) => done(store.run('UPDATE identity_app_pairings SET state = ? WHERE id = ?', [state, id])),
    /** Counts a wrong comparison code; returns the count. */
    wrongCode: async (id: string) =>
      (await store.value<number>('UPDATE identity_app_pairings SET wrong_codes = wrong_codes + 1 WHERE id = ? RETURNING wrong_codes', [id])) ?? 0,
    setPairingChange: (id: string, changeId: string, expiresAt: number) =>
      done(store.run('UPDATE identity_app_pairings SET change_id = ?, expires_at = ? WHERE id = ?', [changeId, expiresAt, id])),

    insertChange: (
      r: Pick<ChangeRow, 'id' | 'sub' | 'kind' | 'target_id' | 'target_name' | 'end_sessions' | 'family_id' | 'pairing_id' | 'created_at' | 'expires_at'>,
    ) =>
      done(
        store.run(
          `INSERT INTO identity_app_device_changes (id, sub, kind, target_id, target_name, end_sessions, family_id, pairing_id, state, created_at, expires_at)
          VALUES (@id, @sub, @kind, @target_id, @target_name, @end_sessions, @family_id, @pairing_id, 'pending', @created_at, @expires_at)`,
          { ...r },
        ),
      ),
    getChange: (id: string, lock = false) => store.get<ChangeRow>(`SELECT * FROM identity_app_device_changes WHERE id = ?${lock ? store.forUpdate : ''}`, [id]),
    newestRemoval: (sub: string, familyId: string, deviceId: string) =>
      store.get<ChangeRow>(
        `SELECT * FROM identity_app_device_changes WHERE sub = ? AND family_id = ? AND kind = 'revoke' AND target_id = ?
        ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [sub, familyId, deviceId],
      ),
    pendingChanges: (sub: string, at: number) =>
      store.all<ChangeRow>(`SELECT * FROM identity_app_device_changes WHERE sub = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at, seq`, [
        sub,
        at,
      ]),
    /** Decides a pending change; false when it was decided or cancelled already (by this replica or another). */
    decideChange: (id: string, state: 'approved' | 'denied', at: number, by: string, ended: number | null) =>
      changed(
        store.run(
          `UPDATE identity_app_device_changes SET state = @state, decided_at = @at, decided_by = @by, ended_sessions = @ended
          WHERE id = @id AND state = 'pending'`,
          { id, state, at, by, ended },
        ),
      ),
    /** How many sessions an approved removal ended (written after the decision, in its transaction). */
    setChangeEnded: (id: string, ended: number) => done(store.run('UPDATE identity_app_device_changes SET ended_sessions = ? WHERE id = ?', [ended, id])),
    cancelChange: (id: string, at: number) =>
      changed(store.run(`UPDATE identity_app_device_changes SET state = 'cancelled', decided_at = ? WHERE id = ? AND state = 'pending'`, [at, id])),
    cancelChangesOfTarget: (targetId: string, at: number) =>
      changes(
        store.run(`UPDATE identity_app_device_changes SET state = 'cancelled', decided_at = ? WHERE target_id = ? AND state = 'pending'`, [at, targetId]),
      ),

    insertLogin: (
      r: Pick<
        LoginRow,
        | 'id'
        | 'kind'
        | 'sub'
        | 'category'
        | 'secret_hash'
        | 'challenge'
        | 'comparison'
        | 'epoch'
        | 'context'
        | 'start_ip'
        | 'terminal'
        | 'created_at'
        | 'expires_at'
      >,
    ) =>
      done(
        store.run(
          `INSERT INTO identity_app_logins (id, kind, sub, category, secret_hash, challenge, comparison, epoch, state, context, start_ip, terminal, created_at, expires_at)
          VALUES (@id, @kind, @sub, @category, @secret_hash, @challenge, @comparison, @epoch, 'pending', @context, @start_ip, @terminal, @created_at, @expires_at)`,
          { ...r },
        ),
      ),
    getLogin: (id: string, lock = false) => store.get<LoginRow>(`SELECT * FROM identity_app_logins WHERE id = ?${lock ? store.forUpdate : ''}`, [id]),
    outstandingLogins: (sub: string, at: number) =>
      count(`SELECT count(*) FROM identity_app_logins WHERE sub = ? AND state IN ('pending', 'approved') AND expires_at > ?`, [sub, at]),
    pendingLogins: (sub: string, at: number) =>
      store.all<LoginRow>(`SELECT * FROM identity_app_logins WHERE sub = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at, seq`, [sub, at]),
    /** Decides a pending, unexpired sign-in request; false when it was decided already (by this replica or another). */
    decideLogin: (id: string, state: 'approved' | 'denied', device: string, at: number) =>
      changed(
        store.run(
          `UPDATE identity_app_logins SET state = @state, device_id = @device, decided_at = @at WHERE id = @id AND state = 'pending' AND expires_at > @at`,
          { id, state, device, at },
        ),
      ),
    /** Uses an approved sign-in request once (any replica). */
    consumeLogin: (id: string, at: number) =>
      changed(
        store.run(`UPDATE identity_app_logins SET state = 'consumed', consumed_at = @at WHERE id = @id AND state = 'approved' AND expires_at > @at`, {
          id,
          at,
        }),
      ),

    /** Records a proof nonce; false when `(deviceId, jti)` was already used (a unique row: once across replicas). */
    useNonce: (deviceId: string, jti: string, expiresAt: number) =>
      changed(
        store.run('INSERT INTO identity_app_proof_nonces (device_id, jti, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [deviceId, jti, expiresAt]),
      ),

    insertNotice: (deviceId: string, sub: string, assisted: boolean, name: string, at: number) =>
      done(
        store.run(
          `INSERT INTO identity_app_enrol_notices (device_id, sub, assisted, device_name, created_at) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (device_id) DO NOTHING`,
          [deviceId, sub, assisted ? 1 : 0, name, at],
        ),
      ),
    unsentNotices: () => store.all<NoticeRow>('SELECT * FROM identity_app_enrol_notices WHERE sent_at IS NULL ORDER BY created_at, device_id LIMIT 100'),
    noticeAttempt: (deviceId: string, at: number) =>
      done(store.run('UPDATE identity_app_enrol_notices SET attempts = attempts + 1, last_attempt_at = ? WHERE device_id = ?', [at, deviceId])),
    noticeSent: (deviceId: string, at: number) =>
      done(store.run('UPDATE identity_app_enrol_notices SET sent_at = ? WHERE device_id = ? AND sent_at IS NULL', [at, deviceId])),

    /** Removes rows whose readable window ended before `before` (and used nonces that can no longer verify). */
    async purge(before: number, nonceBefore: number, noticesBefore: number) {
      return {
        logins: await changes(store.run('DELETE FROM identity_app_logins WHERE expires_at < ?', [before])),
        pairings: await changes(store.run('DELETE FROM identity_app_pairings WHERE expires_at < ?', [before])),
        changes: await changes(store.run('DELETE FROM identity_app_device_changes WHERE expires_at < ?', [before])),
        nonces: await changes(store.run('DELETE FROM identity_app_proof_nonces WHERE expires_at < ?', [nonceBefore])),
        notices: await changes(store.run('DELETE FROM identity_app_enrol_notices WHERE sent_at IS NOT NULL AND sent_at < ?', [noticesBefore])),
      };
    },
    /** Runs `fn` in one transaction of the core store (ambient: the store's calls inside join it). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'app-approval' }),
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
