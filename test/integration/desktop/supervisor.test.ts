/**
 * The desktop supervisor under Node: `child_process.fork` of the real server entry (server/entry/utility.ts),
 * speaking the same protocol as the Electron utility process. Every server listens on loopback, or on 0.0.0.0 for
 * the LAN tests, and the tests only ever connect to 127.0.0.1.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { setLanSharing } from '../../../electron/lan.ts';
import { nodeForkServer } from '../../../electron/node-fork.ts';
import { RestartPolicy } from '../../../electron/restart-policy.ts';
import { type ForkServer, ServerSupervisor, type SupervisorState, type SupervisorTimers } from '../../../electron/server-supervisor.ts';
import { listenAddress, SettingsStore } from '../../../electron/settings.ts';
import { issuedByRoot, readInternalRoot } from '../../../electron/trust.ts';
import { lanLabel } from '../../../server/core/net/names.ts';
import type { StartSettings } from '../../../server/entry/protocol.ts';
import { freePort } from '../../helpers/ports.ts';
import { alive } from '../../helpers/processes.ts';
import { tempDir } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

/**
 * A server started from source (its modules type-stripped by Node as they load) is ready in 1–2 s on a quiet machine
 * and has taken 30 s on a loaded 2-core one: each test gets this long for every server it starts, and the
 * supervisor's own limits never pass by themselves (see `parked`).
 */
const PER_SERVER = 60_000;
const within = (servers: number) => servers * PER_SERVER;

const cleanups: Array<() => Promise<void> | void> = [];

/** A free port on `host` that a listener of this test holds until the test ends (a server started there fails). */
async function takenPort(host: string): Promise<number> {
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, host, resolve));
  cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  return (blocker.address() as net.AddressInfo).port;
}
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
}, PER_SERVER);

interface Harness {
  sup: ServerSupervisor;
  states: SupervisorState[];
  dataDir: string;
  settings: StartSettings;
  /**
   * What the supervisor did, in order: `state <phase>` at each change, `set <ms>` when it schedules a wait, `fired <ms>`
   * when one ends, `cleared <ms>` when it cancels one, `kill` when it kills the server.
   */
  log: string[];
  /** Ends now the oldest open wait of `ms` (one of `parked`). */
  fire(ms: number): void;
}

/**
 * Node's timers, each call written to `log`; a wait of one of the `parked` lengths is not put on Node's clock: it
 * ends only when the test says (`fire`), so "past the limit" is a step of the test rather than a race with the load.
 */
function recordedTimers(log: string[], parked: number[]): { timers: SupervisorTimers; fire(ms: number): void } {
  type Handle = { ms: number; run: () => void; node: NodeJS.Timeout | null; open: boolean; unref(): void };
  const waiting: Handle[] = [];
  const timers: SupervisorTimers = {
    setTimeout(fn, ms) {
      log.push(`set ${ms}`);
      const h: Handle = {
        ms,
        open: true,
        node: null,
        run: () => {
          h.open = false;
          log.push(`fired ${ms}`);
          fn();
        },
        unref: () => h.node?.unref(),
      };
      if (parked.includes(ms)) waiting.push(h);
      else h.node = setTimeout(h.run, ms);
      return h;
    },
    clearTimeout(handle) {
      const h = handle as Handle;
      if (!h.open) return;
      h.open = false;
      log.push(`cleared ${h.ms}`);
      if (h.node) clearTimeout(h.node);
    },
  };
  const fire = (ms: number) => {
    const h = waiting.find((w) => w.ms === ms && w.open);
    if (!h) throw new Error(`no open wait of ${ms} ms (${log.join(', ')})`);
    h.run();
  };
  return { timers, fire };
}

/**
 * The supervisor's limits, parked: the ready limit (20 s), the graceful stop's (10 s), a request's (15 s, the default)
 * and the wait after a kill (5 s) pass only when a test fires them, so that no test depends on how fast a loaded
 * machine starts, stops or answers. A test about a limit fires it, or gives a limit of another length (a real wait).
 */
const parked = [20_000, 10_000, 15_000, 5_000];

function harness(
  opts: { settings?: Partial<StartSettings>; policy?: RestartPolicy; readyTimeoutMs?: number; stopTimeoutMs?: number; onSpawn?: (pid: number) => void } = {},
): Harness {
  const dataDir = tempDir('hearth-desktop-');
  const settings: StartSettings = { dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', ...opts.settings };
  const log: string[] = [];
  const { timers, fire } = recordedTimers(log, parked);
  const fork = nodeForkServer({
    stdio: 'ignore',
    env: { ...process.env, HEARTH_ADMIN_TOKEN: '', HEARTH_MDNS: 'false' },
    onSpawn: (c) => c.pid && opts.onSpawn?.(c.pid),
  });
  const recordedFork: ForkServer = () => {
    const p = fork();
    return {
      get pid() {
        return p.pid;
      },
      send: (msg) => p.send(msg),
      onMessage: (fn) => p.onMessage(fn),
      onExit: (fn) => p.onExit(fn),
      kill: () => {
        log.push('kill');
        p.kill();
      },
    };
  };
  const sup = new ServerSupervisor({
    fork: recordedFork,
    settings: () => settings,
    policy: opts.policy ?? new RestartPolicy({ initialDelayMs: 100, maxCrashes: 5 }),
    readyTimeoutMs: opts.readyTimeoutMs ?? 20_000,
    stopTimeoutMs: opts.stopTimeoutMs ?? 10_000,
    timers,
  });
  const states: SupervisorState[] = [];
  sup.onState((s) => {
    states.push(s);
    log.push(`state ${s.phase}`);
  });
  cleanups.push(async () => {
    await sup.stop();
    for (const pid of sup.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { sup, states, dataDir, settings, log, fire };
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
  it(
    'starts the server entry, which answers `ready` with its URL on loopback',
    async () => {
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
    },
    within(1),
  );

  it(
    'a server that cannot start reports why and is not restarted',
    async () => {
      const port = await takenPort('127.0.0.1');
      const { sup } = harness({ settings: { port } });
      await expect(sup.start()).rejects.toThrow(/address is in use/);
      expect(sup.state).toMatchObject({ phase: 'failed', crashes: 0 });
      expect(sup.pids).toHaveLength(1);
    },
    within(1),
  );
});

describe('desktop supervisor: crashes', () => {
  it(
    'restarts the server after a kill -9, with the same data',
    async () => {
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
    },
    within(2),
  );

  it(
    'backs off between restarts and gives up after repeated crashes',
    async () => {
      const { sup, states, log } = harness({
        // Crashes are forgotten after the window (desktop-modules.test.ts, on a test clock): here it outlasts the test.
        policy: new RestartPolicy({ initialDelayMs: 150, factor: 2, maxCrashes: 3, windowMs: 3_600_000 }),
      });
      await sup.start();
      for (let i = 0; i < 2; i++) {
        const { pid } = await sup.whenRunning();
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
      // Each restart waited its delay after the crash: the server was started again only when that wait had ended.
      expect(log.filter((e) => /^state (starting|restarting|failed)$|^(set|fired) (150|300)$/.test(e))).toEqual([
        'state starting',
        'state restarting',
        'set 150',
        'fired 150',
        'state starting',
        'state restarting',
        'set 300',
        'fired 300',
        'state starting',
        'state failed',
      ]);
      expect(sup.pids).toHaveLength(3);
      expect(sup.pids.every((p) => !alive(p))).toBe(true);
      await expect(sup.issueLoginToken()).rejects.toThrow(/not running/);

      // "Try again" forgets the crashes.
      const back = await sup.retry();
      expect((await fetch(`${back.url}/healthz`)).status).toBe(200);
    },
    within(4),
  );

  it(
    'kills and restarts a server that does not become ready in time',
    async () => {
      let stopped = 0;
      // The ready limit (parked) passes when the test says so: the first server's at once, the second's never.
      const { sup, states, log, fire } = harness({
        // The first server is frozen as soon as it exists, so it can never say `ready`.
        onSpawn: (pid) => {
          if (stopped++ === 0) process.kill(pid, 'SIGSTOP');
        },
      });
      const started = sup.start();
      fire(20_000);
      const info = await started;
      expect(sup.pids).toHaveLength(2);
      expect(alive(sup.pids[0]!)).toBe(false);
      expect(info.pid).toBe(sup.pids[1]);
      expect(states.find((s) => s.phase === 'restarting')).toMatchObject({ crashes: 1, reason: 'the server did not become ready within 20000 ms' });
      // Killed when its limit passed, restarted; the second one said `ready` before its own limit.
      expect(log.filter((e) => !/^(set|fired|cleared) 100$/.test(e))).toEqual([
        'state starting',
        'set 20000',
        'fired 20000',
        'kill',
        'state restarting',
        'state starting',
        'set 20000',
        'cleared 20000',
        'state running',
      ]);
    },
    within(2),
  );
});

describe('desktop supervisor: shutdown', () => {
  it(
    'stops the server gracefully within the limit (exit code 0, databases closed)',
    async () => {
      const { sup, dataDir, log } = harness();
      const info = await sup.start();
      const stopping = log.length;
      const result = await sup.stop();
      expect(result).toEqual({ graceful: true, code: 0, signal: null });
      // Within the limit: the server exited by itself before its ten-second wait ended, and was never killed; and not
      // restarted afterwards: its exit scheduled no restart (that would be recorded before stop() answers).
      expect(log.slice(stopping)).toEqual(['state stopping', 'set 10000', 'state stopped']);
      expect(alive(info.pid)).toBe(false);
      expect(sup.state).toEqual({ phase: 'stopped', graceful: true });
      // A clean close checkpoints and removes the write-ahead log.
      expect(fs.existsSync(`${dataDir}/platform.db-wal`)).toBe(false);
      expect(sup.pids).toHaveLength(1);
    },
    within(1),
  );

  it(
    'kills a server that does not stop within the limit',
    async () => {
      const { sup, log } = harness({ stopTimeoutMs: 600 });
      const info = await sup.start();
      process.kill(info.pid, 'SIGSTOP'); // it cannot answer any more
      const stopping = log.length;
      const result = await sup.stop();
      expect(result).toMatchObject({ graceful: false, signal: 'SIGKILL' });
      // Killed once its 600 ms (a real wait) had passed, not before; and the kill ended it (the five-second wait that
      // follows is parked: only the exit could end it).
      expect(log.slice(stopping)).toEqual(['state stopping', 'set 600', 'fired 600', 'kill', 'set 5000', 'state stopped']);
      expect(alive(info.pid)).toBe(false);
    },
    within(1),
  );
});

describe('desktop supervisor: LAN sharing', () => {
  it(
    'rebinding moves the listener between 127.0.0.1 (HTTP) and 0.0.0.0 (HTTPS, internal CA) without restarting the server',
    async () => {
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
    },
    within(1),
  );

  it(
    'moves from 127.0.0.1:P to 0.0.0.0:P (the same port) and back',
    async () => {
      const port = await freePort({ host: '0.0.0.0' });
      const { sup } = harness({ settings: { port } });
      await sup.start();
      expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
      await sup.rebind('0.0.0.0', port);
      expect(listeningAddresses(port)).toEqual(['0.0.0.0']);
      await sup.rebind('127.0.0.1', port);
      expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
      expect((await loopback(port, '/healthz')).status).toBe(200);
    },
    within(1),
  );

  it(
    'a LAN port that is taken leaves the server where it was and the setting off',
    async () => {
      const taken = await takenPort('0.0.0.0');
      const { sup, dataDir } = harness();
      const store = new SettingsStore(`${dataDir}-settings.json`);
      cleanups.push(() => fs.rmSync(store.file, { force: true }));
      store.update({ lanPort: taken });
      const info = await sup.start();
      await expect(setLanSharing(true, store, sup)).rejects.toThrow(`cannot listen on 0.0.0.0:${taken}: the address is in use`);
      expect(store.get().shareOnLan).toBe(false);
      expect((await loopback(info.port, '/healthz')).status).toBe(200);
      expect(sup.state).toMatchObject({ phase: 'running', url: info.url });
    },
    within(1),
  );
});

describe('desktop sign-in token', () => {
  it(
    'is a short-lived admin token; issuing the next one revokes it; it expires',
    async () => {
      const { sup, dataDir } = harness();
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

      // A lifetime given is honoured: the token works while it lasts (two minutes: longer than this test may run) ...
      const issuing = Date.now();
      const mid = await sup.issueLoginToken(120_000);
      const issued = Date.now();
      expect(Date.parse(mid.expiresAt)).toBeGreaterThanOrEqual(issuing + 120_000);
      expect(Date.parse(mid.expiresAt)).toBeLessThanOrEqual(issued + 120_000);
      expect((await loopback(info.port, '/api/admin/tokens', mid.token)).status).toBe(200);
      // ... and is refused once it has passed (a second here).
      const sent = Date.now();
      const short = await sup.issueLoginToken(1000);
      expect(Date.parse(short.expiresAt)).toBeGreaterThanOrEqual(sent + 1000);
      expect(Date.parse(short.expiresAt)).toBeLessThanOrEqual(Date.now() + 1000);
      await until(async () => (await loopback(info.port, '/api/admin/tokens', short.token)).status === 401, 'the one-second token refused');
      // Refused for its expiry alone: its row is neither revoked nor changed.
      const db = new Database(`${dataDir}/platform.db`, { readonly: true });
      try {
        expect(db.prepare("SELECT expires_at, revoked_at FROM api_tokens WHERE name = 'desktop' ORDER BY created_at DESC, rowid DESC LIMIT 1").get()).toEqual({
          expires_at: short.expiresAt,
          revoked_at: null,
        });
      } finally {
        db.close();
      }
    },
    within(1),
  );

  it(
    'works once per process: a graceful stop revokes it',
    async () => {
      const { sup } = harness();
      await sup.start();
      const t = await sup.issueLoginToken();
      await sup.stop();
      const again = await sup.start();
      expect((await loopback(again.port, '/api/admin/tokens', t.token)).status).toBe(401);
    },
    within(2),
  );
});
