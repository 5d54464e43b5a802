/**
 * A stand-in for the `electron` module, enough to run the desktop main process (build/out/desktop/main.cjs) under
 * Node: `utilityProcess.fork` is `child_process.fork` (the server entry then talks over `process.send`, the same
 * protocol), windows and menus only record what they are asked to do. Used by test/integration/desktop/bundle.test.ts.
 */
'use strict';
const { EventEmitter } = require('node:events');
const childProcess = require('node:child_process');
const { pathToFileURL } = require('node:url');

function createElectronMock(paths) {
  const record = { windows: [], trayMenus: [], appMenus: [], errors: [], opened: [], exitCode: null, forks: [], switches: [], verifyProc: null };
  let markReady;
  const ready = new Promise((r) => (markReady = r));
  const app = new EventEmitter();
  Object.assign(app, {
    requestSingleInstanceLock: () => true,
    setAppLogsPath() {},
    getPath: (name) => paths[name],
    whenReady: () => ready,
    commandLine: { appendSwitch: (name, value) => record.switches.push([name, value]) },
    quit() {
      const event = {
        defaultPrevented: false,
        preventDefault() {
          this.defaultPrevented = true;
        },
      };
      app.emit('before-quit', event);
      if (!event.defaultPrevented) record.exitCode = 0;
    },
    exit(code) {
      record.exitCode = code;
    },
  });
  let menu = null;
  Object.defineProperty(app, 'applicationMenu', {
    get: () => menu,
    set: (m) => {
      menu = m;
      record.appMenus.push(m);
    },
  });

  class WebContents extends EventEmitter {
    constructor() {
      super();
      this.mainFrame = { url: '' };
    }
    setWindowOpenHandler(fn) {
      this.openHandler = fn;
    }
    getURL() {
      return this.mainFrame.url;
    }
  }
  class BrowserWindow extends EventEmitter {
    constructor(opts) {
      super();
      this.opts = opts;
      this.loads = [];
      this.webContents = new WebContents();
      record.windows.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    loadURL(url) {
      this.loads.push(url);
      this.webContents.mainFrame.url = url;
      return Promise.resolve();
    }
    loadFile(file, opts = {}) {
      const q = new URLSearchParams(opts.query || {}).toString();
      return this.loadURL(pathToFileURL(file).href + (q ? `?${q}` : ''));
    }
    show() {}
    hide() {}
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
  }
  const handlers = new Map();
  const utilityProcess = {
    fork(entry, args, opts) {
      const child = childProcess.fork(entry, args, { env: opts.env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      record.forks.push(child);
      const proxy = new EventEmitter();
      child.on('message', (m) => proxy.emit('message', m));
      child.on('exit', (code) => proxy.emit('exit', code ?? 1));
      return Object.assign(proxy, {
        get pid() {
          return child.pid;
        },
        stdout: child.stdout,
        stderr: child.stderr,
        postMessage: (m) => child.connected && child.send(m),
        kill: () => child.kill('SIGTERM'),
      });
    },
  };
  const mock = {
    app,
    BrowserWindow,
    utilityProcess,
    ipcMain: { handle: (channel, fn) => handlers.set(channel, fn) },
    safeStorage: {
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptString: (s) => Buffer.from(`sealed:${Buffer.from(s).toString('base64')}`),
      decryptString: (b) => Buffer.from(b.toString().slice(7), 'base64').toString(),
    },
    Menu: { buildFromTemplate: (template) => ({ template }) },
    Tray: class {
      setToolTip() {}
      on() {}
      setContextMenu(m) {
        record.trayMenus.push(m);
      }
    },
    nativeImage: { createFromPath: () => ({ resize: () => ({}) }) },
    shell: {
      openPath: async (p) => {
        record.opened.push(p);
        return '';
      },
      openExternal: async (u) => {
        record.opened.push(u);
      },
    },
    dialog: { showErrorBox: (_title, message) => record.errors.push(message) },
    session: {
      defaultSession: {
        setPermissionRequestHandler() {},
        setPermissionCheckHandler() {},
        setCertificateVerifyProc(fn) {
          record.verifyProc = fn;
        },
      },
    },
    clipboard: { writeText() {} },
  };
  return { mock, record, handlers, markReady };
}

module.exports = { createElectronMock };
