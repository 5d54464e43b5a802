/**
 * A backup onto a full disk (issue 17, "Safety"): the server runs with its backup folder on a real 8 MiB tmpfs,
 * mounted in a mount namespace of its own (`unshare -rm`, so nothing outside the server's process sees it), with a
 * 6 MiB filler file on it. A backup of a namespace of about 4 MiB then fails on ENOSPC: the job ends `failed` with
 * `backup_no_space`, /healthz and /metrics report it, no partial file or temporary snapshot remains, and the server
 * keeps answering reads and writes. Once the filler is deleted, the next backup completes and verifies.
 *
 * The test reaches the tmpfs as the server sees it through /proc/<pid>/root (the child's pid is node's: unshare and
 * sh exec). Linux only; the machine's test runs are root or may create user namespaces.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBackup } from '../../../server/core/backup/index.ts';
import type { BackupJob } from '../../../server/core/contract.ts';
import { tempDir } from '../../helpers/server.ts';
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts';
import { until } from '../../helpers/wait.ts';

const MiB = 1024 * 1024;
let root: string;
let s: ServerProcess | undefined;

beforeAll(() => {
  root = tempDir('hearth-backup-full-');
});
afterAll(async () => {
  await s?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

async function json<T = any>(r: Promise<Response>, status: number): Promise<T> {
  const res = await r;
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

describe('a backup onto a full disk', () => {
  it('fails with backup_no_space, leaves nothing behind and affects nothing else; with room the next one completes', async () => {
    const backupDir = path.join(root, 'small-disk');
    fs.mkdirSync(backupDir);
    // The server's backup folder: 8 MiB, 6 MiB of it taken by a filler before the server starts.
    const mountSmallDisk = `mount -t tmpfs -o size=${8 * MiB} tmpfs "$0" && head -c ${6 * MiB} /dev/zero > "$0/filler" && exec "$@"`;
    const server = await startServerProcess(
      { dataDir: path.join(root, 'data'), backupDir },
      { wrap: ['unshare', '-rm', 'sh', '-c', mountSmallDisk, backupDir] },
    );
    s = server;
    // The folder as the server sees it (the tmpfs exists only in its mount namespace).
    const disk = `/proc/${server.proc.pid}/root${backupDir}`;
    expect(fs.readdirSync(disk)).toEqual(['filler']);
    expect(fs.readdirSync(backupDir)).toEqual([]); // outside the server, the folder is the empty mount point

    // About 4 MiB that do not compress, in a namespace: more than the 2 MiB left on the small disk.
    await json(server.api('/v1/namespaces', { method: 'POST', json: { name: 'crm' } }), 201);
    await json(server.api('/v1/crm/tables', { method: 'POST', json: { type: 'table', name: 'items', columns: [{ name: 'label', type: 'text' }] } }), 201);
    for (let batch = 0; batch < 8; batch++) {
      const rows = Array.from({ length: 4 }, () => ({ label: crypto.randomBytes(96 * 1024).toString('base64') }));
      await json(server.api('/v1/crm/tables/items/rows', { method: 'POST', json: { rows } }), 201);
    }

    const finished = (id: string) =>
      until(async () => {
        const job = await json<BackupJob>(server.api(`/api/admin/backups/jobs/${id}`), 200);
        return job.state !== 'running' && job;
      }, `backup job ${id} to end`);

    const { job } = await json<{ job: BackupJob }>(server.api('/api/admin/backups', { method: 'POST', json: {} }), 202);
    const failed = await finished(job.id);
    expect(failed).toMatchObject({ state: 'failed', size: null, error: { error: 'backup_no_space' } });
    expect(failed.error?.message).toMatch(/no space left on the device while writing \S+; the partial backup was removed/);
    expect(failed.finishedAt).not.toBeNull();

    // Nothing left behind: neither the partial file on the small disk nor a temporary snapshot in <data>/tmp.
    expect(fs.readdirSync(disk)).toEqual(['filler']);
    expect(fs.readdirSync(path.join(server.dataDir, 'tmp')).filter((n) => n.startsWith('backup-'))).toEqual([]);
    const listed = await json<{ data: unknown[]; running: unknown }>(server.api('/api/admin/backups'), 200);
    expect(listed).toMatchObject({ data: [], running: null });

    // Reported: the job (above), /healthz and /metrics.
    const health = await json(server.api('/healthz', { token: null }), 200);
    expect(health.backup).toMatchObject({ lastSuccess: null, running: false, lastError: { error: 'backup_no_space', message: failed.error?.message } });
    const metrics = await (await server.api('/metrics', { token: null })).text();
    const failedAt = Number(/^hearth_backup_last_failure_timestamp_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(failedAt * 1000).toBeGreaterThanOrEqual(Date.parse(job.startedAt) - 1000);
    expect(metrics).toMatch(/^hearth_backup_last_success_timestamp_seconds 0$/m);
    expect(metrics).toMatch(/^hearth_backup_running 0$/m);

    // Nothing else is affected: the server reads and writes as before.
    await json(server.api('/v1/crm/tables/items/rows', { method: 'POST', json: { rows: [{ label: 'after the full disk' }] } }), 201);
    const read = await json<{ data: Array<{ label: string }> }>(server.api('/v1/crm/tables/items/rows?limit=100'), 200);
    expect(read.data).toHaveLength(33);
    expect(read.data.at(-1)?.label).toBe('after the full disk');
    await json(server.api('/v1/namespaces', { method: 'POST', json: { name: 'after' } }), 201);

    // With room, the next backup completes.
    fs.rmSync(path.join(disk, 'filler'));
    const { job: again } = await json<{ job: BackupJob }>(server.api('/api/admin/backups', { method: 'POST', json: {} }), 202);
    const done = await finished(again.id);
    expect(done).toMatchObject({ state: 'complete', error: null });
    expect(done.size).toBeGreaterThan(4 * MiB);
    expect(fs.readdirSync(disk)).toEqual([again.name]);
    expect(await verifyBackup(path.join(disk, again.name))).toMatchObject({ ok: true });
    const healed = await json(server.api('/healthz', { token: null }), 200);
    expect(healed.backup).toMatchObject({ lastError: null, running: false });
    expect(Date.parse(healed.backup.lastSuccess)).toBeGreaterThan(0);
  }, 120_000);
});
