/**
 * Hearth's own notifications to accounts, sent through outgoing mail as application `core`:
 * security notices (individual notifications, immediate lane) and administrators' announcements (notification
 * batches on the default profile's bulk lane, waiting for the rolling daily window instead of being refused).
 */
import { z } from 'zod';
import type { AuditLog } from '../core/audit/audit.ts';
import { actorFor } from '../core/auth/auth.ts';
import type { Api } from '../core/http/api.ts';
import { HearthError } from '../core/http/errors.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { AccountsService } from './accounts/accounts.service.ts';
import type { AccountRow, AccountStore } from './accounts/accounts.store.ts';
import type { CoreMailer } from './sessions/email-links.ts';

const BATCH = 1000;

export function createNotices(deps: {
  accountStore: AccountStore;
  accounts: AccountsService;
  maySignIn: (row: AccountRow | undefined) => Promise<boolean>;
  audit: AuditLog;
  logger: Logger;
  mailer: () => CoreMailer | null;
}) {
  return {
    /** A security notice to the account's address (password changed, passkey added…); never fails the action. */
    securityNotice(sub: string, subject: string, text: string): void {
      const mailer = deps.mailer();
      if (!mailer) return;
      // Not awaited: the action does not wait for its notice (outgoing mail commits it a moment later). Called after
      // the action's transaction has ended, so the account is read outside it.
      deps.accountStore
        .getAccount(sub)
        .then((row) => {
          if (row?.kind !== 'person' || !row.email) return;
          return mailer.notify({
            to: [row.email],
            subject,
            text: `Hello ${row.display_name || row.login},\n\n${text}\n\nIf this was not you, tell your Hearth administrator at once.`,
            ref: `account:${sub}`,
          });
        })
        .catch((err: unknown) => {
          deps.logger.warn({ code: (err as HearthError).code, err: (err as Error).message }, 'a security notice could not be queued');
        });
    },

    /** An announcement to every account that may sign in and has an email address (optionally one group's members, nested included). */
    async announce(input: { subject: string; text: string; groupId?: string }, a: { actor: string; requestId?: string | null }) {
      const mailer = deps.mailer();
      if (!mailer) throw new HearthError('mail_not_configured', 'outgoing mail is not available');
      if (input.groupId) await deps.accounts.getGroup(input.groupId);
      const rows: AccountRow[] = [];
      for (const r of await deps.accountStore.listAccounts(undefined, 1_000_000, 0)) if (r.email && (await deps.maySignIn(r))) rows.push(r);
      const chosen: AccountRow[] = [];
      for (const r of rows) if (!input.groupId || (await deps.accounts.memberships(r.sub)).some((g) => g.id === input.groupId)) chosen.push(r);
      const batches: string[] = [];
      for (let i = 0; i < chosen.length; i += BATCH) {
        const part = chosen.slice(i, i + BATCH);
        const r = await mailer.notifyBatch({
          ref: 'announcement',
          messages: part.map((row) => ({ to: [row.email!], subject: input.subject, text: input.text })),
        });
        batches.push(r.batchId);
      }
      await deps.audit.record({
        actor: a.actor,
        action: 'announcement.send',
        target: input.groupId ?? null,
        detail: { subject: input.subject, recipients: chosen.length, batches },
        requestId: a.requestId ?? null,
      });
      return { recipients: chosen.length, batchIds: batches };
    },
  };
}

export type Notices = ReturnType<typeof createNotices>;

export function registerNoticeRoutes(api: Api, notices: Notices): void {
  api.route({
    method: 'post',
    path: '/api/admin/core/announcements',
    operationId: 'sendAnnouncement',
    tags: ['Accounts'],
    access: 'admin',
    summary: 'Email an announcement to accounts',
    description:
      "Sends `{subject, text}` to every account that may sign in and has an email address — or only to the members (nested included) of `groupId` — as Hearth's notification batch: the default mail profile's bulk lane and pace, never refused by its daily recipient limit (the rest waits until the rolling 24-hour window has room). Answers `{recipients, batchIds}` (see the send log). Audited as `announcement.send`.",
    body: z
      .object({
        subject: z
          .string()
          .trim()
          .min(1, 'subject must be 1–200 characters')
          .max(200, 'subject must be 1–200 characters')
          .refine((s) => !/[\r\n]/.test(s), 'subject must be one line'),
        text: z.string().min(1, 'text must not be empty').max(100_000, 'text must be at most 100,000 characters'),
        groupId: z.uuid('groupId must be a UUID').optional(),
      })
      .strict(),
    responses: {
      202: { description: 'Queued.', schema: z.object({ recipients: z.number().int(), batchIds: z.array(z.string()) }) },
      404: { description: '`group_not_found`.' },
      409: { description: '`mail_not_configured` (no default mail profile).' },
    },
    handler: async (ctx, { body }) => {
      const r = await notices.announce(body, actorFor(ctx));
      ctx.status = 202;
      return r;
    },
  });
}
