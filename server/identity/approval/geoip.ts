/**
 * GeoIP for the sign-in context (`AppLoginContext.country`, `.city`, `.network`).
 *
 * Hearth ships no GeoIP data: the administrator may point it at MaxMind DB files (`.mmdb`, read with `mmdb-lib`):
 * - `geoipCityDb` (`HEARTH_GEOIP_DB`): GeoLite2-City, GeoLite2-Country, GeoIP2-City/-Enterprise, or any file with the
 *   same record layout (`country.iso_code`, `city.names`, and optionally `traits.isp` / `autonomous_system_organization`
 *   for a combined file);
 * - `geoipAsnDb` (`HEARTH_GEOIP_ASN_DB`): GeoLite2-ASN (or GeoIP2-ISP) for the network operator.
 *
 * Without a file every field is null. A file that cannot be read is a start-up warning in the log and gives nulls; it
 * never stops Hearth. Each file is checked for a change (modification time or size) at most once a minute when it is
 * used, and reloaded; a replacement that cannot be read is a warning and the previous data stays in use.
 *
 * Private, loopback, link-local, CGNAT, multicast and unspecified addresses are never looked up (all fields null).
 * `network` is only the operator's name (ISP, else the autonomous system's organisation): Hearth never adds a label
 * such as "VPN", "hosting" or "data center", even when the database flags the network as such.
 */
import fs from 'node:fs';
import net from 'node:net';
import { Reader } from 'mmdb-lib';
import type { Logger } from '../../core/logging/logger.ts';

/** Most UTF-8 bytes of `city` and `network`. */
export const GEO_TEXT_MAX_BYTES = 96;
/** How often a database file is checked for a new version (at most; only when used). */
export const GEOIP_RELOAD_CHECK_MS = 60_000;

export interface GeoInfo {
  country: string | null;
  city: string | null;
  network: string | null;
}
export const NO_GEO: GeoInfo = Object.freeze({ country: null, city: null, network: null });

export interface GeoIpReader {
  /** Country, city and network operator of a public address (nulls when unknown, private or not configured). */
  lookup(ip: string): GeoInfo;
  /** True while a country database (`geoipCityDb`) is loaded: only then can sign-ins carry a country. */
  hasCountries(): boolean;
}

// ---------------------------------------------------------------------------------------------------------------
// Addresses

export type ParsedIp = { version: 4; bytes: Uint8Array } | { version: 6; bytes: Uint8Array };

/**
 * An IPv4 or IPv6 address as bytes; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is its IPv4 address. A zone
 * (`fe80::1%eth0`) is dropped. Null for anything that is not an address.
 */
export function parseIp(text: string): ParsedIp | null {
  if (typeof text !== 'string') return null;
  const ip = text.trim().replace(/%[\w.-]+$/, '');
  const kind = net.isIP(ip);
  if (kind === 4) return { version: 4, bytes: Uint8Array.from(ip.split('.').map(Number)) };
  if (kind !== 6) return null;
  let s = ip.toLowerCase();
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    tail.push(...v4[1]!.split('.').map(Number));
    s = `${s.slice(0, -v4[1]!.length)}0:0`;
  }
  const halves = s.split('::');
  const words = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const head = words(halves[0]!);
  const rest = halves.length > 1 ? words(halves[1]!) : [];
  const all = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  const bytes = new Uint8Array(16);
  all.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  if (tail.length) bytes.set(tail, 12);
  // ::ffff:a.b.c.d (IPv4-mapped) is the IPv4 address
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return { version: 4, bytes: bytes.slice(12) };
  }
  return { version: 6, bytes };
}

/** The address as text for a lookup (IPv4 dotted; IPv6 in full hex groups), or null when not an address. */
export function formatIp(ip: ParsedIp): string {
  if (ip.version === 4) return Array.from(ip.bytes).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16));
  return groups.join(':');
}

const inV4 = (b: Uint8Array, net0: number, net1: number, bits: number) => {
  const addr = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  const base = ((net0 << 24) | (net1 << 16)) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
};

/** False for private, loopback, link-local, shared (CGNAT), multicast, broadcast and unspecified addresses. */
export function isPublicIp(ip: ParsedIp): boolean {
  const b = ip.bytes;
  if (ip.version === 4) {
    return !(
      inV4(b, 0, 0, 8) ||
      inV4(b, 10, 0, 8) ||
      inV4(b, 100, 64, 10) ||
      inV4(b, 127, 0, 8) ||
      inV4(b, 169, 254, 16) ||
      inV4(b, 172, 16, 12) ||
      inV4(b, 192, 168, 16) ||
      inV4(b, 198, 18, 15) ||
      b[0]! >= 224
    );
  }
  if (b.every((x) => x === 0)) return false; // ::
  if (b.subarray(0, 15).every((x) => x === 0) && b[15] === 1) return false; // ::1
  if ((b[0]! & 0xfe) === 0xfc) return false; // fc00::/7 unique local
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return false; // fe80::/10 link-local
  if (b[0] === 0xff) return false; // multicast
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Text

/** Single-line plain text of at most `maxBytes` UTF-8 bytes, cut on a code-point boundary; null when empty. */
export function plainText(value: unknown, maxBytes = GEO_TEXT_MAX_BYTES): string | null {
  if (typeof value !== 'string') return null;
  // control characters, line/paragraph separators and bidirectional overrides (they could disguise the text)
  const clean = value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!clean) return null;
  let out = '';
  let bytes = 0;
  for (const cp of clean) {
    const n = Buffer.byteLength(cp, 'utf8');
    if (bytes + n > maxBytes) break;
    out += cp;
    bytes += n;
  }
  return out.trim() || null;
}

// ---------------------------------------------------------------------------------------------------------------
// Reader

type Rec = Record<string, unknown>;

interface DbFile {
  path: string;
  reader: Reader<Rec> | null;
  stamp: string | null;
  /** The version that could not be read (not read again until it changes). */
  failedStamp: string | null;
  checkedAt: number;
  lastError: string | null;
}

const names = (n: unknown): string | null => {
  if (!n || typeof n !== 'object') return null;
  const m = n as Record<string, unknown>;
  return plainText(m.en) ?? plainText(Object.values(m).find((v) => typeof v === 'string'));
};
const countryCode = (c: unknown): string | null => {
  const code = (c as Rec | undefined)?.iso_code;
  if (typeof code !== 'string') return null;
  const up = code.toUpperCase();
  return /^[A-Z]{2}$/.test(up) ? up : null;
};

/**
 * Opens the configured database files, or returns null when none is configured. Never throws: a file that cannot be
 * read is logged as a warning now and retried when it changes.
 */
export function openGeoIp(opts: { cityDb?: string | null; asnDb?: string | null; logger: Logger; now?: () => number }): GeoIpReader | null {
  const now = opts.now ?? Date.now;
  const files: { city: DbFile | null; asn: DbFile | null } = {
    city: opts.cityDb ? { path: opts.cityDb, reader: null, stamp: null, failedStamp: null, checkedAt: 0, lastError: null } : null,
    asn: opts.asnDb ? { path: opts.asnDb, reader: null, stamp: null, failedStamp: null, checkedAt: 0, lastError: null } : null,
  };
  if (!files.city && !files.asn) return null;

  function load(f: DbFile, setting: string, initial: boolean): void {
    f.checkedAt = now();
    let stamp: string | null = null;
    try {
      const st = fs.statSync(f.path);
      stamp = `${st.mtimeMs}:${st.size}`;
      if (stamp === f.stamp || stamp === f.failedStamp) return;
      const reader = new Reader<Rec>(fs.readFileSync(f.path));
      const hadOne = f.reader !== null;
      f.reader = reader;
      f.stamp = stamp;
      f.lastError = null;
      f.failedStamp = null;
      const m = reader.metadata;
      opts.logger.info(
        { file: f.path, databaseType: m.databaseType, builtAt: new Date(Number(m.buildEpoch) * 1000).toISOString() },
        hadOne ? `GeoIP database reloaded (${setting})` : `GeoIP database loaded (${setting})`,
      );
    } catch (err) {
      const message = (err as Error).message;
      f.failedStamp = stamp;
      if (message === f.lastError && !initial) return;
      f.lastError = message;
      opts.logger.warn(
        { file: f.path, err: message },
        f.reader
          ? `GeoIP database ${setting} could not be reloaded; the previous version stays in use`
          : `GeoIP database ${setting} cannot be read: sign-in context has no country, city or network until it can (Hearth runs without it)`,
      );
    }
  }
  const settingOf = { city: 'HEARTH_GEOIP_DB', asn: 'HEARTH_GEOIP_ASN_DB' } as const;
  for (const k of ['city', 'asn'] as const) if (files[k]) load(files[k], settingOf[k], true);

  function readerOf(k: 'city' | 'asn'): Reader<Rec> | null {
    const f = files[k];
    if (!f) return null;
    if (now() - f.checkedAt >= GEOIP_RELOAD_CHECK_MS) load(f, settingOf[k], false);
    return f.reader;
  }
  const get = (r: Reader<Rec> | null, ip: string): Rec | null => {
    if (!r) return null;
    try {
      return r.get(ip);
    } catch {
      return null; // an IPv6 address in an IPv4-only database, or a damaged record
    }
  };

  return {
    hasCountries: () => readerOf('city') !== null,
    lookup(ip: string): GeoInfo {
      const parsed = parseIp(ip);
      if (!parsed || !isPublicIp(parsed)) return NO_GEO;
      const addr = formatIp(parsed);
      const city = get(readerOf('city'), addr);
      const asn = get(readerOf('asn'), addr);
      const traits = (city?.traits ?? {}) as Rec;
      return {
        country: countryCode(city?.country) ?? countryCode(city?.registered_country),
        city: names((city?.city as Rec | undefined)?.names),
        network:
          plainText(traits.isp) ??
          plainText(asn?.isp) ??
          plainText(asn?.autonomous_system_organization) ??
          plainText(traits.organization) ??
          plainText(traits.autonomous_system_organization) ??
          plainText(city?.autonomous_system_organization),
      };
    },
  };
}
