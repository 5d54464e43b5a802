/**
 * Outgoing mail tables, for both engines of the core store: `up` on SQLite (platform.db), `pg`
 * the same step on PostgreSQL, same id. Times are epoch milliseconds (BIGINT on PostgreSQL), flags INTEGER 0/1.
 * PostgreSQL forms are derived from the SQLite text (core/storage/postgres-ddl.ts: INTEGER → BIGINT, BLOB → BYTEA,
 * STRICT dropped, partial indexes and CHECKs kept); `COLLATE NOCASE` (ASCII case folding) becomes an index on
 * `lower(…)`, and the settled-status trigger is written by hand as a PL/pgSQL function that also notifies `hearth_mail_settled` (at commit) so waiters
 * on every replica wake at once (settled/settled.service.ts). No `?` or `@` in the PostgreSQL texts: they would be
 * taken for parameters.
 */
import type { Migration } from '../core/storage/platform-db.ts';
import { postgresDdl } from '../core/storage/postgres-ddl.ts';

const MAIL_001 = `
      CREATE TABLE mail_profiles (
        key TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        from_address TEXT NOT NULL,
        from_name TEXT,
        smtp_host TEXT NOT NULL,
        smtp_port INTEGER NOT NULL,
        smtp_secure INTEGER NOT NULL CHECK (smtp_secure IN (0, 1)),
        smtp_user TEXT,
        smtp_password TEXT,                  -- AES-256-GCM envelope under APP_SECRET, never returned
        pace_per_minute INTEGER NOT NULL,
        daily_recipient_limit INTEGER,
        max_attachment_bytes INTEGER NOT NULL,
        is_default INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
        revision INTEGER NOT NULL DEFAULT 1,
        imap_host TEXT,
        imap_port INTEGER,
        imap_secure INTEGER,
        imap_user TEXT,
        imap_password TEXT,
        imap_folder TEXT,
        imap_uidvalidity TEXT,
        imap_cursor INTEGER,
        bounces_checked_at INTEGER,
        bounces_error TEXT,
        next_slot_at INTEGER NOT NULL DEFAULT 0, -- bulk pacing gate: earliest start of the next bulk attempt
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX mail_profiles_one_default ON mail_profiles (is_default) WHERE is_default = 1;

      CREATE TABLE mail_apps (
        app_id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        platform_permissions TEXT NOT NULL,  -- JSON array
        token_id TEXT UNIQUE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      -- A row: an explicit set of profiles (empty set = none). No row: follow the default profile.
      CREATE TABLE mail_app_policies (
        app_id TEXT PRIMARY KEY,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE mail_app_grants (
        app_id TEXT NOT NULL REFERENCES mail_app_policies (app_id) ON DELETE CASCADE,
        profile_key TEXT NOT NULL REFERENCES mail_profiles (key) ON DELETE CASCADE,
        PRIMARY KEY (app_id, profile_key)
      ) STRICT;

      CREATE TABLE mail_messages (
        id TEXT PRIMARY KEY,
        lane TEXT NOT NULL CHECK (lane IN ('immediate', 'bulk')),
        app_id TEXT NOT NULL,
        actor TEXT NOT NULL,                 -- JSON snapshot of who called
        profile_key TEXT NOT NULL,           -- no foreign key: a deleted profile cancels its queued rows
        from_address TEXT NOT NULL,
        from_name TEXT NOT NULL,
        recipients TEXT NOT NULL,            -- JSON {to, cc, bcc}
        recipient_count INTEGER NOT NULL,
        subject TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'cancelled', 'bounced')),
        cancel_reason TEXT,
        attachments TEXT NOT NULL,           -- JSON [{objectId, filename, contentType, size, sha256}]
        attachments_released INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        smtp_response TEXT,
        failures TEXT NOT NULL DEFAULT '[]', -- JSON [{recipient, reason, kind}], at most 100
        batch_id TEXT,
        ref TEXT,
        idempotency_key TEXT,
        message_id TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        deadline_at INTEGER NOT NULL,
        claimed_by TEXT,
        claimed_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        sent_at INTEGER,
        content_purged_at INTEGER
      ) STRICT;
      CREATE INDEX mail_messages_created ON mail_messages (created_at DESC, id DESC);
      CREATE INDEX mail_messages_batch ON mail_messages (batch_id) WHERE batch_id IS NOT NULL;
      CREATE INDEX mail_messages_bulk_due ON mail_messages (profile_key, due_at, created_at) WHERE status = 'queued' AND lane = 'bulk';
      CREATE INDEX mail_messages_bulk_deadline ON mail_messages (deadline_at) WHERE status = 'queued' AND lane = 'bulk';
      CREATE INDEX mail_messages_immediate_due ON mail_messages (due_at, created_at) WHERE status = 'queued' AND lane = 'immediate';
      CREATE INDEX mail_messages_sending ON mail_messages (claimed_at) WHERE status = 'sending';
      CREATE INDEX mail_messages_unreleased ON mail_messages (updated_at) WHERE attachments_released = 0;
      CREATE INDEX mail_messages_profile_window ON mail_messages (profile_key, created_at);
      CREATE INDEX mail_messages_message_id ON mail_messages (message_id COLLATE NOCASE);
      CREATE UNIQUE INDEX mail_messages_idempotency ON mail_messages (app_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

      CREATE TABLE mail_message_content (
        message_id TEXT PRIMARY KEY REFERENCES mail_messages (id) ON DELETE CASCADE,
        text TEXT,
        html TEXT,
        headers TEXT NOT NULL                -- JSON object
      ) STRICT;

      CREATE TABLE mail_attachment_objects (
        id TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX mail_attachment_objects_expiry ON mail_attachment_objects (expires_at);

      CREATE TABLE mail_settings (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `;

const MAIL_002 = `
      ALTER TABLE mail_messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'notification'));
      ALTER TABLE mail_messages ADD COLUMN window_at INTEGER;
      UPDATE mail_messages SET window_at = created_at;
      CREATE INDEX mail_messages_window ON mail_messages (profile_key, window_at);
    `;

const MAIL_003 = `
      CREATE INDEX mail_messages_queued_app ON mail_messages (app_id, profile_key) WHERE status = 'queued';
      CREATE INDEX mail_messages_queued_profile_lane ON mail_messages (profile_key, lane) WHERE status = 'queued';
      CREATE INDEX mail_messages_queued_deadline ON mail_messages (deadline_at) WHERE status = 'queued';
      DROP INDEX mail_messages_profile_window; -- the daily window counts window_at now (mail_messages_window)
    `;

const MAIL_005 = `
      ALTER TABLE mail_profiles ADD COLUMN tls_ca TEXT;
    `;

const MAIL_006 = `
      ALTER TABLE mail_profiles ADD COLUMN last_test_at INTEGER;
      ALTER TABLE mail_profiles ADD COLUMN last_test_ok INTEGER CHECK (last_test_ok IN (0, 1));
      ALTER TABLE mail_profiles ADD COLUMN last_test_code TEXT;
      ALTER TABLE mail_profiles ADD COLUMN last_test_summary TEXT;
      ALTER TABLE mail_profiles ADD COLUMN last_test_detail TEXT;
    `;

export const mailMigrations: Migration[] = [
  {
    id: 'mail-001-outgoing-mail',
    up: MAIL_001,
    pg: postgresDdl(MAIL_001).replace('(message_id COLLATE NOCASE)', '(lower(message_id))'),
  },
  {
    // Core's notifications (a batch waits for room under the daily recipient limit, never refused): `kind`, and
    // `window_at`, the moment a row counts in its profile's rolling 24-hour recipient window (NULL: a
    // notification-batch row still waiting for capacity).
    id: 'mail-002-notifications',
    up: MAIL_002,
    pg: postgresDdl(MAIL_002),
  },
  {
    // Recovery and the backlog check look only at queued or sending rows: partial indexes keep them independent of the
    // kept send history (a full scan of 100,000 rows held the write lock for about half a second).
    id: 'mail-003-queue-indexes',
    up: MAIL_003,
    pg: postgresDdl(MAIL_003),
  },
  {
    // The settled-status topic (message-ID wake-ups behind `?wait=`): one entry per move of a message into a settled status,
    // written by the trigger in the transaction of the status change, whichever code path or process makes it (a lane,
    // a cancel, recovery, bounce collection, the CLI). `message_id` is the send-log record id (mail_messages.id);
    // `at` is the row's `updated_at` (the mail clock). Entries are kept five minutes (recovery trims them); waiters
    // always re-read the durable row, so a lost or trimmed entry costs latency only.
    id: 'mail-004-settled-topic',
    up: `
      CREATE TABLE mail_settled (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL,
        status TEXT NOT NULL,
        at INTEGER NOT NULL
      ) STRICT;
      CREATE TRIGGER mail_messages_settled AFTER UPDATE OF status ON mail_messages
        WHEN NEW.status IN ('sent', 'failed', 'cancelled', 'bounced') AND NEW.status IS NOT OLD.status
      BEGIN
        INSERT INTO mail_settled (message_id, status, at) VALUES (NEW.id, NEW.status, NEW.updated_at);
      END;
    `,
    // PostgreSQL: `seq` is an identity (never reused, so the newest entry need not be kept for it); allocated at
    // insert, it may commit out of order, which the notification (delivered at commit, on every replica) covers.
    pg: `
      CREATE TABLE mail_settled (
        seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        message_id TEXT NOT NULL,
        status TEXT NOT NULL,
        at BIGINT NOT NULL
      );
      CREATE FUNCTION mail_messages_settled() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO mail_settled (message_id, status, at) VALUES (NEW.id, NEW.status, NEW.updated_at);
        PERFORM pg_notify('hearth_mail_settled', NEW.id);
        RETURN NULL;
      END
      $$;
      CREATE TRIGGER mail_messages_settled AFTER UPDATE OF status ON mail_messages FOR EACH ROW
        WHEN (NEW.status IN ('sent', 'failed', 'cancelled', 'bounced') AND NEW.status IS DISTINCT FROM OLD.status)
        EXECUTE FUNCTION mail_messages_settled();
    `,
  },
  {
    // A profile's trusted CA (server/mail/tls-ca.ts): PEM certificates trusted, besides Node's default CAs, for the
    // profile's SMTP and IMAP connections. NULL: the default CAs only (existing profiles).
    id: 'mail-005-profile-tls-ca',
    up: MAIL_005,
    pg: postgresDdl(MAIL_005),
  },
  {
    // The last test send of a profile: when, whether the server accepted it, the classified reason of a
    // failure (server/mail/delivery/smtp-failure.ts), the one-sentence summary and the server's raw answer
    // (credentials redacted). NULL `last_test_at`: never tested. Profile writes keep it.
    id: 'mail-006-profile-last-test',
    up: MAIL_006,
    pg: postgresDdl(MAIL_006),
  },
];
