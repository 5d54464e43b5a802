/**
 * The sign-in request rows that browser sign-in (browser-login.ts) and terminal sign-in (terminal-broker.ts) share:
 * their creation (an account that may not be approved gets a request that can never be approved, made with the same
 * statements), whether an approved request may still be used (device, account, category and authentication epoch),
 * and the wake-up of a held `/login/status` when the device channel records a decision (in this process, and on
 * every replica through the core store's notifications).
 */
import crypto from 'node:crypto';
import type { AccountRow } from '../accounts/accounts.store.ts';
import { accountCategory } from '../accounts/categories.ts';
import { type ApprovalCore, L, sha256, sixDigits } from './approval.core.ts';
import type { LoginRow } from './approval.store.ts';

export function createSignInRequests(core: ApprovalCore) {
  const { store, accountStore, now, maySignIn } = core;

  // ---- wake-up of held /login/status requests: in this process, and through the core store's notifications ----
  const waiters = new Map<string, Set<() => void>>();
  const wakeHere = (requestId: string) => {
    const set = waiters.get(requestId);
    if (!set) return;
    waiters.delete(requestId);
    for (const fn of set) fn();
  };
  const notifications = core.deps.notifications;
  // Every replica's decisions arrive here (this one's too); a lost notification leaves the once-a-second re-read.
  notifications?.listen(LOGIN_DECIDED_CHANNEL, wakeHere).catch(() => {});
  /** Inside the deciding transaction: the notification goes out when (and only if) it commits. */
  const wake = async (requestId: string): Promise<void> => {
    if (!notifications) return wakeHere(requestId);
    await notifications.notify(LOGIN_DECIDED_CHANNEL, requestId).catch(() => wakeHere(requestId));
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

  async function newLogin(input: {
    kind: 'browser' | 'terminal';
    row: AccountRow | undefined;
    category: string | null;
    usable: boolean;
    ip: string;
    context: unknown;
    terminal: unknown;
    secret: string | null;
  }) {
    const at = now();
    const id = crypto.randomUUID();
    const comparison = sixDigits();
    const sub = input.usable && input.row ? input.row.sub : null;
    await store.insertLogin({
      id,
      kind: input.kind,
      sub,
      category: input.category,
      secret_hash: input.secret === null ? null : sha256(input.secret),
      challenge: crypto.randomBytes(24).toString('base64url'),
      comparison,
      epoch: sub ? input.row!.epoch : null,
      context: sub && input.context != null ? JSON.stringify(input.context) : null,
      start_ip: input.ip,
      terminal: input.terminal == null ? null : JSON.stringify(input.terminal),
      created_at: at,
      expires_at: at + L.loginLifetimeSeconds * 1000,
    });
    return { id, comparison, expiresAt: at + L.loginLifetimeSeconds * 1000 };
  }

  /** Whether a login request may be used by an account now (device, account, category, epoch). */
  async function usableLogin(r: LoginRow): Promise<AccountRow | null> {
    if (!r.sub || !r.device_id) return null;
    const device = await store.getDevice(r.device_id);
    if (!device || device.revoked_at !== null || device.sub !== r.sub) return null;
    const row = await accountStore.getAccount(r.sub);
    if (!row || !(await maySignIn(row)) || row.epoch !== r.epoch) return null;
    if (r.category !== null && accountCategory({ kind: 'person', profile: row.profile }) !== r.category) return null;
    return row;
  }

  /** Accounts that may start a sign-in by approval: may sign in, have an active device, below the outstanding limit. */
  async function approvable(row: AccountRow | undefined, category: string | null): Promise<boolean> {
    // The same statements run for every identifier (a throw-away subject stands in for an unknown account), so the
    // work done does not reveal whether an account exists, may sign in or has a device.
    const sub = row?.sub ?? crypto.randomUUID();
    const devices = await store.countActiveDevices(sub);
    const outstanding = await store.outstandingLogins(sub, now());
    if (!row || !(await maySignIn(row))) return false;
    if (category !== null && accountCategory({ kind: 'person', profile: row.profile }) !== category) return false;
    return devices > 0 && outstanding < L.outstandingLoginsPerAccount;
  }

  return { wake, waitFor, newLogin, usableLogin, approvable };
}

export type SignInRequests = ReturnType<typeof createSignInRequests>;

/** The core store's channel of decided sign-in requests (the payload is the request id). */
export const LOGIN_DECIDED_CHANNEL = 'hearth_identity_login_decided';
