import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import { sharedReads } from '../../core/storage/shared-reads.ts';
import type { RunResult, Store } from '../../core/storage/store.ts';

/**
 * OAuth storage. Secrets are never stored: client secrets, authorization codes and refresh tokens are kept as
 * SHA-256 hashes of high-entropy random values. Times are epoch ms.
 *
 * Named states (Hearth's own names):
 * - authorization code: `issued` (used_at NULL, before expires_at) → `redeemed` (used_at set) | `expired`.
 * - refresh family: `active` → `revoked` (revoked_at + reason: `reuse`, `code_replay`, `revoked`, `logout`,
 *   `client_revoked`, `recheck_failed`, `fail_closed`); `reservation` is set while a refresh is being issued.
 * - refresh token: `current` (rotated_at NULL) → `rotated`.
 * - device authorization (RFC 8628): `pending` → `approved` (browser verification) | `denied` | `expired`;
 *   `pending` (app mode: the approval is held by the authenticator) or `approved` → `consumed` (the one token
 *   exchange) ; see device.ts.
 *
 * One file because it is the OAuth tables and every statement on them: a guarded statement (the refresh reservation,
 * the one-shot code) is read beside the columns and indexes it relies on. About a quarter of it is the migrations'
 * DDL, which could move to an oauth.migrations.ts as mail's did.
 */
const OAUTH_004 = `
      CREATE TABLE oauth_clients (
        client_id TEXT PRIMARY KEY,
        origin TEXT NOT NULL CHECK (origin IN ('managed', 'first_party', 'dynamic')),
        name TEXT NOT NULL,
        description TEXT,
        redirect_uris TEXT NOT NULL,          -- JSON array
        logout_uri TEXT,
        scopes TEXT NOT NULL,                 -- JSON array
        audiences TEXT NOT NULL,              -- JSON array
        service_account_id TEXT,
        allowed_profiles TEXT NOT NULL,       -- JSON array
        access_mode TEXT NOT NULL CHECK (access_mode IN ('profiles', 'specific')),
        allowed_user_ids TEXT NOT NULL,       -- JSON array
        allowed_group_ids TEXT NOT NULL,      -- JSON array
        is_public INTEGER NOT NULL CHECK (is_public IN (0, 1)),
        secret_hash TEXT,
        grant_types TEXT NOT NULL,            -- JSON array
        application_type TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        secret_rotated_at INTEGER,
        first_used_at INTEGER,                -- first authorization request (abandoned dynamic registrations have none)
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX oauth_clients_by_created ON oauth_clients (created_at, client_id);
      CREATE TABLE oauth_interactions (
        id_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
        params TEXT NOT NULL,                 -- JSON: the validated authorization request
        sub TEXT,                             -- bound at the consent step
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT;
      CREATE TABLE oauth_codes (
        code_hash TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
        sub TEXT NOT NULL,
        redirect_uri TEXT NOT NULL,
        scope TEXT NOT NULL,                  -- JSON array
        audiences TEXT NOT NULL,              -- JSON array: the snapshot taken now
        resource TEXT,
        nonce TEXT,
        code_challenge TEXT,
        auth_time INTEGER NOT NULL,           -- epoch s
        sid TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        family_id TEXT,                       -- the refresh family minted from it (revoked on replay)
        access_jti TEXT,                      -- the access token minted from it (denied on replay)
        access_expires_at INTEGER
      ) STRICT;
      CREATE TABLE oauth_refresh_families (
        id TEXT PRIMARY KEY,
        client_id TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
        sub TEXT NOT NULL,
        scope TEXT NOT NULL,                  -- JSON array; narrowing persists
        audiences TEXT NOT NULL,              -- JSON array snapshot
        resource TEXT,
        auth_time INTEGER NOT NULL,
        sid TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        revoked_at INTEGER,
        revoked_reason TEXT,
        reservation TEXT,                     -- JSON {nonce, status: 'reserved'|'issued', at}
        generation INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX oauth_refresh_families_by_sub ON oauth_refresh_families (sub);
      CREATE INDEX oauth_refresh_families_by_client ON oauth_refresh_families (client_id);
      CREATE TABLE oauth_refresh_tokens (
        token_hash TEXT PRIMARY KEY,
        family_id TEXT NOT NULL REFERENCES oauth_refresh_families (id) ON DELETE CASCADE,
        generation INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        rotated_at INTEGER
      ) STRICT;
      CREATE INDEX oauth_refresh_tokens_by_family ON oauth_refresh_tokens (family_id);
      CREATE TABLE oauth_revoked_access (
        jti TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `;
// Device authorization grant (RFC 8628): terminal sign-in approved in the paired authenticator app, or in a browser.
const DEVICE_AUTHORIZATIONS_010 = `
      CREATE TABLE oauth_device_authorizations (
        device_code_hash TEXT PRIMARY KEY,    -- SHA-256 of the device code (hdc_ + 32 random bytes)
        client_id TEXT NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
        mode TEXT NOT NULL CHECK (mode IN ('app', 'browser')),
        approval_request_id TEXT,             -- mode app: the terminal approval request of the authenticator
        user_code_hash TEXT,                  -- mode browser: SHA-256 of the normalized user code
        scope TEXT NOT NULL,                  -- JSON array
        audiences TEXT NOT NULL,              -- JSON array: the client's audiences snapshot
        lifetime_s INTEGER NOT NULL,          -- lifetime of the resulting sign-in (shown to the approver)
        state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'consumed', 'expired')),
        sub TEXT,                             -- the approving account (browser: on approval; app: on consumption)
        auth_time INTEGER,                    -- epoch s of the approval as seen by the server
        interval_s INTEGER NOT NULL,          -- polling interval; grows by 5 s with every slow_down
        last_poll_at INTEGER,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        decided_at INTEGER,
        consumed_at INTEGER,
        family_id TEXT,                       -- the refresh family minted from it (revoked on replay)
        access_jti TEXT,                      -- the access token minted from it (denied on replay)
        access_expires_at INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX oauth_device_authorizations_by_user_code ON oauth_device_authorizations (user_code_hash) WHERE user_code_hash IS NOT NULL;
      CREATE INDEX oauth_device_authorizations_by_expiry ON oauth_device_authorizations (expires_at);
    `;

export const oauthMigrations: Migration[] = [
  { id: 'identity-004-oauth', up: OAUTH_004, pg: postgresDdl(OAUTH_004) },
  { id: 'identity-010-device-authorizations', up: DEVICE_AUTHORIZATIONS_010, pg: postgresDdl(DEVICE_AUTHORIZATIONS_010) },
];

export interface ClientRow {
  client_id: string;
  origin: 'managed' | 'first_party' | 'dynamic';
  name: string;
  description: string | null;
  redirect_uris: string;
  logout_uri: string | null;
  scopes: string;
  audiences: string;
  service_account_id: string | null;
  allowed_profiles: string;
  access_mode: 'profiles' | 'specific';
  allowed_user_ids: string;
  allowed_group_ids: string;
  is_public: 0 | 1;
  secret_hash: string | null;
  grant_types: string;
  application_type: string | null;
  created_at: number;
  updated_at: number;
  secret_rotated_at: number | null;
  first_used_at: number | null;
  revoked_at: number | null;
  /**
   * Whether the bound service account still exists (0/1 on SQLite, a boolean on PostgreSQL): read with the client by
   * `getClient` and `lockClient`, so the client_credentials grant needs no second round trip. Absent from list reads.
   */
  service_account_live?: number | boolean | null;
}

export interface InteractionRow {
  id_hash: string;
  client_id: string;
  params: string;
  sub: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface CodeRow {
  code_hash: string;
  client_id: string;
  sub: string;
  redirect_uri: string;
  scope: string;
  audiences: string;
  resource: string | null;
  nonce: string | null;
  code_challenge: string | null;
  auth_time: number;
  sid: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  family_id: string | null;
  access_jti: string | null;
  access_expires_at: number | null;
}

export interface FamilyRow {
  id: string;
  client_id: string;
  sub: string;
  scope: string;
  audiences: string;
  resource: string | null;
  auth_time: number;
  sid: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  revoked_reason: string | null;
  reservation: string | null;
  generation: number;
}

export type DeviceState = 'pending' | 'approved' | 'denied' | 'consumed' | 'expired';

export interface DeviceAuthorizationRow {
  device_code_hash: string;
  client_id: string;
  mode: 'app' | 'browser';
  approval_request_id: string | null;
  user_code_hash: string | null;
  scope: string;
  audiences: string;
  lifetime_s: number;
  state: DeviceState;
  sub: string | null;
  auth_time: number | null;
  interval_s: number;
  last_poll_at: number | null;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  consumed_at: number | null;
  family_id: string | null;
  access_jti: string | null;
  access_expires_at: number | null;
}

export interface RefreshTokenRow {
  token_hash: string;
  family_id: string;
  generation: number;
  created_at: number;
  rotated_at: number | null;
}

const CLIENT_COLUMNS = [
  'client_id',
  'origin',
  'name',
  'description',
  'redirect_uris',
  'logout_uri',
  'scopes',
  'audiences',
  'service_account_id',
  'allowed_profiles',
  'access_mode',
  'allowed_user_ids',
  'allowed_group_ids',
  'is_public',
  'secret_hash',
  'grant_types',
  'application_type',
  'created_at',
  'updated_at',
  'secret_rotated_at',
  'first_used_at',
  'revoked_at',
] as const;

/**
 * The OAuth tables in the core store (SQLite or PostgreSQL; one SQL text, store.ts). One-shot steps are single
 * guarded statements, so that two replicas racing on one code, refresh token, interaction or device code get exactly
 * one success on either engine: `redeemCode`, `useInteraction`, `reserveFamily`, `rotateRefreshToken`,
 * `consumeDeviceAuthorization`, `decideDeviceAuthorization` answer whether this caller won. `lockFamily` and
 * `lockClient` read a refresh family or a client with a row lock (PostgreSQL; SQLite's transaction holds the write lock) inside `transaction`.
 */
export function createOAuthStore(store: Store) {
  const instr = store.dialect === 'postgres' ? 'strpos' : 'instr';
  const searchSql = `(CAST(@search AS TEXT) IS NULL OR ${instr}(lower(name), @search) > 0
      OR ${instr}(lower(client_id), @search) > 0 OR ${instr}(lower(coalesce(description, '')), @search) > 0)`;
  const sql = {
    selectClient:
      'SELECT c.*, EXISTS (SELECT 1 FROM identity_service_accounts s WHERE s.sub = c.service_account_id) AS service_account_live FROM oauth_clients c',
    insertClient: `INSERT INTO oauth_clients (${CLIENT_COLUMNS.join(', ')}) VALUES (${CLIENT_COLUMNS.map((c) => `@${c}`).join(', ')})`,
    updateClient: `UPDATE oauth_clients SET ${CLIENT_COLUMNS.filter((c) => c !== 'client_id')
      .map((c) => `${c} = @${c}`)
      .join(', ')} WHERE client_id = @client_id`,
    insertCode: `INSERT INTO oauth_codes (code_hash, client_id, sub, redirect_uri, scope, audiences, resource, nonce, code_challenge, auth_time, sid, created_at, expires_at)
      VALUES (@code_hash, @client_id, @sub, @redirect_uri, @scope, @audiences, @resource, @nonce, @code_challenge, @auth_time, @sid, @created_at, @expires_at)`,
    insertFamily: `INSERT INTO oauth_refresh_families (id, client_id, sub, scope, audiences, resource, auth_time, sid, created_at, expires_at, generation)
      VALUES (@id, @client_id, @sub, @scope, @audiences, @resource, @auth_time, @sid, @created_at, @expires_at, 0)`,
    // The reservation is taken only while the family is live, unreserved and the presented token is current: its
    // generation is the family's. The generation is compared on the family row itself because PostgreSQL, when this
    // UPDATE waited for another replica's rotation to commit, re-checks the conditions on the family's new row but
    // not a subquery's answer: an EXISTS on the token alone still saw it unrotated, reserved the advanced family, and
    // left it reserved for good (every later refresh refused).
    reserveFamily: `UPDATE oauth_refresh_families SET reservation = @value
      WHERE id = @id AND revoked_at IS NULL AND reservation IS NULL
        AND generation = (SELECT generation FROM oauth_refresh_tokens WHERE token_hash = @hash AND family_id = @id AND rotated_at IS NULL)`,
    insertDevice: `INSERT INTO oauth_device_authorizations (device_code_hash, client_id, mode, approval_request_id, user_code_hash, scope, audiences,
      lifetime_s, state, interval_s, created_at, expires_at)
      VALUES (@device_code_hash, @client_id, @mode, @approval_request_id, @user_code_hash, @scope, @audiences, @lifetime_s, 'pending', @interval_s, @created_at, @expires_at)`,
    deviceDecide: `UPDATE oauth_device_authorizations SET state = @state, sub = coalesce(CAST(@sub AS TEXT), sub),
      auth_time = coalesce(CAST(@auth_time AS BIGINT), auth_time), decided_at = @at
      WHERE device_code_hash = @hash AND state = 'pending' AND expires_at > @at`,
    deviceConsume: `UPDATE oauth_device_authorizations SET state = 'consumed', consumed_at = @at, sub = coalesce(CAST(@sub AS TEXT), sub),
      auth_time = coalesce(auth_time, CAST(@auth_time AS BIGINT))
      WHERE device_code_hash = @hash AND state = @from AND expires_at > @at`,
  };
  const getClient = sharedReads(
    (id) => store.get<ClientRow>(`${sql.selectClient} WHERE c.client_id = ?`, [id]),
    () => store.inTx(),
  );
  const changes = async (r: Promise<RunResult>) => (await r).changes;
  const changed = async (r: Promise<RunResult>) => (await r).changes > 0;
  const done = async (r: Promise<RunResult>) => void (await r);

  return {
    /** Runs `fn` in one transaction of the core store (ambient: the store's calls inside join it). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'oauth' }),
    /** The client, by a read that began after the call (concurrent requests of one client share one: core/storage/shared-reads.ts). */
    getClient,
    /** The client with a row lock until the transaction ends (call inside `transaction`): edits read, change, write it. */
    lockClient: (id: string) => store.get<ClientRow>(`${sql.selectClient} WHERE c.client_id = ?${store.forUpdate}`, [id]),
    insertClient: (row: ClientRow) => done(store.run(sql.insertClient, { ...row })),
    /** The first-party client written at start unless there (replicas starting together on one store each try it once). */
    seedClient: (row: ClientRow) => done(store.run(`${sql.insertClient} ON CONFLICT (client_id) DO NOTHING`, { ...row })),
    updateClient: (row: ClientRow) => done(store.run(sql.updateClient, { ...row })),
    deleteClient: (id: string) => changed(store.run('DELETE FROM oauth_clients WHERE client_id = ?', [id])),
    countClients: async (search: string | null) => (await store.value<number>(`SELECT count(*) FROM oauth_clients WHERE ${searchSql}`, { search })) ?? 0,
    listClients: (search: string | null, limit: number, offset: number) =>
      store.all<ClientRow>(`SELECT * FROM oauth_clients WHERE ${searchSql} ORDER BY created_at, client_id LIMIT @limit OFFSET @offset`, {
        search,
        limit,
        offset,
      }),
    markClientUsed: (id: string, at: number) =>
      done(store.run('UPDATE oauth_clients SET first_used_at = ? WHERE client_id = ? AND first_used_at IS NULL', [at, id])),
    abandonedClients: async (before: number) =>
      (
        await store.all<{ client_id: string }>("SELECT client_id FROM oauth_clients WHERE origin = 'dynamic' AND first_used_at IS NULL AND created_at < ?", [
          before,
        ])
      ).map((r) => r.client_id),

    insertInteraction: (r: Omit<InteractionRow, 'used_at'>) =>
      done(
        store.run('INSERT INTO oauth_interactions (id_hash, client_id, params, sub, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)', [
          r.id_hash,
          r.client_id,
          r.params,
          r.sub,
          r.created_at,
          r.expires_at,
        ]),
      ),
    getInteraction: (idHash: string) => store.get<InteractionRow>('SELECT * FROM oauth_interactions WHERE id_hash = ?', [idHash]),
    /** Binds a consent interaction to the account it is shown to, once; its five minutes start now. */
    bindInteraction: (idHash: string, sub: string, expiresAt: number) =>
      done(store.run('UPDATE oauth_interactions SET sub = ?, expires_at = ? WHERE id_hash = ? AND used_at IS NULL AND sub IS NULL', [sub, expiresAt, idHash])),
    useInteraction: (idHash: string, at: number) =>
      changed(store.run('UPDATE oauth_interactions SET used_at = ? WHERE id_hash = ? AND used_at IS NULL AND expires_at > ?', [at, idHash, at])),

    insertCode: (r: Omit<CodeRow, 'used_at' | 'family_id' | 'access_jti' | 'access_expires_at'>) => done(store.run(sql.insertCode, r)),
    getCode: (hash: string) => store.get<CodeRow>('SELECT * FROM oauth_codes WHERE code_hash = ?', [hash]),
    /** The one redemption of a code (a guarded UPDATE: of two replicas redeeming it at once, one wins). */
    redeemCode: (hash: string, at: number) => changed(store.run('UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL', [at, hash])),
    setCodeIssued: (hash: string, familyId: string | null, jti: string, accessExpiresAt: number) =>
      done(
        store.run('UPDATE oauth_codes SET family_id = ?, access_jti = ?, access_expires_at = ? WHERE code_hash = ?', [familyId, jti, accessExpiresAt, hash]),
      ),

    insertFamily: (r: Omit<FamilyRow, 'revoked_at' | 'revoked_reason' | 'reservation' | 'generation'>) => done(store.run(sql.insertFamily, r)),
    getFamily: (id: string) => store.get<FamilyRow>('SELECT * FROM oauth_refresh_families WHERE id = ?', [id]),
    /** The family with a row lock until the transaction ends (call inside `transaction`). */
    lockFamily: (id: string) => store.get<FamilyRow>(`SELECT * FROM oauth_refresh_families WHERE id = ?${store.forUpdate}`, [id]),
    revokeFamily: (id: string, at: number, reason: string) =>
      changed(
        store.run('UPDATE oauth_refresh_families SET revoked_at = ?, revoked_reason = ?, reservation = NULL WHERE id = ? AND revoked_at IS NULL', [
          at,
          reason,
          id,
        ]),
      ),
    revokeClientFamilies: (clientId: string, at: number, reason: string) =>
      changes(
        store.run('UPDATE oauth_refresh_families SET revoked_at = ?, revoked_reason = ? WHERE client_id = ? AND revoked_at IS NULL', [at, reason, clientId]),
      ),
    revokeUserClientFamilies: (clientId: string, sub: string, at: number, reason: string) =>
      changes(
        store.run('UPDATE oauth_refresh_families SET revoked_at = ?, revoked_reason = ? WHERE client_id = ? AND sub = ? AND revoked_at IS NULL', [
          at,
          reason,
          clientId,
          sub,
        ]),
      ),
    /** Rule 4's one-shot reservation: true when this caller reserved the family for the refresh token `hash`. */
    reserveFamily: (id: string, hash: string, value: string) => changed(store.run(sql.reserveFamily, { id, hash, value })),
    setReservation: (id: string, value: string | null) => done(store.run('UPDATE oauth_refresh_families SET reservation = ? WHERE id = ?', [value, id])),
    advanceFamily: (id: string, scope: string) =>
      done(store.run('UPDATE oauth_refresh_families SET scope = ?, generation = generation + 1, reservation = NULL WHERE id = ?', [scope, id])),

    insertRefreshToken: (hash: string, familyId: string, generation: number, at: number) =>
      done(store.run('INSERT INTO oauth_refresh_tokens (token_hash, family_id, generation, created_at) VALUES (?, ?, ?, ?)', [hash, familyId, generation, at])),
    getRefreshToken: (hash: string) => store.get<RefreshTokenRow>('SELECT * FROM oauth_refresh_tokens WHERE token_hash = ?', [hash]),
    rotateRefreshToken: (hash: string, at: number) =>
      changed(store.run('UPDATE oauth_refresh_tokens SET rotated_at = ? WHERE token_hash = ? AND rotated_at IS NULL', [at, hash])),

    revokeAccessToken: (jti: string, expiresAt: number) =>
      done(store.run('INSERT INTO oauth_revoked_access (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING', [jti, expiresAt])),
    isAccessRevoked: async (jti: string) => (await store.value('SELECT 1 FROM oauth_revoked_access WHERE jti = ?', [jti])) !== undefined,

    insertDeviceAuthorization: (
      r: Pick<
        DeviceAuthorizationRow,
        | 'device_code_hash'
        | 'client_id'
        | 'mode'
        | 'approval_request_id'
        | 'user_code_hash'
        | 'scope'
        | 'audiences'
        | 'lifetime_s'
        | 'interval_s'
        | 'created_at'
        | 'expires_at'
      >,
    ) => done(store.run(sql.insertDevice, r)),
    getDeviceAuthorization: (hash: string) => store.get<DeviceAuthorizationRow>('SELECT * FROM oauth_device_authorizations WHERE device_code_hash = ?', [hash]),
    getDeviceAuthorizationByUserCode: (hash: string) =>
      store.get<DeviceAuthorizationRow>('SELECT * FROM oauth_device_authorizations WHERE user_code_hash = ?', [hash]),
    deviceAuthorizationPolled: (hash: string, at: number, intervalS: number) =>
      done(store.run('UPDATE oauth_device_authorizations SET last_poll_at = ?, interval_s = ? WHERE device_code_hash = ?', [at, intervalS, hash])),
    /** pending → approved | denied, once, before expiry. */
    decideDeviceAuthorization: (hash: string, state: 'approved' | 'denied', at: number, sub: string | null, authTime: number | null) =>
      changed(store.run(sql.deviceDecide, { hash, state, at, sub, auth_time: authTime })),
    expireDeviceAuthorization: (hash: string) =>
      changed(store.run("UPDATE oauth_device_authorizations SET state = 'expired' WHERE device_code_hash = ? AND state IN ('pending', 'approved')", [hash])),
    /** `from` → consumed, once, before expiry (app mode consumes from pending: the approval is held by the authenticator). */
    consumeDeviceAuthorization: (hash: string, from: 'pending' | 'approved', at: number, sub: string | null, authTime: number) =>
      changed(store.run(sql.deviceConsume, { hash, from, at, sub, auth_time: authTime })),
    setDeviceAuthorizationIssued: (hash: string, sub: string, familyId: string | null, jti: string, accessExpiresAt: number) =>
      done(
        store.run('UPDATE oauth_device_authorizations SET sub = ?, family_id = ?, access_jti = ?, access_expires_at = ? WHERE device_code_hash = ?', [
          sub,
          familyId,
          jti,
          accessExpiresAt,
          hash,
        ]),
      ),

    /** Background cleanup: expired interactions, codes, refresh families and access-token denials. */
    purge(at: number, keepRevokedMs: number) {
      return store.tx(async () => ({
        interactions: await changes(store.run('DELETE FROM oauth_interactions WHERE expires_at < ?', [at - 60_000])),
        codes: await changes(store.run('DELETE FROM oauth_codes WHERE expires_at < ?', [at - 60 * 60_000])),
        families: await changes(
          store.run('DELETE FROM oauth_refresh_families WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)', [at, at - keepRevokedMs]),
        ),
        revokedAccess: await changes(store.run('DELETE FROM oauth_revoked_access WHERE expires_at < ?', [at])),
        // kept an hour after expiry, like codes, so that a replayed device code is recognised (and its tokens revoked)
        deviceAuthorizations: await changes(store.run('DELETE FROM oauth_device_authorizations WHERE expires_at < ?', [at - 60 * 60_000])),
      }));
    },
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
