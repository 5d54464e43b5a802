/**
 * The data folder holds every namespace's rows, the registry, token hashes and the secrets: only the user Hearth runs
 * as may read it. Folders are 0700 and files 0600, set when Hearth creates them (`privateDir`, `privateFile`: SQLite
 * gives a database's -wal, -shm and -journal files the mode of the database file) and restored at every start
 * (`securePermissions`) on a folder an older Hearth, a copy, a restore or `hearth tokens` left readable.
 *
 * POSIX only: on Windows file modes do not govern who may read a file (ACLs do), so these helpers change nothing
 * there.
 */
import fs from 'node:fs';
import path from 'node:path';

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const POSIX = process.platform !== 'win32';

/** Creates a folder (and missing parents) 0700. An existing one is left as it is (see `securePermissions`). */
export function privateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

/** Creates an empty file 0600 if it does not exist, so that SQLite (which would create it 0644) opens it as it is. */
export function privateFile(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', FILE_MODE));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** The folders of a data folder whose files are all Hearth's own databases or secrets (not mail attachments: many, and written 0600). */
const PRIVATE_FILE_DIRS = ['namespaces', 'secrets', 'tmp'];

/**
 * Makes the data folder 0700, the folders in it 0700, and the files in it and in `namespaces/`, `secrets/` and
 * `tmp/` 0600 (platform.db and its -wal/-shm, the namespace databases, the secrets, the initial admin token).
 * Answers what it changed, e.g. `platform.db 644 → 600` (the data folder itself by its full path), and what it could
 * not change (a file owned by another user), each with the reason; both are empty when everything was already
 * private. Symbolic links inside the folder are left alone (the data folder itself may be one).
 */
export function securePermissions(dataDir: string): { changed: string[]; failed: string[] } {
  const changed: string[] = [];
  const failed: string[] = [];
  if (!POSIX) return { changed, failed };
  const fix = (file: string, label: string, want: number) => {
    try {
      const now = fs.statSync(file).mode & 0o777;
      if (now === want) return;
      fs.chmodSync(file, want);
      changed.push(`${label} ${now.toString(8)} → ${want.toString(8)}`);
    } catch (err) {
      failed.push(`${label} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  };
  const entries = (dir: string) => fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  fix(dataDir, dataDir, DIR_MODE);
  for (const e of entries(dataDir)) {
    const file = path.join(dataDir, e.name);
    if (e.isDirectory()) {
      fix(file, e.name, DIR_MODE);
      if (!PRIVATE_FILE_DIRS.includes(e.name)) continue;
      for (const f of entries(file)) if (f.isFile()) fix(path.join(file, f.name), `${e.name}/${f.name}`, FILE_MODE);
    } else if (e.isFile()) fix(file, e.name, FILE_MODE);
  }
  return { changed, failed };
}
