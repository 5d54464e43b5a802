/**
 * The backups folder: listing (from each file's manifest, without reading the data) and keeping the newest N.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackupPart, backupFileName, createBackup, listBackups, pruneBackups } from '../../../server/core/backup/index.ts';
import { tempDir } from '../../helpers/server.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A folder with one small file to back up, and a backups folder. */
function setup() {
  const root = tempDir('hearth-backup-catalog-');
  dirs.push(root);
  const note = path.join(root, 'note.txt');
  fs.writeFileSync(note, 'hello');
  const parts: BackupPart[] = [{ kind: 'file', name: 'note.txt', path: note, secret: false }];
  const tmpDir = path.join(root, 'tmp');
  const backups = path.join(root, 'backups');
  const make = (iso: string, passphrase?: string) =>
    createBackup({ parts, out: path.join(backups, backupFileName(new Date(iso))), tmpDir, hearthVersion: '1.4.0', now: new Date(iso), passphrase });
  return { root, backups, make };
}

describe('listBackups and pruneBackups', () => {
  it('lists backups newest first with size, time and status; damaged and partial files are told apart', async () => {
    const { backups, make } = setup();
    expect(await listBackups(backups)).toEqual([]); // no folder yet
    await make('2026-11-01T03:00:00.000Z');
    await make('2026-11-03T03:00:00.000Z', 'pass phrase');
    await make('2026-11-02T03:00:00.000Z');
    fs.writeFileSync(path.join(backups, 'copied-by-hand.hearth-backup'), 'not a tar at all'.repeat(100));
    fs.writeFileSync(path.join(backups, 'notes.txt'), 'not a backup');
    fs.utimesSync(path.join(backups, 'copied-by-hand.hearth-backup'), new Date('2026-10-01T00:00:00Z'), new Date('2026-10-01T00:00:00Z'));

    const list = await listBackups(backups);
    expect(list.map((b) => [b.name, b.status, b.createdAt.toISOString(), b.secrets ?? null])).toEqual([
      ['hearth-2026-11-03T030000.000Z.hearth-backup', 'complete', '2026-11-03T03:00:00.000Z', 'encrypted'],
      ['hearth-2026-11-02T030000.000Z.hearth-backup', 'complete', '2026-11-02T03:00:00.000Z', 'omitted'],
      ['hearth-2026-11-01T030000.000Z.hearth-backup', 'complete', '2026-11-01T03:00:00.000Z', 'omitted'],
      ['copied-by-hand.hearth-backup', 'damaged', '2026-10-01T00:00:00.000Z', null],
    ]);
    expect(list[0]!.size).toBe(fs.statSync(list[0]!.file).size);
    expect(list[0]!.hearthVersion).toBe('1.4.0');
    expect(list[3]!.problem).toContain('the backup is damaged or not a Hearth backup');
  });

  it('pruneBackups keeps the newest N complete backups and removes older ones, damaged ones included', async () => {
    const { backups, make } = setup();
    for (const day of ['01', '02', '03', '04', '05']) await make(`2026-11-${day}T03:00:00.000Z`);
    const damagedOld = path.join(backups, 'old-damaged.hearth-backup');
    const damagedNew = path.join(backups, 'new-damaged.hearth-backup');
    const partial = path.join(backups, `x.hearth-backup.partial-${process.pid}-0123abcd`);
    for (const f of [damagedOld, damagedNew, partial]) fs.writeFileSync(f, 'junk');
    fs.utimesSync(damagedOld, new Date('2026-10-01T00:00:00Z'), new Date('2026-10-01T00:00:00Z'));
    fs.utimesSync(damagedNew, new Date('2026-12-01T00:00:00Z'), new Date('2026-12-01T00:00:00Z'));

    const { kept, removed } = await pruneBackups(backups, 2);
    expect(kept.map((f) => path.basename(f))).toEqual(['hearth-2026-11-05T030000.000Z.hearth-backup', 'hearth-2026-11-04T030000.000Z.hearth-backup']);
    expect(removed.map((f) => path.basename(f)).sort()).toEqual([
      'hearth-2026-11-01T030000.000Z.hearth-backup',
      'hearth-2026-11-02T030000.000Z.hearth-backup',
      'hearth-2026-11-03T030000.000Z.hearth-backup',
      'old-damaged.hearth-backup',
    ]);
    expect(fs.readdirSync(backups).sort()).toEqual(
      [
        'hearth-2026-11-04T030000.000Z.hearth-backup',
        'hearth-2026-11-05T030000.000Z.hearth-backup',
        'new-damaged.hearth-backup',
        path.basename(partial),
      ].sort(),
    );
    // Fewer complete backups than asked for: nothing goes.
    expect((await pruneBackups(backups, 5)).removed).toEqual([]);
    await expect(pruneBackups(backups, 0)).rejects.toMatchObject({ code: 'invalid_value' });
  });
});
