/**
 * The identity domain's light contract: constants, pure helpers and wire types that the CLI and the admin UI share
 * with the server. Browser-safe and cheap to load (no zod, no stores): a command that only talks HTTP imports this,
 * never the service behind `index.ts`. The import rules (`.dependency-cruiser.cjs`) allow outsiders only these two doors.
 */
export { formatPairingLink, PAIRING_FRAGMENT } from './approval/pairing-link.ts';
export type { TlsStatusBody } from './keys/tls/tls.routes.ts';

/** Password length bounds (characters) for every password an account may set. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** The device authorization grant (RFC 8628). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
