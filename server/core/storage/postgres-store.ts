/**
 * The core store on PostgreSQL (`HEARTH_DATABASE_URL=postgres://…`): the `Store` of store.ts over a `pg`
 * pool. Every replica of Hearth connects to the same database; what SQLite gets from one file and one connection,
 * PostgreSQL gets from transactions, row locks and LISTEN/NOTIFY (see store.ts for the rules domain code follows).
 *
 * - Statements: `?` / `@name` parameters rewritten to `$n` once per SQL text (`translate`); named statements are not
 *   used (pg's unnamed extended protocol plans each call, which is what a pool of short statements wants).
 * - Types: int8 (`count(*)`, bigint columns) is answered as a JS number, like SQLite's integers (Hearth's integers
 *   stay below 2^53); numeric is not used by the schema; bytea is a Buffer, as SQLite's BLOB.
 * - Transactions: one pooled client per transaction (READ COMMITTED), held in AsyncLocalStorage so that statements
 *   made through the store by code the transaction awaits run on that client; a serialization failure or deadlock
 *   (40001, 40P01) retries the whole transaction up to 3 times, so `fn` must not have effects outside the database.
 * - Notifications: one dedicated client LISTENs on every channel someone listens to and reconnects when it drops
 *   (with a short backoff); `notify` is `pg_notify`, so inside a transaction it is delivered at commit.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { type Migration, MigrationError } from './platform-db.ts';
import { bindNamed, checkChannel, type Params, type RunResult, type Store, StoreUnavailableError, translate } from './store.ts';

const INT8_OID = 20;
const RETRY_CODES = new Set(['40001', '40P01']);
const TX_ATTEMPTS = 3;

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (with `?sslmode=…` as libpq reads it). */
  url: string;
  /** Connections in the pool (default 10). */
  max?: number;
  /** Logs a warning (listener reconnects); default: silent. */
  warn?: (message: string, err?: unknown) => void;
  /** `application_name` the server shows in pg_stat_activity (default `hearth`). */
  applicationName?: string;
  /** How long getting a connection may take, waiting for a free one in the pool included (default 10 s). */
  connectTimeoutMs?: number;
}

const CONNECT_TIMEOUT_MS = 10_000;
/** The most SQL texts a store prepares (named statements, on each connection that runs them). */
const PREPARED_MAX = 1000;

/** SQLSTATE classes and codes meaning "the server is not there (now)": 08 connection exception, 57P0x shutdowns. */
const UNAVAILABLE_CODES = /^(08|57P0[1-3]|53300)/;

/** `err` as a StoreUnavailableError when it says the server cannot be reached; otherwise `err` itself. */
function classify(err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  const e = err as { code?: string; message?: string };
  const network = ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN'];
  if (
    (e.code && (UNAVAILABLE_CODES.test(e.code) || network.includes(e.code))) ||
    /timeout exceeded when trying to connect|Connection terminated|connection timeout/i.test(e.message ?? '')
  ) {
    return new StoreUnavailableError(`the core store (PostgreSQL) cannot be reached: ${e.message ?? e.code}`, { cause: err });
  }
  return err;
}

type Client = pg.PoolClient | pg.Pool;

export function postgresStore(opts: PostgresStoreOptions): Store & { readonly pool: pg.Pool } {
  const types = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    application_name: opts.applicationName ?? 'hearth',
    types,
    // A server that does not answer (down, or a network partition) fails requests with 503 instead of holding them.
    connectionTimeoutMillis: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
  });
  // An idle client's error (the server restarted) must not crash the process: the pool drops that client.
  pool.on('error', (err) => opts.warn?.('core store: an idle PostgreSQL connection failed', err));
  /** Each SQL text rewritten once; with parameters it is also a named prepared statement (parsed and planned once per connection). */
  const translated = new Map<string, ReturnType<typeof translate> & { name: string | undefined }>();
  const ambient = new AsyncLocalStorage<pg.PoolClient>();

  const query = async (sql: string, params: Params | undefined): Promise<pg.QueryResult> => {
    let t = translated.get(sql);
    if (!t) {
      // Texts made on the fly (an IN list of some length) would fill every connection with statements: only the
      // first PREPARED_MAX texts are prepared. A text without parameters may hold several statements (migrations):
      // the simple protocol runs those, unprepared.
      t = { ...translate(sql), name: translated.size < PREPARED_MAX ? `hearth_${translated.size}` : undefined };
      translated.set(sql, t);
    }
    const values = t.names ? bindNamed(t.names, params, sql) : ((params ?? []) as unknown[]);
    const client: Client = ambient.getStore() ?? pool;
    try {
      return await client.query(values.length > 0 && t.name ? { name: t.name, text: t.text, values } : { text: t.text, values });
    } catch (err) {
      throw classify(err);
    }
  };

  const events = new EventEmitter();
  events.setMaxListeners(0);
  const listener = createListener(opts, events);

  return {
    pool,
    dialect: 'postgres',
    forUpdate: ' FOR UPDATE',
    skipLocked: ' FOR UPDATE SKIP LOCKED',
    get: async <T>(sql: string, params?: Params) => (await query(sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params?: Params) => (await query(sql, params)).rows as T[],
    run: async (sql: string, params?: Params): Promise<RunResult> => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
    value: async <T>(sql: string, params?: Params) => {
      const { rows, fields } = await query(sql, params);
      const first = fields[0]?.name;
      return (rows[0] && first !== undefined ? rows[0][first] : undefined) as T | undefined;
    },
    inTx: () => ambient.getStore() !== undefined,
    async tx(fn) {
      if (ambient.getStore()) return fn();
      for (let attempt = 1; ; attempt++) {
        const client = await pool.connect().catch((err: unknown) => {
          throw classify(err);
        });
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          const result = await ambient.run(client, fn);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => {
            broken = e;
          });
          if (attempt < TX_ATTEMPTS && RETRY_CODES.has((err as { code?: string }).code ?? '')) continue;
          throw classify(err);
        } finally {
          client.release(broken);
        }
      }
    },
    async listen(channel, fn) {
      checkChannel(channel);
      events.on(channel, fn);
      await listener.want(channel);
      return () => {
        events.off(channel, fn);
        if (events.listenerCount(channel) === 0) listener.drop(channel);
      };
    },
    async notify(channel, payload) {
      checkChannel(channel);
      await query('SELECT pg_notify(?, ?)', [channel, payload]);
    },
    async close() {
      events.removeAllListeners();
      await listener.close();
      await pool.end();
    },
  };
}

/** The oldest PostgreSQL the core store supports (`server_version_num`), as docs/operations/replicas.md says. */
export const MIN_POSTGRES_VERSION = 150000;

/** Refuses a PostgreSQL older than 15 with a clear message (before anything is written). */
export async function checkPostgresVersion(store: Pick<Store, 'value'>): Promise<void> {
  const num = Number(await store.value<string>('SHOW server_version_num'));
  if (Number.isFinite(num) && num >= MIN_POSTGRES_VERSION) return;
  const shown = await store.value<string>('SHOW server_version');
  throw new MigrationError(`PostgreSQL ${shown} is too old: Hearth's core store needs PostgreSQL 15 or newer`);
}

/** The advisory lock that makes replicas starting together migrate one after another ("hearth" in ASCII). */
const MIGRATION_LOCK = 0x686561727468;

/**
 * Brings the core store's schema up to `migrations` (every domain's, in boot order), in one transaction under an
 * advisory lock, so that replicas starting at once migrate one at a time and the second finds the work done. A
 * database that records a migration this Hearth does not know was written by a newer Hearth: refused, as SQLite's
 * platform.db is. Answers the ids applied now.
 */
export async function migratePostgres(store: Store, migrations: Migration[]): Promise<string[]> {
  await checkPostgresVersion(store);
  return store.tx(async () => {
    await store.run('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
    await store.run('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    const applied = new Set((await store.all<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    const known = new Set(migrations.map((m) => m.id));
    const unknown = [...applied].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new MigrationError(
        `the core store (PostgreSQL) was written by a newer Hearth (unknown migrations: ${unknown.join(', ')}); upgrade Hearth instead of downgrading`,
      );
    }
    const ran: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.id)) continue;
      if (m.pg === undefined) throw new MigrationError(`the migration ${m.id} has no PostgreSQL form: this part of Hearth cannot run on PostgreSQL yet`);
      if (typeof m.pg === 'string') await store.run(m.pg);
      else await m.pg(store);
      await store.run('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)', [m.id, new Date().toISOString()]);
      ran.push(m.id);
    }
    return ran;
  });
}

/**
 * The LISTEN connection: subscribes to the channels wanted, re-subscribes after a reconnect, and hands each
 * notification to `events`. Notifications sent while it was disconnected are lost: the domains that rely on them
 * (held `/login/status`, settled mail) also re-read their state on a timer, as on SQLite.
 */
function createListener(opts: PostgresStoreOptions, events: EventEmitter) {
  const channels = new Set<string>();
  /** The connection and the channels it LISTENs on. */
  type Conn = { client: pg.Client; listened: Set<string> };
  let current: Conn | null = null;
  let connecting: Promise<Conn> | null = null;
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const connect = (): Promise<Conn> => {
    if (current) return Promise.resolve(current);
    connecting ??= (async () => {
      const client = new pg.Client({ connectionString: opts.url, application_name: `${opts.applicationName ?? 'hearth'} listener` });
      const conn: Conn = { client, listened: new Set<string>() };
      client.on('notification', (n) => events.emit(n.channel, n.payload ?? ''));
      client.on('error', (err) => {
        opts.warn?.('core store: the notification connection failed; reconnecting', err);
        if (current === conn) current = null;
        client.end().catch(() => {});
        schedule();
      });
      await client.connect();
      if (closed) {
        await client.end();
        throw new Error('the core store is closed');
      }
      current = conn;
      return conn;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  };
  /** LISTENs on every wanted channel the connection does not listen on yet. */
  const sync = async () => {
    const conn = await connect();
    for (const ch of channels) {
      if (conn.listened.has(ch)) continue;
      await conn.client.query(`LISTEN ${ch}`);
      conn.listened.add(ch);
    }
  };
  const schedule = () => {
    if (closed || retryTimer || channels.size === 0) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      sync().catch((err) => {
        opts.warn?.('core store: cannot reach PostgreSQL for notifications; retrying', err);
        schedule();
      });
    }, 500);
    retryTimer.unref();
  };

  return {
    /** Resolves once the channel is listened to (or, when PostgreSQL is unreachable, once a retry is scheduled). */
    async want(channel: string) {
      channels.add(channel);
      try {
        await sync();
      } catch (err) {
        opts.warn?.('core store: cannot listen for notifications yet; retrying', err);
        schedule();
      }
    },
    drop(channel: string) {
      channels.delete(channel);
      if (current?.listened.delete(channel)) current.client.query(`UNLISTEN ${channel}`).catch(() => {});
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      await connecting?.catch(() => {});
      await current?.client.end().catch(() => {});
      current = null;
    },
  };
}
