/** First-run setup and account sign-in (`/api/setup`, `/api/auth/…`: server/identity/sessions/sessions.routes.ts). */
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../../server/identity/contract.ts';
import { answer, apiWith, reauthApi, type Schemas, sessionApi } from './client.ts';

export { LOGIN_PATTERN } from '../../../../server/identity/contract.ts';

export type CurrentSession = Schemas['CurrentSession'];
export type SessionAccount = Schemas['SessionAccount'];
export type SignedIn = Schemas['SignedIn'];

export const PASSWORD_MIN = PASSWORD_MIN_LENGTH;
export const PASSWORD_MAX = PASSWORD_MAX_LENGTH;

export function getSetup(): Promise<{ needed: boolean }> {
  return answer(sessionApi.GET('/api/setup'));
}

export function setup(body: Schemas['SetupBody']): Promise<SignedIn> {
  return answer(sessionApi.POST('/api/setup', { body }));
}

export function login(loginName: string, password: string): Promise<SignedIn> {
  return answer(sessionApi.POST('/api/auth/login', { body: { login: loginName, password } }));
}

export function logout(): Promise<void> {
  return answer(sessionApi.POST('/api/auth/logout'));
}

export function currentSession(): Promise<CurrentSession> {
  return answer(sessionApi.GET('/api/auth/session'));
}

/** Recent authentication: the session counts as signed in now again (`POST /api/auth/reauth`). */
export function reauthenticate(password: string): Promise<Schemas['Reauthenticated']> {
  return answer(reauthApi.POST('/api/auth/reauth', { body: { password } }));
}

/**
 * Whether `token` is an admin token the server accepts: the cheapest admin-only call (one namespace), with that token
 * and not the signed-in one; a 401 (unknown token) or 403 (not admin) arrives as `ApiError` without signing out.
 */
export async function checkAdminToken(token: string): Promise<void> {
  await answer(apiWith({ token, signOutOn401: false }).GET('/v1/namespaces', { params: { query: { limit: 1 } } }));
}
