/**
 * The pure contracts of the authenticator-approval protocol (its objects, the signed proof format, what the client
 * SDK exports as contracts): constants, limits, zod schemas of the signed parts, the exact byte
 * strings a device signs, and the pairing link. ONE source of truth, shared by the server (`proof.ts` re-exports it)
 * and the browser SDK (`ui/sdk/app-approval`, bundled by Vite): no `node:*` imports, no credentials, no network here.
 *
 * - A message is a JSON array serialized with `JSON.stringify` (UTF-8, no extra whitespace).
 * - Signatures are ECDSA P-256 with SHA-256, the 64-byte IEEE-P1363 `r || s`, in unpadded base64url — never DER, never
 *   JWS.
 * - A proof lives at most 60 seconds, has a positive lifetime and may start at most five seconds in the future.
 */

import { z } from 'zod';
import { formatPairingLink, PAIRING_FRAGMENT } from './pairing-link.ts';
import { BROWSERS, OPERATING_SYSTEMS } from './user-agent.ts';

/** The protocol identifier: `/info` announces it, and an app requires exactly this one. */
export const APP_APPROVAL_PROTOCOL = 'hearth-app-approval-v1';
/** Where the protocol lives on an instance, relative to its issuer origin. */
export const APP_APPROVAL_PATH = '/api/auth/app-approval/v1';
export const PROOF_MAX_LIFETIME_S = 60;
export const PROOF_MAX_FUTURE_SKEW_S = 5;

/**
 * The budgets of protocol version 1, under the names the server announces in `/info.limits`, plus
 * the SDK's own call deadline.
 */
export const APP_APPROVAL_LIMITS = Object.freeze({
  pairingLifetimeSeconds: 300,
  loginLifetimeSeconds: 300,
  changeLifetimeSeconds: 300,
  /** Results stay readable one minute after expiry. */
  readableWindowSeconds: 60,
  outstandingPairingsPerAccount: 5,
  outstandingLoginsPerAccount: 5,
  activeDevicesPerAccount: 20,
  devicePageSize: 20,
  /** Request and response bodies of the protocol, in bytes. */
  requestBodyBytes: 8192,
  responseBytes: 8192,
  proofLifetimeSeconds: PROOF_MAX_LIFETIME_S,
  proofFutureSkewSeconds: PROOF_MAX_FUTURE_SKEW_S,
  /** Device names: 1–80 characters after trimming. */
  deviceNameLength: 80,
  changesPerInbox: 5,
  /** Push tokens: exactly 43 URL-safe characters. */
  pushTokenLength: 43,
  /** Foreground status polls at most once per five seconds (or `pollAfterSeconds`). */
  pollAfterSeconds: 5,
  terminalClientNameLength: 60,
  terminalScopes: 16,
  /** Deadline of one SDK call (combined with the caller's AbortSignal). */
  sdkCallTimeoutSeconds: 60,
});

/** Every feature an instance may announce in `/info.features` (and every value `inbox` accepts). */
export const APP_APPROVAL_FEATURES = ['device-changes', 'login-context', 'terminal-logins'] as const;
export type AppApprovalFeature = (typeof APP_APPROVAL_FEATURES)[number];
/** The only opt-in of the `pending` command. */
export const APP_APPROVAL_PENDING_ACCEPT = Object.freeze(['login-context'] as const);
/**
 * The accept list an app sends by default (`device-changes`, `login-context`). `terminal-logins` is deliberately not
 * in it: opting in to terminal sign-ins obliges the app to show the client, every scope code and the lifetime, so an
 * app adds it explicitly (`[...APP_APPROVAL_ACCEPT, 'terminal-logins']`, or `APP_APPROVAL_INBOX_ACCEPT`).
 */
export const APP_APPROVAL_ACCEPT = Object.freeze(['device-changes', 'login-context'] as const);
/** Every value the `inbox` command accepts. */
export const APP_APPROVAL_INBOX_ACCEPT = Object.freeze([...APP_APPROVAL_FEATURES]);

const B64URL_32 = /^[A-Za-z0-9_-]{43}$/;
/** A 64-byte IEEE-P1363 signature in unpadded base64url. */
export const B64URL_64_SIGNATURE = /^[A-Za-z0-9_-]{86}$/;

/** Exactly `{kty: EC, crv: P-256, x, y}` with 32-byte coordinates; private members or anything else are refused. */
export const DevicePublicKey = z
  .object({
    kty: z.literal('EC'),
    crv: z.literal('P-256'),
    x: z.string().regex(B64URL_32, 'x must be 32 bytes of unpadded base64url'),
    y: z.string().regex(B64URL_32, 'y must be 32 bytes of unpadded base64url'),
  })
  .strict();
export type DevicePublicKey = z.infer<typeof DevicePublicKey>;

const Accept = z.array(z.enum(APP_APPROVAL_FEATURES)).max(3);
export const DeviceCommand = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('pending'), accept: Accept.optional() }).strict(),
  z.object({ operation: z.literal('inbox'), accept: Accept.optional() }).strict(),
  z
    .object({
      operation: z.literal('decide'),
      requestId: z.string().min(1).max(100),
      challenge: z.string().min(1).max(200),
      comparison: z.string().regex(/^\d{6}$/, 'comparison must be six digits'),
      decision: z.enum(['approve', 'deny']),
    })
    .strict(),
  z
    .object({
      operation: z.literal('change'),
      changeId: z.string().min(1).max(100),
      kind: z.enum(['pair', 'revoke']),
      targetId: z.string().min(1).max(100),
      endSessions: z.boolean(),
      decision: z.enum(['approve', 'deny']),
    })
    .strict(),
  z.object({ operation: z.literal('revoke') }).strict(),
  z.object({ operation: z.literal('push'), token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'token must be 43 URL-safe characters') }).strict(),
  z.object({ operation: z.literal('account') }).strict(),
]);
export type DeviceCommand = z.infer<typeof DeviceCommand>;

export const DeviceProof = z
  .object({
    issuer: z.string().min(1).max(2048),
    deviceId: z.string().min(1).max(100),
    jti: z.uuid('jti must be a fresh UUID'),
    issuedAt: z.number().int(),
    expiresAt: z.number().int(),
    command: DeviceCommand,
  })
  .strict();
export type DeviceProof = z.infer<typeof DeviceProof>;

/** The array a pairing claim signs. */
export function appPairingProofMessage(p: { issuer: string; pairingId: string; secret: string; publicKey: DevicePublicKey; name: string }): string {
  return JSON.stringify([
    APP_APPROVAL_PROTOCOL,
    'pair',
    p.issuer,
    p.pairingId,
    p.secret,
    p.publicKey.kty,
    p.publicKey.crv,
    p.publicKey.x,
    p.publicKey.y,
    p.name,
  ]);
}

/** The array a device command signs: the proof header, the operation, then every other parameter of the command. */
export function appDeviceProofMessage(proof: DeviceProof): string {
  const c = proof.command;
  const base: unknown[] = [APP_APPROVAL_PROTOCOL, 'device', proof.issuer, proof.deviceId, proof.jti, proof.issuedAt, proof.expiresAt, c.operation];
  switch (c.operation) {
    case 'decide':
      base.push(c.requestId, c.challenge, c.comparison, c.decision);
      break;
    case 'change':
      base.push(c.changeId, c.kind, c.targetId, c.endSessions, c.decision);
      break;
    case 'pending':
    case 'inbox':
      base.push(c.accept ?? null);
      break;
    case 'push':
      base.push(c.token);
      break;
    case 'revoke':
    case 'account':
      break;
  }
  return JSON.stringify(base);
}

// ---------------------------------------------------------------------------------------------------------------
// Sign-in context (`AppLoginContext`) and terminal sign-ins, as the instance sends them and the SDK checks them.

/** UTF-8 bytes of a string (TextEncoder: the same in Node and browsers). */
const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;
/** Control characters, line/paragraph separators and bidirectional overrides: not plain single-line text. */
const NOT_PLAIN = /[\p{Cc}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069]/u;
/** Limit of `AppLoginContext.city` and `.network` in UTF-8 bytes. */
export const APP_LOGIN_CONTEXT_TEXT_BYTES = 96;
const ContextText = z
  .string()
  .min(1)
  .refine((s) => utf8Bytes(s) <= APP_LOGIN_CONTEXT_TEXT_BYTES, `at most ${APP_LOGIN_CONTEXT_TEXT_BYTES} UTF-8 bytes`)
  .refine((s) => !NOT_PLAIN.test(s), 'single-line plain text');

/** The sign-in context of a browser login request (strict; `sameNetwork` is added per device by the instance). */
export const AppLoginContextSchema = z
  .object({
    level: z.enum(['info', 'hint', 'warn']).meta({ description: 'Computed by Hearth; the app shows it and never derives its own.' }),
    browser: z.enum(BROWSERS),
    os: z.enum(OPERATING_SYSTEMS).meta({ description: '`mac-or-ipad`: Safari on a Mac and on an iPad send the same User-Agent.' }),
    country: z
      .string()
      .regex(/^[A-Z]{2}$/)
      .nullable()
      .meta({ description: 'ISO 3166-1 alpha-2, from the optional GeoIP database.' }),
    city: ContextText.nullable().meta({ description: 'Single-line plain text, at most 96 UTF-8 bytes.' }),
    network: ContextText.nullable().meta({
      description: 'The network operator, single-line plain text, at most 96 UTF-8 bytes; never a VPN or data-center label.',
    }),
    history: z
      .object({
        knownSince: AppApprovalTimeOf()
          .nullable()
          .meta({ description: "This browser's first successful sign-in to the account in its current remembered period (UTC ISO date-time), or null." }),
        newCountry: z
          .boolean()
          .meta({ description: 'A country is known, GeoIP is configured, and the account has no successful sign-in from it in the last 90 days.' }),
        countriesSince: AppApprovalTimeOf().nullable().meta({ description: 'When GeoIP was configured, while that is less than 90 days ago; otherwise null.' }),
      })
      .strict()
      .nullable()
      .meta({ description: "Null during the installation's 14-day introduction phase." }),
    sameNetwork: z
      .literal(true)
      .optional()
      .meta({ description: 'The browser and the phone share the full IPv4 address or the IPv6 /64; absence makes no claim.' }),
  })
  .strict()
  .meta({ id: 'AppLoginContext' });

/** Scope codes of a terminal sign-in: printable ASCII without spaces, 1–64 characters. */
export const APP_TERMINAL_SCOPE = /^[\x21-\x7e]{1,64}$/;
/** The `terminal` member of an inbox login entry (a terminal sign-in through the OAuth device authorization). */
export const AppTerminalLoginSchema = z
  .object({
    client: z
      .object({
        id: z.string().min(1).max(200),
        name: z
          .string()
          .refine(
            (s) => [...s].length <= APP_APPROVAL_LIMITS.terminalClientNameLength && !NOT_PLAIN.test(s),
            `single-line text of at most ${APP_APPROVAL_LIMITS.terminalClientNameLength} characters`,
          ),
      })
      .strict(),
    scopes: z.array(z.string().regex(APP_TERMINAL_SCOPE)).min(1).max(APP_APPROVAL_LIMITS.terminalScopes),
    lifetimeSeconds: z.number().int().positive(),
  })
  .strict();

// ---------------------------------------------------------------------------------------------------------------
// Pairing link: `{authenticatorOrigin}/#pairing=<percent-encoded JSON payload>`.

/** True when `value` is exactly an http(s) origin (`scheme://host[:port]`, no path, query, fragment or credentials). */
export function isHttpOrigin(value: string): boolean {
  if (typeof value !== 'string' || value.length > 2048) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
}

const Origin = z.string().max(2048).refine(isHttpOrigin, 'must be an exact http(s) origin');
/** Times of the protocol's objects: UTC ISO 8601 date-times (`2026-11-23T16:00:00.000Z`); proofs use Unix seconds. */
export const AppApprovalTime = AppApprovalTimeOf();
function AppApprovalTimeOf() {
  return z.iso.datetime({ offset: true });
}

/** The pairing start response, which is also the payload of the pairing link. */
export const AppPairingPayload = z
  .object({
    protocol: z.literal(APP_APPROVAL_PROTOCOL),
    issuer: Origin,
    pairingId: z.string().min(1).max(100),
    secret: z.string().min(1).max(200),
    expiresAt: AppApprovalTime,
  })
  .strict();
export type AppPairingPayload = z.infer<typeof AppPairingPayload>;

/** At most this many characters in a pairing link (a QR code or a pasted text). */
export const APP_PAIRING_LINK_MAX_LENGTH = 4096;

export class AppPairingLinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppPairingLinkError';
  }
}

/** `{authenticatorOrigin}/#pairing=<percent-encoded JSON payload>`. */
export function appPairingLink(authenticatorOrigin: string, payload: AppPairingPayload): string {
  if (!isHttpOrigin(authenticatorOrigin)) throw new AppPairingLinkError('the authenticator origin must be an exact http(s) origin');
  const parsed = AppPairingPayload.safeParse(payload);
  if (!parsed.success) throw new AppPairingLinkError('the pairing payload is not a valid pairing start response');
  return formatPairingLink(authenticatorOrigin, parsed.data);
}

/**
 * Parses a pairing link meant for the authenticator at `origin` (normally `location.origin`): the link must be exactly
 * `{origin}/#pairing=<payload>` (surrounding white space ignored) and the payload a valid pairing start response.
 * Expiry is not judged here (the app's clock may be off; the server decides). Throws `AppPairingLinkError` whose
 * message never repeats the payload.
 */
export function parseAppPairingLink(text: string, origin: string): AppPairingPayload {
  if (!isHttpOrigin(origin)) throw new AppPairingLinkError('the authenticator origin must be an exact http(s) origin');
  if (typeof text !== 'string') throw new AppPairingLinkError('a pairing link is a text');
  const link = text.trim();
  if (link.length > APP_PAIRING_LINK_MAX_LENGTH) throw new AppPairingLinkError('the pairing link is too long');
  const prefix = `${origin}/${PAIRING_FRAGMENT}`;
  if (!link.startsWith(prefix)) {
    let other: URL | null = null;
    try {
      other = new URL(link);
    } catch {
      /* not a URL at all */
    }
    if (other && other.origin !== origin) throw new AppPairingLinkError('the pairing link is meant for another authenticator');
    throw new AppPairingLinkError('not a pairing link');
  }
  let json: unknown;
  try {
    json = JSON.parse(decodeURIComponent(link.slice(prefix.length)));
  } catch {
    throw new AppPairingLinkError('the pairing link payload is not percent-encoded JSON');
  }
  const parsed = AppPairingPayload.safeParse(json);
  if (!parsed.success) {
    const protocol = (json as { protocol?: unknown } | null)?.protocol;
    if (json && typeof json === 'object' && protocol !== APP_APPROVAL_PROTOCOL) {
      throw new AppPairingLinkError('the pairing link is for another protocol version');
    }
    throw new AppPairingLinkError('the pairing link payload is invalid');
  }
  return parsed.data;
}
