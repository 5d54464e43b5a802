import path from 'node:path';
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

/**
 * Hearth's configuration, declared once. Precedence: defaults < environment (HEARTH_*) < explicit options
 * (CLI flags or the caller of startServer). A bad value stops start-up with a one-line explanation.
 */
export const configSchema = z
  .object({
    dataDir: z.string().min(1, 'must not be empty'),
    host: z.string().min(1, 'must not be empty'),
    port: z.coerce.number().int().min(0).max(65535),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    /** Most tenant databases kept open at once (least recently used closed first). */
    maxOpenNamespaces: z.coerce.number().int().min(1).max(100_000),
    /**
     * Query processes at most: every tenant read that could take long (read-only SQL, listings, aggregates, views,
     * CSV exports) runs in one, under the namespace's query_timeout. One namespace may use all but one of them at once.
     */
    queryProcesses: z.coerce.number().int().min(1).max(64),
    /**
     * Memory (resident set, bytes) a query process may reach while it works; past it the read fails with 422. A query
     * process holds about 90 MiB before it reads anything.
     */
    queryMemoryLimit: z.coerce.number().int().min(128 * 1024 * 1024, 'must be at least 134217728 (128 MiB)'),
    /** Largest accepted JSON request body, in bytes. */
    jsonBodyLimit: z.coerce.number().int().min(1024).max(256 * 1024 * 1024),
    /** Largest accepted multipart upload (database import), in bytes. */
    uploadLimit: z.coerce.number().int().min(1024),
    /** Parts up to this size are kept in memory during import; larger ones spill to a temporary file. */
    uploadMemoryLimit: z.coerce.number().int().min(0),
    /** Optional admin token accepted in addition to stored API tokens (automation, tests). */
    adminToken: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Application secret; generated into the data folder when absent. */
    appSecret: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Where the built admin UI lives. */
    uiDir: z.string().optional(),
    /** Milliseconds a graceful shutdown waits for in-flight requests before closing connections. */
    shutdownTimeoutMs: z.coerce.number().int().min(0),
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
  })
  .strict();

export type HearthConfig = z.infer<typeof configSchema>;
export type ConfigInput = Partial<{ [K in keyof HearthConfig]: HearthConfig[K] | string | number }>;

export const DEFAULTS = {
  dataDir: './hearth-data',
  host: '127.0.0.1',
  port: 8787,
  logLevel: 'info',
  maxOpenNamespaces: 256,
  queryProcesses: 4,
  queryMemoryLimit: 256 * 1024 * 1024,
  jsonBodyLimit: 16 * 1024 * 1024,
  uploadLimit: 16 * 1024 * 1024 * 1024,
  uploadMemoryLimit: 64 * 1024 * 1024,
  shutdownTimeoutMs: 10_000,
} satisfies Partial<HearthConfig>;

/** Environment variable for each setting. */
export const ENV_NAMES: Record<keyof HearthConfig, string> = {
  dataDir: 'HEARTH_DATA_DIR',
  host: 'HEARTH_HOST',
  port: 'HEARTH_PORT',
  logLevel: 'HEARTH_LOG_LEVEL',
  maxOpenNamespaces: 'HEARTH_MAX_OPEN_NAMESPACES',
  queryProcesses: 'HEARTH_QUERY_PROCESSES',
  queryMemoryLimit: 'HEARTH_QUERY_MEMORY_LIMIT',
  jsonBodyLimit: 'HEARTH_JSON_BODY_LIMIT',
  uploadLimit: 'HEARTH_UPLOAD_LIMIT',
  uploadMemoryLimit: 'HEARTH_UPLOAD_MEMORY_LIMIT',
  adminToken: 'HEARTH_ADMIN_TOKEN',
  appSecret: 'APP_SECRET',
  uiDir: 'HEARTH_UI_DIR',
  shutdownTimeoutMs: 'HEARTH_SHUTDOWN_TIMEOUT_MS',
  geoipCityDb: 'HEARTH_GEOIP_DB',
  geoipAsnDb: 'HEARTH_GEOIP_ASN_DB',
  authenticatorPort: 'HEARTH_AUTHENTICATOR_PORT',
  authenticatorOrigin: 'HEARTH_AUTHENTICATOR_ORIGIN',
  identityJwksOrigin: 'HEARTH_IDENTITY_JWKS_ORIGIN',
  oauthJwksOrigin: 'HEARTH_OAUTH_JWKS_ORIGIN',
};

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
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const source = key in ENV_NAMES ? `${key} (${ENV_NAMES[key as keyof HearthConfig]})` : key || 'configuration';
    const shown = key === 'adminToken' || key === 'appSecret' ? '' : ` (got ${JSON.stringify(merged[key])})`;
    throw new ConfigError(`invalid setting ${source}: ${issue.message}${shown}`);
  }
  return { ...parsed.data, dataDir: path.resolve(parsed.data.dataDir) };
}
