/** What a certificate source (internal CA, ACME, files) gives the TLS service (tls.service.ts), and the modes. */

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
