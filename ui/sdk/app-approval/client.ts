/**
 * The authenticator side of `hearth-app-approval-v1`: discovery (`connect`), pairing (`claim`, `pairingResult`) and the
 * signed device channel (`pending`, `inbox`, `decide`, `decideChange`, `account`, `revoke`, `push`). Every call goes
 * through `callJson` (60-second deadline, 8 KiB responses, no cookies, no redirects, no retries). After a lost
 * mutation response, inspect state (`inbox`, `pairingResult`) instead of repeating the call: every proof carries a
 * fresh `jti`, so a repeat is a new command.
 */
import { z } from 'zod';
import {
  APP_APPROVAL_FEATURES,
  APP_APPROVAL_LIMITS,
  APP_APPROVAL_PATH,
  APP_APPROVAL_PENDING_ACCEPT,
  APP_APPROVAL_PROTOCOL,
  type AppApprovalFeature,
  AppApprovalTime,
  AppLoginContextSchema,
  AppPairingLinkError,
  AppPairingPayload,
  AppTerminalLoginSchema,
  appDeviceProofMessage,
  appPairingProofMessage,
  DeviceCommand,
  type DeviceProof,
  DevicePublicKey,
  isHttpOrigin,
  parseAppPairingLink,
} from '../../../server/identity/approval/contracts.ts';
import { b64u, utf8 } from './encoding.ts';
import { AppApprovalClientError } from './errors.ts';
import { callJson } from './transport.ts';

/** What the app stores per paired instance (the pairing secret is discarded after confirmation). */
export interface AppDeviceBinding {
  issuer: string;
  deviceId: string;
  key: CryptoKeyPair;
}

export type AppApprovalDecision = 'approve' | 'deny';

// ---------------------------------------------------------------------------------------------------------------
// Response shapes, as the client checks them. Unknown members are dropped (a newer instance may add some); known
// members must have the documented types, else the call fails with `invalid_response`.

const Time = AppApprovalTime;
const Comparison = z.string().regex(/^\d{6}$/);
const Id = z.string().min(1).max(100);

export const AppApprovalInfo = z.object({
  protocol: z.string(),
  issuer: z.string(),
  api: z.string(),
  appOrigin: z.string().nullable(),
  algorithm: z.string(),
  limits: z.record(z.string(), z.number()),
  features: z.array(z.string()),
  /** False when the instance has the protocol disabled (no authenticator origin configured); absent from older instances. */
  enabled: z.boolean().optional(),
});
export type AppApprovalInfo = z.infer<typeof AppApprovalInfo>;

/**
 * `AppLoginContext`: computed by the instance; the app displays it and derives nothing of its own. Strict
 * (the shared schema of server/identity/approval/contracts.ts): unknown members, a city or network over 96 UTF-8 bytes
 * or on several lines, or a country that is not two uppercase letters make the call fail with `invalid_response`.
 */
export const AppLoginContext = AppLoginContextSchema;
export type AppLoginContext = z.infer<typeof AppLoginContext>;

/** A terminal sign-in: `client.name` at most 60 characters, 1–16 scope codes (strict). */
export const AppTerminalLogin = AppTerminalLoginSchema;
export type AppTerminalLogin = z.infer<typeof AppTerminalLogin>;

/** A browser (or, with `terminal`, a terminal) sign-in waiting for this device's decision. */
export const AppLoginRequest = z.object({
  requestId: Id,
  challenge: z.string().min(1).max(200),
  comparison: Comparison,
  createdAt: Time,
  expiresAt: Time,
  context: AppLoginContext.optional(),
  terminal: AppTerminalLogin.optional(),
});
export type AppLoginRequest = z.infer<typeof AppLoginRequest>;

export const AppDeviceChange = z.object({
  changeId: Id,
  kind: z.enum(['pair', 'revoke']),
  device: z.object({ id: Id, name: z.string().max(400) }),
  endSessions: z.boolean(),
  createdAt: Time,
  expiresAt: Time,
});
export type AppDeviceChange = z.infer<typeof AppDeviceChange>;

const PollAfter = z.number().int().min(0).max(3600);
export const AppPendingResponse = z.object({ requests: z.array(AppLoginRequest), pollAfterSeconds: PollAfter });
export type AppPendingResponse = z.infer<typeof AppPendingResponse>;
export const AppInboxResponse = z.object({
  logins: z.array(AppLoginRequest),
  actions: z.array(z.unknown()),
  moreActions: z.number().int().min(0),
  pollAfterSeconds: PollAfter,
  changes: z.array(AppDeviceChange).max(APP_APPROVAL_LIMITS.changesPerInbox).optional(),
  moreChanges: z.number().int().min(0).max(APP_APPROVAL_LIMITS.changesPerInbox).optional(),
});
export type AppInboxResponse = z.infer<typeof AppInboxResponse>;

export const AppClaimResult = z.object({ deviceId: Id, comparison: Comparison, expiresAt: Time });
export type AppClaimResult = z.infer<typeof AppClaimResult>;
export const AppPairingResult = z.object({
  state: z.enum(['created', 'claimed', 'confirmed', 'cancelled', 'expired']),
  deviceId: Id,
  comparison: Comparison.optional(),
});
export type AppPairingResult = z.infer<typeof AppPairingResult>;
export const AppDecisionResult = z.object({ state: z.enum(['approved', 'denied']) });
export type AppDecisionResult = z.infer<typeof AppDecisionResult>;
export const AppAccountResult = z.object({
  account: z.object({ uid: z.string(), displayName: z.string(), mail: z.string().nullable() }),
  device: z.object({ name: z.string(), createdAt: Time }),
});
export type AppAccountResult = z.infer<typeof AppAccountResult>;
const RevokeResult = z.object({ state: z.literal('revoked') });
const PushResult = z.object({ state: z.literal('updated') });

function shape<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new AppApprovalClientError('invalid_response', 'The instance answered with an unexpected shape.');
  return parsed.data;
}

function invalid(message: string): AppApprovalClientError {
  return new AppApprovalClientError('invalid_argument', message);
}

// ---------------------------------------------------------------------------------------------------------------

/** Validates a pairing link meant for the authenticator at `origin` (normally `location.origin`); no network. */
export function parsePairingLink(text: string, origin: string): AppPairingPayload {
  try {
    return parseAppPairingLink(text, origin);
  } catch (err) {
    if (err instanceof AppPairingLinkError) throw new AppApprovalClientError('invalid_pairing_link', err.message);
    throw err;
  }
}

/** A fresh ECDSA P-256 key pair whose private key is not extractable; persist it (structured clone, IndexedDB) before claiming. */
export async function createKey(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
}

export interface ConnectOptions {
  /** The instance's exact origin (`https://hearth.example`), as in the pairing link's `issuer`. */
  issuer: string;
  /** This app's origin (`location.origin`): the instance must name it as `appOrigin`. */
  authenticatorOrigin: string;
  signal?: AbortSignal;
}

/** Fetches `/info` and returns a client bound to that instance; refuses any other protocol, issuer, algorithm or app origin. */
export async function connect(opts: ConnectOptions): Promise<AppApprovalClient> {
  if (!opts || !isHttpOrigin(opts.issuer)) throw invalid('issuer must be an exact http(s) origin');
  if (!isHttpOrigin(opts.authenticatorOrigin)) throw invalid('authenticatorOrigin must be an exact http(s) origin');
  const info = shape(AppApprovalInfo, await callJson(`${opts.issuer}${APP_APPROVAL_PATH}/info`, { method: 'GET', signal: opts.signal }));
  if (info.protocol !== APP_APPROVAL_PROTOCOL) {
    throw new AppApprovalClientError('protocol_mismatch', `The instance speaks another protocol (expected ${APP_APPROVAL_PROTOCOL}).`);
  }
  if (info.enabled === false) throw new AppApprovalClientError('unavailable', 'The instance has authenticator approval disabled.');
  if (info.issuer !== opts.issuer) throw new AppApprovalClientError('issuer_mismatch', 'The instance names another issuer than the one requested.');
  if (info.algorithm !== 'ES256') throw new AppApprovalClientError('protocol_mismatch', 'The instance requires another signature algorithm than ES256.');
  if (info.api !== `${opts.issuer}${APP_APPROVAL_PATH}`) throw new AppApprovalClientError('protocol_mismatch', 'The instance announces another API location.');
  if (info.appOrigin !== opts.authenticatorOrigin) {
    throw new AppApprovalClientError('origin_mismatch', 'The instance does not accept this authenticator app (its appOrigin differs).');
  }
  return new AppApprovalClient(info, opts.authenticatorOrigin);
}

export interface AcceptOption {
  /** Features the app can handle; filtered against `/info.features`; the key is omitted when nothing matches. */
  accept?: readonly string[];
}

export class AppApprovalClient {
  readonly issuer: string;
  readonly authenticatorOrigin: string;
  readonly info: AppApprovalInfo;
  /** The known features this instance announces. */
  readonly features: readonly AppApprovalFeature[];
  readonly #api: string;
  /** Per device ID: the change IDs of its latest inbox response from this client. */
  readonly #listedChanges = new Map<string, Set<string>>();

  constructor(info: AppApprovalInfo, authenticatorOrigin: string) {
    this.info = info;
    this.issuer = info.issuer;
    this.authenticatorOrigin = authenticatorOrigin;
    this.#api = `${info.issuer}${APP_APPROVAL_PATH}`;
    this.features = APP_APPROVAL_FEATURES.filter((f) => info.features.includes(f));
  }

  /** The instance can add a sign-in context to login requests (`accept: ['login-context']`). */
  get loginContext(): boolean {
    return this.features.includes('login-context');
  }
  /** The instance sends device changes (pairing approvals, removals) to opted-in devices. */
  get deviceChanges(): boolean {
    return this.features.includes('device-changes');
  }
  /** The instance sends terminal sign-ins (OAuth device authorization) to opted-in devices. */
  get terminalLogins(): boolean {
    return this.features.includes('terminal-logins');
  }

  /** Claims a pairing with the device key (the public key and the signed pairing proof); returns the comparison code. */
  async claim(pairing: AppPairingPayload, key: CryptoKeyPair, name: string, signal?: AbortSignal): Promise<AppClaimResult> {
    const p = this.#pairing(pairing);
    const publicKey = await publicJwk(key);
    const trimmed = typeof name === 'string' ? name.trim() : '';
    const length = [...trimmed].length;
    if (length < 1 || length > APP_APPROVAL_LIMITS.deviceNameLength || /[\u0000-\u001f\u007f\u2028\u2029]/.test(trimmed)) {
      throw invalid(`name must be one line of 1–${APP_APPROVAL_LIMITS.deviceNameLength} characters`);
    }
    const signature = await sign(key, appPairingProofMessage({ issuer: this.issuer, pairingId: p.pairingId, secret: p.secret, publicKey, name: trimmed }));
    const body = { pairingId: p.pairingId, secret: p.secret, publicKey, name: trimmed, signature };
    return shape(AppClaimResult, await callJson(`${this.#api}/pairings/claim`, { method: 'POST', body, signal }));
  }

  /** The claimed pairing's state; poll until `confirmed` (or `cancelled`/`expired`). `comparison` is present while claimed. */
  async pairingResult(pairing: AppPairingPayload, key: CryptoKeyPair, signal?: AbortSignal): Promise<AppPairingResult> {
    const p = this.#pairing(pairing);
    const body = { pairingId: p.pairingId, secret: p.secret, publicKey: await publicJwk(key) };
    return shape(AppPairingResult, await callJson(`${this.#api}/pairings/result`, { method: 'POST', body, signal }));
  }

  /** Browser sign-ins waiting for this device (only `login-context` can be accepted; `terminal-logins` is never sent). */
  async pending(device: AppDeviceBinding, signal?: AbortSignal, opts: AcceptOption = {}): Promise<AppPendingResponse> {
    const accept = this.#accept(opts.accept, APP_APPROVAL_PENDING_ACCEPT);
    return shape(AppPendingResponse, await this.#command(device, accept ? { operation: 'pending', accept } : { operation: 'pending' }, signal));
  }

  /**
   * Sign-ins, action summaries and (with `device-changes`) device changes for this device. The instance stores this
   * call's `accept` as the device's capability list; omitting it (or nothing matching) clears it.
   */
  async inbox(device: AppDeviceBinding, signal?: AbortSignal, opts: AcceptOption = {}): Promise<AppInboxResponse> {
    const accept = this.#accept(opts.accept, APP_APPROVAL_FEATURES);
    const res = shape(AppInboxResponse, await this.#command(device, accept ? { operation: 'inbox', accept } : { operation: 'inbox' }, signal));
    if ((res.changes === undefined) !== (res.moreChanges === undefined)) {
      throw new AppApprovalClientError('invalid_response', 'The instance answered with changes but no moreChanges count (or the reverse).');
    }
    // Seed rule 5: only a change this device's latest inbox listed may be decided (an absent one never is).
    this.#listedChanges.set(device.deviceId, new Set((res.changes ?? []).map((c) => c.changeId)));
    return res;
  }

  /** Approves or denies a sign-in request, bound to its requestId, challenge and comparison code. Only after the user's explicit choice. */
  async decide(
    device: AppDeviceBinding,
    request: Pick<AppLoginRequest, 'requestId' | 'challenge' | 'comparison'>,
    decision: AppApprovalDecision,
    signal?: AbortSignal,
  ): Promise<AppDecisionResult> {
    if (!request || typeof request !== 'object') throw invalid('request must be an inbox entry');
    const command = { operation: 'decide', requestId: request.requestId, challenge: request.challenge, comparison: request.comparison, decision } as const;
    return shape(AppDecisionResult, await this.#command(device, command, signal));
  }

  /** Approves or denies a device change (pairing of a further device, or removal), bound to exactly the listed values. */
  async decideChange(
    device: AppDeviceBinding,
    change: Pick<AppDeviceChange, 'changeId' | 'kind' | 'device' | 'endSessions'>,
    decision: AppApprovalDecision,
    signal?: AbortSignal,
  ): Promise<AppDecisionResult> {
    if (!change || typeof change !== 'object' || !change.device) throw invalid('change must be an inbox device change');
    if (!device || typeof device !== 'object' || !this.#listedChanges.get(device.deviceId)?.has(change.changeId)) {
      throw invalid("change must be listed in this device's latest inbox response from this client (call inbox first)");
    }
    const command = {
      operation: 'change',
      changeId: change.changeId,
      kind: change.kind,
      targetId: change.device.id,
      endSessions: change.endSessions,
      decision,
    } as const;
    return shape(AppDecisionResult, await this.#command(device, command, signal));
  }

  /** The account this device belongs to, and the device's own name and creation time. */
  async account(device: AppDeviceBinding, signal?: AbortSignal): Promise<AppAccountResult> {
    return shape(AppAccountResult, await this.#command(device, { operation: 'account' }, signal));
  }

  /** Revokes this device (the signing device only). Forget the binding afterwards. */
  async revoke(device: AppDeviceBinding, signal?: AbortSignal): Promise<{ state: 'revoked' }> {
    return shape(RevokeResult, await this.#command(device, { operation: 'revoke' }, signal));
  }

  /** Registers (replaces) the device's push token: an opaque 43-character URL-safe string. */
  async push(device: AppDeviceBinding, token: string, signal?: AbortSignal): Promise<{ state: 'updated' }> {
    return shape(PushResult, await this.#command(device, { operation: 'push', token }, signal));
  }

  #pairing(pairing: AppPairingPayload): AppPairingPayload {
    const parsed = AppPairingPayload.safeParse(pairing);
    if (!parsed.success) throw invalid('pairing must be a pairing link payload');
    if (parsed.data.issuer !== this.issuer) throw new AppApprovalClientError('wrong_instance', 'The pairing belongs to another instance than this client.');
    return parsed.data;
  }

  #accept(requested: readonly string[] | undefined, allowed: readonly string[]): AppApprovalFeature[] | undefined {
    if (requested === undefined) return undefined;
    if (!Array.isArray(requested)) throw invalid('accept must be a list of features');
    const out = APP_APPROVAL_FEATURES.filter((f) => requested.includes(f) && allowed.includes(f) && this.features.includes(f));
    return out.length > 0 ? out : undefined;
  }

  async #command(device: AppDeviceBinding, command: DeviceCommand, signal?: AbortSignal): Promise<unknown> {
    if (!device || typeof device !== 'object') throw invalid('device must be a binding {issuer, deviceId, key}');
    if (device.issuer !== this.issuer) throw new AppApprovalClientError('wrong_instance', 'The device binding belongs to another instance than this client.');
    if (typeof device.deviceId !== 'string' || device.deviceId.length < 1 || device.deviceId.length > 100) throw invalid('device.deviceId is missing');
    const cmd = DeviceCommand.safeParse(command);
    if (!cmd.success) throw invalid(`invalid ${String((command as { operation?: unknown }).operation)} command`);
    const issuedAt = Math.floor(Date.now() / 1000);
    const proof: DeviceProof = {
      issuer: this.issuer,
      deviceId: device.deviceId,
      jti: crypto.randomUUID(),
      issuedAt,
      expiresAt: issuedAt + APP_APPROVAL_LIMITS.proofLifetimeSeconds,
      command: cmd.data,
    };
    const signature = await sign(device.key, appDeviceProofMessage(proof));
    return callJson(`${this.#api}/device`, { method: 'POST', body: { proof, signature }, signal });
  }
}

function assertKey(key: CryptoKeyPair): void {
  const priv = key?.privateKey as CryptoKey | undefined;
  const alg = priv?.algorithm as EcKeyAlgorithm | undefined;
  if (priv?.type !== 'private' || alg?.name !== 'ECDSA' || alg.namedCurve !== 'P-256' || !priv.usages.includes('sign') || !key.publicKey) {
    throw invalid('key must be an ECDSA P-256 key pair (appApproval.createKey())');
  }
}

async function publicJwk(key: CryptoKeyPair): Promise<DevicePublicKey> {
  assertKey(key);
  const jwk = await crypto.subtle.exportKey('jwk', key.publicKey);
  const parsed = DevicePublicKey.safeParse({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });
  if (!parsed.success) throw invalid('key must be an ECDSA P-256 key pair (appApproval.createKey())');
  return parsed.data;
}

/** ECDSA P-256 / SHA-256 over the UTF-8 message: WebCrypto already yields the 64-byte IEEE-P1363 `r || s`. */
async function sign(key: CryptoKeyPair, message: string): Promise<string> {
  assertKey(key);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, utf8(message)));
  if (sig.length !== 64) throw new AppApprovalClientError('invalid_argument', 'the key produced a signature that is not 64 bytes');
  return b64u(sig);
}
