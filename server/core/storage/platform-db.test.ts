import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/helpers/server.ts';
import { coreMigrations, openPlatformDb, startCheckpointer } from './platform-db.ts';
import { Database } from './sqlite.ts';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** What platform.db holds on its own, without its WAL (a copy of the main file alone). */
function mainFileOnly(dir: string): number[] {
  const copy = path.join(dir, 'copy.db');
  fs.copyFileSync(path.join(dir, 'platform.db'), copy);
  const db = new Database(copy, { readonly: true });
  try {
    return db.prepare("SELECT x FROM t WHERE (SELECT count(*) FROM sqlite_schema WHERE name = 't') > 0").pluck().all() as number[];
  } catch {
    return [];
  } finally {
    db.close();
  }
}

describe('platform.db checkpoints', () => {
  it('commits leave the WAL to the checkpointer thread, which writes it back into platform.db within its interval', async () => {
    const dir = tempDir('hearth-ckpt-');
    const db = openPlatformDb(dir, coreMigrations);
    cleanup.push(() => db.close());
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.prepare('INSERT INTO t VALUES (1)').run();
    // Without the thread, a small commit stays in the WAL.
    await new Promise((r) => setTimeout(r, 300));
    expect(mainFileOnly(dir)).toEqual([]);

    const ck = startCheckpointer(db, { intervalMs: 50 });
    const end = Date.now() + 5000;
    while (mainFileOnly(dir).length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
    expect(mainFileOnly(dir)).toEqual([1]);

    // close() checkpoints once more before it stops.
    db.prepare('INSERT INTO t VALUES (2)').run();
    const slow = startCheckpointer(db, { intervalMs: 3_600_000 });
    await ck.close();
    db.prepare('INSERT INTO t VALUES (3)').run();
    await slow.close();
    expect(mainFileOnly(dir)).toEqual([1, 2, 3]);
  });
});
