/**
 * The signing-key lifecycle (states and limits below) as constants and one pure planner.
 * The planner never touches key material: the service feeds it rows and applies what it returns in one transaction.
 *
 *   pending  → active   maintenance, once published ≥ 10 minutes (the next key is created 15 minutes before the
 *                       active key's 30-day deadline and activates at that deadline, never earlier than 10 minutes
 *                       after its publication)
 *   active   → retired  the pending key becomes active (30-day target signing lifetime)
 *   retired  → withdrawn (public key leaves the JWKS) once every token it signed, plus clock and rollout margins,
 *                       has expired: see `verificationWindowMs`
 *   active   → revoked  administrator (service, not here)
 *   downtime: an active key past its deadline with no pending key ready (or a pending key that itself outlived a
 *             whole signing lifetime) is retired together with that pending key and an immediately active
 *             replacement is created, without prepublication; retired keys keep their full verification window.
 */
export const PURPOSES = ['session', 'invocation', 'oauth'] as const;
export type Purpose = (typeof PURPOSES)[number];
export type KeyState = 'pending' | 'active' | 'retired' | 'revoked';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A pending key is in the JWKS at least this long before it signs. */
export const PREPUBLISH_MS = 10 * MINUTE;
/** Target signing lifetime of an active key. */
export const SIGNING_LIFETIME_MS = 30 * DAY;
/** The next pending key is created this long before the active key's deadline (10 minutes plus 5 of slack for missed ticks). */
export const PENDING_LEAD_MS = 15 * MINUTE;
/** Maintenance runs at start and then every minute. */
export const MAINTENANCE_INTERVAL_MS = MINUTE;
/** A decrypted signer stays in memory at most this long. */
export const SIGNER_CACHE_MS = MINUTE;
/** JWKS responses are cacheable this long (and the in-process verifiers keep their key sets at most this long). */
export const JWKS_MAX_AGE_S = 300;
/**
 * After a key stops signing here, another process may still sign with it until its signer cache expires (one minute)
 * and the maintenance tick that retired it may be up to a minute late for it: two minutes of rollout margin.
 */
export const ROLLOUT_MARGIN_MS = 2 * MINUTE;

/** Longest token each purpose signs and the clock tolerance its verifier grants. */
export const TOKEN_POLICY: Record<Purpose, { maxLifetimeMs: number; toleranceMs: number }> = {
  /** Session tokens: at most 12 hours; browser sessions keep a 30-second clock tolerance. */
  session: { maxLifetimeMs: 12 * HOUR, toleranceMs: 30 * SECOND },
  /** Invocation tokens: exactly 30 seconds, 2-second tolerance (acceptable at most 32 seconds after issue). */
  invocation: { maxLifetimeMs: 30 * SECOND, toleranceMs: 2 * SECOND },
  /** OAuth access tokens and ID tokens: one hour; 60 seconds of tolerance for relying parties' clocks. */
  oauth: { maxLifetimeMs: HOUR, toleranceMs: 60 * SECOND },
};

/** How long a retired key stays in its JWKS after it stopped signing. */
export function verificationWindowMs(purpose: Purpose): number {
  const p = TOKEN_POLICY[purpose];
  return p.maxLifetimeMs + p.toleranceMs + ROLLOUT_MARGIN_MS;
}

/** The lifecycle fields of one key (what the planner needs). */
export interface LifecycleKey {
  kid: string;
  purpose: Purpose;
  state: KeyState;
  createdAt: number;
  activatesAt: number;
  retiresAt: number | null;
  withdrawsAt: number | null;
  withdrawnAt: number | null;
}

export type RetireReason = 'rotated' | 'downtime';

export type LifecycleAction =
  | { type: 'retire'; purpose: Purpose; kid: string; reason: RetireReason }
  | { type: 'activate'; purpose: Purpose; kid: string }
  | { type: 'create'; purpose: Purpose; state: 'active' | 'pending'; activatesAt: number }
  | { type: 'withdraw'; purpose: Purpose; kid: string };

/** What maintenance must do at `now`, in the order to apply it (retirements before activations and creations). */
export function planMaintenance(keys: LifecycleKey[], now: number): LifecycleAction[] {
  const actions: LifecycleAction[] = [];
  for (const purpose of PURPOSES) {
    const mine = keys.filter((k) => k.purpose === purpose);
    let active: { kid: string; retiresAt: number } | null = null;
    let pending: { kid: string; activatesAt: number } | null = null;
    for (const k of mine) {
      if (k.state === 'active') active = { kid: k.kid, retiresAt: k.retiresAt ?? k.activatesAt + SIGNING_LIFETIME_MS };
      if (k.state === 'pending') pending = { kid: k.kid, activatesAt: k.activatesAt };
    }

    if (pending && now >= pending.activatesAt + SIGNING_LIFETIME_MS) {
      // Downtime outlasted the active key's deadline and the pending key's whole lifetime: both retire.
      actions.push({ type: 'retire', purpose, kid: pending.kid, reason: 'downtime' });
      if (active) actions.push({ type: 'retire', purpose, kid: active.kid, reason: 'downtime' });
      actions.push({ type: 'create', purpose, state: 'active', activatesAt: now });
      active = { kid: '(new)', retiresAt: now + SIGNING_LIFETIME_MS };
      pending = null;
    } else if (pending && now >= pending.activatesAt) {
      // Regular rotation: the prepublished key takes over.
      if (active) actions.push({ type: 'retire', purpose, kid: active.kid, reason: 'rotated' });
      actions.push({ type: 'activate', purpose, kid: pending.kid });
      active = { kid: pending.kid, retiresAt: now + SIGNING_LIFETIME_MS };
      pending = null;
    } else if (active && !pending && now >= active.retiresAt) {
      // Downtime spanned both the deadline to prepublish a successor and the active key's deadline.
      actions.push({ type: 'retire', purpose, kid: active.kid, reason: 'downtime' });
      actions.push({ type: 'create', purpose, state: 'active', activatesAt: now });
      active = { kid: '(new)', retiresAt: now + SIGNING_LIFETIME_MS };
    }

    if (!active) {
      if (pending) {
        // No signer at all (first run is handled below): a published key beats an unpublished one.
        actions.push({ type: 'activate', purpose, kid: pending.kid });
        active = { kid: pending.kid, retiresAt: now + SIGNING_LIFETIME_MS };
        pending = null;
      } else {
        actions.push({ type: 'create', purpose, state: 'active', activatesAt: now });
        active = { kid: '(new)', retiresAt: now + SIGNING_LIFETIME_MS };
      }
    }

    if (!pending && now >= active.retiresAt - PENDING_LEAD_MS) {
      actions.push({ type: 'create', purpose, state: 'pending', activatesAt: Math.max(now + PREPUBLISH_MS, active.retiresAt) });
    }

    for (const k of mine) {
      if (k.state === 'retired' && k.withdrawnAt === null && k.withdrawsAt !== null && now >= k.withdrawsAt) {
        actions.push({ type: 'withdraw', purpose, kid: k.kid });
      }
    }
  }
  return actions;
}

/** Whether a key's public half belongs in its purpose's JWKS at `now`. */
export function isPublished(k: { state: KeyState; withdrawsAt: number | null }, now: number): boolean {
  if (k.state === 'pending' || k.state === 'active') return true;
  if (k.state === 'retired') return k.withdrawsAt !== null && now < k.withdrawsAt;
  return false;
}
