/**
 * The send log: the records' presentation, admin and application reads (metadata, audited content) and
 * cancellation. Accepting mail into the log is `send.service.ts`.
 */
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { MailClock } from '../clock.ts';
import type { ListQuery } from './log.schemas.ts';
import type { CancelReason, LogStore, MessageRow, StoredAttachment } from './log.store.ts';

export const MAX_FAILURES = 100;

export interface Actor {
  actor: string;
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
  audit: AuditLog;
  clock: MailClock;
  /** Called after a commit that settled rows (cancellations): wakes the settled-status topic's waiters. */
  onSettled?: () => void;
}

export function createLogService(deps: LogServiceDeps) {
  const { store, audit, clock } = deps;
  const record = (a: Actor, action: string, target: string | null, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  return {
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
}

export type LogService = ReturnType<typeof createLogService>;
