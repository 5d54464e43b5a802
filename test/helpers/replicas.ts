/**
 * Several Hearth replicas on one PostgreSQL core store, as an office would run them behind a load balancer (issue 18):
 * a private cluster, N server processes (each its own data folder and node id, killable with SIGKILL), the secrets
 * every replica must share (APP_SECRET, the identity KEK, the OAuth broker secret) and one public address served by
 * a round-robin balancer in front of them. Clients that use `balancer` see one Hearth whose requests land on each
 * replica in turn; a test that needs a given replica calls `replicas[i].url` directly (the public address stays the
 * issuer and the Origin either way).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Postgres, startPostgres } from './postgres.ts';
import { apiFetch } from './server.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';

export interface Replicas {
  cluster: Postgres;
  databaseUrl: string;
  /** The balancer's address: the public URL (issuer, Origin, cookies) of every replica. */
  publicUrl: string;
  token: string;
  replicas: ServerProcess[];
  /** fetch through the balancer with the admin token (see TestServer.api). */
  api: ServerProcess['api'];
  /** Which replica answered each request through the balancer, in order (index into `replicas`). */
  routed: number[];
  /** Starts one more replica on the same store (a restart after a kill, or scaling out). */
  add(nodeId?: string): Promise<ServerProcess>;
  stop(): Promise<void>;
}

export interface ReplicaOptions {
  count?: number;
  /** Per-replica extra start options (plain data). */
  options?: (index: number) => Record<string, unknown>;
}

/** Fresh values of the secrets every replica of one core store must share (APP_SECRET, the identity KEK, the broker secret). */
export function sharedSecrets() {
  return {
    appSecret: crypto.randomBytes(32).toString('hex'),
    identityKek: crypto.randomBytes(32).toString('hex'),
    oauthBrokerSecret: crypto.randomBytes(32).toString('hex'),
  };
}

/**
 * How long the balancer keeps an idle client connection: as long as Hearth does (KEEP_ALIVE_MS). With Node's default
 * of 5 s, a client that reuses a connection after a pause of about that length (a test waiting on its SMTP peer) can
 * send its request on a socket the balancer is closing at the same moment, and read ECONNRESET; fetch keeps idle
 * sockets for at most 4 s, so a longer server timeout leaves the closing to the client.
 */
const BALANCER_KEEP_ALIVE_MS = 60_000;

/** A round-robin HTTP balancer: each request (not each connection) goes to the next live replica, streamed both ways. */
function balancer(targets: () => ServerProcess[], routed: number[]): http.Server {
  let next = 0;
  return http.createServer({ keepAliveTimeout: BALANCER_KEEP_ALIVE_MS }, (req, res) => {
    const all = targets();
    const live = all.filter((r) => r.proc.exitCode === null && r.proc.signalCode === null);
    if (live.length === 0) {
      res.writeHead(502).end('no replica');
      return;
    }
    const target = live[next++ % live.length]!;
    routed.push(all.indexOf(target));
    const url = new URL(target.url);
    const what = `${req.method} ${req.url} → replica ${all.indexOf(target)}`;
    const upstream = http.request({ host: url.hostname, port: url.port, method: req.method, path: req.url, headers: req.headers, agent: false }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      res.on('close', () => up.destroy());
    });
    upstream.on('error', (err) => {
      // A replica killed on purpose answers nothing: said once here, since the client sees only a 502 or a cut answer.
      console.error(`[balancer] ${what}: ${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`);
      if (!res.headersSent) res.writeHead(502).end('replica unreachable');
      else res.destroy();
    });
    req.on('error', (err) => console.error(`[balancer] ${what}: the client's request failed: ${err.message}`));
    req.pipe(upstream);
  });
}

export async function startReplicas(opts: ReplicaOptions = {}): Promise<Replicas> {
  const cluster = await startPostgres({ settings: { max_connections: 300 } });
  const databaseUrl = await cluster.createDatabase();
  const token = `test-admin-${crypto.randomBytes(16).toString('hex')}`;
  const shared = sharedSecrets();
  const replicas: ServerProcess[] = [];
  const routed: number[] = [];
  const lb = balancer(() => replicas, routed);
  // A client connection that breaks (a reset, a request the parser refused) is named with what it last asked.
  lb.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    console.error(`[balancer] client connection error: ${err.code ?? ''} ${err.message}`);
    if (socket.writable && err.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve) => lb.listen(0, '127.0.0.1', resolve));
  const publicUrl = `http://localhost:${(lb.address() as AddressInfo).port}`;
  const add = async (nodeId = `node-${String.fromCharCode(97 + replicas.length)}`) => {
    const index = replicas.length;
    const r = await startServerProcess({
      databaseUrl,
      adminToken: token,
      publicUrl,
      nodeId,
      ...shared,
      ...(opts.options?.(index) ?? {}),
    });
    replicas.push(r);
    return r;
  };
  try {
    // One after another, as a rolling start would (the first migrates the empty store).
    for (let i = 0; i < (opts.count ?? 3); i++) await add();
  } catch (err) {
    for (const r of replicas) await r.stop().catch(() => {});
    lb.close();
    await cluster.stop();
    throw err;
  }
  return {
    cluster,
    databaseUrl,
    publicUrl,
    token,
    replicas,
    routed,
    api: apiFetch(publicUrl, token),
    add,
    async stop() {
      await Promise.all(replicas.map((r) => r.stop().catch(() => {})));
      lb.closeAllConnections();
      await new Promise<void>((resolve) => lb.close(() => resolve()));
      await cluster.stop();
    },
  };
}
