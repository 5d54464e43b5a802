import type { AuditLog } from '../../core/audit/audit.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { MailClock } from '../clock.ts';
import type { AttachmentStore } from '../delivery/attachments.ts';
import type { LogStore, StoredAttachment } from '../log/log.store.ts';
import type { SettingsStore } from './retention.store.ts';

export const CONTENT_SETTING = 'outgoing_mail.content_retention_days';
export const RECORD_SETTING = 'outgoing_mail.record_retention_days';
const LAST_RUN_SETTING = 'outgoing_mail.retention_last_run';
export const DEFAULT_CONTENT_DAYS = 90;
export const DEFAULT_RECORD_DAYS = 365;
const DAY = 86_400_000;

export interface RetentionOptions {
  batchSize: number;
  /** The job stops after this long (ms). */
  budgetMs: number;
  intervalMs: number;
}
export const DEFAULT_RETENTION: RetentionOptions = { batchSize: 1000, budgetMs: 5 * 60_000, intervalMs: DAY };

export function createRetentionService(deps: {
  settings: SettingsStore;
  log: LogStore;
  attachments: AttachmentStore;
  audit: AuditLog;
  clock: MailClock;
  logger: Logger;
  options?: Partial<RetentionOptions>;
}) {
  const { settings, log, attachments, audit, clock } = deps;
  const o = { ...DEFAULT_RETENTION, ...deps.options };
  let timer: unknown = null;
  let closed = false;

  const readDays = async (name: string, fallback: number) => {
    const n = Number(await settings.get(name));
    return Number.isInteger(n) && n >= 1 && n <= 36500 ? n : fallback;
  };
  const read = async () => ({
    contentDays: await readDays(CONTENT_SETTING, DEFAULT_CONTENT_DAYS),
    recordDays: await readDays(RECORD_SETTING, DEFAULT_RECORD_DAYS),
  });

  /**
   * One run: deletes whole records past record retention, then purges content past content retention, in batches of
   * `batchSize`, stopping after `budgetMs` (the next run continues). A record past record retention is deleted even
   * when content retention is longer.
   */
  async function run(): Promise<{ purged: number; deleted: number; complete: boolean }> {
    const start = clock.now();
    const { contentDays, recordDays } = await read();
    let purged = 0;
    let deleted = 0;
    const over = () => clock.now() - start >= o.budgetMs;
    for (;;) {
      if (over()) return { purged, deleted, complete: false };
      const rows = await log.expiredRecords(clock.now() - recordDays * DAY, o.batchSize);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (r.attachments_released === 0) await attachments.release((JSON.parse(r.attachments) as StoredAttachment[]).map((a) => a.objectId).filter(Boolean));
      }
      await log.transaction(async () => {
        for (const r of rows) await log.deleteRow(r.id);
      });
      deleted += rows.length;
    }
    for (;;) {
      if (over()) return { purged, deleted, complete: false };
      const now = clock.now();
      const ids = await log.purgeCandidates(now - contentDays * DAY, o.batchSize);
      if (ids.length === 0) break;
      await log.transaction(async () => {
        for (const id of ids) await log.purgeContent(id, now);
      });
      purged += ids.length;
    }
    return { purged, deleted, complete: true };
  }

  /** Daily, counted from the last run stored in the database (so frequent restarts do not postpone it); an overdue run starts a minute after start. */
  async function schedule(): Promise<void> {
    if (closed) return;
    const last = Number((await settings.get(LAST_RUN_SETTING)) ?? 0);
    if (closed) return;
    const delay = Math.min(Math.max(last + o.intervalMs - clock.now(), Math.min(60_000, o.intervalMs)), o.intervalMs);
    timer = clock.setTimeout(async () => {
      try {
        await settings.put(LAST_RUN_SETTING, String(clock.now()), clock.now());
        const r = await run();
        if (r.purged || r.deleted) deps.logger.info(r, 'outgoing mail retention ran');
      } catch (err) {
        deps.logger.error({ err }, 'outgoing mail retention failed');
      }
      await schedule().catch((err) => deps.logger.error({ err }, 'outgoing mail retention could not be scheduled'));
    }, delay);
  }

  return {
    read,
    update(next: { contentDays: number; recordDays: number }, actor: { actor: string; requestId?: string | null }) {
      return settings.transaction(async () => {
        const old = await read();
        const at = clock.now();
        await settings.put(CONTENT_SETTING, String(next.contentDays), at);
        await settings.put(RECORD_SETTING, String(next.recordDays), at);
        await audit.record({
          actor: actor.actor,
          action: 'outgoing_mail.retention.update',
          target: null,
          detail: { old, new: next },
          requestId: actor.requestId ?? null,
        });
        return read();
      });
    },
    run,
    start(): void {
      schedule().catch((err) => deps.logger.error({ err }, 'outgoing mail retention could not be scheduled'));
    },
    close(): void {
      closed = true;
      if (timer !== null) clock.clearTimeout(timer);
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
