/**
 * Which servers the `hearth` command trusts, and what it says when it does not.
 *
 * `--ca-file <pem>` (env `HEARTH_CA_FILE`) adds the certificates of a PEM file (a DER `.crt` is accepted too) to the
 * process's default trust, beside Node's bundled roots, before the command runs: every TLS connection it makes —
 * global `fetch` of the API client, `hearth login` and its refresh — then accepts a server whose chain ends at one
 * of them. Nothing else about verification changes (the name must still be in the certificate). The file is typically
 * the root of a server running `--tls internal`, fetched with `hearth tls export-ca` and checked by its fingerprint.
 *
 * A request that fails on the server's certificate becomes an error that says what to do about it.
 *
 * node:crypto and node:tls are loaded when a certificate is read (`process.getBuiltinModule`): every command loads this
 * module, and those two cost a command about half of a bare Node start.
 */

import type { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import type { Command } from 'commander';
import { cliEnvironment } from '../core/config/environment.ts';
import { CliError } from './output.ts';

export const CA_FILE_HELP = "also trust the certificate authorities in this PEM file, e.g. a server's own root from `hearth tls export-ca` (HEARTH_CA_FILE)";

/** The commands that talk to a server; false: `--ca-file` after the command means something else there. */
const serverCommands = new WeakMap<Command, { ownOption: boolean }>();

/**
 * Marks a command as one that talks to a server and gives it `--ca-file` (unless the command has an option of that
 * name meaning something else: then only `hearth --ca-file <pem> <command>` and HEARTH_CA_FILE give the trust).
 */
export function talksToServer(c: Command, opts: { caFileOption?: boolean } = {}): Command {
  const ownOption = opts.caFileOption !== false;
  serverCommands.set(c, { ownOption });
  return ownOption ? c.option('--ca-file <pem>', CA_FILE_HELP) : c;
}

/** Whether a command talks to a server (see talksToServer). */
export function isServerCommand(c: Command): boolean {
  return serverCommands.has(c);
}

/**
 * Before a command runs: the trust file of `hearth <command> --ca-file`, else of `hearth --ca-file <pem> <command>`,
 * else HEARTH_CA_FILE, for the commands that talk to a server. The global option on any other command is an error
 * (it would do nothing); the variable is ignored there.
 */
export function applyTrust(program: Command, action: Command): void {
  const global = program.opts().caFile as string | undefined;
  const server = serverCommands.get(action);
  if (!server) {
    if (global !== undefined) throw new CliError(`--ca-file is for the commands that talk to a running server; \`hearth ${commandPath(action)}\` does not`);
    return;
  }
  const own = server.ownOption ? (action.opts().caFile as string | undefined) : undefined;
  const file = own ?? global;
  if (file !== undefined) trustCaFile(file);
  else {
    const fromEnv = cliEnvironment().caFile;
    if (fromEnv) trustCaFile(fromEnv, 'HEARTH_CA_FILE');
  }
}

function commandPath(c: Command): string {
  const names: string[] = [];
  for (let at: Command | null = c; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The `--ca-file` of this process (for the hints), once loaded. */
let trusted: string | null = null;

/**
 * The certificates of a PEM file (every `BEGIN CERTIFICATE` block) or of a DER file. A one-line CliError names the
 * file and the reason when it cannot be read or holds no valid certificate.
 */
export function readCertificates(file: string, flag = '--ca-file'): X509Certificate[] {
  let data: Buffer;
  try {
    data = fs.readFileSync(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new CliError(
      `${flag} ${file}: cannot read it (${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'a folder, not a file' : (e.code ?? e.message)})`,
    );
  }
  return parseCertificates(data, `${flag} ${file}`);
}

/** The certificates of PEM text (every `BEGIN CERTIFICATE` block) or of one DER certificate; `label` starts the errors. */
export function parseCertificates(data: Buffer, label: string): X509Certificate[] {
  const crypto = process.getBuiltinModule('node:crypto');
  const blocks = data.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (!blocks) {
    // Not PEM: maybe the DER form (/ca.crt).
    try {
      return [new crypto.X509Certificate(data)];
    } catch {
      throw new CliError(`${label}: no certificate in it (expected PEM with -----BEGIN CERTIFICATE----- blocks, or a DER certificate)`);
    }
  }
  return blocks.map((pem, i) => {
    try {
      return new crypto.X509Certificate(pem);
    } catch (err) {
      throw new CliError(`${label}: certificate ${i + 1} of ${blocks.length} is not a valid X.509 certificate (${(err as Error).message})`);
    }
  });
}

/** Trusts the certificates of `file` for every TLS connection of this process, besides the default roots. */
export function trustCaFile(file: string, flag = '--ca-file'): void {
  const certs = readCertificates(file, flag);
  const tls = process.getBuiltinModule('node:tls');
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), ...certs.map((c) => c.toString())]);
  trusted = file;
}

/** Codes of a chain that ends at no trusted root. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
const OUT_OF_DATE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);

/** The error code of a failed `fetch` (its cause), or of a failed `https.request`. */
export function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.cause?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for a certificate whose chain ends at no root this process trusts (what `--ca-file` fixes). */
export const isUntrusted = (err: unknown) => UNTRUSTED.has(errorCode(err) ?? '');

/**
 * The CliError for a request to `url` that failed before any answer (`what`: what was asked, e.g. "Hearth"). A
 * certificate failure says what to do about it; anything else names the cause.
 */
export function connectionError(what: string, url: string, err: unknown): CliError {
  const code = errorCode(err);
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the text given
  }
  if (code && UNTRUSTED.has(code)) {
    if (trusted) {
      return new CliError(
        `the certificate of ${origin} is not trusted (${code}), even with --ca-file ${trusted}: that file does not hold the authority that issued it ` +
          `(did the server make a new root?). Fetch the root again with \`hearth tls export-ca --url ${origin} --out hearth-ca.pem\` and compare its fingerprint before you use it`,
      );
    }
    return new CliError(
      `the certificate of ${origin} is not trusted here (${code}).\n` +
        `  If the server runs with its own authority (--tls internal), fetch its root once:\n` +
        `    hearth tls export-ca --url ${origin} --out hearth-ca.pem\n` +
        `  check that the SHA-256 fingerprint it prints is the one the server shows (its admin UI, or \`hearth tls export-ca\` run on the server machine itself),\n` +
        `  then add --ca-file hearth-ca.pem to your commands (or set HEARTH_CA_FILE=hearth-ca.pem). See docs/cli.md, "Servers with their own certificate authority".`,
    );
  }
  if (code && WRONG_NAME.has(code)) {
    const host = new URL(origin).hostname;
    return new CliError(
      `the certificate of ${origin} does not name ${host} (${code}): use the server's public address (its /healthz says which, as public_url), ` +
        'or have the administrator add this name with --tls-name',
    );
  }
  if (code && OUT_OF_DATE.has(code)) {
    return new CliError(
      `the certificate of ${origin} is ${code === 'CERT_HAS_EXPIRED' ? 'expired' : 'not valid yet'} (${code}): check this machine's clock and the server's certificate renewal (\`hearth tls status\`, or the admin UI)`,
    );
  }
  const reason =
    (err as Error)?.name === 'TimeoutError' ? 'timed out' : (code ?? (err as { cause?: { message?: string } })?.cause?.message ?? (err as Error)?.message);
  if (what === 'Hearth')
    return new CliError(`cannot reach Hearth at ${url}${reason ? ` (${reason})` : ''}: is \`hearth serve\` running? (--url or HEARTH_URL)`);
  return new CliError(`cannot reach ${what} at ${url} (${reason})`);
}
