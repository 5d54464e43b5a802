/**
 * "Share on the local network": moving the running server between loopback and every interface, and the
 * addresses to give LAN clients. Plain module (no Electron), tested under Node.
 */
import os from 'node:os';
import type { RebindResult } from '../server/entry/protocol.ts';
import { type DesktopSettings, listenAddress, type SettingsStore } from './settings.ts';

/** The part of the supervisor this needs. */
export interface Rebinder {
  rebind(host: string, port: number, tls?: 'off' | 'internal'): Promise<RebindResult>;
}

/**
 * Turns LAN sharing on or off: saves the setting and moves the running server's listener. If the server cannot
 * listen there (the port is taken), the setting is put back and the error is thrown; the server keeps its address.
 */
export async function setLanSharing(on: boolean, store: SettingsStore, server: Rebinder): Promise<{ settings: DesktopSettings; address: RebindResult }> {
  const before = store.get();
  const wanted = { ...before, shareOnLan: on };
  const { host, port, tls } = listenAddress(wanted);
  const address = await server.rebind(host, port, tls);
  const settings = store.update({ shareOnLan: on });
  return { settings, address };
}

/** IPv4 addresses of this machine's network interfaces that LAN clients can reach (private ranges first). */
export function lanAddresses(interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string[] {
  const found: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const info of list ?? []) {
      if (info.family === 'IPv4' && !info.internal && !info.address.startsWith('169.254.')) found.push(info.address);
    }
  }
  const isPrivate = (a: string) => /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(a);
  return [...new Set(found)].sort((a, b) => Number(isPrivate(b)) - Number(isPrivate(a)));
}

/**
 * The URLs to give LAN clients for a server listening on `port`: the public address first (the `.local` name, where
 * passkeys and sign-in work), then each LAN address.
 */
export function lanUrls(port: number, interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>, publicUrl?: string): string[] {
  const scheme = publicUrl?.startsWith('https:') ? 'https' : 'http';
  const byAddress = lanAddresses(interfaces).map((a) => `${scheme}://${a}:${port}`);
  return publicUrl ? [publicUrl, ...byAddress.filter((u) => u !== publicUrl)] : byAddress;
}
