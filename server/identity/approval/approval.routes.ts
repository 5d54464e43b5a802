/**
 * The routes of the authenticator-approval protocol (base /api/auth/app-approval/v1), composed from one routes file
 * per flow: pairing.routes.ts, devices.routes.ts, device-changes.routes.ts, browser-login.routes.ts and
 * approval.channel.routes.ts, over the shared helpers of approval.route-kit.ts. This file owns what spans them: the
 * disabled answer (503 `approval_disabled` before authentication), the `/info` discovery document, and the order the
 * routes are registered (and described) in. The paths the authenticator website calls from its own origin (`/info`,
 * `/pairings/claim`, `/pairings/result`, `/device`) take the kit's `cors` route option, which answers their preflights
 * too; nothing else gets CORS.
 */
import type { Api } from '../../core/http/api.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import { registerDeviceChannelRoutes } from './approval.channel.routes.ts';
import { createRouteKit } from './approval.route-kit.ts';
import { InfoResponse } from './approval.schemas.ts';
import type { ApprovalService } from './approval.service.ts';
import { registerBrowserLoginRoutes } from './browser-login.routes.ts';
import { registerDeviceChangeRoutes } from './device-changes.routes.ts';
import { registerAdminDeviceRoutes, registerDeviceRoutes } from './devices.routes.ts';
import { registerPairingRoutes } from './pairing.routes.ts';

/** The answer of every endpoint but `/info` while no authenticator origin is configured. */
export const APPROVAL_DISABLED_MESSAGE =
  'phone-authenticator approval is disabled on this instance: set HEARTH_AUTHENTICATOR_ORIGIN to the origin of the authenticator website ' +
  '(e.g. https://auth.example.com), or run the reference authenticator web app with `hearth serve --authenticator-port <port>`, then restart';

export function registerApprovalRoutes(api: Api, approval: ApprovalService, sessions: SessionsService, opts: { issuer: () => string }): void {
  const k = createRouteKit(api, approval, sessions, opts);
  const { tags, P, route, cors } = k;
  // Disabled (no authenticator origin): every protocol path but /info answers 503 `approval_disabled`, before
  // authentication. The administrator's device list and revoke stay available (to clean up after disabling).
  api.router.use(async (ctx, next) => {
    if (ctx.path.startsWith(`${P}/`) && ctx.path !== `${P}/info` && ctx.method !== 'OPTIONS' && !approval.enabled()) {
      throw new HearthError('approval_disabled', APPROVAL_DISABLED_MESSAGE);
    }
    return next();
  });

  route({
    method: 'get',
    path: `${P}/info`,
    operationId: 'appApprovalInfo',
    tags,
    access: 'public',
    summary: 'Discovery of the authenticator-approval protocol',
    description:
      'Answers `{protocol: "hearth-app-approval-v1", issuer, api, appOrigin, algorithm: "ES256", limits, features, enabled}`. `appOrigin` is the configured authenticator website (`HEARTH_AUTHENTICATOR_ORIGIN`, or the reference authenticator listener `--authenticator-port`); ' +
      '`features` lists `device-changes`, `terminal-logins` and, when the sign-in context service runs, `login-context`. Without an authenticator origin the protocol is disabled: `enabled: false`, `appOrigin: null`, `features: []`, and every other endpoint answers 503 `approval_disabled` ' +
      '(UIs hide the phone features). CORS for the authenticator origin only.',
    responses: { 200: { description: 'The info document.', schema: InfoResponse } },
    cors,
    handler: (ctx) => {
      ctx.set('Cache-Control', 'no-cache');
      return approval.info();
    },
  });

  registerPairingRoutes(k);
  registerDeviceRoutes(k);
  registerDeviceChangeRoutes(k);
  registerBrowserLoginRoutes(k);
  registerDeviceChannelRoutes(k);
  registerAdminDeviceRoutes(k);
}
