/**
 * Runs Hearth in a process of its own for tests that must watch it from outside: a test whose request could stall
 * the server's event loop would otherwise stall the test runner too (the in-process server shares its loop).
 * Started by `startServerProcess` (server-process.ts) with child_process.fork.
 *
 * Parent → child: {type: 'start', options} (StartOptions without functions), {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'error', message}. The child exits when its parent goes away.
 */
import { startServer, type RunningServer, type StartOptions } from '../../server/boot.ts';

if (!process.send) {
  console.error('test/helpers/server-child.ts is started by startServerProcess (it talks over IPC)');
  process.exit(2);
}

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
  const msg = raw as { type: string; options?: StartOptions };
  if (msg.type === 'stop') void stop(0);
  else if (msg.type === 'start') {
    startServer(msg.options).then(
      (s) => {
        server = s;
        process.send!({ type: 'ready', url: s.url });
      },
      (err: Error) => {
        process.send!({ type: 'error', message: err.message });
        process.exit(1);
      },
    );
  }
});
