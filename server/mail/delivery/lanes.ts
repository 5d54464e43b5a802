/**
 * Delivery: the immediate lane (up to eight concurrent attempts per worker), the bulk lane (four drainers per worker,
 * each profile's attempts spaced by `pacePerMinute` through the atomic slot gate in `mail_profiles.next_slot_at`),
 * retries, and recovery every 30 seconds. Every state change is a guarded UPDATE on the durable row, so several
 * workers (processes on one data folder, or replicas on one PostgreSQL core store) never take the same row, and a
 * crash at worst repeats a delivery with the same Message-ID (at least once). The stores are async (the core store
 * may be PostgreSQL); transactions hold only statements, never an SMTP attempt.
 *
 * `createDelivery` is one state machine (claim → attempt → settle, per lane) whose steps share its closure (the
 * in-flight set, the drainers, the timers, the SMTP thread); the pieces that stand alone are apart (the SMTP attempt,
 * pool and thread, attachments, the log store, access checks and the recovery pass in recovery.ts).
 */
import crypto from 'node:crypto';
import type { Logger } from '../../core/logging/logger.ts';
import type { MailAppDirectory } from '../apps/apps.service.ts';
import type { AppStore } from '../apps/apps.store.ts';
import type { MailClock } from '../clock.ts';
import { coalesce } from '../coalesce.ts';
import { MAX_FAILURES } from '../log/log.service.ts';
import type { LogStore, MessageRow, StoredAttachment } from '../log/log.store.ts';
import type { ProfilesService } from '../profiles/profiles.service.ts';
import type { ProfileStore } from '../profiles/profiles.store.ts';
import type { SettledTopic } from '../settled/settled.service.ts';
import type { AttachmentStore } from './attachments.ts';
import { createRecovery } from './recovery.ts';
import type { SmtpOptions, SmtpOutcome } from './smtp-attempt.ts';
import { createSmtpThread, type NotStarted } from './smtp-thread.ts';

export interface DeliveryOptions {
  immediateConcurrency: number;
  drainers: number;
  /** A drain run stops claiming after this long (ms). */
  runCapMs: number;
  /** SMTP attempt timeout (ms). */
  attemptTimeoutMs: number;
  recoveryIntervalMs: number;
  /** `sending` rows older than this are resubmitted by recovery (ms). */
  stuckAfterMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  /** How long `close()` lets attempts in progress finish (ms). */
  closeGraceMs: number;
}

/** SMTP attempts of one profile's bulk lane in flight at once in one worker. */
const BULK_SENDS_PER_PROFILE = 4;
/** The rolling window of the daily recipient limit. */
const WINDOW_MS = 24 * 3600_000;

export const DEFAULT_DELIVERY: DeliveryOptions = {
  immediateConcurrency: 8,
  drainers: 4,
  runCapMs: 60_000,
  attemptTimeoutMs: 60_000,
  recoveryIntervalMs: 30_000,
  stuckAfterMs: 5 * 60_000,
  retryBaseMs: 60_000,
  retryMaxMs: 3600_000,
  closeGraceMs: 10_000,
};

export interface DeliveryDeps {
  log: LogStore;
  profileStore: ProfileStore;
  profiles: ProfilesService;
  appStore: AppStore;
  directory: MailAppDirectory;
  attachments: AttachmentStore;
  clock: MailClock;
  logger: Logger;
  smtp?: SmtpOptions;
  options?: Partial<DeliveryOptions>;
  /** Observer of every attempt start (tests: which worker sent what, when); on the immediate lane, its hand-off to the SMTP thread. */
  onAttempt?: (recordId: string, worker: string) => void;
  /**
   * The settled-status topic: poked after commits that may have settled rows (its waiters wake at once; a no-op while
   * nobody waits), and trimmed to its five-minute retention by recovery.
   */
  settled?: Pick<SettledTopic, 'poke' | 'expire'>;
}

/** What an attempt records on its row. */
type Outcome = Omit<Parameters<LogStore['finish']>[0], 'id' | 'worker' | 'now'>;
type Settle = (row: MessageRow, v: Outcome) => Promise<void>;

export function createDelivery(deps: DeliveryDeps) {
  const { log, profileStore, profiles, attachments, clock, logger } = deps;
  const o: DeliveryOptions = { ...DEFAULT_DELIVERY, ...deps.options };
  const worker = `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  // Connections are reused across messages (one pool per profile's settings; a settings change gets a new pool), in
  // the SMTP thread (smtp.worker.ts): composing and the SMTP dialogue run beside this event loop.
  const pool = createSmtpThread({ maxConnections: o.immediateConcurrency, immediateSlots: o.immediateConcurrency });
  /**
   * Immediate rows the lane may hold beyond its attempts in progress: handed to the SMTP thread ahead, each starts the
   * moment an attempt slot frees there (no round trip through this event loop between two attempts). They are
   * `sending` (claimed) meanwhile; the SMTP thread still runs at most `immediateConcurrency` attempts at once.
   */
  const handOff = o.immediateConcurrency;
  let started = false;
  let closed = false;
  let immediateActive = 0;
  const drainingProfiles = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  /** SMTP attempts in progress (a subset of the work in `inFlight`, which also holds sleeping drainers). */
  const attempts = new Set<Promise<void>>();
  let immediateTimer: unknown = null;
  /** Outcomes of immediate attempts waiting for the next pump (see `finishLater`). */
  const finishes: Array<{ row: MessageRow; v: Outcome; now: number }> = [];
  let bulkTimer: unknown = null;
  let recoveryTimer: unknown = null;

  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const sleepers = new Map<unknown, () => void>();
  /** A sleep that `close()` cuts short. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const h: unknown = clock.setTimeout(
        () => {
          sleepers.delete(h);
          resolve();
        },
        Math.max(0, ms),
      );
      sleepers.set(h, resolve);
    });

  const { appAccess, release, recover } = createRecovery({ ...deps, stuckAfterMs: o.stuckAfterMs });

  const backoff = (attempts: number) => Math.min(o.retryBaseMs * 2 ** Math.max(0, attempts - 1), o.retryMaxMs);

  /** Whether a finished row may hold attachment objects to release (the flag only ever goes from 0 to 1). */
  const releasable = (row: MessageRow, v: Outcome) => v.status !== 'queued' && v.status !== 'sending' && row.attachments_released !== 1;
  /** Records an outcome at once (the bulk lane, and the immediate lane once closing). */
  const finishNow: Settle = async (row, v) => {
    const ok = await log.finish({ id: row.id, worker, now: clock.now(), ...v });
    if (ok && releasable(row, v)) await release([row.id]);
    if (ok && v.status !== 'queued') deps.settled?.poke();
  };
  /**
   * The immediate lane records outcomes in its next pump: every outcome that arrived meanwhile and the claim of the
   * next rows share one transaction (one commit). Until then the row stays `sending`, held by this worker.
   */
  const finishLater: Settle = async (row, v) => {
    if (closed) return finishNow(row, v);
    finishes.push({ row, v, now: clock.now() });
    wakeImmediate();
  };

  function deliver(row: MessageRow, settle: Settle = finishNow, lane: 'immediate' | 'bulk' = 'bulk'): Promise<void> {
    const p = deliverOnce(row, settle, lane);
    attempts.add(p);
    void p.catch(() => {}).finally(() => attempts.delete(p));
    return p;
  }

  /** One attempt of a claimed row; records the outcome on the row (only while this worker still holds it). */
  async function deliverOnce(row: MessageRow, settle: Settle, lane: 'immediate' | 'bulk'): Promise<void> {
    const finish = (v: Outcome) => settle(row, v);
    const base = { last_error: row.last_error, smtp_response: null, failures: row.failures, sent_at: null, due_at: row.due_at, cancel_reason: null } as const;
    const profile = await profileStore.get(row.profile_key);
    const verdict = profile ? await appAccess(row) : 'profile_removed';
    if (verdict !== 'ok') return finish({ ...base, status: 'cancelled', attempted: 0, cancel_reason: verdict });
    if (clock.now() >= row.deadline_at) {
      return finish({
        ...base,
        status: 'failed',
        attempted: 0,
        last_error: row.last_error ?? 'the 24-hour delivery deadline passed without a successful send',
      });
    }
    const content = await log.content(row.id);
    const files =
      row.attachments === '[]' ? [] : (JSON.parse(row.attachments) as StoredAttachment[]).map((a) => ({ a, content: attachments.read(a.objectId) }));
    if (!content || files.some((f) => f.content === null)) {
      return finish({
        ...base,
        status: 'failed',
        attempted: 0,
        last_error: !content ? 'the message content is gone' : 'an attachment object is gone (expired or removed)',
      });
    }
    const rcpt = JSON.parse(row.recipients) as { to: string[]; cc: string[]; bcc: string[] };
    const headers = JSON.parse(content.headers) as Record<string, string>;
    const replyTo = headers['Reply-To'] ?? null;
    delete headers['Reply-To'];
    const settings = profiles.smtpSettings(profile!);
    if (profile!.smtp_password !== null && settings.password === null) {
      // The stored password does not open (APP_SECRET changed): keep the mail queued until an administrator enters it again.
      logger.warn({ profile: profile!.key }, 'outgoing mail: the stored SMTP password cannot be decrypted with the current APP_SECRET');
      const now = clock.now();
      return finish({
        ...base,
        status: now >= row.deadline_at ? 'failed' : 'queued',
        attempted: 0,
        last_error: 'the stored SMTP password cannot be decrypted (APP_SECRET changed?): enter it again in the profile',
        due_at: now + backoff(row.attempts + 1),
      });
    }
    deps.onAttempt?.(row.id, worker);
    let outcome: SmtpOutcome | NotStarted;
    try {
      outcome = await pool.attempt(
        settings,
        {
          from: { name: row.from_name, address: row.from_address },
          ...rcpt,
          replyTo,
          subject: row.subject,
          text: content.text,
          html: content.html,
          headers,
          messageId: row.message_id,
          envelopeId: row.id,
          attachments: files.map((f) => ({ filename: f.a.filename, contentType: f.a.contentType, content: f.content! })),
        },
        { ...deps.smtp, timeoutMs: o.attemptTimeoutMs },
        lane,
      );
    } catch (err) {
      outcome = { kind: 'temporary', error: (err as Error).message, response: null };
    }
    if (outcome.kind === 'not_started') {
      // Handed to the SMTP thread but never attempted (it stopped first): back to the queue as it was, no attempt counted.
      return finish({ ...base, status: 'queued', attempted: 0 });
    }
    const now = clock.now();
    if (outcome.kind === 'accepted') {
      // Nothing to add to an empty list: keep the stored text rather than a parse/stringify round trip.
      const failures =
        outcome.rejected.length === 0 && row.failures === '[]'
          ? row.failures
          : JSON.stringify([...(JSON.parse(row.failures) as unknown[]), ...outcome.rejected.map((r) => ({ ...r, kind: 'rejected' }))].slice(0, MAX_FAILURES));
      await finish({ ...base, status: 'sent', attempted: 1, smtp_response: outcome.response, failures, sent_at: now, last_error: null });
      return;
    }
    if (outcome.kind === 'permanent') {
      await finish({ ...base, status: 'failed', attempted: 1, last_error: outcome.error, smtp_response: outcome.response });
      return;
    }
    const next = now + backoff(row.attempts + 1);
    if (now >= row.deadline_at) {
      await finish({ ...base, status: 'failed', attempted: 1, last_error: outcome.error, smtp_response: outcome.response });
    } else {
      // A temporary failure puts the row back in the queue with the answer kept; it is due again after the backoff.
      await finish({
        ...base,
        status: 'queued',
        attempted: 1,
        last_error: outcome.error,
        smtp_response: outcome.response,
        due_at: Math.min(next, row.deadline_at),
      });
    }
    logger.warn({ messageId: row.id, profile: row.profile_key, attempt: row.attempts + 1, error: outcome.error }, 'outgoing mail attempt failed');
  }

  // ---- immediate lane ----
  /**
   * Claims as many due rows as there are free attempt slots (one statement) and starts them. The timer for the next
   * due row is only looked up when the lane ran out of due rows: while every slot is busy, the end of an attempt
   * pumps again (and a timer set earlier stays). One pump at a time: a pump asked for while one runs follows it.
   */
  const immediatePump = coalesce(pumpOnce, (err) => logger.error({ err }, 'outgoing mail: the immediate lane failed'));
  function pumpImmediate(): Promise<void> {
    immediatePending = false;
    return immediatePump.run();
  }
  async function pumpOnce(): Promise<void> {
    const done = finishes.splice(0);
    const free = started && !closed ? o.immediateConcurrency + handOff - immediateActive : 0;
    if (done.length === 0 && free <= 0) return;
    let rows: MessageRow[] = [];
    const toRelease: string[] = [];
    let next: number | null | undefined;
    try {
      await log.transaction(async () => {
        for (const f of done) {
          const ok = await log.finish({ id: f.row.id, worker, now: f.now, ...f.v }, (f.row as { rowid?: number }).rowid);
          if (ok && releasable(f.row, f.v)) toRelease.push(f.row.id);
        }
        if (free > 0) {
          rows = await log.claimImmediate(worker, clock.now(), free);
          if (rows.length < free) next = await log.nextImmediateDue();
        }
      });
    } catch (err) {
      // Rows whose outcome could not be recorded stay `sending` and are resubmitted by recovery (at least once).
      logger.error({ err, finished: done.length }, 'outgoing mail: recording outcomes or claiming immediate mail failed');
      if (!closed) scheduleImmediate(clock.now() + 1000);
      return;
    }
    if (toRelease.length) await release(toRelease);
    if (done.length) deps.settled?.poke();
    for (const row of rows) {
      immediateActive++;
      track(
        deliver(row, finishLater, 'immediate')
          .catch((err) => logger.error({ err, messageId: row.id }, 'outgoing mail delivery crashed'))
          .finally(immediateDone),
      );
    }
    if (next !== undefined) scheduleImmediate(next);
  }
  function immediateDone(): void {
    immediateActive--;
    wakeImmediate();
  }
  /** Coalesces wake-ups (acceptances, finished attempts) arriving together into one pump on the next turn. */
  let immediatePending = false;
  function wakeImmediate(): void {
    if (immediatePending || !started || closed) return;
    immediatePending = true;
    setImmediate(() => void pumpImmediate());
  }
  /** (Re)sets the lane's timer for the next due row (null: none queued). */
  function scheduleImmediate(due: number | null): void {
    if (immediateTimer !== null) clock.clearTimeout(immediateTimer);
    immediateTimer = null;
    if (closed) return;
    if (due === null) return;
    immediateTimer = clock.setTimeout(
      () => {
        immediateTimer = null;
        void pumpImmediate();
      },
      Math.min(Math.max(0, due - clock.now()), o.recoveryIntervalMs),
    );
  }

  // ---- bulk lane ----
  async function drain(key: string): Promise<void> {
    const runStart = clock.now();
    const running = new Set<Promise<void>>();
    try {
      while (!closed && clock.now() - runStart < o.runCapMs) {
        const profile = await profileStore.get(key);
        if (!profile) return;
        const interval = Math.ceil(60_000 / profile.pace_per_minute);
        // One short transaction: peek, window check, the slot gate (a guarded UPDATE, atomic across replicas) and the
        // claim; a slot reserved for a row another worker took meanwhile is rolled back with the claim's failure.
        const step = await log.transaction(async () => {
          const now = clock.now();
          const id = await log.peekBulk(key, now);
          if (!id) return { kind: 'empty' as const };
          const peeked = (await log.get(id))!;
          if (peeked.window_at === null && profile.daily_recipient_limit !== null) {
            // A notification-batch row enters the rolling 24-hour window only when it has room: the daily recipient
            // limit defers it, never refuses it.
            const since = now - WINDOW_MS;
            if ((await log.windowRecipients(key, since)) + peeked.recipient_count > profile.daily_recipient_limit) {
              await log.deferDue(id, ((await log.windowOldest(key, since)) ?? now) + WINDOW_MS + 1, now);
              return { kind: 'deferred' as const };
            }
          }
          if (!(await profileStore.reserveSlot(key, now, interval)))
            return { kind: 'wait' as const, until: (await profileStore.nextSlotAt(key)) ?? now + interval };
          const row = await log.claimOne(id, worker, now);
          if (row && row.window_at === null) await log.openWindow(id, now);
          return row ? { kind: 'claimed' as const, row } : { kind: 'empty' as const };
        });
        if (step.kind === 'empty') return;
        if (step.kind === 'deferred') continue;
        if (step.kind === 'wait') {
          const remaining = o.runCapMs - (clock.now() - runStart);
          if (step.until - clock.now() > remaining) return;
          await sleep(Math.min(step.until - clock.now(), o.recoveryIntervalMs));
          continue;
        }
        // Sends overlap (up to BULK_SENDS_PER_PROFILE) so a slow SMTP answer does not stretch the pace; the slot gate spaces them.
        const p = deliver(step.row).catch((err) => logger.error({ err, messageId: step.row.id }, 'outgoing mail delivery crashed'));
        running.add(p);
        void p.finally(() => running.delete(p));
        if (running.size >= BULK_SENDS_PER_PROFILE) await Promise.race(running);
      }
    } finally {
      await Promise.allSettled([...running]);
    }
  }
  /** One bulk pump at a time (a pump asked for meanwhile follows it). */
  const bulkPump = coalesce(pumpBulkOnce, (err) => logger.error({ err }, 'outgoing mail: the bulk lane failed'));
  const pumpBulk = () => bulkPump.run();
  async function pumpBulkOnce(): Promise<void> {
    if (!started || closed) return;
    const now = clock.now();
    const due = await log.dueBulkProfiles(now);
    for (const { profile_key: key, due: at } of due) {
      if (drainingProfiles.size >= o.drainers) break;
      if (drainingProfiles.has(key) || at > now) continue; // coalesced: one run per profile per worker
      drainingProfiles.add(key);
      track(
        drain(key)
          .catch((err) => logger.error({ err, profile: key }, 'outgoing mail drainer crashed'))
          .finally(() => {
            drainingProfiles.delete(key);
            void pumpBulk();
          }),
      );
    }
    const dues: number[] = [];
    for (const d of due) if (!drainingProfiles.has(d.profile_key)) dues.push(Math.max(d.due, (await profileStore.nextSlotAt(d.profile_key)) ?? 0));
    scheduleBulk(dues);
  }
  function scheduleBulk(dues: number[]): void {
    if (bulkTimer !== null) clock.clearTimeout(bulkTimer);
    bulkTimer = null;
    if (closed || dues.length === 0) return;
    // A continuation is capped at the recovery interval.
    const delay = Math.min(Math.max(0, Math.min(...dues) - clock.now()), o.recoveryIntervalMs);
    bulkTimer = clock.setTimeout(
      () => {
        bulkTimer = null;
        void pumpBulk();
      },
      Math.max(delay, 10),
    );
  }

  // ---- recovery ----
  function scheduleRecovery(): void {
    if (closed) return;
    recoveryTimer = clock.setTimeout(async () => {
      try {
        await recover();
      } catch (err) {
        logger.error({ err }, 'outgoing mail recovery failed');
      }
      await kick();
      scheduleRecovery();
    }, o.recoveryIntervalMs);
  }

  /** Pumps both lanes now; resolves once both pumps ran (attempts they started go on). */
  async function kick(): Promise<void> {
    await Promise.all([pumpImmediate(), pumpBulk()]);
  }
  /** After an acceptance (the row is committed): wake only the lane it went to. */
  function wake(lane: 'immediate' | 'bulk'): void {
    if (lane === 'immediate') wakeImmediate();
    else void pumpBulk();
  }

  return {
    worker,
    release,
    /** Starts the lanes: recovery runs first (resolves once it ran and both lanes were pumped). */
    async start(): Promise<void> {
      if (started) return;
      started = true;
      try {
        await recover();
      } catch (err) {
        logger.error({ err }, 'outgoing mail recovery failed');
      }
      scheduleRecovery();
      await kick();
    },
    kick,
    wake,
    recover,
    /** Resolves once this worker has no SMTP attempt in progress (drainers waiting for a pacing slot do not count). */
    async idle(): Promise<void> {
      // A wake-up still waiting for its turn (setImmediate) or a pump under way gets it first, so the attempts it
      // starts are awaited too.
      while (attempts.size > 0 || immediatePending || immediatePump.running()) {
        if (attempts.size > 0) await Promise.allSettled([...attempts]);
        else if (immediatePump.running()) await immediatePump.running();
        else await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
    /** The SMTP thread now: attempts in progress and immediate-lane attempts waiting there for a slot (tests, diagnostics). */
    smtpThreadState: () => pool.state(),
    async close(): Promise<void> {
      closed = true;
      for (const t of [immediateTimer, bulkTimer, recoveryTimer]) if (t !== null) clock.clearTimeout(t);
      for (const [h, wake] of sleepers) {
        clock.clearTimeout(h);
        wake();
      }
      sleepers.clear();
      // Rows handed to the SMTP thread but not started go back to the queue now (none starts during shutdown).
      pool.stop();
      // Attempts in progress may finish for a while (each is bounded by its own timeout); a row still sending after
      // that stays `sending` and is resubmitted by recovery (at least once).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...inFlight]), new Promise<void>((resolve) => (timer = setTimeout(resolve, o.closeGraceMs)))]);
      clearTimeout(timer);
      // Outcomes that arrived before closing and still wait for their pump are recorded now.
      await immediatePump.running();
      if (finishes.length) await pumpImmediate();
      await pool.close();
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;
