/**
 * The desktop menu's "Back up now…" under Node: electron/backup.ts against the real server entry started by the
 * supervisor (`child_process.fork`, as in supervisor.test.ts), with stand-ins for the dialogs and the window's
 * progress bar; and the desktop token shared by the window and the menu (electron/desktop-tokens.ts), which must
 * never sign one out to serve the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackupShell, backUpNow } from '../../../electron/backup.ts';
import { DesktopTokens } from '../../../electron/desktop-tokens.ts';
import { nodeForkServer } from '../../../electron/node-fork.ts';
import { RestartPolicy } from '../../../electron/restart-policy.ts';
import { ServerSupervisor } from '../../../electron/server-supervisor.ts';
import { readBackupManifest } from '../../../server/core/backup/index.ts';
import type { LoginToken } from '../../../server/entry/protocol.ts';
import { alive } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function temp(prefix: string): string {
  const d = tempDir(prefix);
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

describe('desktop token shared by the window and the menu', () => {
  const issuer = () => {
    let n = 0;
    const issued: string[] = [];
    let now = 1_000_000;
    const issue = async (): Promise<LoginToken> => {
      const token = `t${++n}`;
      issued.push(token);
      return { token, expiresAt: new Date(now + 60 * 60_000).toISOString() };
    };
    return { issue, issued, clock: { now: () => now, advance: (ms: number) => (now += ms) } };
  };

  it('the menu uses the window’s token instead of issuing one (which would revoke the window’s)', async () => {
    const { issue, issued, clock } = issuer();
    const tokens = new DesktopTokens(issue, { now: clock.now });
    const win = await tokens.forWindow();
    expect(await tokens.forShell()).toBe(win.token);
    expect(issued).toEqual(['t1']);
  });

  it('a token issued for the menu goes to the window when it next asks; the window’s next ask issues a new one', async () => {
    const { issue, issued, clock } = issuer();
    const tokens = new DesktopTokens(issue, { now: clock.now });
    const shell = await tokens.forShell();
    expect((await tokens.forWindow()).token).toBe(shell);
    expect((await tokens.forWindow()).token).toBe('t2');
    // The menu's call with t1 was refused (t2 revoked it): it gets the newer token, nothing is issued.
    expect(await tokens.renew(shell)).toBe('t2');
    expect(issued).toEqual(['t1', 't2']);
  });

  it('issues a new one near expiry or when the current one was refused; concurrent asks share one issue', async () => {
    const { issue, issued, clock } = issuer();
    const tokens = new DesktopTokens(issue, { now: clock.now, marginMs: 5 * 60_000 });
    const [a, b] = await Promise.all([tokens.forShell(), tokens.forWindow()]);
    expect(a).toBe(b.token);
    clock.advance(56 * 60_000);
    expect(await tokens.forShell()).toBe('t2');
    expect(await tokens.renew('t2')).toBe('t3');
    expect(issued).toEqual(['t1', 't2', 't3']);
  });
});

describe('desktop "Back up now…" against the real server', () => {
  async function running() {
    const dataDir = temp('hearth-desktop-backup-');
    const sup = new ServerSupervisor({
      fork: nodeForkServer({ stdio: 'ignore', env: { ...process.env, HEARTH_ADMIN_TOKEN: '', HEARTH_MDNS: 'false' } }),
      settings: () => ({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent' }),
      policy: new RestartPolicy({ initialDelayMs: 100, maxCrashes: 2 }),
      // Longer than any test may run: how long a start takes on a loaded machine is not what these tests are about.
      readyTimeoutMs: 3_600_000,
    });
    cleanups.push(async () => {
      await sup.stop();
      for (const pid of sup.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    const info = await sup.start();
    const tokens = new DesktopTokens(() => sup.issueLoginToken());
    return { sup, info, tokens, base: info.publicUrl };
  }

  /** Dialog stand-ins: the answers given, and every progress value the window's bar was set to. */
  function shellWith(answers: { confirm: 'start' | 'page' | 'cancel'; file: string | null }): BackupShell & { bar: Array<number | null>; asked: string[] } {
    const bar: Array<number | null> = [];
    const asked: string[] = [];
    return {
      bar,
      asked,
      confirm: async () => answers.confirm,
      chooseFile: async (name) => {
        asked.push(name);
        return answers.file;
      },
      progress: (f) => bar.push(f),
    };
  }

  it('saves the backup where the user chose, under the server’s name by default, with progress; the window stays signed in', async () => {
    const { info, tokens, base } = await running();
    const win = await tokens.forWindow();
    const out = temp('hearth-desktop-saved-');
    const file = path.join(out, 'office.hearth-backup');
    const shell = shellWith({ confirm: 'start', file });

    const result = await backUpNow({ baseUrl: () => base, tokens, shell, pollMs: 50 });

    expect(result).toMatchObject({ outcome: 'saved', file });
    expect(shell.asked).toHaveLength(1);
    expect(shell.asked[0]).toMatch(/^hearth-\d{8}-\d{6}-manual\.hearth-backup$/);
    // The file is the server's backup, byte for byte as listed; no partial file is left beside it.
    const list = (await (await fetch(`${info.url}/api/admin/backups`, { headers: { authorization: `Bearer ${win.token}` } })).json()) as {
      data: Array<{ name: string; size: number; secrets: string | null }>;
    };
    const listed = list.data.find((b) => b.name === shell.asked[0]);
    expect(listed).toMatchObject({ secrets: 'omitted' });
    expect(fs.statSync(file).size).toBe(listed!.size);
    expect(result.outcome === 'saved' && result.size).toBe(listed!.size);
    expect(fs.readdirSync(out)).toEqual(['office.hearth-backup']);
    expect((await readBackupManifest(file)).secrets).toBe('omitted');
    // The bar rose from 0 to the download's end and was cleared.
    const values = shell.bar.filter((v): v is number => v !== null);
    expect(values[0]).toBe(0);
    expect(values.every((v, i) => v >= 0 && v <= 1 && (i === 0 || v >= values[i - 1]!))).toBe(true);
    expect(values.at(-1)).toBeGreaterThan(0.8);
    expect(shell.bar.at(-1)).toBeNull();
    // The window's token still works: the menu did not sign it out.
    expect((await fetch(`${info.url}/api/admin/tokens`, { headers: { authorization: `Bearer ${win.token}` } })).status).toBe(200);
  });

  it('cancelling the save dialog keeps the backup on the server; cancelling first makes none', async () => {
    const { info, tokens, base } = await running();
    const kept = await backUpNow({ baseUrl: () => base, tokens, shell: shellWith({ confirm: 'start', file: null }), pollMs: 50 });
    expect(kept).toMatchObject({ outcome: 'kept' });
    expect(await backUpNow({ baseUrl: () => base, tokens, shell: shellWith({ confirm: 'cancel', file: null }) })).toEqual({ outcome: 'cancelled' });
    expect(await backUpNow({ baseUrl: () => base, tokens, shell: shellWith({ confirm: 'page', file: null }) })).toEqual({ outcome: 'page' });
    const token = await tokens.forShell();
    const list = async () =>
      (
        (await (await fetch(`${info.url}/api/admin/backups`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
          data: Array<{ name: string; status: string }>;
        }
      ).data;
    // The kept one finishes on its own; only that one exists.
    const name = kept.outcome === 'kept' ? kept.name : '';
    await until(async () => (await list()).find((b) => b.name === name && b.status === 'complete'), 'the kept backup to complete');
    expect((await list()).map((b) => b.name)).toEqual([name]);
  });

  it('a place that cannot be written says why and leaves nothing behind; a stopped server is reported', async () => {
    const { tokens, base, sup } = await running();
    const out = temp('hearth-desktop-unwritable-');
    const file = path.join(out, 'missing-folder', 'b.hearth-backup');
    const shell = shellWith({ confirm: 'start', file });
    const failed = await backUpNow({ baseUrl: () => base, tokens, shell, pollMs: 50 });
    expect(failed.outcome).toBe('failed');
    expect(failed.outcome === 'failed' && failed.message).toMatch(/could not be saved: .*ENOENT/);
    expect(fs.readdirSync(out)).toEqual([]);
    expect(shell.bar.at(-1)).toBeNull();

    await sup.stop();
    const down = await backUpNow({ baseUrl: () => (sup.state.phase === 'running' ? base : null), tokens, shell: shellWith({ confirm: 'start', file }) });
    expect(down).toEqual({ outcome: 'failed', message: 'Hearth is not running.' });
  });
});
