import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Store } from '../storage/store.ts';

/**
 * The data folder's secret store: one file per secret under `<data>/secrets`, mode 0600, the folder 0700.
 * A secret given through the environment wins and is never written to disk.
 */
export class SecretStore {
  readonly dir: string;
  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'secrets');
  }

  /**
   * Reads a stored secret, generating `bytes` random bytes on first use, written in `encoding` (base64url unless a
   * reader needs another form, e.g. the identity KEK's hex). Concurrent first uses on one data folder agree on one value.
   */
  getOrCreate(name: string, bytes = 32, encoding: 'base64url' | 'hex' = 'base64url'): string {
    const file = this.file(name);
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const value = crypto.randomBytes(bytes).toString(encoding);
    try {
      fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
      return value;
    } catch (err) {
      // Another process on the same data folder created it first: use theirs.
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

/** A 16-hexadecimal-character fingerprint of a secret (HMAC-SHA-256 under the secret itself: it reveals nothing of it). */
export function secretFingerprint(value: string): string {
  return crypto.createHmac('sha256', value).update('hearth-shared-secret-fingerprint-v1').digest('hex').slice(0, 16);
}

/** A secret every replica on one core store must share: the setting's variable, its fingerprint here, where it came from. */
export interface SharedSecret {
  variable: string;
  fingerprint: string;
  /** Where this replica's value came from: its environment, or generated into its own data folder. */
  source: 'environment' | 'secret-store';
  /** Fingerprints also accepted (a key being rolled replica by replica: the next and the previous KEK). */
  accepts?: string[];
  /** A recorded fingerprint this one supersedes (the previous KEK after a roll): the record moves on to this one. */
  supersedes?: string | null;
}

/**
 * Replicas on one core store (PostgreSQL) must seal and open with the same secrets: what one replica encrypted (an SMTP
 * password under APP_SECRET, a signing key under the KEK, a broker token) another must read. The first replica records
 * each secret's fingerprint in the core store; every later one compares and refuses to start on a difference, naming
 * the variable (never a value). Answers nothing; throws a plain Error with what to do.
 */
export async function checkSharedSecrets(store: Store, secrets: SharedSecret[]): Promise<void> {
  const now = new Date().toISOString();
  const recorded = await store.tx(async () => {
    for (const s of secrets) {
      await store.run('INSERT INTO shared_secrets (name, fingerprint, recorded_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING', [
        s.variable,
        s.fingerprint,
        now,
      ]);
    }
    return store.all<{ name: string; fingerprint: string }>('SELECT name, fingerprint FROM shared_secrets');
  });
  const recordedOf = (s: SharedSecret) => recorded.find((r) => r.name === s.variable)!.fingerprint;
  const differing = secrets.filter((s) => ![s.fingerprint, ...(s.accepts ?? [])].includes(recordedOf(s)));
  if (differing.length === 0) {
    for (const s of secrets) {
      if (s.supersedes && recordedOf(s) === s.supersedes) {
        await store.run('UPDATE shared_secrets SET fingerprint = ?, recorded_at = ? WHERE name = ? AND fingerprint = ?', [
          s.fingerprint,
          now,
          s.variable,
          s.supersedes,
        ]);
      }
    }
    return;
  }
  const lines = differing.map((s) => {
    const theirs = recordedOf(s);
    const where = s.source === 'environment' ? 'set in this replica’s environment' : 'generated into this replica’s data folder (it was not set)';
    return `${s.variable}: fingerprint ${s.fingerprint} here (${where}), ${theirs} on the core store`;
  });
  throw new Error(
    `this replica's secrets differ from those of the other replicas on the core store; give every replica the same values (docs/operations/replicas.md): ${lines.join('; ')}`,
  );
}
