/**
 * The server-rendered pages of the authorization flow: sign-in, consent, sign-out and errors. Plain HTML forms (no
 * script), posted back to this origin; every page forbids framing (clickjacking on consent) and caching.
 */
import type { AppContext } from '../../core/http/app-context.ts';
import { escapeHtml } from '../../core/http/html.ts';
import type { AccountRow } from '../accounts/accounts.store.ts';
import type { Client } from './action-context.ts';
import type { AuthorizationParams } from './authorize.ts';

const esc = escapeHtml;

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Confirm your identity (your account ID)',
  profile: 'See your name and login name',
  email: 'See your email address',
  groups: 'See the groups you belong to',
  offline_access: 'Stay connected when you are not using it (refresh tokens)',
  read: 'Read data',
  write: 'Change data',
  admin: 'Administer Hearth',
};

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; }
  body { margin: 0; background: #f3f4f6; color: #111827; display: grid; min-height: 100vh; place-items: center; }
  main { background: #fff; border: 1px solid #e5e7eb; border-radius: 12px; padding: 28px 32px; width: min(420px, 92vw); box-shadow: 0 8px 24px rgb(0 0 0 / 0.06); }
  h1 { font-size: 1.25rem; margin: 0 0 4px; }
  p.sub { color: #4b5563; margin: 0 0 20px; }
  .brand { display: flex; align-items: center; gap: 8px; font-weight: 600; margin-bottom: 18px; }
  label { display: block; font-size: .875rem; font-weight: 500; margin: 12px 0 4px; }
  input[type=text], input[type=password] { width: 100%; box-sizing: border-box; padding: 9px 10px; border: 1px solid #d1d5db; border-radius: 8px; font: inherit; }
  button { font: inherit; padding: 9px 16px; border-radius: 8px; border: 1px solid transparent; cursor: pointer; }
  .primary { background: #1f2937; color: #fff; }
  .secondary { background: #fff; border-color: #d1d5db; color: #111827; }
  .actions { display: flex; gap: 10px; justify-content: flex-end; margin-top: 22px; }
  .error { background: #fef2f2; border: 1px solid #fecaca; color: #991b1b; padding: 10px 12px; border-radius: 8px; margin-bottom: 12px; }
  dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 6px 14px; font-size: .9rem; }
  dt { color: #6b7280; } dd { margin: 0; word-break: break-all; }
  ul.scopes { padding-left: 20px; margin: 8px 0 0; } ul.scopes li { margin: 3px 0; } code { font-size: .85em; }
  .warn { background: #fffbeb; border: 1px solid #fde68a; color: #92400e; padding: 10px 12px; border-radius: 8px; margin: 16px 0 0; font-size: .875rem; }
`;

const BRAND = `<div class="brand"><svg viewBox="0 0 32 32" width="24" height="24" aria-hidden="true"><rect width="32" height="32" rx="7" fill="#1f2937"/><path d="M16 6c1.5 4 6 6.5 6 12a6 6 0 0 1-12 0c0-3 1.4-4.6 2.7-6 .3 2 1.3 3 2.3 3.4C14.6 12 14.8 8.6 16 6z" fill="#f59e0b"/></svg>Hearth</div>`;

export function sendPage(ctx: AppContext, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
  ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)} · Hearth</title><style>${STYLE}</style></head><body><main>${BRAND}${body}</main></body></html>`;
}

export function errorPage(ctx: AppContext, status: number, title: string, message: string): void {
  sendPage(ctx, status, title, `<h1>${esc(title)}</h1><p class="sub">${esc(message)}</p>`);
}

export function signInPage(ctx: AppContext, o: { interactionId: string; client: Client; error?: string; status?: number; login?: string }): void {
  sendPage(
    ctx,
    o.status ?? 200,
    'Sign in',
    `
    <h1>Sign in</h1>
    <p class="sub">to continue to <strong>${esc(o.client.name)}</strong></p>
    ${o.error ? `<div class="error" role="alert">${esc(o.error)}</div>` : ''}
    <form method="post" action="/oauth/interaction/${esc(o.interactionId)}/login">
      <label for="login">Login name</label>
      <input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" required value="${esc(o.login ?? '')}" autofocus>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
      <div class="actions"><button class="primary" type="submit">Sign in</button></div>
    </form>`,
  );
}

export function consentPage(ctx: AppContext, o: { interactionId: string; client: Client; params: AuthorizationParams; account: AccountRow }): void {
  const host = new URL(o.params.redirectUri).host;
  const scopes = o.params.scope.map((s) => `<li>${esc(SCOPE_TEXT[s] ?? s)} <code>${esc(s)}</code></li>`).join('');
  const dynamic = o.client.origin === 'dynamic';
  sendPage(
    ctx,
    200,
    'Allow access?',
    `
    <h1>Allow ${esc(o.client.name)}?</h1>
    <p class="sub">Signed in as <strong>${esc(o.account.login ?? '')}</strong></p>
    <dl>
      <dt>Application</dt><dd>${esc(o.client.name)}</dd>
      <dt>Returns to</dt><dd>${esc(host)}</dd>
      <dt>Resource</dt><dd>${o.params.resource ? `<code>${esc(o.params.resource)}</code>` : 'Hearth'}</dd>
    </dl>
    <p style="margin:16px 0 0;font-weight:500">It asks to:</p>
    <ul class="scopes">${scopes || '<li>No permissions</li>'}</ul>
    ${dynamic ? '<p class="warn">This application registered itself. Allow it only if you started this sign-in and trust it.</p>' : ''}
    <form method="post" action="/oauth/interaction/${esc(o.interactionId)}/consent">
      <div class="actions">
        <button class="secondary" type="submit" name="decision" value="deny">Deny</button>
        <button class="primary" type="submit" name="decision" value="approve">Allow</button>
      </div>
    </form>`,
  );
}

export function signOutPage(ctx: AppContext, o: { fields: Record<string, string>; login: string | null }): void {
  const hidden = Object.entries(o.fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  sendPage(
    ctx,
    200,
    'Sign out',
    `
    <h1>Sign out of Hearth?</h1>
    <p class="sub">${o.login ? `You are signed in as <strong>${esc(o.login)}</strong>.` : 'You are not signed in.'}</p>
    <form method="post" action="/oauth/logout">${hidden}
      <div class="actions"><button class="primary" type="submit" name="confirm" value="yes">Sign out</button></div>
    </form>`,
  );
}

/** "7 days", "1 hour": the sign-in lifetime as the approver reads it. */
export function lifetimeText(seconds: number): string {
  const unit = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  if (seconds % 86400 === 0) return unit(seconds / 86400, 'day');
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  return unit(Math.round(seconds / 60), 'minute');
}

/**
 * The device verification page (RFC 8628 §3.3): explains the authenticator-app approval of `hearth login --user`
 * and takes the user code of a terminal sign-in without `--user` (with the sign-in fields when not signed in).
 */
export function deviceCodePage(ctx: AppContext, o: { login: string | null; userCode?: string; error?: string; status?: number; loginName?: string }): void {
  const signIn =
    o.login === null
      ? `<label for="login">Login name</label>
      <input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" required value="${esc(o.loginName ?? '')}">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>`
      : '';
  sendPage(
    ctx,
    o.status ?? 200,
    'Sign in a terminal',
    `
    <h1>Sign in a terminal</h1>
    <p class="sub">${o.login === null ? 'A command-line tool asks to sign in to Hearth.' : `Signed in as <strong>${esc(o.login)}</strong>.`}</p>
    <p class="warn" style="margin:0 0 16px">Did the terminal print a <strong>six-digit</strong> code? Then approve the sign-in in your
      <strong>authenticator app</strong> instead, after checking that the app shows the same code. Nothing is entered here.</p>
    ${o.error ? `<div class="error" role="alert">${esc(o.error)}</div>` : ''}
    <form method="post" action="/oauth/device">
      <label for="user_code">Code shown by the terminal</label>
      <input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="BCDF-GHJK" required value="${esc(o.userCode ?? '')}"${o.login === null ? '' : ' autofocus'}>
      ${signIn}
      <div class="actions"><button class="primary" type="submit">Continue</button></div>
    </form>`,
  );
}

/** The approval of a terminal sign-in entered with its user code: client, every scope code, the sign-in lifetime. */
export function deviceConsentPage(
  ctx: AppContext,
  o: { userCode: string; client: { name: string; clientId: string }; scope: string[]; lifetimeSeconds: number; login: string },
): void {
  const scopes = o.scope.map((s) => `<li>${esc(SCOPE_TEXT[s] ?? s)} <code>${esc(s)}</code></li>`).join('');
  sendPage(
    ctx,
    200,
    'Allow this sign-in?',
    `
    <h1>Allow ${esc(o.client.name)} to sign in?</h1>
    <p class="sub">As <strong>${esc(o.login)}</strong></p>
    <dl>
      <dt>Application</dt><dd>${esc(o.client.name)} <code>${esc(o.client.clientId)}</code></dd>
      <dt>Code</dt><dd><strong>${esc(o.userCode)}</strong></dd>
      <dt>Sign-in lasts</dt><dd>${esc(lifetimeText(o.lifetimeSeconds))}</dd>
    </dl>
    <p style="margin:16px 0 0;font-weight:500">It asks to:</p>
    <ul class="scopes">${scopes}</ul>
    <p class="warn">Allow only if you started this sign-in yourself and the terminal shows the same code.</p>
    <form method="post" action="/oauth/device/decision">
      <input type="hidden" name="user_code" value="${esc(o.userCode)}">
      <div class="actions">
        <button class="secondary" type="submit" name="decision" value="deny">Deny</button>
        <button class="primary" type="submit" name="decision" value="approve">Allow</button>
      </div>
    </form>`,
  );
}
