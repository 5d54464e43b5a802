/**
 * Which server runs on a data folder: `<data>/hearth.pid` holds the process id of the server that has it open,
 * written when a server starts and removed when it stops. Offline commands that would replace the folder's files
 * under a running server (`hearth backup restore --force`) refuse while that process lives.
 *
 * It is not a lock (a server never refuses to start because of it: replicas may share a folder, and a kill -9 leaves
 * the file behind): a file naming a process that is gone is stale and ignored. A process id reused by an unrelated
 * process makes the check refuse until the file is removed; the message says so.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PID_FILE = 'hearth.pid';

/** Data folders a server in this process has open (a process id of our own counts only for these). */
const mine = new Set<string>();

/** Records this process as the folder's server; returns the function that removes the record at close. */
export function recordServerPid(dataDir: string): () => void {
  const file = path.join(dataDir, PID_FILE);
  const dir = path.resolve(dataDir);
  fs.writeFileSync(file, `${process.pid}\n`, { mode: 0o600 });
  mine.add(dir);
  return () => {
    mine.delete(dir);
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

/** The process id of a live server on `dataDir`, or null. */
export function runningServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  if (pid === process.pid) return mine.has(path.resolve(dataDir)) ? pid : null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
