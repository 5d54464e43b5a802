import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../core/logging/logger.ts';
import { privateDir } from '../../core/storage/data-dir.ts';
import { Database, type SqliteDb } from '../../core/storage/sqlite.ts';
import type { NamespaceConfig } from './namespaces.schemas.ts';

export type TenantDb = SqliteDb;

export interface StorageInfo {
  size_bytes: number;
  wal_bytes: number;
  page_size: number;
  page_count: number;
  free_pages: number;
  measured_at: string;
}

interface Handle {
  name: string;
  fileId: string;
  db: TenantDb;
  config: NamespaceConfig;
  pins: number;
  released: Array<() => void>;
}

/** SQLite's largest max_page_count (no quota). */
const NO_PAGE_LIMIT = 4294967294;

export const dbFile = (dir: string, fileId: string) => path.join(dir, `${fileId}.db`);

export function removeDbFiles(dir: string, fileId: string): void {
  const base = dbFile(dir, fileId);
  for (const f of [base, `${base}-wal`, `${base}-shm`, `${base}-journal`]) fs.rmSync(f, { force: true });
}

/** Applies a namespace configuration to an open connection. Values come from the validated schema only. */
export function applyConfig(db: TenantDb, config: NamespaceConfig): void {
  db.pragma('query_only = 0');
  const mode = String(db.pragma(`journal_mode = ${config.journal_mode}`, { simple: true })).toLowerCase();
  if (mode !== config.journal_mode) throw new Error(`could not switch journal_mode to ${config.journal_mode} (still ${mode})`);
  db.pragma(`synchronous = ${config.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma(`busy_timeout = ${config.busy_timeout}`);
  db.pragma(`foreign_keys = ${config.foreign_keys ? 'ON' : 'OFF'}`);
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const maxPages = config.max_db_size === null ? NO_PAGE_LIMIT : Math.max(1, Math.floor(config.max_db_size / pageSize));
  db.pragma(`max_page_count = ${maxPages}`);
  db.pragma(`query_only = ${config.read_only ? 1 : 0}`);
}

/**
 * The bytes the quota `max_db_size` still lets `db` grow by (its max_page_count minus its page_count, in bytes); null
 * when the namespace has no quota (max_page_count is SQLite's largest, see `applyConfig`).
 */
export function quotaHeadroom(db: TenantDb): number | null {
  const maxPages = db.pragma('max_page_count', { simple: true }) as number;
  if (maxPages >= NO_PAGE_LIMIT) return null;
  const pages = db.pragma('page_count', { simple: true }) as number;
  return Math.max(0, maxPages - pages) * (db.pragma('page_size', { simple: true }) as number);
}

export function measureStorage(db: TenantDb, file: string): StorageInfo {
  const stat = (f: string) => {
    try {
      return fs.statSync(f).size;
    } catch {
      return 0;
    }
  };
  return {
    size_bytes: stat(file),
    wal_bytes: stat(`${file}-wal`),
    page_size: db.pragma('page_size', { simple: true }) as number,
    page_count: db.pragma('page_count', { simple: true }) as number,
    free_pages: db.pragma('freelist_count', { simple: true }) as number,
    measured_at: new Date().toISOString(),
  };
}

export interface HandleManagerOptions {
  dir: string;
  maxOpen: number;
  logger: Logger;
  /** Looks up a namespace's current file and configuration in the registry; null when it does not exist. */
  lookup: (name: string) => { fileId: string; config: NamespaceConfig } | null;
  /** Called after a connection is opened and configured (register SQL functions here). */
  onOpen?: (db: TenantDb) => void;
  /** Called with a fresh storage snapshot when a handle is closed or measured. */
  onStorage: (name: string, fileId: string, info: StorageInfo) => void;
  /** Maps a failure to open and configure a connection (a full disk) to the error to throw; default: the failure itself. */
  openError?: (err: unknown, name: string) => unknown;
}

/**
 * Opens tenant databases lazily and keeps at most `maxOpen` of them open, closing the least recently used
 * first. A pinned handle (an export or duplicate in progress) is never closed under its user.
 */
export class HandleManager {
  private readonly open = new Map<string, Handle>();
  private readonly opts: HandleManagerOptions;
  /** name → last use (epoch ms); formatted only when drained. */
  private readonly activity = new Map<string, number>();
  opened = 0;

  constructor(opts: HandleManagerOptions) {
    this.opts = opts;
    privateDir(opts.dir);
  }

  get size(): number {
    return this.open.size;
  }

  isOpen(name: string): boolean {
    return this.open.has(name);
  }

  /** The open connection and its configuration in one lookup (the data-plane hot path); null when absent. */
  lease(name: string): { db: TenantDb; config: NamespaceConfig } | null {
    const h = this.handle(name);
    return h ? { db: h.db, config: h.config } : null;
  }

  /** Returns the open connection for a namespace, opening it if needed; null when the namespace does not exist. */
  acquire(name: string): TenantDb | null {
    const h = this.handle(name);
    return h ? h.db : null;
  }

  /** Runs `fn` with the connection pinned open (for asynchronous work such as a backup). */
  async withPinned<T>(name: string, fn: (db: TenantDb, fileId: string, config: NamespaceConfig) => Promise<T>): Promise<T | null> {
    const h = this.handle(name);
    if (!h) return null;
    h.pins++;
    try {
      return await fn(h.db, h.fileId, h.config);
    } finally {
      h.pins--;
      if (h.pins === 0) for (const r of h.released.splice(0)) r();
    }
  }

  /** The configuration an open connection runs with (opens it if needed); null when the namespace does not exist. */
  configOf(name: string): NamespaceConfig | null {
    const h = this.handle(name);
    return h ? h.config : null;
  }

  /** Path of the namespace's current database file; null when it does not exist. */
  fileOf(name: string): string | null {
    const h = this.handle(name);
    return h ? dbFile(this.opts.dir, h.fileId) : null;
  }

  /** Re-applies configuration to an open connection at once. */
  reconfigure(name: string, config: NamespaceConfig): void {
    const h = this.open.get(name);
    if (!h) return;
    applyConfig(h.db, config);
    h.config = config;
  }

  /** Closes a namespace's connection, waiting for pinned work to finish first. */
  async close(name: string): Promise<void> {
    const h = this.open.get(name);
    if (!h) return;
    if (h.pins > 0) await new Promise<void>((resolve) => h.released.push(resolve));
    if (this.open.get(name) !== h) return;
    this.closeHandle(h);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((n) => this.close(n)));
  }

  /** Takes the pending last-activity times (name → ISO time) for the registry to store. */
  drainActivity(): Array<[string, string]> {
    const entries = [...this.activity.entries()].map(([n, t]): [string, string] => [n, new Date(t).toISOString()]);
    this.activity.clear();
    return entries;
  }

  /** Measures every open database (for the periodic storage snapshot). */
  measureOpen(): void {
    for (const h of this.open.values()) {
      try {
        this.opts.onStorage(h.name, h.fileId, measureStorage(h.db, dbFile(this.opts.dir, h.fileId)));
      } catch (err) {
        this.opts.logger.warn({ err, ns: h.name }, 'could not measure namespace storage');
      }
    }
  }

  private handle(name: string): Handle | null {
    const now = Date.now();
    let h = this.open.get(name);
    if (h) {
      this.open.delete(name);
      this.open.set(name, h);
      this.activity.set(name, now);
      return h;
    }
    const found = this.opts.lookup(name);
    if (!found) return null;
    const file = dbFile(this.opts.dir, found.fileId);
    if (!fs.existsSync(file)) throw new Error(`database file of namespace ${name} is missing`);
    const db = new Database(file, { timeout: found.config.busy_timeout });
    try {
      applyConfig(db, found.config);
      this.opts.onOpen?.(db);
    } catch (err) {
      db.close();
      throw this.opts.openError ? this.opts.openError(err, name) : err;
    }
    h = { name, fileId: found.fileId, db, config: found.config, pins: 0, released: [] };
    this.open.set(name, h);
    this.opened++;
    this.activity.set(name, now);
    this.evict();
    return h;
  }

  private evict(): void {
    if (this.open.size <= this.opts.maxOpen) return;
    for (const h of this.open.values()) {
      if (this.open.size <= this.opts.maxOpen) break;
      if (h.pins === 0) this.closeHandle(h);
    }
  }

  private closeHandle(h: Handle): void {
    this.open.delete(h.name);
    try {
      this.opts.onStorage(h.name, h.fileId, measureStorage(h.db, dbFile(this.opts.dir, h.fileId)));
    } catch (err) {
      this.opts.logger.warn({ err, ns: h.name }, 'could not measure namespace storage');
    }
    try {
      // Never wait for a reader here (a long read-only query may hold the WAL): a busy checkpoint is harmless.
      h.db.pragma('busy_timeout = 0');
      if (h.db.pragma('journal_mode', { simple: true }) === 'wal') h.db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // a busy checkpoint is harmless: SQLite checkpoints on the next open
    }
    h.db.close();
  }
}
