/**
 * The platform database's WAL checkpointer (started by `startCheckpointer` in platform-db.ts): a worker thread with
 * its own connection that runs a PASSIVE checkpoint every `intervalMs`, so that copying WAL pages back into
 * platform.db (and its fsync) happens beside the event loop rather than inside whichever request's commit crossed
 * SQLite's automatic checkpoint threshold. PASSIVE never waits for and never blocks readers or writers.
 *
 * Main → thread: 'close' (one last checkpoint, then the connection closes). Thread → main: 'closed'.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Database } from './sqlite.ts';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const db = new Database(file, { fileMustExist: true });
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or locked this time (another process checkpoints): the next tick tries again.
  }
};
const timer = setInterval(checkpoint, intervalMs);
parentPort!.on('message', (m: unknown) => {
  if (m !== 'close') return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort!.postMessage('closed');
  parentPort!.close();
});
