import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCategory, accountCategoryLabel } from '../../../server/identity/index.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

interface Account {
  sub: string;
  kind: 'person';
  login: string;
  email: string | null;
  displayName: string;
  profile: 'user' | 'guest';
  admin: boolean;
  disabled: boolean;
  expiresAt: string | null;
  epoch: number;
  category: string;
}
interface GroupDetail {
  id: string;
  name: string;
  members: { accounts: Array<{ sub: string }>; groups: Array<{ id: string; name: string }> };
}

const A = '/api/admin/core/accounts';
const G = '/api/admin/core/groups';
const S = '/api/admin/core/service-accounts';
const P = '/api/admin/core/account-policy';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

async function call<T = unknown>(method: string, path: string, json?: unknown, expected = 200): Promise<T> {
  const r = await s.api(path, { method, json });
  const text = await r.text();
  expect(r.status, `${method} ${path}: ${text}`).toBe(expected);
  return (text ? JSON.parse(text) : undefined) as T;
}
const createAccount = (body: Record<string, unknown>, expected = 201) => call<Account>('POST', A, body, expected);
const createGroup = (name: string) => call<GroupDetail>('POST', G, { name }, 201);
const audit = async (action: string) =>
  (
    await call<{ data: Array<{ action: string; target: string; actor: string; detail: Record<string, unknown> | null }> }>(
      'GET',
      `/api/admin/audit?action=${action}`,
    )
  ).data;

describe('accounts', () => {
  it.each([
    ['a'.repeat(32), 201],
    ['a'.repeat(33), 400],
    ['Bob', 400],
    ['_x', 201],
    ['1a', 400],
    ['a-b_9', 201],
    ['', 400],
    ['é', 400],
  ])('login %j answers %i', async (login, status) => {
    const r = await s.api(A, { method: 'POST', json: { login } });
    expect(r.status).toBe(status);
    if (status === 400) {
      const body = await r.json();
      expect(body.error).toBe('invalid_request');
      expect(body.message).toMatch(/login/);
    }
  });

  it('creates with defaults, reads, renames keeping sub, and answers no-store', async () => {
    const r = await s.api(A, { method: 'POST', json: { login: 'alice', email: 'Alice@Example.com', displayName: 'Alice' } });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const a = (await r.json()) as Account;
    expect(a.sub).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).toMatchObject({ kind: 'person', login: 'alice', profile: 'user', admin: false, disabled: false, expiresAt: null, epoch: 0, category: 'login' });
    const renamed = await call<Account>('PATCH', `${A}/${a.sub}`, { login: 'alice2', displayName: 'Alice Two' });
    expect(renamed.sub).toBe(a.sub);
    expect(renamed.login).toBe('alice2');
    const got = await call<Account & { groups: unknown[] }>('GET', `${A}/${a.sub}`);
    expect(got).toMatchObject({ sub: a.sub, login: 'alice2', displayName: 'Alice Two', groups: [] });
    // the old login is free again
    await createAccount({ login: 'alice' });
  });

  it('duplicate login and email (case-insensitive) are 409', async () => {
    const a = await createAccount({ login: 'dup', email: 'dup@example.com' });
    const login = await s.api(A, { method: 'POST', json: { login: 'dup' } });
    expect(login.status).toBe(409);
    expect((await login.json()).error).toBe('login_taken');
    const email = await s.api(A, { method: 'POST', json: { login: 'dup2', email: 'DUP@example.COM' } });
    expect(email.status).toBe(409);
    expect((await email.json()).error).toBe('email_taken');
    const b = await createAccount({ login: 'dup3' });
    const rename = await s.api(`${A}/${b.sub}`, { method: 'PATCH', json: { login: 'dup' } });
    expect(rename.status).toBe(409);
    const reEmail = await s.api(`${A}/${b.sub}`, { method: 'PATCH', json: { email: 'Dup@Example.com' } });
    expect((await reEmail.json()).error).toBe('email_taken');
    // the account itself may change its email's case
    expect((await call<Account>('PATCH', `${A}/${a.sub}`, { email: 'Dup@Example.com' })).email).toBe('Dup@Example.com');
  });

  it('validation errors are 400 invalid_request with a clear message', async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['POST', A, { login: 'x', displayName: 'y'.repeat(201) }, /displayName/],
      ['POST', A, { login: 'x', email: 'nope' }, /email/],
      ['POST', A, { login: 'x', profile: 'root' }, /profile/],
      ['POST', A, { login: 'x', expiresAt: 'tomorrow' }, /expiresAt/],
      ['POST', A, { login: 'x', extra: 1 }, /unknown key "extra"/],
      ['PATCH', `${A}/00000000-0000-4000-8000-000000000000`, {}, /at least one field/],
      ['GET', `${A}/not-a-uuid`, undefined, /sub must be a UUID/],
      ['GET', `${A}?per_page=101`, undefined, /per_page must be at most 100/],
      ['GET', `${A}?page=0`, undefined, /page must be at least 1/],
    ];
    for (const [method, path, json, message] of cases) {
      const r = await s.api(path, { method, json });
      const body = await r.json();
      expect(r.status, `${method} ${path}`).toBe(400);
      expect(body.error).toBe('invalid_request');
      expect(body.message).toMatch(message);
    }
  });

  it('unknown accounts are 404 account_not_found', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const r = await s.api(`${A}/00000000-0000-4000-8000-000000000000`, { method, json: method === 'PATCH' ? { admin: true } : undefined });
      expect(r.status).toBe(404);
      expect((await r.json()).error).toBe('account_not_found');
    }
  });

  it('pages and searches over login, email and display name', async () => {
    for (let i = 0; i < 5; i++) await createAccount({ login: `page${i}`, email: `p${i}@paging.test`, displayName: `Pager ${i}` });
    await createAccount({ login: 'zeta', displayName: 'Has 100%_ literal' });
    const p1 = await call<{ data: Account[]; total: number; page: number; per_page: number }>('GET', `${A}?search=page&per_page=2`);
    expect(p1).toMatchObject({ total: 5, page: 1, per_page: 2 });
    expect(p1.data.map((a) => a.login)).toEqual(['page0', 'page1']);
    const p3 = await call<{ data: Account[] }>('GET', `${A}?search=page&per_page=2&page=3`);
    expect(p3.data.map((a) => a.login)).toEqual(['page4']);
    expect((await call<{ data: Account[] }>('GET', `${A}?search=P3@PAGING`)).data.map((a) => a.login)).toEqual(['page3']);
    expect((await call<{ data: Account[] }>('GET', `${A}?search=pager 2`)).data.map((a) => a.login)).toEqual(['page2']);
    // LIKE wildcards in the search are literal
    expect((await call<{ data: Account[] }>('GET', `${A}?search=${encodeURIComponent('100%_')}`)).data.map((a) => a.login)).toEqual(['zeta']);
    expect((await call<{ total: number }>('GET', `${A}?search=${encodeURIComponent('%')}`)).total).toBe(1);
  });

  it('disabling bumps the epoch, revoke-sessions bumps it, delete removes; all audited', async () => {
    const a = await createAccount({ login: 'audited' });
    const disabled = await call<Account>('PATCH', `${A}/${a.sub}`, { disabled: true });
    expect(disabled).toMatchObject({ disabled: true, epoch: 1 });
    expect((await call<Account>('POST', `${A}/${a.sub}/revoke-sessions`)).epoch).toBe(2);
    await call('PATCH', `${A}/${a.sub}`, { displayName: 'Audited' });
    await call('DELETE', `${A}/${a.sub}`, undefined, 204);
    await call('GET', `${A}/${a.sub}`, undefined, 404);
    for (const action of ['account.create', 'account.disable', 'account.revoke_sessions', 'account.update', 'account.delete']) {
      const rec = (await audit(action)).find((e) => e.target === a.sub);
      expect(rec, action).toBeDefined();
      expect(rec!.actor).toBe('token:env');
    }
    expect((await audit('account.update')).find((e) => e.target === a.sub)!.detail).toMatchObject({ fields: ['display_name'] });
  });
});

describe('groups', () => {
  it('nested groups give transitive membership; cycles are 409', async () => {
    const u = await createAccount({ login: 'nested' });
    const staff = await createGroup('staff');
    const eng = await createGroup('eng');
    const all = await createGroup('everyone');
    // nested ∈ eng ∈ staff ∈ everyone
    await call('POST', `${G}/${eng.id}/members`, { account: u.sub });
    await call('POST', `${G}/${staff.id}/members`, { group: eng.id });
    const detail = await call<GroupDetail>('POST', `${G}/${all.id}/members`, { group: staff.id });
    expect(detail.members.groups.map((g) => g.name)).toEqual(['staff']);
    const got = await call<{ groups: Array<{ name: string; direct: boolean }> }>('GET', `${A}/${u.sub}`);
    expect(got.groups).toEqual([
      { id: eng.id, name: 'eng', direct: true },
      { id: all.id, name: 'everyone', direct: false },
      { id: staff.id, name: 'staff', direct: false },
    ]);
    expect((await s.services.identity.accounts.memberships(u.sub)).map((g) => g.name)).toEqual(['eng', 'everyone', 'staff']);

    for (const [target, member] of [
      [eng.id, eng.id],
      [eng.id, all.id],
      [staff.id, all.id],
    ]) {
      const r = await s.api(`${G}/${target}/members`, { method: 'POST', json: { group: member } });
      expect(r.status).toBe(409);
      expect((await r.json()).error).toBe('group_cycle');
    }
    // idempotent add, and a diamond is not a cycle
    await call('POST', `${G}/${eng.id}/members`, { account: u.sub });
    await call('POST', `${G}/${all.id}/members`, { group: eng.id });
    expect((await call<GroupDetail>('GET', `${G}/${eng.id}`)).members.accounts.map((m) => m.sub)).toEqual([u.sub]);

    // removing the link staff → eng leaves everyone (through the diamond), drops staff
    await call('DELETE', `${G}/${staff.id}/members?group=${eng.id}`);
    expect((await call<{ groups: Array<{ name: string }> }>('GET', `${A}/${u.sub}`)).groups.map((g) => g.name)).toEqual(['eng', 'everyone']);
    await call('DELETE', `${G}/${eng.id}/members?account=${u.sub}`);
    expect((await call<{ groups: unknown[] }>('GET', `${A}/${u.sub}`)).groups).toEqual([]);
    expect((await audit('group.member.add')).filter((e) => [eng.id, staff.id, all.id].includes(e.target))).toHaveLength(4);
    expect((await audit('group.member.remove')).length).toBeGreaterThanOrEqual(2);
  });

  it('create, rename, list, delete; duplicate names 409; bad member bodies 400; unknown 404', async () => {
    const g = await createGroup('ops');
    const dup = await s.api(G, { method: 'POST', json: { name: 'ops' } });
    expect(dup.status).toBe(409);
    expect((await dup.json()).error).toBe('group_exists');
    const renamed = await call<GroupDetail>('PATCH', `${G}/${g.id}`, { name: 'operations' });
    expect(renamed).toMatchObject({ id: g.id, name: 'operations' });
    expect((await call<{ data: Array<{ name: string }> }>('GET', `${G}?search=operat`)).data.map((x) => x.name)).toEqual(['operations']);
    const bad = await s.api(`${G}/${g.id}/members`, { method: 'POST', json: {} });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/exactly one of/);
    const missing = await s.api(`${G}/${g.id}/members`, { method: 'POST', json: { account: '00000000-0000-4000-8000-000000000000' } });
    expect((await missing.json()).error).toBe('account_not_found');
    await call('DELETE', `${G}/${g.id}`, undefined, 204);
    const gone = await s.api(`${G}/${g.id}`);
    expect(gone.status).toBe(404);
    expect((await gone.json()).error).toBe('group_not_found');
    for (const action of ['group.create', 'group.update', 'group.delete']) {
      expect(
        (await audit(action)).some((e) => e.target === g.id),
        action,
      ).toBe(true);
    }
  });
});

describe('service accounts', () => {
  it('are unique per (appId, resourceType, resourceId), never listed as login accounts, deletable', async () => {
    const binding = { appId: 'notes', resourceType: 'namespace', resourceId: 'team-a' };
    const sa = await call<{ sub: string; kind: string; appId: string }>('POST', S, binding, 201);
    expect(sa).toMatchObject({ kind: 'service', ...binding });
    const dup = await s.api(S, { method: 'POST', json: binding });
    expect(dup.status).toBe(409);
    expect((await dup.json()).error).toBe('service_account_exists');
    await call('POST', S, { ...binding, resourceId: 'team-b' }, 201);
    await call('POST', S, { ...binding, appId: 'other' }, 201);
    expect((await call<{ total: number }>('GET', `${S}?search=notes`)).total).toBe(2);
    expect((await s.services.identity.accounts.findServiceAccount(binding))?.sub).toBe(sa.sub);
    // not an account of the login API, no credential flows
    await call('GET', `${A}/${sa.sub}`, undefined, 404);
    expect(await s.services.identity.isAccountCategoryAllowed({ kind: 'service', profile: 'user', disabled: false, expiresAt: null })).toBe(false);
    // but it can be a group member
    const g = await createGroup('apps');
    await call('POST', `${G}/${g.id}/members`, { account: sa.sub });
    await call('DELETE', `${S}/${sa.sub}`, undefined, 204);
    expect((await call<GroupDetail>('GET', `${G}/${g.id}`)).members.accounts).toEqual([]);
    const again = await s.api(`${S}/${sa.sub}`, { method: 'DELETE' });
    expect((await again.json()).error).toBe('service_account_not_found');
    await call('POST', S, binding, 201);
    expect((await audit('service_account.create')).length).toBe(4);
    expect((await audit('service_account.delete')).map((e) => e.target)).toEqual([sa.sub]);
    const empty = await s.api(S, { method: 'POST', json: { ...binding, resourceId: '' } });
    expect(empty.status).toBe(400);
    expect((await empty.json()).message).toMatch(/resourceId must not be empty/);
  });
});

describe('account categories and policy', () => {
  it('categorizes and labels accounts (browser-safe helpers)', () => {
    expect(accountCategory({ profile: 'user' })).toBe('login');
    expect(accountCategory({ profile: 'guest' })).toBe('guest');
    expect(accountCategory({ kind: 'service', profile: 'user' })).toBeNull();
    expect(accountCategoryLabel({ profile: 'user' }, 'Hearth account')).toBe('Hearth account');
    expect(accountCategoryLabel({ profile: 'guest' }, 'Hearth account')).toBe('Guest');
    expect(accountCategoryLabel({ source: 'freeipa', profile: 'user' }, 'x')).toMatch(/FreeIPA/);
  });

  it('policy: default, replace, disabled and expired never allowed, invalid stored policy fails closed', async () => {
    const { identity, store } = s.services;
    const user = await createAccount({ login: 'pol-user' });
    const guest = await createAccount({ login: 'pol-guest', profile: 'guest' });
    expect(guest.category).toBe('guest');
    const off = await createAccount({ login: 'pol-off', disabled: true });
    const expired = await createAccount({ login: 'pol-exp', expiresAt: new Date(Date.now() - 1000).toISOString() });
    const later = await createAccount({ login: 'pol-later', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });

    expect(await call('GET', P)).toEqual({ allowedCategories: ['login', 'guest'], valid: true });
    expect(await identity.readAccountCategoryPolicy()).toEqual({ policy: { allowedCategories: ['login', 'guest'] }, valid: true });
    expect(await Promise.all([user, guest, off, expired, later].map((a) => identity.isAccountCategoryAllowed(a)))).toEqual([true, true, false, false, true]);

    expect(await call('PUT', P, { allowedCategories: ['login'] })).toEqual({ allowedCategories: ['login'], valid: true });
    expect(await Promise.all([user, guest].map((a) => identity.isAccountCategoryAllowed(a)))).toEqual([true, false]);
    expect((await audit('account_policy.update'))[0]!.detail).toEqual({ allowedCategories: ['login'] });

    for (const body of [{ allowedCategories: ['root'] }, { allowedCategories: ['login', 'login'] }, { allowed: [] }]) {
      const r = await s.api(P, { method: 'PUT', json: body });
      expect(r.status).toBe(400);
      expect((await r.json()).error).toBe('invalid_request');
    }

    for (const garbage of ['{not json', '{"allowedCategories": ["login", "superuser"]}', '[]', '{"allowedCategories": "login"}']) {
      await store.run("UPDATE identity_settings SET value = ? WHERE name = 'account_category_policy'", [garbage]);
      expect(await identity.readAccountCategoryPolicy()).toEqual({ policy: { allowedCategories: [] }, valid: false });
      expect(await identity.isAccountCategoryAllowed(user)).toBe(false);
      expect(await call('GET', P)).toEqual({ allowedCategories: [], valid: false });
    }
    await call('PUT', P, { allowedCategories: ['login', 'guest'] });
    expect(await identity.isAccountCategoryAllowed(user)).toBe(true);
  });
});

describe('admin access', () => {
  let nsToken: string;
  beforeAll(async () => {
    const r = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'ns', scope: 'namespaces', namespaces: ['notes'] } });
    nsToken = ((await r.json()) as { token: string }).token;
  });
  const id = '00000000-0000-4000-8000-000000000000';
  const routes: Array<[string, string, unknown]> = [
    ['GET', A, undefined],
    ['POST', A, { login: 'x' }],
    ['GET', `${A}/${id}`, undefined],
    ['PATCH', `${A}/${id}`, { admin: true }],
    ['DELETE', `${A}/${id}`, undefined],
    ['POST', `${A}/${id}/revoke-sessions`, undefined],
    ['GET', G, undefined],
    ['POST', G, { name: 'x' }],
    ['GET', `${G}/${id}`, undefined],
    ['PATCH', `${G}/${id}`, { name: 'x' }],
    ['DELETE', `${G}/${id}`, undefined],
    ['POST', `${G}/${id}/members`, { account: id }],
    ['DELETE', `${G}/${id}/members?account=${id}`, undefined],
    ['GET', S, undefined],
    ['POST', S, { appId: 'a', resourceType: 'b', resourceId: 'c' }],
    ['DELETE', `${S}/${id}`, undefined],
    ['GET', P, undefined],
    ['PUT', P, { allowedCategories: [] }],
  ];
  it.each(routes)('%s %s: 401 without a token, 403 with a namespace token', async (method, p, json) => {
    const anon = await s.api(p, { method, json, token: null });
    expect(anon.status).toBe(401);
    const scoped = await s.api(p, { method, json, token: nsToken });
    expect(scoped.status).toBe(403);
    expect((await scoped.json()).error).toBe('forbidden');
  });

  it('the routes are in the OpenAPI document', async () => {
    const doc = await (await fetch(`${s.url}/v1/openapi.json`)).json();
    for (const p of [A, `${A}/{sub}`, G, `${G}/{id}`, `${G}/{id}/members`, S, `${S}/{sub}`, P]) expect(doc.paths[p], p).toBeDefined();
    expect(doc.components.schemas.CreateAccount.properties.login.pattern).toBeDefined();
  });
});
