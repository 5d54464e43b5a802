/**
 * Outgoing mail administration (`/api/admin/core/outgoing-mail`, docs/api/mail.md): sender profiles
 * (server/mail/profiles), applications and their access policies (server/mail/apps), the send log
 * (server/mail/log) and retention (server/mail/retention). The types are the server's zod schemas' own (type-only
 * imports), so a server change that breaks the UI fails the typecheck.
 */

import type {
  AppRead,
  PolicyRead,
  Policy as PolicyWrite,
  RegisterAppInput,
  RegisteredApp as RegisteredAppRead,
  UpdateAppInput,
} from '../../../../server/mail/apps/apps.schemas.ts';
import type { BounceCheckResult } from '../../../../server/mail/bounces/bounces.schemas.ts';
import type { BatchCancelled, MessageContent, MessagePage, MessageRecord, MessageStatus } from '../../../../server/mail/log/log.schemas.ts';
import type {
  ImapWriteInput,
  LastTest as LastTestRead,
  ProfileRead,
  ProfileWriteInput,
  TestSendFailure,
  TestSendResult,
} from '../../../../server/mail/profiles/profiles.schemas.ts';
import type { RetentionBody, RetentionRead } from '../../../../server/mail/retention/retention.schemas.ts';
import type { CaCertificateInfo } from '../../../../server/mail/tls-ca.ts';
import { request } from './client.ts';

export const MAIL_BASE = '/api/admin/core/outgoing-mail';
const enc = encodeURIComponent;

// --- profiles

/** Same rule as the server: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63. */
export const PROFILE_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const DEFAULT_PACE_PER_MINUTE = 60;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 15_728_640;
export const MAX_ATTACHMENT_BYTES = 26_214_400;

/** A profile as the server reads it (never a password). */
export type MailProfile = ProfileRead;
export type ImapRead = NonNullable<ProfileRead['imap']>;
/** The last test send kept on a profile (null until the first one). */
export type LastTest = LastTestRead;
export type TestFailureReason = NonNullable<LastTestRead['code']>;
/** The 502 answer of a failed test send: one sentence (`message`), the `reason` and the raw answer (`detail`). */
export type TestFailure = TestSendFailure;

/** Bounce-collection status codes (`bounces.error`). */
export type BounceError = 'open_failed' | 'search_failed' | 'apply_failed' | 'save_failed' | 'interrupted';

/** A trusted CA certificate as the server shows it (subject, issuer, SHA-256 fingerprint, validity; never the PEM). */
export type CaCertificate = CaCertificateInfo;

/** The whole profile (a replacement, not a patch): the server's write schema as a client sends it. */
export type ProfileWrite = ProfileWriteInput;
export type ImapWrite = ImapWriteInput;

export async function listProfiles(signal?: AbortSignal): Promise<MailProfile[]> {
  return (await request<{ data: MailProfile[] }>(`${MAIL_BASE}/profiles`, { signal })).data;
}

export function getProfile(key: string): Promise<MailProfile> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}`);
}

export function putProfile(key: string, body: ProfileWrite): Promise<MailProfile> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}`, { method: 'PUT', json: body });
}

export function deleteProfile(key: string): Promise<void> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}`, { method: 'DELETE' });
}

export function setDefaultProfile(key: string): Promise<MailProfile> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}/default`, { method: 'POST' });
}

export function testProfile(key: string, to: string): Promise<TestSendResult> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}/test`, { method: 'POST', json: { to } });
}

/** The outcome of one bounce-collection pass ("check now"): the server's schema. */
export type BounceCheck = BounceCheckResult;

/** Runs one bounce-collection pass for the profile now (or joins the one in progress) and answers its outcome. */
export function checkBounces(key: string): Promise<BounceCheck> {
  return request(`${MAIL_BASE}/profiles/${enc(key)}/bounces/check`, { method: 'POST' });
}

// --- applications

export const APP_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const MAIL_SEND = 'mail:send';

export type PolicyMode = PolicyRead['mode'];
export type Policy = PolicyWrite;
export type MailApp = AppRead;
export type RegisteredApp = RegisteredAppRead;

export async function listApps(signal?: AbortSignal): Promise<MailApp[]> {
  return (await request<{ data: MailApp[] }>(`${MAIL_BASE}/apps`, { signal })).data;
}

export function registerApp(body: RegisterAppInput): Promise<RegisteredApp> {
  return request(`${MAIL_BASE}/apps`, { method: 'POST', json: body });
}

export function updateApp(appId: string, body: UpdateAppInput): Promise<MailApp> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}`, { method: 'PATCH', json: body });
}

export function unregisterApp(appId: string): Promise<void> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}`, { method: 'DELETE' });
}

export function setAppPolicy(appId: string, policy: Policy): Promise<MailApp> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}/policy`, { method: 'PUT', json: policy });
}

// --- send log

export type { MessageContent, MessageStatus };
export const MESSAGE_STATUSES: readonly MessageStatus[] = ['queued', 'sending', 'sent', 'failed', 'cancelled', 'bounced'];
export type CancelReason = NonNullable<MessageRecord['cancelReason']>;
export type MailMessage = MessageRecord;
export type MessageAttachment = MessageRecord['attachments'][number];
export type MessageFailure = MessageRecord['failures'][number];

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

export function listMessages(filters: MessageFilters, page: { cursor?: string | null; limit?: number; signal?: AbortSignal } = {}): Promise<MessagePage> {
  return request(`${MAIL_BASE}/messages`, {
    signal: page.signal,
    query: {
      app: filters.app || undefined,
      profile: filters.profile || undefined,
      status: filters.status?.length ? filters.status.join(',') : undefined,
      since: filters.since || undefined,
      ref: filters.ref || undefined,
      recipient: filters.recipient || undefined,
      cursor: page.cursor ?? undefined,
      limit: page.limit,
    },
  });
}

export function getMessage(id: string, signal?: AbortSignal): Promise<MailMessage> {
  return request(`${MAIL_BASE}/messages/${enc(id)}`, { signal });
}

/** Audited on the server (`outgoing_mail.message.read`). */
export function getMessageContent(id: string): Promise<MessageContent> {
  return request(`${MAIL_BASE}/messages/${enc(id)}/content`);
}

export function cancelMessage(id: string): Promise<MailMessage> {
  return request(`${MAIL_BASE}/messages/${enc(id)}/cancel`, { method: 'POST' });
}

export function cancelBatch(batchId: string): Promise<BatchCancelled> {
  return request(`${MAIL_BASE}/batches/${enc(batchId)}/cancel`, { method: 'POST' });
}

// --- retention

export type Retention = RetentionRead;

export const RETENTION_MAX_DAYS = 36_500;

export function getRetention(): Promise<Retention> {
  return request(`${MAIL_BASE}/retention`);
}

export function putRetention(body: RetentionBody): Promise<Retention> {
  return request(`${MAIL_BASE}/retention`, { method: 'PUT', json: body });
}
