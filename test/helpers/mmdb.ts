/**
 * A small MaxMind DB writer for tests (format: MaxMind DB File Format Specification 2.0).
 *
 * Layout: binary search tree (`nodeCount` nodes of two 24-bit records: left = bit 0, right = bit 1; a record below
 * `nodeCount` is a node, equal to it is "no data", above it points into the data section at
 * `record - nodeCount - 16`), 16 zero bytes, the data section, then `\xAB\xCD\xEFMaxMind.com` and the metadata map.
 * The tree is IPv6 (`ip_version` 6) with IPv4 networks at `::a.b.c.d` (the first 96 bits zero), like GeoLite2.
 */
import { parseIp } from '../../server/identity/approval/geoip.ts';

export type MmdbValue = string | number | boolean | bigint | U16 | MmdbValue[] | { [key: string]: MmdbValue };

/** A `uint16` (plain numbers are written as uint32 when they fit, as double otherwise). */
export class U16 {
  readonly value: number;
  constructor(value: number) {
    this.value = value;
  }
}

function ctrl(type: number, size: number): Buffer {
  const ext = type > 7;
  const head = (ext ? 0 : type) << 5;
  let sizeBytes: number[] = [];
  let low: number;
  if (size < 29) low = size;
  else if (size < 29 + 256) {
    low = 29;
    sizeBytes = [size - 29];
  } else if (size < 285 + 65536) {
    low = 30;
    const v = size - 285;
    sizeBytes = [v >> 8, v & 0xff];
  } else {
    low = 31;
    const v = size - 65821;
    sizeBytes = [(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff];
  }
  return Buffer.from([head | low, ...(ext ? [type - 7] : []), ...sizeBytes]);
}

function uintBytes(v: bigint): Buffer {
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return Buffer.from(out);
}

/** Encodes one value of the data section. */
export function encode(value: MmdbValue): Buffer {
  if (value instanceof U16) {
    const b = uintBytes(BigInt(value.value));
    return Buffer.concat([ctrl(5, b.length), b]);
  }
  if (typeof value === 'string') {
    const b = Buffer.from(value, 'utf8');
    return Buffer.concat([ctrl(2, b.length), b]);
  }
  if (typeof value === 'boolean') return ctrl(14, value ? 1 : 0);
  if (typeof value === 'bigint') {
    const b = uintBytes(value);
    return Buffer.concat([ctrl(9, b.length), b]);
  }
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value <= 0xffffffff) {
      const b = uintBytes(BigInt(value));
      return Buffer.concat([ctrl(6, b.length), b]);
    }
    const b = Buffer.alloc(8);
    b.writeDoubleBE(value);
    return Buffer.concat([ctrl(3, 8), b]);
  }
  if (Array.isArray(value)) return Buffer.concat([ctrl(11, value.length), ...value.map(encode)]);
  const entries = Object.entries(value);
  return Buffer.concat([ctrl(7, entries.length), ...entries.flatMap(([k, v]) => [encode(k), encode(v)])]);
}

interface Node {
  kids: [Node | number | null, Node | number | null]; // number: index into the data list
}

/** `a.b.c.d/n` or an IPv6 network `x::/n` → the 128 bits it fixes in the IPv6 tree. */
function networkBits(cidr: string): { bytes: Uint8Array; bits: number } {
  const [addr, len] = cidr.split('/');
  const ip = parseIp(addr!);
  if (!ip) throw new Error(`not a network: ${cidr}`);
  if (ip.version === 4) {
    const bytes = new Uint8Array(16);
    bytes.set(ip.bytes, 12);
    return { bytes, bits: 96 + Number(len ?? 32) };
  }
  return { bytes: ip.bytes, bits: Number(len ?? 128) };
}

/**
 * A MaxMind DB file with these networks (a later, more specific network inside an earlier one wins for its
 * addresses; an earlier one is split around it).
 */
export function writeMmdb(networks: Array<{ network: string; data: Record<string, MmdbValue> }>, opts: { databaseType?: string } = {}): Buffer {
  const root: Node = { kids: [null, null] };
  networks.forEach(({ network }, index) => {
    const { bytes, bits } = networkBits(network);
    let node = root;
    for (let i = 0; i < bits; i++) {
      const bit = (bytes[i >> 3]! >> (7 - (i & 7))) & 1;
      if (i === bits - 1) {
        node.kids[bit] = index;
        break;
      }
      const next = node.kids[bit];
      if (next === null || typeof next === 'number') {
        // split a leaf (or empty record) so a more specific network can live below it
        const child: Node = { kids: [next, next] };
        node.kids[bit] = child;
        node = child;
      } else node = next;
    }
  });

  // number the nodes breadth-first
  const nodes: Node[] = [];
  const queue: Node[] = [root];
  while (queue.length) {
    const n = queue.shift()!;
    nodes.push(n);
    for (const k of n.kids) if (k !== null && typeof k === 'object') queue.push(k);
  }
  const numberOf = new Map(nodes.map((n, i) => [n, i]));
  const nodeCount = nodes.length;

  const dataParts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  for (const { data } of networks) {
    offsets.push(size);
    const b = encode(data);
    dataParts.push(b);
    size += b.length;
  }

  const tree = Buffer.alloc(nodeCount * 6);
  nodes.forEach((n, i) => {
    n.kids.forEach((k, side) => {
      const value = k === null ? nodeCount : typeof k === 'number' ? nodeCount + 16 + offsets[k]! : numberOf.get(k)!;
      if (value >= 2 ** 24) throw new Error('test database too large for 24-bit records');
      tree.writeUIntBE(value, i * 6 + side * 3, 3);
    });
  });

  const metadata = encode({
    node_count: nodeCount,
    record_size: new U16(24),
    ip_version: new U16(6),
    database_type: opts.databaseType ?? 'Hearth-Test-City',
    languages: ['en'],
    binary_format_major_version: new U16(2),
    binary_format_minor_version: new U16(0),
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: 'Hearth test database' },
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...dataParts, Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com'), metadata]);
}

/** A GeoLite2-City-shaped record. */
export function cityRecord(country: string, city: string | null, extra: Record<string, MmdbValue> = {}): Record<string, MmdbValue> {
  return {
    ...(city ? { city: { geoname_id: 1, names: { en: city, de: city } } } : {}),
    continent: { code: 'EU', geoname_id: 6255148, names: { en: 'Europe' } },
    country: { geoname_id: 2, iso_code: country, names: { en: country } },
    registered_country: { geoname_id: 2, iso_code: country, names: { en: country } },
    location: { accuracy_radius: 100, latitude: 52.5, longitude: 13.4, time_zone: 'Europe/Berlin' },
    ...extra,
  };
}

/** A GeoLite2-ASN-shaped record. */
export function asnRecord(number: number, organization: string): Record<string, MmdbValue> {
  return { autonomous_system_number: number, autonomous_system_organization: organization };
}
