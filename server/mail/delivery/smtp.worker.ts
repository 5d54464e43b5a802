/**
 * The SMTP thread of the delivery lanes (started by `createSmtpThread` in smtp-thread.ts): composes messages and talks
 * SMTP through its own `createSmtpPool` (smtp-pool.ts), so that MIME encoding, TLS and the socket work of the concurrent attempts run
 * beside the main event loop instead of on it. Immediate-lane attempts run at most `immediateSlots` at once; the
 * others handed over wait here in order and start as a slot frees.
 *
 * Main → thread: {type: 'attempt', id, lane, settings, msg, opts}, {type: 'state', id}, {type: 'stop'} (start nothing
 * more), {type: 'close'}.
 * Thread → main: {type: 'outcome', id, outcome}, {type: 'state', id, running, waiting} (attempts in progress, immediate
 * attempts waiting for a slot), {type: 'closed'} (after every waiting attempt ended `not_started`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OutgoingMessage, SmtpOptions, SmtpOutcome, SmtpSettings } from './smtp-attempt.ts';
import { createSmtpPool } from './smtp-pool.ts';
import type { NotStarted } from './smtp-thread.ts';

type Attempt = { type: 'attempt'; id: number; lane: 'immediate' | 'bulk'; settings: SmtpSettings; msg: OutgoingMessage; opts: SmtpOptions };
type Incoming = Attempt | { type: 'state'; id: number } | { type: 'stop' } | { type: 'close' };

const port = parentPort!;
const { maxConnections, immediateSlots, idleMs } = workerData as { maxConnections: number; immediateSlots: number; idleMs?: number };
const pool = createSmtpPool({ maxConnections, idleMs });
let freeSlots = immediateSlots;
const waiting: Attempt[] = [];
let closing = false;
/** Attempts in progress, every lane. */
let running = 0;

const answer = (id: number, outcome: SmtpOutcome | NotStarted) => port.postMessage({ type: 'outcome', id, outcome });

function run(m: Attempt): void {
  // Attachment contents arrive as Uint8Array (structured clone): nodemailer's encoders want Buffers.
  for (const a of m.msg.attachments ?? []) a.content = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
  running++;
  pool
    .attempt(m.settings, m.msg, m.opts)
    .catch((err: unknown): SmtpOutcome => ({ kind: 'temporary', error: err instanceof Error ? err.message : String(err), response: null }))
    .then((outcome) => {
      running--;
      answer(m.id, outcome);
      if (m.lane !== 'immediate') return;
      const next = closing ? undefined : waiting.shift();
      if (next) run(next);
      else freeSlots++;
    });
}

port.on('message', (m: Incoming) => {
  if (m.type === 'state') {
    port.postMessage({ type: 'state', id: m.id, running, waiting: waiting.length });
  } else if (m.type === 'attempt') {
    if (closing) return answer(m.id, { kind: 'not_started', error: 'outgoing mail is shutting down' });
    if (m.lane !== 'immediate') return run(m);
    if (freeSlots > 0) {
      freeSlots--;
      run(m);
    } else {
      waiting.push(m);
    }
  } else {
    // 'stop': no attempt starts any more (those waiting end not_started); 'close' also ends the pool's sessions.
    closing = true;
    for (const w of waiting.splice(0)) answer(w.id, { kind: 'not_started', error: 'outgoing mail is shutting down' });
    if (m.type === 'close') {
      pool.close();
      port.postMessage({ type: 'closed' });
    }
  }
});
