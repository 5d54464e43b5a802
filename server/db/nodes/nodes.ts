/**
 * Nodes: the machines whose replicas share one core store, each holding the SQLite files of the namespaces placed on
 * it. Every node registers itself in the core store's `nodes` table and writes a
 * heartbeat every third of `healthyMs` (at most every 5 s) with its URL and load figures; a node is healthy while
 * its heartbeat is younger than `healthyMs`, it has not stopped (a graceful stop records `stopped_at`, so the
 * others stop placing namespaces on it at once) and it has a URL (it registers at start, and gets its URL once it
 * listens).
 *
 * Placement (`place`): a new namespace goes to the node asked for (unknown: 400 `node_unknown`; not healthy: 409
 * `node_unavailable`), else to the healthy node holding the fewest namespaces (this node first among equals, then by
 * id). The figures come from the store when a namespace is placed (two replicas placing at once may pick the same
 * node: placement balances, it does not guarantee). `ownerOf` answers from the node list read at the last
 * heartbeat: whom to forward a namespace's requests to.
 *
 * Times are epoch milliseconds of each node's own clock: keep the nodes' clocks in step (NTP), or a node whose clock
 * runs behind by more than `healthyMs` looks down to the others.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import { privateFile } from '../../core/storage/data-dir.ts';
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';

const NODES_003 = `
  CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    version TEXT NOT NULL,
    started_at TEXT NOT NULL,
    heartbeat_at INTEGER NOT NULL,
    stopped_at TEXT,
    namespaces INTEGER NOT NULL,
    open_namespaces INTEGER NOT NULL
  ) STRICT;
  ALTER TABLE namespaces ADD COLUMN node TEXT;
  CREATE INDEX namespaces_node ON namespaces (node);
`;

export const nodeMigrations: Migration[] = [{ id: 'db-003-nodes', up: NODES_003, pg: postgresDdl(NODES_003) }];

/** A heartbeat at most this often apart, however long `healthyMs` is. */
const MAX_HEARTBEAT_MS = 5000;
const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

interface NodeRow {
  id: string;
  url: string;
  version: string;
  started_at: string;
  heartbeat_at: number;
  stopped_at: string | null;
  namespaces: number;
  open_namespaces: number;
}

/** A node as `/healthz` shows it. */
export interface NodeHealth {
  id: string;
  url: string;
  healthy: boolean;
  /** Milliseconds since its last heartbeat. */
  heartbeat_age_ms: number;
  namespaces: number;
  started_at: string;
  version: string;
  /** This process's node. */
  self: boolean;
}

/** Who holds a namespace's database file: where to forward its requests. */
export interface Owner {
  node: string;
  url: string;
  healthy: boolean;
}

/** This node's id: the configured one, else the one kept in the data folder (written at the first start). */
export function nodeIdOf(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'node-id');
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (NODE_ID.test(id)) return id;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = `node-${crypto.randomBytes(6).toString('hex')}`;
  privateFile(file);
  fs.writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}

export interface NodesDeps {
  store: Store;
  logger: Logger;
  id: string;
  version: string;
  healthyMs: number;
  /** Namespaces placed on each node (the registry's figures). */
  namespacesOn: () => Map<string, number>;
  /** Tenant databases this node has open. */
  openHere: () => number;
  now?: () => number;
}

export function createNodes(deps: NodesDeps) {
  const { store, logger, id } = deps;
  const now = deps.now ?? Date.now;
  const every = Math.max(100, Math.min(MAX_HEARTBEAT_MS, Math.floor(deps.healthyMs / 3)));
  const startedAt = new Date(now()).toISOString();
  let url = '';
  let rows: NodeRow[] = [];
  let timer: NodeJS.Timeout | null = null;
  let beating: Promise<void> | null = null;
  const downListeners: Array<(node: Owner) => void> = [];

  /** Heartbeat young enough, not stopped, and reachable (a node has no URL until it listens). */
  const healthy = (r: NodeRow, at: number) => r.stopped_at === null && r.url !== '' && at - r.heartbeat_at < deps.healthyMs;
  /** The other nodes healthy at the last read. */
  let up = new Set<string>();
  /** Reads every node; tells the listeners of each other node that was healthy at the last read and is not now. */
  const readAll = async () => {
    const next = await store.all<NodeRow>('SELECT * FROM nodes ORDER BY id');
    const at = now();
    rows = next;
    const was = up;
    up = new Set(next.filter((r) => r.id !== id && healthy(r, at)).map((r) => r.id));
    for (const node of was) {
      if (up.has(node)) continue;
      const url = next.find((r) => r.id === node)?.url ?? '';
      for (const fn of downListeners) {
        try {
          fn({ node, url, healthy: false });
        } catch (err) {
          logger.warn({ err, node }, 'a node-down listener failed');
        }
      }
    }
    return next;
  };

  /** Writes this node's heartbeat and load, then reads every node's. */
  async function beat(): Promise<void> {
    const counts = deps.namespacesOn();
    await store.run(
      `INSERT INTO nodes (id, url, version, started_at, heartbeat_at, stopped_at, namespaces, open_namespaces)
       VALUES (@id, @url, @version, @started_at, @at, NULL, @namespaces, @open)
       ON CONFLICT (id) DO UPDATE SET url = excluded.url, version = excluded.version, started_at = excluded.started_at,
         heartbeat_at = excluded.heartbeat_at, stopped_at = NULL, namespaces = excluded.namespaces, open_namespaces = excluded.open_namespaces`,
      { id, url, version: deps.version, started_at: startedAt, at: now(), namespaces: counts.get(id) ?? 0, open: deps.openHere() },
    );
    await readAll();
  }
  /** One heartbeat at a time; a failed one is logged (the node turns unhealthy to the others if they keep failing). */
  const heartbeat = (): Promise<void> => {
    beating ??= beat()
      .catch((err) => logger.warn({ err }, 'could not write the node heartbeat'))
      .finally(() => {
        beating = null;
      });
    return beating;
  };

  return {
    id,
    /** Registers this node and starts its heartbeat. */
    async start(): Promise<void> {
      await beat();
      timer ??= setInterval(() => void heartbeat(), every);
      timer.unref();
    },
    /** Sets the URL other replicas reach this node at (once listening, and after a move) and announces it at once. */
    setUrl(next: string): Promise<void> {
      url = next;
      return heartbeat();
    },
    heartbeat,
    /**
     * Calls `fn` when another node turns unhealthy (seen at a heartbeat, or at a placement): its heartbeat got too
     * old or it stopped. The forwarding proxy drops its connections to that node.
     */
    onDown(fn: (node: Owner) => void): void {
      downListeners.push(fn);
    },
    /** Every registered node, as read at the last heartbeat. */
    list(): NodeHealth[] {
      const at = now();
      const counts = deps.namespacesOn();
      return rows.map((r) => ({
        id: r.id,
        url: r.url,
        healthy: healthy(r, at),
        heartbeat_age_ms: Math.max(0, at - r.heartbeat_at),
        namespaces: counts.get(r.id) ?? 0,
        started_at: r.started_at,
        version: r.version,
        self: r.id === id,
      }));
    },
    /** The node a namespace's file lives on, its URL and whether it is healthy; null when the node is not registered. */
    owner(node: string): Owner | null {
      if (node === id) return { node: id, url, healthy: true }; // this process answers, so it is up
      const r = rows.find((n) => n.id === node);
      return r ? { node: r.id, url: r.url, healthy: healthy(r, now()) } : null;
    },
    /** The node a new namespace goes to (see the header). */
    async place(requested?: string): Promise<string> {
      const all = await readAll();
      const at = now();
      if (requested !== undefined) {
        const r = all.find((n) => n.id === requested);
        if (!r) throw new HearthError('node_unknown', `node ${quoteInput(requested)} is not registered (see the nodes in /healthz)`);
        if (!healthy(r, at)) {
          const why = r.stopped_at ? `stopped at ${r.stopped_at}` : `last heartbeat ${Math.round((at - r.heartbeat_at) / 1000)} s ago`;
          throw new HearthError('node_unavailable', `node ${quoteInput(requested)} is not healthy (${why}): place the namespace on another node`);
        }
        return r.id;
      }
      const counts = new Map(
        (await store.all<{ node: string; n: number }>('SELECT node, count(*) AS n FROM namespaces WHERE node IS NOT NULL GROUP BY node')).map((r) => [
          r.node,
          r.n,
        ]),
      );
      // This node is placing, so it is up whatever its last heartbeat says.
      const candidates = all.filter((r) => r.id === id || healthy(r, at)).map((r) => r.id);
      if (!candidates.includes(id)) candidates.push(id);
      candidates.sort((a, b) => (counts.get(a) ?? 0) - (counts.get(b) ?? 0) || Number(b === id) - Number(a === id) || (a < b ? -1 : 1));
      return candidates[0]!;
    },
    /** Stops the heartbeat and records the stop, so the other nodes count this one down at once. */
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      await beating;
      await store.run('UPDATE nodes SET stopped_at = ? WHERE id = ?', [new Date(now()).toISOString(), id]).catch((err) => {
        logger.warn({ err }, 'could not record the node stop');
      });
    },
  };
}

export type Nodes = ReturnType<typeof createNodes>;
