import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { ProfileStore } from '../profiles/profiles.store.ts';
import type { BounceCheckResult } from './bounces.schemas.ts';
import type { BouncePoller } from './poller.ts';

export interface Actor {
  actor: string;
  requestId?: string | null;
}

/** "Check now": one bounce-collection pass for a profile on an administrator's request, audited with its outcome. */
export function createBounceChecks(deps: { poller: BouncePoller; profiles: ProfileStore; audit: AuditLog }) {
  return {
    async checkNow(key: string, actor: Actor): Promise<BounceCheckResult> {
      const p = await deps.profiles.get(key);
      if (!p) throw new HearthError('profile_unknown', `no sender profile with key "${key}"`);
      const outcome = await deps.poller.checkNow(key);
      // the profile lost its IMAP settings (or was deleted) between the read and the pass
      if (!outcome) throw new HearthError('bounce_collection_off', `profile "${key}" has no bounce collection (imap): set its IMAP mailbox first`);
      const { profile: _profile, checkedAt: _at, detail: _detail, ...counts } = outcome;
      await deps.audit.record({
        actor: actor.actor,
        action: 'outgoing_mail.profile.bounce_check',
        target: key,
        detail: counts,
        requestId: actor.requestId ?? null,
      });
      return outcome;
    },
  };
}
export type BounceChecks = ReturnType<typeof createBounceChecks>;
