/**
 * The desktop supervisor under Node: `child_process.fork` of the real server entry (server/entry/utility.ts),
 * speaking the same protocol as the Electron utility process. Every server listens on loopback, or on 0.0.0.0 for
 * the LAN tests, and the tests only ever connect to 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { setLanSharing } from '../../../electron/lan.ts';
import { nodeForkServer } from '../../../electron/node-fork.ts';
import { RestartPolicy } from '../../../electron/restart-policy.ts';
import { ServerSupervisor, type SupervisorState } from '../../../electron/server-supervisor.ts';
import { listenAddress, SettingsStore } from '../../../electron/settings.ts';
import { issuedByRoot, readInternalRoot } from '../../../electron/trust.ts';
import { lanLabel } from '../../../server/core/net/names.ts';
import type { StartSettings } from '../../../server/entry/protocol.ts';
import { freePort } from '../../helpers/ports.ts';
import { alive } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

interface Harness {
  sup: ServerSupervisor;
  states: SupervisorState[];
  dataDir: string;
  settings: StartSettings;
}

function harness(
  opts: { settings?: Partial<StartSettings>; policy?: RestartPolicy; readyTimeoutMs?: number; stopTimeoutMs?: number; onSpawn?: (pid: number) => void } = {},
): Harness {
  const dataDir = tempDir('hearth-desktop-');
  const settings: StartSettings = { dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', ...opts.settings };
  const sup = new ServerSupervisor({
    fork: nodeForkServer({
      stdio: 'ignore',
      env: { ...process.env, HEARTH_ADMIN_TOKEN: '', HEARTH_MDNS: 'false' },
      onSpawn: (c) => c.pid && opts.onSpawn?.(c.pid),
    }),
    settings: () => settings,
    policy: opts.policy ?? new RestartPolicy({ initialDelayMs: 100, maxCrashes: 5 }),
    readyTimeoutMs: opts.readyTimeoutMs ?? 20_000,
    stopTimeoutMs: opts.stopTimeoutMs ?? 10_000,
  });
  const states: SupervisorState[] = [];
  sup.onState((s) => states.push(s));
  cleanups.push(async () => {
    await sup.stop();
    for (const pid of sup.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { sup, states, dataDir, settings };
}

const waitFor = (sup: ServerSupervisor, phase: SupervisorState['phase'], timeoutMs = 20_000) =>
  new Promise<SupervisorState>((resolve, reject) => {
    if (sup.state.phase === phase) return resolve(sup.state);
    const timer = setTimeout(() => reject(new Error(`no ${phase} within ${timeoutMs} ms (now ${sup.state.phase})`)), timeoutMs);
    const off = sup.onState((s) => {
      if (s.phase === phase) {
        clearTimeout(timer);
        off();
        resolve(s);
      }
    });
  });

/** Is something listening on `port`, and on which local address (from /proc/net/tcp: 0.0.0.0 or 127.0.0.1)? */
function listeningAddresses(port: number): string[] {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const out: string[] = [];
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4 || cols[3] !== '0A') continue; // 0A = LISTEN
    const [addr, p] = cols[1]!.split(':');
    if (p !== hex) continue;
    const bytes = addr!
      .match(/../g)!
      .map((b) => parseInt(b, 16))
      .reverse();
    out.push(bytes.join('.'));
  }
  return out;
}

const loopback = (port: number, path: string, token?: string) =>
  fetch(`http://127.0.0.1:${port}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('desktop supervisor: handshake', () => {
  it('starts the server entry, which answers `ready` with its URL on loopback', async () => {
    const { sup, states, dataDir } = harness();
    const info = await sup.start();
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info).toMatchObject({ host: '127.0.0.1', dataDir, protocol: 1 });
    expect(info.pid).toBe(sup.pid);
    expect(states.map((s) => s.phase)).toEqual(['starting', 'running']);
    const health = await fetch(`${info.url}/healthz`);
    expect(health.status).toBe(200);
    expect(listeningAddresses(info.port)).toEqual(['127.0.0.1']);
    // The admin UI answers on the same origin (or says it is not built): it is served by the same server.
    expect([200, 503]).toContain((await fetch(`${info.url}/`, { headers: { accept: 'text/html' } })).status);
  });

  it('a server that cannot start reports why and is not restarted', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const port = (blocker.address() as net.AddressInfo).port;
    const { sup } = harness({ settings: { port } });
    await expect(sup.start()).rejects.toThrow(/address is in use/);
    expect(sup.state).toMatchObject({ phase: 'failed', crashes: 0 });
    expect(sup.pids).toHaveLength(1);
  });
});

describe('desktop supervisor: crashes', () => {
  it('restarts the server after a kill -9, with the same data', async () => {
    const { sup, states } = harness();
    const first = await sup.start();
    const token = await sup.issueLoginToken();
    const created = await fetch(`${first.url}/v1/namespaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept' }),
    });
    expect(created.status).toBe(201);

    process.kill(first.pid, 'SIGKILL');
    const restarting = await waitFor(sup, 'restarting');
    expect(restarting).toMatchObject({ crashes: 1, delayMs: 100, reason: 'the server was killed by SIGKILL' });
    const second = await sup.whenRunning();
    expect(second.pid).not.toBe(first.pid);
    expect(alive(first.pid)).toBe(false);
    expect(states.map((s) => s.phase)).toEqual(['starting', 'running', 'restarting', 'starting', 'running']);
    const again = await sup.issueLoginToken();
    const got = await fetch(`${second.url}/v1/namespaces/kept`, { headers: { authorization: `Bearer ${again.token}` } });
    expect(got.status).toBe(200);
  });

  it('backs off between restarts and gives up after repeated crashes', async () => {
    const { sup, states } = harness({ policy: new RestartPolicy({ initialDelayMs: 150, factor: 2, maxCrashes: 3, windowMs: 60_000 }) });
    await sup.start();
    const restartedAt: number[] = [];
    const crashedAt: number[] = [];
    sup.onState((s) => {
      if (s.phase === 'starting') restartedAt.push(Date.now());
    });
    for (let i = 0; i < 2; i++) {
      const { pid } = await sup.whenRunning();
      crashedAt.push(Date.now());
      process.kill(pid, 'SIGKILL');
      await waitFor(sup, 'restarting');
    }
    const { pid } = await sup.whenRunning();
    process.kill(pid, 'SIGKILL');
    const failed = await waitFor(sup, 'failed');
    expect(failed).toMatchObject({ crashes: 3 });
    expect((failed as { message: string }).message).toMatch(/stopped unexpectedly 3 times in a row; the last time the server was killed by SIGKILL/);
    const delays = states.filter((s) => s.phase === 'restarting').map((s) => (s as { delayMs: number }).delayMs);
    expect(delays).toEqual([150, 300]);
    // Each restart waited at least its delay after the crash.
    expect(restartedAt[0]! - crashedAt[0]!).toBeGreaterThanOrEqual(140);
    expect(restartedAt[1]! - crashedAt[1]!).toBeGreaterThanOrEqual(290);
    expect(sup.pids).toHaveLength(3);
    expect(sup.pids.every((p) => !alive(p))).toBe(true);
    await expect(sup.issueLoginToken()).rejects.toThrow(/not running/);

    // "Try again" forgets the crashes.
    const back = await sup.retry();
    expect((await fetch(`${back.url}/healthz`)).status).toBe(200);
  });

  it('kills and restarts a server that does not become ready in time', async () => {
    let stopped = 0;
    const { sup } = harness({
      readyTimeoutMs: 5000, // long enough for a real start on a loaded 2-core machine
      // The first server is frozen as soon as it exists, so it can never say `ready`.
      onSpawn: (pid) => {
        if (stopped++ === 0) process.kill(pid, 'SIGSTOP');
      },
    });
    const info = await sup.start();
    expect(sup.pids).toHaveLength(2);
    expect(alive(sup.pids[0]!)).toBe(false);
    expect(info.pid).toBe(sup.pids[1]);
  });
});

describe('desktop supervisor: shutdown', () => {
  it('stops the server gracefully within the limit (exit code 0, databases closed)', async () => {
    const { sup, dataDir } = harness();
    const info = await sup.start();
    const t0 = Date.now();
    const result = await sup.stop();
    expect(result).toEqual({ graceful: true, code: 0, signal: null });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(alive(info.pid)).toBe(false);
    expect(sup.state).toEqual({ phase: 'stopped', graceful: true });
    // A clean close checkpoints and removes the write-ahead log.
    expect(fs.existsSync(`${dataDir}/platform.db-wal`)).toBe(false);
    // Not restarted afterwards.
    await new Promise((r) => setTimeout(r, 300));
    expect(sup.pids).toHaveLength(1);
  });

  it('kills a server that does not stop within the limit', async () => {
    const { sup } = harness({ stopTimeoutMs: 600 });
    const info = await sup.start();
    process.kill(info.pid, 'SIGSTOP'); // it cannot answer any more
    const t0 = Date.now();
    const result = await sup.stop();
    const took = Date.now() - t0;
    expect(result).toMatchObject({ graceful: false, signal: 'SIGKILL' });
    expect(took).toBeGreaterThanOrEqual(550);
    expect(took).toBeLessThan(5000);
    expect(alive(info.pid)).toBe(false);
  });
});

describe('desktop supervisor: LAN sharing', () => {
  it('rebinding moves the listener between 127.0.0.1 (HTTP) and 0.0.0.0 (HTTPS, internal CA) without restarting the server', async () => {
    const { sup, dataDir, settings } = harness();
    const store = new SettingsStore(`${dataDir}/../${dataDir.split('/').pop()}-settings.json`);
    cleanups.push(() => fs.rmSync(store.file, { force: true }));
    const lanPort = await freePort({ host: '0.0.0.0' });
    store.update({ lanPort });
    // The supervisor reads the listen address from the settings at every start.
    Object.assign(settings, listenAddress(store.get()));

    const first = await sup.start();
    expect(listeningAddresses(first.port)).toEqual(['127.0.0.1']);

    expect(first).toMatchObject({ publicUrl: first.url.replace('127.0.0.1', 'localhost'), caFingerprint: null });
    const on = await setLanSharing(true, store, sup);
    const root = readInternalRoot(dataDir)!;
    expect(on.address).toEqual({
      url: `https://127.0.0.1:${lanPort}`,
      host: '0.0.0.0',
      port: lanPort,
      publicUrl: `https://${lanLabel()}.local:${lanPort}`,
      caFingerprint: new crypto.X509Certificate(root).fingerprint256,
    });
    expect(on.settings).toEqual({ shareOnLan: true, lanPort });
    expect(listeningAddresses(lanPort)).toEqual(['0.0.0.0']);
    expect(listeningAddresses(first.port)).toEqual([]);
    // HTTPS with a leaf for the .local name that the desktop window (trust.ts) and devices that installed the root accept.
    const leaf = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port: lanPort, servername: `${lanLabel()}.local`, ca: [root] }, () => {
        resolve(`-----BEGIN CERTIFICATE-----\n${socket.getPeerCertificate().raw.toString('base64')}\n-----END CERTIFICATE-----\n`);
        socket.end();
      });
      socket.once('error', reject);
    });
    expect(issuedByRoot(leaf, `${lanLabel()}.local`, root)).toBe(true);
    expect(issuedByRoot(leaf, '127.0.0.1', root)).toBe(true);
    expect(issuedByRoot(leaf, 'elsewhere.example', root)).toBe(false);
    expect(issuedByRoot(leaf, `${lanLabel()}.local`, null)).toBe(false);
    // Plain HTTP on that port is refused with the https address to use.
    const plain = await loopback(lanPort, '/healthz');
    expect(plain.status).toBe(400);
    expect(await plain.text()).toBe(`This port speaks HTTPS. Open https://${lanLabel()}.local:${lanPort} instead.\n`);
    await expect(loopback(first.port, '/healthz')).rejects.toThrow();
    expect(sup.state).toMatchObject({ phase: 'running', pid: first.pid, host: '0.0.0.0', port: lanPort });

    const off = await setLanSharing(false, store, sup);
    expect(off.address.host).toBe('127.0.0.1');
    expect(off.address).toMatchObject({ url: `http://127.0.0.1:${off.address.port}`, caFingerprint: null });
    expect(off.address.port).not.toBe(lanPort);
    expect(listeningAddresses(off.address.port)).toEqual(['127.0.0.1']);
    expect(listeningAddresses(lanPort)).toEqual([]);
    expect((await loopback(off.address.port, '/healthz')).status).toBe(200);
    expect(sup.pid).toBe(first.pid);
    expect(store.get().shareOnLan).toBe(false);
  });

  it('moves from 127.0.0.1:P to 0.0.0.0:P (the same port) and back', async () => {
    const port = await freePort({ host: '0.0.0.0' });
    const { sup } = harness({ settings: { port } });
    await sup.start();
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    await sup.rebind('0.0.0.0', port);
    expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
    await sup.rebind('127.0.0.1', port);
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    expect((await loopback(port, '/healthz')).status).toBe(200);
  });

  it('a LAN port that is taken leaves the server where it was and the setting off', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '0.0.0.0', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const taken = (blocker.address() as net.AddressInfo).port;
    const { sup, dataDir } = harness();
    const store = new SettingsStore(`${dataDir}-settings.json`);
    cleanups.push(() => fs.rmSync(store.file, { force: true }));
    store.update({ lanPort: taken });
    const info = await sup.start();
    await expect(setLanSharing(true, store, sup)).rejects.toThrow(`cannot listen on 0.0.0.0:${taken}: the address is in use`);
    expect(store.get().shareOnLan).toBe(false);
    expect((await loopback(info.port, '/healthz')).status).toBe(200);
    expect(sup.state).toMatchObject({ phase: 'running', url: info.url });
  });
});

describe('desktop sign-in token', () => {
  it('is a short-lived admin token; issuing the next one revokes it; it expires', async () => {
    const { sup } = harness();
    const info = await sup.start();
    const a = await sup.issueLoginToken();
    expect(a.token).toMatch(/^hth_/);
    expect(Date.parse(a.expiresAt) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(Date.parse(a.expiresAt) - Date.now()).toBeLessThanOrEqual(60 * 60_000);
    expect((await loopback(info.port, '/api/admin/tokens', a.token)).status).toBe(200);

    const b = await sup.issueLoginToken();
    expect(b.token).not.toBe(a.token);
    expect((await loopback(info.port, '/api/admin/tokens', a.token)).status).toBe(401);
    expect((await loopback(info.port, '/api/admin/tokens', b.token)).status).toBe(200);

    const short = await sup.issueLoginToken(1000);
    expect((await loopback(info.port, '/api/admin/tokens', short.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await loopback(info.port, '/api/admin/tokens', short.token)).status).toBe(401);
  });

  it('works once per process: a graceful stop revokes it', async () => {
    const { sup } = harness();
    await sup.start();
    const t = await sup.issueLoginToken();
    await sup.stop();
    const again = await sup.start();
    expect((await loopback(again.port, '/api/admin/tokens', t.token)).status).toBe(401);
  });
});
