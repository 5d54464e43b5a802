import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { type RunningServer, type StartOptions, startServer } from '../../server/boot.ts';
import { type Postgres, startPostgres } from './postgres.ts';
import { tempDir } from './temp.ts';

export { tempDir };

/**
 * `HEARTH_TEST_STORE=postgres` (vitest's `postgres` project, `npm run test:postgres`): every server a test starts keeps
 * its core store in a fresh database of the run's shared PostgreSQL cluster (postgres-global.ts), or, outside such a
 * run, of one private cluster per test process (started on first use; it ends with the process), so the integration
 * suite runs unchanged against both engines. Otherwise (the default) platform.db, as in production.
 */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.HEARTH_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
let cluster: Promise<Postgres> | null = null;
let created = 0;

/** A new database owned by `hearth` in the run's shared cluster (postgres-global.ts), or null outside such a run. */
async function sharedDatabase(): Promise<string | null> {
  if (!process.env.VITEST) return null; // a bench or a Playwright spec: no vitest run to share a cluster with
  let shared: { adminUrl: string; url: string } | undefined;
  try {
    const { inject } = await import('vitest');
    shared = inject('postgres');
  } catch {
    return null; // not inside a vitest worker of the postgres project
  }
  if (!shared) return null;
  const name = `t_${process.pid}_${++created}_${crypto.randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: shared.adminUrl });
  admin.on('error', () => {});
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" OWNER hearth`);
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(shared.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A test's choice of engine for its server's core store: `'sqlite'` for a test about SQLite itself (platform.db's file,
 * WAL, the checkpointer, two servers on one data folder, locking), which runs on platform.db under either
 * `HEARTH_TEST_STORE` (say so in the test's header); unset: the engine `HEARTH_TEST_STORE` names. A `databaseUrl` given
 * wins over both.
 */
export interface TestStoreOption {
  store?: 'sqlite';
}

/** A fresh core-store database for a test server under `HEARTH_TEST_STORE=postgres`; undefined on SQLite or with `store: 'sqlite'`. */
export async function testDatabaseUrl(store?: TestStoreOption['store']): Promise<string | undefined> {
  if (TEST_STORE !== 'postgres' || store === 'sqlite') return undefined;
  const shared = await sharedDatabase();
  if (shared) return shared;
  cluster ??= startPostgres({ settings: { max_connections: 400 } });
  return (await cluster).createDatabase();
}

export interface TestServer extends RunningServer {
  token: string;
  dataDir: string;
  /** fetch relative to the server with the admin token unless `auth: false` or another token is given. */
  api(pathname: string, init?: RequestInit & { json?: unknown; token?: string | null }): Promise<Response>;
  /** Stops the server and removes its data folder. */
  stop(): Promise<void>;
}

/** fetch relative to `url` with the admin token unless `auth: false` or another token is given (see TestServer.api). */
export function apiFetch(url: string, token: string): TestServer['api'] {
  return (pathname, init = {}) => {
    const { json, token: t, headers, ...rest } = init;
    const h = new Headers(headers);
    const use = t === undefined ? token : t;
    if (use !== null) h.set('authorization', `Bearer ${use}`);
    let body = rest.body;
    if (json !== undefined) {
      h.set('content-type', 'application/json');
      body = JSON.stringify(json);
    }
    return fetch(url + pathname, { ...rest, headers: h, body });
  };
}

/** Starts the real server on 127.0.0.1, port 0, with its own temporary data folder. */
export async function startTestServer({ store, ...opts }: StartOptions & TestStoreOption = {}): Promise<TestServer> {
  const dataDir = (opts.dataDir as string | undefined) ?? tempDir();
  const token = (opts.adminToken as string | undefined) ?? `test-admin-${crypto.randomBytes(16).toString('hex')}`;
  const databaseUrl = opts.databaseUrl ?? (await testDatabaseUrl(store));
  const server = await startServer({ host: '127.0.0.1', port: 0, logLevel: 'silent', env: {}, ...opts, dataDir, adminToken: token, databaseUrl });
  return {
    ...server,
    // Tests reach the server at its public address (http://localhost:<port> on loopback): the origin that sign-in,
    // passkeys and OAuth expect; a configured public URL elsewhere (a name this machine cannot resolve) is not used.
    url: server.config.publicUrl ? server.url : server.publicUrl,
    token,
    dataDir,
    api: apiFetch(server.config.publicUrl ? server.url : server.publicUrl, token),
    async stop() {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Builds a multipart/form-data body by hand (so tests control every byte). */
export function multipart(parts: Array<{ name: string; filename?: string; data: Buffer | string; type?: string }>) {
  const boundary = `----hearthtest${crypto.randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disp}\r\n${p.filename !== undefined ? `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n` : ''}\r\n`,
      ),
    );
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
