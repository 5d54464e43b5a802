/**
 * The identity platform. Other domains use only this file.
 * Accounts, groups, service accounts and account categories (accounts/); password sign-in, first-run setup and
 * platform sessions (sessions/), passkeys (passkeys/); signing keys (keys/) — the only code that touches a private
 * key; the OAuth 2.0 / OpenID Connect server (oauth/); authenticator approval (approval/); Linux identities (linux/);
 * Hearth's notices to accounts (notices.ts). Other domains get the closed signing authority (typed token shapes, no
 * arbitrary claims) and the application-facing verifiers from here.
 *
 * One file because it is the domain's one wiring point, as server/boot.ts is the server's: the migrations in order,
 * the construction in dependency order, routes, start and stop, and the surface other domains call (a quarter of the
 * file, mostly one line per member handing on to the service that owns it).
 */

import type { AuditLog } from '../core/audit/audit.ts';
import type { IdentitySecretsConfig } from '../core/config/config.ts';
import { testPasswordHashing } from '../core/config/environment.ts';
import type { Api } from '../core/http/api.ts';
import { createLogger, type Logger } from '../core/logging/logger.ts';
import type { Address } from '../core/net/address.ts';
import type { SecretStore } from '../core/secrets/secrets.ts';
import type { Migration } from '../core/storage/platform-db.ts';
import type { Store } from '../core/storage/store.ts';
import { registerAccountRoutes } from './accounts/accounts.routes.ts';
import { type AccountsService, createAccountsService, presentAccount } from './accounts/accounts.service.ts';
import type { AccountRow } from './accounts/accounts.store.ts';
import { accountMigrations, createAccountStore } from './accounts/accounts.store.ts';
import { registerApprovalRoutes } from './approval/approval.routes.ts';
import { createApprovalService } from './approval/approval.service.ts';
import { approvalMigrations, createApprovalStore } from './approval/approval.store.ts';
import { openGeoIp } from './approval/geoip.ts';
import { createLoginContext } from './approval/signin-context.ts';
import { signinHistoryMigrations } from './approval/signin-history.store.ts';
import { PURPOSES } from './keys/keys.lifecycle.ts';
import { type EarlyKeyPairs, startKeyPairs } from './keys/keys.material.ts';
import { registerKeyRoutes } from './keys/keys.routes.ts';
import { createKeysService, type JwksOrigins, resolveBrokerSecret } from './keys/keys.service.ts';
import { createKeyStore, keyMigrations } from './keys/keys.store.ts';
import { registerLinuxRoutes } from './linux/linux.routes.ts';
import { createLinuxService } from './linux/linux.service.ts';
import { createLinuxStore, linuxMigrations } from './linux/linux.store.ts';
import { createNotices, registerNoticeRoutes } from './notices.ts';
import { registerOAuthClientRoutes } from './oauth/clients.routes.ts';
import { registerOAuthRoutes } from './oauth/oauth.routes.ts';
import { PLATFORM_AUDIENCE } from './oauth/oauth.schemas.ts';
import { createOAuthService } from './oauth/oauth.service.ts';
import { createOAuthStore, oauthMigrations } from './oauth/oauth.store.ts';
import { registerPasskeyRoutes } from './passkeys/passkeys.routes.ts';
import { createPasskeysService } from './passkeys/passkeys.service.ts';
import { createPasskeyStore, passkeyMigrations } from './passkeys/passkeys.store.ts';
import { registerEmailLinkRoutes } from './sessions/email-links.routes.ts';
import { type CoreMailer, createEmailLinks, emailLinkMigrations } from './sessions/email-links.ts';
import { registerSessionRoutes } from './sessions/sessions.routes.ts';
import { createSessionsService, type SessionsService } from './sessions/sessions.service.ts';
import { createSessionStore, sessionMigrations } from './sessions/sessions.store.ts';

export const identityMigrations: Migration[] = [
  ...keyMigrations,
  ...accountMigrations,
  ...sessionMigrations,
  ...oauthMigrations,
  ...linuxMigrations,
  ...passkeyMigrations,
  ...emailLinkMigrations,
  ...approvalMigrations,
  ...signinHistoryMigrations,
];

export type { AccountCategoryPolicy } from './accounts/accounts.schemas.ts';
export type { Account, AccountsService, PolicySubject, ServiceAccount } from './accounts/accounts.service.ts';
export { DEFAULT_ACCOUNT_CATEGORY_POLICY } from './accounts/accounts.service.ts';
export type { AccountCategory, CategorizedAccount } from './accounts/categories.ts';
export { ACCOUNT_CATEGORIES, accountCategory, accountCategoryLabel } from './accounts/categories.ts';
export { resolveKeks } from './keys/keys.crypto.ts';
export { TOKEN_POLICY, verificationWindowMs } from './keys/keys.lifecycle.ts';
export { resolveBrokerSecret } from './keys/keys.service.ts';
export type {
  AccessTokenInput,
  IdTokenInput,
  InvocationTokenInput,
  SessionTokenInput,
  VerifiedAccessToken,
  VerifiedInvocation,
  VerifiedSession,
} from './keys/keys.tokens.ts';
export { createRemoteVerifiers, InvalidTokenError, JWKS_PATHS, SESSION_AUDIENCE, TOKEN_TYPES } from './keys/keys.tokens.ts';
export { registerTlsRoutes } from './keys/tls/tls.routes.ts';
export { type CertificateInfo, createTlsService, type TlsService, type TlsStatus } from './keys/tls/tls.service.ts';
export { tlsBackupParts } from './keys/tls/tls.store.ts';
export { PLATFORM_AUDIENCE } from './oauth/oauth.schemas.ts';
export type { OAuthService } from './oauth/oauth.service.ts';
export { FIRST_PARTY_CLI } from './oauth/oauth.service.ts';
export type { CoreMailer } from './sessions/email-links.ts';
export type { SessionsService } from './sessions/sessions.service.ts';
export { createSessionsService, RECENT_AUTH_MS, SESSION_COOKIE, SESSION_LIFETIME_MS } from './sessions/sessions.service.ts';
export { createSessionStore } from './sessions/sessions.store.ts';

export interface IdentityDeps {
  /** The core store (platform.db's `sqliteStore`, or PostgreSQL): the same instance the audit log writes through. */
  store: Store;
  secrets: SecretStore;
  audit: AuditLog;
  logger: Logger;
  /** The KEKs and the broker secret (server/core/config). */
  secretsConfig: IdentitySecretsConfig;
  /**
   * The server's public address (server/core/net/address.ts): `publicUrl` is the origin tokens are issued for
   * (HEARTH_PUBLIC_URL, default the listening address), `authenticatorOrigin` the authenticator website's origin
   * (HEARTH_AUTHENTICATOR_ORIGIN or the reference app's listener), or null.
   */
  address: Pick<Address, 'publicUrl' | 'authenticatorOrigin'>;
  /** The clock (epoch ms), default `Date.now()`; injectable for tests. */
  now?: () => number;
  /** Optional MaxMind DB files for the sign-in context (HEARTH_GEOIP_DB, HEARTH_GEOIP_ASN_DB). */
  geoip?: { cityDb?: string | null; asnDb?: string | null };
  /** Verifier transport: the private origins of the session/invocation and OAuth key sets (HEARTH_IDENTITY_JWKS_ORIGIN, HEARTH_OAUTH_JWKS_ORIGIN). */
  jwksOrigins?: JwksOrigins;
  /**
   * Outgoing mail as application `core` (the mail domain's exported service, built before identity): password-reset
   * and sign-in links, security notices, announcements, authenticator enrolment notices. Absent or null: links are
   * not sent (logged), notices are skipped, announcements answer `mail_not_configured`.
   */
  mailer?: CoreMailer | null;
  /** RSA pairs whose generation the boot started early, on a new data folder (`startFirstSigningKeys`). */
  firstKeyPairs?: EarlyKeyPairs;
}

/**
 * Starts generating the key pairs of a first start now, one per signing purpose, for `createIdentityService`'s
 * `firstKeyPairs`: on a new data folder the boot calls it before it opens the store, so that their generation runs on
 * another core while the rest of the start does (keys.material.ts `startKeyPairs`).
 */
export function startFirstSigningKeys(): EarlyKeyPairs {
  return startKeyPairs(PURPOSES.length);
}

/**
 * Accounts, Linux identities and sessions wired exactly as the server wires them (the Linux-identity hook on every
 * person written, the group-name check): the server builds them here, and so does `openIdentityOffline` for
 * commands that work on the data folder directly, so no path makes an account the server would have made otherwise.
 */
function createAccountsCore(deps: {
  store: Store;
  audit: AuditLog;
  logger: Logger;
  issuer: () => string;
  now?: () => number;
  mailer?: CoreMailer | null;
  onSignedIn?: Parameters<typeof createSessionsService>[0]['onSignedIn'];
}) {
  const accountStore = createAccountStore(deps.store);
  const linux = createLinuxService({ store: createLinuxStore(deps.store), accountStore, audit: deps.audit, now: deps.now });
  const accounts = createAccountsService({
    store: accountStore,
    audit: deps.audit,
    now: deps.now,
    hooks: { personWritten: linux.onPersonWritten, groupNameTaken: linux.groupNameTaken },
  });
  // Notices come before sessions, which send security notices through them. Who may sign in is the rule of
  // sessions.maySignIn: a person, not disabled or expired, whose category is allowed.
  const maySignIn = async (row: AccountRow | undefined): Promise<boolean> =>
    !!row && row.kind === 'person' && (await accounts.isAccountCategoryAllowed(presentAccount(row)));
  const notices = createNotices({
    accountStore,
    accounts,
    maySignIn,
    audit: deps.audit,
    logger: deps.logger.child({ part: 'notices' }),
    mailer: () => deps.mailer ?? null,
  });
  const notice = { send: notices.securityNotice };
  const sessionStore = createSessionStore(deps.store);
  const sessions = createSessionsService({
    store: sessionStore,
    accountStore,
    accounts,
    audit: deps.audit,
    issuer: deps.issuer,
    now: deps.now,
    notice,
    onSignedIn: deps.onSignedIn,
  });
  return { accountStore, linux, accounts, notices, notice, sessionStore, sessions };
}

/**
 * The identity services a command needs on a data folder while no server request is involved (`hearth setup`):
 * accounts and sessions built as the server builds them. The issuer only matters for cookies and Origin checks,
 * which such commands never use.
 */
export function openIdentityOffline(deps: { store: Store; audit: AuditLog }): { accounts: AccountsService; sessions: SessionsService } {
  // No mail offline: security notices are skipped, so this logger never has anything to say (and writes nowhere).
  const logger = createLogger({ level: 'silent', destination: { write: () => {} } });
  const { accounts, sessions } = createAccountsCore({ store: deps.store, audit: deps.audit, logger, issuer: () => '' });
  return { accounts, sessions };
}

/**
 * Builds the identity domain in dependency order, with no late wiring: keys → accounts → notices → sessions (which
 * send security notices through them) → passkeys, email links → authenticator approval → OAuth (which is given the
 * approval's terminal broker). Outgoing mail is built before identity (server/boot.ts) and passed as `mailer`.
 */
export function createIdentityService(deps: IdentityDeps) {
  const issuer = () => deps.address.publicUrl;
  if (testPasswordHashing()) deps.logger.info('HEARTH_TEST_PASSWORD_HASHING=light: passwords are hashed for a test run, not for a real installation');
  const keys = createKeysService({
    store: createKeyStore(deps.store),
    secrets: deps.secrets,
    audit: deps.audit,
    logger: deps.logger.child({ part: 'keys' }),
    secretsConfig: deps.secretsConfig,
    issuer,
    now: deps.now,
    jwksOrigins: deps.jwksOrigins,
    earlyKeyPairs: deps.firstKeyPairs,
  });
  // Sign-in context for the authenticator: GeoIP (optional files) and the sign-in history every sign-in records.
  const geoip = openGeoIp({ cityDb: deps.geoip?.cityDb, asnDb: deps.geoip?.asnDb, logger: deps.logger.child({ part: 'geoip' }), now: deps.now });
  const loginContext = createLoginContext({ store: deps.store, geoip, now: deps.now, logger: deps.logger.child({ part: 'login-context' }) });
  const onSignedIn = async (info: { sub: string; browserId: string; ip: string; at: number }) => {
    try {
      await loginContext.recordSuccessfulSignIn(info);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'sign-in history not recorded');
    }
  };
  const mailer = () => deps.mailer ?? null;
  const { accountStore, linux, accounts, notices, notice, sessionStore, sessions } = createAccountsCore({
    store: deps.store,
    audit: deps.audit,
    logger: deps.logger,
    issuer,
    now: deps.now,
    mailer: deps.mailer,
    onSignedIn,
  });
  const passkeys = createPasskeysService({
    store: createPasskeyStore(deps.store),
    accountStore,
    sessions,
    audit: deps.audit,
    issuer,
    now: deps.now,
    notice,
  });
  const emailLinks = createEmailLinks({
    store: deps.store,
    accountStore,
    maySignIn: sessions.maySignIn,
    audit: deps.audit,
    logger: deps.logger.child({ part: 'email-links' }),
    issuer,
    now: deps.now,
  });
  // email-links.ts (sessions/) still takes its mailer through a setter: it is given here, at construction.
  if (deps.mailer) emailLinks.useMailer(deps.mailer);
  // Authenticator approval (hearth-app-approval-v1), with the sign-in context service.
  const brokerSecret = resolveBrokerSecret(deps.secretsConfig, deps.secrets);
  const appApproval = createApprovalService({
    store: createApprovalStore(deps.store),
    accountStore,
    sessions,
    sessionStore,
    isAccountCategoryAllowed: (row) => accounts.isAccountCategoryAllowed(presentAccount(row)),
    audit: deps.audit,
    logger: deps.logger.child({ part: 'app-approval' }),
    secretsConfig: deps.secretsConfig,
    secrets: deps.secrets,
    issuer,
    authenticatorOrigin: () => deps.address.authenticatorOrigin,
    mailer,
    loginContext,
    notifications: deps.store,
    now: deps.now,
  });
  // The OAuth module gets Core's closed authority through the broker, with the shared deployment secret, and reaches
  // the approval protocol (terminal sign-in, RFC 8628 with login_hint) through the approval's terminal broker.
  const oauthAuthority = keys.oauthBroker(brokerSecret);
  const oauth = createOAuthService({
    store: createOAuthStore(deps.store),
    accounts,
    accountStore,
    authority: oauthAuthority,
    audit: deps.audit,
    logger: deps.logger.child({ part: 'oauth' }),
    issuer,
    now: deps.now,
    terminalBroker: appApproval.terminalBroker(brokerSecret),
  });
  let cleanupTimer: NodeJS.Timeout | null = null;

  /**
   * The audiences a request path accepts for OAuth access tokens: the platform audience `hearth` everywhere; on the
   * database service also `{base}/v1` and, under `/v1/{ns}/…`, `{base}/v1/{ns}`.
   */
  function audiencesFor(path: string): { audiences: string[]; ns: string | null } {
    const base = issuer();
    if (!path.startsWith('/v1/')) return { audiences: [PLATFORM_AUDIENCE], ns: null };
    const seg = path.slice(4).split('/')[0] ?? '';
    let ns: string | null = null;
    try {
      ns = seg && seg !== 'namespaces' && seg !== 'openapi.json' ? decodeURIComponent(seg) : null;
    } catch {
      ns = null;
    }
    return { audiences: [PLATFORM_AUDIENCE, `${base}/v1`, ...(ns ? [`${base}/v1/${ns}`] : [])], ns };
  }

  return {
    registerRoutes(api: Api): void {
      registerKeyRoutes(api, keys);
      registerAccountRoutes(api, accounts);
      registerSessionRoutes(api, sessions, { issuer });
      registerOAuthRoutes(api, oauth, sessions, { issuer });
      registerOAuthClientRoutes(api, oauth);
      registerLinuxRoutes(api, linux);
      registerPasskeyRoutes(api, passkeys, sessions, { issuer });
      registerEmailLinkRoutes(api, emailLinks, sessions, { issuer });
      registerNoticeRoutes(api, notices);
      registerApprovalRoutes(api, appApproval, sessions, { issuer });
    },
    /** Start-up readiness: throws when keys cannot be loaded (wrong KEK, corrupt ciphertext, mismatched pair). */
    async start(): Promise<void> {
      await keys.start();
      // Readiness: a validated active OAuth signer must load, or start-up fails (no fallback signer).
      await oauthAuthority.ready();
      await oauth.seed();
      // Every minute (and now): OAuth and sign-in-history cleanup; authenticator approval rows leave after their
      // readable window and enrolment notices are retried. One failing job does not stop the others.
      const jobs: Array<[string, () => unknown]> = [
        ['oauth cleanup', () => oauth.cleanup()],
        ['sign-in history cleanup', () => loginContext.cleanup()],
        ['app-approval cleanup', () => appApproval.cleanup()],
        ['app-approval notices', () => appApproval.deliverNotices()],
      ];
      const maintenance = () => {
        for (const [name, job] of jobs) {
          const failed = (err: unknown) => deps.logger.warn({ err: (err as Error).message }, `${name} failed`);
          try {
            const r = job();
            if (r instanceof Promise) r.catch(failed);
          } catch (err) {
            failed(err);
          }
        }
      };
      maintenance();
      cleanupTimer = setInterval(maintenance, 60_000);
      cleanupTimer.unref();
    },
    /** The current KEK's fingerprint (never the KEK), for a backup's manifest; null before start. */
    kekFingerprint: keys.kekFingerprint,
    /** Health check entry: null when ready, otherwise the reason. */
    readiness(): string | null {
      return keys.readiness();
    },
    async close(): Promise<void> {
      if (cleanupTimer) clearInterval(cleanupTimer);
      await keys.close();
    },

    /**
     * Authenticator approval: `terminalBroker(secret)` for the OAuth device authorization, `deliverNotices()` and
     * `cleanup()` (also run every minute).
     */
    appApproval,
    /** Linux identity assignment (administrators only: every route is admin-only). */
    linuxIdentities: linux,
    /** The OAuth 2.0 / OpenID Connect server: clients, grants, and the principal of an access token. */
    oauth,
    /** For the core authenticator: the principal of an OAuth access token on this request's path (null: refused). */
    authenticateAccessToken(token: string, ctx: { path: string }) {
      const { audiences, ns } = audiencesFor(ctx.path);
      return oauth.principalFor(token, audiences, ns);
    },

    /** Runs signing-key maintenance now (it also runs at start and every minute). */
    maintainKeys: keys.maintain,

    // The closed signing authority: only these token shapes can be signed.
    /** A session token (`typ: hearth-session+jwt`, at most 12 h). */
    signSessionToken: keys.signSessionToken,
    /** An invocation token (`typ: hearth-invocation+jwt`, 30 s). */
    signInvocationToken: keys.signInvocationToken,
    /** For the OAuth module: RFC 9068 access tokens and OpenID Connect ID tokens, one hour. */
    oauthAuthority,

    // Application-facing verifiers: each trusts only its own purpose's JWKS.
    verifySessionToken: keys.verifySessionToken,
    verifyInvocationToken: keys.verifyInvocationToken,
    /**
     * The same verifiers for an application of this deployment that runs in another process: they fetch the session
     * and invocation key sets from HEARTH_IDENTITY_JWKS_ORIGIN and the OAuth key set from HEARTH_OAUTH_JWKS_ORIGIN
     * (each defaulting to the issuer) and demand the public issuer. `verifierJwks()` are the URLs they fetch.
     */
    remoteVerifiers: keys.remoteVerifiers,
    verifierJwks: keys.verifierJwks,

    /** Accounts, nested groups, resource-bound service accounts and the account-category policy. */
    accounts,
    /** The stored account-category policy; an invalid stored policy reads as allowing nothing (`valid: false`). */
    readAccountCategoryPolicy: accounts.readAccountCategoryPolicy,
    /** Server-only: whether the account's category may use credential flows (false when disabled, expired or a service account). */
    isAccountCategoryAllowed: accounts.isAccountCategoryAllowed,

    /** Password sign-in, first-run setup and platform sessions. */
    sessions,
    /** The authenticator's sign-in context (`AppLoginContext`) and the sign-in history behind it. */
    loginContext,
    /** For the core authenticator: the principal of the `hearth_session` cookie (null without one). */
    authenticateSession: sessions.authenticate,
    /** True when the request's session was issued within ten minutes (false for API tokens). */
    isRecentAuth: sessions.isRecentAuth,
    /** Sensitive actions: true when the session was issued within ten minutes, otherwise 403 `recent_auth_required`. */
    requireRecentAuth: sessions.requireRecentAuth,
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
