import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

let s: TestServer;
let work: string;
beforeAll(async () => {
  // a small in-memory limit so the spill-to-disk path is exercised by ordinary files
  s = await startTestServer({ uploadMemoryLimit: 64 * 1024 });
  work = tempDir('hearth-files-');
});
afterAll(async () => {
  await s.stop();
  fs.rmSync(work, { recursive: true, force: true });
});

const create = (name: string, config?: unknown) => s.api('/v1/namespaces', { method: 'POST', json: config === undefined ? { name } : { name, config } });

function makeDb(file: string, rows: number, pad = 10): Buffer {
  fs.rmSync(file, { force: true });
  const db = new Database(file);
  db.exec('CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, pad BLOB)');
  const ins = db.prepare('INSERT INTO people (name, pad) VALUES (?, randomblob(?))');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) ins.run(`person ${i}`, pad);
  })();
  db.close();
  return fs.readFileSync(file);
}

const upload = (ns: string, parts: Parameters<typeof multipart>[0]) => {
  const m = multipart(parts);
  return s.api(`/v1/namespaces/${ns}/import`, { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } });
};

/** Waits until `dir` is empty (a snapshot or spilled upload is removed once its request is done); names what is left. */
async function waitForEmpty(dir: string) {
  await until(
    () => fs.readdirSync(dir).length === 0,
    () => `${dir} to be empty (holds ${JSON.stringify(fs.readdirSync(dir))})`,
  );
}

const count = (ns: string) => s.services.db.namespaces.connection(ns).prepare('SELECT count(*) FROM people').pluck().get();

describe('export', () => {
  it('streams a self-contained SQLite file that opens with better-sqlite3 and holds the rows', async () => {
    await create('exp');
    const db = s.services.db.namespaces.connection('exp');
    db.exec('CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT)');
    const ins = db.prepare('INSERT INTO people (name) VALUES (?)');
    for (let i = 0; i < 1234; i++) ins.run(`p${i}`);
    const res = await s.api('/v1/namespaces/exp/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="exp.db"');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    const file = path.join(work, 'exp.db');
    fs.writeFileSync(file, bytes);
    const out = new Database(file, { readonly: true });
    expect(out.prepare('SELECT count(*) FROM people').pluck().get()).toBe(1234);
    expect(out.prepare('SELECT name FROM people WHERE id = 1234').pluck().get()).toBe('p1233');
    expect(out.pragma('journal_mode', { simple: true })).toBe('delete');
    out.close();
    // no snapshot left behind (removed when the stream closes, just after the last byte)
    await waitForEmpty(path.join(s.dataDir, 'tmp'));
  });

  it('404s a missing namespace with the envelope', async () => {
    const res = await s.api('/v1/namespaces/none/export');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect((await res.json()).error).toBe('namespace_not_found');
  });

  it('removes the snapshot when the client goes away mid-stream', async () => {
    await create('bigexp');
    const db = s.services.db.namespaces.connection('bigexp');
    db.exec('CREATE TABLE b (x BLOB)');
    const ins = db.prepare('INSERT INTO b VALUES (randomblob(100000))');
    db.transaction(() => {
      for (let i = 0; i < 200; i++) ins.run();
    })();
    const ac = new AbortController();
    const res = await s.api('/v1/namespaces/bigexp/export', { signal: ac.signal });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await reader.read().catch(() => {});
    await waitForEmpty(path.join(s.dataDir, 'tmp'));
  });
});

describe('import (database replacement)', () => {
  it('replaces the database atomically with a valid upload (in memory)', async () => {
    await create('imp');
    s.services.db.namespaces.connection('imp').exec("CREATE TABLE old_stuff (x); INSERT INTO old_stuff VALUES ('old')");
    const bytes = makeDb(path.join(work, 'small.db'), 50);
    expect(bytes.length).toBeLessThan(64 * 1024);
    const res = await upload('imp', [{ name: 'file', filename: 'small.db', data: bytes }]);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.name).toBe('imp');
    expect(body.storage.size_bytes).toBeGreaterThan(0);
    expect(count('imp')).toBe(50);
    const db = s.services.db.namespaces.connection('imp');
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'old_stuff'").pluck().get()).toBe(0);
    // the namespace's configuration applies to the imported file
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('spills a part larger than the in-memory limit to a temporary file and imports it', async () => {
    await create('imp-big');
    const bytes = makeDb(path.join(work, 'big.db'), 400, 1000);
    expect(bytes.length).toBeGreaterThan(64 * 1024);
    const res = await upload('imp-big', [{ name: 'file', filename: 'big.db', data: bytes }]);
    expect(res.status).toBe(200);
    expect(count('imp-big')).toBe(400);
    expect(fs.readdirSync(path.join(s.dataDir, 'tmp'))).toEqual([]);
  });

  // A file saved in WAL mode keeps "WAL" in its header (bytes 18-19 = 2) even after its -wal file is gone; the other
  // modes leave a rollback-journal header. Each must import, held in memory or spilled, into any configured mode.
  const JOURNAL_MODES = ['wal', 'delete', 'truncate', 'persist', 'memory', 'off'] as const;
  it.each(
    JOURNAL_MODES.flatMap(
      (mode) =>
        [
          [mode, 'small', 'wal'],
          [mode, 'large', 'wal'],
          [mode, 'small', 'delete'],
          [mode, 'large', 'truncate'],
        ] as const,
    ),
  )('imports a file saved in journal_mode %s (%s upload) into a namespace configured for %s, with all its data', async (mode, size, configured) => {
    const ns = `jm-${mode}-${size}-${configured}`;
    expect((await create(ns, { journal_mode: configured })).status).toBe(201);
    const file = path.join(work, `${ns}.db`);
    fs.rmSync(file, { force: true });
    const src = new Database(file);
    src.unsafeMode(true); // better-sqlite3 is defensive: without this, journal_mode = off is ignored
    expect(src.pragma(`journal_mode = ${mode}`, { simple: true })).toBe(mode);
    const rows = size === 'small' ? 40 : 300;
    src.exec('CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, pad BLOB)');
    const ins = src.prepare('INSERT INTO people (name, pad) VALUES (?, zeroblob(?))');
    src.transaction(() => {
      for (let i = 0; i < rows; i++) ins.run(`person ${i}`, size === 'small' ? 10 : 1000);
    })();
    src.close();
    const bytes = fs.readFileSync(file);
    expect(bytes[18]).toBe(mode === 'wal' ? 2 : 1);
    if (size === 'small') expect(bytes.length).toBeLessThan(64 * 1024);
    else expect(bytes.length).toBeGreaterThan(64 * 1024);

    const res = await upload(ns, [{ name: 'file', filename: `${ns}.db`, data: bytes }]);
    expect(res.status, await res.clone().text()).toBe(200);
    const db = s.services.db.namespaces.connection(ns);
    expect(db.pragma('journal_mode', { simple: true })).toBe(configured);
    expect(db.prepare('SELECT count(*), sum(length(pad)), max(id) FROM people').raw().get()).toEqual([rows, rows * (size === 'small' ? 10 : 1000), rows]);
    expect(db.pragma('quick_check', { simple: true })).toBe('ok');
    // through the API too, after the connection is reopened from the registry
    await s.services.db.namespaces.handles.close(ns);
    const listed = await s.api(`/v1/${ns}/tables/people/rows?select=name&order=id.desc&limit=1&count=exact`);
    expect(await listed.json()).toMatchObject({ data: [{ name: `person ${rows - 1}` }], meta: { total_count: rows } });
    expect(s.services.db.namespaces.connection(ns).pragma('journal_mode', { simple: true })).toBe(configured);
    expect(fs.readdirSync(path.join(s.dataDir, 'tmp'))).toEqual([]);
  });

  it('an export imports back byte-for-byte in content (round trip)', async () => {
    await create('rt-src');
    s.services.db.namespaces
      .connection('rt-src')
      .exec("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO people (name) VALUES ('ä'), ('b')");
    const exported = Buffer.from(await (await s.api('/v1/namespaces/rt-src/export')).arrayBuffer());
    await create('rt-dst');
    expect((await upload('rt-dst', [{ name: 'file', filename: 'rt.db', data: exported }])).status).toBe(200);
    expect(s.services.db.namespaces.connection('rt-dst').prepare('SELECT name FROM people ORDER BY id').pluck().all()).toEqual(['ä', 'b']);
  });

  it('an import over quota is 507 quota_exceeded and leaves the old data', async () => {
    await create('quota', { max_db_size: 16384 });
    s.services.db.namespaces
      .connection('quota')
      .exec("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, pad BLOB); INSERT INTO people (name) VALUES ('keep me')");
    const bytes = makeDb(path.join(work, 'over.db'), 200, 500);
    expect(bytes.length).toBeGreaterThan(16384);
    const res = await upload('quota', [{ name: 'file', filename: 'over.db', data: bytes }]);
    expect(res.status).toBe(507);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(await res.json()).toEqual({ error: 'quota_exceeded', message: expect.stringContaining('16384') });
    expect(s.services.db.namespaces.connection('quota').prepare('SELECT name FROM people').pluck().all()).toEqual(['keep me']);
    // a file that fits is accepted
    const fits = makeDb(path.join(work, 'fits.db'), 3);
    expect(fits.length).toBeLessThanOrEqual(16384);
    expect((await upload('quota', [{ name: 'file', filename: 'fits.db', data: fits }])).status).toBe(200);
    expect(count('quota')).toBe(3);
  });

  it('a text file is 400 invalid_database and leaves the old data', async () => {
    await create('txt');
    s.services.db.namespaces.connection('txt').exec("CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('still here')");
    const res = await upload('txt', [{ name: 'file', filename: 'notes.txt', data: 'hello, this is not a database\n'.repeat(100), type: 'text/plain' }]);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_database', message: expect.stringContaining('not a SQLite database') });
    expect(count('txt')).toBe(1);
  });

  it('a damaged SQLite file is 400 invalid_database', async () => {
    await create('corrupt');
    const bytes = makeDb(path.join(work, 'corrupt.db'), 300, 200);
    // keep the header, scramble the pages after the first
    for (let i = 4096; i < bytes.length; i += 7) bytes[i] = (bytes[i]! * 31 + 7) & 0xff;
    const res = await upload('corrupt', [{ name: 'file', filename: 'corrupt.db', data: bytes }]);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_database');
  });

  it.each([
    ['no parts', []],
    ['a wrong field name', [{ name: 'upload', filename: 'a.db', data: 'x' }]],
    ['a text field instead of a file', [{ name: 'file', data: 'SQLite format 3' }]],
    [
      'an extra text field',
      [
        { name: 'file', filename: 'a.db', data: 'x' },
        { name: 'comment', data: 'hi' },
      ],
    ],
    [
      'two files',
      [
        { name: 'file', filename: 'a.db', data: 'x' },
        { name: 'file', filename: 'b.db', data: 'y' },
      ],
    ],
  ])('%s is 400', async (_label, parts) => {
    await create('fields').catch(() => {});
    const res = await upload('fields', parts as Parameters<typeof multipart>[0]);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('a body that is not multipart is 415, a broken multipart body 400', async () => {
    await create('mp');
    const res = await s.api('/v1/namespaces/mp/import', { method: 'POST', body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    expect(res.status).toBe(415);
    expect((await res.json()).error).toBe('unsupported_media_type');
    const broken = await s.api('/v1/namespaces/mp/import', {
      method: 'POST',
      body: '--x\r\nnonsense',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(broken.status).toBe(400);
    const noBoundary = await s.api('/v1/namespaces/mp/import', { method: 'POST', body: 'abc', headers: { 'content-type': 'multipart/form-data' } });
    expect(noBoundary.status).toBe(400);
  });

  it('a missing namespace is 404 before the upload is read', async () => {
    const bytes = makeDb(path.join(work, 'x.db'), 1);
    const res = await upload('ghost', [{ name: 'file', filename: 'x.db', data: bytes }]);
    expect(res.status).toBe(404);
    expect((await s.api('/v1/namespaces/ghost')).status).toBe(404);
  });

  it('writes an audit record for every control-plane change', async () => {
    const res = await s.api('/api/admin/audit?limit=500');
    const actions = new Set(((await res.json()).data as Array<{ action: string; actor: string }>).map((r) => r.action));
    for (const a of ['namespace.create', 'namespace.import', 'namespace.export']) expect(actions).toContain(a);
  });
});
