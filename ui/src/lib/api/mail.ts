/**
 * Outgoing mail administration (`/api/admin/core/outgoing-mail`, docs/api/mail.md): sender profiles
 * (server/mail/profiles), applications and their access policies (server/mail/apps), the send log
 * (server/mail/log) and retention (server/mail/retention). Paths, bodies and answers are the OpenAPI document's
 * (`openapi.ts`), so a server change that breaks the UI fails the typecheck.
 */

import { answer, api, every, type Schemas } from './client.ts';

// --- profiles

/** Same rule as the server: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63. */
export const PROFILE_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const DEFAULT_PACE_PER_MINUTE = 60;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 15_728_640;
export const MAX_ATTACHMENT_BYTES = 26_214_400;

/** A profile as the server reads it (never a password). */
export type MailProfile = Schemas['MailProfile'];
export type ImapRead = NonNullable<MailProfile['imap']>;
/** The last test send kept on a profile (null until the first one). */
export type LastTest = MailProfile['lastTest'];
export type TestFailureReason = NonNullable<NonNullable<LastTest>['code']>;
/** The 502 answer of a failed test send: one sentence (`message`), the `reason` and the raw answer (`detail`). */
export type TestFailure = Schemas['MailTestSendFailure'];

/** Bounce-collection status codes (`bounces.error`). */
export type BounceError = NonNullable<Schemas['MailBounceCheck']['error']>;

/** A trusted CA certificate as the server shows it (subject, issuer, SHA-256 fingerprint, validity; never the PEM). */
export type CaCertificate = NonNullable<MailProfile['tlsCa']>[number];

/** The whole profile (a replacement, not a patch): the server's write schema as a client sends it. */
export type ProfileWrite = Schemas['MailProfileWrite'];
export type ImapWrite = NonNullable<ProfileWrite['imap']>;

const profilePath = (key: string) => ({ params: { path: { key } } });

export async function listProfiles(signal?: AbortSignal): Promise<MailProfile[]> {
  return (await answer(api.GET('/api/admin/core/outgoing-mail/profiles', { signal }))).data;
}

export function getProfile(key: string): Promise<MailProfile> {
  return answer(api.GET('/api/admin/core/outgoing-mail/profiles/{key}', profilePath(key)));
}

export function putProfile(key: string, body: ProfileWrite): Promise<MailProfile> {
  return answer(api.PUT('/api/admin/core/outgoing-mail/profiles/{key}', { ...profilePath(key), body }));
}

export function deleteProfile(key: string): Promise<void> {
  return answer(api.DELETE('/api/admin/core/outgoing-mail/profiles/{key}', profilePath(key)));
}

export function setDefaultProfile(key: string): Promise<MailProfile> {
  return answer(api.POST('/api/admin/core/outgoing-mail/profiles/{key}/default', profilePath(key)));
}

export function testProfile(key: string, to: string): Promise<Schemas['MailTestSendResult']> {
  return answer(api.POST('/api/admin/core/outgoing-mail/profiles/{key}/test', { ...profilePath(key), body: { to } }));
}

/** The outcome of one bounce-collection pass ("check now"). */
export type BounceCheck = Schemas['MailBounceCheck'];

/** Runs one bounce-collection pass for the profile now (or joins the one in progress) and answers its outcome. */
export function checkBounces(key: string): Promise<BounceCheck> {
  return answer(api.POST('/api/admin/core/outgoing-mail/profiles/{key}/bounces/check', profilePath(key)));
}

// --- applications

export const APP_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const MAIL_SEND = 'mail:send';

export type PolicyMode = Schemas['MailAppPolicyState']['mode'];
export type Policy = Schemas['MailAppPolicy'];
export type MailApp = Schemas['MailApp'];
export type RegisteredApp = Schemas['MailRegisteredApp'];

const appPath = (appId: string) => ({ params: { path: { appId } } });

export async function listApps(signal?: AbortSignal): Promise<MailApp[]> {
  return (await answer(api.GET('/api/admin/core/outgoing-mail/apps', { signal }))).data;
}

export function registerApp(body: Schemas['MailRegisterApp']): Promise<RegisteredApp> {
  return answer(api.POST('/api/admin/core/outgoing-mail/apps', { body }));
}

export function updateApp(appId: string, body: Schemas['MailUpdateApp']): Promise<MailApp> {
  return answer(api.PATCH('/api/admin/core/outgoing-mail/apps/{appId}', { ...appPath(appId), body }));
}

export function unregisterApp(appId: string): Promise<void> {
  return answer(api.DELETE('/api/admin/core/outgoing-mail/apps/{appId}', appPath(appId)));
}

export function setAppPolicy(appId: string, policy: Policy): Promise<MailApp> {
  return answer(api.PUT('/api/admin/core/outgoing-mail/apps/{appId}/policy', { ...appPath(appId), body: policy }));
}

// --- send log

export type MailMessage = Schemas['MailMessage'];
export type MessageContent = Schemas['MailMessageContent'];
export type MessageStatus = MailMessage['status'];
export const MESSAGE_STATUSES = every<MessageStatus>()(['queued', 'sending', 'sent', 'failed', 'cancelled', 'bounced']);
export type CancelReason = NonNullable<MailMessage['cancelReason']>;
export type MessageAttachment = MailMessage['attachments'][number];
export type MessageFailure = MailMessage['failures'][number];

/** The filters of `GET /messages` (every one optional). */
export interface MessageFilters {
  app?: string;
  profile?: string;
  /** Comma-separated on the wire. */
  status?: MessageStatus[];
  /** ISO timestamp: created at or after. */
  since?: string;
  /** `scope` (every id of the scope) or `scope:id`. */
  ref?: string;
  /** Case-insensitive substring of any recipient. */
  recipient?: string;
}

export function listMessages(
  filters: MessageFilters,
  page: { cursor?: string | null; limit?: number; signal?: AbortSignal } = {},
): Promise<Schemas['MailMessagePage']> {
  const query = {
    app: filters.app || undefined,
    profile: filters.profile || undefined,
    status: filters.status?.length ? filters.status.join(',') : undefined,
    since: filters.since || undefined,
    ref: filters.ref || undefined,
    recipient: filters.recipient || undefined,
    cursor: page.cursor ?? undefined,
    limit: page.limit,
  };
  return answer(api.GET('/api/admin/core/outgoing-mail/messages', { params: { query }, signal: page.signal }));
}

const messagePath = (id: string) => ({ params: { path: { id } } });

export function getMessage(id: string, signal?: AbortSignal): Promise<MailMessage> {
  return answer(api.GET('/api/admin/core/outgoing-mail/messages/{id}', { ...messagePath(id), signal }));
}

/** Audited on the server (`outgoing_mail.message.read`). */
export function getMessageContent(id: string): Promise<MessageContent> {
  return answer(api.GET('/api/admin/core/outgoing-mail/messages/{id}/content', messagePath(id)));
}

export function cancelMessage(id: string): Promise<MailMessage> {
  return answer(api.POST('/api/admin/core/outgoing-mail/messages/{id}/cancel', messagePath(id)));
}

export function cancelBatch(batchId: string): Promise<Schemas['MailBatchCancelled']> {
  return answer(api.POST('/api/admin/core/outgoing-mail/batches/{batchId}/cancel', { params: { path: { batchId } } }));
}

// --- retention

export type Retention = Schemas['MailRetentionState'];

export const RETENTION_MAX_DAYS = 36_500;

export function getRetention(): Promise<Retention> {
  return answer(api.GET('/api/admin/core/outgoing-mail/retention'));
}

export function putRetention(body: Schemas['MailRetention']): Promise<Retention> {
  return answer(api.PUT('/api/admin/core/outgoing-mail/retention', { body }));
}
