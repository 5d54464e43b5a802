/**
 * A private PostgreSQL cluster for a test file: Debian's `postgresql` binaries, `initdb` in a fresh temporary folder,
 * a server on 127.0.0.1 and a free port with its Unix socket in that folder (never /var/run), tuned for a throwaway
 * cluster (no fsync, no synchronous commit, no full-page writes, no JIT). Nothing is shared between test files: each
 * starts its own cluster (initdb: about 0.9 s of CPU, 0.55–1.6 s here by load) and may make more databases in it with
 * `createDatabase`.
 *
 * Roles: `postgres` (superuser, `adminUrl`) and `hearth` (login only, owner of its databases, `url`), each with a
 * random password; every connection authenticates with SCRAM, over TCP and the socket alike. The cluster uses the C
 * locale and UTF-8 (byte order like SQLite's BINARY collation).
 *
 * PostgreSQL refuses to run as root: under root (here and in CI) the binaries run as the `postgres` system user that
 * Debian's package creates (`setpriv --reuid/--regid`, the folder chowned to it); otherwise as the current user.
 * A cluster never outlives its test process: the server is started with a parent-death signal (`setpriv
 * --pdeathsig QUIT`: an immediate shutdown that stops its backends and frees its shared memory when the process that
 * started it dies, even by SIGKILL), and every start first removes the folders of clusters whose owning process is
 * gone (`sweepStaleClusters`), stopping a server still running in one.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './ports.ts';
import { running } from './processes.ts';
import { tempDir } from './temp.ts';
import { until } from './wait.ts';

/** The oldest PostgreSQL the core store supports. */
export const MIN_POSTGRES_MAJOR = 15;
const PREFIX = 'hearth-pg-';
/** The file in a cluster's folder naming the process that owns it (its pid). */
const OWNER_FILE = 'owner.pid';
const run = promisify(execFile);

export interface PostgresOptions {
  /** Server settings on top of the throwaway defaults (`-c name=value`), e.g. `{ max_connections: 200 }`. */
  settings?: Record<string, string | number | boolean>;
}

export interface Postgres {
  /** `postgres://hearth:…@127.0.0.1:<port>/hearth`: the `hearth` role on its own database. */
  url: string;
  /** `postgres://postgres:…@127.0.0.1:<port>/postgres`: the superuser. */
  adminUrl: string;
  /** The server's version as `postgres --version` gives it, e.g. `15.18`. */
  version: string;
  port: number;
  /** The cluster's folder (data in `data/`, the Unix socket beside it); removed by `stop()`. */
  dir: string;
  /** The postmaster's process id. */
  pid: number;
  /** Creates a database owned by `hearth` (default name `hearth_<n>`) and returns its URL for `hearth`. */
  createDatabase(name?: string): Promise<string>;
  /** Fast shutdown (SIGKILL if it has not stopped within 10 s), then removes the folder. Idempotent. */
  stop(): Promise<void>;
}

interface Binaries {
  dir: string;
  version: string;
  major: number;
}

let binaries: Binaries | null = null;

/** `postgres --version` of the binaries in `dir`, or null when `dir` lacks `initdb` or `postgres`. */
function versionIn(dir: string): Binaries | null {
  if (!fs.existsSync(path.join(dir, 'initdb')) || !fs.existsSync(path.join(dir, 'postgres'))) return null;
  const out = execFileSync(path.join(dir, 'postgres'), ['--version'], { encoding: 'utf8' });
  const m = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(out);
  if (!m) throw new Error(`cannot read the version of ${dir}/postgres: ${out.trim()}`);
  return { dir, version: m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`, major: Number(m[1]) };
}

/** Where PostgreSQL's server binaries may be: `pg_config --bindir`, then Debian's /usr/lib/postgresql/<version>/bin. */
function binDirs(): string[] {
  const dirs: string[] = [];
  try {
    dirs.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  } catch {
    // no pg_config on PATH: the Debian layout below
  }
  const root = '/usr/lib/postgresql';
  if (fs.existsSync(root)) for (const v of fs.readdirSync(root)) dirs.push(path.join(root, v, 'bin'));
  return dirs;
}

/**
 * The server binaries: the newest of `dirs` (by default `pg_config --bindir` and /usr/lib/postgresql/<version>/bin)
 * that has both `initdb` and `postgres`. Fails with what to install when there is none or the newest is older than 15.
 */
export function postgresBinaries(dirs?: string[]): Binaries {
  if (!dirs && binaries) return binaries;
  const found = (dirs ?? binDirs()).map(versionIn).filter((b): b is Binaries => b !== null);
  found.sort((a, b) => b.major - a.major);
  const best = found[0];
  if (!best) {
    throw new Error(`PostgreSQL's server binaries (initdb, postgres) were not found via pg_config or in /usr/lib/postgresql/*/bin: apt-get install postgresql`);
  }
  if (best.major < MIN_POSTGRES_MAJOR) {
    throw new Error(`PostgreSQL ${best.version} (${best.dir}) is too old: Hearth's core store needs PostgreSQL ${MIN_POSTGRES_MAJOR} or newer`);
  }
  if (!dirs) binaries = best;
  return best;
}

/** The uid and gid to run PostgreSQL as: the `postgres` system user under root, nothing to change otherwise. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('PostgreSQL refuses to run as root and there is no postgres user to run it as (Debian’s postgresql package creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The command prefix that runs a PostgreSQL binary as `user` (and, with `pdeathsig`, ends it with its parent). */
function asUser(user: { uid: number; gid: number } | null, opts: { pdeathsig?: boolean } = {}): string[] {
  const ids = user ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'] : [];
  return ['setpriv', ...ids, ...(opts.pdeathsig ? ['--pdeathsig', 'QUIT'] : [])];
}

/** Is `pid` a running postgres server (and not a process that reused the number)? */
function isPostgres(pid: number): boolean {
  try {
    return running(pid) && fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('postgres');
  } catch {
    return false;
  }
}

/** The postmaster's pid from `<data>/postmaster.pid`, or null. */
function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Removes the clusters left by test processes that died without `stop()` (a killed vitest): every `hearth-pg-*`
 * folder in the temporary directory whose owner process is gone (or, without an owner file, older than an hour), after
 * stopping a server still running in it (SIGQUIT, SIGKILL after 5 s). Folders of live processes — other test runs
 * on the machine included — are left alone. Returns the folders removed.
 */
export async function sweepStaleClusters(): Promise<string[]> {
  const removed: string[] = [];
  const tmp = os.tmpdir();
  for (const name of fs.readdirSync(tmp)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmp, name);
    try {
      const owner = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
      if (running(owner)) continue;
    } catch {
      const st = fs.statSync(dir, { throwIfNoEntry: false });
      if (!st || Date.now() - st.mtimeMs < 3_600_000) continue;
    }
    try {
      const pid = postmasterPid(path.join(dir, 'data'));
      if (pid !== null && isPostgres(pid)) {
        process.kill(pid, 'SIGQUIT');
        await until(() => !isPostgres(pid), `the stale postgres ${pid} in ${dir} to exit`, 5_000).catch(() => {
          if (isPostgres(pid)) process.kill(pid, 'SIGKILL');
        });
      }
      fs.rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // another run swept it first, or it is not ours to remove
    }
  }
  return removed;
}

const clusters = new Set<{ child: ChildProcess; dir: string }>();
let exitHook = false;

/** When the test process exits without `stop()`: an immediate shutdown of its clusters and their folders removed. */
function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const c of clusters) {
      c.child.kill('SIGQUIT');
      fs.rmSync(c.dir, { recursive: true, force: true });
    }
  });
}

const secret = () => crypto.randomBytes(18).toString('base64url');
const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** Runs `fn` with a client connected to `url`, closing it afterwards. */
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}

/** Settings that make a throwaway cluster fast (nothing it writes has to survive a crash) and quiet. */
const THROWAWAY = {
  listen_addresses: '127.0.0.1',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  jit: 'off',
  log_checkpoints: 'off',
};

interface Server {
  child: ChildProcess;
  /** Has the postmaster exited? */
  gone(): boolean;
  /** The end of its log (stdout and stderr). */
  log(): string;
  /** Fast shutdown, SIGKILL if it has not stopped within 10 s; idempotent. */
  stop(): Promise<void>;
}

/** Starts the postmaster on `data` with `settings`; it ends with this process (parent-death signal). */
function launch(bin: Binaries, user: { uid: number; gid: number } | null, data: string, dir: string, settings: Record<string, unknown>): Server {
  const args = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${typeof v === 'boolean' ? (v ? 'on' : 'off') : v}`]);
  const [cmd, ...prefix] = asUser(user, { pdeathsig: true });
  const child = spawn(cmd, [...prefix, path.join(bin.dir, 'postgres'), '-D', data, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (c: Buffer) => (log = (log + c.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const entry = { child, dir };
  clusters.add(entry);
  hookExit();
  let stopping: Promise<void> | null = null;
  return {
    child,
    gone,
    log: () => log,
    stop() {
      stopping ??= (async () => {
        if (!gone()) {
          child.kill('SIGINT'); // fast shutdown: disconnects clients, rolls back their transactions
          await until(gone, 'postgres to shut down', 10_000).catch(() => child.kill('SIGKILL'));
          await exited;
        }
        clusters.delete(entry);
      })();
      return stopping;
    },
  };
}

export async function startPostgres(opts: PostgresOptions = {}): Promise<Postgres> {
  const bin = postgresBinaries();
  await sweepStaleClusters();
  const user = runAs();
  const dir = tempDir(PREFIX);
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const adminPassword = secret();
  const password = secret();
  const pwfile = path.join(dir, 'pwfile');
  fs.writeFileSync(pwfile, `${adminPassword}\n`, { mode: 0o600 });
  if (user) fs.chownSync(pwfile, user.uid, user.gid);

  const [cmd, ...prefix] = asUser(user);
  const initdb = [path.join(bin.dir, 'initdb'), '-D', data, '-U', 'postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C'];
  try {
    await run(cmd, [...prefix, ...initdb, '--no-sync', '--no-instructions'], { cwd: dir });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${e.stderr || e.stdout || e.message}`);
  } finally {
    fs.rmSync(pwfile, { force: true });
  }

  const adminUrl = (port: number) => `postgres://postgres:${adminPassword}@127.0.0.1:${port}/postgres`;
  // The port is free when freePort answers, but another process on the machine may bind it before postgres does:
  // then postgres exits saying so, and it starts again on another port.
  const start = async (attempt: number): Promise<{ server: Server; port: number }> => {
    const port = await freePort();
    const server = launch(bin, user, data, dir, { ...THROWAWAY, port, unix_socket_directories: dir, ...opts.settings });
    const state = await until(
      async () => {
        if (server.gone()) return 'exited';
        return (await withClient(adminUrl(port), async (c) => (await c.query('SELECT 1 AS ok')).rows[0].ok === 1).catch(() => false)) && 'ready';
      },
      () => `postgres to accept connections on port ${port}: ${server.log()}`,
      30_000,
    ).catch((err: Error) => err);
    if (state === 'ready') return { server, port };
    await server.stop();
    if (state === 'exited' && attempt < 3 && /already in use/.test(server.log())) return start(attempt + 1);
    fs.rmSync(dir, { recursive: true, force: true });
    throw state === 'exited' ? new Error(`postgres did not start: ${server.log()}`) : state;
  };
  const { server, port } = await start(1);
  const stop = async () => {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const urlFor = (db: string) => `postgres://hearth:${password}@127.0.0.1:${port}/${db}`;
  try {
    await withClient(adminUrl(port), async (c) => {
      await c.query(`CREATE ROLE hearth LOGIN PASSWORD '${password}'`);
      await c.query('CREATE DATABASE hearth OWNER hearth');
    });
  } catch (err) {
    await stop();
    throw err;
  }

  let n = 0;
  return {
    url: urlFor('hearth'),
    adminUrl: adminUrl(port),
    version: bin.version,
    port,
    dir,
    pid: server.child.pid!,
    async createDatabase(name = `hearth_${++n}`) {
      if (!IDENT.test(name)) throw new Error(`createDatabase: ${JSON.stringify(name)} is not a plain lower-case identifier`);
      await withClient(adminUrl(port), (c) => c.query(`CREATE DATABASE "${name}" OWNER hearth`));
      return urlFor(name);
    },
    stop,
  };
}
