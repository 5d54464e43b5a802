import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { AppsService, MailApplication } from '../apps/apps.service.ts';
import { MAIL_BASE } from '../profiles/profiles.routes.ts';
import { PROFILE_KEY_PATTERN } from '../profiles/profiles.schemas.ts';
import type { ProfileStore } from '../profiles/profiles.store.ts';
import type { SettledTopic } from '../settled/settled.service.ts';
import {
  Accepted,
  BatchCancelled,
  BatchParams,
  EnqueueAccepted,
  EnqueueBody,
  IdParams,
  ListQuery,
  MessageContent,
  MessagePage,
  MessageRecord,
  SendBody,
  WaitQuery,
} from './log.schemas.ts';
import type { LogService } from './log.service.ts';
import type { Sender, SendService } from './send.service.ts';

export const APP_MAIL_BASE = '/api/mail';

/**
 * JSON body limits of the send APIs: a 25 MiB attachment is about 33.4 MiB in base64, plus text and HTML of up to
 * 10 MiB each. The server's general `HEARTH_JSON_BODY_LIMIT` applies when it is larger.
 */
export const SEND_BODY_LIMIT = 64 * 1024 * 1024;
export const ENQUEUE_BODY_LIMIT = 128 * 1024 * 1024;

/** How refused application calls are audited (both send routes). */
const REFUSED_AUDIT =
  'A refused call — an invalid body (400 `invalid_request`, `invalid_json`, 413, 415) included — is audited once as `outgoing_mail.send` with `{app, call, profile, denied}`: the application, `send` or `enqueue`, the profile key the body named (null: none or not a valid key) and the error code; never the subject, addresses or content.';

/** What `?wait=` adds to a message read's description (both reads). */
const WAIT_DESCRIPTION =
  'With `?wait=<seconds>` (1–60) the answer is held until the message settles (`sent`, `failed`, `cancelled`, `bounced`) or the wait ends, then the current record is returned (200 either way: check `status`). An already settled message, or a read without `wait`, answers at once. Wake-ups come from the settled-status topic (its trigger publishes every settling change, from any process on the data folder or, with a PostgreSQL core store, any replica); the record is always re-read from the send log before answering. A `sent` message may still become `bounced` later.';

/**
 * Answers `read()` now, or — with `wait` — once the record settles or the wait ends. The wait ends early (with the
 * current record) when the client goes away or the server stops listening (shutdown, rebind), so held requests never
 * delay a shutdown.
 */
function readOrWait<T extends { status: string }>(
  ctx: AppContext,
  settled: SettledTopic,
  id: string,
  wait: number | undefined,
  read: () => Promise<T>,
): Promise<T> {
  if (wait === undefined) return read();
  const server = (ctx.req.socket as { server?: { listening?: boolean } }).server;
  const closing = () => server?.listening === false;
  return settled
    .wait(id, wait * 1000, read, {
      stop: () => ctx.res.destroyed || closing(),
      abort: (end) => void ctx.res.once('close', end),
    })
    .then((r) => {
      // The server stopped listening while the request was held: do not keep the connection open for more.
      if (closing()) ctx.set('Connection', 'close');
      return r;
    });
}

export function registerLogRoutes(
  api: Api,
  deps: { log: LogService; send: SendService; apps: AppsService; profiles: ProfileStore; release: (ids: string[]) => Promise<void>; settled: SettledTopic },
): void {
  const { log, send, apps, settled } = deps;
  let tags = ['Outgoing mail: send log'];
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/messages`,
    operationId: 'listMailMessages',
    tags,
    access: 'admin',
    summary: 'Send-log metadata, newest first',
    description:
      'Filters: `app`, `profile`, `status` (comma-separated), `since` (ISO timestamp), `ref` (`scope` or `scope:id`), `recipient` (substring). Continue with `cursor` = the returned `nextCursor`. Never returns content.',
    query: () => ListQuery,
    responses: { 200: { description: 'A page.', schema: () => MessagePage } },
    cache: 'no-store',
    handler: (_ctx, { query }) => {
      return log.list(query);
    },
  });
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/messages/:id`,
    operationId: 'getMailMessage',
    tags,
    access: 'admin',
    summary: 'One send-log record (metadata); optionally wait for it to settle',
    description: `Never returns content. ${WAIT_DESCRIPTION}`,
    params: () => IdParams,
    query: () => WaitQuery,
    responses: {
      200: { description: 'The record.', schema: () => MessageRecord },
      400: { description: 'A `wait` outside 1–60 whole seconds (`invalid_request`).' },
      404: { description: 'Unknown id (`message_unknown`).' },
    },
    cache: 'no-store',
    handler: (ctx, { params, query }) => {
      return readOrWait(ctx, settled, params.id, query.wait, () => log.get(params.id));
    },
  });
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/messages/:id/content`,
    operationId: 'getMailMessageContent',
    tags,
    access: 'admin',
    summary: "Read a message's content (audited)",
    description: 'Text, HTML and custom headers, or `purged: true` after content retention. Every call writes `outgoing_mail.message.read`.',
    params: () => IdParams,
    responses: { 200: { description: 'Content or purge marker.', schema: () => MessageContent }, 404: { description: 'Unknown id (`message_unknown`).' } },
    cache: 'no-store',
    handler: (ctx, { params }) => {
      return log.content(params.id, actorFor(ctx));
    },
  });
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/messages/:id/cancel`,
    operationId: 'cancelMailMessage',
    tags,
    access: 'admin',
    summary: 'Cancel a queued message',
    description: 'Only `queued` mail (`cancelled_by_admin`); its attachment objects are deleted. Audited as `outgoing_mail.message.cancel`.',
    params: () => IdParams,
    responses: {
      200: { description: 'The cancelled record.', schema: () => MessageRecord },
      404: { description: 'Unknown id (`message_unknown`).' },
      409: { description: 'Not queued (`message_not_queued`).' },
    },
    cache: 'no-store',
    handler: (ctx, { params }) => {
      return log.cancel(params.id, actorFor(ctx), deps.release);
    },
  });
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/batches/:batchId/cancel`,
    operationId: 'cancelMailBatch',
    tags,
    access: 'admin',
    summary: 'Cancel the still-queued members of a batch',
    description:
      'Sent rows stay sent; rows being sent finish normally. `cancelled` is zero when none remain queued. One audit entry `outgoing_mail.batch.cancel`.',
    params: () => BatchParams,
    responses: { 200: { description: 'How many were cancelled.', schema: () => BatchCancelled }, 404: { description: 'Unknown batch (`batch_unknown`).' } },
    cache: 'no-store',
    handler: (ctx, { params }) => {
      return log.cancelBatch(params.batchId, actorFor(ctx), deps.release);
    },
  });

  // ---- application mail API ----
  tags = ['Application mail API'];
  const senderOf = (ctx: AppContext, app: MailApplication): Sender => {
    const p = ctx.state.principal!;
    return {
      app,
      actor: { actor: `app:${app.appId}`, kind: 'application', appId: app.appId, tokenId: p.tokenId, tokenName: p.name },
      requestId: ctx.state.requestId,
    };
  };
  const sender = async (ctx: AppContext): Promise<Sender> => {
    const app = await apps.directory.fromPrincipal(ctx.state.principal!);
    if (!app)
      throw new HearthError('forbidden', 'this credential does not belong to a registered application (register one under /api/admin/core/outgoing-mail/apps)');
    return senderOf(ctx, app);
  };
  /**
   * A send or enqueue whose body is refused (400, 413, 415) is audited once, like every other refusal: who, the
   * application, the profile the body named (when it is a valid key) and the error code — nothing of the body else.
   * Credentials that are not an application's are answered without an entry (the call never reached the mail API).
   */
  const auditInvalid = (call: 'send' | 'enqueue') => async (ctx: AppContext, err: HearthError, raw: unknown) => {
    const p = ctx.state.principal;
    const app = p ? await apps.directory.fromPrincipal(p) : null;
    if (!app) return;
    const named = raw !== null && typeof raw === 'object' ? (raw as { profile?: unknown }).profile : undefined;
    const profile = typeof named === 'string' && PROFILE_KEY_PATTERN.test(named) ? named : null;
    await send.refused(senderOf(ctx, app), call, err.code, profile);
  };
  const appErrors = {
    403: {
      description:
        'Not an application credential (`forbidden`), no `mail:send` declaration (`mail_send_not_declared`), or the profile is not allowed (`profile_not_allowed`).',
    },
    404: { description: 'Unknown profile (`profile_unknown`).' },
    409: { description: 'No profile is configured (`mail_not_configured`).' },
    413: { description: "Attachments above the profile's limit or 25 MiB each (`attachment_too_large`); body above the JSON limit (`payload_too_large`)." },
    429: { description: "The profile's rolling 24-hour recipient limit would be exceeded (`daily_limit_exceeded`)." },
    507: { description: 'The attachment object store is full (`attachment_storage_full`).' },
  };
  api.route({
    method: 'post',
    path: `${APP_MAIL_BASE}/send`,
    operationId: 'mailSend',
    tags,
    access: 'authenticated',
    bodyLimit: SEND_BODY_LIMIT,
    summary: 'mail.send: queue one message on the immediate lane',
    description: `Committed to the send log before delivery starts; 202 with the record id and the Message-ID fixed now. Audited as \`outgoing_mail.send\` (no subject, body, addresses or attachment content). ${REFUSED_AUDIT}`,
    body: () => SendBody,
    onInvalid: auditInvalid('send'),
    responses: {
      202: { description: 'Accepted.', schema: () => Accepted },
      200: { description: 'Already accepted under this idempotency key.', schema: () => Accepted },
      ...appErrors,
    },
    handler: async (ctx, { body }) => {
      const r = await send.sendShared(await sender(ctx), body);
      ctx.status = r.duplicate ? 200 : 202;
      return r;
    },
  });
  api.route({
    method: 'post',
    path: `${APP_MAIL_BASE}/enqueue`,
    operationId: 'mailEnqueue',
    tags,
    access: 'authenticated',
    bodyLimit: ENQUEUE_BODY_LIMIT,
    summary: 'mail.enqueue: queue one batch on the bulk lane',
    description: `Paced by the profile's \`pacePerMinute\`. Rejected whole with 409 \`backlog_full\` when the profile would hold more than \`pacePerMinute × 1440\` queued bulk messages, or when any limit fails. Audited once per call as \`outgoing_mail.send\` (profiles, actors, message count and ids). ${REFUSED_AUDIT}`,
    body: () => EnqueueBody,
    onInvalid: auditInvalid('enqueue'),
    responses: {
      202: { description: 'Accepted.', schema: () => EnqueueAccepted },
      ...appErrors,
      409: { description: '`backlog_full` or `mail_not_configured`.' },
    },
    handler: async (ctx, { body }) => {
      const r = await send.enqueue(await sender(ctx), body);
      ctx.status = 202;
      return r;
    },
  });
  api.route({
    method: 'get',
    path: `${APP_MAIL_BASE}/profiles`,
    operationId: 'mailProfiles',
    tags,
    access: 'authenticated',
    summary: 'mail.profiles(): the profiles this application may use',
    description: 'Never returns passwords or SMTP settings.',
    responses: {
      200: {
        description: 'Profiles.',
        schema: z
          .object({
            data: z.array(
              z.object({
                key: z.string(),
                name: z.string(),
                fromAddress: z.string(),
                fromName: z.string().nullable(),
                isDefault: z.boolean(),
                pacePerMinute: z.number().int(),
                dailyRecipientLimit: z.number().int().nullable(),
                maxAttachmentBytes: z.number().int(),
              }),
            ),
          })
          .meta({ id: 'MailAppProfiles' }),
      },
    },
    handler: async (ctx) => {
      const s = await sender(ctx);
      const rows = [];
      for (const k of await apps.allowedProfiles(s.app.appId)) rows.push(await deps.profiles.get(k));
      const data = rows
        .filter((r) => r !== undefined)
        .map((r) => ({
          key: r.key,
          name: r.name,
          fromAddress: r.from_address,
          fromName: r.from_name,
          isDefault: r.is_default === 1,
          pacePerMinute: r.pace_per_minute,
          dailyRecipientLimit: r.daily_recipient_limit,
          maxAttachmentBytes: r.max_attachment_bytes,
        }));
      return { data };
    },
  });
  api.route({
    method: 'get',
    path: `${APP_MAIL_BASE}/messages/:id`,
    operationId: 'mailMessage',
    tags,
    access: 'authenticated',
    summary: "The status of one of this application's messages (metadata only); optionally wait for it to settle",
    description: `Only the application's own messages; never content. ${WAIT_DESCRIPTION}`,
    params: () => IdParams,
    query: () => WaitQuery,
    responses: {
      200: { description: 'The record.', schema: () => MessageRecord },
      400: { description: 'A `wait` outside 1–60 whole seconds (`invalid_request`).' },
      404: { description: "Unknown, or another application's (`message_unknown`), also with `wait`." },
    },
    handler: async (ctx, { params, query }) => {
      const appId = (await sender(ctx)).app.appId;
      return readOrWait(ctx, settled, params.id, query.wait, () => log.getOwn(appId, params.id));
    },
  });
}
