/**
 * `hearth tls status|renew|export-ca`: the certificate of a running server (`GET /v1/tls`, `POST /v1/tls/renew`, admin)
 * and the root of its own certificate authority (`GET /ca.pem`, public).
 *
 * `export-ca` is how a machine comes to trust a server running `--tls internal`, so it must work before the root is
 * trusted. It first asks over a verified connection (the system's roots and `--ca-file`). Only when the server's
 * certificate is not trusted does it download the root once more with certificate checks off — for that one request,
 * on a connection of its own, never for anything else — and says so: the file is then only as good as the comparison
 * of its SHA-256 fingerprint with the one the server shows over a channel the user trusts (its admin UI, or
 * `export-ca` run on the server machine itself). `--fingerprint <sha256>` makes the command do that comparison and
 * refuse a root that does not match. Either way the root must have issued the certificate the server presented.
 */

import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import type { Command } from 'commander';
import { cliEnvironment } from '../../core/config/environment.ts';
import type { TlsStatusBody } from '../../identity/contract.ts';
import { type ClientOptions, DEFAULT_URL, HearthClient, serverOptions } from '../client.ts';
import { CliError, printFields, printJson } from '../output.ts';
import { connectionError, isUntrusted, parseCertificates, talksToServer } from '../trust.ts';

type TlsStatus = TlsStatusBody;
const HTTP_TIMEOUT_MS = 20_000;
/** A root certificate is a few hundred bytes; more is not what /ca.pem serves. */
const MAX_ROOT_BYTES = 64 * 1024;
const serverUrl = (url?: string) => (url ?? cliEnvironment().url ?? DEFAULT_URL).replace(/\/+$/, '');

/** `AB:CD:…`, `abcd…` or `sha256:…` → 64 lowercase hex digits; a CliError for anything else. */
export function normalizeFingerprint(value: string): string {
  const hex = value
    .trim()
    .replace(/^sha-?256[:=]/i, '')
    .replace(/[\s:]/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hex))
    throw new CliError(`--fingerprint must be a SHA-256 fingerprint: 64 hexadecimal digits, colons allowed (got ${JSON.stringify(value)})`);
  return hex;
}

function printStatus(s: TlsStatus): void {
  if (s.mode === 'off') {
    printFields([
      ['mode', 'off (plain HTTP; start the server with --tls internal|acme|files)'],
      ['public address', s.publicUrl],
    ]);
    return;
  }
  const c = s.certificate;
  const fields: Array<[string, unknown]> = [
    ['mode', s.mode],
    ['public address', s.publicUrl],
    ['names asked for', s.names],
    ['certificate', c?.subject ?? 'none'],
  ];
  if (c) {
    fields.push(
      ['  issued by', c.issuer],
      ['  covers', c.names],
      ['  valid', `${c.notBefore} to ${c.notAfter}`],
      ['  renews at', c.renewAt ?? 'when its files change (files mode)'],
      ['  SHA-256', c.fingerprintSha256],
    );
  }
  if (s.ca) fields.push(['root (CA)', s.ca.subject], ['  valid until', s.ca.notAfter], ['  SHA-256', s.ca.fingerprintSha256]);
  fields.push(
    ['last renewal', s.lastRenewalAt],
    ['last error', s.lastError ? `${s.lastError.message} (${s.lastError.at})` : 'none'],
    ['next attempt', s.nextAttemptAt],
    ['HSTS', s.hstsMaxAge === null ? 'off' : `max-age=${s.hstsMaxAge}`],
  );
  for (const [k, v] of Object.entries(s.source)) fields.push([k, v !== null && typeof v === 'object' ? JSON.stringify(v) : v]);
  printFields(fields);
}

interface Download {
  body: Buffer;
  /** The certificates the server presented on this connection, leaf first (the unverified download only). */
  presented: crypto.X509Certificate[] | null;
  verified: boolean;
}

/** The server's error envelope as one line, or the status. */
function refusal(status: number, body: Buffer): CliError {
  try {
    const e = JSON.parse(body.toString('utf8')) as { error?: string; message?: string };
    if (e.message) return new CliError(`${e.message} (${e.error}, HTTP ${status})`);
  } catch {
    // not JSON
  }
  return new CliError(`GET /ca.pem answered HTTP ${status}`);
}

/** GET /ca.pem over a connection verified as every other request of the CLI is. Null: the certificate is not trusted. */
async function verifiedDownload(base: string): Promise<Download | null> {
  let res: Response;
  try {
    res = await fetch(`${base}/ca.pem`, { redirect: 'manual', signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (err) {
    if (base.startsWith('https:') && isUntrusted(err)) return null;
    throw connectionError('Hearth', base, err);
  }
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location) {
    await res.body?.cancel();
    throw new CliError(`${base} answers at ${new URL(location, base).origin}: use --url ${new URL(location, base).origin}`);
  }
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw refusal(res.status, body);
  return { body, presented: null, verified: base.startsWith('https:') };
}

/**
 * GET /ca.pem with certificate checks off, for this one request only (its own connection, no agent, nothing shared
 * with other requests), keeping the certificates the server presented.
 */
function unverifiedDownload(base: string): Promise<Download> {
  return new Promise<Download>((resolve, reject) => {
    const req = https.get(`${base}/ca.pem`, { rejectUnauthorized: false, agent: false, timeout: HTTP_TIMEOUT_MS }, (res) => {
      const chain: crypto.X509Certificate[] = [];
      let peer = (res.socket as TLSSocket).getPeerCertificate(true);
      while (peer?.raw && !chain.some((c) => c.raw.equals(peer.raw))) {
        chain.push(new crypto.X509Certificate(peer.raw));
        peer = peer.issuerCertificate;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ROOT_BYTES) req.destroy(new CliError(`${base}/ca.pem sent more than ${MAX_ROOT_BYTES} bytes: that is not a root certificate`));
        else chunks.push(c);
      });
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        if (res.statusCode !== 200)
          reject(
            res.statusCode && res.statusCode >= 300 && res.statusCode < 400
              ? new CliError(`${base} redirects /ca.pem to ${res.headers.location}: use --url with that server's address`)
              : refusal(res.statusCode ?? 0, body),
          );
        else resolve({ body, presented: chain, verified: false });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })));
    req.on('error', (err) => reject(err instanceof CliError ? err : connectionError('Hearth', base, err)));
  });
}

export function registerTls(tls: Command): void {
  serverOptions(tls.command('status'))
    .description(
      'show the TLS mode, the certificate in use (names, validity, when it renews, SHA-256), the root of the internal authority and the last renewal error',
    )
    .option('--json', 'print JSON (as GET /v1/tls answers)')
    .action(async (opts: ClientOptions & { json?: boolean }) => {
      const s = await new HearthClient(opts).json<TlsStatus>('GET', '/v1/tls');
      if (opts.json) printJson(s);
      else printStatus(s);
    });

  serverOptions(tls.command('renew'))
    .description('renew the certificate now (internal: a new leaf; acme: a new order; files: read the files again); on failure the current one stays')
    .option('--json', 'print JSON (the new status)')
    .action(async (opts: ClientOptions & { json?: boolean }) => {
      const s = await new HearthClient(opts).json<TlsStatus>('POST', '/v1/tls/renew');
      if (opts.json) return printJson(s);
      process.stdout.write(`Renewed: the certificate is valid until ${s.certificate?.notAfter} (SHA-256 ${s.certificate?.fingerprintSha256}).\n`);
      printStatus(s);
    });

  talksToServer(tls.command('export-ca'))
    .description(
      "download the root of the server's own certificate authority (--tls internal) and print its SHA-256 fingerprint on stderr; " +
        'works before this machine trusts the server (the download is then not verified: compare the fingerprint, or pass --fingerprint)',
    )
    .option('--url <url>', `server address (HEARTH_URL, default ${DEFAULT_URL})`)
    .option('--out <file>', 'write the root (PEM) to this file instead of standard output')
    .option(
      '--fingerprint <sha256>',
      'the SHA-256 fingerprint the root must have (as the server shows it): a root that differs is refused and nothing is written',
    )
    .action(async (opts: { url?: string; out?: string; fingerprint?: string }) => {
      const base = serverUrl(opts.url);
      const expected = opts.fingerprint === undefined ? null : normalizeFingerprint(opts.fingerprint);
      const download = (await verifiedDownload(base)) ?? (await unverifiedDownload(base));
      const certs = parseCertificates(download.body, `${base}/ca.pem`);
      if (certs.length !== 1) throw new CliError(`${base}/ca.pem holds ${certs.length} certificates, not one root`);
      const root = certs[0]!;
      if (!root.ca) throw new CliError(`${base}/ca.pem is not a certificate authority (its basic constraints say CA:FALSE)`);
      const fingerprint = root.fingerprint256;
      if (download.presented) {
        // The root must be the one that issued what this server presented on the same connection.
        const issued = download.presented.some((c) => c.raw.equals(root.raw) || (c.checkIssued(root) && c.verify(root.publicKey)));
        if (!issued)
          throw new CliError(
            `the root ${base}/ca.pem served (SHA-256 ${fingerprint}) did not issue the certificate the server presented: do not trust it (something else may be answering at this address)`,
          );
      }
      if (expected !== null && fingerprint.replace(/:/g, '').toLowerCase() !== expected) {
        throw new CliError(
          `the root ${base}/ca.pem served has the SHA-256 fingerprint ${fingerprint}, not the one you gave: do not trust it (something between you and the server may have replaced it, or the server made a new root). Nothing was written`,
        );
      }
      const pem = root.toString();
      if (opts.out !== undefined) {
        const file = path.resolve(opts.out);
        const tmp = `${file}.tmp-${process.pid}`;
        try {
          fs.writeFileSync(tmp, pem, { mode: 0o644 });
          fs.renameSync(tmp, file);
        } catch (err) {
          fs.rmSync(tmp, { force: true });
          throw new CliError(`cannot write ${opts.out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      } else process.stdout.write(pem);
      const lines = [`Root: ${root.subject.replace(/\n/g, ', ')} (valid until ${new Date(root.validTo).toISOString()})`, `SHA-256 fingerprint: ${fingerprint}`];
      if (expected !== null) lines.push('The fingerprint matches --fingerprint.');
      else if (download.verified) lines.push(`Downloaded over a connection this machine already trusts.`);
      else {
        lines.push(
          `Warning: ${base.startsWith('https:') ? "this machine does not trust the server's certificate yet, so the root was downloaded with certificate checks off (for this one request only)" : 'the root was downloaded over plain HTTP'}: anyone between you and the server could have sent another one.`,
          'Before you use it, compare the fingerprint above with the one the server shows (its admin UI, or `hearth tls export-ca` run on the server machine itself), or run again with --fingerprint <sha256>.',
        );
      }
      if (opts.out !== undefined) lines.push(`Wrote ${opts.out}; use it with --ca-file ${opts.out} (or HEARTH_CA_FILE).`);
      process.stderr.write(`${lines.join('\n')}\n`);
    });
}
