/**
 * `hearth login`, `hearth logout`, `hearth whoami`: OAuth 2.0 authorization code with PKCE (S256) for the public
 * client `hearth-cli`, with a loopback redirect on 127.0.0.1 and a port chosen by the system (RFC 8252 §7.3). The
 * authorization response must carry our `state` and the discovered `iss` (RFC 9207); the ID token must carry our nonce.
 *
 * `hearth login --user <login or email>`: terminal sign-in, the device authorization grant (RFC 8628) with
 * `login_hint`, approved in the account's paired authenticator app; no browser and no loopback port.
 * `hearth login --device`: the same grant without `login_hint`: the user enters the printed code on the server's
 * `/oauth/device` page in a browser on any device (for machines without a browser, e.g. over SSH).
 *
 * One file because the three commands share discovery, the token store (`storeTokens`) and the exit codes, and
 * `hearth login` picks its flow from its options. It does hold two flows: the device grant
 * (`requestDeviceAuthorization` to `terminalLogin`) could be a login-device.ts beside the loopback code flow.
 */

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { cliEnvironment } from '../../core/config/environment.ts';
import { DEVICE_CODE_GRANT } from '../../identity/contract.ts';
import { DEFAULT_URL } from '../client.ts';
import {
  CLIENT_ID,
  checkIdToken,
  credentialsPath,
  discover,
  OAuthError,
  readLogin,
  removeLogin,
  revokeToken,
  SCOPE,
  type ServerMetadata,
  saveLogin,
  serverKey,
  tokenRequest,
  toStoredLogin,
} from '../credentials.ts';
import { CliError, printFields, printJson } from '../output.ts';
import { connectionError, talksToServer } from '../trust.ts';

const CALLBACK_TIMEOUT_MS = 5 * 60_000;
/** Exit statuses of `hearth login --user` besides 0 and 1. */
export const EXIT_DENIED = 3;
export const EXIT_EXPIRED = 4;
export const EXIT_INTERRUPTED = 130;
const b64url = (b: Buffer) => b.toString('base64url');
const serverUrl = (url?: string) => serverKey(url ?? cliEnvironment().url ?? DEFAULT_URL);

/** Best effort: hand the address to the desktop's browser. Every failure is ignored (the address is printed anyway). */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no browser
  }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
function page(res: http.ServerResponse, status: number, title: string, text: string): void {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Hearth: ${escapeHtml(title)}</title></head>` +
    `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'referrer-policy': 'no-referrer',
    connection: 'close',
  });
  res.end(html);
}

interface Callback {
  code: string;
  /** Answers the browser once the code has been exchanged (or not). */
  reply(ok: boolean, text: string): void;
}

/**
 * Serves `GET /callback` on the loopback address until an authorization response with our `state` arrives. Responses
 * with another state are answered 400 and otherwise ignored (they are not ours, maybe forged), so they cannot cut a
 * sign-in short; an error response or a wrong issuer with our state ends the sign-in.
 */
async function loopback(meta: ServerMetadata, state: string, onListening: (redirectUri: string) => void): Promise<Callback> {
  const server = http.createServer();
  const done = () => {
    server.close();
    server.closeAllConnections();
  };
  return new Promise<Callback>((resolve, reject) => {
    const timer = setTimeout(() => {
      done();
      reject(new CliError('no sign-in within 5 minutes: run `hearth login` again'));
    }, CALLBACK_TIMEOUT_MS);
    let settled = false;
    const fail = (res: http.ServerResponse, message: string) => {
      settled = true;
      clearTimeout(timer);
      res.on('finish', done);
      page(res, 400, 'Sign-in failed', `${message}. You can close this tab.`);
      reject(new CliError(message));
    };
    server.on('request', (req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method !== 'GET' || u.pathname !== '/callback') return page(res, 404, 'Not found', 'This address only receives the sign-in of `hearth login`.');
      if (settled) return page(res, 409, 'Already handled', 'hearth login has already received its sign-in response.');
      const p = u.searchParams;
      if (p.get('state') !== state) {
        process.stderr.write('hearth: ignored a sign-in response that does not belong to this login (wrong state)\n');
        return page(res, 400, 'Sign-in response refused', 'This response does not belong to the sign-in that hearth login is waiting for (wrong state).');
      }
      const iss = p.get('iss');
      if ((iss !== null || meta.authorization_response_iss_parameter_supported) && iss !== meta.issuer) {
        return fail(res, `the sign-in response came from ${iss === null ? 'an unnamed issuer' : JSON.stringify(iss)}, not ${meta.issuer}`);
      }
      const error = p.get('error');
      if (error !== null) {
        const description = p.get('error_description');
        return fail(res, `sign-in refused: ${description ? `${description} (${error})` : error}`);
      }
      const code = p.get('code');
      if (!code) return fail(res, 'the sign-in response has no code');
      settled = true;
      clearTimeout(timer);
      resolve({
        code,
        reply(ok, text) {
          res.on('finish', done);
          page(res, ok ? 200 : 400, ok ? 'Signed in' : 'Sign-in failed', text);
        },
      });
    });
    server.on('error', (err) => {
      clearTimeout(timer);
      reject(new CliError(`cannot listen on 127.0.0.1: ${err.message}`));
    });
    server.listen(0, '127.0.0.1', () => onListening(`http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`));
  });
}

/** The login name for display: `preferred_username` (or `uid`) of the ID token, else of userinfo, else the sub. */
async function loginName(meta: ServerMetadata, claims: Record<string, unknown>, accessToken: string): Promise<string> {
  for (const k of ['preferred_username', 'uid']) if (typeof claims[k] === 'string' && claims[k]) return claims[k];
  if (meta.userinfo_endpoint) {
    try {
      const res = await fetch(meta.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(10_000) });
      const info = (await res.json()) as Record<string, unknown>;
      if (res.ok && info.sub === claims.sub && typeof info.preferred_username === 'string') return info.preferred_username;
    } catch {
      // fall back to the sub
    }
  }
  return claims.sub as string;
}

/**
 * The end of every sign-in: checks the ID token (issuer, audience, `nonce` when the flow sent one), stores the tokens
 * and revokes the sign-in they replace (best effort).
 */
async function storeTokens(url: string, meta: ServerMetadata, t: Awaited<ReturnType<typeof tokenRequest>>, nonce: string | null) {
  if (!t.id_token) throw new CliError('the server returned no ID token');
  if (!t.refresh_token) process.stderr.write('hearth: the server returned no refresh token; you will have to sign in again when the access token expires\n');
  const claims = await checkIdToken(t.id_token, meta.issuer, nonce);
  const login = await toStoredLogin(meta, t, { sub: claims.sub as string, login: await loginName(meta, claims, t.access_token) });
  const previous = readLogin(url);
  await saveLogin(url, login);
  if (previous?.refreshToken && previous.refreshToken !== login.refreshToken) await revokeToken(meta, previous.refreshToken).catch(() => {});
  return login;
}

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

/**
 * RFC 8628 §3.1: the device authorization request of `hearth-cli`: with `login_hint` (approved in the user's paired
 * authenticator app), or without (the code is entered on the server's `/oauth/device` page in any browser).
 */
async function requestDeviceAuthorization(meta: ServerMetadata, user: string | null): Promise<DeviceAuthorization> {
  const endpoint = (meta as ServerMetadata & { device_authorization_endpoint?: string }).device_authorization_endpoint;
  if (typeof endpoint !== 'string')
    throw new CliError(
      `${meta.issuer} does not offer terminal sign-in (no device_authorization_endpoint): use \`hearth login\` without ${user === null ? '--device' : '--user'}`,
    );
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: CLIENT_ID, scope: SCOPE, ...(user === null ? {} : { login_hint: user }) }),
      signal: AbortSignal.timeout(20_000),
    });
  } catch (err) {
    throw connectionError('the device authorization endpoint', endpoint, err);
  }
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  if (!res.ok) {
    const code = typeof body.error === 'string' ? body.error : `http_${res.status}`;
    const description = typeof body.error_description === 'string' ? body.error_description : typeof body.message === 'string' ? body.message : undefined;
    throw new CliError(`the server refused the terminal sign-in: ${description ? `${description} (${code})` : code}`);
  }
  if (typeof body.device_code !== 'string' || typeof body.user_code !== 'string' || typeof body.expires_in !== 'number') {
    throw new CliError('the device authorization endpoint answered without device_code, user_code or expires_in');
  }
  return body as unknown as DeviceAuthorization;
}

/** Waits `ms`, or rejects when the signal aborts (Ctrl-C). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * RFC 8628 §3.4–3.5: polls the token endpoint every `interval` seconds (5 when the server names none), five seconds
 * slower after each `slow_down`, until the tokens, `access_denied` or `expired_token`.
 */
async function pollDeviceToken(meta: ServerMetadata, d: DeviceAuthorization, signal: AbortSignal, how: { again: string; where: string }) {
  let interval = Math.max(1, d.interval ?? 5);
  const deadline = Date.now() + d.expires_in * 1000;
  for (;;) {
    await sleep(interval * 1000, signal);
    try {
      return await tokenRequest(meta, { grant_type: DEVICE_CODE_GRANT, device_code: d.device_code, client_id: CLIENT_ID });
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
      if (err.code === 'authorization_pending') {
        if (Date.now() > deadline + interval * 1000)
          throw new CliError(`the sign-in request expired before it was approved: run \`${how.again}\` again`, EXIT_EXPIRED);
        continue;
      }
      if (err.code === 'slow_down') {
        interval += 5;
        continue;
      }
      if (err.code === 'access_denied') throw new CliError(`the sign-in was denied ${how.where}`, EXIT_DENIED);
      if (err.code === 'expired_token') throw new CliError(`the sign-in request expired before it was approved: run \`${how.again}\` again`, EXIT_EXPIRED);
      throw new CliError(`the server refused the terminal sign-in: ${err.message}`);
    }
  }
}

/**
 * `hearth login --user`: the device authorization grant approved in the paired authenticator app; `hearth login
 * --device` (user null): the same grant, the code entered on the server's page in any browser (a machine without one).
 */
async function terminalLogin(url: string, user: string | null): Promise<void> {
  const meta = await discover(url);
  const d = await requestDeviceAuthorization(meta, user);
  const expires = `expires in ${Math.round(d.expires_in / 60) || 1} min; Ctrl-C to stop`;
  const how = user !== null ? { again: 'hearth login --user', where: 'in the authenticator app' } : { again: 'hearth login --device', where: 'in the browser' };
  const controller = new AbortController();
  const onSigint = () => controller.abort(new CliError('sign-in stopped (Ctrl-C)', EXIT_INTERRUPTED));
  // Listening before the code shows: a Ctrl-C the moment it shows stops the sign-in as any later one does (a signal
  // that came between the code and the listener ended the process with no message and no exit status 130).
  process.once('SIGINT', onSigint);
  let t: Awaited<ReturnType<typeof pollDeviceToken>>;
  try {
    process.stderr.write(
      user !== null
        ? `Approve the sign-in in your authenticator app; compare the code ${d.user_code}\n` +
            `  client: ${CLIENT_ID}\n  scopes: ${SCOPE}\n` +
            `Waiting for the approval (${expires})...\n`
        : `To sign in, open ${d.verification_uri} in a browser on any device and enter the code ${d.user_code}\n` +
            (d.verification_uri_complete ? `  (or open ${d.verification_uri_complete})\n` : '') +
            `  client: ${CLIENT_ID}\n  scopes: ${SCOPE}\n` +
            `Waiting for the approval (${expires})...\n`,
    );
    t = await pollDeviceToken(meta, d, controller.signal, how);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  const login = await storeTokens(url, meta, t, null);
  process.stdout.write(`Signed in to ${url} as ${login.account.login}\n`);
}

/** `hearth login` (the names and descriptions of the three commands are in cli/index.ts). */
export function registerLogin(cmd: Command): void {
  talksToServer(cmd)
    .option('--url <url>', `server address (HEARTH_URL, default ${DEFAULT_URL})`)
    .option('--no-browser', 'only print the address to open')
    .option('--user <login or email>', 'terminal sign-in: approve it in the paired authenticator app of this account (no browser)')
    .option('--device', "terminal sign-in on a machine without a browser: enter the printed code on the server's page in any browser")
    .action(async (opts: { url?: string; browser: boolean; user?: string; device?: boolean }) => {
      const url = serverUrl(opts.url);
      if (opts.device) {
        if (opts.user !== undefined)
          throw new CliError('use either --user (approve in the authenticator app) or --device (enter the code in a browser), not both');
        return terminalLogin(url, null);
      }
      if (opts.user !== undefined) {
        if (!opts.user.trim()) throw new CliError('--user needs a login name or email address');
        return terminalLogin(url, opts.user.trim());
      }
      const meta = await discover(url);
      const verifier = b64url(crypto.randomBytes(32));
      const state = b64url(crypto.randomBytes(16));
      const nonce = b64url(crypto.randomBytes(16));
      let redirectUri = '';
      const callback = await loopback(meta, state, (uri) => {
        redirectUri = uri;
        const auth = new URL(meta.authorization_endpoint);
        const q = {
          response_type: 'code',
          client_id: CLIENT_ID,
          redirect_uri: uri,
          scope: SCOPE,
          state,
          nonce,
          code_challenge: b64url(crypto.createHash('sha256').update(verifier).digest()),
          code_challenge_method: 'S256',
        };
        for (const [k, v] of Object.entries(q)) auth.searchParams.set(k, v);
        process.stderr.write(`Open this address to sign in: ${auth.href}\n`);
        if (opts.browser) openBrowser(auth.href);
      });
      let login: Awaited<ReturnType<typeof storeTokens>>;
      try {
        const t = await tokenRequest(meta, {
          grant_type: 'authorization_code',
          code: callback.code,
          redirect_uri: redirectUri,
          client_id: CLIENT_ID,
          code_verifier: verifier,
        });
        login = await storeTokens(url, meta, t, nonce);
      } catch (err) {
        const message = err instanceof OAuthError ? `the server refused the sign-in code: ${err.message}` : (err as Error).message;
        callback.reply(false, `${message}. You can close this tab.`);
        throw err instanceof OAuthError ? new CliError(message) : err;
      }
      callback.reply(true, `Signed in to ${url} as ${login.account.login}. You can close this tab and return to the terminal.`);
      process.stdout.write(`Signed in to ${url} as ${login.account.login}\n`);
    });
}

export function registerLogout(cmd: Command): void {
  talksToServer(cmd)
    .option('--url <url>', `server address (HEARTH_URL, default ${DEFAULT_URL})`)
    .action(async (opts: { url?: string }) => {
      const url = serverUrl(opts.url);
      const login = readLogin(url);
      if (!login) {
        process.stdout.write(`Not signed in to ${url}\n`);
        return;
      }
      try {
        const meta = await discover(url);
        // the refresh token ends the whole grant; the access token too, so that it stops working at once
        if (login.refreshToken) await revokeToken(meta, login.refreshToken);
        await revokeToken(meta, login.accessToken, 'access_token');
      } catch (err) {
        process.stderr.write(`hearth: could not revoke the sign-in at the server (${(err as Error).message}); it stays valid there until it expires\n`);
      }
      await removeLogin(url);
      process.stdout.write(`Signed out of ${url}\n`);
    });
}

export function registerWhoami(cmd: Command): void {
  cmd
    .option('--url <url>', `server address (HEARTH_URL, default ${DEFAULT_URL})`)
    .option('--json', 'print JSON (without tokens)')
    .action((opts: { url?: string; json?: boolean }) => {
      const url = serverUrl(opts.url);
      const login = readLogin(url);
      if (!login) throw new CliError(`not signed in to ${url}: run \`hearth login --url ${url}\``);
      const expired = Date.parse(login.expiresAt) <= Date.now();
      const info = {
        server: url,
        login: login.account.login,
        sub: login.account.sub,
        scope: login.scope,
        accessTokenExpiresAt: login.expiresAt,
        refreshable: !!login.refreshToken,
        credentials: credentialsPath(),
      };
      if (opts.json) return printJson(info);
      printFields([
        ['server', url],
        ['account', `${login.account.login} (${login.account.sub})`],
        ['scope', login.scope],
        ['access token', `${expired ? 'expired' : 'expires'} ${login.expiresAt}${login.refreshToken ? ' (renewed automatically)' : ''}`],
        ['credentials', credentialsPath()],
      ]);
    });
}
