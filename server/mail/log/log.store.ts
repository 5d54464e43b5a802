import type { Db } from '../../core/storage/platform-db.ts';

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

/** SQL of the send log. Transactions belong to the service. */
export function createLogStore(db: Db) {
  const insert = db.prepare(`INSERT INTO mail_messages (id, lane, app_id, actor, profile_key, from_address, from_name, recipients, recipient_count,
    subject, status, attachments, attachments_released, batch_id, ref, idempotency_key, message_id, due_at, deadline_at, created_at, updated_at, kind, window_at)
    VALUES (@id, @lane, @app_id, @actor, @profile_key, @from_address, @from_name, @recipients, @recipient_count, @subject, 'queued', @attachments,
    @attachments_released, @batch_id, @ref, @idempotency_key, @message_id, @created_at, @deadline_at, @created_at, @created_at, @kind, @window_at)`);
  const insertContent = db.prepare('INSERT INTO mail_message_content (message_id, text, html, headers) VALUES (@message_id, @text, @html, @headers)');
  const get = db.prepare('SELECT * FROM mail_messages WHERE id = ?');
  const byIdempotency = db.prepare('SELECT * FROM mail_messages WHERE app_id = ? AND idempotency_key = ?');
  const content = db.prepare('SELECT * FROM mail_message_content WHERE message_id = ?');
  const batchExists = db.prepare('SELECT 1 FROM mail_messages WHERE batch_id = ? LIMIT 1').pluck();
  const batchQueued = db.prepare("SELECT * FROM mail_messages WHERE batch_id = ? AND status = 'queued'");
  const cancel = db.prepare(`UPDATE mail_messages SET status = 'cancelled', cancel_reason = @reason, claimed_by = NULL, updated_at = @now
    WHERE id = @id AND status = @from`);
  const queuedOfProfile = db.prepare("SELECT id FROM mail_messages WHERE profile_key = ? AND status = 'queued'").pluck();
  const windowRecipients = db
    .prepare("SELECT coalesce(sum(recipient_count), 0) FROM mail_messages WHERE profile_key = ? AND window_at > ? AND status <> 'cancelled'")
    .pluck();
  const windowOldest = db.prepare("SELECT min(window_at) FROM mail_messages WHERE profile_key = ? AND window_at > ? AND status <> 'cancelled'").pluck();
  const openWindow = db.prepare('UPDATE mail_messages SET window_at = ? WHERE id = ? AND window_at IS NULL');
  const deferDue = db.prepare("UPDATE mail_messages SET due_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'");
  const queuedBulk = db.prepare("SELECT count(*) FROM mail_messages WHERE profile_key = ? AND status = 'queued' AND lane = 'bulk'").pluck();

  // Claims: a row moves from queued to sending only once (the status guard), so a row another worker holds is skipped.
  // Immediate claims go by rowid (the partial index holds it): no probe of the id index, whose random UUID pages are
  // rarely in the page cache. The due rowids are read first and each is taken with the status guard, in one
  // transaction; that is cheaper than one `UPDATE … WHERE rowid IN (…) RETURNING *`, and far cheaper when none is due.
  const dueImmediate = db
    .prepare(`SELECT rowid FROM mail_messages WHERE status = 'queued' AND lane = 'immediate' AND due_at <= ?
    ORDER BY due_at, created_at LIMIT ?`)
    .pluck();
  const claimRowid = db.prepare(`UPDATE mail_messages SET status = 'sending', claimed_by = @worker, claimed_at = @now, updated_at = @now
    WHERE rowid = @rowid AND status = 'queued' AND lane = 'immediate'`);
  const byRowid = db.prepare('SELECT *, rowid AS rowid FROM mail_messages WHERE rowid = ?');
  const nextImmediateDue = db.prepare("SELECT min(due_at) FROM mail_messages WHERE status = 'queued' AND lane = 'immediate'").pluck();
  const peekBulk = db
    .prepare(`SELECT id FROM mail_messages WHERE profile_key = @key AND status = 'queued' AND lane = 'bulk' AND due_at <= @now AND deadline_at > @now
    ORDER BY due_at, created_at LIMIT 1`)
    .pluck();
  const claimOne = db.prepare(`UPDATE mail_messages SET status = 'sending', claimed_by = @worker, claimed_at = @now, updated_at = @now
    WHERE id = @id AND status = 'queued' RETURNING *`);
  // One index probe per profile (not a scan of every queued row): the earliest due bulk row of each profile.
  const dueBulkProfiles = db.prepare(`SELECT * FROM (SELECT key AS profile_key, (SELECT due_at FROM mail_messages m WHERE m.profile_key = p.key
    AND m.status = 'queued' AND m.lane = 'bulk' AND m.deadline_at > @now ORDER BY m.due_at LIMIT 1) AS due FROM mail_profiles p)
    WHERE due IS NOT NULL ORDER BY due`);

  const finish = db.prepare(`UPDATE mail_messages SET status = @status, attempts = attempts + @attempted, last_error = @last_error,
    smtp_response = coalesce(@smtp_response, smtp_response), failures = @failures, sent_at = @sent_at, due_at = @due_at, claimed_by = NULL,
    cancel_reason = @cancel_reason, updated_at = @now
    WHERE id = @id AND status = 'sending' AND claimed_by = @worker`);
  // The same, reaching the row by the rowid its claim returned (the id must still match).
  const finishByRowid = db.prepare(`UPDATE mail_messages SET status = @status, attempts = attempts + @attempted, last_error = @last_error,
    smtp_response = coalesce(@smtp_response, smtp_response), failures = @failures, sent_at = @sent_at, due_at = @due_at, claimed_by = NULL,
    cancel_reason = @cancel_reason, updated_at = @now
    WHERE rowid = @rowid AND id = @id AND status = 'sending' AND claimed_by = @worker`);

  const resubmitStuck = db
    .prepare(`UPDATE mail_messages SET status = 'queued', claimed_by = NULL, due_at = @now, updated_at = @now
    WHERE status = 'sending' AND claimed_at < @before RETURNING id`)
    .pluck();
  const cancelOrphans = db
    .prepare(`UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'profile_removed', updated_at = @now
    WHERE status = 'queued' AND profile_key NOT IN (SELECT key FROM mail_profiles) RETURNING id`)
    .pluck();
  const queuedApps = db.prepare("SELECT DISTINCT app_id FROM mail_messages WHERE status = 'queued'").pluck();
  const queuedProfilesOfApp = db.prepare("SELECT DISTINCT profile_key FROM mail_messages WHERE status = 'queued' AND app_id = ?").pluck();
  const cancelAppProfile = db
    .prepare(`UPDATE mail_messages SET status = 'cancelled', cancel_reason = 'profile_not_allowed', updated_at = @now
    WHERE status = 'queued' AND app_id = @app AND profile_key = @profile RETURNING id`)
    .pluck();
  const expire = db
    .prepare(`UPDATE mail_messages SET status = 'failed', last_error = coalesce(last_error, 'the 24-hour delivery deadline passed without a successful send'),
    updated_at = @now WHERE status = 'queued' AND deadline_at <= @now RETURNING id`)
    .pluck();
  const unreleased = db.prepare(
    `SELECT id, attachments FROM mail_messages WHERE attachments_released = 0 AND status IN ('sent', 'failed', 'cancelled', 'bounced') LIMIT ?`,
  );
  const markReleased = db.prepare('UPDATE mail_messages SET attachments_released = 1 WHERE id = ?');
  const pendingAttachments = db
    .prepare(`SELECT attachments FROM mail_messages WHERE attachments_released = 0 AND status IN ('queued', 'sending') AND attachments <> '[]'`)
    .pluck();

  const purgeCandidates = db
    .prepare(`SELECT id FROM mail_messages WHERE content_purged_at IS NULL AND created_at < @before
    AND status IN ('sent', 'failed', 'cancelled', 'bounced') LIMIT @limit`)
    .pluck();
  const deleteContent = db.prepare('DELETE FROM mail_message_content WHERE message_id = ?');
  const markPurged = db.prepare('UPDATE mail_messages SET content_purged_at = ? WHERE id = ?');
  const expiredRecords = db.prepare(`SELECT id, attachments, attachments_released FROM mail_messages WHERE created_at < @before
    AND status IN ('sent', 'failed', 'cancelled', 'bounced') LIMIT @limit`);
  const deleteRow = db.prepare('DELETE FROM mail_messages WHERE id = ?');

  // One transaction wrapper, made once (better-sqlite3 builds five wrapper functions per `db.transaction` call).
  const runTransaction = db.transaction((fn: () => unknown) => fn());

  return {
    insert(
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
    ) {
      insert.run(row);
      insertContent.run({ message_id: row.id, ...c });
    },
    get: (id: string) => get.get(id) as MessageRow | undefined,
    byIdempotency: (appId: string, key: string) => byIdempotency.get(appId, key) as MessageRow | undefined,
    content: (id: string) => content.get(id) as ContentRow | undefined,
    list(f: ListFilter): MessageRow[] {
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
        where.push("(ref = @scope OR ref LIKE @scopeLike ESCAPE '\\')");
        p.scope = f.refScope;
        p.scopeLike = `${f.refScope.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`;
      }
      if (f.recipient) {
        where.push("recipients LIKE @rcpt ESCAPE '\\'");
        p.rcpt = likeOf(f.recipient);
      }
      if (f.before) {
        where.push('(created_at < @bc OR (created_at = @bc AND id < @bi))');
        p.bc = f.before.createdAt;
        p.bi = f.before.id;
      }
      const sql = `SELECT * FROM mail_messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC LIMIT @limit`;
      return db.prepare(sql).all(p) as MessageRow[];
    },
    batchExists: (batchId: string) => batchExists.get(batchId) !== undefined,
    batchQueued: (batchId: string) => batchQueued.all(batchId) as MessageRow[],
    cancel: (id: string, reason: CancelReason, now: number, from: MessageStatus = 'queued') => cancel.run({ id, reason, now, from }).changes > 0,
    queuedOfProfile: (key: string) => queuedOfProfile.all(key) as string[],
    windowRecipients: (key: string, since: number) => windowRecipients.get(key, since) as number,
    /** The oldest entry still in the profile's window (when capacity frees next), or null. */
    windowOldest: (key: string, since: number) => windowOldest.get(key, since) as number | null,
    /** A waiting notification-batch row enters the window as it is claimed. */
    openWindow: (id: string, now: number) => void openWindow.run(now, id),
    /** Postpones a queued row (a notification batch waiting for window capacity). */
    deferDue: (id: string, due: number, now: number) => void deferDue.run(due, now, id),
    queuedBulk: (key: string) => queuedBulk.get(key) as number,

    /** Claims up to `limit` due immediate rows, in due-time order (due_at, then created_at); each with its `rowid`. */
    claimImmediate(worker: string, now: number, limit = 1): Array<MessageRow & { rowid: number }> {
      const first = nextImmediateDue.get() as number | null;
      if (first === null || first > now) return [];
      const claim = () => {
        const rows: Array<MessageRow & { rowid: number }> = [];
        for (const rowid of dueImmediate.all(now, limit) as number[]) {
          if (claimRowid.run({ worker, now, rowid }).changes > 0) rows.push(byRowid.get(rowid) as MessageRow & { rowid: number });
        }
        return rows;
      };
      return db.inTransaction ? claim() : (runTransaction.immediate(claim) as ReturnType<typeof claim>);
    },
    nextImmediateDue: () => nextImmediateDue.get() as number | null,
    peekBulk: (key: string, now: number) => peekBulk.get({ key, now }) as string | undefined,
    claimOne: (id: string, worker: string, now: number) => claimOne.get({ id, worker, now }) as MessageRow | undefined,
    dueBulkProfiles: (now: number) => dueBulkProfiles.all({ now }) as Array<{ profile_key: string; due: number }>,
    finish(
      v: {
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
      },
      rowid?: number,
    ): boolean {
      // A rowid can change only through VACUUM: then the id finds the row.
      if (rowid !== undefined && finishByRowid.run({ ...v, rowid }).changes > 0) return true;
      return finish.run(v).changes > 0;
    },

    resubmitStuck: (now: number, before: number) => resubmitStuck.all({ now, before }) as string[],
    cancelOrphans: (now: number) => cancelOrphans.all({ now }) as string[],
    queuedApps: () => queuedApps.all() as string[],
    queuedProfilesOfApp: (app: string) => queuedProfilesOfApp.all(app) as string[],
    cancelAppProfile: (app: string, profile: string, now: number) => cancelAppProfile.all({ app, profile, now }) as string[],
    expire: (now: number) => expire.all({ now }) as string[],
    unreleased: (limit: number) => unreleased.all(limit) as Array<{ id: string; attachments: string }>,
    markReleased: (id: string) => void markReleased.run(id),
    /** The attachment object ids that mail not yet sent still needs (a backup's mail parts). */
    pendingAttachmentIds: () =>
      (pendingAttachments.all() as string[]).flatMap((json) => (JSON.parse(json) as Array<{ objectId: string }>).map((a) => a.objectId)),

    purgeCandidates: (before: number, limit: number) => purgeCandidates.all({ before, limit }) as string[],
    purgeContent(id: string, at: number) {
      deleteContent.run(id);
      markPurged.run(at, id);
    },
    expiredRecords: (before: number, limit: number) =>
      expiredRecords.all({ before, limit }) as Array<{ id: string; attachments: string; attachments_released: 0 | 1 }>,
    deleteRow: (id: string) => void deleteRow.run(id),
    transaction: <T>(fn: () => T): T => runTransaction.immediate(fn) as T,
  };
}

export type LogStore = ReturnType<typeof createLogStore>;
