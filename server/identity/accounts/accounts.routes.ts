import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import {
  Account,
  AccountCategoryPolicy,
  AccountCategoryPolicyState,
  AccountDetail,
  AccountList,
  AccountListQuery,
  CreateAccountBody,
  CreateGroupBody,
  CreateServiceAccountBody,
  GroupDetail,
  GroupList,
  GroupParams,
  MemberBody,
  MemberQuery,
  PageQuery,
  ServiceAccount,
  ServiceAccountList,
  SubParams,
  UpdateAccountBody,
  UpdateGroupBody,
} from './accounts.schemas.ts';
import type { AccountsService } from './accounts.service.ts';

const BASE = '/api/admin/core';
const policyState = (r: { policy: { allowedCategories: string[] }; valid: boolean }) => ({ ...r.policy, valid: r.valid });

export function registerAccountRoutes(api: Api, accounts: AccountsService): void {
  let tags = ['Accounts'];
  api.route({
    method: 'get',
    path: `${BASE}/accounts`,
    operationId: 'listAccounts',
    tags,
    access: 'admin',
    summary: 'List accounts',
    description:
      'Person accounts ordered by login, `per_page` (at most 100) per page. `search` matches login, email and display name. Service accounts are listed under `/api/admin/core/service-accounts`.',
    query: () => AccountListQuery,
    responses: { 200: { description: 'A page of accounts.', schema: () => AccountList } },
    cache: 'no-store',
    handler: (_ctx, { query }) => {
      return accounts.listAccounts(query);
    },
  });
  api.route({
    method: 'post',
    path: `${BASE}/accounts`,
    operationId: 'createAccount',
    tags,
    access: 'admin',
    summary: 'Create an account',
    description: 'Creates a local account with a new immutable `sub`. No credentials are set here. Audited as `account.create`.',
    body: () => CreateAccountBody,
    responses: {
      201: { description: 'Created.', schema: () => Account },
      409: { description: 'The login (`login_taken`) or email (`email_taken`, case-insensitive) is in use.' },
    },
    cache: 'no-store',
    handler: (ctx, { body }) => {
      ctx.status = 201;
      return accounts.createAccount(body, actorFor(ctx));
    },
  });
  api.route({
    method: 'get',
    path: `${BASE}/accounts/:sub`,
    operationId: 'getAccount',
    tags,
    access: 'admin',
    summary: 'Read an account and its group memberships',
    params: () => SubParams,
    responses: { 200: { description: 'The account.', schema: () => AccountDetail }, 404: { description: 'No such account (`account_not_found`).' } },
    cache: 'no-store',
    handler: (_ctx, { params }) => {
      return accounts.getAccount(params.sub);
    },
  });
  api.route({
    method: 'patch',
    path: `${BASE}/accounts/:sub`,
    operationId: 'updateAccount',
    tags,
    access: 'admin',
    summary: 'Update an account',
    description: 'Renaming keeps `sub`. Disabling bumps `epoch` (revokes sessions). Audited as `account.update`, `account.disable`, `account.enable`.',
    params: () => SubParams,
    body: () => UpdateAccountBody,
    responses: {
      200: { description: 'The updated account.', schema: () => Account },
      404: { description: 'No such account (`account_not_found`).' },
      409: { description: 'The login (`login_taken`) or email (`email_taken`) is in use.' },
    },
    cache: 'no-store',
    handler: (ctx, { params, body }) => {
      return accounts.updateAccount(params.sub, body, actorFor(ctx));
    },
  });
  api.route({
    method: 'delete',
    path: `${BASE}/accounts/:sub`,
    operationId: 'deleteAccount',
    tags,
    access: 'admin',
    summary: 'Delete an account',
    description: 'Removes the account and its group memberships. Audited as `account.delete`.',
    params: () => SubParams,
    responses: { 204: { description: 'Deleted.' }, 404: { description: 'No such account (`account_not_found`).' } },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      await accounts.deleteAccount(params.sub, actorFor(ctx));
      ctx.status = 204;
    },
  });
  api.route({
    method: 'post',
    path: `${BASE}/accounts/:sub/revoke-sessions`,
    operationId: 'revokeAccountSessions',
    tags,
    access: 'admin',
    summary: 'Revoke every session of an account',
    description: 'Bumps the account `epoch`: sessions issued under an earlier epoch stop being accepted. Audited as `account.revoke_sessions`.',
    params: () => SubParams,
    responses: {
      200: { description: 'The account with its new epoch.', schema: () => Account },
      404: { description: 'No such account (`account_not_found`).' },
    },
    cache: 'no-store',
    handler: (ctx, { params }) => {
      return accounts.revokeSessions(params.sub, actorFor(ctx));
    },
  });

  tags = ['Groups'];
  api.route({
    method: 'get',
    path: `${BASE}/groups`,
    operationId: 'listGroups',
    tags,
    access: 'admin',
    summary: 'List groups',
    description: 'Groups ordered by name, `per_page` (at most 100) per page; `search` matches name and description.',
    query: () => PageQuery,
    responses: { 200: { description: 'A page of groups.', schema: () => GroupList } },
    cache: 'no-store',
    handler: (_ctx, { query }) => {
      return accounts.listGroups(query);
    },
  });
  api.route({
    method: 'post',
    path: `${BASE}/groups`,
    operationId: 'createGroup',
    tags,
    access: 'admin',
    summary: 'Create a group',
    description: 'Audited as `group.create`.',
    body: () => CreateGroupBody,
    responses: {
      201: { description: 'Created.', schema: () => GroupDetail },
      409: {
        description:
          "The name is in use by another group or by an account's private Linux group (`group_exists`): group names and private group names are one namespace.",
      },
    },
    cache: 'no-store',
    handler: (ctx, { body }) => {
      ctx.status = 201;
      return accounts.createGroup(body, actorFor(ctx));
    },
  });
  api.route({
    method: 'get',
    path: `${BASE}/groups/:id`,
    operationId: 'getGroup',
    tags,
    access: 'admin',
    summary: 'Read a group and its direct members',
    params: () => GroupParams,
    responses: { 200: { description: 'The group.', schema: () => GroupDetail }, 404: { description: 'No such group (`group_not_found`).' } },
    cache: 'no-store',
    handler: (_ctx, { params }) => {
      return accounts.getGroup(params.id);
    },
  });
  api.route({
    method: 'patch',
    path: `${BASE}/groups/:id`,
    operationId: 'updateGroup',
    tags,
    access: 'admin',
    summary: 'Rename a group or change its description',
    description: 'Audited as `group.update`.',
    params: () => GroupParams,
    body: () => UpdateGroupBody,
    responses: {
      200: { description: 'The group.', schema: () => GroupDetail },
      404: { description: 'No such group (`group_not_found`).' },
      409: {
        description:
          "The name is in use by another group or by an account's private Linux group (`group_exists`): group names and private group names are one namespace.",
      },
    },
    cache: 'no-store',
    handler: (ctx, { params, body }) => {
      return accounts.updateGroup(params.id, body, actorFor(ctx));
    },
  });
  api.route({
    method: 'delete',
    path: `${BASE}/groups/:id`,
    operationId: 'deleteGroup',
    tags,
    access: 'admin',
    summary: 'Delete a group',
    description: 'Its memberships (as container and as member) go with it. Audited as `group.delete`.',
    params: () => GroupParams,
    responses: { 204: { description: 'Deleted.' }, 404: { description: 'No such group (`group_not_found`).' } },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      await accounts.deleteGroup(params.id, actorFor(ctx));
      ctx.status = 204;
    },
  });
  api.route({
    method: 'post',
    path: `${BASE}/groups/:id/members`,
    operationId: 'addGroupMember',
    tags,
    access: 'admin',
    summary: 'Add an account or a nested group',
    description: 'Idempotent. Adding a group to itself or to a group it contains (at any depth) is 409 `group_cycle`. Audited as `group.member.add`.',
    params: () => GroupParams,
    body: () => MemberBody,
    responses: {
      200: { description: 'The group with its members.', schema: () => GroupDetail },
      404: { description: 'No such group (`group_not_found`) or account (`account_not_found`).' },
      409: { description: 'The membership would create a cycle (`group_cycle`).' },
    },
    cache: 'no-store',
    handler: (ctx, { params, body }) => {
      return accounts.addMember(params.id, body, actorFor(ctx));
    },
  });
  api.route({
    method: 'delete',
    path: `${BASE}/groups/:id/members`,
    operationId: 'removeGroupMember',
    tags,
    access: 'admin',
    summary: 'Remove a direct member',
    description: 'The member is named in the query: `account=<sub>` or `group=<id>`. Idempotent. Audited as `group.member.remove`.',
    params: () => GroupParams,
    query: () => MemberQuery,
    responses: { 200: { description: 'The group with its members.', schema: () => GroupDetail }, 404: { description: 'No such group (`group_not_found`).' } },
    cache: 'no-store',
    handler: (ctx, { params, query }) => {
      return accounts.removeMember(params.id, query, actorFor(ctx));
    },
  });

  tags = ['Service accounts'];
  api.route({
    method: 'get',
    path: `${BASE}/service-accounts`,
    operationId: 'listServiceAccounts',
    tags,
    access: 'admin',
    summary: 'List resource-bound service accounts',
    description: '`per_page` (at most 100) per page; `search` matches application, resource type, resource id and display name.',
    query: () => PageQuery,
    responses: { 200: { description: 'A page of service accounts.', schema: () => ServiceAccountList } },
    cache: 'no-store',
    handler: (_ctx, { query }) => {
      return accounts.listServiceAccounts(query);
    },
  });
  api.route({
    method: 'post',
    path: `${BASE}/service-accounts`,
    operationId: 'createServiceAccount',
    tags,
    access: 'admin',
    summary: 'Create a resource-bound service account',
    description:
      "Each application checks the `appId` of the service accounts it accepts: the database service takes only `appId: hearth-db`, `resourceType: namespace`, `resourceId: <namespace>` (a client-credentials token of any other application's service account is 403 `forbidden` on `/v1/{ns}/…`). Audited as `service_account.create`.",
    body: () => CreateServiceAccountBody,
    responses: {
      201: { description: 'Created.', schema: () => ServiceAccount },
      409: { description: 'The application already has a service account for this resource (`service_account_exists`).' },
    },
    cache: 'no-store',
    handler: (ctx, { body }) => {
      ctx.status = 201;
      return accounts.createServiceAccount(body, actorFor(ctx));
    },
  });
  api.route({
    method: 'delete',
    path: `${BASE}/service-accounts/:sub`,
    operationId: 'deleteServiceAccount',
    tags,
    access: 'admin',
    summary: 'Delete a service account',
    description: 'Audited as `service_account.delete`.',
    params: () => SubParams,
    responses: { 204: { description: 'Deleted.' }, 404: { description: 'No such service account (`service_account_not_found`).' } },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      await accounts.deleteServiceAccount(params.sub, actorFor(ctx));
      ctx.status = 204;
    },
  });

  tags = ['Accounts'];
  api.route({
    method: 'get',
    path: `${BASE}/account-policy`,
    operationId: 'getAccountCategoryPolicy',
    tags,
    access: 'admin',
    summary: 'Read the account-category policy',
    description: 'Which account categories may use platform credential flows. `valid: false` means the stored policy is unreadable and nothing is allowed.',
    responses: { 200: { description: 'The policy in force.', schema: () => AccountCategoryPolicyState } },
    cache: 'no-store',
    handler: async (_ctx) => {
      return policyState(await accounts.readAccountCategoryPolicy());
    },
  });
  api.route({
    method: 'put',
    path: `${BASE}/account-policy`,
    operationId: 'replaceAccountCategoryPolicy',
    tags,
    access: 'admin',
    summary: 'Replace the account-category policy',
    description: 'Audited as `account_policy.update`.',
    body: () => AccountCategoryPolicy,
    responses: { 200: { description: 'The policy in force.', schema: () => AccountCategoryPolicyState } },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      return policyState(await accounts.replaceAccountCategoryPolicy(body, actorFor(ctx)));
    },
  });
}
