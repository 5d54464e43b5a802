/**
 * Account categories, which decide the platform credential flows an account may use. Browser-safe: no imports, no
 * I/O, so the UI can share it.
 * - `login`: a local full account (profile `user`), signs in with Hearth's own credentials;
 * - `guest`: a local account with the `guest` profile;
 * - `freeipa`: reserved for accounts from a FreeIPA directory; nothing produces it yet.
 * Service accounts (resource-bound, for applications) have no category: they never use credential flows.
 */
export const ACCOUNT_CATEGORIES = ['login', 'guest', 'freeipa'] as const;
export type AccountCategory = (typeof ACCOUNT_CATEGORIES)[number];

/** What categorization looks at; an account as presented by the API satisfies it. */
export interface CategorizedAccount {
  kind?: 'person' | 'service';
  profile: 'user' | 'guest';
  /** Where the account comes from; only `local` exists now. */
  source?: 'local' | 'freeipa';
}

/** The account's category, or null for a service account (no credential flows). */
export function accountCategory(user: CategorizedAccount): AccountCategory | null {
  if (user.kind === 'service') return null;
  if (user.source === 'freeipa') return 'freeipa';
  return user.profile === 'guest' ? 'guest' : 'login';
}

/** A human label for the account's category; `loginLabel` names local full accounts (e.g. "Hearth account"). */
export function accountCategoryLabel(user: CategorizedAccount, loginLabel: string): string {
  switch (accountCategory(user)) {
    case 'login':
      return loginLabel;
    case 'guest':
      return 'Guest';
    case 'freeipa':
      return 'Directory account (FreeIPA)';
    default:
      return 'Service account';
  }
}
