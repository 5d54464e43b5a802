/**
 * HTTPS on the office network (server/identity/keys/tls/tls.routes.ts): the status and "renew now" for
 * administrators, and the paths of the internal certificate authority's root that any device may download.
 */
import { answer, api, apiUrl, type Schemas } from './client.ts';

export type TlsStatus = Schemas['TlsStatus'];
export type TlsMode = TlsStatus['mode'];

/** The internal root, as each kind of device imports it (public routes, 404 unless `--tls internal`): links to follow. */
export const CA_FILES = {
  pem: { path: apiUrl('/ca.pem', {}), file: 'hearth-ca.pem' },
  crt: { path: apiUrl('/ca.crt', {}), file: 'hearth-ca.crt' },
  mobileconfig: { path: apiUrl('/ca.mobileconfig', {}), file: 'hearth-ca.mobileconfig' },
} as const;

export function getTlsStatus(signal?: AbortSignal): Promise<TlsStatus> {
  return answer(api.GET('/v1/tls', { signal }));
}

/** 502 `renewal_failed` (the current certificate stays in use) and 409 `tls_off` arrive as `ApiError`. */
export function renewTls(): Promise<TlsStatus> {
  return answer(api.POST('/v1/tls/renew'));
}
