/**
 * The pairing link's format, `{authenticatorOrigin}/#pairing=<percent-encoded JSON payload>` (the payload rides in
 * the URL fragment, so it never reaches a server), without any dependency: the contracts module (which validates) and the admin UI (which must not pull zod
 * into its bundle) both build links here.
 */
export const PAIRING_FRAGMENT = '#pairing=';

/** The link for an already validated origin and payload (see `appPairingLink` in contracts.ts for the checked form). */
export function formatPairingLink(authenticatorOrigin: string, payload: unknown): string {
  return `${authenticatorOrigin}/${PAIRING_FRAGMENT}${encodeURIComponent(JSON.stringify(payload))}`;
}
