/**
 * Browser sign-in by approval in the authenticator app: `/login/start` always
 * answers the same shape (unknown, disabled, ambiguous, unpaired and over-capacity accounts get a request that is
 * never approved, after equal work), `/login/status` holds a pending request until the app decides, it expires or
 * `pollAfterSeconds` pass (a decision in this process wakes it; one in another process on the same data folder is
 * seen within a second; the answer is always re-read from the database), and `/login/complete` starts the session
 * once and atomically.
 */
import crypto from 'node:crypto';
import { HearthError } from '../../core/http/errors.ts';
import { type ApprovalCore, err, iso, L, sameHash } from './approval.core.ts';
import type { LoginRow } from './approval.store.ts';
import type { SignInRequests } from './sign-in-requests.ts';

/** A held `/login/status` re-reads its row this often, for decisions made by another process. */
const HELD_RECHECK_MS = 1000;

export function createBrowserLogin(core: ApprovalCore, requests: SignInRequests) {
  const { deps, store, now, readable, findAccount, loginState } = core;

  const login = {
    async startLogin(input: { identifier: string; category: string; ip: string; userAgent: string; browserId: string | null }) {
      const row = await findAccount(input.identifier);
      const usable = await requests.approvable(row, input.category);
      let context: unknown = null;
      if (deps.loginContext) {
        // Computed for every request (a throw-away subject when nobody could approve it, then discarded), so the time
        // taken does not tell eligible accounts from others.
        try {
          const computed = await deps.loginContext.compute({
            sub: usable ? row!.sub : crypto.randomUUID(),
            userAgent: input.userAgent,
            ip: input.ip,
            browserId: input.browserId,
            at: now(),
          });
          if (usable) context = computed;
        } catch (e) {
          deps.logger.warn({ err: (e as Error).message }, 'the sign-in context could not be computed');
        }
      }
      const secret = crypto.randomBytes(32).toString('base64url');
      const r = await store.transaction(async () => {
        // Checked again inside the transaction, for every identifier (no short-circuit: the same statements run).
        const still = await requests.approvable(row, input.category);
        return requests.newLogin({ kind: 'browser', row, category: input.category, usable: usable && still, ip: input.ip, context, terminal: null, secret });
      });
      return { requestId: r.id, browserSecret: secret, comparison: r.comparison, expiresAt: iso(r.expiresAt), pollAfterSeconds: L.pollAfterSeconds };
    },

    /** The request behind a browser secret (404 otherwise, also past the readable window). */
    async browserLogin(requestId: string, secret: string, lock = false): Promise<LoginRow> {
      const r = await store.getLogin(requestId, lock);
      if (r?.kind !== 'browser' || !readable(r.expires_at) || !sameHash(secret, r.secret_hash)) throw err.notFound('the sign-in request');
      return r;
    },

    async loginStatus(requestId: string, secret: string, signal: AbortSignal) {
      // Held until decided, expired or pollAfterSeconds: a decision in this process, or in another replica on
      // PostgreSQL (the core store's notifications), wakes it at once; one made by another process sharing the data
      // folder (the CLI, a second server on SQLite) is seen by re-reading the row each second. Subscribed before the
      // first read, so a decision that commits during a read is not missed until the next re-read.
      const hold = requests.hold(requestId);
      try {
        let r = await login.browserLogin(requestId, secret);
        const until = Math.min(now() + L.pollAfterSeconds * 1000, r.expires_at);
        let last: 'woken' | 'timer' | 'aborted' | null = null;
        while (loginState(r) === 'pending' && !signal.aborted && now() < until) {
          last = await hold.wait(Math.min(HELD_RECHECK_MS, until - now()), signal);
          r = (await store.getLogin(requestId)) ?? r;
        }
        if (last) hold.ended(last === 'woken' ? 'woken' : signal.aborted ? 'gone' : r.state !== 'pending' ? 'recheck' : 'timeout');
        return { state: loginState(r), expiresAt: iso(r.expires_at), pollAfterSeconds: L.pollAfterSeconds };
      } finally {
        hold.release();
      }
    },

    /** Completes an approved browser sign-in once; the session cookie header, or an error. */
    completeLogin(requestId: string, secret: string, httpRequestId: string) {
      return store.transaction(async () => {
        const r = await login.browserLogin(requestId, secret, true);
        const state = loginState(r);
        if (state === 'consumed') throw new HearthError('login_consumed', 'this sign-in request was already used: start a new sign-in');
        if (state !== 'approved') throw new HearthError('login_not_approved', `this sign-in request is ${state}`);
        const row = await requests.usableLogin(r);
        if (!row)
          throw new HearthError(
            'login_refused',
            'this sign-in can no longer complete (the device was revoked, or the account changed or may not sign in): start a new sign-in',
          );
        if (!(await store.consumeLogin(r.id, now()))) throw new HearthError('login_consumed', 'this sign-in request was already used: start a new sign-in');
        return deps.sessions.startSession(row, httpRequestId, 'app-approval');
      });
    },
  };
  return login;
}

export type BrowserLogin = ReturnType<typeof createBrowserLogin>;
