/**
 * The mail domain's stores on both engines of the core store (issue 18): the same key operations on SQLite (a
 * platform.db in a temporary folder) and on a private PostgreSQL cluster (test/helpers/postgres.ts). The mail
 * migrations apply on PostgreSQL (recorded under the same ids); a message is enqueued, claimed once by two concurrent
 * claimers (on PostgreSQL two Store instances, i.e. two replicas; on SQLite one process's two lanes over its one
 * connection), and settled through the settled-status topic (on PostgreSQL the trigger's notification reaches the
 * other replica); the bulk slot gate hands out one slot per pacing interval however many replicas ask at once;
 * every other statement of the stores answers alike on both engines; and two mail services (replicas) on one core
 * store deliver Core mail and a paced bulk batch to a real SMTP peer, each message once.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import { createTokenService } from '../../../server/core/auth/tokens.service.ts';
import { createTokenStore } from '../../../server/core/auth/tokens.store.ts';
import { createLogger } from '../../../server/core/logging/logger.ts';
import { coreMigrations, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { type Store, sqliteStore } from '../../../server/core/storage/store.ts';
import { createAppStore } from '../../../server/mail/apps/apps.store.ts';
import { createBounceStore } from '../../../server/mail/bounces/bounces.store.ts';
import type { MailClock } from '../../../server/mail/clock.ts';
import { createAttachmentStore } from '../../../server/mail/delivery/attachments.ts';
import { createMailService, type MailService } from '../../../server/mail/index.ts';
import { createLogStore, type LogStore } from '../../../server/mail/log/log.store.ts';
import { mailMigrations } from '../../../server/mail/mail.migrations.ts';
import { createProfileStore, type ProfileValues } from '../../../server/mail/profiles/profiles.store.ts';
import { createSettingsStore } from '../../../server/mail/retention/retention.store.ts';
import { createSettledStore } from '../../../server/mail/settled/settled.store.ts';
import { type Postgres, startPostgres } from '../../helpers/postgres.ts';
import { tempDir } from '../../helpers/temp.ts';
import { until } from '../../helpers/wait.ts';
import { startPeer } from './peer.ts';

const T0 = 1_780_000_000_000; // epoch ms beyond 2^31: BIGINT columns on PostgreSQL
const clock: MailClock = { now: () => T0, setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout) };

let pgCluster: Postgres;
const dirs: string[] = [];
const stores: Store[] = [];
const services: MailService[] = [];

/** The core store's migrations this file needs: the audit log's (core-001) and outgoing mail's. */
const MIGRATIONS = [...coreMigrations, ...mailMigrations];

/** A mail service (one replica's outgoing mail) over `store` (its audit log too); API tokens on a platform.db of their own. */
function mailService(store: Store, dir: string, onAttempt: (id: string, worker: string) => void) {
  const coreDir = tempDir('hearth-mail-core-');
  dirs.push(coreDir);
  const db = openPlatformDb(coreDir, coreMigrations);
  stores.push(sqliteStore(db)); // closed with the others (its connection lives as long as the test file)
  const m = createMailService({
    store,
    dataDir: dir,
    appSecret: 'a'.repeat(64),
    audit: createAuditLog(store),
    tokens: createTokenService(createTokenStore(store), {}),
    logger: createLogger({ level: 'silent' }),
    options: { onAttempt },
  });
  services.push(m);
  return m;
}

beforeAll(async () => {
  pgCluster = await startPostgres();
});
afterAll(async () => {
  for (const m of services.splice(0)) await m.close();
  for (const s of stores.splice(0)) await s.close();
  await pgCluster?.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The engine under test: `open()` answers the stores of two replicas of one core store (on SQLite the same one). */
interface Engine {
  open(): Promise<{ a: Store; b: Store; dir: string }>;
}
const engines: Array<[string, Engine]> = [
  [
    'sqlite',
    {
      async open() {
        const dir = tempDir('hearth-mail-store-');
        dirs.push(dir);
        const a = sqliteStore(openPlatformDb(dir, MIGRATIONS));
        stores.push(a);
        return { a, b: a, dir };
      },
    },
  ],
  [
    'postgres',
    {
      async open() {
        const dir = tempDir('hearth-mail-store-');
        dirs.push(dir);
        const url = await pgCluster.createDatabase();
        const a = postgresStore({ url });
        const b = postgresStore({ url });
        stores.push(a, b);
        const ran = await Promise.all([migratePostgres(a, MIGRATIONS), migratePostgres(b, MIGRATIONS)]);
        expect(ran.flat()).toEqual(MIGRATIONS.map((m) => m.id)); // one replica applied them, the other found them done
        return { a, b, dir };
      },
    },
  ],
];

function profile(key: string, extra: Partial<ProfileValues> = {}): ProfileValues {
  return {
    key,
    name: key,
    from_address: `noreply@${key}.test`,
    from_name: null,
    smtp_host: '127.0.0.1',
    smtp_port: 25,
    smtp_secure: 0,
    smtp_user: null,
    smtp_password: null,
    pace_per_minute: 60,
    daily_recipient_limit: null,
    max_attachment_bytes: 1024,
    imap_host: null,
    imap_port: null,
    imap_secure: null,
    imap_user: null,
    imap_password: null,
    imap_folder: null,
    imap_uidvalidity: null,
    imap_cursor: null,
    bounces_checked_at: null,
    bounces_error: null,
    tls_ca: null,
    ...extra,
  };
}

/** Inserts one queued message (committed) and answers its id. */
async function enqueue(log: LogStore, o: { lane: 'immediate' | 'bulk'; profile: string; at?: number; to?: string; ref?: string; app?: string }) {
  const id = crypto.randomUUID();
  const at = o.at ?? T0;
  await log.transaction(() =>
    log.insert(
      {
        id,
        lane: o.lane,
        app_id: o.app ?? 'crm',
        actor: '{"actor":"app:crm"}',
        profile_key: o.profile,
        from_address: 'noreply@example.test',
        from_name: 'CRM',
        recipients: JSON.stringify({ to: [o.to ?? 'someone@example.test'], cc: [], bcc: [] }),
        recipient_count: 1,
        subject: 'Hello',
        attachments: '[]',
        attachments_released: 1,
        batch_id: o.lane === 'bulk' ? 'batch-1' : null,
        ref: o.ref ?? null,
        idempotency_key: null,
        message_id: `<${id}@Example.TEST>`,
        deadline_at: at + 24 * 3600_000,
        created_at: at,
        kind: 'message',
        window_at: at,
      },
      { text: 'Hello', html: null, headers: '{}' },
    ),
  );
  return id;
}

const sent = (id: string, worker: string) => ({
  id,
  worker,
  now: T0 + 5,
  status: 'sent' as const,
  attempted: 1 as const,
  last_error: null,
  smtp_response: '250 ok',
  failures: '[]',
  sent_at: T0 + 5,
  due_at: T0,
  cancel_reason: null,
});

for (const [engine, e] of engines) {
  describe(`the mail stores on ${engine}`, () => {
    it('claim each queued message once between two concurrent claimers, and settle it through the settled-status topic', async () => {
      const { a, b } = await e.open();
      const [logA, logB] = [createLogStore(a), createLogStore(b)];
      await createProfileStore(a).insert(profile('main'), true, T0);
      const ids = new Set<string>();
      for (let i = 0; i < 24; i++) ids.add(await enqueue(logA, { lane: 'immediate', profile: 'main', at: T0 - 1000 + i }));

      // Two claimers take rows at once, three at a time, until none is left: every row once, none twice.
      const claimed: Array<[string, string]> = [];
      const claimer = async (log: LogStore, worker: string) => {
        for (;;) {
          const rows = await log.claimImmediate(worker, T0, 3);
          if (rows.length === 0 && (await log.nextImmediateDue()) === null) return;
          for (const r of rows) {
            expect(r).toMatchObject({ status: 'sending', claimed_by: worker });
            claimed.push([r.id, worker]);
          }
        }
      };
      await Promise.all([claimer(logA, 'replica-a'), claimer(logB, 'replica-b')]);
      expect(claimed.map(([id]) => id).sort()).toEqual([...ids].sort());

      // Settling: the guarded finish takes only the claimer's own row; the trigger publishes the move (and on
      // PostgreSQL notifies every replica at commit).
      const settledA = createSettledStore(a);
      const woken: string[] = [];
      const stop = await createSettledStore(b).listen((id) => woken.push(id));
      const before = await settledA.maxSeq();
      const [id, worker] = claimed[0]!;
      expect(await logB.finish(sent(id, worker === 'replica-a' ? 'replica-b' : 'replica-a'))).toBe(false);
      expect(await logA.finish(sent(id, worker))).toBe(true);
      expect(await logA.get(id)).toMatchObject({ status: 'sent', attempts: 1, claimed_by: null, sent_at: T0 + 5 });
      const entries = await settledA.after(before, 10);
      expect(entries).toEqual([{ seq: expect.any(Number), message_id: id, status: 'sent' }]);
      expect(entries[0]!.seq).toBeGreaterThan(before);
      if (engine === 'postgres') await until(() => woken.includes(id), 'the settled notification at the other replica');
      else expect(woken).toEqual([]); // SQLite: processes share the topic's table; the tail wakes them
      stop();
    });

    it('hand out one bulk slot per pacing interval however many replicas ask at once', async () => {
      const { a, b } = await e.open();
      const [pa, pb] = [createProfileStore(a), createProfileStore(b)];
      await pa.insert(profile('news', { pace_per_minute: 600 }), true, T0);
      const interval = Math.ceil(60_000 / 600);
      const granted: number[] = [];
      for (let k = 0; k < 10; k++) {
        // Four callers per replica at each moment, half an interval apart: only the moment a slot opens grants one.
        for (const now of [T0 + k * interval, T0 + k * interval + interval / 2]) {
          const asks = [pa, pa, pa, pa, pb, pb, pb, pb].map((p) => p.transaction(() => p.reserveSlot('news', now, interval)));
          const answers = await Promise.all(asks);
          expect(answers.filter(Boolean).length, `slots granted at ${now - T0}`).toBe(now === T0 + k * interval ? 1 : 0);
          if (answers.some(Boolean)) granted.push(now);
        }
      }
      expect(granted.map((t, i) => (i === 0 ? interval : t - granted[i - 1]!))).toEqual(Array(10).fill(interval));
      expect(await pb.nextSlotAt('news')).toBe(T0 + 10 * interval);
    });

    it('answer every other statement of the stores alike', async () => {
      const { a, dir } = await e.open();
      const profiles = createProfileStore(a);
      const apps = createAppStore(a);
      const log = createLogStore(a);
      const bounces = createBounceStore(a);
      const settings = createSettingsStore(a);
      const attachments = createAttachmentStore({ store: a, dataDir: dir, clock });

      // Profiles: one default, moved atomically; the test record.
      await profiles.insert(profile('main'), true, T0);
      await profiles.insert(profile('other', { imap_host: 'imap.test', imap_port: 993, imap_user: 'u', imap_folder: 'INBOX' }), false, T0);
      expect(await profiles.count()).toBe(2);
      expect(await profiles.makeDefault('other', T0 + 1)).toBe(true);
      expect((await profiles.getDefault())?.key).toBe('other');
      expect((await profiles.list()).map((p) => [p.key, p.is_default, p.revision])).toEqual([
        ['main', 0, 2],
        ['other', 1, 2],
      ]);
      await profiles.recordTest('main', { at: T0, ok: false, code: 'auth_failed', summary: 'no', detail: '535' });
      expect(await profiles.get('main')).toMatchObject({ last_test_ok: 0, last_test_code: 'auth_failed', revision: 2 });

      // Applications and grants: null (follow the default), a set, the probe.
      await apps.insert({ app_id: 'crm', name: 'CRM', platform_permissions: '["mail:send"]', token_id: 't1' }, T0);
      expect((await apps.byToken('t1'))?.app_id).toBe('crm');
      expect(await apps.grants('crm')).toBeNull();
      expect(await apps.granted('crm', 'main')).toBeNull();
      await apps.setGrants('crm', ['main'], T0);
      expect(await apps.grants('crm')).toEqual(['main']);
      expect([await apps.granted('crm', 'main'), await apps.granted('crm', 'other')]).toEqual([true, false]);
      expect(await apps.appsGrantedProfile('main')).toEqual(['crm']);
      expect(await apps.policyAppIds()).toEqual(['crm']);

      // The send log: list filters (recipient and ref case-insensitive as SQLite's LIKE), window, cancel, recovery.
      const m1 = await enqueue(log, { lane: 'bulk', profile: 'main', to: 'Ann@Example.test', ref: 'Invoice:7' });
      const m2 = await enqueue(log, { lane: 'bulk', profile: 'main', at: T0 + 1, to: 'bob@example.test' });
      expect((await log.list({ recipient: 'ann@example', limit: 10 })).map((r) => r.id)).toEqual([m1]);
      expect((await log.list({ refScope: 'invoice', limit: 10 })).map((r) => r.id)).toEqual([m1]);
      expect((await log.list({ status: ['queued'], before: { createdAt: T0 + 1, id: m2 }, limit: 10 })).map((r) => r.id)).toEqual([m1]);
      expect(await log.windowRecipients('main', T0 - 1)).toBe(2);
      expect(await log.windowOldest('main', T0 - 1)).toBe(T0);
      expect(await log.queuedBulk('main')).toBe(2);
      expect(await log.dueBulkProfiles(T0 + 10)).toEqual([{ profile_key: 'main', due: T0 }]);
      expect(await log.peekBulk('main', T0 + 10)).toBe(m1);
      expect(await log.claimOne(m1, 'w', T0 + 10)).toMatchObject({ id: m1, status: 'sending' });
      expect(await log.claimOne(m1, 'w2', T0 + 10)).toBeUndefined();
      expect(await log.resubmitStuck(T0 + 20, T0 + 11)).toEqual([m1]);
      expect(await log.cancel(m2, 'cancelled_by_admin', T0 + 20)).toBe(true);
      expect(await log.queuedApps()).toEqual(['crm']);
      expect(await log.queuedProfilesOfApp('crm')).toEqual(['main']);
      expect(await log.cancelAppProfile('crm', 'main', T0 + 30)).toEqual([m1]);
      expect(await log.unreleased(10)).toEqual([]);
      expect(await log.expire(T0 + 48 * 3600_000)).toEqual([]);
      expect(await log.cancelOrphans(T0)).toEqual([]);
      expect(await log.pendingAttachmentIds()).toEqual([]);

      // Bounces: Message-IDs compare without ASCII case.
      await a.run("UPDATE mail_messages SET status = 'sent' WHERE id = ?", [m1]);
      const found = await bounces.findMessage(`<${m1}@example.test>`);
      expect(found).toMatchObject({ id: m1, status: 'sent' });
      expect(await bounces.applyBounce(m1, '[{"recipient":"ann@example.test","reason":"550","kind":"bounced"}]', T0 + 40)).toBe(true);
      const mailbox = { key: 'other', imap_host: 'imap.test', imap_port: 993, imap_user: 'u', imap_folder: 'INBOX' };
      expect(await bounces.saveProgress(mailbox, '17', 4_000_000_000)).toBe(true);
      expect(await bounces.saveStatus({ ...mailbox, imap_folder: 'Elsewhere' }, T0, null)).toBe(false);
      expect((await bounces.enabled()).map((p) => [p.key, p.imap_cursor])).toEqual([['other', 4_000_000_000]]);

      // Retention: content purged, records deleted; settings upserted.
      await settings.put('outgoing_mail.content_retention_days', '30', T0);
      await settings.put('outgoing_mail.content_retention_days', '31', T0 + 1);
      expect(await settings.get('outgoing_mail.content_retention_days')).toBe('31');
      expect((await log.purgeCandidates(T0 + 100, 10)).sort()).toEqual([m1, m2].sort());
      await log.purgeContent(m2, T0 + 100);
      expect(await log.content(m2)).toBeUndefined();
      expect((await log.expiredRecords(T0 + 100, 10)).map((r) => r.id).sort()).toEqual([m1, m2].sort());
      await log.deleteRow(m1);
      expect(await log.get(m1)).toBeUndefined();

      // The settled topic keeps its newest entry when trimming.
      const settled = createSettledStore(a);
      const newest = await settled.maxSeq();
      expect(newest).toBeGreaterThan(0);
      expect(await settled.trim(T0 + 3600_000, 100)).toBeGreaterThan(0);
      expect(await settled.maxSeq()).toBe(newest);

      // Attachment accounting: the sum is a number on both engines; expiry releases.
      const put = await attachments.put([Buffer.from('abc'), Buffer.from('defg')]);
      expect(await attachments.usedBytes()).toBe(7);
      expect(await attachments.expire()).toBe(0);
      expect(await attachments.release(put.ids)).toBe(true);
      expect(await attachments.usedBytes()).toBe(0);
    });

    it("deliver through two replicas: Core mail once, and a bulk batch once per message at the profile's pace", async () => {
      const { a, b, dir } = await e.open();
      const peer = await startPeer();
      let replicas: MailService[] = [];
      try {
        await createProfileStore(a).insert(profile('main', { smtp_port: peer.port, pace_per_minute: 600 }), true, T0);
        const attempts: Array<[string, string]> = [];
        replicas = [mailService(a, dir, (id, w) => attempts.push([id, w])), mailService(b, dir, (id, w) => attempts.push([id, w]))];
        await Promise.all(replicas.map((m) => m.start()));

        const core = (await replicas[1]!.sendAsCore({ to: ['ann@example.test'], subject: 'Reset', text: 'link' })) as { id: string };
        const batch = await replicas[0]!.notifyBatch({
          messages: ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => ({ to: [`${x}@example.test`], subject: `News ${x}`, text: 'Hello' })),
        });
        const ids = [core.id, ...batch.messages.map((m) => m.id)];
        const log = createLogStore(a);
        let rows: Array<Awaited<ReturnType<LogStore['get']>>> = [];
        await until(
          async () => (rows = await Promise.all(ids.map((id) => log.get(id)))).every((r) => r?.status === 'sent'),
          () => `every message sent (${rows.map((r) => `${r?.status} ${r?.last_error ?? ''}`).join(', ')})`,
        );
        await Promise.all(replicas.map((m) => m.idle()));

        // Each message went out once (one attempt, one arrival), whichever replica took it.
        expect(attempts.map(([id]) => id).sort()).toEqual([...ids].sort());
        const arrived = (await peer.waitFor(ids.length)).map((r) => r.parsed.messageId);
        expect(arrived).toHaveLength(ids.length);
        expect(new Set(arrived).size).toBe(ids.length);
        // The bulk claims took one slot each: their claim times are a full interval (100 ms at 600 a minute) apart or more.
        const claims = (await Promise.all(batch.messages.map((m) => log.get(m.id)))).map((r) => r!.claimed_at!).sort((x, y) => x - y);
        for (let i = 1; i < claims.length; i++) expect(claims[i]! - claims[i - 1]!).toBeGreaterThanOrEqual(100);
      } finally {
        for (const m of replicas) await m.close(); // their SMTP connections first: the peer waits for open sessions
        await peer.close();
      }
    });
  });
}
