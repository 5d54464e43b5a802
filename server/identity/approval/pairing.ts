/**
 * Pairing of authenticator devices: start (an interactive session issued within ten minutes;
 * administrator-assisted for another account), claim by the authenticator (signed with the new device key), status
 * and result, confirmation with the comparison code, and cancellation. The first device of an account and an
 * assisted pairing are enrolled at once; a further device waits for a device change of kind `pair` that an active
 * opted-in device decides (approval.channel.ts). Enrolment writes the device, an audit entry and an outbox row for
 * the notice (notice-outbox.ts) in one transaction. Only the initiating account and session family act on a pairing.
 */
import crypto from 'node:crypto';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import { HearthError } from '../../core/http/errors.ts';
import { type Actor, type ApprovalCore, deviceName, err, iso, L, sameHash, sameText, sha256, sixDigits } from './approval.core.ts';
import type { DeviceRow, PairingRow } from './approval.store.ts';
import { APP_APPROVAL_PROTOCOL, appPairingProofMessage, type DevicePublicKey, ProofError, verifyProofSignature } from './proof.ts';

const LIFETIME_MS = L.pairingLifetimeSeconds * 1000;
/** Wrong comparison codes a pairing survives at confirmation; the fifth cancels it. */
export const WRONG_CODES_ALLOWED = 5;

export function createPairing(core: ApprovalCore) {
  const { deps, store, accountStore, now, record, maySignIn, readable, pairingState, changeState } = core;

  const approvalOf = async (p: PairingRow) => {
    if (!p.change_id) return null;
    const c = await store.getChange(p.change_id);
    return c ? { state: changeState(c), expiresAt: iso(c.expires_at) } : null;
  };
  /** The session's pairing; `lock` inside a transaction that decides it (row-locked until it ends). */
  async function ownPairing(pairingId: string, s: SessionInfo, lock = false): Promise<PairingRow> {
    const p = await store.getPairing(pairingId, lock);
    if (!p || !readable(p.expires_at) || p.initiator_sub !== s.sub || p.family_id !== s.familyId) throw err.notFound('the pairing');
    return p;
  }
  async function pairingBySecret(pairingId: string, secret: string): Promise<PairingRow> {
    const p = await store.getPairing(pairingId);
    if (!p || !readable(p.expires_at)) throw err.notFound('the pairing');
    if (!sameHash(secret, p.secret_hash)) throw new HearthError('forbidden', 'the pairing secret does not match');
    return p;
  }

  /** Enrols the claimed device of a pairing (inside a transaction): device row, audit entry, notice outbox row. */
  async function enrol(p: PairingRow, a: Actor, via: Record<string, unknown> = {}): Promise<DeviceRow> {
    if ((await store.countActiveDevices(p.sub)) >= L.activeDevicesPerAccount) {
      throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
    }
    const at = now();
    await store.insertDevice({ id: p.device_id!, sub: p.sub, name: p.name!, public_key: p.public_key!, assisted: p.assisted, created_at: at });
    await store.setPairingState(p.id, 'confirmed');
    const account = (await accountStore.getAccount(p.sub))!;
    await record(a, 'auth.app.device.enroll', p.sub, {
      login: account.login,
      deviceId: p.device_id,
      name: p.name,
      assisted: p.assisted === 1,
      pairingId: p.id,
      ...via,
    });
    await store.insertNotice(p.device_id!, p.sub, p.assisted === 1, p.name!, at);
    return (await store.getDevice(p.device_id!))!;
  }

  return {
    enrol,

    async startPairing(s: SessionInfo, isAdmin: boolean, userId: string | undefined, a: Actor) {
      const assisted = userId !== undefined && userId !== s.sub;
      if (assisted && !isAdmin) throw new HearthError('forbidden', 'pairing a device for another account needs the administrator role');
      const sub = userId ?? s.sub;
      const row = await accountStore.getAccount(sub);
      if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
      if (!(await maySignIn(row)))
        throw new HearthError('account_not_eligible', 'this account may not sign in (disabled, expired or its category is not allowed)');
      if (!row.email) {
        // Email is a required channel of enrolment: the account owner is told of every paired device.
        throw new HearthError(
          'email_required',
          assisted
            ? 'this account has no email address: add one to the account (Accounts → edit) before pairing a device for it, so its owner is told of the enrolment'
            : 'your account has no email address: ask an administrator to add one before pairing a device, so you are told of every enrolment',
        );
      }
      const at = now();
      return store.transaction(async () => {
        if ((await store.outstandingPairings(sub, at)) >= L.outstandingPairingsPerAccount) {
          throw new HearthError('pairing_limit', `an account has at most ${L.outstandingPairingsPerAccount} outstanding pairings: finish or cancel one`);
        }
        if ((await store.countActiveDevices(sub)) >= L.activeDevicesPerAccount) {
          throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
        }
        const id = crypto.randomUUID();
        const secret = crypto.randomBytes(32).toString('base64url');
        await store.insertPairing({
          id,
          sub,
          initiator_sub: s.sub,
          family_id: s.familyId,
          assisted: assisted ? 1 : 0,
          secret_hash: sha256(secret),
          created_at: at,
          expires_at: at + LIFETIME_MS,
        });
        if (assisted) await record(a, 'auth.app.pairing.assist', sub, { login: row.login, pairingId: id });
        return { protocol: APP_APPROVAL_PROTOCOL, issuer: deps.issuer(), pairingId: id, secret, expiresAt: iso(at + LIFETIME_MS) };
      });
    },

    async claim(input: { pairingId: string; secret: string; publicKey: DevicePublicKey; name: string; signature: string }) {
      const p = await pairingBySecret(input.pairingId, input.secret);
      const message = appPairingProofMessage({
        issuer: deps.issuer(),
        pairingId: input.pairingId,
        secret: input.secret,
        publicKey: input.publicKey,
        name: input.name,
      });
      try {
        verifyProofSignature(message, input.signature, input.publicKey);
      } catch (e) {
        if (e instanceof ProofError && e.code === 'signature_format') throw new HearthError('invalid_signature', e.message);
        throw new HearthError('bad_signature', 'the pairing signature does not verify with the given key');
      }
      const name = deviceName(input.name);
      if (p.state !== 'created') throw new HearthError('pairing_claimed', 'this pairing was already claimed (or cancelled): start a new pairing');
      if (p.expires_at <= now()) throw new HearthError('pairing_expired', 'this pairing expired: start a new pairing');
      const deviceId = crypto.randomUUID();
      const comparison = sixDigits();
      const ok = await store.claimPairing({ id: p.id, device_id: deviceId, public_key: JSON.stringify(input.publicKey), name, comparison, now: now() });
      if (!ok) throw new HearthError('pairing_claimed', 'this pairing was already claimed (or cancelled): start a new pairing');
      return { deviceId, comparison, expiresAt: iso(p.expires_at) };
    },

    async pairingStatus(pairingId: string, s: SessionInfo) {
      const p = await ownPairing(pairingId, s);
      return {
        pairingId: p.id,
        state: pairingState(p),
        expiresAt: iso(p.expires_at),
        deviceId: p.device_id,
        name: p.name,
        assisted: p.assisted === 1,
        approval: await approvalOf(p),
      };
    },

    /** Confirms with the comparison code; `recheckAdmin` is true when the initiator is still an administrator. */
    async confirm(pairingId: string, comparison: string, s: SessionInfo, a: Actor, recheckAdmin: () => boolean) {
      const r = await store.transaction(async () => {
        const p = await ownPairing(pairingId, s, true);
        const state = pairingState(p);
        if (state === 'confirmed') return { deviceId: p.device_id!, approval: await approvalOf(p) };
        if (state === 'expired') throw new HearthError('pairing_expired', 'this pairing expired: start a new pairing');
        if (state === 'cancelled') throw new HearthError('pairing_cancelled', 'this pairing was cancelled: start a new pairing');
        if (state === 'created') throw new HearthError('pairing_not_claimed', 'no device has claimed this pairing yet');
        if (!sameText(comparison, p.comparison!)) {
          // Counted (the transaction commits it); the fifth wrong code cancels the pairing and its pending change.
          const wrong = await store.wrongCode(p.id);
          if (wrong >= WRONG_CODES_ALLOWED) {
            await store.setPairingState(p.id, 'cancelled');
            if (p.change_id) await store.cancelChange(p.change_id, now());
          }
          return { wrong };
        }
        if (p.change_id) return { deviceId: p.device_id!, approval: await approvalOf(p) };
        if (p.assisted === 1) {
          if (!recheckAdmin()) throw new HearthError('forbidden', 'assisted pairing needs the administrator role');
          const target = await accountStore.getAccount(p.sub);
          if (!(await maySignIn(target)))
            throw new HearthError('account_not_eligible', 'this account may not sign in (disabled, expired or its category is not allowed)');
          await enrol(p, a);
          return { deviceId: p.device_id!, approval: null };
        }
        const active = await store.countActiveDevices(p.sub);
        if (active === 0) {
          await enrol(p, a);
          return { deviceId: p.device_id!, approval: null };
        }
        // A further device: an active paired device must approve (a device change of kind `pair`).
        if (active >= L.activeDevicesPerAccount) {
          throw new HearthError('device_limit', `an account has at most ${L.activeDevicesPerAccount} active devices: revoke one first`);
        }
        const at = now();
        const changeId = crypto.randomUUID();
        const expiresAt = at + L.changeLifetimeSeconds * 1000;
        await store.insertChange({
          id: changeId,
          sub: p.sub,
          kind: 'pair',
          target_id: p.device_id!,
          target_name: p.name!,
          end_sessions: 0,
          family_id: p.family_id,
          pairing_id: p.id,
          created_at: at,
          expires_at: expiresAt,
        });
        await store.setPairingChange(p.id, changeId, Math.max(p.expires_at, expiresAt));
        await record(a, 'auth.app.device_change.request', p.device_id!, {
          changeId,
          kind: 'pair',
          deviceId: p.device_id,
          endSignIns: false,
          login: (await accountStore.getAccount(p.sub))?.login ?? null,
        });
        return { deviceId: p.device_id!, approval: { state: 'pending' as const, expiresAt: iso(expiresAt) } };
      });
      if ('wrong' in r && r.wrong !== undefined) {
        throw new HearthError(
          'comparison_mismatch',
          r.wrong >= WRONG_CODES_ALLOWED
            ? `the code does not match the one the device shows; after ${WRONG_CODES_ALLOWED} wrong codes the pairing is cancelled: start a new pairing`
            : 'the code does not match the one the device shows',
        );
      }
      return r as { deviceId: string; approval: { state: 'pending' | 'approved' | 'denied' | 'cancelled' | 'expired'; expiresAt: string } | null };
    },

    async pairingResult(input: { pairingId: string; secret: string; publicKey: DevicePublicKey }) {
      const p = await pairingBySecret(input.pairingId, input.secret);
      if (!p.public_key || p.state === 'created') throw new HearthError('pairing_not_claimed', 'this pairing has not been claimed');
      const k = JSON.parse(p.public_key) as DevicePublicKey;
      if (k.x !== input.publicKey.x || k.y !== input.publicKey.y)
        throw new HearthError('key_mismatch', 'the public key is not the one that claimed this pairing');
      const state = pairingState(p);
      return { state, deviceId: p.device_id!, ...(state === 'claimed' ? { comparison: p.comparison! } : {}) };
    },

    async cancelPairing(pairingId: string, s: SessionInfo, a: Actor) {
      await store.transaction(async () => {
        const p = await ownPairing(pairingId, s, true);
        if (p.state === 'confirmed') throw new HearthError('pairing_confirmed', 'a confirmed device cannot be cancelled, only revoked');
        if (p.state === 'cancelled') return;
        await store.setPairingState(p.id, 'cancelled');
        if (p.change_id && (await store.cancelChange(p.change_id, now()))) {
          await record(a, 'auth.app.device_change.cancel', p.device_id ?? p.sub, {
            changeId: p.change_id,
            kind: 'pair',
            deviceId: p.device_id,
            endSignIns: false,
          });
        }
      });
    },
  };
}

export type Pairing = ReturnType<typeof createPairing>;
