/**
 * The desktop app's own settings (`<userData>/settings.json`): whether to share on the local network, and on which
 * port. Plain module (no Electron), tested under Node. A missing or broken file means the defaults; the file is
 * written atomically.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface DesktopSettings {
  /** "Share on the local network": listen on every interface at `lanPort` instead of loopback. */
  shareOnLan: boolean;
  /** The fixed port LAN clients use (default 8787). */
  lanPort: number;
}

export const DEFAULT_SETTINGS: DesktopSettings = { shareOnLan: false, lanPort: 8787 };

export const LOOPBACK_HOST = '127.0.0.1';
export const LAN_HOST = '0.0.0.0';

export function parseSettings(raw: unknown): DesktopSettings {
  const out = { ...DEFAULT_SETTINGS };
  if (typeof raw !== 'object' || raw === null) return out;
  const r = raw as Record<string, unknown>;
  if (typeof r.shareOnLan === 'boolean') out.shareOnLan = r.shareOnLan;
  if (Number.isInteger(r.lanPort) && (r.lanPort as number) >= 1 && (r.lanPort as number) <= 65535) out.lanPort = r.lanPort as number;
  return out;
}

export class SettingsStore {
  readonly file: string;
  private value: DesktopSettings;

  constructor(file: string) {
    this.file = file;
    this.value = SettingsStore.read(file);
  }

  static read(file: string): DesktopSettings {
    try {
      return parseSettings(JSON.parse(fs.readFileSync(file, 'utf8')));
    } catch {
      return { ...DEFAULT_SETTINGS };
    }
  }

  get(): DesktopSettings {
    return { ...this.value };
  }

  update(change: Partial<DesktopSettings>): DesktopSettings {
    const next = parseSettings({ ...this.value, ...change });
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(tmp, this.file);
    this.value = next;
    return this.get();
  }
}

/**
 * Where the server listens for these settings: loopback on a free port over plain HTTP (a secure context already),
 * or every interface on the LAN port over HTTPS with Hearth's own certificate authority.
 */
export function listenAddress(s: DesktopSettings): { host: string; port: number; tls: 'off' | 'internal' } {
  return s.shareOnLan ? { host: LAN_HOST, port: s.lanPort, tls: 'internal' } : { host: LOOPBACK_HOST, port: 0, tls: 'off' };
}
