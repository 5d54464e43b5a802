/**
 * Password hashing: Argon2id from Node's built-in `crypto.argon2` (Node ≥ 24.7), stored as a PHC string
 * `$argon2id$v=19$m=65536,t=3,p=1$<salt>$<hash>` (unpadded base64). Parameters follow the OWASP baseline for
 * Argon2id with more memory than its minimum: 64 MiB, 3 passes, 1 lane, 16-byte salt, 32-byte tag (about 0.2 s on
 * one core here). At most `MAX_CONCURRENT` hashes run at once so parallel sign-ins cannot exhaust memory.
 * Passwords are never logged, stored in clear or returned.
 */
import crypto from 'node:crypto';
import { testPasswordHashing } from '../../core/config/environment.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../contract.ts';

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

export const ARGON2_PARAMS = { memory: 65536, passes: 3, parallelism: 1, tagLength: 32, saltLength: 16 } as const;
/** The test suite's parameters (HEARTH_TEST_PASSWORD_HASHING=light, core/config/environment.ts): the lowest LIMITS accept. */
const LIGHT_PARAMS = { ...ARGON2_PARAMS, memory: 8192, passes: 1 } as const;
/** Bounds accepted when reading a stored hash (a tampered row must not make verification arbitrarily expensive). */
const LIMITS = { memory: [8192, 1 << 20], passes: [1, 10], parallelism: [1, 8], tagLength: [16, 64] } as const;
const MAX_CONCURRENT = 4;

type Argon2Params = { message: Buffer; nonce: Buffer; parallelism: number; tagLength: number; memory: number; passes: number };
type Argon2Fn = (algorithm: 'argon2id', params: Argon2Params, cb: (err: Error | null, key: Buffer) => void) => void;

function argon2Fn(): Argon2Fn {
  const fn = (crypto as unknown as { argon2?: Argon2Fn }).argon2;
  if (typeof fn !== 'function') throw new Error('crypto.argon2 is not available: Hearth needs Node.js 24.7 or later');
  return fn;
}

let running = 0;
const waiting: Array<() => void> = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function derive(password: string, salt: Buffer, p: { memory: number; passes: number; parallelism: number; tagLength: number }): Promise<Buffer> {
  const argon2 = argon2Fn();
  return limited(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        argon2('argon2id', { message: Buffer.from(password, 'utf8'), nonce: salt, ...p }, (err, key) => (err ? reject(err) : resolve(key)));
      }),
  );
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

/** Hashes a password into a PHC string. */
export async function hashPassword(password: string): Promise<string> {
  const { saltLength, ...p } = testPasswordHashing() ? LIGHT_PARAMS : ARGON2_PARAMS;
  const salt = crypto.randomBytes(saltLength);
  const tag = await derive(password, salt, p);
  return `$argon2id$v=19$m=${p.memory},t=${p.passes},p=${p.parallelism}$${b64(salt)}$${b64(tag)}`;
}

const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{16,})$/;
const within = (v: number, [lo, hi]: readonly [number, number]) => Number.isInteger(v) && v >= lo && v <= hi;

/** Whether `password` matches the PHC string; the comparison is constant-time. An unreadable hash never matches. */
export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = PHC.exec(phc);
  if (!m) return false;
  const [memory, passes, parallelism] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const salt = Buffer.from(m[4]!, 'base64');
  const expected = Buffer.from(m[5]!, 'base64');
  const tagLength = expected.length;
  if (!within(memory, LIMITS.memory) || !within(passes, LIMITS.passes) || !within(parallelism, LIMITS.parallelism) || !within(tagLength, LIMITS.tagLength))
    return false;
  const got = await derive(password, salt, { memory, passes, parallelism, tagLength });
  return crypto.timingSafeEqual(got, expected);
}

let dummy: Promise<string> | null = null;
/** Spends the same work as a real verification, for unknown logins (no user enumeration by timing). */
export async function verifyDummy(password: string): Promise<false> {
  dummy ??= hashPassword(crypto.randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
  return false;
}
