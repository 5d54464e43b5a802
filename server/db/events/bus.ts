/**
 * In-process change events per namespace. Every mutation (rows and schema) is published after its transaction
 * commits. Each namespace keeps a bounded ring of recent events so a subscriber that reconnects with
 * `Last-Event-ID` gets what it missed.
 *
 * Event ids are `<epoch>-<seq>`: `epoch` is unique to this process (so an id from an earlier run is recognised as
 * foreign) and `seq` is one counter for the whole bus, so ids increase within every namespace (with gaps) and an
 * id is never reused, even when a namespace's channel is forgotten and created again.
 *
 * Memory: nothing is kept for a namespace nobody subscribed to. A subscribed namespace keeps at most `bufferSize`
 * events and `bufferBytes` bytes of serialised events; a namespace nobody has listened to for `idleRetentionMs`
 * is forgotten (a late reconnect then gets "events lost"). Events published while a namespace has no channel still
 * use up ids, so a resumed id older than the channel is always recognised as "events lost".
 */
import crypto from 'node:crypto';
import { quoteInput } from '../../core/http/errors.ts';

export interface ChangeEvent {
  table: string;
  action: string;
  row: Record<string, unknown> | null;
  _meta: Record<string, unknown> | null;
  timestamp: string;
}

/** A published event as kept in the ring and handed to listeners: the event is serialised once, at publish. */
export interface StoredEvent {
  /** `<epoch>-<seq>`. */
  readonly id: string;
  readonly seq: number;
  readonly table: string;
  readonly action: string;
  /** `JSON.stringify` of the ChangeEvent `{table, action, row, _meta, timestamp}`. */
  readonly data: string;
  /** UTF-8 size of `data`. */
  readonly bytes: number;
}

export type Listener = (e: StoredEvent) => void;

export interface Subscription {
  /**
   * The events after `lastEventId` still buffered (oldest first), `[]` when no `lastEventId` was given, or
   * `null` when `lastEventId` is foreign (another process), unknown or older than the buffer: events were lost.
   */
  missed: StoredEvent[] | null;
  /** An id standing for "now": resuming from it replays exactly what is published after this call. */
  cursor: string;
  unsubscribe(): void;
}

/** Why the bus ended a subscription. */
export type EndReason = 'namespace_gone' | 'bus_closed';

interface Subscriber {
  listener: Listener;
  onEnd?: (reason: EndReason) => void;
}

interface Channel {
  ring: StoredEvent[];
  ringBytes: number;
  /** Every event with `seq <= floor` is gone (evicted, or published before the channel existed). */
  floor: number;
  subscribers: Set<Subscriber>;
  /** When the last subscriber left (0 while someone listens). */
  idleSince: number;
}

const ID = /^([0-9a-z]+)-(\d{1,15})$/;

export class EventBus {
  private readonly channels = new Map<string, Channel>();
  private seq = 0;
  private lastSweep = 0;
  readonly bufferSize: number;
  readonly bufferBytes: number;
  readonly idleRetentionMs: number;
  /** Process-unique prefix of every id. */
  readonly epoch = Date.now().toString(36) + crypto.randomBytes(3).toString('hex');
  /** Subscribers the SSE layer cut off because they fell too far behind (for metrics). */
  droppedSubscribers = 0;
  private readonly onListenerError: ((err: unknown) => void) | undefined;
  private readonly now: () => number;

  /** Options (the server passes HEARTH_SSE_BUFFER_EVENTS / HEARTH_SSE_BUFFER_BYTES from its configuration) win over the defaults. */
  constructor(
    opts: {
      bufferSize?: number;
      bufferBytes?: number;
      idleRetentionMs?: number;
      onListenerError?: (err: unknown) => void;
      now?: () => number;
    } = {},
  ) {
    this.bufferSize = opts.bufferSize ?? 1000;
    this.bufferBytes = opts.bufferBytes ?? 4 * 1024 * 1024;
    this.idleRetentionMs = opts.idleRetentionMs ?? 10 * 60_000;
    this.onListenerError = opts.onListenerError;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Whether events for `ns` are kept now. When false a writer may skip building them and call `spend(ns, n)`
   * instead (the ids are used up all the same, so a later reconnect still learns that events were lost).
   */
  wants(ns: string): boolean {
    const c = this.channels.get(ns);
    return c !== undefined && !(c.subscribers.size === 0 && this.now() - c.idleSince > this.idleRetentionMs);
  }

  /** Uses up `n` event ids for `ns` without events (see `wants`). */
  spend(ns: string, n: number): void {
    if (this.wants(ns)) throw new Error('spend() is only for namespaces nobody listens to');
    this.channels.delete(ns);
    this.seq += n;
  }

  /** Publishes after commit. Never throws because of a listener (the mutation has already happened). */
  publish(ns: string, events: ChangeEvent | ChangeEvent[]): void {
    const list = Array.isArray(events) ? events : [events];
    const c = this.channels.get(ns);
    if (c && c.subscribers.size === 0 && this.now() - c.idleSince > this.idleRetentionMs) this.channels.delete(ns);
    if (!c || !this.channels.has(ns)) {
      // Nobody subscribed to this namespace (recently): keep nothing, but spend the ids, so that a channel created
      // later starts above them and a reconnect from before them is answered "events lost".
      this.seq += list.length;
      return;
    }
    for (const e of list) {
      const data = serialise(e);
      if (data === null) {
        this.onListenerError?.(new Error(`change event on ${quoteInput(e.table)} (${e.action}) cannot be serialised to JSON; not delivered`));
        this.seq++;
        continue;
      }
      const seq = ++this.seq;
      const stored: StoredEvent = { id: `${this.epoch}-${seq}`, seq, table: e.table, action: e.action, data, bytes: Buffer.byteLength(data) };
      c.ring.push(stored);
      c.ringBytes += stored.bytes;
      while (c.ring.length > 1 && (c.ring.length > this.bufferSize || c.ringBytes > this.bufferBytes)) {
        const old = c.ring.shift()!;
        c.ringBytes -= old.bytes;
        c.floor = old.seq;
      }
      for (const s of c.subscribers) {
        try {
          s.listener(stored);
        } catch (err) {
          this.onListenerError?.(err);
        }
      }
    }
  }

  /**
   * Subscribes `listener` to every event published to `ns` from now on and answers what was missed since
   * `lastEventId`. Synchronous, so nothing can fall between the replay and the live events.
   */
  subscribe(ns: string, listener: Listener, opts: { lastEventId?: string; onEnd?: (reason: EndReason) => void } = {}): Subscription {
    this.sweep();
    let c = this.channels.get(ns);
    if (!c) {
      c = { ring: [], ringBytes: 0, floor: this.seq, subscribers: new Set(), idleSince: 0 };
      this.channels.set(ns, c);
    }
    let missed: StoredEvent[] | null = [];
    if (opts.lastEventId !== undefined) {
      const seq = this.parseId(opts.lastEventId);
      if (seq === null || seq > this.seq || seq < c.floor) missed = null;
      else missed = after(c.ring, seq);
    }
    const sub: Subscriber = { listener, onEnd: opts.onEnd };
    c.subscribers.add(sub);
    c.idleSince = 0;
    const channel = c;
    return {
      missed,
      cursor: `${this.epoch}-${this.seq}`,
      unsubscribe: () => {
        if (channel.subscribers.delete(sub) && channel.subscribers.size === 0) channel.idleSince = this.now();
      },
    };
  }

  /** The sequence number of an id of this process, or null for a malformed or foreign id. */
  parseId(id: string): number | null {
    const m = ID.exec(id.trim());
    if (!m || m[1] !== this.epoch) return null;
    return Number(m[2]);
  }

  subscribers(ns?: string): number {
    if (ns) return this.channels.get(ns)?.subscribers.size ?? 0;
    let n = 0;
    for (const c of this.channels.values()) n += c.subscribers.size;
    return n;
  }

  /** Forgets a namespace (deleted or replaced by an import) and ends its subscriptions. */
  drop(ns: string): void {
    const c = this.channels.get(ns);
    this.seq++; // every id handed out so far now means "events lost" for this name
    if (!c) return;
    this.channels.delete(ns);
    end(c, 'namespace_gone');
  }

  /** Ends every subscription and forgets everything. */
  close(): void {
    const all = [...this.channels.values()];
    this.channels.clear();
    for (const c of all) end(c, 'bus_closed');
  }

  /** Forgets namespaces nobody has listened to for `idleRetentionMs` (at most once a minute). */
  private sweep(): void {
    const t = this.now();
    if (t - this.lastSweep < 60_000) return;
    this.lastSweep = t;
    for (const [ns, c] of this.channels) {
      if (c.subscribers.size === 0 && t - c.idleSince > this.idleRetentionMs) this.channels.delete(ns);
    }
  }
}

/** The event's JSON; bigint values become numbers (strings beyond 2^53); null when it cannot be serialised. */
function serialise(e: ChangeEvent): string | null {
  const shape = { table: e.table, action: e.action, row: e.row ?? null, _meta: e._meta ?? null, timestamp: e.timestamp };
  try {
    return JSON.stringify(shape);
  } catch {
    try {
      return JSON.stringify(shape, (_k, v: unknown) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v));
    } catch {
      return null;
    }
  }
}

function end(c: Channel, reason: EndReason): void {
  const subs = [...c.subscribers];
  c.subscribers.clear();
  for (const s of subs) {
    try {
      s.onEnd?.(reason);
    } catch {
      // a subscriber's clean-up must not stop the others'
    }
  }
}

/** Events of the ascending ring with `seq > seq` (binary search: the ring is ordered by seq). */
function after(ring: StoredEvent[], seq: number): StoredEvent[] {
  let lo = 0;
  let hi = ring.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ring[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return ring.slice(lo);
}
