import { describe, expect, it } from 'vitest';
import { AccessTokenInput, parseAccessTokenInput } from './keys.tokens.ts';

const good = { sub: 'user-1', actorKind: 'user', clientId: 'hc_abc', audience: ['hearth'], scope: ['openid', 'read'], uid: 'alice', authTime: 1700000000 };
const cases: Array<[string, unknown]> = [
  ['minimal', { sub: 's', actorKind: 'service_account', clientId: 'c', audience: ['https://x.example/v1'], scope: [] }],
  ['full', good],
  ['undefined optional', { ...good, uid: undefined }],
  ['unknown key', { ...good, admin: true }],
  ['space in sub', { ...good, sub: 'a b' }],
  ['empty sub', { ...good, sub: '' }],
  ['long sub', { ...good, sub: 'x'.repeat(201) }],
  ['bad kind', { ...good, actorKind: 'admin' }],
  ['no audience', { ...good, audience: [] }],
  ['51 audiences', { ...good, audience: Array.from({ length: 51 }, (_, i) => `a${i}`) }],
  ['long audience', { ...good, audience: ['x'.repeat(2049)] }],
  ['quote in scope', { ...good, scope: ['a"b'] }],
  ['backslash in scope', { ...good, scope: ['a\\b'] }],
  ['51 scopes', { ...good, scope: Array.from({ length: 51 }, (_, i) => `s${i}`) }],
  ['empty uid', { ...good, uid: '' }],
  ['long uid', { ...good, uid: 'u'.repeat(65) }],
  ['fractional authTime', { ...good, authTime: 1.5 }],
  ['negative authTime', { ...good, authTime: -1 }],
  ['huge authTime', { ...good, authTime: 253402300800 }],
  ['string authTime', { ...good, authTime: '1' }],
  ['audience not array', { ...good, audience: 'hearth' }],
];

describe('parseAccessTokenInput', () => {
  it.each(cases)('accepts exactly what the zod schema accepts: %s', (_name, input) => {
    const zod = AccessTokenInput.safeParse(input);
    if (zod.success) expect(parseAccessTokenInput(input as never)).toEqual(zod.data);
    else expect(() => parseAccessTokenInput(input as never)).toThrow();
  });
});
