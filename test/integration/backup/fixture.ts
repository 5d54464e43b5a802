/**
 * A data folder shaped like Hearth's (platform.db in WAL mode with its schema_migrations, two namespace databases,
 * secrets, TLS keys, a mail attachment, tmp/) and the parts boot would list for it — built with real SQLite files,
 * so the backup engine is tested on what it will meet.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type BackupPart, sqliteFileSnapshot } from '../../../server/core/backup/index.ts';
import { Database } from '../../../server/core/storage/sqlite.ts';

export const MIGRATIONS = ['core-001-tokens-audit', 'db-001-namespaces', 'identity-001-accounts', 'identity-002-keys', 'mail-001-profiles'];

export interface Fixture {
  dataDir: string;
  tmpDir: string;
  namespaces: Array<{ name: string; fileId: string }>;
  attachment: string;
  secretValue: string;
  parts(): BackupPart[];
}

/** Builds the data folder at `dataDir` (created). `migrations` are the ids platform.db records as applied. */
export function makeDataFolder(dataDir: string, opts: { migrations?: string[] } = {}): Fixture {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (const d of ['namespaces', 'secrets', 'tls/web', 'mail-attachments', 'tmp']) fs.mkdirSync(path.join(dataDir, d), { recursive: true, mode: 0o700 });

  const platform = new Database(path.join(dataDir, 'platform.db'));
  platform.pragma('journal_mode = WAL');
  platform.exec(`CREATE TABLE schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL) STRICT;
    CREATE TABLE accounts (id INTEGER PRIMARY KEY, login TEXT NOT NULL, password_hash TEXT NOT NULL);
    CREATE TABLE namespaces (name TEXT PRIMARY KEY, file_id TEXT NOT NULL)`);
  const migrate = platform.prepare('INSERT INTO schema_migrations VALUES (?, ?)');
  for (const id of opts.migrations ?? MIGRATIONS) migrate.run(id, '2026-01-01T00:00:00.000Z');
  const account = platform.prepare('INSERT INTO accounts (login, password_hash) VALUES (?, ?)');
  for (let i = 0; i < 50; i++) account.run(`user${i}`, crypto.randomBytes(32).toString('base64'));

  const namespaces = ['crm', 'inventory'].map((name) => ({ name, fileId: crypto.randomUUID() }));
  for (const [i, ns] of namespaces.entries()) {
    platform.prepare('INSERT INTO namespaces VALUES (?, ?)').run(ns.name, ns.fileId);
    const db = new Database(path.join(dataDir, 'namespaces', `${ns.fileId}.db`));
    if (i === 0) db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT, n REAL, blob BLOB)');
    const insert = db.prepare('INSERT INTO items (label, n, blob) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (let r = 0; r < 500; r++) insert.run(`${ns.name}-${r}`, r / 7, crypto.randomBytes(64));
    })();
    db.close();
  }
  platform.close();

  const secretValue = crypto.randomBytes(48).toString('base64url');
  fs.writeFileSync(path.join(dataDir, 'secrets', 'app-secret'), `${secretValue}\n`, { mode: 0o600 });
  fs.writeFileSync(path.join(dataDir, 'secrets', 'kek-check'), 'k1\n', { mode: 0o600 });
  fs.writeFileSync(
    path.join(dataDir, 'tls', 'web', 'key.pem'),
    `-----BEGIN PRIVATE KEY-----\n${crypto.randomBytes(90).toString('base64')}\n-----END PRIVATE KEY-----\n`,
    {
      mode: 0o600,
    },
  );
  fs.writeFileSync(path.join(dataDir, 'tls', 'web', 'cert.pem'), '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', { mode: 0o600 });
  const attachment = crypto.randomUUID();
  fs.writeFileSync(path.join(dataDir, 'mail-attachments', attachment), crypto.randomBytes(300_000), { mode: 0o600 });

  return {
    dataDir,
    tmpDir: path.join(dataDir, 'tmp'),
    namespaces,
    attachment,
    secretValue,
    parts: () => partsFor(dataDir, namespaces, attachment),
  };
}

/** The parts boot would list: every database through a snapshot, the attachment plain, secrets and TLS secret. */
export function partsFor(dataDir: string, namespaces: Fixture['namespaces'], attachment: string): BackupPart[] {
  const file = (name: string, secret: boolean, optional = false): BackupPart => ({
    kind: 'file',
    name,
    path: path.join(dataDir, ...name.split('/')),
    secret,
    optional,
  });
  return [
    { kind: 'sqlite', name: 'platform.db', snapshot: sqliteFileSnapshot(path.join(dataDir, 'platform.db')) },
    ...namespaces.map(
      (ns): BackupPart => ({
        kind: 'sqlite',
        name: `namespaces/${ns.fileId}.db`,
        snapshot: sqliteFileSnapshot(path.join(dataDir, 'namespaces', `${ns.fileId}.db`)),
        meta: { namespace: ns.name, fileId: ns.fileId },
      }),
    ),
    file(`mail-attachments/${attachment}`, false, true),
    file('secrets/app-secret', true),
    file('secrets/kek-check', true),
    file('tls/web/key.pem', true),
    file('tls/web/cert.pem', true),
  ];
}

/** Every table's rows of a SQLite file, by table name (for "the same rows"). */
export function dumpRows(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}

/** Where an entry's data starts in a backup file (its header names it; the data follows the 512-byte header). */
export function dataOffset(file: string, name: string): number {
  const bytes = fs.readFileSync(file);
  for (let pos = 0; pos + 512 <= bytes.length; pos += 512) {
    const field = bytes.subarray(pos, pos + 100);
    const end = field.indexOf(0);
    if (field.subarray(0, end === -1 ? 100 : end).toString() === name && bytes.subarray(pos + 257, pos + 262).toString() === 'ustar') return pos + 512;
  }
  throw new Error(`no entry ${name} in ${file}`);
}

/** Modes of everything under `dir` (relative path → octal string), the folder itself as '.'. */
export function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': (fs.statSync(dir).mode & 0o777).toString(8) };
  for (const rel of fs.readdirSync(dir, { recursive: true }) as string[]) out[rel] = (fs.statSync(path.join(dir, rel)).mode & 0o777).toString(8);
  return out;
}
