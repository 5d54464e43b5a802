/** Helpers shared by the outgoing-mail pages. */
import type { MessageStatus } from '../../lib/api/mail.ts';
import { formatNumber } from '../../lib/format.ts';

export type Tab = 'profiles' | 'apps' | 'log' | 'retention';
export const TABS: readonly { tab: Tab; label: string; href: string }[] = [
  { tab: 'profiles', label: 'Sender profiles', href: '/mail/profiles' },
  { tab: 'apps', label: 'Applications', href: '/mail/apps' },
  { tab: 'log', label: 'Send log', href: '/mail/log' },
  { tab: 'retention', label: 'Retention', href: '/mail/retention' },
];

export const STATUS_TONE: Record<MessageStatus, 'neutral' | 'warning' | 'success' | 'danger' | 'info'> = {
  queued: 'info',
  sending: 'info',
  sent: 'success',
  failed: 'danger',
  cancelled: 'neutral',
  bounced: 'warning',
};

export const STATUS_LABEL: Record<MessageStatus, string> = {
  queued: 'Queued',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  cancelled: 'Cancelled',
  bounced: 'Bounced',
};

export const CANCEL_REASON: Record<string, string> = {
  cancelled_by_admin: 'Cancelled by an administrator',
  profile_removed: 'Its sender profile was deleted',
  profile_not_allowed: 'The application lost access to the profile',
};

/** What to check for each bounce-collection error code (docs/api/mail.md, Bounce collection). */
export const BOUNCE_ERRORS: Record<string, string> = {
  open_failed: 'The mailbox could not be opened: check credentials, folder, TLS certificate, STARTTLS and IMAP egress.',
  search_failed: 'The mailbox could not be searched: check the IMAP server and its UID search support.',
  apply_failed: 'A report could not be recorded: check the database.',
  save_failed: 'Progress could not be saved: check the database.',
  interrupted: 'The check was cut short (shutdown or time budget); the next check resumes.',
};

/** What a bounce-collection pass found, in a few words. */
export function bounceCheckSummary(r: { messages: number; reports: number; recorded: number; skipped: number; more: boolean; joined: boolean }): string {
  const n = (k: number, one: string, many = `${one}s`) => `${formatNumber(k)} ${k === 1 ? one : many}`;
  const parts = [n(r.messages, 'message'), n(r.reports, 'delivery report'), `${n(r.recorded, 'bounce')} recorded`];
  if (r.skipped) parts.push(`${formatNumber(r.skipped)} skipped`);
  return `${parts.join(', ')}${r.more ? '; more wait for the next check' : ''}${r.joined ? ' (joined the check in progress)' : ''}.`;
}

/** A number input's text → integer, null when empty, NaN when not a whole number. */
export function intOrNull(text: string | number | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const s = String(text).trim();
  if (s === '') return null;
  return /^-?\d+$/.test(s) ? Number(s) : Number.NaN;
}
