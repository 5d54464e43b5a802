import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { ProfileList, ProfileParams, ProfileRead, ProfileWrite, TestSendBody, TestSendFailure, TestSendResult } from './profiles.schemas.ts';
import type { ProfilesService } from './profiles.service.ts';

export const MAIL_BASE = '/api/admin/core/outgoing-mail';

export function registerProfileRoutes(api: Api, profiles: ProfilesService): void {
  const tags = ['Outgoing mail: profiles'];
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/profiles`,
    operationId: 'listMailProfiles',
    tags,
    access: 'admin',
    summary: 'List sender profiles',
    description: 'Passwords are never returned: `hasPassword` and `imap.hasPassword` say whether one is stored.',
    responses: { 200: { description: 'Every profile, by key.', schema: () => ProfileList } },
    cache: 'no-store',
    handler: async (_ctx) => {
      return { data: await profiles.list() };
    },
  });
  api.route({
    method: 'get',
    path: `${MAIL_BASE}/profiles/:key`,
    operationId: 'getMailProfile',
    tags,
    access: 'admin',
    summary: 'Read a sender profile',
    description: 'Its `revision` is needed to replace it.',
    params: () => ProfileParams,
    responses: { 200: { description: 'The profile.', schema: () => ProfileRead }, 404: { description: 'No such profile (`profile_unknown`).' } },
    cache: 'no-store',
    handler: (_ctx, { params }) => {
      return profiles.get(params.key);
    },
  });
  api.route({
    method: 'put',
    path: `${MAIL_BASE}/profiles/:key`,
    operationId: 'putMailProfile',
    tags,
    access: 'admin',
    summary: 'Create or replace a sender profile',
    description:
      'Without `revision` the key must be new (201); the first profile becomes the default. With `revision` the profile is replaced (200) when the revision is current. ' +
      '`smtpPassword` / `imap.password`: omitted keeps, null clears, a string replaces; changing the host requires giving it again or clearing it (`password_required`). ' +
      'Audited as `outgoing_mail.profile.create` / `outgoing_mail.profile.update` (never with a password).',
    params: () => ProfileParams,
    body: () => ProfileWrite,
    responses: {
      200: { description: 'Replaced.', schema: () => ProfileRead },
      201: { description: 'Created.', schema: () => ProfileRead },
      400: { description: 'Invalid field (`invalid_request`) or a host change without the password (`password_required`).' },
      409: { description: 'The key exists and no revision was given (`profile_exists`), or the revision is stale (`revision_conflict`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { params, body }) => {
      const { profile, created } = await profiles.put(params.key, body, actorFor(ctx));
      ctx.status = created ? 201 : 200;
      return profile;
    },
  });
  api.route({
    method: 'delete',
    path: `${MAIL_BASE}/profiles/:key`,
    operationId: 'deleteMailProfile',
    tags,
    access: 'admin',
    summary: 'Delete a sender profile',
    description:
      'Cancels its queued mail (`profile_removed`) and removes its application grants. The default profile cannot be deleted while other profiles exist (`profile_is_default`). Audited as `outgoing_mail.profile.delete`.',
    params: () => ProfileParams,
    responses: {
      204: { description: 'Deleted.' },
      404: { description: 'No such profile (`profile_unknown`).' },
      409: { description: 'It is the default profile (`profile_is_default`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { params }) => {
      await profiles.remove(params.key, actorFor(ctx));
      ctx.status = 204;
    },
  });
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/profiles/:key/default`,
    operationId: 'setDefaultMailProfile',
    tags,
    access: 'admin',
    summary: 'Make a profile the default',
    description: 'Subsequent sends that give no profile use it; queued mail keeps its profile. Audited as `outgoing_mail.profile.default`.',
    params: () => ProfileParams,
    responses: { 200: { description: 'The new default profile.', schema: () => ProfileRead }, 404: { description: 'No such profile (`profile_unknown`).' } },
    cache: 'no-store',
    handler: (ctx, { params }) => {
      return profiles.setDefault(params.key, actorFor(ctx));
    },
  });
  api.route({
    method: 'post',
    path: `${MAIL_BASE}/profiles/:key/test`,
    operationId: 'testMailProfile',
    tags,
    access: 'admin',
    summary: 'Send a test message through a profile',
    description:
      'Proves SMTP acceptance only. Not written to the send log; audited as `outgoing_mail.profile.test`. ' +
      'A failure answers 502 `smtp_failed`: `message` is one sentence saying what to check, `reason` the classified cause ' +
      '(`connection_refused`, `host_not_found`, `tls_required`, `tls_not_supported`, `certificate_untrusted`, `auth_failed`, `auth_required`, ' +
      "`timeout`, `sender_refused`, `recipient_refused`, `message_refused`, `smtp_error`) and `detail` the server's raw answer, credentials redacted. " +
      'Either way the result is kept on the profile as `lastTest`.',
    params: () => ProfileParams,
    body: () => TestSendBody,
    responses: {
      200: { description: 'Accepted by the SMTP server.', schema: () => TestSendResult },
      404: { description: 'No such profile (`profile_unknown`).' },
      502: { description: 'The SMTP server refused or could not be reached (`smtp_failed`, with `reason` and `detail`).', schema: () => TestSendFailure },
    },
    cache: 'no-store',
    handler: async (ctx, { params, body }) => {
      return await profiles.testSend(params.key, body.to, actorFor(ctx));
    },
  });
}
