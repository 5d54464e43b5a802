/**
 * Namespace snapshots (what backups, exports and duplicates copy) while the namespace is written to, through the
 * namespace service itself: a WAL namespace is taken by the snapshot thread on its own read-only connection while
 * the event loop goes on writing (in memory with sqlite3_serialize for a backup, or VACUUM INTO a file when larger
 * than the image limit), and answers the copy's size and SHA-256; a rollback-journal
 * namespace is copied by its own connection in steps, and writes run between the steps instead of waiting for the
 * whole copy. Either copy is one consistent moment: a row and the counter bumped in the same transaction agree.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditLog } from '../../../server/core/audit/audit.ts';
import { createLogger } from '../../../server/core/logging/logger.ts';
import { coreMigrations, type Db, openPlatformDb } from '../../../server/core/storage/platform-db.ts';
import { copyWalDatabase, type SnapshotCopy } from '../../../server/core/storage/snapshot-thread.ts';
import { Database } from '../../../server/core/storage/sqlite.ts';
import { sqliteStore } from '../../../server/core/storage/store.ts';
import { createNamespaceService, defaultConfig } from '../../../server/db/namespaces/namespaces.service.ts';
import { createNamespaceStore, namespaceMigrations } from '../../../server/db/namespaces/namespaces.store.ts';
import { nodeMigrations } from '../../../server/db/nodes/nodes.ts';

let root: string;
let platformDb: Db;
let svc: ReturnType<typeof createNamespaceService>;
const actor = { actor: 'test' };

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-snapshot-'));
  platformDb = openPlatformDb(root, [...coreMigrations, ...namespaceMigrations, ...nodeMigrations]);
  const store = sqliteStore(platformDb);
  svc = createNamespaceService({
    store: createNamespaceStore(store),
    audit: createAuditLog(store),
    logger: createLogger({ level: 'silent' }),
    dataDir: root,
    maxOpen: 8,
  });
});
afterAll(async () => {
  await svc?.close();
  platformDb?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** A namespace of about 16 MiB whose every transaction adds a row and bumps a counter; answers one such write. */
async function filled(name: string, journal_mode: 'wal' | 'delete') {
  await svc.create({ name, config: { ...defaultConfig(), journal_mode } }, actor);
  const db = svc.connection(name);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, x BLOB); CREATE TABLE counter (n INTEGER); INSERT INTO counter VALUES (0)');
  const write = () =>
    db.transaction(() => {
      db.prepare('INSERT INTO t (x) VALUES (randomblob(2000))').run();
      db.prepare('UPDATE counter SET n = n + 1').run();
    })();
  db.transaction(() => {
    for (let i = 0; i < 8000; i++) write();
  })();
  return write;
}

/** Writes one transaction per event-loop turn until stopped; counts those made while `during()` holds. */
function writeLoop(write: () => void, during: () => boolean) {
  let writing = true;
  let total = 0;
  let inside = 0;
  const loop = () => {
    if (!writing) return;
    write();
    total++;
    if (during()) inside++;
    setImmediate(loop);
  };
  loop();
  return {
    stop: () => {
      writing = false;
      return { total, inside };
    },
  };
}

function checkCopy(file: string, rowsAfter: number): number {
  const copy = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = copy.prepare('SELECT count(*) FROM t').pluck().get() as number;
    expect(copy.prepare('SELECT n FROM counter').pluck().get()).toBe(rows); // no half transaction
    expect(rows).toBeGreaterThanOrEqual(8000);
    expect(rows).toBeLessThanOrEqual(rowsAfter);
    return rows;
  } finally {
    copy.close();
  }
}

describe('namespace snapshots while writes continue', () => {
  it('a WAL namespace is taken off the event loop as of one moment: in memory for a backup, with its size and SHA-256', async () => {
    const write = await filled('walns', 'wal');
    const fileId = svc.files().find((f) => f.name === 'walns')!.fileId;
    const dest = path.join(svc.tmpDir, 'walns-copy.db');
    let copying = false;
    const writer = writeLoop(write, () => copying);
    let answer: Awaited<ReturnType<typeof svc.snapshot>>;
    try {
      answer = await svc.snapshot('walns', fileId, dest, (done, total) => {
        copying = done < total;
      });
    } finally {
      copying = false;
    }
    const { inside } = writer.stop();
    expect(inside).toBeGreaterThan(0); // the event loop went on writing while the image was taken
    // 16 MiB is under BACKUP_IMAGE_MAX: the database is held as an image on the snapshot thread, nothing is in dest,
    // and the thread writes the image where it is told (here: at offset 4096 of a file).
    if (answer === 'vanished' || !answer?.held) throw new Error(`expected a held image, got ${JSON.stringify(answer)}`);
    expect(fs.statSync(dest).size).toBe(0);
    const out = path.join(svc.tmpDir, 'walns-out.bin');
    const fd = fs.openSync(out, 'w');
    try {
      await answer.held.writeTo(fd, 4096);
    } finally {
      fs.closeSync(fd);
    }
    await expect(answer.held.writeTo(0, 0)).rejects.toThrow('already written or released');
    const image = fs.readFileSync(out).subarray(4096);
    expect(answer).toMatchObject({ size: image.length, sha256: crypto.createHash('sha256').update(image).digest('hex') });
    fs.writeFileSync(dest, image);
    const rowsAfter = svc.connection('walns').prepare('SELECT count(*) FROM t').pluck().get() as number;
    checkCopy(dest, rowsAfter);
    expect(fs.readdirSync(svc.tmpDir).filter((f) => f.startsWith('walns-copy.db-'))).toEqual([]); // no -wal or -journal beside it
  });

  it('a WAL database larger than the image limit is copied to dest by VACUUM INTO, hashed on the thread, while writes go on', async () => {
    const write = await filled('bigns', 'wal');
    const fileId = svc.files().find((f) => f.name === 'bigns')!.fileId;
    const dest = path.join(svc.tmpDir, 'bigns-copy.db');
    let copying = true;
    const writer = writeLoop(write, () => copying);
    let copy: SnapshotCopy;
    try {
      copy = await copyWalDatabase({ file: path.join(root, 'namespaces', `${fileId}.db`), dest, durable: false, hash: true, timeout: 5000, imageMax: 4096 });
    } finally {
      copying = false;
    }
    const { inside } = writer.stop();
    expect(inside).toBeGreaterThan(0);
    const bytes = fs.readFileSync(dest);
    expect(copy).toEqual({ size: bytes.length, sha256: crypto.createHash('sha256').update(bytes).digest('hex') });
    checkCopy(dest, svc.connection('bigns').prepare('SELECT count(*) FROM t').pluck().get() as number);
    expect(fs.readdirSync(svc.tmpDir).filter((f) => f.startsWith('bigns-copy.db-'))).toEqual([]);
  });

  it('a rollback-journal namespace is copied by its own connection in steps, writes running between them', async () => {
    const write = await filled('journalns', 'delete');
    expect(svc.connection('journalns').pragma('journal_mode', { simple: true })).toBe('delete');
    const fileId = svc.files().find((f) => f.name === 'journalns')!.fileId;
    const dest = path.join(svc.tmpDir, 'journalns-copy.db');
    let copying = false;
    let steps = 0;
    const writer = writeLoop(write, () => copying);
    try {
      await svc.snapshot('journalns', fileId, dest, (done, total) => {
        steps++;
        copying = done < total;
      });
    } finally {
      copying = false;
    }
    const { inside } = writer.stop();
    expect(steps).toBeGreaterThan(10); // 256 pages a step
    expect(inside).toBeGreaterThan(5); // writers were not held off for the whole copy
    const rowsAfter = svc.connection('journalns').prepare('SELECT count(*) FROM t').pluck().get() as number;
    checkCopy(dest, rowsAfter);
  });
});
