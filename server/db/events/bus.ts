/**
 * In-process change events per namespace. Every mutation (rows and schema) is published after its transaction
 * commits. Each namespace keeps a bounded ring of recent events so a subscriber that reconnects with
 * `Last-Event-ID` gets what it missed.
 */
export interface ChangeEvent {
  table: string;
  action: string;
  row: Record<string, unknown> | null;
  _meta: Record<string, unknown> | null;
  timestamp: string;
}

export interface StoredEvent extends ChangeEvent {
  id: number;
}

export type Listener = (e: StoredEvent) => void;

interface Channel {
  seq: number;
  ring: StoredEvent[];
  listeners: Set<Listener>;
}

export class EventBus {
  private readonly channels = new Map<string, Channel>();
  readonly bufferSize: number;
  /** Process-unique prefix so ids from an earlier run are recognised as foreign. */
  readonly epoch = Date.now().toString(36);

  constructor(opts: { bufferSize?: number } = {}) {
    this.bufferSize = opts.bufferSize ?? 1000;
  }

  private channel(ns: string): Channel {
    let c = this.channels.get(ns);
    if (!c) {
      c = { seq: 0, ring: [], listeners: new Set() };
      this.channels.set(ns, c);
    }
    return c;
  }

  publish(ns: string, events: ChangeEvent | ChangeEvent[]): void {
    const c = this.channels.get(ns);
    // Nobody ever subscribed to this namespace: keep nothing (no memory for idle namespaces).
    if (!c) return;
    for (const e of Array.isArray(events) ? events : [events]) {
      const stored = { id: ++c.seq, ...e };
      c.ring.push(stored);
      if (c.ring.length > this.bufferSize) c.ring.shift();
      for (const l of c.listeners) l(stored);
    }
  }

  /** Subscribes; returns the events after `lastId` still in the buffer (or null when some were lost) and an unsubscribe. */
  subscribe(ns: string, listener: Listener, lastId?: number): { missed: StoredEvent[] | null; unsubscribe: () => void } {
    const c = this.channel(ns);
    let missed: StoredEvent[] | null = [];
    if (lastId !== undefined) {
      const first = c.ring[0];
      if (lastId > c.seq) missed = null;
      else if (first && lastId < first.id - 1) missed = null;
      else if (!first && lastId < c.seq) missed = null;
      else missed = c.ring.filter((e) => e.id > lastId);
    }
    c.listeners.add(listener);
    return {
      missed,
      unsubscribe: () => {
        c.listeners.delete(listener);
      },
    };
  }

  subscribers(ns?: string): number {
    if (ns) return this.channels.get(ns)?.listeners.size ?? 0;
    let n = 0;
    for (const c of this.channels.values()) n += c.listeners.size;
    return n;
  }

  /** Forgets a namespace (deleted or replaced by an import). */
  drop(ns: string): void {
    this.channels.delete(ns);
  }
}
