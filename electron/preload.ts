/**
 * The narrow bridge between the app's pages and the main process (sandboxed preload: only `electron` may be
 * required). The admin UI speaks HTTP to the server; this only adds desktop conveniences:
 *   signIn()    a fresh short-lived admin token for the local administrator (server pages only)
 *   retry()     start the server again after a failure (status page only)
 *   openLogs()  show the server's log file (status page only)
 * The main process checks which page is asking before it answers.
 */
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld('hearthDesktop', {
  version: 1,
  signIn: (): Promise<{ token: string; expiresAt: string } | null> => ipcRenderer.invoke('hearth:sign-in'),
  retry: (): Promise<void> => ipcRenderer.invoke('hearth:retry'),
  openLogs: (): Promise<void> => ipcRenderer.invoke('hearth:open-logs'),
});
