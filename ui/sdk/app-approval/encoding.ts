/** Unpadded base64url and UTF-8 helpers that work in browsers and in Node (btoa/atob, TextEncoder). */

export function b64u(bytes: ArrayBuffer | Uint8Array): string {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let bin = '';
  for (let i = 0; i < u8.length; i += 0x8000) bin += String.fromCharCode(...u8.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const B64U = /^[A-Za-z0-9_-]*$/;

/** Decodes unpadded base64url; throws TypeError on anything else (padding, other alphabets, impossible lengths). */
export function fromB64u(text: string): Uint8Array<ArrayBuffer> {
  if (typeof text !== 'string' || !B64U.test(text) || text.length % 4 === 1) throw new TypeError('not unpadded base64url');
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  if (b64u(out) !== text) throw new TypeError('not canonical base64url');
  return out;
}

const encoder = new TextEncoder();
export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text) as Uint8Array<ArrayBuffer>;

export function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(n));
}
