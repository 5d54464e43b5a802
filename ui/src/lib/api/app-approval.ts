/**
 * The browser side of the authenticator-approval protocol (server/identity/approval/approval.routes.ts, base
 * `/api/auth/app-approval/v1`): pairing a phone, the account's devices, device changes, and signing in with the app.
 * Every call is same-origin with the session cookie, so the browser adds the exact platform `Origin` the server
 * requires on writes. The administrator's view of another account's devices lives under
 * `/api/admin/core/users/{id}/app-devices`. Paths, bodies and answers are the OpenAPI document's (`openapi.ts`).
 */
import { formatPairingLink } from '../../../../server/identity/contract.ts';
import { answer, api, type Schemas, sessionApi } from './client.ts';
import type { operations } from './openapi.ts';

/** The JSON answer of an operation's 2xx status `S`. */
type Answer<Op extends keyof operations, S extends keyof operations[Op]['responses']> = operations[Op]['responses'][S] extends {
  content: { 'application/json': infer T };
}
  ? T
  : never;

/** Times arrive as ISO strings or epoch numbers (seconds or milliseconds): one Date for the UI. */
export function toDate(v: string | number | null | undefined): Date | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return new Date(v < 1e12 ? v * 1000 : v);
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** `GET /info` (`enabled` false: the server has the protocol off and every other endpoint answers 503). */
export type AppApprovalInfo = Schemas['AppApprovalInfo'];

export function appApprovalInfo(): Promise<AppApprovalInfo> {
  return answer(sessionApi.GET('/api/auth/app-approval/v1/info'));
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
export type PairingStart = Schemas['AppPairing'];
export type PairingStatus = Schemas['AppPairingStatus'];
/** The approval a pairing (or a removal) waits for; null when none is asked. */
export type Approval = NonNullable<PairingStatus['approval']>;
export type ApprovalState = Approval['state'];

/** `{origin}/#pairing=<percent-encoded JSON>`: the link the phone opens; the payload is the start response as sent. */
export function pairingLink(authenticatorOrigin: string, payload: PairingStart): string {
  return formatPairingLink(authenticatorOrigin, payload);
}

export function startPairing(userId?: string): Promise<PairingStart> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/pairings/start', { body: userId ? { userId } : {} }));
}

export function pairingStatus(pairingId: string, signal?: AbortSignal): Promise<PairingStatus> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/pairings/status', { body: { pairingId }, signal }));
}

export function confirmPairing(pairingId: string, comparison: string): Promise<Answer<'appPairingConfirm', 200>> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/pairings/confirm', { body: { pairingId, comparison } }));
}

export function cancelPairing(pairingId: string): Promise<unknown> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/pairings/cancel', { body: { pairingId } }));
}

// --- devices

export type AppDevice = Schemas['AppDevice'];

export function listDevices(after?: string | null): Promise<Answer<'appDevices', 200>> {
  return answer(sessionApi.GET('/api/auth/app-approval/v1/manage/devices', { params: { query: { after: after ?? undefined } } }));
}

export function renameDevice(deviceId: string, name: string): Promise<unknown> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/devices/update', { body: { operation: 'rename', deviceId, name } }));
}

export function revokeDevice(deviceId: string): Promise<unknown> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/devices/update', { body: { operation: 'revoke', deviceId } }));
}

export type DeviceChangeStatus = Schemas['AppDeviceChangeStatus'];

/**
 * Asks a paired device to approve removing `deviceId`; when the account has no other opted-in device the server
 * removes it at once (recent sign-in) and answers `{changeId: null, state: 'revoked'}`.
 */
export async function startDeviceRemoval(deviceId: string, endSessions: boolean): Promise<Answer<'appDeviceChangeStart', 200>> {
  // openapi-fetch's answer type leaves out a member whose type is only `null` (`changeId` here); the document has it.
  return (await answer(sessionApi.POST('/api/auth/app-approval/v1/manage/device-changes/start', { body: { deviceId, endSessions } }))) as Answer<
    'appDeviceChangeStart',
    200
  >;
}

export function deviceChangeStatus(changeId: string): Promise<DeviceChangeStatus> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/device-changes/status', { body: { changeId } }));
}

export function cancelDeviceChange(changeId: string): Promise<void> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/manage/device-changes/cancel', { body: { changeId } }));
}

// --- administration (another account's devices)

export function listUserDevices(userId: string): Promise<Answer<'adminAppDevices', 200>> {
  return answer(api.GET('/api/admin/core/users/{id}/app-devices', { params: { path: { id: userId } } }));
}

export function adminRevokeDevice(userId: string, deviceId: string): Promise<unknown> {
  return answer(api.POST('/api/admin/core/users/{id}/app-devices/{deviceId}/revoke', { params: { path: { id: userId, deviceId } } }));
}

// --- browser sign-in with the app

export type LoginCategory = NonNullable<operations['appLoginStart']['requestBody']>['content']['application/json']['category'];
export type LoginStart = Schemas['AppLoginRequest'];
export type LoginStatus = Answer<'appLoginStatus', 200>;
export type LoginState = LoginStatus['state'];

export function startAppLogin(identifier: string, category: LoginCategory): Promise<LoginStart> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/login/start', { body: { identifier, category } }));
}

export function appLoginStatus(requestId: string, browserSecret: string, signal?: AbortSignal): Promise<LoginStatus> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/login/status', { body: { requestId, browserSecret }, signal }));
}

export function completeAppLogin(requestId: string, browserSecret: string): Promise<void> {
  return answer(sessionApi.POST('/api/auth/app-approval/v1/login/complete', { body: { requestId, browserSecret } }));
}
