import { describe, expect, it } from 'vitest';
import {
  DAY,
  HOUR,
  isPublished,
  type LifecycleKey,
  MINUTE,
  PREPUBLISH_MS,
  type Purpose,
  planMaintenance,
  SECOND,
  SIGNING_LIFETIME_MS,
  verificationWindowMs,
} from './keys.lifecycle.ts';

const T0 = Date.UTC(2030, 0, 1);

function active(purpose: Purpose, kid: string, activatedAt: number): LifecycleKey {
  return {
    kid,
    purpose,
    state: 'active',
    createdAt: activatedAt,
    activatesAt: activatedAt,
    retiresAt: activatedAt + SIGNING_LIFETIME_MS,
    withdrawsAt: null,
    withdrawnAt: null,
  };
}
function pending(purpose: Purpose, kid: string, createdAt: number, activatesAt: number): LifecycleKey {
  return { kid, purpose, state: 'pending', createdAt, activatesAt, retiresAt: null, withdrawsAt: null, withdrawnAt: null };
}
const allActive = (at: number) => (['session', 'invocation', 'oauth'] as const).map((p) => active(p, `${p}-a`, at));
const forSession = (actions: ReturnType<typeof planMaintenance>) => actions.filter((a) => a.purpose === 'session');

describe('signing-key lifecycle planner', () => {
  it('first run: one immediately active key per purpose', () => {
    const plan = planMaintenance([], T0);
    expect(plan).toEqual([
      { type: 'create', purpose: 'session', state: 'active', activatesAt: T0 },
      { type: 'create', purpose: 'invocation', state: 'active', activatesAt: T0 },
      { type: 'create', purpose: 'oauth', state: 'active', activatesAt: T0 },
    ]);
  });

  it('does nothing while the active key is young', () => {
    expect(planMaintenance(allActive(T0), T0 + 29 * DAY)).toEqual([]);
  });

  it('creates the next pending key 15 minutes before the 30-day deadline, activating at the deadline', () => {
    expect(planMaintenance(allActive(T0), T0 + SIGNING_LIFETIME_MS - 16 * MINUTE)).toEqual([]);
    const at = T0 + SIGNING_LIFETIME_MS - 15 * MINUTE;
    expect(forSession(planMaintenance(allActive(T0), at))).toEqual([
      { type: 'create', purpose: 'session', state: 'pending', activatesAt: T0 + SIGNING_LIFETIME_MS },
    ]);
  });

  it('never activates a pending key less than ten minutes after publication', () => {
    // Maintenance came late (5 minutes before the deadline): the active key signs a little longer.
    const at = T0 + SIGNING_LIFETIME_MS - 5 * MINUTE;
    expect(forSession(planMaintenance(allActive(T0), at))).toEqual([{ type: 'create', purpose: 'session', state: 'pending', activatesAt: at + PREPUBLISH_MS }]);
    const keys = [active('session', 'a', T0), pending('session', 'p', at, at + PREPUBLISH_MS)];
    expect(forSession(planMaintenance(keys, T0 + SIGNING_LIFETIME_MS + 1 * MINUTE))).toEqual([]);
    expect(forSession(planMaintenance(keys, at + PREPUBLISH_MS))).toEqual([
      { type: 'retire', purpose: 'session', kid: 'a', reason: 'rotated' },
      { type: 'activate', purpose: 'session', kid: 'p' },
    ]);
  });

  it('rotates at the deadline: the pending key becomes active, the old one retires', () => {
    const deadline = T0 + SIGNING_LIFETIME_MS;
    const keys = [active('session', 'a', T0), pending('session', 'p', deadline - 15 * MINUTE, deadline)];
    expect(forSession(planMaintenance(keys, deadline - 1))).toEqual([]);
    expect(forSession(planMaintenance(keys, deadline))).toEqual([
      { type: 'retire', purpose: 'session', kid: 'a', reason: 'rotated' },
      { type: 'activate', purpose: 'session', kid: 'p' },
    ]);
  });

  it('withdraws a retired key once its verification window has passed', () => {
    const retired: LifecycleKey = { ...active('session', 'old', T0), state: 'retired', withdrawsAt: T0 + 13 * HOUR };
    const keys = [retired, active('session', 'a', T0 + HOUR)];
    expect(forSession(planMaintenance(keys, T0 + 13 * HOUR - 1))).toEqual([]);
    expect(forSession(planMaintenance(keys, T0 + 13 * HOUR))).toEqual([{ type: 'withdraw', purpose: 'session', kid: 'old' }]);
    expect(forSession(planMaintenance([{ ...retired, withdrawnAt: T0 + 13 * HOUR }, keys[1]!], T0 + 14 * HOUR))).toEqual([]);
  });

  it('downtime past the deadline without a pending key: retire and replace at once (no prepublication)', () => {
    const at = T0 + 60 * DAY;
    expect(forSession(planMaintenance(allActive(T0), at))).toEqual([
      { type: 'retire', purpose: 'session', kid: 'session-a', reason: 'downtime' },
      { type: 'create', purpose: 'session', state: 'active', activatesAt: at },
    ]);
  });

  it('downtime that outlived the pending key too: both retire, an active replacement is created', () => {
    const deadline = T0 + SIGNING_LIFETIME_MS;
    const keys = [active('session', 'a', T0), pending('session', 'p', deadline - 15 * MINUTE, deadline)];
    const at = deadline + SIGNING_LIFETIME_MS;
    expect(forSession(planMaintenance(keys, at))).toEqual([
      { type: 'retire', purpose: 'session', kid: 'p', reason: 'downtime' },
      { type: 'retire', purpose: 'session', kid: 'a', reason: 'downtime' },
      { type: 'create', purpose: 'session', state: 'active', activatesAt: at },
    ]);
  });

  it('a shorter downtime with a published pending key is an ordinary rotation', () => {
    const deadline = T0 + SIGNING_LIFETIME_MS;
    const keys = [active('session', 'a', T0), pending('session', 'p', deadline - 15 * MINUTE, deadline)];
    expect(forSession(planMaintenance(keys, deadline + 3 * DAY))).toEqual([
      { type: 'retire', purpose: 'session', kid: 'a', reason: 'rotated' },
      { type: 'activate', purpose: 'session', kid: 'p' },
    ]);
  });

  it('verification windows: token lifetime + tolerance + two minutes of rollout margin', () => {
    expect(verificationWindowMs('invocation')).toBe(30 * SECOND + 2 * SECOND + 2 * MINUTE);
    expect(verificationWindowMs('session')).toBe(12 * HOUR + 30 * SECOND + 2 * MINUTE);
    expect(verificationWindowMs('oauth')).toBe(HOUR + 60 * SECOND + 2 * MINUTE);
  });

  it('publishes pending, active and unexpired retired keys only', () => {
    expect(isPublished({ state: 'pending', withdrawsAt: null }, T0)).toBe(true);
    expect(isPublished({ state: 'active', withdrawsAt: null }, T0)).toBe(true);
    expect(isPublished({ state: 'retired', withdrawsAt: T0 + 1 }, T0)).toBe(true);
    expect(isPublished({ state: 'retired', withdrawsAt: T0 }, T0)).toBe(false);
    expect(isPublished({ state: 'revoked', withdrawsAt: T0 + DAY }, T0)).toBe(false);
  });
});
