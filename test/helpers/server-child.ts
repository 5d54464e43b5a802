/**
 * Runs Hearth in a process of its own, for tests that must watch it from outside (a request that stalled the event
 * loop would stall an in-process test runner too: see server-process.ts) and for the benchmarks (bench/lib.ts
 * `startChild`), whose load generator must not share the server's process.
 *
 * Parent → child: {type: 'start', ...StartOptions} (plain data; defaults: 127.0.0.1, port 0, silent, no HEARTH_*
 *                 environment), {type: 'stats', id}, {type: 'cpu', id}, {type: 'profile-start', id},
 *                 {type: 'profile-stop', id, file}, {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'reply', id, ...}, {type: 'error', message}.
 * `stats` answers the open namespace handles (`opened`, `open`); `cpu` this process's CPU time (`userMs`, `systemMs`);
 * `profile-start` / `profile-stop` take a CPU profile (node:inspector) and write it to `file` (.cpuprofile), so that a
 * benchmark can say where the time goes when a target is missed.
 * The child closes Hearth and exits when told to stop or when its parent goes away.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { type RunningServer, type StartOptions, startServer } from '../../server/boot.ts';

if (!process.send) {
  console.error('test/helpers/server-child.ts must be started with child_process.fork (it talks over IPC)');
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
    console.error('server-child: close failed:', err);
    code = 1;
  }
  process.exit(code);
}

process.on('disconnect', () => void stop(0));
process.on('message', (raw) => {
  const { type, id, file, ...options } = raw as { type: string; id?: number; file?: string } & StartOptions;
  if (type === 'start') {
    // env: {} ignores the HEARTH_* variables of whoever runs the tests or the bench.
    startServer({ host: '127.0.0.1', port: 0, logLevel: 'silent', env: {}, ...options }).then(
      (s) => {
        server = s;
        send({ type: 'ready', url: s.url });
      },
      (err: unknown) => {
        send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
        process.exit(1);
      },
    );
  } else if (type === 'stats') {
    const handles = server?.services.db.namespaces.handles;
    send({ type: 'reply', id, opened: handles?.opened ?? null, open: handles?.size ?? null });
  } else if (type === 'cpu') {
    const u = process.cpuUsage();
    send({ type: 'reply', id, userMs: u.user / 1000, systemMs: u.system / 1000 });
  } else if (type === 'profile-start') {
    void (async () => {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
      send({ type: 'reply', id });
    })();
  } else if (type === 'profile-stop') {
    void (async () => {
      const { profile } = await session!.post('Profiler.stop');
      session!.disconnect();
      session = null;
      fs.writeFileSync(file!, JSON.stringify(profile));
      send({ type: 'reply', id, file });
    })();
  } else if (type === 'stop') void stop(0);
});
