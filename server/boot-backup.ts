/**
 * Boot's wiring of backups: the parts of a backup, asked of each domain through its index.ts when a backup
 * starts, and the backup service (server/core/backup); the bootstrap registers its routes (`registerBackupRoutes`). Core never imports a domain; this file does,
 * as boot does.
 *
 * The parts, in the order they are written:
 *  1. `platform.db` (core): a snapshot inside one read transaction (`sqliteFileSnapshot`), first, so that the
 *     manifest's schema comes from it; none when the core store is PostgreSQL (backed up by PostgreSQL's own tools:
 *     docs/operations/replicas.md), and then the manifest's schema is empty;
 *  2. `namespaces/<fileId>.db` (db): each namespace through its owner's snapshot (namespaces.service.ts `snapshot`);
 *  3. `mail-attachments/<id>` (mail): the attachment objects queued mail still needs (optional: delivery may release
 *     one meanwhile);
 *  4. secrets, sealed under the passphrase or left out: every file of `secrets/` and the initial admin token (core),
 *     the TLS files under `tls/` (identity's keys module lists them; nothing here opens a key).
 * The KEK given by environment is never a file here; identity gives its fingerprint for the manifest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type BackupPart, type BackupService, createBackupService, type ScheduleClock, sqliteFileSnapshot } from './core/backup/index.ts';

export { registerBackupRoutes } from './core/backup/index.ts';

import type { HearthConfig } from './core/config/config.ts';
import type { Logger } from './core/logging/logger.ts';
import type { Metrics } from './core/metrics/metrics.ts';
import type { DbService } from './db/index.ts';
import { type IdentityService, tlsBackupParts } from './identity/index.ts';
import type { MailService } from './mail/index.ts';

/** Internal start options of the backup service (tests: the schedule's clock). Not an environment setting. */
export interface BackupStartOptions {
  clock?: ScheduleClock;
}

/** Every file directly in `<data>/<folder>` as a secret part (sorted; none when the folder is absent). */
function secretFolder(dataDir: string, folder: string): BackupPart[] {
  let names: string[];
  try {
    names = fs.readdirSync(path.join(dataDir, folder)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => fs.statSync(path.join(dataDir, folder, n)).isFile())
    .map((n) => ({ kind: 'file', name: `${folder}/${n}`, path: path.join(dataDir, folder, n), secret: true, optional: true }));
}

/** The parts of a backup of this instance, listed now (see the header). */
export async function backupParts(deps: {
  dataDir: string;
  initialTokenFile: string;
  db: DbService;
  mail: MailService;
  /** Where the core store lives: on PostgreSQL there is no platform.db to back up (PostgreSQL's own tools do that). */
  coreStore?: 'sqlite' | 'postgres';
}): Promise<BackupPart[]> {
  const { dataDir } = deps;
  const token: BackupPart[] = fs.existsSync(deps.initialTokenFile)
    ? [{ kind: 'file', name: path.basename(deps.initialTokenFile), path: deps.initialTokenFile, secret: true, optional: true }]
    : [];
  return [
    ...(deps.coreStore === 'postgres'
      ? []
      : [{ kind: 'sqlite', name: 'platform.db', snapshot: sqliteFileSnapshot(path.join(dataDir, 'platform.db')) } satisfies BackupPart]),
    ...deps.db.backupParts(),
    ...(await deps.mail.backupParts()),
    ...secretFolder(dataDir, 'secrets'),
    ...token,
    ...tlsBackupParts(dataDir),
  ];
}

/** Creates the backup service; boot starts it with the other services and closes it first. */
export function wireBackups(deps: {
  config: HearthConfig;
  metrics: Metrics;
  logger: Logger;
  version: string;
  /** The initial admin token's file name in the data folder. */
  tokenFile: string;
  db: DbService;
  identity: IdentityService;
  mail: MailService;
  backup?: BackupStartOptions;
  coreStore: 'sqlite' | 'postgres';
}): BackupService {
  const { config } = deps;
  const backups = createBackupService({
    parts: async () =>
      backupParts({
        dataDir: config.dataDir,
        initialTokenFile: path.join(config.dataDir, deps.tokenFile),
        db: deps.db,
        mail: deps.mail,
        coreStore: deps.coreStore,
      }),
    dir: config.backupDir ?? path.join(config.dataDir, 'backups'),
    tmpDir: path.join(config.dataDir, 'tmp'),
    hearthVersion: deps.version,
    kekFingerprint: () => deps.identity.kekFingerprint(),
    cron: config.backupSchedule,
    keep: config.backupKeep,
    passphrase: config.backupPassphrase,
    logger: deps.logger.child({ part: 'backup' }),
    metrics: deps.metrics,
    clock: deps.backup?.clock,
  });
  return backups;
}
