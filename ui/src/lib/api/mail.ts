/**
 * Outgoing mail administration (`/api/admin/core/outgoing-mail`, docs/api/mail.md): sender profiles
 * (server/mail/profiles), applications and their access policies (server/mail/apps), the send log
 * (server/mail/log) and retention (server/mail/retention). Types mirror the server's schemas.
 */
import { request } from './client.ts';
import type { BounceCheckResult } from '../../../../server/mail/bounces/bounces.schemas.ts';
import type { CaCertificateInfo } from '../../../../server/mail/tls-ca.ts';

export const MAIL_BASE = '/api/admin/core/outgoing-mail';
const enc = encodeURIComponent;

// --- profiles

/** Same rule as the server: lowercase letters, digits and hyphens, beginning with a letter or digit, at most 63. */
export const PROFILE_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const DEFAULT_PACE_PER_MINUTE = 60;
export const DEFAULT_MAX_ATTACHMENT_BYTES = 15_728_640;
export const MAX_ATTACHMENT_BYTES = 26_214_400;

export interface ImapRead {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  folder: string;
  hasPassword: boolean;
}

/** Bounce-collection status codes (`bounces.error`). */
export type BounceError = 'open_failed' | 'search_failed' | 'apply_failed' | 'save_failed' | 'interrupted';

export interface MailProfile {
  key: string;
  name: string;
  fromAddress: string;
  fromName: string | null;
  smtpHost: string;
  smtpPort: number;
  smtpSecure: boolean;
  smtpUser: string | null;
  hasPassword: boolean;
  pacePerMinute: number;
  dailyRecipientLimit: number | null;
  maxAttachmentBytes: number;
  isDefault: boolean;
  revision: number;
  imap: ImapRead | null;
  /** Null while collection is off; `checkedAt: null` while a new mailbox waits for its first check. */
  bounces: { checkedAt: string | null; error: string | null } | null;
  /** The profile's trusted CA certificates (never their PEM); null: the default CAs only. */
  tlsCa: CaCertificate[] | null;
  createdAt: string;
  updatedAt: string;
}

/** A trusted CA certificate as the server shows it (subject, issuer, SHA-256 fingerprint, validity; never the PEM). */
export type CaCertificate = CaCertificateInfo;

export interface ImapWrite {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  /** Omitted keeps the stored password, null clears it, a string replaces it. */
  password?: string | null;
  folder: string;
}

/** The whole profile (a replacement, not a patch). */
export interface ProfileWrite {
  name: string;
  fromAddress: string;
  fromName: string | null;
  smtpHost: string;
  smtpPort: number;
  smtpSecure: boolean;
  smtpUser: string | null;
  /** Omitted keeps the stored password, null clears it, a string replaces it. */
  smtpPassword?: string | null;
  pacePerMinute: number;
  dailyRecipientLimit: number | null;
  maxAttachmentBytes: number;
  imap: ImapWrite | null;
  /** The trusted CA (PEM). Omitted keeps the stored one, null clears it, a string replaces it. */
  tlsCaPem?: string | null;
  /** Required to replace an existing profile. */
  revision?: number;
}

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

export function testProfile(key: string, to: string): Promise<{ ok: true }> {
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

export type PolicyMode = 'default' | 'profiles' | 'none';
export type Policy = { mode: 'default' } | { mode: 'profiles'; profiles: string[] } | { mode: 'none' };

export interface MailApp {
  appId: string;
  name: string | null;
  /** False for a stored policy of an application that is not (or no longer) registered. */
  registered: boolean;
  platformPermissions: string[] | null;
  declaresMailSend: boolean | null;
  /** True for `core` (Hearth itself): always the default profile. */
  fixed: boolean;
  tokenPrefix: string | null;
  /** `profiles`: what the application may use now. */
  policy: { mode: PolicyMode; profiles: string[] };
}

export interface RegisteredApp extends MailApp {
  /** The bearer credential, shown once. */
  token: string;
}

export async function listApps(signal?: AbortSignal): Promise<MailApp[]> {
  return (await request<{ data: MailApp[] }>(`${MAIL_BASE}/apps`, { signal })).data;
}

export function registerApp(body: { appId: string; name: string; platformPermissions: string[] }): Promise<RegisteredApp> {
  return request(`${MAIL_BASE}/apps`, { method: 'POST', json: body });
}

export function updateApp(appId: string, body: { name?: string; platformPermissions?: string[] }): Promise<MailApp> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}`, { method: 'PATCH', json: body });
}

export function unregisterApp(appId: string): Promise<void> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}`, { method: 'DELETE' });
}

export function setAppPolicy(appId: string, policy: Policy): Promise<MailApp> {
  return request(`${MAIL_BASE}/apps/${enc(appId)}/policy`, { method: 'PUT', json: policy });
}

// --- send log

export type MessageStatus = 'queued' | 'sending' | 'sent' | 'failed' | 'cancelled' | 'bounced';
export const MESSAGE_STATUSES: readonly MessageStatus[] = ['queued', 'sending', 'sent', 'failed', 'cancelled', 'bounced'];
export type CancelReason = 'cancelled_by_admin' | 'profile_removed' | 'profile_not_allowed';

export interface MessageAttachment {
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
}

export interface MessageFailure {
  recipient: string;
  reason: string;
  kind: 'rejected' | 'bounced';
}

export interface MailMessage {
  id: string;
  status: MessageStatus;
  cancelReason: CancelReason | null;
  lane: 'immediate' | 'bulk';
  app: string;
  actor: Record<string, unknown>;
  profile: string;
  from: { name: string; address: string };
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  attachments: MessageAttachment[];
  attempts: number;
  lastError: string | null;
  smtpResponse: string | null;
  failures: MessageFailure[];
  batchId: string | null;
  ref: string | null;
  idempotencyKey: string | null;
  messageId: string;
  createdAt: string;
  updatedAt: string;
  nextAttemptAt: string | null;
  deadlineAt: string;
  sentAt: string | null;
  contentPurgedAt: string | null;
}

export interface MessageContent {
  id: string;
  purged: boolean;
  purgedAt: string | null;
  text: string | null;
  html: string | null;
  headers: Record<string, string> | null;
}

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
): Promise<{ data: MailMessage[]; nextCursor: string | null }> {
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

export function cancelBatch(batchId: string): Promise<{ batchId: string; cancelled: number }> {
  return request(`${MAIL_BASE}/batches/${enc(batchId)}/cancel`, { method: 'POST' });
}

// --- retention

export interface Retention {
  contentDays: number;
  recordDays: number;
}

export const RETENTION_MAX_DAYS = 36_500;

export function getRetention(): Promise<Retention> {
  return request(`${MAIL_BASE}/retention`);
}

export function putRetention(body: Retention): Promise<Retention> {
  return request(`${MAIL_BASE}/retention`, { method: 'PUT', json: body });
}
