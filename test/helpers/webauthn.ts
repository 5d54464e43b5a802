/**
 * A software WebAuthn authenticator for tests: a P-256 key per credential, `none` attestation, user presence and
 * verification flags, a signature counter. It produces the JSON forms browsers give (`PublicKeyCredential.toJSON()`).
 */
import crypto from 'node:crypto';

type CborValue = number | string | Uint8Array | CborValue[] | Map<CborValue, CborValue>;

function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 256) return Buffer.from([(major << 5) | 24, n]);
  if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

export function cbor(v: CborValue): Buffer {
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const b = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  if (Array.isArray(v)) return Buffer.concat([head(4, v.length), ...v.map(cbor)]);
  const parts: Buffer[] = [head(5, v.size)];
  for (const [k, val] of v) parts.push(cbor(k), cbor(val));
  return Buffer.concat(parts);
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString('base64url');

export interface SoftCredential {
  id: Buffer;
  key: crypto.KeyObject;
  userHandle: string;
  counter: number;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  /** Flags to set: user present and verified by default. */
  userVerified = true;

  readonly origin: string;

  constructor(origin: string) {
    this.origin = origin;
  }

  private authData(rpId: string, counter: number, attested?: { id: Buffer; cose: Buffer }) {
    const flags = 0x01 | (this.userVerified ? 0x04 : 0) | (attested ? 0x40 : 0);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    const parts: Buffer[] = [crypto.createHash('sha256').update(rpId).digest(), Buffer.from([flags]), c];
    if (attested) {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(attested.id.length);
      parts.push(Buffer.alloc(16), len, attested.id, attested.cose);
    }
    return Buffer.concat(parts);
  }

  /** `navigator.credentials.create` for options in their JSON form. */
  create(options: { challenge: string; rp: { id?: string }; user: { id: string } }) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = cbor(
      new Map<CborValue, CborValue>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = crypto.randomBytes(16);
    this.credentials.push({ id, key: privateKey, userHandle: options.user.id, counter: 0 });
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false }));
    const attestationObject = cbor(
      new Map<CborValue, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', this.authData(rpId, 0, { id, cose })],
      ]),
    );
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientData), attestationObject: b64u(attestationObject), transports: ['internal'] },
    };
  }

  /** `navigator.credentials.get` with a discoverable credential (the first one, or the one given). */
  get(options: { challenge: string; rpId?: string }, which = 0, overrides: { origin?: string; counter?: number } = {}) {
    const cred = this.credentials[which]!;
    const rpId = options.rpId ?? new URL(this.origin).hostname;
    cred.counter = overrides.counter ?? cred.counter + 1;
    const authData = this.authData(rpId, cred.counter);
    const clientData = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }),
    );
    const signature = crypto.sign('sha256', Buffer.concat([authData, crypto.createHash('sha256').update(clientData).digest()]), cred.key);
    return {
      id: b64u(cred.id),
      rawId: b64u(cred.id),
      type: 'public-key',
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      response: { clientDataJSON: b64u(clientData), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: cred.userHandle },
    };
  }
}
