/** `GET /healthz`: public, no token. */
import type { Health } from '../../../../server/core/core.routes.ts';

export type { Health };
/** The HTTPS part of the health answer: the mode, the one public address and the internal root's fingerprint. */
export type HealthTls = NonNullable<Health['tls']>;

/** Public; answers 503 with the same body when unhealthy, so read both. */
export async function getHealth(signal?: AbortSignal): Promise<Health> {
  const res = await fetch('/healthz', { headers: { Accept: 'application/json' }, cache: 'no-store', signal });
  if (res.status !== 200 && res.status !== 503) throw new Error(`health check answered ${res.status}`);
  return (await res.json()) as Health;
}

/** One replica sharing the core store, as `/healthz` lists it. */
export type NodeInfo = NonNullable<Health['nodes']>[number];
