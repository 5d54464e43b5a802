/**
 * The namespace control plane: create, configure, list, duplicate, export, import and delete namespaces, each a
 * SQLite database in `<data>/namespaces/<fileId>.db` recorded in the registry (namespaces.store.ts, in the core
 * store). Changes to one name run one after another (`Locks`); a registry write and its audit record commit together.
 * With several nodes (replicas sharing one core store) a namespace's file lives on its row's `node`: this node opens
 * only its own namespaces (another's answers 421 `namespace_elsewhere`), creates the database of one placed here by
 * another node when it hears of it, and removes the files of one of its own deleted elsewhere.
 * A new database file (create, duplicate, import) that a full disk refuses is removed again and answered 507
 * `disk_full` (storage-errors.ts), as is a registry write platform.db's full disk refuses: nothing is left behind. A
 * database the full disk will not let SQLite open (no room for its `-shm` file) is 507 `disk_full` too.
 *
 * One file because every operation runs inside the same closure: the name locks, the open-handle manager, the
 * registry's remote-change hook and the disk-full rule; each operation is a short sequence of those. The snapshot copy
 * (`snapshot`, shared by duplicate, export and backup) is the one part that could stand on its own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { privateDir, privateFile } from '../../core/storage/data-dir.ts';
import { BACKUP_IMAGE_MAX, copyWalDatabase, type SnapshotCopy } from '../../core/storage/snapshot-thread.ts';
import { Database } from '../../core/storage/sqlite.ts';
import { diskFull, isDiskFull } from '../storage-errors.ts';
import { dbFile, HandleManager, removeDbFiles, type StorageInfo, type TenantDb } from './handles.ts';
import { checkFile, checkUploadHead, createDatabaseFile, Locks } from './namespaces.files.ts';
import { NAMESPACE_NAME, NamespaceConfig, type NamespaceRecord } from './namespaces.schemas.ts';
import { isUniqueViolation, type NamespaceRow, type NamespaceStore } from './namespaces.store.ts';

export interface Actor {
  actor: string;
  requestId?: string;
}

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
    node: row.node,
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

const notFound = (name: string) => new HearthError('namespace_not_found', `namespace ${quoteInput(name)} does not exist`);
const quotaExceeded = (bytes: number, max: number) =>
  new HearthError('quota_exceeded', `the database (${bytes} bytes) exceeds the namespace quota max_db_size of ${max} bytes`);

const notCreated = (name: string) => `namespace ${quoteInput(name)} was not created`;

export interface NamespaceServiceDeps {
  store: NamespaceStore;
  audit: AuditLog;
  logger: Logger;
  dataDir: string;
  maxOpen: number;
  /** This process's node: the namespaces placed on it have their files in `dataDir` (default `local`). */
  node?: string;
  /** The node a new namespace goes to (the requested one, checked, or the least loaded); default: this node. */
  place?: (requested?: string) => Promise<string>;
  /** Called on every tenant connection after it is opened (SQL functions). */
  onOpen?: (db: TenantDb) => void;
  /** Called after a namespace's database is deleted or replaced by an import. */
  onGone?: (name: string, why: 'deleted' | 'replaced') => void;
}

export function createNamespaceService(deps: NamespaceServiceDeps) {
  const { store, audit, logger } = deps;
  const self = deps.node ?? 'local';
  /** Whether a row's database file lives on this node (a row no node claimed yet is a single node's). */
  const here = (row: NamespaceRow) => row.node === null || row.node === self;
  const dir = path.join(deps.dataDir, 'namespaces');
  const tmpDir = path.join(deps.dataDir, 'tmp');
  privateDir(tmpDir);
  const locks = new Locks();
  /**
   * `err` of a step that wrote a new database file in `dir` (its files already removed), opened one, or wrote a
   * registry row to platform.db in the data folder: 507 `disk_full` when the disk refused it, else `err` itself.
   */
  const full = (err: unknown, where: string, notDone: string): unknown => (isDiskFull(err) ? diskFull(where, { notDone }) : err);
  /** Storage measurements being written (a closing handle measures its file): `close()` waits for them. */
  const storageWrites = new Set<Promise<void>>();

  const handles = new HandleManager({
    dir,
    maxOpen: deps.maxOpen,
    logger,
    onOpen: deps.onOpen,
    lookup(name) {
      const row = store.get(name);
      if (!row) return null;
      if (!here(row)) {
        throw new HearthError('namespace_elsewhere', `namespace ${quoteInput(name)} lives on node ${quoteInput(row.node)}: send its requests there`);
      }
      const config = JSON.parse(row.config) as NamespaceConfig;
      // Placed here by another node and not created yet (no storage measured): create its empty database now.
      if (row.storage === null && !fs.existsSync(dbFile(dir, row.file_id))) materialize(row);
      return { fileId: row.file_id, config };
    },
    openError: (err, name) => full(err, dir, `the database of namespace ${JSON.stringify(name)} could not be opened`),
    onStorage(name, fileId, info) {
      const write = store.setStorage(name, fileId, JSON.stringify(info)).catch((err) => logger.warn({ err, ns: name }, 'could not record namespace storage'));
      storageWrites.add(write);
      void write.finally(() => storageWrites.delete(write));
    },
  });

  /** Creates the empty database of a namespace another node placed here, and records its storage. */
  function materialize(row: NamespaceRow): void {
    const storage = createDatabaseFile(dir, row.file_id, JSON.parse(row.config) as NamespaceConfig);
    store.setStorage(row.name, row.file_id, JSON.stringify(storage)).catch((err) => logger.warn({ err, ns: row.name }, 'could not record namespace storage'));
  }
  const materializeSafely = (row: NamespaceRow) => {
    try {
      if (!fs.existsSync(dbFile(dir, row.file_id))) materialize(row);
    } catch (err) {
      logger.error({ err, ns: row.name }, 'could not create the database of a namespace placed on this node');
    }
  };

  // Another process created, changed or deleted a namespace: drop this process's connection to it (the next request
  // opens the current file with the current configuration) and end what belonged to the old database. A namespace
  // placed here by another node gets its empty database; one of this node's deleted elsewhere loses its files.
  store.onRemoteChange((name, before, after) => {
    if (after && !before && after.node === self && after.storage === null) materializeSafely(after);
    if (!before) return;
    void handles.close(name).then(() => {
      if (!after) {
        if (here(before)) removeDbFiles(dir, before.file_id);
        deps.onGone?.(name, 'deleted');
      } else if (after.file_id !== before.file_id) deps.onGone?.(name, 'replaced');
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

  const service = {
    handles,
    dir,
    tmpDir,

    exists: (name: string) => NAMESPACE_NAME.test(name) && store.get(name) !== undefined,

    /** The stored record (read from the core store: activity and storage as its node last wrote them). */
    async get(name: string): Promise<NamespaceRecord> {
      await Promise.all(storageWrites); // this node's measurements in flight are part of the answer
      const row = NAMESPACE_NAME.test(name) ? await store.fetch(name) : undefined;
      if (!row) throw notFound(name);
      return presentNamespace(row);
    },

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
      await Promise.all(storageWrites);
      const rows = await store.page(after, opts.limit + 1);
      const page = rows.slice(0, opts.limit);
      return {
        data: page.map(presentNamespace),
        next_cursor: rows.length > opts.limit ? encodeCursor(page[page.length - 1]!.name) : null,
      };
    },

    /**
     * Creates a namespace on the node `place` picks. On this node its database is created now; on another node the
     * row is the placement, and that node creates the empty database when it hears of it (or at its first request).
     */
    async create(input: { name: string; config?: NamespaceConfig; node?: string }, actor: Actor): Promise<NamespaceRecord> {
      return locks.run(input.name, async () => {
        const config = input.config ?? defaultConfig();
        if (store.get(input.name)) throw new HearthError('namespace_exists', `namespace ${quoteInput(input.name)} already exists`);
        const node = deps.place ? await deps.place(input.node) : self;
        const fileId = crypto.randomUUID();
        const created_at = new Date().toISOString();
        if (node !== self) {
          try {
            await store.tx(async () => {
              await store.insert({ name: input.name, file_id: fileId, created_at, config: JSON.stringify(config), last_activity_at: created_at, node });
              await record({ actor, action: 'namespace.create', target: input.name, detail: { config, node } });
            });
          } catch (err) {
            if (isUniqueViolation(err)) throw new HearthError('namespace_exists', `namespace ${quoteInput(input.name)} already exists`);
            throw err;
          }
          return presentNamespace(store.get(input.name)!);
        }
        let storage: StorageInfo;
        try {
          storage = createDatabaseFile(dir, fileId, config);
        } catch (err) {
          removeDbFiles(dir, fileId);
          throw full(err, dir, notCreated(input.name));
        }
        try {
          await store.tx(async () => {
            const row = { name: input.name, file_id: fileId, created_at, config: JSON.stringify(config), node };
            await store.insert({ ...row, storage: JSON.stringify(storage), last_activity_at: created_at });
            await record({ actor, action: 'namespace.create', target: input.name, detail: { config, node } });
          });
        } catch (err) {
          removeDbFiles(dir, fileId);
          if (isUniqueViolation(err)) {
            throw new HearthError('namespace_exists', `namespace ${quoteInput(input.name)} already exists`);
          }
          throw full(err, deps.dataDir, notCreated(input.name));
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
        if (store.get(target)) throw new HearthError('namespace_exists', `namespace ${quoteInput(target)} already exists`);
        const fileId = crypto.randomUUID();
        const file = dbFile(dir, fileId);
        const config = JSON.parse(source.config) as NamespaceConfig;
        try {
          await snapshot(name, file, { durable: true });
          const storage = createDatabaseFile(dir, fileId, config);
          const at = new Date().toISOString();
          await store.tx(async () => {
            await store.insert({
              name: target,
              file_id: fileId,
              created_at: at,
              config: source.config,
              node: self,
              storage: JSON.stringify(storage),
              last_activity_at: at,
            });
            await record({ actor, action: 'namespace.duplicate', target, detail: { source: name } });
          });
        } catch (err) {
          removeDbFiles(dir, fileId);
          if (isUniqueViolation(err)) throw new HearthError('namespace_exists', `namespace ${quoteInput(target)} already exists`);
          throw full(err, dir, notCreated(target));
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
        checkUploadHead(upload);

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
          storage = createDatabaseFile(dir, fileId, config);
        } catch (err) {
          removeDbFiles(dir, fileId);
          throw full(err, dir, `namespace ${quoteInput(name)} keeps its database`);
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
          throw full(err, deps.dataDir, `namespace ${quoteInput(name)} keeps its database`);
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
    files: (): Array<{ name: string; fileId: string }> => store.files(self),

    /** This node's id. */
    node: self,

    /** Runs `fn` while no other control-plane operation on `name` runs here (a move). */
    exclusive: <T>(name: string, fn: () => Promise<T>) => locks.run(name, fn),
    /** A consistent copy of the namespace's database at `dest` with its size and SHA-256 ('vanished': replaced or deleted). */
    copyOut: (name: string, fileId: string, dest: string) => snapshot(name, dest, { fileId, hash: true }),
    /** The namespace moved to another node: its connection closed, its event streams ended, its files here removed. */
    async movedAway(name: string, fileId: string): Promise<void> {
      await handles.close(name);
      removeDbFiles(dir, fileId);
      deps.onGone?.(name, 'replaced');
    },

    /** Creates the missing databases of namespaces other nodes placed here while this node was away. */
    materializePlaced(): void {
      for (const row of store.on(self)) if (row.storage === null) materializeSafely(row);
    },

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
