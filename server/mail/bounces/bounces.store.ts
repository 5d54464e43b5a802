import type { Db } from '../../core/storage/platform-db.ts';
import type { ProfileRow } from '../profiles/profiles.store.ts';

/** The mailbox a check started with: progress is saved only while the profile still points at it. */
export interface MailboxIdentity {
  key: string;
  imap_host: string;
  imap_port: number;
  imap_user: string;
  imap_folder: string;
}

/** SQL of bounce collection: enabled profiles, progress and status, and the send-log rows reports apply to. */
export function createBounceStore(db: Db) {
  const enabled = db.prepare('SELECT * FROM mail_profiles WHERE imap_host IS NOT NULL ORDER BY key');
  const enabledOne = db.prepare('SELECT * FROM mail_profiles WHERE key = ? AND imap_host IS NOT NULL');
  const guard = 'key = @key AND imap_host = @imap_host AND imap_port = @imap_port AND imap_user = @imap_user AND imap_folder = @imap_folder';
  const progress = db.prepare(`UPDATE mail_profiles SET imap_uidvalidity = @uidvalidity, imap_cursor = @cursor WHERE ${guard}`);
  const status = db.prepare(`UPDATE mail_profiles SET bounces_checked_at = @at, bounces_error = @error WHERE ${guard}`);
  const byMessageId = db.prepare('SELECT id, recipients, failures, status FROM mail_messages WHERE message_id = ? COLLATE NOCASE');
  const applyBounce = db.prepare(
    "UPDATE mail_messages SET status = 'bounced', failures = @failures, updated_at = @now WHERE id = @id AND status IN ('sent', 'bounced')",
  );
  return {
    enabled: () => enabled.all() as ProfileRow[],
    /** One profile with bounce collection, or undefined (unknown, or collection off). */
    enabledOne: (key: string) => enabledOne.get(key) as ProfileRow | undefined,
    saveProgress: (m: MailboxIdentity, uidvalidity: string | null, cursor: number | null) => progress.run({ ...m, uidvalidity, cursor }).changes > 0,
    saveStatus: (m: MailboxIdentity, at: number, error: string | null) => status.run({ ...m, at, error }).changes > 0,
    /** The send-log row of a report, by the Message-ID fixed at acceptance (case-insensitive). */
    findMessage(messageId: string) {
      return byMessageId.get(messageId) as { id: string; recipients: string; failures: string; status: string } | undefined;
    },
    applyBounce: (id: string, failures: string, now: number) => applyBounce.run({ id, failures, now }).changes > 0,
  };
}
export type BounceStore = ReturnType<typeof createBounceStore>;
