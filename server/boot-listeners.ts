/**
 * The listeners of the one boot (server/boot.ts): binding with one-line address errors, the address and URL a
 * listener is reached at, the addresses its certificate must cover, the plain listener beside TLS (ACME HTTP-01
 * challenges and 308 to HTTPS) and the authenticator web app's origin. Stateless helpers: which listeners exist, when
 * they bind, move and close is boot.ts's business.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
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
