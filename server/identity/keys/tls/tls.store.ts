/**
 * Where TLS material lives: `<data>/tls/<mode>/…`. Certificates are plain PEM files; private keys (the internal
 * root's, a leaf's, the ACME account's) are sealed under the identity key-encryption key, the envelope of the
 * signing keys (keys.crypto.ts), and stored as `{ encryptionKeyId, envelope }` JSON, mode 0600. A key sealed under a
 * KEK that has since become `HEARTH_IDENTITY_PREVIOUS_KEY` still opens, and is sealed again under the current one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BackupPart } from '../../../core/backup/index.ts';
import type { SecretStore } from '../../../core/secrets/secrets.ts';
import { EnvelopeError, type KekSet, type KekSettings, kekById, open, resolveKeks, seal } from '../keys.crypto.ts';

export class TlsStore {
  readonly dir: string;
  private keks: KekSet | null = null;
  private readonly kekSettings: KekSettings;
  private readonly secrets: SecretStore;

  constructor(dataDir: string, area: string, kekSettings: KekSettings, secrets: SecretStore) {
    this.dir = path.join(dataDir, 'tls', area);
    this.kekSettings = kekSettings;
    this.secrets = secrets;
  }

  private kekSet(): KekSet {
    this.keks ??= resolveKeks(this.kekSettings, this.secrets);
    return this.keks;
  }

  file(name: string): string {
    if (!/^[a-z0-9.-]+$/.test(name)) throw new Error(`invalid TLS file name ${name}`);
    return path.join(this.dir, name);
  }

  read(name: string): string | null {
    try {
      return fs.readFileSync(this.file(name), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  /** Writes atomically (a temporary file renamed over the old one), mode 0600. */
  write(name: string, text: string): void {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(name);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, text, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }

  remove(name: string): void {
    fs.rmSync(this.file(name), { force: true });
  }

  /** Opens a sealed private key (PEM), or null when there is none. */
  readSealed(name: string): string | null {
    const text = this.read(name);
    if (text === null) return null;
    let stored: { encryptionKeyId?: string; envelope?: string };
    try {
      stored = JSON.parse(text) as typeof stored;
    } catch {
      throw new Error(`${this.file(name)} is damaged (not JSON); remove it to have Hearth make a new key`);
    }
    const keks = this.kekSet();
    const kek = kekById(keks, stored.encryptionKeyId ?? '');
    if (!kek || !stored.envelope) {
      throw new Error(
        `${this.file(name)} is sealed under key-encryption key ${stored.encryptionKeyId ?? '(none)'}, which is not configured (set HEARTH_IDENTITY_PREVIOUS_KEY to it, or remove the file to start over)`,
      );
    }
    let pem: string;
    try {
      pem = open(kek, stored.envelope, name, 'tls');
    } catch (err) {
      if (err instanceof EnvelopeError) throw new Error(`${this.file(name)} does not open under key-encryption key ${kek.id}: it was altered or damaged`);
      throw err;
    }
    if (kek.id !== keks.current.id) this.writeSealed(name, pem);
    return pem;
  }

  writeSealed(name: string, pem: string): void {
    const kek = this.kekSet().current;
    this.write(name, `${JSON.stringify({ encryptionKeyId: kek.id, envelope: seal(kek, pem, name, 'tls') })}\n`);
  }
}

/**
 * The TLS files of a data folder as a backup's secret file parts (`tls/<mode>/<file>`): certificates and the sealed
 * private keys, never opened here. A file removed before its turn (a renewal's rename) is left out; temporary files
 * of a write in progress are not listed.
 */
export function tlsBackupParts(dataDir: string): BackupPart[] {
  const root = path.join(dataDir, 'tls');
  const parts: BackupPart[] = [];
  const walk = (dir: string, rel: string[]) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory()) walk(path.join(dir, e.name), [...rel, e.name]);
      else if (e.isFile() && !e.name.endsWith('.tmp'))
        parts.push({ kind: 'file', name: ['tls', ...rel, e.name].join('/'), path: path.join(dir, e.name), secret: true, optional: true });
    }
  };
  walk(root, []);
  return parts;
}
