/**
 * Credentials of `hearth login`: OAuth tokens of the first-party public client `hearth-cli`, one entry per server,
 * in `$HEARTH_CONFIG_DIR/credentials.json` (default `$XDG_CONFIG_HOME/hearth`, then `~/.config/hearth`). The folder
 * is created 0700 and the file 0600; every change is written to a temporary file and renamed over the old one, under
 * a lock file, so concurrent `hearth` processes never see half a file or lose each other's refresh-token rotation.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliEnvironment } from '../core/config/environment.ts';
import { CliError } from './output.ts';
import { connectionError } from './trust.ts';

export const CLIENT_ID = 'hearth-cli';
export const SCOPE = 'openid profile email offline_access read write admin';
/** Refresh when the access token has less than this left. */
const REFRESH_MARGIN_MS = 60_000;
const HTTP_TIMEOUT_MS = 20_000;
const LOCK_STALE_MS = 60_000;
const LOCK_WAIT_MS = 65_000;

export interface StoredLogin {
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  /** When the access token expires (ISO 8601). */
  expiresAt: string;
  scope: string;
  account: { sub: string; login: string };
}
interface CredentialsFile {
  version: 1;
  servers: Record<string, StoredLogin>;
}

export interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  end_session_endpoint?: string;
  userinfo_endpoint?: string;
  authorization_response_iss_parameter_supported?: boolean;
}

interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

/** An RFC 6749 error answer (`error`, `error_description`) from the token endpoint. */
export class OAuthError extends CliError {
  readonly code: string;
  constructor(code: string, description: string | undefined) {
    super(description ? `${description} (${code})` : code);
    this.code = code;
  }
}

/** The key of a server in the credentials file: its address without trailing slashes. */
export function serverKey(url: string): string {
  return url.replace(/\/+$/, '');
}

export function configDir(): string {
  const env = cliEnvironment();
  if (env.configDir) return path.resolve(env.configDir);
  const xdg = env.xdgConfigHome;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.config'), 'hearth');
}

export function credentialsPath(): string {
  return path.join(configDir(), 'credentials.json');
}

function readFile(): CredentialsFile {
  const file = credentialsPath();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, servers: {} };
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as CredentialsFile;
    if (!parsed || typeof parsed !== 'object' || typeof parsed.servers !== 'object' || parsed.servers === null) throw new Error('no "servers" object');
    return parsed;
  } catch (err) {
    throw new CliError(`${file} is not a Hearth credentials file (${(err as Error).message}): delete it and sign in again with \`hearth login\``);
  }
}

function writeFile(content: CredentialsFile): void {
  const file = credentialsPath();
  const dir = path.dirname(file);
  ensureDir(dir);
  const tmp = `${file}.tmp-${process.pid}-${process.getBuiltinModule('node:crypto').randomBytes(4).toString('hex')}`;
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(content, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`);
  }
  try {
    const dfd = fs.openSync(dir, 'r');
    fs.fsyncSync(dfd);
    fs.closeSync(dfd);
  } catch {
    // not every platform can fsync a directory
  }
}

function ensureDir(dir: string): void {
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/**
 * Runs `fn` holding `credentials.json.lock` (created exclusively). A lock older than a minute is left over by a
 * process that died and is taken over.
 */
async function withLock<T>(fn: () => Promise<T> | T): Promise<T> {
  const lock = `${credentialsPath()}.lock`;
  ensureDir(path.dirname(lock));
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new CliError(`cannot lock ${lock}: ${(err as Error).message}`);
    }
    try {
      if (Date.now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) {
        fs.rmSync(lock, { force: true });
        continue;
      }
    } catch {
      continue; // released meanwhile
    }
    if (Date.now() > deadline) throw new CliError(`${lock} is held by another hearth process; delete it if none is running`);
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 50));
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

export function readLogin(url: string): StoredLogin | undefined {
  return readFile().servers[serverKey(url)];
}

export function listLogins(): Record<string, StoredLogin> {
  return readFile().servers;
}

export async function saveLogin(url: string, login: StoredLogin): Promise<void> {
  await withLock(() => {
    const content = readFile();
    content.servers[serverKey(url)] = login;
    writeFile(content);
  });
}

/** Removes the entry; false when there was none. */
export async function removeLogin(url: string): Promise<boolean> {
  return withLock(() => {
    const content = readFile();
    if (!content.servers[serverKey(url)]) return false;
    delete content.servers[serverKey(url)];
    writeFile(content);
    return true;
  });
}

async function httpFetch(what: string, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  } catch (err) {
    throw connectionError(what, url, err);
  }
}

/** OpenID Connect discovery; the issuer must be the server address itself. */
export async function discover(url: string): Promise<ServerMetadata> {
  const base = serverKey(url);
  const res = await httpFetch('Hearth', `${base}/.well-known/openid-configuration`, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new CliError(`${base} offers no OAuth sign-in (GET /.well-known/openid-configuration answered HTTP ${res.status})`);
  let meta: ServerMetadata;
  try {
    meta = (await res.json()) as ServerMetadata;
  } catch {
    throw new CliError(`${base}/.well-known/openid-configuration is not JSON`);
  }
  if (meta.issuer !== base) {
    throw new CliError(`the server at ${base} calls itself ${JSON.stringify(meta.issuer)}: use --url ${meta.issuer}`);
  }
  for (const k of ['authorization_endpoint', 'token_endpoint'] as const) {
    if (typeof meta[k] !== 'string') throw new CliError(`the OpenID configuration of ${base} has no ${k}`);
  }
  return meta;
}

/** A form POST to the token endpoint; RFC 6749 errors become OAuthError. */
export async function tokenRequest(meta: ServerMetadata, params: Record<string, string>): Promise<TokenResponse> {
  const res = await httpFetch('the token endpoint', meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(params),
  });
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  if (!res.ok) {
    throw new OAuthError(
      typeof body.error === 'string' ? body.error : `http_${res.status}`,
      typeof body.error_description === 'string' ? body.error_description : undefined,
    );
  }
  if (typeof body.access_token !== 'string' || !body.access_token) throw new CliError('the token endpoint answered without an access_token');
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    throw new CliError(`unexpected token_type ${JSON.stringify(body.token_type)}`);
  return body as unknown as TokenResponse;
}

/** Revokes a token (RFC 7009), by default a refresh token. Throws on network failure or a refusal. */
export async function revokeToken(meta: ServerMetadata, token: string, hint: 'refresh_token' | 'access_token' = 'refresh_token'): Promise<void> {
  if (!meta.revocation_endpoint) throw new CliError('the server has no revocation endpoint');
  const res = await httpFetch('the revocation endpoint', meta.revocation_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: hint, client_id: CLIENT_ID }),
  });
  if (!res.ok) throw new CliError(`the revocation endpoint answered HTTP ${res.status}`);
}

/** jose's decodeJwt, loaded when a sign-in's tokens are read (not by every command: the CLI starts faster without it). */
async function decodeJwt(token: string) {
  const jose = await import('jose');
  return jose.decodeJwt(token);
}

async function expiresAt(t: TokenResponse): Promise<string> {
  let ms: number | undefined;
  if (typeof t.expires_in === 'number' && t.expires_in > 0) ms = Date.now() + t.expires_in * 1000;
  else {
    try {
      const exp = (await decodeJwt(t.access_token)).exp;
      if (typeof exp === 'number') ms = exp * 1000;
    } catch {
      // opaque token
    }
  }
  return new Date(ms ?? Date.now() + 5 * 60_000).toISOString();
}

/**
 * Checks the ID token of a token response (received straight from the token endpoint, so its signature may be taken
 * on trust: OpenID Connect Core §3.1.3.7) and returns its claims.
 */
export async function checkIdToken(idToken: string, issuer: string, nonce: string | null): Promise<Record<string, unknown>> {
  let claims: Record<string, unknown>;
  try {
    claims = await decodeJwt(idToken);
  } catch {
    throw new CliError('the server returned an ID token that is not a JWT');
  }
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (claims.iss !== issuer) throw new CliError(`the ID token was issued by ${JSON.stringify(claims.iss)}, not ${issuer}`);
  if (!aud.includes(CLIENT_ID)) throw new CliError(`the ID token is not meant for ${CLIENT_ID}`);
  if (nonce !== null && claims.nonce !== nonce) throw new CliError('the ID token does not carry the nonce of this sign-in');
  if (typeof claims.sub !== 'string' || !claims.sub) throw new CliError('the ID token has no sub');
  return claims;
}

/** Builds the stored entry from a token response (`previous`: what a refresh keeps when the server does not resend it). */
export async function toStoredLogin(
  meta: ServerMetadata,
  t: TokenResponse,
  account: { sub: string; login: string },
  previous?: StoredLogin,
): Promise<StoredLogin> {
  return {
    issuer: meta.issuer,
    clientId: CLIENT_ID,
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? previous?.refreshToken ?? null,
    idToken: t.id_token ?? previous?.idToken ?? null,
    expiresAt: await expiresAt(t),
    scope: t.scope ?? previous?.scope ?? SCOPE,
    account,
  };
}

const expiresSoon = (l: StoredLogin) => !(Date.parse(l.expiresAt) - Date.now() > REFRESH_MARGIN_MS);

/**
 * The stored login for `url` with a usable access token: refreshed first when it expires within a minute or, with
 * `rejected`, when the server just refused that token. The refresh runs under the file lock and re-reads the file, so
 * of several processes only one uses a refresh token (reusing a rotated one would revoke the whole family); the
 * rotated refresh token is stored before the new access token is used.
 */
export async function freshLogin(url: string, login: StoredLogin, rejected?: string): Promise<StoredLogin> {
  if (rejected === undefined && !expiresSoon(login)) return login;
  return withLock(async () => {
    const current = readLogin(url);
    if (!current) throw new CliError(`signed out of ${serverKey(url)} meanwhile: run \`hearth login --url ${serverKey(url)}\``);
    if (!expiresSoon(current) && (rejected === undefined || current.accessToken !== rejected)) return current;
    if (!current.refreshToken) throw new CliError(`your sign-in to ${serverKey(url)} has expired: run \`hearth login --url ${serverKey(url)}\``);
    const meta = await discover(url);
    let t: TokenResponse;
    try {
      t = await tokenRequest(meta, { grant_type: 'refresh_token', refresh_token: current.refreshToken, client_id: current.clientId });
    } catch (err) {
      if (err instanceof OAuthError && err.code === 'invalid_grant') {
        throw new CliError(`your sign-in to ${serverKey(url)} has ended (${err.message}): run \`hearth login --url ${serverKey(url)}\``);
      }
      throw err;
    }
    const account = current.account;
    if (t.id_token) {
      const claims = await checkIdToken(t.id_token, meta.issuer, null);
      if (claims.sub !== account.sub) throw new CliError('the refreshed ID token names another account');
    }
    const next = await toStoredLogin(meta, t, account, current);
    const content = readFile();
    content.servers[serverKey(url)] = next;
    writeFile(content);
    return next;
  });
}
