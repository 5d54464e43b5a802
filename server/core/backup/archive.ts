/**
 * The tar container of a backup: writing through tar-stream's pack, reading through a small header walker of our
 * own. The walker reads one 512-byte header per entry and seeks past the data, so the manifest (the last entry) of a
 * 10 GiB backup is found with a few hundred small reads, and every entry can then be streamed by its byte range.
 *
 * The walker understands what tar-stream writes (and what POSIX tar writes): ustar headers with the name prefix,
 * octal or base-256 sizes, and pax extended headers ('x') carrying `path` and `size`; a global pax header ('g') is
 * skipped. Every header's checksum is checked; an archive that ends without its end-of-archive block is truncated.
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import type { FileHandle } from 'node:fs/promises';
import tar from 'tar-stream';

const BLOCK = 512;
const pad = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

export interface ArchiveWriter {
  /**
   * Appends an entry of exactly `size` bytes from `source`; answers its SHA-256 (hex). With `sha256` (the hash of
   * a private copy already read on another thread) the bytes are not hashed again and that hash is answered.
   */
  add(name: string, size: number, source: AsyncIterable<Uint8Array>, onBytes?: (done: number) => void, sha256?: string): Promise<string>;
  /** Appends an entry held in memory; answers its SHA-256 (hex). */
  addBuffer(name: string, bytes: Buffer): Promise<string>;
  /** Writes the end of the archive and waits until every byte is handed to the file (the caller fsyncs). */
  finish(): Promise<void>;
  /** Bytes handed to the file so far. */
  bytes(): number;
  /** Gives up (after a failure): nothing more is written. */
  abort(): void;
}

/** Writes a tar into an open file. A write error (ENOSPC) fails the pending `add`/`finish` with that error. */
export function archiveWriter(fh: FileHandle, mtime: Date): ArchiveWriter {
  const pack = tar.pack();
  let written = 0;
  // The file's error, kept before the pack is torn down: what every later call reports instead of its own
  // consequence ("already finalized or destroyed").
  let writeError: unknown = null;
  const drained = (async () => {
    for await (const chunk of pack) {
      try {
        await writeAll(fh, chunk as Buffer);
      } catch (err) {
        writeError = err;
        throw err;
      }
      written += (chunk as Buffer).length;
    }
  })();
  // Never settles while the file takes the bytes; rejects with the write error otherwise.
  const failed = drained.then(
    () => new Promise<never>(() => {}),
    (err: unknown) => {
      throw err;
    },
  );
  failed.catch(() => {});
  const guard = <T>(p: Promise<T>) => Promise.race([p, failed]);
  const reported = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      if (writeError) throw writeError;
      return await work();
    } catch (err) {
      throw writeError ?? err;
    }
  };

  const header = (name: string, size: number) => ({ name, size, mode: 0o600, mtime, type: 'file' as const, uname: '', gname: '' });

  return {
    add(name, size, source, onBytes, sha256) {
      return reported(async () => {
        const hash = sha256 === undefined ? crypto.createHash('sha256') : null;
        let settle!: (err?: Error | null) => void;
        const entryDone = new Promise<void>((ok, fail) => {
          settle = (err) => (err ? fail(err) : ok());
        });
        entryDone.catch(() => {});
        const entry = pack.entry(header(name, size), (err) => settle(err));
        let done = 0;
        for await (const chunk of source) {
          hash?.update(chunk);
          done += chunk.length;
          if (done > size) throw new Error(`${name} grew while it was read (more than ${size} bytes)`);
          if (!entry.write(chunk)) await guard(once(entry, 'drain'));
          onBytes?.(done);
        }
        if (done !== size) throw new Error(`${name} shrank while it was read (${done} of ${size} bytes)`);
        entry.end(undefined); // streamx types want an argument; none is written
        await guard(entryDone);
        return hash ? hash.digest('hex') : sha256!;
      });
    },
    addBuffer(name, bytes) {
      return reported(async () => {
        await guard(
          new Promise<void>((ok, fail) => {
            pack.entry(header(name, bytes.length), bytes, (err) => (err ? fail(err) : ok()));
          }),
        );
        return crypto.createHash('sha256').update(bytes).digest('hex');
      });
    },
    finish() {
      return reported(async () => {
        pack.finalize();
        await drained;
      });
    },
    bytes: () => written,
    abort: () => pack.destroy(),
  };
}

/** Writes a whole buffer at the file's position. A write may be short (a file size limit, a nearly full disk): the next one then answers the error. */
export async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let off = 0;
  while (off < buf.length) off += (await fh.write(buf, off, buf.length - off)).bytesWritten;
}

/** Packs small files held in memory into a tar (the secrets' inner archive). */
export async function packInMemory(files: Array<{ name: string; bytes: Buffer }>, mtime: Date): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const f of files) {
    await new Promise<void>((ok, fail) => {
      pack.entry({ name: f.name, size: f.bytes.length, mode: 0o600, mtime, type: 'file', uname: '', gname: '' }, f.bytes, (err) => (err ? fail(err) : ok()));
    });
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
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
    const type = TYPES[flag] ?? `type ${JSON.stringify(flag)}`;
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
