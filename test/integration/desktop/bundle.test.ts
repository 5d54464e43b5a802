/**
 * The desktop app as built: its server bundle (build/out/desktop/server.cjs, what the Electron utility process
 * runs) under the same supervisor and protocol, with its helpers (upload check in a worker thread, SQL children)
 * started from the bundle itself; and the electron-builder configuration's layout, packaged against a stand-in
 * Electron distribution (the real one cannot be downloaded here); and the main process itself (main.cjs) wired to a
 * stand-in `electron` module (test/helpers/electron-mock.cjs) whose utility process is a `child_process.fork`.
 * Built here: `node build/desktop.ts` takes about a second.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import asar from '@electron/asar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeForkServer } from '../../../electron/node-fork.ts';
import { ServerSupervisor } from '../../../electron/server-supervisor.ts';
import { readInternalRoot } from '../../../electron/trust.ts';
import { lanLabel } from '../../../server/core/net/names.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const repo = path.resolve(import.meta.dirname, '../../..');
const ENTRY = path.join(repo, 'build', 'out', 'desktop', 'server.cjs');
let sup: ServerSupervisor;
let dataDir: string;

beforeAll(() => {
  if (!fs.existsSync(path.join(repo, 'ui', 'dist', 'index.html'))) {
    const ui = spawnSync('npm', ['run', 'build:ui', '--silent'], { cwd: repo, encoding: 'utf8' });
    if (ui.status !== 0) throw new Error(`building the UI failed: ${ui.stderr}`);
  }
  const b = spawnSync(process.execPath, ['build/desktop.ts'], { cwd: repo, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build/desktop.ts failed: ${b.stderr || b.stdout}`);
  dataDir = tempDir('hearth-desktop-bundle-');
  sup = new ServerSupervisor({
    fork: nodeForkServer({ entry: ENTRY, stdio: 'ignore' }),
    settings: () => ({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', uiDir: path.join(repo, 'ui', 'dist') }),
  });
}, 120_000);

afterAll(async () => {
  await sup?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('desktop server bundle', () => {
  it('handshakes, serves the UI, runs its helpers from the bundle and stops gracefully', async () => {
    const info = await sup.start();
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { token } = await sup.issueLoginToken();
    const auth = { authorization: `Bearer ${token}` };
    expect((await fetch(`${info.url}/`, { headers: { accept: 'text/html' } })).status).toBe(200);
    expect(
      (
        await fetch(`${info.url}/v1/namespaces`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'notes' }),
        })
      ).status,
    ).toBe(201);
    const q = await fetch(`${info.url}/v1/notes/query`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ sql: 'SELECT 6 * 7 AS answer' }),
    });
    expect(await q.json()).toEqual({ data: [{ answer: 42 }] });
    const exported = Buffer.from(await (await fetch(`${info.url}/v1/namespaces/notes/export`, { headers: auth })).arrayBuffer());
    const form = new FormData();
    form.append('file', new Blob([exported]), 'notes.db');
    expect((await fetch(`${info.url}/v1/namespaces/notes/import`, { method: 'POST', headers: auth, body: form })).status).toBe(200);
    expect(await sup.stop()).toEqual({ graceful: true, code: 0, signal: null });
  });
});

describe('desktop packaging (electron-builder, stand-in Electron)', () => {
  it('packs the bundles into the asar, with the server, the UI and SQLite unpacked beside it', () => {
    const root = tempDir('hearth-desktop-pack-');
    try {
      // A stand-in for the unpacked Electron distribution: the layout electron-builder copies.
      const dist = path.join(root, 'electron-dist');
      fs.mkdirSync(path.join(dist, 'locales'), { recursive: true });
      fs.writeFileSync(path.join(dist, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
      fs.writeFileSync(path.join(dist, 'version'), 'v45.4.1');
      fs.writeFileSync(path.join(dist, 'locales', 'en-US.pak'), '');
      const out = path.join(root, 'out');
      const r = spawnSync(
        process.execPath,
        [
          path.join(repo, 'node_modules', 'electron-builder', 'cli.js'),
          '--linux',
          'dir',
          '--config',
          'build/electron-builder.yml',
          `-c.electronDist=${dist}`,
          '-c.npmRebuild=false',
          `-c.directories.output=${out}`,
        ],
        { cwd: repo, encoding: 'utf8', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } },
      );
      expect(r.status, r.stderr + r.stdout).toBe(0);
      const resources = path.join(out, 'linux-unpacked', 'resources');
      expect(fs.existsSync(path.join(out, 'linux-unpacked', 'hearth-desktop'))).toBe(true);
      const files = asar.listPackage(path.join(resources, 'app.asar'), { isPack: false }).map((f) => f.replace(/\\/g, '/'));
      for (const f of [
        '/package.json',
        '/build/out/desktop/main.cjs',
        '/build/out/desktop/preload.cjs',
        '/build/out/desktop/status.html',
        '/resources/icons/icon.png',
        '/ui/dist/index.html',
      ]) {
        expect(files).toContain(f);
      }
      // Nothing else from node_modules: the server is bundled.
      expect(files.filter((f) => f.startsWith('/node_modules/') && !f.startsWith('/node_modules/better-sqlite3'))).toEqual([]);
      expect(files.filter((f) => /\/(server|electron|test|bench)\//.test(f) && !f.startsWith('/build/out/'))).toEqual([]);
      const pkg = JSON.parse(asar.extractFile(path.join(resources, 'app.asar'), 'package.json').toString()) as { main: string };
      expect(pkg.main).toBe('build/out/desktop/main.cjs');
      const unpacked = path.join(resources, 'app.asar.unpacked');
      for (const f of [
        'build/out/desktop/server.cjs',
        'build/out/desktop/helpers/db-check.cjs',
        'build/out/desktop/helpers/sql-child.cjs',
        'ui/dist/index.html',
        'node_modules/better-sqlite3/lib/index.js',
        'node_modules/better-sqlite3/prebuilds/linux-x64.node',
      ]) {
        expect(fs.existsSync(path.join(unpacked, f)), f).toBe(true);
      }
      expect(fs.readdirSync(path.join(unpacked, 'node_modules', 'better-sqlite3', 'prebuilds'))).toEqual(['linux-x64.node']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('desktop main process (stand-in Electron)', () => {
  it('shows the splash, then the admin UI; signs the desktop user in; shares on the LAN; quits gracefully', async () => {
    const userData = tempDir('hearth-desktop-main-');
    try {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '0.0.0.0', resolve));
      const lanPort = (probe.address() as net.AddressInfo).port;
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      fs.writeFileSync(path.join(userData, 'settings.json'), JSON.stringify({ shareOnLan: false, lanPort }));

      const require = createRequire(import.meta.url);
      const { createElectronMock } = require('../../helpers/electron-mock.cjs') as typeof import('../../helpers/electron-mock.cjs');
      const { mock, record, handlers, markReady } = createElectronMock({ userData, logs: path.join(userData, 'logs') });
      const main = path.join(repo, 'build', 'out', 'desktop', 'main.cjs');
      const fromMain = createRequire(main);
      const electronId = fromMain.resolve('electron');
      fromMain.cache[electronId] = { id: electronId, filename: electronId, loaded: true, exports: mock } as unknown as NodeJS.Module;
      fromMain(main);
      markReady();

      const win = await until(() => record.windows[0], 'the window');
      const url = await until(() => win.loads.find((u: string) => u.startsWith('http://')), 'the admin UI');
      expect(win.loads[0]).toMatch(/\/status\.html\?kind=starting/);
      // The public address on loopback: a name (passkeys refuse IP addresses), a secure context over plain HTTP.
      expect(url).toMatch(/^http:\/\/localhost:\d+\/$/);
      expect(win.opts.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
      expect((await fetch(`${url}healthz`)).status).toBe(200);

      // The window's own page gets a sign-in token; any other sender gets nothing.
      const signIn = handlers.get('hearth:sign-in')!;
      const granted = (await signIn({ sender: win.webContents, senderFrame: win.webContents.mainFrame })) as { token: string };
      expect((await fetch(`${url}api/admin/tokens`, { headers: { authorization: `Bearer ${granted.token}` } })).status).toBe(200);
      expect(await signIn({ sender: {}, senderFrame: { url } })).toBeNull();
      expect(await signIn({ sender: win.webContents, senderFrame: { url: 'http://127.0.0.1:1/' } })).toBeNull();
      // "Back up now…" is offered while the server runs (electron/backup.ts is tested in backup.test.ts).
      const backupItem = await until(
        () => record.trayMenus.at(-1)?.template.find((i: { label?: string; enabled?: boolean }) => i.label === 'Back up now…' && i.enabled),
        'Back up now… in the tray menu',
      );
      expect(typeof backupItem.click).toBe('function');

      // Share on the LAN from the tray: HTTPS with Hearth's own CA; the window follows the server to its public address
      // (the .local name, mapped to this computer) and shows the certificate page for the other devices.
      const local = `${lanLabel()}.local`;
      expect(record.switches).toContainEqual(['host-resolver-rules', `MAP ${local} 127.0.0.1`]);
      const item = record.trayMenus.at(-1).template.find((i: { label?: string }) => i.label === 'Share on the local network');
      expect(item.checked).toBe(false);
      item.click({ checked: true });
      await until(() => win.loads.at(-1) === `https://${local}:${lanPort}/network/certificate`, 'the window on the certificate page at the LAN address');
      const root = readInternalRoot(path.join(userData, 'data'))!;
      const leaf = await new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port: lanPort, servername: local, ca: [root] }, () => {
          resolve(`-----BEGIN CERTIFICATE-----\n${socket.getPeerCertificate().raw.toString('base64')}\n-----END CERTIFICATE-----\n`);
          socket.end();
        });
        socket.once('error', reject);
      });
      // The window trusts that certificate for the .local name (and leaves every other host to Chromium).
      const verdict = (hostname: string) => new Promise<number>((resolve) => record.verifyProc!({ hostname, certificate: { data: leaf } }, resolve));
      expect(await verdict(local)).toBe(0);
      expect(await verdict('example.com')).toBe(-3);
      expect(JSON.parse(fs.readFileSync(path.join(userData, 'settings.json'), 'utf8'))).toEqual({ shareOnLan: true, lanPort });
      const lanMenu = record.trayMenus.at(-1).template;
      expect(lanMenu.find((i: { label?: string }) => i.label === 'Share on the local network').checked).toBe(true);
      expect(lanMenu.find((i: { label?: string }) => i.label?.startsWith('Copy LAN address '))?.label).toBe(`Copy LAN address https://${local}:${lanPort}`);
      expect(lanMenu.find((i: { label?: string }) => i.label?.startsWith('Certificate fingerprint '))?.label).toBe(
        `Certificate fingerprint ${new crypto.X509Certificate(root).fingerprint256.slice(0, 23)}…`,
      );

      // The application secret is kept encrypted by the (stand-in) keychain, not in the data folder.
      expect(fs.existsSync(path.join(userData, 'app-secret.bin'))).toBe(true);
      expect(fs.existsSync(path.join(userData, 'data', 'secrets', 'app-secret'))).toBe(false);

      mock.app.quit();
      await until(() => record.exitCode === 0, 'the app to exit');
      for (const child of record.forks) expect(child.exitCode).toBe(0);
      expect(win.loads.at(-1)).toMatch(/kind=stopping/);
      expect(fs.readFileSync(path.join(userData, 'logs', 'server.log'), 'utf8')).toContain('hearth listening');
      expect(record.errors).toEqual([]);
    } finally {
      fs.rmSync(userData, { recursive: true, force: true });
    }
  });
});
