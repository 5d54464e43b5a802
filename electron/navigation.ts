/**
 * Where the desktop window may go. Plain module (no Electron), tested under Node; security.ts applies it.
 */

/** The window may show the server's own pages (same origin) and the app's status page, nothing else. */
export function isAllowedNavigation(url: string, serverOrigin: string | null, statusPage: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'file:') return url.split(/[?#]/)[0] === statusPage.split(/[?#]/)[0];
  return serverOrigin !== null && u.origin === serverOrigin;
}

/** Links that leave the app open in the system browser (or mail client); anything else is dropped. */
export function isExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' || u.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/** The origin of a server URL (`http://127.0.0.1:43123`). */
export function originOf(url: string): string {
  return new URL(url).origin;
}
