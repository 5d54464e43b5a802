/**
 * Routes of device changes requested from the browser (device-changes.ts): start a removal, its status, cancel.
 */
import { actorFor } from '../../core/auth/auth.ts';
import { json, type RouteKit, readBody } from './approval.route-kit.ts';
import { ChangeRefBody, ChangeStartBody, ChangeStartResponse, ChangeStatus } from './approval.schemas.ts';

export function registerDeviceChangeRoutes(k: RouteKit): void {
  const { approval, tags, P, route, write, recent, E } = k;
  route({
    method: 'post',
    path: `${P}/manage/device-changes/start`,
    operationId: 'appDeviceChangeStart',
    tags,
    access: 'authenticated',
    summary: 'Request the removal of a device (approved on another device)',
    description:
      'Body `{deviceId, endSessions}`. Needs a session issued within ten minutes. Creates a device change of kind `revoke` (five minutes) that an active device of the account that opted in to `device-changes` approves or denies (the device being removed may approve, not deny, its own removal); ' +
      '`endSessions: true` ends every other session of the account on approval. The same request again from the same session returns the pending change; a different `endSessions` replaces it. ' +
      'When no other active device opted in to `device-changes`, the device is revoked at once: `{changeId: null, state: "revoked", deviceId, endSessions, endedSessions}`.',
    rawBody: json(ChangeStartBody),
    responses: {
      200: { description: 'The pending change, or the plain revocation.', schema: ChangeStartResponse },
      ...E.recent,
      404: { description: '`device_not_found`.' },
      409: { description: '`device_already_revoked`.' },
      ...E.common,
    },
    handler: async (ctx) => {
      const s = recent(ctx);
      const body = await readBody(ctx, ChangeStartBody);
      return approval.startRemoval(s, body.deviceId, body.endSessions, actorFor(ctx));
    },
  });
  route({
    method: 'post',
    path: `${P}/manage/device-changes/status`,
    operationId: 'appDeviceChangeStatus',
    tags,
    access: 'authenticated',
    summary: 'State of a device change this session requested',
    description:
      'Body `{changeId}` or `{deviceId}` (the newest removal of that device requested by this session). Answers `{changeId, state, expiresAt}` with `state` `pending`, `approved`, `denied`, `cancelled` (also when replaced) or `expired`. ' +
      'No recent sign-in needed; another session of the same account gets 404, as does a change one minute past expiry.',
    rawBody: json(ChangeRefBody),
    responses: { 200: { description: 'The state.', schema: ChangeStatus }, ...E.session, 404: { description: 'Unavailable.' }, ...E.common },
    handler: async (ctx) => approval.changeStatus(write(ctx), await readBody(ctx, ChangeRefBody)),
  });
  route({
    method: 'post',
    path: `${P}/manage/device-changes/cancel`,
    operationId: 'appDeviceChangeCancel',
    tags,
    access: 'authenticated',
    summary: 'Cancel a pending device change this session requested',
    description:
      'Same body as status. 204 (also when already cancelled); 409 `change_not_pending` when decided or expired. Cancelling a `pair` change cancels its pairing.',
    rawBody: json(ChangeRefBody),
    responses: {
      204: { description: 'Cancelled.' },
      ...E.session,
      404: { description: 'Unavailable.' },
      409: { description: '`change_not_pending`.' },
      ...E.common,
    },
    handler: async (ctx) => {
      const s = write(ctx);
      await approval.cancelChange(s, await readBody(ctx, ChangeRefBody), actorFor(ctx));
      ctx.status = 204;
    },
  });
}
