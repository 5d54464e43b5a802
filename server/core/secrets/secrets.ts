import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The data folder's secret store: one file per secret under `<data>/secrets`, mode 0600, the folder 0700.
 * A secret given through the environment wins and is never written to disk.
 */
export class SecretStore {
  readonly dir: string;
  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'secrets');
  }

  /** Reads a stored secret, generating `bytes` random bytes (base64url) on first use. */
  getOrCreate(name: string, bytes = 32): string {
    const file = this.file(name);
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const value = crypto.randomBytes(bytes).toString('base64url');
    try {
      fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
      return value;
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
      throw err;
    }
  }

  file(name: string): string {
    if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`invalid secret name ${name}`);
    return path.join(this.dir, name);
  }
}

export function resolveAppSecret(store: SecretStore, fromEnv: string | undefined): string {
  return fromEnv ?? store.getOrCreate('app-secret', 48);
}
