import { z } from 'zod';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { readFormBody, SMALL_BODY_LIMIT } from '../../core/http/body.ts';
import { escapeHtml } from '../../core/http/html.ts';
import { errorPage, sendPage } from '../oauth/oauth.pages.ts';
import { type EmailLinks, LINK_LIFETIME_MS, type LinkPurpose } from './email-links.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
import { requirePlatformOrigin, type SessionsService } from './sessions.service.ts';

const esc = escapeHtml;
const FORM_LIMIT = 16 * 1024;
const Html = z.string().meta({ description: 'An HTML page.' });
const Accepted = z.object({ accepted: z.literal(true) }).meta({ id: 'EmailLinkAccepted' });
const RequestBody = z.object({ login: z.string().min(1).max(256).meta({ description: 'Login name or email address.' }) }).strict();

export function registerEmailLinkRoutes(api: Api, links: EmailLinks, sessions: SessionsService, opts: { issuer: () => string }): void {
  const tags = ['Sign-in'];
  const requireOrigin = (ctx: AppContext) => requirePlatformOrigin(ctx, opts.issuer());
  const requestPage = (ctx: AppContext, purpose: LinkPurpose, sent: boolean) => {
    const title = purpose === 'reset' ? 'Reset your password' : 'Email me a sign-in link';
    const action = purpose === 'reset' ? '/auth/forgot-password' : '/auth/email-sign-in/request';
    sendPage(
      ctx,
      200,
      title,
      sent
        ? `<h1>Check your email</h1><p class="sub">If an account with that name or address may sign in, we sent it a link. It works once, for ${LINK_LIFETIME_MS[purpose] / 60_000} minutes.</p><p><a href="/">Back to sign-in</a></p>`
        : `<h1>${title}</h1><p class="sub">Enter your login name or email address. We will email a link to the address on your account.</p>
        <form method="post" action="${action}"><label for="login">Login name or email</label>
        <input id="login" name="login" type="text" autocomplete="username" required autofocus>
        <div class="actions"><a href="/" style="align-self:center;margin-right:auto">Back</a><button class="primary" type="submit">Send link</button></div></form>`,
    );
  };
  const expired = (ctx: AppContext) =>
    errorPage(ctx, 400, 'This link has expired', 'The link was already used, has expired, or the account may not sign in. Ask for a new one.');

  for (const purpose of ['reset', 'magic'] as const) {
    const apiPath = purpose === 'reset' ? '/api/auth/password-reset' : '/api/auth/magic-link';
    api.route({
      method: 'post',
      path: apiPath,
      operationId: purpose === 'reset' ? 'requestPasswordReset' : 'requestMagicLink',
      tags,
      access: 'public',
      summary: purpose === 'reset' ? 'Email a password-reset link' : 'Email a sign-in link',
      description: `Always 202 \`{accepted: true}\` (no account enumeration). A link is sent only to an account that may sign in and has an email address, through outgoing mail (application \`core\`, default profile); at most three live links per account; twenty requests a minute per address (429). The link lives ${LINK_LIFETIME_MS[purpose] / 60_000} minutes and works once.`,
      body: RequestBody,
      bodyLimit: { max: SMALL_BODY_LIMIT },
      responses: { 202: { description: 'Accepted.', schema: Accepted }, 429: { description: '`rate_limited`.' } },
      handler: async (ctx, { body }) => {
        ctx.set('Cache-Control', 'no-store');
        await links.request(purpose, body.login, sessions.clientIp(ctx), ctx.state.requestId);
        ctx.status = 202;
        return { accepted: true as const };
      },
    });
  }

  // ---- pages ----
  api.route({
    method: 'get',
    path: '/auth/forgot-password',
    operationId: 'forgotPasswordPage',
    tags,
    access: 'public',
    summary: 'Page: ask for a password-reset link',
    responses: { 200: { description: 'Page.', schema: Html, contentType: 'text/html' } },
    handler: (ctx) => requestPage(ctx, 'reset', false),
  });
  api.route({
    method: 'post',
    path: '/auth/forgot-password',
    operationId: 'forgotPasswordForm',
    tags,
    access: 'public',
    summary: 'Form: ask for a password-reset link',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: RequestBody },
    responses: {
      403: { description: "Not posted from this platform's own pages (`origin_mismatch`)." },
      200: { description: 'Page.', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      await links.request('reset', (form.login ?? '').slice(0, 256), sessions.clientIp(ctx), ctx.state.requestId);
      requestPage(ctx, 'reset', true);
    },
  });
  api.route({
    method: 'get',
    path: '/auth/email-sign-in/request',
    operationId: 'magicLinkRequestPage',
    tags,
    access: 'public',
    summary: 'Page: ask for a sign-in link',
    responses: { 200: { description: 'Page.', schema: Html, contentType: 'text/html' } },
    handler: (ctx) => requestPage(ctx, 'magic', false),
  });
  api.route({
    method: 'post',
    path: '/auth/email-sign-in/request',
    operationId: 'magicLinkRequestForm',
    tags,
    access: 'public',
    summary: 'Form: ask for a sign-in link',
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: RequestBody },
    responses: {
      403: { description: "Not posted from this platform's own pages (`origin_mismatch`)." },
      200: { description: 'Page.', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      await links.request('magic', (form.login ?? '').slice(0, 256), sessions.clientIp(ctx), ctx.state.requestId);
      requestPage(ctx, 'magic', true);
    },
  });

  const TokenQuery = z.object({ token: z.string().max(100).optional() });
  api.route({
    method: 'get',
    path: '/auth/reset-password',
    operationId: 'resetPasswordPage',
    tags,
    access: 'public',
    summary: 'Page: choose a new password (from the emailed link)',
    description: 'Shows the form; opening the link does not use it.',
    query: TokenQuery,
    responses: {
      200: { description: 'Page.', schema: Html, contentType: 'text/html' },
      400: { description: 'Expired link page.', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx, { query }) => {
      const row = query.token ? await links.peek('reset', query.token) : null;
      if (!row) return expired(ctx);
      sendPage(
        ctx,
        200,
        'Choose a new password',
        `<h1>Choose a new password</h1><p class="sub">for <strong>${esc(row.login!)}</strong></p>
        <form method="post" action="/auth/reset-password"><input type="hidden" name="token" value="${esc(query.token!)}">
        <label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" required autofocus>
        <div class="actions"><button class="primary" type="submit">Set password and sign in</button></div></form>`,
      );
    },
  });
  api.route({
    method: 'post',
    path: '/auth/reset-password',
    operationId: 'resetPasswordForm',
    tags,
    access: 'public',
    summary: 'Form: set the new password',
    description: `Form fields \`token\`, \`password\` (${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters). Needs this platform's \`Origin\`. Uses the link, sets the password, ends every session of the account, signs this browser in and redirects to \`/\`. Audited as \`account.password.set\` and \`session.login\` (method \`reset_link\`).`,
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ token: z.string(), password: z.string() }) },
    responses: {
      403: { description: "Not posted from this platform's own pages (`origin_mismatch`)." },
      303: { description: 'Signed in.' },
      400: { description: 'Expired link or a password of the wrong length (a page).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      const password = form.password ?? '';
      if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
        return errorPage(
          ctx,
          400,
          'Password not accepted',
          `A password has ${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters. Open the link again to try once more.`,
        );
      }
      const row = await links.consume('reset', form.token ?? '');
      if (!row) return expired(ctx);
      await sessions.setPassword(row.sub, password, { actor: `account:${row.login}`, requestId: ctx.state.requestId });
      const fresh = await sessions.startSession(row, ctx.state.requestId, 'reset_link');
      await sessions.signedIn(ctx, fresh);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.set('Location', '/');
      ctx.body = '';
    },
  });
  api.route({
    method: 'get',
    path: '/auth/email-sign-in',
    operationId: 'magicLinkPage',
    tags,
    access: 'public',
    summary: 'Page: confirm an emailed sign-in link',
    description: 'Shows a button; opening the link does not use it (mail scanners fetch links).',
    query: TokenQuery,
    responses: {
      200: { description: 'Page.', schema: Html, contentType: 'text/html' },
      400: { description: 'Expired link page.', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx, { query }) => {
      const row = query.token ? await links.peek('magic', query.token) : null;
      if (!row) return expired(ctx);
      sendPage(
        ctx,
        200,
        'Sign in',
        `<h1>Sign in to Hearth</h1><p class="sub">as <strong>${esc(row.login!)}</strong></p>
        <form method="post" action="/auth/email-sign-in"><input type="hidden" name="token" value="${esc(query.token!)}">
        <div class="actions"><button class="primary" type="submit">Sign in</button></div></form>`,
      );
    },
  });
  api.route({
    method: 'post',
    path: '/auth/email-sign-in',
    operationId: 'magicLinkForm',
    tags,
    access: 'public',
    summary: 'Form: sign in with the emailed link',
    description:
      "Form field `token`. Needs this platform's `Origin`. Uses the link once, opens a session and redirects to `/`. Audited as `session.login` (method `email_link`).",
    rawBody: { contentType: 'application/x-www-form-urlencoded', schema: z.object({ token: z.string() }) },
    responses: {
      403: { description: "Not posted from this platform's own pages (`origin_mismatch`)." },
      303: { description: 'Signed in.' },
      400: { description: 'Expired link (a page).', schema: Html, contentType: 'text/html' },
    },
    handler: async (ctx) => {
      requireOrigin(ctx);
      const form = await readFormBody(ctx, FORM_LIMIT);
      const row = await links.consume('magic', form.token ?? '');
      if (!row) return expired(ctx);
      const fresh = await sessions.startSession(row, ctx.state.requestId, 'email_link');
      await sessions.signedIn(ctx, fresh);
      ctx.set('Cache-Control', 'no-store');
      ctx.status = 303;
      ctx.set('Location', '/');
      ctx.body = '';
    },
  });
}
