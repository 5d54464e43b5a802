/**
 * The sign-in history in the core store (SQLite or PostgreSQL; one SQL text, store.ts): `identity_signin_history`
 * (one row per successful sign-in: the account, the SHA-256 of the browser's `hearth_browser` cookie, the country of
 * the address, never the address), `identity_signin_browsers` (per account and browser, the first and last
 * successful sign-in) and the sign-in context's settings in `identity_settings`, each written once and never moved.
 * The rules that read them (introduction phase, known browser, new country) are signin-context.ts's. Times are epoch ms.
 */
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';

/** The sign-in context's rows in `identity_settings` (JSON numbers, epoch ms). */
export const SIGNIN_SETTINGS = {
  /** When a country database was first seen configured and readable. */
  geoipSince: 'login_context.geoip_since',
  /** When the history tables were created (written by their migration). */
  historyStarted: 'signin_history.started_at',
  /** When the introduction phase began. */
  introductionStarted: 'signin_history.introduction_started_at',
} as const;

const SIGNIN_HISTORY_009 = `
        CREATE TABLE identity_signin_history (
          id INTEGER PRIMARY KEY,
          sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
          browser_hash TEXT NOT NULL,        -- SHA-256 (hex) of the hearth_browser cookie value
          country TEXT,                      -- ISO 3166-1 alpha-2 from GeoIP at sign-in, or NULL
          at INTEGER NOT NULL                -- epoch ms
        ) STRICT;
        CREATE INDEX identity_signin_history_country ON identity_signin_history (sub, country, at);
        CREATE INDEX identity_signin_history_at ON identity_signin_history (at);
        CREATE TABLE identity_signin_browsers (
          sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
          browser_hash TEXT NOT NULL,
          first_at INTEGER NOT NULL,         -- first successful sign-in of the account in this browser (knownSince)
          last_at INTEGER NOT NULL,
          PRIMARY KEY (sub, browser_hash)
        ) STRICT, WITHOUT ROWID;
        CREATE INDEX identity_signin_browsers_last ON identity_signin_browsers (last_at);
      `;
/** A setting written once: a second write of the same name changes nothing. */
const PUT_SETTING_ONCE = 'INSERT INTO identity_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING';

export const signinHistoryMigrations: Migration[] = [
  {
    id: 'identity-009-signin-history',
    up: (db) => {
      db.exec(SIGNIN_HISTORY_009);
      const at = Date.now();
      db.prepare(PUT_SETTING_ONCE).run(SIGNIN_SETTINGS.historyStarted, JSON.stringify(at), at);
    },
    // The history's id is a rowid the database assigns: an identity column on PostgreSQL.
    pg: async (q) => {
      await q.run(postgresDdl(SIGNIN_HISTORY_009.replace('id INTEGER PRIMARY KEY,', 'id INTEGER PRIMARY KEY AUTOINCREMENT,')));
      const at = Date.now();
      await q.run(PUT_SETTING_ONCE, [SIGNIN_SETTINGS.historyStarted, JSON.stringify(at), at]);
    },
  },
];

export function createSigninHistoryStore(store: Store) {
  return {
    /** Runs `fn` in one transaction (a sign-in's history row and its browser row are written together). */
    transaction: <T>(fn: () => Promise<T>): Promise<T> => store.tx(fn, { name: 'sign-in history' }),

    /** A setting's stored text (JSON), or undefined. */
    getSetting: (name: string) => store.value<string>('SELECT value FROM identity_settings WHERE name = ?', [name]),
    /** Stores a setting unless it is stored already (the first value stays). */
    putSettingOnce: async (name: string, value: string, at: number): Promise<void> => {
      await store.run(PUT_SETTING_ONCE, [name, value, at]);
    },
    /** When the first person account was created (epoch ms), or null while there is none. */
    firstPersonCreatedAt: async (): Promise<number | null> =>
      (await store.value<number | null>("SELECT min(created_at) FROM identity_accounts WHERE kind = 'person'")) ?? null,

    /** The account's first successful sign-in in the browser (epoch ms), or undefined for a browser it never used. */
    browserFirstAt: (sub: string, browserHash: string) =>
      store.value<number>('SELECT first_at FROM identity_signin_browsers WHERE sub = ? AND browser_hash = ?', [sub, browserHash]),
    /** Whether the account signed in from `country` at or after `since`. */
    countrySeen: async (sub: string, country: string, since: number): Promise<boolean> =>
      (await store.value('SELECT 1 FROM identity_signin_history WHERE sub = ? AND country = ? AND at >= ? LIMIT 1', [sub, country, since])) !== undefined,
    /** Whether the account signed in from a known country other than `country` at or after `since`. */
    otherCountrySeen: async (sub: string, country: string, since: number): Promise<boolean> =>
      (await store.value('SELECT 1 FROM identity_signin_history WHERE sub = ? AND country IS NOT NULL AND country <> ? AND at >= ? LIMIT 1', [
        sub,
        country,
        since,
      ])) !== undefined,

    insertHistory: async (sub: string, browserHash: string, country: string | null, at: number): Promise<void> => {
      await store.run('INSERT INTO identity_signin_history (sub, browser_hash, country, at) VALUES (?, ?, ?, ?)', [sub, browserHash, country, at]);
    },
    /** Records a sign-in in the browser's row: it keeps its earliest first and its latest last sign-in. */
    upsertBrowser: async (sub: string, browserHash: string, at: number): Promise<void> => {
      await store.run(
        `INSERT INTO identity_signin_browsers (sub, browser_hash, first_at, last_at) VALUES (@sub, @hash, @at, @at)
      ON CONFLICT (sub, browser_hash) DO UPDATE SET
        first_at = CASE WHEN excluded.first_at < identity_signin_browsers.first_at THEN excluded.first_at ELSE identity_signin_browsers.first_at END,
        last_at = CASE WHEN excluded.last_at > identity_signin_browsers.last_at THEN excluded.last_at ELSE identity_signin_browsers.last_at END`,
        { sub, hash: browserHash, at },
      );
    },

    /** Removes the history rows older than `before`; returns how many went. */
    pruneHistory: async (before: number) => (await store.run('DELETE FROM identity_signin_history WHERE at < ?', [before])).changes,
    /** Removes the browser rows whose last sign-in is older than `before`; returns how many went. */
    pruneBrowsers: async (before: number) => (await store.run('DELETE FROM identity_signin_browsers WHERE last_at < ?', [before])).changes,
  };
}

export type SigninHistoryStore = ReturnType<typeof createSigninHistoryStore>;
