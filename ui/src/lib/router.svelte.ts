/**
 * Client-side routes on real paths (the server answers index.html for any HTML GET outside the API):
 *
 *   /                                   home: the setup checklist and a summary
 *   /namespaces                         namespaces list
 *   /ns/<name>                          namespace overview
 *   /ns/<name>/tables[/<table>[/structure]]
 *   /ns/<name>/sql | /events | /changelog
 *   /accounts | /groups | /service-accounts | /oauth-clients | /keys   identity administration
 *   /linux                              Linux identities (UIDs, GIDs, homes, shells)
 *   /me                                 the signed-in account (own password, passkeys)
 *   /network                            HTTPS status and "Renew now" (administrators)
 *   /network/certificate                "Add this device's certificate" (also before sign-in)
 *   /backups                            whole-appliance backups: list, "Back up now", the schedule (administrators)
 */

export type NsTab = 'overview' | 'tables' | 'sql' | 'events' | 'changelog';
export const NS_TABS: readonly NsTab[] = ['overview', 'tables', 'sql', 'events', 'changelog'];

/** Identity administration pages: one path segment each. */
export const IDENTITY_PAGES = {
  accounts: 'accounts',
  groups: 'groups',
  'service-accounts': 'service_accounts',
  'oauth-clients': 'oauth_clients',
  keys: 'keys',
  linux: 'linux',
  me: 'me',
} as const;
export type IdentityPage = (typeof IDENTITY_PAGES)[keyof typeof IDENTITY_PAGES];

/** Outgoing mail administration: `/mail` (the profiles) and `/mail/<tab>`. */
export type MailTab = 'profiles' | 'apps' | 'log' | 'retention';
export const MAIL_TABS: readonly MailTab[] = ['profiles', 'apps', 'log', 'retention'];

/** Network administration: `/network` (the HTTPS status) and `/network/certificate`. */
export type NetworkTab = 'status' | 'certificate';

export type Route =
  | { name: 'home' }
  | { name: 'namespaces' }
  | { [K in IdentityPage]: { name: K } }[IdentityPage]
  | { name: 'namespace'; ns: string; tab: NsTab; table: string | null; view: 'rows' | 'structure' }
  | { name: 'mail'; tab: MailTab }
  | { name: 'network'; tab: NetworkTab }
  | { name: 'backups' }
  | { name: 'not_found'; path: string };

function decode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

export function parse(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map(decode);
  if (parts.some((p) => p === null)) return { name: 'not_found', path: pathname };
  const p = parts as string[];
  if (p.length === 0) return { name: 'home' };
  if (p.length === 1 && p[0] === 'namespaces') return { name: 'namespaces' };
  if (p.length === 1 && p[0] === 'backups') return { name: 'backups' };
  if (p.length === 1 && Object.hasOwn(IDENTITY_PAGES, p[0]!)) return { name: IDENTITY_PAGES[p[0] as keyof typeof IDENTITY_PAGES] };
  if (p[0] === 'mail' && p.length <= 2) {
    const tab = (p[1] ?? 'profiles') as MailTab;
    return MAIL_TABS.includes(tab) ? { name: 'mail', tab } : { name: 'not_found', path: pathname };
  }
  if (p[0] === 'network' && p.length <= 2) {
    if (p[1] === undefined) return { name: 'network', tab: 'status' };
    return p[1] === 'certificate' ? { name: 'network', tab: 'certificate' } : { name: 'not_found', path: pathname };
  }
  if (p[0] === 'ns' && p[1]) {
    const ns = p[1];
    const tab = (p[2] ?? 'overview') as NsTab;
    if (!NS_TABS.includes(tab)) return { name: 'not_found', path: pathname };
    if (tab === 'tables') {
      if (p.length > 5 || (p[4] !== undefined && p[4] !== 'structure')) return { name: 'not_found', path: pathname };
      return { name: 'namespace', ns, tab, table: p[3] ?? null, view: p[4] === 'structure' ? 'structure' : 'rows' };
    }
    if (p.length > 3) return { name: 'not_found', path: pathname };
    return { name: 'namespace', ns, tab, table: null, view: 'rows' };
  }
  return { name: 'not_found', path: pathname };
}

const enc = encodeURIComponent;

/** The path of a namespace page, e.g. `nsPath('sales', 'tables', 'orders')` → `/ns/sales/tables/orders`. */
export function nsPath(ns: string, tab: NsTab = 'overview', table?: string | null, view: 'rows' | 'structure' = 'rows'): string {
  let p = `/ns/${enc(ns)}`;
  if (tab !== 'overview') p += `/${tab}`;
  if (tab === 'tables' && table) {
    p += `/${enc(table)}`;
    if (view === 'structure') p += '/structure';
  }
  return p;
}

class Router {
  path = $state(typeof location === 'undefined' ? '/' : location.pathname);
  readonly route = $derived(parse(this.path));

  constructor() {
    if (typeof window !== 'undefined') window.addEventListener('popstate', () => (this.path = location.pathname));
  }

  navigate(to: string, opts: { replace?: boolean } = {}): void {
    if (to === location.pathname + location.search) return;
    if (opts.replace) history.replaceState(null, '', to);
    else history.pushState(null, '', to);
    this.path = location.pathname;
    if (!opts.replace) window.scrollTo(0, 0);
  }
}

export const router = new Router();

/**
 * `onclick` for in-app links: plain left clicks navigate without a reload; modified clicks (new tab…)
 * keep the browser's behaviour.
 */
export function link(e: MouseEvent): void {
  const a = e.currentTarget as HTMLAnchorElement;
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  e.preventDefault();
  router.navigate(a.pathname + a.search);
}
