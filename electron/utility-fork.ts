/**
 * A `ForkServer` built on Electron's `utilityProcess.fork`: the bundled server entry (server/entry/utility.ts)
 * with messages on its parent port. The server's output and any crash report are appended to the log file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { utilityProcess } from 'electron';
import type { ForkServer, ServerProcess } from './server-supervisor.ts';

export function electronForkServer(opts: { entry: string; logFile: string; env: Record<string, string> }): ForkServer {
  return (): ServerProcess => {
    fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
    const child = utilityProcess.fork(opts.entry, [], { serviceName: 'Hearth server', stdio: 'pipe', env: opts.env });
    const log = fs.createWriteStream(opts.logFile, { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    let exited = false;
    child.once('exit', () => {
      exited = true;
      setTimeout(() => log.end(), 100);
    });
    return {
      get pid() {
        return child.pid;
      },
      send(msg) {
        if (!exited) child.postMessage(msg);
      },
      onMessage(fn) {
        child.on('message', fn);
      },
      onExit(fn) {
        child.once('exit', (code) => fn(code, null));
      },
      kill() {
        const pid = child.pid;
        if (pid === undefined) return;
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          child.kill();
        }
      },
    };
  };
}
