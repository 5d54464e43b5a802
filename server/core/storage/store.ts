/**
 * The core store: what the domains' stores speak to, whichever engine holds the core data. Two
 * implementations: `sqliteStore` over platform.db (better-sqlite3, the embedded default) and `postgresStore`
 * (core/storage/postgres-store.ts, `HEARTH_DATABASE_URL`). The interface is async because PostgreSQL's is; the SQLite
 * implementation answers at once (settled promises; an error is thrown at the call) and keeps SQLite's speed.
 *
 * One SQL text for both dialects. Write statements in the portable subset both engines share (SQLite ≥ 3.35,
 * PostgreSQL ≥ 15): `INSERT … ON CONFLICT … DO NOTHING/UPDATE`, `RETURNING`, `CASE`, `COALESCE`, `min/max`, text
 * timestamps (ISO 8601 UTC, compared as text), INTEGER flags (no booleans), no `INSERT OR …`, no `json_extract`.
 * Parameters are `?` (positional) or `@name` (named, from an object); `postgresStore` rewrites them to `$1…$n`
 * outside string literals and quoted names (`translate`). Where the dialects must differ, a query asks `q.dialect`
 * or uses the fragments on `q` (`forUpdate`, `skipLocked`).
 *
 * Transactions: `tx(fn)` runs `fn` inside one transaction, which commits when `fn` resolves and rolls back when it
 * throws. The transaction is ambient (AsyncLocalStorage): every statement made through the store from code `fn`
 * awaits runs inside it, so the domains' stores need no transaction handle passed down. A `tx` inside a `tx` joins
 * the outer one. SQLite: one connection, so a transaction holds the connection: statements from outside it wait
 * until it ends (an async mutex, shared by the stores over the same file in this process), and `BEGIN IMMEDIATE`
 * takes the write lock at once (other processes on the same file wait `busy_timeout`). Keep transactions short and
 * never await the network inside one. PostgreSQL: one pooled client per transaction, READ COMMITTED; take row locks
 * with `SELECT … ${store.forUpdate}` where replicas may race.
 *
 * Notifications: `listen(channel, fn)` / `notify(channel, payload)` wake other replicas (PostgreSQL LISTEN/NOTIFY;
 * a notify inside a transaction is delivered at commit, and not at all on rollback). On SQLite they reach the
 * listeners of this process only (processes sharing one platform.db keep polling as before).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { quoteInput } from '../http/errors.ts';
import type { SqliteDb, SqliteStatement } from './sqlite.ts';

export type Dialect = 'sqlite' | 'postgres';
/** Positional (`?`) or named (`@name`) parameters. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

export interface RunResult {
  /** Rows changed (inserted, updated or deleted). */
  changes: number;
}

/** What a store and a transaction answer queries through. */
export interface Queryable {
  readonly dialect: Dialect;
  /** ` FOR UPDATE` on PostgreSQL, empty on SQLite (where the transaction's write lock covers it). */
  readonly forUpdate: string;
  /** ` FOR UPDATE SKIP LOCKED` on PostgreSQL, empty on SQLite. */
  readonly skipLocked: string;
  get<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T | undefined>;
  all<T = Record<string, unknown>>(sql: string, params?: Params): Promise<T[]>;
  run(sql: string, params?: Params): Promise<RunResult>;
  /** The first column of the first row (undefined when there is none). */
  value<T = unknown>(sql: string, params?: Params): Promise<T | undefined>;
}

export interface TxOptions {
  /** A short name for logs and errors. */
  name?: string;
}

export interface Store extends Queryable {
  /** Runs `fn` in a transaction (ambient: see the header); joins the transaction already open around the caller. */
  tx<T>(fn: () => Promise<T>, opts?: TxOptions): Promise<T>;
  /** Whether the caller runs inside a transaction of this store. */
  inTx(): boolean;
  /**
   * Calls `fn` with each payload notified on `channel` (by any replica); resolves, once notifications are being
   * received, to the unsubscribe.
   */
  listen(channel: string, fn: (payload: string) => void): Promise<() => void>;
  /** Notifies `channel` on every replica; inside a transaction, when (and only if) it commits. */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The core store cannot be reached (PostgreSQL down, restarting, out of connections, or a network partition): the
 * request answers 503 `service_unavailable` with `Retry-After` (core/http/middleware.ts), never a 500.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = 'StoreUnavailableError';
  }
}

/** PostgreSQL's "busy": lock_not_available (a lock_timeout passed), serialization_failure and deadlock_detected. */
const PG_BUSY = new Set(['55P03', '40001', '40P01']);

/**
 * Whether `err` says the database was busy, on either engine — the one such test of the tree, which each caller
 * answers as its 503 with `Retry-After`: SQLite's BUSY and LOCKED with every extended code (better-sqlite3 reports
 * `SQLITE_BUSY_SNAPSHOT`, `SQLITE_BUSY_RECOVERY`, `SQLITE_BUSY_TIMEOUT`, `SQLITE_LOCKED_SHAREDCACHE`, …: a lock held
 * past busy_timeout, a snapshot a writer moved past), and PostgreSQL's 55P03, 40001 and 40P01 (the store retries the
 * last two itself; what reaches a caller has outlived its retries).
 */
export function isBusyError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return /^SQLITE_(BUSY|LOCKED)(_[A-Z]+)?$/.test(code) || PG_BUSY.has(code);
}

/** Channel names: lowercase words and underscores (PostgreSQL identifiers, unquoted). */
export function checkChannel(channel: string): void {
  if (!/^[a-z][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid notification channel ${quoteInput(channel)}`);
}

/**
 * Rewrites `?` and `@name` parameters to PostgreSQL's `$n`, outside '…' literals, "…" names and comments. Answers
 * the text and, for named parameters, the names in `$n` order (a name used twice gets one number).
 */
export function translate(sql: string): { text: string; names: string[] | null } {
  let out = '';
  let positional = 0;
  const names: string[] = [];
  let named = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      positional++;
      out += `$${positional}`;
      i++;
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_]/.test(sql[j]!)) j++;
      const name = sql.slice(i + 1, j);
      named = true;
      let n = names.indexOf(name);
      if (n === -1) n = names.push(name) - 1;
      out += `$${n + 1}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  if (named && positional > 0) throw new Error(`a statement mixes ? and @name parameters: ${sql}`);
  return { text: out, names: named ? names : null };
}

/** The index just past the literal or quoted name opening at `start` (a doubled quote stays inside). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

/** Orders named parameters for a translated statement; a missing name is an error, not a NULL. */
export function bindNamed(names: string[], params: Params | undefined, sql: string): unknown[] {
  const obj = (params ?? {}) as Record<string, unknown>;
  return names.map((n) => {
    if (!(n in obj)) throw new Error(`missing named parameter @${n} for: ${sql}`);
    return obj[n];
  });
}

/** A FIFO async mutex: `lock()` answers the release. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  private held = false;
  get locked(): boolean {
    return this.held;
  }
  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => {
      release = r;
    });
    const before = this.tail;
    this.tail = before.then(() => next);
    await before;
    this.held = true;
    return () => {
      this.held = false;
      release();
    };
  }
}

/**
 * One mutex per database file in this process: two stores over two connections to the same file (two servers in one
 * test process) would otherwise interleave their transactions' statements on one thread, and a BEGIN IMMEDIATE
 * waiting on the other connection's lock would block the very thread that has to release it (busy_timeout).
 */
const fileMutexes = new Map<string, Mutex>();
function fileMutex(db: SqliteDb): Mutex {
  if (db.memory || !db.name) return new Mutex();
  let m = fileMutexes.get(db.name);
  if (!m) {
    m = new Mutex();
    fileMutexes.set(db.name, m);
  }
  return m;
}

/**
 * The core store over an open platform.db connection (WAL; opened and migrated by platform-db.ts). Statements are
 * prepared once per SQL text. Outside a transaction a statement runs at once, unless a transaction holds the
 * connection: then it waits for that transaction to end.
 */
export function sqliteStore(db: SqliteDb): Store & { readonly db: SqliteDb } {
  const statements = new Map<string, SqliteStatement>();
  const prepare = (sql: string) => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
  const args = (params: Params | undefined): unknown[] => (params === undefined ? [] : Array.isArray(params) ? (params as unknown[]) : [params]);
  const direct = {
    get: (sql: string, params?: Params) => prepare(sql).get(...args(params)),
    all: (sql: string, params?: Params) => prepare(sql).all(...args(params)),
    run: (sql: string, params?: Params) => ({ changes: prepare(sql).run(...args(params)).changes }),
    value: (sql: string, params?: Params) => {
      const st = prepare(sql);
      if (!st.reader) throw new Error(`value() needs a query that answers rows: ${sql}`);
      try {
        return (st.raw(true).get(...args(params)) as unknown[] | undefined)?.[0];
      } finally {
        st.raw(false);
      }
    },
  };
  const mutex = fileMutex(db);
  /** The open transaction's pending notifications, for code running inside it. */
  const ambient = new AsyncLocalStorage<Array<[string, string]>>();
  // Inside this store's transaction, or with no transaction open: at once, and an error is thrown to the caller
  // there and then (a caller inside a better-sqlite3 transaction sees it as before). Else after the open one ends.
  const call = <K extends keyof typeof direct>(k: K, sql: string, params?: Params): Promise<ReturnType<(typeof direct)[K]>> => {
    if (!mutex.locked || ambient.getStore()) return Promise.resolve(direct[k](sql, params) as ReturnType<(typeof direct)[K]>);
    return mutex.lock().then((release) => {
      try {
        return direct[k](sql, params) as ReturnType<(typeof direct)[K]>;
      } finally {
        release();
      }
    });
  };
  const events = new EventEmitter();
  events.setMaxListeners(0);

  return {
    db,
    dialect: 'sqlite',
    forUpdate: '',
    skipLocked: '',
    get: <T>(sql: string, params?: Params) => call('get', sql, params) as Promise<T | undefined>,
    all: <T>(sql: string, params?: Params) => call('all', sql, params) as Promise<T[]>,
    run: (sql: string, params?: Params) => call('run', sql, params),
    value: <T>(sql: string, params?: Params) => call('value', sql, params) as Promise<T | undefined>,
    inTx: () => ambient.getStore() !== undefined,
    async tx(fn) {
      if (ambient.getStore()) return fn();
      const release = await mutex.lock();
      const notes: Array<[string, string]> = [];
      try {
        db.exec('BEGIN IMMEDIATE');
        let result: Awaited<ReturnType<typeof fn>>;
        try {
          result = await ambient.run(notes, fn);
        } catch (err) {
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
        db.exec('COMMIT');
        for (const [channel, payload] of notes) events.emit(channel, payload);
        return result;
      } finally {
        release();
      }
    },
    async listen(channel, fn) {
      checkChannel(channel);
      events.on(channel, fn);
      return () => void events.off(channel, fn);
    },
    async notify(channel, payload) {
      checkChannel(channel);
      const notes = ambient.getStore();
      if (notes) notes.push([channel, payload]);
      else events.emit(channel, payload);
    },
    async close() {
      events.removeAllListeners();
      statements.clear();
    },
  };
}
