/**
 * A real ACME server for the `--tls acme` tests: Debian's `pebble` on free loopback ports in a temporary folder, with
 * `pebble-challtestsrv` as its DNS server (every name, `hearth.test` included, resolves to 127.0.0.1 unless a test
 * says otherwise; TXT records for DNS-01 are set through its management API). Pebble's own HTTPS certificate is made
 * here with openssl; `caFile` is that certificate, for Hearth's `acmeCaFile`. Pebble validates HTTP-01 on the one
 * port of its config (`httpPort`): start Hearth with `acmeHttpPort: pebble.httpPort`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import dns from 'node:dns';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { until } from './wait.ts';

export const PEBBLE = fs.existsSync('/usr/bin/pebble') && fs.existsSync('/usr/bin/pebble-challtestsrv');

export interface PebbleOptions {
  /** Lifetime of issued certificates in seconds (pebble's `certificateValidityPeriod`; its default is 5 years). */
  validitySeconds?: number;
}

export interface Pebble {
  /** The ACME directory URL. */
  directory: string;
  /** PEM file of pebble's own HTTPS certificate (trust it to talk to the directory). */
  caFile: string;
  /** The root that signs issued certificates (PEM, from the management API's `/roots/0`). */
  root: string;
  /** The port pebble connects to for HTTP-01 validation. */
  httpPort: number;
  /** pebble-challtestsrv's management API (`/set-txt`, `/clear-txt`, `/add-a`, `/clear-a`, …). */
  challtestsrv: string;
  /** POSTs a JSON body to the challtestsrv management API. */
  dnsControl(route: string, body: unknown): Promise<void>;
  /** Stops both processes and removes the folder. */
  close(): Promise<void>;
}

/** Runs `probe` until it returns true; fails with the process's output if the process exits or 15 s pass. */
async function started(what: string, proc: { child: ChildProcess; output: () => string }, probe: () => Promise<boolean>): Promise<void> {
  await until(
    async () => {
      if (await probe()) return true;
      if (proc.child.exitCode !== null) throw new Error(`${what} exited`);
      return false;
    },
    what,
    15_000,
  ).catch((err: Error) => {
    throw new Error(`${what} did not start (${err.message}): ${proc.output()}`);
  });
}

const accepts = (port: number) => () =>
  new Promise<boolean>((resolve) => {
    const s = net
      .connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      })
      .once('error', () => resolve(false));
  });

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (c: Buffer) => (out = (out + c.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function startPebble(opts: PebbleOptions = {}): Promise<Pebble> {
  if (!PEBBLE) throw new Error('pebble is not installed (apt-get install pebble)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-pebble-'));
  const caFile = path.join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      caFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  const [acmePort, managementPort, httpPort, tlsPort, dnsPort, dnsManagementPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort({ udp: true }),
    await freePort(),
  ];
  fs.writeFileSync(
    path.join(dir, 'pebble-config.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: caFile,
        privateKey: path.join(dir, 'key.pem'),
        httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
        ...(opts.validitySeconds ? { certificateValidityPeriod: opts.validitySeconds } : {}),
      },
    }),
  );

  const challtestsrv = `http://127.0.0.1:${dnsManagementPort}`;
  // Only DNS and the management API: HTTP-01 is Hearth's own plain listener.
  const dnsSrv = run(
    '/usr/bin/pebble-challtestsrv',
    [
      '-dns01',
      `127.0.0.1:${dnsPort}`,
      '-management',
      `127.0.0.1:${dnsManagementPort}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-defaultIPv4',
      '127.0.0.1',
      '-defaultIPv6',
      '',
    ],
    {},
    dir,
  );
  // Immediate validation, no rejected nonces, and every order validates its challenges anew (no authorization reuse).
  const env = { PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' };
  const acme = run('/usr/bin/pebble', ['-config', path.join(dir, 'pebble-config.json'), '-dnsserver', `127.0.0.1:${dnsPort}`], env, dir);
  const close = async () => {
    await Promise.all([stop(acme.child), stop(dnsSrv.child)]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const resolver = new dns.promises.Resolver({ timeout: 200, tries: 1 });
    resolver.setServers([`127.0.0.1:${dnsPort}`]);
    await started(
      'pebble-challtestsrv',
      dnsSrv,
      async () => (await accepts(dnsManagementPort)()) && (await resolver.resolve4('hearth.test').catch((): string[] => [])).includes('127.0.0.1'),
    );
    await started('pebble', acme, async () => (await accepts(acmePort)()) && (await accepts(managementPort)()));
    // The issuing root: pebble makes a new one on every start.
    const root = await new Promise<string>((resolve, reject) => {
      https
        .get(`https://127.0.0.1:${managementPort}/roots/0`, { ca: fs.readFileSync(caFile) }, (res) => {
          let body = '';
          res
            .setEncoding('utf8')
            .on('data', (c: string) => (body += c))
            .on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`pebble /roots/0: ${res.statusCode}`))));
        })
        .once('error', reject);
    });
    return {
      directory: `https://127.0.0.1:${acmePort}/dir`,
      caFile,
      root,
      httpPort,
      challtestsrv,
      async dnsControl(route, body) {
        const r = await fetch(challtestsrv + route, { method: 'POST', body: JSON.stringify(body) });
        if (!r.ok) throw new Error(`challtestsrv ${route}: ${r.status} ${await r.text()}`);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
