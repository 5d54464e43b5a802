import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asnRecord, cityRecord, writeMmdb } from '../../../test/helpers/mmdb.ts';
import { createLogger } from '../../core/logging/logger.ts';
import { GEOIP_RELOAD_CHECK_MS, isPublicIp, openGeoIp, parseIp, plainText } from './geoip.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-geoip-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const write = (s: string) => void lines.push(JSON.parse(s));
  const logger = createLogger({ level: 'info', destination: { write } as never });
  return { logger, lines };
}

const CITY = [
  { network: '203.0.113.0/24', data: cityRecord('DE', 'Berlin') },
  { network: '203.0.113.128/25', data: cityRecord('AT', 'Wien') },
  { network: '198.51.100.0/24', data: cityRecord('fr', null) },
  { network: '2001:db8:1::/48', data: cityRecord('NL', 'Amsterdam', { traits: { isp: 'Example Fibre B.V.' } }) },
  { network: '192.0.2.0/24', data: { registered_country: { iso_code: 'SE' }, city: { names: { sv: 'Göteborg' } } } },
];
const ASN = [
  { network: '203.0.113.0/24', data: asnRecord(64500, 'Example Telecom\nGmbH') },
  { network: '198.51.100.0/24', data: asnRecord(64501, `${'Ä'.repeat(47)}Z€`) },
];

function files(name: string, city: typeof CITY | null, asn: typeof ASN | null) {
  const out: { cityDb?: string; asnDb?: string } = {};
  if (city) fs.writeFileSync((out.cityDb = path.join(dir, `${name}-city.mmdb`)), writeMmdb(city));
  if (asn) fs.writeFileSync((out.asnDb = path.join(dir, `${name}-asn.mmdb`)), writeMmdb(asn, { databaseType: 'GeoLite2-ASN' }));
  return out;
}

describe('parseIp / isPublicIp', () => {
  it('parses IPv4, IPv6 (compressed, embedded IPv4, zones) and reads IPv4-mapped IPv6 as IPv4', () => {
    expect(parseIp('203.0.113.7')).toEqual({ version: 4, bytes: Uint8Array.from([203, 0, 113, 7]) });
    expect(parseIp('::ffff:203.0.113.7')).toEqual({ version: 4, bytes: Uint8Array.from([203, 0, 113, 7]) });
    expect(parseIp('::FFFF:cb00:7107')).toEqual({ version: 4, bytes: Uint8Array.from([203, 0, 113, 7]) });
    const v6 = parseIp('2001:db8::1:2')!;
    expect(v6.version).toBe(6);
    expect(Array.from(v6.bytes)).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2]);
    expect(Array.from(parseIp('fe80::1%eth0')!.bytes.subarray(0, 2))).toEqual([0xfe, 0x80]);
    expect(Array.from(parseIp('64:ff9b::192.0.2.33')!.bytes.subarray(12))).toEqual([192, 0, 2, 33]);
    for (const bad of ['', 'localhost', '1.2.3', '1.2.3.256', '::g', 'unknown']) expect(parseIp(bad), bad).toBeNull();
  });

  it('treats private, loopback, link-local, CGNAT, multicast and unspecified addresses as not public', () => {
    for (const ip of [
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fd12:3456::1',
      'fe80::1',
      'ff02::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(isPublicIp(parseIp(ip)!), ip).toBe(false);
    }
    for (const ip of ['203.0.113.7', '172.32.0.1', '8.8.8.8', '2001:db8::1', '2a00:1450::1']) expect(isPublicIp(parseIp(ip)!), ip).toBe(true);
  });
});

describe('plainText', () => {
  it('makes one line and cuts at 96 UTF-8 bytes on a code-point boundary', () => {
    expect(plainText('  Example\nTelecom\t GmbH ')).toBe('Example Telecom GmbH');
    expect(plainText('Evil\u202Eliam\u2028Co')).toBe('Evil liam Co');
    expect(plainText('a'.repeat(100))).toBe('a'.repeat(96));
    // 47 × 'Ä' (2 bytes) = 94 bytes; '€' (3 bytes) would end at 97: cut before it
    expect(plainText(`${'Ä'.repeat(47)}€`)).toBe('Ä'.repeat(47));
    const emoji = `${'x'.repeat(94)}😀`; // 94 + 4 bytes: the surrogate pair is not split
    expect(plainText(emoji)).toBe('x'.repeat(94));
    expect(plainText('   ')).toBeNull();
    expect(plainText(42)).toBeNull();
  });
});

describe('openGeoIp with MaxMind DB files', () => {
  it('is null without configured files', () => {
    const { logger } = capture();
    expect(openGeoIp({ logger })).toBeNull();
    expect(openGeoIp({ cityDb: '', asnDb: null, logger })).toBeNull();
  });

  it('reads country, city and network from a City and an ASN file (most specific network wins)', () => {
    const { logger, lines } = capture();
    const g = openGeoIp({ ...files('both', CITY, ASN), logger })!;
    expect(g.hasCountries()).toBe(true);
    expect(g.lookup('203.0.113.7')).toEqual({ country: 'DE', city: 'Berlin', network: 'Example Telecom GmbH' });
    expect(g.lookup('203.0.113.200')).toEqual({ country: 'AT', city: 'Wien', network: 'Example Telecom GmbH' });
    expect(g.lookup('::ffff:203.0.113.7')).toEqual({ country: 'DE', city: 'Berlin', network: 'Example Telecom GmbH' });
    // lower-case code is upper-cased; no city record → null; a long operator name is cut to 96 bytes
    expect(g.lookup('198.51.100.1')).toEqual({ country: 'FR', city: null, network: `${'Ä'.repeat(47)}Z` });
    // IPv6 with an ISP trait in the City file; registered_country and a non-English name as fallbacks
    expect(g.lookup('2001:db8:1:ffff::5')).toEqual({ country: 'NL', city: 'Amsterdam', network: 'Example Fibre B.V.' });
    expect(g.lookup('192.0.2.9')).toEqual({ country: 'SE', city: 'Göteborg', network: null });
    // not in the files, private, or not an address
    for (const ip of ['8.8.8.8', '2001:db8:2::1', '10.0.0.1', '127.0.0.1', '::1', 'garbage']) {
      expect(g.lookup(ip), ip).toEqual({ country: null, city: null, network: null });
    }
    expect(lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual([
      'GeoIP database loaded (HEARTH_GEOIP_DB)',
      'GeoIP database loaded (HEARTH_GEOIP_ASN_DB)',
    ]);
  });

  it('works with only an ASN file (no countries) or only a City file (no network)', () => {
    const { logger } = capture();
    const asnOnly = openGeoIp({ ...files('asn-only', null, ASN), logger })!;
    expect(asnOnly.hasCountries()).toBe(false);
    expect(asnOnly.lookup('203.0.113.7')).toEqual({ country: null, city: null, network: 'Example Telecom GmbH' });
    const cityOnly = openGeoIp({ ...files('city-only', CITY, null), logger })!;
    expect(cityOnly.lookup('203.0.113.7')).toEqual({ country: 'DE', city: 'Berlin', network: null });
  });

  it('warns about an unreadable file, gives nulls, and picks the file up once it becomes readable (checked at most once a minute)', () => {
    const { logger, lines } = capture();
    let t = 1_000_000;
    const cityDb = path.join(dir, 'late-city.mmdb');
    const asnDb = path.join(dir, 'broken-asn.mmdb');
    fs.writeFileSync(asnDb, 'this is not a MaxMind DB');
    const g = openGeoIp({ cityDb, asnDb, logger, now: () => t })!;
    expect(g.hasCountries()).toBe(false);
    expect(g.lookup('203.0.113.7')).toEqual({ country: null, city: null, network: null });
    const warnings = lines.filter((l) => l.level === 'warn');
    expect(warnings.map((l) => [l.msg, l.file])).toEqual([
      ['GeoIP database HEARTH_GEOIP_DB cannot be read: sign-in context has no country, city or network until it can (Hearth runs without it)', cityDb],
      ['GeoIP database HEARTH_GEOIP_ASN_DB cannot be read: sign-in context has no country, city or network until it can (Hearth runs without it)', asnDb],
    ]);

    fs.writeFileSync(cityDb, writeMmdb(CITY));
    t += GEOIP_RELOAD_CHECK_MS - 1;
    expect(g.lookup('203.0.113.7').country).toBeNull(); // not checked yet
    t += 1;
    expect(g.lookup('203.0.113.7')).toEqual({ country: 'DE', city: 'Berlin', network: null });
    expect(g.hasCountries()).toBe(true);
    // the unchanged broken file is neither read nor reported again
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(2);
  });

  it('reloads a replaced file and keeps the previous data when the replacement is broken', () => {
    const { logger, lines } = capture();
    let t = 5_000_000;
    const { cityDb } = files('reload', CITY, null);
    const g = openGeoIp({ cityDb, logger, now: () => t })!;
    expect(g.lookup('203.0.113.7').country).toBe('DE');

    fs.writeFileSync(cityDb!, writeMmdb([{ network: '203.0.113.0/24', data: cityRecord('PL', 'Kraków') }]));
    fs.utimesSync(cityDb!, new Date(), new Date(Date.now() + 5000));
    t += GEOIP_RELOAD_CHECK_MS;
    expect(g.lookup('203.0.113.7')).toEqual({ country: 'PL', city: 'Kraków', network: null });
    expect(lines.some((l) => l.msg === 'GeoIP database reloaded (HEARTH_GEOIP_DB)')).toBe(true);

    fs.writeFileSync(cityDb!, 'truncated');
    t += GEOIP_RELOAD_CHECK_MS;
    expect(g.lookup('203.0.113.7')).toEqual({ country: 'PL', city: 'Kraków', network: null });
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'GeoIP database HEARTH_GEOIP_DB could not be reloaded; the previous version stays in use',
    ]);
  });
});
