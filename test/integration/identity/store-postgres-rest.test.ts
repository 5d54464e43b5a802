/**
 * The rest of the identity domain's stores on both core-store engines (store-postgres.test.ts has keys, OAuth,
 * passkeys and email links): accounts, Linux identities, authenticator approval, the sign-in history and sessions give
 * the same rows and answers on SQLite and on a private PostgreSQL cluster, and the rules for replicas sharing one core
 * store hold between two Store instances over one database (two replicas): a sign-in request or a device change
 * decided at two replicas at once is decided once, a pairing is claimed once, a proof nonce is used once, pending rows
 * keep their insertion order (`seq`), a session created at one replica is accepted, re-authenticated and ended at the
 * other, two replicas removing the last two administrators at once leave one, and Linux numbers are never handed out
 * twice.
 */
import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import type { AppContext } from '../../../server/core/http/app-context.ts';
import { coreMigrations } from '../../../server/core/storage/platform-db.ts';
import type { Store } from '../../../server/core/storage/store.ts';
import { createAccountsService } from '../../../server/identity/accounts/accounts.service.ts';
import { type AccountRow, createAccountStore } from '../../../server/identity/accounts/accounts.store.ts';
import { createApprovalStore } from '../../../server/identity/approval/approval.store.ts';
import { createLoginContext } from '../../../server/identity/approval/signin-context.ts';
import { identityMigrations } from '../../../server/identity/index.ts';
import { createLinuxService } from '../../../server/identity/linux/linux.service.ts';
import { createLinuxStore } from '../../../server/identity/linux/linux.store.ts';
import { createSessionsService } from '../../../server/identity/sessions/sessions.service.ts';
import { createSessionStore } from '../../../server/identity/sessions/sessions.store.ts';
import { coreStoreFixtures, replicaStores } from '../../helpers/core-stores.ts';

const MIGRATIONS = [...coreMigrations, ...identityMigrations];
const fx = coreStoreFixtures();

/** Two replicas over one fresh core store of the engine (test/helpers/core-stores.ts). */
const replicas = (engine: 'sqlite' | 'postgres') => replicaStores(fx, engine, MIGRATIONS);

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
          accountStore: { getAccount: async () => alice, lockAccount: async () => alice, findSubByLogin: async () => 'alice' } as never,
          accounts: { isAccountCategoryAllowed: async () => true } as never,
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

  describe(`accounts and Linux identities on ${engine}`, () => {
    /** Accounts with the Linux hooks, wired as the identity domain wires them, over one replica's store. */
    const servicesAt = (store: Store) => {
      const accountStore = createAccountStore(store);
      const audit = createAuditLog(store);
      const linux = createLinuxService({ store: createLinuxStore(store), accountStore, audit });
      const accounts = createAccountsService({
        store: accountStore,
        audit,
        hooks: { personWritten: linux.onPersonWritten, groupNameTaken: linux.groupNameTaken },
      });
      return { accountStore, accounts, linux };
    };
    const admin = { actor: 'token:admin' };

    it('accounts, groups, service accounts and the policy: written at one replica, read at the other; search is case-insensitive and literal', async () => {
      const [a, b] = await replicas(engine);
      const [x, y] = [servicesAt(a), servicesAt(b)];
      const ada = await x.accounts.createAccount(
        { login: 'ada', email: 'Ada@Example.org', displayName: 'Ada 100%', profile: 'user', admin: true, disabled: false },
        admin,
      );
      await y.accounts.createAccount({ login: 'bob', profile: 'guest', admin: false, disabled: false }, admin);
      await expect(
        y.accounts.createAccount({ login: 'carl', email: 'ada@example.ORG', profile: 'user', admin: false, disabled: false }, admin),
      ).rejects.toThrow(/another account already uses this email/);
      expect((await y.accounts.listAccounts({ page: 1, per_page: 10, search: 'ADA' })).data.map((r) => r.login)).toEqual(['ada']);
      expect((await y.accounts.listAccounts({ page: 1, per_page: 10, search: '100%' })).total).toBe(1);
      expect((await y.accounts.listAccounts({ page: 1, per_page: 10, search: '_' })).total).toBe(0);
      expect((await x.accounts.listAccounts({ page: 1, per_page: 1 })).total).toBe(2);

      const staff = await x.accounts.createGroup({ name: 'staff', description: 'Everyone' }, admin);
      const eng = await y.accounts.createGroup({ name: 'eng', description: '' }, admin);
      await x.accounts.addMember(staff.id, { group: eng.id }, admin);
      await y.accounts.addMember(eng.id, { account: ada.sub }, admin);
      await expect(x.accounts.addMember(eng.id, { group: staff.id }, admin)).rejects.toThrow(/cycle/);
      expect(await y.accounts.memberships(ada.sub)).toEqual([
        { id: eng.id, name: 'eng', direct: true },
        { id: staff.id, name: 'staff', direct: false },
      ]);
      expect((await x.accounts.getGroup(staff.id)).members.groups).toEqual([{ id: eng.id, name: 'eng' }]);
      expect((await y.accounts.listGroups({ page: 1, per_page: 10, search: 'EVERY' })).data.map((g) => g.name)).toEqual(['staff']);

      const binding = { appId: 'notes', resourceType: 'notebook', resourceId: 'n1' };
      const sa = await x.accounts.createServiceAccount({ ...binding, displayName: 'Notes n1' }, admin);
      expect((await y.accounts.findServiceAccount(binding))?.sub).toBe(sa.sub);
      expect((await y.accounts.getServiceAccount(sa.sub))?.appId).toBe('notes');
      expect((await y.accounts.listServiceAccounts({ page: 1, per_page: 10, search: 'NOTEB' })).total).toBe(1);

      await x.accounts.replaceAccountCategoryPolicy({ allowedCategories: ['login'] }, admin);
      expect(await y.accounts.readAccountCategoryPolicy()).toEqual({ policy: { allowedCategories: ['login'] }, valid: true });
      const bob = (await y.accounts.listAccounts({ page: 1, per_page: 10, search: 'bob' })).data[0]!;
      expect(await y.accounts.isAccountCategoryAllowed(bob)).toBe(false);
      expect(await y.accounts.isAccountCategoryAllowed(ada)).toBe(true);
      expect(
        await a.value(
          "SELECT count(*) FROM audit_log WHERE action IN ('account.create', 'group.create', 'group.member.add', 'service_account.create', 'account_policy.update')",
        ),
      ).toBe(8);
    });

    it('two replicas each removing one of the last two administrators at once leave one (every round)', async () => {
      const outcomes: string[] = [];
      for (let i = 0; i < 8; i++) {
        const [a, b] = await replicas(engine);
        const [x, y] = [servicesAt(a), servicesAt(b)];
        const one = await x.accounts.createAccount({ login: 'one', profile: 'user', admin: true, disabled: false }, admin);
        const two = await y.accounts.createAccount({ login: 'two', profile: 'user', admin: true, disabled: false }, admin);
        const results = await Promise.allSettled([
          x.accounts.updateAccount(one.sub, { admin: false }, admin),
          i % 2 ? y.accounts.updateAccount(two.sub, { disabled: true }, admin) : y.accounts.deleteAccount(two.sub, admin),
        ]);
        outcomes.push(
          results
            .map((r) => (r.status === 'fulfilled' ? 'ok' : /last administrator/.test(String(r.reason)) ? 'last_admin' : String(r.reason)))
            .sort()
            .join(','),
        );
        expect(await a.value('SELECT count(*) FROM identity_accounts WHERE admin = 1 AND disabled = 0')).toBe(1);
      }
      expect(outcomes).toEqual(Array(8).fill('last_admin,ok'));
    });

    it('Linux identities: replicas assigning at once never hand out one number twice', async () => {
      const [a, b] = await replicas(engine);
      const [x, y] = [servicesAt(a), servicesAt(b)];
      await x.linux.replaceConfig({ enabled: true, rangeStart: 5000, rangeEnd: 5999, homeTemplate: '/home/{username}', loginShell: '/bin/bash' }, true, admin);
      expect((await y.linux.readConfig()).config.enabled).toBe(true);
      // Accounts created at both replicas at once get identities (the hook), each with its own number.
      const made = await Promise.all(
        Array.from({ length: 10 }, (_, i) => [x, y][i % 2]!.accounts.createAccount({ login: `u${i}`, profile: 'user', admin: false, disabled: false }, admin)),
      );
      const uids = await a.all<{ uid: number }>('SELECT uid FROM linux_identities ORDER BY uid');
      expect(uids.map((r) => r.uid)).toEqual(Array.from({ length: 10 }, (_, i) => 5000 + i));
      const group = await x.accounts.createGroup({ name: 'devs', description: '' }, admin);
      const posix = await Promise.all([x.linux.makePosix(group.id, admin), y.linux.makePosix(group.id, admin)]);
      expect(posix.map((p) => p.gid)).toEqual([5010, 5010]);
      expect(posix.filter((p) => p.created)).toHaveLength(1);
      await expect(y.accounts.createGroup({ name: 'u3', description: '' }, admin)).rejects.toThrow(/private Linux group/);
      const u0 = await y.linux.get(made[0]!.sub);
      const uid0 = await b.value<number>('SELECT uid FROM linux_identities WHERE sub = ?', [made[0]!.sub]);
      expect(u0).toMatchObject({ login: 'u0', identity: { uid: uid0, gid: uid0, homeDirectory: '/home/u0' }, conflicts: [] });
      expect(await x.linux.update(made[0]!.sub, { homeDirectory: '/srv/u0', loginShell: '/bin/sh' }, admin)).toMatchObject({
        identity: { homeDirectory: '/srv/u0' },
      });
      expect((await y.linux.preview({ search: 'U1' })).accounts.map((r) => r.login)).toEqual(['u1']);
      expect((await y.linux.listPosixGroups()).data).toEqual([{ id: group.id, name: 'devs', gid: 5010 }]);
    });
  });
}
