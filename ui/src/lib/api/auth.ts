/** First-run setup and account sign-in (server/identity/sessions/sessions.routes.ts). */
import type { CurrentSession, Reauthenticated, SessionAccount, SignedIn } from '../../../../server/identity/sessions/sessions.routes.ts';
import { request } from './client.ts';

export type { CurrentSession, SessionAccount };

/** Login rule of the server (accounts.schemas.ts): 1–32 of a-z 0-9 _ -, starting with a letter or _. */
export const LOGIN_PATTERN = /^[a-z_][a-z0-9_-]{0,31}$/;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 1024;

export function getSetup(): Promise<{ needed: boolean }> {
  return request('/api/setup', { token: null, signOutOn401: false });
}

export function setup(body: { login: string; password: string; displayName?: string; email?: string }): Promise<SignedIn> {
  return request('/api/setup', { method: 'POST', json: body, token: null, signOutOn401: false });
}

export function login(loginName: string, password: string): Promise<SignedIn> {
  return request('/api/auth/login', { method: 'POST', json: { login: loginName, password }, token: null, signOutOn401: false });
}

export function logout(): Promise<void> {
  return request('/api/auth/logout', { method: 'POST', token: null, signOutOn401: false });
}

export function currentSession(): Promise<CurrentSession> {
  return request('/api/auth/session', { token: null, signOutOn401: false });
}

/** Recent authentication: the session counts as signed in now again (`POST /api/auth/reauth`). */
export function reauthenticate(password: string): Promise<Reauthenticated> {
  return request('/api/auth/reauth', { method: 'POST', json: { password }, token: null, signOutOn401: false, reauthenticate: false });
}
