/**
 * A full disk is reported as a full disk, not as a quota. The server runs with a real tmpfs mounted in a mount
 * namespace of its own (`unshare -rm`, so nothing outside the server's process sees it), and the test fills that
 * tmpfs until it has 0 bytes free.
 *
 * With a 16 MiB tmpfs over the namespaces folder (the core store has room, so the answers are exact):
 * - a write to a namespace without a quota, a schema change, and a write to a namespace whose quota is larger than
 *   the disk answer 507 `disk_full` with the free space in the message, and change nothing;
 * - a quota really reached while the disk has room is still 507 `quota_exceeded`;
 * - /healthz answers 200 `degraded` with its `disk` check failing and saying why;
 * - creating a namespace (or duplicating one) answers 507 `disk_full` and leaves nothing behind (no registry row, no
 *   database file, no temporary file).
 * Once the filler is deleted, the same writes and the same creation succeed and /healthz is `ok` again.
 *
 * With a 32 MiB tmpfs over the whole data folder (as an operator meets it; on SQLite platform.db is on that disk
 * too): the same write and creation answers, a closed database that SQLite cannot open again (no room for its `-shm`
 * file) is 507 `disk_full` too, and /healthz's `disk` check fails; the answer is `degraded` (200) while the core
 * store's probe can still be written and `unavailable` (503) once it cannot; freed, everything is back.
 *
 * The test reaches the tmpfs as the server sees it through /proc/<pid>/root (the child's pid is node's: unshare and
 * sh exec). Linux only; the machine's test runs are root or may create user namespaces. The core store is wherever
 * HEARTH_TEST_STORE puts it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/server.ts';
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
let root: string;
/** The server of the running describe block, and its small disk's folder as the server sees it. */
let s: ServerProcess | undefined;
let disk: string;
const filler = () => path.join(disk, 'filler');

async function json<T = any>(r: Promise<Response>, status: number): Promise<T> {
  const res = await r;
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Appends to the filler until the small disk has 0 bytes free: large writes first, then ever smaller ones, each size until ENOSPC. */
function fill(): void {
  const fd = fs.openSync(filler(), 'a');
  try {
    for (const size of [MiB, 64 * KiB, 4 * KiB, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          if (fs.writeSync(fd, chunk) < size) break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  expect(fs.statfsSync(disk).bavail).toBe(0);
}

/** Starts a server whose `folder` (its data folder or a folder inside it) is a tmpfs of `size` bytes. */
async function serverOnSmallDisk(size: number, folder: (dataDir: string) => string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const dataDir = path.join(root, `data-${crypto.randomUUID()}`);
  const mountPoint = folder(dataDir);
  fs.mkdirSync(mountPoint, { recursive: true, mode: 0o700 });
  const mountSmallDisk = `mount -t tmpfs -o size=${size},mode=0700 tmpfs "$0" && exec "$@"`;
  s = await startServerProcess({ dataDir, env }, { wrap: ['unshare', '-rm', 'sh', '-c', mountSmallDisk, mountPoint] });
  disk = `/proc/${s.proc.pid}/root${mountPoint}`;
  expect(fs.statfsSync(disk).blocks * fs.statfsSync(disk).bsize).toBe(size);
  return s;
}

const api = (pathname: string, init?: Parameters<ServerProcess['api']>[1]) => s!.api(pathname, init);
const createTable = (ns: string, name = 'items') =>
  api(`/v1/${ns}/tables`, { method: 'POST', json: { type: 'table', name, columns: [{ name: 'label', type: 'text' }] } });
const rows = (ns: string, body: unknown) => api(`/v1/${ns}/tables/items/rows`, { method: 'POST', json: body });
/** One row of `bytes` that do not compress (base64 of random bytes). */
const bigRow = (bytes: number) => ({ label: crypto.randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64') });
const count = async (ns: string) => (await json(api(`/v1/${ns}/tables/items/rows?count=exact&limit=1`), 200)).meta.total_count as number;
const health = () => api('/healthz', { token: null });
const names = async () => (await json<{ data: Array<{ name: string }> }>(api('/v1/namespaces'), 200)).data.map((n) => n.name);

/** The answer to a write (rows, schema) to a namespace without a quota on a full disk. */
const DISK_FULL_WRITE = /^the disk holding the data folder is full \(0 B free\): nothing was changed; free space on that disk/;
const notCreated = (name: string) =>
  new RegExp(`^the disk holding the data folder is full \\(0 B free\\): nothing was changed \\(namespace "${name}" was not created\\);`);

beforeAll(() => {
  root = tempDir('hearth-db-full-');
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a full disk under the namespaces folder', () => {
  beforeAll(async () => {
    await serverOnSmallDisk(16 * MiB, (dataDir) => path.join(dataDir, 'namespaces'));
    for (const [name, config] of [
      ['plain', {}],
      ['roomy', { max_db_size: 512 * MiB }],
      ['tight', { max_db_size: 64 * KiB }],
    ] as const) {
      await json(api('/v1/namespaces', { method: 'POST', json: { name, config } }), 201);
      await json(createTable(name), 201);
      await json(rows(name, { label: 'before' }), 201);
    }
  });
  afterAll(async () => {
    await s?.stop();
    s = undefined;
  });

  it('with room on the disk: /healthz is ok with its disk check, and a quota really reached is quota_exceeded', async () => {
    expect(await json(health(), 200)).toMatchObject({ status: 'ok', checks: { platform_db: { ok: true }, disk: { ok: true } } });
    expect(fs.statfsSync(disk).bavail * fs.statfsSync(disk).bsize).toBeGreaterThan(8 * MiB);

    const refused = await json(rows('tight', { rows: [bigRow(40 * KiB), bigRow(40 * KiB)] }), 507);
    expect(refused).toEqual({ error: 'quota_exceeded', message: expect.stringContaining('max_db_size') });
    expect(await count('tight')).toBe(1);
  });

  it('a write without a quota, a schema change, and a write under a quota larger than the disk: 507 disk_full, nothing changed', async () => {
    fill();
    expect(await json(rows('plain', { rows: [bigRow(512 * KiB)] }), 507)).toEqual({ error: 'disk_full', message: expect.stringMatching(DISK_FULL_WRITE) });
    expect(await count('plain')).toBe(1);

    expect(await json(createTable('plain', 'more'), 507)).toEqual({ error: 'disk_full', message: expect.stringMatching(DISK_FULL_WRITE) });
    const tables = await json<{ data: Array<{ name: string }> }>(api('/v1/plain/tables'), 200);
    expect(tables.data.map((t) => t.name)).toEqual(['items']);

    // 512 MiB of quota left on a 16 MiB disk: the disk ran out first.
    expect(await json(rows('roomy', { rows: [bigRow(512 * KiB)] }), 507)).toEqual({
      error: 'disk_full',
      message: expect.stringMatching(
        /^the disk holding the data folder is full \(0 B free, less than the 51\d\.\d MiB the quota max_db_size still allows\): nothing was changed;/,
      ),
    });
    expect(await count('roomy')).toBe(1);
  });

  it('/healthz answers 200 degraded, its disk check failing with the free space', async () => {
    expect(await json(health(), 200)).toMatchObject({
      status: 'degraded',
      checks: {
        platform_db: { ok: true },
        disk: {
          ok: false,
          message:
            'the disk holding the namespaces folder has 0 B free of 16.0 MiB (reserve 163.8 KiB): writes that need more space are refused with 507 disk_full',
        },
      },
    });
  });

  it('creating a namespace (or a duplicate): 507 disk_full, and no registry row, database file or temporary file is left', async () => {
    const before = fs.readdirSync(disk).sort();
    expect(await json(api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } }), 507)).toEqual({
      error: 'disk_full',
      message: expect.stringMatching(notCreated('fresh')),
    });
    await json(api('/v1/namespaces/fresh'), 404);
    expect(await json(api('/v1/namespaces/plain/duplicate', { method: 'POST', json: { name: 'copy' } }), 507)).toEqual({
      error: 'disk_full',
      message: expect.stringMatching(notCreated('copy')),
    });
    await json(api('/v1/namespaces/copy'), 404);
    expect(await names()).toEqual(['plain', 'roomy', 'tight']);
    expect(fs.readdirSync(disk).sort()).toEqual(before);
    expect(fs.readdirSync(path.join(s!.dataDir, 'tmp'))).toEqual([]);
  });

  it('once space is freed, the same writes and the same creation succeed and /healthz is ok', async () => {
    fs.rmSync(filler());
    expect(await json(health(), 200)).toMatchObject({ status: 'ok', checks: { platform_db: { ok: true }, disk: { ok: true } } });
    await json(rows('plain', { rows: [bigRow(512 * KiB)] }), 201);
    expect(await count('plain')).toBe(2);
    await json(rows('roomy', { rows: [bigRow(512 * KiB)] }), 201);
    await json(createTable('plain', 'more'), 201);
    await json(api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } }), 201);
    await json(createTable('fresh'), 201);
    await json(rows('fresh', { label: 'after' }), 201);
  });
});

describe('a full disk under the whole data folder', () => {
  beforeAll(async () => {
    // One open database at a time: `idle` is closed (its -wal and -shm removed) once `plain` is used again.
    await serverOnSmallDisk(32 * MiB, (dataDir) => dataDir, { HEARTH_MAX_OPEN_NAMESPACES: '1' });
    for (const name of ['idle', 'plain']) {
      await json(api('/v1/namespaces', { method: 'POST', json: { name } }), 201);
      await json(createTable(name), 201);
      await json(rows(name, { label: 'before' }), 201);
    }
  });
  afterAll(async () => {
    await s?.stop();
    s = undefined;
  });

  it('a write, opening a closed database and a creation answer 507 disk_full, /healthz names the disk, freed space brings everything back', async () => {
    expect(await json(health(), 200)).toMatchObject({ status: 'ok', checks: { platform_db: { ok: true }, disk: { ok: true } } });
    fill();
    expect(await json(rows('plain', { rows: [bigRow(512 * KiB)] }), 507)).toEqual({ error: 'disk_full', message: expect.stringMatching(DISK_FULL_WRITE) });
    expect(await count('plain')).toBe(1);
    // SQLite cannot open `idle` again without room for its -shm file.
    expect(await json(api('/v1/idle/tables/items/rows'), 507)).toEqual({
      error: 'disk_full',
      message: expect.stringMatching(
        /^the disk holding the data folder is full \(0 B free\): nothing was changed \(the database of namespace "idle" could not be opened\);/,
      ),
    });

    const res = await health();
    const h = await res.json();
    expect(h.checks.disk).toEqual({
      ok: false,
      message: 'the disk holding the data folder has 0 B free of 32.0 MiB (reserve 327.7 KiB): writes that need more space are refused with 507 disk_full',
    });
    // Serving (200 degraded) while the core store's probe can still be written; 503 once it cannot (platform.db on that disk).
    expect({ status: res.status, body: h.status }).toEqual(h.checks.platform_db.ok ? { status: 200, body: 'degraded' } : { status: 503, body: 'unavailable' });

    const files = fs.readdirSync(path.join(disk, 'namespaces')).sort();
    expect(await json(api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } }), 507)).toEqual({
      error: 'disk_full',
      message: expect.stringMatching(notCreated('fresh')),
    });
    expect(fs.readdirSync(path.join(disk, 'namespaces')).sort()).toEqual(files);
    expect(fs.readdirSync(path.join(disk, 'tmp'))).toEqual([]);
    expect(await names()).toEqual(['idle', 'plain']);

    fs.rmSync(filler());
    expect(await json(health(), 200)).toMatchObject({ status: 'ok', checks: { platform_db: { ok: true }, disk: { ok: true } } });
    await json(rows('plain', { rows: [bigRow(512 * KiB)] }), 201);
    expect(await count('idle')).toBe(1);
    await json(api('/v1/namespaces', { method: 'POST', json: { name: 'fresh' } }), 201);
    expect(await names()).toEqual(['fresh', 'idle', 'plain']);
  });
});
