/**
 * Forwarding between nodes (issue 18, "Namespaces on nodes"): the Koa middleware in front of every route that sends a
 * request for a namespace held by another node to that node (core/net/forward.ts streams it both ways), and the write
 * gate a namespace's owner closes while the namespace moves (nodes/move.ts).
 *
 * Which requests go to the owner: the data plane (`/v1/{ns}/tables…`, `query`, `subscribe`, `changelog`, `overview`,
 * `rest`) and the control-plane routes that need the database file (`PUT` configuration, applied to the open
 * connection; `export`, `import`, `duplicate`, `move`). Reading the record (`GET /v1/namespaces/{ns}`) and deleting
 * (a registry write; the owner removes its file when it hears of it) are answered by whichever replica got them.
 *
 * Rules:
 * - The owner down (its heartbeat stopped, or it has no address) is 503 `namespace_unavailable` with `Retry-After`
 *   at once; an owner that cannot be reached is the same, from forward().
 * - A request forwarded here for a namespace this node's registry places elsewhere: the row is read again from the
 *   core store first (this node may not have heard of a move yet); if it is still elsewhere, the request goes on to
 *   that node once more (at most two hops: see forward()'s header).
 * - On the owner, a forwarded request's client address (logs, `ctx.ip`) is the one the forwarding peer saw
 *   (`forwardedClient`, trusted only from the address of a registered node).
 * - Writes (every method but GET, HEAD, OPTIONS; not a duplicate or a move) pass the write gate: while a move pauses the namespace they wait —
 *   at most the namespace's `busy_timeout` (at least 1 s), as for a lock — then go where the namespace is now (here
 *   when the move failed, to the new owner when it succeeded), or fail with 503 `namespace_unavailable` and
 *   `Retry-After`. Reads go on during the pause. The gate counts the writes inside, so a pause waits for them.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import type { AppContext, AppMiddleware } from '../../core/http/context.ts';
import { HearthError } from '../../core/http/errors.ts';
import { type ForwardAgents, forward, forwardedBy, forwardedClient } from '../../core/net/forward.ts';
import type { Owner } from './nodes.ts';

const DATA_PLANE = /^\/v1\/([^/]+)\/(?:tables|query|subscribe|changelog|overview|rest)(?:\/|$)/;
const CONTROL_PLANE = /^\/v1\/namespaces\/([^/]+)(\/(?:export|import|duplicate|move))?\/?$/;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const NOT_WRITES = /^\/v1\/namespaces\/[^/]+\/(?:duplicate|move)\/?$/;
const RETRY_AFTER_S = 5;

/** The namespace a request is for and whether it must be answered by the namespace's node; null: any node answers. */
export function namespaceOfRequest(method: string, path: string): string | null {
  const data = DATA_PLANE.exec(path);
  if (data && data[1] !== 'namespaces') return decode(data[1]!);
  const control = CONTROL_PLANE.exec(path);
  if (!control) return null;
  // The record is read from the core store and a delete is a registry write: any node answers those.
  if (!control[2] && (method === 'GET' || method === 'HEAD' || method === 'DELETE')) return null;
  return decode(control[1]!);
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const unavailable = (owner: Owner, why: string) =>
  new HearthError('namespace_unavailable', `the node holding this namespace (${owner.node}) ${why}; try again shortly`, {
    headers: { 'Retry-After': String(RETRY_AFTER_S) },
    details: { node: owner.node },
  });

/** Per namespace: whether a move pauses its writes, and how many writes are inside. */
export class WriteGate {
  readonly #paused = new Map<string, { ended: Promise<void>; end: () => void }>();
  readonly #inside = new Map<string, number>();
  readonly #drained = new Map<string, Array<() => void>>();

  paused(ns: string): boolean {
    return this.#paused.has(ns);
  }

  /** Waits for a pause to end, at most `ms`: true when the way is open. */
  async wait(ns: string, ms: number): Promise<boolean> {
    const p = this.#paused.get(ns);
    if (!p) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const open = await Promise.race([p.ended.then(() => true), timedOut]);
    clearTimeout(timer);
    return open && !this.#paused.has(ns);
  }

  enter(ns: string): void {
    this.#inside.set(ns, (this.#inside.get(ns) ?? 0) + 1);
  }

  leave(ns: string): void {
    const n = (this.#inside.get(ns) ?? 1) - 1;
    if (n > 0) {
      this.#inside.set(ns, n);
      return;
    }
    this.#inside.delete(ns);
    for (const fn of this.#drained.get(ns) ?? []) fn();
    this.#drained.delete(ns);
  }

  /** Closes the gate (new writes wait) and waits for the writes inside, at most `ms`; false (gate open again) if they do not finish. */
  async pause(ns: string, ms: number): Promise<boolean> {
    if (this.#paused.has(ns)) return false;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#paused.set(ns, { ended, end });
    if (!this.#inside.get(ns)) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<true>((resolve) => {
        const list = this.#drained.get(ns) ?? [];
        list.push(() => resolve(true));
        this.#drained.set(ns, list);
      }),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    if (!drained) this.resume(ns);
    return drained;
  }

  /** Opens the gate: the writes waiting go on (each checks again where the namespace is). */
  resume(ns: string): void {
    const p = this.#paused.get(ns);
    this.#paused.delete(ns);
    p?.end();
  }
}

export interface ForwardingDeps {
  self: string;
  agents: ForwardAgents;
  /** Where a namespace lives, from this process's registry; null when there is no such namespace. */
  ownerOf: (ns: string) => Owner | null;
  /** Reads one namespace's row from the core store again (a move this node has not heard of yet). */
  refresh: (ns: string) => Promise<void>;
  /** How long a write waits for a paused namespace (its `busy_timeout`). */
  writeWaitMs: (ns: string) => number;
  /** The URLs of the registered nodes (whose addresses may forward requests here). */
  nodeUrls: () => string[];
  gate: WriteGate;
  connectTimeoutMs?: number;
  answerTimeoutMs?: number;
}

export function createForwarding(deps: ForwardingDeps) {
  const peers = createPeerAddresses(deps.nodeUrls);

  /** Sends the request to `owner`; resolves once the answer's head is written (the body streams on). */
  const send = async (ctx: AppContext, owner: Owner) => {
    if (!owner.healthy || owner.url === '') throw unavailable(owner, owner.url === '' ? 'has no address yet' : 'is down');
    const result = await forward(
      ctx,
      { url: owner.url, node: owner.node },
      {
        self: deps.self,
        agents: deps.agents,
        connectTimeoutMs: deps.connectTimeoutMs,
        answerTimeoutMs: deps.answerTimeoutMs,
        retryAfterSeconds: RETRY_AFTER_S,
        again: true,
      },
    );
    void result.done;
  };

  /** The namespace's owner, read again from the core store when a forwarded request finds it placed elsewhere. */
  const ownerFor = async (ctx: AppContext, ns: string): Promise<Owner | null> => {
    const owner = deps.ownerOf(ns);
    if (owner && owner.node !== deps.self && forwardedBy(ctx.req) !== undefined) {
      await deps.refresh(ns);
      return deps.ownerOf(ns);
    }
    return owner;
  };

  /**
   * A read answered here. A move may switch the namespace to another node between the check above and the handler
   * opening it (which then refuses with 421 `namespace_elsewhere`): while nothing has been sent and the request's body
   * is unread, it goes to the new owner instead.
   */
  const local = async (ctx: AppContext, ns: string, next: () => Promise<unknown>) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof HearthError && err.code === 'namespace_elsewhere') || ctx.headerSent || ctx.req.readableDidRead) throw err;
      await deps.refresh(ns);
      const moved = deps.ownerOf(ns);
      if (moved === null || moved.node === deps.self) throw err;
      await send(ctx, moved);
    }
  };

  const middleware: AppMiddleware = async (ctx, next) => {
    if (forwardedBy(ctx.req) !== undefined && peers.has(ctx.ip)) {
      ctx.request.ip = forwardedClient(ctx.req, (a) => peers.has(a));
      ctx.state.log = ctx.state.log.child({ client: ctx.request.ip, forwardedBy: forwardedBy(ctx.req) });
    }
    const ns = namespaceOfRequest(ctx.method, ctx.path);
    if (ns === null) return next();
    let owner = await ownerFor(ctx, ns);
    if (owner === null) return next(); // no such namespace: the route answers 404
    if (owner.node !== deps.self) return send(ctx, owner);
    // A duplicate only reads its source; a move pauses the writes itself.
    if (SAFE.has(ctx.method) || NOT_WRITES.test(ctx.path)) return local(ctx, ns, next);
    // A write here: through the gate (it waits while a move pauses the namespace, then goes where the namespace is).
    if (deps.gate.paused(ns)) {
      if (!(await deps.gate.wait(ns, deps.writeWaitMs(ns)))) throw unavailable(owner, 'is moving it to another node');
      owner = deps.ownerOf(ns);
      if (owner === null) return next();
      if (owner.node !== deps.self) return send(ctx, owner);
    }
    deps.gate.enter(ns);
    try {
      await next();
    } finally {
      deps.gate.leave(ns);
    }
  };

  return {
    middleware,
    /** Whether a namespace's requests go to another node (the hot route hands them to Koa). */
    elsewhere(ns: string): boolean {
      const owner = deps.ownerOf(ns);
      return owner !== null && owner.node !== deps.self;
    },
    /** Whether an address belongs to a registered node. */
    isPeer: (address: string) => peers.has(address),
  };
}

/**
 * The addresses of the registered nodes: their URLs' hosts, names resolved in the background (a name resolved for the
 * first time is not a peer until its lookup answers; the lists are read again when the node URLs change).
 */
function createPeerAddresses(nodeUrls: () => string[]) {
  let seen = '';
  let addresses = new Set<string>();
  const resolved = new Map<string, string[]>();
  const refresh = () => {
    const urls = nodeUrls().filter(Boolean);
    const key = urls.join(' ');
    if (key === seen) return;
    seen = key;
    const next = new Set<string>();
    for (const u of urls) {
      const host = new URL(u).hostname.replace(/^\[|\]$/g, '');
      if (net.isIP(host)) next.add(host);
      else if (resolved.has(host)) for (const a of resolved.get(host)!) next.add(a);
      else {
        void dns
          .lookup(host, { all: true })
          .then((found) => {
            resolved.set(
              host,
              found.map((f) => f.address),
            );
            seen = '';
          })
          .catch(() => {});
      }
    }
    addresses = next;
  };
  return {
    has(address: string): boolean {
      refresh();
      const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
      return addresses.has(plain);
    },
  };
}
