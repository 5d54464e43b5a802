/**
 * The reference line of bench/start.bench.ts: the smallest server of Hearth's own stack, and nothing of Hearth. Koa and
 * @koa/router, a pino logger, SQLite (better-sqlite3, a WAL database in the data folder) and prom-client's default
 * metrics; `/healthz` writes a probe row and answers JSON, as Hearth's does. The bench bundles it with Hearth's esbuild
 * settings (build/lib.ts `bundleServer`, with its start shims) and runs it through Hearth's own launcher with a code
 * cache made the way the build makes Hearth's (server/entry/launch.ts), so the two starts differ only by what Hearth
 * itself loads and does.
 *
 * Takes Hearth's command line (`serve --port 0 --data <dir> …`) and prints Hearth's "listening on <url>" line.
 */
import http from 'node:http';
import path from 'node:path';
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';
import { pino } from 'pino';
import client from 'prom-client';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const logger = pino({ level: arg('--log-level') ?? 'info' }, pino.destination({ fd: 1, sync: false }));
const db = new Database(path.join(arg('--data') ?? '.', 'floor.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS probe (id INTEGER PRIMARY KEY, at INTEGER NOT NULL)');
const probe = db.prepare('INSERT OR REPLACE INTO probe (id, at) VALUES (1, ?)');
const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const app = new Koa();
const router = new Router();
router.get('/healthz', (ctx) => {
  probe.run(Date.now());
  ctx.set('content-type', 'application/json');
  ctx.body = JSON.stringify({ status: 'ok' });
});
app.use(router.routes());
const server = http.createServer(app.callback());
server.listen(Number(arg('--port') ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  logger.info({ port }, 'listening');
  process.stdout.write(`Floor server listening on http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
