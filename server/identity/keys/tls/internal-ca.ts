/**
 * `--tls internal`: Hearth's own certificate authority, as Caddy's internal issuer does it. An ECDSA P-256 root made
 * on first start (ten years; its private key sealed at rest, never logged or returned) signs a leaf for every name
 * and address Hearth is reached at (ECDSA P-256, about 30 days). Devices trust the root once (`/ca.pem`, `/ca.crt`,
 * `/ca.mobileconfig`); every leaf after that is trusted without a prompt.
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import net from 'node:net';
import * as x509 from '@peculiar/x509';
import { type CertificateSource, canonicalName, sanList, type TlsMaterial } from './source.ts';
import type { TlsStore } from './tls.store.ts';

x509.cryptoProvider.set(globalThis.crypto);
const subtle = globalThis.crypto.subtle;

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
export const ROOT_LIFETIME_MS = 3650 * DAY;
export const LEAF_LIFETIME_MS = 30 * DAY;

export interface InternalCaOptions {
  store: TlsStore;
  /** Names and addresses the leaf is for (DNS names and IP literals). */
  names: () => string[];
  now?: () => number;
  /** Leaf lifetime (tests use seconds). */
  leafLifetimeMs?: number;
}

export interface InternalCa extends CertificateSource {
  /** The root certificate (PEM). */
  rootPem(): string;
}

export function createInternalCa(opts: InternalCaOptions): InternalCa {
  const now = opts.now ?? Date.now;
  const leafLifetime = opts.leafLifetimeMs ?? LEAF_LIFETIME_MS;
  let root: { cert: x509.X509Certificate; key: CryptoKey; pem: string } | null = null;

  async function loadRoot(): Promise<NonNullable<typeof root>> {
    if (root) return root;
    const certPem = opts.store.read('root.crt');
    const keyPem = opts.store.readSealed('root.key');
    if (certPem && keyPem) {
      const cert = new x509.X509Certificate(certPem);
      const key = await subtle.importKey('pkcs8', pemBody(keyPem), EC, false, ['sign']);
      if (cert.notAfter.getTime() > now() + leafLifetime) return (root = { cert, key, pem: `${cert.toString('pem')}\n` });
    }
    // First start (or a root that would not outlive the next leaf): a new root. Devices must trust it again.
    const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const notBefore = new Date(now() - 60_000);
    const year = new Date(now()).getUTCFullYear();
    const name = `CN=Hearth Local Authority - ${year} ECC Root, O=Hearth`;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name,
      notBefore,
      notAfter: new Date(notBefore.getTime() + ROOT_LIFETIME_MS),
      keys,
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const pkcs8 = await subtle.exportKey('pkcs8', keys.privateKey);
    opts.store.writeSealed('root.key', toPem(pkcs8, 'PRIVATE KEY'));
    opts.store.write('root.crt', `${cert.toString('pem')}\n`);
    opts.store.remove('leaf.crt');
    opts.store.remove('leaf.key');
    return (root = { cert, key: keys.privateKey, pem: `${cert.toString('pem')}\n` });
  }

  async function issueLeaf(): Promise<TlsMaterial> {
    const r = await loadRoot();
    const names = [...new Set(opts.names())];
    const keys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    // Backdated a little for clocks running behind (a tenth of the life, at most a minute).
    const backdate = Math.min(60_000, leafLifetime / 10);
    const notBefore = new Date(now() - backdate);
    const notAfter = new Date(Math.min(notBefore.getTime() + leafLifetime + backdate, r.cert.notAfter.getTime()));
    const dns = names.filter((n) => !net.isIP(n));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${dns[0] ?? names[0] ?? 'localhost'}`,
      issuer: r.cert.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: r.key,
      signingAlgorithm: EC,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names.map((n) => (net.isIP(n) ? { type: 'ip' as const, value: n } : { type: 'dns' as const, value: n }))),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(r.cert),
      ],
    });
    const keyPem = toPem(await subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
    const chain = `${cert.toString('pem')}\n`;
    opts.store.writeSealed('leaf.key', keyPem);
    opts.store.write('leaf.crt', chain);
    return { cert: chain, key: keyPem };
  }

  return {
    mode: 'internal',
    async start() {
      await loadRoot();
      // Keep the stored leaf across restarts while it is for the same names and not yet due.
      const certPem = opts.store.read('leaf.crt');
      const keyPem = certPem ? opts.store.readSealed('leaf.key') : null;
      if (certPem && keyPem) {
        const leaf = new crypto.X509Certificate(certPem);
        const lifetime = Date.parse(leaf.validTo) - Date.parse(leaf.validFrom);
        const due = Date.parse(leaf.validFrom) + (lifetime * 2) / 3;
        const sameNames = sameSet(sanList(leaf), opts.names());
        // A pair from an interrupted write (the key saved, the certificate not) is not reused: a new leaf is made.
        const pairs = leaf.checkPrivateKey(crypto.createPrivateKey(keyPem));
        if (sameNames && pairs && now() < due && leaf.checkIssued(new crypto.X509Certificate(root!.pem))) return { cert: certPem, key: keyPem };
      }
      return await issueLeaf();
    },
    renew: issueLeaf,
    rootPem: () => {
      if (!root) throw new Error('the internal certificate authority is not loaded');
      return root.pem;
    },
    status: () => ({}),
    async close() {},
  };
}

/** The subject alternative names of a certificate, as plain names and addresses. */
const sameSet = (a: string[], b: string[]) => {
  const x = new Set(a.map(canonicalName));
  const y = new Set(b.map(canonicalName));
  return x.size === y.size && [...x].every((n) => y.has(n));
};

/** A positive 128-bit serial number (hex). */
function serial(): string {
  const b = crypto.randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

function pemBody(pem: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
}
