/**
 * A scripted authenticator for tests of the authenticator-approval protocol (`hearth-app-approval-v1`): a real P-256
 * key (WebCrypto, non-extractable private key), real signatures, real HTTP to a running server.
 */
import crypto from 'node:crypto';
import { onTestFinished } from 'vitest';
import type { HoldEvent } from '../../server/identity/approval/sign-in-requests.ts';

export const APPROVAL_PATH = '/api/auth/app-approval/v1';
const PROTOCOL = 'hearth-app-approval-v1';

const b64url = (b: ArrayBuffer | Uint8Array) => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('base64url');

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status: r.status, body: parsed, headers: r.headers };
}

/** The array a device proof signs (mirrors the server's `appDeviceProofMessage`, written out independently). */
function deviceMessage(p: { issuer: string; deviceId: string; jti: string; issuedAt: number; expiresAt: number; command: Record<string, any> }): string {
  const c = p.command;
  const base: unknown[] = [PROTOCOL, 'device', p.issuer, p.deviceId, p.jti, p.issuedAt, p.expiresAt, c.operation];
  if (c.operation === 'decide') base.push(c.requestId, c.challenge, c.comparison, c.decision);
  else if (c.operation === 'change') base.push(c.changeId, c.kind, c.targetId, c.endSessions, c.decision);
  else if (c.operation === 'pending' || c.operation === 'inbox') base.push(c.accept ?? null);
  else if (c.operation === 'push') base.push(c.token);
  return JSON.stringify(base);
}

export class ScriptedAuthenticator {
  readonly publicKey: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  issuer: string;
  deviceId: string | null = null;
  readonly serverUrl: string;
  readonly origin: string | undefined;
  readonly #privateKey: CryptoKey;

  private constructor(serverUrl: string, issuer: string, keys: CryptoKeyPair, jwk: JsonWebKey, origin?: string) {
    this.serverUrl = serverUrl.replace(/\/+$/, '');
    this.issuer = issuer;
    this.#privateKey = keys.privateKey;
    this.publicKey = { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! };
    this.origin = origin;
  }

  /** A fresh device key; `opts.origin` is sent as the `Origin` header (the authenticator website). */
  static async create(serverUrl: string, opts: { origin?: string } = {}): Promise<ScriptedAuthenticator> {
    const keys = (await globalThis.crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
    const jwk = await globalThis.crypto.subtle.exportKey('jwk', keys.publicKey);
    return new ScriptedAuthenticator(serverUrl, serverUrl.replace(/\/+$/, ''), keys, jwk, opts.origin);
  }

  /** A P1363 signature (64 bytes, unpadded base64url) over `message`. */
  async sign(message: string): Promise<string> {
    const sig = await globalThis.crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, this.#privateKey, new TextEncoder().encode(message));
    return b64url(sig);
  }

  private headers(): Record<string, string> {
    return this.origin ? { origin: this.origin } : {};
  }

  async claim(pairing: { issuer: string; pairingId: string; secret: string }, name: string): Promise<{ status: number; body: any }> {
    this.issuer = pairing.issuer;
    const k = this.publicKey;
    const message = JSON.stringify([PROTOCOL, 'pair', pairing.issuer, pairing.pairingId, pairing.secret, k.kty, k.crv, k.x, k.y, name]);
    const r = await post(
      `${this.serverUrl}${APPROVAL_PATH}/pairings/claim`,
      {
        pairingId: pairing.pairingId,
        secret: pairing.secret,
        publicKey: this.publicKey,
        name,
        signature: await this.sign(message),
      },
      this.headers(),
    );
    if (r.status === 200) this.deviceId = r.body.deviceId;
    return { status: r.status, body: r.body };
  }

  async pairingResult(pairing: { pairingId: string; secret: string }): Promise<{ status: number; body: any }> {
    const r = await post(
      `${this.serverUrl}${APPROVAL_PATH}/pairings/result`,
      { pairingId: pairing.pairingId, secret: pairing.secret, publicKey: this.publicKey },
      this.headers(),
    );
    return { status: r.status, body: r.body };
  }

  /** The signed body of `command` (fresh jti unless overridden). */
  async proofBody(command: Record<string, unknown>, over: { issuedAt?: number; expiresAt?: number; jti?: string; signature?: string } = {}) {
    if (!this.deviceId) throw new Error('the scripted authenticator has no device ID yet (claim first)');
    const issuedAt = over.issuedAt ?? Math.floor(Date.now() / 1000);
    const proof = {
      issuer: this.issuer,
      deviceId: this.deviceId,
      jti: over.jti ?? crypto.randomUUID(),
      issuedAt,
      expiresAt: over.expiresAt ?? issuedAt + 60,
      command,
    };
    const signature = over.signature ?? (await this.sign(deviceMessage(proof as never)));
    return { proof, signature };
  }

  /** Signs `command` into a proof (fresh jti; overrides for negative tests) and POSTs /device. */
  async command(
    command: Record<string, unknown>,
    over: { issuedAt?: number; expiresAt?: number; jti?: string; signature?: string } = {},
  ): Promise<{ status: number; body: any }> {
    const r = await post(`${this.serverUrl}${APPROVAL_PATH}/device`, await this.proofBody(command, over), this.headers());
    return { status: r.status, body: r.body };
  }
}

/** POSTs a management or browser-login call with the session cookie and the exact platform Origin. */
export async function manage(
  server: { url: string },
  cookie: string | null,
  path: string,
  body: unknown = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const base = server.url.replace(/\/+$/, '');
  return post(`${base}${APPROVAL_PATH}${path}`, body, { origin: base, ...(cookie ? { cookie } : {}) });
}

/** Full first-device pairing for a signed-in account (start, claim, confirm); the device talks to `deviceUrl`. */
export async function pairDevice(server: { url: string }, cookie: string, name = 'Test phone', deviceUrl = server.url): Promise<ScriptedAuthenticator> {
  const start = await manage(server, cookie, '/manage/pairings/start', {});
  if (start.status !== 201) throw new Error(`pairing start failed: ${start.status} ${JSON.stringify(start.body)}`);
  // `deviceUrl`: where the device sends its calls (one replica of several, say); the issuer stays the server's.
  const device = await ScriptedAuthenticator.create(deviceUrl);
  const claim = await device.claim(start.body, name);
  if (claim.status !== 200) throw new Error(`claim failed: ${claim.status} ${JSON.stringify(claim.body)}`);
  const confirm = await manage(server, cookie, '/manage/pairings/confirm', { pairingId: start.body.pairingId, comparison: claim.body.comparison });
  if (confirm.status !== 200 || confirm.body.approval !== null) throw new Error(`confirm failed: ${confirm.status} ${JSON.stringify(confirm.body)}`);
  return device;
}

/**
 * Watches one sign-in request's held `/login/status` on a server (the approval service's `observeHolds`): `events`
 * lists what the hold reported (`held`, then how it ended), `held` resolves once it waits. Unsubscribes when the test
 * ends.
 */
export function watchHold(
  approval: { internals: { observeHolds(fn: (e: HoldEvent) => void): () => void } },
  requestId: string,
): { events: HoldEvent['event'][]; held: Promise<void> } {
  const events: HoldEvent['event'][] = [];
  let nowHeld!: () => void;
  const held = new Promise<void>((resolve) => (nowHeld = resolve));
  onTestFinished(
    approval.internals.observeHolds((e) => {
      if (e.requestId !== requestId) return;
      events.push(e.event);
      if (e.event === 'held') nowHeld();
    }),
  );
  return { events, held };
}
