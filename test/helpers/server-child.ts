/**
 * Runs Hearth in a process of its own, for tests that must watch it from outside (a request that stalled the event
 * loop would stall an in-process test runner too: see server-process.ts) and for the benchmarks (bench/lib.ts
 * `startChild`), whose load generator must not share the server's process.
 *
 * Parent → child: {type: 'start', ...StartOptions} (plain data; defaults: 127.0.0.1, port 0, silent, no HEARTH_*
 *                 environment), {type: 'stats', id}, {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'reply', id, opened, open}, {type: 'error', message}.
 * The child closes Hearth and exits when told to stop or when its parent goes away.
 */
import { type RunningServer, type StartOptions, startServer } from '../../server/boot.ts';

if (!process.send) {
  console.error('test/helpers/server-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);

let server: RunningServer | null = null;
let stopping = false;

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
  const { type, id, ...options } = raw as { type: string; id?: number } & StartOptions;
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
  } else if (type === 'stop') void stop(0);
});
