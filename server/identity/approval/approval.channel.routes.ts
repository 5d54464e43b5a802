/**
 * The route of the signed device channel `POST /device` (approval.channel.ts): CORS for the authenticator origin,
 * refused signatures counted towards the address's failure budget (an unknown request ID is not a guess here).
 */

import { json, type RouteKit, readBody } from './approval.route-kit.ts';
import { DeviceBody, DeviceResponse } from './approval.schemas.ts';

export function registerDeviceChannelRoutes(k: RouteKit): void {
  const { approval, sessions, tags, P, route, counted, cors, E } = k;
  route({
    method: 'post',
    path: `${P}/device`,
    operationId: 'appDeviceCommand',
    tags,
    access: 'public',
    summary: 'A signed device command (authenticator)',
    description:
      "Body `{proof, signature}`; `proof` is exactly `{issuer, deviceId, jti, issuedAt, expiresAt, command}` (Unix seconds, at most 60 s of lifetime and 5 s of future skew, a fresh UUID `jti` per call), signed as the seed's array with the device key (64-byte P1363, unpadded base64url; DER is 400 `invalid_signature`). " +
      'Commands: `pending` → `{requests, pollAfterSeconds}` (browser sign-ins; `accept: ["login-context"]` adds `context`); `inbox` → `{logins, actions: [], moreActions: 0, [changes, moreChanges], pollAfterSeconds}` (stores the accept list; `terminal-logins` adds terminal entries with `terminal`; `device-changes` adds at most five pending changes, oldest first); ' +
      '`decide` → `{state}` (bound to requestId, challenge and comparison); `change` → `{state}` (bound to changeId, kind, targetId, endSessions; only one of the five oldest pending changes, those an inbox lists, else 409 `change_not_listed`); `revoke` → `{state: "revoked"}`; `push` → `{state: "updated"}`; `account` → `{account: {uid, displayName, mail}, device: {name, createdAt}}`. ' +
      "Errors: 403 `wrong_issuer`, `device_unknown`, `bad_signature`, `device_revoked`; 400 `invalid_proof` (times), `invalid_signature`; 409 `proof_replayed`, `request_not_pending`, `request_changed`, `change_not_pending`, `change_changed`, `change_not_listed`, `not_opted_in`, `self_deny`; 404 unknown request or change. Only a successful command updates the device's `lastUsedAt`. Responses stay within 8 KiB.",
    rawBody: json(DeviceBody),
    responses: {
      200: { description: 'Per command.', schema: DeviceResponse },
      403: { description: 'See the description.' },
      404: { description: 'Unknown request or change.' },
      409: { description: 'See the description.' },
      ...E.common,
    },
    cache: 'no-store',
    cors,
    handler: async (ctx) => {
      return counted(
        ctx,
        async () => {
          const body = await readBody(ctx, DeviceBody);
          return approval.channel.handle(body, sessions.clientIp(ctx), ctx.state.requestId);
        },
        false,
      );
    },
  });
}
