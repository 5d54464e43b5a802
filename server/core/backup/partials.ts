/**
 * Files a backup writes before it is done, and how they are told apart from ones a crash left behind. There is no
 * lock file (a kill -9 would leave it): a backup is written to `<out>.partial-<pid>-<8 hex>` and renamed to `<out>`
 * when complete, its temporary snapshots are `<tmpDir>/backup-<pid>-<8 hex>.db`, and
 *  - this process knows the ones it is writing (`active`): they are never cleaned up under it;
 *  - another process's ones are left while that process lives (a CLI backup beside the server);
 *  - everything else of that shape is stale: `cleanupPartials` removes it, and `listBackups` shows it as such.
 * A pid reused by an unrelated process only delays the cleanup of a stale file, so a day-old file counts as stale too.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const PARTIAL = /\.partial-(\d+)-[0-9a-f]{8}$/;
const TEMP = /^backup-(\d+)-[0-9a-f]{8}\.db(-wal|-shm|-journal)?$/;
const STALE_AFTER_MS = 24 * 3600_000;

/** The files (partial backups and temporary snapshots) this process is writing now. */
const active = new Set<string>();

const tag = () => `${process.pid}-${crypto.randomBytes(4).toString('hex')}`;

export function partialPath(out: string): string {
  return `${out}.partial-${tag()}`;
}

export function tempSnapshotPath(tmpDir: string): string {
  return path.join(tmpDir, `backup-${tag()}.db`);
}

export function markActive(file: string): () => void {
  active.add(file);
  return () => active.delete(file);
}

/** Is a backup being written by this process now? */
export function backupRunning(): boolean {
  for (const f of active) if (PARTIAL.test(f)) return true;
  return false;
}

export function isPartialName(name: string): boolean {
  return PARTIAL.test(name);
}

/** 'writing' while its writer (this process or another live one) may still be at it, else 'stale'. */
export function partialState(file: string): 'writing' | 'stale' {
  const m = PARTIAL.exec(path.basename(file)) ?? TEMP.exec(path.basename(file));
  if (!m) return 'stale';
  if (active.has(file) || active.has(file.replace(/-(wal|shm|journal)$/, ''))) return 'writing';
  const pid = Number(m[1]);
  if (pid === process.pid || !alive(pid)) return 'stale';
  try {
    return Date.now() - fs.statSync(file).mtimeMs > STALE_AFTER_MS ? 'stale' : 'writing';
  } catch {
    return 'stale';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the stale partial backups in `dir` and, when given, the stale temporary snapshots in `tmpDir` (see the
 * header). Answers the paths removed. Call it at start and before a scheduled run.
 */
export function cleanupPartials(dir: string, opts: { tmpDir?: string } = {}): string[] {
  const removed: string[] = [];
  const sweep = (folder: string, shape: RegExp) => {
    let names: string[];
    try {
      names = fs.readdirSync(folder);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const name of names) {
      if (!shape.test(name)) continue;
      const file = path.join(folder, name);
      if (partialState(file) !== 'stale') continue;
      fs.rmSync(file, { force: true });
      removed.push(file);
    }
  };
  sweep(dir, PARTIAL);
  if (opts.tmpDir) sweep(opts.tmpDir, TEMP);
  return removed;
}
