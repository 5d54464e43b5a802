/**
 * The Hearth server a spec shares with the other specs of its worker (global-setup.ts starts one per worker): worker
 * `TEST_PARALLEL_INDEX` uses server `TEST_PARALLEL_INDEX`. Read when the spec file loads, in the worker process (and
 * by playwright.config.ts, which each worker reads again, for `baseURL`). Undefined in the runner process before the
 * global setup ran.
 */
export interface SharedServer {
  /** The public address (`http://localhost:<port>`): where pages open and sign-in works. */
  url: string;
  /** The reference authenticator web app's own origin. */
  authenticatorUrl: string;
  /** An admin token (HEARTH_ADMIN_TOKEN of that server). */
  token: string;
  dataDir: string;
}

export function sharedServerOrNull(): SharedServer | null {
  const list = process.env.HEARTH_E2E_SERVERS ? (JSON.parse(process.env.HEARTH_E2E_SERVERS) as SharedServer[]) : [];
  if (list.length === 0) return null;
  return list[Number(process.env.TEST_PARALLEL_INDEX ?? 0) % list.length]!;
}

/** This worker's server (fails outside a worker, before the global setup). */
export function sharedServer(): SharedServer {
  const s = sharedServerOrNull();
  if (!s) throw new Error('no shared Hearth server: the specs run under playwright test -c test/e2e/playwright.config.ts, whose global setup starts them');
  return s;
}
