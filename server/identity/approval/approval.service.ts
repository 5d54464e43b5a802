/**
 * The authenticator-approval protocol `hearth-app-approval-v1` (seed 001): device pairing, device management, device
 * changes, browser sign-in by approval, and the terminal sign-in broker for the OAuth device flow. The signed device
 * channel (`POST /device`) lives in approval.channel.ts and uses the helpers exported here.
 *
 * - Pairings, sign-in requests and device changes live five minutes; they stay readable one minute after expiry, then
 *   the minute cleanup removes them (404).
 * - Only the initiating account and session family act on a pairing or a device change it requested.
 * - Enrolment writes an audit entry and a durable notice (outbox row) that the minute schedule hands to outgoing mail
 *   (application `core`) until it is accepted; a mail failure never rolls the enrolment back.
 * - `/login/status` holds a pending request; a decision wakes it in-process (keyed by request ID), a decision in
 *   another process on the same data folder is seen within a second, and the answer is always re-read from the database.
 */
import type { IdentitySecretsConfig } from '../../core/config/config.ts';
import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { SecretStore } from '../../core/secrets/secrets.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import { accountCategory } from '../accounts/categories.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { SessionStore } from '../sessions/sessions.store.ts';
import type { CoreMailer } from '../sessions/email-links.ts';
import { BROKER_SECRET_ENV, resolveBrokerSecret } from '../keys/keys.service.ts';
import { APP_APPROVAL_PROTOCOL, DevicePublicKey, ProofError, appPairingProofMessage, verifyProofSignature } from './proof.ts';
import { APPROVAL_LIMITS, APP_APPROVAL_BASE } from './approval.schemas.ts';
import type { ApprovalStore, ChangeRow, DeviceRow, LoginRow, PairingRow } from './approval.store.ts';

const L = APPROVAL_LIMITS;
/** A held `/login/status` re-reads its row this often, for decisions made by another process. */
const HELD_RECHECK_MS = 1000;
const LIFETIME_MS = L.pairingLifetimeSeconds * 1000;
const WINDOW_MS = L.readableWindowSeconds * 1000;
/** `/login/start` calls allowed per client address per minute. */
export const LOGIN_STARTS_PER_MINUTE = 30;
/** Refused credentials (wrong pairing or browser secret, bad or unknown device signature) per address per minute. */
export const AUTH_FAILURES_PER_MINUTE = 60;
/** Wrong comparison codes a pairing survives at confirmation; the fifth cancels it. */
export const WRONG_CODES_ALLOWED = 5;

/** The sign-in context service (server/identity/approval/context.ts), injected so this module does not depend on it. */
export interface LoginContextProvider {
  compute(input: { sub: string; userAgent: string; ip: string; browserId: string | null; at: number }): unknown;
  sameNetwork(ipA: string, ipB: string): boolean;
}

/** For the OAuth device authorization (RFC 8628): terminal sign-in requests approved in the paired app. */
export interface TerminalBroker {
  create(input: { identifier: string; client: { id: string; name: string }; scopes: string[]; lifetimeSeconds: number; ip: string; userAgent: string }): {
    requestId: string; comparison: string; expiresAt: number;
  };
  state(requestId: string): 'pending' | 'approved' | 'denied' | 'consumed' | 'expired' | 'unavailable';
  consume(requestId: string): { sub: string } | null;
}

export type Actor = { actor: string; requestId?: string | null };

export const err = {
  notFound: (what: string) => new HearthError('not_found', `${what} is unavailable (unknown, of another session, or past its readable window)`),
};

export const iso = (ms: number) => new Date(ms).toISOString();
/** The outgoing-mail idempotency key of a device's enrolment notice (one email per device, whatever the retries). */
export const noticeIdempotencyKey = (deviceId: string) => `app-device-enrol:${deviceId}`;
/** Bytes of a JSON answer as sent. */
export const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
const sameHash = (given: string, storedHex: string | null) => {
  if (!storedHex) return false;
  const a = Buffer.from(sha256(given), 'hex');
  const b = Buffer.from(storedHex, 'hex');
  return a.length === b.length && crypto.timingSafeEqual(a, b);
};
const sixDigits = () => String(crypto.randomInt(0, 1_000_000)).padStart(6, '0');
const sameText = (a: string, b: string) => {
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
    id: d.id, name: d.name, createdAt: iso(d.created_at), lastUsedAt: d.last_used_at === null ? null : iso(d.last_used_at),
    revokedAt: d.revoked_at === null ? null : iso(d.revoked_at), assisted: d.assisted === 1,
  };
}

export function createApprovalService(deps: {
  store: ApprovalStore;
  accountStore: AccountStore;
  sessions: SessionsService;
  sessionStore: SessionStore;
  isAccountCategoryAllowed: (row: AccountRow) => boolean;
  audit: AuditLog;
  logger: Logger;
  /** The broker secret (server/core/config). */
  secretsConfig: IdentitySecretsConfig;
  secrets: SecretStore;
  issuer: () => string;
  authenticatorOrigin: () => string | null;
  mailer: () => CoreMailer | null;
  loginContext?: LoginContextProvider;
  now?: () => number;
}) {
  const { store, accountStore, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail, requestId: a.requestId ?? null });

  // ---- in-process wake-up of held /login/status requests ----
  const waiters = new Map<string, Set<() => void>>();
  const wake = (requestId: string) => {
    const set = waiters.get(requestId);
    if (!set) return;
    waiters.delete(requestId);
    for (const fn of set) fn();
  };
  const waitFor = (requestId: string, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      let set = waiters.get(requestId);
      if (!set) waiters.set(requestId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        const s = waiters.get(requestId);
        if (s) {
          s.delete(done);
          if (s.size === 0) waiters.delete(requestId);
        }
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal.addEventListener('abort', done);
      set.add(done);
    });

  // ---- accounts ----
  const maySignIn = (row: AccountRow | undefined): row is AccountRow => !!row && row.kind === 'person' && deps.isAccountCategoryAllowed(row);
  /** Exact login or email, case-insensitive; an identifier naming two accounts is ambiguous (undefined). */
  function findAccount(identifier: string): AccountRow | undefined {
    const v = identifier.trim().toLowerCase();
    if (!v) return undefined;
    const byLogin = accountStore.findSubByLogin(v);
    const byEmail = v.includes('@') ? accountStore.findSubByEmailKey(v) : undefined;
    const sub = byLogin ?? byEmail;
    // Always one account read (a throw-away subject for unknown or ambiguous identifiers): equal work for every answer.
    const row = accountStore.getAccount(sub ?? crypto.randomUUID());
    return sub === undefined || (byLogin && byEmail && byLogin !== byEmail) ? undefined : row;
  }
  const optedIn = (d: DeviceRow, feature: string) => (JSON.parse(d.accept) as string[]).includes(feature);

  // ---- pairing helpers ----
  const readable = (expiresAt: number) => expiresAt + WINDOW_MS > now();
  const pairingState = (p: PairingRow) => ((p.state === 'created' || p.state === 'claimed') && p.expires_at <= now() ? 'expired' : p.state);
  const changeState = (c: ChangeRow) => (c.state === 'pending' && c.expires_at <= now() ? 'expired' : c.state);
  const approvalOf = (p: PairingRow) => {
    if (!p.change_id) return null;
    const c = store.getChange(p.change_id);
    return c ? { state: changeState(c), expiresAt: iso(c.expires_at) } : null;
  };
  function ownPairing(pairingId: string, s: SessionInfo): PairingRow {
    const p = store.getPairing(pairingId);
    if (!p || !readable(p.expires_at) || p.initiator_sub !== s.sub || p.family_id !== s.familyId) throw err.notFound('the pairing');
    return p;
  }
  function pairingBySecret(pairingId: string, secret: string): PairingRow {
    const p = store.getPairing(pairingId);
    if (!p || !readable(p.expires_at)) throw err.notFound('the pairing');
    if (!sameHash(secret, p.secret_hash)) throw new HearthError('forbidden', 'the pairing secret does not match');
    return p;
  }

  /** Enrols the claimed device of a pairing (inside a transaction): device row, audit entry, notice outbox row. */
  function enrol(p: PairingRow, a: Actor, via: Record<string, unknown> = {}): DeviceRow {
    if (store.countActiveDevices(p.sub) >= L.activeDevicesPerAccount) {
      throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
    }
    const at = now();
    store.insertDevice({ id: p.device_id!, sub: p.sub, name: p.name!, public_key: p.public_key!, assisted: p.assisted, created_at: at });
    store.setPairingState(p.id, 'confirmed');
    const account = accountStore.getAccount(p.sub)!;
    record(a, 'auth.app.device.enroll', p.sub, { login: account.login, deviceId: p.device_id, name: p.name, assisted: p.assisted === 1, pairingId: p.id, ...via });
    store.insertNotice(p.device_id!, p.sub, p.assisted === 1, p.name!, at);
    return store.getDevice(p.device_id!)!;
  }

  function revokeDevice(d: DeviceRow, a: Actor, by: 'device' | 'account' | 'administrator' | 'device-change', extra: Record<string, unknown> = {}): boolean {
    const at = now();
    if (!store.revokeDevice(d.id, at)) return false;
    store.cancelChangesOfTarget(d.id, at);
    const account = accountStore.getAccount(d.sub);
    record(a, 'auth.app.device.revoke', d.sub, { login: account?.login ?? null, deviceId: d.id, name: d.name, by, ...extra });
    return true;
  }

  // ---- enrolment notices ----
  /** Notices already logged as waiting (each is logged once, not on every pass). */
  const waitingLogged = new Set<string>();

  /**
   * One pass over the notices outgoing mail has not accepted yet (run after every enrolment and every minute). A
   * notice that cannot be queued stays in the outbox; the log says so once per notice, and once per pass why
   * (one line per reason, with how many notices wait for it) — not one line per notice every minute.
   */
  function deliverNotices(): number {
    const mailer = deps.mailer();
    let sent = 0;
    const reasons = new Map<string, { code: string | undefined; err: string; waiting: number }>();
    for (const n of store.unsentNotices()) {
      const at = now();
      const row = accountStore.getAccount(n.sub);
      if (!row || !row.email) {
        // Nowhere to deliver: the notice is settled (an account without an address gets no email notices at all).
        store.noticeSent(n.device_id, at);
        deps.logger.warn({ deviceId: n.device_id }, 'a device enrolment notice has no email address to go to');
        continue;
      }
      if (!mailer) {
        store.noticeAttempt(n.device_id, at);
        continue;
      }
      const name = row.display_name || row.login!;
      const text = n.assisted
        ? `An administrator paired the authenticator device "${n.device_name}" with your Hearth account "${row.login}". It can now approve sign-ins to your account.`
        : `The authenticator device "${n.device_name}" was paired with your Hearth account "${row.login}". It can now approve sign-ins to your account.`;
      try {
        mailer.notify({
          to: [row.email], subject: 'A device was paired with your Hearth account',
          text: `Hello ${name},\n\n${text}\n\nPaired: ${iso(n.created_at)}\nAdministrator assisted: ${n.assisted ? 'yes' : 'no'}\n\nIf this was not you, remove the device in Hearth and tell your Hearth administrator at once.`,
          ref: `app-device:${n.device_id}`,
          // Derived from the device: a crash between acceptance and noticeSent() makes the retry a duplicate, not a second mail.
          idempotencyKey: noticeIdempotencyKey(n.device_id),
        });
        store.noticeSent(n.device_id, at);
        waitingLogged.delete(n.device_id);
        sent++;
      } catch (e) {
        store.noticeAttempt(n.device_id, at);
        const code = (e as HearthError).code as string | undefined;
        const err = (e as Error).message;
        const key = `${code ?? ''}\n${err}`;
        const reason = reasons.get(key) ?? { code, err, waiting: 0 };
        reason.waiting++;
        reasons.set(key, reason);
        if (!waitingLogged.has(n.device_id)) {
          waitingLogged.add(n.device_id);
          deps.logger.warn({ deviceId: n.device_id }, 'a device enrolment notice could not be queued; it waits in the outbox and is retried every minute');
        }
      }
    }
    for (const r of reasons.values()) {
      deps.logger.warn({ waiting: r.waiting, code: r.code, err: r.err }, `${r.waiting} device enrolment ${r.waiting === 1 ? 'notice waits' : 'notices wait'}: ${r.err}; retrying every minute`);
    }
    return sent;
  }

  // ---- sign-in requests ----
  const loginState = (r: LoginRow): 'pending' | 'approved' | 'denied' | 'consumed' | 'expired' =>
    (r.state === 'pending' || r.state === 'approved') && r.expires_at <= now() ? 'expired' : r.state;

  function newLogin(input: { kind: 'browser' | 'terminal'; row: AccountRow | undefined; category: string | null; usable: boolean; ip: string; context: unknown; terminal: unknown; secret: string | null }) {
    const at = now();
    const id = crypto.randomUUID();
    const comparison = sixDigits();
    const sub = input.usable && input.row ? input.row.sub : null;
    store.insertLogin({
      id, kind: input.kind, sub, category: input.category, secret_hash: input.secret === null ? null : sha256(input.secret),
      challenge: crypto.randomBytes(24).toString('base64url'), comparison, epoch: sub ? input.row!.epoch : null,
      context: sub && input.context != null ? JSON.stringify(input.context) : null, start_ip: input.ip,
      terminal: input.terminal == null ? null : JSON.stringify(input.terminal), created_at: at, expires_at: at + L.loginLifetimeSeconds * 1000,
    });
    return { id, comparison, expiresAt: at + L.loginLifetimeSeconds * 1000 };
  }

  /** Whether a login request may be used by an account now (device, account, category, epoch). */
  function usableLogin(r: LoginRow): AccountRow | null {
    if (!r.sub || !r.device_id) return null;
    const device = store.getDevice(r.device_id);
    if (!device || device.revoked_at !== null || device.sub !== r.sub) return null;
    const row = accountStore.getAccount(r.sub);
    if (!maySignIn(row) || row.epoch !== r.epoch) return null;
    if (r.category !== null && accountCategory({ kind: 'person', profile: row.profile }) !== r.category) return null;
    return row;
  }

  /** Accounts that may start a sign-in by approval: may sign in, have an active device, below the outstanding limit. */
  function approvable(row: AccountRow | undefined, category: string | null): boolean {
    // The same statements run for every identifier (a throw-away subject stands in for an unknown account), so the
    // work done does not reveal whether an account exists, may sign in or has a device.
    const sub = row?.sub ?? crypto.randomUUID();
    const devices = store.countActiveDevices(sub);
    const outstanding = store.outstandingLogins(sub, now());
    if (!maySignIn(row)) return false;
    if (category !== null && accountCategory({ kind: 'person', profile: row.profile }) !== category) return false;
    return devices > 0 && outstanding < L.outstandingLoginsPerAccount;
  }

  const service = {
    /**
     * The info document. Without an authenticator origin (`HEARTH_AUTHENTICATOR_ORIGIN` unset and no reference
     * authenticator listener) the protocol is disabled: `enabled: false`, `appOrigin: null`, `features: []`.
     */
    info() {
      const issuer = deps.issuer();
      const appOrigin = deps.authenticatorOrigin();
      const enabled = appOrigin !== null;
      return {
        protocol: APP_APPROVAL_PROTOCOL, issuer, api: issuer + APP_APPROVAL_BASE, appOrigin, algorithm: 'ES256' as const,
        limits: { ...L },
        features: (enabled ? ['device-changes', ...(deps.loginContext ? ['login-context' as const] : []), 'terminal-logins'] : []) as Array<'device-changes' | 'login-context' | 'terminal-logins'>,
        enabled,
      };
    },
    /** Whether the protocol is enabled (an authenticator origin is configured). */
    enabled: () => deps.authenticatorOrigin() !== null,
    authenticatorOrigin: () => deps.authenticatorOrigin(),

    // ---- pairing ----
    startPairing(s: SessionInfo, isAdmin: boolean, userId: string | undefined, a: Actor) {
      const assisted = userId !== undefined && userId !== s.sub;
      if (assisted && !isAdmin) throw new HearthError('forbidden', 'pairing a device for another account needs the administrator role');
      const sub = userId ?? s.sub;
      const row = accountStore.getAccount(sub);
      if (!row || row.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
      if (!maySignIn(row)) throw new HearthError('account_not_eligible', 'this account may not sign in (disabled, expired or its category is not allowed)');
      if (!row.email) {
        // Email is a required channel of enrolment (seed 001): the account owner is told of every paired device.
        throw new HearthError('email_required', assisted
          ? 'this account has no email address: add one to the account (Accounts → edit) before pairing a device for it, so its owner is told of the enrolment'
          : 'your account has no email address: ask an administrator to add one before pairing a device, so you are told of every enrolment');
      }
      const at = now();
      return store.transaction(() => {
        if (store.outstandingPairings(sub, at) >= L.outstandingPairingsPerAccount) {
          throw new HearthError('pairing_limit', `an account has at most ${L.outstandingPairingsPerAccount} outstanding pairings: finish or cancel one`);
        }
        if (store.countActiveDevices(sub) >= L.activeDevicesPerAccount) {
          throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
        }
        const id = crypto.randomUUID();
        const secret = crypto.randomBytes(32).toString('base64url');
        store.insertPairing({ id, sub, initiator_sub: s.sub, family_id: s.familyId, assisted: assisted ? 1 : 0, secret_hash: sha256(secret), created_at: at, expires_at: at + LIFETIME_MS });
        if (assisted) record(a, 'auth.app.pairing.assist', sub, { login: row.login, pairingId: id });
        return { protocol: APP_APPROVAL_PROTOCOL, issuer: deps.issuer(), pairingId: id, secret, expiresAt: iso(at + LIFETIME_MS) };
      });
    },

    claim(input: { pairingId: string; secret: string; publicKey: DevicePublicKey; name: string; signature: string }) {
      const p = pairingBySecret(input.pairingId, input.secret);
      const message = appPairingProofMessage({ issuer: deps.issuer(), pairingId: input.pairingId, secret: input.secret, publicKey: input.publicKey, name: input.name });
      try {
        verifyProofSignature(message, input.signature, input.publicKey);
      } catch (e) {
        if (e instanceof ProofError && e.code === 'signature_format') throw new HearthError('invalid_signature', e.message);
        throw new HearthError('bad_signature', 'the pairing signature does not verify with the given key');
      }
      const name = deviceName(input.name);
      if (p.state !== 'created') throw new HearthError('pairing_claimed', 'this pairing was already claimed (or cancelled): start a new pairing');
      if (p.expires_at <= now()) throw new HearthError('pairing_expired', 'this pairing expired: start a new pairing');
      const deviceId = crypto.randomUUID();
      const comparison = sixDigits();
      const ok = store.claimPairing({ id: p.id, device_id: deviceId, public_key: JSON.stringify(input.publicKey), name, comparison, now: now() });
      if (!ok) throw new HearthError('pairing_claimed', 'this pairing was already claimed (or cancelled): start a new pairing');
      return { deviceId, comparison, expiresAt: iso(p.expires_at) };
    },

    pairingStatus(pairingId: string, s: SessionInfo) {
      const p = ownPairing(pairingId, s);
      return { pairingId: p.id, state: pairingState(p), expiresAt: iso(p.expires_at), deviceId: p.device_id, name: p.name, assisted: p.assisted === 1, approval: approvalOf(p) };
    },

    /** Confirms with the comparison code; `recheckAdmin` is true when the initiator is still an administrator. */
    confirm(pairingId: string, comparison: string, s: SessionInfo, a: Actor, recheckAdmin: () => boolean) {
      const r = store.transaction(() => {
        const p = ownPairing(pairingId, s);
        const state = pairingState(p);
        if (state === 'confirmed') return { deviceId: p.device_id!, approval: approvalOf(p) };
        if (state === 'expired') throw new HearthError('pairing_expired', 'this pairing expired: start a new pairing');
        if (state === 'cancelled') throw new HearthError('pairing_cancelled', 'this pairing was cancelled: start a new pairing');
        if (state === 'created') throw new HearthError('pairing_not_claimed', 'no device has claimed this pairing yet');
        if (!sameText(comparison, p.comparison!)) {
          // Counted (the transaction commits it); the fifth wrong code cancels the pairing and its pending change.
          const wrong = store.wrongCode(p.id);
          if (wrong >= WRONG_CODES_ALLOWED) {
            store.setPairingState(p.id, 'cancelled');
            if (p.change_id) store.cancelChange(p.change_id, now());
          }
          return { wrong };
        }
        if (p.change_id) return { deviceId: p.device_id!, approval: approvalOf(p) };
        if (p.assisted === 1) {
          if (!recheckAdmin()) throw new HearthError('forbidden', 'assisted pairing needs the administrator role');
          const target = accountStore.getAccount(p.sub);
          if (!maySignIn(target)) throw new HearthError('account_not_eligible', 'this account may not sign in (disabled, expired or its category is not allowed)');
          enrol(p, a);
          return { deviceId: p.device_id!, approval: null };
        }
        const active = store.countActiveDevices(p.sub);
        if (active === 0) {
          enrol(p, a);
          return { deviceId: p.device_id!, approval: null };
        }
        // A further device: an active paired device must approve (a device change of kind `pair`).
        if (active >= L.activeDevicesPerAccount) {
          throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
        }
        const at = now();
        const changeId = crypto.randomUUID();
        const expiresAt = at + L.changeLifetimeSeconds * 1000;
        store.insertChange({ id: changeId, sub: p.sub, kind: 'pair', target_id: p.device_id!, target_name: p.name!, end_sessions: 0, family_id: p.family_id, pairing_id: p.id, created_at: at, expires_at: expiresAt });
        store.setPairingChange(p.id, changeId, Math.max(p.expires_at, expiresAt));
        record(a, 'auth.app.device_change.request', p.device_id!, { changeId, kind: 'pair', deviceId: p.device_id, endSignIns: false, login: accountStore.getAccount(p.sub)?.login ?? null });
        return { deviceId: p.device_id!, approval: { state: 'pending' as const, expiresAt: iso(expiresAt) } };
      });
      if ('wrong' in r && r.wrong !== undefined) {
        throw new HearthError('comparison_mismatch', r.wrong >= WRONG_CODES_ALLOWED
          ? `the code does not match the one the device shows; after ${WRONG_CODES_ALLOWED} wrong codes the pairing is cancelled: start a new pairing`
          : 'the code does not match the one the device shows');
      }
      return r as { deviceId: string; approval: { state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired'; expiresAt: string } | null };
    },

    pairingResult(input: { pairingId: string; secret: string; publicKey: DevicePublicKey }) {
      const p = pairingBySecret(input.pairingId, input.secret);
      if (!p.public_key || p.state === 'created') throw new HearthError('pairing_not_claimed', 'this pairing has not been claimed');
      const k = JSON.parse(p.public_key) as DevicePublicKey;
      if (k.x !== input.publicKey.x || k.y !== input.publicKey.y) throw new HearthError('key_mismatch', 'the public key is not the one that claimed this pairing');
      const state = pairingState(p);
      return { state, deviceId: p.device_id!, ...(state === 'claimed' ? { comparison: p.comparison! } : {}) };
    },

    cancelPairing(pairingId: string, s: SessionInfo, a: Actor) {
      store.transaction(() => {
        const p = ownPairing(pairingId, s);
        if (p.state === 'confirmed') throw new HearthError('pairing_confirmed', 'a confirmed device cannot be cancelled, only revoked');
        if (p.state === 'cancelled') return;
        store.setPairingState(p.id, 'cancelled');
        if (p.change_id && store.cancelChange(p.change_id, now())) {
          record(a, 'auth.app.device_change.cancel', p.device_id ?? p.sub, { changeId: p.change_id, kind: 'pair', deviceId: p.device_id, endSignIns: false });
        }
      });
    },

    // ---- devices ----
    /**
     * A page of at most twenty devices in ID order that fits the 8 KiB response budget: when twenty would not fit
     * (long names of multi-byte characters), the page is shorter and `nextCursor` continues right after its last item.
     */
    listDevices(sub: string, after: string | null) {
      const rows = store.devicePage(sub, after, L.devicePageSize + 1);
      const items = rows.slice(0, L.devicePageSize).map(presentDevice);
      let more = rows.length > L.devicePageSize;
      const page = () => ({ items, nextCursor: more ? items[items.length - 1]!.id : null });
      while (items.length > 1 && jsonBytes(page()) > L.responseBytes) {
        items.pop();
        more = true;
      }
      return page();
    },

    ownDevice(sub: string, deviceId: string): DeviceRow {
      const d = store.getDevice(deviceId);
      if (!d || d.sub !== sub) throw new HearthError('device_not_found', 'no such device of this account');
      return d;
    },

    updateDevice(sub: string, body: { operation: 'rename'; deviceId: string; name: string } | { operation: 'revoke'; deviceId: string }, a: Actor) {
      return store.transaction(() => {
        const d = service.ownDevice(sub, body.deviceId);
        if (body.operation === 'rename') {
          const name = deviceName(body.name);
          store.renameDevice(d.id, name);
          record(a, 'auth.app.device.rename', sub, { deviceId: d.id, name });
        } else {
          revokeDevice(d, a, 'account');
        }
        return presentDevice(store.getDevice(d.id)!);
      });
    },

    adminRevoke(sub: string, deviceId: string, a: Actor) {
      return store.transaction(() => {
        const d = service.ownDevice(sub, deviceId);
        revokeDevice(d, a, 'administrator');
        return presentDevice(store.getDevice(d.id)!);
      });
    },

    // ---- device changes (browser side) ----
    startRemoval(s: SessionInfo, deviceId: string, endSessions: boolean, a: Actor) {
      return store.transaction(() => {
        const d = service.ownDevice(s.sub, deviceId);
        if (d.revoked_at !== null) throw new HearthError('device_already_revoked', 'this device is already revoked');
        const at = now();
        const existing = store.newestRemoval(s.sub, s.familyId, d.id);
        if (existing && changeState(existing) === 'pending') {
          if ((existing.end_sessions === 1) === endSessions) {
            return { changeId: existing.id, state: 'pending' as const, expiresAt: iso(existing.expires_at), kind: 'revoke' as const, deviceId: d.id, endSessions };
          }
          store.cancelChange(existing.id, at);
        }
        const deciders = store.activeDevices(s.sub).filter((x) => x.id !== d.id && optedIn(x, 'device-changes'));
        if (deciders.length === 0) {
          // Nobody else could approve: a plain revoke (the route already required recent authentication).
          revokeDevice(d, a, 'account');
          const ended = endSessions ? deps.sessionStore.revokeAll(s.sub, at, 'app-device-removed', s.familyId) : 0;
          return { changeId: null, state: 'revoked' as const, deviceId: d.id, endSessions, endedSessions: ended };
        }
        const id = crypto.randomUUID();
        const expiresAt = at + L.changeLifetimeSeconds * 1000;
        store.insertChange({ id, sub: s.sub, kind: 'revoke', target_id: d.id, target_name: d.name, end_sessions: endSessions ? 1 : 0, family_id: s.familyId, pairing_id: null, created_at: at, expires_at: expiresAt });
        record(a, 'auth.app.device_change.request', d.id, { changeId: id, kind: 'revoke', deviceId: d.id, endSignIns: endSessions, login: accountStore.getAccount(s.sub)?.login ?? null });
        return { changeId: id, state: 'pending' as const, expiresAt: iso(expiresAt), kind: 'revoke' as const, deviceId: d.id, endSessions };
      });
    },

    /** A change the session requested: by `changeId`, or the newest removal of `deviceId` by this session. */
    ownChange(s: SessionInfo, ref: { changeId: string } | { deviceId: string }): ChangeRow {
      const c = 'changeId' in ref ? store.getChange(ref.changeId) : store.newestRemoval(s.sub, s.familyId, ref.deviceId);
      if (!c || c.sub !== s.sub || c.family_id !== s.familyId || !readable(c.expires_at)) throw err.notFound('the device change');
      return c;
    },
    changeStatus(s: SessionInfo, ref: { changeId: string } | { deviceId: string }) {
      const c = service.ownChange(s, ref);
      return { changeId: c.id, state: changeState(c), expiresAt: iso(c.expires_at) };
    },
    cancelChange(s: SessionInfo, ref: { changeId: string } | { deviceId: string }, a: Actor) {
      store.transaction(() => {
        const c = service.ownChange(s, ref);
        const state = changeState(c);
        if (state === 'cancelled') return;
        if (state !== 'pending') throw new HearthError('change_not_pending', `this device change is ${state}`);
        store.cancelChange(c.id, now());
        if (c.pairing_id) store.setPairingState(c.pairing_id, 'cancelled');
        record(a, 'auth.app.device_change.cancel', c.target_id, { changeId: c.id, kind: c.kind, deviceId: c.target_id, endSignIns: c.end_sessions === 1 });
      });
    },

    // ---- browser sign-in ----
    startLogin(input: { identifier: string; category: string; ip: string; userAgent: string; browserId: string | null }) {
      const row = findAccount(input.identifier);
      const usable = approvable(row, input.category);
      let context: unknown = null;
      if (deps.loginContext) {
        // Computed for every request (a throw-away subject when nobody could approve it, then discarded), so the time
        // taken does not tell eligible accounts from others.
        try {
          const computed = deps.loginContext.compute({ sub: usable ? row!.sub : crypto.randomUUID(), userAgent: input.userAgent, ip: input.ip, browserId: input.browserId, at: now() });
          if (usable) context = computed;
        } catch (e) {
          deps.logger.warn({ err: (e as Error).message }, 'the sign-in context could not be computed');
        }
      }
      const secret = crypto.randomBytes(32).toString('base64url');
      const r = store.transaction(() => {
        // Checked again inside the transaction, for every identifier (no short-circuit: the same statements run).
        const still = approvable(row, input.category);
        return newLogin({ kind: 'browser', row, category: input.category, usable: usable && still, ip: input.ip, context, terminal: null, secret });
      });
      return { requestId: r.id, browserSecret: secret, comparison: r.comparison, expiresAt: iso(r.expiresAt), pollAfterSeconds: L.pollAfterSeconds };
    },

    /** The request behind a browser secret (404 otherwise, also past the readable window). */
    browserLogin(requestId: string, secret: string): LoginRow {
      const r = store.getLogin(requestId);
      if (!r || r.kind !== 'browser' || !readable(r.expires_at) || !sameHash(secret, r.secret_hash)) throw err.notFound('the sign-in request');
      return r;
    },

    async loginStatus(requestId: string, secret: string, signal: AbortSignal) {
      let r = service.browserLogin(requestId, secret);
      // Held until decided, expired or pollAfterSeconds: a decision in this process wakes it at once; one made by
      // another process sharing the data folder (the CLI, a second server) is seen by re-reading the row each second.
      const until = Math.min(now() + L.pollAfterSeconds * 1000, r.expires_at);
      while (loginState(r) === 'pending' && !signal.aborted && now() < until) {
        await waitFor(requestId, Math.min(HELD_RECHECK_MS, until - now()), signal);
        r = store.getLogin(requestId) ?? r;
      }
      return { state: loginState(r), expiresAt: iso(r.expires_at), pollAfterSeconds: L.pollAfterSeconds };
    },

    /** Completes an approved browser sign-in once; the session cookie header, or an error. */
    completeLogin(requestId: string, secret: string, httpRequestId: string) {
      return store.transaction(() => {
        const r = service.browserLogin(requestId, secret);
        const state = loginState(r);
        if (state === 'consumed') throw new HearthError('login_consumed', 'this sign-in request was already used: start a new sign-in');
        if (state !== 'approved') throw new HearthError('login_not_approved', `this sign-in request is ${state}`);
        const row = usableLogin(r);
        if (!row) throw new HearthError('login_refused', 'this sign-in can no longer complete (the device was revoked, or the account changed or may not sign in): start a new sign-in');
        if (!store.consumeLogin(r.id, now())) throw new HearthError('login_consumed', 'this sign-in request was already used: start a new sign-in');
        return deps.sessions.startSession(row, httpRequestId, 'app-approval');
      });
    },

    /** The terminal broker for the OAuth device authorization; throws when the secret is not Core's broker secret. */
    terminalBroker(secret: string): TerminalBroker {
      const expected = Buffer.from(resolveBrokerSecret(deps.secretsConfig, deps.secrets));
      const given = Buffer.from(String(secret));
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
        throw new Error(`identity terminal broker: the broker secret does not match Core's (${BROKER_SECRET_ENV})`);
      }
      return {
        create(input) {
          if (!Array.isArray(input.scopes) || input.scopes.length < 1 || input.scopes.length > L.terminalScopes || input.scopes.some((x) => typeof x !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(x))) {
            throw new HearthError('invalid_request', `a terminal sign-in carries 1–${L.terminalScopes} scope codes`);
          }
          if (!Number.isInteger(input.lifetimeSeconds) || input.lifetimeSeconds <= 0) throw new HearthError('invalid_request', 'lifetimeSeconds must be a positive integer');
          const clientName = plainText(String(input.client?.name ?? ''), L.terminalClientNameLength);
          const clientId = plainText(String(input.client?.id ?? ''), 200);
          if (!clientId) throw new HearthError('invalid_request', 'the terminal client needs an id');
          const row = findAccount(String(input.identifier ?? ''));
          const terminal = { client: { id: clientId, name: clientName || clientId.slice(0, L.terminalClientNameLength) }, scopes: [...input.scopes], lifetimeSeconds: input.lifetimeSeconds };
          const r = store.transaction(() => newLogin({ kind: 'terminal', row, category: null, usable: approvable(row, null), ip: String(input.ip ?? ''), context: null, terminal, secret: null }));
          return { requestId: r.id, comparison: r.comparison, expiresAt: r.expiresAt };
        },
        state(requestId) {
          const r = store.getLogin(requestId);
          return !r || r.kind !== 'terminal' ? 'unavailable' : loginState(r);
        },
        consume(requestId) {
          return store.transaction(() => {
            const r = store.getLogin(requestId);
            if (!r || r.kind !== 'terminal' || loginState(r) !== 'approved') return null;
            const row = usableLogin(r);
            if (!row || !store.consumeLogin(r.id, now())) return null;
            return { sub: row.sub };
          });
        },
      };
    },

    // ---- maintenance ----
    /** Hands unsent enrolment notices to outgoing mail; returns how many were accepted. Runs every minute. */
    deliverNotices,
    cleanup() {
      const at = now();
      return store.purge(at - WINDOW_MS, at, at - 7 * 24 * 3600_000);
    },

    // ---- for the device channel ----
    internals: {
      store, now, record, wake, optedIn, loginState, changeState, pairingState, enrol, deliverNotices, revokeDevice, maySignIn, readable, sameText,
      loginContext: deps.loginContext, sessionStore: deps.sessionStore, accountStore, issuer: deps.issuer,
    },
  };
  return service;
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
