import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { MAIL_BASE } from '../profiles/profiles.routes.ts';
import { ProfileParams } from '../profiles/profiles.schemas.ts';
import { BounceCheckResult } from './bounces.schemas.ts';
import type { BounceChecks } from './bounces.service.ts';

export function registerBounceRoutes(api: Api, checks: BounceChecks): void {
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/profiles/:key/bounces/check`,
    operationId: 'checkMailProfileBounces',
    tags: ['Outgoing mail: profiles'],
    access: 'admin',
    summary: "Check the profile's bounce mailbox now",
    description:
      'Runs one bounce-collection pass for this profile now — the same pass the five-minute schedule runs (at most 200 messages from the saved cursor, within the four-minute budget) — and answers when it has ended, with its outcome. ' +
      'A pass already in progress for the profile (scheduled or asked for) is joined instead (`joined: true`): a profile is never checked twice at once. ' +
      "A failed pass still answers 200, with its `error` code and `detail`; the profile's `bounces` status is saved as by a scheduled pass. Audited as `outgoing_mail.profile.bounce_check` (counts and error code).",
    params: () => ProfileParams,
    responses: {
      200: { description: "The pass's outcome.", schema: () => BounceCheckResult },
      404: { description: 'No such profile (`profile_unknown`).' },
      409: { description: 'The profile has no bounce collection configured (`bounce_collection_off`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      return await checks.checkNow(params.key, actorFor(ctx));
    },
  });
}
