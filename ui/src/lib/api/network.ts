/**
 * HTTPS on the office network (server/identity/keys/tls/tls.routes.ts): the status and "renew now" for
 * administrators, and the paths of the internal certificate authority's root that any device may download.
 */
import type { TlsStatusBody } from '../../../../server/identity/keys/tls/tls.routes.ts';
import { request } from './client.ts';

export type TlsStatus = TlsStatusBody;
export type TlsMode = TlsStatus['mode'];

/** The internal root, as each kind of device imports it (public routes, 404 unless `--tls internal`). */
export const CA_FILES = {
  pem: { path: '/ca.pem', file: 'hearth-ca.pem' },
  crt: { path: '/ca.crt', file: 'hearth-ca.crt' },
  mobileconfig: { path: '/ca.mobileconfig', file: 'hearth-ca.mobileconfig' },
} as const;

export function getTlsStatus(signal?: AbortSignal): Promise<TlsStatus> {
  return request('/v1/tls', { signal });
}

/** 502 `renewal_failed` (the current certificate stays in use) and 409 `tls_off` arrive as `ApiError`. */
export function renewTls(): Promise<TlsStatus> {
  return request('/v1/tls/renew', { method: 'POST' });
}
