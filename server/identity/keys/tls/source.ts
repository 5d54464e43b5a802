/**
 * What a certificate source (internal CA, ACME, files) gives the TLS service (tls.service.ts), the modes, and the
 * name helpers both use. The internal CA (X.509 library) and ACME (its client) are loaded when their mode starts.
 */
import type crypto from 'node:crypto';
import net from 'node:net';

export type TlsMode = 'off' | 'internal' | 'acme' | 'files';

/** A certificate chain (PEM, leaf first) and its private key (PEM). */
export interface TlsMaterial {
  cert: string;
  key: string;
}

/** Where certificates come from. */
export interface CertificateSource {
  readonly mode: Exclude<TlsMode, 'off'>;
  /** The certificate to start with: the stored one while it is good, else a new one. Rejects with a one-line reason. */
  start(): Promise<TlsMaterial>;
  /** A new certificate now. */
  renew(): Promise<TlsMaterial>;
  /** Source-specific status (ACME directory and last order, the files' paths). */
  status(): Record<string, unknown>;
  close(): Promise<void>;
}

/** The names and addresses a certificate covers (its subjectAltName). */
export function sanList(cert: crypto.X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .map((s) => s.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
}

/** A name or address in one spelling (IPv6 compressed, lower case), for comparing lists of names. */
export function canonicalName(n: string): string {
  return net.isIPv6(n) ? new URL(`http://[${n}]`).hostname.slice(1, -1) : n.toLowerCase();
}
