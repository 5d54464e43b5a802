/**
 * `createSmtpPool` and `attemptSmtp` against real SMTP peers (`smtp-server` on 127.0.0.1, port 0): session reuse and
 * replacement, the connection cap, refusals with RSET, sessions the server dropped, the attempt budget, AUTH failures
 * without credentials in the error, `close()` and the idle timeout.
 */
import crypto from 'node:crypto';
import type net from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { attemptSmtp, type OutgoingMessage, type SmtpSettings } from '../../../server/mail/delivery/smtp-attempt.ts';
import { createSmtpPool, type IdleTimers } from '../../../server/mail/delivery/smtp-pool.ts';
import { until } from '../../helpers/wait.ts';
import { startPeer } from './peer.ts';

const settings = (port: number, auth: { user: string; pass: string } | null = null): SmtpSettings => ({
  host: '127.0.0.1',
  port,
  secure: false,
  user: auth?.user ?? null,
  password: auth?.pass ?? null,
});

function message(n: number, over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    from: { name: 'Hearth', address: 'hearth@example.test' },
    to: [`rcpt${n}@example.test`],
    cc: [],
    bcc: [],
    subject: `message ${n}`,
    text: `body ${n}`,
    messageId: `<${n}.${crypto.randomUUID()}@example.test>`,
    ...over,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Reply = { code: number; message: string };
/** Where a command arrived: the connection (1-based, in order of connecting) and the transaction on it (1-based). */
interface At {
  conn: number;
  tx: number;
}

/**
 * An SMTP server whose answers the test scripts: `mailFrom`/`rcptTo` may refuse ('drop' closes the socket without an
 * answer), `afterData` may drop the connection once a message is accepted, `dataDelayMs` delays the final reply (a slow
 * server), `holdData` holds it until the test calls `release()` (an attempt that stays in progress as long as the test
 * says: `held` lists the messages waiting).
 */
async function startServer(opts: { auth?: { user: string; pass: string; echo?: boolean } } = {}) {
  const sockets = new Map<number, net.Socket>();
  const connOf = new Map<string, number>();
  const txOf = new Map<string, number>();
  const state = {
    connections: 0,
    open: 0,
    maxOpen: 0,
    closedAt: [] as number[],
    received: [] as Array<{ messageId: string; conn: number; at: number }>,
    mailFrom: null as null | ((at: At) => Reply | 'drop' | null),
    rcptTo: null as null | ((at: At, address: string) => Reply | null),
    afterData: null as null | ((at: At) => 'drop' | null),
    dataDelayMs: null as null | ((at: At) => number),
    holdData: null as null | ((at: At, messageId: string) => boolean),
    held: [] as Array<{ messageId: string; conn: number; release: () => void }>,
  };
  const at = (session: SMTPServerSession): At => ({ conn: connOf.get(session.id)!, tx: txOf.get(session.id) ?? 0 });
  const drop = (session: SMTPServerSession) => sockets.get(session.remotePort)?.destroy();
  const refuse = (r: Reply) => Object.assign(new Error(r.message), { responseCode: r.code });
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', ...(opts.auth ? [] : ['AUTH'])],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    logger: false,
    onConnect(session, cb) {
      connOf.set(session.id, ++state.connections);
      state.maxOpen = Math.max(state.maxOpen, ++state.open);
      cb();
    },
    onClose() {
      state.open--;
      state.closedAt.push(Date.now());
    },
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
      // A server that echoes what it got: the client must still not pass the password on.
      const echo = opts.auth?.echo
        ? ` (${auth.username} / ${auth.password} / ${Buffer.from(`\u0000${auth.username}\u0000${auth.password}`).toString('base64')})`
        : '';
      cb(Object.assign(new Error(`Authentication failed${echo}`), { responseCode: 535 }));
    },
    onMailFrom(_address, session, cb) {
      txOf.set(session.id, (txOf.get(session.id) ?? 0) + 1);
      const r = state.mailFrom?.(at(session)) ?? null;
      if (r === 'drop') return drop(session);
      cb(r ? refuse(r) : null);
    },
    onRcptTo(address, session, cb) {
      const r = state.rcptTo?.(at(session), address.address) ?? null;
      cb(r ? refuse(r) : null);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const where = at(session);
        const raw = Buffer.concat(chunks).toString('latin1');
        const messageId = /^Message-ID: (.*)$/im.exec(raw)?.[1]?.trim() ?? '';
        if (state.holdData?.(where, messageId)) await new Promise<void>((release) => state.held.push({ messageId, conn: where.conn, release }));
        const delay = state.dataDelayMs?.(where) ?? 0;
        if (delay) await sleep(delay);
        state.received.push({ messageId, conn: where.conn, at: Date.now() });
        cb(null, `Message queued as t${state.received.length}`);
        if (state.afterData?.(where) === 'drop') setImmediate(() => drop(session));
      });
    },
  });
  server.on('error', () => {});
  server.server.on('connection', (s: net.Socket) => sockets.set(s.remotePort!, s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as net.AddressInfo).port;
  const srv = Object.assign(state, {
    port,
    /** How many times each Message-ID arrived. */
    arrivals: (id: string) => state.received.filter((r) => r.messageId === id).length,
    /** Answers every held message (accepted). */
    release: () => {
      for (const h of state.held.splice(0)) h.release();
    },
    /** Stops the server; a connection the client left open is cut rather than waited for. */
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets.values()) s.destroy();
      }),
  });
  cleanup.push(() => srv.close());
  return srv;
}

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function pool(o: { maxConnections: number; idleMs?: number; timers?: IdleTimers }) {
  const p = createSmtpPool(o);
  cleanup.push(() => p.close());
  return p;
}

/**
 * Idle timers the test fires itself: which timers the pool armed (with their delay) and which it cleared, instead of
 * waiting for real milliseconds to pass.
 */
function manualTimers() {
  const armed = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  const timers: IdleTimers = {
    set: (fn, ms) => {
      armed.set(++next, { fn, ms });
      return next;
    },
    clear: (h) => void armed.delete(h as number),
  };
  return {
    timers,
    /** The timers armed and not cleared or fired: [handle, delay]. */
    armed: () => [...armed.entries()].map(([h, t]) => [h, t.ms]),
    /** Fires every armed timer (their delay has passed). */
    fire() {
      const due = [...armed.values()];
      armed.clear();
      for (const t of due) t.fn();
    },
  };
}

describe('SMTP pool', () => {
  it('reuses one session for sequential messages', async () => {
    const srv = await startServer();
    const p = pool({ maxConnections: 2 });
    const msgs = Array.from({ length: 30 }, (_, i) => message(i));
    for (const m of msgs) expect(await p.attempt(settings(srv.port), m)).toMatchObject({ kind: 'accepted' });
    expect(srv.received).toHaveLength(30);
    for (const m of msgs) expect(srv.arrivals(m.messageId)).toBe(1);
    expect(srv.connections).toBe(1);
    expect(srv.maxOpen).toBe(1);
  });

  it('never opens more than maxConnections sessions for concurrent attempts', async () => {
    const srv = await startServer();
    srv.dataDelayMs = () => 30;
    const p = pool({ maxConnections: 3 });
    const msgs = Array.from({ length: 20 }, (_, i) => message(i));
    const outcomes = await Promise.all(msgs.map((m) => p.attempt(settings(srv.port), m)));
    expect(outcomes.map((o) => o.kind)).toEqual(Array(20).fill('accepted'));
    for (const m of msgs) expect(srv.arrivals(m.messageId)).toBe(1);
    expect(srv.maxOpen).toBe(3);
    expect(srv.connections).toBe(3);
  });

  it('replaces a session after 100 messages', async () => {
    const srv = await startServer();
    const p = pool({ maxConnections: 1 });
    for (let i = 0; i < 205; i++) expect((await p.attempt(settings(srv.port), message(i))).kind).toBe('accepted');
    expect(srv.received).toHaveLength(205);
    expect(srv.connections).toBe(3);
    expect(srv.maxOpen).toBe(1);
    const perConn = [1, 2, 3].map((c) => srv.received.filter((r) => r.conn === c).length);
    expect(perConn).toEqual([100, 100, 5]);
    // the replaced sessions were closed (QUIT), only the last one is open
    await until(() => srv.open === 1, 'the replaced sessions to close');
  });

  it('a message refused at RCPT TO is permanent; the session is reset and reused', async () => {
    const srv = await startServer();
    srv.rcptTo = (_at, address) => (address.startsWith('nobody') ? { code: 550, message: 'No such user' } : null);
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    const refused = await p.attempt(settings(srv.port), message(2, { to: ['nobody1@example.test'], cc: ['nobody2@example.test'] }));
    expect(refused).toMatchObject({ kind: 'permanent' });
    expect(JSON.stringify(refused)).toMatch(/550/);
    const next = message(3);
    expect(await p.attempt(settings(srv.port), next)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(next.messageId)).toBe(1);
    expect(srv.received).toHaveLength(2);
    expect(srv.connections).toBe(1);
  });

  it('a recipient refused among accepted ones is reported with the accepted outcome', async () => {
    const srv = await startServer();
    srv.rcptTo = (_at, address) => (address === 'nobody@example.test' ? { code: 550, message: 'No such user' } : null);
    const p = pool({ maxConnections: 1 });
    const outcome = await p.attempt(settings(srv.port), message(1, { to: ['ok@example.test', 'nobody@example.test'] }));
    expect(outcome).toMatchObject({ kind: 'accepted', rejected: [{ recipient: 'nobody@example.test', reason: expect.stringMatching(/550/) }] });
    expect(srv.received).toHaveLength(1);
  });

  it('a message refused after DATA is permanent; the session is reused', async () => {
    const peer = await startPeer();
    cleanup.push(() => peer.close());
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(peer.port), message(1))).toMatchObject({ kind: 'accepted' });
    peer.dataFaults.push({ code: 554, message: 'Message rejected as spam' });
    const refused = await p.attempt(settings(peer.port), message(2));
    expect(refused).toMatchObject({ kind: 'permanent', response: expect.stringMatching(/^554/) });
    const next = message(3);
    expect(await p.attempt(settings(peer.port), next)).toMatchObject({ kind: 'accepted' });
    await peer.waitFor(2);
    expect(peer.received.map((r) => r.parsed.messageId)).toEqual([expect.any(String), next.messageId]);
    expect(peer.connections()).toBe(1);
  });

  it('a temporary refusal after DATA (451) is temporary; the session is reused', async () => {
    const peer = await startPeer();
    cleanup.push(() => peer.close());
    const p = pool({ maxConnections: 1 });
    peer.dataFaults.push({ code: 451, message: 'Try again later' });
    expect(await p.attempt(settings(peer.port), message(1))).toMatchObject({ kind: 'temporary', response: expect.stringMatching(/^451/) });
    expect(await p.attempt(settings(peer.port), message(2))).toMatchObject({ kind: 'accepted' });
    expect(peer.connections()).toBe(1);
  });

  it('a session the server dropped while idle is replaced; the next message arrives once', async () => {
    const srv = await startServer();
    srv.afterData = (at) => (at.conn === 1 ? 'drop' : null);
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    await until(() => srv.open === 0, 'the dropped session to close');
    const next = message(2);
    expect(await p.attempt(settings(srv.port), next)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(next.messageId)).toBe(1);
    expect(srv.connections).toBe(2);
  });

  it('a reused session answered with 421 at MAIL FROM: the message goes on a fresh session, once', async () => {
    const srv = await startServer();
    srv.mailFrom = (at) => (at.conn === 1 && at.tx === 2 ? { code: 421, message: 'Idle too long, closing' } : null);
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    const next = message(2);
    expect(await p.attempt(settings(srv.port), next)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(next.messageId)).toBe(1);
    expect(srv.received.map((r) => r.conn)).toEqual([1, 2]);
    expect(srv.connections).toBe(2);
  });

  it('a reused session the server drops at MAIL FROM: a message with an attachment goes on a fresh session, once', async () => {
    const srv = await startServer();
    srv.mailFrom = (at) => (at.conn === 1 && at.tx === 2 ? 'drop' : null);
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    const next = message(2, { attachments: [{ filename: 'a.bin', contentType: 'application/octet-stream', content: crypto.randomBytes(1000) }] });
    expect(await p.attempt(settings(srv.port), next)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(next.messageId)).toBe(1);
    expect(srv.connections).toBe(2);
  });

  it('a reused session the server drops at MAIL FROM: a message without attachments goes on a fresh session, once', async () => {
    const srv = await startServer();
    srv.mailFrom = (at) => (at.conn === 1 && at.tx === 2 ? 'drop' : null);
    const p = pool({ maxConnections: 1 });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    const dropped = message(2);
    expect(await p.attempt(settings(srv.port), dropped)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(dropped.messageId)).toBe(1);
    const next = message(3);
    expect(await p.attempt(settings(srv.port), next)).toMatchObject({ kind: 'accepted' });
    expect(srv.arrivals(next.messageId)).toBe(1);
    expect(srv.connections).toBe(2);
  });

  // The retry's fresh session must belong to the pool like any other (closing the failed reused session may forget
  // the pool object when it was its only session: the retry opens its session in the pool then current).
  it('after a retry on a fresh session, the pool keeps that session: the next message reuses it and close() ends it', async () => {
    const srv = await startServer();
    srv.mailFrom = (at) => (at.conn === 1 && at.tx === 2 ? { code: 421, message: 'Idle too long, closing' } : null);
    const p = createSmtpPool({ maxConnections: 1 });
    cleanup.push(() => p.close());
    for (let i = 1; i <= 3; i++) expect(await p.attempt(settings(srv.port), message(i))).toMatchObject({ kind: 'accepted' });
    expect(srv.received.map((r) => r.conn)).toEqual([1, 2, 2]);
    expect(srv.maxOpen).toBe(1);
    p.close();
    await until(() => srv.open === 0, 'the pooled session to close');
  });

  // The budgets below are long enough for a whole SMTP exchange on a busy machine (smtp-server alone waits 100 ms
  // before its greeting); what ends an attempt early is the server holding its answer until the test releases it.
  it('an attempt that exceeds its budget is temporary, returns in time, and frees its connection slot', async () => {
    const srv = await startServer();
    const first = message(1);
    srv.holdData = (_at, id) => id === first.messageId; // the server never answers the first message by itself
    const p = pool({ maxConnections: 1 });
    const outcome = await p.attempt(settings(srv.port), first, { timeoutMs: 2_000 });
    // Ended by its budget (the only source of this error), while the server still held the message: in time.
    expect(outcome).toMatchObject({ kind: 'temporary', error: expect.stringMatching(/^SMTP attempt exceeded 2 s/) });
    expect(srv.received).toEqual([]);
    // the timed-out session is closed and its connection slot free
    expect(p.stats()).toEqual({ open: 0, idle: 0, waiting: 0 });
    // same pool, same settings and budget, one connection: the slot of the timed-out session is free again
    const next = message(2);
    expect(await p.attempt(settings(srv.port), next, { timeoutMs: 2_000 })).toMatchObject({ kind: 'accepted' });
    expect(srv.received.find((r) => r.messageId === next.messageId)?.conn).toBe(2);
    expect(srv.arrivals(first.messageId)).toBe(0);
  });

  it('an attempt waiting for a connection slot is bound by the budget too', async () => {
    const srv = await startServer();
    srv.holdData = () => true; // the first attempt keeps the only connection until its budget ends
    const p = pool({ maxConnections: 1 });
    // Both budgets start in the same turn: the waiting attempt's ends with the first's, before the slot frees.
    const outcomes = await Promise.all([
      p.attempt(settings(srv.port), message(1), { timeoutMs: 2_000 }),
      p.attempt(settings(srv.port), message(2), { timeoutMs: 2_000 }),
    ]);
    expect(outcomes).toEqual([
      expect.objectContaining({ kind: 'temporary', error: expect.stringMatching(/^SMTP attempt exceeded 2 s/) }),
      expect.objectContaining({ kind: 'temporary', error: expect.stringMatching(/^SMTP attempt exceeded 2 s/) }),
    ]);
    // Neither waited for the server, which answered nothing; the waiting attempt never had a connection of its own.
    expect(srv.received).toEqual([]);
    expect(srv.connections).toBe(1);
  });

  it('close(): idle sessions are closed at the peer and later attempts are temporary at once', async () => {
    const srv = await startServer();
    srv.dataDelayMs = () => 20;
    const p = createSmtpPool({ maxConnections: 3 });
    const outcomes = await Promise.all([1, 2, 3].map((i) => p.attempt(settings(srv.port), message(i))));
    expect(outcomes.map((o) => o.kind)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(srv.open).toBe(3);
    p.close();
    await until(() => srv.open === 0, 'the idle sessions to close');
    // At once: the closed pool refuses before opening or waiting for anything (no fourth connection).
    const after = await p.attempt(settings(srv.port), message(4));
    expect(after).toMatchObject({ kind: 'temporary', error: 'outgoing mail is shutting down' });
    expect(p.stats()).toEqual({ open: 0, idle: 0, waiting: 0 });
    expect(srv.connections).toBe(3);
    expect(srv.received).toHaveLength(3);
  });

  it('close() while attempts are in flight and waiting: the waiting one ends temporary, the session in use closes after its message', async () => {
    const srv = await startServer();
    srv.holdData = () => true;
    const p = createSmtpPool({ maxConnections: 1 });
    cleanup.push(() => p.close());
    const first = message(1);
    let firstEnded = false;
    const inFlight = p.attempt(settings(srv.port), first).finally(() => (firstEnded = true));
    await until(() => srv.held.length === 1, 'the first message at the server, its answer held');
    const waiting = p.attempt(settings(srv.port), message(2));
    await until(() => p.stats().waiting === 1, 'the second attempt waiting for the connection slot');
    p.close();
    // The waiting attempt ends at once: before the one in flight, whose answer the server still holds.
    expect(await waiting).toMatchObject({ kind: 'temporary', error: 'outgoing mail is shutting down' });
    expect(firstEnded).toBe(false);
    srv.release();
    expect(await inFlight).toMatchObject({ kind: 'accepted' });
    await until(() => srv.open === 0, 'the session to close');
    expect(srv.connections).toBe(1);
    expect(srv.received.map((r) => r.messageId)).toEqual([first.messageId]);
  });

  it('idleMs: a session unused for idleMs is closed', async () => {
    const srv = await startServer();
    const clock = manualTimers();
    const p = pool({ maxConnections: 2, idleMs: 200, timers: clock.timers });
    expect(await p.attempt(settings(srv.port), message(1))).toMatchObject({ kind: 'accepted' });
    // Unused, the session waits in the pool, open, on one idle timer of idleMs: nothing else closes it.
    expect(clock.armed()).toEqual([[1, 200]]);
    expect(p.stats()).toEqual({ open: 1, idle: 1, waiting: 0 });
    expect(srv.open).toBe(1);
    expect(srv.closedAt).toEqual([]);
    clock.fire(); // idleMs passed
    expect(p.stats()).toEqual({ open: 0, idle: 0, waiting: 0 });
    await until(() => srv.open === 0, 'the idle session to close');
    // the pool opens a new session afterwards
    expect(await p.attempt(settings(srv.port), message(2))).toMatchObject({ kind: 'accepted' });
    expect(srv.connections).toBe(2);
  });

  it('idleMs: each use restarts the idle timer', async () => {
    const srv = await startServer();
    const clock = manualTimers();
    const p = pool({ maxConnections: 1, idleMs: 300, timers: clock.timers });
    for (let i = 1; i <= 4; i++) {
      expect(await p.attempt(settings(srv.port), message(i))).toMatchObject({ kind: 'accepted' });
      // Taking the session cleared the timer of its last rest; giving it back armed a full idleMs again.
      expect(clock.armed(), `after use ${i}`).toEqual([[i, 300]]);
    }
    expect(srv.connections).toBe(1);
    expect(srv.open).toBe(1);
    expect(p.stats()).toEqual({ open: 1, idle: 1, waiting: 0 });
  });
});

describe('attemptSmtp', () => {
  const creds = { user: 'mailer@example.test', pass: 'Tr0ub4dor&3-secret' };
  const secrets = [creds.pass, Buffer.from(creds.pass).toString('base64'), Buffer.from(`\u0000${creds.user}\u0000${creds.pass}`).toString('base64')];

  it('sends one message on a fresh connection and closes it', async () => {
    const srv = await startServer();
    const m = message(1);
    expect(await attemptSmtp(settings(srv.port), m)).toMatchObject({ kind: 'accepted', response: expect.stringMatching(/^250/) });
    expect(srv.arrivals(m.messageId)).toBe(1);
    await until(() => srv.open === 0, 'the session to close');
  });

  it('logs in and sends with the right credentials', async () => {
    const peer = await startPeer({ auth: creds });
    cleanup.push(() => peer.close());
    expect(await attemptSmtp(settings(peer.port, creds), message(1))).toMatchObject({ kind: 'accepted' });
    const [got] = await peer.waitFor(1);
    expect(got!.user).toBe(creds.user);
  });

  it('an AUTH failure is permanent with the 535 response and without the password', async () => {
    const peer = await startPeer({ auth: { user: creds.user, pass: 'another password' } });
    cleanup.push(() => peer.close());
    const outcome = await attemptSmtp(settings(peer.port, creds), message(1));
    expect(outcome).toMatchObject({ kind: 'permanent', response: expect.stringMatching(/^535/) });
    const text = JSON.stringify(outcome);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(peer.received).toHaveLength(0);
  });

  it('a server that echoes the credentials in its 535: the outcome still carries none of them', async () => {
    const srv = await startServer({ auth: { user: creds.user, pass: 'another password', echo: true } });
    const outcome = await attemptSmtp(settings(srv.port, creds), message(1));
    expect(outcome).toMatchObject({ kind: 'permanent', response: expect.stringMatching(/^535/) });
    const text = JSON.stringify(outcome);
    expect(text).toMatch(/Authentication failed/);
    expect(text).toMatch(/\[redacted\]/);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(srv.received).toHaveLength(0);
  });
});
