/** Sender profiles' rows (`mail_profiles`) over the core store, including the bulk lane's pacing gate `next_slot_at`. */
import type { Store } from '../../core/storage/store.ts';

export interface ProfileRow {
  key: string;
  name: string;
  from_address: string;
  from_name: string | null;
  smtp_host: string;
  smtp_port: number;
  smtp_secure: 0 | 1;
  smtp_user: string | null;
  smtp_password: string | null;
  pace_per_minute: number;
  daily_recipient_limit: number | null;
  max_attachment_bytes: number;
  is_default: 0 | 1;
  revision: number;
  imap_host: string | null;
  imap_port: number | null;
  imap_secure: 0 | 1 | null;
  imap_user: string | null;
  imap_password: string | null;
  imap_folder: string | null;
  imap_uidvalidity: string | null;
  imap_cursor: number | null;
  bounces_checked_at: number | null;
  bounces_error: string | null;
  /** Trusted CA certificates (PEM) for the profile's SMTP and IMAP connections, besides Node's default CAs. */
  tls_ca: string | null;
  /** The last test send (null: never tested); written by `recordTest` only, kept by profile writes. */
  last_test_at: number | null;
  last_test_ok: 0 | 1 | null;
  last_test_code: string | null;
  last_test_summary: string | null;
  last_test_detail: string | null;
  next_slot_at: number;
  created_at: number;
  updated_at: number;
}

export type ProfileValues = Omit<ProfileRow, 'is_default' | 'revision' | 'next_slot_at' | 'created_at' | 'updated_at' | `last_test_${string}`>;

export interface TestRecord {
  at: number;
  ok: boolean;
  code: string | null;
  summary: string;
  detail: string | null;
}

const COLUMNS = [
  'key',
  'name',
  'from_address',
  'from_name',
  'smtp_host',
  'smtp_port',
  'smtp_secure',
  'smtp_user',
  'smtp_password',
  'pace_per_minute',
  'daily_recipient_limit',
  'max_attachment_bytes',
  'imap_host',
  'imap_port',
  'imap_secure',
  'imap_user',
  'imap_password',
  'imap_folder',
  'imap_uidvalidity',
  'imap_cursor',
  'bounces_checked_at',
  'bounces_error',
  'tls_ca',
] as const;

/**
 * SQL of sender profiles, over the core store (SQLite or PostgreSQL, one text for both). Transactions belong to the
 * service (`transaction`, ambient: the store's statements inside it join it).
 */
export function createProfileStore(store: Store) {
  const insert = `INSERT INTO mail_profiles (${COLUMNS.join(', ')}, is_default, revision, created_at, updated_at)
    VALUES (${COLUMNS.map((c) => `@${c}`).join(', ')}, @is_default, 1, @at, @at)`;
  const update = `UPDATE mail_profiles SET ${COLUMNS.filter((c) => c !== 'key')
    .map((c) => `${c} = @${c}`)
    .join(', ')},
    revision = revision + 1, updated_at = @at WHERE key = @key`;
  // The pacing gate: reserves the next bulk slot only when it is free, in one guarded statement (atomic across
  // processes and replicas: on PostgreSQL the row lock makes a second replica's UPDATE re-check `next_slot_at <= now`
  // against the first one's committed slot, and find it taken).
  // Strict spacing: the next slot is a full interval after this one starts (timer lateness is not caught up, so two
  // attempts are never closer than the pace allows).
  const reserveSlot = `UPDATE mail_profiles SET next_slot_at = CAST(@now AS BIGINT) + CAST(@interval AS BIGINT)
    WHERE key = @key AND next_slot_at <= @now RETURNING next_slot_at`;
  // Not a profile write: neither the revision nor updated_at moves.
  const recordTest = `UPDATE mail_profiles SET last_test_at = @at, last_test_ok = @ok, last_test_code = @code,
    last_test_summary = @summary, last_test_detail = @detail WHERE key = @key`;
  return {
    list: () => store.all<ProfileRow>('SELECT * FROM mail_profiles ORDER BY key'),
    get: (key: string) => store.get<ProfileRow>('SELECT * FROM mail_profiles WHERE key = ?', [key]),
    getDefault: () => store.get<ProfileRow>('SELECT * FROM mail_profiles WHERE is_default = 1'),
    count: async () => (await store.value<number>('SELECT count(*) FROM mail_profiles')) ?? 0,
    insert: async (v: ProfileValues, isDefault: boolean, at: number) => void (await store.run(insert, { ...v, is_default: isDefault ? 1 : 0, at })),
    update: async (v: ProfileValues, at: number) => void (await store.run(update, { ...v, at })),
    async makeDefault(key: string, at: number): Promise<boolean> {
      await store.run('UPDATE mail_profiles SET is_default = 0, revision = revision + 1, updated_at = ? WHERE is_default = 1 AND key <> ?', [at, key]);
      return (
        (await store.run('UPDATE mail_profiles SET is_default = 1, revision = revision + 1, updated_at = ? WHERE key = ? AND is_default = 0', [at, key]))
          .changes > 0
      );
    },
    remove: async (key: string) => (await store.run('DELETE FROM mail_profiles WHERE key = ?', [key])).changes > 0,
    /** True when a bulk slot was reserved now; the next one opens `interval` ms later. */
    reserveSlot: async (key: string, now: number, interval: number) => (await store.get(reserveSlot, { key, now, interval })) !== undefined,
    nextSlotAt: (key: string) => store.value<number>('SELECT next_slot_at FROM mail_profiles WHERE key = ?', [key]),
    recordTest: async (key: string, t: TestRecord) => void (await store.run(recordTest, { key, ...t, ok: t.ok ? 1 : 0 })),
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn),
  };
}

export type ProfileStore = ReturnType<typeof createProfileStore>;
