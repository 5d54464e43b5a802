import crypto from 'node:crypto';
import type { z } from 'zod';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import {
  AccountCategoryPolicy,
  type CreateAccountBody,
  type CreateGroupBody,
  type CreateServiceAccountBody,
  type UpdateAccountBody,
  type UpdateGroupBody,
} from './accounts.schemas.ts';
import type { AccountChanges, AccountRow, AccountStore, GroupRow, ServiceAccountRow } from './accounts.store.ts';
import { type AccountCategory, accountCategory, type CategorizedAccount } from './categories.ts';

const POLICY_SETTING = 'account_category_policy';
/** Used while no policy is stored: local accounts of both profiles; the reserved directory category is off. */
export const DEFAULT_ACCOUNT_CATEGORY_POLICY: AccountCategoryPolicy = { allowedCategories: ['login', 'guest'] };

export interface Actor {
  actor: string;
  requestId?: string | null;
}
export interface Paging {
  page: number;
  per_page: number;
  search?: string;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function presentAccount(r: AccountRow) {
  return {
    sub: r.sub,
    kind: 'person' as const,
    login: r.login!,
    email: r.email,
    displayName: r.display_name,
    profile: r.profile,
    admin: r.admin === 1,
    disabled: r.disabled === 1,
    expiresAt: iso(r.expires_at),
    epoch: r.epoch,
    category: accountCategory({ kind: 'person', profile: r.profile }) as AccountCategory,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}
export type Account = ReturnType<typeof presentAccount>;

export function presentServiceAccount(r: ServiceAccountRow) {
  return {
    sub: r.sub,
    kind: 'service' as const,
    appId: r.app_id,
    resourceType: r.resource_type,
    resourceId: r.resource_id,
    displayName: r.display_name,
    createdAt: iso(r.created_at)!,
    updatedAt: iso(r.updated_at)!,
  };
}
export type ServiceAccount = ReturnType<typeof presentServiceAccount>;

export function presentGroup(g: GroupRow) {
  return { id: g.id, name: g.name, description: g.description, createdAt: iso(g.created_at)!, updatedAt: iso(g.updated_at)! };
}

/** What credential-flow checks need of an account: an `Account` as presented, or a row-like shape. */
export interface PolicySubject extends CategorizedAccount {
  disabled: boolean;
  expiresAt: string | number | null;
}

export interface AccountHooks {
  /** Inside the account's transaction after a person account is created or updated; throwing undoes the change. */
  personWritten?(before: AccountRow | null, after: AccountRow, a: Actor): void;
  /** Inside the group's transaction: why no group may take `name` (e.g. a Linux private group has it), or null. */
  groupNameTaken?(name: string): string | null;
}

export function createAccountsService(deps: { store: AccountStore; audit: AuditLog; now?: () => number; hooks?: AccountHooks }) {
  const { store, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  const personRow = (sub: string): AccountRow => {
    const row = store.getAccount(sub);
    if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
    return row;
  };
  const groupRow = (id: string): GroupRow => {
    const row = store.getGroup(id);
    if (!row) throw new HearthError('group_not_found', `no group with id ${id}`);
    return row;
  };
  const checkLogin = (login: string, self?: string) => {
    const other = store.findSubByLogin(login);
    if (other !== undefined && other !== self) throw new HearthError('login_taken', `login "${login}" is already taken`);
  };
  const emailKey = (email: string | null | undefined) => (email ? email.toLowerCase() : null);
  const checkEmail = (key: string | null, self?: string) => {
    if (key === null) return;
    const other = store.findSubByEmailKey(key);
    if (other !== undefined && other !== self) throw new HearthError('email_taken', 'another account already uses this email address');
  };
  const page = <T>(p: Paging, count: number, data: T[]) => ({ data, page: p.page, per_page: p.per_page, total: count });
  /** A group name is taken by another group, or by a Linux private group (seed 001: conflicts are refused, never adopted). */
  const checkGroupName = (name: string) => {
    if (store.findGroupIdByName(name) !== undefined) throw new HearthError('group_exists', `a group named "${name}" already exists`);
    const why = deps.hooks?.groupNameTaken?.(name);
    if (why) throw new HearthError('group_exists', why);
  };

  function groupDetail(g: GroupRow) {
    return {
      ...presentGroup(g),
      members: {
        accounts: store.memberAccounts(g.id).map((m) => ({ sub: m.sub, login: m.login, displayName: m.display_name, kind: m.kind })),
        groups: store.memberGroups(g.id),
      },
    };
  }

  function readAccountCategoryPolicy(): { policy: AccountCategoryPolicy; valid: boolean } {
    const raw = store.getSetting(POLICY_SETTING);
    if (raw === undefined) return { policy: DEFAULT_ACCOUNT_CATEGORY_POLICY, valid: true };
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      json = undefined;
    }
    const parsed = AccountCategoryPolicy.safeParse(json);
    // Fails closed: an unreadable policy allows no category until an administrator replaces it.
    return parsed.success ? { policy: parsed.data, valid: true } : { policy: { allowedCategories: [] }, valid: false };
  }

  return {
    // ---- accounts ----
    listAccounts(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, store.countAccounts(p.search), store.listAccounts(p.search, p.per_page, offset).map(presentAccount));
    },
    getAccount(sub: string) {
      return { ...presentAccount(personRow(sub)), groups: store.memberships(sub) };
    },
    /** Direct and transitive (nested) groups of an account. */
    memberships(sub: string) {
      return store.memberships(sub);
    },
    createAccount(input: z.infer<typeof CreateAccountBody>, a: Actor): Account {
      const sub = crypto.randomUUID();
      const at = now();
      const key = emailKey(input.email);
      const row = store.transaction(() => {
        checkLogin(input.login);
        checkEmail(key);
        store.insertAccount({
          sub,
          kind: 'person',
          login: input.login,
          email: input.email ?? null,
          email_key: key,
          display_name: input.displayName ?? '',
          profile: input.profile,
          admin: input.admin ? 1 : 0,
          disabled: input.disabled ? 1 : 0,
          expires_at: input.expiresAt ? Date.parse(input.expiresAt) : null,
          created_at: at,
        });
        record(a, 'account.create', sub, { login: input.login, profile: input.profile, admin: input.admin });
        const created = store.getAccount(sub)!;
        deps.hooks?.personWritten?.(null, created, a);
        return created;
      });
      return presentAccount(row);
    },
    updateAccount(sub: string, input: z.infer<typeof UpdateAccountBody>, a: Actor): Account {
      const row = store.transaction(() => {
        const before = personRow(sub);
        const changes: AccountChanges = {};
        if (input.login !== undefined && input.login !== before.login) {
          checkLogin(input.login, sub);
          changes.login = input.login;
        }
        if (input.email !== undefined && input.email !== before.email) {
          changes.email = input.email;
          changes.email_key = emailKey(input.email);
          checkEmail(changes.email_key, sub);
        }
        if (input.displayName !== undefined && input.displayName !== before.display_name) changes.display_name = input.displayName;
        if (input.profile !== undefined && input.profile !== before.profile) changes.profile = input.profile;
        if (input.admin !== undefined && (input.admin ? 1 : 0) !== before.admin) changes.admin = input.admin ? 1 : 0;
        if (input.expiresAt !== undefined) {
          const exp = input.expiresAt === null ? null : Date.parse(input.expiresAt);
          if (exp !== before.expires_at) changes.expires_at = exp;
        }
        const disabling = input.disabled === true && before.disabled === 0;
        const enabling = input.disabled === false && before.disabled === 1;
        if (disabling || enabling) changes.disabled = disabling ? 1 : 0;
        const fields = Object.keys(changes).filter((k) => k !== 'email_key' && k !== 'disabled');
        if (fields.length === 0 && !disabling && !enabling) return before;
        const at = now();
        const wasUsableAdmin = before.admin === 1 && before.disabled === 0 && (before.expires_at === null || before.expires_at > at);
        store.updateAccount(sub, changes, at);
        if (wasUsableAdmin && store.countUsableAdmins(at) === 0) {
          throw new HearthError('last_admin', `${before.login} is the last administrator who can sign in: make another account an administrator first`);
        }
        if (fields.length > 0) {
          record(a, 'account.update', sub, { login: changes.login ?? before.login, fields, ...(changes.login ? { previousLogin: before.login } : {}) });
        }
        if (disabling) {
          // A disabled account keeps no session.
          store.bumpEpoch(sub, at);
          record(a, 'account.disable', sub, { login: changes.login ?? before.login });
        }
        if (enabling) record(a, 'account.enable', sub, { login: changes.login ?? before.login });
        const after = store.getAccount(sub)!;
        deps.hooks?.personWritten?.(before, after, a);
        return after;
      });
      return presentAccount(row);
    },
    deleteAccount(sub: string, a: Actor): void {
      store.transaction(() => {
        const before = personRow(sub);
        store.deleteAccount(sub);
        if (before.admin === 1 && before.disabled === 0 && store.countUsableAdmins(now()) === 0) {
          throw new HearthError('last_admin', `${before.login} is the last administrator who can sign in: make another account an administrator first`);
        }
        record(a, 'account.delete', sub, { login: before.login });
      });
    },
    /** Revokes every session of the account (user-epoch revocation): sessions carry the epoch they were issued under. */
    revokeSessions(sub: string, a: Actor): Account {
      const row = store.transaction(() => {
        personRow(sub);
        store.bumpEpoch(sub, now());
        const after = store.getAccount(sub)!;
        record(a, 'account.revoke_sessions', sub, { login: after.login, epoch: after.epoch });
        return after;
      });
      return presentAccount(row);
    },

    // ---- groups ----
    listGroups(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, store.countGroups(p.search), store.listGroups(p.search, p.per_page, offset).map(presentGroup));
    },
    getGroup: (id: string) => groupDetail(groupRow(id)),
    createGroup(input: z.infer<typeof CreateGroupBody>, a: Actor) {
      const id = crypto.randomUUID();
      return store.transaction(() => {
        checkGroupName(input.name);
        store.insertGroup({ id, name: input.name, description: input.description, at: now() });
        record(a, 'group.create', id, { name: input.name });
        return groupDetail(store.getGroup(id)!);
      });
    },
    updateGroup(id: string, input: z.infer<typeof UpdateGroupBody>, a: Actor) {
      return store.transaction(() => {
        const before = groupRow(id);
        if (input.name !== undefined && input.name !== before.name) checkGroupName(input.name);
        const fields = (['name', 'description'] as const).filter((f) => input[f] !== undefined && input[f] !== before[f]);
        if (fields.length > 0) {
          store.updateGroup(id, input, now());
          record(a, 'group.update', id, { name: input.name ?? before.name, fields, ...(fields.includes('name') ? { previousName: before.name } : {}) });
        }
        return groupDetail(store.getGroup(id)!);
      });
    },
    deleteGroup(id: string, a: Actor): void {
      store.transaction(() => {
        const before = groupRow(id);
        store.deleteGroup(id);
        record(a, 'group.delete', id, { name: before.name });
      });
    },
    /** Adds an account or a nested group; adding a group to itself or to one of its own descendants is `group_cycle`. */
    addMember(id: string, member: { account?: string; group?: string }, a: Actor) {
      return store.transaction(() => {
        const g = groupRow(id);
        const at = now();
        if (member.account !== undefined) {
          const acc = store.getAccount(member.account);
          if (!acc) throw new HearthError('account_not_found', `no account with sub ${member.account}`);
          if (store.addAccountMember(id, acc.sub, at)) record(a, 'group.member.add', id, { group: g.name, account: acc.sub, login: acc.login });
        } else {
          const child = groupRow(member.group!);
          if (store.groupContains(child.id, id)) {
            throw new HearthError(
              'group_cycle',
              child.id === id
                ? 'a group cannot contain itself'
                : `group "${child.name}" already contains "${g.name}" (directly or nested): adding it would create a cycle`,
            );
          }
          if (store.addGroupMember(id, child.id, at)) record(a, 'group.member.add', id, { group: g.name, memberGroup: child.id, memberGroupName: child.name });
        }
        return groupDetail(g);
      });
    },
    removeMember(id: string, member: { account?: string; group?: string }, a: Actor) {
      return store.transaction(() => {
        const g = groupRow(id);
        if (member.account !== undefined) {
          if (store.removeAccountMember(id, member.account)) record(a, 'group.member.remove', id, { group: g.name, account: member.account });
        } else if (store.removeGroupMember(id, member.group!)) {
          record(a, 'group.member.remove', id, { group: g.name, memberGroup: member.group });
        }
        return groupDetail(g);
      });
    },

    // ---- resource-bound service accounts ----
    listServiceAccounts(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, store.countServiceAccounts(p.search), store.listServiceAccounts(p.search, p.per_page, offset).map(presentServiceAccount));
    },
    /** The service account bound to an application's resource, if any (for OAuth client credentials). */
    findServiceAccount(binding: { appId: string; resourceType: string; resourceId: string }): ServiceAccount | null {
      const row = store.findServiceAccount(binding);
      return row ? presentServiceAccount(row) : null;
    },
    getServiceAccount(sub: string): ServiceAccount | null {
      const row = store.getServiceAccount(sub);
      return row ? presentServiceAccount(row) : null;
    },
    createServiceAccount(input: z.infer<typeof CreateServiceAccountBody>, a: Actor): ServiceAccount {
      const sub = crypto.randomUUID();
      const binding = { appId: input.appId, resourceType: input.resourceType, resourceId: input.resourceId };
      const row = store.transaction(() => {
        if (store.findServiceAccount(binding)) {
          throw new HearthError('service_account_exists', `a service account for ${input.appId} ${input.resourceType} ${input.resourceId} already exists`);
        }
        store.insertAccount({
          sub,
          kind: 'service',
          login: null,
          email: null,
          email_key: null,
          display_name: input.displayName ?? `${input.appId}: ${input.resourceType} ${input.resourceId}`,
          profile: 'user',
          admin: 0,
          disabled: 0,
          expires_at: null,
          created_at: now(),
        });
        store.insertBinding({ sub, ...binding });
        record(a, 'service_account.create', sub, binding);
        return store.getServiceAccount(sub)!;
      });
      return presentServiceAccount(row);
    },
    deleteServiceAccount(sub: string, a: Actor): void {
      store.transaction(() => {
        const before = store.getServiceAccount(sub);
        if (!before) throw new HearthError('service_account_not_found', `no service account with sub ${sub}`);
        store.deleteAccount(sub);
        record(a, 'service_account.delete', sub, { appId: before.app_id, resourceType: before.resource_type, resourceId: before.resource_id });
      });
    },

    // ---- account-category policy ----
    /** The stored policy (or the default when none is stored); an invalid stored policy reads as allowing nothing. */
    readAccountCategoryPolicy,
    replaceAccountCategoryPolicy(policy: AccountCategoryPolicy, a: Actor) {
      store.transaction(() => {
        store.putSetting(POLICY_SETTING, JSON.stringify(policy), now());
        record(a, 'account_policy.update', POLICY_SETTING, { allowedCategories: policy.allowedCategories });
      });
      return readAccountCategoryPolicy();
    },
    /**
     * Server-only: whether the account's category may use platform credential flows now. False for service accounts,
     * disabled or expired accounts and under an invalid stored policy. It does not replace authentication or resource authorization.
     */
    isAccountCategoryAllowed(user: PolicySubject): boolean {
      const category = accountCategory(user);
      if (category === null || user.disabled) return false;
      if (user.expiresAt !== null) {
        const exp = typeof user.expiresAt === 'number' ? user.expiresAt : Date.parse(user.expiresAt);
        if (!(exp > now())) return false;
      }
      const { policy, valid } = readAccountCategoryPolicy();
      return valid && policy.allowedCategories.includes(category);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
