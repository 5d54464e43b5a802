import fs from 'node:fs';
import type { Command } from 'commander';
import type { BounceCheckResult, CaCertificateInfo } from '../../../mail/contract.ts';
import type { ClientOptions } from '../../client.ts';
import { isObject, readJsonInput } from '../../input.ts';
import { CliError, formatBytes, printFields } from '../../output.ts';
import type { OutputOpts } from '../linux.ts';

/**
 * What the `hearth admin outgoing-mail …` commands share: the wire types, reading a profile (never a password inline),
 * printing profiles, applications, messages and bounce checks.
 *
 * Passwords never travel on the command line: an inline `--config` carrying `smtpPassword` or `imap.password`
 * (even null) is refused before anything is sent; `--config-file` and `--stdin` may carry them. No command prints a
 * password (the server never returns one).
 */

export const MAIL_BASE = '/api/admin/core/outgoing-mail';
export const enc = encodeURIComponent;

export interface Profile {
  key: string;
  name: string;
  fromAddress: string;
  fromName: string | null;
  smtpHost: string;
  smtpPort: number;
  smtpSecure: boolean;
  smtpUser: string | null;
  hasPassword: boolean;
  pacePerMinute: number;
  dailyRecipientLimit: number | null;
  maxAttachmentBytes: number;
  isDefault: boolean;
  revision: number;
  imap: { host: string; port: number; secure: boolean; user: string; folder: string; hasPassword: boolean } | null;
  bounces: { checkedAt: string | null; error: string | null } | null;
  tlsCa: CaCertificateInfo[] | null;
  createdAt: string;
  updatedAt: string;
}
export interface MailApp {
  appId: string;
  name: string | null;
  registered: boolean;
  platformPermissions: string[] | null;
  declaresMailSend: boolean | null;
  fixed: boolean;
  tokenPrefix: string | null;
  policy: { mode: 'default' | 'profiles' | 'none'; profiles: string[] };
}
export interface Message {
  id: string;
  status: string;
  cancelReason: string | null;
  lane: string;
  app: string;
  actor: Record<string, unknown>;
  profile: string;
  from: { name: string; address: string };
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  attachments: Array<{ filename: string; contentType: string; size: number; sha256: string }>;
  attempts: number;
  lastError: string | null;
  smtpResponse: string | null;
  failures: Array<{ recipient: string; reason: string; kind: string }>;
  batchId: string | null;
  ref: string | null;
  idempotencyKey: string | null;
  messageId: string;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
  deadlineAt: string;
  sentAt: string | null;
  contentPurgedAt: string | null;
}
export interface MessageContent {
  id: string;
  purged: boolean;
  purgedAt: string | null;
  text: string | null;
  html: string | null;
  headers: Record<string, string> | null;
}
/** Types only (erased at run time: the CLI loads no server code). */
export type BounceCheck = BounceCheckResult;
export interface Retention {
  contentDays: number;
  recordDays: number;
}

export type Opts = ClientOptions & OutputOpts;
export type InputOpts = { configFile?: string; config?: string; stdin?: boolean };

export const yesOption = (c: Command) => c.option('--yes', 'confirm the change (required)');

// ---------------------------------------------------------------------------------------------------------------
// profiles put: reading the profile

/** Read-only fields of the read shape (`profiles get --json`), dropped so that output can be edited and put back. */
export const READ_ONLY = ['key', 'hasPassword', 'isDefault', 'bounces', 'tlsCa', 'lastTest', 'createdAt', 'updatedAt'];
export const INLINE_PASSWORD_KEY = /"(?:smtpPassword|imapPassword|password)"\s*:/;
export const PASSWORD_REFUSAL =
  '--config never carries passwords: remove smtpPassword and imap.password (even null) and give the profile with --config-file <file> or --stdin instead; ' +
  'leaving a password out keeps the stored one';

/** Whether a parsed inline profile names a password anywhere a password could go. */
export function inlinePassword(value: Record<string, unknown>): boolean {
  if ('smtpPassword' in value || 'password' in value || 'imapPassword' in value) return true;
  return isObject(value.imap) && 'password' in value.imap;
}

/**
 * The profile to PUT from exactly one of `--config-file`, `--config` and `--stdin`. The write shape of the API
 * (docs/api/mail.md); the read shape printed by `profiles get --json` is accepted too (its read-only fields are
 * dropped, and its `key` must be the one named). Error messages never quote the input: it may hold a password.
 */
export async function readProfileInput(key: string, opts: InputOpts): Promise<Record<string, unknown>> {
  const { value, source } = await readJsonInput(opts, {
    noun: 'the profile',
    order: ['file', 'stdin', 'config'],
    prompt: 'Profile JSON (then Ctrl-D): ',
    secret: true,
    // before parsing, so that a password in invalid JSON is refused for what it is
    inline: (text) => {
      if (INLINE_PASSWORD_KEY.test(text)) throw new CliError(PASSWORD_REFUSAL);
    },
    shape: '(the profile: name, fromAddress, smtpHost, smtpPort, smtpSecure, …)',
  });
  if (opts.config !== undefined && inlinePassword(value)) throw new CliError(PASSWORD_REFUSAL);
  const profile: Record<string, unknown> = { ...value };
  if ('key' in profile && profile.key !== key) {
    throw new CliError(`${source} is the profile ${JSON.stringify(profile.key)}, not ${JSON.stringify(key)} (a profile's key cannot change)`);
  }
  for (const f of READ_ONLY) delete profile[f];
  if (isObject(profile.imap)) {
    const { hasPassword: _drop, ...imap } = profile.imap;
    profile.imap = imap;
  }
  return profile;
}

/** `--ca-file`: the trusted CA's PEM text (the server validates it); not a secret, but never printed back. */
export function readCaFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function parseRevision(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1)
    throw new CliError(`--revision must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// printing

export const yesNo = (b: boolean | null | undefined) => (b === null || b === undefined ? '-' : b ? 'yes' : 'no');
export const smtpOf = (p: Profile) => `${p.smtpHost}:${p.smtpPort} (${p.smtpSecure ? 'TLS' : 'STARTTLS when offered'})`;
export const fromOf = (name: string | null, address: string) => (name ? `${name} <${address}>` : address);

/** Bounce collection in a few words: off, or the mailbox and its latest check. */
export function bouncesOf(p: Profile): string {
  if (!p.imap) return 'off';
  const box = `${p.imap.host}/${p.imap.folder}`;
  if (!p.bounces?.checkedAt) return `${box}, not checked yet`;
  return `${box}, checked ${p.bounces.checkedAt}${p.bounces.error ? `, error ${p.bounces.error}` : ''}`;
}

export function printProfile(p: Profile): void {
  const fields: Array<[string, unknown]> = [
    ['key', p.key],
    ['name', p.name],
    ['default', yesNo(p.isDefault)],
    ['from', fromOf(p.fromName, p.fromAddress)],
    ['smtp', smtpOf(p)],
    ['smtp user', p.smtpUser],
    ['smtp password', p.hasPassword ? 'stored' : 'none'],
    ['pace', `${p.pacePerMinute}/minute (bulk lane)`],
    ['daily limit', p.dailyRecipientLimit === null ? 'unlimited' : `${p.dailyRecipientLimit} recipients / 24 h`],
    ['attachments', `at most ${formatBytes(p.maxAttachmentBytes)} a message`],
    ['trusted ca', p.tlsCa === null || p.tlsCa === undefined ? "none (Node's default CAs)" : p.tlsCa.map(caOf)],
  ];
  if (p.imap) {
    fields.push(
      ['bounces', 'collected over IMAP'],
      ['imap', `${p.imap.host}:${p.imap.port} (${p.imap.secure ? 'TLS' : 'STARTTLS required'})`],
      ['imap user', p.imap.user],
      ['imap password', p.imap.hasPassword ? 'stored' : 'none'],
      ['imap folder', p.imap.folder],
      ['last check', p.bounces?.checkedAt ?? 'not yet'],
      ['check error', p.bounces?.error ?? 'none'],
    );
  } else fields.push(['bounces', 'off']);
  fields.push(['revision', p.revision], ['created', p.createdAt], ['updated', p.updatedAt]);
  printFields(fields);
}

/** A trusted CA certificate: subject, SHA-256 fingerprint and expiry (never the PEM). */
export const caOf = (c: CaCertificateInfo) => `${c.subject} (SHA-256 ${c.fingerprint256}, valid until ${c.validTo})`;

export const PROFILE_COLUMNS = ['key', 'default', 'name', 'from', 'smtp', 'password', 'pace', 'revision', 'bounces'];
export const profileRow = (p: Profile) => ({
  key: p.key,
  default: p.isDefault ? 'yes' : '',
  name: p.name,
  from: p.fromAddress,
  smtp: `${p.smtpHost}:${p.smtpPort}`,
  password: p.hasPassword ? 'stored' : 'none',
  pace: `${p.pacePerMinute}/min`,
  revision: p.revision,
  bounces: bouncesOf(p),
});

export const policyOf = (a: MailApp) => (a.policy.mode === 'default' ? 'default profile' : a.policy.mode === 'none' ? 'none (blocked)' : 'explicit profiles');
export const APP_COLUMNS = ['app', 'name', 'registered', 'mail:send', 'policy', 'profiles'];
export const appRow = (a: MailApp) => ({
  app: a.fixed ? `${a.appId} (fixed)` : a.appId,
  name: a.name,
  registered: a.fixed ? 'core' : yesNo(a.registered),
  'mail:send': a.fixed ? 'yes' : yesNo(a.declaresMailSend),
  policy: policyOf(a),
  profiles: a.policy.profiles.length ? a.policy.profiles : null,
});
export function printApp(a: MailApp): void {
  printFields([
    ['app', a.appId],
    ['name', a.name],
    ['registered', a.fixed ? 'Hearth itself (its access is fixed to the default profile)' : yesNo(a.registered)],
    ['declares mail:send', a.fixed ? 'yes' : a.declaresMailSend === null ? '- (not registered)' : yesNo(a.declaresMailSend)],
    ['policy', policyOf(a)],
    ['may use', a.policy.profiles.length ? a.policy.profiles : 'no profile'],
  ]);
}

export const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
export const recipientsOf = (m: Message) => {
  const all = [...m.to, ...m.cc, ...m.bcc];
  return all.length > 2 ? `${all.slice(0, 2).join(',')} +${all.length - 2}` : all.join(',');
};
export const LOG_COLUMNS = ['id', 'created', 'app', 'profile', 'lane', 'status', 'attempts', 'to', 'subject'];
export const logRow = (m: Message) => ({
  id: m.id,
  created: m.createdAt,
  app: m.app,
  profile: m.profile,
  lane: m.lane,
  status: m.cancelReason ? `${m.status} (${m.cancelReason})` : m.status,
  attempts: m.attempts,
  to: recipientsOf(m),
  subject: short(m.subject, 40),
});

export function printMessage(m: Message): void {
  printFields([
    ['id', m.id],
    ['status', m.cancelReason ? `${m.status} (${m.cancelReason})` : m.status],
    ['lane', m.lane],
    ['app', m.app],
    [
      'actor',
      Object.entries(m.actor)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' '),
    ],
    ['profile', m.profile],
    ['from', fromOf(m.from.name, m.from.address)],
    ['to', m.to],
    ['cc', m.cc],
    ['bcc', m.bcc],
    ['subject', m.subject],
    ['attachments', m.attachments.map((a) => `${a.filename} (${a.contentType}, ${formatBytes(a.size)}, sha256 ${a.sha256})`)],
    ['message-id', m.messageId],
    ['attempts', m.attempts],
    ['last error', m.lastError],
    ['smtp response', m.smtpResponse],
    ['failures', m.failures.map((f) => `${f.recipient}: ${f.kind} ${f.reason}`)],
    ['batch', m.batchId],
    ['ref', m.ref],
    ['idempotency key', m.idempotencyKey],
    ['created', m.createdAt],
    ['updated', m.updatedAt],
    ['next attempt', m.nextAttemptAt],
    ['deadline', m.deadlineAt],
    ['sent', m.sentAt],
    ['content purged', m.contentPurgedAt],
  ]);
}

export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A bounce-collection pass in one sentence (and what failed). */
export function printBounceCheck(r: BounceCheck): void {
  const what = `${count(r.messages, 'message')}, ${count(r.reports, 'delivery report')}, ${r.matched} matched, ${count(r.recorded, 'recipient')} recorded as bounced, ${r.skipped} skipped`;
  const lines = [
    `${r.error ? 'Bounce check failed' : 'Checked the bounce mailbox'} of profile ${r.profile}${r.joined ? ' (joined the check in progress)' : ''}: ${what}.`,
  ];
  if (r.error) lines.push(`Error: ${r.error}${r.detail ? ` — ${r.detail}` : ''}`);
  if (r.more) lines.push('More messages wait: the next check goes on from here.');
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function printContent(c: MessageContent): void {
  if (c.purged) {
    process.stdout.write(`\nContent: purged by content retention at ${c.purgedAt ?? 'an unknown time'}.\n`);
    return;
  }
  const headers = Object.entries(c.headers ?? {});
  process.stdout.write(`\nHeaders:\n${headers.length ? headers.map(([k, v]) => `  ${k}: ${v}\n`).join('') : '  (none)\n'}`);
  process.stdout.write(`\nText:\n${c.text === null ? '(none)\n' : c.text.endsWith('\n') ? c.text : `${c.text}\n`}`);
  process.stdout.write(`\nHTML:\n${c.html === null ? '(none)\n' : c.html.endsWith('\n') ? c.html : `${c.html}\n`}`);
}
