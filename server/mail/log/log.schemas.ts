import { z } from 'zod';
import { ADDRESS, ProfileKey } from '../profiles/profiles.schemas.ts';
import { LINE_FORBIDDEN, NAME_FORBIDDEN } from '../text.ts';

export const MAX_RECIPIENTS = 100;
export const MAX_ATTACHMENTS = 20;
export const MAX_BATCH = 1000;
export const REF_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}(?::[^\s:][^\s]{0,199})?$/;
/** Headers the composer sets itself; custom headers may not replace them. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'sender',
  'return-path',
  'reply-to',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'received',
  'dkim-signature',
]);

const Address = (name: string) =>
  z.string().trim().max(320, `${name} must be at most 320 characters`).regex(ADDRESS, `${name} must contain email addresses (local@domain)`);
const Recipients = (name: string) => z.array(Address(name)).max(MAX_RECIPIENTS, `${name} may list at most ${MAX_RECIPIENTS} addresses`).default([]);

export const Ref = z
  .string()
  .regex(
    REF_PATTERN,
    'ref must be "scope" or "scope:id": a scope of 1–63 lowercase letters, digits, ".", "_" or "-", then optionally ":" and an id of 1–200 non-space characters',
  )
  .meta({ description: 'A reference `scope[:id]` the application can filter the log by.', example: 'invoice:2024-0042' });

export const AttachmentInput = z
  .object({
    filename: z
      .string()
      .trim()
      .min(1, 'attachments[].filename must not be empty')
      .max(255, 'attachments[].filename must be at most 255 characters')
      .refine((f) => !NAME_FORBIDDEN.test(f) && !/[\\/]/.test(f), 'attachments[].filename must not contain control characters, line separators or slashes'),
    contentType: z
      .string()
      .trim()
      .max(255)
      .regex(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/, 'attachments[].contentType must be a MIME type such as application/pdf')
      .default('application/octet-stream'),
    content: z
      .string()
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'attachments[].content must be base64')
      .meta({ description: 'The bytes, base64.' }),
  })
  .strict()
  .meta({ id: 'MailAttachmentInput' });

const messageFields = {
  to: Recipients('to'),
  cc: Recipients('cc'),
  bcc: Recipients('bcc'),
  replyTo: Address('replyTo').nullable().optional(),
  subject: z
    .string()
    .max(998, 'subject must be at most 998 characters')
    .refine((s) => !LINE_FORBIDDEN.test(s), 'subject must be one line: no CR, LF, NUL, U+0085, U+2028, U+2029 or other control characters (a tab is allowed)')
    .meta({
      description:
        'One line, at most 998 characters: no CR, LF, NUL, NEL (U+0085), U+2028, U+2029 or other control characters (a tab is allowed); mail clients would show them as a new line.',
    }),
  text: z
    .string()
    .max(10 * 1024 * 1024, 'text must be at most 10 MiB')
    .nullable()
    .optional(),
  html: z
    .string()
    .max(10 * 1024 * 1024, 'html must be at most 10 MiB')
    .nullable()
    .optional(),
  headers: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/, 'header names must be letters, digits and hyphens')
        .refine((h) => !RESERVED_HEADERS.has(h.toLowerCase()), 'this header is set by Hearth and cannot be given'),
      z
        .string()
        .max(998, 'header values must be at most 998 characters')
        .refine(
          (v) => !LINE_FORBIDDEN.test(v),
          'header values must be one line (no CR, LF, NUL, U+0085, U+2028, U+2029 or other control characters; a tab is allowed)',
        ),
    )
    .refine((h) => Object.keys(h).length <= 50, 'at most 50 custom headers')
    .default({})
    .meta({ description: 'Custom headers (content: never shown by metadata reads).' }),
  attachments: z.array(AttachmentInput).max(MAX_ATTACHMENTS, `at most ${MAX_ATTACHMENTS} attachments`).default([]),
  ref: Ref.optional(),
  idempotencyKey: z.string().min(1).max(200, 'idempotencyKey must be at most 200 characters').optional().meta({
    description: 'Repeating a key returns the message accepted under it instead of sending again; reusable once that record is deleted by retention.',
  }),
};
const recipientsRefine = (m: { to: string[]; cc: string[]; bcc: string[] }) => m.to.length + m.cc.length + m.bcc.length >= 1;
const bodyRefine = (m: { text?: string | null; html?: string | null }) => (m.text ?? null) !== null || (m.html ?? null) !== null;
const RCPT_MSG = { message: 'at least one recipient (to, cc or bcc) is required' };
const BODY_MSG = { message: 'text or html is required' };

export const SendBody = z
  .object({
    ...messageFields,
    profile: ProfileKey.optional().meta({ description: "The sender profile; omitted (or the default profile's key) uses the default profile." }),
  })
  .strict()
  .refine(recipientsRefine, RCPT_MSG)
  .refine(bodyRefine, BODY_MSG)
  .meta({ id: 'MailSend' });
export type SendBody = z.infer<typeof SendBody>;

export const EnqueueMessage = z
  .object(messageFields)
  .strict()
  .refine(recipientsRefine, RCPT_MSG)
  .refine(bodyRefine, BODY_MSG)
  .meta({ id: 'MailEnqueueMessage' });
export type EnqueueMessage = z.infer<typeof EnqueueMessage>;
export const EnqueueBody = z
  .object({
    profile: ProfileKey.optional(),
    ref: Ref.optional().meta({ description: 'Default `ref` of messages that give none.' }),
    messages: z.array(EnqueueMessage).min(1, 'messages must not be empty').max(MAX_BATCH, `at most ${MAX_BATCH} messages per call`),
  })
  .strict()
  .meta({ id: 'MailEnqueue' });
export type EnqueueBody = z.infer<typeof EnqueueBody>;

export const MessageStatus = z.enum(['queued', 'sending', 'sent', 'failed', 'cancelled', 'bounced']);
export type MessageStatus = z.output<typeof MessageStatus>;

export const MessageRecord = z
  .object({
    id: z.string(),
    status: MessageStatus,
    cancelReason: z.enum(['cancelled_by_admin', 'profile_removed', 'profile_not_allowed']).nullable(),
    lane: z.enum(['immediate', 'bulk']),
    app: z.string(),
    actor: z.record(z.string(), z.unknown()).meta({ description: 'Snapshot of the caller at acceptance.' }),
    profile: z.string(),
    from: z.object({ name: z.string(), address: z.string() }),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    subject: z.string(),
    attachments: z.array(z.object({ filename: z.string(), contentType: z.string(), size: z.number().int(), sha256: z.string() })),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    smtpResponse: z.string().nullable(),
    failures: z.array(z.object({ recipient: z.string(), reason: z.string(), kind: z.enum(['rejected', 'bounced']) })).meta({ description: 'At most 100.' }),
    batchId: z.string().nullable(),
    ref: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
    messageId: z.string().meta({ description: 'The Message-ID header, fixed at acceptance.' }),
    createdAt: z.string(),
    updatedAt: z.string(),
    nextAttemptAt: z.string().nullable().meta({ description: 'When a queued message is due.' }),
    lastAttemptAt: z.string().nullable().meta({
      description:
        'When the last attempt started: the pacing slot it took (null before the first attempt). On the bulk lane a profile reserves each slot with this time, so two attempts of one profile start at least `60000 / pacePerMinute` ms apart by it, across every worker and replica. On the immediate lane it is when the attempt was claimed, which may be shortly before its SMTP dialogue starts.',
    }),
    deadlineAt: z.string(),
    sentAt: z.string().nullable(),
    contentPurgedAt: z.string().nullable(),
  })
  .meta({ id: 'MailMessage', description: 'Send-log metadata. Never contains text, HTML or custom headers.' });
export type MessageRecord = z.output<typeof MessageRecord>;
export const MessagePage = z.object({ data: z.array(MessageRecord), nextCursor: z.string().nullable() }).meta({ id: 'MailMessagePage' });
export type MessagePage = z.output<typeof MessagePage>;
export const MessageContent = z
  .object({
    id: z.string(),
    purged: z.boolean(),
    purgedAt: z.string().nullable(),
    text: z.string().nullable(),
    html: z.string().nullable(),
    headers: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'MailMessageContent', description: 'Content, or `purged: true` with `purgedAt` once content retention removed it.' });
export type MessageContent = z.output<typeof MessageContent>;

export const Accepted = z
  .object({
    id: z.string(),
    messageId: z.string(),
    status: MessageStatus,
    duplicate: z.boolean().meta({ description: 'True when an earlier call with the same idempotency key accepted it.' }),
  })
  .meta({ id: 'MailAccepted' });
export const EnqueueAccepted = z.object({ batchId: z.string(), messages: z.array(Accepted) }).meta({ id: 'MailEnqueueAccepted' });

export const IdParams = z.object({ id: z.uuid('id must be a message id (UUID)') });
/** `?wait=<seconds>` of the message reads: hold the answer until the message settles, at most that long. */
export const MAX_WAIT_SECONDS = 60;
const WAIT_MESSAGE = `wait must be a whole number of seconds, 1–${MAX_WAIT_SECONDS}`;
export const WaitQuery = z.object({
  wait: z
    .string()
    .regex(/^\d{1,2}$/, WAIT_MESSAGE)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_WAIT_SECONDS, WAIT_MESSAGE)
    .optional()
    .meta({
      description: `Hold the answer until the message is settled (\`sent\`, \`failed\`, \`cancelled\`, \`bounced\`) or this many seconds passed (whole seconds, 1–${MAX_WAIT_SECONDS}); then answer the current record. Without it, or when the message is already settled, the answer is immediate.`,
      example: '30',
    }),
});
export type WaitQuery = z.infer<typeof WaitQuery>;
export const BatchParams = z.object({ batchId: z.uuid('batchId must be a batch id (UUID)') });
export const ListQuery = z
  .object({
    app: z.string().max(63).optional(),
    profile: z.string().max(63).optional(),
    status: z
      .string()
      .optional()
      .transform((s, ctx) => {
        if (!s) return undefined;
        const parts = s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        const bad = parts.filter((p) => !MessageStatus.safeParse(p).success);
        if (bad.length) {
          ctx.addIssue({ code: 'custom', message: `unknown status ${bad.join(', ')} (one of ${MessageStatus.options.join(', ')})` });
          return z.NEVER;
        }
        return parts as z.infer<typeof MessageStatus>[];
      })
      .meta({ description: 'Comma-separated statuses.' }),
    since: z.iso.datetime({ offset: true, message: 'since must be an ISO 8601 date-time' }).optional(),
    ref: Ref.optional().meta({ description: '`scope` matches every id of the scope; `scope:id` one reference.' }),
    recipient: z.string().min(1).max(320).optional().meta({ description: 'Substring of a recipient address (case-insensitive).' }),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be 1–100').max(100, 'limit must be 1–100').default(50),
  })
  .strict();
export type ListQuery = z.infer<typeof ListQuery>;
export const BatchCancelled = z.object({ batchId: z.string(), cancelled: z.number().int() }).meta({ id: 'MailBatchCancelled' });
export type BatchCancelled = z.output<typeof BatchCancelled>;
