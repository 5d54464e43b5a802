import { z } from 'zod';
import type { Api, RouteDef } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/context.ts';
import { HearthError } from '../../core/http/errors.ts';
import { readJsonBody } from '../../core/http/body.ts';
import { actorFor } from '../../core/auth/auth.ts';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import { requirePlatformOrigin, type SessionsService } from '../sessions/sessions.service.ts';
import { createFailureLimiter } from '../sessions/rate-limit.ts';
import {
  APPROVAL_LIMITS, APP_APPROVAL_BASE, ChangeRefBody, ChangeStartBody, ChangeStartResponse, ChangeStatus, ClaimBody, ClaimResponse, ConfirmBody,
  ConfirmResponse, Device, DeviceBody, DevicePage, DeviceResponse, DeviceUpdateBody, DevicesQuery, InfoResponse, LoginRefBody, LoginStartBody,
  LoginStartResponse, LoginStatus, PairingIdBody, PairingStartBody, PairingStartResponse, PairingStatus, ResultBody, ResultResponse,
} from './approval.schemas.ts';
import { AUTH_FAILURES_PER_MINUTE, LOGIN_STARTS_PER_MINUTE, jsonBytes, type ApprovalService } from './approval.service.ts';
import { createDeviceChannel } from './approval.channel.ts';

/** The paths the authenticator website calls from its own origin (CORS); nothing else gets CORS. */
export const CORS_PATHS = ['/info', '/pairings/claim', '/pairings/result', '/device'];

const noStore = (ctx: AppContext) => ctx.set('Cache-Control', 'no-store');

/** The answer of every endpoint but `/info` while no authenticator origin is configured. */
export const APPROVAL_DISABLED_MESSAGE =
  'phone-authenticator approval is disabled on this instance: set HEARTH_AUTHENTICATOR_ORIGIN to the origin of the authenticator website ' +
  '(e.g. https://auth.example.com), or run the reference authenticator web app with `hearth serve --authenticator-port <port>`, then restart';

const isBusy = (e: unknown) => {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
};

/**
 * The one response guard of the protocol: a serialized answer above 8 KiB (`responseBytes`) is never sent (500
 * `internal_error`; lists shrink their pages before that, so only a defect can reach it), and platform.db being locked
 * past its busy timeout is 503 `approval_unavailable` with `Retry-After`.
 */
async function guardAnswer<T>(fn: () => T | Promise<T>): Promise<T> {
  let r: T;
  try {
    r = await fn();
  } catch (e) {
    if (isBusy(e)) throw new HearthError('approval_unavailable', 'the platform database is busy; try again shortly', { headers: { 'Retry-After': '1' } });
    throw e;
  }
  if (r !== undefined && jsonBytes(r) > APPROVAL_LIMITS.responseBytes) {
    throw new HearthError('internal_error', `the answer would exceed the ${APPROVAL_LIMITS.responseBytes}-byte response budget of hearth-app-approval-v1`);
  }
  return r;
}

/** Reads a JSON body of at most 8 KiB (413 beyond) and validates it strictly (400, the first issue). */
async function readBody<T extends z.ZodType>(ctx: AppContext, schema: T): Promise<z.infer<T>> {
  const raw = await readJsonBody(ctx, APPROVAL_LIMITS.requestBodyBytes);
  if (raw === undefined) throw new HearthError('invalid_request', 'a JSON request body is required');
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const at = i.path.length ? `${i.path.join('.')}: ` : '';
  const message = i.code === 'unrecognized_keys' ? `unknown ${i.keys.length > 1 ? 'keys' : 'key'} ${i.keys.map((k) => JSON.stringify(k)).join(', ')}` : i.message;
  throw new HearthError('invalid_request', `body: ${at}${message}`);
}

const json = (schema: z.ZodType, description?: string) => ({ contentType: 'application/json', schema, description });

export function registerApprovalRoutes(api: Api, approval: ApprovalService, sessions: SessionsService, opts: { issuer: () => string }): void {
  const tags = ['Authenticator approval'];
  const P = APP_APPROVAL_BASE;
  // Disabled (no authenticator origin): every protocol path but /info answers 503 `approval_disabled`, before
  // authentication. The administrator's device list and revoke stay available (to clean up after disabling).
  api.router.use(async (ctx, next) => {
    if (ctx.path.startsWith(P + '/') && ctx.path !== `${P}/info` && ctx.method !== 'OPTIONS' && !approval.enabled()) {
      throw new HearthError('approval_disabled', APPROVAL_DISABLED_MESSAGE);
    }
    return next();
  });
  /** api.route with the response guard. */
  function route<PP extends z.ZodType = z.ZodObject<{}>, Q extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodUndefined>(def: RouteDef<PP, Q, B>): void {
    api.route({ ...def, handler: (ctx, input) => guardAnswer(() => def.handler(ctx, input)) });
  }
  const channel = createDeviceChannel(approval);
  const starts = createFailureLimiter({ limit: LOGIN_STARTS_PER_MINUTE, windowMs: 60_000, now: Date.now });
  const failures = createFailureLimiter({ limit: AUTH_FAILURES_PER_MINUTE, windowMs: 60_000, now: Date.now });

  const throttle = (ctx: AppContext, limiter = failures) => {
    const wait = limiter.retryAfter(sessions.clientIp(ctx));
    if (wait > 0) throw new HearthError('rate_limited', 'too many requests from this address; try again later', { headers: { 'Retry-After': String(wait) } });
  };
  /**
   * Counts refused credentials towards the address's failure budget: a wrong secret or key, an unknown device, a
   * signature that does not verify, and (where the ID and secret are the credential) an unknown ID. A revoked device
   * still polling, or a decision on a request that is gone, is not a guess and is not counted.
   */
  const GUESSES = new Set(['forbidden', 'bad_signature', 'device_unknown', 'key_mismatch']);
  const counted = async <T>(ctx: AppContext, fn: () => T | Promise<T>, unknownIdCounts = true): Promise<T> => {
    throttle(ctx);
    try {
      return await fn();
    } catch (e) {
      if (e instanceof HearthError && (GUESSES.has(e.code) || (unknownIdCounts && e.code === 'not_found'))) failures.fail(sessions.clientIp(ctx));
      throw e;
    }
  };
  const cors = (ctx: AppContext) => {
    ctx.vary('Origin');
    const allowed = approval.authenticatorOrigin();
    if (allowed && ctx.get('origin') === allowed) ctx.set('Access-Control-Allow-Origin', allowed);
  };
  for (const path of CORS_PATHS) {
    api.router.options(P + path, (ctx) => {
      const c = ctx as unknown as AppContext;
      cors(c);
      if (c.response.get('Access-Control-Allow-Origin')) {
        c.set('Access-Control-Allow-Methods', 'GET, POST');
        c.set('Access-Control-Allow-Headers', 'Content-Type');
        c.set('Access-Control-Max-Age', '600');
      }
      c.status = 204;
    });
  }

  /** An interactive platform session (API and OAuth tokens cannot manage devices). */
  const session = (ctx: AppContext): SessionInfo => {
    const p = ctx.state.principal;
    if (!p?.session || p.oauth) throw new HearthError('forbidden', 'only an interactive sign-in session can do this (API and OAuth tokens cannot)');
    return p.session;
  };
  const write = (ctx: AppContext): SessionInfo => {
    noStore(ctx);
    const s = session(ctx);
    requirePlatformOrigin(ctx, opts.issuer());
    return s;
  };
  const recent = (ctx: AppContext): SessionInfo => {
    const s = write(ctx);
    sessions.requireRecentAuth(ctx);
    return s;
  };
  const E = {
    session: { 401: { description: 'No session (`unauthorized`).' }, 403: { description: '`forbidden` (not an interactive session), `origin_mismatch`.' } },
    recent: { 401: { description: 'No session (`unauthorized`).' }, 403: { description: '`forbidden` (not an interactive session), `origin_mismatch`, `recent_auth_required`.' } },
    common: {
      413: { description: 'Body larger than 8 KiB (`payload_too_large`).' }, 415: { description: 'Not `application/json`.' }, 429: { description: '`rate_limited` with `Retry-After`.' },
      503: { description: '`approval_disabled` (no authenticator origin configured), `approval_unavailable` (platform.db locked; `Retry-After`).' },
    },
  };

  route({
    method: 'get', path: `${P}/info`, operationId: 'appApprovalInfo', tags, access: 'public',
    summary: 'Discovery of the authenticator-approval protocol',
    description:
      'Answers `{protocol: "hearth-app-approval-v1", issuer, api, appOrigin, algorithm: "ES256", limits, features, enabled}`. `appOrigin` is the configured authenticator website (`HEARTH_AUTHENTICATOR_ORIGIN`, or the reference authenticator listener `--authenticator-port`); ' +
      '`features` lists `device-changes`, `terminal-logins` and, when the sign-in context service runs, `login-context`. Without an authenticator origin the protocol is disabled: `enabled: false`, `appOrigin: null`, `features: []`, and every other endpoint answers 503 `approval_disabled` ' +
      '(UIs hide the phone features). CORS for the authenticator origin only.',
    responses: { 200: { description: 'The info document.', schema: InfoResponse } },
    handler: (ctx) => {
      cors(ctx);
      ctx.set('Cache-Control', 'no-cache');
      return approval.info();
    },
  });

  // ---- pairing ----
  route({
    method: 'post', path: `${P}/manage/pairings/start`, operationId: 'appPairingStart', tags, access: 'authenticated',
    summary: 'Start pairing an authenticator device',
    description:
      'Body `{}` to pair a device for the signed-in account, or `{userId}` (an administrator) for administrator-assisted pairing. Needs an interactive session issued within ten minutes (API and OAuth tokens cannot pair), the exact platform `Origin`. ' +
      'Answers the pairing `{protocol, issuer, pairingId, secret, expiresAt}` (five minutes) that the browser hands to the authenticator in the link `{appOrigin}/#pairing=<percent-encoded JSON>`. ' +
      'At most five outstanding pairings per account (409 `pairing_limit`) and twenty active devices (409 `device_limit`). The account needs an email address (409 `email_required`): email is a required channel of enrolment notices.',
    rawBody: json(PairingStartBody),
    responses: {
      201: { description: 'The pairing.', schema: PairingStartResponse }, ...E.recent, 404: { description: '`account_not_found`.' },
      409: { description: '`pairing_limit`, `device_limit`, `account_not_eligible`, `email_required`.' }, ...E.common,
    },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, PairingStartBody);
      const r = approval.startPairing(s, ctx.state.principal!.kind === 'admin', body.userId, actorFor(ctx));
      ctx.status = 201;
      return r;
    },
  });
  route({
    method: 'post', path: `${P}/pairings/claim`, operationId: 'appPairingClaim', tags, access: 'public',
    summary: 'Claim a pairing (authenticator)',
    description:
      'Body `{pairingId, secret, publicKey, name, signature}`: `publicKey` exactly `{kty: "EC", crv: "P-256", x, y}` (private members refused), `name` 1–80 characters after trimming, `signature` the P-256 signature (64-byte P1363, unpadded base64url) over ' +
      '`["hearth-app-approval-v1","pair",issuer,pairingId,secret,"EC","P-256",x,y,name]` with `name` as sent. Answers `{deviceId, comparison, expiresAt}`; the device shows `comparison` for the browser to type. A claim alone creates no usable device. ' +
      'A repeated claim is 409 `pairing_claimed`; an expired pairing 409 `pairing_expired`; a wrong secret 403; a DER signature 400 `invalid_signature`.',
    rawBody: json(ClaimBody),
    responses: {
      200: { description: 'Claimed.', schema: ClaimResponse }, 403: { description: '`forbidden` (secret), `bad_signature`.' }, 404: { description: 'Unknown or past its readable window.' },
      409: { description: '`pairing_claimed`, `pairing_expired`.' }, ...E.common,
    },
    handler: async (ctx) => {
      cors(ctx);
      noStore(ctx);
      return counted(ctx, async () => approval.claim(await readBody(ctx, ClaimBody)));
    },
  });
  route({
    method: 'post', path: `${P}/manage/pairings/status`, operationId: 'appPairingStatus', tags, access: 'authenticated',
    summary: 'State of a pairing (initiating session)',
    description:
      'Body `{pairingId}`. Answers `{pairingId, state, expiresAt, deviceId, name, assisted, approval}`: `state` is `created`, `claimed`, `confirmed`, `cancelled` or `expired`; `approval` is null or `{state, expiresAt}` with `pending`, `approved`, `denied`, `cancelled` or `expired`. ' +
      'Only the initiating account and session family; 404 otherwise and one minute after expiry.',
    rawBody: json(PairingIdBody),
    responses: { 200: { description: 'The state.', schema: PairingStatus }, ...E.session, 404: { description: 'Unavailable.' }, ...E.common },
    handler: async (ctx) => {
      const s = write(ctx);
      return approval.pairingStatus((await readBody(ctx, PairingIdBody)).pairingId, s);
    },
  });
  route({
    method: 'post', path: `${P}/manage/pairings/confirm`, operationId: 'appPairingConfirm', tags, access: 'authenticated',
    summary: 'Confirm a claimed pairing with the comparison code',
    description:
      'Body `{pairingId, comparison}` (the six digits the device shows). The first device of an account, and an administrator-assisted pairing (the administrator role and a recent session are checked again), are enrolled at once: `{deviceId, approval: null}`, ' +
      'audited as `auth.app.device.enroll` with a durable email notice. A further device needs the approval of an active device that opted in to `device-changes`: `{deviceId, approval: {state: "pending", expiresAt}}` (a device change of kind `pair`, five minutes, extending the pairing); confirming again returns the same approval. ' +
      'A wrong code is 400 `comparison_mismatch`; the fifth wrong code cancels the pairing.',
    rawBody: json(ConfirmBody),
    responses: {
      200: { description: 'Confirmed, or waiting for approval.', schema: ConfirmResponse }, 400: { description: '`comparison_mismatch`.' }, ...E.recent, 404: { description: 'Unavailable.' },
      409: { description: '`pairing_not_claimed`, `pairing_expired`, `pairing_cancelled`, `device_limit`.' }, ...E.common,
    },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, ConfirmBody);
      const r = approval.confirm(body.pairingId, body.comparison, s, actorFor(ctx), () => ctx.state.principal?.kind === 'admin');
      queueMicrotask(() => approval.deliverNotices());
      return r;
    },
  });
  route({
    method: 'post', path: `${P}/pairings/result`, operationId: 'appPairingResult', tags, access: 'public',
    summary: 'Result of a claimed pairing (authenticator)',
    description:
      'Body `{pairingId, secret, publicKey}`; the key must be the one that claimed (403 `key_mismatch`). Answers `{state, deviceId}` plus `comparison` while `claimed`; poll until `confirmed` (or `cancelled`, `expired`). Readable one minute after expiry, then 404.',
    rawBody: json(ResultBody),
    responses: { 200: { description: 'The result.', schema: ResultResponse }, 403: { description: '`forbidden` (secret), `key_mismatch`.' }, 404: { description: 'Unavailable.' }, 409: { description: '`pairing_not_claimed`.' }, ...E.common },
    handler: async (ctx) => {
      cors(ctx);
      noStore(ctx);
      return counted(ctx, async () => approval.pairingResult(await readBody(ctx, ResultBody)));
    },
  });
  route({
    method: 'post', path: `${P}/manage/pairings/cancel`, operationId: 'appPairingCancel', tags, access: 'authenticated',
    summary: 'Cancel an unconfirmed pairing',
    description: 'Body `{pairingId}`. Also cancels its pending device change. A confirmed device cannot be cancelled, only revoked (409 `pairing_confirmed`). Cancelling again is 204.',
    rawBody: json(PairingIdBody),
    responses: { 204: { description: 'Cancelled.' }, ...E.session, 404: { description: 'Unavailable.' }, 409: { description: '`pairing_confirmed`.' }, ...E.common },
    handler: async (ctx) => {
      const s = write(ctx);
      approval.cancelPairing((await readBody(ctx, PairingIdBody)).pairingId, s, actorFor(ctx));
      ctx.status = 204;
    },
  });

  // ---- devices ----
  route({
    method: 'get', path: `${P}/manage/devices`, operationId: 'appDevices', tags, access: 'authenticated',
    summary: 'The signed-in account\'s authenticator devices',
    description: 'Pages of at most twenty in device-ID order, revoked devices included (with `revokedAt`); pass `after=<nextCursor>` for the next page (`nextCursor` is null on the last). ' +
      'A page stays within 8 KiB: with long multi-byte names it holds fewer items and `nextCursor` continues right after its last item.',
    query: DevicesQuery,
    responses: { 200: { description: 'A page.', schema: DevicePage }, ...E.session, 503: E.common[503] },
    handler: (ctx, { query }) => {
      noStore(ctx);
      return approval.listDevices(session(ctx).sub, query.after ?? null);
    },
  });
  route({
    method: 'post', path: `${P}/manage/devices/update`, operationId: 'appDeviceUpdate', tags, access: 'authenticated',
    summary: 'Rename or revoke one of the account\'s devices',
    description: 'Body `{operation: "rename", deviceId, name}` or `{operation: "revoke", deviceId}`. Needs a session issued within ten minutes and the device to be the account\'s (404 `device_not_found`). Answers the device. Revocation is audited as `auth.app.device.revoke`.',
    rawBody: json(DeviceUpdateBody),
    responses: { 200: { description: 'The device.', schema: Device }, ...E.recent, 404: { description: '`device_not_found`.' }, ...E.common },
    handler: async (ctx) => {
      const s = recent(ctx);
      return approval.updateDevice(s.sub, await readBody(ctx, DeviceUpdateBody), actorFor(ctx));
    },
  });

  // ---- device changes ----
  route({
    method: 'post', path: `${P}/manage/device-changes/start`, operationId: 'appDeviceChangeStart', tags, access: 'authenticated',
    summary: 'Request the removal of a device (approved on another device)',
    description:
      'Body `{deviceId, endSessions}`. Needs a session issued within ten minutes. Creates a device change of kind `revoke` (five minutes) that an active device of the account that opted in to `device-changes` approves or denies (the device being removed may approve, not deny, its own removal); ' +
      '`endSessions: true` ends every other session of the account on approval. The same request again from the same session returns the pending change; a different `endSessions` replaces it. ' +
      'When no other active device opted in to `device-changes`, the device is revoked at once: `{changeId: null, state: "revoked", deviceId, endSessions, endedSessions}`.',
    rawBody: json(ChangeStartBody),
    responses: { 200: { description: 'The pending change, or the plain revocation.', schema: ChangeStartResponse }, ...E.recent, 404: { description: '`device_not_found`.' }, 409: { description: '`device_already_revoked`.' }, ...E.common },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, ChangeStartBody);
      return approval.startRemoval(s, body.deviceId, body.endSessions, actorFor(ctx));
    },
  });
  route({
    method: 'post', path: `${P}/manage/device-changes/status`, operationId: 'appDeviceChangeStatus', tags, access: 'authenticated',
    summary: 'State of a device change this session requested',
    description:
      'Body `{changeId}` or `{deviceId}` (the newest removal of that device requested by this session). Answers `{changeId, state, expiresAt}` with `state` `pending`, `approved`, `denied`, `cancelled` (also when replaced) or `expired`. ' +
      'No recent sign-in needed; another session of the same account gets 404, as does a change one minute past expiry.',
    rawBody: json(ChangeRefBody),
    responses: { 200: { description: 'The state.', schema: ChangeStatus }, ...E.session, 404: { description: 'Unavailable.' }, ...E.common },
    handler: async (ctx) => approval.changeStatus(write(ctx), await readBody(ctx, ChangeRefBody)),
  });
  route({
    method: 'post', path: `${P}/manage/device-changes/cancel`, operationId: 'appDeviceChangeCancel', tags, access: 'authenticated',
    summary: 'Cancel a pending device change this session requested',
    description: 'Same body as status. 204 (also when already cancelled); 409 `change_not_pending` when decided or expired. Cancelling a `pair` change cancels its pairing.',
    rawBody: json(ChangeRefBody),
    responses: { 204: { description: 'Cancelled.' }, ...E.session, 404: { description: 'Unavailable.' }, 409: { description: '`change_not_pending`.' }, ...E.common },
    handler: async (ctx) => {
      const s = write(ctx);
      approval.cancelChange(s, await readBody(ctx, ChangeRefBody), actorFor(ctx));
      ctx.status = 204;
    },
  });

  // ---- browser sign-in ----
  route({
    method: 'post', path: `${P}/login/start`, operationId: 'appLoginStart', tags, access: 'public',
    summary: 'Start a sign-in approved in the authenticator app',
    description:
      'Body `{identifier, category}`: an exact login or email (case-insensitive) and the account category (`login`, `guest`, `freeipa`). Always 202 `{requestId, browserSecret, comparison, expiresAt, pollAfterSeconds}`, the same for unknown, disabled, ambiguous, unpaired, ' +
      'wrong-category and over-capacity (five outstanding) accounts: such a request simply never gets approved. Keep `browserSecret` in the tab (never in a URL, never to the authenticator). Exact platform `Origin`; ' +
      `${LOGIN_STARTS_PER_MINUTE} starts a minute per address (429).`,
    rawBody: json(LoginStartBody),
    responses: { 202: { description: 'The request.', schema: LoginStartResponse }, 403: { description: '`origin_mismatch`.' }, ...E.common },
    handler: async (ctx) => {
      noStore(ctx);
      requirePlatformOrigin(ctx, opts.issuer());
      throttle(ctx, starts);
      starts.fail(sessions.clientIp(ctx));
      const body = await readBody(ctx, LoginStartBody);
      const r = approval.startLogin({
        identifier: body.identifier, category: body.category, ip: sessions.clientIp(ctx), userAgent: ctx.get('user-agent'), browserId: sessions.browserId(ctx),
      });
      ctx.status = 202;
      return r;
    },
  });
  route({
    method: 'post', path: `${P}/login/status`, operationId: 'appLoginStatus', tags, access: 'public',
    summary: 'State of a sign-in request (held while pending)',
    description:
      'Body `{requestId, browserSecret}`. Answers `{state, expiresAt, pollAfterSeconds}` with `pending`, `approved`, `denied`, `consumed` or `expired`. A pending request is held up to `pollAfterSeconds` (or until it expires) and answered as soon as the app decides. ' +
      '404 for a wrong secret, an unknown request, or one minute after expiry (cleanup).',
    rawBody: json(LoginRefBody),
    responses: { 200: { description: 'The state.', schema: LoginStatus }, 403: { description: '`origin_mismatch`.' }, 404: { description: 'Unavailable.' }, ...E.common },
    handler: async (ctx) => {
      noStore(ctx);
      requirePlatformOrigin(ctx, opts.issuer());
      const body = await readBody(ctx, LoginRefBody);
      const ac = new AbortController();
      const gone = () => ac.abort();
      ctx.res.once('close', gone);
      try {
        return await counted(ctx, () => approval.loginStatus(body.requestId, body.browserSecret, ac.signal));
      } finally {
        ctx.res.off('close', gone);
      }
    },
  });
  route({
    method: 'post', path: `${P}/login/complete`, operationId: 'appLoginComplete', tags, access: 'public',
    summary: 'Complete an approved sign-in (sets the session cookie)',
    description:
      'Body `{requestId, browserSecret}`. Once and atomically: 204 with the HttpOnly `hearth_session` cookie (never a token in JSON), audited as `session.login` with `method: app-approval`. ' +
      '409 `login_not_approved` (pending, denied, expired), 409 `login_consumed` (already used: a lost response needs a new sign-in); 403 `login_refused` when the approving device was revoked, the account may no longer sign in, its category changed or its sessions were revoked since the start.',
    rawBody: json(LoginRefBody),
    responses: {
      204: { description: 'Signed in (Set-Cookie).' }, 403: { description: '`origin_mismatch`, `login_refused`.' }, 404: { description: 'Unavailable.' },
      409: { description: '`login_not_approved`, `login_consumed`.' }, ...E.common,
    },
    handler: async (ctx) => {
      noStore(ctx);
      requirePlatformOrigin(ctx, opts.issuer());
      const body = await readBody(ctx, LoginRefBody);
      const r = await counted(ctx, () => approval.completeLogin(body.requestId, body.browserSecret, ctx.state.requestId));
      sessions.signedIn(ctx, r);
      ctx.status = 204;
    },
  });

  // ---- device channel ----
  route({
    method: 'post', path: `${P}/device`, operationId: 'appDeviceCommand', tags, access: 'public',
    summary: 'A signed device command (authenticator)',
    description:
      'Body `{proof, signature}`; `proof` is exactly `{issuer, deviceId, jti, issuedAt, expiresAt, command}` (Unix seconds, at most 60 s of lifetime and 5 s of future skew, a fresh UUID `jti` per call), signed as the seed\'s array with the device key (64-byte P1363, unpadded base64url; DER is 400 `invalid_signature`). ' +
      'Commands: `pending` → `{requests, pollAfterSeconds}` (browser sign-ins; `accept: ["login-context"]` adds `context`); `inbox` → `{logins, actions: [], moreActions: 0, [changes, moreChanges], pollAfterSeconds}` (stores the accept list; `terminal-logins` adds terminal entries with `terminal`; `device-changes` adds at most five pending changes, oldest first); ' +
      '`decide` → `{state}` (bound to requestId, challenge and comparison); `change` → `{state}` (bound to changeId, kind, targetId, endSessions; only one of the five oldest pending changes, those an inbox lists, else 409 `change_not_listed`); `revoke` → `{state: "revoked"}`; `push` → `{state: "updated"}`; `account` → `{account: {uid, displayName, mail}, device: {name, createdAt}}`. ' +
      'Errors: 403 `wrong_issuer`, `device_unknown`, `bad_signature`, `device_revoked`; 400 `invalid_proof` (times), `invalid_signature`; 409 `proof_replayed`, `request_not_pending`, `request_changed`, `change_not_pending`, `change_changed`, `change_not_listed`, `not_opted_in`, `self_deny`; 404 unknown request or change. Only a successful command updates the device\'s `lastUsedAt`. Responses stay within 8 KiB.',
    rawBody: json(DeviceBody),
    responses: {
      200: { description: 'Per command.', schema: DeviceResponse }, 403: { description: 'See the description.' }, 404: { description: 'Unknown request or change.' },
      409: { description: 'See the description.' }, ...E.common,
    },
    handler: async (ctx) => {
      cors(ctx);
      noStore(ctx);
      return counted(ctx, async () => {
        const body = await readBody(ctx, DeviceBody);
        return channel.handle(body, sessions.clientIp(ctx), ctx.state.requestId);
      }, false);
    },
  });

  // ---- administration ----
  const AdminParams = z.object({ id: z.string().min(1).max(100) });
  route({
    method: 'get', path: '/api/admin/core/users/:id/app-devices', operationId: 'adminAppDevices', tags, access: 'admin',
    summary: 'An account\'s authenticator devices (administrator)',
    description: 'Pages of at most twenty, revoked devices included; `after=<nextCursor>` for the next page. A page stays within 8 KiB (fewer items with long multi-byte names; `nextCursor` continues after the last item). Available also while the protocol is disabled.',
    params: AdminParams, query: DevicesQuery,
    responses: { 200: { description: 'A page.', schema: DevicePage }, 404: { description: '`account_not_found`.' } },
    handler: (ctx, { params, query }) => {
      noStore(ctx);
      const row = approval.internals.accountStore.getAccount(params.id);
      if (!row || row.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${params.id}`);
      return approval.listDevices(row.sub, query.after ?? null);
    },
  });
  route({
    method: 'post', path: '/api/admin/core/users/:id/app-devices/:deviceId/revoke', operationId: 'adminAppDeviceRevoke', tags, access: 'admin',
    summary: 'Revoke an account\'s authenticator device (administrator)',
    description: 'Immediate; audited as `auth.app.device.revoke` with `by: "administrator"`. Revoking a revoked device answers it unchanged. Answers the device.',
    params: z.object({ id: z.string().min(1).max(100), deviceId: z.string().min(1).max(100) }),
    responses: { 200: { description: 'The device.', schema: Device }, 404: { description: '`device_not_found`.' } },
    handler: (ctx, { params }) => {
      if (ctx.state.principal?.session) requirePlatformOrigin(ctx, opts.issuer());
      return approval.adminRevoke(params.id, params.deviceId, actorFor(ctx));
    },
  });
}
