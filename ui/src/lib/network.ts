/** Small helpers about addresses, shared by the origin banner, the certificate page and the pairing QR code. */

/**
 * Whether a host name only ever means "this device": `localhost` (and `*.localhost`), 127.0.0.0/8 and `::1`. A link
 * to such a host opened on a phone reaches the phone itself, never Hearth.
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** The host of a URL, or null when it is not one. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/**
 * Where this page should be opened: the same path at the public address, or null when the page already is there (or
 * the public address is not a URL).
 */
export function publicAddressFor(publicUrl: string, here: Pick<Location, 'origin' | 'pathname' | 'search'>): string | null {
  let target: URL;
  try {
    target = new URL(publicUrl);
  } catch {
    return null;
  }
  if (target.origin === here.origin) return null;
  return target.origin + here.pathname + here.search;
}

/** `53:CA:6B:…` (32 bytes) → rows of eight bytes, as devices show fingerprints (colon or space separated pairs). */
export function fingerprintRows(fingerprint: string, perRow = 8): string[] {
  const bytes = fingerprint
    .toUpperCase()
    .split(/[:\s]+/)
    .filter(Boolean);
  const rows: string[] = [];
  for (let i = 0; i < bytes.length; i += perRow) rows.push(bytes.slice(i, i + perRow).join(':'));
  return rows;
}
