/**
 * Opening a backup for reading: walk its tar headers (archive.ts), check that the manifest is the last entry, read
 * and check the manifest (format.ts). Nothing but headers and the manifest is read here.
 */
import crypto from 'node:crypto';
import fsp, { type FileHandle } from 'node:fs/promises';
import { HearthError } from '../http/errors.ts';
import { ArchiveDamaged, type ArchiveEntry, type ByteSource, entryBytes, fileSource, walkArchive } from './archive.ts';
import { type BackupManifest, decodeManifest, MANIFEST_NAME } from './format.ts';

/** A manifest larger than this is not one Hearth wrote (200 namespaces and 10,000 attachments make about 2 MiB). */
const MAX_MANIFEST_BYTES = 64 * 1024 * 1024;

export interface OpenedBackup {
  src: ByteSource;
  /** Every entry but the manifest, in archive order. */
  entries: ArchiveEntry[];
  manifest: BackupManifest;
  close(): Promise<void>;
}

/** Opens a backup; throws `backup_invalid` (or `backup_too_new`) with what is wrong. The caller closes it. */
export async function openBackup(file: string): Promise<OpenedBackup> {
  let fh: FileHandle;
  try {
    fh = await fsp.open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new HearthError(code === 'ENOENT' ? 'not_found' : 'backup_invalid', `cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const src = await fileSource(fh);
    let entries: ArchiveEntry[];
    try {
      entries = await walkArchive(src);
    } catch (err) {
      if (!(err instanceof ArchiveDamaged)) throw err;
      const where = err.after ? ` (after the entry ${err.after})` : '';
      throw new HearthError('backup_invalid', `${err.message}${where}: the backup is damaged or not a Hearth backup`);
    }
    const last = entries.at(-1);
    if (!last || last.name !== MANIFEST_NAME) {
      throw new HearthError('backup_invalid', `the archive does not end with ${MANIFEST_NAME}: it is not a complete Hearth backup`);
    }
    if (last.size > MAX_MANIFEST_BYTES) throw new HearthError('backup_invalid', `${MANIFEST_NAME} is implausibly large (${last.size} bytes)`);
    const manifest = decodeManifest(await src.read(last.offset, last.size));
    return { src, entries: entries.slice(0, -1), manifest, close: () => fh.close() };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** The manifest of a backup, reading only its headers and the manifest. */
export async function readBackupManifest(file: string): Promise<BackupManifest> {
  const b = await openBackup(file);
  await b.close();
  return b.manifest;
}

/** Streams an entry's bytes to `sink` (if any) and answers their SHA-256 (hex). */
export async function hashEntry(src: ByteSource, entry: ArchiveEntry, sink?: (chunk: Buffer) => unknown): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of entryBytes(src, entry)) {
    hash.update(chunk);
    await sink?.(chunk);
  }
  return hash.digest('hex');
}
