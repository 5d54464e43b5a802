/**
 * The server as a supervised child: the Electron utility process (messages on `process.parentPort`), or a
 * `child_process.fork` child in tests and tools (messages on `process.send`). Protocol: `protocol.ts`.
 *
 * Settings, lowest precedence first: defaults, HEARTH_* variables, command-line flags (`--data`, `--host`,
 * `--port`, `--log-level`, `--log-file`), then the supervisor's `start` message, which the entry waits for.
 *
 * In the Electron bundle this file is also the entry of the server's helpers (see `roles.ts`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DestinationStream } from 'pino';
import { configureRuntime, requestedRole } from '../core/runtime.ts';
import {
  LOGIN_TOKEN_MAX_TTL_MS,
  LOGIN_TOKEN_TTL_MS,
  type LoginToken,
  type ParentMessage,
  PROTOCOL_VERSION,
  parseParentMessage,
  type ServerMessage,
  type StartSettings,
} from './protocol.ts';
import { runRole } from './roles.ts';

/** How long the entry waits for the supervisor's `start` message before giving up. */
const START_MESSAGE_TIMEOUT_MS = 30_000;

interface Channel {
  post(msg: ServerMessage): void;
  onMessage(fn: (msg: unknown) => void): void;
  onDisconnect(fn: () => void): void;
}

/** Electron's `process.parentPort`, declared here so the server does not depend on Electron's types. */
interface ParentPort {
  on(event: 'message', fn: (e: { data: unknown }) => void): void;
  postMessage(msg: unknown): void;
}

function parentChannel(): Channel | null {
  const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (parentPort) {
    return {
      post: (msg) => parentPort.postMessage(msg),
      onMessage: (fn) => parentPort.on('message', (e) => fn(e.data)),
      // Electron ends a utility process together with its parent.
      onDisconnect: () => {},
    };
  }
  if (process.send) {
    return {
      post: (msg) => {
        if (process.connected) process.send!(msg);
      },
      onMessage: (fn) => process.on('message', fn),
      onDisconnect: (fn) => process.on('disconnect', fn),
    };
  }
  return null;
}

function settingsFromArgv(argv: string[]): Partial<StartSettings> {
  const { values } = parseArgs({
    args: argv,
    strict: false,
    options: {
      data: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'log-level': { type: 'string' },
      'log-file': { type: 'string' },
    },
  });
  const pick = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const out: Partial<StartSettings> = {};
  if (pick(values.data)) out.dataDir = pick(values.data);
  if (pick(values.host)) out.host = pick(values.host);
  if (pick(values.port) && /^\d+$/.test(values.port as string)) out.port = Number(values.port);
  if (pick(values['log-level'])) out.logLevel = pick(values['log-level']);
  if (pick(values['log-file'])) out.logFile = pick(values['log-file']);
  return out;
}

async function logDestination(file: string | undefined): Promise<DestinationStream | undefined> {
  if (!file) return undefined;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const { pino } = await import('pino');
  return pino.destination({ dest: file, append: true, mkdir: true, sync: false });
}

async function serve(channel: Channel): Promise<void> {
  // Loaded here so that a helper started from the same bundle never loads the server.
  const { startServer, VERSION } = await import('../boot.ts');
  type Running = Awaited<ReturnType<typeof startServer>>;
  const fromArgv = settingsFromArgv(process.argv.slice(2));

  let running: Running | null = null;
  let starting: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;
  /** Desktop sign-in tokens issued by this process: a new one revokes the previous one; shutdown revokes them all. */
  const issued: string[] = [];

  const waitForStart = setTimeout(() => {
    process.stderr.write(`hearth: no start message from the supervisor within ${START_MESSAGE_TIMEOUT_MS} ms\n`);
    process.exit(2);
  }, START_MESSAGE_TIMEOUT_MS);

  const revokeIssued = async () => {
    if (!running) return;
    for (const id of issued.splice(0)) {
      try {
        await running.services.tokens.revoke(id);
      } catch {
        // already gone
      }
    }
  };

  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      clearTimeout(waitForStart);
      let code = 0;
      await starting;
      try {
        if (running) {
          running.logger.info({ why }, 'shutting down');
          await revokeIssued();
          await running.close();
        }
      } catch (err) {
        process.stderr.write(`hearth: shutdown failed: ${(err as Error).message}\n`);
        code = 1;
      }
      channel.post({ type: 'stopped' });
      // Let the message leave before the process does.
      setTimeout(() => process.exit(code), 20);
    })();
    return stopping;
  };

  const start = (settings: StartSettings) => {
    if (starting || stopping) return;
    starting = launch(settings);
  };

  const launch = async (settings: StartSettings) => {
    clearTimeout(waitForStart);
    const merged = { ...fromArgv, ...settings };
    try {
      const logDest = await logDestination(merged.logFile);
      running = await startServer({
        dataDir: merged.dataDir,
        host: merged.host,
        port: merged.port,
        logLevel: merged.logLevel,
        appSecret: merged.appSecret,
        uiDir: merged.uiDir,
        shutdownTimeoutMs: merged.shutdownTimeoutMs,
        tls: merged.tls,
        logDestination: logDest,
      });
    } catch (err) {
      const message = (err as Error).message;
      process.stderr.write(`hearth: could not start: ${message}\n`);
      channel.post({ type: 'start-failed', message });
      setTimeout(() => process.exit(1), 20);
      return;
    }
    if (stopping) return;
    channel.post({
      type: 'ready',
      url: running.url,
      publicUrl: running.publicUrl,
      caFingerprint: running.tls.status().ca?.fingerprintSha256 ?? null,
      host: running.host,
      port: running.port,
      pid: process.pid,
      version: VERSION,
      dataDir: running.config.dataDir,
      protocol: PROTOCOL_VERSION,
    });
  };

  const reply = (id: number, work: () => Promise<unknown> | unknown) => {
    Promise.resolve()
      .then(() => {
        if (!running || stopping) throw new Error(stopping ? 'the server is shutting down' : 'the server has not started');
        return work();
      })
      .then(
        (result) => channel.post({ type: 'reply', id, ok: true, result }),
        (err: unknown) => channel.post({ type: 'reply', id, ok: false, message: (err as Error).message ?? String(err) }),
      );
  };

  const handle = (msg: ParentMessage) => {
    switch (msg.type) {
      case 'start':
        return start(msg.settings);
      case 'shutdown':
        return void stop('asked by the supervisor');
      case 'rebind':
        return reply(msg.id, async () => {
          const moved = await running!.rebind(msg.host, msg.port, { tls: msg.tls });
          return { ...moved, caFingerprint: running!.tls.status().ca?.fingerprintSha256 ?? null };
        });
      case 'issue-login-token':
        return reply(msg.id, async (): Promise<LoginToken> => {
          const ttl = Math.min(msg.ttlMs ?? LOGIN_TOKEN_TTL_MS, LOGIN_TOKEN_MAX_TTL_MS);
          const expiresAt = new Date(Date.now() + ttl).toISOString();
          await revokeIssued();
          const { token, info } = await running!.services.tokens.create({ name: 'desktop', scope: 'admin', expiresAt });
          issued.push(info.id);
          return { token, expiresAt: info.expires_at ?? expiresAt };
        });
    }
  };

  channel.onMessage((raw) => {
    const msg = parseParentMessage(raw);
    if (msg) handle(msg);
  });
  channel.onDisconnect(() => void stop('the supervisor went away'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function main(): Promise<void> {
  // In the Electron bundle this file is CommonJS: helpers are this same file started again (see runtime.ts).
  if (typeof __filename === 'string') configureRuntime({ kind: 'bundle', file: __filename });
  const role = requestedRole();
  if (role) return runRole(role);
  const channel = parentChannel();
  if (!channel) {
    process.stderr.write('server/entry/utility.ts runs under a supervisor (Electron utility process or child_process.fork); use `hearth serve` instead\n');
    process.exit(2);
  }
  return serve(channel);
}

main().catch((err: unknown) => {
  process.stderr.write(`hearth: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
