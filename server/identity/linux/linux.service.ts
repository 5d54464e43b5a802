/**
 * Linux identity assignment: a UID, a private primary group (GID), a home path and a
 * login shell for local full accounts. Identity data only: no login, no files, no sudo.
 *
 * Hearth's own choices (docs/api/linux-identities.md):
 * - UIDs and GIDs share one pool (the configured range); an identity's private group gets the same number as its
 *   UID (one number per identity), a POSIX group its own number. A number is never handed out twice, even after the
 *   account or group is gone.
 * - The username is the login at assignment time and does not follow later renames (reported as a conflict).
 * - FreeIPA is not part of Hearth: there is no directory inventory, so its range check passes trivially.
 */
import { z } from 'zod';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import type { LinuxIdentityRow, LinuxStore, PreviewRow } from './linux.store.ts';

export const CONFIG_SETTING = 'linux.identity_config';
export const FIRST_ID = 1000;
export const MAX_ID = 2147483647;
export const PAGE_SIZE = 50;

const Path = (what: string) =>
  z
    .string()
    .min(2, `${what} must be an absolute path`)
    .max(255, `${what} must be at most 255 characters`)
    .refine((p) => p.startsWith('/'), `${what} must be an absolute path`)
    .refine((p) => !/[:\x00-\x1f\x7f]/.test(p), `${what} must not contain ":" or control characters`);
const Id = (what: string) =>
  z.number().int(`${what} must be an integer`).min(FIRST_ID, `${what} must be at least ${FIRST_ID}`).max(MAX_ID, `${what} must be at most ${MAX_ID}`);

export const LinuxConfig = z
  .object({
    enabled: z.boolean(),
    rangeStart: Id('rangeStart').nullable(),
    rangeEnd: Id('rangeEnd').nullable(),
    homeTemplate: Path('homeTemplate')
      .refine((t) => !/\{(?!username\})/.test(t), 'homeTemplate may only use the {username} placeholder')
      .default('/home/{username}'),
    loginShell: Path('loginShell').default('/bin/bash'),
  })
  .strict()
  .superRefine((c, ctx) => {
    if ((c.rangeStart === null) !== (c.rangeEnd === null))
      ctx.addIssue({ code: 'custom', path: ['rangeEnd'], message: 'rangeStart and rangeEnd are set together' });
    if (c.rangeStart !== null && c.rangeEnd !== null && c.rangeStart > c.rangeEnd)
      ctx.addIssue({ code: 'custom', path: ['rangeEnd'], message: 'rangeEnd must not be below rangeStart' });
    if (c.enabled && c.rangeStart === null)
      ctx.addIssue({ code: 'custom', path: ['rangeStart'], message: 'enabling needs a reserved range (rangeStart, rangeEnd)' });
  })
  .meta({ id: 'LinuxIdentityConfig' });
export type LinuxConfig = z.infer<typeof LinuxConfig>;

export const DEFAULT_CONFIG: LinuxConfig = { enabled: false, rangeStart: null, rangeEnd: null, homeTemplate: '/home/{username}', loginShell: '/bin/bash' };

export function presentIdentity(r: Pick<LinuxIdentityRow, 'username' | 'uid' | 'gid' | 'home_directory' | 'login_shell'>) {
  return { username: r.username, uid: r.uid, gid: r.gid, primaryGroup: r.username, homeDirectory: r.home_directory, loginShell: r.login_shell };
}

export function createLinuxService(deps: { store: LinuxStore; accountStore: AccountStore; audit: AuditLog; now?: () => number }) {
  const { store, accountStore, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail, requestId: a.requestId ?? null });

  async function readConfig(): Promise<{ config: LinuxConfig; valid: boolean }> {
    const raw = await accountStore.getSetting(CONFIG_SETTING);
    if (raw === undefined) return { config: DEFAULT_CONFIG, valid: true };
    try {
      const parsed = LinuxConfig.safeParse(JSON.parse(raw));
      if (parsed.success) return { config: parsed.data, valid: true };
    } catch {
      /* fall through: fails closed */
    }
    return { config: { ...DEFAULT_CONFIG, enabled: false }, valid: false };
  }

  const eligible = (row: Pick<AccountRow, 'kind' | 'profile'>) => row.kind === 'person' && row.profile === 'user';

  async function conflictsOf(row: Pick<AccountRow, 'sub' | 'login'>, identity: LinuxIdentityRow | undefined): Promise<string[]> {
    const out: string[] = [];
    if (identity) {
      if (identity.username !== row.login) out.push(`username_differs: the identity keeps the username ${identity.username} from before a rename`);
      return out;
    }
    const other = await store.subByUsername(row.login!);
    if (other !== undefined && other !== row.sub) out.push(`username_taken: another identity already uses the username ${row.login}`);
    // Group names and private group names are one namespace: any group (POSIX or not, as it may become one) counts.
    if ((await accountStore.findGroupIdByName(row.login!)) !== undefined)
      out.push(`group_name_taken: a group is named ${row.login}, the name of the private group this identity needs`);
    return out;
  }

  async function personRow(sub: string, lock = false): Promise<AccountRow> {
    const row = await (lock ? accountStore.lockAccount(sub) : accountStore.getAccount(sub));
    if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
    return row;
  }

  /** Inside the caller's transaction: assigns an identity, or throws (the transaction then commits nothing). */
  async function assignInTx(row: AccountRow, a: Actor): Promise<LinuxIdentityRow> {
    const { config } = await readConfig();
    if (!config.enabled || config.rangeStart === null || config.rangeEnd === null)
      throw new HearthError('linux_disabled', 'Linux identity assignment is not enabled');
    const conflicts = await conflictsOf(row, undefined);
    if (conflicts.length > 0) throw new HearthError('linux_conflict', `cannot assign a Linux identity to ${row.login}: ${conflicts.join('; ')}`);
    await store.lockNumbers();
    const n = await store.nextNumber(config.rangeStart, config.rangeEnd);
    if (n === null) throw new HearthError('linux_range_exhausted', `the Linux ID range ${config.rangeStart}–${config.rangeEnd} has no unused number left`);
    const at = now();
    await store.takeNumber(n, 'user', row.sub, at);
    const identity: LinuxIdentityRow = {
      sub: row.sub,
      username: row.login!,
      uid: n,
      gid: n,
      home_directory: config.homeTemplate.replaceAll('{username}', row.login!),
      login_shell: config.loginShell,
      created_at: at,
      updated_at: at,
    };
    await store.insertIdentity(identity);
    await record(a, 'linux.identity.assign', row.sub, {
      login: row.login,
      uid: n,
      gid: n,
      homeDirectory: identity.home_directory,
      loginShell: identity.login_shell,
    });
    return identity;
  }

  async function view(row: AccountRow | PreviewRow, identity: LinuxIdentityRow | undefined) {
    return {
      sub: row.sub,
      login: row.login!,
      profile: row.profile,
      disabled: row.disabled === 1,
      eligible: eligible({ kind: 'person', profile: row.profile }),
      identity: identity ? presentIdentity(identity) : null,
      conflicts: await conflictsOf(row, identity),
    };
  }

  return {
    readConfig,

    replaceConfig(config: LinuxConfig, rangeReserved: boolean, a: Actor) {
      if (config.enabled && !rangeReserved) {
        throw new HearthError(
          'range_not_confirmed',
          'enabling Linux identities needs rangeReserved: true — confirm the range is reserved for Hearth on every machine that uses these identities',
        );
      }
      return store.transaction(async () => {
        const before = (await readConfig()).config;
        await accountStore.putSetting(CONFIG_SETTING, JSON.stringify(config), now());
        await record(a, 'linux.config.update', CONFIG_SETTING, { before, after: config });
        return { config };
      });
    },

    /**
     * For the accounts service, inside its transaction: a local full account gets an identity when it is created,
     * or when a guest becomes a full account, while assignment is enabled. Failure fails the account change.
     */
    async onPersonWritten(before: AccountRow | null, after: AccountRow, a: Actor): Promise<void> {
      if (!eligible(after) || (before !== null && eligible(before))) return;
      if (!(await readConfig()).config.enabled) return;
      if (await store.getIdentity(after.sub)) return;
      await assignInTx(after, a);
    },

    async preview(p: { after?: string; search?: string; scope?: 'all' | 'ready' }) {
      const rows = await store.preview({
        after: p.after ?? null,
        search: p.search ? p.search.toLowerCase() : null,
        ready: p.scope === 'ready',
        limit: PAGE_SIZE + 1,
      });
      const more = rows.length > PAGE_SIZE;
      const page = rows.slice(0, PAGE_SIZE);
      const { config, valid } = await readConfig();
      return {
        config,
        configValid: valid,
        accounts: await Promise.all(
          page.map((r) =>
            view(
              r,
              r.uid === null
                ? undefined
                : {
                    sub: r.sub,
                    username: r.username!,
                    uid: r.uid,
                    gid: r.gid!,
                    home_directory: r.home_directory!,
                    login_shell: r.login_shell!,
                    created_at: 0,
                    updated_at: 0,
                  },
            ),
          ),
        ),
        nextCursor: more ? page[page.length - 1]!.sub : null,
      };
    },

    async get(sub: string) {
      const row = await personRow(sub);
      return view(row, await store.getIdentity(sub));
    },

    /** Backfill one account: idempotent (an existing identity is returned as it is). */
    prepare(sub: string, a: Actor) {
      return store.transaction(async () => {
        const row = await personRow(sub, true);
        if (!eligible(row)) throw new HearthError('linux_not_eligible', `${row.login} is a guest: only local full accounts get Linux identities`);
        const existing = await store.getIdentity(sub);
        if (existing) return { ...(await view(row, existing)), created: false };
        const identity = await assignInTx(row, a);
        return { ...(await view(row, identity)), created: true };
      });
    },

    update(sub: string, input: { homeDirectory: string; loginShell: string }, a: Actor) {
      return store.transaction(async () => {
        const row = await personRow(sub, true);
        if (!eligible(row)) throw new HearthError('linux_not_eligible', `${row.login} is a guest: only local full accounts have Linux identities`);
        const identity = await store.getIdentity(sub);
        if (!identity) throw new HearthError('linux_identity_not_found', `${row.login} has no Linux identity yet: prepare it first`);
        await store.updateIdentity(sub, input.homeDirectory, input.loginShell, now());
        await record(a, 'linux.identity.update', sub, { login: row.login, homeDirectory: input.homeDirectory, loginShell: input.loginShell });
        return view(row, await store.getIdentity(sub));
      });
    },

    /**
     * For the accounts service, inside its transaction: why no group may be named `name` — it is the private group of
     * an identity (identities keep their username, and so their private group, after a rename) — or null.
     */
    async groupNameTaken(name: string): Promise<string | null> {
      const sub = await store.subByUsername(name);
      if (sub === undefined) return null;
      const identity = (await store.getIdentity(sub))!;
      const login = (await accountStore.getAccount(sub))?.login ?? name;
      return `${quoteInput(name)} is the private Linux group of account ${login} (GID ${identity.gid}): a group cannot take its name`;
    },

    /** Every group with a GID. */
    listPosixGroups: async () => ({ data: await store.posixGroups() }),

    /** Gives an existing group a GID (idempotent); it grants nothing (no sudo). */
    makePosix(groupId: string, a: Actor) {
      return store.transaction(async () => {
        const group = await accountStore.lockGroup(groupId);
        if (!group) throw new HearthError('group_not_found', `no group with id ${groupId}`);
        const existing = await store.getGroupGid(groupId);
        if (existing) return { id: group.id, name: group.name, gid: existing.gid, created: false };
        const { config } = await readConfig();
        if (!config.enabled || config.rangeStart === null || config.rangeEnd === null)
          throw new HearthError('linux_disabled', 'Linux identity assignment is not enabled');
        if ((await store.subByUsername(group.name)) !== undefined) {
          throw new HearthError('linux_conflict', `cannot make ${group.name} a POSIX group: an identity's private group already has that name`);
        }
        await store.lockNumbers();
        const n = await store.nextNumber(config.rangeStart, config.rangeEnd);
        if (n === null) throw new HearthError('linux_range_exhausted', `the Linux ID range ${config.rangeStart}–${config.rangeEnd} has no unused number left`);
        const at = now();
        await store.takeNumber(n, 'group', group.id, at);
        await store.insertGroupGid(group.id, n, at);
        await record(a, 'linux.group.assign', group.id, { name: group.name, gid: n });
        return { id: group.id, name: group.name, gid: n, created: true };
      });
    },
  };
}

export type LinuxService = ReturnType<typeof createLinuxService>;
