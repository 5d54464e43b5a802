import path from 'node:path';
import { Cron } from 'croner';
import { z } from 'zod';
import { quoteInput } from '../http/errors.ts';

/** An origin setting (`https://host[:port]`, a trailing slash tolerated and dropped); `example` is shown when it is not one. */
const origin = (example: string) =>
  z
    .string()
    .refine((v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/+$/, '');
      } catch {
        return false;
      }
    }, `must be an origin such as ${example} (scheme, host and optional port; no path)`)
    .transform((v) => v.replace(/\/+$/, ''));

/** Whether croner accepts a cron expression (the backup schedule's syntax). */
function validCron(v: string): boolean {
  try {
    new Cron(v, { mode: '5-or-6-parts', paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

/**
 * Hearth's configuration, declared once. Precedence: defaults < environment (HEARTH_*) < explicit options
 * (CLI flags or the caller of startServer). A bad value stops start-up with a one-line explanation.
 */
/** A key-encryption key: 32 random bytes written as 64 hexadecimal characters. */
const kek = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (32 random bytes, e.g. `openssl rand -hex 32`)');

export const configSchema = z
  .object({
    dataDir: z.string().min(1, 'must not be empty'),
    host: z.string().min(1, 'must not be empty'),
    port: z.coerce.number().int().min(0).max(65535),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** Most tenant databases kept open at once (least recently used closed first). */
    maxOpenNamespaces: z.coerce.number().int().min(1).max(100_000),
    /**
     * Replicas sharing one core store: a node counts as healthy while its last heartbeat (written every third of this,
     * at most every 5 s) is younger than this many milliseconds; new namespaces are placed on healthy nodes only.
     */
    nodeHealthyMs: z.coerce.number().int().min(300).max(600_000),
    /**
     * Query processes at most: every tenant read that could take long (read-only SQL, listings, aggregates, views,
     * CSV exports) runs in one, under the namespace's query_timeout. One namespace may use all but one of them at once.
     */
    queryProcesses: z.coerce.number().int().min(1).max(64),
    /**
     * Memory (resident set, bytes) a query process may reach while it works; past it the read fails with 422. A query
     * process holds about 90 MiB before it reads anything.
     */
    queryMemoryLimit: z.coerce
      .number()
      .int()
      .min(128 * 1024 * 1024, 'must be at least 134217728 (128 MiB)'),
    /** Largest accepted JSON request body, in bytes. */
    jsonBodyLimit: z.coerce
      .number()
      .int()
      .min(1024)
      .max(256 * 1024 * 1024),
    /** Largest accepted multipart upload (database import), in bytes. */
    uploadLimit: z.coerce.number().int().min(1024),
    /** Parts up to this size are kept in memory during import; larger ones spill to a temporary file. */
    uploadMemoryLimit: z.coerce.number().int().min(0),
    /** Optional admin token accepted in addition to stored API tokens (automation, tests). */
    adminToken: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Application secret; generated into the data folder when absent. */
    appSecret: z.string().min(32, 'must be at least 32 characters').optional(),
    /**
     * The identity key-encryption key (KEK) that seals signing keys and TLS keys at rest: 32 random bytes as 64 hex
     * characters. Unset: one is generated into the secret store. Never logged, never written into a backup.
     */
    identityKek: kek.optional(),
    /** Rolling the KEK: the new one, already accepted for decryption while replicas move to it. */
    identityNextKek: kek.optional(),
    /** Rolling the KEK: the old one, still accepted for decryption after the switch. */
    identityPreviousKek: kek.optional(),
    /** The OAuth broker's deployment secret shared by every replica (at least 32 characters); unset: generated into the secret store. */
    oauthBrokerSecret: z.string().trim().min(32, 'must be at least 32 characters').optional(),
    /** Where the built admin UI lives. */
    uiDir: z.string().optional(),
    /** Milliseconds a graceful shutdown waits for in-flight requests before closing connections. */
    shutdownTimeoutMs: z.coerce.number().int().min(0),
    /** Change events: milliseconds between keepalive comments on an idle stream. */
    sseKeepaliveMs: z.coerce.number().int().min(1),
    /** Change events: the `retry:` hint, milliseconds a client waits before reconnecting. */
    sseRetryMs: z.coerce.number().int().min(1),
    /** Change events: bytes that may wait for a slow subscriber before it is disconnected. */
    sseMaxQueueBytes: z.coerce.number().int().min(1),
    /** Change events: events kept per namespace for `Last-Event-ID` replay. */
    sseBufferEvents: z.coerce.number().int().min(1),
    /** Change events: bytes kept per namespace for replay. */
    sseBufferBytes: z.coerce.number().int().min(1),
    /**
     * Optional MaxMind DB file (GeoLite2-City or -Country, or a combined file) for the country and city of sign-ins in
     * the authenticator's sign-in context. Unreadable: a start-up warning and no geo fields. See docs/api/app-approval.md.
     */
    geoipCityDb: z.string().min(1, 'must not be empty').optional(),
    /** Optional MaxMind DB file (GeoLite2-ASN) for the network operator of sign-ins. */
    geoipAsnDb: z.string().min(1, 'must not be empty').optional(),
    /**
     * Port of the optional second listener that serves the reference authenticator web app on its own origin (same
     * host as the main listener; 0 = any free port; unset = off). See docs/api/app-approval.md.
     */
    authenticatorPort: z.coerce.number().int().min(0).max(65535).optional(),
    /**
     * The origin of the authenticator website (`HEARTH_AUTHENTICATOR_ORIGIN`, e.g. `https://auth.example.com`): the only
     * origin that gets CORS on the device-channel paths of the approval protocol and is announced as `appOrigin` in
     * `/info`. Unset: `/info` still answers with `appOrigin: null` and no CORS header is sent. See docs/api/app-approval.md.
     */
    authenticatorOrigin: origin('https://auth.example.com').optional(),
    /**
     * Verifier transport (seed 001, "Key encryption environment"): the private origin of Core from which verifiers
     * fetch the session and invocation key sets (`HEARTH_IDENTITY_JWKS_ORIGIN`). Unset: the public issuer. The tokens'
     * issuer stays the public origin either way. See docs/operations/signing-keys.md.
     */
    identityJwksOrigin: origin('http://hearth.internal:8787').optional(),
    /** The same for the OAuth key set (`/.well-known/jwks.json`): the private OAuth origin (`HEARTH_OAUTH_JWKS_ORIGIN`). */
    oauthJwksOrigin: origin('http://hearth.internal:8787').optional(),
    /**
     * The one public address (`HEARTH_PUBLIC_URL`): the OAuth/OIDC issuer, the WebAuthn relying party and origin, the
     * approval protocol's issuer, cookie `Secure`, links in mail and the CLI's hints. Unset: with TLS, `https://` the
     * first `--tls-name` (else `<hostname>.local` on a LAN address, else `localhost`) and the port; without TLS, the
     * listening address. See docs/operations/network.md.
     */
    publicUrl: origin('https://hearth.example.com').optional(),
    /**
     * How the listener speaks TLS: `off` (plain HTTP), `internal` (Hearth's own certificate authority), `acme`
     * (RFC 8555, e.g. Let's Encrypt), `files` (a certificate and key given as PEM files).
     */
    tls: z.enum(['off', 'internal', 'acme', 'files']),
    /** DNS names the certificate is for (repeatable flag; comma-separated in HEARTH_TLS_NAMES). */
    tlsNames: z
      .union([z.string(), z.array(z.string())])
      .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((n) => n.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean))
      .pipe(
        z.array(
          z
            .string()
            .regex(
              /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
              'must be DNS names such as hearth.example.com, separated by commas',
            ),
        ),
      ),
    /** `files` mode: the certificate (PEM, leaf first, chain allowed) and its private key (PEM). */
    tlsCert: z.string().min(1, 'must not be empty').optional(),
    tlsKey: z.string().min(1, 'must not be empty').optional(),
    /** `acme` mode: the directory URL of the ACME server. */
    acmeDirectory: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL of an ACME directory' }),
    /** `acme` mode: the contact address of the ACME account. */
    acmeEmail: z.email({ error: 'must be an email address' }).optional(),
    /** `acme` mode: the port of the plain listener that answers HTTP-01 challenges (0 = any free port). */
    acmeHttpPort: z.coerce.number().int().min(0).max(65535),
    /** `acme` mode: a command that publishes (and removes) DNS-01 TXT records; used instead of HTTP-01 when set. */
    acmeDnsHook: z.string().min(1, 'must not be empty').optional(),
    /** `acme` mode: PEM file of extra roots to trust for the ACME server itself (a private ACME server). */
    acmeCaFile: z.string().min(1, 'must not be empty').optional(),
    /** With TLS on: a plain listener on this port that answers 308 to the https address (0 = any free port). */
    httpRedirectPort: z.coerce.number().int().min(0).max(65535).optional(),
    /** `Strict-Transport-Security` max-age in seconds; only with `acme` or `files`, and only when set. */
    hsts: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 * 365 * 24 * 3600)
      .optional(),
    /** Announce `<name>.local` and `_https._tcp`/`_http._tcp` by mDNS/DNS-SD. Unset: on when listening beyond loopback. */
    mdns: z
      .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off'])])
      .transform((v) => v === true || v === 'true' || v === '1' || v === 'on')
      .optional(),
    /** The `.local` name announced by mDNS (default: this machine's host name). */
    mdnsName: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i, 'must be one DNS label such as office-hearth')
      .optional(),
    /** Where backups are written and listed (`HEARTH_BACKUP_DIR`); unset: `<data>/backups`. */
    backupDir: z.string().min(1, 'must not be empty').optional(),
    /** When scheduled backups run: a cron expression (croner syntax, 5 or 6 fields, e.g. `0 3 * * *`); unset: no schedule. */
    backupSchedule: z.string().trim().min(1, 'must not be empty').refine(validCron, 'must be a cron expression such as `0 3 * * *` (5 or 6 fields)').optional(),
    /** Scheduled backups kept in the backup folder (the oldest beyond it are deleted after each scheduled run). */
    backupKeep: z.coerce.number().int().min(1).max(10_000),
    /** The passphrase scheduled backups seal their secrets with (at least 8 characters); unset: they leave the secrets out. */
    backupPassphrase: z.string().min(8, 'must be at least 8 characters').optional(),
    /**
     * The core store on PostgreSQL 15+ (`HEARTH_DATABASE_URL`, `postgres://user:password@host:port/database`, libpq's
     * `sslmode` and friends in the query): everything platform.db holds lives there instead, and several replicas may
     * share it. Unset: platform.db in the data folder. See docs/operations/replicas.md.
     */
    databaseUrl: z
      .string()
      .trim()
      .refine((v) => {
        try {
          const u = new URL(v);
          return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.pathname.length > 1;
        } catch {
          return false;
        }
      }, 'must be a PostgreSQL URL such as postgres://hearth:secret@db.internal:5432/hearth (with the database name)')
      .optional(),
    /** Connections to PostgreSQL each replica keeps at most (`HEARTH_DATABASE_POOL`). */
    databasePool: z.coerce.number().int().min(2).max(1000),
    /**
     * This node's name among the replicas (`HEARTH_NODE_ID`; letters, digits, `-`, `_`, `.`): the namespaces whose
     * SQLite files live in this data folder are placed on it. Unset: a name generated once and kept in the data folder.
     */
    nodeId: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be 1–63 letters, digits, dots, dashes or underscores, starting with a letter or digit')
      .optional(),
    /**
     * The address other replicas reach this node at (`HEARTH_NODE_URL`, an origin such as `https://node-b.internal:8787`):
     * where they forward requests for the namespaces placed here. Unset: the listening address.
     */
    nodeUrl: origin('http://node-b.internal:8787').optional(),
    /** How long a replica waits for the TCP (and TLS) connection to a namespace's node before answering 503. */
    nodeConnectTimeoutMs: z.coerce.number().int().min(100).max(60_000),
    /**
     * How long a forwarded request may wait for the owner to begin its answer before 503: above the largest
     * `query_timeout` (one hour), so only a node that stopped answering is caught.
     */
    nodeAnswerTimeoutMs: z.coerce.number().int().min(1000).max(86_400_000),
    /** PEM file of the certificate authorities trusted (besides the system's) for https between replicas. */
    nodeCaFile: z.string().min(1, 'must not be empty').optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.tls === 'files' && (!c.tlsCert || !c.tlsKey)) issue(c.tlsCert ? 'tlsKey' : 'tlsCert', '--tls files needs both --tls-cert and --tls-key');
    if (c.tls !== 'files' && (c.tlsCert || c.tlsKey)) issue(c.tlsCert ? 'tlsCert' : 'tlsKey', 'is only used with --tls files');
    if (c.tls === 'acme' && c.tlsNames.length === 0) issue('tlsNames', '--tls acme needs at least one --tls-name that the ACME server can reach');
    if (c.hsts !== undefined && c.tls !== 'acme' && c.tls !== 'files')
      issue('hsts', 'is only sent with --tls acme or --tls files (a certificate every device trusts)');
    if (c.nodeUrl !== undefined && c.databaseUrl === undefined) issue('nodeUrl', 'is only used with --database-url (replicas sharing one core store)');
    if (c.httpRedirectPort !== undefined && c.tls === 'off') issue('httpRedirectPort', 'needs TLS on (--tls internal|acme|files)');
  });

export type HearthConfig = z.infer<typeof configSchema>;
export type ConfigInput = Partial<{ [K in keyof HearthConfig]: HearthConfig[K] | string | number | boolean | string[] }>;

export const DEFAULTS = {
  dataDir: './hearth-data',
  host: '127.0.0.1',
  port: 8787,
  logLevel: 'info',
  maxOpenNamespaces: 256,
  nodeHealthyMs: 15_000,
  queryProcesses: 4,
  queryMemoryLimit: 256 * 1024 * 1024,
  jsonBodyLimit: 16 * 1024 * 1024,
  uploadLimit: 16 * 1024 * 1024 * 1024,
  uploadMemoryLimit: 64 * 1024 * 1024,
  shutdownTimeoutMs: 10_000,
  sseKeepaliveMs: 25_000,
  sseRetryMs: 3000,
  sseMaxQueueBytes: 1024 * 1024,
  sseBufferEvents: 1000,
  sseBufferBytes: 4 * 1024 * 1024,
  tls: 'off',
  tlsNames: [],
  acmeDirectory: 'https://acme-v02.api.letsencrypt.org/directory',
  acmeHttpPort: 80,
  backupKeep: 7,
  databasePool: 10,
  nodeConnectTimeoutMs: 3000,
  nodeAnswerTimeoutMs: 3_660_000,
} satisfies Partial<HearthConfig>;

/** Environment variable for each setting. */
export const ENV_NAMES: Record<keyof HearthConfig, string> = {
  dataDir: 'HEARTH_DATA_DIR',
  host: 'HEARTH_HOST',
  port: 'HEARTH_PORT',
  logLevel: 'HEARTH_LOG_LEVEL',
  maxOpenNamespaces: 'HEARTH_MAX_OPEN_NAMESPACES',
  nodeHealthyMs: 'HEARTH_NODE_HEALTHY_MS',
  queryProcesses: 'HEARTH_QUERY_PROCESSES',
  queryMemoryLimit: 'HEARTH_QUERY_MEMORY_LIMIT',
  jsonBodyLimit: 'HEARTH_JSON_BODY_LIMIT',
  uploadLimit: 'HEARTH_UPLOAD_LIMIT',
  uploadMemoryLimit: 'HEARTH_UPLOAD_MEMORY_LIMIT',
  adminToken: 'HEARTH_ADMIN_TOKEN',
  appSecret: 'APP_SECRET',
  identityKek: 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY',
  identityNextKek: 'HEARTH_IDENTITY_NEXT_KEY',
  identityPreviousKek: 'HEARTH_IDENTITY_PREVIOUS_KEY',
  oauthBrokerSecret: 'HEARTH_OAUTH_BROKER_SECRET',
  uiDir: 'HEARTH_UI_DIR',
  shutdownTimeoutMs: 'HEARTH_SHUTDOWN_TIMEOUT_MS',
  sseKeepaliveMs: 'HEARTH_SSE_KEEPALIVE_MS',
  sseRetryMs: 'HEARTH_SSE_RETRY_MS',
  sseMaxQueueBytes: 'HEARTH_SSE_MAX_QUEUE_BYTES',
  sseBufferEvents: 'HEARTH_SSE_BUFFER_EVENTS',
  sseBufferBytes: 'HEARTH_SSE_BUFFER_BYTES',
  geoipCityDb: 'HEARTH_GEOIP_DB',
  geoipAsnDb: 'HEARTH_GEOIP_ASN_DB',
  authenticatorPort: 'HEARTH_AUTHENTICATOR_PORT',
  authenticatorOrigin: 'HEARTH_AUTHENTICATOR_ORIGIN',
  identityJwksOrigin: 'HEARTH_IDENTITY_JWKS_ORIGIN',
  oauthJwksOrigin: 'HEARTH_OAUTH_JWKS_ORIGIN',
  publicUrl: 'HEARTH_PUBLIC_URL',
  tls: 'HEARTH_TLS',
  tlsNames: 'HEARTH_TLS_NAMES',
  tlsCert: 'HEARTH_TLS_CERT',
  tlsKey: 'HEARTH_TLS_KEY',
  acmeDirectory: 'HEARTH_ACME_DIRECTORY',
  acmeEmail: 'HEARTH_ACME_EMAIL',
  acmeHttpPort: 'HEARTH_ACME_HTTP_PORT',
  acmeDnsHook: 'HEARTH_ACME_DNS_HOOK',
  acmeCaFile: 'HEARTH_ACME_CA_FILE',
  httpRedirectPort: 'HEARTH_HTTP_REDIRECT_PORT',
  hsts: 'HEARTH_HSTS',
  mdns: 'HEARTH_MDNS',
  mdnsName: 'HEARTH_MDNS_NAME',
  backupDir: 'HEARTH_BACKUP_DIR',
  backupSchedule: 'HEARTH_BACKUP_SCHEDULE',
  backupKeep: 'HEARTH_BACKUP_KEEP',
  backupPassphrase: 'HEARTH_BACKUP_PASSPHRASE',
  databaseUrl: 'HEARTH_DATABASE_URL',
  databasePool: 'HEARTH_DATABASE_POOL',
  nodeId: 'HEARTH_NODE_ID',
  nodeUrl: 'HEARTH_NODE_URL',
  nodeConnectTimeoutMs: 'HEARTH_NODE_CONNECT_TIMEOUT_MS',
  nodeAnswerTimeoutMs: 'HEARTH_NODE_ANSWER_TIMEOUT_MS',
  nodeCaFile: 'HEARTH_NODE_CA_FILE',
};

/** Settings whose values are never echoed in an error. */
const SECRET_SETTINGS = new Set([
  'adminToken',
  'appSecret',
  'identityKek',
  'identityNextKek',
  'identityPreviousKek',
  'oauthBrokerSecret',
  'backupPassphrase',
  'databaseUrl',
]);

/** The identity domain's secrets from the configuration (each unset one is generated into the secret store). */
export type IdentitySecretsConfig = Pick<HearthConfig, 'identityKek' | 'identityNextKek' | 'identityPreviousKek' | 'oauthBrokerSecret'>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function loadConfig(options: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env): HearthConfig {
  const merged: Record<string, unknown> = { ...DEFAULTS };
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const value = env[name];
    if (value !== undefined && value !== '') merged[key] = value;
  }
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) merged[key] = value;
  }
  // Parsed once per start: zod's JIT would compile a fast path for this large object (`new Function`, which no code
  // cache keeps) that costs the start several milliseconds and is never used again.
  const parsed = configSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const source = key in ENV_NAMES ? `${key} (${ENV_NAMES[key as keyof HearthConfig]})` : key || 'configuration';
    const shown = SECRET_SETTINGS.has(key) ? '' : ` (got ${quoteInput(merged[key])})`;
    throw new ConfigError(`invalid setting ${source}: ${issue.message}${shown}`);
  }
  const dataDir = path.resolve(parsed.data.dataDir);
  return { ...parsed.data, dataDir, backupDir: path.resolve(dataDir, parsed.data.backupDir ?? 'backups') };
}
