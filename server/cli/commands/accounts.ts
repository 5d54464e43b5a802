import type { Command } from 'commander';
import { registerGroups } from './accounts/groups.ts';
import { registerServiceAccounts } from './accounts/service-accounts.ts';
import { registerUsers } from './accounts/users.ts';

/**
 * `hearth accounts users|groups|service-accounts …`: the accounts admin API (`/api/admin/core/…`) of a running server,
 * one file per resource under accounts/. Users are named by login or sub, groups by name or id; both are resolved to
 * their ids before anything changes.
 */
export function registerAccounts(accounts: Command): void {
  registerUsers(accounts);
  registerGroups(accounts);
  registerServiceAccounts(accounts);
}
