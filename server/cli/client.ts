import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { cliEnvironment } from '../core/config/environment.ts';
import { freshLogin, readLogin, type StoredLogin } from './credentials.ts';
import { type HttpAnswer, httpRequest } from './http.ts';
import { CliError } from './output.ts';
import { connectionError, talksToServer } from './trust.ts';

/** The server the CLI talks to by default: the public address of `hearth serve` on this machine (a name, where sign-in works). */
export const DEFAULT_URL = 'http://localhost:8787';

export interface ClientOptions {
  url?: string;
  token?: string;
  data?: string;
}

/**
 * The options of a command that talks to a running server with an admin token: `--url`, `--token`, `--data` and
 * `--ca-file` (left out with `caFileOption: false` where the command's own `--ca-file` means something else).
 */
export function serverOptions(c: Command, opts: { caFileOption?: boolean } = {}): Command {
  return talksToServer(c, opts)
    .option('--url <url>', `server address (HEARTH_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', "admin API token (HEARTH_TOKEN; default: your `hearth login`, then the data folder's initial admin token)")
    .option('--data <dir>', 'data folder to find the initial admin token in (default ./hearth-data)');
}

/**
 * A small HTTP client for the running server. Errors come back as CliError carrying the server's message.
 *
 * The token is, in order: `--token`, `HEARTH_TOKEN`, `HEARTH_ADMIN_TOKEN`, the `hearth login` of this server address
 * (refreshed when it expires within a minute, and once more if the server refuses it), the data folder's
 * `initial-admin-token`.
 */
export class HearthClient {
  readonly base: string;
  private token: string;
  private login: StoredLogin | undefined;

  constructor(opts: ClientOptions) {
    this.base = (opts.url ?? cliEnvironment().url ?? DEFAULT_URL).replace(/\/+$/, '');
    const given = opts.token ?? cliEnvironment().token;
    this.login = given ? undefined : readLogin(this.base);
    const token = given ?? this.login?.accessToken ?? readInitialToken(opts.data);
    if (!token) {
      throw new CliError(
        'no API token: pass --token, set HEARTH_TOKEN, sign in with `hearth login`, or create one with `hearth tokens create --name <name> --admin`',
      );
    }
    this.token = token;
  }

  async request(
    method: string,
    pathname: string,
    init: { json?: unknown; body?: string | Buffer | Readable; headers?: Record<string, string>; length?: number } = {},
  ): Promise<HttpAnswer> {
    if (this.login) {
      this.login = await freshLogin(this.base, this.login);
      this.token = this.login.accessToken;
    }
    let res = await this.send(method, pathname, init);
    // A stored login's access token can be refused before its time (revoked, server restarted with new keys):
    // refresh once and retry, unless the body was a stream that is already spent.
    if (res.status === 401 && this.login && !(init.body instanceof Readable)) {
      res.discard();
      this.login = await freshLogin(this.base, this.login, this.token);
      this.token = this.login.accessToken;
      res = await this.send(method, pathname, init);
    }
    if (!res.ok) {
      let message = `${res.status} ${res.statusText}`;
      try {
        const e = (await res.json()) as { error?: string; message?: string; detail?: unknown };
        if (e.message) message = `${e.message} (${e.error}, HTTP ${res.status})`;
        // the raw answer behind an explained failure (a test send's SMTP reply, credentials redacted)
        if (e.message && typeof e.detail === 'string' && e.detail) message += `\nServer answer: ${e.detail}`;
      } catch {
        // not JSON
      }
      if (this.login && (res.status === 401 || res.status === 403)) message += ` [signed in as ${this.login.account.login} with \`hearth login\`]`;
      throw new CliError(message);
    }
    return res;
  }

  private async send(
    method: string,
    pathname: string,
    init: { json?: unknown; body?: string | Buffer | Readable; headers?: Record<string, string>; length?: number },
  ): Promise<HttpAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.body instanceof Readable && init.length !== undefined) headers['content-length'] = String(init.length);
    try {
      return await httpRequest(this.base + pathname, { method, headers, body });
    } catch (err) {
      throw connectionError('Hearth', this.base, err);
    }
  }

  async json<T>(method: string, pathname: string, json?: unknown): Promise<T> {
    const res = await this.request(method, pathname, { json });
    if (res.status === 204) {
      res.discard(); // an answer left unread would hold its connection, and the command, until the server closes it
      return undefined as T;
    }
    return (await res.json()) as T;
  }
}

function readInitialToken(data?: string): string | undefined {
  const dir = path.resolve(data ?? cliEnvironment().dataDir ?? './hearth-data');
  try {
    return fs.readFileSync(path.join(dir, 'initial-admin-token'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
