/**
 * Device changes requested from the browser: the removal of a device that
 * another active device of the account approves or denies (kind `revoke`, optionally ending the account's other
 * sessions), with its status and cancellation by the requesting account and session family. Changes of kind `pair`
 * are made by pairing.ts; both kinds are decided over the device channel (approval.channel.ts). With no other
 * opted-in device to decide, a removal is a plain revocation at once.
 */
import crypto from 'node:crypto';
import type { SessionInfo } from '../../core/auth/tokens.service.ts';
import { HearthError } from '../../core/http/errors.ts';
import { type Actor, type ApprovalCore, err, iso, L } from './approval.core.ts';
import type { ChangeRow } from './approval.store.ts';
import type { Devices } from './devices.ts';

export function createDeviceChanges(core: ApprovalCore, devices: Devices) {
  const { deps, store, accountStore, now, record, optedIn, readable, changeState } = core;

  const changes = {
    startRemoval(s: SessionInfo, deviceId: string, endSessions: boolean, a: Actor) {
      return store.transaction(async () => {
        const d = await devices.ownDevice(s.sub, deviceId);
        if (d.revoked_at !== null) throw new HearthError('device_already_revoked', 'this device is already revoked');
        const at = now();
        const existing = await store.newestRemoval(s.sub, s.familyId, d.id);
        if (existing && changeState(existing) === 'pending') {
          if ((existing.end_sessions === 1) === endSessions) {
            return {
              changeId: existing.id,
              state: 'pending' as const,
              expiresAt: iso(existing.expires_at),
              kind: 'revoke' as const,
              deviceId: d.id,
              endSessions,
            };
          }
          await store.cancelChange(existing.id, at);
        }
        const deciders = (await store.activeDevices(s.sub)).filter((x) => x.id !== d.id && optedIn(x, 'device-changes'));
        if (deciders.length === 0) {
          // Nobody else could approve: a plain revoke (the route already required recent authentication).
          await devices.revokeDevice(d, a, 'account');
          const ended = endSessions ? await deps.sessionStore.revokeAll(s.sub, at, 'app-device-removed', s.familyId) : 0;
          return { changeId: null, state: 'revoked' as const, deviceId: d.id, endSessions, endedSessions: ended };
        }
        const id = crypto.randomUUID();
        const expiresAt = at + L.changeLifetimeSeconds * 1000;
        await store.insertChange({
          id,
          sub: s.sub,
          kind: 'revoke',
          target_id: d.id,
          target_name: d.name,
          end_sessions: endSessions ? 1 : 0,
          family_id: s.familyId,
          pairing_id: null,
          created_at: at,
          expires_at: expiresAt,
        });
        await record(a, 'auth.app.device_change.request', d.id, {
          changeId: id,
          kind: 'revoke',
          deviceId: d.id,
          endSignIns: endSessions,
          login: (await accountStore.getAccount(s.sub))?.login ?? null,
        });
        return { changeId: id, state: 'pending' as const, expiresAt: iso(expiresAt), kind: 'revoke' as const, deviceId: d.id, endSessions };
      });
    },

    /** A change the session requested: by `changeId`, or the newest removal of `deviceId` by this session. */
    async ownChange(s: SessionInfo, ref: { changeId: string } | { deviceId: string }): Promise<ChangeRow> {
      const c = 'changeId' in ref ? await store.getChange(ref.changeId) : await store.newestRemoval(s.sub, s.familyId, ref.deviceId);
      if (!c || c.sub !== s.sub || c.family_id !== s.familyId || !readable(c.expires_at)) throw err.notFound('the device change');
      return c;
    },
    async changeStatus(s: SessionInfo, ref: { changeId: string } | { deviceId: string }) {
      const c = await changes.ownChange(s, ref);
      return { changeId: c.id, state: changeState(c), expiresAt: iso(c.expires_at) };
    },
    async cancelChange(s: SessionInfo, ref: { changeId: string } | { deviceId: string }, a: Actor) {
      await store.transaction(async () => {
        const c = await changes.ownChange(s, ref);
        const state = changeState(c);
        if (state === 'cancelled') return;
        if (state !== 'pending') throw new HearthError('change_not_pending', `this device change is ${state}`);
        // Guarded: a decision made meanwhile (another replica) wins, and this cancels nothing.
        if (!(await store.cancelChange(c.id, now()))) throw new HearthError('change_not_pending', 'this device change was decided meanwhile');
        if (c.pairing_id) await store.setPairingState(c.pairing_id, 'cancelled');
        await record(a, 'auth.app.device_change.cancel', c.target_id, {
          changeId: c.id,
          kind: c.kind,
          deviceId: c.target_id,
          endSignIns: c.end_sessions === 1,
        });
      });
    },
  };
  return changes;
}

export type DeviceChanges = ReturnType<typeof createDeviceChanges>;
