/**
 * Upkeep of the delivery lanes (lanes.ts): whether a queued row may still go out (its profile, its application's
 * declaration and policy), the release of attachment objects of settled rows, and the 30-second recovery pass. Each
 * pass is one short transaction of guarded statements over the core store, so replicas may run it at once: a row is
 * resubmitted, cancelled or failed by one of them only (the status guards).
 */
import type { Logger } from '../../core/logging/logger.ts';
import { CORE_APP, MAIL_SEND } from '../apps/apps.schemas.ts';
import type { MailAppDirectory } from '../apps/apps.service.ts';
import type { AppStore } from '../apps/apps.store.ts';
import type { MailClock } from '../clock.ts';
import type { LogStore, MessageRow, StoredAttachment } from '../log/log.store.ts';
import type { ProfileStore } from '../profiles/profiles.store.ts';
import type { SettledTopic } from '../settled/settled.service.ts';
import type { AttachmentStore } from './attachments.ts';

export interface RecoveryDeps {
  log: LogStore;
  profileStore: ProfileStore;
  appStore: AppStore;
  directory: MailAppDirectory;
  attachments: AttachmentStore;
  clock: MailClock;
  logger: Logger;
  settled?: Pick<SettledTopic, 'poke' | 'expire'>;
  /** `sending` rows older than this are resubmitted (ms). */
  stuckAfterMs: number;
}

export function createRecovery(deps: RecoveryDeps) {
  const { log, profileStore, appStore, directory, attachments, clock, logger } = deps;

  /** May this row still go out: the profile exists, a registered app still declares mail:send, and its policy allows the profile. */
  async function access(row: Pick<MessageRow, 'app_id' | 'profile_key'>): Promise<'ok' | 'profile_removed' | 'profile_not_allowed'> {
    const profile = await profileStore.get(row.profile_key);
    return profile ? appAccess(row) : 'profile_removed';
  }
  /** The application half of `access` (the profile exists). */
  async function appAccess(row: Pick<MessageRow, 'app_id' | 'profile_key'>): Promise<'ok' | 'profile_not_allowed'> {
    if (row.app_id === CORE_APP) return 'ok';
    const app = await directory.get(row.app_id);
    // Temporary absence from the registry does not cancel; a registered app that dropped its declaration does.
    if (app && !app.platformPermissions.includes(MAIL_SEND)) return 'profile_not_allowed';
    if ((await appStore.granted(row.app_id, row.profile_key)) === false) return 'profile_not_allowed';
    return 'ok';
  }

  async function release(ids: string[]): Promise<void> {
    for (const id of ids) {
      const r = await log.get(id);
      if (!r || r.attachments_released === 1) continue;
      const list = JSON.parse(r.attachments) as StoredAttachment[];
      if (await attachments.release(list.map((a) => a.objectId).filter(Boolean))) await log.markReleased(id);
    }
  }

  /**
   * Every 30 s: resubmits stuck rows, cancels rows whose profile or access is gone, fails rows past their deadline,
   * releases attachments, and deletes settled-topic entries older than five minutes (in batches).
   */
  async function recover(): Promise<{ resubmitted: number; cancelled: number; expired: number; settledTrimmed: number }> {
    const now = clock.now();
    const out = await log.transaction(async () => {
      const resubmitted = await log.resubmitStuck(now, now - deps.stuckAfterMs);
      const cancelled = [...(await log.cancelOrphans(now))];
      for (const app of await log.queuedApps()) {
        if (app === CORE_APP) continue;
        for (const key of await log.queuedProfilesOfApp(app)) {
          if ((await access({ app_id: app, profile_key: key })) === 'profile_not_allowed') cancelled.push(...(await log.cancelAppProfile(app, key, now)));
        }
      }
      const expired = await log.expire(now);
      return { resubmitted, cancelled, expired };
    });
    if (out.cancelled.length || out.expired.length) deps.settled?.poke();
    await release([...out.cancelled, ...out.expired]);
    for (const r of await log.unreleased(500)) await release([r.id]);
    await attachments.expire();
    let settledTrimmed = 0;
    try {
      settledTrimmed = (await deps.settled?.expire(now)) ?? 0;
    } catch (err) {
      logger.error({ err }, 'outgoing mail: trimming the settled-status topic failed');
    }
    if (out.resubmitted.length) logger.warn({ count: out.resubmitted.length }, 'outgoing mail: resubmitted messages stuck in sending');
    return { resubmitted: out.resubmitted.length, cancelled: out.cancelled.length, expired: out.expired.length, settledTrimmed };
  }
  return { access, appAccess, release, recover };
}
