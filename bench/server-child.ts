/**
 * Runs Hearth in its own process for a benchmark (forked by bench/lib.ts `startChild`).
 *
 * Parent → child: {type: 'start', dataDir, adminToken, maxOpenNamespaces?}, {type: 'stats', id}, {type: 'stop'}.
 * Child → parent: {type: 'ready', url}, {type: 'reply', id, opened, open}, {type: 'error', message}.
 * The child closes Hearth and exits when told to stop or when the parent goes away.
 */
import { startServer, type RunningServer } from '../server/boot.ts';

interface StartMessage {
  type: 'start';
  dataDir: string;
  adminToken: string;
  maxOpenNamespaces?: number;
}

if (!process.send) {
  console.error('bench/server-child.ts must be started with child_process.fork (it talks over IPC)');
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
  const msg = raw as { type: string; id?: number } & Partial<StartMessage>;
  if (msg.type === 'start') {
    const m = msg as StartMessage;
    startServer({
      dataDir: m.dataDir,
      host: '127.0.0.1',
      port: 0,
      logLevel: 'silent',
      adminToken: m.adminToken,
      maxOpenNamespaces: m.maxOpenNamespaces ?? 256,
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
  } else if (msg.type === 'stats') {
    const handles = server?.services.db.namespaces.handles;
    send({ type: 'reply', id: msg.id, opened: handles?.opened ?? null, open: handles?.size ?? null });
  } else if (msg.type === 'stop') {
    void stop(0);
  }
});
