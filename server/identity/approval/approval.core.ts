/**
 * What every flow of the authenticator-approval protocol shares: the service's dependencies, the clock and
 * the audit writer, the lifetimes and readable windows, the states as read at a moment (`expired` once past the
 * lifetime), the account lookup by identifier, and the small helpers of secrets, codes and presentation.
 *
 * It owns no flow: pairing.ts, devices.ts, device-changes.ts, sign-in-requests.ts, browser-login.ts,
 * terminal-broker.ts, notice-outbox.ts and approval.channel.ts each own one, and approval.service.ts composes them.
 */

import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import type { IdentitySecretsConfig } from '../../core/config/config.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { SecretStore } from '../../core/secrets/secrets.ts';
import type { Store } from '../../core/storage/store.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import type { CoreMailer } from '../sessions/email-links.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { SessionStore } from '../sessions/sessions.store.ts';
import { APPROVAL_LIMITS } from './approval.schemas.ts';
import type { ApprovalStore, ChangeRow, DeviceRow, LoginRow, PairingRow } from './approval.store.ts';

export const L = APPROVAL_LIMITS;
export const WINDOW_MS = L.readableWindowSeconds * 1000;
/** `/login/start` calls allowed per client address per minute. */
export const LOGIN_STARTS_PER_MINUTE = 30;
/** Refused credentials (wrong pairing or browser secret, bad or unknown device signature) per address per minute. */
export const AUTH_FAILURES_PER_MINUTE = 60;

/** The sign-in context service (signin-context.ts), injected so this module does not depend on it. */
export interface LoginContextProvider {
  compute(input: { sub: string; userAgent: string; ip: string; browserId: string | null; at: number }): Promise<unknown>;
  sameNetwork(ipA: string, ipB: string): boolean;
}

export type ApprovalDeps = {
  store: ApprovalStore;
  accountStore: AccountStore;
  sessions: SessionsService;
  sessionStore: SessionStore;
  isAccountCategoryAllowed: (row: AccountRow) => Promise<boolean>;
  audit: AuditLog;
  logger: Logger;
  /** The broker secret (server/core/config). */
  secretsConfig: IdentitySecretsConfig;
  secrets: SecretStore;
  issuer: () => string;
  authenticatorOrigin: () => string | null;
  mailer: () => CoreMailer | null;
  loginContext?: LoginContextProvider;
  /**
   * The core store's notifications (store.ts `notify`/`listen`): a decision wakes the held `/login/status` of every
   * replica through them (PostgreSQL LISTEN/NOTIFY; on SQLite this process only). Absent: this process only.
   */
  notifications?: Pick<Store, 'notify' | 'listen'>;
  now?: () => number;
};

export type Actor = { actor: string; requestId?: string | null };

export const err = {
  notFound: (what: string) => new HearthError('not_found', `${what} is unavailable (unknown, of another session, or past its readable window)`),
};

export const iso = (ms: number) => new Date(ms).toISOString();
/** Bytes of a JSON answer as sent. */
export const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
export const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
export const sameHash = (given: string, storedHex: string | null) => {
  if (!storedHex) return false;
  const a = Buffer.from(sha256(given), 'hex');
  const b = Buffer.from(storedHex, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
};
export const sixDigits = () => String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
export const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};
/** Plain single-line text of at most `max` code points (control characters become spaces). */
export const plainText = (s: string, max: number) => [...s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim()].slice(0, max).join('').trim();
/** A device name: trimmed single-line plain text of 1–80 code points (400 otherwise). */
export function deviceName(raw: string): string {
  const name = raw.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  const n = [...name].length;
  if (n < 1 || n > L.deviceNameLength) throw new HearthError('invalid_request', `name must be 1–${L.deviceNameLength} characters after trimming`);
  return name;
}

export function presentDevice(d: DeviceRow) {
  return {
    id: d.id,
    name: d.name,
    createdAt: iso(d.created_at),
    lastUsedAt: d.last_used_at === null ? null : iso(d.last_used_at),
    revokedAt: d.revoked_at === null ? null : iso(d.revoked_at),
    assisted: d.assisted === 1,
  };
}

/** The shared part the flows are built on. */
export function createApprovalCore(deps: ApprovalDeps) {
  const { store, accountStore, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail, requestId: a.requestId ?? null });

  /** Whether the account may sign in now (a person, not disabled or expired, category allowed). */
  const maySignIn = async (row: AccountRow | undefined): Promise<boolean> => !!row && row.kind === 'person' && (await deps.isAccountCategoryAllowed(row));
  /** Exact login or email, case-insensitive; an identifier naming two accounts is ambiguous (undefined). */
  async function findAccount(identifier: string): Promise<AccountRow | undefined> {
    const v = identifier.trim().toLowerCase();
    if (!v) return undefined;
    const byLogin = await accountStore.findSubByLogin(v);
    const byEmail = v.includes('@') ? await accountStore.findSubByEmailKey(v) : undefined;
    const sub = byLogin ?? byEmail;
    // Always one account read (a throw-away subject for unknown or ambiguous identifiers): equal work for every answer.
    const row = await accountStore.getAccount(sub ?? crypto.randomUUID());
    return sub === undefined || (byLogin && byEmail && byLogin !== byEmail) ? undefined : row;
  }
  const optedIn = (d: DeviceRow, feature: string) => (JSON.parse(d.accept) as string[]).includes(feature);

  // ---- states as read now ----
  const readable = (expiresAt: number) => expiresAt + WINDOW_MS > now();
  const pairingState = (p: PairingRow) => ((p.state === 'created' || p.state === 'claimed') && p.expires_at <= now() ? 'expired' : p.state);
  const changeState = (c: ChangeRow) => (c.state === 'pending' && c.expires_at <= now() ? 'expired' : c.state);
  const loginState = (r: LoginRow): 'pending' | 'approved' | 'denied' | 'consumed' | 'expired' =>
    (r.state === 'pending' || r.state === 'approved') && r.expires_at <= now() ? 'expired' : r.state;

  return { deps, store, accountStore, now, record, maySignIn, findAccount, optedIn, readable, pairingState, changeState, loginState };
}

export type ApprovalCore = ReturnType<typeof createApprovalCore>;
