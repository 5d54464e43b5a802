/**
 * The browser side of the authenticator-approval protocol (server/identity/approval/approval.routes.ts, base
 * `/api/auth/app-approval/v1`): pairing a phone, the account's devices, device changes, and signing in with the app.
 * Every call is same-origin, so the browser adds the exact platform `Origin` the server requires on writes. The
 * administrator's view of another account's devices lives under `/api/admin/core/users/:id/app-devices`.
 */
import type { z } from 'zod';
import type * as S from '../../../../server/identity/approval/approval.schemas.ts';
import { formatPairingLink } from '../../../../server/identity/contract.ts';
import { request } from './client.ts';

export const APP_APPROVAL_BASE = '/api/auth/app-approval/v1';
const enc = encodeURIComponent;

/** Times arrive as ISO strings or epoch numbers (seconds or milliseconds): one Date for the UI. */
export function toDate(v: string | number | null | undefined): Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return new Date(v < 1e12 ? v * 1000 : v);
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `GET /info` (`enabled` false: the server has the protocol off and every other endpoint answers 503). */
export type AppApprovalInfo = z.infer<typeof S.InfoResponse>;

export function appApprovalInfo(): Promise<AppApprovalInfo> {
  return request(`${APP_APPROVAL_BASE}/info`, { token: null, signOutOn401: false });
}

let enabledOnce: Promise<boolean> | null = null;
/** Whether the phone features are offered (`/info.enabled`); asked once per page load. A failed call counts as on. */
export function appApprovalEnabled(): Promise<boolean> {
  enabledOnce ??= appApprovalInfo().then(
    (i) => i.enabled !== false,
    () => true,
  );
  return enabledOnce;
}

// --- pairing

/** The pairing start response: also the payload of the pairing link. */
export type PairingStart = z.infer<typeof S.PairingStartResponse>;
export type ApprovalState = z.infer<typeof S.ApprovalState>;
/** The approval a pairing (or a removal) waits for; null when none is asked. */
export type Approval = NonNullable<z.infer<typeof S.Approval>>;
export type PairingStatus = z.infer<typeof S.PairingStatus>;

/** `{origin}/#pairing=<percent-encoded JSON>`: the link the phone opens; the payload is the start response as sent. */
export function pairingLink(authenticatorOrigin: string, payload: PairingStart): string {
  return formatPairingLink(authenticatorOrigin, payload);
}

export function startPairing(userId?: string): Promise<PairingStart> {
  return request(`${APP_APPROVAL_BASE}/manage/pairings/start`, { method: 'POST', json: userId ? { userId } : {}, token: null, signOutOn401: false });
}

export function pairingStatus(pairingId: string, signal?: AbortSignal): Promise<PairingStatus> {
  return request(`${APP_APPROVAL_BASE}/manage/pairings/status`, { method: 'POST', json: { pairingId }, token: null, signOutOn401: false, signal });
}

export function confirmPairing(pairingId: string, comparison: string): Promise<z.infer<typeof S.ConfirmResponse>> {
  return request(`${APP_APPROVAL_BASE}/manage/pairings/confirm`, { method: 'POST', json: { pairingId, comparison }, token: null, signOutOn401: false });
}

export function cancelPairing(pairingId: string): Promise<unknown> {
  return request(`${APP_APPROVAL_BASE}/manage/pairings/cancel`, { method: 'POST', json: { pairingId }, token: null, signOutOn401: false });
}

// --- devices

export type AppDevice = z.infer<typeof S.Device>;

export function listDevices(after?: string | null): Promise<z.infer<typeof S.DevicePage>> {
  return request(`${APP_APPROVAL_BASE}/manage/devices`, { query: { after: after ?? undefined }, token: null, signOutOn401: false });
}

export function renameDevice(deviceId: string, name: string): Promise<unknown> {
  return request(`${APP_APPROVAL_BASE}/manage/devices/update`, {
    method: 'POST',
    json: { operation: 'rename', deviceId, name },
    token: null,
    signOutOn401: false,
  });
}

export function revokeDevice(deviceId: string): Promise<unknown> {
  return request(`${APP_APPROVAL_BASE}/manage/devices/update`, { method: 'POST', json: { operation: 'revoke', deviceId }, token: null, signOutOn401: false });
}

export type DeviceChangeStatus = z.infer<typeof S.ChangeStatus>;

/**
 * Asks a paired device to approve removing `deviceId`; when the account has no other opted-in device the server
 * removes it at once (recent sign-in) and answers `{changeId: null, state: 'revoked'}`.
 */
export function startDeviceRemoval(deviceId: string, endSessions: boolean): Promise<z.infer<typeof S.ChangeStartResponse>> {
  return request(`${APP_APPROVAL_BASE}/manage/device-changes/start`, { method: 'POST', json: { deviceId, endSessions }, token: null, signOutOn401: false });
}

export function deviceChangeStatus(changeId: string): Promise<DeviceChangeStatus> {
  return request(`${APP_APPROVAL_BASE}/manage/device-changes/status`, { method: 'POST', json: { changeId }, token: null, signOutOn401: false });
}

export function cancelDeviceChange(changeId: string): Promise<void> {
  return request(`${APP_APPROVAL_BASE}/manage/device-changes/cancel`, { method: 'POST', json: { changeId }, token: null, signOutOn401: false });
}

// --- administration (another account's devices)

export function listUserDevices(userId: string): Promise<{ items: AppDevice[]; nextCursor?: string | null }> {
  return request(`/api/admin/core/users/${enc(userId)}/app-devices`);
}

export function adminRevokeDevice(userId: string, deviceId: string): Promise<unknown> {
  return request(`/api/admin/core/users/${enc(userId)}/app-devices/${enc(deviceId)}/revoke`, { method: 'POST', json: {} });
}

// --- browser sign-in with the app

export type LoginCategory = z.infer<typeof S.LoginStartBody>['category'];
export type LoginStart = z.infer<typeof S.LoginStartResponse>;
export type LoginState = z.infer<typeof S.LoginState>;

export function startAppLogin(identifier: string, category: LoginCategory): Promise<LoginStart> {
  return request(`${APP_APPROVAL_BASE}/login/start`, { method: 'POST', json: { identifier, category }, token: null, signOutOn401: false });
}

export function appLoginStatus(requestId: string, browserSecret: string, signal?: AbortSignal): Promise<z.infer<typeof S.LoginStatus>> {
  return request(`${APP_APPROVAL_BASE}/login/status`, { method: 'POST', json: { requestId, browserSecret }, token: null, signOutOn401: false, signal });
}

export function completeAppLogin(requestId: string, browserSecret: string): Promise<void> {
  return request(`${APP_APPROVAL_BASE}/login/complete`, { method: 'POST', json: { requestId, browserSecret }, token: null, signOutOn401: false });
}
