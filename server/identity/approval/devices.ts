/**
 * The paired devices of the authenticator-approval protocol: the account's device list (pages
 * of twenty within the 8 KiB budget), renaming, and revocation by the account, by an administrator, by the device
 * itself (approval.channel.ts) or by an approved device change (device-changes.ts). Revocation cancels the pending
 * changes that target the device and is audited as `auth.app.device.revoke`; device rows stay until account deletion.
 */
import { HearthError } from '../../core/http/errors.ts';
import { type Actor, type ApprovalCore, deviceName, jsonBytes, L, presentDevice } from './approval.core.ts';
import type { DeviceRow } from './approval.store.ts';

export function createDevices(core: ApprovalCore) {
  const { store, accountStore, now, record } = core;

  async function revokeDevice(
    d: DeviceRow,
    a: Actor,
    by: 'device' | 'account' | 'administrator' | 'device-change',
    extra: Record<string, unknown> = {},
  ): Promise<boolean> {
    const at = now();
    if (!(await store.revokeDevice(d.id, at))) return false;
    await store.cancelChangesOfTarget(d.id, at);
    const account = await accountStore.getAccount(d.sub);
    await record(a, 'auth.app.device.revoke', d.sub, { login: account?.login ?? null, deviceId: d.id, name: d.name, by, ...extra });
    return true;
  }

  const devices = {
    revokeDevice,

    /**
     * A page of at most twenty devices in ID order that fits the 8 KiB response budget: when twenty would not fit
     * (long names of multi-byte characters), the page is shorter and `nextCursor` continues right after its last item.
     */
    async listDevices(sub: string, after: string | null) {
      const rows = await store.devicePage(sub, after, L.devicePageSize + 1);
      const items = rows.slice(0, L.devicePageSize).map(presentDevice);
      let more = rows.length > L.devicePageSize;
      const page = () => ({ items, nextCursor: more ? items[items.length - 1]!.id : null });
      while (items.length > 1 && jsonBytes(page()) > L.responseBytes) {
        items.pop();
        more = true;
      }
      return page();
    },

    /** The device list of an account an administrator looks at (404 `account_not_found` for no person account). */
    async accountDevices(sub: string, after: string | null) {
      const row = await accountStore.getAccount(sub);
      if (row?.kind !== 'person') throw new HearthError('account_not_found', `no account with sub ${sub}`);
      return devices.listDevices(row.sub, after);
    },

    async ownDevice(sub: string, deviceId: string): Promise<DeviceRow> {
      const d = await store.getDevice(deviceId);
      if (!d || d.sub !== sub) throw new HearthError('device_not_found', 'no such device of this account');
      return d;
    },

    updateDevice(sub: string, body: { operation: 'rename'; deviceId: string; name: string } | { operation: 'revoke'; deviceId: string }, a: Actor) {
      return store.transaction(async () => {
        const d = await devices.ownDevice(sub, body.deviceId);
        if (body.operation === 'rename') {
          const name = deviceName(body.name);
          await store.renameDevice(d.id, name);
          await record(a, 'auth.app.device.rename', sub, { deviceId: d.id, name });
        } else {
          await revokeDevice(d, a, 'account');
        }
        return presentDevice((await store.getDevice(d.id))!);
      });
    },

    adminRevoke(sub: string, deviceId: string, a: Actor) {
      return store.transaction(async () => {
        const d = await devices.ownDevice(sub, deviceId);
        await revokeDevice(d, a, 'administrator');
        return presentDevice((await store.getDevice(d.id))!);
      });
    },
  };
  return devices;
}

export type Devices = ReturnType<typeof createDevices>;
