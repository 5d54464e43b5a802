/**
 * Baseline for reading rows: a minimal Koa app (Koa + @koa/router, no auth, zod, logging, metrics or query
 * grammar) over a copy of Hearth's tenant database, answering the two reads of bench/rows.bench.ts with the same
 * prepared statements Hearth runs and the same JSON:
 *
 *   GET /v1/:ns/tables/items/rows/:id                       SELECT * FROM "items" WHERE "id" = ?
 *   GET /v1/:ns/tables/items/rows?qty=gt.N&order=id&limit=L  SELECT <all columns> FROM "items" WHERE "qty" > ?
 *                                                           ORDER BY "id" ASC LIMIT ? OFFSET ?  → {data, meta}
 *   GET /healthz                                            the work of Hearth's: one UPSERT into a probe table of
 *                                                           a second database (WAL, synchronous=NORMAL, as Hearth's
 *                                                           platform database), then {"status":"ok"}
 *
 * With `tls` (a PEM certificate and key), it is a `node:https` server presenting that certificate
 * (bench/tls.bench.ts gives it the one Hearth presents); else plain `node:http`.
 *
 * Parent → child: {type: 'start', dbFile, tls?: {cert, key}}, {type: 'stop'}.  Child → parent: {type: 'ready', url}.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Router from '@koa/router';
import Database from 'better-sqlite3';
import Koa from 'koa';

if (!process.send) {
  console.error('bench/rows-baseline-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);

let server: http.Server | null = null;
let db: Database.Database | null = null;
let healthDb: Database.Database | null = null;

function start(dbFile: string, tls?: { cert: string; key: string }): void {
  db = new Database(dbFile);
  // The same connection settings as a Hearth namespace with the default configuration.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const one = db.prepare('SELECT * FROM "items" WHERE "id" = ?');
  const page = db.prepare(
    'SELECT "id", "sku", "qty", "price", "note", "created_at", "updated_at" FROM "items" WHERE "qty" > ? ORDER BY "id" ASC LIMIT ? OFFSET ?',
  );
  healthDb = new Database(path.join(path.dirname(dbFile), 'baseline-health.db'));
  healthDb.pragma('journal_mode = WAL');
  healthDb.pragma('synchronous = NORMAL');
  healthDb.exec('CREATE TABLE IF NOT EXISTS health_probe (id INTEGER PRIMARY KEY, at TEXT NOT NULL)');
  const probe = healthDb.prepare('INSERT INTO health_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at');
  const app = new Koa();
  const router = new Router();
  router.get('/healthz', (ctx) => {
    probe.run(new Date().toISOString());
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/v1/:ns/tables/items/rows/:id', (ctx) => {
    const row = one.get(Number(ctx.params.id));
    if (!row) {
      ctx.status = 404;
      ctx.body = { error: 'row_not_found' };
      return;
    }
    ctx.body = row;
  });
  router.get('/v1/:ns/tables/items/rows', (ctx) => {
    const qty = String(ctx.query.qty ?? '');
    if (!qty.startsWith('gt.')) {
      ctx.status = 400;
      ctx.body = { error: 'this baseline only answers qty=gt.N' };
      return;
    }
    const limit = Number(ctx.query.limit ?? 100);
    ctx.body = { data: page.all(Number(qty.slice(3)), limit, 0), meta: { limit, offset: 0 } };
  });
  app.use(router.routes());
  server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, app.callback()) : http.createServer(app.callback());
  server.listen(0, '127.0.0.1', () => {
    const { port } = server!.address() as AddressInfo;
    send({ type: 'ready', url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}` });
  });
}

function stop(): void {
  const done = () => {
    db?.close();
    healthDb?.close();
    process.exit(0);
  };
  if (!server) {
    done();
    return;
  }
  server.close(done);
  server.closeAllConnections();
}

process.on('disconnect', stop);
process.on('message', (raw) => {
  const msg = raw as { type: string; dbFile?: string; tls?: { cert: string; key: string } };
  if (msg.type === 'start') start(msg.dbFile!, msg.tls);
  else if (msg.type === 'stop') stop();
});
