import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import { CORE_APP, MAIL_SEND } from '../apps/apps.schemas.ts';
import type { AppsService, MailApplication } from '../apps/apps.service.ts';
import type { MailClock } from '../clock.ts';
import type { AttachmentStore } from '../delivery/attachments.ts';
import type { ProfileRow, ProfileStore } from '../profiles/profiles.store.ts';
import type { EnqueueBody, EnqueueMessage, ListQuery, SendBody } from './log.schemas.ts';
import type { CancelReason, LogStore, MessageRow, StoredAttachment } from './log.store.ts';

export const DELIVERY_DEADLINE_MS = 24 * 3600_000;
export const MAX_FAILURES = 100;

export interface Actor {
  actor: string;
  requestId?: string | null;
}

/** Who is sending: an application (or `core`) and the caller behind it. */
export interface Sender {
  app: MailApplication | { appId: typeof CORE_APP; name: string; platformPermissions: string[] };
  actor: Record<string, unknown> & { actor: string };
  requestId?: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentMessage(r: MessageRow) {
  const rcpt = JSON.parse(r.recipients) as { to: string[]; cc: string[]; bcc: string[] };
  return {
    id: r.id,
    status: r.status,
    cancelReason: r.cancel_reason,
    lane: r.lane,
    app: r.app_id,
    actor: JSON.parse(r.actor) as Record<string, unknown>,
    profile: r.profile_key,
    from: { name: r.from_name, address: r.from_address },
    to: rcpt.to,
    cc: rcpt.cc,
    bcc: rcpt.bcc,
    subject: r.subject,
    attachments: (JSON.parse(r.attachments) as StoredAttachment[]).map(({ filename, contentType, size, sha256 }) => ({ filename, contentType, size, sha256 })),
    attempts: r.attempts,
    lastError: r.last_error,
    smtpResponse: r.smtp_response,
    failures: JSON.parse(r.failures) as Array<{ recipient: string; reason: string; kind: 'rejected' | 'bounced' }>,
    batchId: r.batch_id,
    ref: r.ref,
    idempotencyKey: r.idempotency_key,
    messageId: r.message_id,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
    nextAttemptAt: r.status === 'queued' ? iso(r.due_at) : null,
    // The claim's time: on the bulk lane the pacing slot the attempt reserved (the same `now`, lanes.ts `drain`).
    lastAttemptAt: iso(r.claimed_at),
    deadlineAt: iso(r.deadline_at)!,
    sentAt: iso(r.sent_at),
    contentPurgedAt: iso(r.content_purged_at),
  };
}
export type MessageRecord = ReturnType<typeof presentMessage>;

const encodeCursor = (r: MessageRow) => Buffer.from(`${r.created_at}:${r.id}`).toString('base64url');
function decodeCursor(c: string): { createdAt: number; id: string } {
  const m = /^(\d+):([0-9a-f-]{36})$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  if (!m) throw new HearthError('invalid_request', 'query: cursor: not a cursor returned by this endpoint (use nextCursor)');
  return { createdAt: Number(m[1]), id: m[2]! };
}

export interface LogServiceDeps {
  store: LogStore;
  profiles: ProfileStore;
  apps: AppsService;
  attachments: AttachmentStore;
  audit: AuditLog;
  clock: MailClock;
  /** Called after mail committed (wakes the lanes). */
  onAccepted: (lane: 'immediate' | 'bulk', profileKey: string) => void;
  /** Called after a commit that settled rows (cancellations): wakes the settled-status topic's waiters. */
  onSettled?: () => void;
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

export function createLogService(deps: LogServiceDeps) {
  const { store, profiles, apps, attachments, audit, clock } = deps;
  const record = (a: Actor, action: string, target: string | null, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

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

    /** The metadata of an application's own message (404 for another application's). */
    async getOwn(appId: string, id: string) {
      const r = await store.get(id);
      if (!r || r.app_id !== appId) throw new HearthError('message_unknown', `no message with id ${id}`);
      return presentMessage(r);
    },

    async list(q: ListQuery) {
      const ref = q.ref;
      const rows = await store.list({
        app: q.app,
        profile: q.profile,
        status: q.status,
        since: q.since ? Date.parse(q.since) : undefined,
        refExact: ref?.includes(':') ? ref : undefined,
        refScope: ref && !ref.includes(':') ? ref : undefined,
        recipient: q.recipient,
        before: q.cursor ? decodeCursor(q.cursor) : undefined,
        limit: q.limit + 1,
      });
      const more = rows.length > q.limit;
      const page = rows.slice(0, q.limit);
      return { data: page.map(presentMessage), nextCursor: more ? encodeCursor(page[page.length - 1]!) : null };
    },
    async get(id: string) {
      const r = await store.get(id);
      if (!r) throw new HearthError('message_unknown', `no message with id ${id}`);
      return presentMessage(r);
    },
    /** Audited content read: text, HTML and custom headers, or the purge marker. */
    async content(id: string, actor: Actor) {
      const r = await store.get(id);
      if (!r) throw new HearthError('message_unknown', `no message with id ${id}`);
      const c = await store.content(id);
      await record(actor, 'outgoing_mail.message.read', id, { app: r.app_id, purged: !c });
      if (!c) return { id, purged: true, purgedAt: iso(r.content_purged_at), text: null, html: null, headers: null };
      return { id, purged: false, purgedAt: null, text: c.text, html: c.html, headers: JSON.parse(c.headers) as Record<string, string> };
    },

    /** Cancels one queued message (`cancelled_by_admin`). */
    async cancel(id: string, actor: Actor, release: (ids: string[]) => Promise<void>) {
      const r = await store.transaction(async () => {
        const r = await store.get(id);
        if (!r) throw new HearthError('message_unknown', `no message with id ${id}`);
        if (r.status !== 'queued' || !(await store.cancel(id, 'cancelled_by_admin', clock.now()))) {
          throw new HearthError('message_not_queued', `message ${id} is ${r.status}; only queued mail can be cancelled`);
        }
        await record(actor, 'outgoing_mail.message.cancel', id, { app: r.app_id, profile: r.profile_key });
        return (await store.get(id))!;
      });
      deps.onSettled?.();
      await release([id]);
      return presentMessage(r);
    },
    /** Cancels every still-queued member of a batch; sent and sending rows are left alone. */
    async cancelBatch(batchId: string, actor: Actor, release: (ids: string[]) => Promise<void>) {
      const ids = await store.transaction(async () => {
        if (!(await store.batchExists(batchId))) throw new HearthError('batch_unknown', `no batch with id ${batchId}`);
        const now = clock.now();
        const rows: MessageRow[] = [];
        for (const r of await store.batchQueued(batchId)) if (await store.cancel(r.id, 'cancelled_by_admin', now)) rows.push(r);
        await record(actor, 'outgoing_mail.batch.cancel', batchId, { apps: [...new Set(rows.map((r) => r.app_id))], cancelled: rows.length });
        return rows.map((r) => r.id);
      });
      if (ids.length) deps.onSettled?.();
      await release(ids);
      return { batchId, cancelled: ids.length };
    },

    /** Inside a profile deletion: cancels its queued mail (`profile_removed`). */
    async cancelQueuedOfProfile(key: string, reason: CancelReason): Promise<string[]> {
      const now = clock.now();
      const cancelled: string[] = [];
      for (const id of await store.queuedOfProfile(key)) if (await store.cancel(id, reason, now)) cancelled.push(id);
      return cancelled;
    },
  };
  return api;
}

export type LogService = ReturnType<typeof createLogService>;
