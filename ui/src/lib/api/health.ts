/** `GET /healthz`: public, no token. */
import createClient from 'openapi-fetch';
import type { Schemas } from './client.ts';
import type { paths } from './openapi.ts';

export type Health = Schemas['Health'];
/** The HTTPS part of the health answer: the mode, the one public address and the internal root's fingerprint. */
export type HealthTls = NonNullable<Health['tls']>;

/** Plain fetch, no credential: an unhealthy server's 503 carries the health body too. */
const publicApi = createClient<paths>({ cache: 'no-store' });

/** Public; answers 503 with the same body when unhealthy, so read both. */
export async function getHealth(signal?: AbortSignal): Promise<Health> {
  const { data, error, response } = await publicApi.GET('/healthz', { headers: { Accept: 'application/json' }, signal });
  if (response.status === 200 && data) return data;
  if (response.status === 503 && error && 'status' in error) return error;
  throw new Error(`health check answered ${response.status}`);
}

/** One replica sharing the core store, as `/healthz` lists it. */
export type NodeInfo = NonNullable<Health['nodes']>[number];
