/**
 * Outgoing mail. Other domains use only this file: sender profiles, application access, the send log,
 * the immediate and bulk delivery lanes, recovery and retention, bounce collection (IMAP), and the settled-status
 * topic (message-ID wake-ups behind `?wait=` on the message reads).
 */
import path from 'node:path';
import type { z } from 'zod';
import type { AuditLog } from '../core/audit/audit.ts';
import type { TokenService } from '../core/auth/tokens.service.ts';
import type { BackupPart } from '../core/backup/index.ts';
import { type Api, parse } from '../core/http/api.ts';
import type { Logger } from '../core/logging/logger.ts';
import type { Store } from '../core/storage/store.ts';
import { registerAppRoutes } from './apps/apps.routes.ts';
import { CORE_APP, MAIL_SEND } from './apps/apps.schemas.ts';
import { createAppsService, createTokenAppDirectory, type MailAppDirectory } from './apps/apps.service.ts';
import { createAppStore } from './apps/apps.store.ts';
import { registerBounceRoutes } from './bounces/bounces.routes.ts';
import { createBounceChecks } from './bounces/bounces.service.ts';
import { createBounceStore } from './bounces/bounces.store.ts';
import { type BounceOptions, createBouncePoller } from './bounces/poller.ts';
import { type MailClock, systemClock } from './clock.ts';
import { createSecretBox } from './crypto.ts';
import { createAttachmentStore } from './delivery/attachments.ts';
import { notificationFrame } from './delivery/frame.ts';
import { createDelivery, type DeliveryOptions } from './delivery/lanes.ts';
import type { SmtpOptions } from './delivery/smtp-attempt.ts';
import { registerLogRoutes } from './log/log.routes.ts';
import { EnqueueBody, SendBody } from './log/log.schemas.ts';
import { createLogService } from './log/log.service.ts';
import { createLogStore } from './log/log.store.ts';
import { createSendService, NOTIFICATION, NOTIFICATION_BATCH, type Sender } from './log/send.service.ts';
import { mailMigrations } from './mail.migrations.ts';
import { registerProfileRoutes } from './profiles/profiles.routes.ts';
import { createProfilesService } from './profiles/profiles.service.ts';
import { createProfileStore } from './profiles/profiles.store.ts';
import { registerRetentionRoutes } from './retention/retention.routes.ts';
import { createRetentionService, type RetentionOptions } from './retention/retention.service.ts';
import { createSettingsStore } from './retention/retention.store.ts';
import { createSettledTopic, type SettledOptions, type WaitEnd } from './settled/settled.service.ts';
import { createSettledStore } from './settled/settled.store.ts';

export type { MailAppDirectory, MailApplication } from './apps/apps.service.ts';
export type { MailClock } from './clock.ts';
export type { DeliveryOptions } from './delivery/lanes.ts';
export type { SettledOptions, WaitEnd } from './settled/settled.service.ts';
export { mailMigrations };

/** Knobs for tests and operators; every field has a production default. */
export interface MailOptions {
  clock?: MailClock;
  /** Total bytes of the attachment object store (default 2 GiB). */
  attachmentStoreLimit?: number;
  delivery?: Partial<DeliveryOptions>;
  retention?: Partial<RetentionOptions>;
  /** The settled-status topic: tail interval (1 s), retention (five minutes), trim batches. */
  settled?: Partial<SettledOptions>;
  /** Extra TLS options for SMTP connections (tests trust a self-signed peer with `ca`). */
  smtp?: SmtpOptions;
  bounces?: Partial<BounceOptions> & { tls?: import('node:tls').ConnectionOptions };
  /** Replaces the token-based application directory (e.g. service accounts). */
  directory?: MailAppDirectory;
  /** Observer of every SMTP attempt start (tests). */
  onAttempt?: (recordId: string, worker: string) => void;
  /** Observer of how each `?wait=` read ended: at once, settled while held, at its deadline, stopped, closed (tests). */
  onWaitEnd?: (recordId: string, end: WaitEnd) => void;
  /** The installation name used as sender name for Core and test mail (default "Hearth"). */
  appName?: string;
}

export interface MailDeps {
  /** The core store (platform.db, or PostgreSQL): every table of outgoing mail lives there. */
  store: Store;
  dataDir: string;
  appSecret: string;
  audit: AuditLog;
  tokens: TokenService;
  logger: Logger;
  options?: MailOptions;
}

export function createMailService(deps: MailDeps) {
  const o = deps.options ?? {};
  const clock = o.clock ?? systemClock;
  const appName = o.appName ?? 'Hearth';
  const box = createSecretBox(deps.appSecret);
  const profileStore = createProfileStore(deps.store);
  const appStore = createAppStore(deps.store);
  const logStore = createLogStore(deps.store);
  const attachments = createAttachmentStore({ store: deps.store, dataDir: deps.dataDir, clock, limitBytes: o.attachmentStoreLimit });
  const directory = o.directory ?? createTokenAppDirectory(appStore);
  const apps = createAppsService({ store: appStore, profiles: profileStore, tokens: deps.tokens, directory, audit: deps.audit, clock });

  const settled = createSettledTopic({
    store: createSettledStore(deps.store),
    clock,
    logger: deps.logger.child({ part: 'settled' }),
    options: o.settled,
    onWaitEnd: o.onWaitEnd,
  });

  // The delivery engine is created below; the hooks reach it lazily.
  let delivery: ReturnType<typeof createDelivery> | null = null;
  const log = createLogService({ store: logStore, audit: deps.audit, clock, onSettled: () => settled.poke() });
  const send = createSendService({
    store: logStore,
    profiles: profileStore,
    apps,
    attachments,
    audit: deps.audit,
    clock,
    onAccepted: (lane) => delivery?.wake(lane),
  });
  const profiles = createProfilesService({
    store: profileStore,
    box,
    audit: deps.audit,
    clock,
    appName,
    smtp: o.smtp,
    onProfileRemoved: (key) => log.cancelQueuedOfProfile(key, 'profile_removed'),
    afterProfileRemoved: async (ids) => {
      if (ids.length) settled.poke();
      await delivery?.release(ids);
    },
  });
  delivery = createDelivery({
    log: logStore,
    profileStore,
    profiles,
    appStore,
    directory,
    attachments,
    clock,
    logger: deps.logger.child({ part: 'delivery' }),
    smtp: o.smtp,
    options: o.delivery,
    onAttempt: o.onAttempt,
    settled,
  });
  const retention = createRetentionService({
    settings: createSettingsStore(deps.store),
    log: logStore,
    attachments,
    audit: deps.audit,
    clock,
    logger: deps.logger.child({ part: 'retention' }),
    options: o.retention,
  });
  const release = (ids: string[]) => delivery!.release(ids);
  const bounces = createBouncePoller({
    store: createBounceStore(deps.store),
    box,
    clock,
    logger: deps.logger.child({ part: 'bounces' }),
    tls: o.bounces?.tls,
    options: o.bounces,
  });
  const bounceChecks = createBounceChecks({ poller: bounces, profiles: profileStore, audit: deps.audit });
  const coreSender = (): Sender => ({ app: { appId: CORE_APP, name: appName, platformPermissions: [MAIL_SEND] }, actor: { actor: 'core', kind: 'core' } });

  return {
    registerRoutes(api: Api): void {
      registerProfileRoutes(api, profiles);
      registerAppRoutes(api, apps);
      registerLogRoutes(api, { log, send, apps, profiles: profileStore, release, settled });
      registerRetentionRoutes(api, retention);
      registerBounceRoutes(api, bounceChecks);
    },
    /** Starts delivery (recovery runs first: resolves once it ran), the daily retention job and bounce collection. */
    async start(): Promise<void> {
      retention.start();
      bounces.start();
      await delivery!.start();
    },
    async close(): Promise<void> {
      settled.close();
      retention.close();
      await bounces.close();
      await delivery!.close();
    },

    /** Core's own mail (application `core`, default profile): immediate lane, validated like the application API's (a refusal is 400 `invalid_request`, as for an application). */
    sendAsCore: async (m: Omit<z.input<typeof SendBody>, 'profile'>) => send.send(coreSender(), parse(SendBody, m, 'body')),
    /**
     * Core's individual notification: immediate lane, default profile, wrapped in Hearth's HTML
     * frame; it has no 24-hour deadline, so it stays pending through temporary SMTP failures.
     */
    notify: async (m: { to: string[]; subject: string; text: string; html?: string | null; ref?: string; idempotencyKey?: string }) => {
      return send.send(coreSender(), parse(SendBody, { ...m, html: notificationFrame(appName, m.subject, m.text, m.html ?? null) }, 'body'), NOTIFICATION);
    },
    /**
     * Core's notification batch: the default profile's bulk lane and pace; never refused by the daily recipient
     * limit — its messages wait until the rolling 24-hour window has room.
     */
    notifyBatch: async (b: { ref?: string; messages: Array<{ to: string[]; subject: string; text: string; html?: string | null }> }) => {
      const body = parse(
        EnqueueBody,
        { ref: b.ref, messages: b.messages.map((m) => ({ ...m, html: notificationFrame(appName, m.subject, m.text, m.html ?? null) })) },
        'body',
      );
      return send.enqueue(coreSender(), body, NOTIFICATION_BATCH);
    },
    /** Core's notification batches: the default profile's bulk lane. */
    enqueueAsCore: async (body: Omit<EnqueueBody, 'profile'>) => send.enqueue(coreSender(), body as EnqueueBody),

    /**
     * A backup's parts of outgoing mail: the attachment objects that queued (unsent) mail still needs, as optional
     * files (delivery may release one before its turn: it is then left out). Everything else is in platform.db.
     */
    async backupParts(): Promise<BackupPart[]> {
      return [...new Set(await logStore.pendingAttachmentIds())].sort().map((id) => ({
        kind: 'file',
        name: `mail-attachments/${id}`,
        path: path.join(attachments.dir, id),
        secret: false,
        optional: true,
      }));
    },

    /** Operations and tests: wake both lanes now, run recovery or retention now, wait until this worker is idle. */
    kick: () => delivery!.kick(),
    recover: () => delivery!.recover(),
    runRetention: () => retention.run(),
    /** Runs one bounce-collection tick now (it also runs every five minutes). */
    checkBounces: () => bounces.tick(),
    idle: () => delivery!.idle(),
    /** The SMTP thread now: attempts in progress there (every lane) and immediate-lane attempts waiting for a slot. */
    smtpThreadState: () => delivery!.smtpThreadState(),
    worker: () => delivery!.worker,
    attachmentBytes: () => attachments.usedBytes(),
    /** The settled-status topic: waits held now (recovery trims the topic every 30 s). */
    settledWaiting: () => settled.waiting(),
  };
}

export type MailService = ReturnType<typeof createMailService>;
