/**
 * "Check now" for bounce collection: `POST /api/admin/core/outgoing-mail/profiles/{key}/bounces/check` runs one
 * collection pass for the profile at once — or joins the one in progress, never two at once — and answers the run's
 * outcome. Real dovecot with real RFC 3464 reports in the mailbox; a scriptable IMAP proxy in front of it holds a run
 * in progress so that a second request provably joins it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../helpers/wait.ts';
import { type BounceRig, startBounceRig } from './bounce-rig.ts';
import { type Dovecot, dsnReport, type ImapProxy } from './dovecot.ts';
import { audit, call, M, type MailServer, profileBody, waitMessage } from './helpers.ts';
import type { Peer } from './peer.ts';

const logLines: Array<Record<string, any>> = [];
let rig: BounceRig;
let s: MailServer, peer: Peer, dove: Dovecot, proxy: ImapProxy, app: string;

beforeAll(async () => {
  // every check here is asked for: the five-minute schedule is an hour away
  rig = await startBounceRig({ logLevel: 'info', logLines });
  ({ s, peer, dove, proxy, app } = rig);
});
afterAll(() => rig?.stop());

const P = `${M}/profiles`;
const check = (key: string, token?: string | null) => s.api(`${P}/${key}/bounces/check`, { method: 'POST', token });
const imap = (extra: Record<string, unknown> = {}) => ({
  host: '127.0.0.1',
  port: dove.imapsPort,
  secure: true,
  user: dove.user,
  password: dove.pass,
  folder: 'Check',
  ...extra,
});

/** Sends one message through `main`, waits until it is sent, and files a standard report for it. */
async function bounced(rcpt: string, folder = 'Check') {
  const acc = await call(s, 'POST', '/api/mail/send', { to: [rcpt], subject: 'x', text: 'x' }, 202, app);
  await waitMessage(s, acc.id, (m) => m.status === 'sent');
  await dove.append(
    folder,
    dsnReport({ messageId: acc.messageId, recipients: [{ final: `rfc822; ${rcpt}`, action: 'failed', diag: 'smtp; 550 5.1.1 no such user' }] }),
  );
  return acc as { id: string; messageId: string };
}

describe('bounce collection: check now', () => {
  it('is for administrators; 404 for an unknown profile, 409 bounce_collection_off without IMAP settings', async () => {
    expect((await check('main', app)).status).toBe(403);
    expect((await check('main', null)).status).toBe(401);
    const unknown = await check('nope');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('profile_unknown');
    const off = await check('main');
    expect(off.status).toBe(409);
    expect(await off.json()).toEqual({ error: 'bounce_collection_off', message: expect.stringMatching(/profile "main" has no bounce collection \(imap\)/) });
    expect(await audit(s, 'outgoing_mail.profile.bounce_check')).toEqual([]);
  });

  it('runs one collection pass now against the real mailbox and answers its outcome; audited', async () => {
    await call(s, 'PUT', `${P}/collect`, profileBody(peer.port, { imap: imap() }), 201);
    const a = await bounced('alice@example.test');
    const b = await bounced('bob@example.test');
    // a report for a message that is not in the send log, and a message that is no report at all
    await dove.append('Check', dsnReport({ messageId: '<unknown@example.test>', recipients: [{ final: 'rfc822; zed@example.test', action: 'failed' }] }));
    await dove.append('Check', 'Subject: hello\r\n\r\nnot a report\r\n');

    const r = await check('collect');
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const out = await r.json();
    expect(out).toEqual({
      profile: 'collect',
      joined: false,
      checkedAt: expect.any(String),
      error: null,
      detail: null,
      messages: 4,
      reports: 3,
      matched: 2,
      recorded: 2,
      skipped: 0,
      more: false,
    });
    expect(await call(s, 'GET', `${M}/messages/${a.id}`)).toMatchObject({
      status: 'bounced',
      failures: [{ recipient: 'alice@example.test', kind: 'bounced' }],
    });
    expect((await call(s, 'GET', `${M}/messages/${b.id}`)).status).toBe('bounced');
    expect((await call(s, 'GET', `${P}/collect`)).bounces).toEqual({ checkedAt: out.checkedAt, error: null });
    const [entry] = await audit(s, 'outgoing_mail.profile.bounce_check');
    expect(entry).toMatchObject({
      actor: 'token:env',
      target: 'collect',
      detail: { joined: false, error: null, messages: 4, reports: 3, matched: 2, recorded: 2, skipped: 0 },
    });
    // the run is logged with its outcome too
    expect(logLines.find((l) => l.msg === 'bounce collection check' && l.profile === 'collect')).toMatchObject({
      level: 'info',
      messages: 4,
      reports: 3,
      matched: 2,
      recorded: 2,
    });

    // nothing new: an empty pass
    expect(await call(s, 'POST', `${P}/collect/bounces/check`)).toMatchObject({ error: null, messages: 0, reports: 0, matched: 0, recorded: 0, more: false });
  });

  it("joins the pass in progress — the schedule's or another request's — instead of running a second one", async () => {
    await call(s, 'PUT', `${P}/held`, profileBody(peer.port, { imap: imap({ port: proxy.port, folder: 'Held' }) }), 201);
    const m = await bounced('held@example.test', 'Held');
    // hold the run at its EXAMINE until both callers are in
    let release!: () => void;
    const released = new Promise<'pass'>((resolve) => (release = () => resolve('pass')));
    let held = false;
    proxy.onCommand = (line) => {
      if (!/ EXAMINE /i.test(line)) return 'pass';
      held = true;
      return released;
    };
    const connections = proxy.connections();

    const first = check('held').then(async (r) => ({ status: r.status, body: await r.json() }));
    await until(() => held, 'the check to reach EXAMINE');
    const scheduled = s.mail.checkBounces(); // the five-minute tick, now
    const second = check('held').then(async (r) => ({ status: r.status, body: await r.json() }));
    // both have joined (the poller logs each join) before the run may go on
    await until(
      () => logLines.filter((l) => l.msg === 'bounce collection: joining the check in progress' && l.profile === 'held').length >= 2,
      'the second caller to join',
    );
    release();
    const [a, b, tick] = await Promise.all([first, second, scheduled]);
    expect(a).toMatchObject({ status: 200, body: { profile: 'held', joined: false, error: null, messages: 1, reports: 1, matched: 1, recorded: 1 } });
    expect(b).toMatchObject({ status: 200, body: { ...a.body, joined: true } });
    expect(tick).toMatchObject({ held: null });
    expect(proxy.connections() - connections, 'one IMAP connection: one pass').toBe(1);
    expect(proxy.commands.filter((c) => / EXAMINE /i.test(c))).toHaveLength(1);
    expect((await call(s, 'GET', `${M}/messages/${m.id}`)).failures).toHaveLength(1);
    expect(
      (await audit(s, 'outgoing_mail.profile.bounce_check'))
        .filter((e) => e.target === 'held')
        .map((e) => e.detail.joined)
        .sort(),
    ).toEqual([false, true]);
    proxy.onCommand = null;

    // afterwards a new request runs a new pass
    const again = await call(s, 'POST', `${P}/held/bounces/check`);
    expect(again).toMatchObject({ joined: false, error: null, messages: 0 });
    expect(proxy.connections() - connections).toBe(2);
  });

  // last but one: dovecot slows down logins after a failed one
  it('a failing pass answers 200 with its error code and what went wrong', async () => {
    const p = await call(s, 'GET', `${P}/collect`);
    await call(s, 'PUT', `${P}/collect`, profileBody(peer.port, { imap: imap({ password: 'wrong' }), revision: p.revision }));
    const out = await call(s, 'POST', `${P}/collect/bounces/check`);
    expect(out).toMatchObject({ profile: 'collect', joined: false, error: 'open_failed', detail: expect.stringMatching(/auth/i), messages: 0 });
    expect((await call(s, 'GET', `${P}/collect`)).bounces.error).toBe('open_failed');
    await call(s, 'DELETE', `${P}/collect`, undefined, 204);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await call(s, 'GET', '/v1/openapi.json');
    const op = doc.paths['/api/admin/core/outgoing-mail/profiles/{key}/bounces/check'].post;
    expect(op.responses['409'].description).toMatch(/bounce_collection_off/);
    expect(Object.keys(op.responses['200'].content['application/json'].schema.$ref ? doc.components.schemas.MailBounceCheck.properties : {})).toEqual(
      expect.arrayContaining(['profile', 'joined', 'checkedAt', 'error', 'detail', 'messages', 'reports', 'matched', 'recorded', 'skipped', 'more']),
    );
  });
});
