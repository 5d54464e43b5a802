/**
 * Test host names on loopback: `resolveTestHosts(['hearth.test'])` makes `dns.lookup` (what `fetch`, `https` and
 * `net` use) answer 127.0.0.1 for those names only, in this process. A child process (the `hearth` CLI) gets the same
 * with `testHostsEnv([...])` in its environment: `NODE_OPTIONS=--import <this file>` runs it before the program, and
 * `HEARTH_TEST_HOSTS` names the hosts. Used only by tests; Chromium gets `--host-resolver-rules` instead.
 */
import dns from 'node:dns';
import { pathToFileURL } from 'node:url';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

let mapped: Set<string> | null = null;

export function resolveTestHosts(names: string[]): void {
  if (mapped) {
    for (const n of names) mapped.add(n.toLowerCase());
    return;
  }
  mapped = new Set(names.map((n) => n.toLowerCase()));
  const original = dns.lookup;
  const lookup = (hostname: string, options: unknown, callback?: LookupCallback) => {
    if (!mapped!.has(String(hostname).toLowerCase())) return (original as (...a: unknown[]) => void)(hostname, options, callback);
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
    process.nextTick(() => (opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
  };
  dns.lookup = lookup as typeof dns.lookup;
  const originalPromise = dns.promises.lookup;
  dns.promises.lookup = (async (hostname: string, options?: dns.LookupOptions) => {
    if (!mapped!.has(String(hostname).toLowerCase())) return originalPromise(hostname, options ?? {});
    return options?.all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  }) as typeof dns.promises.lookup;
}

/** The environment that gives a child Node process the same names (merge it into the child's `env`). */
export function testHostsEnv(names: string[]): Record<string, string> {
  return { NODE_OPTIONS: `--import ${pathToFileURL(import.meta.filename).href}`, HEARTH_TEST_HOSTS: names.join(',') };
}

if (process.env.HEARTH_TEST_HOSTS) resolveTestHosts(process.env.HEARTH_TEST_HOSTS.split(',').filter(Boolean));
