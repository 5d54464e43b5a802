import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const create = (name: string, config?: unknown) => s.api('/v1/namespaces', { method: 'POST', json: config === undefined ? { name } : { name, config } });

const DEFAULTS = {
  journal_mode: 'wal',
  synchronous: 'full',
  busy_timeout: 5000,
  max_db_size: null,
  query_timeout: 10000,
  foreign_keys: true,
  read_only: false,
};

describe('create', () => {
  it('creates a namespace with default configuration and answers the record', async () => {
    const res = await create('alpha');
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/v1/namespaces/alpha');
    const body = await res.json();
    expect(body.name).toBe('alpha');
    expect(body.config).toEqual(DEFAULTS);
    expect(Date.parse(body.created_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.created_at).toMatch(/Z$/);
    expect(body.last_activity_at).toBe(body.created_at);
    expect(body.storage).toMatchObject({ page_size: 4096, page_count: expect.any(Number), size_bytes: expect.any(Number), wal_bytes: 0, free_pages: 0 });
    // the database exists and really is in WAL mode with the configured pragmas
    const db = s.services.db.namespaces.connection('alpha');
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('fills omitted settings with defaults', async () => {
    const res = await create('partial', { synchronous: 'normal', max_db_size: 1_000_000 });
    expect(res.status).toBe(201);
    expect((await res.json()).config).toEqual({ ...DEFAULTS, synchronous: 'normal', max_db_size: 1_000_000 });
    const db = s.services.db.namespaces.connection('partial');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('max_page_count', { simple: true })).toBe(Math.floor(1_000_000 / 4096));
  });

  it.each([
    ['a', 201],
    ['A'.repeat(64), 201],
    ['9lives', 201],
    ['x_y-z', 201],
    ['A'.repeat(65), 400],
    ['_x', 400],
    ['-x', 400],
    ['', 400],
    ['has space', 400],
    ['dot.name', 400],
    ['ünï', 400],
    ['namespaces', 400],
    ['Namespaces', 201],
  ])('name %j → %i', async (name, status) => {
    const res = await create(name);
    expect(res.status).toBe(status);
    if (status === 400) {
      const body = await res.json();
      expect(body.error).toBe('invalid_request');
      expect(body.message).toMatch(/name/);
    }
  });

  it('refuses a taken name with 409 namespace_exists', async () => {
    expect((await create('taken')).status).toBe(201);
    const res = await create('taken');
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'namespace_exists', message: expect.stringContaining('taken') });
  });

  it('names are case-sensitive and do not collide on disk', async () => {
    expect((await create('Case')).status).toBe(201);
    expect((await create('case')).status).toBe(201);
    s.services.db.namespaces.connection('Case').exec('CREATE TABLE only_upper (x)');
    const lower = s.services.db.namespaces.connection('case');
    expect(lower.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'only_upper'").pluck().get()).toBe(0);
  });

  it.each([
    [{ synchronous: 'off' }, 'synchronous'],
    [{ synchronous: 'extra' }, 'synchronous'],
    [{ journal_mode: 'memory' }, 'journal_mode'],
    [{ journal_mode: 'off' }, 'journal_mode'],
    [{ busy_timeout: -1 }, 'busy_timeout'],
    [{ busy_timeout: 1.5 }, 'busy_timeout'],
    [{ max_db_size: 100 }, 'max_db_size'],
    [{ query_timeout: 0 }, 'query_timeout'],
    [{ foreign_keys: 'yes' }, 'foreign_keys'],
    [{ read_only: 1 }, 'read_only'],
    [{ cache_size: 10 }, 'cache_size'],
  ])('rejects config %j with 400 naming %s', async (config, key) => {
    const res = await create('badcfg', config);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toContain(key);
    expect((await s.api('/v1/namespaces/badcfg')).status).toBe(404);
  });

  it.each(['wal', 'delete', 'truncate', 'persist'])('accepts journal_mode %s and applies it', async (mode) => {
    const res = await create(`jm-${mode}`, { journal_mode: mode });
    expect(res.status).toBe(201);
    expect(s.services.db.namespaces.connection(`jm-${mode}`).pragma('journal_mode', { simple: true })).toBe(mode);
  });

  it('rejects unknown top-level keys and non-object bodies', async () => {
    const res = await s.api('/v1/namespaces', { method: 'POST', json: { name: 'x1', extra: true } });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('extra');
    const arr = await s.api('/v1/namespaces', { method: 'POST', json: [{ name: 'x2' }] });
    expect(arr.status).toBe(400);
    const none = await s.api('/v1/namespaces', { method: 'POST' });
    expect(none.status).toBe(400);
    expect(await none.json()).toEqual({ error: 'invalid_request', message: 'a JSON request body is required' });
  });
});

describe('get, replace configuration, delete', () => {
  it('gets a record and 404s a missing one', async () => {
    await create('getme');
    const res = await s.api('/v1/namespaces/getme');
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBe('getme');
    const missing = await s.api('/v1/namespaces/nothere');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'namespace_not_found', message: 'namespace "nothere" does not exist' });
    expect((await s.api('/v1/namespaces/_bad')).status).toBe(404);
  });

  it('PUT replaces the whole configuration and applies it to the open connection at once', async () => {
    await create('cfg', { synchronous: 'normal', foreign_keys: false, busy_timeout: 100 });
    const db = s.services.db.namespaces.connection('cfg');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(0);
    const res = await s.api('/v1/namespaces/cfg', { method: 'PUT', json: { config: { read_only: true, max_db_size: 65536 } } });
    expect(res.status).toBe(200);
    const body = await res.json();
    // omitted settings are back to their defaults: replace, not patch
    expect(body.config).toEqual({ ...DEFAULTS, read_only: true, max_db_size: 65536 });
    // the very same open connection now runs with the new settings
    expect(s.services.db.namespaces.connection('cfg')).toBe(db);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('query_only', { simple: true })).toBe(1);
    expect(db.pragma('max_page_count', { simple: true })).toBe(16);
    expect(() => db.exec('CREATE TABLE t (x)')).toThrow(/readonly|read-only/i);
    // and it is what GET shows
    expect((await (await s.api('/v1/namespaces/cfg')).json()).config).toEqual(body.config);
    // switching journal mode on the live connection
    const j = await s.api('/v1/namespaces/cfg', { method: 'PUT', json: { config: { journal_mode: 'delete' } } });
    expect(j.status).toBe(200);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.pragma('query_only', { simple: true })).toBe(0);
  });

  it('PUT validates like create', async () => {
    await create('cfg2');
    for (const body of [{}, { config: { synchronous: 'off' } }, { config: { nope: 1 } }, { config: {}, other: 1 }]) {
      const res = await s.api('/v1/namespaces/cfg2', { method: 'PUT', json: body });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe('invalid_request');
    }
    expect((await s.api('/v1/namespaces/missing', { method: 'PUT', json: { config: {} } })).status).toBe(404);
  });

  it('DELETE removes the record and the files', async () => {
    await create('doomed');
    const db = s.services.db.namespaces.connection('doomed');
    db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    const before = fs.readdirSync(path.join(s.dataDir, 'namespaces')).length;
    const res = await s.api('/v1/namespaces/doomed', { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(db.open).toBe(false);
    expect((await s.api('/v1/namespaces/doomed')).status).toBe(404);
    expect(fs.readdirSync(path.join(s.dataDir, 'namespaces')).length).toBeLessThan(before);
    expect((await s.api('/v1/namespaces/doomed', { method: 'DELETE' })).status).toBe(404);
    // the name is free again and the new namespace is empty
    expect((await create('doomed')).status).toBe(201);
    expect(s.services.db.namespaces.connection('doomed').prepare('SELECT count(*) FROM sqlite_schema').pluck().get()).toBe(0);
  });
});

describe('duplicate', () => {
  it('copies data and configuration into an independent namespace', async () => {
    await create('src', { synchronous: 'normal' });
    const src = s.services.db.namespaces.connection('src');
    src.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, v TEXT)');
    const ins = src.prepare('INSERT INTO items (v) VALUES (?)');
    for (let i = 0; i < 500; i++) ins.run(`v${i}`);
    const res = await s.api('/v1/namespaces/src/duplicate', { method: 'POST', json: { name: 'copy' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe('/v1/namespaces/copy');
    const body = await res.json();
    expect(body.name).toBe('copy');
    expect(body.config).toEqual({ ...DEFAULTS, synchronous: 'normal' });
    const copy = s.services.db.namespaces.connection('copy');
    expect(copy.prepare('SELECT count(*) FROM items').pluck().get()).toBe(500);
    expect(copy.pragma('journal_mode', { simple: true })).toBe('wal');
    // independent both ways
    ins.run('only-in-source');
    copy.prepare('INSERT INTO items (v) VALUES (?)').run('only-in-copy');
    expect(copy.prepare("SELECT count(*) FROM items WHERE v = 'only-in-source'").pluck().get()).toBe(0);
    expect(src.prepare("SELECT count(*) FROM items WHERE v = 'only-in-copy'").pluck().get()).toBe(0);
  });

  it('takes a consistent snapshot while writes continue', async () => {
    await create('busy');
    const db = s.services.db.namespaces.connection('busy');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, pad BLOB)');
    const ins = db.prepare('INSERT INTO t (pad) VALUES (randomblob(2000))');
    db.transaction(() => {
      for (let i = 0; i < 5000; i++) ins.run();
    })();
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        ins.run();
        written++;
        await new Promise((r) => setImmediate(r));
      }
    })();
    const res = await s.api('/v1/namespaces/busy/duplicate', { method: 'POST', json: { name: 'busy-copy' } });
    writing = false;
    await writer;
    expect(res.status).toBe(201);
    expect(written).toBeGreaterThan(0);
    const copy = s.services.db.namespaces.connection('busy-copy');
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const n = copy.prepare('SELECT count(*) FROM t').pluck().get() as number;
    expect(n).toBeGreaterThanOrEqual(5000);
    expect(n).toBeLessThanOrEqual(5000 + written);
  });

  it('refuses a taken or invalid target and a missing source', async () => {
    await create('dup-a');
    await create('dup-b');
    const taken = await s.api('/v1/namespaces/dup-a/duplicate', { method: 'POST', json: { name: 'dup-b' } });
    expect(taken.status).toBe(409);
    expect((await taken.json()).error).toBe('namespace_exists');
    expect((await s.api('/v1/namespaces/dup-a/duplicate', { method: 'POST', json: { name: '_bad' } })).status).toBe(400);
    expect((await s.api('/v1/namespaces/dup-a/duplicate', { method: 'POST', json: {} })).status).toBe(400);
    const missing = await s.api('/v1/namespaces/ghost/duplicate', { method: 'POST', json: { name: 'dup-c' } });
    expect(missing.status).toBe(404);
    expect((await s.api('/v1/namespaces/dup-c')).status).toBe(404);
  });
});

describe('list', () => {
  it('pages 250 namespaces by 100: three pages, in name order, no repeats, null cursor at the end, no tenant database opened', async () => {
    const l = await startTestServer();
    try {
      const names = Array.from({ length: 250 }, (_, i) => `ns-${String(i).padStart(3, '0')}`);
      // create in shuffled order to prove the list sorts
      const shuffled = [...names].sort(() => Math.random() - 0.5);
      for (const n of shuffled) expect((await l.api('/v1/namespaces', { method: 'POST', json: { name: n } })).status).toBe(201);
      const handles = l.services.db.namespaces.handles;
      await l.services.db.namespaces.handles.closeAll();
      const openedBefore = handles.opened;
      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const res = await l.api(`/v1/namespaces?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { data: Array<{ name: string }>; next_cursor: string | null };
        pages.push(body.data.map((d) => d.name));
        cursor = body.next_cursor;
      } while (cursor !== null && pages.length < 10);
      expect(pages.map((p) => p.length)).toEqual([100, 100, 50]);
      expect(pages.flat()).toEqual(names);
      expect(new Set(pages.flat()).size).toBe(250);
      expect(handles.opened).toBe(openedBefore);
      expect(handles.size).toBe(0);
      // default limit is 100
      const def = await (await l.api('/v1/namespaces')).json();
      expect(def.data).toHaveLength(100);
      expect(typeof def.next_cursor).toBe('string');
      const all = await (await l.api('/v1/namespaces?limit=500')).json();
      expect(all.data).toHaveLength(250);
      expect(all.next_cursor).toBeNull();
    } finally {
      await l.stop();
    }
  });

  it.each(['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'cursor=garbage', 'cursor=', 'other=1'])('rejects %s with 400', async (q) => {
    const res = await s.api(`/v1/namespaces?${q}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('accepts the limits 1 and 500', async () => {
    const one = await (await s.api('/v1/namespaces?limit=1')).json();
    expect(one.data).toHaveLength(1);
    expect((await s.api('/v1/namespaces?limit=500')).status).toBe(200);
  });
});

describe('handles, activity and storage', () => {
  it('keeps a bounded number of databases open, closing the least recently used first', async () => {
    const l = await startTestServer({ maxOpenNamespaces: 3 });
    try {
      for (let i = 0; i < 8; i++) await l.api('/v1/namespaces', { method: 'POST', json: { name: `h${i}` } });
      const svc = l.services.db.namespaces;
      for (let i = 0; i < 8; i++) svc.connection(`h${i}`).exec('CREATE TABLE IF NOT EXISTS t (x)');
      expect(svc.handles.size).toBe(3);
      expect(['h5', 'h6', 'h7'].every((n) => svc.handles.isOpen(n))).toBe(true);
      svc.connection('h5'); // h5 becomes most recently used
      svc.connection('h0'); // evicts h6, the least recently used
      expect(svc.handles.isOpen('h6')).toBe(false);
      expect(svc.handles.isOpen('h5')).toBe(true);
      expect(svc.handles.isOpen('h0')).toBe(true);
      // a closed database reopens transparently with its data
      expect(svc.connection('h6').prepare("SELECT count(*) FROM sqlite_schema WHERE name='t'").pluck().get()).toBe(1);
      const metrics = await (await l.api('/metrics', { token: null })).text();
      expect(metrics).toMatch(/^hearth_namespace_handles_open 3$/m);
      expect(metrics).toMatch(/^hearth_namespaces 8$/m);
    } finally {
      await l.stop();
    }
  });

  it('records last activity and a storage snapshot in the registry', async () => {
    await create('act');
    const svc = s.services.db.namespaces;
    const db = svc.connection('act');
    db.exec('CREATE TABLE t (x BLOB)');
    db.prepare('INSERT INTO t VALUES (randomblob(100000))').run();
    await svc.flushActivity();
    svc.handles.measureOpen();
    const rec = await (await s.api('/v1/namespaces/act')).json();
    expect(Date.parse(rec.last_activity_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(rec.storage.page_count).toBeGreaterThan(20);
    expect(rec.storage.size_bytes + rec.storage.wal_bytes).toBeGreaterThan(100_000);
  });
});
