/**
 * The server's one public address, made before the domains and handed to them: the public URL tokens are issued
 * for and links point to, the origin of the phone authenticator web app that may call the approval device channel,
 * and the host the main listener is bound to (which the certificate must cover). The listeners fill it in once they
 * are bound and again when the desktop moves them (`rebind`); whoever caches something derived from it listens with
 * `onChange`. Until the main listener is bound `publicUrl` is `''` (nothing is served before then).
 */

export interface AddressValue {
  /** HEARTH_PUBLIC_URL, else derived from the bound main listener (server/boot-listeners.ts). */
  publicUrl: string;
  /** HEARTH_AUTHENTICATOR_ORIGIN, else the reference authenticator app's listener when it is on, else null. */
  authenticatorOrigin: string | null;
  /** The host the main listener is bound to (`--host`; the desktop's "Share on the local network" changes it). */
  listenHost: string;
}

export interface Address extends Readonly<AddressValue> {
  /** Calls `listener` after each change; returns how to stop listening. */
  onChange(listener: (value: AddressValue) => void): () => void;
}

/** The writable side, kept by the boot and its listeners. */
export interface MutableAddress extends Address {
  set(change: Partial<AddressValue>): void;
}

export function createAddress(initial: AddressValue): MutableAddress {
  const value: AddressValue = { ...initial };
  const listeners = new Set<(value: AddressValue) => void>();
  return {
    get publicUrl() {
      return value.publicUrl;
    },
    get authenticatorOrigin() {
      return value.authenticatorOrigin;
    },
    get listenHost() {
      return value.listenHost;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(change) {
      const before = { ...value };
      Object.assign(value, change);
      if (before.publicUrl === value.publicUrl && before.authenticatorOrigin === value.authenticatorOrigin && before.listenHost === value.listenHost) return;
      for (const l of listeners) l({ ...value });
    },
  };
}
