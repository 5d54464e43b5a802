import type { Db, Migration } from '../../core/storage/platform-db.ts';

export const namespaceMigrations: Migration[] = [
  {
    id: 'db-001-namespaces',
    up: `
      CREATE TABLE namespaces (
        name TEXT PRIMARY KEY,
        file_id TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        config TEXT NOT NULL,
        last_activity_at TEXT,
        storage TEXT
      ) STRICT;
    `,
  },
];

export interface NamespaceRow {
  name: string;
  file_id: string;
  created_at: string;
  config: string;
  last_activity_at: string | null;
  storage: string | null;
}

/** The namespace registry in platform.db. It never opens a tenant database. */
export function createNamespaceStore(db: Db) {
  const get = db.prepare('SELECT * FROM namespaces WHERE name = ?');
  // Keyset paging: `name > ?` lets SQLite seek in the primary-key index ('' precedes every valid name).
  const page = db.prepare('SELECT * FROM namespaces WHERE name > ? ORDER BY name LIMIT ?');
  const insert = db.prepare('INSERT INTO namespaces (name, file_id, created_at, config) VALUES (@name, @file_id, @created_at, @config)');
  const remove = db.prepare('DELETE FROM namespaces WHERE name = ?');
  const setConfig = db.prepare('UPDATE namespaces SET config = ? WHERE name = ?');
  const setFile = db.prepare('UPDATE namespaces SET file_id = ?, storage = ? WHERE name = ?');
  const setActivity = db.prepare('UPDATE namespaces SET last_activity_at = ? WHERE name = ? AND (last_activity_at IS NULL OR last_activity_at < ?)');
  const setStorage = db.prepare('UPDATE namespaces SET storage = ? WHERE name = ? AND file_id = ?');
  const count = db.prepare('SELECT count(*) FROM namespaces').pluck();
  const fileIds = db.prepare('SELECT file_id FROM namespaces').pluck();
  const files = db.prepare('SELECT name, file_id AS fileId FROM namespaces ORDER BY name');

  return {
    get: (name: string) => get.get(name) as NamespaceRow | undefined,
    page: (after: string | null, limit: number) => page.all(after ?? '', limit) as NamespaceRow[],
    insert: (row: Omit<NamespaceRow, 'last_activity_at' | 'storage'>) => void insert.run(row),
    remove: (name: string) => remove.run(name).changes > 0,
    setConfig: (name: string, config: string) => void setConfig.run(config, name),
    setFile: (name: string, fileId: string, storage: string | null) => void setFile.run(fileId, storage, name),
    setStorage: (name: string, fileId: string, storage: string) => void setStorage.run(storage, name, fileId),
    /** Writes last-activity times in one transaction (never moves a time backwards). */
    flushActivity: db.transaction((entries: Array<[string, string]>) => {
      for (const [name, at] of entries) setActivity.run(at, name, at);
    }),
    count: () => count.get() as number,
    fileIds: () => new Set(fileIds.all() as string[]),
    files: () => files.all() as Array<{ name: string; fileId: string }>,
    transaction: <T>(fn: () => T) => db.transaction(fn)(),
  };
}

export type NamespaceStore = ReturnType<typeof createNamespaceStore>;
