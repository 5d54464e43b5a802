/**
 * Bounce collection under faults (seed 002, rules 6 and 9; error codes of the profile's `bounces` status): real
 * dovecot behind a scriptable IMAP proxy that drops or holds connections at chosen commands, real database failures
 * (triggers raising an error in the core store: platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres; see
 * test/helpers/store-faults.ts), and the injectable mail clock for the four-minute budget.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { addFailingTrigger, dropFailingTrigger } from '../../helpers/store-faults.ts';
import { type BounceRig, startBounceRig } from './bounce-rig.ts';
import { type Dovecot, dsnReport, type ImapProxy, startDovecot, startImapProxy } from './dovecot.ts';
import { call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, selfSigned } from './peer.ts';

let rig: BounceRig;
let s: MailServer;
let peer: Peer;
let dove: Dovecot;
let proxy: ImapProxy;
let app: string;
const logLines: Array<Record<string, any>> = [];

beforeAll(async () => {
  // `main` (the default) sends; each test adds its own IMAP profile and removes it afterwards.
  rig = await startBounceRig({ logLevel: 'warn', logLines });
  ({ s, peer, dove, proxy, app } = rig);
});
afterEach(async () => {
  proxy.onCommand = null;
  proxy.refuse = false;
  for (const p of (await call(s, 'GET', `${M}/profiles`)).data) if (p.key !== 'main') await call(s, 'DELETE', `${M}/profiles/${p.key}`, undefined, 204);
});
afterAll(() => rig?.stop());

const imap = (folder: string, extra: Record<string, unknown> = {}) => ({
  host: '127.0.0.1',
  port: proxy.port,
  secure: true,
  user: dove.user,
  password: dove.pass,
  folder,
  ...extra,
});
/** A profile's bounce progress, read in the core store the server uses. */
const progress = async (key: string) =>
  (await s.services.store.get<{ imap_cursor: number | null; imap_uidvalidity: string | null }>(
    'SELECT imap_cursor, imap_uidvalidity FROM mail_profiles WHERE key = ?',
    [key],
  ))!;
/** A statement on `table` fails like a failing database's while `fn` runs, for rows where `when` holds. */
async function failing<T>(name: string, event: string, table: string, when: string, fn: () => Promise<T>): Promise<T> {
  const t = { name, event, table, when, message: 'database or disk is full' };
  await addFailingTrigger(s.services.store, t);
  try {
    return await fn();
  } finally {
    await dropFailingTrigger(s.services.store, t);
  }
}
const status = async (id: string) => (await call(s, 'GET', `${M}/messages/${id}`)).status as string;
const statuses = async (ms: Array<{ id: string }>) => Promise.all(ms.map((m) => status(m.id)));

/** Sends `n` messages (one recipient each) through `main`, waits until they are sent, and files a bounce for each in `folder` of `box`. */
async function bouncedMail(folder: string, n = 3, box: Dovecot = dove) {
  const ms: Array<{ id: string; messageId: string; rcpt: string }> = [];
  for (let i = 0; i < n; i++) {
    const rcpt = `${folder.toLowerCase()}-${i}@example.test`;
    const acc = await call(s, 'POST', '/api/mail/send', { to: [rcpt], subject: `${folder} ${i}`, text: 'x' }, 202, app);
    ms.push({ ...acc, rcpt });
  }
  for (const m of ms) await waitMessage(s, m.id, (x) => x.status === 'sent');
  for (const m of ms)
    await box.append(
      folder,
      dsnReport({ messageId: m.messageId, recipients: [{ final: `rfc822; ${m.rcpt}`, action: 'failed', diag: 'smtp; 550 5.1.1 no such user' }] }),
    );
  return ms;
}
const fetchOf = (uid: number) => new RegExp(`^\\S+ UID FETCH ${uid} \\(`);

describe('bounce collection faults', () => {
  it('a message that cannot be read is retried once on a new connection, then skipped with a warning; the rest of the batch is applied', async () => {
    const ms = await bouncedMail('Skip');
    await call(s, 'PUT', `${M}/profiles/b-skip`, profileBody(peer.port, { imap: imap('Skip') }), 201);
    let reads = 0;
    proxy.onCommand = (line) => {
      if (!fetchOf(2).test(line)) return 'pass';
      reads++;
      return 'drop';
    };
    const before = proxy.connections();
    const warned = logLines.length;

    expect(await s.mail.checkBounces()).toEqual({ 'b-skip': null });
    expect(reads).toBe(2); // the first read and one retry
    expect(proxy.connections() - before).toBe(3); // the first connection, the retry's, and the one the check goes on with
    expect(await statuses(ms)).toEqual(['bounced', 'sent', 'bounced']);
    expect((await progress('b-skip')).imap_cursor).toBe(3); // the cursor moved past the skipped UID
    expect(logLines.slice(warned).filter((l) => l.level === 'warn' && /skipped/.test(l.msg))).toEqual([expect.objectContaining({ profile: 'b-skip', uid: 2 })]);
    const p = await call(s, 'GET', `${M}/profiles/b-skip`);
    expect(p.bounces.error).toBeNull();
    expect(p.bounces.checkedAt).not.toBeNull();

    // the skipped UID is not read again
    reads = 0;
    expect(await s.mail.checkBounces()).toEqual({ 'b-skip': null });
    expect(reads).toBe(0);
    expect(await status(ms[1]!.id)).toBe('sent');
  });

  it('a read that fails once and succeeds on the new connection is applied, without a warning', async () => {
    const ms = await bouncedMail('Retry');
    await call(s, 'PUT', `${M}/profiles/b-retry`, profileBody(peer.port, { imap: imap('Retry') }), 201);
    let dropped = 0;
    // the second fetch of UID 2 (its delivery-status part and original headers) fails once
    proxy.onCommand = (line) => {
      if (dropped !== 0 || !/^\S+ UID FETCH 2 \(.*BODY\.PEEK\[/.test(line)) return 'pass';
      dropped++;
      return 'drop';
    };
    const before = proxy.connections();
    const warned = logLines.length;
    expect(await s.mail.checkBounces()).toEqual({ 'b-retry': null });
    expect(dropped).toBe(1);
    expect(proxy.connections() - before).toBe(2);
    expect(await statuses(ms)).toEqual(['bounced', 'bounced', 'bounced']);
    expect((await call(s, 'GET', `${M}/messages/${ms[1]!.id}`)).failures).toEqual([
      { recipient: ms[1]!.rcpt, reason: 'smtp; 550 5.1.1 no such user', kind: 'bounced' },
    ]);
    expect((await progress('b-retry')).imap_cursor).toBe(3);
    expect(logLines.slice(warned).filter((l) => /skipped/.test(l.msg))).toEqual([]);
  });

  it('a failed reconnection stops the check (open_failed) keeping progress through the last processed UID; the next check resumes', async () => {
    const ms = await bouncedMail('Reconnect');
    await call(s, 'PUT', `${M}/profiles/b-reconnect`, profileBody(peer.port, { imap: imap('Reconnect') }), 201);
    proxy.onCommand = (line) => {
      if (!fetchOf(2).test(line)) return 'pass';
      proxy.refuse = true; // the server goes away: the retry cannot connect
      return 'drop';
    };
    expect(await s.mail.checkBounces()).toEqual({ 'b-reconnect': 'open_failed' });
    expect((await call(s, 'GET', `${M}/profiles/b-reconnect`)).bounces.error).toBe('open_failed');
    expect((await progress('b-reconnect')).imap_cursor).toBe(1);
    expect(await statuses(ms)).toEqual(['bounced', 'sent', 'sent']);

    proxy.onCommand = null;
    proxy.refuse = false;
    expect(await s.mail.checkBounces()).toEqual({ 'b-reconnect': null });
    expect(await statuses(ms)).toEqual(['bounced', 'bounced', 'bounced']);
    expect((await progress('b-reconnect')).imap_cursor).toBe(3);
    expect((await call(s, 'GET', `${M}/profiles/b-reconnect`)).bounces.error).toBeNull();
  });

  it('a UIDVALIDITY change seen on reconnection stops the check (open_failed); the next check restarts from seven days without duplicates', async () => {
    const ms = await bouncedMail('Validity');
    await call(s, 'PUT', `${M}/profiles/b-validity`, profileBody(peer.port, { imap: imap('Validity') }), 201);
    proxy.onCommand = (line) => {
      if (!fetchOf(2).test(line)) return 'pass';
      dove.setUidValidity('Validity', 9191); // the mailbox is recreated while the check reads it
      return 'drop';
    };
    const first = await progress('b-validity');
    expect(await s.mail.checkBounces()).toEqual({ 'b-validity': 'open_failed' });
    const kept = await progress('b-validity');
    expect(kept.imap_cursor).toBe(1);
    expect(kept.imap_uidvalidity).not.toBe('9191');
    expect(first.imap_uidvalidity).toBeNull();
    expect(await statuses(ms)).toEqual(['bounced', 'sent', 'sent']);

    proxy.onCommand = null;
    expect(await s.mail.checkBounces()).toEqual({ 'b-validity': null });
    expect(await progress('b-validity')).toEqual({ imap_cursor: 3, imap_uidvalidity: '9191' });
    expect(await statuses(ms)).toEqual(['bounced', 'bounced', 'bounced']);
    expect((await call(s, 'GET', `${M}/messages/${ms[0]!.id}`)).failures).toHaveLength(1);
  });

  it('search_failed when the server fails the UID search; open_failed when the folder was removed; both cleared by a successful check', async () => {
    const ms = await bouncedMail('Search', 1);
    await call(s, 'PUT', `${M}/profiles/b-search`, profileBody(peer.port, { imap: imap('Search') }), 201);
    proxy.onCommand = (line) => (/^\S+ UID SEARCH /.test(line) ? 'drop' : 'pass');
    expect(await s.mail.checkBounces()).toEqual({ 'b-search': 'search_failed' });
    let p = await call(s, 'GET', `${M}/profiles/b-search`);
    expect(p.bounces.error).toBe('search_failed');
    expect(p.bounces.checkedAt).not.toBeNull();
    expect((await progress('b-search')).imap_cursor).toBeNull();
    expect(await status(ms[0]!.id)).toBe('sent');

    proxy.onCommand = null;
    expect(await s.mail.checkBounces()).toEqual({ 'b-search': null });
    expect((await call(s, 'GET', `${M}/profiles/b-search`)).bounces.error).toBeNull();
    expect(await status(ms[0]!.id)).toBe('bounced');

    // a later run (UID search above the cursor) fails the same way and keeps the cursor
    const [late] = await bouncedMail('Search', 1);
    proxy.onCommand = (line) => (/^\S+ UID SEARCH /.test(line) ? 'drop' : 'pass');
    expect(await s.mail.checkBounces()).toEqual({ 'b-search': 'search_failed' });
    expect((await progress('b-search')).imap_cursor).toBe(1);
    expect(await status(late!.id)).toBe('sent');
    proxy.onCommand = null;
    expect(await s.mail.checkBounces()).toEqual({ 'b-search': null });
    expect(await status(late!.id)).toBe('bounced');
    expect((await progress('b-search')).imap_cursor).toBe(2);

    await dove.deleteFolder('Search');
    expect(await s.mail.checkBounces()).toEqual({ 'b-search': 'open_failed' });
    p = await call(s, 'GET', `${M}/profiles/b-search`);
    expect(p.bounces.error).toBe('open_failed');
    expect((await progress('b-search')).imap_cursor).toBe(2);
  });

  it('search_failed on a server without ESEARCH (bounded UID windows): a failed window never advances the cursor', async () => {
    const plain = await startDovecot({ noEsearch: true });
    const plainProxy = await startImapProxy(plain.imapsPort);
    try {
      await bouncedMail('Windows', 1, plain);
      await call(s, 'PUT', `${M}/profiles/b-windows`, profileBody(peer.port, { imap: imap('Windows', { port: plainProxy.port }) }), 201);
      expect(await s.mail.checkBounces()).toEqual({ 'b-windows': null });
      expect((await progress('b-windows')).imap_cursor).toBe(1);
      // a second report; the windowed search (UID 2:2, no ESEARCH) fails
      const acc = await call(s, 'POST', '/api/mail/send', { to: ['window@example.test'], subject: 'w', text: 'x' }, 202, app);
      await waitMessage(s, acc.id, (x) => x.status === 'sent');
      await plain.append('Windows', dsnReport({ messageId: acc.messageId, recipients: [{ final: 'rfc822; window@example.test', action: 'failed' }] }));
      plainProxy.onCommand = (line) => (/^\S+ UID SEARCH UID 2:2/.test(line) ? 'drop' : 'pass');
      expect(await s.mail.checkBounces()).toEqual({ 'b-windows': 'search_failed' });
      expect(plainProxy.commands.some((l) => /UID SEARCH UID 2:2/.test(l))).toBe(true);
      expect((await progress('b-windows')).imap_cursor).toBe(1);
      plainProxy.onCommand = null;
      expect(await s.mail.checkBounces()).toEqual({ 'b-windows': null });
      expect(await status(acc.id)).toBe('bounced');
      expect((await progress('b-windows')).imap_cursor).toBe(2);
    } finally {
      await plainProxy.close();
      await plain.stop();
    }
  });

  it('apply_failed when the database cannot record a report: the report is not skipped and is applied by the next check', async () => {
    const ms = await bouncedMail('Apply');
    await call(s, 'PUT', `${M}/profiles/b-apply`, profileBody(peer.port, { imap: imap('Apply') }), 201);
    await failing('fail_bounce', 'UPDATE OF status', 'mail_messages', `NEW.id = '${ms[1]!.id}' AND NEW.status = 'bounced'`, async () => {
      expect(await s.mail.checkBounces()).toEqual({ 'b-apply': 'apply_failed' });
    });
    const p = await call(s, 'GET', `${M}/profiles/b-apply`);
    expect(p.bounces.error).toBe('apply_failed');
    expect(p.bounces.checkedAt).not.toBeNull();
    expect((await progress('b-apply')).imap_cursor).toBe(1);
    expect(await statuses(ms)).toEqual(['bounced', 'sent', 'sent']);

    expect(await s.mail.checkBounces()).toEqual({ 'b-apply': null });
    expect(await statuses(ms)).toEqual(['bounced', 'bounced', 'bounced']);
    expect((await call(s, 'GET', `${M}/profiles/b-apply`)).bounces.error).toBeNull();
  });

  it('save_failed when progress cannot be saved (shown in the status); when the status itself cannot be saved the check still reports save_failed', async () => {
    const ms = await bouncedMail('Save', 2);
    await call(s, 'PUT', `${M}/profiles/b-save`, profileBody(peer.port, { imap: imap('Save') }), 201);
    await failing('fail_progress', 'UPDATE OF imap_cursor', 'mail_profiles', "NEW.key = 'b-save'", async () => {
      expect(await s.mail.checkBounces()).toEqual({ 'b-save': 'save_failed' });
    });
    let p = await call(s, 'GET', `${M}/profiles/b-save`);
    expect(p.bounces.error).toBe('save_failed');
    const checkedAt = p.bounces.checkedAt;
    expect(checkedAt).not.toBeNull();
    expect(await progress('b-save')).toEqual({ imap_cursor: null, imap_uidvalidity: null });
    // the first report was recorded before its progress could not be saved; the check stopped there
    expect(await statuses(ms)).toEqual(['bounced', 'sent']);

    // the status row cannot be written either: the check answers save_failed, the profile keeps its last status
    await failing('fail_status', 'UPDATE OF bounces_checked_at', 'mail_profiles', "NEW.key = 'b-save'", async () => {
      s.advance(1000);
      expect(await s.mail.checkBounces()).toEqual({ 'b-save': 'save_failed' });
    });
    p = await call(s, 'GET', `${M}/profiles/b-save`);
    expect(p.bounces).toEqual({ checkedAt, error: 'save_failed' });
    // progress was saved this time (only the status failed): the reports are applied once
    expect((await progress('b-save')).imap_cursor).toBe(2);
    expect(await statuses(ms)).toEqual(['bounced', 'bounced']);

    expect(await s.mail.checkBounces()).toEqual({ 'b-save': null });
    expect((await call(s, 'GET', `${M}/profiles/b-save`)).bounces.error).toBeNull();
    expect((await call(s, 'GET', `${M}/messages/${ms[0]!.id}`)).failures).toHaveLength(1);
  });

  it('the four-minute budget (mail clock): the check is interrupted after the UID being read, leftover profiles wait; the next tick resumes', async () => {
    const ms = await bouncedMail('Budget');
    await dove.append(
      'Budget2',
      dsnReport({ messageId: ms[0]!.messageId, recipients: [{ final: `rfc822; ${ms[0]!.rcpt}`, action: 'failed', diag: 'smtp; 550 again' }] }),
    );
    await call(s, 'PUT', `${M}/profiles/b-budget-a`, profileBody(peer.port, { imap: imap('Budget') }), 201);
    await call(s, 'PUT', `${M}/profiles/b-budget-b`, profileBody(peer.port, { imap: imap('Budget2') }), 201);
    let moved = false;
    proxy.onCommand = (line) => {
      if (!moved && fetchOf(1).test(line)) {
        moved = true;
        s.advance(4 * 60_000); // reading UID 1 takes the whole budget
      }
      return 'pass';
    };
    expect(await s.mail.checkBounces()).toEqual({ 'b-budget-a': 'interrupted' });
    // (The budget is driven by the mail clock: a real-time budget of a millisecond made an earlier test flaky.)
    expect((await call(s, 'GET', `${M}/profiles/b-budget-a`)).bounces).toEqual({ checkedAt: expect.any(String), error: 'interrupted' });
    expect((await progress('b-budget-a')).imap_cursor).toBe(1);
    expect(await statuses(ms)).toEqual(['bounced', 'sent', 'sent']);
    expect((await call(s, 'GET', `${M}/profiles/b-budget-b`)).bounces).toEqual({ checkedAt: null, error: null }); // still pending

    expect(await s.mail.checkBounces()).toEqual({ 'b-budget-a': null, 'b-budget-b': null });
    expect((await progress('b-budget-a')).imap_cursor).toBe(3);
    expect(await statuses(ms)).toEqual(['bounced', 'bounced', 'bounced']);
    expect((await call(s, 'GET', `${M}/messages/${ms[0]!.id}`)).failures.map((f: any) => f.reason)).toEqual([
      'smtp; 550 5.1.1 no such user',
      'smtp; 550 again',
    ]);
  });

  it('a record keeps at most 100 failures: reasons beyond that are not added', async () => {
    const to = Array.from({ length: 100 }, (_, i) => `many${i}@example.test`);
    const cc = Array.from({ length: 5 }, (_, i) => `more${i}@example.test`);
    const acc = await call(s, 'POST', '/api/mail/send', { to, cc, subject: 'many', text: 'x' }, 202, app);
    await waitMessage(s, acc.id, (x) => x.status === 'sent');
    await dove.append(
      'Many',
      dsnReport({ messageId: acc.messageId, recipients: [...to, ...cc].map((r) => ({ final: `rfc822; ${r}`, action: 'failed', diag: 'smtp; 550 gone' })) }),
    );
    await call(s, 'PUT', `${M}/profiles/b-many`, profileBody(peer.port, { imap: imap('Many') }), 201);
    expect(await s.mail.checkBounces()).toEqual({ 'b-many': null });
    const m = await call(s, 'GET', `${M}/messages/${acc.id}`);
    expect(m.status).toBe('bounced');
    expect(m.failures).toHaveLength(100);
    expect(m.failures.map((f: any) => f.recipient)).toEqual(to);
  });
});

describe('bounce collection at shutdown', () => {
  it('Core shutdown interrupts a running check after the UID being read; closing waits until interrupted is recorded', async () => {
    const srv = await startMailServer({ mail: { bounces: { tls: { ca: selfSigned().cert }, intervalMs: 100 } } });
    try {
      await call(srv, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
      const token = await registerApp(srv, 'crm');
      const ms: any[] = [];
      for (let i = 0; i < 2; i++) ms.push(await call(srv, 'POST', '/api/mail/send', { to: [`down${i}@example.test`], subject: 's', text: 'x' }, 202, token));
      for (const m of ms) await waitMessage(srv, m.id, (x) => x.status === 'sent');
      for (const [i, m] of ms.entries())
        await dove.append('Shutdown', dsnReport({ messageId: m.messageId, recipients: [{ final: `rfc822; down${i}@example.test`, action: 'failed' }] }));
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        proxy.onCommand = (line) => {
          if (!fetchOf(1).test(line)) return 'pass';
          proxy.onCommand = null; // hold the first read of UID 1 only
          resolve();
          return new Promise<'pass'>((r) => (release = () => r('pass')));
        };
      });
      // the scheduled tick (every 100 ms here) checks the mailbox and is held while reading UID 1
      await call(srv, 'PUT', `${M}/profiles/b-shutdown`, profileBody(peer.port, { imap: imap('Shutdown') }), 201);
      await held;
      const closing = srv.mail.close();
      release();
      await closing;
      const row = await srv.services.store.get<any>("SELECT imap_cursor, bounces_error, bounces_checked_at FROM mail_profiles WHERE key = 'b-shutdown'");
      expect(row).toMatchObject({ imap_cursor: 1, bounces_error: 'interrupted' });
      expect(row.bounces_checked_at).not.toBeNull();
      expect((await call(srv, 'GET', `${M}/messages/${ms[0].id}`)).status).toBe('bounced');
      expect((await call(srv, 'GET', `${M}/messages/${ms[1].id}`)).status).toBe('sent');
    } finally {
      proxy.onCommand = null;
      await srv.stop();
    }
  });
});
