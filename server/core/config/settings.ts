/**
 * Every setting of the server, declared once: its schema, environment variable, `hearth serve` flag, default, whether
 * it is a secret, and its line in the operator guide. config.ts derives from this table the configuration schema,
 * the environment map, the set of secrets and the config file's keys; server/cli/commands/serve.ts its options; and
 * the configuration table of docs/operations/running.md is generated from it (`node build/settings-doc.ts`, checked
 * by test/integration/core/config-docs.test.ts). The file is long because it is one table: a setting added here is
 * added everywhere.
 */
import { Cron } from 'croner';
import { z } from 'zod';

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

/** A key-encryption key: 32 random bytes written as 64 hexadecimal characters. */
const kek = z
  .string()
  .trim()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters (32 random bytes, e.g. `openssl rand -hex 32`)');
const file = z.string().min(1, 'must not be empty');
const port = z.coerce.number().int().min(0).max(65535);
const int = (min: number, max?: number) => (max === undefined ? z.coerce.number().int().min(min) : z.coerce.number().int().min(min).max(max));

export interface Setting<S extends z.ZodType = z.ZodType> {
  schema: S;
  /** The environment variable (HEARTH_…; APP_SECRET keeps its conventional name). */
  env: string;
  /** The `hearth serve` option (commander syntax), when the setting has one. */
  flag?: string;
  /** The option's help line (the variable is appended); default: none, the flag is not offered without one. */
  help?: string;
  /** The default as the option's help says it, when not the default itself (`default` is shown otherwise). */
  helpDefault?: string;
  /** A repeatable flag (each use adds a value). */
  repeatable?: true;
  /** The value when nothing sets it (none: unset). */
  default?: z.input<S>;
  /** The guide's default cell when it is not the default itself (markdown). */
  defaultText?: string;
  /** The guide's "Allowed" cell (markdown). */
  allowed: string;
  /** The guide's "Meaning" cell (markdown). */
  doc: string;
  /** Never echoed in an error, never logged. */
  secret?: true;
  /** A path: relative in a config file, it is resolved from that file's folder. */
  path?: true;
}

/** A setting; the type keeps whether it has a default (then the parsed configuration always has a value). */
function setting<S extends z.ZodType, D extends z.input<S> | undefined = undefined>(
  s: Omit<Setting<S>, 'default'> & { default?: D },
): Setting<S> & { default: D } {
  return s as Setting<S> & { default: D };
}

export const SETTINGS = {
  dataDir: setting({
    schema: file,
    env: 'HEARTH_DATA_DIR',
    flag: '--data <dir>',
    help: 'data folder',
    default: './hearth-data',
    allowed: 'non-empty path',
    path: true,
    doc: 'The data folder (resolved to an absolute path; `hearth serve` creates it with mode 0700 if missing, and makes an existing one private at every start: see [The data folder](#the-data-folder)).',
  }),
  host: setting({
    schema: z.string().min(1, 'must not be empty'),
    env: 'HEARTH_HOST',
    flag: '--host <host>',
    help: 'address to listen on',
    default: '127.0.0.1',
    allowed: 'non-empty',
    doc: 'Address to listen on. Use `0.0.0.0` (or `::`) to serve the LAN.',
  }),
  port: setting({
    schema: port,
    env: 'HEARTH_PORT',
    flag: '--port <port>',
    help: 'port to listen on, 0 for any free port',
    default: 8787,
    allowed: '0–65535',
    doc: 'Port; `0` picks any free port (the banner shows which).',
  }),
  logLevel: setting({
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    env: 'HEARTH_LOG_LEVEL',
    flag: '--log-level <level>',
    help: 'fatal|error|warn|info|debug|trace|silent',
    default: 'info',
    allowed: '`fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
    doc: 'Lowest level written to the log.',
  }),
  maxOpenNamespaces: setting({
    schema: int(1, 100_000),
    env: 'HEARTH_MAX_OPEN_NAMESPACES',
    flag: '--max-open-namespaces <n>',
    help: 'most tenant databases open at once',
    default: 256,
    allowed: '1–100000',
    doc: 'Most tenant databases kept open at once (the least recently used is closed first); see [Open databases](#open-databases).',
  }),
  queryProcesses: setting({
    schema: int(1, 64),
    env: 'HEARTH_QUERY_PROCESSES',
    default: 4,
    allowed: '1–64',
    doc: "Query processes at most. Every tenant read that could take long — read-only SQL, listings, aggregates, views, `count=exact`, CSV exports — runs in one, under its namespace's `query_timeout`; one namespace may use all but one of them at once. See [Query processes](#query-processes).",
  }),
  queryMemoryLimit: setting({
    schema: z.coerce
      .number()
      .int()
      .min(128 * 1024 * 1024, 'must be at least 134217728 (128 MiB)'),
    env: 'HEARTH_QUERY_MEMORY_LIMIT',
    default: 256 * 1024 * 1024,
    defaultText: '`268435456` (256 MiB)',
    allowed: '≥ 134217728 (128 MiB)',
    doc: 'Memory (resident set, in bytes) a query process may reach while it reads; past it the read is stopped and answered 422 `query_memory_exceeded`, and the process is replaced. A query process holds about 90 MiB before it reads anything.',
  }),
  jsonBodyLimit: setting({
    schema: int(1024, 256 * 1024 * 1024),
    env: 'HEARTH_JSON_BODY_LIMIT',
    default: 16 * 1024 * 1024,
    defaultText: '`16777216` (16 MiB)',
    allowed: '1024–268435456',
    doc: 'Largest accepted JSON request body, in bytes (413 `payload_too_large` above it), for every route without a limit of its own. The small routes — sign-in, setup, passwords, passkeys and email links — take at most **64 KiB** whatever this says, API token creation at most 128 KiB (a smaller value lowers them too); the mail send routes take more (see [../api/mail.md](../api/mail.md)). See [../api/overview.md](../api/overview.md#requests-with-a-json-body).',
  }),
  uploadLimit: setting({
    schema: int(1024),
    env: 'HEARTH_UPLOAD_LIMIT',
    default: 16 * 1024 * 1024 * 1024,
    defaultText: '`17179869184` (16 GiB)',
    allowed: '≥ 1024',
    doc: 'Largest accepted database upload (import), in bytes (413 above it). A CSV import into a table is limited to 256 MiB, or to this value if it is smaller.',
  }),
  uploadMemoryLimit: setting({
    schema: int(0),
    env: 'HEARTH_UPLOAD_MEMORY_LIMIT',
    default: 64 * 1024 * 1024,
    defaultText: '`67108864` (64 MiB)',
    allowed: '≥ 0',
    doc: 'Uploads up to this size are kept in memory during an import; larger ones spill to a temporary file in `<data>/tmp/`. `0` always spills.',
  }),
  adminToken: setting({
    schema: z.string().min(16, 'must be at least 16 characters'),
    env: 'HEARTH_ADMIN_TOKEN',
    defaultText: 'none',
    allowed: '≥ 16 characters',
    secret: true,
    doc: 'An extra admin token accepted in addition to stored API tokens (for automation and tests). Not stored anywhere; audited as `token:env`. While it is set, no `initial-admin-token` is created. Secret: never logged or echoed.',
  }),
  appSecret: setting({
    schema: z.string().min(32, 'must be at least 32 characters'),
    env: 'APP_SECRET',
    defaultText: 'generated',
    allowed: '≥ 32 characters',
    secret: true,
    doc: 'The application secret (it seals mail credentials and signs what replicas forward to each other). When unset, Hearth generates one into `<data>/secrets/app-secret` on first start; when set, the value is used and never written to disk. Secret: never logged or echoed.',
  }),
  uiDir: setting({
    schema: z.string(),
    env: 'HEARTH_UI_DIR',
    defaultText: '`ui/dist` of the installation',
    allowed: 'path',
    path: true,
    doc: 'Where the built admin UI is.',
  }),
  shutdownTimeoutMs: setting({
    schema: int(0),
    env: 'HEARTH_SHUTDOWN_TIMEOUT_MS',
    default: 10_000,
    allowed: '≥ 0',
    doc: 'Milliseconds a graceful shutdown waits for in-flight requests before cutting connections.',
  }),
  authenticatorPort: setting({
    schema: port,
    env: 'HEARTH_AUTHENTICATOR_PORT',
    flag: '--authenticator-port <port>',
    help: 'also serve the reference authenticator web app on this port, 0 for any free port',
    defaultText: 'none (off)',
    allowed: '0–65535',
    doc: 'Also serve the reference authenticator web app on this port, on the same host as the main listener (its own origin; `0` picks any free port; the banner prints `Authenticator app on http://localhost:<port>`). It serves only that app, never the API or the admin UI. Without `HEARTH_AUTHENTICATOR_ORIGIN` the instance then trusts `http://localhost:<port>` as its authenticator origin. See [../api/app-approval.md](../api/app-approval.md#reference-authenticator).',
  }),
  authenticatorOrigin: setting({
    schema: origin('https://auth.example.com'),
    env: 'HEARTH_AUTHENTICATOR_ORIGIN',
    defaultText: 'none',
    allowed: 'an origin (`https://host[:port]`, no path)',
    doc: "The origin of the authenticator website: the only origin that gets CORS on the approval protocol's device paths, announced as `appOrigin` in `/api/auth/app-approval/v1/info`. Unset (and no reference authenticator listener): `appOrigin` is null and no CORS header is sent. See [../api/app-approval.md](../api/app-approval.md#discovery).",
  }),
  identityJwksOrigin: setting({
    schema: origin('http://hearth.internal:8787'),
    env: 'HEARTH_IDENTITY_JWKS_ORIGIN',
    defaultText: 'the issuer',
    allowed: 'an origin (`http(s)://host[:port]`, no path)',
    doc: 'Verifier transport: the private Core origin from which verifiers outside the Hearth process fetch the session and invocation key sets. Tokens keep the public issuer. See [signing-keys.md](signing-keys.md#verifier-transport-hearth_identity_jwks_origin-hearth_oauth_jwks_origin).',
  }),
  oauthJwksOrigin: setting({
    schema: origin('http://hearth.internal:8787'),
    env: 'HEARTH_OAUTH_JWKS_ORIGIN',
    defaultText: 'the issuer',
    allowed: 'an origin (`http(s)://host[:port]`, no path)',
    doc: 'The same for the OAuth key set (`/.well-known/jwks.json`): the private OAuth origin. Discovery still publishes the public `jwks_uri`.',
  }),
  geoipCityDb: setting({
    schema: file,
    env: 'HEARTH_GEOIP_DB',
    defaultText: 'none',
    allowed: 'path',
    path: true,
    doc: "Optional MaxMind DB file (`.mmdb`: GeoLite2-City, GeoLite2-Country, GeoIP2-City, or a combined file) giving the country and city of sign-ins in the authenticator's sign-in context. Hearth ships no GeoIP data. A file that cannot be read is a warning at start-up and Hearth runs without it; the file is checked for a new version at most once a minute and reloaded. See [../api/app-approval.md](../api/app-approval.md#sign-in-context).",
  }),
  geoipAsnDb: setting({
    schema: file,
    env: 'HEARTH_GEOIP_ASN_DB',
    defaultText: 'none',
    allowed: 'path',
    path: true,
    doc: 'Optional MaxMind DB file (GeoLite2-ASN, or GeoIP2-ISP) naming the network operator of sign-ins in the sign-in context. Same handling as `HEARTH_GEOIP_DB`.',
  }),
  publicUrl: setting({
    schema: origin('https://hearth.example.com'),
    env: 'HEARTH_PUBLIC_URL',
    flag: '--public-url <url>',
    help: 'the address clients use, if not the listening one',
    defaultText: '`http(s)://<first --tls-name, else <host>.local beyond loopback, else localhost>:<port>` (`http://localhost:8787` by default)',
    allowed: 'an origin',
    doc: 'The one public address: issuer, passkeys, sign-in origin, cookie `Secure`, mail links. See [network.md](network.md#one-public-address).',
  }),
  tls: setting({
    schema: z.enum(['off', 'internal', 'acme', 'files']),
    env: 'HEARTH_TLS',
    flag: '--tls <mode>',
    help: "off|internal|acme|files: internal = Hearth's own certificate authority",
    default: 'off',
    allowed: '`off`, `internal`, `acme`, `files`',
    doc: 'HTTPS on the listeners. See [network.md](network.md#tls-modes).',
  }),
  tlsNames: setting({
    schema: z
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
    env: 'HEARTH_TLS_NAMES',
    flag: '--tls-name <name>',
    help: 'DNS name of this server for the certificate and the public address; repeatable',
    repeatable: true,
    default: [],
    defaultText: 'none',
    allowed: 'DNS names, comma-separated (a list in a config file)',
    doc: 'Names of this server in the certificate; the first is the public host.',
  }),
  tlsCert: setting({
    schema: file,
    env: 'HEARTH_TLS_CERT',
    flag: '--tls-cert <file>',
    help: '--tls files: certificate PEM, leaf first, chain allowed',
    defaultText: 'none',
    allowed: 'PEM file',
    path: true,
    doc: '`files` mode: the certificate (leaf first, chain allowed); read again on SIGHUP and on change.',
  }),
  tlsKey: setting({
    schema: file,
    env: 'HEARTH_TLS_KEY',
    flag: '--tls-key <file>',
    help: '--tls files: private key PEM',
    defaultText: 'none',
    allowed: 'PEM file',
    path: true,
    doc: "`files` mode: the certificate's private key; read again on SIGHUP and on change.",
  }),
  acmeDirectory: setting({
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL of an ACME directory' }),
    env: 'HEARTH_ACME_DIRECTORY',
    flag: '--acme-directory <url>',
    help: '--tls acme: ACME directory URL',
    helpDefault: "Let's Encrypt",
    default: 'https://acme-v02.api.letsencrypt.org/directory',
    defaultText: "Let's Encrypt production",
    allowed: 'an http(s) URL',
    doc: '`acme` mode: the directory URL of the ACME server. See [network.md](network.md#acme-lets-encrypt-step-ca-).',
  }),
  acmeEmail: setting({
    schema: z.email({ error: 'must be an email address' }),
    env: 'HEARTH_ACME_EMAIL',
    flag: '--acme-email <address>',
    help: '--tls acme: account contact address',
    defaultText: 'none',
    allowed: 'an email address',
    doc: '`acme` mode: the contact address of the ACME account.',
  }),
  acmeHttpPort: setting({
    schema: port,
    env: 'HEARTH_ACME_HTTP_PORT',
    flag: '--acme-http-port <port>',
    help: '--tls acme: port answering HTTP-01 challenges',
    default: 80,
    allowed: '0–65535',
    doc: '`acme` mode: the port of the plain listener that answers HTTP-01 challenges (`0` picks any free port).',
  }),
  acmeDnsHook: setting({
    schema: file,
    env: 'HEARTH_ACME_DNS_HOOK',
    flag: '--acme-dns-hook <command>',
    help: '--tls acme: use DNS-01, running `<command> present|cleanup <record> <value>`',
    defaultText: 'none',
    allowed: 'a command',
    doc: '`acme` mode: a command that publishes (`present`) and removes (`cleanup`) DNS-01 TXT records; used instead of HTTP-01 when set.',
  }),
  acmeCaFile: setting({
    schema: file,
    env: 'HEARTH_ACME_CA_FILE',
    flag: '--acme-ca-file <file>',
    help: '--tls acme: extra roots to trust for a private ACME server',
    defaultText: 'none',
    allowed: 'PEM file',
    path: true,
    doc: '`acme` mode: extra roots to trust for the ACME server itself (a private ACME server such as step-ca).',
  }),
  httpRedirectPort: setting({
    schema: port,
    env: 'HEARTH_HTTP_REDIRECT_PORT',
    flag: '--http-redirect-port <port>',
    help: 'with TLS: a plain listener answering 308 to the https address',
    defaultText: 'none',
    allowed: '0–65535',
    doc: 'With TLS: a plain listener answering 308 to the https address.',
  }),
  hsts: setting({
    schema: int(0, 2 * 365 * 24 * 3600),
    env: 'HEARTH_HSTS',
    flag: '--hsts <seconds>',
    help: 'with --tls acme|files: send Strict-Transport-Security with this max-age',
    defaultText: 'none',
    allowed: '0–63072000',
    doc: '`Strict-Transport-Security` max-age in seconds; `acme`/`files` only.',
  }),
  mdns: setting({
    schema: z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on', 'off'])]).transform((v) => v === true || v === 'true' || v === '1' || v === 'on'),
    env: 'HEARTH_MDNS',
    flag: '--no-mdns',
    help: 'do not announce <name>.local on the network',
    defaultText: 'on beyond loopback',
    allowed: '`true`, `false`, `on`, `off`, `1`, `0`',
    doc: 'mDNS/DNS-SD announcement of `<name>.local` and `_https._tcp`/`_http._tcp`. See [network.md](network.md#a-name-on-the-lan-mdns).',
  }),
  mdnsName: setting({
    schema: z.string().regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i, 'must be one DNS label such as office-hearth'),
    env: 'HEARTH_MDNS_NAME',
    flag: '--mdns-name <label>',
    help: 'the .local name to announce',
    helpDefault: 'the host name',
    defaultText: 'the host name',
    allowed: 'one DNS label',
    doc: 'The `.local` name announced by mDNS.',
  }),
  backupDir: setting({
    schema: file,
    env: 'HEARTH_BACKUP_DIR',
    defaultText: '`<data>/backups`',
    allowed: 'path (relative: to the data folder)',
    doc: 'Where backups are written and listed (`hearth backup list`, the Backups page). Keep it on another disk to survive the loss of the data disk. See [backups.md](backups.md).',
  }),
  backupSchedule: setting({
    schema: z.string().trim().min(1, 'must not be empty').refine(validCron, 'must be a cron expression such as `0 3 * * *` (5 or 6 fields)'),
    env: 'HEARTH_BACKUP_SCHEDULE',
    defaultText: 'none',
    allowed: 'cron expression, 5 or 6 fields (croner syntax), e.g. `0 3 * * *`',
    doc: 'When scheduled backups run (server time zone). Unset: no scheduled backups. A bad expression stops start-up.',
  }),
  backupKeep: setting({
    schema: int(1, 10_000),
    env: 'HEARTH_BACKUP_KEEP',
    default: 7,
    allowed: '1–10000',
    doc: 'Scheduled backups kept: after each scheduled run the older ones are deleted. Manual backups are never pruned.',
  }),
  backupPassphrase: setting({
    schema: z.string().min(8, 'must be at least 8 characters'),
    env: 'HEARTH_BACKUP_PASSPHRASE',
    defaultText: 'none',
    allowed: 'at least 8 characters',
    secret: true,
    doc: 'Scheduled backups seal their secrets (secret store, TLS keys, the initial admin token) under it. Unset: they leave the secrets out and say so. Secret: never logged or echoed.',
  }),
  databaseUrl: setting({
    schema: z
      .string()
      .trim()
      .refine((v) => {
        try {
          const u = new URL(v);
          return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.pathname.length > 1;
        } catch {
          return false;
        }
      }, 'must be a PostgreSQL URL such as postgres://hearth:secret@db.internal:5432/hearth (with the database name)'),
    env: 'HEARTH_DATABASE_URL',
    flag: '--database-url <url>',
    help: 'keep the core store in PostgreSQL, shared by replicas: postgres://user:pass@host/db',
    defaultText: 'none (platform.db in the data folder)',
    allowed: '`postgres://user:password@host:port/database` (libpq query options such as `sslmode=verify-full` allowed)',
    secret: true,
    doc: 'The core store on PostgreSQL 15+: accounts, tokens, audit, OAuth, keys, approval state, mail queue and log, the namespace registry and node placement live there, and several replicas may share it. Secret (it may hold a password): never logged or echoed. Move an existing installation with `hearth migrate-store`. See [replicas.md](replicas.md).',
  }),
  databasePool: setting({
    schema: int(2, 1000),
    env: 'HEARTH_DATABASE_POOL',
    default: 10,
    allowed: '2–1000',
    doc: 'Connections to PostgreSQL this replica keeps at most.',
  }),
  nodeId: setting({
    schema: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be 1–63 letters, digits, dots, dashes or underscores, starting with a letter or digit'),
    env: 'HEARTH_NODE_ID',
    flag: '--node-id <name>',
    help: "this node's name among the replicas",
    helpDefault: 'generated once',
    defaultText: 'generated once into `<data>/node-id`',
    allowed: '1–63 letters, digits, `.`, `-`, `_`',
    doc: "This node's name among the replicas: namespaces whose files live in this data folder are placed on it.",
  }),
  nodeUrl: setting({
    schema: origin('http://node-b.internal:8787'),
    env: 'HEARTH_NODE_URL',
    flag: '--node-url <origin>',
    help: 'where the other replicas reach this node',
    helpDefault: 'the listening address',
    defaultText: 'the listening address',
    allowed: 'an origin',
    doc: 'With `HEARTH_DATABASE_URL`: the address the other replicas reach this node at, to forward requests for the namespaces placed here.',
  }),
  nodeHealthyMs: setting({
    schema: int(300, 600_000),
    env: 'HEARTH_NODE_HEALTHY_MS',
    default: 15_000,
    allowed: '300–600000',
    doc: "With `HEARTH_DATABASE_URL`: a node is healthy while its last heartbeat is younger than this; each node writes one every third of it (at most every 5 s). New namespaces are placed on healthy nodes only, and `/healthz` lists every node with its heartbeat's age. Keep the nodes' clocks in step (NTP). See [Namespaces on nodes](../api/namespaces.md#namespaces-on-nodes).",
  }),
  nodeConnectTimeoutMs: setting({
    schema: int(100, 60_000),
    env: 'HEARTH_NODE_CONNECT_TIMEOUT_MS',
    default: 3000,
    allowed: '100–60000',
    doc: 'With `HEARTH_DATABASE_URL`: how long a replica waits for the connection (TCP and TLS) to the node holding a namespace before answering `503 namespace_unavailable`. See [replicas.md](replicas.md#namespaces-on-nodes).',
  }),
  nodeAnswerTimeoutMs: setting({
    schema: int(1000, 86_400_000),
    env: 'HEARTH_NODE_ANSWER_TIMEOUT_MS',
    default: 3_660_000,
    defaultText: '`3660000` (61 min)',
    allowed: '1000–86400000',
    doc: 'With `HEARTH_DATABASE_URL`: how long a forwarded request may wait for the owner to begin its answer before `503 namespace_unavailable`. Keep it above the largest `query_timeout` (at most one hour), so only a node that stopped answering is caught.',
  }),
  nodeCaFile: setting({
    schema: file,
    env: 'HEARTH_NODE_CA_FILE',
    defaultText: "none (the system's certificate authorities)",
    allowed: 'a PEM file',
    path: true,
    doc: "With `HEARTH_DATABASE_URL` and `https` node addresses: the certificate authorities the replicas trust for each other's certificates (besides the system's), e.g. the `ca.pem` of each replica started with `--tls internal`.",
  }),
  sseKeepaliveMs: setting({
    schema: int(1),
    env: 'HEARTH_SSE_KEEPALIVE_MS',
    default: 25_000,
    allowed: 'integer ≥ 1',
    doc: 'Interval of the keepalive comment on change-event streams (milliseconds). See [../api/events.md](../api/events.md#settings).',
  }),
  sseRetryMs: setting({
    schema: int(1),
    env: 'HEARTH_SSE_RETRY_MS',
    default: 3000,
    allowed: 'integer ≥ 1',
    doc: 'The `retry:` reconnection hint sent to change-event subscribers (milliseconds).',
  }),
  sseMaxQueueBytes: setting({
    schema: int(1),
    env: 'HEARTH_SSE_MAX_QUEUE_BYTES',
    default: 1024 * 1024,
    defaultText: '`1048576` (1 MiB)',
    allowed: 'integer ≥ 1',
    doc: 'Unsent events a subscriber may accumulate (bytes) before it is disconnected.',
  }),
  sseBufferEvents: setting({
    schema: int(1),
    env: 'HEARTH_SSE_BUFFER_EVENTS',
    default: 1000,
    allowed: 'integer ≥ 1',
    doc: 'Recent events kept per subscribed namespace for `Last-Event-ID` replay.',
  }),
  sseBufferBytes: setting({
    schema: int(1),
    env: 'HEARTH_SSE_BUFFER_BYTES',
    default: 4 * 1024 * 1024,
    defaultText: '`4194304` (4 MiB)',
    allowed: 'integer ≥ 1',
    doc: 'Bytes of recent events kept per subscribed namespace for replay.',
  }),
  identityKek: setting({
    schema: kek,
    env: 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY',
    defaultText: 'generated into `secrets/identity-kek`',
    allowed: '64 hexadecimal characters',
    secret: true,
    doc: 'The key-encryption key that seals signing keys and TLS keys at rest. Never logged, echoed or written into a backup. See [signing-keys.md](signing-keys.md).',
  }),
  identityNextKek: setting({
    schema: kek,
    env: 'HEARTH_IDENTITY_NEXT_KEY',
    defaultText: 'none',
    allowed: '64 hexadecimal characters',
    secret: true,
    doc: 'Rolling the KEK replica by replica: the next key, already accepted for decryption while the replicas move to it.',
  }),
  identityPreviousKek: setting({
    schema: kek,
    env: 'HEARTH_IDENTITY_PREVIOUS_KEY',
    defaultText: 'none',
    allowed: '64 hexadecimal characters',
    secret: true,
    doc: 'Rolling the KEK: the previous key, still accepted for decryption after the switch.',
  }),
  oauthBrokerSecret: setting({
    schema: z.string().trim().min(32, 'must be at least 32 characters'),
    env: 'HEARTH_OAUTH_BROKER_SECRET',
    defaultText: 'generated into `secrets/oauth-broker-secret`',
    allowed: '≥ 32 characters',
    secret: true,
    doc: "The OAuth broker's deployment secret, the same on every replica. Secret: never logged or echoed.",
  }),
};

export type SettingKey = keyof typeof SETTINGS;

/** The config file setting: not a setting itself (a file cannot name another), read before the others. */
export const CONFIG_FILE = {
  env: 'HEARTH_CONFIG',
  flag: '--config <file>',
  help: 'read settings from this JSON or TOML file (keys as in docs/operations/running.md)',
} as const;
