/**
 * Checking a backup without restoring it: the manifest is complete and intact, the archive holds exactly the entries
 * the manifest lists, each with its size and SHA-256, every SQLite entry passes `PRAGMA integrity_check` (copied to
 * a temporary folder one at a time, then deleted), and — given the passphrase — `secrets.enc` opens and holds the
 * secret files the manifest names.
 *
 * Problems are collected, not thrown: each names its entry ("namespaces/x.db: …"). A wrong passphrase is its own
 * problem and its own `secrets` state, apart from damage. `integrity_check` runs on the calling thread.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { HearthError } from '../http/errors.ts';
import { bufferSource, walkArchive, writeAll } from './archive.ts';
import type { BackupManifest, ManifestEntry } from './format.ts';
import { hashEntry, type OpenedBackup, openBackup } from './read.ts';
import { open, unlock } from './secrets-box.ts';
import { integrityProblem, removeDbFiles } from './sqlite.ts';

export interface VerifyReport {
  ok: boolean;
  problems: string[];
  /** The manifest, when it could be read. */
  manifest: BackupManifest | null;
  /**
   * verified: the passphrase opens secrets.enc and it holds the files listed; not_checked: encrypted, no passphrase
   * given; omitted: the backup has no secrets; wrong_passphrase; damaged.
   */
  secrets: 'verified' | 'not_checked' | 'omitted' | 'wrong_passphrase' | 'damaged';
  /** Entries whose bytes were checked, SQLite entries integrity-checked, bytes read. */
  checked: { entries: number; sqlite: number; bytes: number };
}

export interface VerifyOptions {
  passphrase?: string;
  /** Where SQLite entries are copied for their integrity check (default: the system's temporary folder). */
  tmpDir?: string;
  onProgress?: (p: { entry: string; index: number; entries: number }) => void;
}

export async function verifyBackup(file: string, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const report: VerifyReport = { ok: false, problems: [], manifest: null, secrets: 'not_checked', checked: { entries: 0, sqlite: 0, bytes: 0 } };
  let backup: OpenedBackup;
  try {
    backup = await openBackup(file);
  } catch (err) {
    report.problems.push((err as Error).message);
    return report;
  }
  const { manifest } = backup;
  report.manifest = manifest;
  report.secrets = manifest.secrets === 'omitted' ? 'omitted' : 'not_checked';
  const problem = (name: string, what: string) => report.problems.push(`${name}: ${what}`);
  const tmp = fs.mkdtempSync(path.join(opts.tmpDir ?? os.tmpdir(), 'hearth-verify-'));
  try {
    checkManifestShape(manifest, report.problems);
    const listed = new Map(manifest.entries.map((e) => [e.name, e]));
    const seen = new Set<string>();
    for (const [index, entry] of backup.entries.entries()) {
      opts.onProgress?.({ entry: entry.name, index, entries: backup.entries.length });
      if (entry.type !== 'file') {
        problem(entry.name, `a ${entry.type} entry, which a backup never holds`);
        continue;
      }
      if (seen.has(entry.name)) {
        problem(entry.name, 'appears twice in the archive');
        continue;
      }
      seen.add(entry.name);
      const want = listed.get(entry.name);
      if (!want) {
        problem(entry.name, 'is in the archive but not in the manifest');
        continue;
      }
      if (entry.size !== want.size) {
        problem(entry.name, `has ${entry.size} bytes, the manifest says ${want.size} (the entry is damaged)`);
        continue;
      }
      report.checked.entries++;
      report.checked.bytes += entry.size;
      const mismatch = (sha: string) => {
        if (sha === want.sha256) return false;
        problem(entry.name, 'its SHA-256 does not match the manifest (the entry is damaged)');
        return true;
      };
      if (want.kind === 'sqlite') {
        const copy = path.join(tmp, 'check.db');
        const fh = await fsp.open(copy, 'w', 0o600);
        let sha: string;
        try {
          sha = await hashEntry(backup.src, entry, (c) => writeAll(fh, c));
        } finally {
          await fh.close();
        }
        if (!mismatch(sha)) {
          const found = integrityProblem(copy);
          if (found) problem(entry.name, `fails SQLite's integrity check: ${found}`);
          else report.checked.sqlite++;
        }
        removeDbFiles(copy);
      } else if (want.kind === 'secrets') {
        const chunks: Buffer[] = [];
        if (mismatch(await hashEntry(backup.src, entry, (c) => chunks.push(c)))) report.secrets = 'damaged';
        else if (opts.passphrase !== undefined && manifest.encryption) await checkSecrets(Buffer.concat(chunks), opts.passphrase, manifest, report);
      } else {
        mismatch(await hashEntry(backup.src, entry));
      }
    }
    for (const e of manifest.entries) if (!seen.has(e.name)) problem(e.name, 'is listed in the manifest but missing from the archive');
  } catch (err) {
    report.problems.push(`reading the backup failed: ${(err as Error).message}`);
  } finally {
    await backup.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  report.ok = report.problems.length === 0;
  return report;
}

/** What the manifest's schema cannot say by itself: names unique, secrets.enc present exactly when encrypted. */
export function checkManifestShape(m: BackupManifest, problems: string[]): void {
  const names = new Set<string>();
  for (const e of m.entries) {
    if (names.has(e.name)) problems.push(`${e.name}: listed twice in the manifest`);
    names.add(e.name);
  }
  const box = m.entries.filter((e: ManifestEntry) => e.kind === 'secrets');
  if (m.secrets === 'encrypted' && (box.length !== 1 || box[0]!.name !== 'secrets.enc' || !m.encryption)) {
    problems.push('manifest: says the secrets are encrypted but does not describe secrets.enc and its encryption');
  }
  if (m.secrets === 'omitted' && (box.length > 0 || m.encryption)) problems.push('manifest: says the secrets are omitted but lists encrypted secrets');
}

async function checkSecrets(box: Buffer, passphrase: string, manifest: BackupManifest, report: VerifyReport): Promise<void> {
  try {
    const key = await unlock(passphrase, manifest.encryption!);
    const inner = await walkArchive(bufferSource(open(box, key, manifest.encryption!)));
    const names = inner.map((e) => e.name).sort();
    const want = [...manifest.secretFiles].sort();
    if (names.join('\n') !== want.join('\n')) {
      report.problems.push(`secrets.enc: holds ${names.join(', ') || 'nothing'}, the manifest lists ${want.join(', ') || 'nothing'}`);
      report.secrets = 'damaged';
    } else {
      report.secrets = 'verified';
    }
  } catch (err) {
    if (err instanceof HearthError && err.code === 'wrong_passphrase') {
      report.secrets = 'wrong_passphrase';
      report.problems.push('secrets.enc: wrong passphrase (the entry is intact; it was sealed with another passphrase)');
    } else {
      report.secrets = 'damaged';
      report.problems.push(`secrets.enc: ${(err as Error).message}`);
    }
  }
}
