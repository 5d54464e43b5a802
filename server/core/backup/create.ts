/**
 * Writing a backup (format.ts has the file format). The engine knows no domain: the caller lists the parts, and
 * each SQLite part's owner copies its own snapshot.
 *
 * One part at a time, one ahead: a SQLite part is snapshotted into `tmpDir` and appended (hashed then, unless its
 * snapshot already answered the hash), and its copy deleted once appended. While part i is appended, the snapshot of
 * the next SQLite part is already being taken (on the snapshot thread, for WAL databases), so copying and appending
 * overlap; the extra disk used is at most two parts' copies (plus the backup itself). The passphrase's key is derived
 * (Argon2id) beside the first copies. Plain files are read where they are. Secret files are packed in memory (they are small: keys,
 * certificates, tokens), sealed under the passphrase, and appended as `secrets.enc`; without a passphrase they are
 * left out and the manifest says `secrets: 'omitted'` and names them.
 *
 * Crash safety: everything goes to `<out>.partial-<pid>-<random>` (0600) next to `out`, which is fsynced and then
 * renamed, and the folder fsynced: `out` is complete or absent. Any failure (a snapshot that throws, ENOSPC, a
 * cancelled signal) removes the partial file and the temporary copy and throws one HearthError that names the part.
 * There is no lock file; one backup at a time per process (partials.ts tells a crash's leftovers apart).
 */
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HearthError } from '../http/errors.ts';
import { privateDir, privateFile } from '../storage/data-dir.ts';
import type { HeldImage } from '../storage/snapshot-thread.ts';
import { archiveWriter, packInMemory } from './archive.ts';
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type BackupManifest,
  checkPartName,
  encodeManifest,
  groupMigrations,
  MANIFEST_NAME,
  type ManifestEntry,
  PLATFORM_DB,
  SECRETS_NAME,
} from './format.ts';
import { backupRunning, markActive, partialPath, tempSnapshotPath } from './partials.ts';
import { checkPassphrase, type Sealer, sealer } from './secrets-box.ts';
import { readMigrationIds, removeDbFiles, type SqliteSnapshot, settleSnapshot } from './sqlite.ts';

/**
 * What the caller backs up. `name` is the entry's path inside the backup and, at restore, inside the data folder.
 * - sqlite: `snapshot(dest, onProgress)` writes a consistent copy to `dest` (the owner's online backup, or
 *   `sqliteFileSnapshot`); it may answer 'vanished' when the database was deleted meanwhile, and the part is then
 *   left out and listed under `vanished`. `meta` goes into the manifest beside the entry (a namespace's name and id).
 * - file: read from `path`. `secret` files go into `secrets.enc` (or are omitted without a passphrase). An
 *   `optional` file that no longer exists when its turn comes (an attachment released by delivery meanwhile) is left
 *   out and listed under `vanished`; a missing file that is not optional fails the backup.
 */
export type BackupPart =
  | { kind: 'sqlite'; name: string; snapshot: SqliteSnapshot; meta?: Record<string, unknown> }
  | { kind: 'file'; name: string; path: string; secret: boolean; optional?: boolean };

export interface BackupProgress {
  /** The part being worked on; null while sealing the secrets or finishing. */
  part: string | null;
  /** 0-based position of the part among the parts that go in plain (secret files count as one step at the end). */
  index: number;
  parts: number;
  step: 'snapshot' | 'archive' | 'secrets' | 'finish';
  /** Pages (snapshot) or bytes (archive) done of `total` for this part. */
  done: number;
  total: number;
  /** Bytes written to the backup file so far. */
  bytesWritten: number;
}

export interface CreateBackupOptions {
  parts: BackupPart[];
  /** The backup's final path (conventionally ending in `.hearth-backup`). Its folder is created 0700 if missing. */
  out: string;
  /** Where snapshots are copied one at a time (the data folder's `tmp/`: same disk, private). */
  tmpDir: string;
  /** Seals the secret files into `secrets.enc`; without it they are left out. */
  passphrase?: string;
  hearthVersion: string;
  /** The KEK's fingerprint (never the KEK), so that a restore can say which KEK the data needs. */
  kekFingerprint?: string | null;
  /** The creation time recorded in the manifest (default: now). */
  now?: Date;
  onProgress?: (p: BackupProgress) => void;
  /** Cancels between parts and between chunks (shutdown): the backup fails as cancelled and leaves nothing. */
  signal?: AbortSignal;
  /** Replace an existing file at `out` (default: refuse with `conflict`). */
  overwrite?: boolean;
}

export interface BackupResult {
  file: string;
  size: number;
  manifest: BackupManifest;
}

export async function createBackup(opts: CreateBackupOptions): Promise<BackupResult> {
  const { parts, out, tmpDir, signal } = opts;
  const names = new Set<string>();
  for (const p of parts) {
    checkPartName(p.name);
    if (names.has(p.name)) throw new HearthError('invalid_value', `the backup part ${p.name} is listed twice`);
    names.add(p.name);
  }
  if (opts.passphrase !== undefined) checkPassphrase(opts.passphrase);
  if (!opts.hearthVersion) throw new HearthError('invalid_value', 'the Hearth version to record in the backup is empty');
  if (backupRunning()) throw new HearthError('backup_running', 'a backup is already running; try again when it has finished');
  const refuseExisting = () => {
    if (!opts.overwrite && fs.existsSync(out)) throw new HearthError('conflict', `a file already exists at ${out}`);
  };
  refuseExisting();

  const now = opts.now ?? new Date();
  const plain = parts.filter((p) => p.kind === 'sqlite' || !p.secret);
  const secret = parts.filter((p): p is Extract<BackupPart, { kind: 'file' }> => p.kind === 'file' && p.secret);
  const partial = partialPath(out);
  const done = markActive(partial);
  const taking = new Set<Taken>();
  let ahead: Taken | null = null;
  // Argon2id runs on the libuv pool beside the first snapshots; awaited when the secrets are sealed.
  const keyed: Promise<Sealer> | null = opts.passphrase !== undefined ? sealer(opts.passphrase) : null;
  keyed?.catch(() => {});
  let fh: FileHandle | null = null;
  let writer: ReturnType<typeof archiveWriter> | null = null;
  let doing = 'starting';
  try {
    privateDir(path.dirname(out));
    privateDir(tmpDir);
    fh = await fsp.open(partial, 'wx', 0o600);
    const w = archiveWriter(fh, now);
    writer = w;
    const progress = (part: string | null, index: number, step: BackupProgress['step'], d: number, total: number) =>
      opts.onProgress?.({ part, index, parts: plain.length, step, done: d, total, bytesWritten: w.bytes() });
    const entries: ManifestEntry[] = [];
    const vanished: string[] = [];
    let schema: Record<string, string[]> = {};
    let current = 0;
    /**
     * Starts a SQLite part's snapshot into a fresh temporary copy. Its progress shows only once it is the part being
     * worked on; `release` removes the copy (after the snapshot has settled, so nothing writes to it afterwards).
     */
    const take = (part: SqlitePart, index: number): Taken => {
      const tmp = tempSnapshotPath(tmpDir);
      const untrack = markActive(tmp);
      privateFile(tmp);
      const answer = part.snapshot(tmp, (d, total) => {
        if (current === index) progress(part.name, index, 'snapshot', d, total);
      });
      answer.catch(() => {});
      // An image the snapshot thread holds for this part is released with the part (a no-op once written).
      let held: HeldImage | undefined;
      answer.then(
        (a) => {
          if (a && a !== 'vanished') held = a.held;
        },
        () => {},
      );
      const taken: Taken = {
        index,
        tmp,
        answer,
        settled: answer.then(
          () => {},
          () => {},
        ),
        release: () => {
          held?.release();
          removeDbFiles(tmp);
          untrack();
          taking.delete(taken);
        },
      };
      taking.add(taken);
      return taken;
    };

    for (const [index, part] of plain.entries()) {
      signal?.throwIfAborted();
      current = index;
      if (part.kind === 'sqlite') {
        doing = `copying a snapshot of ${part.name}`;
        const taken = ahead?.index === index ? ahead : take(part, index);
        ahead = null;
        try {
          const answer = await taken.answer;
          // The next SQLite part's snapshot runs while this one is appended.
          const next = plain.slice(index + 1).findIndex((p) => p.kind === 'sqlite');
          if (next >= 0 && !signal?.aborted) ahead = take(plain[index + 1 + next] as SqlitePart, index + 1 + next);
          if (answer === 'vanished') {
            vanished.push(part.name);
            continue;
          }
          signal?.throwIfAborted();
          const { tmp } = taken;
          const known = answer?.sha256 ? answer.sha256 : undefined;
          const held = answer?.held;
          if (held && part.name === PLATFORM_DB) {
            // platform.db (small): its image goes to the temporary copy, for its migration ids, and is appended from there.
            const copy = await fsp.open(tmp, 'r+');
            try {
              await held.writeTo(copy.fd, 0);
            } finally {
              await copy.close();
            }
          } else if (held) {
            // Held on the snapshot thread, which writes it into the backup file itself.
            doing = `writing ${part.name}`;
            const size = answer!.size;
            const sha256 = await w.addExternal(part.name, size, known!, (fd, position) => held.writeTo(fd, position));
            progress(part.name, index, 'archive', size, size);
            entries.push({ name: part.name, kind: 'sqlite', size, sha256, ...(part.meta ? { meta: part.meta } : {}) });
            continue;
          }
          if (!known) settleSnapshot(tmp);
          if (part.name === PLATFORM_DB) schema = groupMigrations(readMigrationIds(tmp));
          doing = `writing ${part.name}`;
          const size = fs.statSync(tmp).size;
          if (known && size !== answer?.size) throw new Error(`the snapshot of ${part.name} changed after it was hashed`);
          const readFh = await fsp.open(tmp, 'r');
          try {
            const sha256 = await w.add(part.name, size, chunks(readFh, size, signal), (d) => progress(part.name, index, 'archive', d, size), known);
            entries.push({ name: part.name, kind: 'sqlite', size, sha256, ...(part.meta ? { meta: part.meta } : {}) });
          } finally {
            await readFh.close();
          }
        } finally {
          taken.release();
        }
      } else {
        doing = `writing ${part.name}`;
        const readFh = await openPart(part);
        if (!readFh) {
          vanished.push(part.name);
          continue;
        }
        try {
          const { size } = await readFh.stat();
          const sha256 = await w.add(part.name, size, chunks(readFh, size, signal), (d) => progress(part.name, index, 'archive', d, size));
          entries.push({ name: part.name, kind: 'file', size, sha256 });
        } finally {
          await readFh.close();
        }
      }
    }

    signal?.throwIfAborted();
    const secretFiles: string[] = [];
    let encryption: BackupManifest['encryption'] = null;
    if (opts.passphrase !== undefined) {
      doing = 'sealing the secrets';
      progress(null, plain.length, 'secrets', 0, secret.length);
      const files: Array<{ name: string; bytes: Buffer }> = [];
      for (const part of secret) {
        const bytes = await readPart(part);
        if (bytes === null) vanished.push(part.name);
        else files.push({ name: part.name, bytes });
      }
      const sealed = (await keyed!).seal(packInMemory(files, now));
      encryption = sealed.encryption;
      doing = `writing ${SECRETS_NAME}`;
      const sha256 = await w.addBuffer(SECRETS_NAME, sealed.box);
      entries.push({ name: SECRETS_NAME, kind: 'secrets', size: sealed.box.length, sha256 });
      secretFiles.push(...files.map((f) => f.name));
      progress(null, plain.length, 'secrets', secret.length, secret.length);
    } else {
      secretFiles.push(...secret.map((p) => p.name));
    }

    doing = 'writing the manifest';
    const manifest: Omit<BackupManifest, 'sha256'> = {
      format: BACKUP_FORMAT,
      version: BACKUP_FORMAT_VERSION,
      hearthVersion: opts.hearthVersion,
      createdAt: now.toISOString(),
      schema,
      entries,
      secrets: encryption ? 'encrypted' : 'omitted',
      secretFiles,
      encryption,
      kekFingerprint: opts.kekFingerprint ?? null,
      vanished,
    };
    const encoded = encodeManifest(manifest);
    await w.addBuffer(MANIFEST_NAME, encoded.bytes);
    progress(null, plain.length, 'finish', 0, 1);
    await w.finish();
    await fh.sync();
    await fh.close();
    fh = null;
    refuseExisting();
    await fsp.rename(partial, out);
    await syncDir(path.dirname(out));
    progress(null, plain.length, 'finish', 1, 1);
    return { file: out, size: fs.statSync(out).size, manifest: encoded.manifest };
  } catch (err) {
    writer?.abort();
    await fh?.close().catch(() => {});
    await fsp.rm(partial, { force: true }).catch(() => {});
    // A snapshot still being taken is let finish before its copy goes, so that nothing writes it afterwards.
    for (const t of [...taking]) {
      await t.settled;
      t.release();
    }
    throw failure(err, doing, signal);
  } finally {
    done();
  }
}

type SqlitePart = Extract<BackupPart, { kind: 'sqlite' }>;

/** A SQLite part's snapshot under way or taken: its temporary copy and the snapshot function's answer. */
interface Taken {
  index: number;
  tmp: string;
  answer: ReturnType<SqliteSnapshot>;
  settled: Promise<void>;
  release(): void;
}

/** Reads exactly `size` bytes from the start of an open file, in chunks of 1 MiB. */
async function* chunks(fh: FileHandle, size: number, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  const CHUNK = 1024 * 1024;
  let pos = 0;
  while (pos < size) {
    signal?.throwIfAborted();
    const buf = Buffer.alloc(Math.min(CHUNK, size - pos));
    const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
    if (bytesRead === 0) throw new Error(`the file shrank while it was read (${pos} of ${size} bytes)`);
    pos += bytesRead;
    yield buf.subarray(0, bytesRead);
  }
}

/** Opens a file part, or answers null when an optional one has gone. */
async function openPart(part: { path: string; optional?: boolean }): Promise<FileHandle | null> {
  try {
    return await fsp.open(part.path, 'r');
  } catch (err) {
    if (part.optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readPart(part: { path: string; optional?: boolean }): Promise<Buffer | null> {
  try {
    return await fsp.readFile(part.path);
  } catch (err) {
    if (part.optional && (err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** fsync of a folder, so that a rename in it survives a power cut (not possible everywhere: then skipped). */
export async function syncDir(dir: string): Promise<void> {
  let dh: FileHandle | null = null;
  try {
    dh = await fsp.open(dir, 'r');
    await dh.sync();
  } catch {
    // Windows and some file systems cannot open or fsync a folder.
  } finally {
    await dh?.close().catch(() => {});
  }
}

const KEEP = new Set(['backup_running', 'conflict', 'invalid_value']);

function failure(err: unknown, doing: string, signal: AbortSignal | undefined): HearthError {
  if (err instanceof HearthError && KEEP.has(err.code)) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL') {
    return new HearthError('backup_no_space', `no space left on the device while ${doing}; the partial backup was removed`, { cause: err });
  }
  if (code === 'EFBIG') {
    return new HearthError(
      'backup_failed',
      `the file system refuses a file this large while ${doing} (FAT32 holds at most 4 GiB per file); the partial backup was removed`,
      {
        cause: err,
      },
    );
  }
  if (signal?.aborted) return new HearthError('backup_failed', `the backup was cancelled while ${doing}; the partial backup was removed`, { cause: err });
  return new HearthError('backup_failed', `the backup failed while ${doing}: ${(err as Error).message}; the partial backup was removed`, { cause: err });
}
