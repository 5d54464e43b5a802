/**
 * Tables of the authenticator-approval protocol (seed 001): devices, pairings, device changes, browser and terminal
 * sign-in requests, consumed proof nonces and the durable enrolment-notice outbox. Times are epoch ms.
 */
import type { Db, Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';

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

export const approvalMigrations: Migration[] = [{ id: 'identity-008-app-approval', up: APP_APPROVAL_008, pg: postgresDdl(APP_APPROVAL_008) }];

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

export function createApprovalStore(db: Db) {
  const q = {
    insertDevice: db.prepare(`INSERT INTO identity_app_devices (id, sub, name, public_key, assisted, created_at)
      VALUES (@id, @sub, @name, @public_key, @assisted, @created_at)`),
    getDevice: db.prepare('SELECT * FROM identity_app_devices WHERE id = ?'),
    devicePage: db.prepare('SELECT * FROM identity_app_devices WHERE sub = @sub AND (@after IS NULL OR id > @after) ORDER BY id LIMIT @limit'),
    activeDevices: db.prepare('SELECT * FROM identity_app_devices WHERE sub = ? AND revoked_at IS NULL ORDER BY created_at, id'),
    countActive: db.prepare('SELECT count(*) FROM identity_app_devices WHERE sub = ? AND revoked_at IS NULL').pluck(),
    renameDevice: db.prepare('UPDATE identity_app_devices SET name = ? WHERE id = ?'),
    revokeDevice: db.prepare('UPDATE identity_app_devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    touchDevice: db.prepare('UPDATE identity_app_devices SET last_used_at = ? WHERE id = ?'),
    setAccept: db.prepare('UPDATE identity_app_devices SET accept = ? WHERE id = ?'),
    setPush: db.prepare('UPDATE identity_app_devices SET push_token = ? WHERE id = ?'),

    insertPairing: db.prepare(`INSERT INTO identity_app_pairings (id, sub, initiator_sub, family_id, assisted, secret_hash, state, created_at, expires_at)
      VALUES (@id, @sub, @initiator_sub, @family_id, @assisted, @secret_hash, 'created', @created_at, @expires_at)`),
    getPairing: db.prepare('SELECT * FROM identity_app_pairings WHERE id = ?'),
    outstandingPairings: db.prepare(`SELECT count(*) FROM identity_app_pairings WHERE sub = ? AND state IN ('created', 'claimed') AND expires_at > ?`).pluck(),
    claimPairing:
      db.prepare(`UPDATE identity_app_pairings SET state = 'claimed', device_id = @device_id, public_key = @public_key, name = @name, comparison = @comparison
      WHERE id = @id AND state = 'created' AND expires_at > @now`),
    setPairingState: db.prepare('UPDATE identity_app_pairings SET state = ? WHERE id = ?'),
    wrongCode: db.prepare('UPDATE identity_app_pairings SET wrong_codes = wrong_codes + 1 WHERE id = ? RETURNING wrong_codes').pluck(),
    setPairingChange: db.prepare('UPDATE identity_app_pairings SET change_id = ?, expires_at = ? WHERE id = ?'),

    insertChange:
      db.prepare(`INSERT INTO identity_app_device_changes (id, sub, kind, target_id, target_name, end_sessions, family_id, pairing_id, state, created_at, expires_at)
      VALUES (@id, @sub, @kind, @target_id, @target_name, @end_sessions, @family_id, @pairing_id, 'pending', @created_at, @expires_at)`),
    getChange: db.prepare('SELECT * FROM identity_app_device_changes WHERE id = ?'),
    newestRemoval: db.prepare(`SELECT * FROM identity_app_device_changes WHERE sub = ? AND family_id = ? AND kind = 'revoke' AND target_id = ?
      ORDER BY created_at DESC, rowid DESC LIMIT 1`),
    pendingChanges: db.prepare(`SELECT * FROM identity_app_device_changes WHERE sub = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at, rowid`),
    decideChange: db.prepare(`UPDATE identity_app_device_changes SET state = @state, decided_at = @at, decided_by = @by, ended_sessions = @ended
      WHERE id = @id AND state = 'pending'`),
    cancelChange: db.prepare(`UPDATE identity_app_device_changes SET state = 'cancelled', decided_at = ? WHERE id = ? AND state = 'pending'`),
    cancelChangesOfTarget: db.prepare(`UPDATE identity_app_device_changes SET state = 'cancelled', decided_at = ? WHERE target_id = ? AND state = 'pending'`),

    insertLogin:
      db.prepare(`INSERT INTO identity_app_logins (id, kind, sub, category, secret_hash, challenge, comparison, epoch, state, context, start_ip, terminal, created_at, expires_at)
      VALUES (@id, @kind, @sub, @category, @secret_hash, @challenge, @comparison, @epoch, 'pending', @context, @start_ip, @terminal, @created_at, @expires_at)`),
    getLogin: db.prepare('SELECT * FROM identity_app_logins WHERE id = ?'),
    outstandingLogins: db.prepare(`SELECT count(*) FROM identity_app_logins WHERE sub = ? AND state IN ('pending', 'approved') AND expires_at > ?`).pluck(),
    pendingLogins: db.prepare(`SELECT * FROM identity_app_logins WHERE sub = ? AND state = 'pending' AND expires_at > ? ORDER BY created_at, rowid`),
    decideLogin: db.prepare(
      `UPDATE identity_app_logins SET state = @state, device_id = @device, decided_at = @at WHERE id = @id AND state = 'pending' AND expires_at > @at`,
    ),
    consumeLogin: db.prepare(`UPDATE identity_app_logins SET state = 'consumed', consumed_at = @at WHERE id = @id AND state = 'approved' AND expires_at > @at`),

    useNonce: db.prepare('INSERT INTO identity_app_proof_nonces (device_id, jti, expires_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),

    insertNotice: db.prepare(`INSERT INTO identity_app_enrol_notices (device_id, sub, assisted, device_name, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (device_id) DO NOTHING`),
    unsentNotices: db.prepare('SELECT * FROM identity_app_enrol_notices WHERE sent_at IS NULL ORDER BY created_at LIMIT 100'),
    noticeAttempt: db.prepare('UPDATE identity_app_enrol_notices SET attempts = attempts + 1, last_attempt_at = ? WHERE device_id = ?'),
    noticeSent: db.prepare('UPDATE identity_app_enrol_notices SET sent_at = ? WHERE device_id = ? AND sent_at IS NULL'),

    purgeLogins: db.prepare('DELETE FROM identity_app_logins WHERE expires_at < ?'),
    purgePairings: db.prepare('DELETE FROM identity_app_pairings WHERE expires_at < ?'),
    purgeChanges: db.prepare('DELETE FROM identity_app_device_changes WHERE expires_at < ?'),
    purgeNonces: db.prepare('DELETE FROM identity_app_proof_nonces WHERE expires_at < ?'),
    purgeNotices: db.prepare('DELETE FROM identity_app_enrol_notices WHERE sent_at IS NOT NULL AND sent_at < ?'),
  };
  return {
    insertDevice: (r: Pick<DeviceRow, 'id' | 'sub' | 'name' | 'public_key' | 'assisted' | 'created_at'>) => void q.insertDevice.run(r),
    getDevice: (id: string) => q.getDevice.get(id) as DeviceRow | undefined,
    devicePage: (sub: string, after: string | null, limit: number) => q.devicePage.all({ sub, after, limit }) as DeviceRow[],
    activeDevices: (sub: string) => q.activeDevices.all(sub) as DeviceRow[],
    countActiveDevices: (sub: string) => q.countActive.get(sub) as number,
    renameDevice: (id: string, name: string) => void q.renameDevice.run(name, id),
    revokeDevice: (id: string, at: number) => q.revokeDevice.run(at, id).changes === 1,
    touchDevice: (id: string, at: number) => void q.touchDevice.run(at, id),
    setAccept: (id: string, accept: string[]) => void q.setAccept.run(JSON.stringify(accept), id),
    setPushToken: (id: string, token: string) => void q.setPush.run(token, id),

    insertPairing: (r: Pick<PairingRow, 'id' | 'sub' | 'initiator_sub' | 'family_id' | 'assisted' | 'secret_hash' | 'created_at' | 'expires_at'>) =>
      void q.insertPairing.run(r),
    getPairing: (id: string) => q.getPairing.get(id) as PairingRow | undefined,
    outstandingPairings: (sub: string, at: number) => q.outstandingPairings.get(sub, at) as number,
    claimPairing: (r: { id: string; device_id: string; public_key: string; name: string; comparison: string; now: number }) =>
      q.claimPairing.run(r).changes === 1,
    setPairingState: (id: string, state: PairingRow['state']) => void q.setPairingState.run(state, id),
    /** Counts a wrong comparison code; returns the count. */
    wrongCode: (id: string) => q.wrongCode.get(id) as number,
    setPairingChange: (id: string, changeId: string, expiresAt: number) => void q.setPairingChange.run(changeId, expiresAt, id),

    insertChange: (
      r: Pick<ChangeRow, 'id' | 'sub' | 'kind' | 'target_id' | 'target_name' | 'end_sessions' | 'family_id' | 'pairing_id' | 'created_at' | 'expires_at'>,
    ) => void q.insertChange.run(r),
    getChange: (id: string) => q.getChange.get(id) as ChangeRow | undefined,
    newestRemoval: (sub: string, familyId: string, deviceId: string) => q.newestRemoval.get(sub, familyId, deviceId) as ChangeRow | undefined,
    pendingChanges: (sub: string, at: number) => q.pendingChanges.all(sub, at) as ChangeRow[],
    decideChange: (id: string, state: 'approved' | 'denied', at: number, by: string, ended: number | null) =>
      q.decideChange.run({ id, state, at, by, ended }).changes === 1,
    cancelChange: (id: string, at: number) => q.cancelChange.run(at, id).changes === 1,
    cancelChangesOfTarget: (targetId: string, at: number) => q.cancelChangesOfTarget.run(at, targetId).changes,

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
    ) => void q.insertLogin.run(r),
    getLogin: (id: string) => q.getLogin.get(id) as LoginRow | undefined,
    outstandingLogins: (sub: string, at: number) => q.outstandingLogins.get(sub, at) as number,
    pendingLogins: (sub: string, at: number) => q.pendingLogins.all(sub, at) as LoginRow[],
    decideLogin: (id: string, state: 'approved' | 'denied', device: string, at: number) => q.decideLogin.run({ id, state, device, at }).changes === 1,
    consumeLogin: (id: string, at: number) => q.consumeLogin.run({ id, at }).changes === 1,

    /** Records a proof nonce; false when `(deviceId, jti)` was already used. */
    useNonce: (deviceId: string, jti: string, expiresAt: number) => q.useNonce.run(deviceId, jti, expiresAt).changes === 1,

    insertNotice: (deviceId: string, sub: string, assisted: boolean, name: string, at: number) =>
      void q.insertNotice.run(deviceId, sub, assisted ? 1 : 0, name, at),
    unsentNotices: () => q.unsentNotices.all() as NoticeRow[],
    noticeAttempt: (deviceId: string, at: number) => void q.noticeAttempt.run(at, deviceId),
    noticeSent: (deviceId: string, at: number) => void q.noticeSent.run(at, deviceId),

    /** Removes rows whose readable window ended before `before` (and used nonces that can no longer verify). */
    purge(before: number, nonceBefore: number, noticesBefore: number) {
      return {
        logins: q.purgeLogins.run(before).changes,
        pairings: q.purgePairings.run(before).changes,
        changes: q.purgeChanges.run(before).changes,
        nonces: q.purgeNonces.run(nonceBefore).changes,
        notices: q.purgeNotices.run(noticesBefore).changes,
      };
    },
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
