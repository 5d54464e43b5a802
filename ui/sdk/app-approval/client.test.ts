/**
 * The SDK client's own checks, without a server: the strict `AppLoginContext` and terminal shapes (the shared schema
 * of server/identity/approval/contracts.ts) and `decideChange` refusing a change its latest inbox did not list.
 */
import { describe, expect, it } from 'vitest';
import { AppApprovalClient, AppInboxResponse, AppLoginContext, AppTerminalLogin, createKey } from './client.ts';
import { AppApprovalClientError } from './errors.ts';

const context = {
  level: 'hint',
  browser: 'firefox',
  os: 'linux',
  country: 'DE',
  city: 'Köln',
  network: 'Example Telecom',
  history: { knownSince: null, newCountry: false, countriesSince: '2026-11-01T00:00:00.000Z' },
} as const;
const login = { requestId: 'r1', challenge: 'c', comparison: '123456', createdAt: '2026-11-23T16:00:00.000Z', expiresAt: '2026-11-23T16:05:00.000Z' };

describe('AppLoginContext', () => {
  it('accepts the context the instance computes, with sameNetwork', () => {
    expect(AppLoginContext.parse(context)).toEqual(context);
    expect(AppLoginContext.parse({ ...context, sameNetwork: true })).toEqual({ ...context, sameNetwork: true });
    expect(AppLoginContext.parse({ ...context, city: 'é'.repeat(48), network: null, country: null, history: null }).city).toBe('é'.repeat(48));
  });

  it('refuses extra members (also in history), over-long bytes, several lines and bad countries', () => {
    expect(AppLoginContext.safeParse({ ...context, extra: 1 }).success).toBe(false);
    expect(AppLoginContext.safeParse({ ...context, history: { ...context.history, extra: true } }).success).toBe(false);
    // 49 characters, 98 UTF-8 bytes: within 96 UTF-16 units, over 96 bytes.
    expect(AppLoginContext.safeParse({ ...context, city: 'é'.repeat(49) }).success).toBe(false);
    expect(AppLoginContext.safeParse({ ...context, network: '📶'.repeat(25) }).success).toBe(false);
    expect(AppLoginContext.safeParse({ ...context, network: 'Example\nTelecom' }).success).toBe(false);
    expect(AppLoginContext.safeParse({ ...context, city: 'Köln\u2028Bonn' }).success).toBe(false);
    expect(AppLoginContext.safeParse({ ...context, city: 'Köln\u202Enlök' }).success).toBe(false);
    for (const country of ['de', 'DEU', 'D', '']) expect(AppLoginContext.safeParse({ ...context, country }).success, country).toBe(false);
  });

  it('makes an inbox with such a context an invalid response', () => {
    expect(AppInboxResponse.safeParse({ logins: [{ ...login, context }], actions: [], moreActions: 0, pollAfterSeconds: 25 }).success).toBe(true);
    expect(
      AppInboxResponse.safeParse({ logins: [{ ...login, context: { ...context, extra: 1 } }], actions: [], moreActions: 0, pollAfterSeconds: 25 }).success,
    ).toBe(false);
    expect(
      AppInboxResponse.safeParse({ logins: [{ ...login, context: { ...context, network: 'a\nb' } }], actions: [], moreActions: 0, pollAfterSeconds: 25 })
        .success,
    ).toBe(false);
  });
});

describe('AppTerminalLogin', () => {
  const terminal = { client: { id: 'hearth-cli', name: 'Hearth CLI' }, scopes: ['openid'], lifetimeSeconds: 3600 };
  it('allows a client name of at most 60 characters and 1–16 scope codes', () => {
    expect(AppTerminalLogin.parse({ ...terminal, client: { id: 'x', name: '📱'.repeat(60) } }).client.name).toHaveLength(120);
    expect(AppTerminalLogin.safeParse({ ...terminal, client: { id: 'x', name: 'a'.repeat(61) } }).success).toBe(false);
    expect(AppTerminalLogin.safeParse({ ...terminal, scopes: [] }).success).toBe(false);
    expect(AppTerminalLogin.safeParse({ ...terminal, scopes: Array.from({ length: 17 }, (_, i) => `s${i}`) }).success).toBe(false);
    expect(AppTerminalLogin.safeParse({ ...terminal, scopes: Array.from({ length: 16 }, (_, i) => `s${i}`) }).success).toBe(true);
    expect(AppTerminalLogin.safeParse({ ...terminal, scopes: ['has space'] }).success).toBe(false);
    expect(AppTerminalLogin.safeParse({ ...terminal, extra: 1 }).success).toBe(false);
  });
});

describe('decideChange', () => {
  it('refuses (invalid_argument, no request) a change the device’s latest inbox from this client did not list', async () => {
    // Nothing listens on port 1: a request would fail with `network`, not `invalid_argument`.
    const issuer = 'http://127.0.0.1:1';
    const client = new AppApprovalClient(
      {
        protocol: 'hearth-app-approval-v1',
        issuer,
        api: `${issuer}/api/auth/app-approval/v1`,
        appOrigin: 'https://app.example.test',
        algorithm: 'ES256',
        limits: {},
        features: ['device-changes'],
      },
      'https://app.example.test',
    );
    const device = { issuer, deviceId: 'device-1', key: await createKey() };
    const change = { changeId: 'change-1', kind: 'revoke' as const, device: { id: 'device-2', name: 'B' }, endSessions: false };
    const e = await client.decideChange(device, change, 'approve').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AppApprovalClientError);
    expect((e as AppApprovalClientError).code).toBe('invalid_argument');
  });
});
