/**
 * Forwarding between nodes: the Koa middleware in front of every route that sends a
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
import type { AppContext, AppMiddleware } from '../../core/http/app-context.ts';
import { HearthError } from '../../core/http/errors.ts';
import { type ForwardAgents, forward, forwardedBy, forwardedClient } from '../../core/net/forward.ts';
import type { Owner } from './nodes.ts';

const DATA_PLANE = /^\/v1\/([^/]+)\/(?:tables|query|subscribe|changelog|overview|rest)(?:\/|$)/;
const CONTROL_PLANE = /^\/v1\/namespaces\/([^/]+)(\/(?:export|import|duplicate|move))?\/?$/;
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Requests that write nothing to the namespace: a duplicate and a move read their source; `POST /v1/{ns}/query` is read-only SQL. */
const NOT_WRITES = /^\/v1\/(?:namespaces\/[^/]+\/(?:duplicate|move)|[^/]+\/query)\/?$/;
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

/** A gate closed until `end()` is called; `ended` resolves then. */
interface Closed {
  ended: Promise<void>;
  end: () => void;
}

function closed(): Closed {
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  return { ended, end };
}

/** Resolves true when `p` settles within `ms`, false otherwise (the timer is cleared either way). */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** A write that waited for a hold longer than it waits for a lock: what SQLite's busy refusal answers (storage-errors.ts). */
const heldTooLong = () =>
  new HearthError('service_unavailable', 'the database is busy (a CSV import holds its write lock past busy_timeout); try again', {
    headers: { 'Retry-After': '1' },
  });

/**
 * Per namespace: whether new writes wait, and how many writes are inside. Two things close the gate, each on its own:
 * - a **pause** (a move, nodes/move.ts): it waits for the writes inside; a write waiting for it past its limit is 503
 *   `namespace_unavailable` (the middleware's answer);
 * - a **hold**, taken by a write already inside that writes off the event loop (a CSV import, whose worker thread
 *   holds the database's write lock on a connection of its own): new writes wait for it instead of sleeping in
 *   SQLite's busy handler on the event loop. The other writes inside are waited for (not the holder); a write waiting
 *   for a hold past its limit is SQLite's answer to a lock held past busy_timeout, 503 `service_unavailable` with
 *   `Retry-After`. Holds of one namespace take turns; a holder waiting for its turn does not count as inside.
 */
export class WriteGate {
  readonly #paused = new Map<string, Closed>();
  readonly #held = new Map<string, Closed>();
  readonly #inside = new Map<string, number>();
  /** Waiters for the writes inside to come down to `upTo`. */
  readonly #drained = new Map<string, Array<{ upTo: number; done: () => void }>>();

  /** Whether new writes wait (a move's pause or a hold). */
  paused(ns: string): boolean {
    return this.#paused.has(ns) || this.#held.has(ns);
  }

  /** Whether a write off the event loop holds the namespace's writes. */
  held(ns: string): boolean {
    return this.#held.has(ns);
  }

  /** How many namespaces' writes are held now. */
  get holds(): number {
    return this.#held.size;
  }

  /**
   * Waits, at most `ms` in all, until neither a pause nor a hold closes the gate: true when the way is open, false
   * when a pause outlasts `ms`; a hold that outlasts it throws the busy refusal (see the class).
   */
  async wait(ns: string, ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    for (;;) {
      const gate = this.#paused.get(ns) ?? this.#held.get(ns);
      if (!gate) return true;
      const left = deadline - performance.now();
      if (left > 0 && (await within(gate.ended, left))) continue;
      if (this.#paused.has(ns)) return false;
      if (this.#held.has(ns)) throw heldTooLong();
    }
  }

  enter(ns: string): void {
    this.#inside.set(ns, (this.#inside.get(ns) ?? 0) + 1);
  }

  leave(ns: string): void {
    const n = Math.max(0, (this.#inside.get(ns) ?? 1) - 1);
    if (n > 0) this.#inside.set(ns, n);
    else this.#inside.delete(ns);
    const waiting = this.#drained.get(ns);
    if (!waiting) return;
    const rest = waiting.filter((w) => w.upTo < n);
    for (const w of waiting) if (w.upTo >= n) w.done();
    if (rest.length) this.#drained.set(ns, rest);
    else this.#drained.delete(ns);
  }

  /** Waits until at most `upTo` writes are inside, at most `ms`: true when they are. */
  async #drain(ns: string, upTo: number, ms: number): Promise<boolean> {
    if ((this.#inside.get(ns) ?? 0) <= upTo) return true;
    const entry = { upTo, done: () => {} };
    const drained = new Promise<void>((resolve) => {
      entry.done = resolve;
    });
    const list = this.#drained.get(ns) ?? [];
    list.push(entry);
    this.#drained.set(ns, list);
    const ok = await within(drained, ms);
    if (!ok) {
      const left = (this.#drained.get(ns) ?? []).filter((w) => w !== entry);
      if (left.length) this.#drained.set(ns, left);
      else this.#drained.delete(ns);
    }
    return ok;
  }

  /** Closes the gate (new writes wait) and waits for the writes inside, at most `ms`; false (gate open again) if they do not finish. */
  async pause(ns: string, ms: number): Promise<boolean> {
    if (this.#paused.has(ns)) return false;
    this.#paused.set(ns, closed());
    const drained = await this.#drain(ns, 0, ms);
    if (!drained) this.resume(ns);
    return drained;
  }

  /** Opens the gate: the writes waiting go on (each checks again where the namespace is). */
  resume(ns: string): void {
    const p = this.#paused.get(ns);
    this.#paused.delete(ns);
    p?.end();
  }

  /**
   * Holds new writes for the caller, a write inside the gate (see the class), once the holds taken before it end;
   * then waits for the other writes inside, at most `ms` (past it, the hold stands all the same: a write still
   * inside meets the database's lock). Resolves with the release, which opens the gate again (once).
   */
  async hold(ns: string, ms: number): Promise<() => void> {
    // The caller counts as inside when it came through the gate (every request the middleware lets in does).
    const self = this.#inside.has(ns) ? 1 : 0;
    for (let current = this.#held.get(ns); current; current = this.#held.get(ns)) {
      if (self) this.leave(ns);
      try {
        await current.ended;
      } finally {
        if (self) this.enter(ns);
      }
    }
    const gate = closed();
    this.#held.set(ns, gate);
    await this.#drain(ns, self, ms);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (this.#held.get(ns) === gate) this.#held.delete(ns);
      gate.end();
    };
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
