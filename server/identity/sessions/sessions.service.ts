/**
 * Password sign-in and platform sessions: an HttpOnly cookie, and sensitive actions need a session issued within the
 * last ten minutes (`RECENT_AUTH_MS`).
 *
 * - The cookie `hearth_session` holds `<familyId>.<secret>`: an opaque value looked up server-side (only the SHA-256
 *   of the secret is stored), so revocation is immediate and validation needs no signature check.
 * - Each sign-in creates a session family row (`sub`, account `epoch` at issue, `issued_at`, `last_seen`,
 *   `revoked_at`). A request is accepted only while the family is live and unexpired (12 hours), the account exists,
 *   its `epoch` still equals the one at issue (user-epoch revocation) and `isAccountCategoryAllowed` (not disabled,
 *   not expired, category allowed).
 * - State-changing requests authenticated by the cookie need the exact platform `Origin`.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import type { AuditLog } from '../../core/audit/audit.ts';
import type { Principal, SessionInfo } from '../../core/auth/tokens.service.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { badRequest, HearthError, quoteInput } from '../../core/http/errors.ts';
import { CreateAccountBody } from '../accounts/accounts.schemas.ts';
import { type AccountsService, type Actor, presentAccount } from '../accounts/accounts.service.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyDummy, verifyPassword } from './passwords.ts';
import { createFailureLimiter } from './rate-limit.ts';
import type { SessionFamilyRow, SessionStore } from './sessions.store.ts';

export const SESSION_COOKIE = 'hearth_session';
/**
 * Browser recognition for the sign-in context: a random id set on the first successful sign-in of a browser and sent
 * again (same value) on each later one; HttpOnly, SameSite=Lax, Secure on https, one year. Not a credential.
 */
export const BROWSER_COOKIE = 'hearth_browser';
const BROWSER_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
const BROWSER_ID = /^[A-Za-z0-9_-]{43}$/;
/** Absolute lifetime of a session family. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** "Recent authentication": a session issued within this long may perform sensitive actions. */
export const RECENT_AUTH_MS = 10 * 60 * 1000;
/** Sign-in failures allowed per client IP per window before 429. */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_MS = 60_000;
/** Wrong current passwords allowed per account per window on `PUT /api/auth/password` before 429. */
export const PASSWORD_CHANGE_FAILURE_LIMIT = 5;
const TOUCH_INTERVAL_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const COOKIE_VALUE = /^([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/;

export const Password = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .meta({ description: `A password of ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters.` });

/** What a session adds to its principal. */
export type { SessionInfo };

const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
const invalidCredentials = () => new HearthError('invalid_credentials', 'the login or password is wrong, or the account may not sign in');

/** Parses outside a route's schema (the CLI): the first issue becomes 400 `invalid_request`. */
function valid<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  throw badRequest(`${i.path.length ? i.path.join('.') : what}: ${i.message}`);
}

function cookieOf(header: string, name = SESSION_COOKIE): string | null {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** State-changing browser requests (cookie writes, the sign-in and consent forms) need this platform's exact Origin. */
export function requirePlatformOrigin(ctx: AppContext, issuer: string): void {
  const origin = ctx.get('origin');
  if (origin !== issuer) {
    throw new HearthError(
      'origin_mismatch',
      origin ? wrongOrigin(origin, issuer) : 'a state-changing browser request needs the Origin header of this platform',
    );
  }
}

/**
 * The message for a browser at another address than the public one: where to go instead, and how to change the
 * public address when that one is wrong for the office (`HEARTH_PUBLIC_URL`).
 */
export function wrongOrigin(origin: string, issuer: string): string {
  return `the Origin ${quoteInput(origin)} is not this platform's origin: open Hearth at ${issuer} (if people reach it at another address, set HEARTH_PUBLIC_URL to that address)`;
}

export function presentSessionAccount(row: AccountRow) {
  return { sub: row.sub, login: row.login!, displayName: row.display_name, admin: row.admin === 1 };
}

export function createSessionsService(deps: {
  store: SessionStore;
  accountStore: AccountStore;
  accounts: AccountsService;
  audit: AuditLog;
  /** The platform's public origin (HEARTH_PUBLIC_URL or the listening address). */
  issuer: () => string;
  now?: () => number;
  /** A security notice to the account's email address (set after construction by the identity domain). */
  notice?: { send(sub: string, subject: string, text: string): void };
  /** Called after every successful sign-in (the sign-in history of the login context). */
  onSignedIn?: (info: { sub: string; browserId: string; ip: string; at: number }) => Promise<void>;
}) {
  const { store, accountStore, accounts, audit } = deps;
  const now = deps.now ?? Date.now;
  const limiter = createFailureLimiter({ limit: LOGIN_FAILURE_LIMIT, windowMs: LOGIN_FAILURE_WINDOW_MS, now });
  // Wrong current passwords are counted per account, apart from sign-in failures per address: a signed-in person
  // mistyping cannot lock the office's shared address out of signing in, and cannot guess without limit either.
  const passwordLimiter = createFailureLimiter({ limit: PASSWORD_CHANGE_FAILURE_LIMIT, windowMs: LOGIN_FAILURE_WINDOW_MS, now });
  /** The signed-in account's own password (change, re-authentication): wrong ones count per account, then 429. */
  async function checkOwnPassword(sub: string, password: string): Promise<void> {
    const wait = passwordLimiter.retryAfter(sub);
    if (wait > 0) throw new HearthError('rate_limited', 'too many failed attempts; try again later', { headers: { 'Retry-After': String(wait) } });
    const stored = await store.getPassword(sub);
    const ok = stored ? await verifyPassword(password, stored) : await verifyDummy(password);
    if (!ok) {
      passwordLimiter.fail(sub);
      throw invalidCredentials();
    }
  }
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  const personByLogin = async (login: string): Promise<AccountRow | undefined> => {
    const sub = await accountStore.findSubByLogin(login);
    const row = sub === undefined ? undefined : await accountStore.getAccount(sub);
    return row && row.kind === 'person' ? row : undefined;
  };
  const allowed = (row: AccountRow) => accounts.isAccountCategoryAllowed(presentAccount(row));

  /** The family and account behind a cookie value, or null when any check fails. */
  async function validate(value: string): Promise<{ family: SessionFamilyRow; account: AccountRow } | null> {
    const m = COOKIE_VALUE.exec(value);
    if (!m) return null;
    const family = await store.getFamily(m[1]!);
    if (!family || family.revoked_at !== null) return null;
    const given = Buffer.from(sha256(m[2]!), 'hex');
    if (!crypto.timingSafeEqual(given, Buffer.from(family.secret_hash, 'hex'))) return null;
    const at = now();
    if (family.expires_at <= at) return null;
    const account = await accountStore.getAccount(family.sub);
    if (account?.kind !== 'person' || account.epoch !== family.epoch || !(await allowed(account))) return null;
    if (at - family.last_seen >= TOUCH_INTERVAL_MS) await store.touch(family.id, at);
    return { family, account };
  }

  function principalOf(family: SessionFamilyRow, account: AccountRow): Principal {
    const session: SessionInfo = { sub: account.sub, login: account.login!, familyId: family.id, issuedAt: family.issued_at };
    const base = { tokenId: `session:${family.id}`, name: account.login!, session };
    return account.admin === 1 ? { kind: 'admin', ...base } : { kind: 'namespaces', ...base, namespaces: [], readOnly: true };
  }

  const checkOrigin = (ctx: AppContext) => requirePlatformOrigin(ctx, deps.issuer());

  function cookieHeader(value: string, maxAgeS: number, name = SESSION_COOKIE): string {
    const secure = deps.issuer().startsWith('https:') ? '; Secure' : '';
    return `${name}=${value}; Path=/; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure}`;
  }

  /** The request's `hearth_browser` id, or null (absent or malformed). */
  function browserId(ctx: AppContext): string | null {
    const v = cookieOf(ctx.get('cookie'), BROWSER_COOKIE);
    return v !== null && BROWSER_ID.test(v) ? v : null;
  }

  async function current(ctx: AppContext) {
    const value = cookieOf(ctx.get('cookie'));
    if (value === null) return { present: false as const, session: null };
    return { present: true as const, session: await validate(value) };
  }

  const clientIp = (ctx: AppContext) => ctx.ip || 'unknown';

  async function startSession(row: AccountRow, requestId: string, method: string) {
    const at = now();
    const id = crypto.randomBytes(16).toString('base64url');
    const secret = crypto.randomBytes(32).toString('base64url');
    await store.transaction(async () => {
      await store.purge(at - 24 * 60 * 60 * 1000);
      await store.insertFamily({ id, sub: row.sub, secret_hash: sha256(secret), epoch: row.epoch, issued_at: at, expires_at: at + SESSION_LIFETIME_MS });
      await record({ actor: `account:${row.login}`, requestId }, 'session.login', row.sub, {
        login: row.login,
        session: id,
        ...(method === 'password' ? {} : { method }),
      });
    });
    return { account: presentSessionAccount(row), setCookie: cookieHeader(`${id}.${secret}`, SESSION_LIFETIME_MS / 1000) };
  }

  async function storePassword(password: string): Promise<string> {
    return hashPassword(valid(Password, password, 'password'));
  }

  return {
    /** True while no person account exists (first run). */
    needsSetup: async () => (await store.countPersons()) === 0,

    /** Creates the first administrator with a password; 409 `already_set_up` once any account exists. */
    async setup(input: { login: string; password: string; displayName?: string; email?: string | null }, a: Actor) {
      if ((await store.countPersons()) > 0) throw new HearthError('already_set_up', 'Hearth is already set up: an account exists');
      const body = valid(
        CreateAccountBody,
        { login: input.login, displayName: input.displayName, email: input.email, admin: true, profile: 'user' },
        'account',
      );
      const hash = await storePassword(input.password);
      return store.transaction(async () => {
        if ((await store.countPersons()) > 0) throw new HearthError('already_set_up', 'Hearth is already set up: an account exists');
        const account = await accounts.createAccount(body, a);
        await store.putPassword(account.sub, hash, now());
        await record(a, 'setup.complete', account.sub, { login: account.login });
        return account;
      });
    },

    /** Sets an account's password (administration); every other session of the account ends. */
    async setPassword(sub: string, password: string, a: Actor, keepFamily: string | null = null) {
      const hash = await storePassword(password);
      await store.transaction(async () => {
        const row = await accountStore.lockAccount(sub);
        if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
        await store.putPassword(sub, hash, now());
        const ended = await store.revokeAll(sub, now(), 'password', keepFamily);
        await record(a, 'account.password.set', sub, { login: row.login, endedSessions: ended });
      });
      deps.notice?.send(
        sub,
        'Your Hearth password was changed',
        'The password of your Hearth account was changed, and every other sign-in of the account was ended.',
      );
    },

    /** The signed-in account changes its own password, proving the current one; its other sessions end. */
    async changeOwnPassword(session: SessionInfo, current: string, next: string, _ip: string, a: Actor) {
      await checkOwnPassword(session.sub, current);
      const hash = await storePassword(next);
      await store.transaction(async () => {
        await store.putPassword(session.sub, hash, now());
        const ended = await store.revokeAll(session.sub, now(), 'password', session.familyId);
        await record(a, 'account.password.change', session.sub, { login: session.login, endedSessions: ended });
      });
      deps.notice?.send(session.sub, 'Your Hearth password was changed', 'You changed the password of your Hearth account; your other sign-ins were ended.');
    },

    /**
     * Re-authentication of a live session with its account's password: the session counts as signed in now again
     * (recent authentication for sensitive actions), keeping its cookie. A wrong password is 401
     * `invalid_credentials` and counts against the same per-account budget as a password change (429).
     */
    async reauthenticate(session: SessionInfo, password: string, a: Actor) {
      await checkOwnPassword(session.sub, password);
      return this.confirmedRecently(session, 'password', a);
    },

    /** The session's account proved itself again (its password, or one of its passkeys): it counts as signed in now. */
    async confirmedRecently(session: SessionInfo, method: 'password' | 'passkey', a: Actor) {
      const at = now();
      await store.transaction(async () => {
        if (!(await store.reauthenticated(session.familyId, at)))
          throw new HearthError('unauthorized', 'the session has ended (signed out, revoked or expired): sign in again');
        await record(a, 'session.reauthenticate', session.sub, { login: session.login, session: session.familyId, method });
      });
      return { issuedAt: at, recentAuthUntil: at + RECENT_AUTH_MS };
    },

    /**
     * Password sign-in. Every refusal (unknown login, wrong password, no password, disabled, expired, category not
     * allowed) is the same 401 `invalid_credentials` after the same Argon2 work; 10 failures a minute per IP → 429.
     */
    async login(login: string, password: string, ip: string, requestId: string) {
      const wait = limiter.retryAfter(ip);
      if (wait > 0) throw new HearthError('rate_limited', 'too many failed sign-in attempts; try again later', { headers: { 'Retry-After': String(wait) } });
      const row = typeof login === 'string' ? await personByLogin(login) : undefined;
      const stored = row ? await store.getPassword(row.sub) : undefined;
      const ok = stored ? await verifyPassword(password, stored) : await verifyDummy(password);
      // Re-read after the (slow) hash: the account may have changed meanwhile.
      const fresh = row ? await accountStore.getAccount(row.sub) : undefined;
      if (!ok || !fresh || !(await allowed(fresh))) {
        limiter.fail(ip);
        throw invalidCredentials();
      }
      return startSession(fresh, requestId, 'password');
    },

    /** A new session family for an account that proved itself another way (a passkey); `method` goes to the audit entry. */
    startSession: (row: AccountRow, requestId: string, method: string) => startSession(row, requestId, method),
    /**
     * Finishes a successful sign-in on the response: the session cookie, the `hearth_browser` cookie (a new id when
     * the browser has none; the same id with a fresh year otherwise), and the sign-in history (`onSignedIn`).
     */
    async signedIn(ctx: AppContext, r: { account: { sub: string }; setCookie: string }): Promise<void> {
      const id = browserId(ctx) ?? crypto.randomBytes(32).toString('base64url');
      ctx.append('Set-Cookie', [r.setCookie, cookieHeader(id, BROWSER_COOKIE_MAX_AGE_S, BROWSER_COOKIE)]);
      await deps.onSignedIn?.({ sub: r.account.sub, browserId: id, ip: clientIp(ctx), at: now() });
    },
    /** The request's `hearth_browser` id (browser recognition for the sign-in context), or null. */
    browserId,
    /** The per-address sign-in failure budget, for other sign-in methods. */
    signInLimiter: {
      check(ip: string): void {
        const wait = limiter.retryAfter(ip);
        if (wait > 0) throw new HearthError('rate_limited', 'too many failed sign-in attempts; try again later', { headers: { 'Retry-After': String(wait) } });
      },
      fail: (ip: string) => limiter.fail(ip),
    },
    /** Whether the account may sign in now (exists as a person, not disabled or expired, category allowed). */
    maySignIn: async (row: AccountRow | undefined): Promise<boolean> => !!row && row.kind === 'person' && (await allowed(row)),

    /** Ends the request's session family (when it has a valid one) and returns the header that clears the cookie. */
    async logout(ctx: AppContext): Promise<string> {
      const c = await current(ctx);
      if (c.session) {
        checkOrigin(ctx);
        await store.revoke(c.session.family.id, now(), 'logout');
        await record({ actor: `account:${c.session.account.login}`, requestId: ctx.state.requestId }, 'session.logout', c.session.account.sub, {
          login: c.session.account.login,
          session: c.session.family.id,
        });
      }
      return cookieHeader('', 0);
    },

    /** The request's valid session, or null. */
    async current(ctx: AppContext) {
      const c = await current(ctx);
      if (!c.session) return null;
      const { family, account } = c.session;
      return {
        account: presentSessionAccount(account),
        session: { issuedAt: family.issued_at, expiresAt: family.expires_at, recentAuth: now() - family.issued_at < RECENT_AUTH_MS },
      };
    },

    clearCookie: () => cookieHeader('', 0),

    /** For the OAuth authorization endpoint: the request's valid session family and account, or null. */
    async sessionView(ctx: AppContext): Promise<{ familyId: string; issuedAt: number; account: AccountRow } | null> {
      const c = await current(ctx);
      return c.session ? { familyId: c.session.family.id, issuedAt: c.session.family.issued_at, account: c.session.account } : null;
    },

    /**
     * For the authenticator: the session principal, or null when no session cookie was sent. An invalid cookie is
     * 401; a state-changing request without the exact platform Origin is 403 `origin_mismatch`.
     */
    async authenticate(ctx: AppContext): Promise<Principal | null> {
      const c = await current(ctx);
      if (!c.present) return null;
      if (!c.session) throw new HearthError('unauthorized', 'the session has ended (signed out, revoked or expired): sign in again');
      if (!SAFE_METHODS.has(ctx.method)) checkOrigin(ctx);
      return principalOf(c.session.family, c.session.account);
    },

    /** True when the request's session was issued within ten minutes; bearer tokens are not sessions (false). */
    isRecentAuth(ctx: AppContext): boolean {
      const s = ctx.state.principal?.session;
      return !!s && now() - s.issuedAt < RECENT_AUTH_MS;
    },

    /** Sensitive actions: true when the session was issued within ten minutes, otherwise 403 `recent_auth_required`. */
    requireRecentAuth(ctx: AppContext): true {
      const s = ctx.state.principal?.session;
      if (!s || now() - s.issuedAt >= RECENT_AUTH_MS) {
        throw new HearthError(
          'recent_auth_required',
          'this action needs a sign-in within the last ten minutes: confirm your password (POST /api/auth/reauth) or a passkey, or sign in again',
        );
      }
      return true;
    },

    /** The client IP for rate limiting (the socket address: Hearth does not trust forwarded headers). */
    clientIp,
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
