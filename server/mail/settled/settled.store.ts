import type { Db } from '../../core/storage/platform-db.ts';

/** Statuses a message settles in; the trigger of migration `mail-004-settled-topic` publishes a move into one of them. */
export const SETTLED = ['sent', 'failed', 'cancelled', 'bounced'] as const;
export const isSettled = (status: string) => (SETTLED as readonly string[]).includes(status);

/** One entry of the settled-status topic (`message_id` is the send-log record id, `mail_messages.id`). */
export interface SettledEntry {
  seq: number;
  message_id: string;
  status: string;
}

/**
 * SQL of the settled-status topic `mail_settled`. Rows are written only by the SQLite trigger on `mail_messages`
 * (in the transaction of the status change, from any code path or process); this store reads and trims them.
 */
export function createSettledStore(db: Db) {
  const maxSeq = db.prepare('SELECT coalesce(max(seq), 0) FROM mail_settled').pluck();
  const after = db.prepare('SELECT seq, message_id, status FROM mail_settled WHERE seq > ? ORDER BY seq LIMIT ?');
  // `at` grows with `seq` (both follow commit order, up to the small skew of outcomes recorded a moment after they
  // were timed), so the oldest entries are the first rowids: each batch looks only at the first `limit` rows and
  // needs no index on `at` (which would cost the immediate lane a second index insert per settled message).
  // The newest entry is always kept: `seq` is a plain rowid (no AUTOINCREMENT bookkeeping per insert), which SQLite
  // would reuse from 1 once the table were empty; keeping the maximum keeps `seq` increasing for the tail.
  const trim = db.prepare(`DELETE FROM mail_settled WHERE seq IN (SELECT seq FROM mail_settled ORDER BY seq LIMIT @limit) AND at < @before
    AND seq < (SELECT max(seq) FROM mail_settled)`);
  return {
    /** The newest entry's `seq` (0 when empty). */
    maxSeq: () => maxSeq.get() as number,
    /** Entries after `seq`, oldest first. */
    after: (seq: number, limit: number) => after.all(seq, limit) as SettledEntry[],
    /** Deletes entries older than `before` among the oldest `limit` (one short transaction); returns how many. */
    trim: (before: number, limit: number) => trim.run({ before, limit }).changes,
  };
}
export type SettledStore = ReturnType<typeof createSettledStore>;
