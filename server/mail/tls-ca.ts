/**
 * A sender profile's trusted CA: one or more PEM certificates of the authority that issued the office mail server's
 * certificate, trusted for that profile's SMTP and IMAP connections in addition to Node's default CAs (as
 * `NODE_EXTRA_CA_CERTS` would, but for this profile only). Certificates are read with node:crypto's `X509Certificate`;
 * nothing here parses ASN.1 itself. No zod: the SMTP thread builds its TLS contexts with this module too.
 *
 * What is accepted: text holding `-----BEGIN CERTIFICATE-----` blocks (other text around them, such as comments, is
 * ignored and not stored), each a valid X.509 certificate with `basicConstraints CA:TRUE`, valid now, at most
 * `MAX_CA_CERTIFICATES` of them. Any other PEM block — a private key above all — is refused. What is stored: the
 * certificate blocks only, one after another, duplicates once.
 */
import crypto from 'node:crypto';
import tls from 'node:tls';

export const MAX_CA_PEM_LENGTH = 65_536;
export const MAX_CA_CERTIFICATES = 20;

/** How a trusted certificate is shown (the PEM itself never is). */
export interface CaCertificateInfo {
  subject: string;
  issuer: string;
  /** SHA-256 fingerprint, `AB:CD:…` as openssl prints it. */
  fingerprint256: string;
  validFrom: string;
  validTo: string;
}

/** Why a text is not a usable CA bundle (the message names the certificate, never quotes the text). */
export class CaBundleError extends Error {}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
/** `C=DE\nO=Office\nCN=Office CA` (node's form) as one line. */
const oneLineName = (name: string) => name.split('\n').filter(Boolean).join(', ');
const commonName = (c: crypto.X509Certificate) => /(?:^|\n)CN=([^\n]*)/.exec(c.subject)?.[1];
const describe = (c: crypto.X509Certificate): CaCertificateInfo => ({
  subject: oneLineName(c.subject),
  issuer: oneLineName(c.issuer),
  fingerprint256: c.fingerprint256,
  validFrom: c.validFromDate.toISOString(),
  validTo: c.validToDate.toISOString(),
});

/**
 * Reads a CA bundle: the normalized PEM to store and what to show of each certificate. Throws `CaBundleError`.
 * `now` (ms) decides validity.
 */
export function parseCaBundle(text: string, now: number): { pem: string; certificates: CaCertificateInfo[] } {
  const blocks = [...text.replace(/\r\n?/g, '\n').matchAll(BLOCK)];
  const other = blocks.find((b) => b[1] !== 'CERTIFICATE');
  if (other) {
    throw new CaBundleError(
      /PRIVATE KEY/.test(other[1]!)
        ? `holds a private key (${other[1]}): give only the CA's certificate — a key must never leave the CA`
        : `holds a ${other[1]} block: only CERTIFICATE blocks (the CA's certificate in PEM) are accepted`,
    );
  }
  if (blocks.length === 0) {
    if (/-----BEGIN /.test(text)) throw new CaBundleError('has a PEM block without its matching -----END----- line');
    throw new CaBundleError(
      'holds no PEM certificate (expected -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----; convert a DER file with `openssl x509 -inform der -in ca.der -out ca.pem`)',
    );
  }
  const seen = new Set<string>();
  const pems: string[] = [];
  const certificates: CaCertificateInfo[] = [];
  blocks.forEach((b, i) => {
    const n = i + 1;
    const base64 = b[2]!.replace(/\s+/g, '');
    const pem = `-----BEGIN CERTIFICATE-----\n${base64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----`;
    let cert: crypto.X509Certificate;
    try {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error('not base64');
      cert = new crypto.X509Certificate(pem);
    } catch {
      throw new CaBundleError(`certificate ${n} is not a valid X.509 certificate`);
    }
    const name = commonName(cert) ?? oneLineName(cert.subject);
    const label = `certificate ${n}${name ? ` (CN=${name})` : ''}`;
    if (!cert.ca) {
      throw new CaBundleError(
        `${label} is not a CA certificate (no basicConstraints CA:TRUE): give the certificate of the authority that issued the mail server's certificate, not the server's own`,
      );
    }
    const info = describe(cert);
    if (Date.parse(info.validTo) <= now) throw new CaBundleError(`${label} expired on ${info.validTo}`);
    if (Date.parse(info.validFrom) > now) throw new CaBundleError(`${label} is not valid before ${info.validFrom}`);
    if (seen.has(info.fingerprint256)) return;
    seen.add(info.fingerprint256);
    pems.push(pem);
    certificates.push(info);
  });
  if (certificates.length > MAX_CA_CERTIFICATES) throw new CaBundleError(`holds ${certificates.length} certificates; at most ${MAX_CA_CERTIFICATES}`);
  return { pem: `${pems.join('\n')}\n`, certificates };
}

/** What to show of a stored bundle (already validated when it was saved; expiry since then is shown, not refused). */
export function describeCaBundle(pem: string): CaCertificateInfo[] {
  return [...pem.matchAll(BLOCK)].map((b) => describe(new crypto.X509Certificate(b[0])));
}

/** Cached TLS contexts: Node's default CAs plus a profile's (building one parses every default CA). */
const contexts = new Map<string, tls.SecureContext>();

/**
 * The TLS options of a connection for a profile with trusted CA `ca` (PEM or null): `base` as it is without one;
 * with one, a secure context trusting `base.ca` (else Node's default CAs) plus the profile's.
 */
export function withTrustedCa(base: tls.ConnectionOptions | undefined, ca: string | null): tls.ConnectionOptions {
  if (!ca) return { ...base };
  const { ca: baseCa, ...rest } = base ?? {};
  const trusted = baseCa === undefined ? [...tls.rootCertificates] : (Array.isArray(baseCa) ? baseCa : [baseCa]).map((c) => c.toString());
  const key = crypto.hash('sha256', JSON.stringify([baseCa === undefined ? 'default' : trusted, ca]), 'hex');
  let context = contexts.get(key);
  if (!context) {
    if (contexts.size >= 64) contexts.clear();
    context = tls.createSecureContext({ ca: [...trusted, ca] });
    contexts.set(key, context);
  }
  return { ...rest, secureContext: context };
}

/** OpenSSL's codes for a certificate chain the client does not trust (as Node reports them in `err.code`). */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'INVALID_CA',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

interface TlsErrorLike {
  code?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
}

/**
 * A certificate-verification failure said plainly, with what to do about it; null for any other error. `err` is the
 * TLS error or a library's error wrapping it (`cause`) or repeating its message.
 */
export function describeTlsFailure(err: unknown): string | null {
  for (let e = err as TlsErrorLike | undefined, depth = 0; e && depth < 4; e = e.cause as TlsErrorLike | undefined, depth++) {
    // nodemailer keeps the TLS code in `originalCode` when it sets its own (`ETLS`, `ESOCKET`)
    const code = [e.code, e.originalCode].find((c): c is string => typeof c === 'string' && UNTRUSTED.has(c));
    if (!code) continue;
    // Node's advice to start the whole process with --use-system-ca is not the remedy for one profile
    const message = (typeof e.message === 'string' ? e.message : '').replace(
      /; if the root CA is installed locally, try running Node\.js with --use-system-ca$/,
      '',
    );
    const hint =
      code === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? 'the certificate does not name the configured host: use the host name the certificate is issued for'
        : code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID'
          ? 'the server must present a valid certificate'
          : "if the server's certificate comes from a private CA, add that CA's certificate to the profile (tlsCaPem)";
    return `TLS: the server's certificate is not trusted (${code}: ${message}); ${hint}`;
  }
  return null;
}
