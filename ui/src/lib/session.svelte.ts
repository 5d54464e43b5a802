/**
 * The signed-in admin token. Kept in sessionStorage (this tab only) or, with "Remember on this
 * device", in localStorage. A 401 from any call signs out and leaves a message for the sign-in page.
 */
import { credentials } from './api/client.ts';
import { connectDesktopSession } from './desktop.ts';

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
  /** Shown on the sign-in page after an involuntary sign-out. */
  notice = $state<string | null>(null);
  readonly signedIn = $derived(this.token !== null);

  constructor() {
    credentials.token = this.token;
    credentials.onUnauthorized(() => {
      if (this.token !== null) this.signOut('Your session has ended: the server no longer accepts this token. Sign in again.');
    });
  }

  signIn(token: string, remember: boolean): void {
    clearAll();
    try {
      (remember ? localStorage : sessionStorage).setItem(KEY, token);
    } catch {
      // storage unavailable: the token lives in memory for this page only
    }
    this.notice = null;
    this.token = token;
    credentials.token = token;
  }

  signOut(notice: string | null = null): void {
    clearAll();
    this.token = null;
    credentials.token = null;
    this.notice = notice;
  }
}

export const session = new Session();
connectDesktopSession(session);
