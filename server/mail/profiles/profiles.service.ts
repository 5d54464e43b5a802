import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { MailClock } from '../clock.ts';
import type { SecretBox } from '../crypto.ts';
import { attemptSmtp, type SmtpOptions, type SmtpOutcome, type SmtpSettings } from '../delivery/smtp-attempt.ts';
import { certificateHint, explainSmtpFailure, type SmtpFailureReason } from '../delivery/smtp-failure.ts';
import { describeCaBundle } from '../tls-ca.ts';
import { type ProfileRead, type ProfileWrite, sameHost } from './profiles.schemas.ts';
import type { ProfileRow, ProfileStore, ProfileValues, TestRecord } from './profiles.store.ts';

export interface Actor {
  actor: string;
  requestId?: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentProfile(r: ProfileRow): ProfileRead {
  const imapOn = r.imap_host !== null;
  return {
    key: r.key,
    name: r.name,
    fromAddress: r.from_address,
    fromName: r.from_name,
    smtpHost: r.smtp_host,
    smtpPort: r.smtp_port,
    smtpSecure: r.smtp_secure === 1,
    smtpUser: r.smtp_user,
    hasPassword: r.smtp_password !== null,
    pacePerMinute: r.pace_per_minute,
    dailyRecipientLimit: r.daily_recipient_limit,
    maxAttachmentBytes: r.max_attachment_bytes,
    isDefault: r.is_default === 1,
    revision: r.revision,
    imap: imapOn
      ? {
          host: r.imap_host!,
          port: r.imap_port!,
          secure: r.imap_secure === 1,
          user: r.imap_user!,
          folder: r.imap_folder!,
          hasPassword: r.imap_password !== null,
        }
      : null,
    bounces: imapOn ? { checkedAt: iso(r.bounces_checked_at), error: r.bounces_error } : null,
    tlsCa: r.tls_ca === null ? null : describeCaBundle(r.tls_ca),
    lastTest:
      r.last_test_at === null
        ? null
        : {
            at: iso(r.last_test_at)!,
            ok: r.last_test_ok === 1,
            code: r.last_test_code as SmtpFailureReason | null,
            summary: r.last_test_summary ?? '',
            detail: r.last_test_detail,
          },
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}

export interface ProfilesDeps {
  store: ProfileStore;
  box: SecretBox;
  audit: AuditLog;
  clock: MailClock;
  /** The installation name: the sender name of test sends and Core mail when a profile has no `fromName`. */
  appName: string;
  smtp?: SmtpOptions;
  /** Runs inside the deletion's transaction: cancels the profile's queued mail. Returns the cancelled ids. */
  onProfileRemoved: (key: string) => Promise<string[]>;
  /** Runs after the deletion committed (attachment objects of the cancelled rows). */
  afterProfileRemoved?: (cancelledIds: string[]) => Promise<void>;
}

/** Profile fields whose change resets the bounce cursor and check status. */
const IMAP_IDENTITY = ['imap_host', 'imap_port', 'imap_user', 'imap_folder'] as const;

export function createProfilesService(deps: ProfilesDeps) {
  const { store, box, audit, clock } = deps;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  const row = async (key: string): Promise<ProfileRow> => {
    const r = await store.get(key);
    if (!r) throw new HearthError('profile_unknown', `no sender profile with key "${key}"`);
    return r;
  };

  /** Applies the password rule of the write shape: omitted keeps (unless the host changed), null clears, a string replaces. */
  function password(
    given: string | null | undefined,
    stored: string | null,
    hostChanged: boolean,
    key: string,
    field: 'smtp' | 'imap',
    name: string,
  ): string | null {
    if (given === null) return null;
    if (given !== undefined) return box.seal(given, key, field);
    if (hostChanged && stored !== null) {
      throw new HearthError('password_required', `${name} must be given again or cleared (null) when the ${field === 'smtp' ? 'SMTP' : 'IMAP'} host changes`);
    }
    return stored;
  }

  function values(key: string, body: ProfileWrite, old: ProfileRow | undefined): ProfileValues {
    const smtpHostChanged = old !== undefined && !sameHost(old.smtp_host, body.smtpHost);
    const imap = body.imap && body.imap.host !== '' ? body.imap : null;
    const v: ProfileValues = {
      key,
      name: body.name,
      from_address: body.fromAddress,
      from_name: body.fromName === '' ? null : body.fromName,
      smtp_host: body.smtpHost,
      smtp_port: body.smtpPort,
      smtp_secure: body.smtpSecure ? 1 : 0,
      smtp_user: body.smtpUser === '' ? null : body.smtpUser,
      smtp_password: password(body.smtpPassword, old?.smtp_password ?? null, smtpHostChanged, key, 'smtp', 'smtpPassword'),
      pace_per_minute: body.pacePerMinute,
      daily_recipient_limit: body.dailyRecipientLimit,
      max_attachment_bytes: body.maxAttachmentBytes,
      imap_host: null,
      imap_port: null,
      imap_secure: null,
      imap_user: null,
      imap_password: null,
      imap_folder: null,
      imap_uidvalidity: null,
      imap_cursor: null,
      bounces_checked_at: null,
      bounces_error: null,
      // like a password: omitted keeps, null clears, a string (validated and normalized by the schema) replaces
      tls_ca: body.tlsCaPem === undefined ? (old?.tls_ca ?? null) : body.tlsCaPem,
    };
    if (imap) {
      const wasOn = old?.imap_host != null;
      const imapHostChanged = wasOn && !sameHost(old!.imap_host, imap.host);
      Object.assign(v, {
        imap_host: imap.host,
        imap_port: imap.port,
        imap_secure: imap.secure ? 1 : 0,
        imap_user: imap.user,
        imap_folder: imap.folder,
        imap_password: password(imap.password, wasOn ? old!.imap_password : null, imapHostChanged, key, 'imap', 'imap.password'),
      });
      const sameMailbox = wasOn && sameHost(old!.imap_host, imap.host) && IMAP_IDENTITY.every((c) => c === 'imap_host' || old![c] === v[c]);
      if (sameMailbox) {
        Object.assign(v, {
          imap_uidvalidity: old!.imap_uidvalidity,
          imap_cursor: old!.imap_cursor,
          bounces_checked_at: old!.bounces_checked_at,
          bounces_error: old!.bounces_error,
        });
      }
    }
    return v;
  }

  /** Audit detail of a write: what changed, never a secret (only whether a password was set, kept or cleared). */
  const writeDetail = (body: ProfileWrite) => ({
    smtpHost: body.smtpHost,
    smtpPort: body.smtpPort,
    smtpSecure: body.smtpSecure,
    fromAddress: body.fromAddress,
    smtpPassword: body.smtpPassword === undefined ? 'kept' : body.smtpPassword === null ? 'cleared' : 'replaced',
    imap:
      body.imap && body.imap.host !== ''
        ? {
            host: body.imap.host,
            folder: body.imap.folder,
            password: body.imap.password === undefined ? 'kept' : body.imap.password === null ? 'cleared' : 'replaced',
          }
        : null,
    // the fingerprints of a new CA, never its PEM
    tlsCa:
      body.tlsCaPem === undefined
        ? { change: 'kept' }
        : body.tlsCaPem === null
          ? { change: 'cleared' }
          : { change: 'replaced', fingerprints: describeCaBundle(body.tlsCaPem).map((c) => c.fingerprint256) },
  });

  return {
    list: async (): Promise<ProfileRead[]> => (await store.list()).map(presentProfile),
    get: async (key: string): Promise<ProfileRead> => presentProfile(await row(key)),
    /** Internal: the stored row (passwords sealed). */
    row: (key: string) => store.get(key),
    defaultRow: () => store.getDefault(),

    /** Creates (`created: true`) or replaces a profile under the revision rules. */
    put(key: string, body: ProfileWrite, actor: Actor): Promise<{ profile: ProfileRead; created: boolean }> {
      return store.transaction(async () => {
        const old = await store.get(key);
        const at = clock.now();
        if (!old) {
          if (body.revision !== undefined)
            throw new HearthError('revision_conflict', `profile "${key}" does not exist (it may have been deleted); create it without a revision`);
          const first = (await store.count()) === 0;
          await store.insert(values(key, body, undefined), first, at);
          await record(actor, 'outgoing_mail.profile.create', key, { ...writeDetail(body), default: first });
          return { profile: presentProfile((await store.get(key))!), created: true };
        }
        if (body.revision === undefined)
          throw new HearthError('profile_exists', `profile "${key}" already exists; read it and send its revision to replace it`);
        if (body.revision !== old.revision)
          throw new HearthError('revision_conflict', `profile "${key}" has changed since revision ${body.revision} (now ${old.revision}); read it again`);
        await store.update(values(key, body, old), at);
        await record(actor, 'outgoing_mail.profile.update', key, writeDetail(body));
        return { profile: presentProfile((await store.get(key))!), created: false };
      });
    },

    setDefault(key: string, actor: Actor): Promise<ProfileRead> {
      return store.transaction(async () => {
        const old = await row(key);
        const previous = (await store.getDefault())?.key ?? null;
        if (old.is_default !== 1) {
          await store.makeDefault(key, clock.now());
          await record(actor, 'outgoing_mail.profile.default', key, { previous });
        }
        return presentProfile((await store.get(key))!);
      });
    },

    async remove(key: string, actor: Actor): Promise<void> {
      const cancelled = await store.transaction(async () => {
        const old = await row(key);
        if (old.is_default === 1 && (await store.count()) > 1) {
          throw new HearthError('profile_is_default', `profile "${key}" is the default; make another profile the default first`);
        }
        if (old.is_default === 1) {
          // The last profile: deleting it leaves the installation without outgoing mail, which is allowed.
        }
        const ids = await deps.onProfileRemoved(key);
        await store.remove(key);
        await record(actor, 'outgoing_mail.profile.delete', key, { cancelledMessages: ids.length });
        return ids;
      });
      await deps.afterProfileRemoved?.(cancelled);
    },

    /** The SMTP settings with the password opened (only the send path calls this). */
    smtpSettings(r: ProfileRow): SmtpSettings {
      const pw = r.smtp_password === null ? null : box.open(r.smtp_password, r.key, 'smtp');
      return { host: r.smtp_host, port: r.smtp_port, secure: r.smtp_secure === 1, user: r.smtp_user, password: pw, ca: r.tls_ca };
    },

    /** Sends a test message; `{ok: true}` proves SMTP acceptance only. */
    async testSend(key: string, to: string, actor: Actor): Promise<{ ok: true }> {
      const r = await row(key);
      const settings = this.smtpSettings(r);
      const at = clock.now();
      const outcome = await attemptSmtp(
        settings,
        {
          from: { name: r.from_name ?? deps.appName, address: r.from_address },
          to: [to],
          cc: [],
          bcc: [],
          subject: `${deps.appName}: test message from sender profile "${r.key}"`,
          text: `This is a test message sent through the sender profile "${r.name}" (${r.key}) at ${new Date(at).toISOString()}.\n\nIt proves that the SMTP server accepted the message, not that it reached the inbox.`,
          messageId: `<test-${at.toString(36)}-${Math.random().toString(36).slice(2)}@${r.from_address.split('@')[1] ?? 'hearth.invalid'}>`,
        },
        deps.smtp,
      );
      const test = testRecord(outcome, { host: r.smtp_host, port: r.smtp_port, from: r.from_address, to }, clock.now());
      await store.transaction(async () => {
        // the profile may have been deleted meanwhile: then there is nothing to keep the result on
        await store.recordTest(key, test);
        await record(actor, 'outgoing_mail.profile.test', key, { ok: test.ok, reason: test.code, error: test.ok ? null : test.detail });
      });
      if (!test.ok) throw new HearthError('smtp_failed', test.summary, { fields: { reason: test.code, detail: test.detail } });
      return { ok: true };
    },
  };
}

export type ProfilesService = ReturnType<typeof createProfilesService>;

/** The outcome of a test send as kept on the profile: one sentence, the classified reason, the raw answer. */
function testRecord(outcome: SmtpOutcome, s: { host: string; port: number; from: string; to: string }, at: number): TestRecord {
  if (outcome.kind === 'accepted' && outcome.rejected.length === 0) {
    return { at, ok: true, code: null, summary: 'The server accepted the test message.', detail: outcome.response || null };
  }
  // one recipient: a partly accepted envelope is that recipient refused
  const code: SmtpFailureReason = outcome.kind === 'accepted' ? 'recipient_refused' : (outcome.reason ?? 'smtp_error');
  const detail =
    outcome.kind === 'accepted'
      ? outcome.rejected.map((x) => x.reason).join('\n')
      : outcome.response && !outcome.error.includes(outcome.response)
        ? `${outcome.error}\n${outcome.response}`
        : outcome.error;
  return {
    at,
    ok: false,
    code,
    summary: explainSmtpFailure(code, { ...s, certificateHint: code === 'certificate_untrusted' ? certificateHint(detail) : null }),
    detail,
  };
}
