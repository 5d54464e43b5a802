import type { Db } from '../../core/storage/platform-db.ts';

/** SQL of the mail settings (retention periods). */
export function createSettingsStore(db: Db) {
  const get = db.prepare('SELECT value FROM mail_settings WHERE name = ?').pluck();
  const put = db.prepare(
    'INSERT INTO mail_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  );
  return {
    get: (name: string) => get.get(name) as string | undefined,
    put: (name: string, value: string, at: number) => void put.run(name, value, at),
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
  };
}
export type SettingsStore = ReturnType<typeof createSettingsStore>;
