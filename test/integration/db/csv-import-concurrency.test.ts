/**
 * A large CSV import runs off the event loop: while it runs, the server answers everything else, a write to the
 * same namespace waits for the import and goes on after its commit, and a configuration change waits too.
 *
 * Asserted by state, never by time: the test holds the namespace's write lock itself (its own SQLite connection,
 * BEGIN IMMEDIATE) before the import starts, so the import's worker waits for it and the import is certainly still
 * running, its rows not committed, until the test lets go; `/metrics` says when the import holds the namespace's
 * writes (`hearth_namespace_writes_held`). The server runs in a process of its own, so that a blocked event loop
 * would show here as requests that do not answer rather than as a frozen test runner.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart } from '../../helpers/server.ts';
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts';
import { until } from '../../helpers/wait.ts';

let s: ServerProcess;
const ROWS = 30_000;

beforeAll(async () => {
  // Uploads over 256 KiB spill to a temporary file, as large ones do.
  s = await startServerProcess({ uploadMemoryLimit: 256 * 1024 });
  await ok(s.api('/v1/namespaces', { method: 'POST', json: { name: 'other' } }), 201);
  await ok(s.api('/v1/other/tables', { method: 'POST', json: { type: 'table', name: 'notes', columns: [{ name: 'text', type: 'text' }] } }), 201);
  await ok(s.api('/v1/other/tables/notes/rows', { method: 'POST', json: { text: 'before' } }), 201);
});
afterAll(async () => {
  await s?.stop();
});

async function ok(res: Promise<Response> | Response, status = 200): Promise<Response> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${await r.text()}`);
  return r;
}

async function metric(name: string): Promise<number> {
  const text = await (await ok(s.api('/metrics', { token: null }))).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
}

/** Whether a promise has settled yet (without waiting for it). */
function settled(p: Promise<unknown>): () => boolean {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  return () => done;
}

/** The change events of `ns` from now on (a raw SSE reader: the `data` of each frame, parsed). */
async function subscribe(ns: string): Promise<{ events: Array<{ table: string; action: string; row: unknown }>; close: () => void }> {
  const abort = new AbortController();
  const res = await ok(s.api(`/v1/${ns}/subscribe`, { headers: { accept: 'text/event-stream' }, signal: abort.signal }));
  const events: Array<{ table: string; action: string; row: unknown }> = [];
  void (async () => {
    const dec = new TextDecoder();
    let rest = '';
    for await (const chunk of res.body!) {
      rest += dec.decode(chunk, { stream: true });
      for (let i = rest.indexOf('\n\n'); i >= 0; i = rest.indexOf('\n\n')) {
        const data = rest
          .slice(0, i)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trim())
          .join('\n');
        rest = rest.slice(i + 2);
        if (data) events.push(JSON.parse(data));
      }
    }
  })().catch(() => {});
  return { events, close: () => abort.abort() };
}

/** The database file of the namespace holding table `table` (the test's own connection opens it). */
function fileOf(table: string): string {
  const dir = path.join(s.dataDir, 'namespaces');
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.db'))) {
    const db = new Database(path.join(dir, f), { readonly: true, fileMustExist: true });
    try {
      if (db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table)) return path.join(dir, f);
    } finally {
      db.close();
    }
  }
  throw new Error(`no namespace database holds a table ${table}`);
}

const csv = `sku,qty\r\n${Array.from({ length: ROWS }, (_, i) => `SKU-${String(i).padStart(7, '0')},${i % 1000}`).join('\r\n')}\r\n`;

describe.each(['wal', 'delete'] as const)('a large CSV import (journal_mode %s)', (mode) => {
  it('holds the writes of its namespace, which go on after its commit; everything else answers meanwhile', async () => {
    const ns = `bulk-${mode}`;
    const table = `items_${mode}`;
    // busy_timeout is how long a write waits for the import: generous, the test decides when the import ends.
    await ok(s.api('/v1/namespaces', { method: 'POST', json: { name: ns, config: { journal_mode: mode, busy_timeout: 120_000 } } }), 201);
    await ok(
      s.api(`/v1/${ns}/tables`, {
        method: 'POST',
        json: {
          type: 'table',
          name: table,
          columns: [
            { name: 'sku', type: 'text', unique: true },
            { name: 'qty', type: 'integer' },
          ],
        },
      }),
      201,
    );

    const changes = await subscribe(ns);
    const blocker = new Database(fileOf(table), { timeout: 0 });
    blocker.exec('BEGIN IMMEDIATE');
    let imported: Promise<Response>;
    try {
      const m = multipart([{ name: 'file', filename: 'items.csv', data: csv, type: 'text/csv' }]);
      imported = s.api(`/v1/namespaces/${ns}/import?table=${table}`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
      const importDone = settled(imported);
      await until(async () => (await metric('hearth_namespace_writes_held')) === 1, 'the import to hold the namespace');

      // A write and a configuration change of the same namespace wait for the import.
      const write = s.api(`/v1/${ns}/tables/${table}/rows`, {
        method: 'POST',
        json: { sku: 'late', qty: 7 },
        headers: { prefer: 'return=representation' },
      });
      const writeDone = settled(write);
      const configured = s.api(`/v1/namespaces/${ns}`, { method: 'PUT', json: { config: { journal_mode: mode, busy_timeout: 60_000 } } });
      const configDone = settled(configured);

      // Everything else answers: the health check, a read of another namespace, a write to another namespace, a
      // read of this one (which sees none of the import's rows yet).
      await ok(s.api('/healthz', { token: null }));
      const notes = (await (await ok(s.api('/v1/other/tables/notes/rows?select=text&order=id'))).json()) as { data: unknown[] };
      expect(notes.data[0]).toEqual({ text: 'before' });
      await ok(s.api('/v1/other/tables/notes/rows', { method: 'POST', json: { text: `during ${mode}` } }), 201);
      const during = await (await ok(s.api(`/v1/${ns}/tables/${table}/rows?count=exact&limit=1`))).json();
      expect(during.meta.total_count).toBe(0);

      expect(await metric('hearth_namespace_writes_held')).toBe(1);
      expect([importDone(), writeDone(), configDone()]).toEqual([false, false, false]);
      blocker.exec('ROLLBACK');

      const body = await (await ok(imported)).json();
      expect(body).toEqual({ table, inserted: ROWS });
      const late = await (await ok(write, 201)).json();
      // The write ran after the import's rows: its id follows theirs.
      expect(late.data).toMatchObject([{ id: ROWS + 1, sku: 'late', qty: 7 }]);
      expect((await (await ok(configured)).json()).config.busy_timeout).toBe(60_000);
    } finally {
      if (blocker.inTransaction) blocker.exec('ROLLBACK');
      blocker.close();
    }
    // One event for the import, then the write's.
    await until(
      () => changes.events.length >= 2,
      () => `two change events (got ${JSON.stringify(changes.events)})`,
    );
    changes.close();
    expect(changes.events.map((e) => [e.action, e.row])).toEqual([
      ['import', { count: ROWS }],
      ['insert', expect.objectContaining({ id: ROWS + 1, sku: 'late' })],
    ]);

    const after = await (await ok(s.api(`/v1/${ns}/tables/${table}/rows?count=exact&limit=2&order=id.desc&select=id,sku`))).json();
    expect(after.meta.total_count).toBe(ROWS + 1);
    expect(after.data).toEqual([
      { id: ROWS + 1, sku: 'late' },
      { id: ROWS, sku: `SKU-${String(ROWS - 1).padStart(7, '0')}` },
    ]);
    expect(await metric('hearth_namespace_writes_held')).toBe(0);
    expect((await (await ok(s.api(`/v1/other/tables/notes/rows?text=eq.during%20${mode}`))).json()).data).toHaveLength(1);
  });
});

it('a file with a bad value imports nothing, and the writes held meanwhile go on', async () => {
  await ok(s.api('/v1/namespaces', { method: 'POST', json: { name: 'refused', config: { busy_timeout: 120_000 } } }), 201);
  await ok(
    s.api('/v1/refused/tables', {
      method: 'POST',
      json: { type: 'table', name: 'things', columns: [{ name: 'qty', type: 'integer' }] },
    }),
    201,
  );
  const blocker = new Database(fileOf('things'), { timeout: 0 });
  blocker.exec('BEGIN IMMEDIATE');
  try {
    const bad = `qty\n${Array.from({ length: ROWS }, (_, i) => (i === ROWS - 2 ? 'many' : String(i))).join('\n')}\n`;
    const m = multipart([{ name: 'file', filename: 'things.csv', data: bad }]);
    const imported = s.api('/v1/namespaces/refused/import?table=things', { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
    await until(async () => (await metric('hearth_namespace_writes_held')) === 1, 'the import to hold the namespace');
    const write = s.api('/v1/refused/tables/things/rows', { method: 'POST', json: { qty: 1 } });
    const writeDone = settled(write);
    await ok(s.api('/healthz', { token: null }));
    expect(writeDone()).toBe(false);
    blocker.exec('ROLLBACK');
    const res = await imported;
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_csv');
    expect(body.message).toBe(`line ${ROWS}, column "qty": expected an integer, got "many"`);
    await ok(write, 201);
  } finally {
    if (blocker.inTransaction) blocker.exec('ROLLBACK');
    blocker.close();
  }
  expect((await (await ok(s.api('/v1/refused/tables/things/rows?count=exact'))).json()).meta.total_count).toBe(1);
});
