/**
 * Backups across a server's life: a server killed with SIGKILL in the middle of a backup leaves no file under the
 * final name, the next server on the folder removes the leftovers and backs up again; a backup from an older Hearth
 * (its platform.db lacks the newest migration) is restored and migrated forward on start; one from a newer Hearth is
 * refused with a clear message. Those versions are platform.db's migrations: that test's servers keep their core store
 * in platform.db under either HEARTH_TEST_STORE (store: 'sqlite'); a backup made on PostgreSQL holds no core store.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allMigrations } from '../../../server/boot.ts';
import { type BackupPart, createBackup, sqliteFileSnapshot, verifyBackup } from '../../../server/core/backup/index.ts';
import { Database } from '../../../server/core/storage/sqlite.ts';
import { runCli } from '../../helpers/cli.ts';
import { multipart, startTestServer, tempDir } from '../../helpers/server.ts';
import { startServerProcess } from '../../helpers/server-process.ts';
import { until } from '../../helpers/wait.ts';

let root: string;
beforeAll(() => {
  root = tempDir('hearth-backup-life-');
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const hearth = (args: string[]) => runCli(args, { cwd: root, env: { HEARTH_CONFIG_DIR: path.join(root, 'config') } });

describe('a server killed during a backup', () => {
  it('leaves no backup under the final name; the next server cleans up and backs up', async () => {
    // A namespace of about 48 MB, so that the backup is still writing when the server is killed.
    const big = path.join(root, 'big.db');
    const db = new Database(big);
    db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, b BLOB)');
    db.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500) INSERT INTO blobs (b) SELECT randomblob(32768) FROM n');
    db.close();
    const dataDir = path.join(root, 'data');
    const first = await startServerProcess({ dataDir });
    expect((await first.api('/v1/namespaces', { method: 'POST', json: { name: 'big' } })).status).toBe(201);
    const form = multipart([{ name: 'file', filename: 'big.db', data: fs.readFileSync(big) }]);
    const imported = await first.api('/v1/namespaces/big/import', { method: 'POST', body: form.body, headers: { 'content-type': form.contentType } });
    expect(imported.status, await imported.text()).toBe(200);

    const backups = path.join(dataDir, 'backups');
    const started = await first.api('/api/admin/backups', { method: 'POST', json: {} });
    expect(started.status).toBe(202);
    const { job } = (await started.json()) as { job: { name: string } };
    const partial = await until(() => fs.existsSync(backups) && fs.readdirSync(backups).find((n) => n.includes('.partial-')), 'the partial backup file');
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    expect(fs.readdirSync(backups)).toEqual([partial]); // the backup never appeared under its final name
    expect(partial.startsWith(`${job.name}.partial-${first.proc.pid}-`)).toBe(true);

    const second = await startServerProcess({ dataDir });
    try {
      expect(fs.readdirSync(backups)).toEqual([]); // removed at start: its writer is gone
      const next = await second.api('/api/admin/backups', { method: 'POST', json: {} });
      expect(next.status).toBe(202);
      const { job: again } = (await next.json()) as { job: { id: string; name: string } };
      const done = await until(async () => {
        const j = (await (await second.api(`/api/admin/backups/jobs/${again.id}`)).json()) as { state: string };
        return j.state !== 'running' && j;
      }, 'the next backup to end');
      expect(done).toMatchObject({ state: 'complete' });
      expect(fs.readdirSync(backups)).toEqual([again.name]);
      expect((await verifyBackup(path.join(backups, again.name))).ok).toBe(true);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

/** A stopped server's data folder backed up as the server would (platform.db, namespaces, secrets), by the engine. */
async function backupOf(dataDir: string, out: string): Promise<void> {
  const files = (dir: string) => fs.readdirSync(path.join(dataDir, dir)).filter((n) => /^[0-9a-f-]{36}\.db$|^[a-z0-9-]+$/.test(n));
  const parts: BackupPart[] = [
    { kind: 'sqlite', name: 'platform.db', snapshot: sqliteFileSnapshot(path.join(dataDir, 'platform.db')) },
    ...files('namespaces').map(
      (n): BackupPart => ({ kind: 'sqlite', name: `namespaces/${n}`, snapshot: sqliteFileSnapshot(path.join(dataDir, 'namespaces', n)) }),
    ),
    ...files('secrets').map((n): BackupPart => ({ kind: 'file', name: `secrets/${n}`, path: path.join(dataDir, 'secrets', n), secret: true })),
  ];
  await createBackup({ parts, out, tmpDir: path.join(dataDir, 'tmp'), passphrase: 'old passphrase', hearthVersion: '0.0.9' });
}

describe('backups of other Hearth versions', () => {
  it('an older one is restored and migrated forward on start; a newer one is refused with a clear message', async () => {
    const newest = allMigrations.at(-1)!.id;
    expect(newest).toBe('mail-006-profile-last-test'); // what "older" undoes below
    const old = await startTestServer({ store: 'sqlite' });
    expect((await old.api('/v1/namespaces', { method: 'POST', json: { name: 'kept' } })).status).toBe(201);
    await old.close();
    // The folder as the previous Hearth left it: without the newest migration and what it added.
    const platform = new Database(path.join(old.dataDir, 'platform.db'));
    for (const c of ['last_test_detail', 'last_test_summary', 'last_test_code', 'last_test_ok', 'last_test_at'])
      platform.exec(`ALTER TABLE mail_profiles DROP COLUMN ${c}`);
    platform.prepare('DELETE FROM schema_migrations WHERE id = ?').run(newest);
    platform.close();
    const older = path.join(root, 'older.hearth-backup');
    await backupOf(old.dataDir, older);

    const target = path.join(root, 'from-older');
    const restored = await runCli(['backup', 'restore', older, '--data', target, '--passphrase-stdin'], { cwd: root, input: 'old passphrase\n' });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('1 namespace(s)');
    const s = await startTestServer({ store: 'sqlite', dataDir: target });
    try {
      expect((await s.api('/v1/namespaces/kept')).status).toBe(200);
      expect(s.services.platformDb.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').pluck().get(newest)).toBe(1);
      const columns = s.services.platformDb.prepare("SELECT name FROM pragma_table_info('mail_profiles')").pluck().all();
      expect(columns).toContain('last_test_at');
    } finally {
      await s.stop();
    }

    // A newer Hearth's backup: a migration this one does not know.
    const platform2 = new Database(path.join(old.dataDir, 'platform.db'));
    platform2.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)').run('mail-999-from-the-future', new Date().toISOString());
    platform2.close();
    const newer = path.join(root, 'newer.hearth-backup');
    await backupOf(old.dataDir, newer);
    const refused = await hearth(['backup', 'restore', newer, '--data', path.join(root, 'from-newer'), '--without-secrets']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'this backup was made by a newer Hearth (0.0.9); upgrade Hearth to restore it (unknown migrations: mail-999-from-the-future)',
    );
    expect(refused.stderr).toContain('[backup_too_new]');
    expect(fs.existsSync(path.join(root, 'from-newer'))).toBe(false);
    fs.rmSync(old.dataDir, { recursive: true, force: true });
  }, 120_000);
});
