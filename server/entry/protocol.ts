/**
 * Messages between a supervisor (the Electron main process, or a test under Node) and the server entry
 * (`utility.ts`) running as an Electron utility process (`process.parentPort`) or a `child_process.fork` child
 * (`process.send`). Both transports carry the same plain objects.
 *
 *   supervisor                                   server
 *   fork ─────────────────────────────────────▶  (waits for `start`)
 *   {type:'start', settings} ─────────────────▶  startServer(settings)
 *                  ◀────────────────────────────  {type:'ready', url, host, port, …}   or {type:'start-failed', message}
 *   {type:'rebind', id, host, port, tls?} ────▶  running.rebind(host, port, {tls})
 *                  ◀────────────────────────────  {type:'reply', id, ok, result | message}
 *   {type:'issue-login-token', id} ───────────▶  a fresh short-lived admin API token
 *                  ◀────────────────────────────  {type:'reply', id, ok, result: {token, expiresAt}}
 *   {type:'shutdown'} ────────────────────────▶  graceful close
 *                  ◀────────────────────────────  {type:'stopped'}, then exit code 0
 */

export const PROTOCOL_VERSION = 1;

/** What the supervisor decides about the server; everything else comes from HEARTH_* variables or defaults. */
export interface StartSettings {
  dataDir: string;
  host: string;
  /** 0 for any free port. */
  port: number;
  logLevel?: string;
  /** Log lines go to this file (appended) instead of standard output. */
  logFile?: string;
  /** The application secret, when the supervisor keeps it (protected by the OS keychain on the desktop). */
  appSecret?: string;
  /** Where the built admin UI is (the packaged app passes its own). */
  uiDir?: string;
  /** How long a graceful shutdown waits for requests in flight. */
  shutdownTimeoutMs?: number;
  /** `internal`: HTTPS with Hearth's own CA (the desktop shares on the LAN this way). Unset: HEARTH_TLS or off. */
  tls?: 'off' | 'internal';
}

export type ParentMessage =
  | { type: 'start'; settings: StartSettings }
  | { type: 'shutdown' }
  | { type: 'rebind'; id: number; host: string; port: number; tls?: 'off' | 'internal' }
  | { type: 'issue-login-token'; id: number; ttlMs?: number };

export interface ReadyInfo {
  url: string;
  /** The address to open (with TLS: `https://<host>.local:<port>`); see RunningServer.publicUrl. */
  publicUrl: string;
  /** SHA-256 fingerprint of Hearth's own root while it serves with `internal` TLS, else null. */
  caFingerprint: string | null;
  host: string;
  port: number;
  pid: number;
  version: string;
  dataDir: string;
  protocol: number;
}

export interface LoginToken {
  token: string;
  expiresAt: string;
}

export interface RebindResult {
  url: string;
  publicUrl: string;
  caFingerprint: string | null;
  host: string;
  port: number;
}

export type ServerMessage =
  | ({ type: 'ready' } & ReadyInfo)
  | { type: 'start-failed'; message: string }
  | { type: 'reply'; id: number; ok: true; result: unknown }
  | { type: 'reply'; id: number; ok: false; message: string }
  | { type: 'stopped' };

/** Default and longest lifetime of a desktop sign-in token. */
export const LOGIN_TOKEN_TTL_MS = 60 * 60_000;
export const LOGIN_TOKEN_MAX_TTL_MS = 24 * 60 * 60_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535;
const isId = (v: unknown): v is number => Number.isSafeInteger(v);
const optional = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const isString = (v: unknown): v is string => typeof v === 'string';

function isStartSettings(v: unknown): v is StartSettings {
  return (
    isObject(v) &&
    isString(v.dataDir) &&
    v.dataDir !== '' &&
    isString(v.host) &&
    v.host !== '' &&
    isPort(v.port) &&
    optional(v.logLevel, isString) &&
    optional(v.logFile, isString) &&
    optional(v.appSecret, isString) &&
    optional(v.uiDir, isString) &&
    optional(v.shutdownTimeoutMs, (x) => Number.isInteger(x) && (x as number) >= 0) &&
    optional(v.tls, isTlsSwitch)
  );
}

const isTlsSwitch = (x: unknown) => x === 'off' || x === 'internal';

/** Checks a message from the supervisor; anything else is ignored by the server. */
export function parseParentMessage(v: unknown): ParentMessage | null {
  if (!isObject(v)) return null;
  switch (v.type) {
    case 'start':
      return isStartSettings(v.settings) ? { type: 'start', settings: v.settings } : null;
    case 'shutdown':
      return { type: 'shutdown' };
    case 'rebind':
      if (!isId(v.id) || !isString(v.host) || v.host === '' || !isPort(v.port) || !optional(v.tls, isTlsSwitch)) return null;
      return { type: 'rebind', id: v.id, host: v.host, port: v.port, ...(v.tls ? { tls: v.tls as 'off' | 'internal' } : {}) };
    case 'issue-login-token':
      return isId(v.id) && optional(v.ttlMs, (x) => Number.isInteger(x) && (x as number) > 0)
        ? { type: 'issue-login-token', id: v.id, ...(v.ttlMs !== undefined ? { ttlMs: v.ttlMs as number } : {}) }
        : null;
    default:
      return null;
  }
}

/** Checks a message from the server; anything else is ignored by the supervisor. */
export function parseServerMessage(v: unknown): ServerMessage | null {
  if (!isObject(v)) return null;
  switch (v.type) {
    case 'ready':
      return isString(v.url) && isString(v.host) && isPort(v.port) && isId(v.pid) && isString(v.version) && isString(v.dataDir) && isId(v.protocol)
        ? (v as ServerMessage)
        : null;
    case 'start-failed':
      return isString(v.message) ? { type: 'start-failed', message: v.message } : null;
    case 'reply':
      if (!isId(v.id)) return null;
      if (v.ok === true) return { type: 'reply', id: v.id, ok: true, result: v.result };
      return v.ok === false && isString(v.message) ? { type: 'reply', id: v.id, ok: false, message: v.message } : null;
    case 'stopped':
      return { type: 'stopped' };
    default:
      return null;
  }
}
