/**
 * The identity domain's light contract: constants, pure helpers and wire types that the CLI and the admin UI share
 * with the server. Browser-safe and cheap to load (no zod, no stores): a command that only talks HTTP imports this,
 * never the service behind `index.ts`. The import rules (`.dependency-cruiser.cjs`) allow outsiders only these two doors.
 */
export { ACCOUNT_CATEGORIES, type AccountCategory } from './accounts/categories.ts';
export { formatPairingLink, PAIRING_FRAGMENT } from './approval/pairing-link.ts';
export type { TlsStatusBody } from './keys/tls/tls.routes.ts';

/** Password length bounds (characters) for every password an account may set. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 1024;

/** The device authorization grant (RFC 8628). */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * A login: 1–32 characters of lowercase ASCII letters, digits, `_` or `-`, starting with a letter or `_` (the rule of
 * `Login` in accounts/accounts.schemas.ts; test/integration/core/openapi-types.test.ts holds the two equal).
 */
export const LOGIN_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;
/** A group name: as a login, 1–64 characters (the rule of `GroupName` in accounts/accounts.schemas.ts). */
export const GROUP_PATTERN = /^[a-z_][a-z0-9_-]{0,63}$/;

/** Why `login` is not a valid login, in a sentence for a form; `null` when it is. */
export function checkLogin(login: string): string | null {
  if (login === '') return 'Enter a login.';
  if (login.length > 32) return 'A login is at most 32 characters.';
  if (/^[0-9-]/.test(login)) return 'A login starts with a lowercase letter or _.';
  if (!LOGIN_PATTERN.test(login)) return 'Use only lowercase letters, digits, _ and -.';
  return null;
}

/** Why `name` is not a valid group name, in a sentence for a form; `null` when it is. */
export function checkGroupName(name: string): string | null {
  if (name === '') return 'Enter a name.';
  if (name.length > 64) return 'A group name is at most 64 characters.';
  if (/^[0-9-]/.test(name)) return 'A group name starts with a lowercase letter or _.';
  if (!GROUP_PATTERN.test(name)) return 'Use only lowercase letters, digits, _ and -.';
  return null;
}
