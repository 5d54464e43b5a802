/**
 * Administration of OAuth clients (`/api/admin/oauth/clients`, administrators only): list, create (a confidential
 * client's secret is shown once), read, update, rotate the secret, revoke and delete. The protocol endpoints
 * (`/oauth/*`, discovery, UserInfo) are in oauth.routes.ts; the rules are in clients.ts.
 */
import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { ClientList, ClientListQuery, ClientParams, ClientWithSecret, CreateClientBody, OAuthClient, UpdateClientBody } from './oauth.schemas.ts';
import type { OAuthService } from './oauth.service.ts';

export function registerOAuthClientRoutes(api: Api, oauth: OAuthService): void {
  const admin = ['OAuth clients'];
  api.route({
    method: 'get',
    path: '/api/admin/oauth/clients',
    operationId: 'listOAuthClients',
    tags: admin,
    access: 'admin',
    summary: 'List OAuth clients',
    query: () => ClientListQuery,
    responses: { 200: { description: 'A page of clients (`per_page` at most 100).', schema: () => ClientList } },
    handler: (_ctx, { query }) => oauth.listClients(query),
  });
  api.route({
    method: 'post',
    path: '/api/admin/oauth/clients',
    operationId: 'createOAuthClient',
    tags: admin,
    access: 'admin',
    summary: 'Create a managed OAuth client',
    description:
      'Confidential clients get a secret (`hcs_…`), shown only in this answer. A client bound to a service account must be confidential; it may then use `client_credentials`. Lists hold at most 50 entries. Audited as `oauth.client.create`.',
    body: () => CreateClientBody,
    responses: { 201: { description: 'The client and its secret.', schema: () => ClientWithSecret } },
    handler: async (ctx, { body }) => {
      ctx.set('Cache-Control', 'no-store');
      const r = await oauth.createClient(body, actorFor(ctx));
      ctx.status = 201;
      return r;
    },
  });
  api.route({
    method: 'get',
    path: '/api/admin/oauth/clients/:clientId',
    operationId: 'getOAuthClient',
    tags: admin,
    access: 'admin',
    summary: 'Get an OAuth client',
    params: () => ClientParams,
    responses: { 200: { description: 'The client.', schema: () => z.object({ client: OAuthClient }) }, 404: { description: '`client_not_found`.' } },
    handler: async (_ctx, { params }) => ({ client: await oauth.getClientInfo(params.clientId) }),
  });
  api.route({
    method: 'patch',
    path: '/api/admin/oauth/clients/:clientId',
    operationId: 'updateOAuthClient',
    tags: admin,
    access: 'admin',
    summary: 'Update an OAuth client',
    description:
      'Changes only the fields given. Existing grants keep their audience snapshot; each refresh rechecks scopes, audiences and access against the new settings. First-party and dynamic clients cannot be edited (409 `client_protected`). Audited as `oauth.client.update`.',
    params: () => ClientParams,
    body: () => UpdateClientBody,
    responses: {
      200: { description: 'The client.', schema: () => z.object({ client: OAuthClient }) },
      404: { description: '`client_not_found`.' },
      409: { description: '`client_protected`, `client_revoked`.' },
    },
    handler: (ctx, { params, body }) => oauth.updateClient(params.clientId, body, actorFor(ctx)),
  });
  api.route({
    method: 'post',
    path: '/api/admin/oauth/clients/:clientId/secret',
    operationId: 'rotateOAuthClientSecret',
    tags: admin,
    access: 'admin',
    summary: 'Rotate a client secret',
    description: 'The old secret stops working at once. Audited as `oauth.client.secret.rotate`.',
    params: () => ClientParams,
    responses: {
      200: { description: 'The client and its new secret.', schema: () => ClientWithSecret },
      409: { description: '`client_protected`, `client_is_public`, `client_revoked`.' },
    },
    handler: (ctx, { params }) => {
      ctx.set('Cache-Control', 'no-store');
      return oauth.rotateSecret(params.clientId, actorFor(ctx));
    },
  });
  api.route({
    method: 'post',
    path: '/api/admin/oauth/clients/:clientId/revoke',
    operationId: 'revokeOAuthClient',
    tags: admin,
    access: 'admin',
    summary: 'Revoke an OAuth client',
    description:
      "The client can no longer authenticate or authorize; its refresh grants end and its access tokens stop verifying on Hearth's APIs. Idempotent. Audited as `oauth.client.revoke`.",
    params: () => ClientParams,
    responses: { 200: { description: 'The revoked client.', schema: () => z.object({ client: OAuthClient }) }, 409: { description: '`client_protected`.' } },
    handler: (ctx, { params }) => oauth.revokeClient(params.clientId, actorFor(ctx)),
  });
  api.route({
    method: 'delete',
    path: '/api/admin/oauth/clients/:clientId',
    operationId: 'deleteOAuthClient',
    tags: admin,
    access: 'admin',
    summary: 'Delete an OAuth client',
    description: 'Removes the client with its codes and grants. Audited as `oauth.client.delete`.',
    params: () => ClientParams,
    responses: { 204: { description: 'Deleted.' }, 409: { description: '`client_protected`.' } },
    handler: async (ctx, { params }) => {
      await oauth.deleteClient(params.clientId, actorFor(ctx));
      ctx.status = 204;
    },
  });
}
