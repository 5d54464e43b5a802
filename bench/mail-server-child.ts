/**
 * Runs Hearth in its own process for the mail benchmark (forked by bench/lib.ts `startChild`), like
 * test/helpers/server-child.ts, plus CPU accounting and an on-demand CPU profile (node:inspector), so that the benchmark can
 * say where the time goes when a target is missed.
 *
 * Parent → child: {type: 'start', dataDir, adminToken}, {type: 'cpu', id}, {type: 'profile-start', id},
 *                 {type: 'profile-stop', id, file}, {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'reply', id, ...}, {type: 'error', message}.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { type RunningServer, startServer } from '../server/boot.ts';

interface StartMessage {
  type: 'start';
  dataDir: string;
  adminToken: string;
}

if (!process.send) {
  console.error('bench/mail-server-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);

let server: RunningServer | null = null;
let stopping = false;
let session: Session | null = null;

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  try {
    await server?.close();
  } catch (err) {
    console.error('mail-server-child: close failed:', err);
    code = 1;
  }
  process.exit(code);
}

process.on('disconnect', () => void stop(0));
process.on('message', (raw) => {
  const msg = raw as { type: string; id?: number; file?: string } & Partial<StartMessage>;
  if (msg.type === 'start') {
    const m = msg as StartMessage;
    startServer({
      dataDir: m.dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      adminToken: m.adminToken,
      env: {}, // ignore HEARTH_* variables of whoever runs the bench
    }).then(
      (s) => {
        server = s;
        send({ type: 'ready', url: s.url });
      },
      (err: unknown) => {
        send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  } else if (msg.type === 'cpu') {
    const u = process.cpuUsage();
    send({ type: 'reply', id: msg.id, userMs: u.user / 1000, systemMs: u.system / 1000 });
  } else if (msg.type === 'profile-start') {
    void (async () => {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      send({ type: 'reply', id: msg.id });
    })();
  } else if (msg.type === 'profile-stop') {
    void (async () => {
      const { profile } = await session!.post('Profiler.stop');
      session!.disconnect();
      session = null;
      fs.writeFileSync(msg.file!, JSON.stringify(profile));
      send({ type: 'reply', id: msg.id, file: msg.file });
    })();
  } else if (msg.type === 'stop') {
    void stop(0);
  }
});
