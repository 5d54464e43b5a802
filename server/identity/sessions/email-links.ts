/**
 * Email sign-in links: password reset and magic-link sign-in, sent as Hearth's own mail (application `core`,
 * default profile, immediate lane) through the outgoing-mail domain.
 *
 * - A request always answers the same way (no account enumeration); a link is sent only to an account that may
 *   sign in and has an email address. At most three live links per account and purpose; five requests a minute
 *   per address.
 * - Links carry a 256-bit token (only its SHA-256 is stored), are single-use, and live 30 minutes (reset) or
 *   15 minutes (sign-in). Opening a link shows a page; only its form (POST, exact Origin) uses the token, so mail
 *   scanners that fetch links cannot consume them.
 * - A reset ends every session of the account and signs the browser in; a used sign-in link opens a session.
 * - The links live in the core store (SQLite or PostgreSQL); a link is used by one guarded UPDATE, so of two
 *   replicas consuming it at once one succeeds.
 */
import crypto from 'node:crypto';
import type { AuditLog } from '../../core/audit/audit.ts';
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { Migration } from '../../core/storage/platform-db.ts';
import { postgresDdl } from '../../core/storage/postgres-ddl.ts';
import type { Store } from '../../core/storage/store.ts';
import type { AccountRow, AccountStore } from '../accounts/accounts.store.ts';
import { createFailureLimiter } from './rate-limit.ts';

const EMAIL_LINKS_007 = `
      CREATE TABLE identity_email_links (
        token_hash TEXT PRIMARY KEY,
        purpose TEXT NOT NULL CHECK (purpose IN ('reset', 'magic')),
        sub TEXT NOT NULL REFERENCES identity_accounts (sub) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER
      ) STRICT;
      CREATE INDEX identity_email_links_by_sub ON identity_email_links (sub, purpose);
    `;

export const emailLinkMigrations: Migration[] = [{ id: 'identity-007-email-links', up: EMAIL_LINKS_007, pg: postgresDdl(EMAIL_LINKS_007) }];

export const LINK_LIFETIME_MS = { reset: 30 * 60_000, magic: 15 * 60_000 } as const;
export const LIVE_LINKS_PER_ACCOUNT = 3;
export const LINK_REQUESTS_PER_MINUTE = 20;
export type LinkPurpose = keyof typeof LINK_LIFETIME_MS;

/** What identity needs from outgoing mail (its exported service): send as application `core`. Each resolves once the mail is committed. */
export interface CoreMailer {
  /** One message as `core` (immediate lane). */
  sendAsCore(body: { to: string[]; subject: string; text: string; html?: string | null; ref?: string }): Promise<unknown>;
  /** An individual notification (immediate lane, HTML frame, pending through temporary failures). */
  notify(body: { to: string[]; subject: string; text: string; ref?: string; idempotencyKey?: string }): Promise<unknown>;
  /** A notification batch (bulk lane, waits for the daily window). */
  notifyBatch(body: { ref?: string; messages: Array<{ to: string[]; subject: string; text: string }> }): Promise<{ batchId: string }>;
}

const sha256 = (s: string) => crypto.hash('sha256', s, 'hex');

export function createEmailLinks(deps: {
  store: Store;
  accountStore: AccountStore;
  maySignIn: (row: AccountRow | undefined) => Promise<boolean>;
  audit: AuditLog;
  logger: Logger;
  issuer: () => string;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const { store } = deps;
  type LinkRow = { sub: string; used_at: number | null; expires_at: number };
  const getLink = (hash: string, purpose: LinkPurpose) =>
    store.get<LinkRow>('SELECT * FROM identity_email_links WHERE token_hash = ? AND purpose = ?', [hash, purpose]);
  const limiter = createFailureLimiter({ limit: LINK_REQUESTS_PER_MINUTE, windowMs: 60_000, now });
  let mailer: CoreMailer | null = null;

  async function findAccount(loginOrEmail: string): Promise<AccountRow | undefined> {
    const v = loginOrEmail.trim();
    const sub = v.includes('@') ? await deps.accountStore.findSubByEmailKey(v.toLowerCase()) : await deps.accountStore.findSubByLogin(v);
    return sub === undefined ? undefined : deps.accountStore.getAccount(sub);
  }
  /** The account of a link when it may sign in now, or null. */
  const usable = async (sub: string): Promise<AccountRow | null> => {
    const row = await deps.accountStore.getAccount(sub);
    return row && (await deps.maySignIn(row)) ? row : null;
  };

  function message(purpose: LinkPurpose, row: AccountRow, url: string) {
    const minutes = LINK_LIFETIME_MS[purpose] / 60_000;
    const name = row.display_name || row.login!;
    if (purpose === 'reset') {
      return {
        subject: 'Reset your Hearth password',
        text: `Hello ${name},\n\nSomeone (hopefully you) asked to reset the password of the Hearth account "${row.login}".\nOpen this link within ${minutes} minutes to choose a new password:\n\n${url}\n\nIf you did not ask for this, ignore this message: your password stays as it is.\n`,
      };
    }
    return {
      subject: 'Your Hearth sign-in link',
      text: `Hello ${name},\n\nOpen this link within ${minutes} minutes to sign in to Hearth as "${row.login}":\n\n${url}\n\nIf you did not ask for this, ignore this message.\n`,
    };
  }

  return {
    /** Connects outgoing mail (after both domains are built). */
    useMailer(m: CoreMailer) {
      mailer = m;
    },
    mailer: () => mailer,

    /** Sends a link when the account may use it; answers nothing either way. 429 past five requests a minute per address. */
    async request(purpose: LinkPurpose, loginOrEmail: string, ip: string, requestId: string): Promise<void> {
      const wait = limiter.retryAfter(ip);
      if (wait > 0) throw new HearthError('rate_limited', 'too many requests; try again later', { headers: { 'Retry-After': String(wait) } });
      limiter.fail(ip);
      const row = await findAccount(loginOrEmail);
      if (!row || !(await deps.maySignIn(row)) || !row.email) return;
      const at = now();
      await store.run('DELETE FROM identity_email_links WHERE expires_at < ?', [at - 24 * 3600_000]);
      const live = await store.value<number>('SELECT count(*) FROM identity_email_links WHERE sub = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?', [
        row.sub,
        purpose,
        at,
      ]);
      if ((live ?? 0) >= LIVE_LINKS_PER_ACCOUNT) return;
      if (!mailer) {
        deps.logger.warn({ purpose }, 'an email link was requested but outgoing mail is not available');
        return;
      }
      const token = crypto.randomBytes(32).toString('base64url');
      await store.run('INSERT INTO identity_email_links (token_hash, purpose, sub, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
        sha256(token),
        purpose,
        row.sub,
        at,
        at + LINK_LIFETIME_MS[purpose],
      ]);
      const url = `${deps.issuer()}/auth/${purpose === 'reset' ? 'reset-password' : 'email-sign-in'}?token=${token}`;
      try {
        await mailer.sendAsCore({ to: [row.email], ...message(purpose, row, url), ref: `account:${row.sub}` });
      } catch (err) {
        // Not configured (no default profile) or refused: the person gets the same answer; the operator sees the log.
        deps.logger.warn({ purpose, code: (err as HearthError).code, err: (err as Error).message }, 'an email link could not be sent');
        return;
      }
      await deps.audit.record({
        actor: `account:${row.login}`,
        action: purpose === 'reset' ? 'account.password.reset_link' : 'session.email_link',
        target: row.sub,
        detail: { login: row.login },
        requestId,
      });
    },

    /** The account of a live link, without using it (to show the page), or null. */
    async peek(purpose: LinkPurpose, token: string): Promise<AccountRow | null> {
      const r = await getLink(sha256(token), purpose);
      if (!r || r.used_at !== null || r.expires_at <= now()) return null;
      return usable(r.sub);
    },

    /** Uses a link once; null when unknown, used, expired, or the account may not sign in. */
    async consume(purpose: LinkPurpose, token: string): Promise<AccountRow | null> {
      const hash = sha256(token);
      const r = await getLink(hash, purpose);
      if (!r) return null;
      const row = await usable(r.sub);
      if (!row) return null;
      const used = await store.run('UPDATE identity_email_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?', [
        now(),
        hash,
        now(),
      ]);
      return used.changes > 0 ? row : null;
    },
  };
}

export type EmailLinks = ReturnType<typeof createEmailLinks>;
