/**
 * The `.hearth-backup` file format, version 1 (docs/operations/backups.md is the reader's version of this header).
 *
 *   backup   = tar (POSIX ustar, pax headers for long names), its entries in this order:
 *              part*          one entry per part the caller gave, in the caller's order: SQLite snapshots
 *                             ('platform.db', 'namespaces/<fileId>.db') and plain files ('mail-attachments/<id>')
 *              secrets.enc    only with a passphrase: an inner tar of the secret files, sealed (AES-256-GCM under
 *                             an Argon2id key, secrets-box.ts); without a passphrase the secret files are left out
 *              manifest.json  always last, so that it can describe everything before it
 *   manifest = JSON: format, version, hearthVersion, createdAt, schema (platform.db's migration ids by domain),
 *              entries [{name, kind, size, sha256, meta?}] (every entry but the manifest itself), secrets
 *              ('encrypted' | 'omitted'), secretFiles (names only: never their hashes, a hash of a short secret
 *              could be guessed), encryption (KDF and cipher parameters, salt, nonce, key check) or null,
 *              kekFingerprint or null (the KEK itself never), vanished (optional parts gone before they were read),
 *              sha256 (of the manifest's compact JSON without this member: catches a damaged manifest).
 *
 * Entry names are relative POSIX paths made of [A-Za-z0-9._-] segments (never '.', '..' or empty), so a restore
 * can write them under the target folder without ever leaving it.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { HearthError, quoteInput } from '../http/errors.ts';

export const BACKUP_FORMAT = 'hearth-backup';
export const BACKUP_FORMAT_VERSION = 1;
/** The file name ending of backups (what `listBackups` and `pruneBackups` look at). */
export const BACKUP_EXTENSION = '.hearth-backup';
export const MANIFEST_NAME = 'manifest.json';
export const SECRETS_NAME = 'secrets.enc';
/** The part whose `schema_migrations` table gives the manifest its `schema`. */
export const PLATFORM_DB = 'platform.db';

const NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
const RESERVED = new Set([MANIFEST_NAME, SECRETS_NAME]);

/** Is `name` a safe entry name (see the header)? Reserved names are entry names too, just not for parts. */
export function isEntryName(name: string): boolean {
  return name.length <= 255 && NAME.test(name) && name.split('/').every((s) => s !== '.' && s !== '..');
}

export function checkPartName(name: string): void {
  if (!isEntryName(name)) {
    throw new HearthError('invalid_value', `invalid backup part name ${quoteInput(name)}: a relative path of [A-Za-z0-9._-] segments`);
  }
  if (RESERVED.has(name)) throw new HearthError('invalid_value', `the backup part name ${name} is reserved for the backup's own use`);
}

/**
 * The manifest's zod schemas, built on first use (a backup made, read or verified), not when the server starts: the
 * backup modules load with the server, and a start that makes no backup should not pay for building them.
 */
function buildSchemas() {
  const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
  const base64 = z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/);
  const entryName = z.string().refine(isEntryName, 'not a safe entry name');
  const entry = z.object({
    name: entryName,
    kind: z.enum(['sqlite', 'file', 'secrets']),
    size: z.number().int().nonnegative(),
    sha256: sha256Hex,
    meta: z.record(z.string(), z.unknown()).optional(),
  });
  const encryption = z.object({
    kdf: z.object({
      name: z.literal('argon2id'),
      version: z.literal(19),
      memoryKiB: z.number().int().min(8),
      passes: z.number().int().min(1),
      parallelism: z.number().int().min(1),
      salt: base64,
    }),
    cipher: z.object({ name: z.literal('aes-256-gcm'), nonce: base64, tagBytes: z.literal(16) }),
    keyCheck: base64,
  });
  const manifest = z.object({
    format: z.literal(BACKUP_FORMAT),
    version: z.literal(BACKUP_FORMAT_VERSION),
    hearthVersion: z.string().min(1),
    createdAt: z.iso.datetime(),
    schema: z.record(z.string(), z.array(z.string())),
    entries: z.array(entry),
    secrets: z.enum(['encrypted', 'omitted']),
    secretFiles: z.array(entryName),
    encryption: encryption.nullable(),
    kekFingerprint: z.string().nullable(),
    vanished: z.array(entryName),
    sha256: sha256Hex,
  });
  return { entry, encryption, manifest };
}
type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | null = null;
const schemas = (): Schemas => (built ??= buildSchemas());

export type BackupManifest = z.infer<Schemas['manifest']>;
export type ManifestEntry = z.infer<Schemas['entry']>;
export type EncryptionInfo = z.infer<Schemas['encryption']>;

/** The manifest's bytes: pretty JSON whose last member `sha256` covers the compact JSON of everything before it. */
export function encodeManifest(m: Omit<BackupManifest, 'sha256'>): { bytes: Buffer; manifest: BackupManifest } {
  const manifest = { ...m, sha256: crypto.createHash('sha256').update(JSON.stringify(m)).digest('hex') };
  return { bytes: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`), manifest };
}

/**
 * Reads and checks a manifest: its own checksum, its format version, every required member. A newer format version
 * is `backup_too_new`; anything else wrong is `backup_invalid`.
 */
export function decodeManifest(bytes: Buffer): BackupManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HearthError('backup_invalid', 'the manifest is not valid JSON (the backup is damaged)');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new HearthError('backup_invalid', 'the manifest is not a JSON object');
  const { sha256, ...rest } = raw as Record<string, unknown>;
  if (rest.format !== BACKUP_FORMAT) throw new HearthError('backup_invalid', 'this file is not a Hearth backup (its manifest names another format)');
  if (typeof rest.version === 'number' && rest.version > BACKUP_FORMAT_VERSION) {
    const by = typeof rest.hearthVersion === 'string' ? ` (${rest.hearthVersion})` : '';
    throw new HearthError('backup_too_new', `this backup was made by a newer Hearth${by} in format version ${rest.version}; upgrade Hearth to read it`);
  }
  if (sha256 !== crypto.createHash('sha256').update(JSON.stringify(rest)).digest('hex')) {
    throw new HearthError('backup_invalid', "the manifest does not match its own checksum (the backup's manifest is damaged)");
  }
  const parsed = schemas().manifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new HearthError('backup_invalid', `the manifest is incomplete: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Migration ids (`<domain>-<NNN>-<name>`) grouped by their domain prefix, each group sorted. */
export function groupMigrations(ids: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const id of [...ids].sort()) {
    const dash = id.indexOf('-');
    const domain = dash > 0 ? id.slice(0, dash) : id;
    const group = out[domain] ?? [];
    group.push(id);
    out[domain] = group;
  }
  return out;
}
