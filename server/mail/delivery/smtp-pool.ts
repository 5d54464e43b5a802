/**
 * The delivery lanes' pooled SMTP sessions: one pool per distinct settings (a profile's server, credentials and CA,
 * and the attempt options), up to `maxConnections` connections each, each reused for up to 100 messages and closed
 * after a minute unused. An attempt takes a session here and gives it back (`SessionSource`); the conversation and
 * the outcome are `smtp-attempt.ts`'s. The pool lives in the SMTP thread (`smtp.worker.ts`).
 */
import crypto from 'node:crypto';
import {
  attemptOn,
  type OutgoingMessage,
  openSession,
  type Session,
  type SessionSource,
  type SmtpOptions,
  type SmtpOutcome,
  type SmtpSettings,
} from './smtp-attempt.ts';

/** Messages per session before it is replaced (as nodemailer's pool: `maxMessages` 100). */
const MAX_MESSAGES = 100;

/** The clock of the idle timeout: an unref'd setTimeout, unless a test gives its own (and fires it when it says). */
export interface IdleTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}
const realTimers: IdleTimers = {
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Sessions of every pool: open (or opening), idle among them, and attempts waiting for a connection slot. */
export interface SmtpPoolStats {
  open: number;
  idle: number;
  waiting: number;
}

/**
 * Pooled sessions for the delivery lanes: one pool per distinct settings, at most `maxConnections` sessions each,
 * reused for up to 100 messages, a session unused for `idleMs` closed (QUIT), a pool without sessions forgotten.
 */
export function createSmtpPool(o: { maxConnections: number; idleMs?: number; timers?: IdleTimers }) {
  const idleMs = o.idleMs ?? 60_000;
  const timers = o.timers ?? realTimers;
  interface Pool {
    idle: Session[];
    open: number;
    waiters: Array<() => void>;
  }
  const pools = new Map<string, Pool>();
  let closed = false;
  const keyOf = (s: SmtpSettings, opts: SmtpOptions) =>
    crypto.hash(
      'sha256',
      JSON.stringify([s.host, s.port, s.secure, s.user, s.password, s.ca ?? null, opts.timeoutMs ?? null, opts.tls ? Object.keys(opts.tls).sort() : null]),
      'hex',
    );

  /** The pool of `key`, made when missing (a pool without sessions, waiters or openings is forgotten). */
  const poolOf = (key: string): Pool => {
    let p = pools.get(key);
    if (!p) {
      p = { idle: [], open: 0, waiters: [] };
      pools.set(key, p);
    }
    return p;
  };
  /** The pool each session belongs to (an attempt may outlive the pool object it started with). */
  const home = new WeakMap<Session, { key: string; pool: Pool }>();
  const forget = (key: string, p: Pool) => {
    if (p.open === 0 && p.idle.length === 0 && p.waiters.length === 0 && pools.get(key) === p) pools.delete(key);
  };
  const closeSession = (s: Session) => {
    const { key, pool: p } = home.get(s)!;
    if (s.idleTimer !== null) timers.clear(s.idleTimer);
    s.idleTimer = null;
    s.onDead = null;
    p.open--;
    if (s.dead) s.conn.close();
    else s.conn.quit();
    s.dead = true;
    p.waiters.shift()?.();
    forget(key, p);
  };
  const unidle = (s: Session) => {
    const p = home.get(s)!.pool;
    const i = p.idle.indexOf(s);
    if (i >= 0) p.idle.splice(i, 1);
    closeSession(s);
  };

  function sourceFor(key: string, settings: SmtpSettings, opts: SmtpOptions): SessionSource {
    return {
      async acquire(track) {
        for (;;) {
          if (closed) throw Object.assign(new Error('outgoing mail is shutting down'), { code: 'ECONNECTION' });
          const p = poolOf(key);
          const s = p.idle.pop();
          if (s) {
            if (s.idleTimer !== null) timers.clear(s.idleTimer);
            s.idleTimer = null;
            s.onDead = null;
            if (s.dead) {
              closeSession(s);
              continue;
            }
            return { session: s, reused: true };
          }
          if (p.open < o.maxConnections) {
            p.open++;
            try {
              const session = await openSession(settings, opts, track);
              home.set(session, { key, pool: p });
              return { session, reused: false };
            } catch (err) {
              p.open--;
              p.waiters.shift()?.();
              forget(key, p);
              throw err;
            }
          }
          await new Promise<void>((resolve) => p.waiters.push(resolve));
        }
      },
      release(s, state) {
        if (state === 'close' || s.dead || closed || s.messages >= MAX_MESSAGES) return closeSession(s);
        const give = (clean: boolean) => {
          if (!clean || s.dead || closed) return closeSession(s);
          const p = home.get(s)!.pool;
          s.onDead = () => unidle(s);
          s.idleTimer = timers.set(() => unidle(s), idleMs);
          p.idle.push(s);
          p.waiters.shift()?.();
        };
        // After a refusal the session holds the failed transaction: RSET first (nodemailer's rule).
        if (state === 'reset') s.conn.reset((err?: Error | null) => give(!err));
        else give(true);
      },
    };
  }

  return {
    attempt(settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions = {}): Promise<SmtpOutcome> {
      return attemptOn(sourceFor(keyOf(settings, opts), settings, opts), settings, msg, opts);
    },
    /** Sessions and waiting attempts now, over every pool (tests, diagnostics). */
    stats(): SmtpPoolStats {
      const t: SmtpPoolStats = { open: 0, idle: 0, waiting: 0 };
      for (const p of pools.values()) {
        t.open += p.open;
        t.idle += p.idle.length;
        t.waiting += p.waiters.length;
      }
      return t;
    },
    close(): void {
      closed = true;
      for (const p of pools.values()) {
        for (const s of p.idle.splice(0)) {
          if (s.idleTimer !== null) timers.clear(s.idleTimer);
          s.conn.quit();
        }
        for (const w of p.waiters.splice(0)) w();
      }
      pools.clear();
    },
  };
}
