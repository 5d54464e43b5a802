import net from 'node:net';
import { z } from 'zod';
import { plainTextRule } from '../../core/http/text.ts';
import { SMTP_FAILURE_REASONS } from '../delivery/smtp-failure.ts';
import { CaBundleError, MAX_CA_CERTIFICATES, MAX_CA_PEM_LENGTH, parseCaBundle } from '../tls-ca.ts';

export const PROFILE_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const DEFAULT_PACE_PER_MINUTE = 60;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 15_728_640;
export const MAX_ATTACHMENT_BYTES = 26_214_400;

const HOSTNAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
export const isHost = (h: string) => net.isIP(h) !== 0 || HOSTNAME.test(h);
/** Host comparison for the password re-entry rule: surrounding spaces and letter case do not count. */
export const sameHost = (a: string | null | undefined, b: string | null | undefined) => (a ?? '').trim().toLowerCase() === (b ?? '').trim().toLowerCase();

const CONTROL = /[\u0000-\u001f\u007f]/;
/**
 * A display name of at most 120 characters (trimmed; `min` 1 refuses an empty one), one line of plain text: no control
 * characters (CR, LF, NUL, U+0085 among them), U+2028, U+2029, bidirectional overrides or unpaired surrogates.
 */
export const DisplayName = (field: string, min = 0) =>
  z.string().trim().min(min, `${field} must not be empty`).max(120, `${field} must be at most 120 characters`).superRefine(plainTextRule(field));
/** `local@domain`: no spaces or control characters, one `@` before a non-empty domain. */
export const ADDRESS = /^[^\s@<>()[\],;:"\\]+(?:\.[^\s@<>()[\],;:"\\]+)*@[^\s@<>()[\],;:"\\]+$/;

export const ProfileKey = z
  .string()
  .regex(PROFILE_KEY_PATTERN, 'key must be lowercase letters, digits and hyphens, begin with a letter or digit, and have at most 63 characters')
  .meta({
    description: 'Immutable profile key: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63 characters.',
    example: 'noreply',
  });
export const ProfileParams = z.object({ key: ProfileKey });

const Host = (name: string) =>
  z.string().trim().max(253, `${name} must be at most 253 characters`).refine(isHost, `${name} must be a DNS name or an IP address`);
const Port = (name: string) =>
  z
    .number({ error: `${name} must be an integer` })
    .int(`${name} must be an integer`)
    .min(1, `${name} must be 1–65535`)
    .max(65535, `${name} must be 1–65535`);
const Password = (name: string) => z.string().max(16384, `${name} must be at most 16384 characters`);

export const ImapWrite = z
  .object({
    host: z
      .string()
      .trim()
      .max(253, 'imap.host must be at most 253 characters')
      .refine((h) => h === '' || isHost(h), 'imap.host must be a DNS name or an IP address')
      .meta({ description: 'IMAP server; an empty host turns collection off (same as `imap: null`).' }),
    port: Port('imap.port'),
    secure: z
      .boolean({ error: 'imap.secure must be a boolean' })
      .meta({ description: 'true: implicit TLS; false: STARTTLS is required before authentication.' }),
    user: z.string().trim().min(1, 'imap.user must not be empty or whitespace').max(320, 'imap.user must be at most 320 characters'),
    password: Password('imap.password')
      .nullable()
      .optional()
      .meta({ description: 'Write-only; omitted keeps, null clears, a string replaces. Changing the IMAP host requires giving it again or clearing it.' }),
    folder: z
      .string()
      .trim()
      .min(1, 'imap.folder must not be empty')
      .max(200, 'imap.folder must be at most 200 characters')
      .refine((f) => !CONTROL.test(f), 'imap.folder must not contain control characters')
      .meta({ description: '`INBOX` for the inbox.' }),
  })
  .strict()
  .meta({ id: 'MailImapSettings', description: 'Bounce collection. Every connection field, `folder` included, is required.' });

/**
 * The trusted CA of a write: PEM text, validated and normalized here (the stored form: certificate blocks only).
 * Validity is judged by the current time.
 */
const TlsCaPem = z
  .string({ error: 'tlsCaPem must be a string (PEM) or null' })
  .max(MAX_CA_PEM_LENGTH, `tlsCaPem must be at most ${MAX_CA_PEM_LENGTH} characters`)
  .transform((text, ctx) => {
    try {
      return parseCaBundle(text, Date.now()).pem;
    } catch (err) {
      if (!(err instanceof CaBundleError)) throw err;
      ctx.addIssue({ code: 'custom', message: `tlsCaPem ${err.message}` });
      return z.NEVER;
    }
  })
  .meta({
    description:
      `Trusted CA for this profile's SMTP and IMAP connections (STARTTLS and implicit TLS, test sends and bounce collection), besides Node's default CAs: one or more PEM certificates (\`-----BEGIN CERTIFICATE-----\`, at most ${MAX_CA_CERTIFICATES}), each a CA certificate (basicConstraints CA:TRUE) valid now; text around the blocks is ignored, any other PEM block (a private key) is refused. ` +
      'Write-only like a password: omitted keeps the stored CA, null clears it, a string replaces it. Reads show `tlsCa` (subject and SHA-256 fingerprint), never the PEM.',
  });

export const ProfileWrite = z
  .object({
    name: DisplayName('name', 1),
    fromAddress: z
      .string()
      .trim()
      .max(320, 'fromAddress must be at most 320 characters')
      .regex(ADDRESS, 'fromAddress must be an email address')
      .meta({ description: 'Sender address, also the SMTP envelope sender.' }),
    fromName: DisplayName('fromName').nullable().default(null).meta({
      description:
        "The sender's display name: at most 120 characters, one line of plain text (no CR, LF, NUL, U+0085, U+2028, U+2029 or other control characters, no bidirectional overrides or unpaired surrogates). Null uses the registered application name (the installation name for Core mail and test sends).",
    }),
    smtpHost: Host('smtpHost'),
    smtpPort: Port('smtpPort'),
    smtpSecure: z.boolean({ error: 'smtpSecure must be a boolean (true: implicit TLS; false: STARTTLS when offered)' }),
    smtpUser: z
      .string()
      .max(320, 'smtpUser must be at most 320 characters')
      .nullable()
      .default(null)
      .meta({ description: 'Authentication is omitted when null or empty.' }),
    smtpPassword: Password('smtpPassword').nullable().optional().meta({
      description:
        'Write-only. Omitted keeps the stored password; null clears; a string replaces. Changing `smtpHost` (ignoring case and surrounding spaces) requires giving it again or clearing it.',
    }),
    pacePerMinute: z
      .number()
      .int('pacePerMinute must be an integer')
      .min(1, 'pacePerMinute must be 1–6000')
      .max(6000, 'pacePerMinute must be 1–6000')
      .default(DEFAULT_PACE_PER_MINUTE)
      .meta({ description: `Bulk-lane attempts per minute (default ${DEFAULT_PACE_PER_MINUTE}); the immediate lane ignores it.` }),
    dailyRecipientLimit: z
      .number()
      .int('dailyRecipientLimit must be an integer')
      .min(1, 'dailyRecipientLimit must be at least 1')
      .nullable()
      .default(null)
      .meta({ description: 'Recipients per rolling 24 hours; null (the default) is unlimited.' }),
    maxAttachmentBytes: z
      .number()
      .int('maxAttachmentBytes must be an integer')
      .min(1, `maxAttachmentBytes must be 1–${MAX_ATTACHMENT_BYTES}`)
      .max(MAX_ATTACHMENT_BYTES, `maxAttachmentBytes must be 1–${MAX_ATTACHMENT_BYTES}`)
      .default(DEFAULT_MAX_ATTACHMENT_BYTES),
    imap: ImapWrite.nullable().default(null).meta({ description: 'Null or omitted turns bounce collection off and clears its cursor and status.' }),
    tlsCaPem: TlsCaPem.nullable().optional(),
    revision: z.number().int('revision must be an integer').min(1, 'revision must be at least 1').optional().meta({
      description:
        'Required to replace an existing profile: the `revision` of a get. Without it an existing key answers `profile_exists`; a stale one `revision_conflict`.',
    }),
  })
  .strict()
  .meta({ id: 'MailProfileWrite' });
export type ProfileWrite = z.infer<typeof ProfileWrite>;
/** What a client sends (defaults may be omitted). */
export type ProfileWriteInput = z.input<typeof ProfileWrite>;
export type ImapWriteInput = z.input<typeof ImapWrite>;

export const LastTest = z
  .object({
    at: z.string().meta({ description: 'When the test send ended (ISO 8601).' }),
    ok: z.boolean().meta({ description: 'True: the SMTP server accepted the test message (acceptance only, not delivery).' }),
    code: z.enum(SMTP_FAILURE_REASONS).nullable().meta({ description: 'Why it failed (null when it succeeded): the `reason` of the `smtp_failed` answer.' }),
    summary: z.string().meta({ description: 'One sentence: the result, and for a failure what to check.' }),
    detail: z.string().nullable().meta({ description: "The server's raw answer or the connection error, credentials redacted; null when there was none." }),
  })
  .meta({ id: 'MailProfileLastTest' });
export type LastTest = z.output<typeof LastTest>;

export const ProfileRead = z
  .object({
    key: z.string(),
    name: z.string(),
    fromAddress: z.string(),
    fromName: z.string().nullable(),
    smtpHost: z.string(),
    smtpPort: z.number().int(),
    smtpSecure: z.boolean(),
    smtpUser: z.string().nullable(),
    hasPassword: z.boolean(),
    pacePerMinute: z.number().int(),
    dailyRecipientLimit: z.number().int().nullable(),
    maxAttachmentBytes: z.number().int(),
    isDefault: z.boolean().meta({ description: 'The default profile (exactly one while any profile exists).' }),
    revision: z.number().int(),
    imap: z
      .object({ host: z.string(), port: z.number().int(), secure: z.boolean(), user: z.string(), folder: z.string(), hasPassword: z.boolean() })
      .nullable(),
    bounces: z
      .object({ checkedAt: z.string().nullable(), error: z.string().nullable() })
      .nullable()
      .meta({ description: 'Null when collection is off; `checkedAt: null` while a new mailbox waits for its first check.' }),
    tlsCa: z
      .array(
        z.object({
          subject: z.string().meta({ example: 'O=Example Office, CN=Example Office CA' }),
          issuer: z.string(),
          fingerprint256: z.string().meta({ description: 'SHA-256 fingerprint (`AB:CD:…`, as `openssl x509 -noout -fingerprint -sha256` prints it).' }),
          validFrom: z.string(),
          validTo: z.string(),
        }),
      )
      .nullable()
      .meta({
        description:
          "The trusted CA certificates of this profile (written as `tlsCaPem`): subject, issuer, SHA-256 fingerprint and validity of each; never the PEM. Null: Node's default CAs only.",
      }),
    lastTest: LastTest.nullable().meta({
      description: 'The last test send through this profile, kept across restarts and profile edits; null until the first one.',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'MailProfile' });
export type ProfileRead = z.infer<typeof ProfileRead>;
export const ProfileList = z.object({ data: z.array(ProfileRead) }).meta({ id: 'MailProfileList' });
export type ProfileList = z.output<typeof ProfileList>;

export const TestSendBody = z
  .object({ to: z.string().trim().max(320, 'to must be at most 320 characters').regex(ADDRESS, 'to must be an email address') })
  .strict()
  .meta({ id: 'MailTestSend' });
export type TestSendBody = z.output<typeof TestSendBody>;
export const TestSendResult = z.object({ ok: z.literal(true) }).meta({ id: 'MailTestSendResult' });
export type TestSendResult = z.output<typeof TestSendResult>;
/** The 502 answer of a failed test send: the envelope with the classified reason and the raw answer. */
export const TestSendFailure = z
  .object({
    error: z.literal('smtp_failed'),
    message: z.string().meta({ description: 'One sentence: what went wrong and what to check.' }),
    reason: z.enum(SMTP_FAILURE_REASONS).meta({ description: 'The classified reason (stable code).' }),
    detail: z.string().nullable().meta({ description: "The server's raw answer or the connection error, credentials redacted." }),
  })
  .meta({ id: 'MailTestSendFailure' });
export type TestSendFailure = z.output<typeof TestSendFailure>;
