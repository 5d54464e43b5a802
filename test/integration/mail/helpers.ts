/**
 * Shared pieces of the outgoing-mail tests: a test server with a movable mail clock (`startMailServer`; `store:
 * 'sqlite'` as for startTestServer), admin API calls that assert the status, profiles, application registrations,
 * the audit log, and waiting for a message's state.
 */
import { expect } from 'vitest';
import type { StartOptions } from '../../../server/boot.ts';
import type { MailClock } from '../../../server/mail/index.ts';
import { startTestServer, type TestServer, type TestStoreOption } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

export const M = '/api/admin/core/outgoing-mail';

/** A clock tests can move forward: real timers, `now` shifted by `offset`. */
export function movableClock() {
  let offset = 0;
  const clock: MailClock = {
    now: () => Date.now() + offset,
    setTimeout: (fn, ms) => {
      const t = setTimeout(fn, ms);
      t.unref();
      return t;
    },
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  };
  return { clock, advance: (ms: number) => void (offset += ms) };
}

export async function startMailServer(opts: StartOptions & TestStoreOption = {}) {
  const c = movableClock();
  const s = await startTestServer({ ...opts, mail: { clock: c.clock, ...opts.mail } });
  return Object.assign(s, { advance: c.advance, mail: s.services.mail });
}
export type MailServer = Awaited<ReturnType<typeof startMailServer>>;

export async function call<T = any>(s: TestServer, method: string, path: string, json?: unknown, expected = 200, token?: string): Promise<T> {
  // A request that gets no answer (a reset connection) names itself: `fetch failed` alone does not say which one.
  const r = await s.api(path, { method, json, token }).catch((err: Error) => {
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    throw new Error(`${method} ${path}: ${err.message}${cause ? ` (${cause.code ?? ''} ${cause.message ?? ''})` : ''}`, { cause: err });
  });
  const text = await r.text();
  expect(r.status, `${method} ${path}: ${text}`).toBe(expected);
  return (text ? JSON.parse(text) : undefined) as T;
}

export function profileBody(port: number, extra: Record<string, unknown> = {}) {
  return { name: 'Test', fromAddress: 'noreply@example.test', smtpHost: '127.0.0.1', smtpPort: port, smtpSecure: false, ...extra };
}

export async function registerApp(s: TestServer, appId = 'crm', permissions = ['mail:send']): Promise<string> {
  const r = await call(s, 'POST', `${M}/apps`, { appId, name: appId.toUpperCase(), platformPermissions: permissions }, 201);
  return r.token as string;
}

export async function audit(s: TestServer, action: string) {
  return (await call<{ data: Array<{ action: string; target: string; actor: string; detail: any }> }>(s, 'GET', `/api/admin/audit?action=${action}&limit=100`))
    .data;
}

/** Polls a message record until `pred` holds. */
export async function waitMessage(s: TestServer, id: string, pred: (m: any) => boolean, ms = 10_000) {
  let m: any;
  return until(
    async () => {
      m = await call(s, 'GET', `${M}/messages/${id}`);
      return pred(m) && m;
    },
    () => `message ${id} (it stayed ${m?.status} (${m?.lastError ?? ''}))`,
    ms,
  );
}

/** A TCP port nothing listens on (connection refused: a temporary failure). */
export const CLOSED_PORT = 9;
