/**
 * The app's state: the unlocked key store, the device bindings (one per paired Hearth instance) and the pairings in
 * progress, all kept in IndexedDB through the key store (sealed by the vault when a lock is set). One authenticator
 * serves any number of instances; each binding is `{issuer, deviceId, key}` (seed "Device binding").
 */
import { records, type StoredRecord } from './db.ts';
import { type KeyRecord, keystore } from './keystore.svelte.ts';
import { type AppApprovalClient, type AppDeviceBinding, type AppPairingPayload, connect } from './sdk.ts';

export interface Binding extends AppDeviceBinding {
  id: string;
  /** The name this device has on the instance (as typed when pairing). */
  name: string;
  pairedAt: string;
}

export interface Pairing {
  id: string;
  issuer: string;
  payload: AppPairingPayload;
  key: CryptoKeyPair;
  name: string;
  deviceId: string | null;
  comparison: string | null;
  startedAt: string;
}

const clients = new Map<string, Promise<AppApprovalClient>>();

/** The client of an instance (its `/info` checked once per page load; a failure is not cached). */
export function clientFor(issuer: string): Promise<AppApprovalClient> {
  let c = clients.get(issuer);
  if (!c) {
    c = connect({ issuer, authenticatorOrigin: location.origin });
    clients.set(issuer, c);
    c.catch(() => clients.delete(issuer));
  }
  return c;
}

class AppState {
  bindings = $state.raw<Binding[]>([]);
  pairings = $state.raw<Pairing[]>([]);
  loaded = $state(false);

  /** Reads and opens every stored record (after unlocking). */
  async load(): Promise<void> {
    const all = await records.all();
    const bindings: Binding[] = [];
    const pairings: Pairing[] = [];
    for (const r of all) {
      let rec: KeyRecord;
      try {
        rec = await keystore.open(r.sealed, r.id);
      } catch {
        continue; // unreadable (another vault, tampered): skipped, never deleted silently
      }
      if (rec.kind === 'device') bindings.push({ id: r.id, issuer: rec.issuer, deviceId: rec.deviceId, key: rec.key, name: rec.name, pairedAt: rec.createdAt });
      else
        pairings.push({
          id: r.id,
          issuer: rec.issuer,
          payload: rec.payload,
          key: rec.key,
          name: rec.name,
          deviceId: rec.deviceId,
          comparison: rec.comparison,
          startedAt: rec.createdAt,
        });
    }
    bindings.sort((a, b) => a.pairedAt.localeCompare(b.pairedAt));
    this.bindings = bindings;
    this.pairings = pairings;
    this.loaded = true;
  }

  clear(): void {
    this.bindings = [];
    this.pairings = [];
    this.loaded = false;
  }

  /** Stores a pairing (with its fresh key) before it is claimed: a lost claim answer can still be inspected. */
  async savePairing(p: Pairing): Promise<void> {
    const sealed = await keystore.seal(
      {
        kind: 'pairing',
        issuer: p.issuer,
        payload: p.payload,
        key: p.key,
        name: p.name,
        deviceId: p.deviceId,
        comparison: p.comparison,
        createdAt: p.startedAt,
      },
      p.id,
    );
    await records.put({ id: p.id, kind: 'pairing', issuer: p.issuer, sealed, createdAt: Date.parse(p.startedAt) } satisfies StoredRecord);
    this.pairings = [...this.pairings.filter((x) => x.id !== p.id), p];
  }

  /** The pairing was confirmed: keep `{issuer, deviceId, key}` and discard the pairing secret. */
  async confirmPairing(p: Pairing, deviceId: string): Promise<Binding> {
    const b: Binding = { id: `device:${p.issuer}:${deviceId}`, issuer: p.issuer, deviceId, key: p.key, name: p.name, pairedAt: new Date().toISOString() };
    const sealed = await keystore.seal({ kind: 'device', issuer: b.issuer, deviceId, key: b.key, name: b.name, createdAt: b.pairedAt }, b.id);
    await records.put({ id: b.id, kind: 'device', issuer: b.issuer, sealed, createdAt: Date.now() });
    await this.dropPairing(p);
    // A device re-paired with the same instance replaces the older binding of that instance only when it is revoked.
    this.bindings = [...this.bindings.filter((x) => x.id !== b.id), b];
    return b;
  }

  async dropPairing(p: Pairing): Promise<void> {
    await records.delete(p.id);
    this.pairings = this.pairings.filter((x) => x.id !== p.id);
  }

  async dropBinding(b: Binding): Promise<void> {
    await records.delete(b.id);
    this.bindings = this.bindings.filter((x) => x.id !== b.id);
  }
}

export const app = new AppState();
