/**
 * `composeMessage` against nodemailer's own composer: the same fields built by both, parsed by mailparser, must give
 * the same message (addresses, subject, bodies, headers, attachments), and the composed bytes must be valid on the
 * wire (CRLF only, lines of at most 998 octets, `size` exact).
 */
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { type AddressObject, type Attachment, type ParsedMail, simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import type { OutgoingMessage } from '../../../server/mail/delivery/mime.ts';
import { composeMessage } from '../../../server/mail/delivery/mime.ts';

const DATE = new Date('2026-03-01T10:11:12Z');

function message(over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    from: { name: 'Hearth', address: 'hearth@example.test' },
    to: ['alice@example.test'],
    cc: [],
    bcc: [],
    subject: 'Hello',
    messageId: `<${crypto.randomUUID()}@example.test>`,
    ...over,
  };
}

async function bytes(m: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(m)) return m;
  const chunks: Buffer[] = [];
  for await (const c of m) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as string));
  return Buffer.concat(chunks);
}

/** mime.ts sends message/* and multipart/* files as application/octet-stream (they may not be base64). */
const sentType = (t: string) => (/^(message|multipart)\//i.test(t) ? 'application/octet-stream' : t);

/** The same message through nodemailer's composer. */
function nodemailer(msg: OutgoingMessage, date: Date): Promise<Buffer> {
  const mail = {
    from: msg.from,
    to: msg.to,
    cc: msg.cc,
    bcc: msg.bcc,
    ...(msg.replyTo ? { replyTo: msg.replyTo } : {}),
    subject: msg.subject,
    ...(typeof msg.text === 'string' ? { text: msg.text } : {}),
    ...(typeof msg.html === 'string' ? { html: msg.html } : {}),
    headers: msg.headers ?? {},
    messageId: msg.messageId,
    date,
    attachments: (msg.attachments ?? []).map((a) => ({ filename: a.filename, contentType: sentType(a.contentType), content: a.content })),
  };
  return new Promise((resolve, reject) => new MailComposer(mail).compile().build((err, buf) => (err ? reject(err) : resolve(buf))));
}

const addresses = (a: AddressObject | AddressObject[] | undefined) =>
  a === undefined ? undefined : (Array.isArray(a) ? a : [a]).flatMap((o) => o.value.map((v) => ({ address: v.address, name: v.name })));

/** The base64 bodies of a raw message, in order (attachments, and text bodies encoded as base64). */
function base64Bodies(raw: Buffer): string[] {
  const re = /\r\nContent-Transfer-Encoding: base64\r\n(?:[^\r\n]+\r\n(?:[ \t][^\r\n]*\r\n)*)*\r\n([\s\S]*?)\r\n--/g;
  return [...raw.toString('latin1').matchAll(re)].map((m) => m[1]!);
}

/**
 * Every line ends in CRLF (no bare CR or LF) and is at most 998 octets long. Only the last line of a single-part
 * message may lack its CRLF: SMTP's DATA terminator supplies it (nodemailer's composer writes it itself; on the wire
 * the two are the same bytes).
 */
function expectWireLines(raw: Buffer) {
  const lines = raw.toString('latin1').split('\r\n');
  for (const line of lines) {
    expect(line).not.toMatch(/[\r\n]/);
    expect(line.length).toBeLessThanOrEqual(998);
  }
}

/** The message as nodemailer's SMTP client transmits it (its DataStream): bare CR and LF as CRLF, a CRLF at the end. */
function wire(raw: Buffer): Buffer {
  const text = raw.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n');
  return Buffer.from(text.endsWith('\r\n') ? text : `${text}\r\n`, 'latin1');
}

/** RFC 2047 decoding of a header value (mailparser leaves the values of other headers encoded). */
function decodeWords(value: string): string {
  return value.replace(/(?:=\?utf-8\?[QB]\?[^?]*\?=\s*)+/gi, (run) => {
    const bytes = [...run.matchAll(/=\?utf-8\?([QB])\?([^?]*)\?=/gi)].map(([, enc, text]) =>
      enc!.toUpperCase() === 'B'
        ? Buffer.from(text!, 'base64')
        : Buffer.from(
            text!.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          ),
    );
    return Buffer.concat(bytes).toString('utf8') + (/\s$/.test(run) ? run.match(/\s*$/)![0] : '');
  });
}

const contentType = (a: Attachment) => (a.headers.get('content-type') as { value: string }).value;

interface Compared {
  /** mime.ts's message as composed. */
  ours: ParsedMail;
  raw: Buffer;
}

/**
 * Composes `msg` both ways and asserts the parsed messages agree field by field (each as SMTP transmits it), and that
 * mime.ts's message, as composed, carries the input.
 */
async function compare(msg: OutgoingMessage): Promise<Compared> {
  const composed = composeMessage(msg, DATE);
  expect(composed.message instanceof Readable).toBe(Boolean(msg.attachments?.length));
  const raw = await bytes(composed.message);
  expect(raw.length).toBe(composed.size);
  expectWireLines(raw);
  const ref = await nodemailer(msg, DATE);
  const [ours, mine, theirs] = await Promise.all([simpleParser(raw), simpleParser(wire(raw)), simpleParser(wire(ref))]);

  // mime.ts against nodemailer
  expect(mine.subject).toBe(theirs.subject);
  expect(addresses(mine.from)).toEqual(addresses(theirs.from));
  expect(addresses(mine.to)).toEqual(addresses(theirs.to));
  expect(addresses(mine.cc)).toEqual(addresses(theirs.cc));
  expect(addresses(mine.replyTo)).toEqual(addresses(theirs.replyTo));
  expect(mine.messageId).toBe(theirs.messageId);
  expect(mine.date?.getTime()).toBe(theirs.date?.getTime());
  expect(mine.text).toBe(theirs.text);
  expect(mine.html).toBe(theirs.html);
  for (const k of Object.keys(msg.headers ?? {})) expect(mine.headers.get(k.toLowerCase())).toEqual(theirs.headers.get(k.toLowerCase()));
  expect(mine.attachments).toHaveLength(theirs.attachments.length);
  mine.attachments.forEach((a, i) => {
    const t = theirs.attachments[i]!;
    expect(a.filename).toBe(t.filename);
    expect(contentType(a)).toBe(contentType(t));
    expect(a.contentType).toBe(t.contentType);
    expect(a.contentDisposition).toBe(t.contentDisposition);
    expect(a.content.equals(t.content)).toBe(true);
  });
  // The encoded base64 text itself, line by line, is nodemailer's (76-character lines across mime.ts's chunks).
  expect(base64Bodies(raw)).toEqual(base64Bodies(wire(ref)));

  // mime.ts against the input
  expect(ours.subject).toBe(msg.subject);
  expect(addresses(ours.from)).toEqual([{ address: msg.from.address, name: msg.from.name }]);
  expect(ours.messageId).toBe(msg.messageId);
  expect(ours.date?.getTime()).toBe(DATE.getTime());
  if (typeof msg.text === 'string') expect(ours.text).toBe(msg.text.replace(/\r\n/g, '\n'));
  if (typeof msg.html === 'string') expect(ours.html).toBe(msg.html.replace(/\r\n/g, '\n'));
  for (const [k, v] of Object.entries(msg.headers ?? {})) {
    expect(ours.headers.has(k.toLowerCase())).toBe(true);
    if (k.toLowerCase().startsWith('x-')) expect(decodeWords(ours.headers.get(k.toLowerCase()) as string)).toBe(v);
  }
  expect(ours.headers.has('bcc')).toBe(false);
  for (const b of msg.bcc) expect(raw.toString('latin1')).not.toContain(b);
  const files = msg.attachments ?? [];
  expect(ours.attachments).toHaveLength(files.length);
  ours.attachments.forEach((a, i) => {
    expect(a.filename).toBe(files[i]!.filename);
    expect(contentType(a)).toBe(sentType(files[i]!.contentType));
    expect(a.contentDisposition).toBe('attachment');
    expect(a.content.equals(files[i]!.content)).toBe(true);
  });
  return { ours, raw };
}

const longSubject =
  'Quarterly report for the northern region: revenue, costs, headcount, open positions, ' +
  'customer satisfaction, churn, pipeline, forecasts and a very long tail of words so that the subject needs folding – Überblick';
const longLines =
  `${'This is a deliberately long line of plain ASCII text that goes well past seventy-six characters. '.repeat(3)}\n` + `short\n${'x'.repeat(1200)}\nend`;
const nonLatin = '山田さん、\n今月の請求書を添付いたします。ご確認のほど、よろしくお願いいたします。\nПривет, мир! Ελληνικά κείμενα.\n';

const cases: Array<[string, Partial<OutgoingMessage>]> = [
  ['ASCII text only', { text: 'Hello Alice,\nthis is a test.\n\nBye' }],
  ['html only', { html: '<html><body><p>Hello <b>Alice</b></p></body></html>' }],
  [
    'text and html',
    { text: 'Hello Alice', html: '<p>Hello Alice</p>', cc: ['carol@example.test'], bcc: ['secret-bcc@example.test'], replyTo: 'reply@example.test' },
  ],
  ['non-ASCII subject', { subject: 'Grüße – 請求書 42 🎉', text: 'x' }],
  [
    'non-ASCII display name',
    { from: { name: 'Jürgen Groß', address: 'j@example.test' }, to: ['"Zoë Ünal" <zoe@example.test>', 'bob@example.test'], text: 'x' },
  ],
  ['CJK display name', { from: { name: '山田 太郎', address: 'yamada@example.test' }, text: 'x' }],
  [
    'display name with a comma',
    { from: { name: 'Doe, John', address: 'john@example.test' }, to: ['"Roe, Jane" <jane@example.test>'], cc: ['"Poe, Ed" <ed@example.test>'], text: 'x' },
  ],
  ['display name with quotes', { from: { name: '"quoted" Name', address: 'q@example.test' }, replyTo: '"Help \\"Desk\\"" <help@example.test>', text: 'x' }],
  ['very long subject (folded)', { subject: longSubject, text: 'x' }],
  ['very long ASCII subject without spaces', { subject: 'A'.repeat(300), text: 'x' }],
  ['text with long lines (quoted-printable)', { text: longLines, html: `<p>${'long html '.repeat(40)}</p>` }],
  ['mostly non-Latin text (base64)', { text: nonLatin, html: `<p>${nonLatin}</p>` }],
  [
    'lines starting with "." and "From ", trailing spaces',
    { text: '.\n..two dots\n.leading dot\nFrom the start\nFrom: not a header\ntrailing spaces   \ntab\t\n.' },
  ],
  ['CRLF and LF mixed', { text: 'one\r\ntwo\nthree\r\n\r\nfour\n\nfive\r\n', html: '<p>a</p>\r\n<p>b</p>\n' }],
  [
    'custom headers',
    {
      text: 'x',
      headers: {
        'X-Campaign': 'spring-2026',
        'X-Kunde': 'Müller & Söhne – Grüße',
        'In-Reply-To': '<parent@example.test>',
        References: '<root@example.test> <parent@example.test>',
      },
    },
  ],
];

describe('composeMessage matches nodemailer', () => {
  for (const [name, over] of cases) {
    it(name, async () => {
      await compare(message(over));
    });
  }

  it('In-Reply-To and References arrive as given', async () => {
    const { ours } = await compare(
      message({ text: 'x', headers: { 'In-Reply-To': '<parent@example.test>', References: '<root@example.test> <parent@example.test>' } }),
    );
    expect(ours.inReplyTo).toBe('<parent@example.test>');
    expect(ours.references).toEqual(['<root@example.test>', '<parent@example.test>']);
  });

  it('text bodies decode to the input (line ends as LF)', async () => {
    for (const text of [longLines, nonLatin, 'one\r\ntwo\nthree\r\n', 'x', '.\nFrom x\ntrailing  ']) {
      const { ours } = await compare(message({ text }));
      expect(ours.text).toBe(text.replace(/\r\n/g, '\n'));
    }
  });

  it('binary attachments of every size around the base64 line and chunk lengths', async () => {
    const sizes = [0, 1, 2, 3, 56, 57, 58, 114, 57 * 1024 - 1, 57 * 1024, 57 * 1024 + 1, 200 * 1024];
    const attachments = sizes.map((n, i) => ({ filename: `blob-${i}.bin`, contentType: 'application/octet-stream', content: crypto.randomBytes(n) }));
    const { ours } = await compare(message({ text: 'see attached', attachments }));
    expect(ours.attachments.map((a) => a.content.length)).toEqual(sizes);
  });

  it('a ~200 KiB attachment alone, with text and html', async () => {
    await compare(
      message({
        text: 'big',
        html: '<p>big</p>',
        attachments: [{ filename: 'big.bin', contentType: 'application/octet-stream', content: crypto.randomBytes(200 * 1024 + 7) }],
      }),
    );
  });

  it('a text/csv attachment, a non-ASCII filename and one with spaces, quotes and semicolons', async () => {
    const csv = Buffer.from('id;name;amount\r\n1;Müller;12,50\r\n2;"Doe, John";7\r\n');
    await compare(
      message({
        html: '<p>files</p>',
        attachments: [
          { filename: 'export.csv', contentType: 'text/csv', content: csv },
          { filename: 'Rechnung für März.pdf', contentType: 'application/pdf', content: crypto.randomBytes(3000) },
          { filename: 'my "final" report; v2 (copy).txt', contentType: 'text/plain', content: Buffer.from('plain\n') },
          { filename: '請求書 2026-03.pdf', contentType: 'application/pdf', content: crypto.randomBytes(10) },
        ],
      }),
    );
  });

  it('a message/rfc822 attachment goes as application/octet-stream, bytes intact', async () => {
    const eml = Buffer.from('From: a@example.test\r\nTo: b@example.test\r\nSubject: inner\r\n\r\nInner body\r\n.\r\nFrom x\r\n');
    const { ours, raw } = await compare(message({ text: 'forwarded', attachments: [{ filename: 'inner.eml', contentType: 'message/rfc822', content: eml }] }));
    expect(contentType(ours.attachments[0]!)).toBe('application/octet-stream');
    expect(ours.attachments[0]!.content.equals(eml)).toBe(true);
    expect(raw.toString('latin1')).toMatch(
      /\r\nContent-Type: application\/octet-stream; name=inner\.eml\r\nContent-Disposition: attachment; filename=inner\.eml\r\nContent-Transfer-Encoding: base64\r\n/,
    );
    expect(raw.toString('latin1')).not.toMatch(/message\/rfc822/i);
  });

  it('a multipart/* attachment goes as application/octet-stream too', async () => {
    const body = Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n');
    const { ours } = await compare(message({ text: 'x', attachments: [{ filename: 'part.mime', contentType: 'multipart/mixed', content: body }] }));
    expect(contentType(ours.attachments[0]!)).toBe('application/octet-stream');
    expect(ours.attachments[0]!.content.equals(body)).toBe(true);
  });

  it('everything at once', async () => {
    await compare(
      message({
        from: { name: 'Doe, "J" Jürgen', address: 'jd@example.test' },
        to: ['a@example.test', '"Bö, Bert" <b@example.test>'],
        cc: ['c@example.test'],
        bcc: ['hidden-one@example.test', 'hidden-two@example.test'],
        replyTo: 'r@example.test',
        subject: `${longSubject} 🎉`,
        text: `${nonLatin}${longLines}`,
        html: `<p>${longLines}</p>`,
        headers: { 'X-Umlaut': 'ä', 'X-Long': 'word '.repeat(60).trim(), 'In-Reply-To': '<p@example.test>' },
        attachments: [
          { filename: 'Rechnung für März.pdf', contentType: 'application/pdf', content: crypto.randomBytes(60_000) },
          { filename: 'empty.txt', contentType: 'text/plain', content: Buffer.alloc(0) },
        ],
      }),
    );
  });

  it('without a date, the Date header is the time of composing', async () => {
    const before = Math.floor(Date.now() / 1000) * 1000;
    const composed = composeMessage(message({ text: 'x' }));
    const parsed = await simpleParser(await bytes(composed.message));
    expect(parsed.date!.getTime()).toBeGreaterThanOrEqual(before);
    expect(parsed.date!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('a sender name or subject stored before the one-line rule (with CR LF, U+2028) is composed as one line', async () => {
    const composed = composeMessage(
      message({ from: { name: 'Evil\r\nBcc: victim@example.test', address: 'a@example.test' }, subject: 'Hi\u2028Bcc: x\r\n', text: 'x' }),
      DATE,
    );
    const raw = await bytes(composed.message);
    const parsed = await simpleParser(raw);
    expect(parsed.from!.value).toEqual([{ name: 'Evil Bcc: victim@example.test', address: 'a@example.test' }]);
    expect(parsed.subject).toBe('Hi Bcc: x');
    expect(parsed.bcc).toBeUndefined();
  });
});
