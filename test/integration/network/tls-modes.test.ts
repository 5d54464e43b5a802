/**
 * `--tls files` (certificate files made elsewhere: reload on change and on SIGHUP, one-line start-up errors, HSTS),
 * the TLS settings' validation, the warning for plain HTTP on a network address, and the mDNS announcement answered
 * to a real mDNS query.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import * as x509 from '@peculiar/x509';
import mdns from 'multicast-dns';
import { afterAll, describe, expect, it } from 'vitest';
import { rawCall } from '../../helpers/http.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
x509.cryptoProvider.set(globalThis.crypto);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A self-signed certificate for `name` and its key, as PEM files in `dir` (dates adjustable for the expired case). */
async function certFiles(dir: string, name: string, opts: { from?: number; to?: number; prefix?: string } = {}) {
  const keys = (await globalThis.crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: crypto
      .randomBytes(8)
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    name: `CN=${name}`,
    notBefore: new Date(opts.from ?? Date.now() - 60_000),
    notAfter: new Date(opts.to ?? Date.now() + 86_400_000),
    keys,
    signingAlgorithm: EC,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: name }])],
  });
  const key = Buffer.from(await globalThis.crypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  const p = opts.prefix ?? 'server';
  const files = { cert: path.join(dir, `${p}.crt`), key: path.join(dir, `${p}.key`), pem: `${cert.toString('pem')}\n` };
  fs.writeFileSync(files.cert, files.pem);
  fs.writeFileSync(files.key, `-----BEGIN PRIVATE KEY-----\n${key.replace(/.{64}/g, '$&\n')}\n-----END PRIVATE KEY-----\n`);
  return files;
}

function peer(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'files.test', ca: [ca] }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

describe('--tls files', () => {
  it('serves the files, sends HSTS when asked, and picks up new files when they change', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = await certFiles(dir, 'files.test');
    const s = await startTestServer({ tls: 'files', tlsCert: a.cert, tlsKey: a.key, tlsNames: ['files.test'], hsts: 31536000, mdns: false });
    try {
      const first = await peer(s.port, a.pem);
      expect(first).toBe(new crypto.X509Certificate(a.pem).fingerprint256);
      expect(s.publicUrl).toBe(`https://files.test:${s.port}`);
      const res = await new Promise<{ hsts: string | undefined }>((resolve, reject) => {
        const req = tls.connect({ host: '127.0.0.1', port: s.port, servername: 'files.test', ca: [a.pem] }, () => {
          req.write('GET /healthz HTTP/1.1\r\nHost: files.test\r\nConnection: close\r\n\r\n');
        });
        let text = '';
        req.on('data', (c) => (text += c));
        req.on('end', () => resolve({ hsts: /strict-transport-security: ([^\r\n]+)/i.exec(text)?.[1] }));
        req.on('error', reject);
      });
      expect(res.hsts).toBe('max-age=31536000');
      // Another tool renews the files (a new file renamed over the old one): the new certificate is served.
      const tmp = tempDir();
      dirs.push(tmp);
      const b = await certFiles(tmp, 'files.test');
      fs.renameSync(b.key, a.key);
      fs.renameSync(b.cert, a.cert);
      const next = new crypto.X509Certificate(b.pem).fingerprint256;
      await until(async () => (await peer(s.port, b.pem)) === next, 'the replaced certificate', 20_000, { ignoreErrors: true });
      // A broken pair later is refused and logged; the good certificate stays.
      fs.writeFileSync(a.key, 'not a key');
      await s.tls.reload('test');
      expect(s.tls.status().lastError?.message).toMatch(/not a PEM private key/);
      expect(await peer(s.port, b.pem)).toBe(next);
    } finally {
      await s.stop();
    }
  });

  it('stops start-up with one line for a key that does not match, an expired certificate or a missing file', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = await certFiles(dir, 'files.test', { prefix: 'a' });
    const b = await certFiles(dir, 'files.test', { prefix: 'b' });
    const old = await certFiles(dir, 'files.test', { prefix: 'old', from: Date.now() - 10 * 86_400_000, to: Date.now() - 86_400_000 });
    const cases: Array<[string, string, RegExp]> = [
      [a.cert, b.key, /^TLS \(files\): the TLS key .*b\.key does not match the certificate .*a\.crt$/],
      [old.cert, old.key, /^TLS \(files\): the TLS certificate .*old\.crt expired on \d{4}-/],
      [path.join(dir, 'none.crt'), a.key, /^TLS \(files\): cannot read the TLS certificate .*none\.crt: no such file$/],
    ];
    for (const [cert, key, message] of cases) {
      const err = await startTestServer({ tls: 'files', tlsCert: cert, tlsKey: key, mdns: false }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(message);
      expect(err?.message).not.toContain('\n');
    }
  });

  it('`hearth serve --tls files` reads the files again on SIGHUP', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = await certFiles(dir, 'files.test');
    const child = spawn(
      process.execPath,
      [
        path.join(repo, 'bin/hearth.mjs'),
        'serve',
        '--port',
        '0',
        '--data',
        path.join(dir, 'data'),
        '--log-level',
        'info',
        '--tls',
        'files',
        '--tls-cert',
        a.cert,
        '--tls-key',
        a.key,
        '--tls-name',
        'files.test',
        '--no-mdns',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (c) => {
          out += c;
          const m = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(out);
          if (m && out.includes('Sign in')) resolve(Number(m[1]));
        });
        child.on('exit', () => reject(new Error(`exited early: ${out}`)));
      });
      expect(out).toContain(`Public address: https://files.test:${port}`);
      expect(out).toMatch(/TLS: files certificate for files\.test, valid until \d{4}-/);
      const b = await certFiles(tempDir(), 'files.test');
      const next = new crypto.X509Certificate(b.pem).fingerprint256;
      fs.copyFileSync(b.key, a.key);
      fs.copyFileSync(b.cert, a.cert);
      await until(
        async () => {
          child.kill('SIGHUP');
          return (await peer(port, b.pem)) === next && /"reason":"SIGHUP".*"msg":"TLS certificate renewed"/.test(out);
        },
        'the certificate read again after SIGHUP',
        20_000,
        { ignoreErrors: true },
      );
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('settings', () => {
  it('refuses contradictory TLS settings with one line naming the flag', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ tls: 'files' }, /^invalid setting tlsCert \(HEARTH_TLS_CERT\): --tls files needs both --tls-cert and --tls-key/],
      [{ tls: 'acme' }, /^invalid setting tlsNames \(HEARTH_TLS_NAMES\): --tls acme needs at least one --tls-name/],
      [{ tls: 'internal', hsts: 600 }, /^invalid setting hsts \(HEARTH_HSTS\): is only sent with --tls acme or --tls files/],
      [{ httpRedirectPort: 8080 }, /^invalid setting httpRedirectPort \(HEARTH_HTTP_REDIRECT_PORT\): needs TLS on/],
      [{ tls: 'internal', tlsNames: 'bad_name!' }, /^invalid setting tlsNames \(HEARTH_TLS_NAMES\): must be DNS names/],
      [{ tls: 'https' }, /^invalid setting tls \(HEARTH_TLS\)/],
    ];
    for (const [opts, message] of cases) {
      const err = await startTestServer({ mdns: false, ...opts }).then(
        () => null,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(message);
    }
  });

  it('a privileged port (80 for ACME HTTP-01, 443) without the right to bind it is a one-line error saying how to allow it', async () => {
    const dir = tempDir();
    dirs.push(dir);
    expect(Number(fs.readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8')), 'this machine treats port 80 as privileged').toBeGreaterThan(80);
    // Without CAP_NET_BIND_SERVICE: root runs the server with that capability dropped (setpriv, util-linux).
    const cmd =
      process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-net_bind_service', '--inh-caps=-net_bind_service', process.execPath] : [process.execPath];
    const child = spawn(
      cmd[0]!,
      [...cmd.slice(1), path.join(repo, 'bin/hearth.mjs'), 'serve', '--port', '80', '--data', path.join(dir, 'data'), '--log-level', 'silent', '--no-mdns'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'hearth: hearth could not start: cannot listen on 127.0.0.1:80: permission denied (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability, e.g. AmbientCapabilities=CAP_NET_BIND_SERVICE in the systemd unit)',
    );
  });

  it('on loopback without TLS the public address is http://localhost:<port>: passkeys get a name as relying party, never an IP', async () => {
    const s = await startTestServer({ mdns: false });
    try {
      expect(s.publicUrl).toBe(`http://localhost:${s.port}`);
      const call = (p: string, init: Parameters<typeof rawCall>[2] = {}) => rawCall(s.publicUrl, p, init, s.publicUrl);
      expect((await call('/api/setup', { json: { login: 'root', password: 'first-admin-Passw0rd!' } })).status).toBe(201);
      const login = await call('/api/auth/login', { json: { login: 'root', password: 'first-admin-Passw0rd!' } });
      const cookie = login.headers
        .getSetCookie()
        .find((c) => c.startsWith('hearth_session='))!
        .split(';')[0]!;
      const options = await call('/api/auth/passkeys/registration', { method: 'POST', cookie });
      expect(options.status).toBe(200);
      expect(options.json.options.rp.id).toBe('localhost');
      // At the IP address the browser is told where to go instead.
      const fromIp = await rawCall(s.publicUrl, '/api/auth/passkeys/registration', { method: 'POST', cookie }, `http://127.0.0.1:${s.port}`);
      expect(fromIp.status).toBe(403);
      expect(fromIp.json.message).toContain(`open Hearth at http://localhost:${s.port}`);
    } finally {
      await s.stop();
    }
  });

  it('warns at start-up when it listens on a network address without TLS', async () => {
    const lines: Array<{ level: number; msg: string }> = [];
    const s = await startTestServer({
      host: '0.0.0.0',
      mdns: false,
      logLevel: 'warn',
      logDestination: { write: (l: string) => void lines.push(JSON.parse(l)) } as never,
    });
    try {
      expect(lines.find((l) => l.msg.startsWith('listening on 0.0.0.0 without TLS'))?.msg).toContain('--tls internal');
    } finally {
      await s.stop();
    }
  });
});

describe('mDNS', () => {
  it('announces <name>.local and _https._tcp, answering a real mDNS query, and says goodbye on close', async () => {
    const label = `hearth-${crypto.randomBytes(4).toString('hex')}`;
    const s = await startTestServer({ tls: 'internal', mdns: true, mdnsName: label });
    const q = mdns();
    try {
      const seen = { ptr: false, srvPort: 0, a: false };
      q.on('response', (r) => {
        for (const a of [...r.answers, ...r.additionals]) {
          if (a.type === 'PTR' && a.name === '_https._tcp.local' && String(a.data) === `Hearth on ${label}._https._tcp.local`) seen.ptr = true;
          if (a.type === 'SRV' && a.name === `Hearth on ${label}._https._tcp.local`) seen.srvPort = (a.data as { port: number }).port;
          if (a.type === 'A' && a.name === `${label}.local`) seen.a = true;
        }
      });
      // Asked again every 250 ms, as mDNS clients retransmit (a datagram may be lost), until every answer came back.
      const ask = () => {
        try {
          q.query({
            questions: [
              { name: '_https._tcp.local', type: 'PTR' },
              { name: `${label}.local`, type: 'A' },
            ],
          });
        } catch {
          // the socket is not ready yet: the next retransmission asks again
        }
      };
      ask();
      const again = setInterval(ask, 250);
      try {
        await until(
          () => seen.ptr && seen.srvPort !== 0 && seen.a,
          () => `the mDNS answers for ${label}.local (${JSON.stringify(seen)})`,
        );
      } finally {
        clearInterval(again);
      }
      expect(seen.srvPort).toBe(s.port);
      // The certificate covers the announced name.
      expect(s.tls.certificate()!.names).toContain(`${label}.local`);
    } finally {
      q.destroy();
      await s.stop();
    }
  });
});
