import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliOptions, type CliRun, runCli, startCli } from '../../helpers/cli.ts';
import { signIn } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

/**
 * `hearth login` / `hearth logout` against the real OAuth server: the test plays the browser (signs in with a
 * password, follows the authorization redirect to the CLI's loopback callback).
 */
/** Each test spawns the CLI many times (about half a second each, more on a busy machine). */
const SLOW = 120_000;
const PASSWORD = 'correct horse battery';

/** The CLI in the working folder, with `configDir` as its config folder (null: none given, the default applies). */
const cliOptions = (configDir: string | null, env: Record<string, string>): CliOptions => ({
  cwd: dirs[0]!,
  env: { ...(configDir === null ? {} : { HEARTH_CONFIG_DIR: configDir }), ...env },
});
const start = (args: string[], configDir: string | null, env: Record<string, string> = {}) => startCli(args, cliOptions(configDir, env));
const hearth = (args: string[], configDir: string | null, env: Record<string, string> = {}) => runCli(args, cliOptions(configDir, env));

/** Waits for "Open this address to sign in: <url>" on the CLI's stderr. */
async function authorizationUrl(r: CliRun): Promise<URL> {
  const m = await until(
    () => {
      const found = /Open this address to sign in: (\S+)/.exec(r.stderr());
      if (!found && r.child.exitCode !== null) throw new Error('hearth login exited early');
      return found;
    },
    'an authorization address',
    10_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}: ${r.stderr()}`);
  });
  return new URL(m[1]!);
}

let s: TestServer;
let cookie: string;
let meta: { issuer: string; token_endpoint: string; authorization_endpoint: string };
/** Every temporary folder, removed at the end; the first is the working folder of the spawned CLI. */
const dirs: string[] = [tempDir('hearth-cli-cwd-')];
const configDir = () => {
  const d = tempDir('hearth-config-');
  dirs.push(d);
  return path.join(d, 'hearth'); // not there yet: login creates it 0700
};

beforeAll(async () => {
  s = await startTestServer();
  const setup = await fetch(`${s.url}/api/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: s.url },
    body: JSON.stringify({ login: 'root', password: PASSWORD }),
  });
  expect(setup.status).toBe(201);
  cookie = await signIn(s, 'root', PASSWORD);
});
afterAll(async () => {
  await s.stop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The browser's part: the authorization request with the session cookie answers with a redirect to the callback. */
async function authorize(auth: URL, withCookie = cookie): Promise<URL> {
  const res = await fetch(auth, { headers: { cookie: withCookie }, redirect: 'manual' });
  expect([302, 303]).toContain(res.status);
  return new URL(res.headers.get('location')!, auth);
}

/** `hearth login` in `dir`, with the test as the browser signed in with `withCookie`. */
async function hearthLogin(dir: string, withCookie = cookie) {
  const r = start(['login', '--url', s.url, '--no-browser'], dir);
  const auth = await authorizationUrl(r);
  const callback = await authorize(auth, withCookie);
  const page = await fetch(callback);
  return { r, auth, callback, page, code: await r.done };
}

const readCreds = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8'));
const refreshGrant = (refreshToken: string) =>
  fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'hearth-cli' }),
  });

describe('hearth login', () => {
  beforeAll(async () => {
    const disc = await fetch(`${s.url}/.well-known/openid-configuration`);
    expect(disc.status).toBe(200);
    meta = await disc.json();
  }, SLOW);

  it(
    'signs in with PKCE over a loopback redirect, stores the tokens 0600, and later commands use them',
    async () => {
      const dir = configDir();
      const { r, auth, callback, page, code } = await hearthLogin(dir);
      // the authorization request of RFC 8252 with PKCE S256
      expect(auth.origin + auth.pathname).toBe(meta.authorization_endpoint);
      const q = auth.searchParams;
      expect(q.get('response_type')).toBe('code');
      expect(q.get('client_id')).toBe('hearth-cli');
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(q.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      expect(q.get('scope')!.split(' ')).toEqual(expect.arrayContaining(['openid', 'offline_access', 'admin']));
      expect(q.get('state')).toBeTruthy();
      expect(q.get('nonce')).toBeTruthy();
      expect(q.has('resource')).toBe(false);
      expect(callback.searchParams.get('iss')).toBe(meta.issuer);

      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Signed in');
      expect(code, r.stderr()).toBe(0);
      expect(r.stdout()).toBe(`Signed in to ${s.url} as root\n`);

      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      expect(fs.statSync(path.join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
      const entry = readCreds(dir).servers[s.url];
      const rootSub = (await (await s.api('/api/admin/core/accounts?search=root')).json()).data[0].sub;
      expect(entry).toMatchObject({ issuer: meta.issuer, clientId: 'hearth-cli', account: { sub: rootSub, login: 'root' } });
      expect(entry.accessToken).toMatch(/^ey/);
      expect(entry.refreshToken).toBeTruthy();
      expect(entry.idToken).toMatch(/^ey/);
      expect(Date.parse(entry.expiresAt)).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(fs.readdirSync(dir)).toEqual(['credentials.json']); // no temporary or lock file left

      const who = await hearth(['whoami', '--url', s.url], dir);
      expect(who.stdout).toMatch(/^account:\s+root \(/m);

      // no --token: the stored login is used
      const list = await hearth(['ns', 'create', 'from-login', '--url', s.url], dir);
      expect(list.stderr).toBe('');
      expect(list.code).toBe(0);
      expect((await s.api('/v1/namespaces/from-login')).status).toBe(200);
      const users = await hearth(['accounts', 'users', 'create', 'made-by-root', '--url', s.url, '--json'], dir);
      expect(users.code, users.stderr).toBe(0);
      expect(JSON.parse(users.stdout).login).toBe('made-by-root');

      // an access token about to expire is refreshed first, and the rotated refresh token is stored
      const before = readCreds(dir);
      before.servers[s.url].expiresAt = new Date(Date.now() + 10_000).toISOString();
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(before));
      const again = await hearth(['ns', 'list', '--url', s.url, '--json'], dir);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).map((n: { name: string }) => n.name)).toContain('from-login');
      const after = readCreds(dir).servers[s.url];
      expect(after.refreshToken).not.toBe(entry.refreshToken);
      expect(after.accessToken).not.toBe(entry.accessToken);
      expect(Date.parse(after.expiresAt)).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(fs.statSync(path.join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);

      // an access token the server refuses: refresh once and retry
      const broken = readCreds(dir);
      broken.servers[s.url].accessToken = 'not-a-token';
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(broken), { mode: 0o600 });
      const retried = await hearth(['ns', 'get', 'from-login', '--url', s.url, '--json'], dir);
      expect(retried.code, retried.stderr).toBe(0);
      expect(readCreds(dir).servers[s.url].refreshToken).not.toBe(after.refreshToken);

      // several processes needing a refresh at once: one refreshes, the others use its result (no reuse of a
      // rotated refresh token, which would revoke the whole family)
      const expired = readCreds(dir);
      expired.servers[s.url].expiresAt = new Date(Date.now() - 1000).toISOString();
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(expired), { mode: 0o600 });
      const parallel = await Promise.all([1, 2, 3, 4].map(() => hearth(['ns', 'list', '--url', s.url], dir)));
      for (const p of parallel) expect(p.code, p.stderr).toBe(0);
      const latest = readCreds(dir).servers[s.url];
      expect(latest.refreshToken).not.toBe(expired.servers[s.url].refreshToken);

      // reusing a rotated refresh token is refused
      const reuse = await refreshGrant(entry.refreshToken);
      expect(reuse.status).toBe(400);
      expect((await reuse.json()).error).toBe('invalid_grant');
    },
    SLOW,
  );

  it(
    'logout revokes the refresh token and removes the entry',
    async () => {
      const dir = configDir();
      expect((await hearthLogin(dir)).code).toBe(0);
      const first = readCreds(dir).servers[s.url].refreshToken;
      // signing in again replaces the stored sign-in and revokes the old one
      expect((await hearthLogin(dir)).code).toBe(0);
      const { refreshToken, accessToken } = readCreds(dir).servers[s.url];
      expect(refreshToken).not.toBe(first);
      expect((await s.api('/v1/namespaces', { token: accessToken })).status).toBe(200);
      expect((await (await refreshGrant(first)).json()).error).toBe('invalid_grant');
      const out = await hearth(['logout', '--url', s.url], dir);
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toBe(`Signed out of ${s.url}\n`);
      expect(readCreds(dir).servers[s.url]).toBeUndefined();
      const res = await refreshGrant(refreshToken);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_grant');
      expect((await s.api('/v1/namespaces', { token: accessToken })).status).toBe(401);
      // without a stored login (nor a token) commands say how to get one
      const none = await hearth(['ns', 'list', '--url', s.url, '--data', configDir()], dir);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/no API token: .*hearth login/);
      expect((await hearth(['logout', '--url', s.url], dir)).stdout).toBe(`Not signed in to ${s.url}\n`);
      expect((await hearth(['whoami', '--url', s.url], dir)).code).toBe(1);
    },
    SLOW,
  );

  it(
    'a sign-in that has ended makes commands say to sign in again',
    async () => {
      const dir = configDir();
      expect((await hearthLogin(dir)).code).toBe(0);
      const creds = readCreds(dir);
      // revoke behind the CLI's back, then force a refresh
      expect((await refreshGrant(creds.servers[s.url].refreshToken)).status).toBe(200);
      creds.servers[s.url].expiresAt = new Date(0).toISOString();
      fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify(creds), { mode: 0o600 });
      const r = await hearth(['ns', 'list', '--url', s.url], dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/your sign-in to .* has ended .*hearth login --url/);
    },
    SLOW,
  );

  it(
    'ignores a callback with a wrong state and fails on an error response',
    async () => {
      const dir = configDir();
      const r = start(['login', '--url', s.url, '--no-browser'], dir);
      const auth = await authorizationUrl(r);
      const redirect = new URL(auth.searchParams.get('redirect_uri')!);
      const forged = new URL(redirect);
      forged.search = new URLSearchParams({ code: 'forged', state: 'not-the-state', iss: meta.issuer }).toString();
      const res = await fetch(forged);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('wrong state');
      expect(r.child.exitCode).toBeNull(); // still waiting for the real answer
      const denied = new URL(redirect);
      denied.search = new URLSearchParams({
        error: 'access_denied',
        error_description: 'the user said no',
        state: auth.searchParams.get('state')!,
        iss: meta.issuer,
      }).toString();
      const page = await fetch(denied);
      expect(page.status).toBe(400);
      expect(await page.text()).toContain('the user said no');
      expect(await r.done).toBe(1);
      expect(r.stderr()).toMatch(/hearth: sign-in refused: the user said no \(access_denied\)/);
      expect(fs.existsSync(path.join(dir, 'credentials.json'))).toBe(false);
    },
    SLOW,
  );

  it(
    'refuses a response from another issuer (mix-up)',
    async () => {
      const dir = configDir();
      // without --no-browser and without any browser to start: the failure to open one is ignored
      const r = start(['login', '--url', s.url], dir, { PATH: configDir() });
      const auth = await authorizationUrl(r);
      const cb = new URL(auth.searchParams.get('redirect_uri')!);
      cb.search = new URLSearchParams({ code: 'abc', state: auth.searchParams.get('state')!, iss: 'https://evil.example' }).toString();
      expect((await fetch(cb)).status).toBe(400);
      expect(await r.done).toBe(1);
      expect(r.stderr()).toMatch(/came from "https:\/\/evil.example", not /);
    },
    SLOW,
  );

  it(
    'an account without the administrator role can sign in, but admin commands say who is signed in',
    async () => {
      expect((await s.api('/api/admin/core/accounts', { method: 'POST', json: { login: 'pat', displayName: 'Pat' } })).status).toBe(201);
      const sub = (await (await s.api('/api/admin/core/accounts?search=pat')).json()).data[0].sub;
      expect((await s.api(`/api/admin/core/accounts/${sub}/password`, { method: 'PUT', json: { password: PASSWORD } })).status).toBe(204);
      const patCookie = await signIn(s, 'pat', PASSWORD);
      const dir = configDir();
      const { r, code } = await hearthLogin(dir, patCookie);
      expect(code, r.stderr()).toBe(0);
      expect(r.stdout()).toBe(`Signed in to ${s.url} as pat\n`);
      const denied = await hearth(['accounts', 'users', 'list', '--url', s.url], dir);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/HTTP 403\) \[signed in as pat with `hearth login`\]\n$/);
    },
    SLOW,
  );

  it(
    'says so when the server has no OAuth sign-in or cannot be reached',
    async () => {
      const down = await hearth(['login', '--url', 'http://127.0.0.1:1', '--no-browser'], configDir());
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/^hearth: cannot reach Hearth at http:\/\/127.0.0.1:1/);
    },
    SLOW,
  );
});

describe('the credentials file (no OAuth server needed)', () => {
  const entry = (accessToken: string, refreshToken: string | null = null) => ({
    issuer: s.url,
    clientId: 'hearth-cli',
    accessToken,
    refreshToken,
    idToken: null,
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    scope: 'openid admin',
    account: { sub: '00000000-0000-4000-8000-000000000000', login: 'root' },
  });
  const write = (dir: string, servers: Record<string, unknown>) => {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'credentials.json'), JSON.stringify({ version: 1, servers }), { mode: 0o600 });
  };

  it(
    'is found in XDG_CONFIG_HOME, keyed by the address, used before the data folder and after --token',
    async () => {
      const xdg = configDir();
      // any bearer token works as the stored access token; here the admin API token
      write(path.join(xdg, 'hearth'), { [s.url]: entry(s.token) });
      const data = s.dataDir; // has no initial-admin-token (the test server has an explicit admin token)
      const r = await hearth(['ns', 'list', '--url', `${s.url}/`, '--data', data], null, { XDG_CONFIG_HOME: xdg });
      expect(r.code, r.stderr).toBe(0);
      const who = await hearth(['whoami', '--url', s.url, '--json'], null, { XDG_CONFIG_HOME: xdg });
      expect(JSON.parse(who.stdout)).toMatchObject({ server: s.url, login: 'root', credentials: path.join(xdg, 'hearth', 'credentials.json') });
      expect(who.stdout).not.toContain(s.token);
      // HEARTH_CONFIG_DIR wins over XDG_CONFIG_HOME
      const other = configDir();
      expect((await hearth(['whoami', '--url', s.url], other, { XDG_CONFIG_HOME: xdg })).code).toBe(1);
      // --token wins over the stored sign-in
      write(path.join(xdg, 'hearth'), { [s.url]: entry('wrong') });
      expect((await hearth(['ns', 'list', '--url', s.url, '--token', s.token], null, { XDG_CONFIG_HOME: xdg })).code).toBe(0);
      // another address has no sign-in
      const elsewhere = await hearth(['ns', 'list', '--url', 'http://127.0.0.1:1', '--data', data], null, { XDG_CONFIG_HOME: xdg });
      expect(elsewhere.stderr).toMatch(/no API token/);
    },
    SLOW,
  );

  it(
    'a refused access token without a refresh token asks to sign in again',
    async () => {
      const dir = configDir();
      write(dir, { [s.url]: entry('refused-token') });
      const r = await hearth(['ns', 'list', '--url', s.url], dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`hearth: your sign-in to ${s.url} has expired: run \`hearth login --url ${s.url}\`\n`);
    },
    SLOW,
  );

  it(
    'a damaged file is reported, not overwritten',
    async () => {
      const dir = configDir();
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'credentials.json'), '{not json');
      const r = await hearth(['ns', 'list', '--url', s.url], dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/credentials.json is not a Hearth credentials file .*delete it and sign in again/);
      expect(fs.readFileSync(path.join(dir, 'credentials.json'), 'utf8')).toBe('{not json');
    },
    SLOW,
  );
});
