/**
 * The SMTP thread of the delivery lanes (started by `createSmtpThread` in smtp.ts): composes messages and talks SMTP
 * through its own `createSmtpPool`, so that MIME encoding, TLS and the socket work of up to eight concurrent attempts
 * run beside the main event loop instead of on it.
 *
 * Main → thread: {type: 'attempt', id, settings, msg, opts}, {type: 'close'}.
 * Thread → main: {type: 'outcome', id, outcome}, {type: 'closed'}.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSmtpPool, type OutgoingMessage, type SmtpOptions, type SmtpOutcome, type SmtpSettings } from './smtp.ts';

type Incoming =
  | { type: 'attempt'; id: number; settings: SmtpSettings; msg: OutgoingMessage; opts: SmtpOptions }
  | { type: 'close' };

const port = parentPort!;
const { maxConnections, idleMs } = workerData as { maxConnections: number; idleMs?: number };
const pool = createSmtpPool({ maxConnections, idleMs });

port.on('message', (m: Incoming) => {
  if (m.type === 'attempt') {
    // Attachment contents arrive as Uint8Array (structured clone): nodemailer's encoders want Buffers.
    for (const a of m.msg.attachments ?? []) a.content = Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength);
    pool.attempt(m.settings, m.msg, m.opts).then(
      (outcome) => port.postMessage({ type: 'outcome', id: m.id, outcome }),
      (err: unknown) => port.postMessage({ type: 'outcome', id: m.id, outcome: { kind: 'temporary', error: err instanceof Error ? err.message : String(err), response: null } satisfies SmtpOutcome }),
    );
  } else if (m.type === 'close') {
    pool.close();
    port.postMessage({ type: 'closed' });
  }
});
