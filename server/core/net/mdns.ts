/**
 * A name on the LAN: DNS-SD/mDNS advertisement (RFC 6762/6763) of `<name>.local` (A/AAAA records of this machine's
 * network addresses) and the service `_https._tcp` (or `_http._tcp` without TLS) on the listening port, with
 * `_http._tcp` for the plain redirect listener. Devices on the office network then open `https://<name>.local:<port>`
 * without any DNS server. A failure (port 5353 unusable, a name taken by another machine) is a warning, never a stop.
 */
import { Bonjour, type Service } from 'bonjour-service';
import type { Logger } from '../logging/logger.ts';

export interface MdnsAdvertisement {
  /** The `.local` host name announced. */
  host: string;
  close(): Promise<void>;
}

export function advertise(opts: {
  name: string;
  port: number;
  secure: boolean;
  redirectPort?: number | null;
  version: string;
  logger: Logger;
}): MdnsAdvertisement {
  const host = `${opts.name}.local`;
  const bonjour = new Bonjour({}, (err: Error) =>
    opts.logger.warn({ err: err.message }, 'mDNS: the network announcement failed; devices must use an address or a DNS name'),
  );
  const services: Service[] = [];
  const publish = (type: 'https' | 'http', port: number) => {
    const service = bonjour.publish({ name: `Hearth on ${opts.name}`, type, port, host, txt: { path: '/', version: opts.version } });
    service.on('error', (err: Error) => opts.logger.warn({ err: err.message, type, port }, `mDNS: could not announce _${type}._tcp on ${host}`));
    services.push(service);
  };
  publish(opts.secure ? 'https' : 'http', opts.port);
  if (opts.redirectPort) publish('http', opts.redirectPort);
  opts.logger.info({ host, port: opts.port }, `announcing ${host} on the local network (mDNS)`);
  return {
    host,
    close: () =>
      new Promise<void>((resolve) => {
        bonjour.unpublishAll(() => bonjour.destroy(() => resolve()));
      }),
  };
}
