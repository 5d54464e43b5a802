/**
 * Claim time of the bulk lane with a large queue, measured in this process against a temporary platform.db with every
 * migration applied (server/core/storage/platform-db.ts `openPlatformDb`, the pragmas Hearth uses), through the mail
 * domain's own stores (server/mail/log/log.store.ts, server/mail/profiles/profiles.store.ts) over the core store
 * (server/core/storage/store.ts `sqliteStore`, as Hearth runs them).
 *
 * No delivery engine runs: the profile's SMTP is never contacted (as if unreachable or paused), so the queue stays as
 * filled. The timed claim is the drain step of server/mail/delivery/lanes.ts `drain()` — `profileStore.get(key)`,
 * then in one IMMEDIATE transaction `peekBulk`, `get`, `reserveSlot` (the pacing gate) and the guarded `claimOne` —
 * reproduced here statement for statement because the lane does not export it. The clock passed to it advances by
 * the pacing interval per claim, so every claim finds its slot free and takes a row (the queue shrinks by one).
 *
 * Also timed, with the same queue: the statements every acceptance runs when it wakes the lanes (`kick`: the
 * immediate claim, `nextImmediateDue`, `dueBulkProfiles`), the enqueue backlog count (`queuedBulk`), and one recovery
 * pass (the 30-second scan, an IMMEDIATE transaction that holds the write lock while it runs).
 */
import crypto from 'node:crypto';
import { allMigrations } from '../server/boot.ts';
import { openPlatformDb } from '../server/core/storage/platform-db.ts';
import { type Store, sqliteStore } from '../server/core/storage/store.ts';
import { createLogStore, type LogStore } from '../server/mail/log/log.store.ts';
import { createProfileStore, type ProfileStore } from '../server/mail/profiles/profiles.store.ts';
import { now, type Stats, summarize } from './lib.ts';

const KEY = 'paused';
const PACE = 600;
const INTERVAL = Math.ceil(60_000 / PACE);
const DAY = 24 * 3600_000;

export interface ClaimResult {
  queued: number;
  fillMs: number;
  /** Timed drain steps (ms). */
  claim: Stats;
  statements: Array<{ label: string; stats: Stats; plan: string }>;
  /** The whole recovery transaction (ms). */
  recovery: Stats;
  recoveryStatements: Array<{ label: string; stats: Stats; plan: string }>;
  dbBytes: number;
}

async function fill(store: Store, log: LogStore, profiles: ProfileStore, queued: number, base: number): Promise<void> {
  await profiles.insert(
    {
      key: KEY,
      name: 'Paused',
      from_address: 'noreply@example.test',
      from_name: 'Bench',
      smtp_host: '127.0.0.1',
      smtp_port: 9,
      smtp_secure: 0,
      smtp_user: null,
      smtp_password: null,
      pace_per_minute: PACE,
      daily_recipient_limit: null,
      max_attachment_bytes: 15 * 1024 * 1024,
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
    },
    true,
    base,
  );
  const actor = JSON.stringify({ actor: 'token:bench', kind: 'app', appId: 'bench', tokenId: 'x', tokenName: 'bench' });
  const text = 'Hello,\n\nthis is a benchmark message of the bulk lane.\n'.repeat(8);
  // Enqueued over the last hour in batches of 1000 (the API's largest batch), so every row is due now.
  const step = 3600_000 / queued;
  const insertBatch = (from: number, to: number) =>
    store.tx(async () => {
      const batch = crypto.randomUUID();
      for (let i = from; i < to; i++) {
        const id = crypto.randomUUID();
        const at = Math.floor(base - 3600_000 + i * step);
        await log.insert(
          {
            id,
            lane: 'bulk',
            app_id: 'bench',
            actor,
            profile_key: KEY,
            from_address: 'noreply@example.test',
            from_name: 'Bench',
            recipients: JSON.stringify({ to: [`user${i}@example.test`], cc: [], bcc: [] }),
            recipient_count: 1,
            subject: `Newsletter ${i}`,
            attachments: '[]',
            attachments_released: 1,
            batch_id: batch,
            ref: 'newsletter:bench',
            idempotency_key: null,
            message_id: `<${id}@example.test>`,
            deadline_at: at + DAY,
            created_at: at,
            kind: 'message',
            window_at: at,
          },
          { text, html: null, headers: '{}' },
        );
      }
    });
  for (let from = 0; from < queued; from += 1000) await insertBatch(from, Math.min(queued, from + 1000));
}

/** SQLite's plan for a statement, one line (e.g. `SEARCH m USING INDEX mail_messages_bulk_due (profile_key=? AND due_at<?)`). */
function plan(db: ReturnType<typeof openPlatformDb>, sql: string, params: Record<string, unknown>): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join('; ');
}

export async function measureClaims(dir: string, opts: { queued: number; claims: number; warmup: number; recoveries: number }): Promise<ClaimResult> {
  const db = openPlatformDb(dir, allMigrations);
  const store = sqliteStore(db);
  try {
    const log = createLogStore(store);
    const profiles = createProfileStore(store);
    const base = Date.now();
    let t = now();
    await fill(store, log, profiles, opts.queued, base);
    const fillMs = now() - t;
    db.pragma('wal_checkpoint(TRUNCATE)');
    const worker = `bench-${crypto.randomBytes(4).toString('hex')}`;
    let clock = base; // advances one pacing interval per claim: every slot is free when asked

    // The drain step of lanes.ts, statement for statement.
    const claimOnce = async (): Promise<boolean> => {
      const profile = await profiles.get(KEY);
      if (!profile) return false;
      const interval = Math.ceil(60_000 / profile.pace_per_minute);
      const step = await log.transaction(async () => {
        const at = clock;
        const id = await log.peekBulk(KEY, at);
        if (!id) return { kind: 'empty' as const };
        const peeked = (await log.get(id))!;
        if (peeked.window_at === null && profile.daily_recipient_limit !== null) throw new Error('not reached: rows are ordinary messages');
        if (!(await profiles.reserveSlot(KEY, at, interval))) return { kind: 'wait' as const };
        const row = await log.claimOne(id, worker, at);
        if (row && row.window_at === null) await log.openWindow(id, at);
        return row ? { kind: 'claimed' as const, row } : { kind: 'empty' as const };
      });
      if (step.kind !== 'claimed') throw new Error(`claim ${step.kind} with ${opts.queued} rows queued`);
      return true;
    };

    for (let i = 0; i < opts.warmup; i++) {
      await claimOnce();
      clock += INTERVAL;
    }
    const samples: number[] = [];
    for (let i = 0; i < opts.claims; i++) {
      t = now();
      await claimOnce();
      samples.push(now() - t);
      clock += INTERVAL;
    }

    // Statements run on every acceptance (kick) and per enqueue, with the same queue.
    const stmts: Array<{ label: string; run: () => unknown; sql: string; params: Record<string, unknown> }> = [
      {
        label: 'immediate claim (claimImmediate, no immediate row queued)',
        run: () => log.claimImmediate(worker, clock),
        sql: "SELECT id FROM mail_messages WHERE status = 'queued' AND lane = 'immediate' AND due_at <= @now ORDER BY due_at, created_at LIMIT 1",
        params: { now: clock },
      },
      {
        label: 'nextImmediateDue',
        run: () => log.nextImmediateDue(),
        sql: "SELECT min(due_at) FROM mail_messages WHERE status = 'queued' AND lane = 'immediate'",
        params: {},
      },
      {
        label: 'dueBulkProfiles (pumpBulk)',
        run: () => log.dueBulkProfiles(clock),
        sql: `SELECT * FROM (SELECT key AS profile_key, (SELECT due_at FROM mail_messages m WHERE m.profile_key = p.key
          AND m.status = 'queued' AND m.lane = 'bulk' AND m.deadline_at > @now ORDER BY m.due_at LIMIT 1) AS due FROM mail_profiles p)
          WHERE due IS NOT NULL ORDER BY due`,
        params: { now: clock },
      },
      {
        label: 'queuedBulk (backlog check of every enqueue)',
        run: () => log.queuedBulk(KEY),
        sql: "SELECT count(*) FROM mail_messages WHERE profile_key = @key AND status = 'queued' AND lane = 'bulk'",
        params: { key: KEY },
      },
    ];
    const statements = [];
    for (const s of stmts) {
      for (let i = 0; i < 20; i++) await s.run();
      const xs: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t0 = now();
        await s.run();
        xs.push(now() - t0);
      }
      statements.push({ label: s.label, stats: summarize(xs), plan: plan(db, s.sql, s.params) });
    }

    // One recovery pass (lanes.ts recover(): its transaction), with nothing to resubmit, cancel or expire; and each
    // of its statements on its own, with SQLite's plan.
    const recoverTx = () =>
      log.transaction(async () => {
        const at = clock;
        await log.resubmitStuck(at, at - 5 * 60_000);
        await log.cancelOrphans(at);
        for (const app of await log.queuedApps()) for (const _key of await log.queuedProfilesOfApp(app)) void _key;
        await log.expire(at);
      });
    await recoverTx();
    const rec: number[] = [];
    for (let i = 0; i < opts.recoveries; i++) {
      const t0 = now();
      await recoverTx();
      rec.push(now() - t0);
    }
    const recStmts: Array<{ label: string; run: () => unknown; sql: string; params: Record<string, unknown> }> = [
      {
        label: 'recovery: resubmitStuck',
        run: () => log.resubmitStuck(clock, clock - 5 * 60_000),
        sql: "UPDATE mail_messages SET status = 'queued', claimed_by = NULL, due_at = @now, updated_at = @now WHERE status = 'sending' AND claimed_at < @before RETURNING id",
        params: { now: clock, before: clock - 5 * 60_000 },
      },
      {
        label: 'recovery: cancelOrphans',
        run: () => log.cancelOrphans(clock),
        sql: "UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'profile_removed', updated_at = @now WHERE status = 'queued' AND profile_key NOT IN (SELECT key FROM mail_profiles) RETURNING id",
        params: { now: clock },
      },
      {
        label: 'recovery: queuedApps',
        run: () => log.queuedApps(),
        sql: "SELECT DISTINCT app_id FROM mail_messages WHERE status = 'queued'",
        params: {},
      },
      {
        label: 'recovery: queuedProfilesOfApp',
        run: () => log.queuedProfilesOfApp('bench'),
        sql: "SELECT DISTINCT profile_key FROM mail_messages WHERE status = 'queued' AND app_id = @app",
        params: { app: 'bench' },
      },
      {
        label: 'recovery: expire',
        run: () => log.expire(clock),
        sql: "UPDATE mail_messages SET status = 'failed', updated_at = @now WHERE status = 'queued' AND deadline_at <= @now RETURNING id",
        params: { now: clock },
      },
    ];
    const recovery = [];
    for (const s of recStmts) {
      const xs: number[] = [];
      for (let i = 0; i < opts.recoveries; i++) {
        const t0 = now();
        await s.run();
        xs.push(now() - t0);
      }
      recovery.push({ label: s.label, stats: summarize(xs), plan: plan(db, s.sql, s.params) });
    }
    const left = await log.queuedBulk(KEY);
    if (left !== opts.queued - opts.warmup - opts.claims)
      throw new Error(`expected ${opts.queued - opts.warmup - opts.claims} rows left queued, found ${left}`);
    const dbBytes = (db.prepare('SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()').pluck().get() as number) ?? NaN;
    return { queued: opts.queued, fillMs, claim: summarize(samples), statements, recovery: summarize(rec), recoveryStatements: recovery, dbBytes };
  } finally {
    await store.close();
    db.close();
  }
}
