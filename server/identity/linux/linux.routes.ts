import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { LinuxConfig, type LinuxService, PAGE_SIZE } from './linux.service.ts';

const BASE = '/api/admin/core/linux-identities';
const Identity = z
  .object({ username: z.string(), uid: z.number().int(), gid: z.number().int(), primaryGroup: z.string(), homeDirectory: z.string(), loginShell: z.string() })
  .meta({ id: 'LinuxIdentity' });
const AccountIdentity = z
  .object({
    sub: z.string(),
    login: z.string(),
    profile: z.enum(['user', 'guest']),
    disabled: z.boolean(),
    eligible: z.boolean().meta({ description: 'Local full account (profile `user`); guests are not eligible.' }),
    identity: Identity.nullable(),
    conflicts: z.array(z.string()).meta({ description: 'Why an identity cannot be assigned (or differs), as `code: explanation`. Never resolved silently.' }),
  })
  .meta({ id: 'LinuxAccount' });
const ConfigState = z.object({ config: LinuxConfig, configValid: z.boolean().optional() }).meta({ id: 'LinuxConfigState' });
const SubParams = z.object({ id: z.uuid('id must be a UUID') });
const Path = (what: string) =>
  z
    .string()
    .min(2)
    .max(255)
    .refine((p) => p.startsWith('/') && !/[:\x00-\x1f\x7f]/.test(p), `${what} must be an absolute path without ":" or control characters`);

export function registerLinuxRoutes(api: Api, linux: LinuxService): void {
  const tags = ['Linux identities'];
  api.route({
    method: 'get',
    path: BASE,
    operationId: 'previewLinuxIdentities',
    tags,
    access: 'admin',
    summary: 'Preview accounts and their Linux identities',
    description: `Pages of ${PAGE_SIZE} person accounts ordered by \`sub\`; \`after\` is the previous page's \`nextCursor\` (null on the last page). \`scope=ready\` lists only eligible accounts without an identity. \`search\` matches login and display name. Never changes anything.`,
    query: z
      .object({
        after: z.uuid('after must be a UUID (a nextCursor)').optional(),
        scope: z.enum(['all', 'ready']).default('all'),
        search: z.string().max(200).optional(),
      })
      .strict(),
    responses: {
      200: {
        description: 'A page.',
        schema: z
          .object({ config: LinuxConfig, configValid: z.boolean(), accounts: z.array(AccountIdentity), nextCursor: z.string().nullable() })
          .meta({ id: 'LinuxPreview' }),
      },
    },
    handler: (ctx, { query }) => {
      ctx.set('Cache-Control', 'no-store');
      return linux.preview(query);
    },
  });
  api.route({
    method: 'get',
    path: `${BASE}/configuration`,
    operationId: 'getLinuxConfiguration',
    tags,
    access: 'admin',
    summary: 'The Linux identity configuration',
    description: 'An unreadable stored value answers the disabled default with `configValid: false` (assignment fails closed).',
    responses: { 200: { description: 'The configuration.', schema: ConfigState } },
    handler: async () => {
      const r = await linux.readConfig();
      return { config: r.config, configValid: r.valid };
    },
  });
  api.route({
    method: 'put',
    path: `${BASE}/configuration`,
    operationId: 'putLinuxConfiguration',
    tags,
    access: 'admin',
    summary: 'Replace the Linux identity configuration',
    description:
      'Body `{config: {enabled, rangeStart, rangeEnd, homeTemplate, loginShell}, rangeReserved}`. The range is 1000–2147483647 with no default; enabling needs `rangeReserved: true` (400 `range_not_confirmed`). Existing identities are never rewritten; enabling runs no backfill. Audited as `linux.config.update`.',
    body: z.object({ config: LinuxConfig, rangeReserved: z.boolean().default(false) }).strict(),
    responses: { 200: { description: 'Saved.', schema: ConfigState }, 400: { description: '`invalid_request`, `range_not_confirmed`.' } },
    handler: (ctx, { body }) => linux.replaceConfig(body.config, body.rangeReserved, actorFor(ctx)),
  });
  api.route({
    method: 'get',
    path: `${BASE}/users/:id`,
    operationId: 'getLinuxIdentity',
    tags,
    access: 'admin',
    summary: 'One account and its identity state',
    params: SubParams,
    responses: { 200: { description: 'The account.', schema: AccountIdentity }, 404: { description: '`account_not_found`.' } },
    handler: (_ctx, { params }) => linux.get(params.id),
  });
  api.route({
    method: 'post',
    path: `${BASE}/users/:id`,
    operationId: 'prepareLinuxIdentity',
    tags,
    access: 'admin',
    summary: 'Backfill one account',
    description:
      'Assigns a UID and a private primary group (same number) with the configured home and shell, atomically with its audit entry (`linux.identity.assign`). Repeating returns the existing identity without renumbering (`created: false`). 409 `linux_not_eligible` (guest), `linux_disabled`, `linux_conflict`, `linux_range_exhausted`.',
    params: SubParams,
    responses: {
      200: { description: 'The account with its identity.', schema: AccountIdentity.extend({ created: z.boolean() }) },
      404: { description: '`account_not_found`.' },
      409: { description: 'Not assignable.' },
    },
    handler: (ctx, { params }) => linux.prepare(params.id, actorFor(ctx)),
  });
  api.route({
    method: 'patch',
    path: `${BASE}/users/:id`,
    operationId: 'updateLinuxIdentity',
    tags,
    access: 'admin',
    summary: 'Set home directory and login shell',
    description: 'Both fields are required. Works while assignment is disabled too. Audited as `linux.identity.update`.',
    params: SubParams,
    body: z.object({ homeDirectory: Path('homeDirectory'), loginShell: Path('loginShell') }).strict(),
    responses: {
      200: { description: 'The account.', schema: AccountIdentity },
      404: { description: '`account_not_found`, `linux_identity_not_found`.' },
      409: { description: '`linux_not_eligible`.' },
    },
    handler: (ctx, { params, body }) => linux.update(params.id, body, actorFor(ctx)),
  });
  api.route({
    method: 'get',
    path: `${BASE}/groups`,
    operationId: 'listPosixGroups',
    tags,
    access: 'admin',
    summary: 'Groups with a GID',
    responses: {
      200: { description: 'POSIX groups, by GID.', schema: z.object({ data: z.array(z.object({ id: z.string(), name: z.string(), gid: z.number().int() })) }) },
    },
    handler: () => linux.listPosixGroups(),
  });
  api.route({
    method: 'post',
    path: `${BASE}/groups/:id`,
    operationId: 'makeGroupPosix',
    tags,
    access: 'admin',
    summary: 'Assign a GID to a group',
    description:
      "Idempotent; grants nothing (no sudo). Audited as `linux.group.assign`. 409 `linux_disabled`, `linux_conflict` (an identity's private group has the name), `linux_range_exhausted`.",
    params: SubParams,
    responses: {
      200: { description: "The group's GID.", schema: z.object({ id: z.string(), name: z.string(), gid: z.number().int(), created: z.boolean() }) },
      404: { description: '`group_not_found`.' },
    },
    handler: (ctx, { params }) => linux.makePosix(params.id, actorFor(ctx)),
  });
}

// The shapes as the API sends them: the admin UI imports these as types (ui/src/lib/api/identity.ts).
export type LinuxIdentity = z.output<typeof Identity>;
export type LinuxAccount = z.output<typeof AccountIdentity>;
