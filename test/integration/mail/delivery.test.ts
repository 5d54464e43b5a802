import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;
const pdf = crypto.randomBytes(20_000);

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer({ mail: { attachmentStoreLimit: 100_000 } });
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { fromName: null }), 201);
  await call(s, 'PUT', `${M}/profiles/down`, profileBody(CLOSED_PORT, { pacePerMinute: 1 }), 201);
  app = await registerApp(s, 'crm');
});
afterAll(async () => {
  await s.stop();
  await peer.close();
});

const send = (json: unknown, expected = 202, token = app) => call(s, 'POST', '/api/mail/send', json, expected, token);
const enqueue = (json: unknown, expected = 202, token = app) => call(s, 'POST', '/api/mail/enqueue', json, expected, token);
const error = async (path: string, json: unknown, token = app) => {
  const r = await s.api(path, { method: 'POST', json, token });
  return { status: r.status, ...(await r.json()) } as { status: number; error: string; message: string };
};

describe('application mail API', () => {
  it('only registered applications that declare mail:send and are allowed the profile may send; refusals are audited without content', async () => {
    // the admin token is not an application
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's', text: 't' }, s.token)).error).toBe('forbidden');
    const noDecl = await registerApp(s, 'nodecl', []);
    const e = await error('/api/mail/send', { to: ['secret-rcpt@example.test'], subject: 'secret subject', text: 't' }, noDecl);
    expect(e).toMatchObject({ status: 403, error: 'mail_send_not_declared' });
    const denied = (await audit(s, 'outgoing_mail.send')).find((a) => a.detail.app === 'nodecl')!;
    expect(denied.detail).toMatchObject({ denied: 'mail_send_not_declared' });
    expect(JSON.stringify(denied)).not.toMatch(/secret/);
    // follow-default: another profile is not allowed
    expect((await error('/api/mail/send', { profile: 'down', to: ['a@example.test'], subject: 's', text: 't' })).error).toBe('profile_not_allowed');
    expect((await error('/api/mail/send', { profile: 'nope', to: ['a@example.test'], subject: 's', text: 't' })).error).toBe('profile_unknown');
    // policy none blocks
    const blocked = await registerApp(s, 'blocked');
    await call(s, 'PUT', `${M}/apps/blocked/policy`, { mode: 'none' });
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's', text: 't' }, blocked)).error).toBe('profile_not_allowed');
    expect((await call(s, 'GET', '/api/mail/profiles', undefined, 200, blocked)).data).toEqual([]);
    // validation
    expect((await error('/api/mail/send', { to: [], subject: 's', text: 't' })).message).toMatch(/recipient/);
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's' })).message).toMatch(/text or html/);
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's', text: 't', headers: { From: 'x' } })).message).toMatch(/header/);
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's\r\nBcc: x', text: 't' })).message).toMatch(/subject/);
    expect((await error('/api/mail/send', { to: ['a@example.test'], subject: 's', text: 't', ref: 'Bad Ref' })).message).toMatch(/ref/);
    // mail.profiles never returns passwords or SMTP settings
    const profiles = await call(s, 'GET', '/api/mail/profiles', undefined, 200, app);
    expect(profiles.data.map((p: any) => p.key)).toEqual(['main']);
    expect(profiles.data[0]).not.toHaveProperty('smtpHost');
    expect(profiles.data[0]).not.toHaveProperty('hasPassword');
  });

  it('a send or enqueue refused with 400 is audited once, with who, the application, the profile and the error code only', async () => {
    const token = await registerApp(s, 'badbody');
    const raw = (path: string, body: string) => s.api(path, { method: 'POST', token, body, headers: { 'content-type': 'application/json' } });
    const refusals: Array<[string, string, string]> = [
      [
        '/api/mail/send',
        JSON.stringify({ profile: 'main', to: ['secret-rcpt@example.test'], subject: 'secret subject\r\nBcc: x', text: 'secret body' }),
        'invalid_request',
      ],
      [
        '/api/mail/send',
        JSON.stringify({ to: ['secret-rcpt@example.test'], subject: 'secret subject', text: 'secret body', unknownField: 'secret value' }),
        'invalid_request',
      ],
      ['/api/mail/send', '{"to": ["secret-rcpt@example.test"], "subject": "secret subject", ', 'invalid_json'],
      [
        '/api/mail/enqueue',
        JSON.stringify({ profile: 'down', messages: [{ to: ['secret-rcpt@example.test'], subject: 'secret\u2028subject', text: 'secret body' }] }),
        'invalid_request',
      ],
      ['/api/mail/enqueue', JSON.stringify({ profile: 'Not A Key', messages: [] }), 'invalid_request'],
    ];
    for (const [path, body, code] of refusals) {
      const before = (await audit(s, 'outgoing_mail.send')).length;
      const r = await raw(path, body);
      expect(r.status, body).toBe(400);
      expect((await r.json()).error).toBe(code);
      const after = await audit(s, 'outgoing_mail.send');
      const entries = after.slice(0, after.length - before);
      expect(entries, `one audit entry for ${body}`).toHaveLength(1);
      expect(entries[0]!.actor).toBe('app:badbody');
      expect(entries[0]!.target).toBeNull();
      expect(JSON.stringify(entries[0]), 'no subject, addresses or content').not.toMatch(/secret|Bcc|example\.test/);
    }
    const entries = (await audit(s, 'outgoing_mail.send')).filter((a) => a.actor === 'app:badbody').reverse();
    expect(entries.map((a) => a.detail)).toEqual([
      { app: 'badbody', call: 'send', profile: 'main', denied: 'invalid_request' },
      { app: 'badbody', call: 'send', profile: null, denied: 'invalid_request' },
      { app: 'badbody', call: 'send', profile: null, denied: 'invalid_json' },
      { app: 'badbody', call: 'enqueue', profile: 'down', denied: 'invalid_request' },
      { app: 'badbody', call: 'enqueue', profile: null, denied: 'invalid_request' },
    ]);
    // a body that is not JSON at all (415)
    const textBody = await s.api('/api/mail/send', { method: 'POST', token, body: 'secret text', headers: { 'content-type': 'text/plain' } });
    expect(textBody.status).toBe(415);
    expect((await audit(s, 'outgoing_mail.send')).filter((a) => a.actor === 'app:badbody')[0]!.detail).toEqual({
      app: 'badbody',
      call: 'send',
      profile: null,
      denied: 'unsupported_media_type',
    });
    // refusals after validation say the same (here: the profile is not allowed), also once
    const e = await error('/api/mail/send', { profile: 'down', to: ['secret-rcpt@example.test'], subject: 's', text: 't' }, token);
    expect(e.error).toBe('profile_not_allowed');
    expect((await audit(s, 'outgoing_mail.send')).filter((a) => a.actor === 'app:badbody')[0]!.detail).toEqual({
      app: 'badbody',
      call: 'send',
      profile: 'down',
      denied: 'profile_not_allowed',
    });
    expect((await audit(s, 'outgoing_mail.send')).filter((a) => a.actor === 'app:badbody')).toHaveLength(7);
  });

  it('immediate lane: the mail that arrives carries the fixed Message-ID, headers, bodies and attachments byte for byte', async () => {
    const before = peer.received.length;
    const acc = await send({
      to: ['Alice@Example.test'],
      cc: ['bob@example.test'],
      bcc: ['hidden@example.test'],
      replyTo: 'support@example.test',
      subject: 'Invoice 42',
      text: 'Plain body',
      html: '<p>HTML body</p>',
      headers: { 'X-Invoice': '42' },
      attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf.toString('base64') }],
      ref: 'invoice:42',
    });
    expect(acc).toMatchObject({ status: 'queued', duplicate: false });
    expect(acc.messageId).toBe(`<${acc.id}@example.test>`);
    const [got] = (await peer.waitFor(before + 1)).slice(before);
    const m = got!.parsed;
    expect(m.messageId).toBe(acc.messageId);
    expect(m.subject).toBe('Invoice 42');
    expect(m.text?.trim()).toBe('Plain body');
    expect(m.html).toContain('<p>HTML body</p>');
    expect(m.headers.get('x-invoice')).toBe('42');
    expect(m.replyTo?.value[0]?.address).toBe('support@example.test');
    expect(m.from?.value[0]).toMatchObject({ name: 'CRM', address: 'noreply@example.test' });
    expect(got!.from).toBe('noreply@example.test');
    expect(got!.to.map((a) => a.toLowerCase()).sort()).toEqual(['alice@example.test', 'bob@example.test', 'hidden@example.test']);
    expect(m.headers.has('bcc')).toBe(false);
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]!.filename).toBe('invoice.pdf');
    expect(crypto.hash('sha256', m.attachments[0]!.content, 'hex')).toBe(crypto.hash('sha256', pdf, 'hex'));

    const rec = await waitMessage(s, acc.id, (x) => x.status === 'sent');
    expect(rec).toMatchObject({
      app: 'crm',
      profile: 'main',
      lane: 'immediate',
      attempts: 1,
      ref: 'invoice:42',
      batchId: null,
      messageId: acc.messageId,
      to: ['Alice@Example.test'],
      cc: ['bob@example.test'],
      bcc: ['hidden@example.test'],
      failures: [],
      lastError: null,
      attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, sha256: crypto.hash('sha256', pdf, 'hex') }],
      actor: { kind: 'application', appId: 'crm' },
    });
    expect(rec.smtpResponse).toMatch(/^250/);
    // metadata never carries content
    const raw = JSON.stringify(rec);
    expect(raw).not.toContain('Plain body');
    expect(raw).not.toContain('HTML body');
    expect(raw).not.toContain('X-Invoice');
    // the send audit omits subject, addresses and content
    const sendAudit = (await audit(s, 'outgoing_mail.send')).find((a) => a.target === acc.id)!;
    expect(sendAudit.detail).toMatchObject({ app: 'crm', profile: 'main', recipientCount: 3, messageId: acc.id });
    expect(JSON.stringify(sendAudit)).not.toMatch(/Invoice 42|alice|Plain body/i);
    // the content read is audited, every time
    const content = await call(s, 'GET', `${M}/messages/${acc.id}/content`);
    expect(content).toMatchObject({
      purged: false,
      text: 'Plain body',
      html: '<p>HTML body</p>',
      headers: { 'X-Invoice': '42', 'Reply-To': 'support@example.test' },
    });
    await call(s, 'GET', `${M}/messages/${acc.id}/content`);
    expect((await audit(s, 'outgoing_mail.message.read')).filter((a) => a.target === acc.id)).toHaveLength(2);
    // attachments released on the terminal state (right after it is committed)
    await s.mail.idle();
    expect(await s.mail.attachmentBytes()).toBe(0);
    // an application may read its own record, not another's
    expect((await call(s, 'GET', `/api/mail/messages/${acc.id}`, undefined, 200, app)).status).toBe('sent');
    const other = await registerApp(s, 'other');
    expect((await s.api(`/api/mail/messages/${acc.id}`, { token: other })).status).toBe(404);
  });

  it('an idempotency key returns the first acceptance instead of sending again', async () => {
    const before = peer.received.length;
    const first = await send({ to: ['idem@example.test'], subject: 'once', text: 'x', idempotencyKey: 'order-7' });
    const again = await send({ to: ['idem@example.test'], subject: 'once', text: 'x', idempotencyKey: 'order-7' }, 200);
    expect(again).toMatchObject({ id: first.id, messageId: first.messageId, duplicate: true });
    await waitMessage(s, first.id, (x) => x.status === 'sent');
    await s.mail.idle();
    expect(peer.received.length).toBe(before + 1);
  });

  it('a 4xx answer keeps the row queued with the answer, retried after one minute; then sent with the same Message-ID', async () => {
    const before = peer.received.length;
    peer.dataFaults.push({ code: 451, message: 'Try again later' });
    const acc = await send({ to: ['retry@example.test'], subject: 'retry', text: 'x' });
    const q = await waitMessage(s, acc.id, (x) => x.attempts === 1);
    expect(q.status).toBe('queued');
    expect(q.lastError).toMatch(/451/);
    expect(Date.parse(q.nextAttemptAt) - Date.parse(q.updatedAt)).toBeGreaterThanOrEqual(59_000);
    await s.mail.kick();
    await s.mail.idle();
    expect((await call(s, 'GET', `${M}/messages/${acc.id}`)).status).toBe('queued'); // not due yet
    s.advance(61_000);
    await s.mail.kick();
    const done = await waitMessage(s, acc.id, (x) => x.status === 'sent');
    expect(done.attempts).toBe(2);
    expect(done.lastError).toBeNull();
    const got = (await peer.waitFor(before + 1)).slice(before);
    expect(got.map((g) => g.parsed.messageId)).toEqual([acc.messageId]);
  });

  it('a 5xx answer fails the message at once; a rejected recipient among accepted ones is recorded in failures', async () => {
    peer.dataFaults.push({ code: 554, message: 'Message rejected as spam' });
    const bad = await send({ to: ['perm@example.test'], subject: 'perm', text: 'x' });
    const failed = await waitMessage(s, bad.id, (x) => x.status !== 'queued' && x.status !== 'sending');
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.lastError).toMatch(/554/);

    peer.rejectRcpt.set('nobody@example.test', { code: 550, message: 'No such user' });
    const before = peer.received.length;
    const part = await send({ to: ['good@example.test', 'nobody@example.test'], subject: 'partial', text: 'x' });
    const sent = await waitMessage(s, part.id, (x) => x.status === 'sent');
    expect(sent.failures).toEqual([{ recipient: 'nobody@example.test', reason: expect.stringMatching(/550/), kind: 'rejected' }]);
    const got = (await peer.waitFor(before + 1)).slice(before);
    expect(got[0]!.to).toEqual(['good@example.test']);
  });

  it('bulk lane: a batch is paced per profile, in due-time order, with its batchId', async () => {
    await call(s, 'PUT', `${M}/profiles/paced`, profileBody(peer.port, { pacePerMinute: 120 }), 201);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'paced', 'down'] });
    const before = peer.received.length;
    const r = await enqueue({
      profile: 'paced',
      ref: 'newsletter',
      messages: [1, 2, 3, 4].map((i) => ({ to: [`n${i}@example.test`], subject: `n${i}`, text: 'x' })),
    });
    expect(r.messages).toHaveLength(4);
    const got = (await peer.waitFor(before + 4, 15_000)).slice(before);
    expect(got.map((g) => g.parsed.subject).sort()).toEqual(['n1', 'n2', 'n3', 'n4']); // each once
    const recs = await Promise.all(r.messages.map((m: { id: string }) => waitMessage(s, m.id, (x) => x.status === 'sent')));
    for (const rec of recs) expect(rec).toMatchObject({ lane: 'bulk', batchId: r.batchId, ref: 'newsletter', attempts: 1 });
    // In due-time order, one pacing slot (500 ms at 120 a minute) apart or more: the slot each attempt took, as the
    // server recorded it (arrival times at the peer add the SMTP dialogue's own, varying, duration).
    const slots = recs.map((x) => Date.parse(x.lastAttemptAt));
    for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!, `slot gap ${i} of ${slots.join(', ')}`).toBeGreaterThanOrEqual(500);
    const batchAudit = (await audit(s, 'outgoing_mail.send')).find((a) => a.target === r.batchId)!;
    expect(batchAudit.detail).toMatchObject({ messageCount: 4, profiles: ['paced'], messageIds: r.messages.map((m: any) => m.id) });
  });

  it('enqueue is refused whole with backlog_full beyond pacePerMinute × 1440 queued rows', async () => {
    const msg = (i: number) => ({ to: [`b${i}@example.test`], subject: 'b', text: 'x' });
    await enqueue({ profile: 'down', messages: Array.from({ length: 1000 }, (_, i) => msg(i)) });
    await enqueue({ profile: 'down', messages: Array.from({ length: 440 }, (_, i) => msg(i)) });
    const e = await error('/api/mail/enqueue', { profile: 'down', messages: [msg(1), msg(2)] });
    expect(e).toMatchObject({ status: 409, error: 'backlog_full' });
    const page = await call(s, 'GET', `${M}/messages?profile=down&limit=1`);
    expect(page.data).toHaveLength(1);
    // cancel the lot as a batch and check the batch rules
    const batches = new Set<string>();
    let cursor: string | null = null;
    do {
      const p: any = await call(s, 'GET', `${M}/messages?profile=down&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const m of p.data) if (m.batchId) batches.add(m.batchId);
      cursor = p.nextCursor;
    } while (cursor);
    expect(batches.size).toBe(2);
    let total = 0;
    for (const b of batches) total += (await call(s, 'POST', `${M}/batches/${b}/cancel`)).cancelled;
    await s.mail.idle();
    expect(total).toBeGreaterThanOrEqual(1438); // at most the rows being attempted right now are not queued
    for (const b of batches) expect((await call(s, 'POST', `${M}/batches/${b}/cancel`)).cancelled).toBe(0);
    const e2 = await s.api(`${M}/batches/${crypto.randomUUID()}/cancel`, { method: 'POST' });
    expect(e2.status).toBe(404);
    expect((await e2.json()).error).toBe('batch_unknown');
    const ba = await audit(s, 'outgoing_mail.batch.cancel');
    expect(ba[ba.length - 1]!.detail).toMatchObject({ apps: ['crm'] });
  });

  it('cancel: only queued mail (message_not_queued, message_unknown); audited; attachments released', async () => {
    const acc = await send({
      profile: 'down',
      to: ['c@example.test'],
      subject: 'c',
      text: 'x',
      attachments: [{ filename: 'a.bin', content: pdf.toString('base64') }],
    });
    await s.mail.idle();
    expect(await s.mail.attachmentBytes()).toBe(pdf.length);
    const c = await call(s, 'POST', `${M}/messages/${acc.id}/cancel`);
    expect(c).toMatchObject({ status: 'cancelled', cancelReason: 'cancelled_by_admin' });
    expect(await s.mail.attachmentBytes()).toBe(0);
    const again = await s.api(`${M}/messages/${acc.id}/cancel`, { method: 'POST' });
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe('message_not_queued');
    const unknown = await s.api(`${M}/messages/${crypto.randomUUID()}/cancel`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toBe('message_unknown');
    expect((await s.api(`${M}/messages/not-a-uuid`)).status).toBe(400);
    expect((await audit(s, 'outgoing_mail.message.cancel'))[0]!.target).toBe(acc.id);
  });

  it('attachment limits: per profile (attachment_too_large) and the object store (attachment_storage_full)', async () => {
    await call(s, 'PUT', `${M}/profiles/tiny`, profileBody(CLOSED_PORT, { maxAttachmentBytes: 1000 }), 201);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'paced', 'down', 'tiny'] });
    const big = { filename: 'big.bin', content: crypto.randomBytes(1001).toString('base64') };
    expect(await error('/api/mail/send', { profile: 'tiny', to: ['a@example.test'], subject: 's', text: 't', attachments: [big] })).toMatchObject({
      status: 413,
      error: 'attachment_too_large',
    });
    const blob = { filename: 'x.bin', content: crypto.randomBytes(60_000).toString('base64') };
    const first = await send({ profile: 'down', to: ['a@example.test'], subject: 's', text: 't', attachments: [blob] });
    const full = await error('/api/mail/send', { profile: 'down', to: ['a@example.test'], subject: 's', text: 't', attachments: [blob] });
    expect(full).toMatchObject({ status: 507, error: 'attachment_storage_full' });
    expect(
      (await error('/api/mail/enqueue', { profile: 'down', messages: [{ to: ['a@example.test'], subject: 's', text: 't', attachments: [blob] }] })).error,
    ).toBe('attachment_storage_full');
    // mail without attachments still goes
    await send({ profile: 'down', to: ['a@example.test'], subject: 's', text: 't' });
    await s.mail.idle();
    await call(s, 'POST', `${M}/messages/${first.id}/cancel`);
    await send({ profile: 'down', to: ['a@example.test'], subject: 's', text: 't', attachments: [blob] });
  });

  it('send-log list: filters, newest first, cursor paging, limit validation', async () => {
    const p1 = await call(s, 'GET', `${M}/messages?app=crm&status=sent,failed&limit=2`);
    expect(p1.data).toHaveLength(2);
    expect(p1.data.every((m: any) => ['sent', 'failed'].includes(m.status))).toBe(true);
    expect(Date.parse(p1.data[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(p1.data[1].createdAt));
    const p2 = await call(s, 'GET', `${M}/messages?app=crm&status=sent,failed&limit=2&cursor=${p1.nextCursor}`);
    expect(p2.data.map((m: any) => m.id)).not.toContain(p1.data[0].id);
    expect((await call(s, 'GET', `${M}/messages?ref=invoice`)).data).toHaveLength(1);
    expect((await call(s, 'GET', `${M}/messages?ref=invoice:42`)).data).toHaveLength(1);
    expect((await call(s, 'GET', `${M}/messages?ref=invoice:43`)).data).toHaveLength(0);
    expect((await call(s, 'GET', `${M}/messages?recipient=ALICE@`)).data).toHaveLength(1);
    expect((await call(s, 'GET', `${M}/messages?since=2999-01-01T00:00:00Z`)).data).toHaveLength(0);
    for (const q of ['limit=0', 'limit=101', 'status=lost', 'since=yesterday', 'cursor=zzz']) {
      const r = await s.api(`${M}/messages?${q}`);
      expect(r.status, q).toBe(400);
      expect((await r.json()).error).toBe('invalid_request');
    }
    const r = await s.api(`${M}/messages`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(JSON.stringify(await r.json())).not.toContain('Plain body');
  });

  it('recovery: stuck sending rows are resubmitted; revoked access and dropped declarations cancel queued rows', async () => {
    const acc = await send({ profile: 'down', to: ['stuck@example.test'], subject: 's', text: 't' });
    await s.mail.idle();
    await s.services.store.run("UPDATE mail_messages SET status = 'sending', claimed_by = 'ghost', claimed_at = ? WHERE id = ?", [
      Date.now() - 6 * 60_000,
      acc.id,
    ]);
    const r = await s.mail.recover();
    expect(r.resubmitted).toBeGreaterThanOrEqual(1);
    expect((await call(s, 'GET', `${M}/messages/${acc.id}`)).status).toMatch(/queued|sending/);
    await s.mail.idle();
    // policy no longer allows the profile
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main'] });
    await s.mail.recover();
    expect(await call(s, 'GET', `${M}/messages/${acc.id}`)).toMatchObject({ status: 'cancelled', cancelReason: 'profile_not_allowed' });
    // a dropped declaration cancels too; unregistering (absence) does not
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'down'] });
    const a2 = await send({ profile: 'down', to: ['x@example.test'], subject: 's', text: 't' });
    await s.mail.idle();
    const gone = await registerApp(s, 'gone');
    await call(s, 'PUT', `${M}/apps/gone/policy`, { mode: 'profiles', profiles: ['down'] });
    const a3 = await send({ profile: 'down', to: ['y@example.test'], subject: 's', text: 't' }, 202, gone);
    await s.mail.idle();
    await call(s, 'PATCH', `${M}/apps/crm`, { platformPermissions: [] });
    await call(s, 'DELETE', `${M}/apps/gone`, undefined, 204);
    await s.mail.recover();
    expect(await call(s, 'GET', `${M}/messages/${a2.id}`)).toMatchObject({ status: 'cancelled', cancelReason: 'profile_not_allowed' });
    expect((await call(s, 'GET', `${M}/messages/${a3.id}`)).status).toMatch(/queued|sending/);
    const list = await call(s, 'GET', `${M}/apps`);
    expect(list.data.find((a: any) => a.appId === 'gone')).toMatchObject({
      registered: false,
      declaresMailSend: null,
      policy: { mode: 'profiles', profiles: ['down'] },
    });
    expect(list.data.find((a: any) => a.appId === 'crm')).toMatchObject({ registered: true, declaresMailSend: false });
    expect(list.data[0]).toMatchObject({ appId: 'core', fixed: true, policy: { mode: 'default', profiles: ['main'] } });
    expect((await s.api(`${M}/apps/core/policy`, { method: 'PUT', json: { mode: 'none' } })).status).toBe(409);
    expect((await s.api(`${M}/apps/crm/policy`, { method: 'PUT', json: { mode: 'profiles', profiles: ['nope'] } })).status).toBe(404);
    await call(s, 'PATCH', `${M}/apps/crm`, { platformPermissions: ['mail:send'] });
  });

  it('daily recipient limit over a rolling 24 hours; the 24-hour deadline fails queued mail with the last answer kept', async () => {
    await call(s, 'PUT', `${M}/profiles/capped`, profileBody(peer.port, { dailyRecipientLimit: 3 }), 201);
    await call(s, 'PUT', `${M}/apps/crm/policy`, { mode: 'profiles', profiles: ['main', 'down', 'capped'] });
    await send({ profile: 'capped', to: ['a@example.test', 'b@example.test'], subject: 's', text: 't' });
    const e = await error('/api/mail/send', { profile: 'capped', to: ['c@example.test', 'd@example.test'], subject: 's', text: 't' });
    expect(e).toMatchObject({ status: 429, error: 'daily_limit_exceeded' });
    expect(
      (await error('/api/mail/enqueue', { profile: 'capped', messages: [{ to: ['c@example.test', 'd@example.test'], subject: 's', text: 't' }] })).error,
    ).toBe('daily_limit_exceeded');
    await send({ profile: 'capped', to: ['c@example.test'], subject: 's', text: 't' });

    const late = await send({ profile: 'down', to: ['late@example.test'], subject: 's', text: 't' });
    await waitMessage(s, late.id, (x) => x.attempts >= 1);
    s.advance(24 * 3600_000 + 1000);
    await s.mail.recover();
    const failed = await waitMessage(s, late.id, (x) => x.status === 'failed');
    expect(failed.lastError).toMatch(/ECONNREFUSED|connect/i);
    // the window moved: capacity is back
    await send({ profile: 'capped', to: ['e@example.test', 'f@example.test', 'g@example.test'], subject: 's', text: 't' });
    await s.mail.idle();
  });
});
