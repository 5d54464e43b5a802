/**
 * The first part of the boot (server/boot.ts is the second): everything Hearth is before it listens, built in
 * dependency order with no late wiring, as PocketBase's `Bootstrap()`. Configuration and the private data folder;
 * the server's public `Address` (filled in by the listeners); the core store (platform.db, or PostgreSQL shared by
 * replicas); the audit log and API tokens; the domains (db, mail, identity, each through its index.ts); the `Api` with
 * every route; backups; the TLS service. Each step that opens something pushes its close on one `Closers` stack, so a
 * bootstrap that fails half-way closes what it opened before it throws, and a stop is the same loop.
 *
 * `openCoreStore` is the store step alone, which the offline CLI commands (`hearth tokens`, `hearth setup`) use.
 */

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DestinationStream } from 'pino';
import { z } from 'zod';
import { type BackupStartOptions, registerBackupRoutes, wireBackups } from './boot-backup.ts';
import { listeningAddresses } from './boot-listeners.ts';
import { INITIAL_TOKEN_FILE } from './boot-token.ts';
import { type AuditLog, createAuditLog } from './core/audit/audit.ts';
import { createAuthenticator } from './core/auth/auth.ts';
import { createTokenService, type TokenService } from './core/auth/tokens.service.ts';
import { createTokenStore } from './core/auth/tokens.store.ts';
import { type ConfigInput, type HearthConfig, loadConfig } from './core/config/config.ts';
import { processEnvironment } from './core/config/environment.ts';
import { registerCoreRoutes } from './core/core.routes.ts';
import { Api } from './core/http/api.ts';
import { Closers } from './core/lifecycle.ts';
import { createLogger, type Logger } from './core/logging/logger.ts';
import { createMetrics, type Metrics } from './core/metrics/metrics.ts';
import { createAddress, type MutableAddress } from './core/net/address.ts';
import { nodeCa } from './core/net/forward.ts';
import { lanLabel } from './core/net/names.ts';
import { checkSharedSecrets, resolveAppSecret, SecretStore, secretFingerprint } from './core/secrets/secrets.ts';
import { privateDir, securePermissions } from './core/storage/data-dir.ts';
import { coreMigrations, type Db, openPlatformDb, PLATFORM_DB_FILE } from './core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from './core/storage/postgres-store.ts';
import { type Store, sqliteStore } from './core/storage/store.ts';
import { createDbService, type DbOptions, type DbService, dbMigrations } from './db/index.ts';
import {
  createIdentityService,
  createTlsService,
  type IdentityService,
  identityMigrations,
  registerTlsRoutes,
  resolveBrokerSecret,
  resolveKeks,
  startFirstSigningKeys,
  type TlsService,
} from './identity/index.ts';
import { createMailService, type MailOptions, type MailService, mailMigrations } from './mail/index.ts';
import { VERSION } from './version.ts';

export const DEFAULT_UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../ui/dist');

/** Migrations of every domain, in order. */
export const allMigrations = [...coreMigrations, ...dbMigrations, ...identityMigrations, ...mailMigrations];

export interface StartOptions extends ConfigInput {
  /** A JSON or TOML file of settings (`hearth serve --config`); default HEARTH_CONFIG, else none. */
  configFile?: string;
  /** Where log lines go (default: stdout). */
  logDestination?: DestinationStream;
  /** Environment to read settings from (default: the process environment). */
  env?: NodeJS.ProcessEnv;
  /** Outgoing-mail knobs (clock, timers, limits; tests). */
  mail?: MailOptions;
  /** Database-service knobs (tests, benchmarks). */
  db?: DbOptions;
  /** TLS knobs (tests): the internal leaf's lifetime, the retry backoff after a failed renewal. */
  tlsTuning?: { leafLifetimeMs?: number; retryMinMs?: number; retryMaxMs?: number; now?: () => number };
  /** The routing shortcuts, both on by default; bench/routing.bench.ts turns them off to measure what they earn. */
  routing?: { hot?: boolean; prefilter?: boolean };
  /** Backup knobs (tests: the schedule's clock; not an environment setting). */
  backup?: BackupStartOptions;
}

/** What `bootstrap` built: the whole server but its listeners. */
export interface Hearth {
  config: HearthConfig;
  logger: Logger;
  secrets: SecretStore;
  /** The public address, filled in by the listeners (server/boot-listeners.ts). */
  address: MutableAddress;
  /** The core store: platform.db's, or PostgreSQL with HEARTH_DATABASE_URL. */
  store: Store;
  /** platform.db when it holds the core store, else null. */
  sqliteDb: Db | null;
  metrics: Metrics;
  audit: AuditLog;
  tokens: TokenService;
  db: DbService;
  mail: MailService;
  identity: IdentityService;
  api: Api;
  backups: ReturnType<typeof wireBackups>;
  /** The certificate in use, its renewal and the internal CA (mode `off`: no listener uses it). */
  tls: TlsService;
  /** The label of the `.local` name (mDNS, the certificate). */
  lanLabel: string;
  /** Whether a stop has begun (/healthz then answers 503). */
  readonly closing: boolean;
  /** Marks the stop as begun. */
  beginClosing(): void;
  /** Everything opened so far, closed newest first (a failed start and a stop alike). */
  closers: Closers;
}

/**
 * The core store of an installation: the data folder's platform.db, or PostgreSQL when `databaseUrl` is given, with
 * every domain's migrations applied (replicas starting together take turns under an advisory lock; a store written
 * by a newer Hearth is refused). `close()` ends it (and platform.db's file handle).
 */
export async function openCoreStore(opts: {
  dataDir: string;
  databaseUrl?: string | null;
  pool?: number;
  logger?: Logger | null;
}): Promise<{ store: Store; sqliteDb: Db | null; close(): Promise<void> }> {
  if (opts.databaseUrl) {
    const store = postgresStore({ url: opts.databaseUrl, max: opts.pool ?? 2, warn: (message, err) => opts.logger?.warn({ err }, message) });
    try {
      const ran = await migratePostgres(store, allMigrations);
      if (ran.length) opts.logger?.info({ migrations: ran }, 'core store (PostgreSQL) migrated');
    } catch (err) {
      await store.close().catch(() => {});
      throw new Error(`the core store (PostgreSQL) could not be opened: ${(err as Error).message}`, { cause: err });
    }
    return { store, sqliteDb: null, close: () => store.close() };
  }
  const sqliteDb = openPlatformDb(opts.dataDir, allMigrations);
  const store = sqliteStore(sqliteDb);
  return {
    store,
    sqliteDb,
    async close() {
      await store.close();
      sqliteDb.close();
    },
  };
}

/** Opens the core store of an installation for offline CLI commands (`hearth tokens`, `hearth setup`). */
export async function openDataDir(dataDir: string, databaseUrl?: string): Promise<{ store: Store; close(): Promise<void> }> {
  const { store, close } = await openCoreStore({ dataDir, databaseUrl });
  return { store, close };
}

/** Loads the configuration and makes the data folder private before anything in it is opened. */
function prepare(flags: ConfigInput & { configFile?: string }, env: NodeJS.ProcessEnv | undefined, logDestination: DestinationStream | undefined) {
  const config = loadConfig(flags, env ?? processEnvironment());
  const logger = createLogger({ level: config.logLevel, destination: logDestination });
  privateDir(config.dataDir);
  // An existing folder keeps whatever modes it was given: make it private before anything in it is opened.
  const permissions = securePermissions(config.dataDir);
  const listed = (items: string[]) => items.slice(0, 12).join(', ') + (items.length > 12 ? `, and ${items.length - 12} more` : '');
  if (permissions.changed.length) {
    logger.warn(
      { dataDir: config.dataDir, changed: permissions.changed },
      `data folder permissions tightened (only Hearth's user may read it): ${listed(permissions.changed)}`,
    );
  }
  if (permissions.failed.length) {
    logger.warn(
      { dataDir: config.dataDir, failed: permissions.failed },
      `could not make these data folder entries private; fix their owner or permissions: ${listed(permissions.failed)}`,
    );
  }
  return { config, logger };
}

/**
 * Replicas on one PostgreSQL must share APP_SECRET, the key-encryption key and the OAuth broker secret: a replica
 * started with others is refused before it writes anything.
 */
async function checkReplicaSecrets(store: Store, config: HearthConfig, secrets: SecretStore, appSecret: string): Promise<void> {
  const keks = resolveKeks(config, secrets);
  await checkSharedSecrets(store, [
    { variable: 'APP_SECRET', fingerprint: secretFingerprint(appSecret), source: config.appSecret ? 'environment' : 'secret-store' },
    {
      variable: 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY',
      fingerprint: keks.current.id,
      source: keks.source,
      accepts: [keks.next?.id, keks.previous?.id].filter((id): id is string => !!id),
      supersedes: keks.previous?.id ?? null,
    },
    {
      variable: 'HEARTH_OAUTH_BROKER_SECRET',
      fingerprint: secretFingerprint(resolveBrokerSecret(config, secrets)),
      source: config.oauthBrokerSecret ? 'environment' : 'secret-store',
    },
  ]);
}

/** Builds the server but its listeners; a failure closes what was opened and throws. Nothing is started yet. */
export async function bootstrap(options: StartOptions = {}): Promise<Hearth> {
  const { logDestination, env, mail: mailOptions, db: dbOptions, tlsTuning, routing, backup, ...flags } = options;
  const { config, logger } = prepare(flags, env, logDestination);
  const secrets = new SecretStore(config.dataDir);
  const appSecret = resolveAppSecret(secrets, config.appSecret);
  const address = createAddress({ publicUrl: config.publicUrl ?? '', authenticatorOrigin: config.authenticatorOrigin ?? null, listenHost: config.host });
  const closers = new Closers();

  // A new data folder (no platform.db yet) needs a signing key per purpose: their RSA pairs are generated on the
  // thread pool from here on, while the store opens and the services and routes are built, not after all of that.
  const firstKeyPairs = !config.databaseUrl && !fs.existsSync(path.join(config.dataDir, PLATFORM_DB_FILE)) ? startFirstSigningKeys() : undefined;
  const core = await openCoreStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, pool: config.databasePool, logger });
  closers.push('the core store', core.close);
  const { store, sqliteDb } = core;
  if (store.dialect === 'postgres') await checkReplicaSecrets(store, config, secrets, appSecret).catch((err) => closers.abort(err));

  const metrics = createMetrics();
  const audit = createAuditLog(store);
  const tokens = createTokenService(createTokenStore(store), { adminToken: config.adminToken });
  const db = createDbService({
    store,
    audit,
    logger: logger.child({ domain: 'db' }),
    metrics,
    dataDir: config.dataDir,
    maxOpenNamespaces: config.maxOpenNamespaces,
    queryProcesses: config.queryProcesses,
    queryMemoryLimit: config.queryMemoryLimit,
    options: dbOptions,
    node: {
      ...{ id: config.nodeId, healthyMs: config.nodeHealthyMs, version: VERSION, secret: appSecret },
      ...{ connectTimeoutMs: config.nodeConnectTimeoutMs, answerTimeoutMs: config.nodeAnswerTimeoutMs, ca: nodeCa(config.nodeCaFile) },
    },
    uploadLimit: config.uploadLimit,
    uploadMemoryLimit: config.uploadMemoryLimit,
    events: {
      keepaliveMs: config.sseKeepaliveMs,
      retryMs: config.sseRetryMs,
      maxQueueBytes: config.sseMaxQueueBytes,
      bufferEvents: config.sseBufferEvents,
      bufferBytes: config.sseBufferBytes,
    },
  });
  const mail = createMailService({
    store,
    dataDir: config.dataDir,
    appSecret,
    audit,
    tokens,
    logger: logger.child({ domain: 'mail' }),
    options: mailOptions,
  });
  const identity = createIdentityService({
    store,
    secrets,
    audit,
    logger: logger.child({ domain: 'identity' }),
    secretsConfig: config,
    address,
    geoip: { cityDb: config.geoipCityDb, asnDb: config.geoipAsnDb },
    jwksOrigins: { identity: config.identityJwksOrigin, oauth: config.oauthJwksOrigin },
    // Identity sends password-reset and sign-in links, notices and announcements as Hearth's own mail.
    mailer: { sendAsCore: (m) => mail.sendAsCore(m), notify: (m) => mail.notify(m), notifyBatch: (b) => mail.notifyBatch(b) },
    firstKeyPairs,
  });
  // Closed after mail and the database service, which may still write through identity's store while they stop.
  closers.push('identity', () => identity.close());
  closers.push('the database service', () => db.close());
  closers.push('outgoing mail', () => mail.close());

  // TLS: the certificate covers the --tls-name names, the `.local` name, localhost and every listening address.
  const label = lanLabel(config.mdnsName);
  const lanName = `${label}.local`;
  const tls = createTlsService({
    mode: config.tls,
    dataDir: config.dataDir,
    kekSettings: config,
    secrets,
    logger: logger.child({ part: 'tls' }),
    names: () =>
      config.tls === 'acme' ? config.tlsNames : [...new Set([...config.tlsNames, lanName, 'localhost', ...listeningAddresses(address.listenHost)])],
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    acme: { directory: config.acmeDirectory, email: config.acmeEmail, dnsHook: config.acmeDnsHook, caFile: config.acmeCaFile },
    hsts: config.hsts,
    ...tlsTuning,
  });
  closers.push('TLS', () => tls.close());

  let closing = false;
  const api = new Api({
    authenticate: createAuthenticator(tokens, identity.authenticateSession, identity.authenticateAccessToken),
    jsonBodyLimit: config.jsonBodyLimit,
    prefilter: routing?.prefilter,
  });
  const backups = wireBackups({
    config,
    metrics,
    logger,
    db,
    identity,
    mail,
    backup,
    version: VERSION,
    tokenFile: INITIAL_TOKEN_FILE,
    coreStore: store.dialect,
  });
  closers.push('backups', () => backups.close());
  registerCoreRoutes(api, {
    store,
    metrics,
    tokens,
    audit,
    version: VERSION,
    startedAt: Date.now(),
    counts: () => ({ count: db.namespaces.count(), open: db.namespaces.handles.size }),
    nodes: () => db.nodes(),
    isClosing: () => closing,
    readiness: () => ({ identity_keys: identity.readiness() }),
    tls: () => {
      const st = tls.status();
      return {
        mode: st.mode,
        public_url: address.publicUrl,
        ca_fingerprint_sha256: st.ca?.fingerprintSha256 ?? null,
        certificate_fingerprint_sha256: st.certificate?.fingerprintSha256 ?? null,
        certificate_not_after: st.certificate?.notAfter ?? null,
        last_error: st.lastError?.message ?? null,
      };
    },
    backup: () => backups.health(),
    dataFolders: { 'data folder': config.dataDir, 'namespaces folder': db.namespaces.dir },
  });
  db.registerRoutes(api);
  identity.registerRoutes(api);
  mail.registerRoutes(api);
  registerBackupRoutes(api, { backups, audit });
  let openapi: unknown = null;
  api.route({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'openapi',
    tags: ['Operations'],
    access: 'public',
    summary: 'This OpenAPI document',
    responses: { 200: { description: 'OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) } },
    handler: (ctx) => {
      ctx.set('Cache-Control', 'no-cache');
      openapi ??= api.document({ version: VERSION });
      return openapi;
    },
  });
  registerTlsRoutes(api, tls, { publicUrl: () => address.publicUrl, audit });

  return {
    ...{ config, logger, secrets, address, store, sqliteDb, metrics, audit, tokens, db, mail, identity, api, backups, tls, closers },
    lanLabel: label,
    get closing() {
      return closing;
    },
    beginClosing() {
      closing = true;
    },
  };
}
