import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from '../../../../server/core/contract.ts';
import type { ServiceAccount } from '../../lib/api/identity.ts';

/** What a service account can reach, in words: the database's namespaces by name, other resources as their application names them. */
export function serviceAccountReach(sa: Pick<ServiceAccount, 'appId' | 'resourceType' | 'resourceId'>): string {
  if (sa.appId === DATABASE_APP_ID && sa.resourceType === NAMESPACE_RESOURCE) return `Database namespace “${sa.resourceId}”`;
  return `${sa.resourceType} “${sa.resourceId}” of ${sa.appId}`;
}

/**
 * OAuth scopes in words: a short name for lists and a sentence for the client form. The scope itself (`offline_access`)
 * is shown behind "Details" or beside the words, never instead of them.
 */
export const SCOPE_WORDS: Record<string, { short: string; help: string }> = {
  openid: { short: 'Sign-in', help: 'Sign people in (OpenID Connect ID token)' },
  profile: { short: 'Name', help: 'Their name and login' },
  email: { short: 'Email', help: 'Their email address' },
  groups: { short: 'Groups', help: 'Their group memberships' },
  offline_access: { short: 'Stay signed in', help: 'Refresh tokens: stay signed in without asking again' },
  read: { short: 'Read data', help: 'Read data through Hearth APIs' },
  write: { short: 'Change data', help: 'Change data through Hearth APIs' },
  admin: { short: 'Administer Hearth', help: 'Administer Hearth' },
};

export const scopeWords = (scope: string): string => SCOPE_WORDS[scope]?.short ?? scope;
