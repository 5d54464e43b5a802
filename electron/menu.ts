/**
 * The tray icon and the application menu: open the window, share on the local network (on/off, with the address
 * to give LAN clients), back up now (electron/backup.ts), open the data folder, view the logs, quit.
 */
import { clipboard, Menu, type MenuItemConstructorOptions, type NativeImage, Tray } from 'electron';

export interface MenuModel {
  shareOnLan: boolean;
  /** Addresses for LAN clients, when sharing. */
  lanUrls: string[];
  /** e.g. "Running", "Restarting…", "Stopped: …" */
  status: string;
  /** SHA-256 fingerprint of Hearth's root while sharing over HTTPS, for devices to compare before trusting it. */
  caFingerprint?: string | null;
  /** "Back up now…" is offered: the server runs. */
  canBackUp?: boolean;
  /** A desktop backup is in progress (the item says so). */
  backingUp?: boolean;
}

export interface MenuActions {
  open(): void;
  setShareOnLan(on: boolean): void;
  openDataFolder(): void;
  /** Opens the page with the CA QR code, fingerprint and install steps for phones and other computers. */
  addDevices(): void;
  viewLogs(): void;
  /** Makes a backup and saves it where the user chooses. */
  backUpNow(): void;
  quit(): void;
}

function items(model: MenuModel, actions: MenuActions): MenuItemConstructorOptions[] {
  const lan: MenuItemConstructorOptions[] = model.shareOnLan
    ? model.lanUrls.length
      ? model.lanUrls.map((url) => ({ label: `Copy LAN address ${url}`, click: () => clipboard.writeText(url) }))
      : [{ label: 'No local network address found', enabled: false }]
    : [];
  if (model.shareOnLan && model.caFingerprint) {
    lan.push({ label: 'Add other devices (certificate QR code)…', click: actions.addDevices });
    lan.push({ label: `Certificate fingerprint ${model.caFingerprint.slice(0, 23)}…`, click: () => clipboard.writeText(model.caFingerprint!) });
  }
  return [
    { label: 'Open Hearth', click: actions.open },
    { label: model.status, enabled: false },
    { type: 'separator' },
    { label: 'Share on the local network', type: 'checkbox', checked: model.shareOnLan, click: (item) => actions.setShareOnLan(item.checked) },
    ...lan,
    { type: 'separator' },
    { label: model.backingUp ? 'Backing up…' : 'Back up now…', enabled: !!model.canBackUp && !model.backingUp, click: actions.backUpNow },
    { label: 'Open data folder', click: actions.openDataFolder },
    { label: 'View logs', click: actions.viewLogs },
    { type: 'separator' },
    { label: 'Quit Hearth', accelerator: 'CmdOrCtrl+Q', click: actions.quit },
  ];
}

export function applicationMenu(model: MenuModel, actions: MenuActions): Menu {
  return Menu.buildFromTemplate([
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    { label: 'Hearth', submenu: items(model, actions) },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [{ role: 'reload' }, { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' }, { role: 'togglefullscreen' }],
    },
    { role: 'windowMenu' },
  ]);
}

/** A tray icon with the same items; null where the desktop has no tray. */
export function createTray(icon: NativeImage, actions: MenuActions): { update(model: MenuModel): void } | null {
  let tray: Tray;
  try {
    tray = new Tray(icon);
  } catch {
    return null;
  }
  tray.setToolTip('Hearth');
  tray.on('click', actions.open);
  return {
    update(model) {
      tray.setContextMenu(Menu.buildFromTemplate(items(model, actions)));
      tray.setToolTip(`Hearth: ${model.status}`);
    },
  };
}
