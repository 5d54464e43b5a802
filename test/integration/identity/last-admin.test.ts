import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const A = '/api/admin/core/accounts';
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const send = async (method: string, path: string, json?: unknown) => {
  const r = await s.api(path, { method, json });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
};

describe('the last administrator', () => {
  it('cannot be demoted, disabled, expired or deleted while no other administrator can sign in', async () => {
    const root = (await send('POST', A, { login: 'root', admin: true })).json;
    const past = new Date(Date.now() - 60_000).toISOString();
    for (const change of [{ admin: false }, { disabled: true }, { expiresAt: past }]) {
      const r = await send('PATCH', `${A}/${root.sub}`, change);
      expect(r.status, JSON.stringify(change)).toBe(409);
      expect(r.json.error).toBe('last_admin');
    }
    expect((await send('DELETE', `${A}/${root.sub}`)).json.error).toBe('last_admin');
    const after = (await send('GET', `${A}/${root.sub}`)).json;
    expect(after).toMatchObject({ admin: true, disabled: false, expiresAt: null });
    // A disabled second administrator does not count; an active one does.
    const spare = (await send('POST', A, { login: 'spare', admin: true, disabled: true })).json;
    expect((await send('PATCH', `${A}/${root.sub}`, { admin: false })).status).toBe(409);
    expect((await send('PATCH', `${A}/${spare.sub}`, { disabled: false })).status).toBe(200);
    expect((await send('PATCH', `${A}/${root.sub}`, { admin: false })).status).toBe(200);
    expect((await send('DELETE', `${A}/${spare.sub}`)).json.error).toBe('last_admin');
    // Non-administrators are unaffected.
    const user = (await send('POST', A, { login: 'plain' })).json;
    expect((await send('DELETE', `${A}/${user.sub}`)).status).toBe(204);
  });
});
