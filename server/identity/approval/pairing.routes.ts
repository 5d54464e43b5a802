/**
 * Routes of pairing (pairing.ts): start, claim and result (the authenticator, CORS), status, confirm and cancel (the
 * initiating session).
 */
import { actorFor } from '../../core/auth/auth.ts';
import { json, type RouteKit, readBody } from './approval.route-kit.ts';
import {
  ClaimBody,
  ClaimResponse,
  ConfirmBody,
  ConfirmResponse,
  PairingIdBody,
  PairingStartBody,
  PairingStartResponse,
  PairingStatus,
  ResultBody,
  ResultResponse,
} from './approval.schemas.ts';

export function registerPairingRoutes(k: RouteKit): void {
  const { approval, tags, P, route, counted, cors, write, recent, E } = k;
  route({
    method: 'post',
    path: `${P}/manage/pairings/start`,
    operationId: 'appPairingStart',
    tags,
    access: 'authenticated',
    summary: 'Start pairing an authenticator device',
    description:
      'Body `{}` to pair a device for the signed-in account, or `{userId}` (an administrator) for administrator-assisted pairing. Needs an interactive session issued within ten minutes (API and OAuth tokens cannot pair), the exact platform `Origin`. ' +
      'Answers the pairing `{protocol, issuer, pairingId, secret, expiresAt}` (five minutes) that the browser hands to the authenticator in the link `{appOrigin}/#pairing=<percent-encoded JSON>`. ' +
      'At most five outstanding pairings per account (409 `pairing_limit`) and twenty active devices (409 `device_limit`). The account needs an email address (409 `email_required`): email is a required channel of enrolment notices.',
    rawBody: json(PairingStartBody),
    responses: {
      201: { description: 'The pairing.', schema: PairingStartResponse },
      ...E.recent,
      404: { description: '`account_not_found`.' },
      409: { description: '`pairing_limit`, `device_limit`, `account_not_eligible`, `email_required`.' },
      ...E.common,
    },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, PairingStartBody);
      const r = await approval.startPairing(s, ctx.state.principal!.kind === 'admin', body.userId, actorFor(ctx));
      ctx.status = 201;
      return r;
    },
  });
  route({
    method: 'post',
    path: `${P}/pairings/claim`,
    operationId: 'appPairingClaim',
    tags,
    access: 'public',
    summary: 'Claim a pairing (authenticator)',
    description:
      'Body `{pairingId, secret, publicKey, name, signature}`: `publicKey` exactly `{kty: "EC", crv: "P-256", x, y}` (private members refused), `name` 1–80 characters after trimming, `signature` the P-256 signature (64-byte P1363, unpadded base64url) over ' +
      '`["hearth-app-approval-v1","pair",issuer,pairingId,secret,"EC","P-256",x,y,name]` with `name` as sent. Answers `{deviceId, comparison, expiresAt}`; the device shows `comparison` for the browser to type. A claim alone creates no usable device. ' +
      'A repeated claim is 409 `pairing_claimed`; an expired pairing 409 `pairing_expired`; a wrong secret 403; a DER signature 400 `invalid_signature`.',
    rawBody: json(ClaimBody),
    responses: {
      200: { description: 'Claimed.', schema: ClaimResponse },
      403: { description: '`forbidden` (secret), `bad_signature`.' },
      404: { description: 'Unknown or past its readable window.' },
      409: { description: '`pairing_claimed`, `pairing_expired`.' },
      ...E.common,
    },
    cache: 'no-store',
    cors,
    handler: async (ctx) => {
      return counted(ctx, async () => approval.claim(await readBody(ctx, ClaimBody)));
    },
  });
  route({
    method: 'post',
    path: `${P}/manage/pairings/status`,
    operationId: 'appPairingStatus',
    tags,
    access: 'authenticated',
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
    method: 'post',
    path: `${P}/manage/pairings/confirm`,
    operationId: 'appPairingConfirm',
    tags,
    access: 'authenticated',
    summary: 'Confirm a claimed pairing with the comparison code',
    description:
      'Body `{pairingId, comparison}` (the six digits the device shows). The first device of an account, and an administrator-assisted pairing (the administrator role and a recent session are checked again), are enrolled at once: `{deviceId, approval: null}`, ' +
      'audited as `auth.app.device.enroll` with a durable email notice. A further device needs the approval of an active device that opted in to `device-changes`: `{deviceId, approval: {state: "pending", expiresAt}}` (a device change of kind `pair`, five minutes, extending the pairing); confirming again returns the same approval. ' +
      'A wrong code is 400 `comparison_mismatch`; the fifth wrong code cancels the pairing.',
    rawBody: json(ConfirmBody),
    responses: {
      200: { description: 'Confirmed, or waiting for approval.', schema: ConfirmResponse },
      400: { description: '`comparison_mismatch`.' },
      ...E.recent,
      404: { description: 'Unavailable.' },
      409: { description: '`pairing_not_claimed`, `pairing_expired`, `pairing_cancelled`, `device_limit`.' },
      ...E.common,
    },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, ConfirmBody);
      const r = await approval.confirm(body.pairingId, body.comparison, s, actorFor(ctx), () => ctx.state.principal?.kind === 'admin');
      queueMicrotask(() => void approval.deliverNotices().catch(() => {})); // the minute schedule retries
      return r;
    },
  });
  route({
    method: 'post',
    path: `${P}/pairings/result`,
    operationId: 'appPairingResult',
    tags,
    access: 'public',
    summary: 'Result of a claimed pairing (authenticator)',
    description:
      'Body `{pairingId, secret, publicKey}`; the key must be the one that claimed (403 `key_mismatch`). Answers `{state, deviceId}` plus `comparison` while `claimed`; poll until `confirmed` (or `cancelled`, `expired`). Readable one minute after expiry, then 404.',
    rawBody: json(ResultBody),
    responses: {
      200: { description: 'The result.', schema: ResultResponse },
      403: { description: '`forbidden` (secret), `key_mismatch`.' },
      404: { description: 'Unavailable.' },
      409: { description: '`pairing_not_claimed`.' },
      ...E.common,
    },
    cache: 'no-store',
    cors,
    handler: async (ctx) => {
      return counted(ctx, async () => approval.pairingResult(await readBody(ctx, ResultBody)));
    },
  });
  route({
    method: 'post',
    path: `${P}/manage/pairings/cancel`,
    operationId: 'appPairingCancel',
    tags,
    access: 'authenticated',
    summary: 'Cancel an unconfirmed pairing',
    description:
      'Body `{pairingId}`. Also cancels its pending device change. A confirmed device cannot be cancelled, only revoked (409 `pairing_confirmed`). Cancelling again is 204.',
    rawBody: json(PairingIdBody),
    responses: {
      204: { description: 'Cancelled.' },
      ...E.session,
      404: { description: 'Unavailable.' },
      409: { description: '`pairing_confirmed`.' },
      ...E.common,
    },
    handler: async (ctx) => {
      const s = write(ctx);
      await approval.cancelPairing((await readBody(ctx, PairingIdBody)).pairingId, s, actorFor(ctx));
      ctx.status = 204;
    },
  });
}
