/**
 * A private certificate authority for the TLS tests, made with openssl in a temporary folder: the CA, a server
 * certificate it issued for localhost / 127.0.0.1 (what an office's own mail server has), and an expired CA.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCa {
  /** The CA's certificate (PEM): what a profile trusts. */
  caPem: string;
  /** SHA-256 fingerprint of the CA certificate as openssl prints it (AB:CD:…). */
  caFingerprint: string;
  /** The server certificate the CA issued (CN=localhost, SAN localhost and 127.0.0.1; not a CA) and its key. */
  server: { key: string; cert: string };
  /** A CA certificate that expired in 2020. */
  expiredCaPem: string;
  /** The CA's private key (PEM), to show that keys are refused. */
  caKeyPem: string;
}

export function makeTestCa(name = 'Hearth Test Office CA'): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-test-ca-'));
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  try {
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-days',
      '2',
      '-subj',
      `/O=Hearth Tests/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    ssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
    fs.writeFileSync(
      f('server.ext'),
      'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n',
    );
    ssl(
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('server.pem'),
      '-days',
      '2',
      '-extfile',
      f('server.ext'),
    );
    // `openssl ca` is the one that takes explicit dates: a self-signed CA valid in January 2020 only
    fs.mkdirSync(f('db'));
    fs.writeFileSync(f('db/index.txt'), '');
    fs.writeFileSync(f('db/serial'), '01\n');
    fs.writeFileSync(
      f('expired.cnf'),
      [
        '[ca]',
        'default_ca = x',
        '[x]',
        'database = db/index.txt',
        'serial = db/serial',
        'new_certs_dir = db',
        'default_md = sha256',
        'policy = p',
        'x509_extensions = ext',
        '[p]',
        'commonName = supplied',
        '[ext]',
        'basicConstraints = critical,CA:TRUE',
        'keyUsage = critical,keyCertSign,cRLSign',
        '',
      ].join('\n'),
    );
    ssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('expired.key'), '-out', f('expired.csr'), '-subj', '/CN=Expired Office CA');
    ssl(
      'ca',
      '-batch',
      '-config',
      f('expired.cnf'),
      '-selfsign',
      '-keyfile',
      f('expired.key'),
      '-in',
      f('expired.csr'),
      '-out',
      f('expired.pem'),
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200201000000Z',
      '-notext',
    );
    const caPem = fs.readFileSync(f('ca.pem'), 'utf8');
    return {
      caPem,
      caFingerprint: /=([0-9A-F:]+)\s*$/.exec(ssl('x509', '-in', f('ca.pem'), '-noout', '-fingerprint', '-sha256'))![1]!,
      server: { key: fs.readFileSync(f('server.key'), 'utf8'), cert: fs.readFileSync(f('server.pem'), 'utf8') },
      expiredCaPem: fs.readFileSync(f('expired.pem'), 'utf8'),
      caKeyPem: fs.readFileSync(f('ca.key'), 'utf8'),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The SHA-256 fingerprint of a PEM certificate as openssl and node:crypto print it. */
export const fingerprint = (pem: string) => new crypto.X509Certificate(pem).fingerprint256;
