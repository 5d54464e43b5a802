/**
 * The RFC 5322 / MIME message of one send-log record, built in one synchronous pass.
 *
 * Every encoding rule is nodemailer's own (its exported helpers: header values and addresses through
 * `MimeNode.encodeHeaderValue`, RFC 2047 words, RFC 2231 parameters, quoted-printable, base64 and line folding), and
 * the tree is the one nodemailer's composer builds for the same fields: a text and/or HTML body (multipart/alternative
 * when both) inside multipart/mixed when there are attachments. What differs is only how the bytes are produced:
 * nodemailer's composer streams every node through chains of transform streams and `setImmediate` turns, which cost
 * more than the rest of an immediate-lane delivery together; here a message without attachments is one Buffer, and a
 * message with attachments is a stream that encodes each attachment's base64 lines as the SMTP connection reads them
 * (a 25 MiB attachment is never held twice in memory). `test/integration/mail/mime.test.ts` checks the result against
 * nodemailer's composer, field by field through a MIME parser.
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import * as base64 from 'nodemailer/lib/base64';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import MimeNode from 'nodemailer/lib/mime-node';
import * as qp from 'nodemailer/lib/qp';
import { LINE_FORBIDDEN, NAME_FORBIDDEN, oneLine } from '../text.ts';

const CRLF = '\r\n';
/** Raw bytes per base64 line (76 characters). */
const B64_LINE = 57;
/** Raw bytes an attachment is encoded in at a time (a multiple of 57: whole lines). */
const B64_CHUNK = B64_LINE * 1024;

/**
 * nodemailer's header encoder. One node serves every message (`encodeHeaderValue` keeps no state; the static form
 * would build a node, and draw random bytes for its boundary, per header).
 */
const encoder = new MimeNode(false, {});

/** A header line as nodemailer writes it: the value encoded for its field, folded at 76 characters ('' when empty). */
function header(key: string, value: Parameters<typeof MimeNode.encodeHeaderValue>[1]): string {
  const encoded = encoder.encodeHeaderValue(key, value);
  return encoded.trim() ? mimeFuncs.foldLines(`${key}: ${encoded}`, 76) : '';
}

/** 'Q' or 'B' for a text value, nodemailer's rule: quoted-printable while Latin letters outnumber other characters. */
function textEncoding(value: string): 'Q' | 'B' {
  let nonLatin = 0;
  let latin = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x08 || c === 0x0b || c === 0x0c || (c >= 0x0e && c <= 0x1f) || c >= 0x80) nonLatin++;
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++;
  }
  return nonLatin < latin ? 'Q' : 'B';
}

interface Part {
  headers: string[];
  /** Encoded body lines (CRLF), or the parts of a multipart. */
  body: string | { boundary: string; parts: Part[] } | { attachment: Buffer };
}

/** A text/plain or text/html body: 7bit when plain ASCII with short lines, else quoted-printable or base64. */
function textPart(type: 'text/plain' | 'text/html', content: string): Part {
  const headers = [`Content-Type: ${type}; charset=utf-8`];
  if (mimeFuncs.isPlainText(content) && !mimeFuncs.hasLongerLines(content, 76)) {
    headers.push('Content-Transfer-Encoding: 7bit');
    return { headers, body: content.replace(/\r?\n/g, CRLF) };
  }
  if (textEncoding(content) === 'Q') {
    headers.push('Content-Transfer-Encoding: quoted-printable');
    return { headers, body: qp.wrap(qp.encode(content), 76).replace(/\r?\n/g, CRLF) };
  }
  headers.push('Content-Transfer-Encoding: base64');
  return { headers, body: base64.wrap(base64.encode(Buffer.from(content, 'utf8')), 76) };
}

/** An attachment: its type with a `name` parameter, `Content-Disposition: attachment` with the file name, base64. */
function attachmentPart(a: { filename: string; contentType: string; content: Buffer }): Part {
  // As nodemailer: `name` is an RFC 2047 word when needed (some clients only read that), quoted when it holds specials.
  let name = /[\x00-\x1f\x7f]/.test(a.filename)
    ? mimeFuncs.encodeWord(a.filename, textEncoding(a.filename), 52)
    : mimeFuncs.encodeWords(a.filename, textEncoding(a.filename), 52, true);
  if (name !== a.filename || /[\s'"\\;:/=(),<>@[\]?]|^-/.test(name)) name = JSON.stringify(name);
  // message/* and multipart/* may not be base64 (RFC 2046 5.2.1, 5.1): such a file goes as application/octet-stream.
  const contentType = /^(message|multipart)\//i.test(a.contentType) ? 'application/octet-stream' : a.contentType;
  const type = `${contentType}; name=${name}`;
  const disposition = mimeFuncs.buildHeaderValue({ value: 'attachment', params: { filename: a.filename } });
  return {
    headers: [
      mimeFuncs.foldLines(`Content-Type: ${type}`, 76),
      mimeFuncs.foldLines(`Content-Disposition: ${disposition}`, 76),
      'Content-Transfer-Encoding: base64',
    ],
    body: { attachment: a.content },
  };
}

function multipart(subtype: 'mixed' | 'alternative', parts: Part[]): Part {
  const boundary = `--_hearth_${crypto.randomBytes(12).toString('hex')}`;
  return { headers: [`Content-Type: multipart/${subtype};${CRLF} boundary="${boundary}"`], body: { boundary, parts } };
}

/** The message's chunks in order: strings, and attachment Buffers still to be encoded. */
function* chunks(part: Part): Generator<string | Buffer> {
  yield part.headers.join(CRLF) + CRLF + CRLF;
  const body = part.body;
  if (typeof body === 'string') {
    yield body;
  } else if ('attachment' in body) {
    yield body.attachment;
  } else {
    for (let i = 0; i < body.parts.length; i++) {
      yield `${i > 0 ? CRLF : ''}--${body.boundary}${CRLF}`;
      yield* chunks(body.parts[i]!);
    }
    yield `${CRLF}--${body.boundary}--${CRLF}`;
  }
}

/** Base64 of `buf` from `start` for `length` bytes, in 76-character lines each ending with CRLF except the last. */
function base64Lines(buf: Buffer, start: number, length: number, last: boolean): string {
  const text = buf.toString('base64', start, start + length);
  let out = '';
  for (let i = 0; i < text.length; i += 76) {
    out += text.slice(i, i + 76);
    if (i + 76 < text.length || !last) out += CRLF;
  }
  return out;
}

export interface ComposedMessage {
  /** The message: one Buffer, or a stream when it carries attachments (encoded as it is read). */
  message: Buffer | Readable;
  /** Its size in bytes (for the SIZE extension). */
  size: number;
}

/** A message as Hearth hands it to SMTP: who from, to whom, what (composed into MIME below). */
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

/**
 * Composes the message. `date` is the Date header (the attempt's time, as nodemailer sets it). Bcc recipients are
 * in the envelope only, never in a header.
 */
export function composeMessage(msg: OutgoingMessage, date: Date = new Date()): ComposedMessage {
  const top = [
    // the API refuses these characters; a name or subject stored before that rule still goes out as one line
    header('From', { name: oneLine(msg.from.name, NAME_FORBIDDEN), address: msg.from.address }),
    msg.replyTo ? header('Reply-To', msg.replyTo) : '',
    msg.to.length ? header('To', msg.to) : '',
    msg.cc.length ? header('Cc', msg.cc) : '',
    header('Subject', oneLine(msg.subject, LINE_FORBIDDEN)),
    header('Message-ID', msg.messageId),
    header('Date', date),
    'MIME-Version: 1.0',
  ];
  for (const [k, v] of Object.entries(msg.headers ?? {})) top.push(header(k, v));

  const bodies: Part[] = [];
  if (typeof msg.text === 'string') bodies.push(textPart('text/plain', msg.text));
  if (typeof msg.html === 'string') bodies.push(textPart('text/html', msg.html));
  if (bodies.length === 0) bodies.push(textPart('text/plain', ''));
  let root = bodies.length > 1 ? multipart('alternative', bodies) : bodies[0]!;
  const files = msg.attachments ?? [];
  if (files.length) root = multipart('mixed', [root, ...files.map(attachmentPart)]);
  root = { ...root, headers: [...top.filter(Boolean), ...root.headers] };

  const list = [...chunks(root)];
  if (files.length === 0) {
    const buf = Buffer.from(list.join(''), 'utf8');
    return { message: buf, size: buf.length };
  }
  let size = 0;
  for (const c of list)
    size += typeof c === 'string' ? Buffer.byteLength(c) : Math.ceil(c.length / 3) * 4 + Math.max(0, Math.ceil(c.length / B64_LINE) - 1) * 2;
  function* encoded(): Generator<string> {
    for (const c of list) {
      if (typeof c === 'string') {
        yield c;
        continue;
      }
      for (let at = 0; at < c.length; at += B64_CHUNK) {
        const n = Math.min(B64_CHUNK, c.length - at);
        yield base64Lines(c, at, n, at + n >= c.length);
      }
    }
  }
  return { message: Readable.from(encoded(), { objectMode: false }), size };
}
