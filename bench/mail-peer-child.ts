/**
 * The SMTP peer of the mail benchmark, in its own process (forked by bench/lib.ts `startChild`): `smtp-server` on
 * 127.0.0.1, port 0, plain SMTP (no STARTTLS, no AUTH), that accepts every message and only counts it (no parsing),
 * so that it costs both sides of a comparison the same and as little as possible.
 *
 * smtp-server as shipped waits a fixed 100 ms after accepting a connection before it sends its 220 greeting ("a small
 * delay for detecting early talkers", smtp-connection.js `init`). `{greetingDelay: false}` at start removes that
 * delay (the connection is made ready at once, as a submission server such as Postfix's port 587 does by default), so
 * that a sender opening one connection per message is not floored at 100 ms per message by the peer.
 *
 * Parent → child: {type: 'start', greetingDelay?: boolean}, {type: 'reset', id}, {type: 'wait', id, n, timeoutMs},
 *                 {type: 'stop'}.
 * Child → parent: {type: 'ready', url: 'smtp://127.0.0.1:<port>'}, {type: 'reply', id, ...PeerReport}.
 * Times are epoch milliseconds with sub-millisecond resolution (performance.timeOrigin + performance.now()), so they
 * compare with the parent's clock.
 */
import { performance } from 'node:perf_hooks';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

/** smtp-server's connection init without the 100 ms early-talker delay (the rest as in smtp-connection.js `init`). */
function removeGreetingDelay(): void {
  type Conn = {
    _setListeners(cb: () => void): void;
    _server: { options: { maxClients?: number }; connections: Set<unknown> };
    name: string;
    send(code: number, msg: string, ok: boolean): void;
    connectionReady(): void;
  };
  (SMTPConnection.prototype as unknown as { init(this: Conn): void }).init = function (this: Conn) {
    this._setListeners(() => {
      if (this._server.options.maxClients && this._server.connections.size > this._server.options.maxClients) {
        return this.send(421, `${this.name} Too many connected clients, try again in a moment`, false);
      }
      this.connectionReady();
    });
  };
}

export interface PeerReport {
  /** Messages accepted since the last reset. */
  count: number;
  /** Acceptance time of each message (end of DATA), in arrival order. */
  accepted: number[];
  /** Start time of each SMTP session (connection accepted) since the last reset. */
  connects: number[];
  /** SMTP sessions since the last reset, and the most open at once. */
  connections: number;
  maxOpen: number;
  bytes: number;
  /** False when `wait` gave up before `n` messages arrived. */
  complete: boolean;
}

if (!process.send) {
  console.error('bench/mail-peer-child.ts must be started with child_process.fork (it talks over IPC)');
  process.exit(2);
}
const send = (msg: Record<string, unknown>) => process.send!(msg);
const epoch = () => performance.timeOrigin + performance.now();

let accepted: number[] = [];
let connects: number[] = [];
let connections = 0;
let open = 0;
let maxOpen = 0;
let bytes = 0;
let waiters: Array<() => void> = [];

const server = new SMTPServer({
  secure: false,
  disabledCommands: ['STARTTLS', 'AUTH'],
  authOptional: true,
  // No reverse DNS lookup of 127.0.0.1 per session: it is slow on some machines (up to smtp-server's 1.5 s cap) and
  // would measure the resolver, not the senders.
  disableReverseLookup: true,
  logger: false,
  size: 64 * 1024 * 1024,
  onConnect(_session, cb) {
    connections++;
    connects.push(epoch());
    maxOpen = Math.max(maxOpen, ++open);
    cb();
  },
  onClose() {
    open--;
  },
  onData(stream, _session, cb) {
    let n = 0;
    stream.on('data', (c: Buffer) => (n += c.length));
    stream.on('end', () => {
      accepted.push(epoch());
      bytes += n;
      cb(null, `queued as bench-${accepted.length}`);
      if (waiters.length) for (const w of waiters.splice(0)) w();
    });
  },
});

function report(complete: boolean): PeerReport {
  return { count: accepted.length, accepted, connects, connections, maxOpen, bytes, complete };
}

async function waitFor(n: number, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (accepted.length < n) {
    if (Date.now() > end) return false;
    await new Promise<void>((resolve) => {
      waiters.push(resolve);
      setTimeout(resolve, 200);
    });
  }
  return true;
}

let stopping = false;
function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  server.close(() => process.exit(code));
  setTimeout(() => process.exit(code), 2000).unref();
}

process.on('disconnect', () => stop(0));
process.on('message', (raw) => {
  const msg = raw as { type: string; id?: number; n?: number; timeoutMs?: number; greetingDelay?: boolean };
  if (msg.type === 'start') {
    if (msg.greetingDelay === false) removeGreetingDelay();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.server.address() as { port: number }).port;
      send({ type: 'ready', url: `smtp://127.0.0.1:${port}` });
    });
  } else if (msg.type === 'reset') {
    accepted = [];
    connects = [];
    connections = 0;
    maxOpen = open;
    bytes = 0;
    waiters = [];
    send({ type: 'reply', id: msg.id });
  } else if (msg.type === 'wait') {
    void waitFor(msg.n ?? 0, msg.timeoutMs ?? 60_000).then((ok) => send({ type: 'reply', id: msg.id, ...report(ok) }));
  } else if (msg.type === 'stop') {
    stop(0);
  }
});
