// The data folder is private: the folder 0700, its database and secret files 0600, whatever modes an existing
// folder had, and every file Hearth creates in it from the start. The existing folder's test is about platform.db's
// files (and its WAL beside it), so its servers keep the core store on SQLite under either HEARTH_TEST_STORE.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, startTestServer, tempDir } from '../../helpers/server.ts';

const mode = (file: string) => fs.statSync(file).mode & 0o777;

let umask: number;
beforeAll(() => {
  // the usual umask, under which new files are world-readable unless created otherwise
  umask = process.umask(0o022);
});
afterAll(() => {
  process.umask(umask);
});

/** Every file and folder under `dir` with its mode, relative to `dir`. */
function modes(dir: string): Record<string, number> {
  const out: Record<string, number> = { '.': mode(dir) };
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      out[r] = mode(path.join(dir, r));
      if (e.isDirectory()) walk(r);
    }
  };
  walk('');
  return out;
}

describe.runIf(process.platform !== 'win32')('data folder permissions', () => {
  it('an existing folder made 0755 with files made 0644 is made private at start, and the log says what changed', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ store: 'sqlite', dataDir });
    expect((await first.api('/v1/namespaces', { method: 'POST', json: { name: 'sales' } })).status).toBe(201);
    expect((await first.api('/v1/sales/tables', { method: 'POST', json: { type: 'table', name: 't', columns: [{ name: 'v', type: 'text' }] } })).status).toBe(
      201,
    );
    await first.close();

    // As an older Hearth, a copy or a restore may leave it: everything readable by everyone, a WAL beside platform.db.
    fs.writeFileSync(path.join(dataDir, 'platform.db-wal'), '');
    fs.writeFileSync(path.join(dataDir, 'platform.db-shm'), '');
    for (const rel of Object.keys(modes(dataDir))) {
      fs.chmodSync(path.join(dataDir, rel), fs.statSync(path.join(dataDir, rel)).isDirectory() ? 0o755 : 0o644);
    }
    const nsFile = fs.readdirSync(path.join(dataDir, 'namespaces')).find((f) => f.endsWith('.db'))!;
    expect(mode(path.join(dataDir, 'platform.db'))).toBe(0o644);

    const lines: string[] = [];
    const s = await startTestServer({ store: 'sqlite', dataDir, logLevel: 'info', logDestination: { write: (l: string) => void lines.push(l) } as never });
    try {
      const all = modes(dataDir);
      expect(all['.']).toBe(0o700);
      for (const rel of ['platform.db', 'platform.db-wal', 'platform.db-shm', path.join('namespaces', nsFile), path.join('secrets', 'app-secret')]) {
        expect([rel, all[rel]]).toEqual([rel, 0o600]);
      }
      for (const rel of ['namespaces', 'secrets', 'tmp']) expect([rel, all[rel]]).toEqual([rel, 0o700]);
      // one line, naming what changed
      const said = lines.map((l) => JSON.parse(l) as { msg: string; changed?: string[] }).filter((l) => /permission/i.test(l.msg));
      expect(said).toHaveLength(1);
      expect(said[0]!.msg).toContain('platform.db');
      expect(said[0]!.changed).toEqual(
        expect.arrayContaining([
          `${dataDir} 755 → 700`,
          'platform.db 644 → 600',
          'platform.db-wal 644 → 600',
          `namespaces/${nsFile} 644 → 600`,
          'secrets 755 → 700',
          'secrets/app-secret 644 → 600',
        ]),
      );
      // the data is all there
      expect((await s.api('/v1/sales/tables/t')).status).toBe(200);
    } finally {
      await s.close();
    }

    // a folder that is already private is left alone, and nothing is logged
    const quiet: string[] = [];
    const again = await startTestServer({ store: 'sqlite', dataDir, logLevel: 'info', logDestination: { write: (l: string) => void quiet.push(l) } as never });
    await again.stop();
    expect(quiet.filter((l) => /permission/i.test(l))).toEqual([]);
  });

  it('creates every database file 0600 and every folder 0700 from the start', async () => {
    const s = await startTestServer();
    try {
      expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } })).status).toBe(201);
      expect((await s.api('/v1/fresh/tables', { method: 'POST', json: { type: 'table', name: 't', columns: [{ name: 'v', type: 'text' }] } })).status).toBe(
        201,
      );
      expect((await s.api('/v1/fresh/tables/t/rows', { method: 'POST', json: { v: 'x' } })).status).toBe(201);
      expect((await s.api('/v1/namespaces/fresh/duplicate', { method: 'POST', json: { name: 'copy' } })).status).toBe(201);
      const exported = Buffer.from(await (await s.api('/v1/namespaces/fresh/export')).arrayBuffer());
      expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'imported' } })).status).toBe(201);
      const m = multipart([{ name: 'file', filename: 'f.db', data: exported }]);
      expect((await s.api('/v1/namespaces/imported/import', { method: 'POST', body: m.body, headers: { 'content-type': m.contentType } })).status).toBe(200);
      for (const ns of ['copy', 'imported']) s.services.db.namespaces.connection(ns).prepare('SELECT count(*) FROM t').get();
      // -wal and -shm files exist while the databases are open
      const all = modes(s.dataDir);
      expect(Object.keys(all).filter((f) => f.endsWith('-wal')).length).toBeGreaterThanOrEqual(3);
      for (const [rel, m] of Object.entries(all)) {
        const isDir = fs.statSync(path.join(s.dataDir, rel)).isDirectory();
        expect([rel, m]).toEqual([rel, isDir ? 0o700 : 0o600]);
      }
    } finally {
      await s.stop();
    }
  });

  it('the offline CLI path (openDataDir) creates platform.db 0600 too', async () => {
    const { openDataDir } = await import('../../../server/boot.ts');
    const dir = path.join(tempDir(), 'made-by-cli');
    const db = await openDataDir(dir);
    await db.close();
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'platform.db'))).toBe(0o600);
    const check = new Database(path.join(dir, 'platform.db'), { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
    check.close();
    fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  });
});
