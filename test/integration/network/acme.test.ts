/**
 * `--tls acme` against Debian's real pebble ACME server: issuance by HTTP-01 (answered by Hearth's plain listener)
 * and DNS-01 (through `acmeDnsHook` and pebble-challtestsrv), renewal of short-lived certificates at two thirds of
 * their life, a failed challenge reported and retried, and a first order that fails stopping start-up. Clients trust
 * only pebble's issuing root and reach Hearth as `hearth.test`, resolved to 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type StartOptions, startServer } from '../../../server/boot.ts';
import { PEBBLE, type Pebble, startPebble } from '../../helpers/pebble.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const NAME = 'hearth.test';
const TOKEN = `test-admin-${crypto.randomBytes(16).toString('hex')}`;

interface Answer {
  status: number;
  json: any;
  /** The certificate the server presented on this (new) connection. */
  cert: crypto.X509Certificate;
}

/** An HTTPS request to `https://hearth.test:<port>` on a new connection, trusting only `root`. */
function call(s: RunningServer, root: string, pathname: string, method = 'GET'): Promise<Answer> {
  const port = new URL(s.url).port;
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: NAME,
        port,
        path: pathname,
        method,
        ca: root,
        agent: false,
        headers: { authorization: `Bearer ${TOKEN}` },
        lookup: (_host, opts, cb) => ((opts as { all?: boolean }).all ? (cb as any)(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)),
      },
      (res) => {
        const peer = (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate()!;
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (body += c))
          .on('end', () => resolve({ status: res.statusCode!, json: body ? JSON.parse(body) : null, cert: peer }));
      },
    );
    req.once('error', reject).end();
  });
}

function acmeOptions(p: Pebble, dataDir: string, extra: StartOptions = {}): StartOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    logLevel: 'silent',
    env: {},
    dataDir,
    adminToken: TOKEN,
    tls: 'acme',
    tlsNames: [NAME],
    acmeDirectory: p.directory,
    acmeCaFile: p.caFile,
    acmeHttpPort: p.httpPort,
    acmeEmail: 'admin@hearth.test',
    ...extra,
  };
}

describe.skipIf(!PEBBLE)('--tls acme against pebble', () => {
  let pebble: Pebble;
  const dirs: string[] = [];
  const data = () => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    pebble = await startPebble();
  });
  afterAll(async () => {
    await pebble?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("issues by HTTP-01: the chain verifies to pebble's root, keys are sealed, a restart reuses the certificate unless the ACME server changed", async () => {
    const dataDir = data();
    let s = await startServer(acmeOptions(pebble, dataDir));
    let other: Pebble | undefined;
    try {
      const health = await call(s, pebble.root, '/healthz');
      expect(health.status).toBe(200);
      expect(health.cert.checkHost(NAME)).toBe(NAME);
      expect(health.cert.subjectAltName).toBe(`DNS:${NAME}`);
      expect(health.cert.issuer).toMatch(/Pebble Intermediate CA/);
      expect(health.json.tls).toMatchObject({ mode: 'acme', certificate_fingerprint_sha256: health.cert.fingerprint256, last_error: null });

      const st = await call(s, pebble.root, '/v1/tls');
      expect(st.json).toMatchObject({
        mode: 'acme',
        names: [NAME],
        lastError: null,
        ca: null,
        certificate: { names: [NAME], fingerprintSha256: health.cert.fingerprint256 },
        source: { directory: pebble.directory, challenge: 'http-01', email: 'admin@hearth.test', lastOrder: { names: [NAME], challenge: 'http-01' } },
      });
      expect(st.json.source.account).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);

      // Private keys are sealed under the identity KEK; only the certificate is PEM in clear.
      const folder = path.join(dataDir, 'tls', 'acme');
      for (const f of ['account.key', 'cert.key']) {
        const text = fs.readFileSync(path.join(folder, f), 'utf8');
        expect(text).not.toMatch(/PRIVATE KEY/);
        expect(JSON.parse(text)).toEqual({ encryptionKeyId: expect.any(String), envelope: expect.any(String) });
      }
      for (const f of fs.readdirSync(folder)) expect(fs.readFileSync(path.join(folder, f), 'utf8')).not.toMatch(/PRIVATE KEY/);
      expect(fs.readFileSync(path.join(folder, 'cert.crt'), 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);

      await s.close();
      s = await startServer(acmeOptions(pebble, dataDir));
      const again = await call(s, pebble.root, '/v1/tls');
      expect(again.cert.fingerprint256).toBe(health.cert.fingerprint256);
      expect(again.json.source.lastOrder).toBeNull(); // no new order

      // Another ACME server (staging, then production): its own certificate, not the stored one.
      await s.close();
      other = await startPebble();
      s = await startServer(acmeOptions(other, dataDir));
      const moved = await call(s, other.root, '/v1/tls');
      expect(moved.json.source).toMatchObject({ directory: other.directory, lastOrder: { names: [NAME] } });
      expect(moved.cert.fingerprint256).not.toBe(health.cert.fingerprint256);
    } finally {
      await s.close();
      await other?.close();
    }
  });

  it('renews a short-lived certificate by itself at two thirds of its life, and on request', async () => {
    const short = await startPebble({ validitySeconds: 30 });
    const s = await startServer(acmeOptions(short, data()));
    try {
      const first = (await call(s, short.root, '/v1/tls')).json;
      const life = Date.parse(first.certificate.notAfter) - Date.parse(first.certificate.notBefore);
      expect(life).toBeLessThanOrEqual(30_000);
      expect(Date.parse(first.certificate.renewAt) - Date.parse(first.certificate.notBefore)).toBe(Math.round((life * 2) / 3));
      expect(first.nextAttemptAt).toBe(first.certificate.renewAt);

      // The scheduler orders a new certificate at renewAt; new connections get it, with no restart. (A handshake just
      // before the swap still sees the old one while its answer reports the new one: wait until both agree.)
      const renewed = await until(async () => {
        const a = await call(s, short.root, '/healthz');
        return a.cert.fingerprint256 !== first.certificate.fingerprintSha256 && a.cert.fingerprint256 === a.json.tls.certificate_fingerprint_sha256 && a;
      }, 'the scheduled renewal');
      expect(renewed.cert.checkHost(NAME)).toBe(NAME);
      const st = (await call(s, short.root, '/v1/tls')).json;
      expect(Date.parse(st.lastRenewalAt)).toBeGreaterThanOrEqual(Date.parse(first.certificate.renewAt) - 1000);
      expect(st.lastError).toBeNull();

      // "Renew now" orders again at once.
      const now = await call(s, short.root, '/v1/tls/renew', 'POST');
      expect(now.status).toBe(200);
      expect(now.json.certificate.fingerprintSha256).not.toBe(st.certificate.fingerprintSha256);
      expect((await call(s, short.root, '/healthz')).cert.fingerprint256).toBe(now.json.certificate.fingerprintSha256);
    } finally {
      await s.close();
      await short.close();
    }
  });

  /**
   * hearth.test resolves to an address where nothing listens, so pebble's HTTP-01 check is refused. The account key
   * goes too: pebble reuses an account's valid authorization 1% of the time even with PEBBLE_AUTHZREUSE=0
   * (`rand.Intn(100) > percent`), and the new account Hearth makes on its next order has none to reuse.
   */
  async function breakChallenge(dataDir: string) {
    fs.rmSync(path.join(dataDir, 'tls', 'acme', 'account.key'));
    await pebble.dnsControl('/add-a', { host: NAME, addresses: ['127.0.0.2'] });
  }

  it('reports a failed challenge, keeps its certificate, retries with backoff and recovers; a restart during the outage serves the stored certificate', async () => {
    const dataDir = data();
    const lines: any[] = [];
    const logged = { logLevel: 'info', logDestination: { write: (l: string) => void lines.push(JSON.parse(l)) } as never } as const;
    const failures = () => lines.filter((l) => l.msg?.startsWith('TLS certificate renewal failed'));
    let s = await startServer(acmeOptions(pebble, dataDir, { ...logged, tlsTuning: { retryMinMs: 200, retryMaxMs: 2000 } }));
    try {
      const fp1 = (await call(s, pebble.root, '/healthz')).cert.fingerprint256;
      await breakChallenge(dataDir);
      const renew = await call(s, pebble.root, '/v1/tls/renew', 'POST');
      expect(renew.status).toBe(502);
      expect(renew.json.error).toBe('renewal_failed');
      expect(renew.json.message).toMatch(/127\.0\.0\.2/);
      expect(renew.cert.fingerprint256).toBe(fp1); // still serving with the current certificate

      const health = (await call(s, pebble.root, '/healthz')).json.tls;
      expect(health.certificate_fingerprint_sha256).toBe(fp1);
      expect(health.last_error).toMatch(/127\.0\.0\.2/);
      expect(health.last_error).not.toContain('\n');
      const st = (await call(s, pebble.root, '/v1/tls')).json;
      expect(st.lastError.message).toBe(health.last_error);
      expect(Date.parse(st.nextAttemptAt)).toBeGreaterThan(Date.parse(st.lastError.at));
      expect(failures()[0]).toMatchObject({ level: 'error', reason: 'requested', attempt: 1, err: health.last_error });

      // The scheduler retries by itself, each wait twice the one before (200 ms, 400 ms, …).
      await until(() => failures().length >= 3, 'two scheduled retries');
      expect(
        failures()
          .slice(1, 3)
          .map((l) => [l.reason, l.attempt]),
      ).toEqual([
        ['scheduled', 2],
        ['scheduled', 3],
      ]);
      const [a2, a3] = failures()
        .slice(1, 3)
        .map((l) => Date.parse(l.time));
      expect(a3! - a2!).toBeGreaterThanOrEqual(400);

      // Fixed: the next retry succeeds, the error clears, new connections get the new certificate.
      await pebble.dnsControl('/clear-a', { host: NAME });
      const ok = await until(async () => {
        const a = await call(s, pebble.root, '/healthz');
        return a.cert.fingerprint256 !== fp1 && a.json.tls.last_error === null && a;
      }, 'the retry after the fix');
      expect(ok.json.tls.certificate_fingerprint_sha256).toBe(ok.cert.fingerprint256);
      const after = (await call(s, pebble.root, '/v1/tls')).json;
      expect(after).toMatchObject({ lastError: null, nextAttemptAt: after.certificate.renewAt });
      expect(lines.some((l) => l.msg === 'TLS certificate renewed' && l.reason === 'scheduled')).toBe(true);

      // A restart past the renewal point while the ACME server still fails: start-up uses the stored certificate
      // (valid until notAfter) and keeps retrying, instead of refusing to start.
      await s.close();
      await breakChallenge(dataDir);
      const shift = 4 * 365 * 86_400_000; // pebble's certificates live 5 years: four years on is past 2/3, not expired
      lines.length = 0;
      s = await startServer(acmeOptions(pebble, dataDir, { ...logged, tlsTuning: { retryMinMs: 200, retryMaxMs: 2000, now: () => Date.now() + shift } }));
      const served = await call(s, pebble.root, '/healthz');
      expect(served.cert.fingerprint256).toBe(ok.cert.fingerprint256);
      await until(() => failures().length >= 1, 'the failed renewal after the restart');
      expect((await call(s, pebble.root, '/healthz')).json.tls.last_error).toMatch(/127\.0\.0\.2/);
    } finally {
      await s.close();
      await pebble.dnsControl('/clear-a', { host: NAME });
    }
  });

  it('stops start-up with a one-line error when the first order fails', async () => {
    await pebble.dnsControl('/add-a', { host: 'broken.test', addresses: ['127.0.0.2'] });
    const dataDir = data();
    const start = startServer(acmeOptions(pebble, dataDir, { tlsNames: ['broken.test'] }));
    const err = await start.then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^TLS \(acme\): .*127\.0\.0\.2/);
    expect(err?.message).not.toContain('\n');
    expect(fs.existsSync(path.join(dataDir, 'tls', 'acme', 'cert.crt'))).toBe(false);

    const missing = path.join(dataDir, 'no-such-ca.pem');
    await expect(startServer(acmeOptions(pebble, dataDir, { acmeCaFile: missing }))).rejects.toThrow(
      `TLS (acme): cannot read --acme-ca-file ${missing}: ENOENT`,
    );
    await expect(startServer(acmeOptions(pebble, dataDir, { tlsNames: ['*.hearth.test'] }))).rejects.toThrow(
      'TLS (acme): *.hearth.test can only be validated by DNS-01: set --acme-dns-hook',
    );
  });

  it('issues by DNS-01 through the DNS hook, with no plain listener', async () => {
    const dataDir = data();
    const hook = path.join(dataDir, 'dns-hook.mjs');
    // <command> present|cleanup <record> <value>: publish or remove the TXT record at pebble-challtestsrv, and note the call.
    fs.writeFileSync(
      hook,
      `
const [action, record, value] = process.argv.slice(2);
(await import('node:fs')).appendFileSync(${JSON.stringify(path.join(dataDir, 'hook.log'))}, [action, record, value].join(' ') + '\\n');
const r = await fetch('${pebble.challtestsrv}/' + (action === 'present' ? 'set-txt' : 'clear-txt'), { method: 'POST', body: JSON.stringify({ host: record + '.', value }) });
if (!r.ok) throw new Error('challtestsrv: ' + r.status);
`,
    );
    const s = await startServer(acmeOptions(pebble, dataDir, { acmeDnsHook: `${process.execPath} ${hook}` }));
    try {
      expect(s.redirectUrl).toBeNull();
      const st = await call(s, pebble.root, '/v1/tls');
      expect(st.cert.checkHost(NAME)).toBe(NAME);
      expect(st.json).toMatchObject({ mode: 'acme', lastError: null, source: { challenge: 'dns-01', lastOrder: { challenge: 'dns-01' } } });
      const calls = fs.readFileSync(path.join(dataDir, 'hook.log'), 'utf8').trim().split('\n');
      expect(calls).toHaveLength(2);
      expect(calls[0]).toMatch(/^present _acme-challenge\.hearth\.test [A-Za-z0-9_-]{43}$/);
      expect(calls[1]).toBe(calls[0]!.replace('present', 'cleanup')); // the same record and value
    } finally {
      await s.close();
    }
  });
});
