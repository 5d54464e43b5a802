/**
 * The tar container of a backup: a small writer and a small header walker of our own (POSIX ustar, pax extended
 * headers where ustar cannot say it). The writer puts each entry's header, bytes and padding straight into the file,
 * in order and each at its position, awaiting each write: a write error (ENOSPC) fails the very entry being written,
 * and an entry's bytes may be written by another thread (a database image the snapshot thread holds) at the
 * position the writer gives it. The walker reads one
 * 512-byte header per entry and seeks past the data, so the manifest (the last entry) of a 10 GiB backup is found
 * with a few hundred small reads, and every entry can then be streamed by its byte range.
 *
 * Written: ustar headers (mode 0600, uid/gid 0, empty user and group names, the backup's time), the name split into
 * prefix and name at a '/' when longer than 100 bytes, and a pax header ('x') carrying `path` when it still does not
 * fit and `size` for entries of 8 GiB or more; the end is two zero blocks. GNU tar, bsdtar and Python's tarfile read
 * it. Read: what we write and what POSIX tar writes: ustar headers with the name prefix, octal or base-256 sizes, and
 * pax extended headers ('x') carrying `path` and `size`; a global pax header ('g') is skipped. Every header's checksum
 * is checked; an archive that ends without its end-of-archive block is truncated.
 */
import crypto from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { quoteInput } from '../http/errors.ts';

const BLOCK = 512;
const pad = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;
const ZEROS = Buffer.alloc(2 * BLOCK);
/** The largest size the 11 octal digits of a ustar header hold (8 GiB − 1). */
const USTAR_MAX_SIZE = 8 ** 11 - 1;

export interface ArchiveWriter {
  /**
   * Appends an entry of exactly `size` bytes from `source`; answers its SHA-256 (hex). With `sha256` (the hash of
   * a private copy already read on another thread) the bytes are not hashed again and that hash is answered.
   */
  add(name: string, size: number, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, onBytes?: (done: number) => void, sha256?: string): Promise<string>;
  /**
   * Appends an entry of exactly `size` bytes, already hashed, that `put` writes into the file itself (by its
   * descriptor, at `position`; the snapshot thread writes a held image so). Answers `sha256`.
   */
  addExternal(name: string, size: number, sha256: string, put: (fd: number, position: number) => Promise<void>): Promise<string>;
  /** Appends an entry held in memory; answers its SHA-256 (hex). */
  addBuffer(name: string, bytes: Buffer): Promise<string>;
  /** Writes the end of the archive (the caller fsyncs). */
  finish(): Promise<void>;
  /** Bytes written to the file so far. */
  bytes(): number;
  /** Gives up (after a failure): nothing more is written. */
  abort(): void;
}

/**
 * Writes a tar into an empty open file, each write at its own position. A write error fails the call writing, and
 * every later one.
 */
export function archiveWriter(fh: FileHandle, mtime: Date): ArchiveWriter {
  let written = 0;
  let failed: unknown = null;
  /** Runs one step that puts `length` bytes at `written`; a failure sticks. */
  const step = async (length: number, put: (position: number) => Promise<void>) => {
    if (failed) throw failed;
    try {
      await put(written);
    } catch (err) {
      failed = err;
      throw err;
    }
    written += length;
  };
  const write = (buf: Uint8Array) => step(buf.length, (position) => writeAll(fh, buf, position));
  const add: ArchiveWriter['add'] = async (name, size, source, onBytes, sha256) => {
    const hash = sha256 === undefined ? crypto.createHash('sha256') : null;
    await write(entryHeader(name, size, mtime));
    let done = 0;
    for await (const chunk of source) {
      done += chunk.length;
      if (done > size) throw new Error(`${name} grew while it was read (more than ${size} bytes)`);
      hash?.update(chunk);
      await write(chunk);
      onBytes?.(done);
    }
    if (done !== size) throw new Error(`${name} shrank while it was read (${done} of ${size} bytes)`);
    if (pad(size)) await write(ZEROS.subarray(0, pad(size)));
    return hash ? hash.digest('hex') : sha256!;
  };
  return {
    add,
    async addExternal(name, size, sha256, put) {
      await write(entryHeader(name, size, mtime));
      await step(size, (position) => put(fh.fd, position));
      if (pad(size)) await write(ZEROS.subarray(0, pad(size)));
      return sha256;
    },
    addBuffer: (name, bytes) => add(name, bytes.length, [bytes]),
    finish: () => write(ZEROS),
    bytes: () => written,
    abort: () => {
      failed ??= new Error('the archive was abandoned');
    },
  };
}

/**
 * Writes a whole buffer at `position` (default: the file's current position). A write may be short (a file size
 * limit, a nearly full disk): the next one then answers the error.
 */
export async function writeAll(fh: FileHandle, buf: Uint8Array, position?: number): Promise<void> {
  let off = 0;
  while (off < buf.length) off += (await fh.write(buf, off, buf.length - off, position === undefined ? null : position + off)).bytesWritten;
}

/** Packs small files held in memory into a tar (the secrets' inner archive). */
export function packInMemory(files: Array<{ name: string; bytes: Buffer }>, mtime: Date): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) parts.push(entryHeader(f.name, f.bytes.length, mtime), f.bytes, ZEROS.subarray(0, pad(f.bytes.length)));
  parts.push(ZEROS);
  return Buffer.concat(parts);
}

/** The header block(s) of a regular file entry: a pax header first when ustar cannot hold the name or the size. */
export function entryHeader(name: string, size: number, mtime: Date): Buffer {
  const pax: Record<string, string> = {};
  let split = splitName(name);
  if (!split) {
    pax.path = name;
    split = { prefix: '', name: asciiCut(name, 100) };
  }
  if (size > USTAR_MAX_SIZE) pax.size = String(size);
  const ustar = ustarHeader(split.name, split.prefix, size > USTAR_MAX_SIZE ? 0 : size, '0', mtime);
  if (Object.keys(pax).length === 0) return ustar;
  const records = Buffer.from(
    Object.entries(pax)
      .map(([k, v]) => paxRecord(k, v))
      .join(''),
    'utf8',
  );
  const paxHead = ustarHeader(asciiCut(`PaxHeader/${split.name}`, 100), '', records.length, 'x', mtime);
  return Buffer.concat([paxHead, records, ZEROS.subarray(0, pad(records.length)), ustar]);
}

/** ustar's name and prefix for a path: whole, or split at a '/' (name ≤ 100 bytes, prefix ≤ 155); null if neither fits. */
function splitName(path: string): { prefix: string; name: string } | null {
  if (Buffer.byteLength(path) !== path.length) return null; // not ASCII: pax
  if (path.length <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) {
    if (i <= 155 && path.length - i - 1 <= 100 && path.length - i - 1 > 0) return { prefix: path.slice(0, i), name: path.slice(i + 1) };
  }
  return null;
}

const asciiCut = (s: string, n: number) => s.replace(/[^\x20-\x7e]/g, '_').slice(0, n);

function ustarHeader(name: string, prefix: string, size: number, type: '0' | 'x', mtime: Date): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'latin1');
  h.write(oct(0o600, 7), 100, 'latin1');
  h.write(oct(0, 7), 108, 'latin1');
  h.write(oct(0, 7), 116, 'latin1');
  h.write(oct(size, 11), 124, 'latin1');
  h.write(oct(Math.max(0, Math.floor(mtime.getTime() / 1000)), 11), 136, 'latin1');
  h.write(type, 156, 'latin1');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.write(oct(0, 7), 329, 'latin1');
  h.write(oct(0, 7), 337, 'latin1');
  h.write(prefix, 345, 155, 'latin1');
  h.write(`${checksum(h).toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

/** `n` as zero-padded octal digits followed by NUL. */
const oct = (n: number, digits: number) => `${n.toString(8).padStart(digits, '0')}\0`;

/** One pax record: "<length> <key>=<value>\n", the length counting the whole record, its own digits included. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bytes = Buffer.byteLength(body);
  let len = bytes + String(bytes).length;
  if (String(len).length !== String(bytes).length) len = bytes + String(len).length;
  return `${len}${body}`;
}

/** One entry found by the walker: its name, its size and where its bytes start in the archive. */
export interface ArchiveEntry {
  name: string;
  size: number;
  offset: number;
  /** 'file' for a regular file; anything else ('directory', 'symlink', …) is never written by a backup. */
  type: string;
}

/** Random access to the archive's bytes: a file, or a buffer (the decrypted inner archive). */
export interface ByteSource {
  size: number;
  read(position: number, length: number): Promise<Buffer>;
}

export async function fileSource(fh: FileHandle): Promise<ByteSource> {
  const { size } = await fh.stat();
  return {
    size,
    async read(position, length) {
      const buf = Buffer.alloc(Math.max(0, Math.min(length, size - position)));
      let off = 0;
      while (off < buf.length) {
        const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
        if (bytesRead === 0) break;
        off += bytesRead;
      }
      return buf.subarray(0, off);
    },
  };
}

export function bufferSource(buf: Buffer): ByteSource {
  return { size: buf.length, read: async (position, length) => buf.subarray(position, position + length) };
}

/** Thrown by the walker: the archive is damaged or truncated at `offset` (after the entry `after`, if any). */
export class ArchiveDamaged extends Error {
  readonly offset: number;
  readonly after: string | null;
  constructor(message: string, offset: number, after: string | null) {
    super(message);
    this.offset = offset;
    this.after = after;
  }
}

const TYPES: Record<string, string> = { '0': 'file', '\0': 'file', '7': 'file', '1': 'link', '2': 'symlink', '5': 'directory', x: 'pax', g: 'pax-global' };

/** Lists the entries of a tar by walking its headers (see the file's header). Throws ArchiveDamaged. */
export async function walkArchive(src: ByteSource): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  let pos = 0;
  let pax: Record<string, string> = {};
  const last = () => entries.at(-1)?.name ?? null;
  for (;;) {
    const head = await src.read(pos, BLOCK);
    if (head.length < BLOCK) throw new ArchiveDamaged(`the archive is truncated at byte ${pos} (no end-of-archive block)`, pos, last());
    if (head.every((b) => b === 0)) return entries;
    if (checksum(head) !== octal(head, 148, 8)) throw new ArchiveDamaged(`a tar header at byte ${pos} is damaged (its checksum does not match)`, pos, last());
    const flag = String.fromCharCode(head[156]!);
    const type = TYPES[flag] ?? `type ${quoteInput(flag)}`;
    let name = text(head, 0, 100);
    const prefix = head.subarray(257, 263).toString('latin1') === 'ustar\0' ? text(head, 345, 155) : '';
    if (prefix) name = `${prefix}/${name}`;
    let size = size12(head.subarray(124, 136));
    if (size === null) throw new ArchiveDamaged(`a tar header at byte ${pos} has an unreadable size`, pos, last());
    const data = pos + BLOCK;
    if (type === 'pax' || type === 'pax-global') {
      if (size > 1024 * 1024) throw new ArchiveDamaged(`a pax header at byte ${pos} is implausibly large`, pos, last());
      const records = parsePax(await src.read(data, size));
      if (type === 'pax') pax = records;
    } else {
      if (pax.path !== undefined) name = pax.path;
      if (pax.size !== undefined) size = Number(pax.size);
      pax = {};
      if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveDamaged(`the entry ${name} has an unreadable size`, pos, last());
      entries.push({ name, size, offset: data, type });
    }
    pos = data + size + pad(size);
    if (pos > src.size) throw new ArchiveDamaged(`the archive is truncated inside ${name}`, pos, last());
  }
}

/** Streams the byte range of an entry in chunks of at most 1 MiB. */
export async function* entryBytes(src: ByteSource, entry: ArchiveEntry): AsyncGenerator<Buffer> {
  const CHUNK = 1024 * 1024;
  for (let off = 0; off < entry.size; off += CHUNK) {
    const buf = await src.read(entry.offset + off, Math.min(CHUNK, entry.size - off));
    if (buf.length === 0) throw new ArchiveDamaged(`the archive is truncated inside ${entry.name}`, entry.offset + off, entry.name);
    yield buf;
  }
}

function text(buf: Buffer, start: number, length: number): string {
  const field = buf.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function octal(buf: Buffer, start: number, length: number): number {
  const s = text(buf, start, length).trim();
  return /^[0-7]+$/.test(s) ? Number.parseInt(s, 8) : -1;
}

/** A 12-byte size field: octal digits, or base-256 (first byte 0x80) for sizes past 8 GiB. */
function size12(field: Buffer): number | null {
  if (field[0] === 0x80) {
    let n = 0;
    for (let i = 1; i < field.length; i++) n = n * 256 + field[i]!;
    return Number.isSafeInteger(n) ? n : null;
  }
  const s = text(field, 0, 12).trim();
  if (s === '') return 0;
  return /^[0-7]+$/.test(s) ? Number.parseInt(s, 8) : null;
}

function checksum(head: Buffer): number {
  let sum = 8 * 32; // the checksum field counts as eight spaces
  for (let i = 0; i < BLOCK; i++) if (i < 148 || i >= 156) sum += head[i]!;
  return sum;
}

/** pax records: "<length> <key>=<value>\n", the length counting the whole record. */
function parsePax(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let pos = 0;
  while (pos < buf.length) {
    const space = buf.indexOf(0x20, pos);
    if (space === -1) break;
    const len = Number.parseInt(buf.subarray(pos, space).toString('latin1'), 10);
    if (!Number.isSafeInteger(len) || len <= space - pos) break;
    const record = buf.subarray(space + 1, pos + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    pos += len;
  }
  return out;
}
