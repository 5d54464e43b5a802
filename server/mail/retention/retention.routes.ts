import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { MAIL_BASE } from '../profiles/profiles.routes.ts';
import { RetentionBody, RetentionRead } from './retention.schemas.ts';
import type { RetentionService } from './retention.service.ts';

export function registerRetentionRoutes(api: Api, retention: RetentionService): void {
  const tags = ['Outgoing mail: send log'];
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/retention`,
    operationId: 'getMailRetention',
    tags,
    access: 'admin',
    summary: 'Read both retention periods',
    description: 'Defaults: content 90 days, records 365 days.',
    responses: { 200: { description: 'Retention in days.', schema: () => RetentionRead } },
    cache: 'no-store',
    handler: (_ctx) => {
      return retention.read();
    },
  });
  api.route({
    method: 'put',
    path: `${MAIL_BASE}/retention`,
    operationId: 'setMailRetention',
    tags,
    access: 'admin',
    summary: 'Set both retention periods',
    description:
      'Whole days 1–36500, `recordDays` at least `contentDays`; both saved together. Audited as `outgoing_mail.retention.update` with old and new values.',
    body: () => RetentionBody,
    responses: { 200: { description: 'Retention in days.', schema: () => RetentionRead } },
    cache: 'no-store',
    handler: (ctx, { body }) => {
      return retention.update(body, actorFor(ctx));
    },
  });
}
