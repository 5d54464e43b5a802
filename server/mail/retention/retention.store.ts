/** SQL of the mail settings (retention periods), over the core store. */
import type { Store } from '../../core/storage/store.ts';

export function createSettingsStore(store: Store) {
  return {
    get: (name: string) => store.value<string>('SELECT value FROM mail_settings WHERE name = ?', [name]),
    put: async (name: string, value: string, at: number) =>
      void (await store.run(
        'INSERT INTO mail_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
        [name, value, at],
      )),
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn),
  };
}
export type SettingsStore = ReturnType<typeof createSettingsStore>;
