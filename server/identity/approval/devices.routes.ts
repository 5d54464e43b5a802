/**
 * Routes of the paired devices (devices.ts): the account's own list, rename and revoke, and the administrator's list
 * and revoke of an account's devices (registered last, and available while the protocol is disabled).
 */
import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import { requirePlatformOrigin } from '../sessions/sessions.service.ts';
import { json, type RouteKit, readBody } from './approval.route-kit.ts';
import { Device, DevicePage, DevicesQuery, DeviceUpdateBody } from './approval.schemas.ts';

export function registerDeviceRoutes(k: RouteKit): void {
  const { approval, tags, P, route, session, recent, E } = k;
  route({
    method: 'get',
    path: `${P}/manage/devices`,
    operationId: 'appDevices',
    tags,
    access: 'authenticated',
    summary: "The signed-in account's authenticator devices",
    description:
      'Pages of at most twenty in device-ID order, revoked devices included (with `revokedAt`); pass `after=<nextCursor>` for the next page (`nextCursor` is null on the last). ' +
      'A page stays within 8 KiB: with long multi-byte names it holds fewer items and `nextCursor` continues right after its last item.',
    query: DevicesQuery,
    responses: { 200: { description: 'A page.', schema: DevicePage }, ...E.session, 503: E.common[503] },
    cache: 'no-store',
    handler: (ctx, { query }) => {
      return approval.listDevices(session(ctx).sub, query.after ?? null);
    },
  });
  route({
    method: 'post',
    path: `${P}/manage/devices/update`,
    operationId: 'appDeviceUpdate',
    tags,
    access: 'authenticated',
    summary: "Rename or revoke one of the account's devices",
    description:
      'Body `{operation: "rename", deviceId, name}` or `{operation: "revoke", deviceId}`. Needs a session issued within ten minutes and the device to be the account\'s (404 `device_not_found`). Answers the device. Revocation is audited as `auth.app.device.revoke`.',
    rawBody: json(DeviceUpdateBody),
    responses: { 200: { description: 'The device.', schema: Device }, ...E.recent, 404: { description: '`device_not_found`.' }, ...E.common },
    handler: async (ctx) => {
      const s = recent(ctx);
      return approval.updateDevice(s.sub, await readBody(ctx, DeviceUpdateBody), actorFor(ctx));
    },
  });
}

export function registerAdminDeviceRoutes(k: RouteKit): void {
  const { approval, issuer, tags, route } = k;
  const AdminParams = z.object({ id: z.string().min(1).max(100) });
  route({
    method: 'get',
    path: '/api/admin/core/users/:id/app-devices',
    operationId: 'adminAppDevices',
    tags,
    access: 'admin',
    summary: "An account's authenticator devices (administrator)",
    description:
      'Pages of at most twenty, revoked devices included; `after=<nextCursor>` for the next page. A page stays within 8 KiB (fewer items with long multi-byte names; `nextCursor` continues after the last item). Available also while the protocol is disabled.',
    params: AdminParams,
    query: DevicesQuery,
    responses: { 200: { description: 'A page.', schema: DevicePage }, 404: { description: '`account_not_found`.' } },
    cache: 'no-store',
    handler: (_ctx, { params, query }) => {
      return approval.accountDevices(params.id, query.after ?? null);
    },
  });
  route({
    method: 'post',
    path: '/api/admin/core/users/:id/app-devices/:deviceId/revoke',
    operationId: 'adminAppDeviceRevoke',
    tags,
    access: 'admin',
    summary: "Revoke an account's authenticator device (administrator)",
    description:
      'Immediate; audited as `auth.app.device.revoke` with `by: "administrator"`. Revoking a revoked device answers it unchanged. Answers the device.',
    params: z.object({ id: z.string().min(1).max(100), deviceId: z.string().min(1).max(100) }),
    responses: { 200: { description: 'The device.', schema: Device }, 404: { description: '`device_not_found`.' } },
    handler: (ctx, { params }) => {
      if (ctx.state.principal?.session) requirePlatformOrigin(ctx, issuer());
      return approval.adminRevoke(params.id, params.deviceId, actorFor(ctx));
    },
  });
}
