import fs from 'node:fs';
import { type E2eServer, SERVER_KEY } from './global-setup.ts';

const STOP_TIMEOUT_MS = 10_000;

/** Stops the servers started by global-setup.ts (SIGTERM, then SIGKILL if one hangs) and removes their data folders. */
export default async function globalTeardown(): Promise<void> {
  const servers = ((globalThis as Record<symbol, unknown>)[SERVER_KEY] as E2eServer[] | undefined) ?? [];
  await Promise.all(servers.map(stop));
  delete (globalThis as Record<symbol, unknown>)[SERVER_KEY];
}

async function stop({ child, dataDir }: E2eServer): Promise<void> {
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
}
