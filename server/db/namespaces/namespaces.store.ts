/**
 * The namespace registry in the core store (platform.db or PostgreSQL). It never opens a tenant database.
 *
 * Every data-plane request looks its namespace up (`get`), so the registry keeps a per-process cache of every row
 * and answers `get` from it synchronously. The cache is loaded by `start()` and kept current by:
 * - this process's writes (`insert`, `remove`, `setConfig`, `setFile`, `setStorage`, `flushActivity`): each runs in
 *   a transaction of its own or joins the one `tx()` opened around it, and the rows it wrote (`RETURNING *`) enter the
 *   cache when that transaction commits (never before, never on rollback). Do not wrap them in a plain `store.tx`:
 *   the registry could not tell when it commits (refused);
 * - other replicas' writes: every registry write notifies `hearth_namespaces` (payload: the name) at commit, and each
 *   process re-reads the named row when notified (PostgreSQL LISTEN/NOTIFY; on SQLite the notification reaches this
 *   process only, which is all one process needs). Re-reads run one after another in arrival order, so a later
 *   notification's read is applied last; a read that began before one of this process's writes committed leaves
 *   that name's row alone (the write's own notification re-reads it);
 * - a full re-read every `resyncMs` (default 30 s), for notifications lost while the listening connection was down
 *   and for processes sharing one platform.db.
 * Activity times and storage measurements are written without a notification (they change often and only the
 * namespace's own node writes them): other processes see them at their next re-read; control-plane reads that must
 * be current (`fetch`, `page`) read the store.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { Logger } from '../../core/logging/logger.ts';
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';

const NAMESPACES_001 = `
  CREATE TABLE namespaces (
    name TEXT PRIMARY KEY,
    file_id TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    config TEXT NOT NULL,
    last_activity_at TEXT,
    storage TEXT
  ) STRICT;
`;

export const namespaceMigrations: Migration[] = [{ id: 'db-001-namespaces', up: NAMESPACES_001, pg: postgresDdl(NAMESPACES_001) }];

/** The channel every registry write notifies at commit (payload: the namespace's name). */
export const REGISTRY_CHANNEL = 'hearth_namespaces';
const RESYNC_MS = 30_000;

export interface NamespaceRow {
  name: string;
  file_id: string;
  created_at: string;
  config: string;
  last_activity_at: string | null;
  storage: string | null;
  /** The node its database file lives on (db-003; null only before a node claimed the rows of a single node). */
  node: string | null;
}

export interface NamespaceStoreOptions {
  logger?: Logger;
  /** Full re-read of the registry (ms; 0: never). */
  resyncMs?: number;
}

/** Whether an error is a unique-key violation (SQLite's or PostgreSQL's). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === '23505' || code.startsWith('SQLITE_CONSTRAINT_PRIMARYKEY') || code.startsWith('SQLITE_CONSTRAINT_UNIQUE');
}

export function createNamespaceStore(store: Store, opts: NamespaceStoreOptions = {}) {
  const cache = new Map<string, NamespaceRow>();
  /** The rows the open registry transaction wrote (null: deleted), applied to the cache when it commits. */
  const staged = new AsyncLocalStorage<Map<string, NamespaceRow | null>>();
  const listeners: Array<(name: string, before: NamespaceRow | undefined, after: NamespaceRow | undefined) => void> = [];
  let refreshing: Promise<unknown> = Promise.resolve();
  /**
   * This process's committed registry writes, counted, and the count at each name's latest: a re-read that began
   * before a local write committed must not put its older row back (on PostgreSQL a read and a commit interleave).
   */
  let writes = 0;
  const writtenAt = new Map<string, number>();
  let unlisten: (() => void) | null = null;
  let timer: NodeJS.Timeout | null = null;
  /**
   * This registry's name on the notification channel: its own notifications come back to it on PostgreSQL, possibly
   * before its COMMIT answers, and a re-read then would take its own write for another process's (and close its own
   * open connection). It applies its own writes at commit instead, and ignores notifications it sent.
   */
  const self = crypto.randomUUID();

  /** Sets a cached row; tells the listeners when another process changed it. */
  const apply = (name: string, row: NamespaceRow | null, remote: boolean) => {
    const before = cache.get(name);
    if (row) cache.set(name, row);
    else cache.delete(name);
    if (remote && (before?.file_id !== row?.file_id || before?.config !== row?.config || before?.node !== row?.node)) {
      for (const fn of listeners) fn(name, before, row ?? undefined);
    }
  };

  /** Runs `fn` in a registry transaction (joining the open one); the rows written enter the cache at commit. */
  async function tx<T>(fn: () => Promise<T>): Promise<T> {
    if (staged.getStore()) return fn();
    if (store.inTx()) throw new Error('registry writes run in the registry’s own transaction (registry.tx), not inside store.tx');
    const rows = new Map<string, NamespaceRow | null>();
    const result = await staged.run(rows, () => store.tx(fn));
    for (const [name, row] of rows) {
      writtenAt.set(name, ++writes);
      apply(name, row, false);
    }
    return result;
  }

  /** Records a written row (or a deletion) for the cache; `notify` wakes the other processes at commit. */
  const wrote = async (name: string, row: NamespaceRow | null, notify: boolean) => {
    staged.getStore()!.set(name, row);
    if (notify) await store.notify(REGISTRY_CHANNEL, `${self} ${name}`);
  };

  /** Queues a re-read of one row (from a notification) or of all of them, after those queued before. */
  const queue = (fn: () => Promise<void>) => {
    const next = refreshing.then(fn).catch((err) => opts.logger?.warn({ err }, 'could not re-read the namespace registry'));
    refreshing = next;
    return next;
  };
  /** Applies a row read by a re-read that began when `since` local writes had committed, unless one wrote it since. */
  const applyRead = (name: string, row: NamespaceRow | null, since: number) => {
    if ((writtenAt.get(name) ?? 0) <= since) apply(name, row, true);
  };
  const reread = (name: string) =>
    queue(async () => {
      const since = writes;
      const row = await store.get<NamespaceRow>('SELECT * FROM namespaces WHERE name = ?', [name]);
      applyRead(name, row ?? null, since);
    });
  const reload = () =>
    queue(async () => {
      const since = writes;
      const rows = await store.all<NamespaceRow>('SELECT * FROM namespaces');
      const seen = new Set<string>();
      for (const r of rows) {
        seen.add(r.name);
        applyRead(r.name, r, since);
      }
      for (const name of [...cache.keys()]) if (!seen.has(name)) applyRead(name, null, since);
    });

  const returning = async (sql: string, params: unknown[]) => store.get<NamespaceRow>(`${sql} RETURNING *`, params);

  return {
    /** Loads the registry and starts following other processes' writes. */
    async start(): Promise<void> {
      unlisten ??= await store.listen(REGISTRY_CHANNEL, (payload) => {
        // `<sender> <name>` (a namespace name has no space); a bare name from an older Hearth is someone else's.
        const at = payload.indexOf(' ');
        if (at >= 0 && payload.slice(0, at) === self) return;
        void reread(at >= 0 ? payload.slice(at + 1) : payload);
      });
      await reload();
      const every = opts.resyncMs ?? RESYNC_MS;
      if (every > 0 && !timer) {
        timer = setInterval(() => void reload(), every);
        timer.unref();
      }
    },
    /** Reads one row again now (after the re-reads queued before it): a move this process has not heard of yet. */
    refresh: (name: string): Promise<void> => reread(name),
    /** Waits for the re-reads queued so far (tests). */
    settled: () => refreshing.then(() => {}),
    /** Stops following other processes' writes. */
    stop(): void {
      unlisten?.();
      unlisten = null;
      if (timer) clearInterval(timer);
      timer = null;
    },
    /** Called when another process created, changed (file or configuration) or deleted a namespace. */
    onRemoteChange(fn: (name: string, before: NamespaceRow | undefined, after: NamespaceRow | undefined) => void): void {
      listeners.push(fn);
    },
    tx,

    /** The cached row (the data plane's lookup). */
    get: (name: string): NamespaceRow | undefined => cache.get(name),
    /** The stored row, read now (the control plane's record, with another node's activity and storage). */
    fetch: (name: string) => store.get<NamespaceRow>('SELECT * FROM namespaces WHERE name = ?', [name]),
    /**
     * Whether the namespace's row is stored, read now and never from the cache: inside the caller's open transaction of
     * the core store when there is one (the telemetry flush writes rollups only for namespaces its transaction sees).
     */
    isStored: async (name: string): Promise<boolean> => (await store.value('SELECT 1 FROM namespaces WHERE name = ?', [name])) !== undefined,
    // Keyset paging: `name > ?` seeks in the primary-key index ('' precedes every valid name).
    page: (after: string | null, limit: number) =>
      store.all<NamespaceRow>('SELECT * FROM namespaces WHERE name > ? ORDER BY name LIMIT ?', [after ?? '', limit]),
    count: () => cache.size,
    /** Namespaces per node (cached rows). */
    perNode(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const r of cache.values()) if (r.node !== null) counts.set(r.node, (counts.get(r.node) ?? 0) + 1);
      return counts;
    },
    /** The cached rows of the namespaces on `node`. */
    on: (node: string) => [...cache.values()].filter((r) => r.node === node),
    /** Every stored file id (the orphan sweep compares the folder against the store, not the cache). */
    fileIds: async () => new Set((await store.all<{ file_id: string }>('SELECT file_id FROM namespaces')).map((r) => r.file_id)),
    /** The namespaces whose files live on `node`, with their file ids, by name (a backup's parts). */
    files: (node: string) =>
      [...cache.values()]
        .filter((r) => r.node === node)
        .map((r) => ({ name: r.name, fileId: r.file_id }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),

    insert: (
      row: Omit<NamespaceRow, 'last_activity_at' | 'storage' | 'node'> & { last_activity_at?: string | null; storage?: string | null; node?: string | null },
    ) =>
      tx(async () => {
        const r = await returning('INSERT INTO namespaces (name, file_id, created_at, config, last_activity_at, storage, node) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          row.name,
          row.file_id,
          row.created_at,
          row.config,
          row.last_activity_at ?? null,
          row.storage ?? null,
          row.node ?? null,
        ]);
        await wrote(row.name, r!, true);
      }),
    /**
     * Places the namespaces no node holds yet on `node` (those of a single node from before db-003); with `all`, every
     * namespace not on it (a core store in platform.db belongs to one data folder, which holds every namespace's file:
     * a restored backup or a copied folder gets a new node id, and its namespaces follow it).
     */
    claim: (node: string, all = false) =>
      tx(async () => {
        const rows = await store.all<NamespaceRow>(
          `UPDATE namespaces SET node = ? WHERE node IS NULL${all ? ' OR node <> ?' : ''} RETURNING *`,
          all ? [node, node] : [node],
        );
        for (const r of rows) await wrote(r.name, r, true);
        return rows.length;
      }),
    remove: (name: string) =>
      tx(async () => {
        const { changes } = await store.run('DELETE FROM namespaces WHERE name = ?', [name]);
        await wrote(name, null, true);
        return changes > 0;
      }),
    setConfig: (name: string, config: string) =>
      tx(async () => {
        const r = await returning('UPDATE namespaces SET config = ? WHERE name = ?', [config, name]);
        await wrote(name, r ?? null, true);
      }),
    /** Points a namespace at another database file (an import). */
    setFile: (name: string, fileId: string, storage: string | null) =>
      tx(async () => {
        const r = await returning('UPDATE namespaces SET file_id = ?, storage = ? WHERE name = ?', [fileId, storage, name]);
        await wrote(name, r ?? null, true);
      }),
    /**
     * Places a namespace on another node with the database file installed there (a move): only while it is still on
     * `from` with file `fileId`, so a namespace deleted or replaced meanwhile is left alone (false).
     */
    moveTo: (name: string, from: { node: string; fileId: string }, to: { node: string; fileId: string; storage: string | null }) =>
      tx(async () => {
        const r = await returning('UPDATE namespaces SET node = ?, file_id = ?, storage = ? WHERE name = ? AND node = ? AND file_id = ?', [
          to.node,
          to.fileId,
          to.storage,
          name,
          from.node,
          from.fileId,
        ]);
        if (r) await wrote(name, r, true);
        return r !== undefined;
      }),
    setStorage: (name: string, fileId: string, storage: string) =>
      tx(async () => {
        const r = await returning('UPDATE namespaces SET storage = ? WHERE name = ? AND file_id = ?', [storage, name, fileId]);
        if (r) await wrote(name, r, false);
      }),
    /** Writes last-activity times in one transaction (never moves a time backwards). */
    flushActivity: (entries: Array<[string, string]>) =>
      tx(async () => {
        for (const [name, at] of entries) {
          const r = await returning('UPDATE namespaces SET last_activity_at = ? WHERE name = ? AND (last_activity_at IS NULL OR last_activity_at < ?)', [
            at,
            name,
            at,
          ]);
          if (r) await wrote(name, r, false);
        }
      }),
  };
}

export type NamespaceStore = ReturnType<typeof createNamespaceStore>;
