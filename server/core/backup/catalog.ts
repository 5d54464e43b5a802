/**
 * The backups in a folder: listing them (from each file's manifest, found by walking tar headers — the data is not
 * read, so listing 30 backups of 10 GiB takes milliseconds) and keeping the newest N.
 *
 * A backup is a `*.hearth-backup` file; one being written or left by a crash is a `*.partial-*` file (partials.ts).
 * No sidecar files: what the list shows comes from the backup itself, so a copied or downloaded backup lists the
 * same anywhere.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { HearthError } from '../http/errors.ts';
import { BACKUP_EXTENSION, type BackupManifest } from './format.ts';
import { isPartialName, partialState } from './partials.ts';
import { readBackupManifest } from './read.ts';

export interface BackupListing {
  name: string;
  file: string;
  size: number;
  /** The manifest's creation time; for a damaged or partial file, its modification time. */
  createdAt: Date;
  /**
   * complete: the manifest is there and intact (run `verifyBackup` for every byte); damaged: the manifest cannot be
   * read (`problem` says why); writing: a partial file a live backup is writing; stale: a partial file a crash left
   * (`cleanupPartials` removes it).
   */
  status: 'complete' | 'damaged' | 'writing' | 'stale';
  problem?: string;
  hearthVersion?: string;
  secrets?: BackupManifest['secrets'];
  /** A complete backup's manifest (what it holds: entries with their meta, schema, KEK fingerprint). */
  manifest?: BackupManifest;
}

/** A backup's file name for a creation time: `hearth-2026-11-26T030000.123Z.hearth-backup` (sorts by time, no colons). */
export function backupFileName(at: Date): string {
  return `hearth-${at.toISOString().replace(/:/g, '')}${BACKUP_EXTENSION}`;
}

/** The backups and partial files in `dir`, newest first (an absent folder has none). */
export async function listBackups(dir: string): Promise<BackupListing[]> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: BackupListing[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const partial = isPartialName(name);
    if (!partial && !name.endsWith(BACKUP_EXTENSION)) continue;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      continue; // removed meanwhile (a partial renamed, a prune)
    }
    if (!stat.isFile()) continue;
    const base = { name, file, size: stat.size, createdAt: stat.mtime };
    if (partial) {
      out.push({ ...base, status: partialState(file) });
      continue;
    }
    try {
      const m = await readBackupManifest(file);
      out.push({ ...base, createdAt: new Date(m.createdAt), status: 'complete', hearthVersion: m.hearthVersion, secrets: m.secrets, manifest: m });
    } catch (err) {
      out.push({ ...base, status: 'damaged', problem: (err as Error).message });
    }
  }
  return out.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.name < b.name ? 1 : -1));
}

/**
 * Keeps the newest `keep` complete backups in `dir` and deletes every backup file older than the oldest one kept
 * (complete or damaged). Damaged files newer than that, and partial files, are left alone. Answers what it kept and
 * removed (paths). `only` limits both the counting and the deleting to the file names it accepts (the scheduled
 * backups, so that manual ones are never pruned).
 */
export async function pruneBackups(dir: string, keep: number, only?: (name: string) => boolean): Promise<{ kept: string[]; removed: string[] }> {
  if (!Number.isInteger(keep) || keep < 1)
    throw new HearthError('invalid_value', `the number of backups to keep must be a whole number of at least 1, not ${keep}`);
  const all = (await listBackups(dir)).filter((b) => (b.status === 'complete' || b.status === 'damaged') && (only?.(b.name) ?? true));
  const kept = all.filter((b) => b.status === 'complete').slice(0, keep);
  const oldestKept = kept.at(-1);
  const removed: string[] = [];
  if (kept.length === keep && oldestKept) {
    for (const b of all) {
      if (kept.includes(b) || b.createdAt.getTime() > oldestKept.createdAt.getTime()) continue;
      await fsp.rm(b.file, { force: true }); // off the event loop: a backup is gigabytes of cached pages to drop
      removed.push(b.file);
    }
  }
  return { kept: kept.map((b) => b.file), removed };
}
