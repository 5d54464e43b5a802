/**
 * Terminal sign-in: the OAuth 2.0 device authorization grant (RFC 8628) for first-party clients (`hearth-cli`).
 *
 * - With `login_hint` (a login name or email) the device authorization is linked to the account's paired
 *   authenticator app ("app" mode): the OAuth module asks the approval protocol's terminal broker (Core's
 *   broker-authenticated internal interface, keyed by `HEARTH_OAUTH_BROKER_SECRET`) to create a terminal approval
 *   request. The phone shows the client, every scope code and the sign-in lifetime, and the six-digit comparison
 *   code, which is also the `user_code` the terminal prints. The device code lives as long as the approval request
 *   (five minutes). Whether the login hint names an account, has a paired device or a device that accepts terminal
 *   sign-ins is never revealed: the answer has the same shape, and such a request is simply never approved.
 * - Without `login_hint` ("browser" mode) the classic flow: the terminal shows `verification_uri` and an
 *   eight-letter `user_code` (RFC 8628 §6.1 alphabet), a signed-in user enters it at `/oauth/device`, sees the
 *   client, the scopes and the lifetime, and approves or denies. The device code lives ten minutes.
 *
 * States (Hearth's own names): `pending` → `approved` (browser mode) | `denied` | `expired`; `pending` (app mode;
 * the approval itself is held by the authenticator and read through the broker) or `approved` → `consumed` by the
 * one successful token exchange. A device code is single-use: a second exchange is `invalid_grant` and revokes the
 * tokens minted from it (as for authorization codes).
 *
 * Lifetime capping: the sign-in of a device authorization lasts at most seven days (the refresh grant's lifetime
 * with `offline_access`; one hour, the access token, without). A browser sign-in of the CLI may last 30 days; a
 * terminal sign-in is started on a machine the approver does not see, so its reach is shorter.
 *
 * Polling (RFC 8628 §3.5): every `interval` seconds (5); a poll earlier than `interval` − 1 s answers `slow_down`
 * and adds five seconds to the interval of this device code for good.
 */
import crypto from 'node:crypto';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import type { AccountRow } from '../accounts/accounts.store.ts';
import type { TerminalBroker } from '../approval/terminal-broker.ts';
import { DEVICE_CODE_GRANT } from '../contract.ts';
import { oauthError } from './action-context.ts';
import { SUPPORTED_SCOPES } from './oauth.schemas.ts';
import type { DeviceAuthorizationRow, OAuthStore } from './oauth.store.ts';

export { DEVICE_CODE_GRANT };
/** The first polling interval, seconds. */
export const DEVICE_POLL_INTERVAL_S = 5;
/** What each `slow_down` adds to the interval (RFC 8628 §3.5). */
export const SLOW_DOWN_STEP_S = 5;
/** A poll up to this much earlier than the interval is still accepted (network jitter). */
export const POLL_TOLERANCE_MS = 1000;
/** The longest sign-in a device authorization can produce (refresh grant with `offline_access`). */
export const DEVICE_SIGN_IN_MAX_S = 7 * 24 * 3600;
/** Browser mode: how long the user code can be entered. App mode uses the approval request's five minutes. */
export const BROWSER_DEVICE_LIFETIME_MS = 10 * 60_000;
/** The terminal extension of the approval protocol carries 1–16 scope codes. */
export const MAX_DEVICE_SCOPES = 16;
export const LOGIN_HINT_MAX = 254;
/** RFC 8628 §6.1: 20 consonants, no vowels (no words), no look-alikes; 8 characters ≈ 34.6 bits. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;

/** The approval protocol's terminal broker (`appApproval.terminalBroker(secret)`), declared once beside it. */
export type { TerminalBroker };

/** The client fields this module reads (a subset of action-context.ts's Client). */
export interface DeviceClient {
  clientId: string;
  origin: 'managed' | 'first_party' | 'dynamic';
  name: string;
  scopes: string[];
  audiences: string[];
  grantTypes: string[];
  revokedAt: number | null;
}

export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

export type IssueResult = { response: Record<string, unknown>; sub: string; familyId: string | null; jti: string; accessExpiresAt: number };

const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');
const json = <T>(s: string) => JSON.parse(s) as T;
/** RFC 8628 §3.5 errors (400 like every RFC 6749 §5.2 error, as the `ERROR_CODES` table says). */
const pollError = (code: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token', description: string) => oauthError(code, description);

/** Normalizes a typed user code: upper case, only the alphabet's letters (dashes and spaces dropped). */
export function normalizeUserCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[\s-]/g, '');
  if (s.length !== USER_CODE_LENGTH || [...s].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return s;
}

function newUserCode(): string {
  let s = '';
  // rejection-free: 256 is not a multiple of 20, so draw from crypto.randomInt
  for (let i = 0; i < USER_CODE_LENGTH; i++) s += USER_CODE_ALPHABET[crypto.randomInt(USER_CODE_ALPHABET.length)];
  return s;
}
export const formatUserCode = (s: string) => `${s.slice(0, 4)}-${s.slice(4)}`;

export function createDeviceFlow(deps: {
  store: OAuthStore;
  now: () => number;
  issuer: () => string;
  record: (a: Actor, action: string, target: string, detail?: Record<string, unknown>) => Promise<void>;
  accessTokenLifetimeS: number;
  /** Rechecks client, account, scopes, audiences and access, then mints the tokens (string: why not). */
  /** Mints the tokens; `onIssued` runs in the transaction that stores the refresh family. */
  issue: (
    client: DeviceClient,
    sub: string,
    g: {
      scope: string[];
      audiences: string[];
      authTime: number;
      lifetimeMs: number;
      onIssued: (familyId: string | null, jti: string, accessExpiresAt: number) => Promise<void>;
    },
  ) => Promise<IssueResult | string>;
  /** Revokes what a replayed device code had minted. */
  revokeIssued: (row: DeviceAuthorizationRow) => Promise<void>;
  /** The approval protocol's terminal broker (app mode); null: sign-in with the authenticator app answers 503. */
  broker: TerminalBroker | null;
  /** Whether the account may use the client (profiles, specific lists): checked before a browser approval. */
  mayAuthorize: (client: DeviceClient, row: AccountRow) => Promise<boolean>;
}) {
  const { store, now, record, broker } = deps;

  function validateScope(client: DeviceClient, raw: string | undefined): string[] {
    const asked = raw === undefined ? null : [...new Set(raw.split(' ').filter(Boolean))];
    if (asked === null || asked.length === 0) return client.scopes.slice(0, MAX_DEVICE_SCOPES);
    const unknown = asked.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
    if (unknown !== undefined) throw oauthError('invalid_scope', `unknown scope ${quoteInput(unknown)}`);
    const denied = asked.find((s) => !client.scopes.includes(s));
    if (denied !== undefined) throw oauthError('invalid_scope', `scope ${quoteInput(denied)} is not allowed for this client`);
    if (asked.length > MAX_DEVICE_SCOPES) throw oauthError('invalid_scope', `at most ${MAX_DEVICE_SCOPES} scopes`);
    return asked;
  }

  /** The sign-in lifetime the approver is shown and the grant gets. */
  const lifetimeFor = (client: DeviceClient, scope: string[]) =>
    scope.includes('offline_access') && client.grantTypes.includes('refresh_token') ? DEVICE_SIGN_IN_MAX_S : deps.accessTokenLifetimeS;

  function requireFirstParty(client: DeviceClient) {
    if (client.origin !== 'first_party' || !client.grantTypes.includes(DEVICE_CODE_GRANT)) {
      throw oauthError('unauthorized_client', "device authorization is only for Hearth's first-party clients");
    }
  }

  const verificationUri = () => `${deps.issuer()}/oauth/device`;

  async function callBroker<T>(fn: (b: TerminalBroker) => T | Promise<T>): Promise<T> {
    if (!broker) throw oauthError('temporarily_unavailable', 'sign-in with the authenticator app is not available on this server');
    try {
      return await fn(broker);
    } catch (err) {
      if (err instanceof HearthError && err.status === 503) {
        throw oauthError('temporarily_unavailable', `sign-in with the authenticator app is not available: ${err.message}`);
      }
      throw err;
    }
  }

  async function finishExpired(hash: string): Promise<never> {
    await store.expireDeviceAuthorization(hash);
    throw pollError('expired_token', 'the device code has expired: start the sign-in again');
  }

  return {
    /** POST /oauth/device_authorization (RFC 8628 §3.1–3.2), the client already authenticated. */
    async authorize(
      client: DeviceClient,
      form: Record<string, string | undefined>,
      req: { ip: string; userAgent: string },
      a: Actor,
    ): Promise<DeviceAuthorizationResponse> {
      requireFirstParty(client);
      const scope = validateScope(client, form.scope);
      if (form.resource !== undefined)
        throw oauthError('invalid_target', "resource is not supported with device authorization: the tokens carry the client's audiences");
      const lifetimeSeconds = lifetimeFor(client, scope);
      const at = now();
      const deviceCode = `hdc_${crypto.randomBytes(32).toString('base64url')}`;
      const hint = form.login_hint;
      if (hint !== undefined) {
        const identifier = hint.trim();
        if (!identifier || identifier.length > LOGIN_HINT_MAX || /[\u0000-\u001f\u007f]/.test(identifier)) {
          throw oauthError('invalid_request', `login_hint must be a login name or email address of 1–${LOGIN_HINT_MAX} characters`);
        }
        const r = await callBroker((b) =>
          b.create({ identifier, client: { id: client.clientId, name: client.name }, scopes: scope, lifetimeSeconds, ip: req.ip, userAgent: req.userAgent }),
        );
        await store.insertDeviceAuthorization({
          device_code_hash: sha256(deviceCode),
          client_id: client.clientId,
          mode: 'app',
          approval_request_id: r.requestId,
          user_code_hash: null,
          scope: JSON.stringify(scope),
          audiences: JSON.stringify(client.audiences),
          lifetime_s: lifetimeSeconds,
          interval_s: DEVICE_POLL_INTERVAL_S,
          created_at: at,
          expires_at: r.expiresAt,
        });
        await record(a, 'oauth.device_authorization.create', client.clientId, {
          mode: 'app',
          loginHint: identifier,
          scope,
          lifetimeSeconds,
          approvalRequestId: r.requestId,
        });
        return {
          device_code: deviceCode,
          user_code: r.comparison,
          verification_uri: verificationUri(),
          expires_in: Math.max(1, Math.round((r.expiresAt - at) / 1000)),
          interval: DEVICE_POLL_INTERVAL_S,
        };
      }
      // browser mode: a fresh user code (retry on the unlikely collision with a stored one)
      for (let attempt = 0; ; attempt++) {
        const userCode = newUserCode();
        try {
          await store.insertDeviceAuthorization({
            device_code_hash: sha256(deviceCode),
            client_id: client.clientId,
            mode: 'browser',
            approval_request_id: null,
            user_code_hash: sha256(userCode),
            scope: JSON.stringify(scope),
            audiences: JSON.stringify(client.audiences),
            lifetime_s: lifetimeSeconds,
            interval_s: DEVICE_POLL_INTERVAL_S,
            created_at: at,
            expires_at: at + BROWSER_DEVICE_LIFETIME_MS,
          });
        } catch (err) {
          if (attempt < 3 && /UNIQUE|duplicate key/.test((err as Error).message)) continue;
          throw err;
        }
        await record(a, 'oauth.device_authorization.create', client.clientId, { mode: 'browser', scope, lifetimeSeconds });
        const display = formatUserCode(userCode);
        return {
          device_code: deviceCode,
          user_code: display,
          verification_uri: verificationUri(),
          verification_uri_complete: `${verificationUri()}?user_code=${encodeURIComponent(display)}`,
          expires_in: BROWSER_DEVICE_LIFETIME_MS / 1000,
          interval: DEVICE_POLL_INTERVAL_S,
        };
      }
    },

    /** Token endpoint, grant `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5). */
    async exchange(client: DeviceClient, form: Record<string, string | undefined>, a: Actor) {
      requireFirstParty(client);
      if (!form.device_code) throw oauthError('invalid_request', 'device_code is required');
      const hash = sha256(form.device_code);
      const row = await store.getDeviceAuthorization(hash);
      const at = now();
      if (!row || row.client_id !== client.clientId) throw oauthError('invalid_grant', 'the device code is invalid, expired or was issued to another client');
      if (row.state === 'consumed') {
        await deps.revokeIssued(row);
        await record(a, 'oauth.device_code.replay', client.clientId, { sub: row.sub, mode: row.mode });
        throw oauthError('invalid_grant', 'the device code was already used; the tokens issued from it are revoked');
      }
      if (row.state === 'denied') throw pollError('access_denied', 'the sign-in was denied');
      if (row.state === 'expired' || row.expires_at <= at) await finishExpired(hash);
      if (row.last_poll_at !== null && at - row.last_poll_at < row.interval_s * 1000 - POLL_TOLERANCE_MS) {
        await store.deviceAuthorizationPolled(hash, at, row.interval_s + SLOW_DOWN_STEP_S);
        throw pollError('slow_down', `polling too fast: wait at least ${row.interval_s + SLOW_DOWN_STEP_S} seconds between requests`);
      }
      await store.deviceAuthorizationPolled(hash, at, row.interval_s);

      let sub: string;
      let authTime: number;
      if (row.mode === 'app') {
        const requestId = row.approval_request_id!;
        const state = await callBroker((b) => b.state(requestId));
        if (state === 'pending') throw pollError('authorization_pending', 'waiting for the approval in the authenticator app');
        if (state === 'denied') {
          if (await store.decideDeviceAuthorization(hash, 'denied', at, null, null)) {
            await record(a, 'oauth.device_authorization.deny', client.clientId, { mode: 'app', approvalRequestId: requestId });
          }
          throw pollError('access_denied', 'the sign-in was denied in the authenticator app');
        }
        if (state === 'expired' || state === 'unavailable') await finishExpired(hash);
        if (state !== 'approved') {
          await store.expireDeviceAuthorization(hash);
          throw oauthError('invalid_grant', 'the approval was already used');
        }
        // ours first (one exchange per device code), then the approval (one use, with the device and account rechecks)
        if (!(await store.consumeDeviceAuthorization(hash, 'pending', at, null, Math.floor(at / 1000)))) {
          throw oauthError('invalid_grant', 'the device code was used concurrently');
        }
        const consumed = await callBroker((b) => b.consume(requestId));
        if (!consumed) {
          await record(a, 'oauth.device_authorization.refused', client.clientId, { mode: 'app', approvalRequestId: requestId, reason: 'approval_unusable' });
          throw oauthError('invalid_grant', 'the approval can no longer be used (the device was revoked, or the account changed): start the sign-in again');
        }
        sub = consumed.sub;
        authTime = Math.floor(at / 1000);
        await record(a, 'oauth.device_authorization.approve', client.clientId, { mode: 'app', sub, approvalRequestId: requestId });
      } else {
        if (row.state === 'pending') throw pollError('authorization_pending', 'waiting for the user to enter the code and approve');
        if (!(await store.consumeDeviceAuthorization(hash, 'approved', at, null, row.auth_time ?? Math.floor(at / 1000)))) {
          throw oauthError('invalid_grant', 'the device code was used concurrently');
        }
        sub = row.sub!;
        authTime = row.auth_time ?? Math.floor(at / 1000);
      }
      const scope = json<string[]>(row.scope);
      const audiences = json<string[]>(row.audiences);
      const who = sub;
      const r = await deps.issue(client, sub, {
        scope,
        audiences,
        authTime,
        lifetimeMs: row.lifetime_s * 1000,
        onIssued: (familyId, jti, accessExpiresAt) => store.setDeviceAuthorizationIssued(hash, who, familyId, jti, accessExpiresAt),
      });
      if (typeof r === 'string') {
        await record(a, 'oauth.device_authorization.refused', client.clientId, { mode: row.mode, sub, reason: r });
        throw oauthError('invalid_grant', r);
      }
      await record(a, 'oauth.device_authorization.token', client.clientId, {
        mode: row.mode,
        sub,
        scope,
        lifetimeSeconds: row.lifetime_s,
        refreshGrant: r.familyId !== null,
      });
      return r.response;
    },

    // ---- browser verification (/oauth/device) ----

    /** The pending browser-mode request of a typed user code, or null (unknown, used, expired, or malformed). */
    async lookupUserCode(input: string, getClient: (id: string) => Promise<DeviceClient | null>) {
      const code = normalizeUserCode(input);
      if (!code) return null;
      const row = await store.getDeviceAuthorizationByUserCode(sha256(code));
      if (row?.mode !== 'browser' || row.state !== 'pending' || row.expires_at <= now()) return null;
      const client = await getClient(row.client_id);
      if (!client || client.revokedAt !== null) return null;
      return { userCode: formatUserCode(code), client, scope: json<string[]>(row.scope), lifetimeSeconds: row.lifetime_s, expiresAt: row.expires_at };
    },

    /** Approves or denies a browser-mode request for the signed-in account (once, before expiry). */
    async decide(
      input: string,
      account: AccountRow,
      approve: boolean,
      getClient: (id: string) => Promise<DeviceClient | null>,
      a: Actor,
    ): Promise<'approved' | 'denied' | 'gone' | 'not_allowed'> {
      const code = normalizeUserCode(input);
      if (!code) return 'gone';
      const hash = sha256(code);
      const row = await store.getDeviceAuthorizationByUserCode(hash);
      if (row?.mode !== 'browser') return 'gone';
      const client = await getClient(row.client_id);
      if (!client || client.revokedAt !== null) return 'gone';
      const at = now();
      if (approve && !(await deps.mayAuthorize(client, account))) return 'not_allowed';
      if (
        !(await store.decideDeviceAuthorization(row.device_code_hash, approve ? 'approved' : 'denied', at, approve ? account.sub : null, Math.floor(at / 1000)))
      )
        return 'gone';
      await record(a, approve ? 'oauth.device_authorization.approve' : 'oauth.device_authorization.deny', client.clientId, {
        mode: 'browser',
        sub: account.sub,
      });
      return approve ? 'approved' : 'denied';
    },
  };
}

export type DeviceFlow = ReturnType<typeof createDeviceFlow>;
