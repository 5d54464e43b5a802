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
  /** Every hold subscribed to a request id; a decision calls them all (each hold removes itself when released). */
  const holders = new Map<string, Set<() => void>>();
  const wakeHere = (requestId: string) => {
    for (const fn of holders.get(requestId) ?? []) fn();
  };
  const notifications = core.deps.notifications;
  // Every replica's decisions arrive here (this one's too); a lost notification leaves the once-a-second re-read.
  const listening: Promise<void> = notifications
    ? notifications.listen(LOGIN_DECIDED_CHANNEL, wakeHere).then(
        () => {},
        () => {},
      )
    : Promise.resolve();
  /** Inside the deciding transaction: the notification goes out when (and only if) it commits. */
  const wake = async (requestId: string): Promise<void> => {
    if (!notifications) return wakeHere(requestId);
    await notifications.notify(LOGIN_DECIDED_CHANNEL, requestId).catch(() => wakeHere(requestId));
  };

  const observers = new Set<(e: HoldEvent) => void>();
  const report = (e: HoldEvent) => {
    for (const fn of observers) fn(e);
  };

  /**
   * A hold on one request's decision, subscribed from the moment it is made: a decision that commits while the holder
   * reads the row (before its first wait, or between two) ends its next wait at once instead of being missed.
   * `wait` answers what ended it; `ended` reports how the hold ended (test observability); `release` unsubscribes.
   */
  function hold(requestId: string) {
    let woken = false;
    let waiting: (() => void) | null = null;
    let waited = false;
    const fn = () => {
      woken = true;
      waiting?.();
    };
    let set = holders.get(requestId);
    if (!set) holders.set(requestId, (set = new Set()));
    set.add(fn);
    const subscribed = set;
    return {
      wait(ms: number, signal: AbortSignal): Promise<'woken' | 'timer' | 'aborted'> {
        if (!waited) {
          waited = true;
          report({ requestId, event: 'held' });
        }
        if (woken) {
          woken = false;
          return Promise.resolve('woken');
        }
        if (signal.aborted) return Promise.resolve('aborted');
        return new Promise((resolve) => {
          const end = (why: 'woken' | 'timer' | 'aborted') => {
            clearTimeout(timer);
            signal.removeEventListener('abort', onAbort);
            waiting = null;
            woken = false;
            resolve(why);
          };
          const onAbort = () => end('aborted');
          const timer = setTimeout(() => end('timer'), Math.max(0, ms));
          signal.addEventListener('abort', onAbort);
          waiting = () => end('woken');
        });
      },
      ended(how: Exclude<HoldEvent['event'], 'held'>) {
        if (waited) report({ requestId, event: how });
      },
      release() {
        subscribed.delete(fn);
        if (subscribed.size === 0 && holders.get(requestId) === subscribed) holders.delete(requestId);
      },
    };
  }
  /** Waits up to `ms` for a decision on `requestId` (a hold of its own, released after). */
  const waitFor = async (requestId: string, ms: number, signal: AbortSignal) => {
    const h = hold(requestId);
    try {
      return await h.wait(ms, signal);
    } finally {
      h.release();
    }
  };
  /** Test observability: what the holds of this process report, and whether it listens for other replicas' decisions. */
  const observability = {
    /** Calls `fn` when a held `/login/status` starts waiting (`held`) and when the hold ends (how); returns the unsubscribe. */
    observeHolds(fn: (e: HoldEvent) => void): () => void {
      observers.add(fn);
      return () => void observers.delete(fn);
    },
    /** Resolves once decisions of other replicas reach this process (the core store's notifications are listened to). */
    listening,
  };

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

  return { wake, hold, waitFor, observability, newLogin, usableLogin, approvable };
}

export type SignInRequests = ReturnType<typeof createSignInRequests>;

/**
 * What a held `/login/status` reports (test observability): `held` once its first read found the request pending and
 * it waits; then how it ended: `woken` by a decision (in this process, or another replica's through the core store's
 * notifications), `recheck` (the once-a-second re-read found the decision: another process sharing the data folder),
 * `timeout` (held for `pollAfterSeconds` or until expiry, still undecided), `gone` (the client went away).
 */
export type HoldEvent = { requestId: string; event: 'held' | 'woken' | 'recheck' | 'timeout' | 'gone' };

/** The core store's channel of decided sign-in requests (the payload is the request id). */
export const LOGIN_DECIDED_CHANNEL = 'hearth_identity_login_decided';
