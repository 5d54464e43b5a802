/**
 * The desktop window trusts Hearth's own certificate authority (LAN sharing serves HTTPS with it) without asking the
 * user to install it on the computer the app runs on: a certificate is accepted when Hearth's root (the public
 * certificate in the data folder) signed it and it names the host the window asked for. Plain module, tested under Node.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** The internal root's certificate (PEM) in a data folder, or null when Hearth never made one. */
export function readInternalRoot(dataDir: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, 'tls', 'internal', 'root.crt'), 'utf8');
  } catch {
    return null;
  }
}

/** True when `leafPem` was issued and signed by `rootPem`, is valid now, and names `hostname`. */
export function issuedByRoot(leafPem: string, hostname: string, rootPem: string | null, now = Date.now()): boolean {
  if (!rootPem) return false;
  try {
    const leaf = new crypto.X509Certificate(leafPem);
    const root = new crypto.X509Certificate(rootPem);
    if (!leaf.checkIssued(root) || !leaf.verify(root.publicKey)) return false;
    if (Date.parse(leaf.validFrom) > now || Date.parse(leaf.validTo) < now) return false;
    const host = hostname.replace(/^\[|\]$/g, '');
    return net.isIP(host) ? leaf.checkIP(host) !== undefined : leaf.checkHost(host) !== undefined;
  } catch {
    return false;
  }
}
