/**
 * Sign-in context for the authenticator (seed 001, `AppLoginContext`) and the sign-in history behind it.
 *
 * `compute` takes a snapshot when a browser starts an app-approval sign-in: browser and OS from the User-Agent,
 * country / city / network operator from the optional GeoIP database, and — after the installation's 14-day
 * introduction phase — what Hearth knows about this browser and this country for the account. The approval service
 * stores the snapshot with the request and never recomputes it.
 *
 * History (`identity_signin_history`, `identity_signin_browsers`, migration `identity-009-signin-history`):
 * - every successful sign-in (password, passkey, email link, reset link, app approval) is recorded by
 *   `recordSuccessfulSignIn` with the SHA-256 of the browser's `hearth_browser` cookie and the country of the address
 *   (never the address itself); rows older than 90 days are removed by `cleanup` (every minute);
 * - per account and browser, the first and last successful sign-in (`knownSince` is the first one). The cookie lives
 *   one year after the last sign-in (it is sent again with the same value on each sign-in), so a browser row is kept
 *   until one year after its last sign-in; a cleared cookie is a new browser ("remembered period").
 *
 * Introduction phase: `history` is null until 14 days after the installation began collecting history: the later of
 * the creation of the first account (setup) and the migration that created the history tables (an upgraded
 * installation starts with an empty history). The start is stored once, in `identity_settings`
 * (`signin_history.introduction_started_at`), when it is first needed and an account exists.
 *
 * `geoip_since` (`identity_settings` `login_context.geoip_since`): when a country database was first seen configured
 * and readable; stored once, never moved.
 *
 * Level (computed here; the app shows it and never derives its own):
 * - `warn`: a new country (`history.newCountry`) while the account has signed in from another known country in the
 *   last 90 days — a sign-in from somewhere the account has not been lately;
 * - `hint`: a browser Hearth does not know for the account (`knownSince` null), or a new country without any earlier
 *   country to compare with (for example right after a GeoIP database was configured);
 * - `info`: everything else, and always during the introduction phase (no claim is made then).
 */
import crypto from 'node:crypto';
import type { Logger } from '../../core/logging/logger.ts';
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';
import { type GeoIpReader, NO_GEO, parseIp } from './geoip.ts';
import { type Browser, type OperatingSystem, parseUserAgent } from './user-agent.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** No known/new claims during this long after the installation began collecting sign-ins. */
export const INTRODUCTION_MS = 14 * DAY_MS;
/** Countries count from successful sign-ins in this window; history rows are kept this long. */
export const COUNTRY_WINDOW_MS = 90 * DAY_MS;
/** A browser's row is kept this long after its last sign-in (the `hearth_browser` cookie's lifetime). */
export const BROWSER_RETENTION_MS = 365 * DAY_MS;

const SETTING_GEOIP_SINCE = 'login_context.geoip_since';
const SETTING_HISTORY_STARTED = 'signin_history.started_at';
const SETTING_INTRODUCTION = 'signin_history.introduction_started_at';

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
/** When the history started (the settings row written once, by the migration). */
const HISTORY_STARTED_SQL = 'INSERT INTO identity_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING';

export const loginContextMigrations: Migration[] = [
  {
    id: 'identity-009-signin-history',
    up: (db) => {
      db.exec(SIGNIN_HISTORY_009);
      const at = Date.now();
      db.prepare(HISTORY_STARTED_SQL).run(SETTING_HISTORY_STARTED, JSON.stringify(at), at);
    },
    // The history's id is a rowid the database assigns: an identity column on PostgreSQL.
    pg: async (q) => {
      await q.run(postgresDdl(SIGNIN_HISTORY_009.replace('id INTEGER PRIMARY KEY,', 'id INTEGER PRIMARY KEY AUTOINCREMENT,')));
      const at = Date.now();
      await q.run(HISTORY_STARTED_SQL, [SETTING_HISTORY_STARTED, JSON.stringify(at), at]);
    },
  },
];

/** The shared schema (one source of truth with the SDK): server/identity/approval/contracts.ts. */
export { AppLoginContextSchema } from './contracts.ts';

export interface AppLoginContext {
  level: 'info' | 'hint' | 'warn';
  browser: Browser;
  os: OperatingSystem;
  country: string | null;
  city: string | null;
  network: string | null;
  history: { knownSince: string | null; newCountry: boolean; countriesSince: string | null } | null;
}

export const browserHash = (browserId: string) => crypto.hash('sha256', browserId, 'hex');
const iso = (ms: number) => new Date(ms).toISOString();

/** Same full IPv4 address (an IPv4-mapped IPv6 address counts as IPv4) or same IPv6 /64; false for anything else. */
export function sameNetwork(ipA: string, ipB: string): boolean {
  const a = parseIp(ipA);
  const b = parseIp(ipB);
  if (!a || !b || a.version !== b.version) return false;
  const n = a.version === 4 ? 4 : 8;
  for (let i = 0; i < n; i++) if (a.bytes[i] !== b.bytes[i]) return false;
  return true;
}

export function createLoginContext(deps: { store: Store; geoip: GeoIpReader | null; now?: () => number; logger?: Logger }) {
  const { store, geoip } = deps;
  const now = deps.now ?? Date.now;

  // One SQL text for both engines (store.ts): the browser row keeps its earliest first and latest last sign-in.
  const q = {
    getSetting: 'SELECT value FROM identity_settings WHERE name = ?',
    putSettingOnce: 'INSERT INTO identity_settings (name, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING',
    firstPerson: "SELECT min(created_at) FROM identity_accounts WHERE kind = 'person'",
    browser: 'SELECT first_at FROM identity_signin_browsers WHERE sub = ? AND browser_hash = ?',
    countrySeen: 'SELECT 1 FROM identity_signin_history WHERE sub = ? AND country = ? AND at >= ? LIMIT 1',
    otherCountrySeen: 'SELECT 1 FROM identity_signin_history WHERE sub = ? AND country IS NOT NULL AND country <> ? AND at >= ? LIMIT 1',
    insertHistory: 'INSERT INTO identity_signin_history (sub, browser_hash, country, at) VALUES (?, ?, ?, ?)',
    upsertBrowser: `INSERT INTO identity_signin_browsers (sub, browser_hash, first_at, last_at) VALUES (@sub, @hash, @at, @at)
      ON CONFLICT (sub, browser_hash) DO UPDATE SET
        first_at = CASE WHEN excluded.first_at < identity_signin_browsers.first_at THEN excluded.first_at ELSE identity_signin_browsers.first_at END,
        last_at = CASE WHEN excluded.last_at > identity_signin_browsers.last_at THEN excluded.last_at ELSE identity_signin_browsers.last_at END`,
    pruneHistory: 'DELETE FROM identity_signin_history WHERE at < ?',
    pruneBrowsers: 'DELETE FROM identity_signin_browsers WHERE last_at < ?',
  };

  const readNumber = async (name: string): Promise<number | null> => {
    const raw = await store.value<string>(q.getSetting, [name]);
    if (raw === undefined) return null;
    try {
      const v = JSON.parse(raw) as unknown;
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    } catch {
      return null;
    }
  };
  const storeOnce = async (name: string, value: number) => {
    await store.run(q.putSettingOnce, [name, JSON.stringify(value), now()]);
    return readNumber(name);
  };

  /** `geoip_since`: stored the first time a country database is seen readable. */
  async function geoipSince(): Promise<number | null> {
    const stored = await readNumber(SETTING_GEOIP_SINCE);
    if (stored !== null) return stored;
    return geoip?.hasCountries() ? storeOnce(SETTING_GEOIP_SINCE, now()) : null;
  }

  /** Start of the introduction phase, or null while no account exists (then the phase has not even begun). */
  async function introductionStart(): Promise<number | null> {
    const stored = await readNumber(SETTING_INTRODUCTION);
    if (stored !== null) return stored;
    const first = (await store.value<number | null>(q.firstPerson)) ?? null;
    if (first === null) return null;
    return storeOnce(SETTING_INTRODUCTION, Math.max(first, (await readNumber(SETTING_HISTORY_STARTED)) ?? first));
  }

  // A database readable at start-up sets geoip_since now.
  geoipSince().catch((e: Error) => deps.logger?.warn({ err: e.message }, 'geoip_since could not be stored'));

  return {
    /** The sign-in context of a browser's app-approval request (a snapshot: the caller stores it). */
    async compute(input: { sub: string; userAgent: string; ip: string; browserId: string | null; at: number }): Promise<AppLoginContext> {
      const { browser, os } = parseUserAgent(input.userAgent);
      // GeoIP is optional: a broken database never fails the sign-in, it only yields null country, city and network.
      let geo = NO_GEO;
      try {
        geo = geoip?.lookup(input.ip) ?? NO_GEO;
      } catch (e) {
        deps.logger?.warn({ err: (e as Error).message }, 'GeoIP lookup failed; the sign-in context has no country, city or network');
      }
      const since = await geoipSince();
      const intro = await introductionStart();
      let history: AppLoginContext['history'] = null;
      let level: AppLoginContext['level'] = 'info';
      if (intro !== null && input.at >= intro + INTRODUCTION_MS) {
        const windowStart = input.at - COUNTRY_WINDOW_MS;
        const first = input.browserId ? await store.value<number>(q.browser, [input.sub, browserHash(input.browserId)]) : undefined;
        const newCountry = geo.country !== null && since !== null && (await store.value(q.countrySeen, [input.sub, geo.country, windowStart])) === undefined;
        history = {
          knownSince: first === undefined ? null : iso(first),
          newCountry,
          countriesSince: since !== null && input.at - since < COUNTRY_WINDOW_MS ? iso(since) : null,
        };
        if (newCountry && (await store.value(q.otherCountrySeen, [input.sub, geo.country, windowStart])) !== undefined) level = 'warn';
        else if (newCountry || history.knownSince === null) level = 'hint';
      }
      return { level, browser, os, country: geo.country, city: geo.city, network: geo.network, history };
    },

    sameNetwork,

    /** Records a successful sign-in (country of the address, browser); called for every sign-in method. */
    async recordSuccessfulSignIn(input: { sub: string; browserId: string; ip: string; at: number }): Promise<void> {
      await geoipSince();
      const country = geoip?.lookup(input.ip).country ?? null;
      const hash = browserHash(input.browserId);
      await store.tx(
        async () => {
          await store.run(q.insertHistory, [input.sub, hash, country, input.at]);
          await store.run(q.upsertBrowser, { sub: input.sub, hash, at: input.at });
        },
        { name: 'sign-in history' },
      );
      await introductionStart();
    },

    /** Removes history older than 90 days and browsers unused for a year; returns how many rows went. */
    async cleanup(at = now()): Promise<{ history: number; browsers: number }> {
      const history = (await store.run(q.pruneHistory, [at - COUNTRY_WINDOW_MS])).changes;
      const browsers = (await store.run(q.pruneBrowsers, [at - BROWSER_RETENTION_MS])).changes;
      if (history + browsers > 0) deps.logger?.debug({ history, browsers }, 'sign-in history pruned');
      return { history, browsers };
    },

    /** `geoip_since` as stored (epoch ms), or null. */
    geoipSince,
    /** Start of the 14-day introduction phase (epoch ms), or null while no account exists. */
    introductionStart,
  };
}

export type LoginContextService = ReturnType<typeof createLoginContext>;
