/**
 * The TLS side of the listeners: which certificate they present, renewing it at two thirds of its life (with retries
 * and backoff), swapping it into every listener's secure context without a restart or a dropped connection, and the
 * status the UI, `/healthz` and `hearth tls status` show. The certificate comes from a source: Hearth's internal CA,
 * ACME, or files. Private keys stay in this folder: the listeners are made here (`createServer`).
 */
import crypto from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import type { Logger } from '../../../core/logging/logger.ts';
import type { SecretStore } from '../../../core/secrets/secrets.ts';
import type { KekSettings } from '../keys.crypto.ts';
import type { AcmeSource } from './acme.ts';
import { createFilesSource } from './files.ts';
import type { InternalCa } from './internal-ca.ts';
import { type CertificateSource, canonicalName, sanList, type TlsMaterial, type TlsMode } from './source.ts';
import { TlsStore } from './tls.store.ts';

export type { CertificateSource, TlsMaterial, TlsMode } from './source.ts';

export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** Subject alternative names: DNS names and IP addresses. */
  names: string[];
  notBefore: string;
  notAfter: string;
  /** When Hearth renews it (two thirds of its life); null for `files` (renewed by whoever made the files). */
  renewAt: string | null;
  fingerprintSha256: string;
}

export interface TlsStatus {
  mode: TlsMode;
  /** The names and addresses asked for (`--tls-name`, the `.local` name, `localhost`, listening addresses). */
  names: string[];
  certificate: CertificateInfo | null;
  /** The internal CA's root (internal mode only). */
  ca: { subject: string; notAfter: string; fingerprintSha256: string } | null;
  lastRenewalAt: string | null;
  lastError: { message: string; at: string } | null;
  nextAttemptAt: string | null;
  /** `Strict-Transport-Security` max-age when it is sent. */
  hstsMaxAge: number | null;
  source: Record<string, unknown>;
}

export interface TlsServiceOptions {
  mode: TlsMode;
  dataDir: string;
  /** The KEK settings (server/core/config) that seal the root, leaf and ACME account keys. */
  kekSettings: KekSettings;
  secrets: SecretStore;
  logger: Logger;
  /** Every name and address the certificate should hold (recomputed on rebind). */
  names: () => string[];
  certFile?: string;
  keyFile?: string;
  acme?: { directory: string; email?: string; dnsHook?: string; caFile?: string };
  hsts?: number;
  now?: () => number;
  /** Internal leaf lifetime (tests: seconds). */
  leafLifetimeMs?: number;
  /** Retry backoff after a failed renewal: first delay, doubling up to the most. */
  retryMinMs?: number;
  retryMaxMs?: number;
}

export type TlsService = ReturnType<typeof createTlsService>;

export function createTlsService(opts: TlsServiceOptions) {
  const now = opts.now ?? Date.now;
  const log = opts.logger;
  const retryMin = opts.retryMinMs ?? 60_000;
  const retryMax = opts.retryMaxMs ?? 3_600_000;
  const servers = new Set<https.Server>();
  let source: CertificateSource | null = null;
  let context: { cert: string; key: string; minVersion: 'TLSv1.2' } | null = null;
  let info: CertificateInfo | null = null;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let nextAttemptAt: number | null = null;
  let lastRenewalAt: string | null = null;
  let lastError: { message: string; at: string } | null = null;
  let renewing: Promise<void> | null = null;
  let closed = false;
  let mode: TlsMode = opts.mode;
  let rootCache: { pem: string; cert: crypto.X509Certificate } | null = null;

  /** The source of a mode; the internal CA's X.509 library and the ACME client load only when their mode starts. */
  async function makeSource(mode: Exclude<TlsMode, 'off'>): Promise<CertificateSource> {
    const store = (area: string) => new TlsStore(opts.dataDir, area, opts.kekSettings, opts.secrets);
    if (mode === 'internal')
      return (await import('./internal-ca.ts')).createInternalCa({ store: store('internal'), names: opts.names, now, leafLifetimeMs: opts.leafLifetimeMs });
    if (mode === 'files') {
      return createFilesSource({ certFile: opts.certFile!, keyFile: opts.keyFile!, now, onChange: () => void reload('the certificate files changed') });
    }
    const a = opts.acme!;
    return (await import('./acme.ts')).createAcmeSource({
      store: store('acme'),
      directory: a.directory,
      email: a.email,
      dnsHook: a.dnsHook,
      caFile: a.caFile,
      names: opts.names(),
      now,
    });
  }

  function describe(m: TlsMaterial): CertificateInfo {
    const leaf = new crypto.X509Certificate(m.cert);
    const from = Date.parse(leaf.validFrom);
    const to = Date.parse(leaf.validTo);
    return {
      subject: leaf.subject.replace(/\n/g, ', '),
      issuer: leaf.issuer.replace(/\n/g, ', '),
      names: sanList(leaf),
      notBefore: new Date(from).toISOString(),
      notAfter: new Date(to).toISOString(),
      renewAt: source?.mode === 'files' ? null : new Date(from + ((to - from) * 2) / 3).toISOString(),
      fingerprintSha256: leaf.fingerprint256,
    };
  }

  function install(m: TlsMaterial): void {
    context = { cert: m.cert, key: m.key, minVersion: 'TLSv1.2' };
    info = describe(m);
    // New handshakes use the new certificate; connections already open keep theirs until they close.
    // The session ticket keys are kept: clients resume their TLS sessions across a renewal instead of a full handshake.
    for (const s of servers) s.setSecureContext({ ...context, ticketKeys: s.getTicketKeys() });
  }

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    nextAttemptAt = null;
    if (closed || !info || !source) return;
    let at: number | null = info.renewAt ? Date.parse(info.renewAt) : null;
    if (failures > 0) at = now() + Math.min(retryMax, retryMin * 2 ** (failures - 1));
    if (at === null) return;
    nextAttemptAt = at;
    // setTimeout holds at most ~24.8 days: wake up and look again.
    timer = setTimeout(() => void renew('scheduled').catch(() => undefined), Math.min(Math.max(0, at - now()), 2 ** 31 - 1));
    timer.unref();
  }

  /** A new certificate from the source, installed; failures are recorded, logged and retried with backoff. */
  function renew(reason: string): Promise<void> {
    renewing ??= (async () => {
      if (!source) throw new Error('TLS is off');
      if (nextAttemptAt !== null && reason === 'scheduled' && now() < nextAttemptAt - 1000) return; // woke early (long timer)
      try {
        install(await source.renew());
        failures = 0;
        lastError = null;
        lastRenewalAt = new Date(now()).toISOString();
        log.info({ reason, names: info!.names, notAfter: info!.notAfter, fingerprint: info!.fingerprintSha256 }, 'TLS certificate renewed');
      } catch (err) {
        failures++;
        lastError = { message: oneLine(err), at: new Date(now()).toISOString() };
        log.error({ reason, attempt: failures, err: lastError.message }, 'TLS certificate renewal failed; the current certificate stays in use');
        throw err;
      } finally {
        schedule();
      }
    })().finally(() => {
      renewing = null;
    });
    return renewing;
  }

  /** Files mode: the files changed or SIGHUP. A bad new pair is logged and the old certificate stays. */
  async function reload(reason: string): Promise<void> {
    if (!source || closed) return;
    await renew(reason).catch(() => undefined);
  }

  async function start(): Promise<void> {
    if (mode === 'off') return;
    try {
      source = await makeSource(mode);
      install(await source.start());
    } catch (err) {
      await source?.close();
      source = null;
      throw new Error(`TLS (${mode}): ${oneLine(err)}`);
    }
    lastRenewalAt = info!.notBefore;
    schedule();
  }

  return {
    get mode(): TlsMode {
      return mode;
    },
    get enabled(): boolean {
      return mode !== 'off';
    },
    /** Loads or obtains the first certificate; throws a one-line error when it cannot (start-up stops). */
    start,
    /**
     * Turns Hearth's own CA on or off while running (the desktop's "Share on the local network"). Listeners made
     * before keep their kind; the caller makes new ones. `acme` and `files` come only from the configuration.
     */
    async setMode(next: 'off' | 'internal'): Promise<void> {
      if (next === mode) return;
      if (mode !== 'off' && mode !== 'internal') throw new Error(`TLS is ${mode} by configuration and cannot be switched here`);
      await renewing?.catch(() => undefined);
      if (timer) clearTimeout(timer);
      await source?.close();
      source = null;
      context = info = null;
      failures = 0;
      lastError = null;
      nextAttemptAt = null;
      mode = next;
      await start().catch((err) => {
        mode = 'off';
        throw err;
      });
    },
    /**
     * An HTTPS listener presenting the current certificate, kept current on renewal. A plain HTTP request on it (someone
     * typed `http://` with the port) gets a plain 400 naming the https address (`httpsUrl`), as Go and Caddy answer,
     * instead of a reset connection.
     */
    createServer(options: https.ServerOptions, handler: http.RequestListener, httpsUrl?: () => string): https.Server {
      if (!context) throw new Error('TLS is not started');
      const server = https.createServer({ ...options, ...context }, handler);
      server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: tls.TLSSocket) => {
        const raw = (socket as unknown as { _parent?: import('node:net').Socket })._parent;
        if (err.code !== 'ERR_SSL_HTTP_REQUEST' || !raw?.writable) return;
        const body = `This port speaks HTTPS. Open ${httpsUrl?.() ?? 'it with https://'} instead.\n`;
        raw.end(
          `HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      servers.add(server);
      server.once('close', () => servers.delete(server));
      return server;
    },
    /** Renews now (the admin's "Renew now", `hearth tls renew`, SIGHUP in files mode). */
    async renew(): Promise<TlsStatus> {
      await renew('requested');
      return this.status();
    },
    reload,
    /** Internal mode: issues a new leaf when the names to cover changed (the listener moved). */
    async refreshNames(): Promise<void> {
      if (mode !== 'internal' || !info) return;
      const want = new Set(opts.names().map(canonicalName));
      const have = new Set(info.names.map(canonicalName));
      if (want.size === have.size && [...want].every((n) => have.has(n))) return;
      await renew('names changed');
    },
    /** The current certificate's public description (null when off). */
    certificate: () => info,
    /** HTTP-01: the key authorization for a token (acme mode). */
    challenge(token: string): string | null {
      return source?.mode === 'acme' ? (source as AcmeSource).challenge(token) : null;
    },
    hstsHeader(): string | null {
      return opts.hsts !== undefined && (mode === 'acme' || mode === 'files') ? `max-age=${opts.hsts}` : null;
    },
    /** The internal root (PEM), or null when TLS is not `internal`. */
    caPem(): string | null {
      return source?.mode === 'internal' ? (source as InternalCa).rootPem() : null;
    },
    status(): TlsStatus {
      const rootPem = this.caPem();
      if (rootPem !== rootCache?.pem) rootCache = rootPem ? { pem: rootPem, cert: new crypto.X509Certificate(rootPem) } : null;
      const root = rootCache?.cert ?? null;
      return {
        mode,
        names: mode === 'off' ? [] : opts.names(),
        certificate: info,
        ca: root
          ? { subject: root.subject.replace(/\n/g, ', '), notAfter: new Date(root.validTo).toISOString(), fingerprintSha256: root.fingerprint256 }
          : null,
        lastRenewalAt,
        lastError,
        nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
        hstsMaxAge: this.hstsHeader() ? opts.hsts! : null,
        source: source?.status() ?? {},
      };
    },
    async close(): Promise<void> {
      closed = true;
      if (timer) clearTimeout(timer);
      await renewing?.catch(() => undefined);
      await source?.close();
    },
  };
}

/** An iOS/macOS configuration profile that installs `rootPem` as a trusted root. */
export function mobileconfig(rootPem: string, label: string): string {
  const root = new crypto.X509Certificate(rootPem);
  const der = root.raw.toString('base64').replace(/.{52}/g, '$&\n\t\t\t');
  const fp = root.fingerprint256.replace(/:/g, '').toLowerCase();
  const uuid = (salt: string) => {
    const h = crypto
      .createHash('sha256')
      .update(salt + fp)
      .digest('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`.toUpperCase();
  };
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>PayloadContent</key>
	<array>
		<dict>
			<key>PayloadCertificateFileName</key>
			<string>hearth-ca.crt</string>
			<key>PayloadContent</key>
			<data>
			${der}
			</data>
			<key>PayloadDescription</key>
			<string>Trusts the certificate authority of ${esc(label)}</string>
			<key>PayloadDisplayName</key>
			<string>${esc(root.subject.replace(/\n/g, ', ').replace(/^.*CN=([^,]+).*$/s, '$1'))}</string>
			<key>PayloadIdentifier</key>
			<string>hearth.ca.root.${fp.slice(0, 16)}</string>
			<key>PayloadType</key>
			<string>com.apple.security.root</string>
			<key>PayloadUUID</key>
			<string>${uuid('root')}</string>
			<key>PayloadVersion</key>
			<integer>1</integer>
		</dict>
	</array>
	<key>PayloadDescription</key>
	<string>Lets this device open ${esc(label)} over HTTPS without warnings.</string>
	<key>PayloadDisplayName</key>
	<string>Hearth certificate authority (${esc(label)})</string>
	<key>PayloadIdentifier</key>
	<string>hearth.ca.${fp.slice(0, 16)}</string>
	<key>PayloadRemovalDisallowed</key>
	<false/>
	<key>PayloadType</key>
	<string>Configuration</string>
	<key>PayloadUUID</key>
	<string>${uuid('profile')}</string>
	<key>PayloadVersion</key>
	<integer>1</integer>
</dict>
</plist>
`;
}

function oneLine(err: unknown): string {
  const e = err as { message?: string; detail?: string };
  return String(e?.detail ?? e?.message ?? err)
    .split('\n')[0]!
    .slice(0, 500);
}
