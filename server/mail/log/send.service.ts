/**
 * The sending API (`mail.send`, `mail.enqueue`, Core's own mail and notifications): resolves the sender profile,
 * checks the limits and commits each accepted message to the send log with its attachment objects; a refusal is
 * audited once, without content. Reading and cancelling the log is `log.service.ts`.
 */
import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import { CORE_APP, MAIL_SEND } from '../apps/apps.schemas.ts';
import type { AppsService, MailApplication } from '../apps/apps.service.ts';
import type { MailClock } from '../clock.ts';
import type { AttachmentStore } from '../delivery/attachments.ts';
import type { ProfileRow, ProfileStore } from '../profiles/profiles.store.ts';
import type { EnqueueBody, EnqueueMessage, SendBody } from './log.schemas.ts';
import type { LogStore, MessageRow, StoredAttachment } from './log.store.ts';

export const DELIVERY_DEADLINE_MS = 24 * 3600_000;

/** Who is sending: an application (or `core`) and the caller behind it. */
export interface Sender {
  app: MailApplication | { appId: typeof CORE_APP; name: string; platformPermissions: string[] };
  actor: Record<string, unknown> & { actor: string };
  requestId?: string | null;
}

export interface SendServiceDeps {
  store: LogStore;
  profiles: ProfileStore;
  apps: AppsService;
  attachments: AttachmentStore;
  audit: AuditLog;
  clock: MailClock;
  /** Called after mail committed (wakes the lanes). */
  onAccepted: (lane: 'immediate' | 'bulk', profileKey: string) => void;
}

/** Core's notifications have no 24-hour deadline: they stay pending through temporary SMTP failures (a year at most). */
export const NOTIFICATION_DEADLINE_MS = 365 * 24 * 3600_000;
/** How a message is handled: ordinary mail, or one of Core's notifications (optionally waiting for window capacity). */
export interface Kind {
  notification: boolean;
  waitForWindow: boolean;
}
const MESSAGE: Kind = { notification: false, waitForWindow: false };
export const NOTIFICATION: Kind = { notification: true, waitForWindow: false };
export const NOTIFICATION_BATCH: Kind = { notification: true, waitForWindow: true };

export function createSendService(deps: SendServiceDeps) {
  const { store, profiles, apps, attachments, audit, clock } = deps;
  const record = (a: { actor: string; requestId?: string | null }, action: string, target: string | null, detail: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail, requestId: a.requestId ?? null });

  /** The sender profile for a call: explicit (must be allowed) or the default; every refusal names its reason. */
  async function resolveProfile(sender: Sender, requested: string | undefined): Promise<ProfileRow> {
    const appId = sender.app.appId;
    if (appId !== CORE_APP && !sender.app.platformPermissions.includes(MAIL_SEND)) {
      throw new HearthError('mail_send_not_declared', `application "${appId}" does not declare platformPermissions: ["${MAIL_SEND}"]`);
    }
    // The default profile is read at most once, and only when the answer depends on it.
    let def: ProfileRow | undefined | null = null;
    const defaultKey = async () => (def === null ? (def = await profiles.getDefault()) : def)?.key;
    if (appId === CORE_APP && requested !== undefined && requested !== (await defaultKey())) {
      throw new HearthError('profile_not_allowed', 'Core mail always uses the default profile');
    }
    const key = requested ?? (await defaultKey());
    if (key === undefined) throw new HearthError('mail_not_configured', 'no sender profile is configured: an administrator must create one');
    const row = await profiles.get(key);
    if (!row) throw new HearthError('profile_unknown', `no sender profile with key "${key}"`);
    if (!(await apps.mayUse(appId, key, defaultKey))) {
      throw new HearthError('profile_not_allowed', `application "${appId}" may not send through profile "${key}"`);
    }
    return row;
  }

  interface Prepared {
    row: Parameters<LogStore['insert']>[0];
    content: Parameters<LogStore['insert']>[1];
    blobs: Buffer[];
    duplicate?: MessageRow;
  }

  function prepare(
    sender: Sender,
    profile: ProfileRow,
    m: EnqueueMessage,
    lane: 'immediate' | 'bulk',
    batchId: string | null,
    ref: string | undefined,
    now: number,
    kind: Kind = MESSAGE,
  ): Prepared {
    const blobs = m.attachments.map((a) => Buffer.from(a.content, 'base64'));
    const total = blobs.reduce((n, b) => n + b.length, 0);
    if (total > profile.max_attachment_bytes) {
      throw new HearthError(
        'attachment_too_large',
        `attachments total ${total} bytes; profile "${profile.key}" allows at most ${profile.max_attachment_bytes} per message`,
      );
    }
    const id = crypto.randomUUID();
    const domain = profile.from_address.split('@')[1] ?? 'hearth.invalid';
    return {
      row: {
        id,
        lane,
        app_id: sender.app.appId,
        actor: JSON.stringify(sender.actor),
        profile_key: profile.key,
        from_address: profile.from_address,
        from_name: profile.from_name ?? sender.app.name,
        recipients: JSON.stringify({ to: m.to, cc: m.cc, bcc: m.bcc }),
        recipient_count: m.to.length + m.cc.length + m.bcc.length,
        subject: m.subject,
        attachments: JSON.stringify(
          m.attachments.map((a, i) => ({
            objectId: '',
            filename: a.filename,
            contentType: a.contentType,
            size: blobs[i]!.length,
            sha256: crypto.hash('sha256', blobs[i]!, 'hex'),
          })),
        ),
        attachments_released: m.attachments.length === 0 ? 1 : 0,
        batch_id: batchId,
        ref: m.ref ?? ref ?? null,
        idempotency_key: m.idempotencyKey ?? null,
        message_id: `<${id}@${domain}>`,
        deadline_at: now + (kind.notification ? NOTIFICATION_DEADLINE_MS : DELIVERY_DEADLINE_MS),
        created_at: now,
        kind: kind.notification ? 'notification' : 'message',
        window_at: kind.waitForWindow ? null : now,
      },
      content: { text: m.text ?? null, html: m.html ?? null, headers: JSON.stringify({ ...m.headers, ...(m.replyTo ? { 'Reply-To': m.replyTo } : {}) }) },
      blobs,
    };
  }

  async function checkDailyLimit(profile: ProfileRow, adding: number, now: number): Promise<void> {
    if (profile.daily_recipient_limit === null) return;
    const used = await store.windowRecipients(profile.key, now - DELIVERY_DEADLINE_MS);
    if (used + adding > profile.daily_recipient_limit) {
      throw new HearthError(
        'daily_limit_exceeded',
        `profile "${profile.key}" allows ${profile.daily_recipient_limit} recipients per rolling 24 hours; ${used} are used and this call adds ${adding}`,
      );
    }
  }

  /** Inserts prepared messages with their attachment objects; returns them (duplicates by idempotency key as found). */
  async function insertAll(prepared: Prepared[]): Promise<void> {
    const discards: Array<() => void> = [];
    try {
      for (const p of prepared) {
        if (p.duplicate) continue;
        const { ids, discard } = await attachments.put(p.blobs);
        discards.push(discard);
        if (ids.length) {
          const list = JSON.parse(p.row.attachments) as StoredAttachment[];
          for (const [i, a] of list.entries()) a.objectId = ids[i]!;
          p.row.attachments = JSON.stringify(list);
        }
        await store.insert(p.row, p.content);
      }
    } catch (err) {
      for (const d of discards) d();
      throw err;
    }
  }

  const accepted = (p: Prepared) =>
    p.duplicate
      ? { id: p.duplicate.id, messageId: p.duplicate.message_id, status: p.duplicate.status, duplicate: true }
      : { id: p.row.id, messageId: p.row.message_id, status: 'queued' as const, duplicate: false };

  /**
   * Audits a refused call once, without content: who (the actor), the application, the profile the call named (null:
   * the default) and the error code — never the subject, addresses, body or attachments.
   */
  async function refused(sender: Sender, call: 'send' | 'enqueue', code: string, profile: string | null | undefined): Promise<void> {
    await record({ actor: sender.actor.actor, requestId: sender.requestId }, 'outgoing_mail.send', null, {
      app: sender.app.appId,
      call,
      profile: profile ?? null,
      denied: code,
    });
  }

  /** Runs a call; a refusal is audited once (`refused`), then rethrown. */
  async function denied<T>(sender: Sender, call: 'send' | 'enqueue', profile: string | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof HearthError) await refused(sender, call, err.code, profile);
      throw err;
    }
  }

  /** The work of one `mail.send` inside its transaction. */
  async function sendInTransaction(sender: Sender, body: SendBody, kind: Kind) {
    const now = clock.now();
    if (body.idempotencyKey) {
      const dup = await store.byIdempotency(sender.app.appId, body.idempotencyKey);
      if (dup) return { p: { duplicate: dup } as Prepared, profile: dup.profile_key };
    }
    const profile = await resolveProfile(sender, body.profile);
    const p = prepare(sender, profile, body, 'immediate', null, undefined, now, kind);
    await checkDailyLimit(profile, p.row.recipient_count, now);
    await insertAll([p]);
    await record({ actor: sender.actor.actor, requestId: sender.requestId }, 'outgoing_mail.send', p.row.id, {
      app: sender.app.appId,
      actor: sender.actor,
      profile: profile.key,
      recipientCount: p.row.recipient_count,
      messageId: p.row.id,
    });
    return { p, profile: profile.key };
  }

  interface SharedCall {
    sender: Sender;
    body: SendBody;
    resolve: (v: ReturnType<typeof accepted>) => void;
    reject: (err: unknown) => void;
  }
  let shared: SharedCall[] = [];
  async function flushShared(): Promise<void> {
    const calls = shared;
    shared = [];
    if (calls.length === 1) {
      const c = calls[0]!;
      await api.send(c.sender, c.body).then(c.resolve, c.reject);
      return;
    }
    const results: Array<{ ok: true; r: Awaited<ReturnType<typeof sendInTransaction>> } | { ok: false; err: unknown }> = [];
    try {
      await store.transaction(async () => {
        for (const c of calls) {
          try {
            // A savepoint, rolled back alone when this call is refused.
            results.push({ ok: true, r: await store.savepoint(() => sendInTransaction(c.sender, c.body, MESSAGE)) });
          } catch (err) {
            if (err instanceof HearthError) await refused(c.sender, 'send', err.code, c.body.profile);
            results.push({ ok: false, err });
          }
        }
      });
    } catch (err) {
      for (const c of calls) c.reject(err);
      return;
    }
    let woke = false;
    for (const [i, c] of calls.entries()) {
      const res = results[i]!;
      if (!res.ok) {
        c.reject(res.err);
        continue;
      }
      if (!res.r.p.duplicate && !woke) {
        woke = true;
        deps.onAccepted('immediate', res.r.profile);
      }
      c.resolve(accepted(res.r.p));
    }
  }

  const api = {
    resolveProfile,
    refused,

    /** `mail.send`: one message on the immediate lane. */
    async send(sender: Sender, body: SendBody, kind: Kind = MESSAGE) {
      const result = await denied(sender, 'send', body.profile, () => store.transaction(() => sendInTransaction(sender, body, kind)));
      if (!result.p.duplicate) deps.onAccepted('immediate', result.profile);
      return accepted(result.p);
    },

    /**
     * `mail.send` for concurrent callers (the application API): calls that arrive in the same turn of the event loop
     * share one transaction (one commit), each in its own savepoint, so a refused call changes nothing of the others.
     * Each call resolves only after that commit; the lane is woken after it. A lone call runs exactly as `send`.
     */
    sendShared(sender: Sender, body: SendBody): Promise<ReturnType<typeof accepted>> {
      return new Promise((resolve, reject) => {
        shared.push({ sender, body, resolve, reject });
        if (shared.length === 1) setImmediate(() => void flushShared());
      });
    },

    /**
     * `mail.enqueue`: one batch on the bulk lane, rejected whole (`backlog_full`, limits) or accepted whole. A
     * notification batch is not refused by the daily limit: its rows wait until the rolling window has room.
     */
    async enqueue(sender: Sender, body: EnqueueBody, kind: Kind = MESSAGE) {
      const result = await denied(sender, 'enqueue', body.profile, () =>
        store.transaction(async () => {
          const now = clock.now();
          const profile = await resolveProfile(sender, body.profile);
          const batchId = crypto.randomUUID();
          const prepared: Prepared[] = [];
          for (const m of body.messages) {
            const dup = m.idempotencyKey ? await store.byIdempotency(sender.app.appId, m.idempotencyKey) : undefined;
            prepared.push(dup ? ({ duplicate: dup } as Prepared) : prepare(sender, profile, m, 'bulk', batchId, body.ref, now, kind));
          }
          const fresh = prepared.filter((p) => !p.duplicate);
          const keys = fresh.map((p) => p.row.idempotency_key).filter((k) => k !== null);
          if (new Set(keys).size !== keys.length) throw new HearthError('invalid_request', 'body: messages: an idempotencyKey is repeated within the batch');
          const limit = profile.pace_per_minute * 1440;
          const queued = await store.queuedBulk(profile.key);
          if (queued + fresh.length > limit) {
            throw new HearthError(
              'backlog_full',
              `profile "${profile.key}" holds ${queued} queued bulk messages; its queue limit is ${limit} (pacePerMinute × 1440): the batch of ${fresh.length} is refused whole`,
            );
          }
          if (!kind.waitForWindow)
            await checkDailyLimit(
              profile,
              fresh.reduce((n, p) => n + p.row.recipient_count, 0),
              now,
            );
          await insertAll(prepared);
          await record({ actor: sender.actor.actor, requestId: sender.requestId }, 'outgoing_mail.send', batchId, {
            app: sender.app.appId,
            actors: [sender.actor],
            profiles: [profile.key],
            batchId,
            messageCount: fresh.length,
            messageIds: fresh.map((p) => p.row.id),
          });
          return { batchId, prepared, profile: profile.key, fresh: fresh.length };
        }),
      );
      if (result.fresh > 0) deps.onAccepted('bulk', result.profile);
      return { batchId: result.batchId, messages: result.prepared.map(accepted) };
    },
  };
  return api;
}

export type SendService = ReturnType<typeof createSendService>;
