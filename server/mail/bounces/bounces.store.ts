/** Bounce collection's rows over the core store: IMAP progress on `mail_profiles`, bounced recipients on `mail_messages`. */
import type { Store } from '../../core/storage/store.ts';
import type { ProfileRow } from '../profiles/profiles.store.ts';

/** The mailbox a check started with: progress is saved only while the profile still points at it. */
export interface MailboxIdentity {
  key: string;
  imap_host: string;
  imap_port: number;
  imap_user: string;
  imap_folder: string;
}

/** SQL of bounce collection, over the core store: enabled profiles, progress and status, and the send-log rows reports apply to. */
export function createBounceStore(store: Store) {
  const guard = 'key = @key AND imap_host = @imap_host AND imap_port = @imap_port AND imap_user = @imap_user AND imap_folder = @imap_folder';
  const progress = `UPDATE mail_profiles SET imap_uidvalidity = @uidvalidity, imap_cursor = @cursor WHERE ${guard}`;
  const status = `UPDATE mail_profiles SET bounces_checked_at = @at, bounces_error = @error WHERE ${guard}`;
  // Message-IDs compare without ASCII case: SQLite's NOCASE, PostgreSQL's lower() (both indexed so).
  const byMessageId =
    store.dialect === 'postgres'
      ? 'SELECT id, recipients, failures, status FROM mail_messages WHERE lower(message_id) = lower(?)'
      : 'SELECT id, recipients, failures, status FROM mail_messages WHERE message_id = ? COLLATE NOCASE';
  const mailbox = (m: MailboxIdentity) => ({ key: m.key, imap_host: m.imap_host, imap_port: m.imap_port, imap_user: m.imap_user, imap_folder: m.imap_folder });
  return {
    enabled: () => store.all<ProfileRow>('SELECT * FROM mail_profiles WHERE imap_host IS NOT NULL ORDER BY key'),
    /** One profile with bounce collection, or undefined (unknown, or collection off). */
    enabledOne: (key: string) => store.get<ProfileRow>('SELECT * FROM mail_profiles WHERE key = ? AND imap_host IS NOT NULL', [key]),
    saveProgress: async (m: MailboxIdentity, uidvalidity: string | null, cursor: number | null) =>
      (await store.run(progress, { ...mailbox(m), uidvalidity, cursor })).changes > 0,
    saveStatus: async (m: MailboxIdentity, at: number, error: string | null) => (await store.run(status, { ...mailbox(m), at, error })).changes > 0,
    /** The send-log row of a report, by the Message-ID fixed at acceptance (case-insensitive). */
    findMessage: (messageId: string) => store.get<{ id: string; recipients: string; failures: string; status: string }>(byMessageId, [messageId]),
    applyBounce: async (id: string, failures: string, now: number) =>
      (
        await store.run(
          "UPDATE mail_messages SET status = 'bounced', failures = @failures, updated_at = @now WHERE id = @id AND status IN ('sent', 'bounced')",
          {
            id,
            failures,
            now,
          },
        )
      ).changes > 0,
  };
}
export type BounceStore = ReturnType<typeof createBounceStore>;
