/**
 * The terminal sign-in broker for the OAuth device authorization (RFC 8628 with `login_hint`): the OAuth module,
 * holding Core's broker secret, creates terminal sign-in requests that a device whose latest inbox opted in to
 * `terminal-logins` approves or denies (approval.channel.ts), reads their state and consumes an approved one once. It has no HTTP routes of its own.
 */
import crypto from 'node:crypto';
import { HearthError } from '../../core/http/errors.ts';
import { BROKER_SECRET_ENV, resolveBrokerSecret } from '../keys/keys.service.ts';
import { type ApprovalCore, L, plainText } from './approval.core.ts';
import type { SignInRequests } from './sign-in-requests.ts';

/** For the OAuth device authorization (RFC 8628): terminal sign-in requests approved in the paired app. */
export interface TerminalBroker {
  create(input: {
    identifier: string;
    client: { id: string; name: string };
    scopes: string[];
    lifetimeSeconds: number;
    ip: string;
    userAgent: string;
  }): Promise<{
    requestId: string;
    comparison: string;
    expiresAt: number;
  }>;
  state(requestId: string): Promise<'pending' | 'approved' | 'denied' | 'consumed' | 'expired' | 'unavailable'>;
  /** Atomic and once: rechecks the device (not revoked), the account (enabled, unexpired, category) and its epoch. */
  consume(requestId: string): Promise<{ sub: string } | null>;
}

/** `terminalBroker(secret)`: the broker, once the secret is shown to be Core's. */
export function createTerminalBrokers(core: ApprovalCore, requests: SignInRequests) {
  const { deps, store, now, findAccount, loginState } = core;
  return function terminalBroker(secret: string): TerminalBroker {
    const expected = Buffer.from(resolveBrokerSecret(deps.secretsConfig, deps.secrets));
    const given = Buffer.from(String(secret));
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
      throw new Error(`identity terminal broker: the broker secret does not match Core's (${BROKER_SECRET_ENV})`);
    }
    return {
      async create(input) {
        if (
          !Array.isArray(input.scopes) ||
          input.scopes.length < 1 ||
          input.scopes.length > L.terminalScopes ||
          input.scopes.some((x) => typeof x !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(x))
        ) {
          throw new HearthError('invalid_request', `a terminal sign-in carries 1–${L.terminalScopes} scope codes`);
        }
        if (!Number.isInteger(input.lifetimeSeconds) || input.lifetimeSeconds <= 0)
          throw new HearthError('invalid_request', 'lifetimeSeconds must be a positive integer');
        const clientName = plainText(String(input.client?.name ?? ''), L.terminalClientNameLength);
        const clientId = plainText(String(input.client?.id ?? ''), 200);
        if (!clientId) throw new HearthError('invalid_request', 'the terminal client needs an id');
        const row = await findAccount(String(input.identifier ?? ''));
        const terminal = {
          client: { id: clientId, name: clientName || clientId.slice(0, L.terminalClientNameLength) },
          scopes: [...input.scopes],
          lifetimeSeconds: input.lifetimeSeconds,
        };
        const r = await store.transaction(async () =>
          requests.newLogin({
            kind: 'terminal',
            row,
            category: null,
            usable: await requests.approvable(row, null),
            ip: String(input.ip ?? ''),
            context: null,
            terminal,
            secret: null,
          }),
        );
        return { requestId: r.id, comparison: r.comparison, expiresAt: r.expiresAt };
      },
      async state(requestId) {
        const r = await store.getLogin(requestId);
        return r?.kind !== 'terminal' ? 'unavailable' : loginState(r);
      },
      consume(requestId) {
        return store.transaction(async () => {
          const r = await store.getLogin(requestId, true);
          if (r?.kind !== 'terminal' || loginState(r) !== 'approved') return null;
          const row = await requests.usableLogin(r);
          if (!row || !(await store.consumeLogin(r.id, now()))) return null;
          return { sub: row.sub };
        });
      },
    };
  };
}
