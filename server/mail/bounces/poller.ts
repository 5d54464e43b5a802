/**
 * Bounce collection: every five minutes Core checks the mailboxes of profiles with IMAP settings, one after another
 * within a four-minute budget (plus 30 seconds to record an interrupted check). Per profile at most 200 messages,
 * oldest UID first, from a UID cursor (the first run and a UIDVALIDITY change look back seven days). The folder is
 * opened read-only; only the delivery-status part and the original headers of standard RFC 3464 reports are fetched
 * (64 KiB each at most); nothing is marked, moved or deleted. `Action: failed` for a recipient of a stored message
 * moves `sent` to `bounced` and records the recipient and reason.
 *
 * A check can also be asked for (`checkNow`, "check now" of the admin API): it runs one pass for that profile at once,
 * or joins the pass in progress — a profile is never checked twice at the same time, whoever asked. Each pass ends
 * with its outcome (`CheckOutcome`): the profile's status as before, the counts of the run, and an info log line.
 *
 * One file because a profile's check is one IMAP session whose steps (open, search from the cursor, fetch the report
 * parts, match and record, save the cursor) share the connection, the deadline and the counts; the schedule and
 * `checkNow` are the few lines around it, and parsing a report is apart (dsn.ts).
 */
import net from 'node:net';
import type tls from 'node:tls';
import type { ImapFlow, MessageStructureObject } from 'imapflow';
import { lazy } from '../../core/lazy.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { MailClock } from '../clock.ts';
import type { SecretBox } from '../crypto.ts';
import { MAX_FAILURES } from '../log/log.service.ts';
import type { ProfileRow } from '../profiles/profiles.store.ts';
import { describeTlsFailure, withTrustedCa } from '../tls-ca.ts';
import type { BounceStore, MailboxIdentity } from './bounces.store.ts';
import { headerValue, parseDeliveryStatus } from './dsn.ts';

/** The IMAP client (and its mail parsing), loaded at the first bounce check: a server without IMAP settings never needs it. */
const imapflow = lazy(() => import('imapflow'));

export type BounceError = 'open_failed' | 'search_failed' | 'apply_failed' | 'save_failed' | 'interrupted';

export interface BounceOptions {
  intervalMs: number;
  budgetMs: number;
  graceMs: number;
  perProfile: number;
  lookbackMs: number;
  maxPartBytes: number;
  /** UID window of a search on servers without ESEARCH. */
  windowSize: number;
  /** IMAP connection timeout (ms). */
  timeoutMs: number;
}
export const DEFAULT_BOUNCES: BounceOptions = {
  intervalMs: 5 * 60_000,
  budgetMs: 4 * 60_000,
  graceMs: 30_000,
  perProfile: 200,
  lookbackMs: 7 * 86_400_000,
  maxPartBytes: 64 * 1024,
  windowSize: 1000,
  timeoutMs: 30_000,
};

/** What one pass read and recorded. */
interface Counts {
  /** Messages examined (above the cursor, at most `perProfile`), skipped ones included. */
  messages: number;
  /** Standard delivery reports (`multipart/report; report-type=delivery-status`) read among them. */
  reports: number;
  /** Reports whose original Message-ID is a sent (or bounced) message of the send log. */
  matched: number;
  /** Failed recipients newly recorded on their message (each moves `sent` to `bounced`). */
  recorded: number;
  /** Messages skipped: unreadable twice, or a report part above 64 KiB. */
  skipped: number;
  /** More messages wait above the per-run limit (the next pass goes on). */
  more: boolean;
}

/** What one pass of one profile did: the saved status (`checkedAt`, `error`) and its counts. */
export interface CheckOutcome extends Counts {
  profile: string;
  /** When the pass ended and its status was saved (ISO). */
  checkedAt: string;
  error: BounceError | null;
  /** What went wrong, in words (the IMAP server's or the TLS library's message); null without error. */
  detail: string | null;
}

class CheckError extends Error {
  readonly code: BounceError;
  constructor(code: BounceError, message: string) {
    super(message);
    this.code = code;
  }
}

interface Report {
  dsPart: string;
  dsEncoding: string | undefined;
  headersPart: string;
}

/** The parts of a standard report: `multipart/report; report-type=delivery-status` with its two parts; else null. */
export function reportParts(s: MessageStructureObject | undefined, maxBytes: number): Report | 'oversized' | null {
  if (s?.type?.toLowerCase() !== 'multipart/report' || s.parameters?.['report-type']?.toLowerCase() !== 'delivery-status') return null;
  const kids = s.childNodes ?? [];
  const ds = kids.find((k) => ['message/delivery-status', 'message/global-delivery-status'].includes(k.type?.toLowerCase()));
  const orig = kids.find((k) => ['text/rfc822-headers', 'message/rfc822', 'message/global', 'message/global-headers'].includes(k.type?.toLowerCase()));
  if (!ds?.part || !orig?.part) return null;
  if ((ds.size ?? 0) > maxBytes) return 'oversized';
  const isMessage = orig.type.toLowerCase() === 'message/rfc822' || orig.type.toLowerCase() === 'message/global';
  if (!isMessage && (orig.size ?? 0) > maxBytes) return 'oversized';
  return { dsPart: ds.part, dsEncoding: ds.encoding, headersPart: isMessage ? `${orig.part}.HEADER` : orig.part };
}

/** An imapflow error in words: its message and the server's answer (`Command failed: [AUTHENTICATIONFAILED] …`). */
function imapErrorText(err: unknown): string {
  const e = err as { message?: string; responseText?: string };
  const message = e.message ?? String(err);
  return e.responseText && !message.includes(e.responseText) ? `${message}: ${e.responseText}` : message;
}

function decode(buf: Buffer, encoding: string | undefined): string {
  const e = (encoding ?? '').toLowerCase();
  if (e === 'base64') return Buffer.from(buf.toString('latin1').replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    return Buffer.from(
      buf
        .toString('latin1')
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    ).toString('utf8');
  }
  return buf.toString('utf8');
}

export function createBouncePoller(deps: {
  store: BounceStore;
  box: SecretBox;
  clock: MailClock;
  logger: Logger;
  tls?: tls.ConnectionOptions;
  options?: Partial<BounceOptions>;
}) {
  const { store, box, clock, logger } = deps;
  const o = { ...DEFAULT_BOUNCES, ...deps.options };
  let timer: unknown = null;
  let closed = false;
  let running: Promise<unknown> | null = null;
  /** The pass in progress of each profile: whoever asks meanwhile joins it. */
  const inflight = new Map<string, Promise<CheckOutcome>>();

  async function client(p: ProfileRow): Promise<ImapFlow> {
    const { ImapFlow } = await imapflow();
    const pass = p.imap_password === null ? '' : (box.open(p.imap_password, p.key, 'imap') ?? '');
    const c = new ImapFlow({
      host: p.imap_host!,
      port: p.imap_port!,
      secure: p.imap_secure === 1,
      doSTARTTLS: p.imap_secure === 1 ? undefined : true,
      auth: { user: p.imap_user!, pass },
      tls: { ...(net.isIP(p.imap_host!) ? {} : { servername: p.imap_host! }), ...withTrustedCa(deps.tls, p.tls_ca) },
      logger: false,
      disableAutoIdle: true,
      connectionTimeout: o.timeoutMs,
      greetingTimeout: o.timeoutMs,
      socketTimeout: o.timeoutMs * 2,
    });
    c.on('error', () => {}); // surfaced through the awaited calls
    return c;
  }

  /** Connects and opens the folder read-only; the UIDVALIDITY as a string. */
  async function open(p: ProfileRow, expectValidity: string | null): Promise<{ c: ImapFlow; validity: string; uidNext: number; esearch: boolean }> {
    const c = await client(p);
    try {
      await c.connect();
      const box = await c.mailboxOpen(p.imap_folder!, { readOnly: true });
      const validity = String(box.uidValidity);
      if (expectValidity !== null && validity !== expectValidity) throw new CheckError('open_failed', 'UIDVALIDITY changed during reconnection');
      return { c, validity, uidNext: box.uidNext, esearch: c.capabilities.has('ESEARCH') };
    } catch (err) {
      await c.logout().catch(() => c.close());
      if (err instanceof CheckError) throw err;
      throw new CheckError('open_failed', describeTlsFailure(err) ?? imapErrorText(err));
    }
  }
  const closeClient = async (c: ImapFlow) => {
    await c.logout().catch(() => c.close());
  };

  async function search(s: Awaited<ReturnType<typeof open>>, cursor: number | null): Promise<{ uids: number[]; emptyUpTo: number | null }> {
    // imapflow answers a failed or unanswered search with `false` instead of throwing: that is a failure, never "no messages".
    const uidSearch = async (query: Parameters<ImapFlow['search']>[0]): Promise<number[]> => {
      const r = await s.c.search(query, { uid: true });
      if (r === false) throw new CheckError('search_failed', 'the IMAP server did not answer the UID search');
      return r as number[];
    };
    try {
      if (cursor === null) {
        const r = await uidSearch({ since: new Date(clock.now() - o.lookbackMs) });
        return { uids: r.sort((a, b) => a - b), emptyUpTo: null };
      }
      if (s.esearch) {
        const r = await uidSearch({ uid: `${cursor + 1}:*` });
        // `n:*` also returns the newest message when n is above the highest UID: keep only UIDs above the cursor.
        return { uids: r.filter((u) => u > cursor).sort((a, b) => a - b), emptyUpTo: null };
      }
      // Without ESEARCH: bounded UID windows up to UIDNEXT; windows found empty advance the cursor.
      let from = cursor + 1;
      while (from < s.uidNext) {
        const to = Math.min(from + o.windowSize - 1, s.uidNext - 1);
        const r = await uidSearch({ uid: `${from}:${to}` });
        const uids = r.filter((u) => u > cursor && u >= from && u <= to).sort((a, b) => a - b);
        if (uids.length) return { uids, emptyUpTo: from - 1 > cursor ? from - 1 : null };
        from = to + 1;
      }
      return { uids: [], emptyUpTo: s.uidNext - 1 > cursor ? s.uidNext - 1 : null };
    } catch (err) {
      if (err instanceof CheckError) throw err;
      throw new CheckError('search_failed', (err as Error).message);
    }
  }

  /** Fetches and applies one message (counted in `n`). Throws on read failures. */
  async function processUid(c: ImapFlow, uid: number, p: ProfileRow, n: Counts): Promise<void> {
    const meta = await c.fetchOne(String(uid), { uid: true, bodyStructure: true }, { uid: true });
    // imapflow answers without throwing when the connection is already gone: a read failure, not "no message".
    if (!c.mailbox) throw new Error('the IMAP connection closed before the message was read');
    if (!meta) return; // expunged since the search
    const parts = reportParts(meta.bodyStructure, o.maxPartBytes);
    if (parts === null) return;
    if (parts === 'oversized') {
      n.skipped++;
      logger.warn({ profile: p.key, uid }, 'bounce collection: delivery report part above 64 KiB skipped');
      return;
    }
    const msg = await c.fetchOne(
      String(uid),
      {
        uid: true,
        bodyParts: [
          { key: parts.dsPart, maxLength: o.maxPartBytes + 1 },
          { key: parts.headersPart, maxLength: o.maxPartBytes + 1 },
        ],
      },
      { uid: true },
    );
    if (!c.mailbox) throw new Error('the IMAP connection closed before the message was read');
    if (!msg) return;
    const dsRaw = msg.bodyParts?.get(parts.dsPart.toLowerCase()) ?? msg.bodyParts?.get(parts.dsPart);
    const hdrRaw = msg.bodyParts?.get(parts.headersPart.toLowerCase()) ?? msg.bodyParts?.get(parts.headersPart);
    if (!dsRaw || !hdrRaw) return;
    if (dsRaw.length > o.maxPartBytes || hdrRaw.length > o.maxPartBytes) {
      n.skipped++;
      logger.warn({ profile: p.key, uid }, 'bounce collection: delivery report part above 64 KiB skipped');
      return;
    }
    n.reports++;
    await apply(decode(dsRaw, parts.dsEncoding), hdrRaw.toString('utf8'), n);
  }

  async function apply(dsText: string, headers: string, n: Counts): Promise<void> {
    const ds = parseDeliveryStatus(dsText);
    const messageId = headerValue(headers, 'Message-ID');
    if (!messageId) return;
    try {
      const row = await store.findMessage(messageId);
      if (!row || (row.status !== 'sent' && row.status !== 'bounced')) return;
      // Hearth sends with ENVID = the send-log ID: a report whose Original-Envelope-Id names another record (a
      // forwarded or forged report quoting someone else's Message-ID) is not applied.
      if (ds.envelopeId !== null && ds.envelopeId !== row.id) {
        logger.warn({ messageId: row.id }, 'bounce collection: report skipped: its Original-Envelope-Id names another message');
        return;
      }
      n.matched++;
      const rcpt = JSON.parse(row.recipients) as { to: string[]; cc: string[]; bcc: string[] };
      const stored = [...rcpt.to, ...rcpt.cc, ...rcpt.bcc];
      const failures = JSON.parse(row.failures) as Array<{ recipient: string; reason: string; kind: string }>;
      let changed = false;
      for (const r of ds.recipients) {
        if (r.action !== 'failed') continue;
        const addr = r.finalRecipient ?? r.originalRecipient;
        const match = addr ? stored.find((s) => s.toLowerCase() === addr.toLowerCase()) : undefined;
        if (!match) continue;
        const reason = r.diagnosticCode ?? r.status ?? 'failed';
        if (failures.some((f) => f.kind === 'bounced' && f.recipient === match && f.reason === reason)) continue;
        if (failures.length >= MAX_FAILURES) break;
        failures.push({ recipient: match, reason, kind: 'bounced' });
        changed = true;
        n.recorded++;
      }
      if (changed) await store.applyBounce(row.id, JSON.stringify(failures), clock.now());
    } catch (err) {
      throw new CheckError('apply_failed', (err as Error).message);
    }
  }

  /** One profile's check: its outcome (the status is saved; only a failure to save it is `save_failed`). */
  async function checkProfile(p: ProfileRow, deadline: number): Promise<CheckOutcome> {
    const n: Counts = { messages: 0, reports: 0, matched: 0, recorded: 0, skipped: 0, more: false };
    let detail: string | null = null;
    const mailbox: MailboxIdentity = { key: p.key, imap_host: p.imap_host!, imap_port: p.imap_port!, imap_user: p.imap_user!, imap_folder: p.imap_folder! };
    let cursor = p.imap_cursor;
    let validity = p.imap_uidvalidity;
    const save = async () => {
      try {
        await store.saveProgress(mailbox, validity, cursor);
      } catch (err) {
        throw new CheckError('save_failed', (err as Error).message);
      }
    };
    let session: Awaited<ReturnType<typeof open>> | null = null;
    let error: BounceError | null = null;
    try {
      session = await open(p, null);
      if (validity !== session.validity) {
        // First run, or the mailbox was recreated: restart from the last seven days.
        validity = session.validity;
        cursor = null;
      }
      const found = await search(session, cursor);
      if (found.emptyUpTo !== null) {
        cursor = found.emptyUpTo;
        await save();
      }
      n.more = found.uids.length > o.perProfile;
      for (const uid of found.uids.slice(0, o.perProfile)) {
        if (closed || clock.now() >= deadline) throw new CheckError('interrupted', closed ? 'Core is shutting down' : 'the four-minute budget is spent');
        n.messages++;
        let done = false;
        for (let attempt = 0; attempt < 2 && !done; attempt++) {
          try {
            await processUid(session.c, uid, p, n);
            done = true;
          } catch (err) {
            if (err instanceof CheckError) throw err;
            // A read failure: retry once on a new connection, then skip the UID with a warning and go on with another one.
            await closeClient(session.c);
            session = null;
            session = await open(p, validity);
            if (attempt === 1) {
              n.skipped++;
              logger.warn({ profile: p.key, uid }, 'bounce collection: message could not be read twice; skipped');
            }
          }
        }
        cursor = uid;
        await save();
      }
      if (cursor === null) {
        // Nothing in the look-back window: start after the newest UID next time.
        cursor = Math.max(0, session.uidNext - 1);
        await save();
      }
    } catch (err) {
      error = err instanceof CheckError ? err.code : 'open_failed';
      detail = describeTlsFailure(err) ?? (err as Error).message;
      logger.warn({ profile: p.key, error, detail }, 'bounce collection check failed');
    } finally {
      if (session) await closeClient(session.c);
    }
    const at = clock.now();
    try {
      await store.saveStatus(mailbox, at, error);
    } catch (err) {
      logger.error({ profile: p.key, err }, 'bounce collection: cannot save the check status');
      error = 'save_failed';
      detail = (err as Error).message;
    }
    const outcome: CheckOutcome = { profile: p.key, checkedAt: new Date(at).toISOString(), error, detail, ...n };
    logger.info({ ...outcome }, 'bounce collection check');
    return outcome;
  }

  /** The profile's pass: the one in progress (joined), or a new one. Never two at once for a profile. */
  function passOf(p: ProfileRow, deadline: number): { outcome: Promise<CheckOutcome>; joined: boolean } {
    const current = inflight.get(p.key);
    if (current) {
      logger.info({ profile: p.key }, 'bounce collection: joining the check in progress');
      return { outcome: current, joined: true };
    }
    const outcome = checkProfile(p, deadline).finally(() => inflight.delete(p.key));
    inflight.set(p.key, outcome);
    return { outcome, joined: false };
  }

  /** One tick: every enabled profile, one after another, within the budget. */
  async function tick(): Promise<Record<string, BounceError | null>> {
    const start = clock.now();
    const results: Record<string, BounceError | null> = {};
    for (const p of await store.enabled()) {
      if (closed || clock.now() - start >= o.budgetMs) break; // leftover profiles wait for the next tick
      results[p.key] = (await passOf(p, start + o.budgetMs).outcome).error;
    }
    return results;
  }

  /**
   * One pass for one profile now (or the one in progress, `joined`), within the same four-minute budget as a tick;
   * null when the profile does not exist or has no bounce collection. After shutdown began: `interrupted`.
   */
  async function checkNow(key: string): Promise<(CheckOutcome & { joined: boolean }) | null> {
    const p = await store.enabledOne(key);
    if (!p) return null;
    if (closed && !inflight.has(key)) {
      return {
        profile: key,
        joined: false,
        checkedAt: new Date(clock.now()).toISOString(),
        error: 'interrupted',
        detail: 'Core is shutting down',
        messages: 0,
        reports: 0,
        matched: 0,
        recorded: 0,
        skipped: 0,
        more: false,
      };
    }
    const { outcome, joined } = passOf(p, clock.now() + o.budgetMs);
    return { ...(await outcome), joined };
  }

  function schedule(): void {
    if (closed) return;
    timer = clock.setTimeout(() => {
      running = tick()
        .catch((err) => logger.error({ err }, 'bounce collection failed'))
        .finally(() => {
          running = null;
          schedule();
        });
    }, o.intervalMs);
  }

  return {
    tick,
    checkNow,
    start: schedule,
    async close(): Promise<void> {
      closed = true;
      if (timer !== null) clock.clearTimeout(timer);
      const pending = [running, ...inflight.values()].filter((x) => x !== null);
      if (pending.length) {
        let t: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled(pending), new Promise((r) => (t = setTimeout(r, o.graceMs)))]);
        clearTimeout(t);
      }
    },
  };
}
export type BouncePoller = ReturnType<typeof createBouncePoller>;
