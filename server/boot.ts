/**
 * The one boot: `startServer` is how Hearth starts, for `hearth serve`, the Electron utility process, the tests and
 * the benchmarks. Two parts, as PocketBase's `Bootstrap()` and `apis.Serve()`: `bootstrap` (server/bootstrap.ts)
 * builds everything but the listeners (configuration, data folder, core store, domains, the API, backups, TLS);
 * then the domains start, the HTTP handler is made (hot routes, then the Koa app), and the listeners bind
 * (server/boot-listeners.ts). Everything opened is on one stack of closers: a start that fails half-way and a stop
 * close it in the same reverse order. What only some paths need loads on first use (core/lazy.ts), and background
 * threads start after the listener is up, so a start spends its time on answering the first request.
 */

import type http from 'node:http';
import { buildApp } from './app.ts';
import { type Listeners, startListeners } from './boot-listeners.ts';
import { ensureInitialAdminToken, INITIAL_TOKEN_FILE } from './boot-token.ts';
import { bootstrap, DEFAULT_UI_DIR, type StartOptions } from './bootstrap.ts';
import type { TokenService } from './core/auth/tokens.service.ts';
import type { HearthConfig } from './core/config/config.ts';
import type { AppContext, HotContext } from './core/http/app-context.ts';
import { hotDispatcher } from './core/http/hot.ts';
import type { Logger } from './core/logging/logger.ts';
import { bundledUiDir } from './core/runtime.ts';
import { type Db, startCheckpointer } from './core/storage/platform-db.ts';
import { recordServerPid } from './core/storage/server-pid.ts';
import type { Store } from './core/storage/store.ts';
import type { DbService } from './db/index.ts';
import type { IdentityService, TlsService } from './identity/index.ts';
import type { MailService } from './mail/index.ts';
import { VERSION } from './version.ts';

export { allMigrations, DEFAULT_UI_DIR, openDataDir, type StartOptions } from './bootstrap.ts';
export { INITIAL_TOKEN_FILE, VERSION };

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
  const hearth = await bootstrap(options);
  const { config, logger, closers, db, identity, mail, backups, tls, api, metrics, sqliteDb } = hearth;
  const initialTokenFile = await ensureInitialAdminToken(config, hearth.tokens).catch((err) => closers.abort(err));
  await identity.start().catch((err) => closers.abort(err));
  await db.start().catch((err) => closers.abort(err));
  await mail.start().catch((err) => closers.abort(err));
  backups.start();
  closers.push('the server pid file', recordServerPid(config.dataDir));

  const uiDir = config.uiDir ?? bundledUiDir() ?? DEFAULT_UI_DIR;
  const onFinished = (ctx: AppContext | HotContext, seconds: number) => db.observeRequest(ctx, seconds);
  const app = buildApp({ api, logger, metrics, uiDir, onFinished, forwarding: db.forwarding });
  // Hot routes (the OAuth token endpoint, one row by id) are answered before Koa; everything else goes to the Koa app.
  const callback =
    options.routing?.hot === false ? app.callback() : hotDispatcher(api.hot, { logger, metrics, authenticate: api.authenticate, onFinished }, app.callback());
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

  const listeners: Listeners = await startListeners({
    ...{ config, logger, tls, address: hearth.address, lanLabel: hearth.lanLabel, handler, uiDir, version: VERSION },
    onBound: (url) => void db.setNodeUrl(config.nodeUrl ?? url),
  }).catch((err) => closers.abort(err));
  // A stop first refuses new work (/healthz answers 503, event streams end), then waits for the listeners'
  // connections and cancels a running backup at the same time (a backup request ends when it is cancelled).
  closers.push('the listeners', async () => {
    hearth.beginClosing();
    db.closeStreams();
    await Promise.all([listeners.close(), backups.close()]);
  });
  // The checkpointer is SQLite's (on PostgreSQL the server does its own); it runs while the listener is up: before
  // and after (a stop ends it first), commits checkpoint themselves.
  const checkpointer = sqliteDb ? startCheckpointer(sqliteDb) : null;
  if (checkpointer) closers.push('the checkpointer', () => checkpointer.close());

  let closed: Promise<void> | null = null;
  const running: RunningServer = {
    get url() {
      return listeners.url;
    },
    get host() {
      return listeners.host;
    },
    get port() {
      return listeners.port;
    },
    get publicUrl() {
      return hearth.address.publicUrl;
    },
    redirectUrl: listeners.redirectUrl,
    tls,
    authenticatorUrl: listeners.authenticatorUrl,
    config,
    logger,
    initialTokenFile,
    services: { db, identity, mail, tokens: hearth.tokens, platformDb: sqliteDb ?? notOpened(), store: hearth.store },
    rebind: (host, port, opts) => listeners.rebind(host, port, opts),
    close() {
      closed ??= (async () => {
        await closers.closeAll();
        logger.info('hearth stopped');
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      })();
      return closed;
    },
  };
  return running;
}
