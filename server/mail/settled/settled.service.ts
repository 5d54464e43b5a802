/**
 * The settled-status topic: message-ID wake-ups for whoever waits for a message to
 * settle (`sent`, `failed`, `cancelled`, `bounced`).
 *
 * - Publishing is durable and atomic: the trigger `mail_messages_settled` (migration `mail-004-settled-topic`)
 *   appends `(seq, message_id, status, at)` to `mail_settled` in the transaction that changes the status, whatever
 *   wrote it (a lane, a cancel, recovery, bounce collection, another process on the data folder, another replica).
 * - Subscribers are in-process, keyed by record id. They are woken by reading entries after the last one seen:
 *   at once after a local commit that may have settled rows (`poke`, a no-op while nobody waits), and every second
 *   by a tail (only while someone waits) that also catches commits of other processes.
 * - On PostgreSQL the trigger also notifies `hearth_mail_settled` with the record id, delivered at commit to every
 *   replica: a waiter wakes at once wherever the message settled (and the tail, which may step over a `seq` that
 *   committed late, stays the fallback). On SQLite nothing is notified and the tail serves processes alike.
 * - A wake-up is only a hint: a lost one costs latency, never correctness, because a waiter re-reads the durable row
 *   after subscribing, after every wake-up and at its deadline.
 * - Entries are kept five minutes; the 30-second recovery job deletes older ones in batches (`expire`).
 */
import type { Logger } from '../../core/logging/logger.ts';
import type { MailClock } from '../clock.ts';
import { coalesce } from '../coalesce.ts';
import { isSettled, type SettledStore } from './settled.store.ts';

export interface SettledOptions {
  /** How often the tail reads new entries while someone waits (ms). */
  tailIntervalMs: number;
  /** How long entries are kept (ms). */
  retentionMs: number;
  /** Entries deleted per batch (each batch its own statement) and the most batches per expiry run. */
  trimBatch: number;
  trimMaxBatches: number;
}
export const DEFAULT_SETTLED: SettledOptions = { tailIntervalMs: 1000, retentionMs: 5 * 60_000, trimBatch: 1000, trimMaxBatches: 100 };
/**
 * How a wait ended: `at_once` (settled at the first read: never held), `settled` (the record settled while held: a
 * wake-up, or the re-read after subscribing, found it so before the wait ran out), `deadline` (the wait ran out),
 * `stopped` (the client left or the server stopped listening), `closed` (the topic closed: shutdown).
 */
export type WaitEnd = 'at_once' | 'settled' | 'deadline' | 'stopped' | 'closed';
/** Entries read per statement by the tail. */
const READ_BATCH = 1000;

export function createSettledTopic(deps: {
  store: SettledStore;
  clock: MailClock;
  logger: Logger;
  options?: Partial<SettledOptions>;
  /** Observer of how each wait ended (tests: a wait answered by its wake-up, not by its deadline). */
  onWaitEnd?: (recordId: string, end: WaitEnd) => void;
}) {
  const { store, clock, logger } = deps;
  const o: SettledOptions = { ...DEFAULT_SETTLED, ...deps.options };
  /** Wake-up callbacks by record id. */
  const waiters = new Map<string, Set<() => void>>();
  /** Every wait in progress: `end` releases it (close), `check` ends it when its `stop` says so (tail ticks). */
  interface Waiter {
    end: () => void;
    check: () => void;
  }
  const all = new Set<Waiter>();
  let lastSeq = 0;
  let tailTimer: unknown = null;
  let pokePending = false;
  let closed = false;
  /** The subscription to the notifications (PostgreSQL), made at the first wait; resolves to the unsubscribe. */
  let listening: Promise<(() => void) | null> | null = null;

  const wakeAll = (id: string) => {
    const set = waiters.get(id);
    if (set) for (const wake of [...set]) wake();
  };

  /** Reads the entries after the last one seen and wakes their waiters. */
  // One read at a time; a failed read is logged (the waiters still re-read their rows at their deadline).
  const reader = coalesce(
    async () => {
      while (waiters.size > 0) {
        const rows = await store.after(lastSeq, READ_BATCH);
        for (const r of rows) {
          lastSeq = r.seq;
          wakeAll(r.message_id);
        }
        if (rows.length < READ_BATCH) break;
      }
    },
    (err) => logger.error({ err }, 'outgoing mail: reading the settled-status topic failed'),
  );
  function read(): Promise<void> {
    pokePending = false;
    return reader.run();
  }
  function scheduleTail(): void {
    if (tailTimer !== null || closed || waiters.size === 0) return;
    tailTimer = clock.setTimeout(async () => {
      tailTimer = null;
      await read();
      for (const w of [...all]) w.check();
      scheduleTail();
    }, o.tailIntervalMs);
  }

  async function subscribe(id: string, wake: () => void): Promise<() => void> {
    listening ??= store.listen(wakeAll).catch((err) => {
      logger.error({ err }, 'outgoing mail: cannot listen for settled-status notifications; the tail serves alone');
      return null;
    });
    await listening;
    if (waiters.size === 0) {
      // Nobody listened: entries written before now concern nobody (the subscriber re-reads its row after this).
      // Set only if still nobody waits once the read answers, so a waiter subscribed meanwhile misses nothing.
      const seq = await store.maxSeq();
      if (waiters.size === 0) lastSeq = seq;
    }
    let set = waiters.get(id);
    if (!set) waiters.set(id, (set = new Set()));
    set.add(wake);
    scheduleTail();
    return () => {
      set.delete(wake);
      if (set.size === 0 && waiters.get(id) === set) waiters.delete(id);
      if (waiters.size === 0 && tailTimer !== null) {
        clock.clearTimeout(tailTimer);
        tailTimer = null;
      }
    };
  }

  return {
    /**
     * After a local commit that may have settled rows: wake their waiters on the next turn (coalesced). Costs one
     * map-size check while nobody waits.
     */
    poke(): void {
      if (waiters.size === 0 || pokePending || closed) return;
      pokePending = true;
      setImmediate(() => void read());
    },
    /**
     * Answers `read()` once the record is settled or `ms` passed (whichever first), re-reading the durable row after
     * subscribing, after every wake-up and at the deadline. `stop()` (checked on every tail tick, and `abort` at once)
     * ends the wait early, e.g. when the client left or the server is closing. `read` may throw (unknown id).
     */
    async wait<T extends { status: string }>(
      id: string,
      ms: number,
      readRecord: () => Promise<T>,
      opts: { stop?: () => boolean; abort?: (end: () => void) => void } = {},
    ): Promise<T> {
      let r = await readRecord();
      const ended = (end: WaitEnd) => {
        deps.onWaitEnd?.(id, end);
        return r;
      };
      if (isSettled(r.status)) return ended('at_once');
      if (closed) return ended('closed');
      const deadline = clock.now() + ms;
      let stopped = false;
      /** The wait's own timer fired: a record found settled then was not answered by its wake-up. */
      let ranOut = false;
      const outcome = (): WaitEnd => (stopped ? 'stopped' : closed ? 'closed' : !ranOut && isSettled(r.status) ? 'settled' : 'deadline');
      let resolve: () => void = () => {};
      opts.abort?.(() => {
        stopped = true;
        resolve();
      });
      for (;;) {
        const done = new Promise<void>((res) => (resolve = res));
        const waiter: Waiter = {
          end: resolve,
          check: () => {
            if (opts.stop?.()) {
              stopped = true;
              resolve();
            }
          },
        };
        const unsubscribe = await subscribe(id, resolve);
        all.add(waiter);
        let timer: unknown = null;
        try {
          r = await readRecord();
          const left = deadline - clock.now();
          if (isSettled(r.status) || left <= 0 || closed || stopped) return ended(outcome());
          timer = clock.setTimeout(() => {
            ranOut = true;
            resolve();
          }, left);
          await done;
        } finally {
          if (timer !== null) clock.clearTimeout(timer);
          unsubscribe();
          all.delete(waiter);
        }
        // Woken, timed out or stopped: the durable row decides (a wake-up is only a hint).
        r = await readRecord();
        if (isSettled(r.status) || closed || stopped || clock.now() >= deadline) return ended(outcome());
      }
    },
    /** Deletes entries older than the retention, in batches (the 30-second recovery job). Returns how many. */
    async expire(now: number = clock.now()): Promise<number> {
      const before = now - o.retentionMs;
      let deleted = 0;
      for (let i = 0; i < o.trimMaxBatches; i++) {
        const n = await store.trim(before, o.trimBatch);
        deleted += n;
        if (n < o.trimBatch) break;
      }
      return deleted;
    },
    /** How many waits are held now (tests, diagnostics). */
    waiting: () => all.size,
    /** Ends every wait (each answers its current record) and stops the tail. */
    close(): void {
      closed = true;
      if (tailTimer !== null) clock.clearTimeout(tailTimer);
      tailTimer = null;
      for (const w of [...all]) w.end();
      void listening?.then((stop) => stop?.());
    },
  };
}
export type SettledTopic = ReturnType<typeof createSettledTopic>;
