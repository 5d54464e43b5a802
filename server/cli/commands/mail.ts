import fs from 'node:fs';
import type { Command } from 'commander';
import { HearthClient, serverOptions, type ClientOptions } from '../client.ts';
import { CliError, formatBytes, printFields, printJson, printJsonLines, printTable } from '../output.ts';
import { isObject, readJsonInput } from '../input.ts';
import { checkOutput, emit, outputOptions, requireYes, type OutputOpts } from './linux.ts';
import type { BounceCheckResult, CaCertificateInfo } from '../../mail/contract.ts';

/**
 * `hearth admin outgoing-mail profiles|apps|log|retention …`: the outgoing-mail administration API
 * (`/api/admin/core/outgoing-mail`, docs/api/mail.md) of a running server.
 *
 * Passwords never travel on the command line: an inline `--config` carrying `smtpPassword` or `imap.password`
 * (even null) is refused before anything is sent; `--config-file` and `--stdin` may carry them. No command prints a
 * password (the server never returns one).
 */

export const MAIL_BASE = '/api/admin/core/outgoing-mail';
const enc = encodeURIComponent;

interface Profile {
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
interface MailApp {
  appId: string;
  name: string | null;
  registered: boolean;
  platformPermissions: string[] | null;
  declaresMailSend: boolean | null;
  fixed: boolean;
  tokenPrefix: string | null;
  policy: { mode: 'default' | 'profiles' | 'none'; profiles: string[] };
}
interface Message {
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
interface MessageContent {
  id: string;
  purged: boolean;
  purgedAt: string | null;
  text: string | null;
  html: string | null;
  headers: Record<string, string> | null;
}
/** Types only (erased at run time: the CLI loads no server code). */
type BounceCheck = BounceCheckResult;
interface Retention {
  contentDays: number;
  recordDays: number;
}

type Opts = ClientOptions & OutputOpts;
type InputOpts = { configFile?: string; config?: string; stdin?: boolean };

const yesOption = (c: Command) => c.option('--yes', 'confirm the change (required)');


// ---------------------------------------------------------------------------------------------------------------
// profiles put: reading the profile

/** Read-only fields of the read shape (`profiles get --json`), dropped so that output can be edited and put back. */
const READ_ONLY = ['key', 'hasPassword', 'isDefault', 'bounces', 'tlsCa', 'lastTest', 'createdAt', 'updatedAt'];
const INLINE_PASSWORD_KEY = /"(?:smtpPassword|imapPassword|password)"\s*:/;
const PASSWORD_REFUSAL =
  '--config never carries passwords: remove smtpPassword and imap.password (even null) and give the profile with --config-file <file> or --stdin instead; ' +
  'leaving a password out keeps the stored one';

/** Whether a parsed inline profile names a password anywhere a password could go. */
function inlinePassword(value: Record<string, unknown>): boolean {
  if ('smtpPassword' in value || 'password' in value || 'imapPassword' in value) return true;
  return isObject(value.imap) && 'password' in value.imap;
}

/**
 * The profile to PUT from exactly one of `--config-file`, `--config` and `--stdin`. The write shape of the API
 * (docs/api/mail.md); the read shape printed by `profiles get --json` is accepted too (its read-only fields are
 * dropped, and its `key` must be the one named). Error messages never quote the input: it may hold a password.
 */
async function readProfileInput(key: string, opts: InputOpts): Promise<Record<string, unknown>> {
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
function readCaFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function parseRevision(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new CliError(`--revision must be a whole number of at least 1 (got ${JSON.stringify(value)})`);
  return n;
}

// ---------------------------------------------------------------------------------------------------------------
// printing

const yesNo = (b: boolean | null | undefined) => (b === null || b === undefined ? '-' : b ? 'yes' : 'no');
const smtpOf = (p: Profile) => `${p.smtpHost}:${p.smtpPort} (${p.smtpSecure ? 'TLS' : 'STARTTLS when offered'})`;
const fromOf = (name: string | null, address: string) => (name ? `${name} <${address}>` : address);

/** Bounce collection in a few words: off, or the mailbox and its latest check. */
function bouncesOf(p: Profile): string {
  if (!p.imap) return 'off';
  const box = `${p.imap.host}/${p.imap.folder}`;
  if (!p.bounces?.checkedAt) return `${box}, not checked yet`;
  return `${box}, checked ${p.bounces.checkedAt}${p.bounces.error ? `, error ${p.bounces.error}` : ''}`;
}

function printProfile(p: Profile): void {
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
const caOf = (c: CaCertificateInfo) => `${c.subject} (SHA-256 ${c.fingerprint256}, valid until ${c.validTo})`;

const PROFILE_COLUMNS = ['key', 'default', 'name', 'from', 'smtp', 'password', 'pace', 'revision', 'bounces'];
const profileRow = (p: Profile) => ({
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

const policyOf = (a: MailApp) =>
  a.policy.mode === 'default' ? 'default profile' : a.policy.mode === 'none' ? 'none (blocked)' : 'explicit profiles';
const APP_COLUMNS = ['app', 'name', 'registered', 'mail:send', 'policy', 'profiles'];
const appRow = (a: MailApp) => ({
  app: a.fixed ? `${a.appId} (fixed)` : a.appId,
  name: a.name,
  registered: a.fixed ? 'core' : yesNo(a.registered),
  'mail:send': a.fixed ? 'yes' : yesNo(a.declaresMailSend),
  policy: policyOf(a),
  profiles: a.policy.profiles.length ? a.policy.profiles : null,
});
function printApp(a: MailApp): void {
  printFields([
    ['app', a.appId],
    ['name', a.name],
    ['registered', a.fixed ? 'Hearth itself (its access is fixed to the default profile)' : yesNo(a.registered)],
    ['declares mail:send', a.fixed ? 'yes' : a.declaresMailSend === null ? '- (not registered)' : yesNo(a.declaresMailSend)],
    ['policy', policyOf(a)],
    ['may use', a.policy.profiles.length ? a.policy.profiles : 'no profile'],
  ]);
}

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const recipientsOf = (m: Message) => {
  const all = [...m.to, ...m.cc, ...m.bcc];
  return all.length > 2 ? `${all.slice(0, 2).join(',')} +${all.length - 2}` : all.join(',');
};
const LOG_COLUMNS = ['id', 'created', 'app', 'profile', 'lane', 'status', 'attempts', 'to', 'subject'];
const logRow = (m: Message) => ({
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

function printMessage(m: Message): void {
  printFields([
    ['id', m.id],
    ['status', m.cancelReason ? `${m.status} (${m.cancelReason})` : m.status],
    ['lane', m.lane],
    ['app', m.app],
    ['actor', Object.entries(m.actor).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k}=${String(v)}`).join(' ')],
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

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A bounce-collection pass in one sentence (and what failed). */
function printBounceCheck(r: BounceCheck): void {
  const what = `${count(r.messages, 'message')}, ${count(r.reports, 'delivery report')}, ${r.matched} matched, ${count(r.recorded, 'recipient')} recorded as bounced, ${r.skipped} skipped`;
  const lines = [`${r.error ? 'Bounce check failed' : 'Checked the bounce mailbox'} of profile ${r.profile}${r.joined ? ' (joined the check in progress)' : ''}: ${what}.`];
  if (r.error) lines.push(`Error: ${r.error}${r.detail ? ` — ${r.detail}` : ''}`);
  if (r.more) lines.push('More messages wait: the next check goes on from here.');
  process.stdout.write(lines.join('\n') + '\n');
}

function printContent(c: MessageContent): void {
  if (c.purged) {
    process.stdout.write(`\nContent: purged by content retention at ${c.purgedAt ?? 'an unknown time'}.\n`);
    return;
  }
  const headers = Object.entries(c.headers ?? {});
  process.stdout.write('\nHeaders:\n' + (headers.length ? headers.map(([k, v]) => `  ${k}: ${v}\n`).join('') : '  (none)\n'));
  process.stdout.write(`\nText:\n${c.text === null ? '(none)\n' : c.text.endsWith('\n') ? c.text : `${c.text}\n`}`);
  process.stdout.write(`\nHTML:\n${c.html === null ? '(none)\n' : c.html.endsWith('\n') ? c.html : `${c.html}\n`}`);
}

// ---------------------------------------------------------------------------------------------------------------

/** Registers `hearth admin outgoing-mail …`, under an existing `admin` command if another module made one. */
export function registerMail(program: Command): void {
  const admin = program.commands.find((c) => c.name() === 'admin') ?? program.command('admin').description('server administration on a running server');
  const mail = admin
    .command('outgoing-mail')
    .description('outgoing mail: sender profiles (SMTP settings), application access, the send log and its retention');

  // ---- profiles ----
  const profiles = mail.command('profiles').description('sender profiles: the SMTP settings mail goes out with');

  outputOptions(serverOptions(profiles.command('put <key>'), { caFileOption: false }))
    .description(
      'create or replace a sender profile from exactly one of --config-file, --stdin or --config (a JSON object: the whole profile). ' +
        'Replacing an existing profile needs its current revision (from `profiles get`), in the JSON or with --revision. ' +
        'Passwords (smtpPassword, imap.password) only in --config-file or --stdin; leaving one out keeps the stored one',
    )
    .option('--config-file <file>', 'read the profile (a JSON object) from this file; protect it if it holds passwords')
    .option('--stdin', 'read the profile (a JSON object) from standard input')
    .option('--config <json>', 'the profile as a JSON object (never with a password)')
    .option('--revision <n>', 'the revision being replaced (as `revision` in the JSON)')
    .option('--ca-file <file>', 'trust this CA (PEM: one or more CA certificates) for the profile\'s SMTP and IMAP connections, besides the default CAs (as `tlsCaPem` in the JSON; `"tlsCaPem": null` there clears it). Not the trust for Hearth itself: give that before the command, `hearth --ca-file <pem> admin …`, or in HEARTH_CA_FILE')
    .action(async (key: string, opts: Opts & InputOpts & { revision?: string; caFile?: string }) => {
      checkOutput(opts);
      const body = await readProfileInput(key, opts);
      if (opts.caFile !== undefined) {
        if (body.tlsCaPem !== undefined) throw new CliError('give the trusted CA with --ca-file or as tlsCaPem in the profile JSON, not both');
        body.tlsCaPem = readCaFile(opts.caFile);
      }
      if (opts.revision !== undefined) {
        const revision = parseRevision(opts.revision);
        if (body.revision !== undefined && body.revision !== revision) {
          throw new CliError(`--revision ${revision} and the revision ${JSON.stringify(body.revision)} of the profile JSON differ: give one`);
        }
        body.revision = revision;
      }
      const res = await new HearthClient(opts).request('PUT', `${MAIL_BASE}/profiles/${enc(key)}`, { json: body });
      const p = (await res.json()) as Profile;
      emit(opts, p, () => {
        const what = res.status === 201 ? 'Created' : 'Replaced';
        process.stdout.write(
          `${what} sender profile ${p.key} (revision ${p.revision}${p.isDefault ? ', the default profile' : ''}; password ${p.hasPassword ? 'stored' : 'none'}; bounce collection ${p.imap ? 'on' : 'off'}${p.tlsCa ? `; trusted CA ${p.tlsCa.map((c) => c.fingerprint256).join(', ')}` : ''}).\n`,
        );
      });
    });

  serverOptions(profiles.command('list'))
    .description('list the sender profiles: default, sender, SMTP server, password stored or not, pace, revision, bounce collection')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const { data } = await new HearthClient(opts).json<{ data: Profile[] }>('GET', `${MAIL_BASE}/profiles`);
      if (opts.json) printJson(data);
      else if (opts.jsonl) printJsonLines(data);
      else printTable(data.map(profileRow), PROFILE_COLUMNS);
    });

  outputOptions(serverOptions(profiles.command('get <key>')))
    .description('show one sender profile (passwords are never shown: only whether one is stored) and its revision')
    .action(async (key: string, opts: Opts) => {
      checkOutput(opts);
      const p = await new HearthClient(opts).json<Profile>('GET', `${MAIL_BASE}/profiles/${enc(key)}`);
      emit(opts, p, () => printProfile(p));
    });

  outputOptions(serverOptions(profiles.command('test <key>')))
    .description('send a short test message through the profile (not written to the send log; audited). Success proves SMTP acceptance only, not delivery')
    .requiredOption('--to <recipient>', 'the address to send the test message to')
    .action(async (key: string, opts: Opts & { to: string }) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<{ ok: true }>('POST', `${MAIL_BASE}/profiles/${enc(key)}/test`, { to: opts.to });
      emit(opts, r, () => process.stdout.write(`The SMTP server accepted the test message from profile ${key} to ${opts.to} (acceptance only: check the mailbox).\n`));
    });

  outputOptions(serverOptions(profiles.command('check-bounces <key>')))
    .description(
      'check the profile\'s bounce mailbox now (one collection pass, as the five-minute schedule runs it; a pass in progress is joined) and show what it found. ' +
        'Exits 1 when the pass failed (its error code and what went wrong are shown)',
    )
    .action(async (key: string, opts: Opts) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<BounceCheck>('POST', `${MAIL_BASE}/profiles/${enc(key)}/bounces/check`);
      emit(opts, r, () => printBounceCheck(r));
      if (r.error) process.exitCode = 1;
    });

  yesOption(outputOptions(serverOptions(profiles.command('set-default <key>'))))
    .description('make the profile the default: sends that name no profile, and Hearth\'s own mail, use it from now on (queued mail keeps its profile)')
    .action(async (key: string, opts: Opts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `make ${key} the default sender profile`);
      const p = await new HearthClient(opts).json<Profile>('POST', `${MAIL_BASE}/profiles/${enc(key)}/default`);
      emit(opts, p, () => process.stdout.write(`${p.key} is now the default sender profile (revision ${p.revision}).\n`));
    });

  yesOption(outputOptions(serverOptions(profiles.command('delete <key>'))))
    .description('delete a sender profile: its queued mail is cancelled (profile_removed) and applications lose it. The default profile cannot be deleted while others exist')
    .action(async (key: string, opts: Opts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `delete the sender profile ${key}`);
      await new HearthClient(opts).json('DELETE', `${MAIL_BASE}/profiles/${enc(key)}`);
      emit(opts, { key, deleted: true }, () =>
        process.stdout.write(`Deleted sender profile ${key}; its queued mail is cancelled (profile_removed) and no application may use it any more.\n`),
      );
    });

  // ---- apps ----
  const apps = mail.command('apps').description('applications and the sender profiles they may use');

  serverOptions(apps.command('list'))
    .description('list core, registered applications (and whether they declare mail:send) and stored policies of applications that are not registered')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const { data } = await new HearthClient(opts).json<{ data: MailApp[] }>('GET', `${MAIL_BASE}/apps`);
      if (opts.json) printJson(data);
      else if (opts.jsonl) printJsonLines(data);
      else printTable(data.map(appRow), APP_COLUMNS);
    });

  yesOption(outputOptions(serverOptions(apps.command('set <app>'))))
    .description(
      'set an application\'s access policy, exactly one of --default (follow the default profile), --profiles <key,key> (an explicit set) or --none (block sending). ' +
        'The application must also declare mail:send. Revoking access cancels its queued mail on the profiles it loses',
    )
    .option('--default', 'follow the default profile (no stored policy)')
    .option('--profiles <keys>', 'an explicit, comma-separated set of profile keys')
    .option('--none', 'no profile: the application cannot send')
    .action(async (app: string, opts: Opts & { default?: boolean; profiles?: string; none?: boolean; yes?: boolean }) => {
      checkOutput(opts);
      const given = [opts.default && '--default', opts.profiles !== undefined && '--profiles', opts.none && '--none'].filter(Boolean);
      if (given.length !== 1) {
        throw new CliError(
          given.length === 0
            ? 'give exactly one of --default, --profiles <key,key> or --none'
            : `give exactly one of --default, --profiles or --none (got ${given.join(' and ')})`,
        );
      }
      let policy: Record<string, unknown>;
      if (opts.profiles !== undefined) {
        const keys = [...new Set(opts.profiles.split(',').map((k) => k.trim()).filter(Boolean))];
        if (keys.length === 0) throw new CliError('--profiles needs at least one profile key (use --none to block sending)');
        policy = { mode: 'profiles', profiles: keys };
      } else policy = { mode: opts.default ? 'default' : 'none' };
      requireYes(opts.yes, `change the mail access of ${app}`);
      const a = await new HearthClient(opts).json<MailApp>('PUT', `${MAIL_BASE}/apps/${enc(app)}/policy`, policy);
      emit(opts, a, () => printApp(a));
    });

  // ---- log ----
  const log = mail.command('log').description('the send log: metadata of every message, content only by an audited read');

  serverOptions(log.command('list'))
    .description('list send-log records, newest first (metadata only, never content)')
    .option('--app <app>', 'only this application (core for Hearth\'s own mail)')
    .option('--profile <key>', 'only this sender profile')
    .option('--status <statuses>', 'only these statuses, comma-separated: queued, sending, sent, failed, cancelled, bounced')
    .option('--since <time>', 'only records created at or after this ISO 8601 time (e.g. 2026-11-23T00:00:00Z)')
    .option('--ref <ref>', 'only this reference: scope (every id of it) or scope:id')
    .option('--recipient <text>', 'only records with a recipient containing this text (case-insensitive)')
    .option('--cursor <cursor>', 'the page after this cursor (the nextCursor of the previous page)')
    .option('--limit <n>', 'records a page, 1–100 (default 50)')
    .option('--all', 'follow the cursors and fetch every page')
    .option('--json', 'print the page as JSON ({data, nextCursor})')
    .option('--jsonl', 'print one record per line (the next cursor goes to standard error)')
    .action(async (opts: Opts & { app?: string; profile?: string; status?: string; since?: string; ref?: string; recipient?: string; cursor?: string; limit?: string; all?: boolean }) => {
      checkOutput(opts);
      const client = new HearthClient(opts);
      const filters = new URLSearchParams();
      for (const f of ['app', 'profile', 'status', 'since', 'ref', 'recipient', 'limit'] as const) if (opts[f] !== undefined) filters.set(f, opts[f]!);
      const fetchPage = (cursor: string | undefined) => {
        const q = new URLSearchParams(filters);
        if (cursor) q.set('cursor', cursor);
        return client.json<{ data: Message[]; nextCursor: string | null }>('GET', `${MAIL_BASE}/messages?${q}`);
      };
      let page = await fetchPage(opts.cursor);
      if (opts.all) {
        const data = [...page.data];
        while (page.nextCursor) {
          page = await fetchPage(page.nextCursor);
          data.push(...page.data);
        }
        page = { data, nextCursor: null };
      }
      if (opts.json) printJson(page);
      else if (opts.jsonl) printJsonLines(page.data);
      else printTable(page.data.map(logRow), LOG_COLUMNS);
      if (page.nextCursor && !opts.json) {
        const more = [...filters].map(([k, v]) => `--${k} ${/^[\w.:@,+-]+$/.test(v) ? v : JSON.stringify(v)}`);
        process.stderr.write(`More records: next page with \`hearth admin outgoing-mail log list ${[...more, `--cursor ${page.nextCursor}`].join(' ')}\`, or every page with --all.\n`);
      }
    });

  outputOptions(serverOptions(log.command('show <id>')))
    .description('show one record\'s metadata; --content also reads its text, HTML and custom headers (every content read is audited)')
    .option('--content', 'also read the content (audited as outgoing_mail.message.read)')
    .action(async (id: string, opts: Opts & { content?: boolean }) => {
      checkOutput(opts);
      const client = new HearthClient(opts);
      const m = await client.json<Message>('GET', `${MAIL_BASE}/messages/${enc(id)}`);
      if (!opts.content) return emit(opts, m, () => printMessage(m));
      const content = await client.json<MessageContent>('GET', `${MAIL_BASE}/messages/${enc(id)}/content`);
      emit(opts, { ...m, content }, () => {
        printMessage(m);
        printContent(content);
        process.stderr.write('This content read was recorded in the audit log (outgoing_mail.message.read).\n');
      });
    });

  yesOption(outputOptions(serverOptions(log.command('cancel [id]'))))
    .description('cancel a queued message, or with --batch the still-queued messages of a batch (sent mail stays sent; mail being sent finishes)')
    .option('--batch <batchId>', 'cancel the still-queued members of this batch instead of one message')
    .action(async (id: string | undefined, opts: Opts & { batch?: string; yes?: boolean }) => {
      checkOutput(opts);
      if ((id === undefined) === (opts.batch === undefined)) {
        throw new CliError(id === undefined ? 'give exactly one target: a message id, or --batch <batchId>' : 'give exactly one target: a message id or --batch <batchId>, not both');
      }
      const client = new HearthClient(opts);
      if (id !== undefined) {
        requireYes(opts.yes, `cancel the message ${id}`);
        const m = await client.json<Message>('POST', `${MAIL_BASE}/messages/${enc(id)}/cancel`);
        emit(opts, m, () => process.stdout.write(`Cancelled message ${m.id} (${m.status}, ${m.cancelReason ?? 'cancelled_by_admin'}).\n`));
      } else {
        requireYes(opts.yes, `cancel the queued messages of batch ${opts.batch}`);
        const r = await client.json<{ batchId: string; cancelled: number }>('POST', `${MAIL_BASE}/batches/${enc(opts.batch!)}/cancel`);
        emit(opts, r, () =>
          process.stdout.write(`Cancelled ${r.cancelled} queued message${r.cancelled === 1 ? '' : 's'} of batch ${r.batchId}${r.cancelled === 0 ? ' (none was still queued)' : ''}.\n`),
        );
      }
    });

  // ---- retention ----
  const retention = mail.command('retention').description('how long the send log keeps message content and records');

  outputOptions(serverOptions(retention.command('show')))
    .description('show both retention periods (content: text, HTML, headers; records: the whole row)')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<Retention>('GET', `${MAIL_BASE}/retention`);
      emit(opts, r, () => printFields([['content', `${r.contentDays} days`], ['records', `${r.recordDays} days`]]));
    });

  yesOption(outputOptions(serverOptions(retention.command('set'))))
    .description('set both retention periods together: whole days 1–36500, records at least as long as content')
    .option('--content-days <n>', 'days message content (text, HTML, custom headers) is kept (required)')
    .option('--record-days <n>', 'days the whole record is kept (required; at least --content-days)')
    .action(async (opts: Opts & { contentDays?: string; recordDays?: string; yes?: boolean }) => {
      checkOutput(opts);
      const missing = [opts.contentDays === undefined && '--content-days', opts.recordDays === undefined && '--record-days'].filter(Boolean);
      if (missing.length) throw new CliError(`retention set needs both --content-days and --record-days (missing ${missing.join(' and ')})`);
      const days = (v: string, name: string) => {
        if (!/^\d+$/.test(v.trim())) throw new CliError(`${name} must be a whole number of days (got ${JSON.stringify(v)})`);
        return Number(v.trim());
      };
      const body = { contentDays: days(opts.contentDays!, '--content-days'), recordDays: days(opts.recordDays!, '--record-days') };
      requireYes(opts.yes, 'change the send-log retention');
      const r = await new HearthClient(opts).json<Retention>('PUT', `${MAIL_BASE}/retention`, body);
      emit(opts, r, () => process.stdout.write(`Send-log retention: content ${r.contentDays} days, records ${r.recordDays} days.\n`));
    });
}
