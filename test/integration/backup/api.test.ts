/**
 * The backup routes on a running server (`/api/admin/backups…`): jobs and their progress, one at a time, listing,
 * download, delete, the audit, `/healthz` and `/metrics`, who may call them and which names they take; and the
 * schedule (HEARTH_BACKUP_SCHEDULE every second, HEARTH_BACKUP_KEEP, HEARTH_BACKUP_PASSPHRASE) firing on a running
 * server, pruning only the scheduled backups. The first server keeps its core store in platform.db under either
 * HEARTH_TEST_STORE (store: 'sqlite'): its backups' entries and parts are those of such an installation (platform.db
 * first); a backup made on PostgreSQL, without platform.db, is core/postgres-mode.test.ts's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackupManifest, verifyBackup } from '../../../server/core/backup/index.ts';
import type { BackupJob, BackupList } from '../../../server/core/contract.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const PASSPHRASE = 'correct horse battery staple';
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ store: 'sqlite' });
  for (const name of ['crm', 'inventory']) expect((await s.api('/v1/namespaces', { method: 'POST', json: { name } })).status).toBe(201);
});
afterAll(async () => {
  await s?.stop();
});

async function json<T = any>(r: Promise<Response>, status: number): Promise<T> {
  const res = await r;
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
}

const finished = (id: string) =>
  until(async () => {
    const job = await json<BackupJob>(s.api(`/api/admin/backups/jobs/${id}`), 200);
    return job.state !== 'running' && job;
  }, `backup job ${id} to end`);

describe('the backup routes', () => {
  it('a backup runs in the background, one at a time, and is listed, downloaded, audited and deleted', async () => {
    const { job } = await json<{ job: BackupJob }>(s.api('/api/admin/backups', { method: 'POST', json: { passphrase: PASSPHRASE } }), 202);
    expect(job).toMatchObject({ trigger: 'manual', state: 'running', secrets: 'encrypted', finishedAt: null, size: null, error: null });
    expect(job.name).toMatch(/^hearth-\d{8}-\d{6}-manual\.hearth-backup$/);
    // Argon2id alone keeps this one busy long enough for the refusals.
    expect(await json(s.api('/api/admin/backups', { method: 'POST', json: {} }), 409)).toMatchObject({ error: 'backup_running' });
    expect(await json(s.api(`/api/admin/backups/${job.name}`, { method: 'DELETE' }), 409)).toMatchObject({ error: 'backup_running' });
    const during = await json<BackupList>(s.api('/api/admin/backups'), 200);
    expect(during.running?.id).toBe(job.id);

    const done = await finished(job.id);
    expect(done).toMatchObject({ state: 'complete', error: null, progress: { parts: 3, step: 'finish' } });
    expect(done.size).toBeGreaterThan(0);
    const list = await json<BackupList>(s.api('/api/admin/backups'), 200);
    expect(list.running).toBeNull();
    expect(list.data).toEqual([
      {
        name: job.name,
        size: done.size,
        createdAt: job.startedAt,
        status: 'complete',
        trigger: 'manual',
        secrets: 'encrypted',
        hearthVersion: expect.any(String),
        namespaces: 2,
      },
    ]);
    expect(list.schedule).toMatchObject({ cron: null, dir: path.join(s.dataDir, 'backups'), keep: 7, passphraseSet: false, nextRun: null });

    const res = await s.api(`/api/admin/backups/${job.name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${job.name}"`);
    expect(Number(res.headers.get('content-length'))).toBe(done.size);
    const copy = path.join(s.dataDir, 'tmp', 'copy.hearth-backup');
    fs.writeFileSync(copy, Buffer.from(await res.arrayBuffer()));
    expect(await verifyBackup(copy, { passphrase: PASSPHRASE })).toMatchObject({ ok: true, secrets: 'verified' });
    const m = await readBackupManifest(copy);
    expect(m.secretFiles).toEqual(expect.arrayContaining(['secrets/app-secret', 'secrets/identity-kek']));
    expect(m.entries.map((e) => e.name)[0]).toBe('platform.db');
    fs.rmSync(copy);

    // Without a body: no passphrase, the secrets are left out and the backup says so.
    const plain = await json<{ job: BackupJob }>(s.api('/api/admin/backups', { method: 'POST' }), 202);
    expect(plain.job.secrets).toBe('omitted');
    expect((await finished(plain.job.id)).state).toBe('complete');

    const health = await json(s.api('/healthz', { token: null }), 200);
    expect(health.backup).toMatchObject({ lastError: null, nextRun: null, running: false });
    expect(Date.parse(health.backup.lastSuccess)).toBeGreaterThan(0);
    const metrics = await (await s.api('/metrics', { token: null })).text();
    expect(metrics).toMatch(/^hearth_backup_last_success_timestamp_seconds [1-9]/m);
    expect(metrics).toMatch(/^hearth_backup_running 0$/m);
    expect(metrics).toMatch(/^hearth_backup_last_failure_timestamp_seconds 0$/m);
    expect(metrics).toMatch(/^hearth_backup_duration_seconds \d/m);

    expect(await json(s.api(`/api/admin/backups/${job.name}`, { method: 'DELETE' }), 204)).toBeUndefined();
    expect(await json(s.api(`/api/admin/backups/${job.name}`, { method: 'DELETE' }), 404)).toMatchObject({ error: 'backup_not_found' });
    expect(await json(s.api(`/api/admin/backups/${job.name}`), 404)).toMatchObject({ error: 'backup_not_found' });

    const audit = await json<{ data: Array<{ action: string; target: string; detail: unknown }> }>(s.api('/api/admin/audit?limit=50'), 200);
    const actions = audit.data.filter((a) => a.action.startsWith('backup.')).map((a) => [a.action, a.target]);
    expect(actions).toEqual([
      ['backup.delete', job.name],
      ['backup.create', plain.job.name],
      ['backup.download', job.name],
      ['backup.create', job.name],
    ]);
    expect(JSON.stringify(audit.data)).not.toContain(PASSPHRASE);
  });

  it('refuses a short passphrase, names that are not backup names, and unknown jobs', async () => {
    expect(await json(s.api('/api/admin/backups', { method: 'POST', json: { passphrase: 'short' } }), 400)).toMatchObject({ error: 'invalid_request' });
    expect(await json(s.api('/api/admin/backups', { method: 'POST', json: { passphrase: PASSPHRASE, extra: 1 } }), 400)).toMatchObject({
      error: 'invalid_request',
    });
    fs.writeFileSync(path.join(s.dataDir, 'secret.hearth-backup'), 'not to be reached');
    for (const name of [
      '..%2Fplatform.db',
      '..%2Fsecret.hearth-backup',
      '.hearth-backup',
      'x.hearth-backup.partial-1-abcdef01',
      'platform.db',
      '%2Fetc%2Fpasswd',
    ]) {
      for (const method of ['GET', 'DELETE']) {
        const r = await s.api(`/api/admin/backups/${name}`, { method });
        expect([r.status, method, name]).toEqual([400, method, name]);
        expect((await r.json()).error).toBe('invalid_request');
      }
    }
    expect(fs.existsSync(path.join(s.dataDir, 'secret.hearth-backup'))).toBe(true);
    expect(await json(s.api('/api/admin/backups/jobs/nope'), 404)).toMatchObject({ error: 'not_found' });
  });

  it('answers 403 to every token that is not an administrator', async () => {
    const { token } = await json(s.api('/api/admin/tokens', { method: 'POST', json: { name: 'crm only', scope: 'namespaces', namespaces: ['crm'] } }), 201);
    const calls: Array<[string, string]> = [
      ['POST', '/api/admin/backups'],
      ['GET', '/api/admin/backups'],
      ['GET', '/api/admin/backups/jobs/x'],
      ['GET', '/api/admin/backups/hearth-20260101-000000-manual.hearth-backup'],
      ['DELETE', '/api/admin/backups/hearth-20260101-000000-manual.hearth-backup'],
    ];
    for (const [method, url] of calls) {
      const r = await s.api(url, { method, token, ...(method === 'POST' ? { json: {} } : {}) });
      expect([method, url, r.status, (await r.json()).error]).toEqual([method, url, 403, 'forbidden']);
      expect((await s.api(url, { method, token: null })).status).toBe(401);
    }
  });
});

describe('the backup schedule', () => {
  let t: TestServer;
  afterAll(async () => {
    await t?.stop();
  });

  it('fires on a running server, seals the secrets with HEARTH_BACKUP_PASSPHRASE and keeps the newest scheduled backups only', async () => {
    t = await startTestServer({ backupSchedule: '* * * * * *', backupKeep: 2, backupPassphrase: PASSPHRASE });
    // A scheduled backup may be running already (one fires every second): the manual one waits its turn.
    const manual = await until(async () => {
      const res = await t.api('/api/admin/backups', { method: 'POST' });
      if (res.status === 409) return (await res.json()).error === 'backup_running' ? null : Promise.reject(new Error('unexpected 409'));
      return json<{ job: BackupJob }>(Promise.resolve(res), 202);
    }, 'the manual backup to be accepted');
    const seen = new Set<string>();
    let last: BackupList | null = null;
    await until(
      async () => {
        last = await json<BackupList>(t.api('/api/admin/backups'), 200);
        for (const b of last.data) if (b.trigger === 'schedule' && b.status === 'complete') seen.add(b.name);
        return seen.size >= 4 && last.schedule.lastSuccess !== null;
      },
      () => `four scheduled backups (saw ${[...seen].join(', ')}; schedule ${JSON.stringify(last?.schedule)})`,
      60_000,
    );
    const list = await json<BackupList>(t.api('/api/admin/backups'), 200);
    const scheduled = list.data.filter((b) => b.trigger === 'schedule' && b.status === 'complete');
    expect(scheduled.length).toBeLessThanOrEqual(3); // two kept, and perhaps one finished since the last prune
    expect(scheduled.every((b) => b.secrets === 'encrypted' && /^hearth-\d{8}-\d{6}-schedule\.hearth-backup$/.test(b.name))).toBe(true);
    expect(list.data.some((b) => b.name === manual.job.name && b.status === 'complete')).toBe(true);
    expect(list.schedule).toMatchObject({ cron: '* * * * * *', keep: 2, passphraseSet: true, lastError: null });
    expect(Date.parse(list.schedule.nextRun!)).toBeGreaterThan(Date.parse(list.schedule.lastRun!));
    const health = await json(t.api('/healthz', { token: null }), 200);
    expect(health.backup.nextRun).not.toBeNull();
  });
});
