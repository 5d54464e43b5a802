import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const L = '/api/admin/core/linux-identities';
const A = '/api/admin/core/accounts';
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

const send = async (method: string, path: string, json?: unknown, token?: string) => {
  const r = await s.api(path, { method, json, token });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
};
const config = (c: Record<string, unknown>, rangeReserved = true) =>
  send('PUT', `${L}/configuration`, {
    config: { enabled: true, rangeStart: 5000, rangeEnd: 5009, homeTemplate: '/home/{username}', loginShell: '/bin/bash', ...c },
    rangeReserved,
  });
const create = (login: string, extra: Record<string, unknown> = {}) => send('POST', A, { login, ...extra });
const auditOf = (action: string) =>
  s.services.store.all<{ target: string; detail: string; request_id: string | null }>(
    'SELECT actor, action, target, detail, request_id FROM audit_log WHERE action = ? ORDER BY id',
    [action],
  );

describe('configuration', () => {
  it('starts disabled with no range, validates every field and needs rangeReserved to enable', async () => {
    const d = await send('GET', `${L}/configuration`);
    expect(d.json).toEqual({
      config: { enabled: false, rangeStart: null, rangeEnd: null, homeTemplate: '/home/{username}', loginShell: '/bin/bash' },
      configValid: true,
    });
    expect((await config({}, false)).json.error).toBe('range_not_confirmed');
    for (const bad of [
      { rangeStart: 999 },
      { rangeEnd: 2147483648 },
      { rangeStart: 6000, rangeEnd: 5000 },
      { rangeStart: null, rangeEnd: null },
      { homeTemplate: '/home/{user}' },
      { loginShell: 'bash' },
      { homeTemplate: '/home/a:b' },
      { extra: 1 },
    ]) {
      const r = await config(bad);
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await send('GET', `${L}/configuration`)).json.config.enabled).toBe(false);
    const other = await s.api('/api/admin/tokens', { method: 'POST', json: { name: 'ns', scope: 'namespaces', namespaces: ['x'] } });
    const nsToken = (await other.json()).token as string;
    expect((await send('GET', L, undefined, nsToken)).status).toBe(403);
  });
});

describe('assignment', () => {
  it('assigns on creating a full account or promoting a guest, atomically with the account and its audit entry', async () => {
    expect((await config({})).status).toBe(200);
    const ann = await create('ann');
    expect(ann.status).toBe(201);
    const got = await send('GET', `${L}/users/${ann.json.sub}`);
    expect(got.json).toMatchObject({
      login: 'ann',
      eligible: true,
      conflicts: [],
      identity: { username: 'ann', uid: 5000, gid: 5000, primaryGroup: 'ann', homeDirectory: '/home/ann', loginShell: '/bin/bash' },
    });
    const [assign] = await auditOf('linux.identity.assign');
    expect(assign!.target).toBe(ann.json.sub);
    const [made] = await s.services.store.all<{ request_id: string }>("SELECT request_id FROM audit_log WHERE action = 'account.create' AND target = ?", [
      ann.json.sub,
    ]);
    expect(assign!.request_id).toBe(made!.request_id);

    const guest = await create('gus', { profile: 'guest' });
    expect((await send('GET', `${L}/users/${guest.json.sub}`)).json).toMatchObject({ eligible: false, identity: null });
    expect((await send('POST', `${L}/users/${guest.json.sub}`)).json.error).toBe('linux_not_eligible');
    expect((await send('PATCH', `${A}/${guest.json.sub}`, { profile: 'user' })).status).toBe(200);
    expect((await send('GET', `${L}/users/${guest.json.sub}`)).json.identity).toMatchObject({ uid: 5001, homeDirectory: '/home/gus' });
  });

  it('never gives two accounts created at once the same number, never reuses a number, and fails creation when the range is exhausted', async () => {
    const made = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((l) => create(l)));
    const uids = await Promise.all(made.map(async (m) => (await send('GET', `${L}/users/${m.json.sub}`)).json.identity.uid as number));
    expect(new Set(uids).size).toBe(4);
    for (const u of uids) expect(u).toBeGreaterThanOrEqual(5002);
    // Deleting an account does not free its number.
    const gone = uids[0]!;
    expect((await send('DELETE', `${A}/${made[0]!.json.sub}`)).status).toBe(204);
    const next = await create('c5');
    const uid5 = (await send('GET', `${L}/users/${next.json.sub}`)).json.identity.uid;
    expect(uid5).not.toBe(gone);
    expect(uid5).toBe(5006);
    // 5007–5009 left: use them up, then creation fails and no account is left behind.
    for (const l of ['c6', 'c7', 'c8']) expect((await create(l)).status).toBe(201);
    const full = await create('c9');
    expect(full.status).toBe(409);
    expect(full.json.error).toBe('linux_range_exhausted');
    expect((await send('GET', `${A}?search=c9`)).json.total).toBe(0);
    // Guests need no number.
    expect((await create('g9', { profile: 'guest' })).status).toBe(201);
  });

  it('reports conflicts instead of renaming or adopting', async () => {
    expect((await config({ rangeEnd: 5100 })).status).toBe(200);
    const group = await send('POST', '/api/admin/core/groups', { name: 'carol' });
    const posix = await send('POST', `${L}/groups/${group.json.id}`);
    expect(posix.json).toMatchObject({ name: 'carol', gid: 5010, created: true });
    expect((await send('POST', `${L}/groups/${group.json.id}`)).json).toMatchObject({ gid: 5010, created: false });
    expect((await send('GET', `${L}/groups`)).json.data).toEqual([{ id: group.json.id, name: 'carol', gid: 5010 }]);
    const carol = await create('carol');
    expect(carol.status).toBe(409);
    expect(carol.json.error).toBe('linux_conflict');
    expect((await send('GET', `${A}?search=carol`)).json.total).toBe(0);
    // A group cannot take the name of an existing identity's private group (see the next test).
    expect((await send('POST', '/api/admin/core/groups', { name: 'ann' })).status).toBe(409);
    // A renamed account keeps its username and shows the difference.
    const dan = await create('dan');
    await send('PATCH', `${A}/${dan.json.sub}`, { login: 'daniel' });
    const v = await send('GET', `${L}/users/${dan.json.sub}`);
    expect(v.json.identity.username).toBe('dan');
    expect(v.json.conflicts[0]).toMatch(/^username_differs/);
  });
});

describe('group names and private groups share one namespace', () => {
  it("refuses a group created or renamed to a private group's name, and an account whose private group would take a group's name", async () => {
    expect((await config({ rangeEnd: 5100 })).status).toBe(200);
    const hal = await create('hal');
    expect(hal.status).toBe(201);
    const gid = (await send('GET', `${L}/users/${hal.json.sub}`)).json.identity.gid as number;
    const groupsNamed = async (name: string) =>
      (await send('GET', `/api/admin/core/groups?search=${name}`)).json.data.filter((g: { name: string }) => g.name === name);

    const made = await send('POST', '/api/admin/core/groups', { name: 'hal' });
    expect(made.status).toBe(409);
    expect(made.json.error).toBe('group_exists');
    expect(made.json.message).toBe(`"hal" is the private Linux group of account hal (GID ${gid}): a group cannot take its name`);
    expect(await groupsNamed('hal')).toEqual([]);

    const team = await send('POST', '/api/admin/core/groups', { name: 'halteam' });
    expect(team.status).toBe(201);
    const renamed = await send('PATCH', `/api/admin/core/groups/${team.json.id}`, { name: 'hal' });
    expect(renamed.status).toBe(409);
    expect(renamed.json.error).toBe('group_exists');
    expect((await send('GET', `/api/admin/core/groups/${team.json.id}`)).json.name).toBe('halteam');
    // A POSIX group is no exception.
    expect((await send('POST', `${L}/groups/${team.json.id}`)).status).toBe(200);
    expect((await send('PATCH', `/api/admin/core/groups/${team.json.id}`, { name: 'hal' })).status).toBe(409);

    // The other way round: a new full account (or a guest turned full account) whose private group would take the name
    // of an existing group, POSIX or not, is refused and nothing is written.
    const ops = await send('POST', '/api/admin/core/groups', { name: 'ops' });
    expect(ops.status).toBe(201);
    const account = await create('ops');
    expect(account.status).toBe(409);
    expect(account.json.error).toBe('linux_conflict');
    expect(account.json.message).toMatch(/group_name_taken/);
    expect((await send('GET', `${A}?search=ops`)).json.total).toBe(0);
    const kim = await create('kim', { profile: 'guest' });
    const promoted = await send('PATCH', `${A}/${kim.json.sub}`, { login: 'ops', profile: 'user' });
    expect(promoted.status).toBe(409);
    expect(promoted.json.error).toBe('linux_conflict');
    expect((await send('GET', `${A}/${kim.json.sub}`)).json).toMatchObject({ login: 'kim', profile: 'guest' });
    // The preview reports it for an account that has no identity yet.
    expect((await config({ enabled: false }, false)).status).toBe(200);
    const later = await create('ops');
    expect(later.status).toBe(201);
    expect((await send('GET', `${L}/users/${later.json.sub}`)).json.conflicts).toEqual([
      'group_name_taken: a group is named ops, the name of the private group this identity needs',
    ]);
    expect((await send('DELETE', `${A}/${later.json.sub}`)).status).toBe(204);
    // A renamed account keeps its private group, so a rename never collides.
    expect((await config({ rangeEnd: 5100 })).status).toBe(200);
    expect((await send('PATCH', `${A}/${hal.json.sub}`, { login: 'halteam' })).status).toBe(200);
  });
});

describe('backfill, edits and disabling', () => {
  it('prepares existing accounts idempotently, edits home and shell, and keeps identities when disabled', async () => {
    expect((await config({ enabled: false }, false)).status).toBe(200);
    const eve = await create('eve');
    expect((await send('GET', `${L}/users/${eve.json.sub}`)).json.identity).toBeNull();
    expect((await send('POST', `${L}/users/${eve.json.sub}`)).json.error).toBe('linux_disabled');
    expect((await config({ rangeEnd: 5100, homeTemplate: '/srv/home/{username}', loginShell: '/bin/zsh' })).status).toBe(200);
    const first = await send('POST', `${L}/users/${eve.json.sub}`);
    expect(first.json).toMatchObject({ created: true, identity: { username: 'eve', homeDirectory: '/srv/home/eve', loginShell: '/bin/zsh' } });
    const again = await send('POST', `${L}/users/${eve.json.sub}`);
    expect(again.json).toMatchObject({ created: false, identity: { uid: first.json.identity.uid } });
    // Existing identities keep the defaults they were given.
    const ann = (await send('GET', `${A}?search=ann`)).json.data[0];
    expect((await send('GET', `${L}/users/${ann.sub}`)).json.identity.loginShell).toBe('/bin/bash');

    expect((await send('PATCH', `${L}/users/${eve.json.sub}`, { homeDirectory: '/data/eve' })).status).toBe(400);
    const edited = await send('PATCH', `${L}/users/${eve.json.sub}`, { homeDirectory: '/data/eve', loginShell: '/usr/bin/fish' });
    expect(edited.json.identity).toMatchObject({ homeDirectory: '/data/eve', loginShell: '/usr/bin/fish', uid: first.json.identity.uid });
    const nobody = await create('nobody1', { profile: 'user' });
    expect((await config({ enabled: false }, false)).status).toBe(200);
    const fred = await create('fred');
    expect((await send('PATCH', `${L}/users/${fred.json.sub}`, { homeDirectory: '/x/y', loginShell: '/bin/sh' })).json.error).toBe('linux_identity_not_found');
    expect((await send('PATCH', `${L}/users/${eve.json.sub}`, { homeDirectory: '/data/eve2', loginShell: '/bin/sh' })).status).toBe(200);
    expect((await send('GET', `${L}/users/${nobody.json.sub}`)).json.identity).not.toBeNull();
  });

  it('previews 50 accounts a page with a UUID cursor, and scope=ready lists only eligible accounts without an identity', async () => {
    for (let i = 0; i < 40; i++) expect((await create(`bulk${i}`)).status).toBe(201);
    const all: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const r = await send('GET', `${L}${after ? `?after=${after}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.json.accounts.length).toBeLessThanOrEqual(50);
      all.push(...r.json.accounts.map((x: { sub: string }) => x.sub));
      after = r.json.nextCursor;
      pages++;
    } while (after);
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual(all);
    const total = (await send('GET', `${A}?per_page=1`)).json.total;
    expect(all.length).toBe(total);
    const ready = await send('GET', `${L}?scope=ready`);
    for (const a of ready.json.accounts) expect(a).toMatchObject({ eligible: true, identity: null });
    expect(ready.json.accounts.some((a: { login: string }) => a.login === 'fred')).toBe(true);
    expect((await send('GET', `${L}?after=not-a-uuid`)).status).toBe(400);
  });
});
