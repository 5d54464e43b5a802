/**
 * The rest of the identity domain's stores on both core-store engines (issue 18; store-postgres.test.ts has keys,
 * OAuth, passkeys and email links): authenticator approval, the sign-in history and sessions give the same rows and
 * answers on SQLite and on a private PostgreSQL cluster, and the seed's multi-replica rules hold between two Store
 * instances over one database (two replicas): a sign-in request or a device change decided at two replicas at once is
 * decided once, a pairing is claimed once, a proof nonce is used once, pending rows keep their insertion order
 * (`seq`), and a session created at one replica is accepted, re-authenticated and ended at the other.
 */
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import type { AppContext } from '../../../server/core/http/context.ts';
import { coreMigrations, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../../server/core/storage/store.ts';
import type { AccountRow } from '../../../server/identity/accounts/accounts.store.ts';
import { createApprovalStore } from '../../../server/identity/approval/approval.store.ts';
import { createLoginContext } from '../../../server/identity/approval/context.ts';
import { identityMigrations } from '../../../server/identity/index.ts';
import { createSessionsService } from '../../../server/identity/sessions/sessions.service.ts';
import { createSessionStore } from '../../../server/identity/sessions/sessions.store.ts';
import { coreStoreFixtures } from '../../helpers/core-stores.ts';
import { tempDir } from '../../helpers/temp.ts';

const MIGRATIONS = [...coreMigrations, ...identityMigrations];
const fx = coreStoreFixtures();

/** Two replicas over one fresh core store of the engine: two connections to one platform.db, or two pools. */
async function replicas(engine: 'sqlite' | 'postgres'): Promise<[Store, Store]> {
  if (engine === 'sqlite') {
    const dir = tempDir('hearth-identity-rest-');
    fx.dirs.push(dir);
    const pair: [Store, Store] = [sqliteStore(openPlatformDb(dir, MIGRATIONS)), sqliteStore(openPlatformDb(dir, MIGRATIONS))];
    fx.stores.push(...pair);
    return pair;
  }
  const url = await fx.cluster.createDatabase();
  const pair: [Store, Store] = [postgresStore({ url }), postgresStore({ url })];
  fx.stores.push(...pair);
  await Promise.all(pair.map((s) => migratePostgres(s, MIGRATIONS)));
  return pair;
}

const T0 = Date.UTC(2026, 10, 26); // epoch ms above 2^31: BIGINT on PostgreSQL
const ROUNDS = 20;
const DAY = 86_400_000;

async function person(s: Store, sub: string, login: string, at = T0) {
  await s.run("INSERT INTO identity_accounts (sub, kind, login, profile, created_at, updated_at) VALUES (?, 'person', ?, 'user', ?, ?)", [sub, login, at, at]);
}

const login = (id: string, at: number) => ({
  id,
  kind: 'browser' as const,
  sub: 'alice',
  category: 'login',
  secret_hash: `h-${id}`,
  challenge: `c-${id}`,
  comparison: '123456',
  epoch: 0,
  context: null,
  start_ip: '10.0.0.1',
  terminal: null,
  created_at: at,
  expires_at: at + 300_000,
});

const change = (id: string, at: number) => ({
  id,
  sub: 'alice',
  kind: 'revoke' as const,
  target_id: 'dev-1',
  target_name: 'Phone',
  end_sessions: 0 as const,
  family_id: 'fam',
  pairing_id: null,
  created_at: at,
  expires_at: at + 300_000,
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`authenticator approval store on ${engine}`, () => {
    it('devices, pairings and notices: written at one replica, read at the other; a pairing is claimed once and a nonce used once', async () => {
      const [a, b] = await replicas(engine);
      const [sa, sb] = [createApprovalStore(a), createApprovalStore(b)];
      await person(a, 'alice', 'alice');
      for (const id of ['dev-2', 'dev-1']) await sa.insertDevice({ id, sub: 'alice', name: `Phone ${id}`, public_key: '{}', assisted: 0, created_at: T0 });
      expect(await sb.countActiveDevices('alice')).toBe(2);
      expect((await sb.devicePage('alice', null, 10)).map((d) => d.id)).toEqual(['dev-1', 'dev-2']);
      expect((await sb.devicePage('alice', 'dev-1', 10)).map((d) => d.id)).toEqual(['dev-2']);
      expect(await sb.revokeDevice('dev-2', T0 + 1)).toBe(true);
      expect(await sa.revokeDevice('dev-2', T0 + 2)).toBe(false);
      expect((await sa.activeDevices('alice')).map((d) => d.id)).toEqual(['dev-1']);

      await sa.insertPairing({
        id: 'p1',
        sub: 'alice',
        initiator_sub: 'alice',
        family_id: 'fam',
        assisted: 0,
        secret_hash: 'x',
        created_at: T0,
        expires_at: T0 + 300_000,
      });
      const claim = (s: typeof sa, device: string) =>
        s.claimPairing({ id: 'p1', device_id: device, public_key: '{}', name: device, comparison: '1', now: T0 + 1 });
      expect((await Promise.all([claim(sa, 'from-a'), claim(sb, 'from-b')])).filter(Boolean)).toHaveLength(1);
      expect(await sb.outstandingPairings('alice', T0 + 1)).toBe(1);
      expect(await sa.wrongCode('p1')).toBe(1);
      expect(await sb.wrongCode('p1')).toBe(2);

      const nonces = await Promise.all([sa.useNonce('dev-1', 'jti-1', T0 + 60_000), sb.useNonce('dev-1', 'jti-1', T0 + 60_000)]);
      expect(nonces.filter(Boolean)).toHaveLength(1);

      await sa.insertNotice('dev-1', 'alice', true, 'Phone', T0);
      await sb.insertNotice('dev-1', 'alice', true, 'Phone', T0); // once per device
      expect(await sb.unsentNotices()).toMatchObject([{ device_id: 'dev-1', assisted: 1, attempts: 0 }]);
      await sb.noticeAttempt('dev-1', T0 + 1);
      await sa.noticeSent('dev-1', T0 + 2);
      expect(await sb.unsentNotices()).toEqual([]);
      expect(await sa.purge(T0 + 400_000, T0 + 60_001, T0 + 3)).toEqual({ logins: 0, pairings: 1, changes: 0, nonces: 1, notices: 1 });
    });

    it('a sign-in request decided at two replicas at once is decided once (every round), and pending ones keep their order', async () => {
      const [a, b] = await replicas(engine);
      const [sa, sb] = [createApprovalStore(a), createApprovalStore(b)];
      await person(a, 'alice', 'alice');
      // Three requests in the same millisecond: listed in insertion order on both engines (created_at, then seq).
      for (const id of ['z', 'm', 'a']) await sa.insertLogin(login(id, T0));
      expect((await sb.pendingLogins('alice', T0)).map((r) => r.id)).toEqual(['z', 'm', 'a']);
      // The device channel's steps (approval.channel.ts, decide): read the request locked, check, one guarded UPDATE.
      const decide = (s: typeof sa, id: string, decision: 'approved' | 'denied', device: string) =>
        s.transaction(async () => {
          const r = await s.getLogin(id, true);
          if (r?.state !== 'pending') return false;
          return s.decideLogin(id, decision, device, T0 + 1);
        });
      const wins: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const id = `req-${i}`;
        await sa.insertLogin(login(id, T0));
        const results = await Promise.all([decide(sa, id, 'approved', 'dev-a'), decide(sb, id, 'denied', 'dev-b')]);
        wins.push(results.filter(Boolean).length);
        const row = (await sa.getLogin(id))!;
        expect(row.device_id).toBe(row.state === 'approved' ? 'dev-a' : 'dev-b');
        // An approved request is used once, whichever replica the browser reaches.
        if (row.state === 'approved') expect((await Promise.all([sa.consumeLogin(id, T0 + 2), sb.consumeLogin(id, T0 + 2)])).filter(Boolean)).toHaveLength(1);
      }
      expect(wins).toEqual(Array(ROUNDS).fill(1));
      expect(await sb.outstandingLogins('alice', T0 + 3)).toBe(3);
    });

    it('a device change decided at two replicas at once is decided once (every round), and a decided change cannot be cancelled', async () => {
      const [a, b] = await replicas(engine);
      const [sa, sb] = [createApprovalStore(a), createApprovalStore(b)];
      await person(a, 'alice', 'alice');
      for (const id of ['c3', 'c1', 'c2']) await sa.insertChange(change(id, T0));
      expect((await sb.pendingChanges('alice', T0)).map((c) => c.id)).toEqual(['c3', 'c1', 'c2']);
      expect((await sb.newestRemoval('alice', 'fam', 'dev-1'))?.id).toBe('c2');
      const wins: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const id = `ch-${i}`;
        await sa.insertChange(change(id, T0));
        const results = await Promise.all([
          sa.transaction(() => sa.decideChange(id, 'approved', T0 + 1, 'dev-a', null)),
          sb.transaction(() => sb.decideChange(id, 'denied', T0 + 1, 'dev-b', null)),
        ]);
        wins.push(results.filter(Boolean).length);
        expect(await sa.cancelChange(id, T0 + 2)).toBe(false);
      }
      expect(wins).toEqual(Array(ROUNDS).fill(1));
      await sb.setChangeEnded('ch-0', 2);
      expect(await sa.getChange('ch-0')).toMatchObject({ ended_sessions: 2, decided_at: T0 + 1 });
      expect(await sa.cancelChangesOfTarget('dev-1', T0 + 3)).toBe(3);
    });
  });

  describe(`sign-in history on ${engine}`, () => {
    it('records sign-ins at both replicas, keeps a browser’s first and last sign-in, computes the context and prunes', async () => {
      const [a, b] = await replicas(engine);
      let t = T0;
      const [ca, cb] = [a, b].map((store) => createLoginContext({ store, geoip: null, now: () => t }));
      await person(a, 'alice', 'alice', T0 - 30 * DAY);
      expect(await ca!.introductionStart()).toBeGreaterThanOrEqual(T0 - 30 * DAY);
      const laptop = 'b'.repeat(43);
      await cb!.recordSuccessfulSignIn({ sub: 'alice', browserId: laptop, ip: '10.0.0.1', at: T0 + 10 });
      await ca!.recordSuccessfulSignIn({ sub: 'alice', browserId: laptop, ip: '10.0.0.1', at: T0 }); // arrives late: first_at moves back
      await Promise.all([0, 1].map((i) => [ca, cb][i]!.recordSuccessfulSignIn({ sub: 'alice', browserId: laptop, ip: '10.0.0.1', at: T0 + DAY + i })));
      expect(await a.all('SELECT first_at, last_at FROM identity_signin_browsers')).toEqual([{ first_at: T0, last_at: T0 + DAY + 1 }]);
      // Past the introduction phase: the browser is known since its first sign-in, at either replica.
      t = T0 + 2 * DAY;
      await a.run("UPDATE identity_settings SET value = ? WHERE name = 'signin_history.introduction_started_at'", [JSON.stringify(T0 - 30 * DAY)]);
      for (const c of [ca!, cb!]) {
        expect(await c.compute({ sub: 'alice', userAgent: '', ip: '10.0.0.1', browserId: laptop, at: t })).toMatchObject({
          level: 'info',
          history: { knownSince: new Date(T0).toISOString(), newCountry: false },
        });
      }
      expect(await cb!.cleanup(T0 + 11 + 90 * DAY)).toEqual({ history: 2, browsers: 0 });
      expect(await ca!.cleanup(T0 + DAY + 2 + 365 * DAY)).toEqual({ history: 2, browsers: 1 });
    });
  });

  describe(`sessions on ${engine}`, () => {
    it('a session created through one replica is accepted through the other, until it is signed out at either', async () => {
      const [a, b] = await replicas(engine);
      await person(a, 'alice', 'alice');
      const alice = (await a.get<AccountRow>("SELECT * FROM identity_accounts WHERE sub = 'alice'"))!;
      const issuer = 'https://hearth.example';
      // The account parts (accounts store and service) answer alice as the accounts store would.
      const [sa, sb] = [a, b].map((store) =>
        createSessionsService({
          store: createSessionStore(store),
          accountStore: { getAccount: () => alice, findSubByLogin: () => 'alice' } as never,
          accounts: { isAccountCategoryAllowed: () => true } as never,
          audit: createAuditLog(store),
          issuer: () => issuer,
        }),
      );
      const request = (cookie: string, method = 'GET') =>
        ({
          get: (h: string) => (h === 'cookie' ? cookie : h === 'origin' ? issuer : ''),
          method,
          ip: '10.0.0.1',
          state: { requestId: 'r' },
        }) as unknown as AppContext;
      const started = await sa!.startSession(alice, 'r1', 'password');
      const cookie = started.setCookie.split(';')[0]!;
      expect(await sb!.authenticate(request(cookie))).toMatchObject({ kind: 'namespaces', name: 'alice', session: { sub: 'alice' } });
      expect(await sb!.sessionView(request(cookie))).toMatchObject({ account: { sub: 'alice' } });
      expect(await sa!.needsSetup()).toBe(false);
      // Re-authenticated at B: recent authentication counts at A too.
      const familyId = cookie.split('=')[1]!.split('.')[0]!;
      const { issuedAt } = await sb!.confirmedRecently({ sub: 'alice', login: 'alice', familyId, issuedAt: 0 }, 'password', { actor: 'account:alice' });
      expect((await sa!.current(request(cookie)))?.session.issuedAt).toBe(issuedAt);
      // A second session, then a password set at B ends every other one, seen at A.
      const other = (await sb!.startSession(alice, 'r2', 'password')).setCookie.split(';')[0]!;
      await sb!.setPassword('alice', 'a long enough password', { actor: 'token:admin' }, familyId);
      await expect(sa!.authenticate(request(other))).rejects.toThrow(/session has ended/);
      expect(await sa!.authenticate(request(cookie))).not.toBeNull();
      // Signed out at A: refused at B.
      await sa!.logout(request(cookie, 'POST'));
      await expect(sb!.authenticate(request(cookie))).rejects.toThrow(/session has ended/);
      expect(await a.value("SELECT count(*) FROM audit_log WHERE action IN ('session.login', 'session.logout', 'account.password.set')")).toBe(4);
    });
  });
}
