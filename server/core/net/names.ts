import os from 'node:os';

/**
 * The one DNS label this machine is announced as on the LAN (`<label>.local`): the given name, else the host name's
 * first label, lower case, anything but letters, digits and hyphens made a hyphen.
 */
export function lanLabel(given?: string, hostname = os.hostname()): string {
  return (given ?? hostname.split('.')[0] ?? 'hearth').toLowerCase().replace(/[^a-z0-9-]/g, '-') || 'hearth';
}
