/**
 * Passkeys (WebAuthn) for accounts: registration from a recent session, and sign-in with a discoverable credential
 * and user verification, which opens the same platform session as a password sign-in.
 *
 * - The relying party ID is the host name of the public origin; the expected origin is the public origin exactly.
 * - Challenges are single-use and live five minutes; at most 10,000 wait at once (a flood answers 429).
 * - A signature counter that goes backwards (a cloned authenticator) refuses the sign-in.
 * - Attestation is not requested (`none`): Hearth does not restrict authenticator models.
 */
import crypto from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuditLog } from '../../core/audit/audit.ts';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import { HearthError } from '../../core/http/errors.ts';
import { lazy } from '../../core/lazy.ts';
import type { Actor } from '../accounts/accounts.service.ts';
import type { AccountStore } from '../accounts/accounts.store.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { PasskeyRow, PasskeyStore } from './passkeys.store.ts';

/** The WebAuthn library (with its ASN.1 and X.509 parsers), loaded at the first passkey ceremony. */
const webauthn = lazy(() => import('@simplewebauthn/server'));

export const CHALLENGE_LIFETIME_MS = 5 * 60_000;
export const MAX_PASSKEYS_PER_ACCOUNT = 20;
const MAX_PENDING_CHALLENGES = 10_000;

export function presentPasskey(r: PasskeyRow) {
  return {
    id: r.id,
    name: r.name,
    transports: JSON.parse(r.transports) as string[],
    deviceType: r.device_type,
    backedUp: r.backed_up === 1,
    createdAt: new Date(r.created_at).toISOString(),
    lastUsedAt: r.last_used_at === null ? null : new Date(r.last_used_at).toISOString(),
  };
}

export function createPasskeysService(deps: {
  store: PasskeyStore;
  accountStore: AccountStore;
  sessions: SessionsService;
  audit: AuditLog;
  issuer: () => string;
  now?: () => number;
  notice?: { send(sub: string, subject: string, text: string): void };
}) {
  const { store, accountStore, sessions, audit } = deps;
  const now = deps.now ?? Date.now;
  const record = (a: Actor, action: string, target: string, detail: Record<string, unknown>) =>
    audit.record({ actor: a.actor, action, target, detail, requestId: a.requestId ?? null });
  const rp = () => {
    const origin = deps.issuer();
    return { origin, rpID: new URL(origin).hostname };
  };
  const newChallenge = async (purpose: 'register' | 'login', sub: string | null, challenge: string) => {
    const at = now();
    await store.purgeChallenges(at);
    if ((await store.countChallenges()) >= MAX_PENDING_CHALLENGES) {
      throw new HearthError('rate_limited', 'too many passkey ceremonies are waiting; try again in a minute', { headers: { 'Retry-After': '60' } });
    }
    const id = crypto.randomBytes(16).toString('base64url');
    await store.putChallenge(id, purpose, sub, challenge, at + CHALLENGE_LIFETIME_MS);
    return id;
  };
  const takeChallenge = async (id: string, purpose: 'register' | 'login') => {
    const c = await store.takeChallenge(id, purpose);
    if (!c || c.expires_at <= now()) throw new HearthError('invalid_request', 'the passkey request expired or was already used: start again');
    return c;
  };

  /**
   * Takes the challenge and verifies the assertion against it: the challenge must be unexpired and made for `sub`
   * (null: a sign-in challenge, which names no account), the passkey must belong to `sub` when one is given, the user
   * must be verified, and a user handle, when sent, must name the passkey's owner. Null on any refusal.
   */
  async function verifyAssertion(input: { challengeId: string; response: AuthenticationResponseJSON }, sub: string | null) {
    const c = await store.takeChallenge(input.challengeId, 'login');
    if (!c || c.expires_at <= now() || c.sub !== sub) return null;
    const key = typeof input.response?.id === 'string' ? await store.get(input.response.id) : undefined;
    if (!key || (sub !== null && key.sub !== sub)) return null;
    const { origin, rpID } = rp();
    let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
    try {
      result = await (await webauthn()).verifyAuthenticationResponse({
        response: input.response,
        expectedChallenge: c.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
        credential: { id: key.id, publicKey: new Uint8Array(key.public_key), counter: key.counter, transports: JSON.parse(key.transports) },
      });
    } catch {
      return null;
    }
    if (!result.verified) return null;
    const handle = input.response.response?.userHandle;
    if (handle && Buffer.from(handle, 'base64url').toString('utf8') !== key.sub) return null;
    return { key, newCounter: result.authenticationInfo.newCounter };
  }

  return {
    async registrationOptions(session: SessionInfo) {
      const row = (await accountStore.getAccount(session.sub))!;
      const existing = await store.ofSub(session.sub);
      if (existing.length >= MAX_PASSKEYS_PER_ACCOUNT) throw new HearthError('conflict', `an account holds at most ${MAX_PASSKEYS_PER_ACCOUNT} passkeys`);
      const options = await (await webauthn()).generateRegistrationOptions({
        rpName: 'Hearth',
        rpID: rp().rpID,
        userName: row.login!,
        userDisplayName: row.display_name || row.login!,
        userID: new TextEncoder().encode(row.sub),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.id, transports: JSON.parse(p.transports) })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        timeout: CHALLENGE_LIFETIME_MS,
      });
      return { challengeId: await newChallenge('register', session.sub, options.challenge), options };
    },

    async register(session: SessionInfo, input: { challengeId: string; response: RegistrationResponseJSON; name?: string }, a: Actor) {
      const c = await takeChallenge(input.challengeId, 'register');
      if (c.sub !== session.sub) throw new HearthError('invalid_request', 'this passkey request belongs to another session');
      const { origin, rpID } = rp();
      let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        verified = await (await webauthn()).verifyRegistrationResponse({
          response: input.response,
          expectedChallenge: c.challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
        });
      } catch (err) {
        throw new HearthError('invalid_request', `the passkey could not be verified: ${(err as Error).message}`);
      }
      if (!verified.verified) throw new HearthError('invalid_request', 'the passkey could not be verified');
      const info = verified.registrationInfo;
      if (await store.get(info.credential.id)) throw new HearthError('conflict', 'this passkey is already registered');
      const row: Omit<PasskeyRow, 'last_used_at'> = {
        id: info.credential.id,
        sub: session.sub,
        name: input.name?.trim() || `Passkey ${(await store.count(session.sub)) + 1}`,
        public_key: info.credential.publicKey,
        counter: info.credential.counter,
        transports: JSON.stringify(info.credential.transports ?? []),
        device_type: info.credentialDeviceType,
        backed_up: info.credentialBackedUp ? 1 : 0,
        created_at: now(),
      };
      await store.insert(row);
      await record(a, 'passkey.register', session.sub, { login: session.login, passkey: row.id, name: row.name });
      deps.notice?.send(session.sub, 'A passkey was added to your Hearth account', `A passkey named "${row.name}" can now sign in to your Hearth account.`);
      return presentPasskey({ ...row, last_used_at: null });
    },

    async loginOptions() {
      const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp().rpID, userVerification: 'required', timeout: CHALLENGE_LIFETIME_MS });
      return { challengeId: await newChallenge('login', null, options.challenge), options };
    },

    /** Sign-in: every refusal is the same 401 `invalid_credentials` and counts towards the address's budget. */
    async login(input: { challengeId: string; response: AuthenticationResponseJSON }, ip: string, requestId: string) {
      sessions.signInLimiter.check(ip);
      const refuse = () => {
        sessions.signInLimiter.fail(ip);
        return new HearthError('invalid_credentials', 'the passkey was not accepted, or the account may not sign in');
      };
      // a sign-in challenge names no account (one made for re-authentication serves no sign-in)
      const verified = await verifyAssertion(input, null);
      if (!verified) throw refuse();
      const { key, newCounter } = verified;
      const row = await accountStore.getAccount(key.sub);
      if (!row || !(await sessions.maySignIn(row))) throw refuse();
      await store.markUsed(key.id, newCounter, now());
      return sessions.startSession(row, requestId, 'passkey');
    },

    /** Re-authentication of a live session with one of its account's passkeys: a challenge bound to that account. */
    async reauthOptions(session: SessionInfo) {
      const mine = await store.ofSub(session.sub);
      if (mine.length === 0) throw new HearthError('passkey_not_found', 'this account has no passkey: confirm with the password instead');
      const options = await (await webauthn()).generateAuthenticationOptions({
        rpID: rp().rpID,
        userVerification: 'required',
        timeout: CHALLENGE_LIFETIME_MS,
        allowCredentials: mine.map((k) => ({ id: k.id, transports: JSON.parse(k.transports) })),
      });
      return { challengeId: await newChallenge('login', session.sub, options.challenge), options };
    },

    /**
     * The passkey answer to `reauthOptions`: the session counts as signed in now (sessions.confirmedRecently). Every
     * refusal is 401 `invalid_credentials` (the session continues; an assertion cannot be guessed, so no budget applies).
     */
    async reauthenticate(session: SessionInfo, input: { challengeId: string; response: AuthenticationResponseJSON }, a: Actor) {
      const refuse = () => new HearthError('invalid_credentials', 'the passkey was not accepted: try again, or confirm with the password');
      const verified = await verifyAssertion(input, session.sub);
      if (!verified) throw refuse();
      await store.markUsed(verified.key.id, verified.newCounter, now());
      return sessions.confirmedRecently(session, 'passkey', a);
    },

    list: async (sub: string) => (await store.ofSub(sub)).map(presentPasskey),

    async rename(sub: string, id: string, name: string, a: Actor) {
      if (!(await store.rename(id, sub, name))) throw new HearthError('passkey_not_found', 'no such passkey on this account');
      await record(a, 'passkey.rename', sub, { passkey: id, name });
      return presentPasskey((await store.get(id))!);
    },

    async remove(sub: string, id: string, a: Actor) {
      if (!(await store.remove(id, sub))) throw new HearthError('passkey_not_found', 'no such passkey on this account');
      await record(a, 'passkey.remove', sub, { passkey: id });
      deps.notice?.send(sub, 'A passkey was removed from your Hearth account', 'A passkey was removed from your Hearth account; it can no longer sign in.');
    },
  };
}

export type PasskeysService = ReturnType<typeof createPasskeysService>;
