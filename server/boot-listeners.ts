/**
 * The listeners of the boot (server/boot.ts), the second part of a start after server/bootstrap.ts: the plain
 * listener beside TLS (ACME HTTP-01 challenges and 308 to HTTPS), the TLS service's start, the reference
 * authenticator web app's listener, the main listener, the mDNS announcement, and the desktop's `rebind`. They fill in
 * the server's `Address` (public URL, authenticator origin, bound host) once bound and again when moved. A start that
 * fails closes the listeners it bound before throwing; `close` stops them all.
 */
import http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { HearthConfig } from './core/config/config.ts';
import { authenticatorSite } from './core/http/authenticator-site.ts';
import type { Logger } from './core/logging/logger.ts';
import type { MutableAddress } from './core/net/address.ts';
import type { MdnsAdvertisement } from './core/net/mdns.ts';
import { isLoopback } from './core/net/names.ts';
import type { TlsService } from './identity/index.ts';

/**
 * How long an idle keep-alive connection stays open (nginx keeps 75 s). Node's 5 s default makes clients that keep
 * their sockets longer (and do not read the Keep-Alive header) send a request on a socket the server is just closing:
 * ECONNRESET. Over TLS a new connection also costs a handshake. A shutdown still closes idle connections at once.
 */
export const KEEP_ALIVE_MS = 60_000;

/** Starts `server` listening; address errors become one-line messages (`code: 'address_in_use'` when taken). */
export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'EADDRINUSE') throw Object.assign(new Error(`cannot listen on ${host}:${port}: the address is in use`), { code: 'address_in_use' });
    if (err.code === 'EADDRNOTAVAIL')
      throw Object.assign(new Error(`cannot listen on ${host}:${port}: no such address on this machine`), { code: 'address_not_available' });
    if (err.code === 'EACCES') {
      throw Object.assign(
        new Error(
          `cannot listen on ${host}:${port}: permission denied (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability, e.g. AmbientCapabilities=CAP_NET_BIND_SERVICE in the systemd unit)`,
        ),
        { code: 'address_not_permitted' },
      );
    }
    throw err;
  });
}

/** The listening address, and the URL to reach it from this machine (a wildcard address is reached on loopback). */
export function describe(server: http.Server, secure: boolean): { url: string; host: string; port: number } {
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${secure ? 'https' : 'http'}://${urlHost === '0.0.0.0' ? '127.0.0.1' : urlHost === '[::]' ? '[::1]' : urlHost}:${address.port}`;
  return { url, host: address.address, port: address.port };
}

/**
 * The addresses a listener on `host` is reached at, for the certificate: the host itself, or on a wildcard address
 * loopback and every interface address (IPv6 link-local addresses are left out: they need a zone, which no URL
 * in a browser carries).
 */
export function listeningAddresses(host: string): string[] {
  if (host !== '0.0.0.0' && host !== '::') return [host];
  const found = ['127.0.0.1', '::1'];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) {
      if (host === '0.0.0.0' && info.family !== 'IPv4') continue;
      if (info.family === 'IPv6' && info.address.toLowerCase().startsWith('fe80')) continue;
      found.push(info.address);
    }
  }
  return [...new Set(found)].filter((a) => net.isIP(a));
}

/**
 * The plain listener next to TLS: ACME HTTP-01 challenges (`/.well-known/acme-challenge/<token>`), and 308 to the
 * same path at the https public address for everything else. Never serves the API or the UI in clear text.
 */
export function plainHandler(tls: TlsService, publicUrl: () => string): http.RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const m = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]+)$/.exec(url.split('?')[0]!);
    if (m && (req.method === 'GET' || req.method === 'HEAD')) {
      const answer = tls.challenge(m[1]!);
      res.writeHead(answer ? 200 : 404, { 'content-type': 'text/plain', 'x-content-type-options': 'nosniff' });
      res.end(req.method === 'HEAD' ? undefined : (answer ?? 'no such challenge'));
      return;
    }
    const target = publicUrl() + (url.startsWith('/') ? url : '/');
    res.writeHead(308, { location: target, 'content-type': 'text/plain', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
    res.end(`This server answers over HTTPS: ${target}\n`);
  };
}

/**
 * The origin of the authenticator listener. A loopback or wildcard address is reached as `localhost` (a host name:
 * WebAuthn, which the app's passkey lock needs, refuses IP addresses, and `localhost` is a secure context over HTTP);
 * any other address as itself (set HEARTH_AUTHENTICATOR_ORIGIN to the name phones use, behind HTTPS).
 */
export function authenticatorSiteUrl(server: http.Server): string {
  const a = server.address() as AddressInfo;
  const loopback = a.address === '0.0.0.0' || a.address === '::' || isLoopback(a.address);
  const host = loopback ? 'localhost' : a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return `http://${host}:${a.port}`;
}

/** How long connections to an address the server has just left may finish what they are doing. */
const REBIND_GRACE_MS = 2000;

export interface Listeners {
  /** The main listener's address as a URL reachable from this machine (`https://127.0.0.1:…` with TLS). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The plain listener that answers 308 to the https address (and ACME HTTP-01 challenges), or null. */
  readonly redirectUrl: string | null;
  /** Where the reference authenticator web app is served, or null when that listener is off. */
  readonly authenticatorUrl: string | null;
  /** Moves the main listener (server/boot.ts `RunningServer.rebind`). */
  rebind(host: string, port: number | string, opts?: { tls?: 'off' | 'internal' }): Promise<{ url: string; host: string; port: number; publicUrl: string }>;
  /** Stops every listener: idle connections at once, the others after `shutdownTimeoutMs`; ends the mDNS announcement. */
  close(): Promise<void>;
}

const closeServer = (s: http.Server) => new Promise<void>((resolve) => s.close(() => resolve()));

/**
 * Binds the listeners in their order: the plain one (before the first ACME order), then the TLS service starts,
 * then the authenticator app's (so the approval protocol knows its origin from the main listener's first request),
 * then the main one; then the public address is known and mDNS announces it.
 */
export async function startListeners(deps: {
  config: HearthConfig;
  logger: Logger;
  tls: TlsService;
  address: MutableAddress;
  /** The label of the `.local` name. */
  lanLabel: string;
  /** The main listener's handler (API, OAuth pages, the UI). */
  handler: http.RequestListener;
  /** The built UI (its `authenticator/` folder is the authenticator web app). */
  uiDir: string;
  version: string;
  /** Called with the main listener's URL once it is bound, and after each move. */
  onBound(url: string): void;
}): Promise<Listeners> {
  const { config, logger, tls, address } = deps;
  const lanName = `${deps.lanLabel}.local`;
  const publicHost = () => config.tlsNames[0] ?? (isLoopback(address.listenHost) ? 'localhost' : lanName);
  const newListener = (): http.Server | https.Server =>
    tls.enabled
      ? tls.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, deps.handler, () => address.publicUrl)
      : http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, deps.handler);
  const bound: http.Server[] = [];
  const abort = async (err: unknown): Promise<never> => {
    for (const s of bound) await closeServer(s);
    throw err;
  };

  // The plain listener: 308 to the https address, and ACME HTTP-01 challenges. It binds before the first ACME order.
  let plainServer: http.Server | null = null;
  const plainPort = config.tls === 'off' ? undefined : config.tls === 'acme' && !config.acmeDnsHook ? config.acmeHttpPort : config.httpRedirectPort;
  if (plainPort !== undefined) {
    if (config.tls === 'acme' && config.httpRedirectPort !== undefined && config.httpRedirectPort !== plainPort) {
      throw new Error(
        `--http-redirect-port ${config.httpRedirectPort} and --acme-http-port ${plainPort} must be the same port: one plain listener answers both`,
      );
    }
    plainServer = http.createServer(
      { keepAliveTimeout: KEEP_ALIVE_MS },
      plainHandler(tls, () => address.publicUrl),
    );
    await listen(plainServer, plainPort, config.host);
    bound.push(plainServer);
  }
  await tls.start().catch(abort);

  // The optional second listener: the reference authenticator web app on its own origin (never the admin UI or API).
  let authenticatorServer: http.Server | null = null;
  let authenticatorUrl: string | null = null;
  if (config.authenticatorPort !== undefined) {
    const siteHandler = authenticatorSite(path.join(deps.uiDir, 'authenticator'));
    const site = tls.enabled
      ? tls.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, siteHandler)
      : http.createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, siteHandler);
    await listen(site, config.authenticatorPort, config.host).catch(abort);
    authenticatorServer = site;
    bound.push(site);
    authenticatorUrl = tls.enabled ? `https://${publicHost()}:${(site.address() as AddressInfo).port}` : authenticatorSiteUrl(site);
    // Without HEARTH_AUTHENTICATOR_ORIGIN the app served here is the authenticator the instance trusts.
    if (address.authenticatorOrigin === null) address.set({ authenticatorOrigin: authenticatorUrl });
  }

  let server = newListener();
  /** Listeners the server has moved away from whose connections are still finishing. */
  const leaving = new Set<Promise<void>>();
  await listen(server, config.port, config.host).catch(abort);
  bound.push(server);
  let current = describe(server, tls.enabled);
  // The public address is a name, never an IP: WebAuthn refuses IP addresses, and `localhost` is a secure context.
  const derivePublicUrl = () => {
    if (config.publicUrl) return config.publicUrl;
    const scheme = tls.enabled ? 'https' : 'http';
    const port = current.port === (tls.enabled ? 443 : 80) ? '' : `:${current.port}`;
    return `${scheme}://${publicHost()}${port}`;
  };
  address.set({ publicUrl: derivePublicUrl() });
  deps.onBound(current.url);
  const plain = plainServer ? describe(plainServer, false) : null;
  logger.info(
    {
      url: current.url,
      publicUrl: address.publicUrl,
      tls: config.tls,
      caFingerprint: tls.status().ca?.fingerprintSha256,
      dataDir: config.dataDir,
      version: deps.version,
    },
    'hearth listening',
  );

  // mDNS: on by default when reachable beyond loopback (and following the listener when the desktop moves it).
  let mdns: MdnsAdvertisement | null = null;
  const updateMdns = async () => {
    const want = config.mdns ?? !isLoopback(current.host);
    if (mdns && !want) {
      await mdns.close();
      mdns = null;
    }
    if (want && !mdns) {
      // The mDNS library loads only when the server announces itself (beyond loopback, or --mdns).
      const { advertise } = await import('./core/net/mdns.ts');
      mdns = advertise({
        name: deps.lanLabel,
        port: current.port,
        secure: tls.enabled,
        redirectPort: plain?.port ?? null,
        version: deps.version,
        logger: logger.child({ part: 'mdns' }),
      });
    }
  };
  if (config.mdns === true && isLoopback(config.host))
    logger.warn('mDNS is on but Hearth listens on loopback only: other devices cannot reach the announced name');
  await updateMdns().catch(abort);
  if (!tls.enabled && !isLoopback(config.host)) {
    logger.warn(
      { host: config.host },
      `listening on ${config.host} without TLS: passwords, tokens and session cookies cross the network in clear text, and passkeys and the phone authenticator do not work from other devices; start with --tls internal (see docs/operations/network.md)`,
    );
  }
  if (authenticatorUrl) logger.info({ url: authenticatorUrl, appOrigin: address.authenticatorOrigin }, 'authenticator web app listening');

  let closed: Promise<void> | null = null;
  return {
    get url() {
      return current.url;
    },
    get host() {
      return current.host;
    },
    get port() {
      return current.port;
    },
    redirectUrl: plain?.url ?? null,
    authenticatorUrl,
    async rebind(host, port, opts = {}) {
      if (closed) throw new Error('the server is shutting down');
      const wanted = z.coerce.number().int().min(0).max(65535).parse(port);
      const old = server;
      // The certificate must cover the new address before anyone reaches it there.
      const before = address.listenHost;
      const tlsBefore = tls.mode;
      address.set({ listenHost: host });
      try {
        if (opts.tls && opts.tls !== tls.mode) await tls.setMode(opts.tls);
        else await tls.refreshNames();
      } catch (err) {
        address.set({ listenHost: before });
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
        if ((err as { code?: string }).code !== 'address_in_use' || wanted !== current.port) {
          address.set({ listenHost: before });
          await restoreTls();
          throw err;
        }
        await new Promise<void>((resolve) => old.close(() => resolve()).closeAllConnections());
        try {
          await listen(next, wanted, host);
        } catch (again) {
          address.set({ listenHost: before });
          await restoreTls();
          server = newListener();
          await listen(server, current.port, current.host);
          throw again;
        }
      }
      server = next;
      if (old.listening) {
        const gone = closeServer(old);
        old.closeIdleConnections();
        const timer = setTimeout(() => old.closeAllConnections(), Math.min(REBIND_GRACE_MS, config.shutdownTimeoutMs));
        const done = gone.then(() => clearTimeout(timer));
        leaving.add(done);
        void done.then(() => leaving.delete(done));
      }
      current = describe(server, tls.enabled);
      address.set({ publicUrl: derivePublicUrl() });
      deps.onBound(current.url);
      await updateMdns().catch((err) => logger.warn({ err: (err as Error).message }, 'mDNS: could not follow the new address'));
      logger.info(
        { url: current.url, host: current.host, port: current.port, publicUrl: address.publicUrl, tls: tls.mode },
        'hearth listening on a new address',
      );
      return { ...current, publicUrl: address.publicUrl };
    },
    close() {
      closed ??= (async () => {
        const all = [server, authenticatorServer, plainServer].filter((s): s is http.Server => s !== null);
        const stopped = all.map(closeServer);
        for (const s of all) s.closeIdleConnections();
        const timer = setTimeout(() => {
          for (const s of all) s.closeAllConnections();
        }, config.shutdownTimeoutMs);
        await Promise.all([...stopped, ...leaving]);
        clearTimeout(timer);
        await mdns?.close();
      })();
      return closed;
    },
  };
}
