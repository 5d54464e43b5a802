/**
 * Hearth with its core store on PostgreSQL (`HEARTH_DATABASE_URL`, issue 18), from the outside: no platform.db in the
 * data folder; the offline commands (`hearth tokens`, `hearth setup`) work on PostgreSQL with `--database-url`; a
 * backup holds this node's data but no platform.db; a second replica with another APP_SECRET is refused at start; and
 * while PostgreSQL is down requests answer 503 with Retry-After instead of 500, and Hearth recovers by itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/boot.ts';
import { readBackupManifest } from '../../../server/core/backup/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { type Postgres, startPostgres } from '../../helpers/postgres.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

let cluster: Postgres;
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await cluster?.stop();
});

async function json(r: Promise<Response>, status: number) {
  const res = await r;
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text ? JSON.parse(text) : undefined;
}

describe('the core store on PostgreSQL', () => {
  let s: TestServer;
  let url: string;
  beforeAll(async () => {
    url = await cluster.createDatabase();
    s = await startTestServer({ databaseUrl: url });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('keeps nothing in platform.db: the folder has none, and what the API writes is in PostgreSQL', async () => {
    expect(fs.existsSync(path.join(s.dataDir, 'platform.db'))).toBe(false);
    const health = await json(s.api('/healthz'), 200);
    expect(health.checks.platform_db).toEqual({ ok: true });
    await json(s.api('/api/admin/tokens', { method: 'POST', json: { name: 'in-pg', scope: 'admin' } }), 201);
    expect(await s.services.store.value("SELECT count(*) FROM api_tokens WHERE name = 'in-pg'")).toBe(1);
    expect(() => s.services.platformDb.prepare('SELECT 1')).toThrow(/platform.db is not open: the core store is PostgreSQL/);
  });

  it('hearth tokens and hearth setup work on the PostgreSQL store with --database-url', async () => {
    const cwd = tempDir();
    try {
      const made = await runCli(['tokens', 'create', '--name', 'from-cli', '--admin', '--json', '--data', cwd], { cwd, env: { HEARTH_DATABASE_URL: url } });
      expect(made.code, made.stderr).toBe(0);
      const token = JSON.parse(made.stdout).token as string;
      expect((await s.api('/v1/namespaces', { token })).status).toBe(200);
      const setup = await runCli(['setup', '--login', 'boss', '--password-stdin', '--database-url', url, '--data', cwd, '--json'], {
        cwd,
        input: 'first-admin-Passw0rd!\n',
      });
      expect(setup.code, setup.stderr).toBe(0);
      expect(JSON.parse(setup.stdout)).toMatchObject({ login: 'boss', admin: true });
      expect(fs.existsSync(path.join(cwd, 'platform.db'))).toBe(false);
      const login = await fetch(`${s.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: s.url },
        body: JSON.stringify({ login: 'boss', password: 'first-admin-Passw0rd!' }),
      });
      expect(login.status).toBe(200);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("backs up this node's namespaces and secrets, without a platform.db", async () => {
    await json(s.api('/v1/namespaces', { method: 'POST', json: { name: 'kept' } }), 201);
    const { job } = await json(s.api('/api/admin/backups', { method: 'POST', json: {} }), 202);
    const done = await until(async () => {
      const j = await json(s.api(`/api/admin/backups/jobs/${job.id}`), 200);
      return j.state !== 'running' && j;
    }, 'the backup to end');
    expect(done.state, JSON.stringify(done)).toBe('complete');
    const manifest = await readBackupManifest(path.join(s.dataDir, 'backups', done.name));
    const names = manifest.entries.map((e: { name: string }) => e.name);
    expect(names).not.toContain('platform.db');
    expect(names.some((n: string) => /^namespaces\/.+\.db$/.test(n))).toBe(true);
  });
});

describe('replicas that do not share their secrets', () => {
  it('refuses to start a second replica with another APP_SECRET, naming it and never its value', async () => {
    const url = await cluster.createDatabase();
    const first = await startTestServer({ databaseUrl: url, appSecret: 'a'.repeat(48) });
    const dir = tempDir();
    try {
      const err = (await startServer({
        host: '127.0.0.1',
        port: 0,
        logLevel: 'silent',
        env: {},
        dataDir: dir,
        databaseUrl: url,
        appSecret: 'b'.repeat(48),
      }).catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toMatch(
        /^this replica's secrets differ from those of the other replicas on the core store; .*APP_SECRET: fingerprint [0-9a-f]{16} here/,
      );
      expect(err.message).not.toContain('b'.repeat(48));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await first.stop();
    }
  });
});

describe('PostgreSQL going away', () => {
  it('answers 503 with Retry-After while it is down, and recovers by itself when it is back', async () => {
    const own = await startPostgres();
    const s = await startTestServer({ databaseUrl: await own.createDatabase() });
    try {
      await json(s.api('/v1/namespaces', { method: 'POST', json: { name: 'steady' } }), 201);
      // The outage: the connections Hearth holds end (their backends terminated), and the server accepts no new
      // ones (its postmaster stopped) until it is continued.
      const admin = new pg.Client({ connectionString: own.adminUrl });
      await admin.connect();
      const backends = (await admin.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND usename = 'hearth'")).rows.map(
        (r: { pid: number }) => r.pid,
      );
      await admin.end();
      expect(backends.length).toBeGreaterThan(0);
      process.kill(own.pid, 'SIGSTOP');
      for (const pid of backends) process.kill(pid, 'SIGTERM');
      const stalled = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'while-down', scope: 'admin' } });
      expect(stalled.status).toBe(503);
      expect(stalled.headers.get('retry-after')).toBe('2');
      expect(await stalled.json()).toEqual({ error: 'service_unavailable', message: 'the core store cannot be reached; try again shortly' });
      const health = await s.api('/healthz');
      expect(health.status).toBe(503);
      expect((await health.json()).checks.platform_db.message).toMatch(/^core store \(PostgreSQL\) cannot be written: /);
      process.kill(own.pid, 'SIGCONT');
      await until(async () => (await s.api('/healthz')).status === 200, 'healthy again');
      await json(s.api('/api/admin/tokens', { method: 'POST', json: { name: 'after', scope: 'admin' } }), 201);
      expect(await s.services.store.value("SELECT count(*) FROM api_tokens WHERE name = 'while-down'")).toBe(0);
    } finally {
      process.kill(own.pid, 'SIGCONT');
      await s.stop();
      await own.stop();
    }
  });
});
