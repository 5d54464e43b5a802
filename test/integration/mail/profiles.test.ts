import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer } from './helpers.ts';
import { type Peer, selfSigned, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let authPeer: Peer;
beforeAll(async () => {
  peer = await startPeer();
  authPeer = await startPeer({ tls: 'starttls', auth: { user: 'mailer', pass: 's3cret-Pa55' } });
  s = await startMailServer({ mail: { smtp: { tls: { ca: selfSigned().cert } } } });
});
afterAll(async () => {
  await s.stop();
  await peer.close();
  await authPeer.close();
});

const P = `${M}/profiles`;

describe('sender profiles', () => {
  it.each([
    ['key', 'Bad_Key', /key/],
    ['key', 'a'.repeat(64), /key/],
    ['key', '-lead', /key/],
  ])('rejects %s #%#', async (_f, key, msg) => {
    const r = await s.api(`${P}/${key}`, { method: 'PUT', json: profileBody(25) });
    expect(r.status).toBe(400);
    const body = await r.json();
    expect(body.error).toBe('invalid_request');
    expect(body.message).toMatch(msg);
  });

  it.each([
    [{ name: 'x'.repeat(121) }, /name/],
    [{ fromAddress: 'not-an-address' }, /fromAddress/],
    [{ fromAddress: `${'a'.repeat(310)}@example.test` }, /fromAddress/],
    [{ fromName: 'n'.repeat(121) }, /fromName/],
    [{ smtpHost: 'bad host!' }, /smtpHost/],
    [{ smtpHost: `${`${'a'.repeat(60)}.`.repeat(5)}example` }, /smtpHost/],
    [{ smtpPort: 0 }, /smtpPort/],
    [{ smtpPort: 70000 }, /smtpPort/],
    [{ smtpPort: 25.5 }, /smtpPort/],
    [{ smtpSecure: undefined }, /smtpSecure/],
    [{ smtpUser: 'u'.repeat(321) }, /smtpUser/],
    [{ smtpPassword: 'p'.repeat(16385) }, /smtpPassword/],
    [{ pacePerMinute: 0 }, /pacePerMinute/],
    [{ pacePerMinute: 6001 }, /pacePerMinute/],
    [{ dailyRecipientLimit: 0 }, /dailyRecipientLimit/],
    [{ maxAttachmentBytes: 0 }, /maxAttachmentBytes/],
    [{ maxAttachmentBytes: 26214401 }, /maxAttachmentBytes/],
    [{ imap: { host: 'imap.example.test', port: 993, secure: true, user: 'u' } }, /imap\.folder/],
    [{ imap: { host: 'imap.example.test', port: 0, secure: true, user: 'u', folder: 'INBOX' } }, /imap\.port/],
    [{ imap: { host: 'imap.example.test', port: 993, secure: true, user: '   ', folder: 'INBOX' } }, /imap\.user/],
    [{ imap: { host: 'imap.example.test', port: 993, secure: true, user: 'u', folder: 'IN\u0001BOX' } }, /imap\.folder/],
    [{ imap: { host: 'imap.example.test', port: 993, secure: true, user: 'u', folder: 'f'.repeat(201) } }, /imap\.folder/],
    [{ unknownField: 1 }, /unknown key/],
  ])('rejects invalid write #%#', async (patch, msg) => {
    const body = { ...profileBody(25), ...patch };
    const r = await s.api(`${P}/invalid`, { method: 'PUT', json: body });
    const out = await r.json();
    expect(r.status, JSON.stringify(out)).toBe(400);
    expect(out.error).toBe('invalid_request');
    expect(out.message).toMatch(msg);
  });

  it('creates (first is default, defaults filled), never returns passwords, replaces with revision, answers no-store', async () => {
    const r = await s.api(`${P}/main`, { method: 'PUT', json: profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: 's3cret-Pa55' }) });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const p = await r.json();
    expect(p).toMatchObject({
      key: 'main',
      isDefault: true,
      revision: 1,
      hasPassword: true,
      pacePerMinute: 60,
      dailyRecipientLimit: null,
      maxAttachmentBytes: 15728640,
      fromName: null,
      imap: null,
      bounces: null,
      smtpSecure: false,
      smtpUser: 'mailer',
    });
    expect(JSON.stringify(p)).not.toContain('s3cret');
    // exists without revision
    let e = await s.api(`${P}/main`, { method: 'PUT', json: profileBody(authPeer.port) });
    expect(e.status).toBe(409);
    expect((await e.json()).error).toBe('profile_exists');
    // stale revision
    e = await s.api(`${P}/main`, { method: 'PUT', json: profileBody(authPeer.port, { revision: 7 }) });
    expect(e.status).toBe(409);
    expect((await e.json()).error).toBe('revision_conflict');
    // omitted password keeps it
    const kept = await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpUser: 'mailer', revision: 1, name: 'Main' }));
    expect(kept).toMatchObject({ revision: 2, hasPassword: true, name: 'Main' });
    // a host change without the password is refused...
    e = await s.api(`${P}/main`, { method: 'PUT', json: profileBody(authPeer.port, { smtpHost: 'localhost', smtpUser: 'mailer', revision: 2 }) });
    expect(e.status).toBe(400);
    expect((await e.json()).error).toBe('password_required');
    // ...but letter case and spaces do not count as a change
    const same = await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpHost: ' 127.0.0.1 ', smtpUser: 'mailer', revision: 2 }));
    expect(same).toMatchObject({ revision: 3, hasPassword: true, smtpHost: '127.0.0.1' });
    // null clears
    const cleared = await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: null, revision: 3 }));
    expect(cleared.hasPassword).toBe(false);
    // a string replaces
    const replaced = await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: 's3cret-Pa55', revision: 4 }));
    expect(replaced).toMatchObject({ hasPassword: true, revision: 5 });
    const list = await call(s, 'GET', P);
    expect(list.data.map((x: any) => x.key)).toEqual(['main']);
    expect(JSON.stringify(list)).not.toContain('s3cret');
  });

  it('stores passwords encrypted (AES-256-GCM envelope), never in clear', async () => {
    const row = (await s.services.store.get<{ smtp_password: string }>("SELECT smtp_password FROM mail_profiles WHERE key = 'main'"))!;
    expect(row.smtp_password).toMatch(/^hm1\./);
    expect(row.smtp_password).not.toContain('s3cret');
  });

  it('test send: {ok:true} through STARTTLS + AUTH; smtp_failed with the credentials redacted', async () => {
    const ok = await call(s, 'POST', `${P}/main/test`, { to: 'admin@example.test' });
    expect(ok).toEqual({ ok: true });
    const got = await authPeer.waitFor(1);
    expect(got[0]!.user).toBe('mailer');
    expect(got[0]!.parsed.from?.value[0]).toMatchObject({ name: 'Hearth', address: 'noreply@example.test' });
    const p = await call(s, 'GET', `${P}/main`);
    await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: 'wrong-Secret-99', revision: p.revision }));
    const r = await s.api(`${P}/main/test`, { method: 'POST', json: { to: 'admin@example.test' } });
    expect(r.status).toBe(502);
    const body = await r.json();
    expect(body.error).toBe('smtp_failed');
    expect(body.reason).toBe('auth_failed');
    expect(body.detail).toMatch(/535/);
    expect(JSON.stringify(body)).not.toContain('wrong-Secret-99');
    expect(body.message).not.toContain(Buffer.from('wrong-Secret-99').toString('base64'));
    const events = await audit(s, 'outgoing_mail.profile.test');
    expect(events[0]!.detail.ok).toBe(false);
    expect(JSON.stringify(events)).not.toContain('wrong-Secret-99');
    const p2 = await call(s, 'GET', `${P}/main`);
    await call(s, 'PUT', `${P}/main`, profileBody(authPeer.port, { smtpUser: 'mailer', smtpPassword: 's3cret-Pa55', revision: p2.revision }));
    // unreachable server
    await call(s, 'PUT', `${P}/down`, profileBody(CLOSED_PORT), 201);
    const down = await s.api(`${P}/down/test`, { method: 'POST', json: { to: 'admin@example.test' } });
    expect(down.status).toBe(502);
    expect((await down.json()).error).toBe('smtp_failed');
  });

  it('IMAP settings: every field required, password write-only, status pending, host change needs the password again', async () => {
    const imap = { host: 'imap.example.test', port: 993, secure: true, user: ' bounces ', password: 'imap-Secret', folder: ' INBOX ' };
    const created = await call(s, 'PUT', `${P}/with-imap`, profileBody(peer.port, { imap }), 201);
    expect(created.imap).toEqual({ host: 'imap.example.test', port: 993, secure: true, user: 'bounces', folder: 'INBOX', hasPassword: true });
    expect(created.bounces).toEqual({ checkedAt: null, error: null });
    expect(JSON.stringify(created)).not.toContain('imap-Secret');
    const e = await s.api(`${P}/with-imap`, {
      method: 'PUT',
      json: profileBody(peer.port, { imap: { ...imap, password: undefined, host: 'other.example.test' }, revision: 1 }),
    });
    expect(e.status).toBe(400);
    expect((await e.json()).message).toMatch(/imap\.password/);
    const kept = await call(
      s,
      'PUT',
      `${P}/with-imap`,
      profileBody(peer.port, { imap: { ...imap, password: undefined, host: 'IMAP.example.test' }, revision: 1 }),
    );
    expect(kept.imap.hasPassword).toBe(true);
    const off = await call(s, 'PUT', `${P}/with-imap`, profileBody(peer.port, { revision: 2 }));
    expect(off.imap).toBeNull();
    expect(off.bounces).toBeNull();
    const emptyHost = await call(s, 'PUT', `${P}/with-imap`, profileBody(peer.port, { imap: { ...imap, host: '' }, revision: 3 }));
    expect(emptyHost.imap).toBeNull();
  });

  it('default rules: exactly one default; deleting the default is refused; set-default moves it; audited', async () => {
    const list = await call(s, 'GET', P);
    expect(list.data.filter((p: any) => p.isDefault).map((p: any) => p.key)).toEqual(['main']);
    const r = await s.api(`${P}/main`, { method: 'DELETE' });
    expect(r.status).toBe(409);
    expect((await r.json()).error).toBe('profile_is_default');
    const d = await call(s, 'POST', `${P}/with-imap/default`);
    expect(d.isDefault).toBe(true);
    const after = await call(s, 'GET', P);
    expect(after.data.filter((p: any) => p.isDefault).map((p: any) => p.key)).toEqual(['with-imap']);
    expect((await audit(s, 'outgoing_mail.profile.default'))[0]).toMatchObject({ target: 'with-imap', detail: { previous: 'main' } });
    await call(s, 'POST', `${P}/main/default`);
    expect((await s.api(`${P}/nope/default`, { method: 'POST' })).status).toBe(404);
    expect((await s.api(`${P}/nope`)).status).toBe(404);
    const created = await audit(s, 'outgoing_mail.profile.create');
    expect(created.map((e) => e.target)).toContain('main');
    expect(JSON.stringify(created)).not.toContain('s3cret');
  });

  it('deleting a profile cancels its queued mail (profile_removed) and removes its grants', async () => {
    await call(s, 'PUT', `${P}/doomed`, profileBody(CLOSED_PORT), 201);
    const token = await registerApp(s, 'billing');
    await call(s, 'PUT', `${M}/apps/billing/policy`, { mode: 'profiles', profiles: ['doomed', 'main'] });
    const sent = await call(s, 'POST', '/api/mail/send', { profile: 'doomed', to: ['a@example.test'], subject: 'hi', text: 'x' }, 202, token);
    const queued = await call(
      s,
      'POST',
      '/api/mail/enqueue',
      { profile: 'doomed', messages: [{ to: ['b@example.test'], subject: 'hi', text: 'x' }] },
      202,
      token,
    );
    await s.mail.idle();
    await call(s, 'DELETE', `${P}/doomed`, undefined, 204);
    for (const id of [sent.id, queued.messages[0].id]) {
      const m = await call(s, 'GET', `${M}/messages/${id}`);
      expect(m).toMatchObject({ status: 'cancelled', cancelReason: 'profile_removed' });
    }
    const app = await call(s, 'GET', `${M}/apps/billing`);
    expect(app.policy).toEqual({ mode: 'profiles', profiles: ['main'] });
    expect((await audit(s, 'outgoing_mail.profile.delete'))[0]).toMatchObject({ target: 'doomed', detail: { cancelledMessages: 2 } });
  });

  it('is administrator only and documented in OpenAPI', async () => {
    const token = await registerApp(s, 'viewer');
    expect((await s.api(P, { token })).status).toBe(403);
    expect((await s.api(P, { token: null })).status).toBe(401);
    const doc = await call(s, 'GET', '/v1/openapi.json');
    for (const path of [
      '/api/admin/core/outgoing-mail/profiles/{key}',
      '/api/admin/core/outgoing-mail/profiles/{key}/test',
      '/api/admin/core/outgoing-mail/apps/{appId}/policy',
      '/api/mail/send',
      '/api/mail/enqueue',
      '/api/admin/core/outgoing-mail/retention',
    ]) {
      expect(doc.paths[path], path).toBeTruthy();
    }
  });
});
