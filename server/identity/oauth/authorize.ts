/**
 * The authorization endpoint (RFC 6749 §4.1, OpenID Connect Core §3.1): validate the request, decide for the
 * browser's session (sign in, consent, or a code), the stored interaction between the pages, and the consent answer.
 *
 * - Errors before the client and its redirect URI are known are shown as a page, never redirected; later errors are
 *   redirected with `error`, `error_description`, `state` and `iss` (RFC 9207).
 * - A loopback redirect URI (`http://127.0.0.1`, `http://[::1]`) matches with any port (RFC 8252 §7.3).
 * - PKCE S256 is required for public clients; dynamic clients must name a `resource` on this origin and always see
 *   the consent page. `prompt=login`/`select_account` or an exceeded `max_age` ask for a fresh sign-in.
 * - Interactions (sign-in: ten minutes; consent: five minutes) are stored by hash; a consent is single-use and bound
 *   to the account it was shown to. Codes live 60 s (`grants/authorization-code.ts` redeems them).
 */

import { quoteInput } from '../../core/http/errors.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import type { AccountRow } from '../accounts/accounts.store.ts';
import {
  type Client,
  CODE_LIFETIME_MS,
  CONSENT_LIFETIME_MS,
  json,
  type OAuthContext,
  parseScope,
  random,
  SIGN_IN_INTERACTION_MS,
  sha256,
} from './action-context.ts';
import { absoluteUri, SUPPORTED_SCOPES } from './oauth.schemas.ts';

export interface AuthorizationParams {
  clientId: string;
  redirectUri: string;
  scope: string[];
  resource: string | null;
  state: string | null;
  nonce: string | null;
  codeChallenge: string | null;
  prompt: string[];
  maxAge: number | null;
}

export interface SessionView {
  familyId: string;
  issuedAt: number;
  account: AccountRow;
}

export type AuthorizeOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'error_page'; status: number; title: string; message: string }
  | { kind: 'sign_in'; interactionId: string; client: Client; error?: string; status?: number; loginHint?: string }
  | { kind: 'consent'; interactionId: string; client: Client; params: AuthorizationParams; account: AccountRow };

/** Exact redirect matching; a loopback IP literal redirect with `http` matches with any port (RFC 8252 §7.3). */
export function redirectMatches(registered: string, given: string): boolean {
  if (registered === given) return true;
  const r = absoluteUri(registered);
  const g = absoluteUri(given);
  if (!r || !g || r.protocol !== 'http:' || g.protocol !== 'http:') return false;
  if (!(r.hostname === '127.0.0.1' || r.hostname === '[::1]') || r.hostname !== g.hostname) return false;
  return r.pathname === g.pathname && r.search === g.search && !g.username && !g.password;
}

export function createAuthorize(ctx: OAuthContext) {
  const { store, now, getClient } = ctx;

  /** The redirect of an authorization response: its fields, `state` unchanged, and `iss` (RFC 9207) always. */
  function authorizationResponse(redirectUri: string, state: string | null, fields: Record<string, string>) {
    const u = new URL(redirectUri);
    for (const [k, v] of Object.entries(fields)) u.searchParams.set(k, v);
    if (state !== null) u.searchParams.set('state', state);
    u.searchParams.set('iss', ctx.issuer());
    return u.toString();
  }

  function errorLocation(params: AuthorizationParams, error: string, description: string) {
    return authorizationResponse(params.redirectUri, params.state, { error, error_description: description });
  }

  async function newInteraction(params: AuthorizationParams, sub: string | null, expiresAt: number): Promise<string> {
    const id = random(32);
    await store.insertInteraction({
      id_hash: sha256(id),
      client_id: params.clientId,
      params: JSON.stringify(params),
      sub,
      created_at: now(),
      expires_at: expiresAt,
    });
    return id;
  }

  async function issueCode(params: AuthorizationParams, client: Client, session: SessionView): Promise<string> {
    const code = random(32);
    const at = now();
    await store.insertCode({
      code_hash: sha256(code),
      client_id: client.clientId,
      sub: session.account.sub,
      redirect_uri: params.redirectUri,
      scope: JSON.stringify(params.scope),
      audiences: JSON.stringify(params.resource !== null ? [params.resource] : client.audiences),
      resource: params.resource,
      nonce: params.nonce,
      code_challenge: params.codeChallenge,
      auth_time: Math.floor(session.issuedAt / 1000),
      sid: sha256(session.familyId).slice(0, 22),
      created_at: at,
      expires_at: at + CODE_LIFETIME_MS,
    });
    return authorizationResponse(params.redirectUri, params.state, { code });
  }

  return {
    /**
     * Validates an authorization request. Errors before the client and redirect URI are known are shown as a page
     * (never redirected); later errors are redirected with `state` and `iss` (RFC 9207).
     */
    async validateAuthorization(
      q: Record<string, unknown>,
    ): Promise<{ ok: AuthorizationParams; client: Client } | { page: { status: number; title: string; message: string } } | { redirect: string }> {
      const one = (k: string): string | undefined | null => {
        const v = q[k];
        if (v === undefined) return undefined;
        if (typeof v !== 'string') return null;
        return v;
      };
      const clientId = one('client_id');
      const redirectUri = one('redirect_uri');
      if (!clientId) return { page: { status: 400, title: 'Invalid request', message: 'The application did not send a client_id.' } };
      const client = await getClient(clientId);
      if (!client || client.revokedAt !== null)
        return { page: { status: 400, title: 'Unknown application', message: 'This application is not registered with Hearth, or it was revoked.' } };
      if (!redirectUri || !client.redirectUris.some((r) => redirectMatches(r, redirectUri))) {
        return { page: { status: 400, title: 'Invalid redirect', message: 'The application asked to return to an address that is not registered for it.' } };
      }
      const state = one('state');
      const fail = (error: string, description: string) => ({
        redirect: authorizationResponse(redirectUri, typeof state === 'string' ? state : null, { error, error_description: description }),
      });
      for (const k of [
        'response_type',
        'scope',
        'resource',
        'state',
        'nonce',
        'code_challenge',
        'code_challenge_method',
        'prompt',
        'max_age',
        'response_mode',
      ]) {
        if (one(k) === null) return fail('invalid_request', `${k} must be given once`);
      }
      if (one('request') !== undefined) return fail('request_not_supported', 'request objects are not supported');
      if (one('request_uri') !== undefined) return fail('request_uri_not_supported', 'request_uri is not supported');
      if (one('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
      const mode = one('response_mode');
      if (mode !== undefined && mode !== 'query') return fail('invalid_request', 'only response_mode=query is supported');
      const asked = parseScope(one('scope') as string | undefined);
      let scope: string[];
      if (asked === null || asked.length === 0) scope = client.scopes;
      else {
        const unknown = asked.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
        if (unknown !== undefined) return fail('invalid_scope', `unknown scope ${quoteInput(unknown)}`);
        const denied = asked.find((s) => !client.scopes.includes(s));
        if (denied !== undefined) return fail('invalid_scope', `scope ${quoteInput(denied)} is not allowed for this client`);
        scope = asked;
      }
      const rawResource = one('resource') as string | undefined;
      let resource: string | null = null;
      if (rawResource !== undefined) {
        if (!absoluteUri(rawResource)) return fail('invalid_target', 'resource must be an absolute URI without fragment');
        if (!ctx.audienceAllowed(client, rawResource)) {
          return fail(
            'invalid_target',
            client.origin === 'dynamic' ? "resource must be on the platform's own origin" : "resource is not one of this client's audiences",
          );
        }
        resource = rawResource;
      } else if (client.origin === 'dynamic') return fail('invalid_target', 'resource is required for this client');
      const challenge = one('code_challenge') as string | undefined;
      const method = one('code_challenge_method') as string | undefined;
      if (method !== undefined && method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256 (plain is not supported)');
      if (challenge !== undefined) {
        if (method !== 'S256') return fail('invalid_request', 'code_challenge_method=S256 is required with a code_challenge');
        if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
          return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
      } else if (client.isPublic) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
      else if (method !== undefined) return fail('invalid_request', 'code_challenge_method without code_challenge');
      const nonce = (one('nonce') as string | undefined) ?? null;
      if (nonce !== null && nonce.length > 512) return fail('invalid_request', 'nonce is longer than 512 characters');
      if (typeof state === 'string' && state.length > 2048) return fail('invalid_request', 'state is longer than 2048 characters');
      const prompt = parseScope(one('prompt') as string | undefined) ?? [];
      if (prompt.some((p) => !['none', 'login', 'consent', 'select_account'].includes(p))) return fail('invalid_request', 'unknown prompt value');
      if (prompt.includes('none') && prompt.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with other values');
      const rawMaxAge = one('max_age') as string | undefined;
      let maxAge: number | null = null;
      if (rawMaxAge !== undefined) {
        if (!/^\d{1,9}$/.test(rawMaxAge)) return fail('invalid_request', 'max_age must be a non-negative integer');
        maxAge = Number(rawMaxAge);
      }
      if (client.firstUsedAt === null) await store.markClientUsed(client.clientId, now());
      return {
        ok: { clientId: client.clientId, redirectUri, scope, resource, state: state ?? null, nonce, codeChallenge: challenge ?? null, prompt, maxAge },
        client,
      };
    },

    /** Continues a validated request for the browser's session (null: not signed in). */
    async decide(
      params: AuthorizationParams,
      client: Client,
      session: SessionView | null,
      opts: { interactionId?: string; freshSince?: number } = {},
    ): Promise<AuthorizeOutcome> {
      const fail = (error: string, description: string): AuthorizeOutcome => ({ kind: 'redirect', location: errorLocation(params, error, description) });
      const at = now();
      const fresh = (s: SessionView) => opts.freshSince !== undefined && s.issuedAt >= opts.freshSince;
      let needLogin = session === null;
      if (session && !fresh(session)) {
        if (params.prompt.includes('login') || params.prompt.includes('select_account')) needLogin = true;
        if (params.maxAge !== null && at - session.issuedAt > params.maxAge * 1000) needLogin = true;
      }
      if (needLogin) {
        if (params.prompt.includes('none')) return fail('login_required', 'the user is not signed in');
        const interactionId = opts.interactionId ?? (await newInteraction(params, null, at + SIGN_IN_INTERACTION_MS));
        return { kind: 'sign_in', interactionId, client };
      }
      const row = session!.account;
      if (!(await ctx.mayAuthorize(client, row))) return fail('access_denied', 'this account may not use this application');
      const needConsent = client.origin === 'dynamic' || params.prompt.includes('consent');
      if (needConsent) {
        if (params.prompt.includes('none')) return fail('consent_required', 'the user must approve this application');
        const id = opts.interactionId ?? (await newInteraction(params, null, at + CONSENT_LIFETIME_MS));
        await store.bindInteraction(sha256(id), row.sub, at + CONSENT_LIFETIME_MS);
        return { kind: 'consent', interactionId: id, client, params, account: row };
      }
      return { kind: 'redirect', location: await issueCode(params, client, session!) };
    },

    /** The stored request of an interaction (sign-in or consent), or null when unknown, used or expired. */
    async interaction(id: string) {
      const row = await store.getInteraction(sha256(id));
      if (!row || row.used_at !== null || row.expires_at <= now()) return null;
      const client = await getClient(row.client_id);
      if (!client || client.revokedAt !== null) return null;
      return { params: json<AuthorizationParams>(row.params), client, sub: row.sub, createdAt: row.created_at };
    },

    /** Approval or denial: single use, five minutes, bound to the account the consent page was shown to. */
    async consent(id: string, session: SessionView, approve: boolean, a: Actor): Promise<AuthorizeOutcome> {
      const hash = sha256(id);
      const row = await store.getInteraction(hash);
      const gone: AuthorizeOutcome = {
        kind: 'error_page',
        status: 409,
        title: 'This request has expired',
        message: 'This approval request was already answered or has expired. Return to the application and start again.',
      };
      if (!row || row.sub === null) return gone;
      if (row.sub !== session.account.sub)
        return { kind: 'error_page', status: 403, title: 'Wrong account', message: 'This approval request was shown to another account.' };
      if (!(await store.useInteraction(hash, now()))) return gone;
      const params = json<AuthorizationParams>(row.params);
      const client = await getClient(row.client_id);
      if (!client || client.revokedAt !== null)
        return { kind: 'error_page', status: 400, title: 'Unknown application', message: 'This application is no longer registered.' };
      await ctx.record(a, approve ? 'oauth.consent.approve' : 'oauth.consent.deny', client.clientId, {
        sub: session.account.sub,
        scope: params.scope,
        resource: params.resource,
      });
      if (!approve) return { kind: 'redirect', location: errorLocation(params, 'access_denied', 'the user denied the request') };
      if (!(await ctx.mayAuthorize(client, session.account)))
        return { kind: 'redirect', location: errorLocation(params, 'access_denied', 'this account may not use this application') };
      return { kind: 'redirect', location: await issueCode(params, client, session) };
    },
  };
}
