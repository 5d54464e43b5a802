/**
 * SQL of the send log (`mail_messages`, `mail_message_content`) over the core store: one text for SQLite and
 * PostgreSQL except where noted (the immediate claim, which goes by rowid on SQLite and with SKIP LOCKED on
 * PostgreSQL; case-insensitive LIKE). Every state change is a guarded UPDATE on the durable row, so two workers
 * (processes or replicas) never take the same row. Transactions belong to the service (`transaction`, ambient).
 */
import type { Store } from '../../core/storage/store.ts';

export type MessageStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'bounced';
export type CancelReason = 'cancelled_by_admin' | 'profile_removed' | 'profile_not_allowed';
export const TERMINAL: MessageStatus[] = ['sent', 'failed', 'cancelled', 'bounced'];

export interface MessageRow {
  id: string;
  lane: 'immediate' | 'bulk';
  app_id: string;
  actor: string;
  profile_key: string;
  from_address: string;
  from_name: string;
  recipients: string;
  recipient_count: number;
  subject: string;
  status: MessageStatus;
  cancel_reason: CancelReason | null;
  attachments: string;
  attachments_released: 0 | 1;
  attempts: number;
  last_error: string | null;
  smtp_response: string | null;
  failures: string;
  batch_id: string | null;
  ref: string | null;
  idempotency_key: string | null;
  message_id: string;
  due_at: number;
  deadline_at: number;
  /** `message`, or `notification` (Core's: no 24-hour deadline; batches wait for window capacity). */
  kind: 'message' | 'notification';
  /** When the row counts in the profile's rolling 24-hour window; null while a notification-batch row waits for capacity. */
  window_at: number | null;
  claimed_by: string | null;
  claimed_at: number | null;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  content_purged_at: number | null;
}

export interface ContentRow {
  message_id: string;
  text: string | null;
  html: string | null;
  headers: string;
}

export interface StoredAttachment {
  objectId: string;
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface ListFilter {
  app?: string;
  profile?: string;
  status?: MessageStatus[];
  since?: number;
  refScope?: string;
  refExact?: string;
  recipient?: string;
  before?: { createdAt: number; id: string };
  limit: number;
}

const likeOf = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

type Finish = {
  id: string;
  worker: string;
  now: number;
  status: MessageStatus;
  attempted: 0 | 1;
  last_error: string | null;
  smtp_response: string | null;
  failures: string;
  sent_at: number | null;
  due_at: number;
  cancel_reason: CancelReason | null;
};

const FINISH_SET = `status = @status, attempts = attempts + @attempted, last_error = @last_error,
    smtp_response = coalesce(@smtp_response, smtp_response), failures = @failures, sent_at = @sent_at, due_at = @due_at, claimed_by = NULL,
    cancel_reason = @cancel_reason, updated_at = @now`;

export function createLogStore(store: Store) {
  const pg = store.dialect === 'postgres';
  /** SQLite's LIKE ignores ASCII case; PostgreSQL's ILIKE does the same. */
  const like = pg ? 'ILIKE' : 'LIKE';
  const ids = async (sql: string, params?: Parameters<Store['all']>[1]) => (await store.all<{ id: string }>(sql, params)).map((r) => r.id);
  const column = async <T>(sql: string, params?: Parameters<Store['all']>[1]) =>
    (await store.all<Record<string, T>>(sql, params)).map((r) => Object.values(r)[0]!);

  const insert = `INSERT INTO mail_messages (id, lane, app_id, actor, profile_key, from_address, from_name, recipients, recipient_count,
    subject, status, attachments, attachments_released, batch_id, ref, idempotency_key, message_id, due_at, deadline_at, created_at, updated_at, kind, window_at)
    VALUES (@id, @lane, @app_id, @actor, @profile_key, @from_address, @from_name, @recipients, @recipient_count, @subject, 'queued', @attachments,
    @attachments_released, @batch_id, @ref, @idempotency_key, @message_id, @created_at, @deadline_at, @created_at, @created_at, @kind, @window_at)`;
  const windowRecipients = `SELECT CAST(coalesce(sum(recipient_count), 0) AS BIGINT) FROM mail_messages WHERE profile_key = ? AND window_at > ?
    AND status <> 'cancelled'`;

  // Claims: a row moves from queued to sending only once (the status guard), so a row another worker holds is skipped.
  // SQLite: immediate claims go by rowid (the partial index holds it): no probe of the id index, whose random UUID
  // pages are rarely in the page cache. The due rowids are read first and each is taken with the status guard, in one
  // transaction; that is cheaper than one `UPDATE … WHERE rowid IN (…) RETURNING *`, and far cheaper when none is due.
  // PostgreSQL (no rowid): one UPDATE over the due rows locked with SKIP LOCKED, so replicas claiming at once take
  // different rows instead of queueing behind each other's locks. The rows are picked in a MATERIALIZED CTE, run
  // once: as `WHERE id IN (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)` the planner may run the subquery again, each run
  // skipping the rows the UPDATE already took, and the UPDATE claimed more than n rows (4 for 1 in handoff.test.ts).
  const dueImmediate = `SELECT rowid FROM mail_messages WHERE status = 'queued' AND lane = 'immediate' AND due_at <= ?
    ORDER BY due_at, created_at LIMIT ?`;
  const claimRowid = `UPDATE mail_messages SET status = 'sending', claimed_by = @worker, claimed_at = @now, updated_at = @now
    WHERE rowid = @rowid AND status = 'queued' AND lane = 'immediate'`;
  const claimImmediatePg = `WITH picked AS MATERIALIZED (SELECT id FROM mail_messages WHERE status = 'queued' AND lane = 'immediate'
      AND due_at <= @now ORDER BY due_at, created_at LIMIT @limit${store.skipLocked})
    UPDATE mail_messages m SET status = 'sending', claimed_by = @worker, claimed_at = @now, updated_at = @now
    FROM picked WHERE m.id = picked.id AND m.status = 'queued'
    RETURNING m.*`;
  const nextImmediateDue = "SELECT min(due_at) FROM mail_messages WHERE status = 'queued' AND lane = 'immediate'";
  const peekBulk = `SELECT id FROM mail_messages WHERE profile_key = @key AND status = 'queued' AND lane = 'bulk' AND due_at <= @now AND deadline_at > @now
    ORDER BY due_at, created_at LIMIT 1`;
  const claimOne = `UPDATE mail_messages SET status = 'sending', claimed_by = @worker, claimed_at = @now, updated_at = @now
    WHERE id = @id AND status = 'queued' RETURNING *`;
  // One index probe per profile (not a scan of every queued row): the earliest due bulk row of each profile.
  const dueBulkProfiles = `SELECT * FROM (SELECT key AS profile_key, (SELECT due_at FROM mail_messages m WHERE m.profile_key = p.key
    AND m.status = 'queued' AND m.lane = 'bulk' AND m.deadline_at > @now ORDER BY m.due_at LIMIT 1) AS due FROM mail_profiles p) AS d
    WHERE due IS NOT NULL ORDER BY due`;
  const finish = `UPDATE mail_messages SET ${FINISH_SET} WHERE id = @id AND status = 'sending' AND claimed_by = @worker`;
  // The same, reaching the row by the rowid its claim returned (SQLite; the id must still match).
  const finishByRowid = `UPDATE mail_messages SET ${FINISH_SET} WHERE rowid = @rowid AND id = @id AND status = 'sending' AND claimed_by = @worker`;

  const settledIn = "status IN ('sent', 'failed', 'cancelled', 'bounced')";

  return {
    async insert(
      row: Omit<
        MessageRow,
        | 'status'
        | 'cancel_reason'
        | 'attempts'
        | 'last_error'
        | 'smtp_response'
        | 'failures'
        | 'due_at'
        | 'claimed_by'
        | 'claimed_at'
        | 'updated_at'
        | 'sent_at'
        | 'content_purged_at'
      >,
      c: Omit<ContentRow, 'message_id'>,
    ): Promise<void> {
      await store.run(insert, row);
      await store.run('INSERT INTO mail_message_content (message_id, text, html, headers) VALUES (@message_id, @text, @html, @headers)', {
        message_id: row.id,
        ...c,
      });
    },
    get: (id: string) => store.get<MessageRow>('SELECT * FROM mail_messages WHERE id = ?', [id]),
    byIdempotency: (appId: string, key: string) => store.get<MessageRow>('SELECT * FROM mail_messages WHERE app_id = ? AND idempotency_key = ?', [appId, key]),
    content: (id: string) => store.get<ContentRow>('SELECT * FROM mail_message_content WHERE message_id = ?', [id]),
    list(f: ListFilter): Promise<MessageRow[]> {
      const where: string[] = [];
      const p: Record<string, unknown> = { limit: f.limit };
      if (f.app) {
        where.push('app_id = @app');
        p.app = f.app;
      }
      if (f.profile) {
        where.push('profile_key = @profile');
        p.profile = f.profile;
      }
      if (f.status?.length) {
        where.push(`status IN (${f.status.map((_, i) => `@s${i}`).join(', ')})`);
        for (const [i, s] of f.status.entries()) p[`s${i}`] = s;
      }
      if (f.since !== undefined) {
        where.push('created_at >= @since');
        p.since = f.since;
      }
      if (f.refExact) {
        where.push('ref = @ref');
        p.ref = f.refExact;
      }
      if (f.refScope) {
        where.push(`(ref = @scope OR ref ${like} @scopeLike ESCAPE '\\')`);
        p.scope = f.refScope;
        p.scopeLike = `${f.refScope.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`;
      }
      if (f.recipient) {
        where.push(`recipients ${like} @rcpt ESCAPE '\\'`);
        p.rcpt = likeOf(f.recipient);
      }
      if (f.before) {
        where.push('(created_at < @bc OR (created_at = @bc AND id < @bi))');
        p.bc = f.before.createdAt;
        p.bi = f.before.id;
      }
      const sql = `SELECT * FROM mail_messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT @limit`;
      return store.all<MessageRow>(sql, p);
    },
    batchExists: async (batchId: string) => (await store.get('SELECT 1 FROM mail_messages WHERE batch_id = ? LIMIT 1', [batchId])) !== undefined,
    batchQueued: (batchId: string) => store.all<MessageRow>("SELECT * FROM mail_messages WHERE batch_id = ? AND status = 'queued'", [batchId]),
    cancel: async (id: string, reason: CancelReason, now: number, from: MessageStatus = 'queued') =>
      (
        await store.run(
          `UPDATE mail_messages SET status = 'cancelled', cancel_reason = @reason, claimed_by = NULL, updated_at = @now WHERE id = @id AND status = @from`,
          { id, reason, now, from },
        )
      ).changes > 0,
    queuedOfProfile: (key: string) => ids("SELECT id FROM mail_messages WHERE profile_key = ? AND status = 'queued'", [key]),
    windowRecipients: async (key: string, since: number) => (await store.value<number>(windowRecipients, [key, since])) ?? 0,
    /** The oldest entry still in the profile's window (when capacity frees next), or null. */
    windowOldest: async (key: string, since: number) =>
      (await store.value<number | null>("SELECT min(window_at) FROM mail_messages WHERE profile_key = ? AND window_at > ? AND status <> 'cancelled'", [
        key,
        since,
      ])) ?? null,
    /** A waiting notification-batch row enters the window as it is claimed. */
    openWindow: async (id: string, now: number) =>
      void (await store.run('UPDATE mail_messages SET window_at = ? WHERE id = ? AND window_at IS NULL', [now, id])),
    /** Postpones a queued row (a notification batch waiting for window capacity). */
    deferDue: async (id: string, due: number, now: number) =>
      void (await store.run("UPDATE mail_messages SET due_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'", [due, now, id])),
    queuedBulk: async (key: string) =>
      (await store.value<number>("SELECT count(*) FROM mail_messages WHERE profile_key = ? AND status = 'queued' AND lane = 'bulk'", [key])) ?? 0,

    /**
     * Claims up to `limit` due immediate rows, in due-time order (due_at, then created_at); on SQLite each with its
     * `rowid` (for `finish`).
     */
    async claimImmediate(worker: string, now: number, limit = 1): Promise<Array<MessageRow & { rowid?: number }>> {
      const first = (await store.value<number | null>(nextImmediateDue)) ?? null;
      if (first === null || first > now) return [];
      if (pg) {
        const rows = await store.all<MessageRow>(claimImmediatePg, { worker, now, limit });
        return rows.sort((a, b) => a.due_at - b.due_at || a.created_at - b.created_at);
      }
      return store.tx(async () => {
        const rows: Array<MessageRow & { rowid: number }> = [];
        for (const { rowid } of await store.all<{ rowid: number }>(dueImmediate, [now, limit])) {
          if ((await store.run(claimRowid, { worker, now, rowid })).changes > 0) {
            rows.push((await store.get<MessageRow & { rowid: number }>('SELECT *, rowid AS rowid FROM mail_messages WHERE rowid = ?', [rowid]))!);
          }
        }
        return rows;
      });
    },
    nextImmediateDue: async () => (await store.value<number | null>(nextImmediateDue)) ?? null,
    peekBulk: (key: string, now: number) => store.value<string>(peekBulk, { key, now }),
    claimOne: (id: string, worker: string, now: number) => store.get<MessageRow>(claimOne, { id, worker, now }),
    dueBulkProfiles: (now: number) => store.all<{ profile_key: string; due: number }>(dueBulkProfiles, { now }),
    async finish(v: Finish, rowid?: number): Promise<boolean> {
      // A rowid can change only through VACUUM: then the id finds the row.
      if (rowid !== undefined && !pg && (await store.run(finishByRowid, { ...v, rowid })).changes > 0) return true;
      return (await store.run(finish, v)).changes > 0;
    },

    resubmitStuck: (now: number, before: number) =>
      ids(
        `UPDATE mail_messages SET status = 'queued', claimed_by = NULL, due_at = @now, updated_at = @now
    WHERE status = 'sending' AND claimed_at < @before RETURNING id`,
        { now, before },
      ),
    cancelOrphans: (now: number) =>
      ids(
        `UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'profile_removed', updated_at = @now
    WHERE status = 'queued' AND profile_key NOT IN (SELECT key FROM mail_profiles) RETURNING id`,
        { now },
      ),
    queuedApps: () => column<string>("SELECT DISTINCT app_id FROM mail_messages WHERE status = 'queued'"),
    queuedProfilesOfApp: (app: string) => column<string>("SELECT DISTINCT profile_key FROM mail_messages WHERE status = 'queued' AND app_id = ?", [app]),
    cancelAppProfile: (app: string, profile: string, now: number) =>
      ids(
        `UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'profile_not_allowed', updated_at = @now
    WHERE status = 'queued' AND app_id = @app AND profile_key = @profile RETURNING id`,
        { app, profile, now },
      ),
    expire: (now: number) =>
      ids(
        `UPDATE mail_messages SET status = 'failed', last_error = coalesce(last_error, 'the 24-hour delivery deadline passed without a successful send'),
    updated_at = @now WHERE status = 'queued' AND deadline_at <= @now RETURNING id`,
        { now },
      ),
    unreleased: (limit: number) =>
      store.all<{ id: string; attachments: string }>(`SELECT id, attachments FROM mail_messages WHERE attachments_released = 0 AND ${settledIn} LIMIT ?`, [
        limit,
      ]),
    markReleased: async (id: string) => void (await store.run('UPDATE mail_messages SET attachments_released = 1 WHERE id = ?', [id])),
    /** The attachment object ids that mail not yet sent still needs (a backup's mail parts). */
    pendingAttachmentIds: async () =>
      (
        await column<string>(`SELECT attachments FROM mail_messages WHERE attachments_released = 0 AND status IN ('queued', 'sending') AND attachments <> '[]'`)
      ).flatMap((json) => (JSON.parse(json) as Array<{ objectId: string }>).map((a) => a.objectId)),

    purgeCandidates: (before: number, limit: number) =>
      ids(`SELECT id FROM mail_messages WHERE content_purged_at IS NULL AND created_at < @before AND ${settledIn} LIMIT @limit`, { before, limit }),
    async purgeContent(id: string, at: number): Promise<void> {
      await store.run('DELETE FROM mail_message_content WHERE message_id = ?', [id]);
      await store.run('UPDATE mail_messages SET content_purged_at = ? WHERE id = ?', [at, id]);
    },
    expiredRecords: (before: number, limit: number) =>
      store.all<{ id: string; attachments: string; attachments_released: 0 | 1 }>(
        `SELECT id, attachments, attachments_released FROM mail_messages WHERE created_at < @before AND ${settledIn} LIMIT @limit`,
        { before, limit },
      ),
    deleteRow: async (id: string) => void (await store.run('DELETE FROM mail_messages WHERE id = ?', [id])),
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn),
    /** A savepoint inside the open transaction: `fn`'s statements roll back alone when it throws (the throw goes on). */
    async savepoint<T>(fn: () => Promise<T>): Promise<T> {
      await store.run('SAVEPOINT mail_call');
      try {
        const r = await fn();
        await store.run('RELEASE SAVEPOINT mail_call');
        return r;
      } catch (err) {
        await store.run('ROLLBACK TO SAVEPOINT mail_call');
        await store.run('RELEASE SAVEPOINT mail_call');
        throw err;
      }
    },
  };
}

export type LogStore = ReturnType<typeof createLogStore>;
