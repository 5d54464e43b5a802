/**
 * SMTP attempts with nodemailer: a 60-second attempt budget enforced through an AbortSignal, and the outcome
 * classified as accepted, temporary or permanent. Error text never carries credentials. The delivery lanes send
 * through pooled transports (one per profile's settings, up to eight connections, reused across messages, closed
 * after a minute unused); test sends use a fresh transport, so they exercise the settings from the start.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type tls from 'node:tls';
import nodemailer from 'nodemailer';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
}

export interface OutgoingMessage {
  from: { name: string; address: string };
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo?: string | null;
  subject: string;
  text?: string | null;
  html?: string | null;
  headers?: Record<string, string>;
  messageId: string;
  /** Envelope id for delivery status notifications (the send-log id). */
  envelopeId?: string;
  attachments?: Array<{ filename: string; contentType: string; content: Buffer }>;
}

export type SmtpOutcome =
  | { kind: 'accepted'; response: string; rejected: Array<{ recipient: string; reason: string }> }
  | { kind: 'temporary' | 'permanent'; error: string; response: string | null };

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

const TEMPORARY_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET', 'EPROTOCOL', 'ABORT_ERR', 'EABORT', 'ETLS', 'EMESSAGE_TIMEOUT']);

/** Failures without an SMTP reply that retrying cannot fix. */
const PERMANENT_CODES = new Set(['EAUTH', 'EENVELOPE', 'EMESSAGE', 'ENOAUTH']);

interface NodemailerError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: Array<{ recipient?: string; response?: string; responseCode?: number }>;
}

function transportOptions(settings: SmtpSettings, opts: SmtpOptions) {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return {
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    auth: settings.user ? { user: settings.user, pass: settings.password ?? '' } : undefined,
    connectionTimeout: Math.min(timeoutMs, 30_000),
    greetingTimeout: Math.min(timeoutMs, 30_000),
    socketTimeout: timeoutMs,
    tls: { ...(net.isIP(settings.host) ? {} : { servername: settings.host }), ...opts.tls },
    logger: false,
    debug: false,
  };
}

type Transport = ReturnType<typeof nodemailer.createTransport>;

async function sendWith(transport: Transport, settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions): Promise<SmtpOutcome> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`SMTP attempt exceeded ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
  try {
    const info = await transport.sendMail({
      from: msg.from,
      to: msg.to,
      cc: msg.cc,
      bcc: msg.bcc,
      replyTo: msg.replyTo ?? undefined,
      subject: msg.subject,
      text: msg.text ?? undefined,
      html: msg.html ?? undefined,
      headers: msg.headers,
      messageId: msg.messageId,
      attachments: msg.attachments,
      envelope: { from: msg.from.address, to: [...msg.to, ...msg.cc, ...msg.bcc] },
      dsn: msg.envelopeId ? { id: msg.envelopeId, return: 'headers', notify: ['failure'] } : undefined,
      signal: abort.signal,
    });
    const rejectedErrors = (info as unknown as { rejectedErrors?: NodemailerError['rejectedErrors'] }).rejectedErrors ?? [];
    const rejected = (info.rejected as string[]).map((r) => {
      const e = rejectedErrors.find((x) => x.recipient === r);
      return { recipient: r, reason: redact(e?.response ?? 'rejected', settings) };
    });
    return { kind: 'accepted', response: redact(String(info.response ?? ''), settings), rejected };
  } catch (err) {
    const e = err as NodemailerError;
    const response = e.response ? redact(e.response, settings) : null;
    const error = redact(abort.signal.aborted ? `SMTP attempt exceeded ${Math.round(timeoutMs / 1000)} s` : e.message || String(err), settings);
    let code = e.responseCode;
    if (!code && e.rejectedErrors?.length) code = e.rejectedErrors.some((r) => (r.responseCode ?? 500) < 500) ? 450 : 550;
    const permanent = code !== undefined ? code >= 500 : !TEMPORARY_CODES.has(e.code ?? '') && PERMANENT_CODES.has(e.code ?? '');
    return { kind: permanent ? 'permanent' : 'temporary', error, response };
  } finally {
    clearTimeout(timer);
  }
}

/** One attempt on a fresh connection (test sends). */
export async function attemptSmtp(settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions = {}): Promise<SmtpOutcome> {
  const transport = nodemailer.createTransport(transportOptions(settings, opts));
  try {
    return await sendWith(transport, settings, msg, opts);
  } finally {
    transport.close();
  }
}

/** Pooled transports for the delivery lanes: one per distinct settings, reused, closed after `idleMs` unused. */
export function createSmtpPool(o: { maxConnections: number; idleMs?: number }) {
  const idleMs = o.idleMs ?? 60_000;
  const pools = new Map<string, { transport: Transport; busy: number; lastUsed: number }>();
  const keyOf = (s: SmtpSettings, opts: SmtpOptions) =>
    crypto.hash('sha256', JSON.stringify([s.host, s.port, s.secure, s.user, s.password, opts.timeoutMs ?? null, opts.tls ? Object.keys(opts.tls).sort() : null]), 'hex');
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, p] of pools) {
      if (p.busy === 0 && now - p.lastUsed >= idleMs) {
        p.transport.close();
        pools.delete(k);
      }
    }
  }, Math.min(idleMs, 30_000));
  sweep.unref();
  return {
    async attempt(settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions = {}): Promise<SmtpOutcome> {
      const k = keyOf(settings, opts);
      let p = pools.get(k);
      if (!p) {
        p = { transport: nodemailer.createTransport({ ...transportOptions(settings, opts), pool: true, maxConnections: o.maxConnections, maxMessages: 100 }), busy: 0, lastUsed: Date.now() };
        pools.set(k, p);
      }
      p.busy++;
      try {
        return await sendWith(p.transport, settings, msg, opts);
      } finally {
        p.busy--;
        p.lastUsed = Date.now();
      }
    },
    close(): void {
      clearInterval(sweep);
      for (const p of pools.values()) p.transport.close();
      pools.clear();
    },
  };
}
