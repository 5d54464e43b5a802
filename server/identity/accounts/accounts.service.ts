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
  personWritten?(before: AccountRow | null, after: AccountRow, a: Actor): Promise<void>;
  /** Inside the group's transaction: why no group may take `name` (e.g. a Linux private group has it), or null. */
  groupNameTaken?(name: string): Promise<string | null>;
}

export function createAccountsService(deps: { store: AccountStore; audit: AuditLog; now?: () => number; hooks?: AccountHooks }) {
  const { store, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  /** A person account; `lock` inside a transaction that changes it (row-locked until it ends). */
  const personRow = async (sub: string, lock = false): Promise<AccountRow> => {
    const row = await (lock ? store.lockAccount(sub) : store.getAccount(sub));
    if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
    return row;
  };
  const groupRow = async (id: string, lock = false): Promise<GroupRow> => {
    const row = await (lock ? store.lockGroup(id) : store.getGroup(id));
    if (!row) throw new HearthError('group_not_found', `no group with id ${id}`);
    return row;
  };
  const checkLogin = async (login: string, self?: string) => {
    const other = await store.findSubByLogin(login);
    if (other !== undefined && other !== self) throw new HearthError('login_taken', `login "${login}" is already taken`);
  };
  const emailKey = (email: string | null | undefined) => (email ? email.toLowerCase() : null);
  const checkEmail = async (key: string | null, self?: string) => {
    if (key === null) return;
    const other = await store.findSubByEmailKey(key);
    if (other !== undefined && other !== self) throw new HearthError('email_taken', 'another account already uses this email address');
  };
  const page = <T>(p: Paging, count: number, data: T[]) => ({ data, page: p.page, per_page: p.per_page, total: count });
  /** A group name is taken by another group, or by a Linux private group (a conflict is refused, never adopted). */
  const checkGroupName = async (name: string) => {
    if ((await store.findGroupIdByName(name)) !== undefined) throw new HearthError('group_exists', `a group named "${name}" already exists`);
    const why = await deps.hooks?.groupNameTaken?.(name);
    if (why) throw new HearthError('group_exists', why);
  };

  async function groupDetail(g: GroupRow) {
    return {
      ...presentGroup(g),
      members: {
        accounts: (await store.memberAccounts(g.id)).map((m) => ({ sub: m.sub, login: m.login, displayName: m.display_name, kind: m.kind })),
        groups: await store.memberGroups(g.id),
      },
    };
  }

  async function readAccountCategoryPolicy(): Promise<{ policy: AccountCategoryPolicy; valid: boolean }> {
    const raw = await store.getSetting(POLICY_SETTING);
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
    async listAccounts(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, await store.countAccounts(p.search), (await store.listAccounts(p.search, p.per_page, offset)).map(presentAccount));
    },
    async getAccount(sub: string) {
      return { ...presentAccount(await personRow(sub)), groups: await store.memberships(sub) };
    },
    /** Direct and transitive (nested) groups of an account. */
    memberships(sub: string) {
      return store.memberships(sub);
    },
    async createAccount(input: z.infer<typeof CreateAccountBody>, a: Actor): Promise<Account> {
      const sub = crypto.randomUUID();
      const at = now();
      const key = emailKey(input.email);
      const row = await store.transaction(async () => {
        await checkLogin(input.login);
        await checkEmail(key);
        await store.insertAccount({
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
        await record(a, 'account.create', sub, { login: input.login, profile: input.profile, admin: input.admin });
        const created = (await store.getAccount(sub))!;
        await deps.hooks?.personWritten?.(null, created, a);
        return created;
      });
      return presentAccount(row);
    },
    async updateAccount(sub: string, input: z.infer<typeof UpdateAccountBody>, a: Actor): Promise<Account> {
      const row = await store.transaction(async () => {
        // The usable administrators are locked first (the last-administrator rule between replicas), then the account.
        await store.lockUsableAdmins(now());
        const before = await personRow(sub, true);
        const changes: AccountChanges = {};
        if (input.login !== undefined && input.login !== before.login) {
          await checkLogin(input.login, sub);
          changes.login = input.login;
        }
        if (input.email !== undefined && input.email !== before.email) {
          changes.email = input.email;
          changes.email_key = emailKey(input.email);
          await checkEmail(changes.email_key, sub);
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
        await store.updateAccount(sub, changes, at);
        if (wasUsableAdmin && (await store.countUsableAdmins(at)) === 0) {
          throw new HearthError('last_admin', `${before.login} is the last administrator who can sign in: make another account an administrator first`);
        }
        if (fields.length > 0) {
          await record(a, 'account.update', sub, { login: changes.login ?? before.login, fields, ...(changes.login ? { previousLogin: before.login } : {}) });
        }
        if (disabling) {
          // A disabled account keeps no session.
          await store.bumpEpoch(sub, at);
          await record(a, 'account.disable', sub, { login: changes.login ?? before.login });
        }
        if (enabling) await record(a, 'account.enable', sub, { login: changes.login ?? before.login });
        const after = (await store.getAccount(sub))!;
        await deps.hooks?.personWritten?.(before, after, a);
        return after;
      });
      return presentAccount(row);
    },
    async deleteAccount(sub: string, a: Actor): Promise<void> {
      await store.transaction(async () => {
        await store.lockUsableAdmins(now());
        const before = await personRow(sub, true);
        await store.deleteAccount(sub);
        if (before.admin === 1 && before.disabled === 0 && (await store.countUsableAdmins(now())) === 0) {
          throw new HearthError('last_admin', `${before.login} is the last administrator who can sign in: make another account an administrator first`);
        }
        await record(a, 'account.delete', sub, { login: before.login });
      });
    },
    /** Revokes every session of the account (user-epoch revocation): sessions carry the epoch they were issued under. */
    async revokeSessions(sub: string, a: Actor): Promise<Account> {
      const row = await store.transaction(async () => {
        await personRow(sub, true);
        await store.bumpEpoch(sub, now());
        const after = (await store.getAccount(sub))!;
        await record(a, 'account.revoke_sessions', sub, { login: after.login, epoch: after.epoch });
        return after;
      });
      return presentAccount(row);
    },

    // ---- groups ----
    async listGroups(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, await store.countGroups(p.search), (await store.listGroups(p.search, p.per_page, offset)).map(presentGroup));
    },
    getGroup: async (id: string) => groupDetail(await groupRow(id)),
    createGroup(input: z.infer<typeof CreateGroupBody>, a: Actor) {
      const id = crypto.randomUUID();
      return store.transaction(async () => {
        await checkGroupName(input.name);
        await store.insertGroup({ id, name: input.name, description: input.description, at: now() });
        await record(a, 'group.create', id, { name: input.name });
        return groupDetail((await store.getGroup(id))!);
      });
    },
    updateGroup(id: string, input: z.infer<typeof UpdateGroupBody>, a: Actor) {
      return store.transaction(async () => {
        const before = await groupRow(id, true);
        if (input.name !== undefined && input.name !== before.name) await checkGroupName(input.name);
        const fields = (['name', 'description'] as const).filter((f) => input[f] !== undefined && input[f] !== before[f]);
        if (fields.length > 0) {
          await store.updateGroup(id, input, now());
          await record(a, 'group.update', id, { name: input.name ?? before.name, fields, ...(fields.includes('name') ? { previousName: before.name } : {}) });
        }
        return groupDetail((await store.getGroup(id))!);
      });
    },
    async deleteGroup(id: string, a: Actor): Promise<void> {
      await store.transaction(async () => {
        const before = await groupRow(id, true);
        await store.deleteGroup(id);
        await record(a, 'group.delete', id, { name: before.name });
      });
    },
    /** Adds an account or a nested group; adding a group to itself or to one of its own descendants is `group_cycle`. */
    addMember(id: string, member: { account?: string; group?: string }, a: Actor) {
      return store.transaction(async () => {
        const g = await groupRow(id, true);
        const at = now();
        if (member.account !== undefined) {
          const acc = await store.getAccount(member.account);
          if (!acc) throw new HearthError('account_not_found', `no account with sub ${member.account}`);
          if (await store.addAccountMember(id, acc.sub, at)) await record(a, 'group.member.add', id, { group: g.name, account: acc.sub, login: acc.login });
        } else {
          const child = await groupRow(member.group!);
          if (await store.groupContains(child.id, id)) {
            throw new HearthError(
              'group_cycle',
              child.id === id
                ? 'a group cannot contain itself'
                : `group "${child.name}" already contains "${g.name}" (directly or nested): adding it would create a cycle`,
            );
          }
          if (await store.addGroupMember(id, child.id, at))
            await record(a, 'group.member.add', id, { group: g.name, memberGroup: child.id, memberGroupName: child.name });
        }
        return groupDetail(g);
      });
    },
    removeMember(id: string, member: { account?: string; group?: string }, a: Actor) {
      return store.transaction(async () => {
        const g = await groupRow(id, true);
        if (member.account !== undefined) {
          if (await store.removeAccountMember(id, member.account)) await record(a, 'group.member.remove', id, { group: g.name, account: member.account });
        } else if (await store.removeGroupMember(id, member.group!)) {
          await record(a, 'group.member.remove', id, { group: g.name, memberGroup: member.group });
        }
        return groupDetail(g);
      });
    },

    // ---- resource-bound service accounts ----
    async listServiceAccounts(p: Paging) {
      const offset = (p.page - 1) * p.per_page;
      return page(p, await store.countServiceAccounts(p.search), (await store.listServiceAccounts(p.search, p.per_page, offset)).map(presentServiceAccount));
    },
    /** The service account bound to an application's resource, if any (for OAuth client credentials). */
    async findServiceAccount(binding: { appId: string; resourceType: string; resourceId: string }): Promise<ServiceAccount | null> {
      const row = await store.findServiceAccount(binding);
      return row ? presentServiceAccount(row) : null;
    },
    async getServiceAccount(sub: string): Promise<ServiceAccount | null> {
      const row = await store.getServiceAccount(sub);
      return row ? presentServiceAccount(row) : null;
    },
    async createServiceAccount(input: z.infer<typeof CreateServiceAccountBody>, a: Actor): Promise<ServiceAccount> {
      const sub = crypto.randomUUID();
      const binding = { appId: input.appId, resourceType: input.resourceType, resourceId: input.resourceId };
      const row = await store.transaction(async () => {
        if (await store.findServiceAccount(binding)) {
          throw new HearthError('service_account_exists', `a service account for ${input.appId} ${input.resourceType} ${input.resourceId} already exists`);
        }
        await store.insertAccount({
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
        await store.insertBinding({ sub, ...binding });
        await record(a, 'service_account.create', sub, binding);
        return (await store.getServiceAccount(sub))!;
      });
      return presentServiceAccount(row);
    },
    async deleteServiceAccount(sub: string, a: Actor): Promise<void> {
      await store.transaction(async () => {
        const before = await store.getServiceAccount(sub);
        if (!before) throw new HearthError('service_account_not_found', `no service account with sub ${sub}`);
        if (!(await store.deleteAccount(sub))) throw new HearthError('service_account_not_found', `no service account with sub ${sub}`);
        await record(a, 'service_account.delete', sub, { appId: before.app_id, resourceType: before.resource_type, resourceId: before.resource_id });
      });
    },

    // ---- account-category policy ----
    /** The stored policy (or the default when none is stored); an invalid stored policy reads as allowing nothing. */
    readAccountCategoryPolicy,
    async replaceAccountCategoryPolicy(policy: AccountCategoryPolicy, a: Actor) {
      await store.transaction(async () => {
        await store.putSetting(POLICY_SETTING, JSON.stringify(policy), now());
        await record(a, 'account_policy.update', POLICY_SETTING, { allowedCategories: policy.allowedCategories });
      });
      return readAccountCategoryPolicy();
    },
    /**
     * Server-only: whether the account's category may use platform credential flows now. False for service accounts,
     * disabled or expired accounts and under an invalid stored policy. It does not replace authentication or resource authorization.
     */
    async isAccountCategoryAllowed(user: PolicySubject): Promise<boolean> {
      const category = accountCategory(user);
      if (category === null || user.disabled) return false;
      if (user.expiresAt !== null) {
        const exp = typeof user.expiresAt === 'number' ? user.expiresAt : Date.parse(user.expiresAt);
        if (!(exp > now())) return false;
      }
      const { policy, valid } = await readAccountCategoryPolicy();
      return valid && policy.allowedCategories.includes(category);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
