/**
 * The identity domain's stores on both core-store engines (issue 18): each converted store's key operations give the
 * same rows and answers on SQLite (platform.db through `sqliteStore`) and on a private PostgreSQL cluster
 * (`postgresStore`, migrated by `migratePostgres`), and the seed's multi-replica rules hold between two Store
 * instances over one database (two replicas; on SQLite, two connections to one platform.db in this process): one
 * key writer at a time, one lease holder, key changes notified at commit; an authorization code redeemed, a refresh
 * token reserved and rotated, a device code, a WebAuthn challenge or an email link used by both replicas at once
 * succeeds once; a sign-in decided at one replica wakes the `/login/status` held at the other.
 */
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import { createLogger } from '../../../server/core/logging/logger.ts';
import { coreMigrations, type Migration, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../../server/core/storage/store.ts';
import { type AccountRow, type AccountStore, accountMigrations } from '../../../server/identity/accounts/accounts.store.ts';
import type { ApprovalCore } from '../../../server/identity/approval/approval.core.ts';
import { createSignInRequests } from '../../../server/identity/approval/sign-in-requests.ts';
import { identityMigrations } from '../../../server/identity/index.ts';
import { createKeyStore, keyMigrations, type NewKeyRow } from '../../../server/identity/keys/keys.store.ts';
import { createOAuthService } from '../../../server/identity/oauth/oauth.service.ts';
import { type ClientRow, createOAuthStore, oauthMigrations } from '../../../server/identity/oauth/oauth.store.ts';
import { createPasskeyStore, passkeyMigrations } from '../../../server/identity/passkeys/passkeys.store.ts';
import { createEmailLinks, emailLinkMigrations } from '../../../server/identity/sessions/email-links.ts';
import { coreStoreFixtures, replicaStores } from '../../helpers/core-stores.ts';
import { tempDir } from '../../helpers/temp.ts';
import { until } from '../../helpers/wait.ts';

/** The migrations of the stores tested here, in boot order (the core's first: identity's tables reference none of them). */
const MIGRATIONS: Migration[] = [...coreMigrations, ...keyMigrations, ...accountMigrations, ...oauthMigrations, ...passkeyMigrations, ...emailLinkMigrations];

const fx = coreStoreFixtures();

/** Two replicas over one fresh core store of the engine (test/helpers/core-stores.ts). */
const replicas = (engine: 'sqlite' | 'postgres') => replicaStores(fx, engine, MIGRATIONS);

const T0 = Date.UTC(2026, 10, 26); // epoch ms above 2^31: BIGINT on PostgreSQL

function keyRow(kid: string, state: 'active' | 'pending', purpose: NewKeyRow['purpose'] = 'oauth'): NewKeyRow {
  return {
    kid,
    purpose,
    state,
    algorithm: 'RS256',
    public_jwk: JSON.stringify({ kty: 'RSA', kid }),
    thumbprint: `tp-${kid}`,
    private_key_envelope: `env-${kid}`,
    encryption_key_id: 'kek-1',
    created_at: T0,
    activates_at: T0,
    activated_at: state === 'active' ? T0 : null,
    retires_at: null,
  };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`identity stores on ${engine}`, () => {
    it('keys: insert, activate, retire, revoke, rewrap and the published set', async () => {
      const [a] = await replicas(engine);
      const keys = createKeyStore(a);
      await keys.transaction(async () => {
        await keys.insert(keyRow('k1', 'active'));
        await keys.insert(keyRow('k2', 'pending'));
      });
      expect((await keys.findActive('oauth'))?.kid).toBe('k1');
      expect(await keys.stateOf('k2')).toBe('pending');
      expect(await keys.stateOf('nobody')).toBeUndefined();
      // The partial unique index: one active key per purpose, on both engines.
      await expect((async () => keys.insert(keyRow('k3', 'active')))()).rejects.toThrow(/unique|UNIQUE/);
      expect(await keys.retire('k1', T0 + 1, 'rotated', T0 + 1000)).toBe(true);
      expect(await keys.retire('k1', T0 + 2, 'rotated', T0 + 1000)).toBe(false);
      expect(await keys.activate('k2', T0 + 1, T0 + 30 * 86_400_000)).toBe(true);
      const k1 = await keys.get('k1');
      expect(k1).toMatchObject({ state: 'retired', private_key_envelope: null, withdraws_at: T0 + 1000, retired_at: T0 + 1 });
      expect(typeof k1!.created_at).toBe('number');
      expect((await keys.listPublished('oauth', T0 + 999)).map((r) => r.kid)).toEqual(['k2', 'k1']);
      expect((await keys.listPublished('oauth', T0 + 1000)).map((r) => r.kid)).toEqual(['k2']);
      expect((await keys.listLive()).map((r) => r.kid).sort()).toEqual(['k1', 'k2']);
      expect(await keys.withdraw('k1', T0 + 1000)).toBe(true);
      expect((await keys.listLive()).map((r) => r.kid)).toEqual(['k2']);
      expect(await keys.rewrap('k2', 'env-other', 'env-new', 'kek-2', T0 + 3)).toBe(false);
      expect(await keys.rewrap('k2', 'env-k2', 'env-new', 'kek-2', T0 + 3)).toBe(true);
      expect((await keys.listSealed()).map((r) => [r.kid, r.encryption_key_id])).toEqual([['k2', 'kek-2']]);
      expect(await keys.revoke('k2', T0 + 4, 'stolen', 'token:admin')).toBe(true);
      expect(await keys.get('k2')).toMatchObject({ state: 'revoked', revoked_by: 'token:admin', revocation_reason: 'stolen', private_key_envelope: null });
      expect((await keys.listAll()).map((r) => r.kid)).toEqual(['k1', 'k2']);
    });

    it('keys: two replicas planning at once create one active key, one holds the lease, and a change reaches the other at commit', async () => {
      const [a, b] = await replicas(engine);
      const [ka, kb] = [createKeyStore(a), createKeyStore(b)];
      // Each replica looks for an active key and creates one when there is none, as maintenance does.
      const plan = (keys: typeof ka, kid: string) =>
        keys.transaction(async () => {
          await keys.lockKeys();
          if (await keys.findActive('session')) return false;
          await keys.insert(keyRow(kid, 'active', 'session'));
          return true;
        });
      const created = await Promise.all([plan(ka, 'from-a'), plan(kb, 'from-b')]);
      expect(created.filter(Boolean)).toHaveLength(1);
      expect((await ka.listAll()).filter((r) => r.purpose === 'session')).toHaveLength(1);

      const leases = await Promise.all([ka.takeLease('maint', 'a', T0, 120_000), kb.takeLease('maint', 'b', T0, 120_000)]);
      expect(leases.filter(Boolean)).toHaveLength(1);
      const [holder, other] = leases[0] ? (['a', 'b'] as const) : (['b', 'a'] as const);
      const storeOf = { a: ka, b: kb };
      expect(await storeOf[holder].takeLease('maint', holder, T0 + 1, 120_000)).toBe(true); // renewed by its holder
      expect(await storeOf[other].takeLease('maint', other, T0 + 60_000, 120_000)).toBe(false);
      expect(await storeOf[other].takeLease('maint', other, T0 + 120_001, 120_000)).toBe(true); // expired: taken over
      await storeOf[holder].releaseLease('maint', holder); // not the holder any more: nothing released
      expect(await storeOf[holder].takeLease('maint', holder, T0 + 120_002, 120_000)).toBe(false);

      if (engine === 'postgres') {
        // Between replicas only on PostgreSQL (SQLite's notifications stay in their store; processes poll).
        const got: string[][] = [];
        const stop = await kb.onChanged((p) => got.push(p));
        await ka.transaction(async () => {
          await ka.revoke((await ka.findActive('session'))!.kid, T0 + 5, 'test', 'token:admin');
          await ka.notifyChanged(['session']);
        });
        await until(() => got.length > 0, 'the key change at replica b');
        expect(got).toEqual([['session']]);
        stop();
      }
    });
  });
}

function clientRow(clientId: string, name: string, description: string | null, createdAt: number): ClientRow {
  return {
    client_id: clientId,
    origin: 'managed',
    name,
    description,
    redirect_uris: '["https://app.example/cb"]',
    logout_uri: null,
    scopes: '["openid","offline_access"]',
    audiences: '["hearth"]',
    service_account_id: null,
    allowed_profiles: '["user"]',
    access_mode: 'profiles',
    allowed_user_ids: '[]',
    allowed_group_ids: '[]',
    is_public: 1,
    secret_hash: null,
    grant_types: '["authorization_code","refresh_token"]',
    application_type: null,
    created_at: createdAt,
    updated_at: createdAt,
    secret_rotated_at: null,
    first_used_at: null,
    revoked_at: null,
  };
}

const ROUNDS = 20;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`OAuth store on ${engine}`, () => {
    it('clients: insert, search (case-insensitive, literal), page, update, delete and the abandoned registrations', async () => {
      const [a] = await replicas(engine);
      const oauth = createOAuthStore(a);
      await oauth.insertClient(clientRow('c-wiki', 'Team Wiki', 'Docs 100%', T0));
      await oauth.insertClient(clientRow('c-mail', 'Webmail', null, T0 + 1));
      await oauth.insertClient({ ...clientRow('c-dyn', 'Dynamic', null, T0 + 2), origin: 'dynamic' });
      expect(await oauth.countClients(null)).toBe(3);
      expect(await oauth.countClients('wiki')).toBe(1);
      expect(await oauth.countClients('100%')).toBe(1); // no LIKE wildcards: the text itself
      expect(await oauth.countClients('_')).toBe(0);
      expect((await oauth.listClients('web', 10, 0)).map((c) => c.client_id)).toEqual(['c-mail']);
      expect((await oauth.listClients(null, 2, 1)).map((c) => c.client_id)).toEqual(['c-mail', 'c-dyn']);
      const wiki = (await oauth.getClient('c-wiki'))!;
      expect(wiki).toMatchObject({ is_public: 1, created_at: T0 });
      await oauth.updateClient({ ...wiki, name: 'Wiki', updated_at: T0 + 5 });
      expect((await oauth.getClient('c-wiki'))?.name).toBe('Wiki');
      expect(await oauth.abandonedClients(T0 + 3)).toEqual(['c-dyn']);
      await oauth.markClientUsed('c-dyn', T0 + 3);
      expect(await oauth.abandonedClients(T0 + 3)).toEqual([]);
      expect(await oauth.deleteClient('c-dyn')).toBe(true);
      expect(await oauth.deleteClient('c-dyn')).toBe(false);
      await oauth.revokeAccessToken('jti-1', T0 + 10);
      await oauth.revokeAccessToken('jti-1', T0 + 10); // again: no error (ON CONFLICT DO NOTHING)
      expect(await oauth.isAccessRevoked('jti-1')).toBe(true);
      expect(await oauth.isAccessRevoked('jti-2')).toBe(false);
      expect(await oauth.purge(T0 + 11, 0)).toMatchObject({ revokedAccess: 1 });
      expect(await oauth.isAccessRevoked('jti-1')).toBe(false);
    });

    it('two replicas editing one client at once keep both edits (every round)', async () => {
      const [a, b] = await replicas(engine);
      // Client edits touch no account (no service account, no access lists): the account parts are not needed.
      const service = (store: Store) =>
        createOAuthService({
          store: createOAuthStore(store),
          audit: createAuditLog(store),
          logger: createLogger({ level: 'silent', destination: { write: () => {} } }),
          issuer: () => 'https://hearth.example',
          terminalBroker: null,
        } as unknown as Parameters<typeof createOAuthService>[0]);
      const [sa, sb] = [service(a), service(b)];
      await createOAuthStore(a).insertClient(clientRow('c', 'App', null, T0));
      for (let i = 0; i < ROUNDS; i++) {
        const admin = { actor: 'token:admin' };
        await Promise.all([sa.updateClient('c', { name: `name-${i}` }, admin), sb.updateClient('c', { description: `text-${i}` }, admin)]);
        expect(await a.get('SELECT name, description FROM oauth_clients')).toEqual({ name: `name-${i}`, description: `text-${i}` });
      }
    });

    it('an authorization code redeemed by two replicas at once succeeds once (every round)', async () => {
      const [a, b] = await replicas(engine);
      const [oa, ob] = [createOAuthStore(a), createOAuthStore(b)];
      await oa.insertClient(clientRow('c', 'App', null, T0));
      const wins: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const hash = `code-${i}`;
        await oa.insertCode({
          code_hash: hash,
          client_id: 'c',
          sub: 'alice',
          redirect_uri: 'https://app.example/cb',
          scope: '["openid"]',
          audiences: '["hearth"]',
          resource: null,
          nonce: null,
          code_challenge: null,
          auth_time: Math.floor(T0 / 1000),
          sid: null,
          created_at: T0,
          expires_at: T0 + 60_000,
        });
        const results = await Promise.all([oa.redeemCode(hash, T0 + 1), ob.redeemCode(hash, T0 + 2)]);
        wins.push(results.filter(Boolean).length);
      }
      expect(wins).toEqual(Array(ROUNDS).fill(1));
      expect(await a.value('SELECT count(*) FROM oauth_codes WHERE used_at IS NULL')).toBe(0);
    });

    it('a refresh token presented to two replicas at once is reserved and rotated once (every round)', async () => {
      const [a, b] = await replicas(engine);
      const [oa, ob] = [createOAuthStore(a), createOAuthStore(b)];
      await oa.insertClient(clientRow('c', 'App', null, T0));
      // The grant's steps (grants/refresh-token.ts): the one-shot reservation, then the rotation under the family's lock.
      const refresh = async (oauth: typeof oa, familyId: string, hash: string, next: string, nonce: string) => {
        if (!(await oauth.reserveFamily(familyId, hash, JSON.stringify({ nonce, status: 'reserved', at: T0 })))) return false;
        return oauth.transaction(async () => {
          const f = await oauth.lockFamily(familyId);
          if (!f || f.revoked_at !== null || JSON.parse(f.reservation ?? 'null')?.nonce !== nonce) return false;
          if (!(await oauth.rotateRefreshToken(hash, T0 + 1))) return false;
          await oauth.insertRefreshToken(next, familyId, f.generation + 1, T0 + 1);
          await oauth.advanceFamily(familyId, f.scope);
          return true;
        });
      };
      const wins: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const familyId = `fam-${i}`;
        await oa.transaction(async () => {
          await oa.insertFamily({
            id: familyId,
            client_id: 'c',
            sub: 'alice',
            scope: '["offline_access"]',
            audiences: '["hearth"]',
            resource: null,
            auth_time: Math.floor(T0 / 1000),
            sid: null,
            created_at: T0,
            expires_at: T0 + 86_400_000,
          });
          await oa.insertRefreshToken(`rt-${i}`, familyId, 0, T0);
        });
        const results = await Promise.all([refresh(oa, familyId, `rt-${i}`, `rt-${i}-a`, 'na'), refresh(ob, familyId, `rt-${i}`, `rt-${i}-b`, 'nb')]);
        wins.push(results.filter(Boolean).length);
        const family = (await oa.getFamily(familyId))!;
        expect(family).toMatchObject({ generation: 1, reservation: null });
      }
      expect(wins).toEqual(Array(ROUNDS).fill(1));
      expect(await a.value('SELECT count(*) FROM oauth_refresh_tokens WHERE generation = 1')).toBe(ROUNDS);
      // Two replicas rotating the same token directly (the last step alone): once.
      await oa.insertRefreshToken('rt-x', 'fam-0', 5, T0);
      expect((await Promise.all([oa.rotateRefreshToken('rt-x', T0 + 2), ob.rotateRefreshToken('rt-x', T0 + 3)])).filter(Boolean)).toHaveLength(1);
      // A rotated token reserves nothing; a revoked family neither.
      expect(await oa.reserveFamily('fam-0', 'rt-0', '{}')).toBe(false);
      expect(await oa.revokeFamily('fam-1', T0 + 4, 'reuse')).toBe(true);
      expect(await oa.reserveFamily('fam-1', 'rt-1-a', '{}')).toBe(false);
      expect(await oa.reserveFamily('fam-1', 'rt-1-b', '{}')).toBe(false);
    });

    it('a device code is consumed once by two replicas, and a user code is unique', async () => {
      const [a, b] = await replicas(engine);
      const [oa, ob] = [createOAuthStore(a), createOAuthStore(b)];
      await oa.insertClient(clientRow('c', 'App', null, T0));
      const device = (hash: string, userCode: string | null) =>
        oa.insertDeviceAuthorization({
          device_code_hash: hash,
          client_id: 'c',
          mode: 'browser',
          approval_request_id: null,
          user_code_hash: userCode,
          scope: '["openid"]',
          audiences: '["hearth"]',
          lifetime_s: 3600,
          interval_s: 5,
          created_at: T0,
          expires_at: T0 + 600_000,
        });
      await device('d1', 'u1');
      await expect((async () => device('d2', 'u1'))()).rejects.toThrow(/UNIQUE|duplicate key/);
      expect(await oa.decideDeviceAuthorization('d1', 'approved', T0 + 1, 'alice', Math.floor(T0 / 1000))).toBe(true);
      expect(await ob.decideDeviceAuthorization('d1', 'denied', T0 + 2, null, null)).toBe(false);
      const consumed = await Promise.all([
        oa.consumeDeviceAuthorization('d1', 'approved', T0 + 3, null, 1),
        ob.consumeDeviceAuthorization('d1', 'approved', T0 + 3, null, 1),
      ]);
      expect(consumed.filter(Boolean)).toHaveLength(1);
      expect(await oa.getDeviceAuthorizationByUserCode('u1')).toMatchObject({ state: 'consumed', sub: 'alice', auth_time: Math.floor(T0 / 1000) });
    });
  });
}

/** An account row as the accounts store writes it (the tables of later stores reference it). */
async function person(s: Store, sub: string, login: string) {
  await s.run("INSERT INTO identity_accounts (sub, kind, login, profile, created_at, updated_at) VALUES (?, 'person', ?, 'user', ?, ?)", [sub, login, T0, T0]);
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`passkey store on ${engine}`, () => {
    it('stores a passkey with its public key bytes, lists, counts, renames, removes, and a challenge is taken once by two replicas', async () => {
      const [a, b] = await replicas(engine);
      const [pa, pb] = [createPasskeyStore(a), createPasskeyStore(b)];
      await person(a, 'alice', 'alice');
      const key = new Uint8Array([165, 1, 2, 3, 38, 0, 255]);
      await pa.insert({
        id: 'cred-1',
        sub: 'alice',
        name: 'Laptop',
        public_key: key,
        counter: 0,
        transports: '["internal"]',
        device_type: 'multiDevice',
        backed_up: 1,
        created_at: T0,
      });
      await pa.insert({
        id: 'cred-2',
        sub: 'alice',
        name: 'Phone',
        public_key: key,
        counter: 0,
        transports: '[]',
        device_type: 'singleDevice',
        backed_up: 0,
        created_at: T0 + 1,
      });
      const got = (await pb.get('cred-1'))!;
      expect(Buffer.from(got.public_key).equals(Buffer.from(key))).toBe(true);
      expect(await pb.count('alice')).toBe(2);
      expect((await pb.ofSub('alice')).map((p) => p.id)).toEqual(['cred-1', 'cred-2']);
      await pa.markUsed('cred-1', 7, T0 + 5);
      expect(await pb.get('cred-1')).toMatchObject({ counter: 7, last_used_at: T0 + 5 });
      expect(await pa.rename('cred-2', 'bob', 'x')).toBe(false);
      expect(await pa.rename('cred-2', 'alice', 'Old phone')).toBe(true);
      expect(await pa.remove('cred-2', 'alice')).toBe(true);
      expect(await pa.remove('cred-2', 'alice')).toBe(false);

      await pa.putChallenge('ch-1', 'login', null, 'nonce', T0 + 60_000);
      await pa.putChallenge('ch-old', 'register', 'alice', 'n', T0 - 1);
      expect(await pa.countChallenges()).toBe(2);
      expect(await pa.takeChallenge('ch-1', 'register')).toBeUndefined(); // another ceremony's purpose
      const taken = await Promise.all([pa.takeChallenge('ch-1', 'login'), pb.takeChallenge('ch-1', 'login')]);
      expect(taken.filter(Boolean)).toEqual([{ sub: null, challenge: 'nonce', expires_at: T0 + 60_000 }]);
      expect(await pb.purgeChallenges(T0)).toBe(1);
      expect(await pa.countChallenges()).toBe(0);
    });
  });
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`email links on ${engine}`, () => {
    it('sends a link, keeps three live per account, shows it, and a link used at two replicas at once signs in once', async () => {
      const [a, b] = await replicas(engine);
      await person(a, 'alice', 'alice');
      const alice = { sub: 'alice', kind: 'person', login: 'alice', email: 'alice@example.org', display_name: 'Alice' } as AccountRow;
      // The account lookups of the accounts store: alice, by login or address.
      const accountStore = {
        findSubByLogin: async () => 'alice',
        findSubByEmailKey: async () => 'alice',
        getAccount: async () => alice,
      } as unknown as AccountStore;
      const sent: string[] = [];
      const links = [a, b].map((store) => {
        const l = createEmailLinks({
          store,
          accountStore,
          maySignIn: async (row) => !!row,
          audit: createAuditLog(store),
          logger: createLogger({ level: 'silent', destination: { write: () => {} } }),
          issuer: () => 'https://hearth.example',
        });
        l.useMailer({ sendAsCore: async (m) => sent.push(m.text), notify: async () => {}, notifyBatch: async () => ({ batchId: 'b' }) });
        return l;
      });
      for (let i = 0; i < 4; i++) await links[i % 2]!.request('magic', 'alice', `10.0.0.${i}`, `r${i}`);
      expect(sent).toHaveLength(3); // three live links per account and purpose
      expect(await a.value("SELECT count(*) FROM audit_log WHERE action = 'session.email_link'")).toBe(3);
      const token = /token=([\w-]+)/.exec(sent[0]!)![1]!;
      expect((await links[1]!.peek('magic', token))?.sub).toBe('alice');
      expect(await links[1]!.peek('reset', token)).toBeNull();
      const used = await Promise.all([links[0]!.consume('magic', token), links[1]!.consume('magic', token)]);
      expect(used.filter(Boolean)).toHaveLength(1);
      expect(await links[0]!.peek('magic', token)).toBeNull();
    });
  });
}

describe('held sign-in status between replicas (PostgreSQL)', () => {
  it('a decision woken at replica A releases the /login/status held at replica B', async () => {
    const [a, b] = await replicas('postgres');
    // Only the wake-up part of the sign-in requests is used here: it needs the core store's notifications.
    const requestsAt = (store: Store) => createSignInRequests({ deps: { notifications: store } } as unknown as ApprovalCore);
    const [ra, rb] = [requestsAt(a), requestsAt(b)];
    await until(async () => (await b.value<number>("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")) === 2, 'both replicas listening');
    const never = new AbortController().signal;
    let released = false;
    // Held for an hour unless woken: only the notification from A can release it within the test.
    const held = rb.waitFor('req-1', 3_600_000, never).then(() => (released = true));
    await ra.wake('req-1');
    await held;
    expect(released).toBe(true);
  });
});

describe('the identity schema on both engines', () => {
  it('every identity migration has its PostgreSQL form, and both engines get the same tables and columns', async () => {
    const dir = tempDir('hearth-identity-schema-');
    fx.dirs.push(dir);
    const sqlite = sqliteStore(openPlatformDb(dir, [...coreMigrations, ...identityMigrations]));
    const postgres = postgresStore({ url: await fx.cluster.createDatabase() });
    fx.stores.push(sqlite, postgres);
    expect(await migratePostgres(postgres, [...coreMigrations, ...identityMigrations])).toHaveLength(coreMigrations.length + identityMigrations.length);
    const onSqlite = await sqlite.all<{ t: string; c: string }>(
      "SELECT m.name AS t, p.name AS c FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND (m.name LIKE 'identity%' OR m.name LIKE 'oauth%' OR m.name LIKE 'linux%') ORDER BY 1, 2",
    );
    const onPostgres = await postgres.all<{ t: string; c: string }>(
      "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND (table_name LIKE 'identity%' OR table_name LIKE 'oauth%' OR table_name LIKE 'linux%') ORDER BY 1, 2",
    );
    expect(onSqlite.length).toBeGreaterThan(100);
    expect(onPostgres).toEqual(onSqlite);
    // The sign-in history's id is assigned by the database on both.
    await person(postgres, 'alice', 'alice');
    await postgres.run("INSERT INTO identity_signin_history (sub, browser_hash, country, at) VALUES ('alice', 'h', NULL, ?)", [T0]);
    expect(await postgres.value('SELECT id FROM identity_signin_history')).toBe(1);
    expect(await postgres.value("SELECT count(*) FROM identity_settings WHERE name = 'signin_history.started_at'")).toBe(1);
  });
});
