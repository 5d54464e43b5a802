/** Password hashes (server/identity/sessions/passwords.ts) under the production parameters and under the suite's light switch. */
import { afterEach, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../../server/identity/sessions/passwords.ts';

const saved = process.env.HEARTH_TEST_PASSWORD_HASHING;
afterEach(() => {
  if (saved === undefined) delete process.env.HEARTH_TEST_PASSWORD_HASHING;
  else process.env.HEARTH_TEST_PASSWORD_HASHING = saved;
});

describe('password hashes', () => {
  it('are Argon2id at 64 MiB and three passes unless the test switch is set, and verify', async () => {
    delete process.env.HEARTH_TEST_PASSWORD_HASHING;
    const phc = await hashPassword('correct horse battery');
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=65536,t=3,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(await verifyPassword('correct horse battery', phc)).toBe(true);
    expect(await verifyPassword('correct horse batterz', phc)).toBe(false);
  });

  it('under HEARTH_TEST_PASSWORD_HASHING=light name 8 MiB and one pass, and verify by the parameters they name', async () => {
    process.env.HEARTH_TEST_PASSWORD_HASHING = 'light';
    const light = await hashPassword('correct horse battery');
    expect(light).toMatch(/^\$argon2id\$v=19\$m=8192,t=1,p=1\$/);
    delete process.env.HEARTH_TEST_PASSWORD_HASHING;
    expect(await verifyPassword('correct horse battery', light)).toBe(true);
    expect(await verifyPassword('wrong', light)).toBe(false);
  });

  it('never match a stored hash whose parameters are out of bounds or unreadable', async () => {
    process.env.HEARTH_TEST_PASSWORD_HASHING = 'light';
    const light = await hashPassword('pw-123456789');
    expect(await verifyPassword('pw-123456789', light.replace('m=8192', 'm=4096'))).toBe(false);
    expect(await verifyPassword('pw-123456789', light.replace('t=1', 't=11'))).toBe(false);
    expect(await verifyPassword('pw-123456789', 'plain')).toBe(false);
  });
});
