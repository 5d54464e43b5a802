/**
 * Baseline for reading rows: a minimal Koa app (Koa + @koa/router, no auth, zod, logging, metrics or query
 * grammar) over a copy of Hearth's tenant database, answering the two reads of bench/rows.bench.ts with the same
 * prepared statements Hearth runs and the same JSON:
 *
 *   GET /v1/:ns/tables/items/rows/:id                       SELECT * FROM "items" WHERE "id" = ?
 *   GET /v1/:ns/tables/items/rows?qty=gt.N&order=id&limit=L  SELECT <all columns> FROM "items" WHERE "qty" > ?
 *                                                           ORDER BY "id" ASC LIMIT ? OFFSET ?  → {data, meta}
 *
 * Parent → child: {type: 'start', dbFile}, {type: 'stop'}.  Child → parent: {type: 'ready', url}.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

function start(dbFile: string): void {
  db = new Database(dbFile);
  // The same connection settings as a Hearth namespace with the default configuration.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  const one = db.prepare('SELECT * FROM "items" WHERE "id" = ?');
  const page = db.prepare(
    'SELECT "id", "sku", "qty", "price", "note", "created_at", "updated_at" FROM "items" WHERE "qty" > ? ORDER BY "id" ASC LIMIT ? OFFSET ?',
  );
  const app = new Koa();
  const router = new Router();
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
  server = http.createServer(app.callback());
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
  if (!server) return done();
  server.close(done);
  server.closeAllConnections();
}

process.on('disconnect', stop);
process.on('message', (raw) => {
  const msg = raw as { type: string; dbFile?: string };
  if (msg.type === 'start') start(msg.dbFile!);
  else if (msg.type === 'stop') stop();
});
