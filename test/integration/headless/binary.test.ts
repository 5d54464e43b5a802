/**
 * The headless single-executable binary, as a home-server admin would use it: copied alone into an empty folder,
 * started on port 0 with a temporary data folder, used over HTTP and through its own CLI, stopped with SIGTERM.
 *
 * `npm test` builds the binary first (`npm run build:headless`); run alone, this test builds it when it is missing.
 * Its helpers run inside the binary too: the upload check (a worker thread) through an import, the read-only SQL
 * pool (child processes of the binary itself) through a query, outgoing mail's SMTP thread through a send to a real
 * SMTP peer, and platform.db's checkpointer thread (the accepted mail reaches platform.db itself, not only its WAL).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../../../package.json' with { type: 'json' };
import { alive } from '../../helpers/processes.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { M, profileBody } from '../mail/helpers.ts';
import { startPeer } from '../mail/peer.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const BUILT = path.join(repo, 'build', 'out', 'hearth-linux-x64');

let root: string;
let bin: string;
let env: NodeJS.ProcessEnv;
let server: ChildProcess;
let url: string;
let token: string;
let stdout = '';
let stderr = '';

function run(args: string[], opts: { input?: string } = {}) {
  return spawnSync(bin, args, { cwd: path.dirname(bin), env, encoding: 'utf8', input: opts.input, timeout: 30_000 });
}

function childPids(pid: number): number[] {
  const r = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
}

const auth = () => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  if (!fs.existsSync(BUILT)) {
    if (!fs.existsSync(path.join(repo, 'ui', 'dist', 'index.html'))) {
      const ui = spawnSync('npm', ['run', 'build:ui', '--silent'], { cwd: repo, encoding: 'utf8' });
      if (ui.status !== 0) throw new Error(`building the UI failed: ${ui.stderr}`);
    }
    const b = spawnSync(process.execPath, ['build/headless.ts'], { cwd: repo, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`building the binary failed: ${b.stderr || b.stdout}`);
  }
  root = tempDir('hearth-headless-');
  const folder = path.join(root, 'bin');
  fs.mkdirSync(folder);
  bin = path.join(folder, 'hearth');
  fs.copyFileSync(BUILT, bin);
  fs.chmodSync(bin, 0o755);
  // Nothing from the checkout: only what any machine has.
  env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: path.join(root, 'home'), HEARTH_CACHE_DIR: path.join(root, 'cache'), LANG: 'C.UTF-8' };
  fs.mkdirSync(env.HOME!);

  server = spawn(bin, ['serve', '--port', '0', '--data', path.join(root, 'data')], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  server.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 20 s; stdout: ${stdout} stderr: ${stderr}`)), 20_000);
    server.stdout!.on('data', () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    server.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
  token = fs.readFileSync(path.join(root, 'data', 'initial-admin-token'), 'utf8').trim();
}, 240_000);

afterAll(() => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('headless binary', () => {
  it('runs from a folder holding nothing but itself', () => {
    expect(fs.readdirSync(path.dirname(bin))).toEqual(['hearth']);
    expect(run(['--version']).stdout.trim()).toBe(pkg.version);
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const cmd of ['serve', 'tokens', 'ns']) expect(help.stdout).toContain(cmd);
    // Its SQLite addon and UI were unpacked into the private cache folder.
    const cache = fs.readdirSync(env.HEARTH_CACHE_DIR!);
    expect(cache).toHaveLength(1);
    expect(cache[0]).toMatch(new RegExp(`^${pkg.version.replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
    expect((fs.statSync(env.HEARTH_CACHE_DIR!).mode & 0o777).toString(8)).toBe('700');
    // So were the server's bundle and its build-time code cache, which the binary's launcher reads from there.
    const files = fs.readdirSync(path.join(env.HEARTH_CACHE_DIR!, cache[0]!)).sort();
    expect(files).toEqual(['better_sqlite3.node', 'hearth-server.cache', 'hearth-server.cjs', 'ui']);
  });

  it('answers --version and the help texts from its build-time table exactly as its bundle prints them', () => {
    // NO_COLOR makes the launcher run the bundle (a colour variable may change commander's output; here it does not).
    const real = (args: string[]) => spawnSync(bin, args, { cwd: path.dirname(bin), env: { ...env, NO_COLOR: '1' }, encoding: 'utf8', timeout: 30_000 });
    for (const args of [[], ['--version'], ['-h'], ['help'], ['ns', '--help'], ['help', 'admin'], ['backup', '-h'], ['serve', '--help']]) {
      const [recorded, bundle] = [run(args), real(args)];
      expect({ stdout: recorded.stdout, stderr: recorded.stderr, status: recorded.status }, args.join(' ')).toEqual({
        stdout: bundle.stdout,
        stderr: bundle.stderr,
        status: bundle.status,
      });
      expect(`${recorded.stdout}${recorded.stderr}`, args.join(' ')).toMatch(args[0] === '--version' ? /^\d+\.\d+\.\d+\n$/ : /^Usage: hearth/);
    }
  });

  it('answers /healthz', async () => {
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', version: pkg.version });
  });

  it("builds its routes' schemas on first use into the same OpenAPI document and the same validation as the source", async () => {
    // The bundle makes each *.schemas.ts module on the first read of one of its exports (build/shims.ts), and routes
    // read their schemas on their first request or for the document (core/http/api.ts): a route validated before the
    // document is made, a schema module loaded late or twice, would show here.
    const source = await startTestServer();
    try {
      const invalid: Array<[string, RequestInit]> = [
        ['/v1/namespaces', { method: 'POST', body: JSON.stringify({ name: 'Not A Name!' }) }],
        ['/api/admin/core/outgoing-mail/profiles/Bad%20Key', { method: 'PUT', body: JSON.stringify({ unknown: 1 }) }],
        ['/api/admin/core/outgoing-mail/messages?limit=-1', {}],
        ['/v1/nope/query', { method: 'POST', body: JSON.stringify({ statements: [] }) }],
      ];
      const answers = async (base: string, bearer: string) => {
        const out: unknown[] = [];
        for (const [p, init] of invalid) {
          const res = await fetch(base + p, { ...init, headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' } });
          out.push({ p, status: res.status, body: await res.json() });
        }
        return out;
      };
      const refused = await answers(url, token);
      expect(refused.map((r) => (r as { status: number }).status)).toEqual([400, 400, 400, 400]);
      expect(refused).toEqual(await answers(source.url, source.token));
      const [binaryDoc, sourceDoc] = await Promise.all(
        [fetch(`${url}/v1/openapi.json`), fetch(`${source.url}/v1/openapi.json`)].map((r) => r.then((x) => x.text())),
      );
      expect(binaryDoc.length).toBeGreaterThan(100_000);
      expect(binaryDoc === sourceDoc, 'the documents differ').toBe(true);
    } finally {
      await source.stop();
    }
  });

  it('serves the admin UI: the index page and its assets', async () => {
    const res = await fetch(`${url}/`, { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const script = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    const js = await fetch(url + script);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
  });

  it('creates a namespace, exports it and imports it back (the upload check runs in a worker thread)', async () => {
    const create = await fetch(`${url}/v1/namespaces`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'sales' }),
    });
    expect(create.status).toBe(201);
    const table = await fetch(`${url}/v1/sales/query`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT sqlite_version() AS v, 6 * 7 AS answer' }),
    });
    expect(table.status).toBe(200);
    expect(await table.json()).toMatchObject({ data: [{ answer: 42 }] });

    // The binary's own CLI exports it.
    const file = path.join(root, 'sales.db');
    const exp = run(['ns', 'export', 'sales', '-o', file, '--quiet', '--url', url, '--token', token]);
    expect(exp.status, exp.stderr).toBe(0);
    const bytes = fs.readFileSync(file);
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');

    // Give it a table, then import it back in its place.
    const db = new Database(file);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hello');");
    db.close();
    const imp = run(['ns', 'import', 'sales', file, '--quiet', '--json', '--url', url, '--token', token]);
    expect(imp.status, imp.stderr).toBe(0);
    const rows = await fetch(`${url}/v1/sales/query`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT body FROM notes' }),
    });
    expect(await rows.json()).toMatchObject({ data: [{ body: 'hello' }] });
    // Listings, their regular expressions (RE2) and CSV exports run in the binary's query processes too.
    const listing = await fetch(`${url}/v1/sales/tables/notes/rows?body=imatch.^HEL`, { headers: auth() });
    expect(await listing.json()).toEqual({ data: [{ id: 1, body: 'hello' }], meta: { limit: 100, offset: 0 } });
    const csv = await fetch(`${url}/v1/sales/tables/notes/export?format=csv&select=body`, { headers: auth() });
    expect(await csv.text()).toBe('body\r\nhello\r\n');
    const bad_pattern = await fetch(`${url}/v1/sales/tables/notes/rows?body=match.(a)\\1`, { headers: auth() });
    expect(bad_pattern.status).toBe(400);

    // A file that is not a database is refused by the check.
    const bad = path.join(root, 'bad.db');
    fs.writeFileSync(bad, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4096, 7)]));
    const refused = run(['ns', 'import', 'sales', bad, '--quiet', '--url', url, '--token', token]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/invalid_database/);

    const list = run(['ns', 'list', '--json', '--url', url, '--token', token]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('"sales"');

    // On a terminal, delete asks first (the prompt loads node:readline/promises when it is needed); another answer than
    // the name deletes nothing.
    const asked = spawnSync('script', ['-qec', `${bin} ns delete sales --url ${url} --token ${token}`, '/dev/null'], {
      cwd: path.dirname(bin),
      env,
      encoding: 'utf8',
      input: 'nope\n',
      timeout: 20_000,
    });
    expect(asked.stdout).toContain('Type its name to confirm');
    expect(asked.stdout).toContain('hearth: not deleted');
    expect(asked.status).toBe(1);
    expect(run(['ns', 'list', '--json', '--url', url, '--token', token]).stdout).toContain('"sales"');
  });

  it('sends mail through its SMTP thread, and its checkpointer thread writes the send log back into platform.db', async () => {
    const peer = await startPeer();
    try {
      const api = async (method: string, p: string, body: unknown, bearer = token) => {
        const r = await fetch(url + p, {
          method,
          headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await r.text();
        return { status: r.status, body: text ? JSON.parse(text) : null };
      };
      expect((await api('PUT', `${M}/profiles/main`, profileBody(peer.port))).status).toBe(201);
      const app = await api('POST', `${M}/apps`, { appId: 'crm', name: 'CRM', platformPermissions: ['mail:send'] });
      expect(app.status).toBe(201);
      const pdf = Buffer.from('%PDF-1.7 binary test\n\u0000\u00ff', 'latin1');
      const sent = await api(
        'POST',
        '/api/mail/send',
        {
          to: ['someone@example.test'],
          subject: 'Grüße from the binary',
          text: 'Hello',
          attachments: [{ filename: 'a.pdf', contentType: 'application/pdf', content: pdf.toString('base64') }],
        },
        app.body.token,
      );
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
      const [got] = await peer.waitFor(1, 20_000);
      expect(got!.parsed.subject).toBe('Grüße from the binary');
      expect(got!.parsed.messageId).toBe(sent.body.messageId);
      expect(got!.parsed.attachments[0]!.content.equals(pdf)).toBe(true);

      // platform.db without its WAL: a copy of the main file alone holds the accepted row once the checkpointer ran
      // (commits alone only checkpoint after 10,000 WAL pages).
      const copy = path.join(root, 'platform-copy.db');
      const found = await until(
        () => {
          fs.copyFileSync(path.join(root, 'data', 'platform.db'), copy);
          const db = new Database(copy, { readonly: true });
          try {
            return db.prepare('SELECT status FROM mail_messages WHERE id = ?').get(sent.body.id);
          } finally {
            db.close();
          }
        },
        'the accepted row in platform.db without its WAL',
        4_000,
      );
      expect(found).toBeTruthy();
    } finally {
      // Hearth keeps its SMTP session open (idle, reusable) until it stops: the peer closes with it, in the last test.
      void peer.close();
    }
  });

  it('works on the data folder offline (tokens)', () => {
    const list = run(['tokens', 'list', '--data', path.join(root, 'data')]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain('initial-admin');
  });

  it("runs the commands that only talk to a server from the CLI's own bundle, without the server's", () => {
    // The build's folder for `node hearth.cjs`, less the server's bundle and its caches.
    const built = path.join(repo, 'build', 'out', 'headless');
    const folder = path.join(root, 'cli-only');
    fs.mkdirSync(folder);
    for (const f of ['hearth.cjs', 'hearth-cli.cjs', 'hearth-cli.cache', 'hearth-cli-answers.json']) fs.copyFileSync(path.join(built, f), path.join(folder, f));
    expect(fs.statSync(path.join(built, 'hearth-cli.cjs')).size).toBeLessThan(fs.statSync(path.join(built, 'hearth-server.cjs')).size / 4);
    const node = (args: string[]) => spawnSync(process.execPath, [path.join(folder, 'hearth.cjs'), ...args], { env, encoding: 'utf8', timeout: 30_000 });

    const list = node(['ns', 'list', '--json', '--url', url, '--token', token]);
    expect(list.status, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).map((n: { name: string }) => n.name)).toContain('sales');
    const users = node(['accounts', 'users', 'list', '--json', '--url', url, '--token', token]);
    expect(users.status, users.stderr).toBe(0);
    expect(JSON.parse(users.stdout)).toEqual(expect.any(Array));
    // The root help and an unknown command's suggestion come from the CLI's bundle too (NO_COLOR: not the table).
    const help = spawnSync(process.execPath, [path.join(folder, 'hearth.cjs'), '--help'], { env: { ...env, NO_COLOR: '1' }, encoding: 'utf8' });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toBe(run(['--help']).stdout);
    const unknown = node(['nss', 'list']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain("error: unknown command 'nss'\n(Did you mean ns?)");

    // A command that needs the server runs the server's bundle, which this folder does not have.
    const tokens = node(['tokens', 'list', '--data', path.join(root, 'data')]);
    expect(tokens.status).not.toBe(0);
    expect(tokens.stderr).toContain('hearth-server.cjs');
  });

  it('stops cleanly on SIGTERM, with its helper processes', async () => {
    const helpers = childPids(server.pid!);
    expect(helpers.length).toBeGreaterThan(0); // the SQL pool's children, started by the queries above
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    );
    server.kill('SIGTERM');
    const { code, signal } = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toBe('');
    await until(
      () => !helpers.some(alive),
      () => `the helper processes to exit (left: ${helpers.filter(alive).join(', ')})`,
    );
    for (const pid of helpers) expect(() => process.kill(pid, 0)).toThrow();
  });
});
