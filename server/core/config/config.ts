/**
 * Hearth's configuration. Each setting is declared once, in settings.ts; this module derives the configuration
 * schema, the environment map and the set of secrets from that table, and loads a configuration. Precedence:
 * defaults < config file (`--config <file>` or HEARTH_CONFIG: JSON or TOML) < environment (HEARTH_*) < explicit
 * options (CLI flags or the caller of startServer). A bad value, or an unknown key in a file, stops start-up with a
 * one-line explanation naming the setting (and the variable or file it came from); secrets are never echoed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { quoteInput } from '../http/errors.ts';
import { CONFIG_FILE, SETTINGS, type SettingKey } from './settings.ts';

export { CONFIG_FILE, SETTINGS, type SettingKey } from './settings.ts';

type Settings = typeof SETTINGS;
type Shape = { [K in SettingKey]: Settings[K]['default'] extends undefined ? z.ZodOptional<Settings[K]['schema']> : Settings[K]['schema'] };
const entries = Object.entries(SETTINGS) as Array<[SettingKey, Settings[SettingKey]]>;

export const configSchema = z
  .object(Object.fromEntries(entries.map(([k, s]) => [k, s.default === undefined ? s.schema.optional() : s.schema])) as unknown as Shape)
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

/** The default of each setting that has one. */
export const DEFAULTS = Object.fromEntries(entries.filter(([, v]) => v.default !== undefined).map(([k, v]) => [k, v.default])) as {
  [K in SettingKey as Settings[K]['default'] extends undefined ? never : K]: Settings[K]['default'];
};

/** Environment variable for each setting. */
export const ENV_NAMES = Object.fromEntries(entries.map(([k, v]) => [k, v.env])) as Record<SettingKey, string>;

/** Settings whose values are never echoed in an error. */
const SECRET_SETTINGS = new Set<string>(entries.filter(([, v]) => v.secret).map(([k]) => k));

/** The identity domain's secrets from the configuration (each unset one is generated into the secret store). */
export type IdentitySecretsConfig = Pick<HearthConfig, 'identityKek' | 'identityNextKek' | 'identityPreviousKek' | 'oauthBrokerSecret'>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a config file: a JSON object, or TOML (by the `.toml` extension) with the settings' names as keys
 * (`dataDir = "/srv/hearth"`, `tlsNames = ["hearth.example.com"]`). An unknown key or an unreadable file is refused;
 * a relative path of a path setting is resolved from the file's folder.
 */
function readConfigFile(file: string): Record<string, unknown> {
  const shown = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(shown, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read the config file ${shown} (${CONFIG_FILE.env}, --config): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let data: unknown;
  try {
    data = /\.toml$/i.test(shown) ? (parseToml(text) as unknown) : JSON.parse(text);
  } catch (err) {
    const kind = /\.toml$/i.test(shown) ? 'TOML' : 'JSON';
    throw new ConfigError(`the config file ${shown} is not valid ${kind}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`the config file ${shown} must hold an object of settings`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (!Object.hasOwn(SETTINGS, key)) {
      const near = closest(key, Object.keys(SETTINGS));
      throw new ConfigError(
        `unknown setting ${quoteInput(key)} in the config file ${shown}${near ? ` (did you mean ${near}?)` : ''}; the settings are listed in docs/operations/running.md`,
      );
    }
    const s = SETTINGS[key as SettingKey] as { path?: true };
    out[key] = s.path && typeof value === 'string' && value !== '' ? path.resolve(path.dirname(shown), value) : value;
  }
  return out;
}

/** The known name nearest to `key` (at most two edits, or the same letters in another case), for a hint. */
function closest(key: string, names: string[]): string | null {
  const lower = key.toLowerCase().replace(/[-_]/g, '');
  const exact = names.find((n) => n.toLowerCase() === lower);
  if (exact) return exact;
  let best: { name: string; d: number } | null = null;
  for (const name of names) {
    const d = distance(lower, name.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name ?? null;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j]!;
      row[j] = next;
    }
  }
  return row[b.length]!;
}

/**
 * The configuration from defaults, the config file, the environment and `options`, in that order of precedence.
 * `options.configFile` (the `--config` flag) names the file, else HEARTH_CONFIG; none: no file.
 */
export function loadConfig(options: ConfigInput & { configFile?: string } = {}, env: NodeJS.ProcessEnv = process.env): HearthConfig {
  const { configFile, ...flags } = options;
  const merged: Record<string, unknown> = { ...DEFAULTS };
  const fileName = configFile || env[CONFIG_FILE.env] || undefined;
  const fromFile = fileName ? readConfigFile(fileName) : {};
  const origin: Record<string, string> = {};
  for (const [key, value] of Object.entries(fromFile)) {
    merged[key] = value;
    origin[key] = `in ${path.resolve(fileName!)}`;
  }
  for (const [key, name] of Object.entries(ENV_NAMES)) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      merged[key] = value;
      origin[key] = name;
    }
  }
  for (const [key, value] of Object.entries(flags)) {
    if (value !== undefined) {
      merged[key] = value;
      delete origin[key];
    }
  }
  // Parsed once per start: zod's JIT would compile a fast path for this large object (`new Function`, which no code
  // cache keeps) that costs the start several milliseconds and is never used again.
  const parsed = configSchema.safeParse(merged, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const where = origin[key]?.startsWith('in ') ? origin[key] : key in ENV_NAMES ? ENV_NAMES[key as SettingKey] : null;
    const source = where ? `${key} (${where})` : key || 'configuration';
    const shown = SECRET_SETTINGS.has(key) ? '' : ` (got ${quoteInput(merged[key])})`;
    throw new ConfigError(`invalid setting ${source}: ${issue.message}${shown}`);
  }
  const dataDir = path.resolve(parsed.data.dataDir);
  return { ...parsed.data, dataDir, backupDir: path.resolve(dataDir, parsed.data.backupDir ?? 'backups') };
}
