/**
 * What the parts of the sign-in page share: one "busy" flag (a sign-in in flight disables every other way), the
 * page-level message (an error with its request id, or an info line), and the last step of every account sign-in.
 */

import { logout as logoutCall, type SessionAccount } from '../../lib/api/auth.ts';
import { ApiError, describeError, NetworkError } from '../../lib/api/client.ts';
import { session } from '../../lib/session.svelte.ts';

export type FormError = { message: string; requestId: string | null };

export class SignInState {
  busy = $state(false);
  formError = $state<FormError | null>(null);
  info = $state<string | null>(null);

  /** A new attempt: the messages of the last one go. */
  reset(): void {
    this.formError = null;
    this.info = null;
    session.notice = null;
  }

  /** Signed in on the server: an administrator enters the admin UI; any other account is signed out again. */
  async enter(account: SessionAccount): Promise<void> {
    if (!account.admin) {
      await logoutCall().catch(() => undefined);
      this.formError = { message: 'This account is not an administrator: the admin UI needs an administrator account or an admin API token.', requestId: null };
      return;
    }
    session.signInAccount(account);
  }
}

export function toFormError(err: unknown): FormError {
  if (err instanceof ApiError) return { message: err.message, requestId: err.requestId };
  if (err instanceof NetworkError) return { message: err.message, requestId: null };
  return { message: describeError(err), requestId: null };
}

/** The sentence for a 429 `rate_limited` (with its `Retry-After`, when the server said). */
export function retryText(seconds: number | null): string {
  if (seconds === null) return 'Too many failed attempts. Wait a minute, then try again.';
  if (seconds <= 60) return `Too many failed attempts. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
  const minutes = Math.ceil(seconds / 60);
  return `Too many failed attempts. Try again in ${minutes} minutes.`;
}
