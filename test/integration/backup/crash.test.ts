/**
 * Crash safety of a backup, with a process of its own (backup-child.ts): killed with SIGKILL in the middle, and
 * running under a file size limit so that writing the backup really fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupPartials, createBackup, listBackups, verifyBackup } from '../../../server/core/backup/index.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { makeDataFolder } from './fixture.ts';

const CHILD = path.join(import.meta.dirname, 'backup-child.ts');
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  // A test that fails before it kills its child must not leave it holding its part forever (and vitest with it).
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A fixture data folder, and a child process backing it up into `<root>/backups/<name>`. */
function start(name: string, opts: { hold?: boolean; fileSizeLimitKiB?: number } = {}) {
  const root = tempDir('hearth-backup-child-');
  dirs.push(root);
  const fx = makeDataFolder(path.join(root, 'data'));
  const backups = path.join(root, 'backups');
  const out = path.join(backups, name);
  const argv = [CHILD, JSON.stringify({ dataDir: fx.dataDir, namespaces: fx.namespaces, attachment: fx.attachment, out, hold: opts.hold })];
  // dash (/bin/sh) counts `ulimit -f` in 512-byte blocks.
  const child =
    opts.fileSizeLimitKiB === undefined
      ? spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn('/bin/sh', ['-c', `ulimit -f ${opts.fileSizeLimitKiB * 2} && exec "$0" "$@"`, process.execPath, ...argv], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
  children.push(child);
  const events: Array<Record<string, unknown>> = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) events.push(JSON.parse(l));
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { fx, backups, out, child, events, exited };
}

describe('backup crash safety', () => {
  it('kill -9 in the middle leaves no file under the final name and no lock; the leftovers are cleaned and the next backup works', async () => {
    const { fx, backups, out, child, events, exited } = start('nightly.hearth-backup', { hold: true });
    // The held part's snapshot starts while the parts before it are still written (one ahead): wait until they are in.
    const partialSize = () => {
      const [name] = fs.readdirSync(backups);
      return name ? fs.statSync(path.join(backups, name)).size : 0;
    };
    await until(() => events.some((e) => e.event === 'holding') && partialSize() > 300_000, 'the child to hold its last part, the others written');
    const [partial] = fs.readdirSync(backups);
    expect(partial).toMatch(new RegExp(`^nightly\\.hearth-backup\\.partial-${child.pid}-[0-9a-f]{8}$`));
    expect(fs.statSync(path.join(backups, partial!)).size).toBeGreaterThan(300_000); // the databases and the attachment are in
    expect(fs.readdirSync(fx.tmpDir)).toHaveLength(1); // the held part's snapshot copy

    // While the writer lives, its files are not stale.
    expect((await listBackups(backups)).map((b) => b.status)).toEqual(['writing']);
    expect(cleanupPartials(backups, { tmpDir: fx.tmpDir })).toEqual([]);

    child.kill('SIGKILL');
    await exited;
    expect(fs.existsSync(out)).toBe(false);
    expect((await listBackups(backups)).map((b) => [b.name, b.status])).toEqual([[partial, 'stale']]);
    const [copy] = fs.readdirSync(fx.tmpDir);
    expect(cleanupPartials(backups, { tmpDir: fx.tmpDir }).sort()).toEqual([path.join(backups, partial!), path.join(fx.tmpDir, copy!)].sort());
    expect(fs.readdirSync(backups)).toEqual([]);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);

    // Nothing left behind stops the next run.
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' });
    expect((await verifyBackup(out)).ok).toBe(true);
  });

  it('a write error (a file size limit: EFBIG) fails the backup with a clear error and leaves no partial file', async () => {
    // 200 KiB: the databases fit, the 300 KB attachment does not.
    const { fx, backups, events, exited } = start('big.hearth-backup', { fileSizeLimitKiB: 200 });
    expect(await exited).toBe(0);
    expect(events.at(-1)).toEqual({
      event: 'error',
      code: 'backup_failed',
      message: `the file system refuses a file this large while writing mail-attachments/${fx.attachment} (FAT32 holds at most 4 GiB per file); the partial backup was removed`,
    });
    expect(events.some((e) => e.step === 'archive' && e.part === 'platform.db')).toBe(true);
    expect(fs.readdirSync(backups)).toEqual([]);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);
  });
});
