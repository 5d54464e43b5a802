import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { MAIL_BASE } from '../profiles/profiles.routes.ts';
import { AppList, AppParams, AppRead, Policy, RegisterAppBody, RegisteredApp, UpdateAppBody } from './apps.schemas.ts';
import type { AppsService } from './apps.service.ts';

export function registerAppRoutes(api: Api, apps: AppsService): void {
  const tags = ['Outgoing mail: applications'];
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/apps`,
    operationId: 'listMailApps',
    tags,
    access: 'admin',
    summary: 'List applications and their mail access',
    description:
      '`core` first, then registered applications (with whether they declare `mail:send`) and stored policies of applications that are not registered.',
    responses: { 200: { description: 'Applications.', schema: () => AppList } },
    cache: 'no-store',
    handler: (_ctx) => {
      return apps.list();
    },
  });
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/apps`,
    operationId: 'registerMailApp',
    tags,
    access: 'admin',
    summary: 'Register an application',
    description:
      "Creates the application's bearer credential (an API token reaching no namespace), returned once as `token`. Audited as `outgoing_mail.app.register`.",
    body: () => RegisterAppBody,
    responses: { 201: { description: 'Registered.', schema: () => RegisteredApp }, 409: { description: 'Already registered (`app_exists`).' } },
    cache: 'no-store',
    handler: (ctx, { body }) => {
      ctx.status = 201;
      return apps.register(body, actorFor(ctx));
    },
  });
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/apps/:appId`,
    operationId: 'getMailApp',
    tags,
    access: 'admin',
    summary: "Read an application's mail access",
    params: () => AppParams,
    responses: {
      200: { description: 'The application.', schema: () => AppRead },
      404: { description: 'Neither registered nor with a stored policy (`app_unknown`).' },
    },
    cache: 'no-store',
    handler: (_ctx, { params }) => {
      return apps.get(params.appId);
    },
  });
  api.route({
    method: 'patch',
    path: `${MAIL_BASE}/apps/:appId`,
    operationId: 'updateMailApp',
    tags,
    access: 'admin',
    summary: "Change an application's name or declaration",
    description: 'Dropping `mail:send` cancels its queued mail before the next attempt (`profile_not_allowed`). Audited as `outgoing_mail.app.update`.',
    params: () => AppParams,
    body: () => UpdateAppBody,
    responses: { 200: { description: 'The application.', schema: () => AppRead }, 404: { description: 'Not registered (`app_unknown`).' } },
    cache: 'no-store',
    handler: (ctx, { params, body }) => {
      return apps.update(params.appId, body, actorFor(ctx));
    },
  });
  api.route({
    method: 'delete',
    path: `${MAIL_BASE}/apps/:appId`,
    operationId: 'unregisterMailApp',
    tags,
    access: 'admin',
    summary: 'Unregister an application',
    description:
      'Revokes its credential. Its stored policy and queued mail stay (absence from the registry does not cancel mail). Audited as `outgoing_mail.app.unregister`.',
    params: () => AppParams,
    responses: { 204: { description: 'Unregistered.' }, 404: { description: 'Not registered (`app_unknown`).' } },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      await apps.unregister(params.appId, actorFor(ctx));
      ctx.status = 204;
    },
  });
  api.route({
    method: 'put',
    path: `${MAIL_BASE}/apps/:appId/policy`,
    operationId: 'setMailAppPolicy',
    tags,
    access: 'admin',
    summary: "Set an application's access policy",
    description:
      'Exactly one mode: `{"mode":"default"}`, `{"mode":"profiles","profiles":[…]}` or `{"mode":"none"}`. Unknown profile keys are rejected. Works for applications that are not registered (offline). Core\'s access cannot be changed (`core_policy_fixed`). Audited as `outgoing_mail.app.policy`.',
    params: () => AppParams,
    body: () => Policy,
    responses: {
      200: { description: 'The application with its new policy.', schema: () => AppRead },
      404: { description: 'An unknown profile key (`profile_unknown`).' },
      409: { description: '`core` (`core_policy_fixed`).' },
    },
    cache: 'no-store',
    handler: (ctx, { params, body }) => {
      return apps.setPolicy(params.appId, body, actorFor(ctx));
    },
  });
}
