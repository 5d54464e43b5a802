/**
 * The desktop app's main process: one window on the admin UI, served by the Hearth server running in an Electron
 * utility process under the supervisor. Thin on purpose: every decision lives in plain modules tested under Node
 * (server-supervisor.ts, restart-policy.ts, settings.ts, lan.ts, app-secret.ts, navigation.ts, desktop-tokens.ts,
 * backup.ts).
 *
 *   <userData>/data           the server's data folder
 *   <userData>/settings.json  desktop settings (LAN sharing, LAN port)
 *   <userData>/app-secret.bin the application secret, encrypted with safeStorage (when the OS offers it)
 *   <logs>/server.log         the server's log
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  type IpcMainInvokeEvent,
  ipcMain,
  type MessageBoxOptions,
  Notification,
  nativeImage,
  net,
  safeStorage,
  session,
  shell,
} from 'electron';
import { lanLabel } from '../server/core/net/names.ts';
import { loadAppSecret, type SecretCipher } from './app-secret.ts';
import { backUpNow } from './backup.ts';
import { DesktopTokens } from './desktop-tokens.ts';
import { lanUrls, setLanSharing } from './lan.ts';
import { applicationMenu, createTray, type MenuActions, type MenuModel } from './menu.ts';
import { originOf } from './navigation.ts';
import { RestartPolicy } from './restart-policy.ts';
import { hardenApp, WEB_PREFERENCES } from './security.ts';
import { ServerSupervisor, type SupervisorState, serverEnvironment } from './server-supervisor.ts';
import { listenAddress, SettingsStore } from './settings.ts';
import { issuedByRoot, readInternalRoot } from './trust.ts';
import { electronForkServer } from './utility-fork.ts';

/** Files of a packaged app that must be real files (the server runs them, or serves them) live beside the asar. */
const unpacked = (p: string) => p.replace(/app\.asar(?=[\\/])/, 'app.asar.unpacked');
const here = import.meta.dirname;
const SERVER_ENTRY = unpacked(path.join(here, 'server.cjs'));
const UI_DIR = unpacked(path.resolve(here, '../../../ui/dist'));
const PRELOAD = path.join(here, 'preload.cjs');
const STATUS_PAGE = path.join(here, 'status.html');
/** The admin UI's page with the CA QR code, fingerprint and install steps. */
const CERTIFICATE_PAGE = '/network/certificate';
/** The admin UI's Backups page (backups with a passphrase, the list, the schedule). */
const BACKUPS_PAGE = '/backups';
const ICON = path.resolve(here, '../../../resources/icons/icon.png');

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  main();
}

function main(): void {
  let win: BrowserWindow | null = null;
  let quitting = false;
  let serverOrigin: string | null = null;
  let tray: ReturnType<typeof createTray> = null;

  app.setAppLogsPath();
  const userData = app.getPath('userData');
  const dataDir = path.join(userData, 'data');
  const logFile = path.join(app.getPath('logs'), 'server.log');
  const settings = new SettingsStore(path.join(userData, 'settings.json'));
  const statusUrl = pathToFileURL(STATUS_PAGE).href;

  hardenApp({ serverOrigin: () => serverOrigin, statusPage: statusUrl });
  // Shared on the LAN, the server's address is https://<name>.local:<port> (passkeys and sign-in work only there):
  // this window reaches that name on this computer, and trusts Hearth's own root for it (nothing to install here).
  const localName = `${lanLabel()}.local`;
  app.commandLine.appendSwitch('host-resolver-rules', `MAP ${localName} 127.0.0.1`);
  void app.whenReady().then(() => {
    session.defaultSession.setCertificateVerifyProc((request, callback) => {
      const ours = request.hostname === localName || request.hostname === '127.0.0.1' || request.hostname === 'localhost';
      callback(ours && issuedByRoot(request.certificate.data, request.hostname, readInternalRoot(dataDir)) ? 0 : -3);
    });
  });

  const showStatus = (kind: 'starting' | 'restarting' | 'failed' | 'stopping', message = '') => {
    serverOrigin = null;
    void win?.loadFile(STATUS_PAGE, { query: { kind, message, log: kind === 'failed' ? logFile : '' } });
  };

  const openWindow = () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
      return;
    }
    win = new BrowserWindow({
      width: 1280,
      height: 820,
      minWidth: 720,
      minHeight: 480,
      title: 'Hearth',
      show: false,
      backgroundColor: '#1f2937',
      icon: fs.existsSync(ICON) ? ICON : undefined,
      webPreferences: { ...WEB_PREFERENCES, preload: PRELOAD },
    });
    win.once('ready-to-show', () => win?.show());
    win.on('close', (event) => {
      // With a tray the server keeps serving (LAN clients) while the window is closed.
      if (!quitting && tray) {
        event.preventDefault();
        win?.hide();
      }
    });
    win.on('closed', () => (win = null));
    render(supervisor.state);
  };

  /** Puts the window in step with the server: the admin UI when running, the status page otherwise. */
  const render = (state: SupervisorState) => {
    if (!win) return;
    switch (state.phase) {
      case 'running': {
        const origin = originOf(state.publicUrl);
        if (serverOrigin !== origin) {
          serverOrigin = origin;
          void win.loadURL(`${state.publicUrl}/`);
        }
        return;
      }
      case 'idle':
      case 'starting':
        if (serverOrigin === null) showStatus('starting');
        return;
      case 'restarting':
        showStatus('restarting', `${state.reason}. Starting again in ${(state.delayMs / 1000).toFixed(1)} s (crash ${state.crashes}).`);
        return;
      case 'failed':
        showStatus('failed', state.message);
        return;
      case 'stopping':
      case 'stopped':
        showStatus('stopping');
        return;
    }
  };

  const cipher: SecretCipher = {
    isAvailable: () => safeStorage.isEncryptionAvailable() && (process.platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text'),
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (data) => safeStorage.decryptString(data),
  };
  let appSecret: string | undefined;

  const supervisor = new ServerSupervisor({
    fork: electronForkServer({ entry: SERVER_ENTRY, logFile, env: serverEnvironment(process.env) }),
    settings: () => ({ dataDir, ...listenAddress(settings.get()), logFile, uiDir: UI_DIR, appSecret }),
    policy: new RestartPolicy({ initialDelayMs: 1000, maxDelayMs: 15_000, maxCrashes: 5, windowMs: 5 * 60_000 }),
    readyTimeoutMs: 60_000,
    stopTimeoutMs: 15_000,
  });

  const statusLabel = (s: SupervisorState) =>
    s.phase === 'running'
      ? `Running on ${s.host === '0.0.0.0' ? 'the local network' : 'this computer'}`
      : s.phase === 'failed'
        ? 'Stopped: see the window'
        : `${s.phase[0]!.toUpperCase()}${s.phase.slice(1)}…`;
  const menuModel = (): MenuModel => {
    const s = supervisor.state;
    const shareOnLan = settings.get().shareOnLan;
    const running = s.phase === 'running';
    return {
      shareOnLan,
      lanUrls: shareOnLan && running ? lanUrls(s.port, undefined, s.publicUrl) : [],
      status: statusLabel(s),
      caFingerprint: running ? s.caFingerprint : null,
      canBackUp: running,
      backingUp,
    };
  };
  const actions: MenuActions = {
    open: openWindow,
    setShareOnLan: (on) => void toggleLan(on),
    openDataFolder: () => void shell.openPath(dataDir),
    addDevices: () => openPage(CERTIFICATE_PAGE),
    viewLogs: () => void shell.openPath(logFile),
    backUpNow: () => void backup(),
    quit: () => app.quit(),
  };
  /** Opens a page of the admin UI in the window (when the server runs). */
  const openPage = (page: string) => {
    openWindow();
    if (supervisor.state.phase === 'running') void win?.loadURL(`${supervisor.state.publicUrl}${page}`);
  };
  const messageBox = (opts: MessageBoxOptions) => (win ? dialog.showMessageBox(win, opts) : dialog.showMessageBox(opts));

  /** The window and the menu's own calls share one desktop token (a new one revokes the previous one). */
  const tokens = new DesktopTokens(() => supervisor.issueLoginToken());
  let backingUp = false;
  const backup = async () => {
    if (backingUp) return;
    backingUp = true;
    refreshMenus();
    const result = await backUpNow({
      baseUrl: () => (supervisor.state.phase === 'running' ? supervisor.state.publicUrl : null),
      tokens,
      // Chromium's network stack: the window's session, which trusts Hearth's own root for its LAN address.
      fetch: (url, init) => net.fetch(url, init),
      shell: {
        confirm: async () => {
          const { response } = await messageBox({
            type: 'question',
            buttons: ['Back up without secrets', 'Use a passphrase…', 'Cancel'],
            defaultId: 0,
            cancelId: 2,
            message: 'Back up Hearth now?',
            detail:
              'Without a passphrase the backup leaves the secrets out (the key-encryption key Hearth generated, the OAuth broker secret, the TLS keys): a restored server makes new ones, and the signing keys and mail passwords sealed under the old key no longer open. To seal the secrets in the backup, make it with a passphrase on the Backups page.',
          });
          return (['start', 'page', 'cancel'] as const)[response] ?? 'cancel';
        },
        chooseFile: async (name) => {
          const opts = {
            title: 'Save the backup',
            defaultPath: path.join(app.getPath('downloads'), name),
            filters: [{ name: 'Hearth backup', extensions: ['hearth-backup'] }],
          };
          const r = await (win ? dialog.showSaveDialog(win, opts) : dialog.showSaveDialog(opts));
          return r.canceled || !r.filePath ? null : r.filePath;
        },
        progress: (fraction) => win?.setProgressBar(fraction === null ? -1 : fraction),
      },
    });
    backingUp = false;
    refreshMenus();
    if (result.outcome === 'page') openPage(BACKUPS_PAGE);
    else if (result.outcome === 'failed') void messageBox({ type: 'error', message: 'The backup failed', detail: result.message });
    else if (result.outcome === 'saved' || result.outcome === 'kept') {
      const [title, body] =
        result.outcome === 'saved'
          ? ['Backup saved', `${path.basename(result.file)} (${(result.size / 1048576).toFixed(1)} MiB) is in ${path.dirname(result.file)}.`]
          : ['Backup kept in Hearth', `${result.name} is in Hearth's backup folder: download it from the Backups page.`];
      if (Notification.isSupported()) {
        const note = new Notification({ title, body });
        note.on('click', () => (result.outcome === 'saved' ? shell.showItemInFolder(result.file) : openPage(BACKUPS_PAGE)));
        note.show();
      } else void messageBox({ type: 'info', message: title, detail: body });
    }
  };

  const refreshMenus = () => {
    const model = menuModel();
    app.applicationMenu = applicationMenu(model, actions);
    tray?.update(model);
  };

  const toggleLan = async (on: boolean) => {
    try {
      if (supervisor.state.phase === 'running') {
        const { address } = await setLanSharing(on, settings, supervisor);
        // Sharing turned HTTPS on: show the address, the CA QR code and its fingerprint for the other devices.
        if (on && address.caFingerprint) {
          openWindow();
          serverOrigin = originOf(address.publicUrl);
          void win?.loadURL(`${address.publicUrl}${CERTIFICATE_PAGE}`);
        }
      } else {
        settings.update({ shareOnLan: on });
        // A server that could not start (e.g. the LAN port was taken) gets another chance at the new address.
        if (supervisor.state.phase === 'failed') void supervisor.retry().catch(() => {});
      }
    } catch (err) {
      dialog.showErrorBox('Hearth', `Could not ${on ? 'share on the local network' : 'stop sharing'}: ${(err as Error).message}`);
    }
    refreshMenus();
  };

  supervisor.onState((state) => {
    render(state);
    refreshMenus();
  });

  /** Who may call the bridge: the server's pages for sign-in, the status page for retry and logs. */
  const fromServerPage = (e: IpcMainInvokeEvent) => {
    if (win === null || e.sender !== win.webContents || !e.senderFrame || serverOrigin === null) return false;
    try {
      return e.senderFrame === win.webContents.mainFrame && originOf(e.senderFrame.url) === serverOrigin;
    } catch {
      return false;
    }
  };
  const fromStatusPage = (e: IpcMainInvokeEvent) => win !== null && e.sender === win.webContents && e.senderFrame?.url.split('?')[0] === statusUrl;

  ipcMain.handle('hearth:sign-in', async (e) => {
    if (!fromServerPage(e)) return null;
    return tokens.forWindow();
  });
  ipcMain.handle('hearth:retry', async (e) => {
    if (!fromStatusPage(e)) return;
    showStatus('starting');
    await supervisor.retry().catch(() => {});
  });
  ipcMain.handle('hearth:open-logs', async (e) => {
    if (fromStatusPage(e)) await shell.openPath(logFile);
  });

  app.on('second-instance', openWindow);
  app.on('activate', openWindow);
  app.on('window-all-closed', () => {
    if (!tray) app.quit();
  });
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    showStatus('stopping');
    void supervisor.stop().finally(() => app.exit(0));
  });

  void app.whenReady().then(() => {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    try {
      appSecret = loadAppSecret({ file: path.join(userData, 'app-secret.bin'), dataDir, cipher }).secret;
    } catch (err) {
      dialog.showErrorBox('Hearth', (err as Error).message);
    }
    tray = createTray(nativeImage.createFromPath(ICON).resize({ width: 18, height: 18 }), actions);
    refreshMenus();
    openWindow();
    void supervisor.start().catch(() => {
      // the window shows the error page
    });
  });
}
