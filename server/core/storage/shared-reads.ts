/**
 * Reads that concurrent callers share, without ever answering a caller from a read that began before it asked: the
 * first caller of a key starts a read; callers that arrive while it runs share the next one, started when it ends. A
 * burst of N identical reads costs two round trips instead of N (on PostgreSQL each read is one), with the freshness
 * of a read per caller: whatever committed before a caller asked is in its answer.
 *
 * Inside a transaction (`direct()` true) a caller reads on its own: it must see its transaction's writes and snapshot.
 * The value is shared by the callers of one read: they must not change it.
 */
const noop = () => {};

interface Slot<V> {
  /** Settles when the running read does (fulfilled either way). */
  done: Promise<void>;
  /** The read queued behind it, shared by every caller that arrived meanwhile. */
  next?: Promise<V>;
}

export function sharedReads<V>(read: (key: string) => Promise<V>, direct: () => boolean): (key: string) => Promise<V> {
  const running = new Map<string, Slot<V>>();
  const start = (key: string): Promise<V> => {
    const p = read(key);
    const slot: Slot<V> = { done: p.then(noop, noop) };
    running.set(key, slot);
    void slot.done.then(() => {
      if (running.get(key) === slot) running.delete(key);
    });
    return p;
  };
  return (key: string): Promise<V> => {
    if (direct()) return read(key);
    const slot = running.get(key);
    if (!slot) return start(key);
    slot.next ??= slot.done.then(() => start(key));
    return slot.next;
  };
}
