/** The settled-status topic's rows (`mail_settled`) and its PostgreSQL notification channel, over the core store. */
import type { Store } from '../../core/storage/store.ts';

/** The notification the PostgreSQL trigger sends (payload: the record id) when a message settles. */
export const SETTLED_CHANNEL = 'hearth_mail_settled';

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
 * SQL of the settled-status topic `mail_settled`, over the core store. Rows are written only by the trigger on
 * `mail_messages` (in the transaction of the status change, from any code path, process or replica); this store
 * reads and trims them.
 */
export function createSettledStore(store: Store) {
  // `at` grows with `seq` (both follow commit order, up to the small skew of outcomes recorded a moment after they
  // were timed), so the oldest entries are the first rowids: each batch looks only at the first `limit` rows and
  // needs no index on `at` (which would cost the immediate lane a second index insert per settled message).
  // The newest entry is always kept: on SQLite `seq` is a plain rowid (no AUTOINCREMENT bookkeeping per insert),
  // which SQLite would reuse from 1 once the table were empty; keeping the maximum keeps `seq` increasing for the tail.
  const trim = `DELETE FROM mail_settled WHERE seq IN (SELECT seq FROM mail_settled ORDER BY seq LIMIT @limit) AND at < @before
    AND seq < (SELECT max(seq) FROM mail_settled)`;
  return {
    /** The newest entry's `seq` (0 when empty). */
    maxSeq: async () => (await store.value<number>('SELECT coalesce(max(seq), 0) FROM mail_settled')) ?? 0,
    /** Entries after `seq`, oldest first. */
    after: (seq: number, limit: number) =>
      store.all<SettledEntry>('SELECT seq, message_id, status FROM mail_settled WHERE seq > ? ORDER BY seq LIMIT ?', [seq, limit]),
    /** Deletes entries older than `before` among the oldest `limit` (one short statement); returns how many. */
    trim: async (before: number, limit: number) => (await store.run(trim, { before, limit })).changes,
    /** Calls `fn` with the record id of every message settled on any replica (PostgreSQL: the trigger's notification). */
    listen: (fn: (messageId: string) => void) => store.listen(SETTLED_CHANNEL, fn),
  };
}
export type SettledStore = ReturnType<typeof createSettledStore>;
