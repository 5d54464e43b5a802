/**
 * Sign-in context for the authenticator and the rules of the sign-in history behind it. The context is the
 * `AppLoginContext` each browser sign-in request carries for an authenticator that accepts `login-context`; its wire
 * schema, shared with the SDK, is contracts.ts's (context.test.ts parses computed contexts with it).
 *
 * `compute` takes a snapshot when a browser starts an app-approval sign-in: browser and OS from the User-Agent,
 * country / city / network operator from the optional GeoIP database, and — after the installation's 14-day
 * introduction phase — what Hearth knows about this browser and this country for the account. The approval service
 * stores the snapshot with the request and never recomputes it.
 *
 * History (its tables, settings and SQL: signin-history.store.ts):
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
import type { Store } from '../../core/storage/store.ts';
import { type GeoIpReader, NO_GEO, parseIp } from './geoip.ts';
import { createSigninHistoryStore, SIGNIN_SETTINGS } from './signin-history.store.ts';
import { type Browser, type OperatingSystem, parseUserAgent } from './user-agent.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** No known/new claims during this long after the installation began collecting sign-ins. */
export const INTRODUCTION_MS = 14 * DAY_MS;
/** Countries count from successful sign-ins in this window; history rows are kept this long. */
export const COUNTRY_WINDOW_MS = 90 * DAY_MS;
/** A browser's row is kept this long after its last sign-in (the `hearth_browser` cookie's lifetime). */
export const BROWSER_RETENTION_MS = 365 * DAY_MS;

const { geoipSince: SETTING_GEOIP_SINCE, historyStarted: SETTING_HISTORY_STARTED, introductionStarted: SETTING_INTRODUCTION } = SIGNIN_SETTINGS;

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
  const { geoip } = deps;
  const now = deps.now ?? Date.now;

  const signins = createSigninHistoryStore(deps.store);

  const readNumber = async (name: string): Promise<number | null> => {
    const raw = await signins.getSetting(name);
    if (raw === undefined) return null;
    try {
      const v = JSON.parse(raw) as unknown;
      return typeof v === 'number' && Number.isFinite(v) ? v : null;
    } catch {
      return null;
    }
  };
  const storeOnce = async (name: string, value: number) => {
    await signins.putSettingOnce(name, JSON.stringify(value), now());
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
    const first = await signins.firstPersonCreatedAt();
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
        const first = input.browserId ? await signins.browserFirstAt(input.sub, browserHash(input.browserId)) : undefined;
        const newCountry = geo.country !== null && since !== null && !(await signins.countrySeen(input.sub, geo.country, windowStart));
        history = {
          knownSince: first === undefined ? null : iso(first),
          newCountry,
          countriesSince: since !== null && input.at - since < COUNTRY_WINDOW_MS ? iso(since) : null,
        };
        if (newCountry && (await signins.otherCountrySeen(input.sub, geo.country!, windowStart))) level = 'warn';
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
      await signins.transaction(async () => {
        await signins.insertHistory(input.sub, hash, country, input.at);
        await signins.upsertBrowser(input.sub, hash, input.at);
      });
      await introductionStart();
    },

    /** Removes history older than 90 days and browsers unused for a year; returns how many rows went. */
    async cleanup(at = now()): Promise<{ history: number; browsers: number }> {
      const history = await signins.pruneHistory(at - COUNTRY_WINDOW_MS);
      const browsers = await signins.pruneBrowsers(at - BROWSER_RETENTION_MS);
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
