import type { AuditLog } from '../../core/audit/audit.ts';
import type { Principal, TokenService } from '../../core/auth/tokens.service.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { MailClock } from '../clock.ts';
import type { ProfileStore } from '../profiles/profiles.store.ts';
import { CORE_APP, MAIL_SEND, type Policy } from './apps.schemas.ts';
import type { AppRow, AppStore } from './apps.store.ts';

export interface Actor {
  actor: string;
  requestId?: string | null;
}

/** A registered client of Hearth as the mail domain sees it. */
export interface MailApplication {
  appId: string;
  name: string;
  platformPermissions: string[];
}

/**
 * Who an application is. The only coupling between applications and identity: today an application is a Hearth API
 * token registered here (`createTokenAppDirectory`); a directory backed by identity service accounts can replace it.
 */
export interface MailAppDirectory {
  /** The application a request's principal acts for, or null when the credential is not an application's. */
  fromPrincipal(p: Principal): Promise<MailApplication | null>;
  /** A registered application, or null when it is absent from the registry (absence alone never cancels mail). */
  get(appId: string): Promise<MailApplication | null>;
  list(): Promise<MailApplication[]>;
}

const presentApp = (r: AppRow): MailApplication => ({ appId: r.app_id, name: r.name, platformPermissions: parsePermissions(r.platform_permissions) });

/** The stored declaration as an array, parsed once per distinct text (a fresh copy each time: callers may keep it). */
const permissionsCache = new Map<string, readonly string[]>();
function parsePermissions(text: string): string[] {
  let list = permissionsCache.get(text);
  if (!list) {
    if (permissionsCache.size >= 1000) permissionsCache.clear();
    list = Object.freeze(JSON.parse(text) as string[]);
    permissionsCache.set(text, list);
  }
  return list.slice();
}

export function createTokenAppDirectory(store: AppStore): MailAppDirectory {
  return {
    async fromPrincipal(p) {
      if (p.kind !== 'namespaces' || p.session || (p as { oauth?: unknown }).oauth) return null;
      const r = await store.byToken(p.tokenId);
      return r ? presentApp(r) : null;
    },
    get: async (appId) => {
      const r = await store.get(appId);
      return r ? presentApp(r) : null;
    },
    list: async () => (await store.list()).map(presentApp),
  };
}

export function createAppsService(deps: {
  store: AppStore;
  profiles: ProfileStore;
  tokens: TokenService;
  directory: MailAppDirectory;
  audit: AuditLog;
  clock: MailClock;
}) {
  const { store, profiles, tokens, directory, audit, clock } = deps;
  const record = (a: Actor, action: string, target: string, detail?: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail: detail ?? null, requestId: a.requestId ?? null });

  /** The profiles an application may use now. Core and followers of the default: the default profile. */
  async function allowedProfiles(appId: string): Promise<string[]> {
    const grants = appId === CORE_APP ? null : await store.grants(appId);
    if (grants === null) return [(await profiles.getDefault())?.key].filter((k): k is string => !!k);
    return grants;
  }

  /** Whether an application may use a profile now: `allowedProfiles(appId).includes(key)`, in one probe. */
  async function mayUse(appId: string, key: string, defaultKey?: () => Promise<string | undefined>): Promise<boolean> {
    const def = defaultKey ?? (async () => (await profiles.getDefault())?.key);
    if (appId === CORE_APP) return (await def()) === key;
    const granted = await store.granted(appId, key);
    return granted === null ? (await def()) === key : granted;
  }

  async function policyOf(appId: string) {
    const grants = appId === CORE_APP ? null : await store.grants(appId);
    const mode: 'default' | 'profiles' | 'none' = grants === null ? 'default' : grants.length === 0 ? 'none' : 'profiles';
    return { mode, profiles: grants ?? (await allowedProfiles(appId)) };
  }

  async function present(appId: string) {
    const reg = appId === CORE_APP ? null : await store.get(appId);
    const app = reg ? presentApp(reg) : null;
    const token = reg?.token_id ? await safeToken(reg.token_id) : null;
    return {
      appId,
      name: appId === CORE_APP ? 'Hearth' : (app?.name ?? null),
      registered: appId === CORE_APP || app !== null,
      platformPermissions: appId === CORE_APP ? [MAIL_SEND] : (app?.platformPermissions ?? null),
      declaresMailSend: appId === CORE_APP ? true : app ? app.platformPermissions.includes(MAIL_SEND) : null,
      fixed: appId === CORE_APP,
      tokenPrefix: token?.prefix ?? null,
      policy: await policyOf(appId),
    };
  }
  // Awaited inside the try, so a lookup that rejects (an unknown or deleted token) answers null.
  const safeToken = async (id: string) => {
    try {
      return await tokens.get(id);
    } catch {
      return null;
    }
  };

  return {
    directory,
    allowedProfiles,
    mayUse,
    policyOf,

    async list() {
      const ids = new Set<string>([CORE_APP, ...(await store.list()).map((a) => a.app_id), ...(await store.policyAppIds())]);
      const sorted = [...ids].sort((a, b) => (a === CORE_APP ? -1 : b === CORE_APP ? 1 : a.localeCompare(b)));
      const data = [];
      for (const id of sorted) data.push(await present(id));
      return { data };
    },
    async get(appId: string) {
      if (appId !== CORE_APP && !(await store.get(appId)) && (await store.grants(appId)) === null)
        throw new HearthError('app_unknown', `no application "${appId}" is registered or has a stored policy`);
      return present(appId);
    },

    register(input: { appId: string; name: string; platformPermissions: string[] }, actor: Actor) {
      return store.transaction(async () => {
        if (await store.get(input.appId)) throw new HearthError('app_exists', `application "${input.appId}" is already registered`);
        const { token, info } = await tokens.create({ name: `mail-app:${input.appId}`, scope: 'namespaces', namespaces: [] });
        await store.insert(
          { app_id: input.appId, name: input.name, platform_permissions: JSON.stringify(input.platformPermissions), token_id: info.id },
          clock.now(),
        );
        await record(actor, 'outgoing_mail.app.register', input.appId, { name: input.name, platformPermissions: input.platformPermissions, tokenId: info.id });
        return { ...(await present(input.appId)), token };
      });
    },
    update(appId: string, input: { name?: string; platformPermissions?: string[] }, actor: Actor) {
      return store.transaction(async () => {
        const r = await store.get(appId);
        if (!r) throw new HearthError('app_unknown', `application "${appId}" is not registered`);
        const before = presentApp(r);
        const next = { name: input.name ?? before.name, platformPermissions: input.platformPermissions ?? before.platformPermissions };
        await store.update({ app_id: appId, name: next.name, platform_permissions: JSON.stringify(next.platformPermissions) }, clock.now());
        await record(actor, 'outgoing_mail.app.update', appId, { before: { name: before.name, platformPermissions: before.platformPermissions }, after: next });
        return present(appId);
      });
    },
    /** Removes the registration and revokes its credential; a stored policy stays (an offline application keeps it). */
    async unregister(appId: string, actor: Actor): Promise<void> {
      await store.transaction(async () => {
        const r = await store.get(appId);
        if (!r) throw new HearthError('app_unknown', `application "${appId}" is not registered`);
        if (r.token_id && (await safeToken(r.token_id))) await tokens.revoke(r.token_id);
        await store.remove(appId);
        await record(actor, 'outgoing_mail.app.unregister', appId);
      });
    },

    setPolicy(appId: string, policy: Policy, actor: Actor) {
      if (appId === CORE_APP) throw new HearthError('core_policy_fixed', "Core's own mail always uses the default profile; its access cannot be changed");
      return store.transaction(async () => {
        const before = await policyOf(appId);
        let keys: string[] | null = null;
        if (policy.mode === 'none') keys = [];
        if (policy.mode === 'profiles') {
          keys = [...new Set(policy.profiles)].sort();
          const unknown: string[] = [];
          for (const k of keys) if (!(await profiles.get(k))) unknown.push(k);
          if (unknown.length) throw new HearthError('profile_unknown', `unknown sender profile${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
        }
        await store.setGrants(appId, keys, clock.now());
        const after = await policyOf(appId);
        await record(actor, 'outgoing_mail.app.policy', appId, { before, after });
        return present(appId);
      });
    },
  };
}

export type AppsService = ReturnType<typeof createAppsService>;
