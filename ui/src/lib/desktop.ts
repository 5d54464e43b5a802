/**
 * The desktop app's bridge (electron/preload.ts), present only when the admin UI runs in Hearth's own window.
 * There the window signs the desktop user in as the local administrator, with no token to paste: the bridge hands
 * over a fresh short-lived admin API token (each new one revokes the previous one). When the server stops accepting
 * it (it expired), the bridge is asked for another one, at most once every 10 seconds; if that fails too, the
 * sign-in page shows as in a browser.
 */
import { credentials } from './api/client.ts';

export interface DesktopBridge {
  readonly version: number;
  signIn(): Promise<{ token: string; expiresAt: string } | null>;
}

export const desktop: DesktopBridge | null = (globalThis as { hearthDesktop?: DesktopBridge }).hearthDesktop ?? null;

interface SessionLike {
  readonly token: string | null;
  signIn(token: string, remember: boolean): void;
}

const RETRY_MS = 10_000;

export function connectDesktopSession(session: SessionLike): void {
  if (!desktop) return;
  const bridge = desktop;
  let last = 0;
  const renew = async () => {
    if (Date.now() - last < RETRY_MS) return;
    last = Date.now();
    try {
      const granted = await bridge.signIn();
      if (granted) session.signIn(granted.token, false);
    } catch {
      // the server is restarting: the window reloads when it is back
    }
  };
  credentials.onUnauthorized(() => void renew());
  if (session.token === null) void renew();
}
