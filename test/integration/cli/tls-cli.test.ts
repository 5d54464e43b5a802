import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pairDevice, type ScriptedAuthenticator } from '../../helpers/authenticator.ts';
import { type CliRun, printed, runCli, startCli } from '../../helpers/cli.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { resolveTestHosts, testHostsEnv } from '../../helpers/test-hosts.ts';
import { makeTestCa, type TestCa } from '../mail/test-ca.ts';

/**
 * The `hearth` CLI against a real server with `--tls internal`, reached as https://hearth.test:<port> (the CLI's
 * `dns.lookup` maps hearth.test and other.test to 127.0.0.1 through test/helpers/test-hosts.ts): `--ca-file` /
 * HEARTH_CA_FILE for every command that talks to a server, `hearth login --user` and its refresh included; the
 * errors of an untrusted certificate; `hearth tls status|renew|export-ca`.
 */
/** A terminal sign-in waits for at least one polling interval (5 s) of the real CLI. */
const SLOW = 120_000;
const PASSWORD = 'correct horse battery';
const HOSTS = ['hearth.test', 'other.test'];

let work: string;
let configDir: string;
const cliEnv = (env: Record<string, string>) => ({ HEARTH_CONFIG_DIR: configDir, ...testHostsEnv(HOSTS), ...env });
const start = (args: string[], env: Record<string, string> = {}): CliRun => startCli(args, { cwd: work, env: cliEnv(env) });
const hearth = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: work, env: cliEnv(env) });
const ok = (r: { code: number; stdout: string; stderr: string }) => {
  expect(r.code, r.stderr).toBe(0);
  return r;
};

let s: TestServer;
/** https://hearth.test:<port>, the server's public address. */
let base: string;
let caFile: string;
let caFingerprint: string;
let conn: string[];
let otherCa: TestCa;

beforeAll(async () => {
  work = tempDir('hearth-tls-cli-');
  configDir = path.join(work, 'config');
  // The approval protocol needs an authenticator origin; the scripted phone below sends none.
  s = await startTestServer({ tls: 'internal', tlsNames: ['hearth.test'], authenticatorOrigin: 'https://auth.hearth.test' });
  base = s.publicUrl;
  expect(base).toMatch(/^https:\/\/hearth\.test:\d+$/);
  caFingerprint = s.tls.status().ca!.fingerprintSha256;
  caFile = path.join(work, 'hearth-ca.pem');
  fs.writeFileSync(caFile, s.tls.caPem()!);
  conn = ['--url', base, '--token', s.token];
  otherCa = makeTestCa('Some Other CA');
  // This test process reaches the server by its public name too, trusting its root.
  resolveTestHosts(HOSTS);
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), s.tls.caPem()!]);
}, SLOW);
afterAll(async () => {
  await s?.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

/**
 * The code of an untrusted chain. The server sends its leaf alone (UNABLE_TO_VERIFY_LEAF_SIGNATURE) until a renewal
 * builds a new secure context in this process, whose default trust now holds the root: OpenSSL then completes the
 * chain it sends with it (SELF_SIGNED_CERT_IN_CHAIN). Either way the client has no trusted root.
 */
const UNTRUSTED = '(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN)';
const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The first three lines of the advice for an untrusted certificate. */
const hint = (url: string) =>
  new RegExp(
    `^hearth: the certificate of ${esc(url)} is not trusted here \\(${UNTRUSTED}\\)\\.\n` +
      `  If the server runs with its own authority \\(--tls internal\\), fetch its root once:\n` +
      `    hearth tls export-ca --url ${esc(url)} --out hearth-ca\\.pem\n`,
  );

describe('hearth tls export-ca', () => {
  it(
    'before the root is trusted: downloads it with checks off for that request only, says so, prints the fingerprint',
    async () => {
      const out = path.join(work, 'fetched.pem');
      const r = ok(await hearth(['tls', 'export-ca', '--url', base, '--out', out]));
      expect(r.stdout).toBe('');
      expect(new crypto.X509Certificate(fs.readFileSync(out)).raw.equals(new crypto.X509Certificate(s.tls.caPem()!).raw)).toBe(true);
      expect(r.stderr).toContain(`SHA-256 fingerprint: ${caFingerprint}\n`);
      expect(r.stderr).toMatch(/^Root: CN=Hearth Local Authority - \d{4} ECC Root, O=Hearth \(valid until \S+\)$/m);
      expect(r.stderr).toContain(
        "Warning: this machine does not trust the server's certificate yet, so the root was downloaded with certificate checks off (for this one request only)",
      );
      expect(r.stderr).toContain('compare the fingerprint above with the one the server shows');
      expect(r.stderr).toContain(`Wrote ${out}; use it with --ca-file ${out}`);
      // to standard output without --out
      const piped = ok(await hearth(['tls', 'export-ca', '--url', base]));
      expect(piped.stdout).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n$/);
      expect(new crypto.X509Certificate(piped.stdout).fingerprint256).toBe(caFingerprint);
    },
    SLOW,
  );

  it(
    '--fingerprint: a match is said, a mismatch is refused and nothing is written; a malformed one is refused first',
    async () => {
      const out = path.join(work, 'checked.pem');
      const hex = caFingerprint.replace(/:/g, '').toLowerCase();
      const match = ok(await hearth(['tls', 'export-ca', '--url', base, '--out', out, '--fingerprint', hex]));
      expect(match.stderr).toContain('The fingerprint matches --fingerprint.');
      expect(match.stderr).not.toContain('Warning');
      expect(fs.existsSync(out)).toBe(true);
      fs.rmSync(out);

      const wrong = caFingerprint.slice(0, -2) + (caFingerprint.endsWith('00') ? '11' : '00');
      const mismatch = await hearth(['tls', 'export-ca', '--url', base, '--out', out, '--fingerprint', wrong]);
      expect(mismatch.code).toBe(1);
      expect(mismatch.stderr).toBe(
        `hearth: the root ${base}/ca.pem served has the SHA-256 fingerprint ${caFingerprint}, not the one you gave: do not trust it ` +
          '(something between you and the server may have replaced it, or the server made a new root). Nothing was written\n',
      );
      expect(fs.existsSync(out)).toBe(false);

      const bad = await hearth(['tls', 'export-ca', '--url', base, '--fingerprint', 'AB:CD']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toBe('hearth: --fingerprint must be a SHA-256 fingerprint: 64 hexadecimal digits, colons allowed (got "AB:CD")\n');
    },
    SLOW,
  );

  it(
    'once trusted (--ca-file), the download is verified',
    async () => {
      const r = ok(await hearth(['tls', 'export-ca', '--url', base, '--ca-file', caFile]));
      expect(r.stderr).toContain('Downloaded over a connection this machine already trusts.');
      expect(r.stderr).not.toContain('Warning');
    },
    SLOW,
  );

  it(
    'refuses a root that did not issue the certificate the server presented',
    async () => {
      // Something that is not this Hearth answers at the address: its own certificate, Hearth's root at /ca.pem.
      const impostor = https.createServer({ key: otherCa.server.key, cert: otherCa.server.cert }, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(s.tls.caPem());
      });
      await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
      try {
        const url = `https://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
        const out = path.join(work, 'impostor.pem');
        const r = await hearth(['tls', 'export-ca', '--url', url, '--out', out]);
        expect(r.code).toBe(1);
        expect(r.stderr).toBe(
          `hearth: the root ${url}/ca.pem served (SHA-256 ${caFingerprint}) did not issue the certificate the server presented: do not trust it (something else may be answering at this address)\n`,
        );
        expect(fs.existsSync(out)).toBe(false);
      } finally {
        await new Promise<void>((resolve) => impostor.close(() => resolve()));
      }
    },
    SLOW,
  );

  it(
    'a server without its own authority answers 404 not_found, said in one line',
    async () => {
      const plain = await startTestServer();
      try {
        const r = await hearth(['tls', 'export-ca', '--url', plain.url]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^hearth: this server has no certificate authority of its own .* \(not_found, HTTP 404\)\n$/);
      } finally {
        await plain.stop();
      }
    },
    SLOW,
  );
});

describe('--ca-file and HEARTH_CA_FILE', () => {
  it(
    'without them, an untrusted certificate says how to fetch and check the root',
    async () => {
      const r = await hearth(['tls', 'status', ...conn]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(hint(base));
      expect(r.stderr).toContain('check that the SHA-256 fingerprint it prints is the one the server shows');
      expect(r.stderr).toContain('then add --ca-file hearth-ca.pem to your commands (or set HEARTH_CA_FILE=hearth-ca.pem)');
    },
    SLOW,
  );

  it(
    'after the command, before it (`hearth --ca-file <pem> <command>`) and in HEARTH_CA_FILE, for the existing commands too',
    async () => {
      for (const [args, env] of [
        [['tls', 'status', ...conn, '--ca-file', caFile], {}],
        [['--ca-file', caFile, 'tls', 'status', ...conn], {}],
        [['tls', 'status', ...conn], { HEARTH_CA_FILE: caFile }],
      ] as Array<[string[], Record<string, string>]>) {
        const r = ok(await hearth(args, env));
        expect(r.stdout, args.join(' ')).toMatch(/^mode:\s+internal$/m);
      }
      // the flag wins over the variable
      const both = ok(await hearth(['tls', 'status', ...conn, '--ca-file', caFile], { HEARTH_CA_FILE: path.join(work, 'missing.pem') }));
      expect(both.stdout).toMatch(/^mode:\s+internal$/m);
      // a command that existed before TLS
      const ns = ok(await hearth(['ns', 'list', ...conn, '--ca-file', caFile, '--json']));
      expect(JSON.parse(ns.stdout)).toEqual([]);
      // a DER file (/ca.crt) is accepted as well
      const der = path.join(work, 'hearth-ca.crt');
      fs.writeFileSync(der, Buffer.from(await (await fetch(`${base}/ca.crt`)).arrayBuffer()));
      ok(await hearth(['tls', 'status', ...conn, '--ca-file', der]));
    },
    SLOW,
  );

  it(
    'a file that cannot be read or holds no certificate is a one-line error; the global flag on an offline command is refused',
    async () => {
      const notPem = path.join(work, 'notes.txt');
      fs.writeFileSync(notPem, 'not a certificate\n');
      const broken = path.join(work, 'broken.pem');
      fs.writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      const cases: Array<[string[], Record<string, string>, string]> = [
        [['--ca-file', path.join(work, 'missing.pem')], {}, `hearth: --ca-file ${path.join(work, 'missing.pem')}: cannot read it (no such file)\n`],
        [[], { HEARTH_CA_FILE: work }, `hearth: HEARTH_CA_FILE ${work}: cannot read it (a folder, not a file)\n`],
        [
          ['--ca-file', notPem],
          {},
          `hearth: --ca-file ${notPem}: no certificate in it (expected PEM with -----BEGIN CERTIFICATE----- blocks, or a DER certificate)\n`,
        ],
      ];
      for (const [args, env, message] of cases) {
        const r = await hearth(['tls', 'status', ...conn, ...args], env);
        expect(r.code, message).toBe(1);
        expect(r.stderr).toBe(message);
      }
      const r = await hearth(['tls', 'status', ...conn, '--ca-file', broken]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^hearth: --ca-file ${broken}: certificate 1 of 1 is not a valid X\\.509 certificate \\(.+\\)\\n$`));

      const offline = await hearth(['--ca-file', caFile, 'tokens', 'list', '--data', work]);
      expect(offline.code).toBe(1);
      expect(offline.stderr).toBe('hearth: --ca-file is for the commands that talk to a running server; `hearth tokens list` does not\n');
    },
    SLOW,
  );

  it(
    'another root in --ca-file, and a name the certificate does not hold, say what is wrong',
    async () => {
      const other = path.join(work, 'other-ca.pem');
      fs.writeFileSync(other, otherCa.caPem);
      const wrongRoot = await hearth(['tls', 'status', ...conn, '--ca-file', other]);
      expect(wrongRoot.code).toBe(1);
      expect(wrongRoot.stderr).toMatch(
        new RegExp(
          `^hearth: the certificate of ${esc(base)} is not trusted \\(${UNTRUSTED}\\), even with --ca-file ${esc(other)}: that file does not hold the authority that issued it ` +
            esc(
              `(did the server make a new root?). Fetch the root again with \`hearth tls export-ca --url ${base} --out hearth-ca.pem\` and compare its fingerprint before you use it\n`,
            ) +
            '$',
        ),
      );
      const otherName = base.replace('hearth.test', 'other.test');
      const wrongName = await hearth(['tls', 'status', '--url', otherName, '--token', s.token, '--ca-file', caFile]);
      expect(wrongName.code).toBe(1);
      expect(wrongName.stderr).toBe(
        `hearth: the certificate of ${otherName} does not name other.test (ERR_TLS_CERT_ALTNAME_INVALID): use the server's public address (its /healthz says which, as public_url), or have the administrator add this name with --tls-name\n`,
      );
    },
    SLOW,
  );

  it(
    "`profiles put --ca-file` stays the profile's CA; the trust for Hearth goes before the command",
    async () => {
      const office = path.join(work, 'office-ca.pem');
      fs.writeFileSync(office, otherCa.caPem);
      const profile = { name: 'Office', fromAddress: 'noreply@example.test', smtpHost: '127.0.0.1', smtpPort: 2525, smtpSecure: false };
      const r = ok(
        await hearth([
          '--ca-file',
          caFile,
          'admin',
          'outgoing-mail',
          'profiles',
          'put',
          'office',
          '--config',
          JSON.stringify(profile),
          '--ca-file',
          office,
          ...conn,
        ]),
      );
      const fp = new crypto.X509Certificate(otherCa.caPem).fingerprint256;
      expect(r.stdout).toContain(`trusted CA ${fp}`);
      const stored = await (await s.api('/api/admin/core/outgoing-mail/profiles/office')).json();
      expect(stored.tlsCa.map((c: { fingerprint256: string }) => c.fingerprint256)).toEqual([fp]);
    },
    SLOW,
  );
});

describe('hearth tls status and renew', () => {
  it(
    'status shows the mode, the certificate and the root; --json is GET /v1/tls',
    async () => {
      const st = s.tls.status();
      const r = ok(await hearth(['tls', 'status', ...conn, '--ca-file', caFile]));
      expect(r.stdout).toMatch(/^mode:\s+internal$/m);
      expect(r.stdout).toMatch(new RegExp(`^public address:\\s+${base}$`, 'm'));
      expect(r.stdout).toMatch(/^certificate:\s+CN=hearth\.test$/m);
      expect(r.stdout).toMatch(/^ {2}covers:\s+hearth\.test, .*localhost, 127\.0\.0\.1$/m);
      expect(r.stdout).toMatch(new RegExp(`^  SHA-256:\\s+${st.certificate!.fingerprintSha256}$`, 'm'));
      expect(r.stdout).toMatch(/^root \(CA\):\s+CN=Hearth Local Authority - \d{4} ECC Root, O=Hearth$/m);
      expect(r.stdout).toMatch(new RegExp(`^  SHA-256:\\s+${caFingerprint}$`, 'm'));
      expect(r.stdout).toMatch(/^last error:\s+none$/m);
      expect(r.stdout).toMatch(/^HSTS:\s+off$/m);

      const json = ok(await hearth(['tls', 'status', ...conn, '--ca-file', caFile, '--json']));
      expect(JSON.parse(json.stdout)).toEqual(await (await s.api('/v1/tls')).json());
    },
    SLOW,
  );

  it(
    'renew installs a new certificate that new connections get, and prints it',
    async () => {
      const before = s.tls.certificate()!.fingerprintSha256;
      const r = ok(await hearth(['tls', 'renew', ...conn, '--ca-file', caFile]));
      const after = s.tls.certificate()!.fingerprintSha256;
      expect(after).not.toBe(before);
      expect(r.stdout.split('\n')[0]).toBe(`Renewed: the certificate is valid until ${s.tls.certificate()!.notAfter} (SHA-256 ${after}).`);
      expect(r.stdout).toMatch(new RegExp(`^  SHA-256:\\s+${after}$`, 'm'));
      // a new TLS connection is handed the renewed certificate
      const presented = await new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: s.port, servername: 'hearth.test' }, () => {
          resolve(socket.getPeerX509Certificate()!.fingerprint256);
          socket.end();
        });
        socket.on('error', reject);
      });
      expect(presented).toBe(after);
      expect(ok(await hearth(['tls', 'renew', ...conn, '--ca-file', caFile, '--json'])).stdout).toContain('"mode": "internal"');
    },
    SLOW,
  );

  it(
    'renew on a server without TLS is 409 tls_off',
    async () => {
      const plain = await startTestServer();
      try {
        const r = await hearth(['tls', 'renew', '--url', plain.url, '--token', plain.token]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(/^hearth: TLS is off: .* \(tls_off, HTTP 409\)\n$/);
        const st = ok(await hearth(['tls', 'status', '--url', plain.url, '--token', plain.token]));
        expect(st.stdout).toMatch(/^mode:\s+off \(plain HTTP; start the server with --tls internal\|acme\|files\)$/m);
      } finally {
        await plain.stop();
      }
    },
    SLOW,
  );
});

describe('hearth login --user over HTTPS', () => {
  let phone: ScriptedAuthenticator;
  beforeAll(async () => {
    const setup = await fetch(`${base}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ login: 'root', password: PASSWORD, email: 'root@example.test' }),
    });
    expect(setup.status).toBe(201);
    phone = await pairDevice({ url: base }, await signIn({ url: base }, 'root', PASSWORD), 'Root phone');
  }, SLOW);

  async function approve(r: CliRun): Promise<void> {
    const code = (await printed(r, /compare the code (\d{6})\n/, 'the comparison code'))[1]!;
    const inbox = await phone.command({ operation: 'inbox', accept: ['terminal-logins'] });
    const e = (inbox.body.logins as Array<Record<string, any>>).find((l) => l.comparison === code)!;
    const d = await phone.command({ operation: 'decide', requestId: e.requestId, challenge: e.challenge, comparison: e.comparison, decision: 'approve' });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
  }

  it(
    'without --ca-file, login says what to do; with it, the sign-in is stored and later commands use and refresh it',
    async () => {
      const refused = await hearth(['login', '--user', 'root', '--url', base]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(hint(base));

      const r = start(['login', '--user', 'root', '--url', base, '--ca-file', caFile]);
      await approve(r);
      expect(await r.done, r.stderr()).toBe(0);
      expect(r.stdout()).toBe(`Signed in to ${base} as root\n`);

      // a command without --token uses the sign-in
      const credentials = path.join(configDir, 'credentials.json');
      const stored = () => JSON.parse(fs.readFileSync(credentials, 'utf8')).servers[base];
      ok(await hearth(['tls', 'status', '--url', base], { HEARTH_CA_FILE: caFile }));

      // an access token about to expire is refreshed first (discovery and the token endpoint, over TLS)
      const expire = () => {
        const file = JSON.parse(fs.readFileSync(credentials, 'utf8'));
        file.servers[base].expiresAt = new Date(Date.now() - 1000).toISOString();
        fs.writeFileSync(credentials, JSON.stringify(file));
      };
      expire();
      const noTrust = await hearth(['tls', 'status', '--url', base]);
      expect(noTrust.code).toBe(1);
      expect(noTrust.stderr).toMatch(hint(base));
      const oldToken = stored().accessToken;
      const refreshed = ok(await hearth(['tls', 'status', '--url', base, '--ca-file', caFile]));
      expect(refreshed.stdout).toMatch(/^mode:\s+internal$/m);
      expect(stored().accessToken).not.toBe(oldToken);
      expect(Date.parse(stored().expiresAt)).toBeGreaterThan(Date.now());

      // logout revokes at the server over TLS too
      const out = ok(await hearth(['logout', '--url', base, '--ca-file', caFile]));
      expect(out.stdout).toBe(`Signed out of ${base}\n`);
      expect(out.stderr).toBe('');
    },
    SLOW,
  );
});
