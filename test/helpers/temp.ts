/**
 * Temporary folders for tests: servers' data folders, peers' configuration and state. Kept apart from server.ts so
 * that helpers which start no Hearth (a PostgreSQL cluster, a child process) do not load the whole server to get one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A new empty folder in the system's temporary directory (mode 0700), named `<prefix>XXXXXX`. */
export function tempDir(prefix = 'hearth-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
