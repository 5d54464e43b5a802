import fs from 'node:fs';
import { type E2eServer, SERVER_KEY } from './global-setup.ts';

const STOP_TIMEOUT_MS = 10_000;

/** Stops the server started by global-setup.ts (SIGTERM, then SIGKILL if it hangs) and removes its data folder. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<symbol, unknown>)[SERVER_KEY] as E2eServer | undefined;
  if (!server) return;
  const { child, dataDir } = server;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      process.stderr.write('[hearth] did not stop within 10 s of SIGTERM; killing it\n');
      child.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  delete (globalThis as Record<symbol, unknown>)[SERVER_KEY];
}
