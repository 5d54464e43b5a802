import os from 'node:os';

/** True for an address only this machine reaches: `localhost`, `::1`, `127.0.0.0/8`. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * The one DNS label this machine is announced as on the LAN (`<label>.local`): the given name, else the host name's
 * first label, lower case, anything but letters, digits and hyphens made a hyphen.
 */
export function lanLabel(given?: string, hostname = os.hostname()): string {
  return (given ?? hostname.split('.')[0] ?? 'hearth').toLowerCase().replace(/[^a-z0-9-]/g, '-') || 'hearth';
}
