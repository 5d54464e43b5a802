/** The desktop shell's plain modules: restart policy, settings, LAN addresses, navigation rules, app secret, protocol checks. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAppSecret, type SecretCipher } from '../../../electron/app-secret.ts';
import { lanAddresses, lanUrls } from '../../../electron/lan.ts';
import { isAllowedNavigation, isExternalUrl } from '../../../electron/navigation.ts';
import { RestartPolicy } from '../../../electron/restart-policy.ts';
import { serverEnvironment } from '../../../electron/server-supervisor.ts';
import { DEFAULT_SETTINGS, listenAddress, parseSettings, SettingsStore } from '../../../electron/settings.ts';
import { parseParentMessage, parseServerMessage } from '../../../server/entry/protocol.ts';
import { tempDir } from '../../helpers/server.ts';

const dirs: string[] = [];
const temp = () => {
  const d = tempDir('hearth-desktop-unit-');
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('restart policy', () => {
  it('doubles the delay up to the cap and gives up at the crash limit within the window', () => {
    const p = new RestartPolicy({ initialDelayMs: 500, maxDelayMs: 3000, factor: 2, maxCrashes: 5, windowMs: 60_000 });
    expect([0, 1, 2, 3].map((i) => p.crashed(1000 + i))).toEqual([
      { restart: true, delayMs: 500, crashes: 1 },
      { restart: true, delayMs: 1000, crashes: 2 },
      { restart: true, delayMs: 2000, crashes: 3 },
      { restart: true, delayMs: 3000, crashes: 4 },
    ]);
    expect(p.crashed(1010)).toEqual({ restart: false, crashes: 5 });
  });

  it('forgets crashes older than the window, and on reset', () => {
    const p = new RestartPolicy({ initialDelayMs: 100, maxCrashes: 3, windowMs: 10_000 });
    p.crashed(0);
    p.crashed(1000);
    expect(p.crashed(20_000)).toEqual({ restart: true, delayMs: 100, crashes: 1 });
    p.crashed(20_001);
    p.reset();
    expect(p.crashed(20_002)).toMatchObject({ restart: true, crashes: 1 });
  });
});

describe('desktop settings', () => {
  it('defaults to loopback on a free port; LAN sharing listens on 0.0.0.0 at the LAN port over HTTPS (internal CA)', () => {
    expect(DEFAULT_SETTINGS).toEqual({ shareOnLan: false, lanPort: 8787 });
    expect(listenAddress(DEFAULT_SETTINGS)).toEqual({ host: '127.0.0.1', port: 0, tls: 'off' });
    expect(listenAddress({ shareOnLan: true, lanPort: 9000 })).toEqual({ host: '0.0.0.0', port: 9000, tls: 'internal' });
  });

  it('ignores bad values and broken files', () => {
    expect(parseSettings({ shareOnLan: 'yes', lanPort: 70000 })).toEqual(DEFAULT_SETTINGS);
    expect(parseSettings(null)).toEqual(DEFAULT_SETTINGS);
    const file = path.join(temp(), 'settings.json');
    fs.writeFileSync(file, '{not json');
    expect(new SettingsStore(file).get()).toEqual(DEFAULT_SETTINGS);
  });

  it('persists changes (file mode 0600)', () => {
    const file = path.join(temp(), 'nested', 'settings.json');
    new SettingsStore(file).update({ shareOnLan: true, lanPort: 9100 });
    expect(new SettingsStore(file).get()).toEqual({ shareOnLan: true, lanPort: 9100 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('LAN addresses', () => {
  const ifaces = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
    eth0: [
      { address: '203.0.113.9', family: 'IPv4', internal: false },
      { address: 'fe80::1', family: 'IPv6', internal: false },
    ],
    wlan0: [
      { address: '192.168.1.20', family: 'IPv4', internal: false },
      { address: '169.254.3.3', family: 'IPv4', internal: false },
    ],
  } as unknown as NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;

  it('lists external IPv4 addresses, private ranges first, no loopback or link-local', () => {
    expect(lanAddresses(ifaces)).toEqual(['192.168.1.20', '203.0.113.9']);
    expect(lanUrls(8787, ifaces)).toEqual(['http://192.168.1.20:8787', 'http://203.0.113.9:8787']);
    // Shared over HTTPS: the public .local address first (where passkeys and sign-in work), then the addresses.
    expect(lanUrls(8787, ifaces, 'https://office.local:8787')).toEqual(['https://office.local:8787', 'https://192.168.1.20:8787', 'https://203.0.113.9:8787']);
  });
});

describe('window navigation', () => {
  const status = 'file:///opt/Hearth/resources/app.asar/build/out/desktop/status.html';
  it.each([
    ['http://127.0.0.1:4000/namespaces', true],
    ['http://127.0.0.1:4000', true],
    ['http://127.0.0.1:4001/', false],
    ['http://localhost:4000/', false],
    ['https://example.com/', false],
    [`${status}?kind=failed`, true],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['not a url', false],
  ])('%s → %s', (url, ok) => {
    expect(isAllowedNavigation(url, 'http://127.0.0.1:4000', status)).toBe(ok);
  });

  it('sends only web and mail links outside', () => {
    expect(isExternalUrl('https://example.com')).toBe(true);
    expect(isExternalUrl('mailto:a@example.com')).toBe(true);
    expect(isExternalUrl('file:///etc/passwd')).toBe(false);
    expect(isExternalUrl('smb://server/share')).toBe(false);
  });
});

describe('application secret', () => {
  const fakeCipher = (available: boolean): SecretCipher => ({
    isAvailable: () => available,
    encrypt: (s) => Buffer.from(`enc:${Buffer.from(s).toString('base64')}`),
    decrypt: (b) => {
      const t = b.toString();
      if (!t.startsWith('enc:')) throw new Error('bad data');
      return Buffer.from(t.slice(4), 'base64').toString();
    },
  });

  it('with a keychain: adopts the plain file, keeps only the encrypted copy, and reads it back', () => {
    const dir = temp();
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(path.join(dataDir, 'secrets'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'secrets', 'app-secret'), `${'x'.repeat(64)}\n`);
    const file = path.join(dir, 'app-secret.bin');
    expect(loadAppSecret({ file, dataDir, cipher: fakeCipher(true) })).toEqual({ secret: 'x'.repeat(64), protection: 'os-keychain' });
    expect(fs.existsSync(path.join(dataDir, 'secrets', 'app-secret'))).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).not.toContain('xxxx');
    expect(loadAppSecret({ file, dataDir, cipher: fakeCipher(true) }).secret).toBe('x'.repeat(64));
  });

  it('generates one when there is none; without a keychain the server keeps its own file', () => {
    const dir = temp();
    const made = loadAppSecret({ file: path.join(dir, 'a.bin'), dataDir: path.join(dir, 'data'), cipher: fakeCipher(true) });
    expect(made.secret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(loadAppSecret({ file: path.join(dir, 'b.bin'), dataDir: path.join(dir, 'data'), cipher: fakeCipher(false) })).toEqual({
      secret: undefined,
      protection: 'data-folder-file',
    });
  });

  it('says so when the encrypted secret cannot be read', () => {
    const dir = temp();
    const file = path.join(dir, 'a.bin');
    fs.writeFileSync(file, 'garbage');
    expect(() => loadAppSecret({ file, dataDir: dir, cipher: fakeCipher(true) })).toThrow(/keychain reset/);
  });
});

describe('server environment and protocol', () => {
  it('passes an allow-list of variables, never HEARTH_* settings or secrets', () => {
    const env = serverEnvironment({
      PATH: '/bin',
      HOME: '/h',
      LANG: 'C',
      HEARTH_ADMIN_TOKEN: 'x'.repeat(20),
      APP_SECRET: 's',
      AWS_SECRET_ACCESS_KEY: 'k',
      LC_ALL: 'C',
    });
    expect(env).toEqual({ PATH: '/bin', HOME: '/h', LANG: 'C', LC_ALL: 'C' });
  });

  it('accepts well-formed messages only', () => {
    expect(parseParentMessage({ type: 'rebind', id: 1, host: '0.0.0.0', port: 8787 })).toEqual({ type: 'rebind', id: 1, host: '0.0.0.0', port: 8787 });
    expect(parseParentMessage({ type: 'rebind', id: 1, host: '0.0.0.0', port: 99999 })).toBeNull();
    expect(parseParentMessage({ type: 'start', settings: { dataDir: '', host: '127.0.0.1', port: 0 } })).toBeNull();
    expect(parseParentMessage({ type: 'issue-login-token', id: 2 })).toEqual({ type: 'issue-login-token', id: 2 });
    expect(parseParentMessage('shutdown')).toBeNull();
    expect(parseServerMessage({ type: 'reply', id: 3, ok: false, message: 'no' })).toEqual({ type: 'reply', id: 3, ok: false, message: 'no' });
    expect(parseServerMessage({ type: 'ready', url: 'http://127.0.0.1:1' })).toBeNull();
  });
});
