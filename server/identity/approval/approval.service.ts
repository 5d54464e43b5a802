/**
 * The authenticator-approval protocol `hearth-app-approval-v1`, composed from one module per flow:
 *
 * - approval.core.ts — what the flows share (dependencies, clock, audit, states, account lookup, helpers);
 * - pairing.ts — pairing and enrolment; devices.ts — the device list, rename and revocation;
 * - device-changes.ts — removal requests decided on another device; sign-in-requests.ts — the request rows that
 *   browser-login.ts (browser sign-in) and terminal-broker.ts (the OAuth device flow's broker) share;
 * - approval.channel.ts — the signed device channel `POST /device`; notice-outbox.ts — enrolment notices to mail.
 *
 * Pairings, sign-in requests and device changes live five minutes; they stay readable one minute after expiry, then
 * the minute cleanup here removes them (404). This file owns the info document, the cleanup and the composition; the
 * routes are composed the same way in approval.routes.ts.
 */

import { createDeviceChannel } from './approval.channel.ts';
import { type ApprovalDeps, createApprovalCore, L, WINDOW_MS } from './approval.core.ts';
import { APP_APPROVAL_BASE } from './approval.schemas.ts';
import { createBrowserLogin } from './browser-login.ts';
import { createDeviceChanges } from './device-changes.ts';
import { createDevices } from './devices.ts';
import { createNoticeOutbox } from './notice-outbox.ts';
import { createPairing } from './pairing.ts';
import { APP_APPROVAL_PROTOCOL } from './proof.ts';
import { createSignInRequests } from './sign-in-requests.ts';
import { createTerminalBrokers } from './terminal-broker.ts';

export type { Actor, LoginContextProvider } from './approval.core.ts';
export type { TerminalBroker } from './terminal-broker.ts';

export function createApprovalService(deps: ApprovalDeps) {
  const core = createApprovalCore(deps);
  const { store, now } = core;
  const notices = createNoticeOutbox(core);
  const devices = createDevices(core);
  const pairing = createPairing(core);
  const changes = createDeviceChanges(core, devices);
  const requests = createSignInRequests(core);
  const browserLogin = createBrowserLogin(core, requests);
  const { enrol: _enrol, ...pairingApi } = pairing;
  const { revokeDevice: _revokeDevice, ...devicesApi } = devices;

  return {
    /**
     * The info document. Without an authenticator origin (`HEARTH_AUTHENTICATOR_ORIGIN` unset and no reference
     * authenticator listener) the protocol is disabled: `enabled: false`, `appOrigin: null`, `features: []`.
     */
    info() {
      const issuer = deps.issuer();
      const appOrigin = deps.authenticatorOrigin();
      const enabled = appOrigin !== null;
      return {
        protocol: APP_APPROVAL_PROTOCOL,
        issuer,
        api: issuer + APP_APPROVAL_BASE,
        appOrigin,
        algorithm: 'ES256' as const,
        limits: { ...L },
        features: (enabled ? ['device-changes', ...(deps.loginContext ? ['login-context' as const] : []), 'terminal-logins'] : []) as Array<
          'device-changes' | 'login-context' | 'terminal-logins'
        >,
        enabled,
      };
    },
    /** Whether the protocol is enabled (an authenticator origin is configured). */
    enabled: () => deps.authenticatorOrigin() !== null,
    authenticatorOrigin: () => deps.authenticatorOrigin(),

    ...pairingApi,
    ...devicesApi,
    ...changes,
    ...browserLogin,
    /** The terminal broker for the OAuth device authorization; throws when the secret is not Core's broker secret. */
    terminalBroker: createTerminalBrokers(core, requests),
    /** The signed device channel `POST /device`. */
    channel: createDeviceChannel({ core, pairing, devices, requests, notices }),

    // ---- maintenance ----
    /** Hands unsent enrolment notices to outgoing mail; returns how many were accepted. Runs every minute. */
    deliverNotices: notices.deliverNotices,
    cleanup() {
      const at = now();
      return store.purge(at - WINDOW_MS, at, at - 7 * 24 * 3600_000);
    },
    /**
     * For tests: the store (to arrange rows directly); `observeHolds` (each held `/login/status`: `held`, then how it
     * ended) and `listening` (decisions of other replicas reach this process), to wait on states instead of times.
     */
    internals: { store, ...requests.observability },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
