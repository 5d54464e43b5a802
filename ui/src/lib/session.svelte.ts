/**
 * Who is signed in. Two kinds of session:
 * - an account (login + password): the server keeps it in the HttpOnly `hearth_session` cookie, so calls carry no
 *   Authorization header; on load `GET /api/auth/session` tells whether the cookie is still good;
 * - an admin API token, kept in sessionStorage (this tab only) or, with "Remember on this device", in localStorage.
 * A 401 from any call signs out and leaves a message for the sign-in page.
 */

import { currentSession, logout, type SessionAccount } from './api/auth.ts';
import { credentials } from './api/client.ts';
import { connectDesktopSession } from './desktop.ts';
import { toasts } from './toasts.svelte.ts';

const KEY = 'hearth.admin-token';

function read(storage: () => Storage): string | null {
  try {
    return storage().getItem(KEY);
  } catch {
    return null;
  }
}

function clearAll(): void {
  for (const storage of [() => sessionStorage, () => localStorage]) {
    try {
      storage().removeItem(KEY);
    } catch {
      // storage unavailable (private mode): nothing to clear
    }
  }
}

class Session {
  token = $state<string | null>(read(() => sessionStorage) ?? read(() => localStorage));
  /** The signed-in account (cookie session), or null. */
  account = $state<SessionAccount | null>(null);
  /** True while the page asks the server whether a session cookie is still good. */
  checking = $state(false);
  /** Shown on the sign-in page after an involuntary sign-out. */
  notice = $state<string | null>(null);
  /** How the user signed in last: the sign-in page opens on that form again. */
  lastMethod = $state<'account' | 'token'>('account');
  readonly signedIn = $derived(this.token !== null || this.account !== null);
  /** The sign-out call in flight: a new sign-in waits for it, so its cookie-clearing answer cannot land last. */
  private loggingOut: Promise<void> = Promise.resolve();

  whenSignedOut(): Promise<void> {
    return this.loggingOut;
  }

  constructor() {
    credentials.token = this.token;
    if (this.token !== null) this.lastMethod = 'token';
    credentials.onUnauthorized(() => {
      if (this.token !== null) this.signOut('Your session has ended: the server no longer accepts this token. Sign in again.');
      else if (this.account !== null) this.signOut('Your session has ended. Sign in again.');
    });
    if (this.token === null) void this.restore();
  }

  /** Picks up an account session from its cookie (a reload, a new tab). */
  private async restore(): Promise<void> {
    this.checking = true;
    try {
      const current = await currentSession();
      if (this.token === null && current.account.admin) this.account = current.account;
    } catch {
      // no session (401) or the server is unreachable: the sign-in page shows
    } finally {
      this.checking = false;
    }
  }

  signIn(token: string, remember: boolean): void {
    clearAll();
    try {
      (remember ? localStorage : sessionStorage).setItem(KEY, token);
    } catch {
      // storage unavailable: the token lives in memory for this page only
    }
    this.notice = null;
    this.account = null;
    this.lastMethod = 'token';
    this.token = token;
    credentials.token = token;
  }

  /** After `POST /api/auth/login` set the session cookie. */
  signInAccount(account: SessionAccount): void {
    clearAll();
    this.notice = null;
    this.token = null;
    credentials.token = null;
    this.lastMethod = 'account';
    this.account = account;
  }

  /** Signs out at once (and clears the notices); an account session is also ended on the server (unless it already ended there). */
  signOut(notice: string | null = null): void {
    if (this.account !== null && notice === null) {
      this.loggingOut = logout().catch(() => {
        // already signed out, or the server is unreachable: the cookie expires on its own
      });
    }
    clearAll();
    this.token = null;
    this.account = null;
    credentials.token = null;
    this.notice = notice;
    toasts.clear();
  }
}

export const session = new Session();
connectDesktopSession(session);
