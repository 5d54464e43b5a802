import path from 'node:path';
import { spawnWorker } from '../runtime.ts';
import { privateDir, privateFile } from './data-dir.ts';
import { postgresDdl } from './postgres-ddl.ts';
import { Database, type SqliteDb } from './sqlite.ts';
import type { Queryable } from './store.ts';

export type Db = SqliteDb;

/**
 * A forward-only migration. Ids are `<domain>-<NNN>-<name>`; they run in the order given at boot. `up` is the step on
 * SQLite (platform.db); `pg` the same step for the core store on PostgreSQL (postgres-store.ts `migratePostgres`),
 * numbered alike so that both engines record the same ids.
 */
export interface Migration {
  id: string;
  up: string | ((db: Db) => void);
  pg?: string | ((q: Queryable) => Promise<void>);
}

export class MigrationError extends Error {}

/** How long a write on platform.db waits for another connection's write lock (another process, `hearth migrate-store`'s tail). */
export const BUSY_TIMEOUT_MS = 5000;

/** The core store's file in the data folder, when the core store is SQLite. */
export const PLATFORM_DB_FILE = 'platform.db';

export function openPlatformDb(dataDir: string, migrations: Migration[]): Db {
  privateDir(dataDir);
  const file = path.join(dataDir, PLATFORM_DB_FILE);
  privateFile(file); // 0600, and so its -wal and -shm
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  // Checkpoints run in the checkpointer thread (`startCheckpointer`); this connection only checkpoints when that
  // thread falls far behind (or is not running, e.g. the CLI), at ten times SQLite's default WAL size.
  db.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** WAL pages after which a commit on the main connection checkpoints itself (SQLite's default is 1000). */
const FALLBACK_CHECKPOINT_PAGES = 10_000;

/**
 * Starts the platform database's checkpointer thread (checkpoint.worker.ts): a PASSIVE checkpoint every `intervalMs`
 * (250 ms) on its own connection. `close()` runs a last checkpoint and stops the thread; call it before closing `db`.
 */
export function startCheckpointer(db: Db, opts: { intervalMs?: number } = {}): { close(): Promise<void> } {
  const worker = spawnWorker('db-checkpoint', new URL('./checkpoint.worker.ts', import.meta.url), {
    workerData: { file: db.name, intervalMs: opts.intervalMs ?? 250 },
  });
  worker.unref();
  let exited = false;
  worker.once('exit', () => (exited = true));
  // A failed checkpointer only means commits checkpoint themselves again (the fallback threshold above).
  worker.on('error', () => {});
  return {
    async close() {
      if (exited) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        worker.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        worker.postMessage('close');
      });
      if (!exited) await worker.terminate();
    },
  };
}

export function migrate(db: Db, migrations: Migration[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as string[]);
  const known = new Set(migrations.map((m) => m.id));
  const unknown = [...applied].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new MigrationError(`platform.db was written by a newer Hearth (unknown migrations: ${unknown.join(', ')}); upgrade Hearth instead of downgrading`);
  }
  const ran: string[] = [];
  const insert = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db);
      insert.run(m.id, new Date().toISOString());
    })();
    ran.push(m.id);
  }
  return ran;
}

const CORE_001 = `
      CREATE TABLE api_tokens (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        prefix TEXT NOT NULL,
        scope TEXT NOT NULL,              -- 'admin' or 'namespaces'
        namespaces TEXT,                  -- JSON array when scope = 'namespaces'
        read_only INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        expires_at TEXT,
        last_used_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT,
        detail TEXT,
        request_id TEXT
      ) STRICT;
      CREATE INDEX audit_log_at ON audit_log (at);
      CREATE TABLE health_probe (id INTEGER PRIMARY KEY, at TEXT NOT NULL) STRICT;
`;

/** Replicas on one core store record the fingerprints of the secrets they must share (core/secrets: checkSharedSecrets). */
const CORE_002 = `
      CREATE TABLE shared_secrets (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, recorded_at TEXT NOT NULL) STRICT;
`;

export const coreMigrations: Migration[] = [
  {
    id: 'core-001-tokens-audit',
    up: CORE_001,
    pg: postgresDdl(CORE_001),
  },
  {
    id: 'core-002-shared-secrets',
    up: CORE_002,
    pg: postgresDdl(CORE_002),
  },
];
