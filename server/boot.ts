/**
 * The one boot: `startServer` is how Hearth starts, for `hearth serve`, the Electron utility process, the tests and
 * the benchmarks. In order: configuration and the private data folder, the platform database, the domains (db, mail,
 * identity, each through its index.ts), the `Api` with every route, the TLS service, the HTTP handler (hot routes,
 * then the Koa app), the listeners (server/boot-listeners.ts), platform.db's checkpointer thread, mDNS; then the
 * running server's `rebind` and `close`, which stop everything in the reverse order. A start that fails half-way closes
 * what it opened before throwing. What only some paths need loads on first use (core/lazy.ts), and background threads
 * start after the listener is up, so a start spends its time on answering the first request.
 */

import fs from 'node:fs';
import http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DestinationStream } from 'pino';
import { z } from 'zod';
import { buildApp } from './app.ts';
import { type BackupStartOptions, wireBackups } from './boot-backup.ts';
import { authenticatorSiteUrl, describe, KEEP_ALIVE_MS, listen, listeningAddresses, plainHandler } from './boot-listeners.ts';
import { ensureInitialAdminToken, INITIAL_TOKEN_FILE } from './boot-token.ts';
import { createAuditLog } from './core/audit/audit.ts';
import { createAuthenticator } from './core/auth/auth.ts';
import { createTokenService, type TokenService } from './core/auth/tokens.service.ts';
import { createTokenStore } from './core/auth/tokens.store.ts';
import { type ConfigInput, type HearthConfig, loadConfig } from './core/config/config.ts';
import { processEnvironment } from './core/config/environment.ts';
import { registerCoreRoutes } from './core/core.routes.ts';
import { Api } from './core/http/api.ts';
import { authenticatorSite } from './core/http/authenticator-site.ts';
import type { AppContext, HotContext } from './core/http/context.ts';
import { hotDispatcher } from './core/http/hot.ts';
import { createLogger, type Logger } from './core/logging/logger.ts';
import { createMetrics } from './core/metrics/metrics.ts';
import { nodeCa } from './core/net/forward.ts';
import type { MdnsAdvertisement } from './core/net/mdns.ts';
import { isLoopback, lanLabel } from './core/net/names.ts';
import { bundledUiDir } from './core/runtime.ts';
import { checkSharedSecrets, resolveAppSecret, SecretStore, secretFingerprint } from './core/secrets/secrets.ts';
import { privateDir, securePermissions } from './core/storage/data-dir.ts';
import { coreMigrations, type Db, openPlatformDb, PLATFORM_DB_FILE, startCheckpointer } from './core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from './core/storage/postgres-store.ts';
import { recordServerPid } from './core/storage/server-pid.ts';
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

export { INITIAL_TOKEN_FILE, VERSION };
export const DEFAULT_UI_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../ui/dist');

export interface StartOptions extends ConfigInput {
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

export interface RunningServer {
  /** The listening address as a URL reachable from this machine (`https://127.0.0.1:…` with TLS). */
  url: string;
  /** The one public address: HEARTH_PUBLIC_URL, else with TLS `https://<first --tls-name|<host>.local|localhost>:<port>`, else `url`. */
  publicUrl: string;
  /** The plain listener that answers 308 to the https address (and ACME HTTP-01 challenges), or null. */
  redirectUrl: string | null;
  /** The certificate in use, its renewal and the internal CA (mode `off`: no listener uses it). */
  tls: TlsService;
  host: string;
  port: number;
  /**
   * Where the reference authenticator web app is served (the `authenticatorPort` listener, same host), e.g.
   * `http://localhost:40123`; null when that listener is off.
   */
  authenticatorUrl: string | null;
  config: HearthConfig;
  logger: Logger;
  /** Path of the file holding the first admin token, when Hearth created one. */
  initialTokenFile: string | null;
  services: {
    db: DbService;
    identity: IdentityService;
    mail: MailService;
    tokens: TokenService;
    platformDb: Db;
    /** The core store (platform.db's, or PostgreSQL with HEARTH_DATABASE_URL). */
    store: Store;
  };
  /**
   * Moves the HTTP listener to another address (the desktop's "Share on the local network") without touching the
   * databases. Connections to the old address get a short grace to finish, then are closed. On failure the server
   * keeps (or gets back) its old address and the error says why. Updates `url`, `host`, `port` and `publicUrl`.
   * `tls` switches between plain HTTP and Hearth's own CA on the way (the desktop shares on the LAN over HTTPS).
   */
  rebind(host: string, port: number | string, opts?: { tls?: 'off' | 'internal' }): Promise<{ url: string; host: string; port: number; publicUrl: string }>;
  close(): Promise<void>;
}

/** How long connections to an address the server has just left may finish what they are doing. */
const REBIND_GRACE_MS = 2000;

/** Migrations of every domain, in order. */
export const allMigrations = [...coreMigrations, ...dbMigrations, ...identityMigrations, ...mailMigrations];

/**
 * Opens the core store of an installation for offline CLI commands (`hearth tokens`, `hearth setup`): the data
 * folder's platform.db, or PostgreSQL when `databaseUrl` is given (as the server would: migrations applied, a newer
 * store refused). `close()` ends it.
 */
export async function openDataDir(dataDir: string, databaseUrl?: string): Promise<{ store: Store; close(): Promise<void> }> {
  if (databaseUrl) {
    const store = await openPostgres(databaseUrl, 2, null);
    return { store, close: () => store.close() };
  }
  const db = openPlatformDb(dataDir, allMigrations);
  const store = sqliteStore(db);
  return {
    store,
    async close() {
      await store.close();
      db.close();
    },
  };
}

/**
 * The core store on PostgreSQL: the pool, and every domain's migrations applied (replicas starting together take
 * turns under an advisory lock; a database written by a newer Hearth is refused).
 */
async function openPostgres(url: string, max: number, logger: Logger | null): Promise<Store> {
  const store = postgresStore({ url, max, warn: (message, err) => logger?.warn({ err }, message) });
  try {
    const ran = await migratePostgres(store, allMigrations);
    if (ran.length) logger?.info({ migrations: ran }, 'core store (PostgreSQL) migrated');
    return store;
  } catch (err) {
    await store.close().catch(() => {});
    throw new Error(`the core store (PostgreSQL) could not be opened: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * `services.platformDb` when the core store is PostgreSQL: there is no platform.db, and code that reaches for it
 * (a test written for SQLite) is told so instead of opening one.
 */
function notOpened(): Db {
  return new Proxy({} as Db, {
    get(_, prop) {
      if (prop === 'then') return undefined;
      throw new Error(`platform.db is not open: the core store is PostgreSQL (HEARTH_DATABASE_URL); use services.store (reached for .${String(prop)})`);
    },
  });
}

/** The one boot function: used by `hearth serve`, the Electron utility process and the tests. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const { logDestination, env, mail: mailOptions, db: dbOptions, tlsTuning, routing, backup, ...flags } = options;
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
  const secrets = new SecretStore(config.dataDir);
  const appSecret = resolveAppSecret(secrets, config.appSecret);
  let publicUrl = '';
  /**
   * The effective authenticator origin (CORS on the approval device channel, `/info.appOrigin`):
   * HEARTH_AUTHENTICATOR_ORIGIN, or null. The optional authenticator web-app listener may set it after binding.
   */
  let authenticatorOrigin: string | null = config.authenticatorOrigin ?? null;

  // A new data folder (no platform.db yet) needs a signing key per purpose: their RSA pairs are generated on the
  // thread pool from here on, while the store opens and the services and routes are built, not after all of that.
  const firstKeyPairs = !config.databaseUrl && !fs.existsSync(path.join(config.dataDir, PLATFORM_DB_FILE)) ? startFirstSigningKeys() : undefined;
  // platform.db holds the core store unless PostgreSQL does (then it is neither opened nor created).
  const sqliteDb = config.databaseUrl ? null : openPlatformDb(config.dataDir, allMigrations);
  const platformDb = sqliteDb ?? notOpened();
  /** platform.db's checkpointer thread: started once the listener is up (commits checkpoint themselves until then). */
  let checkpointer: { close(): Promise<void> } | null = null;
  const metrics = createMetrics();
  // The core store: platform.db, or PostgreSQL shared by the replicas (HEARTH_DATABASE_URL).
  const store = sqliteDb ? sqliteStore(sqliteDb) : await openPostgres(config.databaseUrl!, config.databasePool, logger);
  if (store.dialect === 'postgres') {
    try {
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
    } catch (err) {
      await store.close();
      sqliteDb?.close();
      throw err;
    }
  }
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
    issuer: () => publicUrl,
    authenticatorOrigin: () => authenticatorOrigin,
    geoip: { cityDb: config.geoipCityDb, asnDb: config.geoipAsnDb },
    jwksOrigins: { identity: config.identityJwksOrigin, oauth: config.oauthJwksOrigin },
    // Identity sends password-reset and sign-in links, notices and announcements as Hearth's own mail.
    mailer: { sendAsCore: (m) => mail.sendAsCore(m), notify: (m) => mail.notify(m), notifyBatch: (b) => mail.notifyBatch(b) },
    firstKeyPairs,
  });

  let closing = false;
  const startedAt = Date.now();
  const api = new Api({
    authenticate: createAuthenticator(tokens, identity.authenticateSession, identity.authenticateAccessToken),
    jsonBodyLimit: config.jsonBodyLimit,
    prefilter: routing?.prefilter,
  });
  registerCoreRoutes(api, {
    store,
    metrics,
    tokens,
    audit,
    version: VERSION,
    startedAt,
    counts: () => ({ count: db.namespaces.count(), open: db.namespaces.handles.size }),
    nodes: () => db.nodes(),
    isClosing: () => closing,
    readiness: () => ({ identity_keys: identity.readiness() }),
    tls: () => {
      const st = tls.status();
      return {
        mode: st.mode,
        public_url: publicUrl,
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
  const backups = wireBackups({
    config,
    api,
    audit,
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

  const initialTokenFile = await ensureInitialAdminToken(config, tokens);
  try {
    await identity.start();
  } catch (err) {
    await db.close();
    await store.close();
    sqliteDb?.close();
    throw err;
  }
  await db.start();
  await mail.start();
  backups.start();
  const releasePid = recordServerPid(config.dataDir);

  // TLS: the certificate covers the --tls-name names, the `.local` name, localhost and every listening address.
  const label = lanLabel(config.mdnsName);
  const lanName = `${label}.local`;
  let listenHost = config.host;
  const publicHost = () => config.tlsNames[0] ?? (isLoopback(listenHost) ? 'localhost' : lanName);
  const tls = createTlsService({
    mode: config.tls,
    dataDir: config.dataDir,
    kekSettings: config,
    secrets,
    logger: logger.child({ part: 'tls' }),
    names: () => (config.tls === 'acme' ? config.tlsNames : [...new Set([...config.tlsNames, lanName, 'localhost', ...listeningAddresses(listenHost)])]),
    certFile: config.tlsCert,
    keyFile: config.tlsKey,
    acme: { directory: config.acmeDirectory, email: config.acmeEmail, dnsHook: config.acmeDnsHook, caFile: config.acmeCaFile },
    hsts: config.hsts,
    ...tlsTuning,
  });
  registerTlsRoutes(api, tls, { publicUrl: () => publicUrl, audit });

  const uiDir = config.uiDir ?? bundledUiDir() ?? DEFAULT_UI_DIR;
  const onFinished = (ctx: AppContext | HotContext, seconds: number) => db.observeRequest(ctx, seconds);
  const app = buildApp({ api, logger, metrics, uiDir, onFinished, forwarding: db.forwarding });
  // Hot routes (the OAuth token endpoint, one row by id) are answered before Koa; everything else goes to the Koa app.
  const callback =
    routing?.hot === false ? app.callback() : hotDispatcher(api.hot, { logger, metrics, authenticate: api.authenticate, onFinished }, app.callback());
  const hsts = tls.hstsHeader();
  // Every answer of the main listener (API, OAuth pages, the UI, errors, hot routes) is sent as the type it declares.
  const handler: http.RequestListener = hsts
    ? (req, res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Strict-Transport-Security', hsts);
        callback(req, res);
      }
    : (req, res) => {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        callback(req, res);
      };
  const newListener = (): http.Server | https.Server =>
    tls.enabled
      ? tls.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, handler, () => publicUrl)
      : http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, handler);
  /** A start that fails after the services started: close them (and a listener already bound) before throwing. */
  const abortStart = async (err: unknown, bound: http.Server[]): Promise<never> => {
    for (const l of bound) await new Promise<void>((resolve) => l.close(() => resolve()));
    await backups.close();
    releasePid();
    await tls.close();
    await mail.close();
    await db.close();
    await identity.close();
    await store.close();
    sqliteDb?.close();
    throw err;
  };

  // The optional second listener: the reference authenticator web app on its own origin (never the admin UI or API).
  // It binds first, so the approval protocol is enabled from the main listener's first request.
  // The plain listener: 308 to the https address, and ACME HTTP-01 challenges. It binds before the first ACME order.
  let plainServer: http.Server | null = null;
  const plainPort = config.tls === 'off' ? undefined : config.tls === 'acme' && !config.acmeDnsHook ? config.acmeHttpPort : config.httpRedirectPort;
  if (plainPort !== undefined) {
    if (config.tls === 'acme' && config.httpRedirectPort !== undefined && config.httpRedirectPort !== plainPort) {
      await abortStart(
        new Error(`--http-redirect-port ${config.httpRedirectPort} and --acme-http-port ${plainPort} must be the same port: one plain listener answers both`),
        [],
      );
    }
    plainServer = http.createServer(
      { keepAliveTimeout: KEEP_ALIVE_MS },
      plainHandler(tls, () => publicUrl),
    );
    await listen(plainServer, plainPort, config.host).catch((err) => abortStart(err, []));
  }
  const started = plainServer ? [plainServer] : [];
  await tls.start().catch((err) => abortStart(err, started));

  let authenticatorServer: http.Server | null = null;
  let authenticatorUrl: string | null = null;
  if (config.authenticatorPort !== undefined) {
    const siteHandler = authenticatorSite(path.join(uiDir, 'authenticator'));
    const site = tls.enabled
      ? tls.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, siteHandler)
      : http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, siteHandler);
    await listen(site, config.authenticatorPort, config.host).catch((err) => abortStart(err, started));
    authenticatorServer = site;
    started.push(site);
    authenticatorUrl = tls.enabled ? `https://${publicHost()}:${(site.address() as AddressInfo).port}` : authenticatorSiteUrl(site);
    // Without HEARTH_AUTHENTICATOR_ORIGIN the app served here is the authenticator the instance trusts.
    authenticatorOrigin ??= authenticatorUrl;
  }

  let server = newListener();
  /** Listeners the server has moved away from whose connections are still finishing. */
  const leaving = new Set<Promise<void>>();
  await listen(server, config.port, config.host).catch((err) => abortStart(err, started));
  // The checkpointer is SQLite's: on PostgreSQL the server does its own.
  if (sqliteDb) checkpointer = startCheckpointer(sqliteDb);
  let address = describe(server, tls.enabled);
  // The public address is a name, never an IP: WebAuthn refuses IP addresses, and `localhost` is a secure context.
  const derivePublicUrl = () => {
    if (config.publicUrl) return config.publicUrl;
    const scheme = tls.enabled ? 'https' : 'http';
    const port = address.port === (tls.enabled ? 443 : 80) ? '' : `:${address.port}`;
    return `${scheme}://${publicHost()}${port}`;
  };
  publicUrl = derivePublicUrl();
  void db.setNodeUrl(config.nodeUrl ?? address.url);
  const plain = plainServer ? describe(plainServer, false) : null;
  logger.info(
    { url: address.url, publicUrl, tls: config.tls, caFingerprint: tls.status().ca?.fingerprintSha256, dataDir: config.dataDir, version: VERSION },
    'hearth listening',
  );
  // mDNS: on by default when reachable beyond loopback (and following the listener when the desktop moves it).
  let mdns: MdnsAdvertisement | null = null;
  const updateMdns = async () => {
    const want = config.mdns ?? !isLoopback(address.host);
    if (mdns && !want) {
      await mdns.close();
      mdns = null;
    }
    if (want && !mdns) {
      // The mDNS library loads only when the server announces itself (beyond loopback, or --mdns).
      const { advertise } = await import('./core/net/mdns.ts');
      mdns = advertise({
        name: label,
        port: address.port,
        secure: tls.enabled,
        redirectPort: plain?.port ?? null,
        version: VERSION,
        logger: logger.child({ part: 'mdns' }),
      });
    }
  };
  if (config.mdns === true && isLoopback(config.host))
    logger.warn('mDNS is on but Hearth listens on loopback only: other devices cannot reach the announced name');
  await updateMdns();
  if (!tls.enabled && !isLoopback(config.host)) {
    logger.warn(
      { host: config.host },
      `listening on ${config.host} without TLS: passwords, tokens and session cookies cross the network in clear text, and passkeys and the phone authenticator do not work from other devices; start with --tls internal (see docs/operations/network.md)`,
    );
  }
  if (authenticatorUrl) logger.info({ url: authenticatorUrl, appOrigin: authenticatorOrigin }, 'authenticator web app listening');

  let closed: Promise<void> | null = null;
  const running: RunningServer = {
    url: address.url,
    publicUrl,
    redirectUrl: plain?.url ?? null,
    tls,
    host: address.host,
    port: address.port,
    authenticatorUrl,
    config,
    logger,
    initialTokenFile,
    services: { db, identity, mail, tokens, platformDb, store },
    async rebind(host, port, opts = {}) {
      if (closed) throw new Error('the server is shutting down');
      const wanted = z.coerce.number().int().min(0).max(65535).parse(port);
      const old = server;
      // The certificate must cover the new address before anyone reaches it there.
      const before = listenHost;
      const tlsBefore = tls.mode;
      listenHost = host;
      try {
        if (opts.tls && opts.tls !== tls.mode) await tls.setMode(opts.tls);
        else await tls.refreshNames();
      } catch (err) {
        listenHost = before;
        throw err;
      }
      const restoreTls = async () => {
        if (tls.mode !== tlsBefore) await tls.setMode(tlsBefore as 'off' | 'internal');
      };
      const next = newListener();
      try {
        await listen(next, wanted, host);
      } catch (err) {
        // The same port on another interface conflicts with our own listener (127.0.0.1:8787 → 0.0.0.0:8787):
        // release it first, and take the old address back if the new one still fails.
        if ((err as { code?: string }).code !== 'address_in_use' || wanted !== address.port) {
          listenHost = before;
          await restoreTls();
          throw err;
        }
        await new Promise<void>((resolve) => old.close(() => resolve()).closeAllConnections());
        try {
          await listen(next, wanted, host);
        } catch (again) {
          listenHost = before;
          await restoreTls();
          server = newListener();
          await listen(server, address.port, address.host);
          throw again;
        }
      }
      server = next;
      if (old.listening) {
        const gone = new Promise<void>((resolve) => old.close(() => resolve()));
        old.closeIdleConnections();
        const timer = setTimeout(() => old.closeAllConnections(), Math.min(REBIND_GRACE_MS, config.shutdownTimeoutMs));
        const done = gone.then(() => clearTimeout(timer));
        leaving.add(done);
        void done.then(() => leaving.delete(done));
      }
      address = describe(server, tls.enabled);
      publicUrl = derivePublicUrl();
      Object.assign(running, address, { publicUrl });
      if (!config.nodeUrl) void db.setNodeUrl(address.url);
      await updateMdns().catch((err) => logger.warn({ err: (err as Error).message }, 'mDNS: could not follow the new address'));
      logger.info({ url: address.url, host: address.host, port: address.port, publicUrl, tls: tls.mode }, 'hearth listening on a new address');
      return { ...address, publicUrl };
    },
    close() {
      closed ??= (async () => {
        closing = true;
        db.closeStreams();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const others = [authenticatorServer, plainServer].filter((s): s is http.Server => s !== null);
        const othersStopped = others.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
        for (const s of others) s.closeIdleConnections();
        const timer = setTimeout(() => {
          server.closeAllConnections();
          for (const s of others) s.closeAllConnections();
        }, config.shutdownTimeoutMs);
        await Promise.all([stopped, ...othersStopped, ...leaving, backups.close()]);
        clearTimeout(timer);
        await tls.close();
        await mdns?.close();
        await mail.close();
        await db.close();
        await identity.close();
        await checkpointer?.close();
        await store.close();
        sqliteDb?.close();
        releasePid();
        logger.info('hearth stopped');
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      })();
      return closed;
    },
  };
  return running;
}
