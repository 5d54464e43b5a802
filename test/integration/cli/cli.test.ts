import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/boot.ts';
import { runCli } from '../../helpers/cli.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const repo = path.resolve(import.meta.dirname, '../../..');

const hearth = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: tempDir('hearth-cli-cwd-'), env });

let s: TestServer;
let conn: string[];
let work: string;
beforeAll(async () => {
  s = await startTestServer();
  conn = ['--url', s.url, '--token', s.token];
  work = tempDir('hearth-cli-');
});
afterAll(async () => {
  await s.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

describe('hearth tokens (on the data folder)', () => {
  it('creates a token that the server accepts, lists without secrets, revokes', async () => {
    const dir = tempDir();
    const created = await hearth(['tokens', 'create', '--name', 'ops', '--admin', '--data', dir, '--json']);
    expect(created.code).toBe(0);
    const info = JSON.parse(created.stdout);
    expect(info.token).toMatch(/^hth_/);
    const srv = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    try {
      expect((await fetch(`${srv.url}/v1/namespaces`, { headers: { authorization: `Bearer ${info.token}` } })).status).toBe(200);
      // with an admin token already present, no initial token is created
      expect(srv.initialTokenFile).toBeNull();
      const list = await hearth(['tokens', 'list', '--data', dir, '--json']);
      expect(list.code).toBe(0);
      expect(JSON.parse(list.stdout).map((t: { name: string }) => t.name)).toEqual(['ops']);
      expect(list.stdout).not.toContain(info.token);
      const table = await hearth(['tokens', 'list', '--data', dir]);
      expect(table.stdout).toMatch(/^ID\s+NAME\s+PREFIX/);
      expect(table.stdout).toContain('ops');
      const revoked = await hearth(['tokens', 'revoke', info.id, '--data', dir]);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toContain('Revoked');
      expect((await fetch(`${srv.url}/v1/namespaces`, { headers: { authorization: `Bearer ${info.token}` } })).status).toBe(401);
    } finally {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('plain output prints only the token on stdout', async () => {
    const dir = tempDir();
    const r = await hearth(['tokens', 'create', '--name', 'reader', '--ns', 'a,b', '--read-only', '--data', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^hth_[A-Za-z0-9_-]{43}$/);
    expect(r.stderr).toContain('shown only now');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses ambiguous or invalid token requests', async () => {
    const dir = tempDir();
    expect((await hearth(['tokens', 'create', '--name', 'x', '--data', dir])).code).toBe(1);
    expect((await hearth(['tokens', 'create', '--name', 'x', '--admin', '--ns', 'a', '--data', dir])).stderr).toMatch(/exactly one of --admin or --ns/);
    const missing = await hearth(['tokens', 'list', '--data', dir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^hearth: no Hearth data folder at .* \(no platform.db\)/);
    expect(fs.existsSync(path.join(dir, 'platform.db'))).toBe(false);
    expect((await hearth(['tokens', 'create', '--name', 'first', '--admin', '--data', dir])).code).toBe(0);
    const bad = await hearth(['tokens', 'revoke', 'nope', '--data', dir]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^hearth: no API token with id nope/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('hearth ns (against a running server)', () => {
  it('create, list, get, config, duplicate, export, import, delete', async () => {
    const c = await hearth(['ns', 'create', 'books', '--set', 'synchronous=normal', 'max_db_size=10485760', ...conn, '--json']);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.stdout).config).toMatchObject({ synchronous: 'normal', max_db_size: 10485760 });
    s.services.db.namespaces.connection('books').exec("CREATE TABLE b (title TEXT); INSERT INTO b VALUES ('Dune'), ('Emma')");

    const list = await hearth(['ns', 'list', ...conn]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^NAME\s+SIZE\s+JOURNAL/);
    expect(list.stdout).toMatch(/books\s+\S+ KiB\s+wal\s+10.0 MiB\s+no/);

    const get = await hearth(['ns', 'get', 'books', ...conn, '--json']);
    expect(JSON.parse(get.stdout).name).toBe('books');

    const cfg = await hearth(['ns', 'config', 'books', '--set', 'read_only=true', 'max_db_size=null', ...conn, '--json']);
    expect(cfg.code).toBe(0);
    // --set changes only what it names; the rest keeps its current value
    expect(JSON.parse(cfg.stdout)).toMatchObject({ read_only: true, max_db_size: null, synchronous: 'normal' });
    const badCfg = await hearth(['ns', 'config', 'books', '--set', 'synchronous=off', ...conn]);
    expect(badCfg.code).toBe(1);
    expect(badCfg.stderr).toMatch(/synchronous/);

    expect((await hearth(['ns', 'duplicate', 'books', 'books-copy', ...conn])).stdout).toContain('Duplicated books into books-copy');

    const out = path.join(work, 'books.db');
    const exp = await hearth(['ns', 'export', 'books', '-o', out, ...conn]);
    expect(exp.code).toBe(0);
    expect(exp.stderr).toContain(`Exported books to ${out}`);
    const db = new Database(out, { readonly: true });
    expect(db.prepare('SELECT title FROM b ORDER BY title').pluck().all()).toEqual(['Dune', 'Emma']);
    db.close();

    await hearth(['ns', 'create', 'shelf', ...conn]);
    const imp = await hearth(['ns', 'import', 'shelf', out, ...conn, '--json']);
    expect(imp.code).toBe(0);
    expect(JSON.parse(imp.stdout).name).toBe('shelf');
    expect(s.services.db.namespaces.connection('shelf').prepare('SELECT count(*) FROM b').pluck().get()).toBe(2);

    const notDb = path.join(work, 'notes.txt');
    fs.writeFileSync(notDb, 'not a database\n'.repeat(100));
    const badImp = await hearth(['ns', 'import', 'shelf', notDb, ...conn]);
    expect(badImp.code).toBe(1);
    expect(badImp.stderr).toMatch(/not a SQLite database.*\(invalid_database, HTTP 400\)$/m);

    const noYes = await hearth(['ns', 'delete', 'books-copy', ...conn]);
    expect(noYes.code).toBe(1);
    expect(noYes.stderr).toMatch(/without --yes/);
    expect((await hearth(['ns', 'delete', 'books-copy', '--yes', ...conn])).code).toBe(0);
    expect((await s.api('/v1/namespaces/books-copy')).status).toBe(404);
  });

  it('reports server errors and unreachable servers in one line', async () => {
    const missing = await hearth(['ns', 'get', 'nope', ...conn]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('hearth: namespace "nope" does not exist (namespace_not_found, HTTP 404)\n');
    const down = await hearth(['ns', 'list', '--url', 'http://127.0.0.1:1', '--token', 'x']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^hearth: cannot reach Hearth at http:\/\/127.0.0.1:1/);
    const noToken = await hearth(['ns', 'list', '--url', s.url, '--data', tempDir()]);
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/no API token/);
  });

  it("uses the data folder's initial admin token when none is given", async () => {
    const dir = tempDir();
    const srv = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    try {
      const r = await hearth(['ns', 'create', 'auto', '--url', srv.url, '--data', dir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('Created namespace auto');
    } finally {
      await srv.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('hearth serve', () => {
  it('prints the address and how to sign in, and stops cleanly on SIGTERM', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, [path.join(repo, 'bin/hearth.mjs'), 'serve', '--port', '0', '--data', dir, '--log-level', 'silent'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m && out.includes('Sign in')) resolve(m[1]!);
      });
      child.on('exit', () => reject(new Error(`exited early: ${out}`)));
    });
    expect(out).toMatch(/^Hearth \d+\.\d+\.\d+ listening on/);
    expect(out).toContain(`paste the admin token stored in ${path.join(dir, 'initial-admin-token')}`);
    // The address to open is the public one: a name on loopback (passkeys refuse IP addresses).
    const publicUrl = url.replace('127.0.0.1', 'localhost');
    expect(out).toContain(`Public address: ${publicUrl}\n`);
    expect(out).toContain(`Sign in: open ${publicUrl} and paste the admin token`);
    expect(out).toContain(`First run: create the administrator account at ${publicUrl} or with: hearth setup --login <name> --password-stdin`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--version and --help', async () => {
    const v = await hearth(['--version']);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await hearth(['--help']);
    for (const cmd of ['serve', 'tokens', 'ns']) expect(h.stdout).toContain(cmd);
  });
});

/**
 * Runs `hearth <args>` from source in a child that records every module it loads (files through the module hooks,
 * Node's own modules from process.moduleLoadList), with its standard error.
 */
async function loadedBy(args: string[]): Promise<{ stderr: string; files: string[]; builtins: string[] }> {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify({ files: loaded, builtins: process.moduleLoadList }) + '\\n'));
    const { main } = await import(${JSON.stringify(new URL('../../../server/cli/index.ts', import.meta.url).href)});
    await main([process.execPath, 'hearth', ...${JSON.stringify(args)}]);
  `;
  const stderr = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('close', () => resolve(err));
  });
  const m = /^LOADED (.*)$/m.exec(stderr);
  if (!m) throw new Error(`no module list: ${stderr}`);
  const { files, builtins } = JSON.parse(m[1]!) as { files: string[]; builtins: string[] };
  return { stderr: stderr.slice(0, m.index), files, builtins: builtins.map((b) => b.replace(/^NativeModule /, '')) };
}

const SERVER = /\/server\/(boot|app)\.ts$|\/server\/(db|identity|mail)\/(?!contract\.ts$)|\/node_modules\/(koa|better-sqlite3|nodemailer|imapflow|pino)\//;

describe('hearth start-up', () => {
  it('commands that talk to a running server load no server code (they start fast on a busy machine)', async () => {
    const r = await loadedBy(['admin', 'outgoing-mail', 'profiles', 'list', '--url', 'http://127.0.0.1:9', '--token', 'x']);
    expect(r.stderr).toMatch(/^hearth: cannot reach Hearth at http:\/\/127\.0\.0\.1:9/);
    expect(r.files.some((u) => u.endsWith('/server/cli/commands/mail.ts'))).toBe(true);
    expect(
      r.files.filter((u) => SERVER.test(u)),
      'server modules loaded by an HTTP command',
    ).toEqual([]);
  });

  it('--version and --help load no command module and nothing but commander from node_modules', async () => {
    for (const args of [['--version'], ['--help'], ['help']]) {
      const r = await loadedBy(args);
      expect(r.stderr, args.join(' ')).toBe('');
      const extra = r.files.filter((u) => /\/server\/cli\/commands\/|\/server\/(core|db|identity|mail)\//.test(u) || /\/node_modules\/(?!commander\/)/.test(u));
      expect(
        extra.filter((u) => !u.endsWith('/server/core/config/environment.ts')),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('ns list loads its own group only, and neither fetch (undici), TLS, zod, jose nor the progress bar', async () => {
    const r = await loadedBy(['ns', 'list', '--url', 'http://127.0.0.1:9', '--token', 'x']);
    expect(r.stderr).toMatch(/^hearth: cannot reach Hearth at http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
    const commands = r.files.filter((u) => u.includes('/server/cli/commands/')).map((u) => u.slice(u.indexOf('/server/cli/commands/') + 1));
    expect(commands).toEqual(['server/cli/commands/ns.ts']);
    expect(r.files.filter((u) => SERVER.test(u) || /\/node_modules\/(zod|jose|cli-progress)\//.test(u))).toEqual([]);
    expect(r.builtins.filter((b) => ['internal/deps/undici/undici', 'tls', 'crypto', 'https'].includes(b))).toEqual([]);
  });
});
