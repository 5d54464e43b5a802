/** The sign-in context against a real platform database (all migrations) and a real MaxMind DB file. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asnRecord, cityRecord, writeMmdb } from '../../../test/helpers/mmdb.ts';
import { allMigrations } from '../../boot.ts';
import { createLogger } from '../../core/logging/logger.ts';
import { type Db, openPlatformDb } from '../../core/storage/platform-db.ts';
import { sqliteStore } from '../../core/storage/store.ts';
import { openGeoIp } from './geoip.ts';
import { AppLoginContextSchema, BROWSER_RETENTION_MS, COUNTRY_WINDOW_MS, createLoginContext, INTRODUCTION_MS, sameNetwork } from './signin-context.ts';

const DAY = 24 * 60 * 60 * 1000;
// Far enough ahead that the migration (run now) lies before every account of these tests.
const T0 = Math.floor(Date.now() / DAY) * DAY + 1000 * DAY;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-context-'));
  dirs.push(d);
  return d;
};
const logger = createLogger({ level: 'silent' });

const geoFile = (() => {
  let file: string | null = null;
  return () => {
    if (file) return file;
    file = path.join(tmp(), 'city.mmdb');
    fs.writeFileSync(
      file,
      writeMmdb([
        { network: '203.0.113.0/24', data: cityRecord('DE', 'Berlin') },
        { network: '198.51.100.0/24', data: cityRecord('AT', 'Wien') },
        { network: '192.0.2.0/24', data: cityRecord('FR', 'Paris') },
        { network: '2001:db8::/32', data: cityRecord('NL', 'Amsterdam') },
      ]),
    );
    return file;
  };
})();
const asnFile = () => {
  const f = path.join(tmp(), 'asn.mmdb');
  fs.writeFileSync(f, writeMmdb([{ network: '203.0.113.0/24', data: asnRecord(64500, 'Example Telecom GmbH') }], { databaseType: 'GeoLite2-ASN' }));
  return f;
};

const DE = '203.0.113.10';
const AT = '198.51.100.10';
const FR = '192.0.2.10';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const browserId = () => crypto.randomBytes(32).toString('base64url');

function setup(opts: { geoip?: boolean; asn?: boolean } = {}) {
  const db = openPlatformDb(tmp(), allMigrations);
  let t = T0;
  const now = () => t;
  const geoip = opts.geoip === false ? null : openGeoIp({ cityDb: geoFile(), asnDb: opts.asn ? asnFile() : null, logger, now });
  const ctx = createLoginContext({ store: sqliteStore(db), geoip, now });
  return {
    db,
    ctx,
    geoip,
    at: () => t,
    set: (ms: number) => void (t = ms),
    /** A person account created at `createdAt`. */
    account(login: string, createdAt = T0): string {
      const sub = crypto.randomUUID();
      db.prepare("INSERT INTO identity_accounts (sub, kind, login, profile, created_at, updated_at) VALUES (?, 'person', ?, 'user', ?, ?)").run(
        sub,
        login,
        createdAt,
        createdAt,
      );
      return sub;
    },
  };
}
const compute = (x: ReturnType<typeof setup>, sub: string, ip: string, browser: string | null, at = x.at()) =>
  x.ctx.compute({ sub, userAgent: FIREFOX_LINUX, ip, browserId: browser, at });
const settings = (db: Db) =>
  Object.fromEntries(
    (db.prepare('SELECT name, value FROM identity_settings').all() as Array<{ name: string; value: string }>).map((r) => [r.name, JSON.parse(r.value)]),
  );

describe('sameNetwork', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7', true],
    ['203.0.113.7', '203.0.113.8', false],
    ['::ffff:203.0.113.7', '203.0.113.7', true],
    ['203.0.113.7', '::ffff:cb00:7107', true],
    ['2001:db8:aa:bb::1', '2001:db8:aa:bb:ffff:ffff:ffff:ffff', true],
    ['2001:db8:aa:bb::1', '2001:db8:aa:bc::1', false],
    ['2001:DB8:AA:BB::1', '2001:db8:aa:bb:0:0:0:2', true],
    ['fe80::1%eth0', 'fe80::2', true],
    ['203.0.113.7', '2001:db8::1', false],
    ['unknown', 'unknown', false],
    ['', '203.0.113.7', false],
  ])('%s and %s → %s', (a, b, same) => {
    expect(sameNetwork(a, b)).toBe(same);
  });
});

describe('sign-in history migration', () => {
  it('creates the tables and records when history collection started', async () => {
    const before = Date.now();
    const { db } = setup();
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('identity_signin_history', 'identity_signin_browsers') ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual(['identity_signin_browsers', 'identity_signin_history']);
    const started = settings(db)['signin_history.started_at'];
    expect(started).toBeGreaterThanOrEqual(before);
    expect(started).toBeLessThanOrEqual(Date.now());
  });
});

describe('createLoginContext().compute', () => {
  it('always gives browser, OS and geo fields; history is null during the 14-day introduction phase', async () => {
    const x = setup({ asn: true });
    // no account yet: the introduction phase has not begun
    const sub = crypto.randomUUID();
    expect(await compute(x, sub, DE, null, T0 + 400 * DAY)).toEqual({
      level: 'info',
      browser: 'firefox',
      os: 'linux',
      country: 'DE',
      city: 'Berlin',
      network: 'Example Telecom GmbH',
      history: null,
    });
    expect(await x.ctx.introductionStart()).toBeNull();

    // the first account is created long after the migration ran: the phase starts with it
    const created = T0 + 30 * DAY;
    const alice = x.account('alice', created);
    expect(await compute(x, alice, AT, browserId(), created + INTRODUCTION_MS - 1)).toEqual({
      level: 'info',
      browser: 'firefox',
      os: 'linux',
      country: 'AT',
      city: 'Wien',
      network: null,
      history: null,
    });
    expect(await x.ctx.introductionStart()).toBe(created);
    expect(settings(x.db)['signin_history.introduction_started_at']).toBe(created);
    // stored once: a later, older account does not move it
    x.account('older', created - 100 * DAY);
    expect(await x.ctx.introductionStart()).toBe(created);

    const after = await compute(x, alice, AT, browserId(), created + INTRODUCTION_MS);
    expect(after.history).toEqual({ knownSince: null, newCountry: true, countriesSince: new Date(T0).toISOString() });
    expect(AppLoginContextSchema.parse(after)).toEqual(after);
    expect(AppLoginContextSchema.safeParse({ ...after, extra: 1 }).success).toBe(false);
    expect(AppLoginContextSchema.parse({ ...after, sameNetwork: true })).toEqual({ ...after, sameNetwork: true });
  });

  it('knownSince is the first successful sign-in of this account in this browser (cookie), per account', async () => {
    const x = setup();
    const installed = Date.now();
    const alice = x.account('alice', installed);
    const bob = x.account('bob', installed);
    const laptop = browserId();
    const t1 = installed + 20 * DAY;
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: laptop, ip: DE, at: t1 });
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: laptop, ip: DE, at: t1 + DAY });
    const at = t1 + 2 * DAY;
    expect((await compute(x, alice, DE, laptop, at)).history!.knownSince).toBe(new Date(t1).toISOString());
    expect((await compute(x, alice, DE, laptop, at)).level).toBe('info');
    // another browser, no cookie, or another account in the same browser: not known
    for (const [sub, b] of [
      [alice, browserId()],
      [alice, null],
      [bob, laptop],
    ] as const) {
      const c = await compute(x, sub, DE, b, at);
      expect(c.history!.knownSince).toBeNull();
      expect(c.level).toBe('hint');
    }
    const rows = x.db.prepare('SELECT sub, browser_hash, country, at FROM identity_signin_history ORDER BY at').all();
    const hash = crypto.createHash('sha256').update(laptop).digest('hex');
    expect(rows).toEqual([
      { sub: alice, browser_hash: hash, country: 'DE', at: t1 },
      { sub: alice, browser_hash: hash, country: 'DE', at: t1 + DAY },
    ]);
    expect(x.db.prepare('SELECT * FROM identity_signin_browsers').all()).toEqual([{ sub: alice, browser_hash: hash, first_at: t1, last_at: t1 + DAY }]);
  });

  it('newCountry and level: warn for a new country after another one, hint without a baseline, info for a known one', async () => {
    const x = setup();
    const installed = Date.now();
    const since = (await await x.ctx.geoipSince())!;
    expect(since).toBe(T0); // set when the context was created with a readable country database
    const alice = x.account('alice', installed);
    const carol = x.account('carol', installed);
    const laptop = browserId();
    const t1 = installed + 20 * DAY;
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: laptop, ip: DE, at: t1 });

    const home = await compute(x, alice, DE, laptop, t1 + DAY);
    expect(home).toMatchObject({ level: 'info', country: 'DE', history: { newCountry: false } });
    const abroad = await compute(x, alice, AT, laptop, t1 + DAY);
    expect(abroad).toMatchObject({ level: 'warn', country: 'AT', history: { knownSince: new Date(t1).toISOString(), newCountry: true } });
    // carol has no sign-in with a country: a new country is only a hint
    expect(await compute(x, carol, FR, null, t1 + DAY)).toMatchObject({ level: 'hint', history: { knownSince: null, newCountry: true } });
    // an address without a country makes no country claim
    expect(await compute(x, alice, '10.0.0.1', laptop, t1 + DAY)).toMatchObject({ level: 'info', country: null, history: { newCountry: false } });

    // 90 days: a country seen 90 days ago still counts, one more millisecond and it is new again
    expect((await compute(x, alice, DE, laptop, t1 + COUNTRY_WINDOW_MS)).history!.newCountry).toBe(false);
    expect((await compute(x, alice, DE, laptop, t1 + COUNTRY_WINDOW_MS + 1)).history!.newCountry).toBe(true);
  });

  it('countriesSince is geoip_since while that is less than 90 days ago; geoip_since is stored once', async () => {
    const x = setup();
    const alice = x.account('alice', T0 - 400 * DAY);
    const iso = new Date(T0).toISOString();
    expect((await compute(x, alice, DE, null, T0 + DAY)).history!.countriesSince).toBe(iso);
    expect((await compute(x, alice, DE, null, T0 + COUNTRY_WINDOW_MS - 1)).history!.countriesSince).toBe(iso);
    expect((await compute(x, alice, DE, null, T0 + COUNTRY_WINDOW_MS)).history!.countriesSince).toBeNull();

    // a second start later (same database) keeps the first time
    x.set(T0 + 50 * DAY);
    const again = createLoginContext({ store: sqliteStore(x.db), geoip: x.geoip, now: x.at });
    expect(await again.geoipSince()).toBe(T0);
    expect(settings(x.db)['login_context.geoip_since']).toBe(T0);
  });

  it('without GeoIP: no geo fields, no country claim, no geoip_since until a database is readable', async () => {
    const x = setup({ geoip: false });
    const alice = x.account('alice', T0 - 400 * DAY);
    expect(await compute(x, alice, DE, null, T0)).toEqual({
      level: 'hint',
      browser: 'firefox',
      os: 'linux',
      country: null,
      city: null,
      network: null,
      history: { knownSince: null, newCountry: false, countriesSince: null },
    });
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: browserId(), ip: DE, at: T0 });
    expect(x.db.prepare('SELECT country FROM identity_signin_history').pluck().all()).toEqual([null]);
    expect(await x.ctx.geoipSince()).toBeNull();
    // a configured file that cannot be read sets nothing either
    const broken = path.join(tmp(), 'broken.mmdb');
    fs.writeFileSync(broken, 'nope');
    const none = createLoginContext({ store: sqliteStore(x.db), geoip: openGeoIp({ cityDb: broken, logger }), now: x.at });
    expect(await none.geoipSince()).toBeNull();
    expect(await none.compute({ sub: alice, userAgent: '', ip: DE, browserId: null, at: T0 })).toMatchObject({ country: null, browser: 'other', os: 'other' });
  });
});

describe('cleanup', () => {
  it('drops history after 90 days and browsers a year after their last sign-in; knownSince outlives the history rows', async () => {
    const x = setup();
    const alice = x.account('alice', T0 - 400 * DAY);
    const laptop = browserId();
    const old = browserId();
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: old, ip: DE, at: T0 });
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: laptop, ip: DE, at: T0 + 10 * DAY });
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: laptop, ip: AT, at: T0 + 200 * DAY });

    expect(await x.ctx.cleanup(T0 + 10 * DAY + COUNTRY_WINDOW_MS)).toEqual({ history: 1, browsers: 0 });
    expect(await x.ctx.cleanup(T0 + 10 * DAY + COUNTRY_WINDOW_MS + 1)).toEqual({ history: 1, browsers: 0 });
    expect(x.db.prepare('SELECT country FROM identity_signin_history').pluck().all()).toEqual(['AT']);
    const at = T0 + 201 * DAY;
    expect((await compute(x, alice, AT, laptop, at)).history!.knownSince).toBe(new Date(T0 + 10 * DAY).toISOString());
    expect(await compute(x, alice, DE, laptop, at)).toMatchObject({ level: 'warn', history: { newCountry: true } });

    expect(await x.ctx.cleanup(T0 + BROWSER_RETENTION_MS + 1)).toEqual({ history: 1, browsers: 1 });
    expect((await compute(x, alice, AT, old, at)).history!.knownSince).toBeNull();
    expect((await compute(x, alice, AT, laptop, at)).history!.knownSince).not.toBeNull();
  });

  it('an account deletion removes its history', async () => {
    const x = setup();
    const alice = x.account('alice');
    await x.ctx.recordSuccessfulSignIn({ sub: alice, browserId: browserId(), ip: DE, at: T0 });
    x.db.prepare('DELETE FROM identity_accounts WHERE sub = ?').run(alice);
    expect(x.db.prepare('SELECT count(*) FROM identity_signin_history').pluck().get()).toBe(0);
    expect(x.db.prepare('SELECT count(*) FROM identity_signin_browsers').pluck().get()).toBe(0);
  });
});
