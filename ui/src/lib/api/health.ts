/** `GET /healthz`: public, no token. */
export interface Health {
  status: 'ok' | 'unavailable';
  version: string;
  uptime_seconds: number;
  checks: Record<string, { ok: boolean; message?: string }>;
  namespaces: { count: number; open: number };
}

/** Public; answers 503 with the same body when unhealthy, so read both. */
export async function getHealth(signal?: AbortSignal): Promise<Health> {
  const res = await fetch('/healthz', { headers: { Accept: 'application/json' }, cache: 'no-store', signal });
  if (res.status !== 200 && res.status !== 503) throw new Error(`health check answered ${res.status}`);
  return (await res.json()) as Health;
}
