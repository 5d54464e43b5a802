import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../../bin/node-check.mjs';
import { allMigrations, startServer } from '../../../server/boot.ts';
import { ConfigError, loadConfig } from '../../../server/core/config/config.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';

const repo = path.resolve(import.meta.dirname, '../../..');

describe('configuration', () => {
  it('defaults to 127.0.0.1:8787 and ./hearth-data', () => {
    const c = loadConfig({}, {});
    expect(c).toMatchObject({ host: '127.0.0.1', port: 8787, logLevel: 'info', maxOpenNamespaces: 256 });
    expect(c.dataDir).toBe(path.resolve('./hearth-data'));
  });

  it('reads HEARTH_* from the environment; explicit options win', () => {
    const env = { HEARTH_HOST: '0.0.0.0', HEARTH_PORT: '9000', HEARTH_DATA_DIR: '/tmp/x', HEARTH_LOG_LEVEL: 'debug' };
    expect(loadConfig({}, env)).toMatchObject({ host: '0.0.0.0', port: 9000, dataDir: '/tmp/x', logLevel: 'debug' });
    expect(loadConfig({ port: '9100', host: '127.0.0.1' }, env)).toMatchObject({ host: '127.0.0.1', port: 9100 });
  });

  it.each([
    [{ port: 'abc' }, /^invalid setting port \(HEARTH_PORT\): .*"abc"/],
    [{ port: 70000 }, /port \(HEARTH_PORT\)/],
    [{ logLevel: 'loud' }, /logLevel \(HEARTH_LOG_LEVEL\)/],
    [{ maxOpenNamespaces: 0 }, /maxOpenNamespaces/],
    [{ adminToken: 'short' }, /adminToken \(HEARTH_ADMIN_TOKEN\): must be at least 16 characters$/],
    [{ identityJwksOrigin: 'https://core.internal/keys' }, /^invalid setting identityJwksOrigin \(HEARTH_IDENTITY_JWKS_ORIGIN\): must be an origin such as /],
    [{ oauthJwksOrigin: 'core.internal:8443' }, /^invalid setting oauthJwksOrigin \(HEARTH_OAUTH_JWKS_ORIGIN\): must be an origin such as /],
  ])('rejects %j with a one-line explanation', (opts, msg) => {
    let err: unknown;
    try {
      loadConfig(opts as never, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(msg);
    expect((err as Error).message).not.toContain('\n');
  });

  it('never echoes a secret in a config error', () => {
    expect(() => loadConfig({}, { HEARTH_ADMIN_TOKEN: 'tiny-secret' })).toThrow(ConfigError);
    try {
      loadConfig({}, { HEARTH_ADMIN_TOKEN: 'tiny-secret' });
    } catch (e) {
      expect((e as Error).message).not.toContain('tiny-secret');
    }
  });

  it('`hearth serve` with a bad value stops with one line on stderr', () => {
    const r = spawnSync(process.execPath, ['bin/hearth.mjs', 'serve', '--port', 'abc', '--data', tempDir()], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, HEARTH_LOG_LEVEL: 'silent' },
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^hearth: invalid setting port \(HEARTH_PORT\)/);
  });

  it('explains an old Node.js clearly', () => {
    expect(nodeVersionProblem('20.20.2')).toMatch(/Node.js 20.20.2 is too old; Hearth needs Node.js 24 LTS/);
    expect(nodeVersionProblem('v22.1.0')).toMatch(/too old/);
    expect(nodeVersionProblem('24.0.0')).toBeNull();
    expect(nodeVersionProblem('25.2.1')).toBeNull();
  });
});

describe('the config file (--config, HEARTH_CONFIG)', () => {
  const write = (name: string, text: string) => {
    const dir = tempDir();
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return { dir, file };
  };

  it('reads TOML by its extension: keys are the settings, a relative path is resolved from the file folder', () => {
    const { dir, file } = write('hearth.toml', 'dataDir = "data"\nport = 9443\ntlsNames = ["a.example.com", "b.example.com"]\nmdns = false\n');
    expect(loadConfig({ configFile: file }, {})).toMatchObject({
      dataDir: path.join(dir, 'data'),
      port: 9443,
      tlsNames: ['a.example.com', 'b.example.com'],
      mdns: false,
    });
  });

  it('reads JSON, from HEARTH_CONFIG too; the environment beats the file and an option beats both', () => {
    const { file } = write('hearth.json', JSON.stringify({ port: 9000, host: '0.0.0.0', logLevel: 'warn' }));
    expect(loadConfig({}, { HEARTH_CONFIG: file })).toMatchObject({ port: 9000, host: '0.0.0.0', logLevel: 'warn' });
    expect(loadConfig({}, { HEARTH_CONFIG: file, HEARTH_PORT: '9100' })).toMatchObject({ port: 9100, host: '0.0.0.0' });
    expect(loadConfig({ port: 9200, configFile: file }, { HEARTH_PORT: '9100' })).toMatchObject({ port: 9200, logLevel: 'warn' });
  });

  it('refuses an unknown key, with the nearest setting as a hint', () => {
    const { file } = write('hearth.toml', 'prot = 8080\n');
    expect(() => loadConfig({ configFile: file }, {})).toThrow(
      new ConfigError(`unknown setting "prot" in the config file ${file} (did you mean port?); the settings are listed in docs/operations/running.md`),
    );
  });

  it('names the file of a bad value, and never echoes a secret from it', () => {
    const { file } = write('hearth.json', JSON.stringify({ port: 99999 }));
    expect(() => loadConfig({ configFile: file }, {})).toThrow(/^invalid setting port \(in \/.*hearth\.json\): Too big: .* \(got 99999\)$/);
    const secret = write('hearth.json', JSON.stringify({ adminToken: 'tiny-secret' }));
    let err: Error | null = null;
    try {
      loadConfig({ configFile: secret.file }, {});
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message).toBe(`invalid setting adminToken (in ${secret.file}): must be at least 16 characters`);
  });

  it('refuses a missing file, a file that does not parse and one that is not an object', () => {
    expect(() => loadConfig({ configFile: '/nonexistent/hearth.toml' }, {})).toThrow(/^cannot read the config file \/nonexistent\/hearth\.toml .*ENOENT$/);
    expect(() => loadConfig({ configFile: write('h.toml', 'port = = 1').file }, {})).toThrow(/is not valid TOML: /);
    expect(() => loadConfig({ configFile: write('h.json', '{"port": ').file }, {})).toThrow(/is not valid JSON: /);
    expect(() => loadConfig({ configFile: write('h.json', '[1]').file }, {})).toThrow(/must hold an object of settings$/);
  });

  it('`hearth serve --config` starts from the file; an unknown key stops it with one line on stderr', async () => {
    const bad = write('hearth.toml', 'dataDir = "data"\nbogus = 1\n');
    const r = spawnSync(process.execPath, ['bin/hearth.mjs', 'serve', '--config', bad.file], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, HEARTH_LOG_LEVEL: 'silent' },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`hearth: unknown setting "bogus" in the config file ${bad.file}; the settings are listed in docs/operations/running.md\n`);
    expect(fs.existsSync(path.join(bad.dir, 'data'))).toBe(false);

    const good = write('hearth.toml', 'dataDir = "data"\nport = 0\nlogLevel = "silent"\n');
    const child = spawn(process.execPath, ['bin/hearth.mjs', 'serve', '--config', good.file], { cwd: repo, env: { ...process.env, HEARTH_CONFIG: '' } });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m && out.includes('Data folder:')) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`hearth serve exited (${code}) before listening: ${out}`)));
      });
      expect(out).toContain(`Data folder: ${path.join(good.dir, 'data')}`);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
});

describe('data folder', () => {
  it('creates platform.db, an app secret (0600) and a first admin token (0600) on a fresh folder', async () => {
    const dir = tempDir();
    const s = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    try {
      expect(fs.existsSync(path.join(dir, 'platform.db'))).toBe(true);
      const secret = path.join(dir, 'secrets', 'app-secret');
      expect(fs.statSync(secret).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.join(dir, 'secrets')).mode & 0o777).toBe(0o700);
      expect(fs.readFileSync(secret, 'utf8').trim().length).toBeGreaterThanOrEqual(48);
      expect(s.initialTokenFile).toBe(path.join(dir, 'initial-admin-token'));
      expect(fs.statSync(s.initialTokenFile!).mode & 0o777).toBe(0o600);
      const token = fs.readFileSync(s.initialTokenFile!, 'utf8').trim();
      const res = await fetch(`${s.url}/v1/namespaces`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    } finally {
      await s.close();
    }
    // a restart keeps the same secret and token, and the data
    const secretBefore = fs.readFileSync(path.join(dir, 'secrets', 'app-secret'), 'utf8');
    const s2 = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    try {
      expect(fs.readFileSync(path.join(dir, 'secrets', 'app-secret'), 'utf8')).toBe(secretBefore);
      const token = fs.readFileSync(s2.initialTokenFile!, 'utf8').trim();
      // once revoked, the file goes away at the next start instead of pointing at a dead token
      const id = (await s2.services.tokens.list()).find((t) => t.name === 'initial-admin')!.id;
      await fetch(`${s2.url}/v1/namespaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"name":"kept"}',
      });
      await s2.services.tokens.create({ name: 'replacement', scope: 'admin' });
      await s2.services.tokens.revoke(id);
    } finally {
      await s2.close();
    }
    const s3 = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    try {
      expect(s3.initialTokenFile).toBeNull();
      expect(fs.existsSync(path.join(dir, 'initial-admin-token'))).toBe(false);
      expect((await s3.services.db.namespaces.get('kept')).name).toBe('kept');
    } finally {
      await s3.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('APP_SECRET from the environment is used and not written to disk', async () => {
    const dir = tempDir();
    const s = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: { APP_SECRET: 'x'.repeat(40) } });
    await s.close();
    expect(fs.existsSync(path.join(dir, 'secrets', 'app-secret'))).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses to start on a platform.db written by a newer Hearth', async () => {
    const dir = tempDir();
    const s = await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} });
    await s.close();
    const db = new Database(path.join(dir, 'platform.db'));
    db.prepare("INSERT INTO schema_migrations VALUES ('core-999-future', 'x')").run();
    db.close();
    await expect(startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} })).rejects.toThrow(/newer Hearth .*core-999-future/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('migrations are recorded once and not re-run', async () => {
    const dir = tempDir();
    for (let i = 0; i < 2; i++) await (await startServer({ dataDir: dir, port: 0, logLevel: 'silent', env: {} })).close();
    const db = new Database(path.join(dir, 'platform.db'), { readonly: true });
    const ids = db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all();
    db.close();
    expect(ids).toEqual(allMigrations.map((m) => m.id).sort());
    expect(ids).toContain('core-001-tokens-audit');
    expect(ids).toContain('db-001-namespaces');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a port in use is a clear start-up error', async () => {
    const s = await startTestServer();
    try {
      await expect(startServer({ dataDir: tempDir(), port: s.port, logLevel: 'silent', env: {} })).rejects.toThrow(/address is in use/);
    } finally {
      await s.stop();
    }
  });
});

describe('graceful close', () => {
  it('finishes in-flight requests, then refuses new connections and closes every database', async () => {
    const s = await startTestServer();
    await s.api('/v1/namespaces', { method: 'POST', json: { name: 'big' } });
    const db = s.services.db.namespaces.connection('big');
    db.exec('CREATE TABLE b (x BLOB)');
    const ins = db.prepare('INSERT INTO b VALUES (randomblob(100000))');
    db.transaction(() => {
      for (let i = 0; i < 300; i++) ins.run();
    })();
    const res = await s.api('/v1/namespaces/big/export');
    expect(res.status).toBe(200);
    const expected = Number(res.headers.get('content-length'));
    const closing = s.close();
    const body = Buffer.from(await res.arrayBuffer());
    await closing;
    expect(body.length).toBe(expected);
    expect(body.subarray(0, 15).toString()).toBe('SQLite format 3');
    expect(db.open).toBe(false);
    // The core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres) is closed too.
    await expect((async () => s.services.store.get('SELECT 1 AS one'))()).rejects.toThrow();
    await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  });
});
