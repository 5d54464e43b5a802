/**
 * The backup engine end to end on real files: create → verify → restore, with real SQLite databases (one written to
 * while its snapshot runs), real Argon2id and AES-256-GCM, and damaged files made by flipping real bytes.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BackupPart,
  type BackupProgress,
  createBackup,
  readBackupManifest,
  restoreBackup,
  sqliteFileSnapshot,
  verifyBackup,
} from '../../../server/core/backup/index.ts';
import { HearthError } from '../../../server/core/http/errors.ts';
import { Database } from '../../../server/core/storage/sqlite.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { dataOffset, dumpRows, type Fixture, MIGRATIONS, makeDataFolder, modes } from './fixture.ts';

const PASSPHRASE = 'correct horse battery staple';
const KNOWN = [...MIGRATIONS, 'mail-002-lanes']; // this Hearth knows one migration more than the backup's
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(opts: { migrations?: string[] } = {}): { root: string; fx: Fixture; out: string } {
  const root = tempDir('hearth-backup-');
  dirs.push(root);
  const fx = makeDataFolder(path.join(root, 'data'), opts);
  return { root, fx, out: path.join(root, 'backups', 'one.hearth-backup') };
}

async function rejection(p: Promise<unknown>): Promise<HearthError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HearthError);
  return err as HearthError;
}

const SQLITE_FILES = (fx: Fixture) => ['platform.db', ...fx.namespaces.map((n) => `namespaces/${n.fileId}.db`)];
const PLAIN_FILES = (fx: Fixture) => [`mail-attachments/${fx.attachment}`];
const SECRET_FILES = ['secrets/app-secret', 'secrets/kek-check', 'tls/web/key.pem', 'tls/web/cert.pem'];

describe('backup round trip', () => {
  it('create → verify → restore gives the same rows and files, 0700/0600, and a manifest that describes them', async () => {
    const { root, fx, out } = setup();
    const steps = new Set<string>();
    const result = await createBackup({
      parts: fx.parts(),
      out,
      tmpDir: fx.tmpDir,
      passphrase: PASSPHRASE,
      hearthVersion: '1.4.0',
      kekFingerprint: '0123456789abcdef',
      now: new Date('2026-11-26T03:00:00.000Z'),
      onProgress: (p) => steps.add(`${p.step}:${p.part ?? ''}`),
    });
    expect(result.file).toBe(out);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['one.hearth-backup']);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]); // every snapshot copy deleted
    expect(steps).toContain('snapshot:platform.db');
    expect(steps).toContain(`archive:mail-attachments/${fx.attachment}`);
    expect(steps).toContain('secrets:');

    const m = await readBackupManifest(out);
    expect(m).toEqual(result.manifest);
    expect(m).toMatchObject({
      format: 'hearth-backup',
      version: 1,
      hearthVersion: '1.4.0',
      createdAt: '2026-11-26T03:00:00.000Z',
      schema: {
        core: ['core-001-tokens-audit'],
        db: ['db-001-namespaces'],
        identity: ['identity-001-accounts', 'identity-002-keys'],
        mail: ['mail-001-profiles'],
      },
      secrets: 'encrypted',
      secretFiles: SECRET_FILES,
      kekFingerprint: '0123456789abcdef',
      vanished: [],
    });
    expect(m.entries.map((e) => e.name)).toEqual([...SQLITE_FILES(fx), ...PLAIN_FILES(fx), 'secrets.enc']);
    expect(m.entries.find((e) => e.name === `namespaces/${fx.namespaces[1]!.fileId}.db`)?.meta).toEqual({
      namespace: 'inventory',
      fileId: fx.namespaces[1]!.fileId,
    });
    expect(m.encryption?.kdf).toMatchObject({ name: 'argon2id', version: 19, memoryKiB: 65536, passes: 3, parallelism: 4 });
    // No secret in the clear anywhere in the file.
    const bytes = fs.readFileSync(out);
    expect(bytes.includes(fx.secretValue)).toBe(false);
    expect(bytes.includes('BEGIN PRIVATE KEY')).toBe(false);

    const report = await verifyBackup(out, { passphrase: PASSPHRASE, tmpDir: fx.tmpDir });
    expect(report).toMatchObject({ ok: true, problems: [], secrets: 'verified', checked: { entries: 5, sqlite: 3 } });
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);

    const target = path.join(root, 'restored');
    const restored = await restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: PASSPHRASE, kekFingerprint: '0123456789abcdef' });
    expect(restored).toMatchObject({ secrets: 'restored', missing: [], warnings: [], replaced: false, kekFingerprint: '0123456789abcdef' });
    expect(restored.restored.sort()).toEqual([...SQLITE_FILES(fx), ...PLAIN_FILES(fx), ...SECRET_FILES].sort());
    expect(fs.readdirSync(target).sort()).toEqual(['mail-attachments', 'namespaces', 'platform.db', 'secrets', 'tls']);
    for (const f of SQLITE_FILES(fx)) expect(dumpRows(path.join(target, f))).toEqual(dumpRows(path.join(fx.dataDir, f)));
    for (const f of [...PLAIN_FILES(fx), ...SECRET_FILES]) expect(fs.readFileSync(path.join(target, f))).toEqual(fs.readFileSync(path.join(fx.dataDir, f)));
    for (const [rel, mode] of Object.entries(modes(target))) {
      const isDir = rel === '.' || fs.statSync(path.join(target, rel)).isDirectory();
      expect(`${rel} ${mode}`).toBe(`${rel} ${isDir ? '700' : '600'}`);
    }
  });

  it('without a passphrase the secrets are left out, the manifest says so and names them, and a restore reports them missing', async () => {
    const { root, fx, out } = setup();
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' });
    const m = await readBackupManifest(out);
    expect(m).toMatchObject({ secrets: 'omitted', secretFiles: SECRET_FILES, encryption: null, kekFingerprint: null });
    expect(m.entries.map((e) => e.name)).not.toContain('secrets.enc');
    const bytes = fs.readFileSync(out);
    expect(bytes.includes(fx.secretValue)).toBe(false);
    expect(bytes.includes('secrets/app-secret\0')).toBe(false); // no entry of that name, only the manifest's mention

    expect(await verifyBackup(out, { passphrase: PASSPHRASE })).toMatchObject({ ok: true, secrets: 'omitted' });
    const target = path.join(root, 'restored');
    const r = await restoreBackup(out, { dataDir: target, knownMigrations: KNOWN });
    expect(r).toMatchObject({ secrets: 'omitted', missing: SECRET_FILES });
    expect(fs.existsSync(path.join(target, 'secrets'))).toBe(false);
    expect(dumpRows(path.join(target, 'platform.db'))).toEqual(dumpRows(path.join(fx.dataDir, 'platform.db')));
  });
});

describe('the container', () => {
  it('is a tar that GNU tar extracts: long names (ustar prefix, pax path), sizes and bytes as written, and verify reads it too', async () => {
    const { root, fx, out } = setup();
    const long = `${'d'.repeat(90)}/${'f'.repeat(99)}`; // 190 characters: ustar's prefix and name
    const longer = 'p'.repeat(200); // no '/' to split at: a pax path
    const files = { [long]: crypto.randomBytes(1000), [longer]: crypto.randomBytes(512), 'empty.bin': Buffer.alloc(0) };
    const parts: BackupPart[] = Object.entries(files).map(([name, bytes], i) => {
      const file = path.join(root, `src-${i}`);
      fs.writeFileSync(file, bytes);
      return { kind: 'file', name, path: file, secret: false };
    });
    parts.push(...fx.parts().filter((p) => p.kind === 'sqlite'));
    await createBackup({ parts, out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' });
    expect(await verifyBackup(out)).toMatchObject({ ok: true });

    const listed = execFileSync('tar', ['-tf', out], { encoding: 'utf8' }).trim().split('\n');
    expect(listed).toEqual([...Object.keys(files), ...SQLITE_FILES(fx), 'manifest.json']);
    const into = path.join(root, 'extracted');
    fs.mkdirSync(into);
    execFileSync('tar', ['-xf', out, '-C', into]);
    for (const [name, bytes] of Object.entries(files)) expect(fs.readFileSync(path.join(into, name)).equals(bytes)).toBe(true);
    const platform = new Database(path.join(into, 'platform.db'), { readonly: true });
    expect(platform.prepare('SELECT count(*) FROM accounts').pluck().get()).toBe(50);
    platform.close();
  });
});

describe('a backup while writes continue', () => {
  it('copies one consistent snapshot of a WAL database that is written to during its copy', async () => {
    const { root, fx, out } = setup();
    const file = path.join(fx.dataDir, 'busy.db');
    const writer = new Database(file);
    writer.pragma('journal_mode = WAL');
    writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, x BLOB); CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0)');
    const insert = writer.prepare('INSERT INTO t (x) VALUES (randomblob(1000))');
    const bump = writer.prepare('UPDATE counter SET n = n + 1');
    const write = writer.transaction(() => {
      insert.run();
      bump.run();
    });
    writer.transaction(() => {
      for (let i = 0; i < 6000; i++) write();
    })();

    // One transaction (a row and its count) per event-loop turn, for as long as the backup runs.
    let written = 0;
    let writing = true;
    let duringSnapshot = 0;
    let snapshotting = false;
    const loop = () => {
      if (!writing) return;
      write();
      written++;
      if (snapshotting) duringSnapshot++;
      setImmediate(loop);
    };
    loop();
    try {
      await createBackup({
        parts: [{ kind: 'sqlite', name: 'busy.db', snapshot: sqliteFileSnapshot(file) }],
        out,
        tmpDir: fx.tmpDir,
        hearthVersion: '1.4.0',
        onProgress: (p) => {
          snapshotting = p.step === 'snapshot';
        },
      });
    } finally {
      writing = false;
    }
    const after = writer.prepare('SELECT count(*) FROM t').pluck().get() as number;
    writer.close();
    expect(duringSnapshot).toBeGreaterThan(20); // the writes really ran between the copy's steps

    const target = path.join(root, 'restored');
    await restoreBackup(out, { dataDir: target, knownMigrations: KNOWN });
    const copy = new Database(path.join(target, 'busy.db'), { readonly: true });
    expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
    const rows = copy.prepare('SELECT count(*) FROM t').pluck().get() as number;
    expect(copy.prepare('SELECT n FROM counter').pluck().get()).toBe(rows); // no half transaction
    expect(rows).toBeGreaterThanOrEqual(6000);
    expect(rows).toBeLessThan(after);
    copy.close();
    expect(written).toBe(after - 6000);
  });
});

describe('passphrases', () => {
  it('a wrong passphrase is refused as such, apart from damage; no passphrase needs withoutSecrets', async () => {
    const { root, fx, out } = setup();
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, passphrase: PASSPHRASE, hearthVersion: '1.4.0' });

    const report = await verifyBackup(out, { passphrase: 'correct horse battery stapler' });
    expect(report.ok).toBe(false);
    expect(report.secrets).toBe('wrong_passphrase');
    expect(report.problems).toEqual(['secrets.enc: wrong passphrase (the entry is intact; it was sealed with another passphrase)']);
    expect(await verifyBackup(out)).toMatchObject({ ok: true, secrets: 'not_checked' });

    const target = path.join(root, 'restored');
    const wrong = await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: 'nope' }));
    expect(wrong).toMatchObject({ code: 'wrong_passphrase', status: 400 });
    expect(wrong.message).toMatch(/^wrong passphrase/);
    expect(fs.existsSync(target)).toBe(false);

    const none = await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN }));
    expect(none.code).toBe('passphrase_required');
    expect(none.message).toContain('secrets/app-secret');
    expect(fs.existsSync(target)).toBe(false);

    const without = await restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, withoutSecrets: true });
    expect(without).toMatchObject({ secrets: 'skipped', missing: SECRET_FILES });
    expect(fs.existsSync(path.join(target, 'secrets'))).toBe(false);
    expect(fs.existsSync(path.join(target, 'platform.db'))).toBe(true);
  });
});

describe('damage', () => {
  it('a flipped byte in a namespace fails verify naming that entry, and restore refuses the backup', async () => {
    const { root, fx, out } = setup();
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, passphrase: PASSPHRASE, hearthVersion: '1.4.0' });
    const name = `namespaces/${fx.namespaces[0]!.fileId}.db`;
    const fd = fs.openSync(out, 'r+');
    const at = dataOffset(out, name) + 5000;
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, at);
    fs.writeSync(fd, Buffer.from([b[0]! ^ 0x40]), 0, 1, at);
    fs.closeSync(fd);

    const report = await verifyBackup(out, { passphrase: PASSPHRASE });
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([`${name}: its SHA-256 does not match the manifest (the entry is damaged)`]);
    expect(report.secrets).toBe('verified'); // damage elsewhere is not a passphrase problem

    const target = path.join(root, 'restored');
    const err = await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: PASSPHRASE }));
    expect(err.code).toBe('backup_invalid');
    expect(err.message).toContain(name);
    expect(fs.readdirSync(target)).toEqual([]); // the staging folder is gone
  });

  it('a flipped byte in secrets.enc, the manifest or a header is damage, reported as such', async () => {
    const { fx, out } = setup();
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, passphrase: PASSPHRASE, hearthVersion: '1.4.0' });
    const pristine = fs.readFileSync(out);
    const flipped = (at: number) => {
      const copy = Buffer.from(pristine);
      copy[at]! ^= 0x01;
      fs.writeFileSync(out, copy);
    };

    flipped(dataOffset(out, 'secrets.enc') + 3);
    let report = await verifyBackup(out, { passphrase: PASSPHRASE });
    expect(report.problems).toEqual(['secrets.enc: its SHA-256 does not match the manifest (the entry is damaged)']);
    expect(report.secrets).toBe('damaged');

    fs.writeFileSync(out, pristine);
    const manifestAt = dataOffset(out, 'manifest.json');
    flipped(manifestAt + pristine.subarray(manifestAt).indexOf('"hearthVersion": "1.4.0"') + 20);
    report = await verifyBackup(out);
    expect(report.problems).toEqual(["the manifest does not match its own checksum (the backup's manifest is damaged)"]);
    expect(report.manifest).toBeNull();

    fs.writeFileSync(out, pristine);
    const attachmentHeader = dataOffset(out, `mail-attachments/${fx.attachment}`) - 512;
    flipped(attachmentHeader + 130); // inside the size field
    report = await verifyBackup(out);
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toContain(`after the entry namespaces/${fx.namespaces[1]!.fileId}.db`);

    fs.writeFileSync(out, pristine.subarray(0, pristine.length - 3000)); // truncated: the manifest is gone
    report = await verifyBackup(out);
    expect(report.problems[0]).toMatch(/truncated|does not end with manifest.json/);
  });
});

describe('restore targets and versions', () => {
  it('refuses a non-empty folder; with force replaces its contents; a failed forced restore leaves it as it was', async () => {
    const { fx, out } = setup();
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, passphrase: PASSPHRASE, hearthVersion: '1.4.0' });
    const target = path.join(path.dirname(fx.dataDir), 'occupied');
    fs.mkdirSync(path.join(target, 'namespaces'), { recursive: true });
    fs.writeFileSync(path.join(target, 'platform.db'), 'old platform');
    fs.writeFileSync(path.join(target, 'namespaces', 'old.db'), 'old namespace');

    const refused = await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: PASSPHRASE }));
    expect(refused).toMatchObject({ code: 'target_not_empty', status: 409 });
    expect(refused.message).toContain('namespaces, platform.db');
    expect(fs.readFileSync(path.join(target, 'platform.db'), 'utf8')).toBe('old platform');

    // A damaged backup with force: the old contents stay exactly as they were.
    const pristine = fs.readFileSync(out);
    const damaged = Buffer.from(pristine);
    damaged[dataOffset(out, `mail-attachments/${fx.attachment}`) + 10]! ^= 0xff;
    fs.writeFileSync(out, damaged);
    expect((await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: PASSPHRASE, force: true }))).code).toBe('backup_invalid');
    expect(fs.readdirSync(target).sort()).toEqual(['namespaces', 'platform.db']);
    expect(fs.readFileSync(path.join(target, 'namespaces', 'old.db'), 'utf8')).toBe('old namespace');

    fs.writeFileSync(out, pristine);
    const r = await restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, passphrase: PASSPHRASE, force: true });
    expect(r.replaced).toBe(true);
    expect(fs.readdirSync(target).sort()).toEqual(['mail-attachments', 'namespaces', 'platform.db', 'secrets', 'tls']);
    expect(fs.existsSync(path.join(target, 'namespaces', 'old.db'))).toBe(false);
    expect(dumpRows(path.join(target, 'platform.db'))).toEqual(dumpRows(path.join(fx.dataDir, 'platform.db')));
    expect(fs.statSync(target).mode & 0o777).toBe(0o700);
  });

  it('refuses a backup made by a newer Hearth (a migration this one does not know); an older one restores', async () => {
    const { root, fx, out } = setup({ migrations: [...MIGRATIONS, 'mail-002-lanes', 'mail-003-future-thing'] });
    await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, hearthVersion: '2.0.0' });
    const target = path.join(root, 'restored');
    const err = await rejection(restoreBackup(out, { dataDir: target, knownMigrations: KNOWN, withoutSecrets: true }));
    expect(err).toMatchObject({ code: 'backup_too_new', status: 409 });
    expect(err.message).toBe('this backup was made by a newer Hearth (2.0.0); upgrade Hearth to restore it (unknown migrations: mail-003-future-thing)');
    expect(fs.existsSync(target)).toBe(false);

    const ok = await restoreBackup(out, { dataDir: target, knownMigrations: [...KNOWN, 'mail-003-future-thing', 'mail-004-later'] });
    expect(ok.manifest.schema.mail).toEqual(['mail-001-profiles', 'mail-002-lanes', 'mail-003-future-thing']);
  });
});

describe('a failing part', () => {
  it('a snapshot that throws midway leaves no partial file, no final file and no temporary copy', async () => {
    const { fx, out } = setup();
    const parts = fx.parts();
    parts.splice(2, 0, {
      kind: 'sqlite',
      name: 'namespaces/broken.db',
      snapshot: async (dest) => {
        fs.writeFileSync(dest, Buffer.alloc(100_000, 7)); // half a copy, then the owner fails
        throw new Error('the namespace is being replaced');
      },
    });
    const err = await rejection(createBackup({ parts, out, tmpDir: fx.tmpDir, passphrase: PASSPHRASE, hearthVersion: '1.4.0' }));
    expect(err).toMatchObject({ code: 'backup_failed', status: 500 });
    expect(err.message).toBe(
      'the backup failed while copying a snapshot of namespaces/broken.db: the namespace is being replaced; the partial backup was removed',
    );
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);

    // A missing file that is not optional fails too; an optional one is listed as vanished.
    fs.rmSync(path.join(fx.dataDir, 'mail-attachments', fx.attachment));
    const strict = fx.parts().map((p) => (p.kind === 'file' ? { ...p, optional: false } : p));
    expect((await rejection(createBackup({ parts: strict, out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' }))).message).toContain(
      `while writing mail-attachments/${fx.attachment}: ENOENT`,
    );
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    const r = await createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' });
    expect(r.manifest.vanished).toEqual([`mail-attachments/${fx.attachment}`]);
  });

  it('a cancelled backup (shutdown) fails as cancelled and leaves nothing', async () => {
    const { fx, out } = setup();
    const stop = new AbortController();
    const err = await rejection(
      createBackup({
        parts: fx.parts(),
        out,
        tmpDir: fx.tmpDir,
        hearthVersion: '1.4.0',
        signal: stop.signal,
        onProgress: (p) => {
          if (p.part === `namespaces/${fx.namespaces[0]!.fileId}.db`) stop.abort();
        },
      }),
    );
    expect(err.code).toBe('backup_failed');
    expect(err.message).toMatch(/^the backup was cancelled while (copying a snapshot of|writing) namespaces\//);
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);
  });

  it("takes the next database's snapshot while the previous one is appended, and leaves no copy of it behind when the backup fails meanwhile", async () => {
    const { fx, out } = setup();
    const platform = sqliteFileSnapshot(path.join(fx.dataDir, 'platform.db'));
    const appended = new Set<string>();
    const startedWhile: Record<string, number> = {};
    const copies: Record<string, string> = {};
    const stop = new AbortController();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let lateWritten!: () => void;
    const late = new Promise<void>((r) => {
      lateWritten = r;
    });
    const part = (name: string, slow = false): BackupPart => ({
      kind: 'sqlite',
      name,
      snapshot: async (dest, onProgress) => {
        copies[name] = dest;
        startedWhile[name] = appended.size; // how many parts were fully appended when this snapshot began
        const answer = await platform(dest, onProgress);
        if (slow) {
          await gate; // still copying when the backup fails
          fs.writeFileSync(`${dest}-journal`, 'late');
          lateWritten();
        }
        return answer;
      },
    });
    const onProgress = (p: BackupProgress) => {
      if (p.step === 'archive' && p.done === p.total && p.part) appended.add(p.part);
    };
    await createBackup({ parts: [part('a.db'), part('b.db'), part('c.db')], out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0', onProgress });
    // b's snapshot began before a was appended, c's before b was.
    expect(startedWhile).toEqual({ 'a.db': 0, 'b.db': 0, 'c.db': 1 });
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]);

    fs.rmSync(out);
    const failed = createBackup({
      parts: [part('a.db'), part('b.db', true)],
      out,
      tmpDir: fx.tmpDir,
      hearthVersion: '1.4.0',
      signal: stop.signal,
      onProgress: (p) => {
        if (p.part === 'a.db' && p.step === 'archive' && !stop.signal.aborted) stop.abort();
      },
    });
    // b's snapshot ends (with a late write beside its copy) only once the failed backup has cleaned a's copy up.
    void until(() => stop.signal.aborted && !fs.existsSync(copies['a.db']!), "a's copy removed").then(release);
    const err = await rejection(failed);
    await late;
    expect(err.message).toMatch(/^the backup was cancelled while writing a\.db/);
    expect(fs.readdirSync(path.dirname(out))).toEqual([]);
    expect(fs.readdirSync(fx.tmpDir)).toEqual([]); // b's late write came before its copy was removed
  });

  it('refuses a second backup while one runs, and an existing file at the final name', async () => {
    const { fx, out } = setup();
    let release!: () => void;
    let started!: () => void;
    const isStarted = new Promise<void>((r) => {
      started = r;
    });
    const first = createBackup({
      parts: [
        {
          kind: 'sqlite',
          name: 'slow.db',
          snapshot: async (dest, onProgress) => {
            started();
            await new Promise<void>((r) => {
              release = r;
            });
            await sqliteFileSnapshot(path.join(fx.dataDir, 'platform.db'))(dest, onProgress);
          },
        },
      ],
      out,
      tmpDir: fx.tmpDir,
      hearthVersion: '1.4.0',
    });
    await isStarted;
    const second = await rejection(createBackup({ parts: fx.parts(), out: `${out}.2`, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' }));
    expect(second).toMatchObject({ code: 'backup_running', status: 409 });
    release();
    await first;
    const again = await rejection(createBackup({ parts: fx.parts(), out, tmpDir: fx.tmpDir, hearthVersion: '1.4.0' }));
    expect(again).toMatchObject({ code: 'conflict', message: `a file already exists at ${out}` });
    expect(fs.readdirSync(path.dirname(out))).toEqual(['one.hearth-backup']);
  });
});
