/**
 * Locks down every window of the app: no navigation outside the server's origin and the status page, new windows
 * and outside links go to the system browser, no webviews, no permissions beyond writing to the clipboard.
 * The rules themselves are in navigation.ts (tested under Node).
 */
import { app, session, shell, type WebContents } from 'electron';
import { isAllowedNavigation, isExternalUrl } from './navigation.ts';

export const WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  spellcheck: false,
} as const;

export function hardenApp(opts: { serverOrigin: () => string | null; statusPage: string }): void {
  const allowed = (url: string) => isAllowedNavigation(url, opts.serverOrigin(), opts.statusPage);
  const guard = (contents: WebContents) => {
    contents.setWindowOpenHandler(({ url }) => {
      if (isExternalUrl(url) && !allowed(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    const onNavigate = (event: { preventDefault(): void }, url: string) => {
      if (allowed(url)) return;
      event.preventDefault();
      if (isExternalUrl(url)) void shell.openExternal(url);
    };
    contents.on('will-navigate', onNavigate);
    contents.on('will-redirect', onNavigate);
    contents.on('will-attach-webview', (event) => event.preventDefault());
  };
  app.on('web-contents-created', (_event, contents) => guard(contents));

  const fromServer = (url: string | undefined) => {
    const origin = opts.serverOrigin();
    try {
      return origin !== null && url !== undefined && new URL(url).origin === origin;
    } catch {
      return false;
    }
  };
  // Sessions exist once the app is ready.
  void app.whenReady().then(() => {
    const ses = session.defaultSession;
    ses.setPermissionRequestHandler((contents, permission, callback) => {
      callback(permission === 'clipboard-sanitized-write' && fromServer(contents.getURL()));
    });
    ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) => permission === 'clipboard-sanitized-write' && fromServer(requestingOrigin));
  });
}
