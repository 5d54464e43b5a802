/**
 * Baseline for listing namespaces: a minimal node:http server (no Koa, router, zod, auth or metrics) that answers
 * `GET /v1/namespaces?cursor=…` with a keyset query (`WHERE name > ? ORDER BY name LIMIT 101`; '' before the first
 * page) against a copy of Hearth's registry table, in the same response shape and bytes (`{data, next_cursor}`,
 * config/storage decoded from their JSON columns, same base64url cursor).
 *
 * Parent → child: {type: 'start', dbFile}, {type: 'stop'}.  Child → parent: {type: 'ready', url}.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';

interface Row {
  name: string;
  file_id: string;
  created_at: string;
  config: string;
  last_activity_at: string | null;
  storage: string | null;
}

const PAGE = 100;

if (!process.send) {
  console.error('bench/baseline-list-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);

let server: http.Server | null = null;
let db: Database.Database | null = null;

function start(dbFile: string): void {
  db = new Database(dbFile, { readonly: true });
  const page = db.prepare('SELECT * FROM namespaces WHERE name > ? ORDER BY name LIMIT 101');
  server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/v1/namespaces') {
      res.writeHead(404).end();
      return;
    }
    let after = '';
    const cursor = url.searchParams.get('cursor');
    if (cursor) after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after: string }).after;
    const rows = page.all(after) as Row[];
    const data = rows.slice(0, PAGE).map((r) => ({
      name: r.name,
      created_at: r.created_at,
      config: JSON.parse(r.config) as unknown,
      last_activity_at: r.last_activity_at,
      storage: r.storage ? (JSON.parse(r.storage) as unknown) : null,
    }));
    const next_cursor = rows.length > PAGE ? Buffer.from(JSON.stringify({ after: data[data.length - 1]!.name })).toString('base64url') : null;
    const body = JSON.stringify({ data, next_cursor });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const { port } = server!.address() as AddressInfo;
    send({ type: 'ready', url: `http://127.0.0.1:${port}` });
  });
}

function stop(): void {
  const done = () => {
    db?.close();
    process.exit(0);
  };
  if (!server) {
    done();
    return;
  }
  server.close(done);
  server.closeIdleConnections();
}

process.on('disconnect', stop);
process.on('message', (raw) => {
  const msg = raw as { type: string; dbFile?: string };
  if (msg.type === 'start') start(msg.dbFile!);
  else if (msg.type === 'stop') stop();
});
