import { z } from 'zod';
import { actorFor, requireRole } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { SMALL_BODY_LIMIT } from '../../core/http/body.ts';
import { HearthError } from '../../core/http/errors.ts';
import { plainTextRule } from '../../core/http/text.ts';
import { Login, SubParams } from '../accounts/accounts.schemas.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
import { Password, type SessionsService, wrongOrigin } from './sessions.service.ts';

const SessionAccount = z.object({ sub: z.string(), login: z.string(), displayName: z.string(), admin: z.boolean() }).meta({ id: 'SessionAccount' });
const SignedIn = z.object({ account: SessionAccount }).meta({ id: 'SignedIn' });
const CurrentSession = z
  .object({
    account: SessionAccount,
    session: z.object({
      issuedAt: z.number().int().meta({ description: 'Sign-in time (epoch ms).' }),
      expiresAt: z.number().int().meta({ description: 'End of the session (epoch ms).' }),
      recentAuth: z.boolean().meta({ description: 'Signed in within the last ten minutes (needed for sensitive actions).' }),
    }),
  })
  .meta({ id: 'CurrentSession' });
/** Types of the answers, for the admin UI (type-only imports). */
export type SessionAccount = z.infer<typeof SessionAccount>;
export type SignedIn = z.infer<typeof SignedIn>;
export type CurrentSession = z.infer<typeof CurrentSession>;

/** Made on first use: `Login` comes from accounts.schemas.ts, which the server's bundle builds then (server/core/http/api.ts). */
const makeSetupBody = () =>
  z
    .object({
      login: Login,
      password: Password,
      displayName: z.string().trim().max(200, 'displayName must be at most 200 characters').superRefine(plainTextRule('displayName')).optional(),
      email: z.email('email must be a valid address').max(254).nullable().optional(),
    })
    .strict()
    .meta({ id: 'SetupBody' });
let setupBody: ReturnType<typeof makeSetupBody> | undefined;
const SetupBody = () => (setupBody ??= makeSetupBody());
// Any string: a malformed login must get the same answer as an unknown one.
const LoginBody = z
  .object({ login: z.string().max(256), password: z.string().max(PASSWORD_MAX_LENGTH) })
  .strict()
  .meta({ id: 'LoginBody' });
const OwnPasswordBody = z
  .object({ currentPassword: z.string().max(PASSWORD_MAX_LENGTH), newPassword: Password })
  .strict()
  .meta({ id: 'ChangeOwnPassword' });
const ReauthBody = z
  .object({ password: z.string().max(PASSWORD_MAX_LENGTH) })
  .strict()
  .meta({ id: 'ReauthBody' });
export const Reauthenticated = z
  .object({
    issuedAt: z.number().int().meta({ description: 'The new sign-in time of the session (epoch ms).' }),
    recentAuthUntil: z.number().int().meta({ description: 'Sensitive actions are allowed until then (epoch ms).' }),
  })
  .meta({ id: 'Reauthenticated' });
export type Reauthenticated = z.infer<typeof Reauthenticated>;
const SetPasswordBody = z.object({ password: Password }).strict().meta({ id: 'SetPassword' });

export function registerSessionRoutes(api: Api, sessions: SessionsService, opts: { issuer: () => string }): void {
  /** Unauthenticated browser writes (setup, sign-in): a browser always sends Origin on them, and it must be ours. */
  const originIfPresent = (ctx: AppContext) => {
    const origin = ctx.get('origin');
    if (origin && origin !== opts.issuer()) throw new HearthError('origin_mismatch', wrongOrigin(origin, opts.issuer()));
  };

  const tags = ['Sign-in'];
  api.route({
    method: 'get',
    path: '/api/setup',
    operationId: 'getSetup',
    tags,
    access: 'public',
    summary: 'Whether first-run setup is needed',
    description: '`needed` is true while no account exists.',
    responses: { 200: { description: 'Setup state.', schema: z.object({ needed: z.boolean() }) } },
    cache: 'no-store',
    handler: async (_ctx) => {
      return { needed: await sessions.needsSetup() };
    },
  });
  api.route({
    method: 'post',
    path: '/api/setup',
    operationId: 'setup',
    tags,
    access: 'public',
    summary: 'Create the first administrator',
    description: `Only while no account exists. The password is ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters, stored as an Argon2id hash. Audited as \`account.create\` and \`setup.complete\`.`,
    body: SetupBody,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      201: { description: 'The administrator account.', schema: SignedIn },
      403: { description: 'A browser request from another origin (`origin_mismatch`).' },
      409: { description: 'An account already exists (`already_set_up`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      originIfPresent(ctx);
      const account = await sessions.setup(body, { actor: 'setup', requestId: ctx.state.requestId });
      ctx.status = 201;
      return { account: { sub: account.sub, login: account.login, displayName: account.displayName, admin: account.admin } };
    },
  });

  api.route({
    method: 'post',
    path: '/api/auth/login',
    operationId: 'login',
    tags,
    access: 'public',
    summary: 'Sign in with a login and password',
    description:
      'Sets the HttpOnly `hearth_session` cookie (SameSite=Lax, Secure when the public URL is https; 12 hours). Every refusal is the same 401 `invalid_credentials`. Ten failures a minute from one IP answer 429 `rate_limited` with `Retry-After`. Audited as `session.login`.',
    body: LoginBody,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      200: { description: 'Signed in.', schema: SignedIn },
      401: { description: 'Wrong login or password, or the account may not sign in (`invalid_credentials`).' },
      403: { description: 'A browser request from another origin (`origin_mismatch`).' },
      429: { description: 'Too many failures from this address (`rate_limited`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      originIfPresent(ctx);
      const r = await sessions.login(body.login, body.password, sessions.clientIp(ctx), ctx.state.requestId);
      await sessions.signedIn(ctx, r);
      return { account: r.account };
    },
  });
  api.route({
    method: 'post',
    path: '/api/auth/logout',
    operationId: 'logout',
    tags,
    access: 'public',
    summary: 'Sign out',
    description:
      'Revokes the session family of the cookie and clears the cookie. Needs the platform `Origin` when a session is live. Audited as `session.logout`.',
    responses: { 204: { description: 'Signed out.' }, 403: { description: 'Wrong or missing Origin (`origin_mismatch`).' } },
    cache: 'no-store',
    handler: async (ctx) => {
      ctx.append('Set-Cookie', await sessions.logout(ctx));
      ctx.status = 204;
    },
  });
  api.route({
    method: 'get',
    path: '/api/auth/whoami',
    operationId: 'whoami',
    tags,
    access: 'authenticated',
    summary: 'The caller as every domain sees it',
    description:
      'The request context after `requireRole(authenticated)`: `actor` (audit name), `accessSubject` (the account UUID, the service-account ID, or `token:<id>`), `kind`, `admin` and, for OAuth access tokens, the `scope` cap. Works with a session, an API token or an OAuth access token.',
    responses: {
      200: {
        description: 'The caller.',
        schema: z
          .object({
            actor: z.string(),
            accessSubject: z.string(),
            kind: z.enum(['user', 'service_account', 'token']),
            admin: z.boolean(),
            scope: z.array(z.string()).nullable(),
          })
          .meta({ id: 'RequestIdentity' }),
      },
    },
    cache: 'no-store',
    handler: (ctx) => {
      return requireRole(ctx, 'authenticated');
    },
  });
  api.route({
    method: 'get',
    path: '/api/auth/session',
    operationId: 'getSession',
    tags,
    access: 'public',
    summary: 'The signed-in account',
    responses: { 200: { description: 'The current session.', schema: CurrentSession }, 401: { description: 'No valid session (`unauthorized`).' } },
    cache: 'no-store',
    handler: async (ctx) => {
      const current = await sessions.current(ctx);
      if (!current) {
        if (ctx.get('cookie').includes('hearth_session=')) ctx.append('Set-Cookie', sessions.clearCookie());
        throw new HearthError('unauthorized', 'not signed in');
      }
      return current;
    },
  });
  api.route({
    method: 'put',
    path: '/api/auth/password',
    operationId: 'changeOwnPassword',
    tags,
    access: 'authenticated',
    summary: "Change the signed-in account's password",
    description: "Needs a session (not an API token) and the current password; the account's other sessions end. Audited as `account.password.change`.",
    body: OwnPasswordBody,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      204: { description: 'Changed.' },
      401: { description: 'The current password is wrong (`invalid_credentials`).' },
      429: { description: 'Too many failures from this address (`rate_limited`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      const session = ctx.state.principal?.session;
      if (!session) throw new HearthError('forbidden', 'only a signed-in account can change its own password (API tokens have none)');
      await sessions.changeOwnPassword(session, body.currentPassword, body.newPassword, sessions.clientIp(ctx), actorFor(ctx));
      ctx.status = 204;
    },
  });

  api.route({
    method: 'post',
    path: '/api/auth/reauth',
    operationId: 'reauthenticate',
    tags,
    access: 'authenticated',
    summary: 'Confirm the password again (recent authentication)',
    description:
      "For a signed-in account whose sign-in is older than ten minutes: the password of the session's account makes the session count as signed in now, so sensitive actions (`recent_auth_required`) succeed again. The cookie stays the same. Needs a session (not an API token). A wrong password is 401 `invalid_credentials` (the session continues); five failures per account within a minute answer 429 `rate_limited`. Audited as `session.reauthenticate`.",
    body: ReauthBody,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      200: { description: 'Re-authenticated.', schema: Reauthenticated },
      401: { description: 'The password is wrong (`invalid_credentials`).' },
      403: { description: 'Not an account session (`forbidden`).' },
      429: { description: 'Too many failures for this account (`rate_limited`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { body }) => {
      const session = ctx.state.principal?.session;
      if (!session) throw new HearthError('forbidden', 'only a signed-in account can confirm its password (API tokens have none)');
      return sessions.reauthenticate(session, body.password, actorFor(ctx));
    },
  });

  api.route({
    method: 'put',
    path: '/api/admin/core/accounts/:sub/password',
    operationId: 'setAccountPassword',
    tags: ['Accounts'],
    access: 'admin',
    summary: "Set an account's password",
    description:
      "Stores an Argon2id hash; every session of the account (but the caller's) ends. From a browser session it needs a sign-in within the last ten minutes (`recent_auth_required`). Audited as `account.password.set`.",
    params: () => SubParams,
    body: SetPasswordBody,
    bodyLimit: { max: SMALL_BODY_LIMIT },
    responses: {
      204: { description: 'Set.' },
      403: { description: 'The session is older than ten minutes (`recent_auth_required`).' },
      404: { description: 'No such account (`account_not_found`).' },
    },
    cache: 'no-store',
    handler: async (ctx, { params, body }) => {
      const session = ctx.state.principal?.session;
      if (session) sessions.requireRecentAuth(ctx);
      await sessions.setPassword(params.sub, body.password, actorFor(ctx), session?.familyId ?? null);
      ctx.status = 204;
    },
  });
}
