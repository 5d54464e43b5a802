/**
 * One SMTP attempt: one message over one SMTP connection with nodemailer's SMTP client (`SMTPConnection`: STARTTLS,
 * AUTH, PIPELINING, DSN, SIZE) and the message composed by `mime.ts`: a 60-second budget per attempt, and the outcome
 * classified as accepted, temporary or permanent. Error text never carries credentials. Where the connection comes
 * from is the caller's: test sends open a fresh one (`attemptSmtp`), so they exercise the settings from the start; the
 * delivery lanes take pooled sessions (`smtp-pool.ts`, run in the SMTP thread of `smtp-thread.ts`).
 *
 * Why not `transporter.sendMail`: nodemailer's mailer and pool wrap every message in a plugin pipeline and a chain of
 * streams that cost more CPU than everything else an immediate-lane delivery does (benchmarked in bench/mail.bench.ts);
 * the SMTP client underneath is the same.
 */
import net from 'node:net';
import { Readable } from 'node:stream';
import type tls from 'node:tls';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { describeTlsFailure, withTrustedCa } from '../tls-ca.ts';
import { composeMessage, type OutgoingMessage } from './mime.ts';
import { type SmtpFailureReason, smtpFailureReason } from './smtp-failure.ts';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
  /** The profile's trusted CA (PEM), trusted besides Node's default CAs; null or absent: the default CAs only. */
  ca?: string | null;
}

export type { OutgoingMessage };

export type SmtpOutcome =
  | { kind: 'accepted'; response: string; rejected: Array<{ recipient: string; reason: string }> }
  | { kind: 'temporary' | 'permanent'; error: string; response: string | null; reason?: SmtpFailureReason };

export interface SmtpOptions {
  /** Attempt budget (ms), default 60 000. */
  timeoutMs?: number;
  /** Extra TLS options (tests trust their self-signed peer with `ca`). */
  tls?: tls.ConnectionOptions;
}

/** Replaces the credentials, in clear and in the base64 forms of AUTH PLAIN / LOGIN, by `[redacted]`. */
export function redact(text: string, s: Pick<SmtpSettings, 'user' | 'password'>): string {
  const secrets: string[] = [];
  const add = (v: string | null | undefined) => {
    if (v && v.length >= 1) secrets.push(v);
  };
  add(s.password);
  if (s.password) add(Buffer.from(s.password).toString('base64'));
  if (s.user) {
    add(Buffer.from(s.user).toString('base64'));
    if (s.password) add(Buffer.from(`\u0000${s.user}\u0000${s.password}`).toString('base64'));
  }
  let out = text;
  for (const v of secrets.sort((a, b) => b.length - a.length)) out = out.split(v).join('[redacted]');
  return out;
}

const TEMPORARY_CODES = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPROTOCOL',
  'ABORT_ERR',
  'EABORT',
  'ETLS',
  'EMESSAGE_TIMEOUT',
]);

/** Failures without an SMTP reply that retrying cannot fix. */
const PERMANENT_CODES = new Set(['EAUTH', 'EENVELOPE', 'EMESSAGE', 'ENOAUTH']);

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  rejectedErrors?: Array<{ recipient?: string; response?: string; responseCode?: number }>;
}

function connectionOptions(settings: SmtpSettings, opts: SmtpOptions): SMTPConnection.Options {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    connectionTimeout: Math.min(timeoutMs, 30_000),
    greetingTimeout: Math.min(timeoutMs, 30_000),
    socketTimeout: timeoutMs,
    tls: { ...(net.isIP(settings.host) ? {} : { servername: settings.host }), ...withTrustedCa(opts.tls, settings.ca ?? null) },
    logger: false,
    debug: false,
  };
}

/** One SMTP session: connected (with STARTTLS when offered) and logged in, ready for messages. */
export interface Session {
  conn: SMTPConnection;
  /** Messages sent on it. */
  messages: number;
  /** The server or the network ended it (it is never handed out again). */
  dead: boolean;
  /** The pool's idle timer while the session waits unused (a handle of the pool's timers), else null. */
  idleTimer: unknown;
  onDead: (() => void) | null;
}

/**
 * Opens a session: connect, then AUTH when the profile has a user and the server offers AUTH (nodemailer's rule).
 * `track` receives the connection at once, so that the attempt budget can close it while it is still opening.
 */
export function openSession(settings: SmtpSettings, opts: SmtpOptions, track: (conn: SMTPConnection) => void): Promise<Session> {
  const conn = new SMTPConnection(connectionOptions(settings, opts));
  track(conn);
  const session: Session = { conn, messages: 0, dead: false, idleTimer: null, onDead: null };
  const die = () => {
    if (session.dead) return;
    session.dead = true;
    session.onDead?.();
  };
  return new Promise<Session>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      const first = !settled;
      settled = true;
      die();
      conn.close();
      if (first) reject(err);
    };
    // Errors while a message is in flight also reach its send callback; an error while idle only ends the session.
    conn.on('error', (err: Error) => (settled ? die() : fail(err)));
    conn.once('end', () => (settled ? die() : fail(Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION' }))));
    conn.connect((err?: Error | null) => {
      if (settled) return;
      if (err) return fail(err);
      const ready = () => {
        settled = true;
        resolve(session);
      };
      if (!settings.user || !conn.allowsAuth) return ready();
      conn.login({ credentials: { user: settings.user, pass: settings.password ?? '' } }, (e?: Error | null) => (e ? fail(e) : ready()));
    });
  });
}

/** One message on an open session. */
function sendOn(session: Session, envelope: SMTPConnection.Envelope, message: Buffer | Readable): Promise<SMTPConnection.SentMessageInfo> {
  return new Promise((resolve, reject) =>
    session.conn.send(envelope, message, (err: Error | null, info: SMTPConnection.SentMessageInfo) => (err ? reject(err) : resolve(info))),
  );
}

/** Failures that say nothing about the message: the connection broke or the server is closing it. */
const transient = (e: SmtpError) =>
  e.responseCode === 421 || (e.responseCode === undefined && ['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EPROTOCOL'].includes(e.code ?? ''));

function classify(err: unknown, settings: SmtpSettings, timedOut: string | null, noGreeting = false): SmtpOutcome {
  const e = err as SmtpError;
  const response = e.response ? redact(e.response, settings) : null;
  const reason = smtpFailureReason(err, settings.secure, { timedOut: timedOut !== null, noGreeting });
  const said = timedOut !== null && noGreeting ? `${timedOut}: connected, but no SMTP greeting came` : timedOut;
  const error = redact(said ?? describeTlsFailure(err) ?? (e.message || String(err)), settings);
  let code = e.responseCode;
  if (!code && e.rejectedErrors?.length) code = e.rejectedErrors.some((r) => (r.responseCode ?? 500) < 500) ? 450 : 550;
  const permanent = timedOut === null && (code !== undefined ? code >= 500 : !TEMPORARY_CODES.has(e.code ?? '') && PERMANENT_CODES.has(e.code ?? ''));
  return { kind: permanent ? 'permanent' : 'temporary', error, response, reason };
}

function accepted(info: SMTPConnection.SentMessageInfo, settings: SmtpSettings): SmtpOutcome {
  const rejectedErrors = (info as { rejectedErrors?: SmtpError['rejectedErrors'] }).rejectedErrors ?? [];
  const rejected = (info.rejected ?? []).map((r) => {
    const e = rejectedErrors.find((x) => x.recipient === r);
    return { recipient: r, reason: redact(e?.response ?? 'rejected', settings) };
  });
  return { kind: 'accepted', response: redact(String(info.response ?? ''), settings), rejected };
}

/** Where an attempt gets its session from and gives it back to. */
export interface SessionSource {
  acquire(track: (conn: SMTPConnection) => void): Promise<{ session: Session; reused: boolean }>;
  /**
   * The session after a message: `clean` to reuse it, `reset` to reuse it after RSET (the server refused the message,
   * its transaction is still open), `close` to end it.
   */
  release(session: Session, state: 'clean' | 'reset' | 'close'): void;
}

/**
 * One attempt: compose, take a session, MAIL FROM / RCPT TO / DATA, all within the attempt budget. A message a
 * reused session could not even start (the server had dropped or was closing it) is tried once more on a new
 * session, as nodemailer's pool does; once any byte of the message was read, it never is (no duplicate).
 */
export async function attemptOn(source: SessionSource, settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions): Promise<SmtpOutcome> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const budgetText = `SMTP attempt exceeded ${Math.round(timeoutMs / 1000)} s`;
  let current: SMTPConnection | null = null;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      current?.close();
      reject(new Error(budgetText));
    }, timeoutMs);
  });
  budget.catch(() => {});
  /** A connection being opened for this attempt (closed at once when the budget is already spent). */
  const track = (conn: SMTPConnection) => {
    current = conn;
    if (timedOut) conn.close();
  };
  const envelope = {
    from: msg.from.address,
    to: [...msg.to, ...msg.cc, ...msg.bcc],
    ...(msg.envelopeId ? { dsn: { id: msg.envelopeId, return: 'headers', notify: ['failure'] } } : {}),
  } as SMTPConnection.Envelope;
  try {
    for (let round = 0; ; round++) {
      // Composed before a session is taken (a message that cannot be composed holds none), again for a retry.
      let composed: ReturnType<typeof composeMessage>;
      try {
        composed = composeMessage(msg);
      } catch (err) {
        // Retrying cannot fix what the composer refuses.
        return { kind: 'permanent', error: `the message could not be composed: ${(err as Error).message}`, response: null };
      }
      // Always a stream: whether any byte of it was read tells whether the server may have the message.
      const message = composed.message instanceof Readable ? composed.message : Readable.from([composed.message], { objectMode: false });
      const acquiring = source.acquire(track);
      let got: Awaited<typeof acquiring>;
      try {
        got = await Promise.race([acquiring, budget]);
      } catch (err) {
        message.destroy();
        // The budget ran out while waiting for a session: one that arrives later goes back unused.
        acquiring.then(
          ({ session }) => source.release(session, 'clean'),
          () => {},
        );
        throw err;
      }
      const { session, reused } = got;
      current = session.conn;
      const sent = sendOn(session, { ...envelope, size: composed.size } as SMTPConnection.Envelope, message);
      try {
        const info = await Promise.race([sent, budget]);
        session.messages++;
        source.release(session, 'clean');
        return accepted(info, settings);
      } catch (err) {
        sent.catch(() => {});
        const e = err as SmtpError;
        session.messages++;
        // The server refused this message (not the session): RSET keeps the connection for the next one.
        const refusedOnly = !timedOut && (e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && e.responseCode !== 421 && !session.dead;
        source.release(session, refusedOnly ? 'reset' : 'close');
        // The message is only read once the server accepted DATA: unread, the server cannot have it.
        if (!timedOut && round === 0 && reused && !message.readableDidRead && transient(e)) {
          message.destroy();
          continue;
        }
        throw err;
      }
    }
  } catch (err) {
    // A connection that is open but never greeted: what a plain client gets from a server waiting for TLS.
    const conn = current as (SMTPConnection & { stage?: string; lastServerResponse?: unknown }) | null;
    const noGreeting = timedOut && conn !== null && conn.stage === 'connected' && !conn.lastServerResponse;
    return classify(err, settings, timedOut ? budgetText : null, noGreeting);
  } finally {
    clearTimeout(timer);
  }
}

/** One attempt on a fresh connection (test sends). */
export async function attemptSmtp(settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions = {}): Promise<SmtpOutcome> {
  return attemptOn(
    {
      acquire: async (track) => ({ session: await openSession(settings, opts, track), reused: false }),
      release: (session, state) => (state === 'close' ? session.conn.close() : session.conn.quit()),
    },
    settings,
    msg,
    opts,
  );
}
