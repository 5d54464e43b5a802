import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { SMALL_BODY_LIMIT } from '../../core/http/body.ts';
import { HearthError } from '../../core/http/errors.ts';
import { plainTextRule } from '../../core/http/text.ts';
import { Reauthenticated } from '../sessions/sessions.routes.ts';
import { type SessionsService, wrongOrigin } from '../sessions/sessions.service.ts';
import { MAX_PASSKEYS_PER_ACCOUNT, type PasskeysService } from './passkeys.service.ts';

const Passkey = z
  .object({
    id: z.string(),
    name: z.string(),
    transports: z.array(z.string()),
    deviceType: z.string(),
    backedUp: z.boolean(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'Passkey' });
/** A passkey as the API sends it (the admin UI imports this type). */
export type Passkey = z.output<typeof Passkey>;
const Ceremony = z
  .object({
    challengeId: z.string(),
    options: z.record(z.string(), z.unknown()).meta({ description: 'WebAuthn options (JSON form) for `navigator.credentials.create`/`get`.' }),
  })
  .meta({ id: 'PasskeyCeremony' });
const Credential = z.record(z.string(), z.unknown()).meta({ description: 'The WebAuthn credential in its JSON form (`PublicKeyCredential.toJSON()`).' });
const Name = z.string().trim().min(1, 'name must be 1–80 characters').max(80, 'name must be 1–80 characters').superRefine(plainTextRule('name'));
const IdParams = z.object({ id: z.string().min(1).max(1400) });

export function registerPasskeyRoutes(api: Api, passkeys: PasskeysService, sessions: SessionsService, opts: { issuer: () => string }): void {
  const tags = ['Passkeys'];
  /** Passkey management is for a signed-in account (API and OAuth tokens have no passkeys). */
  const session = (ctx: AppContext) => {
    const s = ctx.state.principal?.session;
    if (!s) throw new HearthError('forbidden', 'only a signed-in account has passkeys (API and OAuth tokens have none)');
    return s;
  };

  api.route({
    method: 'post',
    path: '/api/auth/passkeys/registration',
    operationId: 'passkeyRegistrationOptions',
    tags,
    access: 'authenticated',
    summary: 'Start registering a passkey',
    description: `Needs a session signed in within ten minutes (403 \`recent_auth_required\`). Answers a challenge (single-use, five minutes) and the options for \`navigator.credentials.create\`: a discoverable credential with user verification. At most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys per account.`,
    responses: { 200: { description: 'The ceremony.', schema: Ceremony }, 403: { description: '`forbidden` (not a session), `recent_auth_required`.' } },
    cache: 'no-store',
    handler: async (ctx) => {
      const s = session(ctx);
      sessions.requireRecentAuth(ctx);
      return await passkeys.registrationOptions(s);
    },
  });
  api.route({
    method: 'post',
    path: '/api/auth/passkeys',
    operationId: 'registerPasskey',
    tags,
    access: 'authenticated',
    summary: 'Finish registering a passkey',
    description:
      'Body `{challengeId, credential, name?}`. Verifies the attestation (`none` accepted) for this origin and host, with user verification. Audited as `passkey.register`.',
    body: z.object({ challengeId: z.string().max(100), credential: Credential, name: Name.optional() }).strict(),
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: { 201: { description: 'Registered.', schema: Passkey }, 400: { description: 'Expired challenge or a credential that does not verify.' } },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      const s = session(ctx);
      sessions.requireRecentAuth(ctx);
      const r = await passkeys.register(s, { challengeId: body.challengeId, response: body.credential as never, name: body.name }, actorFor(ctx));
      ctx.status = 201;
      return r;
    },
  });
  api.route({
    method: 'get',
    path: '/api/auth/passkeys',
    operationId: 'listPasskeys',
    tags,
    access: 'authenticated',
    summary: "The signed-in account's passkeys",
    responses: { 200: { description: 'Passkeys.', schema: z.object({ data: z.array(Passkey) }) } },
    cache: 'no-store',
    handler: async (ctx) => {
      return { data: await passkeys.list(session(ctx).sub) };
    },
  });
  api.route({
    method: 'patch',
    path: '/api/auth/passkeys/:id',
    operationId: 'renamePasskey',
    tags,
    access: 'authenticated',
    summary: 'Rename a passkey',
    params: IdParams,
    body: z.object({ name: Name }).strict(),
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: { 200: { description: 'Renamed.', schema: Passkey }, 404: { description: '`passkey_not_found`.' } },
    handler: (ctx, { params, body }) => passkeys.rename(session(ctx).sub, params.id, body.name, actorFor(ctx)),
  });
  api.route({
    method: 'delete',
    path: '/api/auth/passkeys/:id',
    operationId: 'removePasskey',
    tags,
    access: 'authenticated',
    summary: 'Remove a passkey',
    description: 'Needs a session signed in within ten minutes. Audited as `passkey.remove`.',
    params: IdParams,
    responses: { 204: { description: 'Removed.' }, 404: { description: '`passkey_not_found`.' } },
    handler: async (ctx, { params }) => {
      const s = session(ctx);
      sessions.requireRecentAuth(ctx);
      await passkeys.remove(s.sub, params.id, actorFor(ctx));
      ctx.status = 204;
    },
  });

  api.route({
    method: 'post',
    path: '/api/auth/passkeys/reauth/options',
    operationId: 'passkeyReauthOptions',
    tags,
    access: 'authenticated',
    summary: 'Start confirming with a passkey (recent authentication)',
    description:
      'For a signed-in account with at least one passkey: a challenge (single-use, five minutes) bound to the account, and options for `navigator.credentials.get` listing its passkeys. No passkey: 404 `passkey_not_found` (confirm with the password at `POST /api/auth/reauth`).',
    responses: {
      200: { description: 'The ceremony.', schema: Ceremony },
      403: { description: '`forbidden` (not a session).' },
      404: { description: '`passkey_not_found`.' },
    },
    cache: 'no-store',
    handler: async (ctx) => {
      return await passkeys.reauthOptions(session(ctx));
    },
  });
  api.route({
    method: 'post',
    path: '/api/auth/passkeys/reauth',
    operationId: 'passkeyReauthenticate',
    tags,
    access: 'authenticated',
    summary: 'Confirm with a passkey (recent authentication)',
    description:
      "Body `{challengeId, credential}`: the answer to `POST /api/auth/passkeys/reauth/options`, by one of the session's own passkeys. The session then counts as signed in now, so sensitive actions (`recent_auth_required`) succeed again; the cookie stays the same. Any other passkey, a used or expired challenge or a failed verification is 401 `invalid_credentials` (the session continues). Audited as `session.reauthenticate` with `method: passkey`.",
    body: z.object({ challengeId: z.string().max(100), credential: Credential }).strict(),
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      200: { description: 'Re-authenticated.', schema: Reauthenticated },
      401: { description: '`invalid_credentials`.' },
      403: { description: '`forbidden` (not a session), `origin_mismatch`.' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      const origin = ctx.get('origin');
      if (origin && origin !== opts.issuer()) throw new HearthError('origin_mismatch', wrongOrigin(origin, opts.issuer()));
      return await passkeys.reauthenticate(session(ctx), { challengeId: body.challengeId, response: body.credential as never }, actorFor(ctx));
    },
  });
  api.route({
    method: 'post',
    path: '/api/auth/passkeys/login/options',
    operationId: 'passkeySignInOptions',
    tags,
    access: 'public',
    summary: 'Start a passkey sign-in',
    description:
      'Answers a challenge (single-use, five minutes) and options for `navigator.credentials.get` (discoverable credentials, user verification required).',
    responses: { 200: { description: 'The ceremony.', schema: Ceremony } },
    cache: 'no-store',
    handler: async (_ctx) => {
      return await passkeys.loginOptions();
    },
  });
  api.route({
    method: 'post',
    path: '/api/auth/passkeys/login',
    operationId: 'passkeySignIn',
    tags,
    access: 'public',
    summary: 'Sign in with a passkey',
    description:
      'Body `{challengeId, credential}`. Sets the same `hearth_session` cookie as a password sign-in. Every refusal is 401 `invalid_credentials` and counts towards the per-address sign-in limit (429). Audited as `session.login` with `method: passkey`.',
    body: z.object({ challengeId: z.string().max(100), credential: Credential }).strict(),
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      200: {
        description: 'Signed in.',
        schema: z.object({ account: z.object({ sub: z.string(), login: z.string(), displayName: z.string(), admin: z.boolean() }) }),
      },
      401: { description: '`invalid_credentials`.' },
      403: { description: '`origin_mismatch`.' },
      429: { description: '`rate_limited`.' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      const origin = ctx.get('origin');
      if (origin && origin !== opts.issuer()) throw new HearthError('origin_mismatch', wrongOrigin(origin, opts.issuer()));
      const r = await passkeys.login({ challengeId: body.challengeId, response: body.credential as never }, sessions.clientIp(ctx), ctx.state.requestId);
      await sessions.signedIn(ctx, r);
      return { account: r.account };
    },
  });
}
