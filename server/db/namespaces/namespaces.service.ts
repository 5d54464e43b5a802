import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { spawnWorker } from '../../core/runtime.ts';
import { privateDir, privateFile } from '../../core/storage/data-dir.ts';
import { BACKUP_IMAGE_MAX, copyWalDatabase, type SnapshotCopy } from '../../core/storage/snapshot-thread.ts';
import { Database } from '../../core/storage/sqlite.ts';
import { applyConfig, dbFile, HandleManager, measureStorage, removeDbFiles, type StorageInfo, type TenantDb } from './handles.ts';
import { NAMESPACE_NAME, NamespaceConfig, type NamespaceRecord } from './namespaces.schemas.ts';
import { isUniqueViolation, type NamespaceRow, type NamespaceStore } from './namespaces.store.ts';

export interface Actor {
  actor: string;
  requestId?: string;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const ACTIVITY_FLUSH_MS = 5_000;
const STORAGE_MEASURE_MS = 5 * 60_000;

export const defaultConfig = (): NamespaceConfig => NamespaceConfig.parse({});

function presentNamespace(row: NamespaceRow): NamespaceRecord {
  return {
    name: row.name,
    created_at: row.created_at,
    config: JSON.parse(row.config) as NamespaceConfig,
    last_activity_at: row.last_activity_at,
    storage: row.storage ? (JSON.parse(row.storage) as StorageInfo) : null,
  };
}

const encodeCursor = (name: string) => Buffer.from(JSON.stringify({ after: name })).toString('base64url');
function decodeCursor(cursor: string): string {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof v.after === 'string' && NAMESPACE_NAME.test(v.after)) return v.after;
  } catch {
    // fall through
  }
  throw new HearthError('invalid_request', 'cursor is not valid: pass next_cursor from a previous page unchanged');
}

const notFound = (name: string) => new HearthError('namespace_not_found', `namespace ${JSON.stringify(name)} does not exist`);
const quotaExceeded = (bytes: number, max: number) =>
  new HearthError('quota_exceeded', `the database (${bytes} bytes) exceeds the namespace quota max_db_size of ${max} bytes`);

/** Serialises control-plane operations per namespace name. */
class Locks {
  private readonly tails = new Map<string, Promise<unknown>>();
  async run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    this.tails.set(key, next);
    try {
      return await next;
    } finally {
      if (this.tails.get(key) === next) this.tails.delete(key);
    }
  }
}

export interface NamespaceServiceDeps {
  store: NamespaceStore;
  audit: AuditLog;
  logger: Logger;
  dataDir: string;
  maxOpen: number;
  /** Called on every tenant connection after it is opened (SQL functions). */
  onOpen?: (db: TenantDb) => void;
  /** Called after a namespace's database is deleted or replaced by an import. */
  onGone?: (name: string, why: 'deleted' | 'replaced') => void;
}

export function createNamespaceService(deps: NamespaceServiceDeps) {
  const { store, audit, logger } = deps;
  const dir = path.join(deps.dataDir, 'namespaces');
  const tmpDir = path.join(deps.dataDir, 'tmp');
  privateDir(tmpDir);
  const locks = new Locks();
  /** Storage measurements being written (a closing handle measures its file): `close()` waits for them. */
  const storageWrites = new Set<Promise<void>>();

  const handles = new HandleManager({
    dir,
    maxOpen: deps.maxOpen,
    logger,
    onOpen: deps.onOpen,
    lookup(name) {
      const row = store.get(name);
      return row ? { fileId: row.file_id, config: JSON.parse(row.config) as NamespaceConfig } : null;
    },
    onStorage(name, fileId, info) {
      const write = store.setStorage(name, fileId, JSON.stringify(info)).catch((err) => logger.warn({ err, ns: name }, 'could not record namespace storage'));
      storageWrites.add(write);
      void write.finally(() => storageWrites.delete(write));
    },
  });

  // Another process created, changed or deleted a namespace: drop this process's connection to it (the next request
  // opens the current file with the current configuration) and end what belonged to the old database.
  store.onRemoteChange((name, before, after) => {
    if (!before) return;
    void handles.close(name).then(() => {
      if (!after) deps.onGone?.(name, 'deleted');
      else if (after.file_id !== before.file_id) deps.onGone?.(name, 'replaced');
    });
  });

  const requireRow = (name: string) => {
    const row = NAMESPACE_NAME.test(name) ? store.get(name) : undefined;
    if (!row) throw notFound(name);
    return row;
  };

  const record = (e: { actor: Actor; action: string; target: string; detail?: Record<string, unknown> }) =>
    audit.record({ actor: e.actor.actor, action: e.action, target: e.target, detail: e.detail ?? null, requestId: e.actor.requestId });

  /**
   * Copies a consistent snapshot of a live namespace to `dest` while writes continue. With `fileId` (a backup listed
   * the namespace with that file) a namespace deleted or replaced by an import since then answers 'vanished' instead
   * of failing, and nothing is copied. The namespace stays pinned open meanwhile, so it is neither closed nor
   * deleted under the copy.
   * - WAL (the default): VACUUM INTO on a read-only connection of the snapshot thread (core/storage/snapshot-thread.ts), off the event loop: one read
   *   transaction, which WAL writers never wait for. `durable` (a duplicate) fsyncs the copy; a temporary copy is
   *   not. `hash` answers the copy's size and SHA-256, computed on that thread; `image` (a backup) answers a small
   *   database's bytes in memory instead of writing `dest` (core/storage/snapshot-thread.ts, BACKUP_IMAGE_MAX).
   * - Rollback journal (delete, truncate, persist): a reader there holds writers off, so no other connection may
   *   hold one for a whole copy. The namespace's own connection copies it with SQLite's online backup in steps of
   *   256 pages between event-loop turns; its own writes between steps go into the copy without restarting it.
   */
  async function snapshot(
    name: string,
    dest: string,
    opts: { onProgress?: (done: number, total: number) => void; fileId?: string; durable?: boolean; hash?: boolean; image?: boolean } = {},
  ): Promise<'vanished' | SnapshotCopy | undefined> {
    const { onProgress, fileId } = opts;
    privateFile(dest);
    const ok = await handles.withPinned(name, async (db, current, config) => {
      if (fileId !== undefined && current !== fileId) return 'vanished' as const;
      if (String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') {
        const pages = db.pragma('page_count', { simple: true }) as number;
        onProgress?.(0, pages);
        const copy = await copyWalDatabase({
          file: dbFile(dir, current),
          dest,
          durable: opts.durable ?? false,
          hash: opts.hash ?? false,
          timeout: config.busy_timeout,
          ...(opts.image ? { imageMax: BACKUP_IMAGE_MAX } : {}),
        });
        onProgress?.(pages, pages);
        return copy;
      }
      await db.backup(dest, {
        progress: ({ totalPages, remainingPages }) => {
          onProgress?.(totalPages - remainingPages, totalPages);
          return 256;
        },
      });
      return true as const;
    });
    if (ok === 'vanished' || (!ok && fileId !== undefined)) return 'vanished';
    if (!ok) throw notFound(name);
    return ok === true ? undefined : ok;
  }

  function createFile(fileId: string, config: NamespaceConfig): StorageInfo {
    const file = dbFile(dir, fileId);
    privateFile(file); // a new database 0600, and so its -wal, -shm and -journal
    const db = new Database(file, { timeout: config.busy_timeout });
    try {
      applyConfig(db, config);
      return measureStorage(db, file);
    } finally {
      db.close();
    }
  }

  /** The uploaded bytes start like a SQLite database (before anything is written to disk). */
  function checkHead(upload: Upload): void {
    const head = upload.kind === 'memory' ? upload.buffer.subarray(0, 16) : readHead(upload.path);
    if (upload.size < 512 || !head.equals(SQLITE_MAGIC)) {
      throw new HearthError('invalid_database', 'the uploaded file is not a SQLite database (its header is not "SQLite format 3")');
    }
  }

  /**
   * Checks a database file already in its place (in a worker thread): SQLite opens it as a file, so every journal
   * mode works, including WAL, which an in-memory copy cannot be opened in.
   */
  async function checkFile(file: string): Promise<{ pageSize: number; pageCount: number; tables: number }> {
    const result = await new Promise<{ ok: boolean; reason?: string; pageSize: number; pageCount: number; tables: number }>((resolve, reject) => {
      const worker = spawnWorker('db-check', new URL('./check.worker.ts', import.meta.url), { workerData: { file } });
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => code !== 0 && reject(new Error(`database check exited with code ${code}`)));
    });
    if (!result.ok) throw new HearthError('invalid_database', result.reason ?? 'the uploaded file is not a healthy SQLite database');
    return result;
  }

  function readHead(file: string): Buffer {
    const fd = fs.openSync(file, 'r');
    try {
      const buf = Buffer.alloc(16);
      fs.readSync(fd, buf, 0, 16, 0);
      return buf;
    } finally {
      fs.closeSync(fd);
    }
  }

  const service = {
    handles,
    dir,
    tmpDir,

    exists: (name: string) => NAMESPACE_NAME.test(name) && store.get(name) !== undefined,

    /** The stored record (read from the core store: activity and storage as its node last wrote them). */
    async get(name: string): Promise<NamespaceRecord> {
      const row = NAMESPACE_NAME.test(name) ? await store.fetch(name) : undefined;
      if (!row) throw notFound(name);
      return presentNamespace(row);
    },

    /** The tenant connection for the data plane; 404 when the namespace does not exist. */
    /** The tenant connection with its configuration; 404 when the namespace does not exist. */
    tenant(name: string): { db: TenantDb; config: NamespaceConfig } {
      const t = NAMESPACE_NAME.test(name) ? handles.lease(name) : null;
      if (!t) throw notFound(name);
      return t;
    },

    connection(name: string): TenantDb {
      const db = NAMESPACE_NAME.test(name) ? handles.acquire(name) : null;
      if (!db) throw notFound(name);
      return db;
    },

    config(name: string): NamespaceConfig {
      return JSON.parse(requireRow(name).config) as NamespaceConfig;
    },

    async list(opts: { limit: number; cursor?: string }): Promise<{ data: NamespaceRecord[]; next_cursor: string | null }> {
      const after = opts.cursor ? decodeCursor(opts.cursor) : null;
      const rows = await store.page(after, opts.limit + 1);
      const page = rows.slice(0, opts.limit);
      return {
        data: page.map(presentNamespace),
        next_cursor: rows.length > opts.limit ? encodeCursor(page[page.length - 1]!.name) : null,
      };
    },

    async create(input: { name: string; config?: NamespaceConfig }, actor: Actor): Promise<NamespaceRecord> {
      return locks.run(input.name, async () => {
        const config = input.config ?? defaultConfig();
        if (store.get(input.name)) throw new HearthError('namespace_exists', `namespace ${JSON.stringify(input.name)} already exists`);
        const fileId = crypto.randomUUID();
        const created_at = new Date().toISOString();
        let storage: StorageInfo;
        try {
          storage = createFile(fileId, config);
        } catch (err) {
          removeDbFiles(dir, fileId);
          throw err;
        }
        try {
          await store.tx(async () => {
            const row = { name: input.name, file_id: fileId, created_at, config: JSON.stringify(config) };
            await store.insert({ ...row, storage: JSON.stringify(storage), last_activity_at: created_at });
            await record({ actor, action: 'namespace.create', target: input.name, detail: { config } });
          });
        } catch (err) {
          removeDbFiles(dir, fileId);
          if (isUniqueViolation(err)) {
            throw new HearthError('namespace_exists', `namespace ${JSON.stringify(input.name)} already exists`);
          }
          throw err;
        }
        return presentNamespace(store.get(input.name)!);
      });
    },

    async updateConfig(name: string, config: NamespaceConfig, actor: Actor): Promise<NamespaceRecord> {
      return locks.run(name, async () => {
        const row = requireRow(name);
        const before = JSON.parse(row.config) as NamespaceConfig;
        try {
          handles.reconfigure(name, config);
        } catch (err) {
          // Put the old settings back on the open connection and report why the new ones cannot apply.
          try {
            handles.reconfigure(name, before);
          } catch {
            void handles.close(name);
          }
          throw new HearthError('conflict', `configuration could not be applied: ${(err as Error).message}`);
        }
        await store.tx(async () => {
          await store.setConfig(name, JSON.stringify(config));
          await record({ actor, action: 'namespace.config', target: name, detail: { before, after: config } });
        });
        return presentNamespace(store.get(name)!);
      });
    },

    async delete(name: string, actor: Actor): Promise<void> {
      await locks.run(name, async () => {
        const row = requireRow(name);
        await handles.close(name);
        await store.tx(async () => {
          await store.remove(name);
          await record({ actor, action: 'namespace.delete', target: name });
        });
        removeDbFiles(dir, row.file_id);
        deps.onGone?.(name, 'deleted');
      });
    },

    async duplicate(name: string, target: string, actor: Actor): Promise<NamespaceRecord> {
      const source = requireRow(name);
      return locks.run(target, async () => {
        if (store.get(target)) throw new HearthError('namespace_exists', `namespace ${JSON.stringify(target)} already exists`);
        const fileId = crypto.randomUUID();
        const file = dbFile(dir, fileId);
        const config = JSON.parse(source.config) as NamespaceConfig;
        try {
          await snapshot(name, file, { durable: true });
          const storage = createFile(fileId, config);
          const at = new Date().toISOString();
          await store.tx(async () => {
            await store.insert({
              name: target,
              file_id: fileId,
              created_at: at,
              config: source.config,
              storage: JSON.stringify(storage),
              last_activity_at: at,
            });
            await record({ actor, action: 'namespace.duplicate', target, detail: { source: name } });
          });
        } catch (err) {
          removeDbFiles(dir, fileId);
          if (isUniqueViolation(err)) throw new HearthError('namespace_exists', `namespace ${JSON.stringify(target)} already exists`);
          throw err;
        }
        return presentNamespace(store.get(target)!);
      });
    },

    /** Writes a consistent snapshot to a temporary file; the caller streams it and calls `cleanup()`. */
    async exportSnapshot(name: string, actor: Actor): Promise<{ file: string; size: number; cleanup: () => void }> {
      requireRow(name);
      const file = path.join(tmpDir, `export-${crypto.randomUUID()}.db`);
      const cleanup = () => removeDbFiles(path.dirname(file), path.basename(file, '.db'));
      try {
        await snapshot(name, file);
        // A self-contained file: rollback-journal mode, nothing left in a WAL beside it.
        const db = new Database(file);
        db.pragma('journal_mode = DELETE');
        db.close();
        record({ actor, action: 'namespace.export', target: name });
        await store.flushActivity([[name, new Date().toISOString()]]);
        return { file, size: fs.statSync(file).size, cleanup };
      } catch (err) {
        cleanup();
        throw err;
      }
    },

    /** Replaces a namespace's database with an uploaded one, atomically; a failed import changes nothing. */
    async importDatabase(name: string, upload: Upload, actor: Actor): Promise<NamespaceRecord> {
      requireRow(name);
      return locks.run(name, async () => {
        const row = requireRow(name);
        const config = JSON.parse(row.config) as NamespaceConfig;
        if (config.max_db_size !== null && upload.size > config.max_db_size) throw quotaExceeded(upload.size, config.max_db_size);
        checkHead(upload);

        // The upload is put under its new file name first and checked there: one path for uploads held in memory
        // and spilled ones, whatever journal mode the file was saved in. A refused file is removed with its -wal/-shm.
        const fileId = crypto.randomUUID();
        const file = dbFile(dir, fileId);
        let info: Awaited<ReturnType<typeof checkFile>>;
        let storage: StorageInfo;
        try {
          if (upload.kind === 'memory') fs.writeFileSync(file, upload.buffer, { flag: 'wx', mode: 0o600 });
          else fs.renameSync(upload.path, file);
          info = await checkFile(file);
          const logical = info.pageSize * info.pageCount;
          if (config.max_db_size !== null && logical > config.max_db_size) throw quotaExceeded(logical, config.max_db_size);
          // The namespace's configuration (journal mode included) replaces whatever the file was saved with.
          storage = createFile(fileId, config);
        } catch (err) {
          removeDbFiles(dir, fileId);
          throw err;
        }
        await handles.close(name);
        try {
          await store.tx(async () => {
            await store.setFile(name, fileId, JSON.stringify(storage));
            await store.flushActivity([[name, new Date().toISOString()]]);
            await record({ actor, action: 'namespace.import', target: name, detail: { bytes: upload.size, sha256: upload.sha256, tables: info.tables } });
          });
        } catch (err) {
          removeDbFiles(dir, fileId);
          throw err;
        }
        removeDbFiles(dir, row.file_id);
        deps.onGone?.(name, 'replaced');
        return presentNamespace(store.get(name)!);
      });
    },

    /** Removes database files no registry row points at (left by a crash between steps) and stale temporary files. */
    async sweepOrphans(): Promise<number> {
      const known = await store.fileIds();
      let removed = 0;
      for (const f of fs.readdirSync(dir)) {
        const m = /^([0-9a-f-]{36})\.db(-wal|-shm|-journal)?$/.exec(f);
        if (m && !known.has(m[1]!)) {
          fs.rmSync(path.join(dir, f), { force: true });
          removed++;
        }
      }
      for (const f of fs.readdirSync(tmpDir)) fs.rmSync(path.join(tmpDir, f), { force: true, recursive: true });
      return removed;
    },

    async flushActivity(): Promise<void> {
      const entries = handles.drainActivity();
      if (entries.length) await store.flushActivity(entries);
    },

    count: () => store.count(),

    /** Every namespace with its database file's id (for a backup's parts). */
    files: (): Array<{ name: string; fileId: string }> => store.files(),

    /** A namespace's snapshot for a backup: 'vanished' when it was deleted or replaced since it was listed. */
    snapshot: (name: string, fileId: string, dest: string, onProgress: (done: number, total: number) => void) =>
      snapshot(name, dest, { onProgress, fileId, hash: true, image: true }),

    /** Starts the periodic activity flush and storage measurement; returns a stop function. */
    startJobs(): () => void {
      const flush = setInterval(() => {
        service.flushActivity().catch((err) => logger.warn({ err }, 'could not flush namespace activity'));
      }, ACTIVITY_FLUSH_MS);
      const measure = setInterval(() => handles.measureOpen(), STORAGE_MEASURE_MS);
      flush.unref();
      measure.unref();
      return () => {
        clearInterval(flush);
        clearInterval(measure);
      };
    },

    async close(): Promise<void> {
      await service.flushActivity();
      await handles.closeAll();
      await Promise.all(storageWrites);
      store.stop();
    },
  };
  return service;
}

export type NamespaceService = ReturnType<typeof createNamespaceService>;
