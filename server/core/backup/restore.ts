/**
 * Restoring a backup into a data folder.
 *
 * Before anything is written: the manifest is read and checked; a backup whose schema has migration ids this Hearth
 * does not know is refused (`backup_too_new`: made by a newer Hearth — an older one is fine, the server migrates it
 * forward on start); encrypted secrets need the passphrase (`passphrase_required`, `wrong_passphrase`) unless the
 * caller restores `withoutSecrets`; a non-empty folder is refused (`target_not_empty`) unless `force`.
 *
 * Then every entry is written into a staging folder inside the target (`<dataDir>/.hearth-restore-<random>`, so the
 * final moves are renames on one file system even when the data folder is a mount point or a symbolic link), its
 * size and SHA-256 checked as it is written, and fsynced. Only when all of it is there does the swap happen: the
 * folder's old entries move into `.hearth-replaced-<random>`, the staged ones move up, and the old ones are
 * deleted. A failure before the swap removes the staging folder; a failure during it moves everything back: either
 * way the old folder is left as it was. Folders are 0700 and files 0600.
 *
 * A server must not be running on the folder (the caller checks): its open databases would be replaced under it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { HearthError } from '../http/errors.ts';
import { bufferSource, entryBytes, walkArchive, writeAll } from './archive.ts';
import { syncDir } from './create.ts';
import { type BackupManifest, isEntryName, SECRETS_NAME } from './format.ts';
import { hashEntry, openBackup } from './read.ts';
import { open, unlock } from './secrets-box.ts';
import { checkManifestShape } from './verify.ts';

export interface RestoreOptions {
  /** The data folder to restore into: missing or empty, or anything with `force`. */
  dataDir: string;
  /** Every migration id this Hearth knows (all domains): a backup with others was made by a newer Hearth. */
  knownMigrations: readonly string[];
  /** Replace a non-empty folder's contents (the old contents are deleted once the restore is complete). */
  force?: boolean;
  passphrase?: string;
  /** Restore encrypted secrets' backups without their secrets (`missing` then names them). */
  withoutSecrets?: boolean;
  /** The fingerprint of the KEK the restored server will get, when known: a different one in the backup is a warning. */
  kekFingerprint?: string | null;
  onProgress?: (p: { entry: string; index: number; entries: number }) => void;
}

export interface RestoreResult {
  dataDir: string;
  manifest: BackupManifest;
  /** Entry names written into the folder (secret files included). */
  restored: string[];
  /** restored; omitted: the backup has none (made without a passphrase); skipped: `withoutSecrets`. */
  secrets: 'restored' | 'omitted' | 'skipped';
  /** Secret files the restored folder lacks. */
  missing: string[];
  /** The KEK the restored data needs (its fingerprint), if the backup recorded one. */
  kekFingerprint: string | null;
  warnings: string[];
  /** The folder had contents, which the restore replaced (force). */
  replaced: boolean;
}

/** Entries of a data folder that never make it "non-empty" and are never moved: a file system's own folder. */
const IGNORED = new Set(['lost+found']);
const STAGING = /^\.hearth-restore-[0-9a-f]{8}$/;

export async function restoreBackup(file: string, opts: RestoreOptions): Promise<RestoreResult> {
  const backup = await openBackup(file);
  const { manifest } = backup;
  let staging: string | null = null;
  try {
    const shape: string[] = [];
    checkManifestShape(manifest, shape);
    if (shape.length > 0) throw new HearthError('backup_invalid', `${shape[0]} (the backup is damaged)`);

    const known = new Set(opts.knownMigrations);
    const unknown = Object.values(manifest.schema)
      .flat()
      .filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new HearthError(
        'backup_too_new',
        `this backup was made by a newer Hearth (${manifest.hearthVersion}); upgrade Hearth to restore it (unknown migrations: ${unknown.join(', ')})`,
      );
    }

    let key: Buffer | null = null;
    if (manifest.secrets === 'encrypted') {
      if (opts.passphrase !== undefined) key = await unlock(opts.passphrase, manifest.encryption!);
      else if (!opts.withoutSecrets) {
        throw new HearthError(
          'passphrase_required',
          `this backup's secrets are encrypted: give its passphrase, or restore without them (then missing: ${manifest.secretFiles.join(', ') || 'none'})`,
        );
      }
    }

    const existing = inspectTarget(opts.dataDir);
    if (existing.length > 0 && !opts.force) {
      const shown = existing.slice(0, 5).join(', ') + (existing.length > 5 ? ', …' : '');
      throw new HearthError('target_not_empty', `${opts.dataDir} is not empty (${shown}); restore into an empty folder, or force replacing its contents`);
    }

    fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    staging = path.join(opts.dataDir, `.hearth-restore-${crypto.randomBytes(4).toString('hex')}`);
    fs.mkdirSync(staging, { mode: 0o700 });
    const restored = await extract(backup, staging, key, opts.onProgress);
    await swap(opts.dataDir, staging, existing);
    staging = null;

    const warnings: string[] = [];
    if (manifest.vanished.length > 0) warnings.push(`left out of the backup because they were deleted while it ran: ${manifest.vanished.join(', ')}`);
    if (manifest.kekFingerprint && opts.kekFingerprint && manifest.kekFingerprint !== opts.kekFingerprint) {
      warnings.push(
        `the data was encrypted under the KEK with fingerprint ${manifest.kekFingerprint}, not this one (${opts.kekFingerprint}): start the server with that KEK`,
      );
    }
    const secrets = manifest.secrets === 'omitted' ? 'omitted' : key ? 'restored' : 'skipped';
    return {
      dataDir: opts.dataDir,
      manifest,
      restored,
      secrets,
      missing: secrets === 'restored' ? [] : [...manifest.secretFiles],
      kekFingerprint: manifest.kekFingerprint,
      warnings,
      replaced: existing.length > 0,
    };
  } finally {
    await backup.close();
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** The target's entries that make it non-empty; removes staging folders a crashed restore left. */
function inspectTarget(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    if (code === 'ENOTDIR') throw new HearthError('target_not_empty', `${dir} is a file, not a folder`);
    throw err;
  }
  const out: string[] = [];
  for (const name of names.sort()) {
    if (IGNORED.has(name)) continue;
    if (STAGING.test(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
    else out.push(name);
  }
  return out;
}

type Opened = Awaited<ReturnType<typeof openBackup>>;

/** Writes every entry into `staging`, checking each against the manifest; throws `backup_invalid` naming the entry. */
async function extract(backup: Opened, staging: string, key: Buffer | null, onProgress: RestoreOptions['onProgress']): Promise<string[]> {
  const { manifest } = backup;
  const listed = new Map(manifest.entries.map((e) => [e.name, e]));
  const seen = new Set<string>();
  const restored: string[] = [];
  const dirs = new Set<string>([staging]);
  const damaged = (name: string, what: string) => new HearthError('backup_invalid', `${name}: ${what} (the backup is damaged); nothing was restored`);

  const place = async (name: string, write: (fh: FileHandle) => Promise<void>) => {
    const dest = path.join(staging, ...name.split('/'));
    for (let d = path.dirname(dest); !dirs.has(d); d = path.dirname(d)) {
      dirs.add(d);
    }
    fs.mkdirSync(path.dirname(dest), { recursive: true, mode: 0o700 });
    const fh = await fsp.open(dest, 'wx', 0o600);
    try {
      await write(fh);
      await fh.chmod(0o600);
      await fh.sync();
    } finally {
      await fh.close();
    }
    restored.push(name);
  };

  for (const [index, entry] of backup.entries.entries()) {
    onProgress?.({ entry: entry.name, index, entries: backup.entries.length });
    const want = listed.get(entry.name);
    if (entry.type !== 'file' || !want || seen.has(entry.name)) throw damaged(entry.name, 'an entry the manifest does not list');
    seen.add(entry.name);
    if (entry.size !== want.size) throw damaged(entry.name, `${entry.size} bytes where the manifest says ${want.size}`);
    if (want.kind === 'secrets') {
      const chunks: Buffer[] = [];
      if ((await hashEntry(backup.src, entry, (c) => chunks.push(c))) !== want.sha256) throw damaged(entry.name, 'its SHA-256 does not match the manifest');
      if (!key) continue;
      const inner = bufferSource(open(Buffer.concat(chunks), key, manifest.encryption!));
      const secretNames = new Set(manifest.secretFiles);
      for (const s of await walkArchive(inner)) {
        if (s.type !== 'file' || !isEntryName(s.name) || !secretNames.has(s.name) || seen.has(s.name))
          throw damaged(SECRETS_NAME, `holds ${s.name}, which the manifest does not list`);
        seen.add(s.name);
        await place(s.name, async (fh) => {
          for await (const c of entryBytes(inner, s)) await writeAll(fh, c);
        });
      }
      continue;
    }
    let sha = '';
    await place(entry.name, async (fh) => {
      sha = await hashEntry(backup.src, entry, (c) => writeAll(fh, c));
    });
    if (sha !== want.sha256) throw damaged(entry.name, 'its SHA-256 does not match the manifest');
  }
  for (const e of manifest.entries) if (!seen.has(e.name)) throw damaged(e.name, 'listed in the manifest but missing from the archive');
  if (key) {
    const missing = manifest.secretFiles.filter((n) => !seen.has(n));
    if (missing.length > 0) throw damaged(SECRETS_NAME, `lacks ${missing.join(', ')}, which the manifest lists`);
  }
  for (const d of dirs) {
    fs.chmodSync(d, 0o700);
    await syncDir(d);
  }
  return restored;
}

/** Replaces `existing` entries of `dir` by the staged ones, all or nothing (see the header). */
async function swap(dir: string, staging: string, existing: string[]): Promise<void> {
  const old = path.join(dir, `.hearth-replaced-${crypto.randomBytes(4).toString('hex')}`);
  const moved: Array<[from: string, to: string]> = [];
  const move = (from: string, to: string) => {
    fs.renameSync(from, to);
    moved.push([from, to]);
  };
  try {
    if (existing.length > 0) {
      fs.mkdirSync(old, { mode: 0o700 });
      for (const name of existing) move(path.join(dir, name), path.join(old, name));
    }
    for (const name of fs.readdirSync(staging)) move(path.join(staging, name), path.join(dir, name));
  } catch (err) {
    for (const [from, to] of moved.reverse()) fs.renameSync(to, from);
    fs.rmSync(old, { recursive: true, force: true });
    throw new HearthError(
      'backup_failed',
      `the restore failed while moving the restored files into place: ${(err as Error).message}; the folder was left as it was`,
      {
        cause: err,
      },
    );
  }
  fs.rmSync(staging, { recursive: true, force: true });
  fs.rmSync(old, { recursive: true, force: true });
  fs.chmodSync(dir, 0o700);
  await syncDir(dir);
}
