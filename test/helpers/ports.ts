/**
 * A free port for a test peer or server that must know its port before it starts (a config file, a public URL), or
 * a port nothing listens on (connection refused). The port is free when this returns; a test that needs it free
 * for UDP too (a DNS server) asks for `udp`, and gets a port free for both. A port is handed out once per process:
 * the system may give a just-closed port again, and two ports asked for in a row (Dovecot's IMAP and IMAPS, pebble's
 * listeners) must differ.
 */
import dgram from 'node:dgram';
import net from 'node:net';

const handedOut = new Set<number>();

export async function freePort(opts: { host?: string; udp?: boolean } = {}): Promise<number> {
  const host = opts.host ?? '127.0.0.1';
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net
        .createServer()
        .once('error', reject)
        .listen(0, host, () => {
          const p = (srv.address() as net.AddressInfo).port;
          srv.close(() => resolve(p));
        });
    });
    if (handedOut.has(port)) continue;
    if (!opts.udp) {
      handedOut.add(port);
      return port;
    }
    const free = await new Promise<boolean>((resolve) => {
      const sock = dgram.createSocket('udp4');
      sock.once('error', () => resolve(false));
      sock.bind(port, host, () => sock.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
}
