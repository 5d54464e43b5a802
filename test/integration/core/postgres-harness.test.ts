// The private PostgreSQL cluster the core-store tests run against (test/helpers/postgres.ts): a real server of version
// 15 or newer reached with `pg` and SCRAM passwords, the features the multi-replica rules rely on (LISTEN/NOTIFY
// between connections, FOR UPDATE SKIP LOCKED), databases that do not see each other, a stop that leaves no server
// and no folder, and a cluster that does not outlive the process that started it.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Postgres, postgresBinaries, startPostgres, sweepStaleClusters } from '../../helpers/postgres.ts';
import { running } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/temp.ts';
import { until } from '../../helpers/wait.ts';

let cluster: Postgres;
const clients: pg.Client[] = [];

/** A connected client, ended after the test. */
async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  clients.push(c);
  await c.connect();
  return c;
}

const refused = (port: number) =>
  new Promise<string>((resolve) => {
    const s = net
      .connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve('connected');
      })
      .once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });

beforeAll(async () => {
  cluster = await startPostgres();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end().catch(() => {})));
});
afterAll(async () => {
  await cluster?.stop();
});

describe('a private PostgreSQL cluster', () => {
  it('is PostgreSQL 15 or newer, reached as the unprivileged role hearth with its password', async () => {
    const c = await connect(cluster.url);
    const { rows } = await c.query(
      `SELECT current_setting('server_version_num')::int AS num, current_user AS "user", current_database() AS db,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS super, inet_server_addr()::text AS addr`,
    );
    expect(rows[0].num).toBeGreaterThanOrEqual(150000);
    expect(String(rows[0].num)).toMatch(new RegExp(`^${cluster.version.split('.')[0]}`));
    expect(rows[0]).toMatchObject({ user: 'hearth', db: 'hearth', super: false, addr: '127.0.0.1/32' });
    expect(cluster.url).toMatch(new RegExp(`^postgres://hearth:[^@]{20,}@127\\.0\\.0\\.1:${cluster.port}/hearth$`));

    const admin = await connect(cluster.adminUrl);
    expect((await admin.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).rows[0].rolsuper).toBe(true);
    expect((await admin.query(`SELECT rolpassword FROM pg_authid WHERE rolname = 'hearth'`)).rows[0].rolpassword).toMatch(/^SCRAM-SHA-256\$/);

    const wrong = new URL(cluster.url);
    wrong.password = 'not-the-password';
    await expect(connect(wrong.href)).rejects.toMatchObject({ code: '28P01' });
  });

  it('keeps a table the role creates and reads it back', async () => {
    const c = await connect(cluster.url);
    await c.query('CREATE TABLE notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL, at timestamptz NOT NULL DEFAULT now())');
    await c.query('INSERT INTO notes (body) VALUES ($1), ($2)', ['first', 'zweite 🔥']);
    const again = await connect(cluster.url);
    expect((await again.query('SELECT id, body FROM notes ORDER BY id')).rows).toEqual([
      { id: '1', body: 'first' },
      { id: '2', body: 'zweite 🔥' },
    ]);
  });

  it('delivers a NOTIFY payload to a connection that LISTENs', async () => {
    const listener = await connect(cluster.url);
    const sender = await connect(cluster.url);
    await listener.query('LISTEN hearth_wake');
    const got = new Promise<pg.Notification>((resolve) => listener.once('notification', resolve));
    const senderPid = (await sender.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    await sender.query(`SELECT pg_notify('hearth_wake', $1)`, ['login-status:4f2a']);
    expect(await got).toMatchObject({ channel: 'hearth_wake', payload: 'login-status:4f2a', processId: senderPid });
  });

  it('skips a row another transaction holds with FOR UPDATE SKIP LOCKED', async () => {
    const a = await connect(cluster.url);
    const b = await connect(cluster.url);
    await a.query('CREATE TABLE queue (id int PRIMARY KEY)');
    await a.query('INSERT INTO queue SELECT generate_series(1, 3)');
    const claim = 'SELECT id FROM queue ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED';

    await a.query('BEGIN');
    expect((await a.query(claim)).rows).toEqual([{ id: 1 }]);
    await b.query('BEGIN');
    expect((await b.query(claim)).rows).toEqual([{ id: 2 }]);
    // the row is really held: taking it without skipping fails at once
    const c = await connect(cluster.url);
    await expect(c.query('SELECT id FROM queue WHERE id = 1 FOR UPDATE NOWAIT')).rejects.toMatchObject({ code: '55P03' });
    await b.query('COMMIT');
    await a.query('ROLLBACK');
    expect((await b.query(claim)).rows).toEqual([{ id: 1 }]);
  });

  it('makes databases that do not see each other’s tables or notifications', async () => {
    const url1 = await cluster.createDatabase();
    const url2 = await cluster.createDatabase('hearth_other');
    expect(new URL(url2).pathname).toBe('/hearth_other');
    expect(url1).not.toBe(url2);
    const one = await connect(url1);
    const two = await connect(url2);
    await one.query('CREATE TABLE only_here (v text)');
    await one.query(`INSERT INTO only_here VALUES ('one')`);
    expect((await one.query('SELECT v FROM only_here')).rows).toEqual([{ v: 'one' }]);
    expect((await two.query(`SELECT to_regclass('only_here') AS t, current_user AS "user"`)).rows[0]).toEqual({ t: null, user: 'hearth' });
    await expect(two.query('SELECT v FROM only_here')).rejects.toMatchObject({ code: '42P01' });
    await two.query('CREATE TABLE only_here (n int)'); // the same name in the other database is another table
    expect((await two.query('SELECT count(*)::int AS n FROM only_here')).rows).toEqual([{ n: 0 }]);

    // a notification on the same channel in the other database is not delivered: the first to arrive is this one's
    await two.query('LISTEN hearth_wake');
    const got = new Promise<pg.Notification>((resolve) => two.once('notification', resolve));
    await one.query(`SELECT pg_notify('hearth_wake', 'from one')`);
    await (await connect(url2)).query(`SELECT pg_notify('hearth_wake', 'from two')`);
    expect((await got).payload).toBe('from two');

    await expect(cluster.createDatabase('Robert"; DROP')).rejects.toThrow(/not a plain lower-case identifier/);
  });

  it('stops: the port refuses connections, the server is gone and so is its folder', async () => {
    const own = await startPostgres();
    const c = await connect(own.url);
    expect((await c.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(fs.existsSync(`${own.dir}/data/PG_VERSION`)).toBe(true);
    await own.stop(); // with a client still connected: fast shutdown disconnects it
    expect(await refused(own.port)).toBe('ECONNREFUSED');
    expect(running(own.pid)).toBe(false);
    expect(fs.existsSync(own.dir)).toBe(false);
    await own.stop(); // a second stop is harmless
  });
});

describe('the PostgreSQL binaries', () => {
  /** A folder whose initdb and postgres say they are PostgreSQL `version`. */
  const fake = (version: string) => {
    const dir = tempDir('hearth-fake-pg-');
    for (const name of ['initdb', 'postgres']) {
      fs.writeFileSync(`${dir}/${name}`, `#!/bin/sh\necho "${name} (PostgreSQL) ${version} (Debian ${version}-1)"\n`, { mode: 0o755 });
    }
    return dir;
  };

  it('are the newest installed, and one older than 15 is refused with a clear message', () => {
    const old = fake('14.11');
    const newer = fake('16.4');
    const empty = tempDir('hearth-fake-pg-');
    try {
      expect(postgresBinaries([old, empty, newer])).toEqual({ dir: newer, version: '16.4', major: 16 });
      expect(() => postgresBinaries([old, empty])).toThrow(`PostgreSQL 14.11 (${old}) is too old: Hearth's core store needs PostgreSQL 15 or newer`);
      expect(() => postgresBinaries([empty])).toThrow(/not found via pg_config or in \/usr\/lib\/postgresql\/\*\/bin: apt-get install postgresql/);
      expect(postgresBinaries().major).toBeGreaterThanOrEqual(15); // this machine's
    } finally {
      for (const d of [old, newer, empty]) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('a cluster whose test process dies', () => {
  let child: ChildProcess | null = null;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('stops with it (backends included), and the next start removes its folder', async () => {
    const helper = new URL('../../helpers/postgres.ts', import.meta.url).href;
    const code = `
      import pg from 'pg';
      import { startPostgres } from ${JSON.stringify(helper)};
      const cluster = await startPostgres();
      const c = new pg.Client({ connectionString: cluster.url });
      await c.connect();
      const backend = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      console.log(JSON.stringify({ pid: cluster.pid, dir: cluster.dir, port: cluster.port, backend }));
      setInterval(() => {}, 1 << 30);
    `;
    const proc = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const line = await until(
      () => {
        if (proc.exitCode !== null) throw new Error(`the child exited (${proc.exitCode}): ${err}`);
        return out.includes('\n') && out.split('\n')[0];
      },
      () => `the child's cluster (${err})`,
    );
    const info = JSON.parse(line) as { pid: number; dir: string; port: number; backend: number };
    expect(running(info.pid)).toBe(true);
    expect(running(info.backend)).toBe(true);

    proc.kill('SIGKILL');
    await until(() => !running(info.pid) && !running(info.backend), 'the orphaned postmaster and its backend to exit');
    expect(await refused(info.port)).toBe('ECONNREFUSED');
    expect(fs.existsSync(info.dir)).toBe(true); // nobody was left to remove it

    expect(await sweepStaleClusters()).toContain(info.dir);
    expect(fs.existsSync(info.dir)).toBe(false);
  });
});
