/**
 * The boundary of the SMTP thread: the main thread's side of the worker (`smtp.worker.ts`) that runs the delivery
 * lanes' pool (`smtp-pool.ts`) off the main event loop. It hands an attempt over as a message and resolves the
 * outcome that comes back; it starts the thread at the first attempt and again after the thread died.
 *
 * Main → thread: {type: 'attempt', id, lane, settings, msg, opts}, {type: 'state', id}, {type: 'stop'}, {type: 'close'}.
 * Thread → main: {type: 'outcome', id, outcome}, {type: 'state', id, running, waiting}, {type: 'closed'}.
 */
import type { Worker } from 'node:worker_threads';
import { spawnWorker } from '../../core/runtime.ts';
import type { OutgoingMessage, SmtpOptions, SmtpOutcome, SmtpSettings } from './smtp-attempt.ts';

/** What the SMTP thread is doing: attempts in progress (every lane), immediate-lane attempts waiting for a slot. */
export interface SmtpThreadState {
  running: number;
  waiting: number;
}

/** An attempt handed to the SMTP thread that never started (the thread stopped first): nothing was sent. */
export interface NotStarted {
  kind: 'not_started';
  error: string;
}

/**
 * The delivery lanes' pool in a worker thread of its own (`smtp.worker.ts`), started at the first attempt. The main
 * thread only hands over the message and gets the outcome back; composing, encoding, TLS and the SMTP dialogue of the
 * concurrent attempts run there. Attempts of the immediate lane run at most `immediateSlots` at once: the lane may
 * hand over more (they wait in the thread, in order, and start the moment a slot frees, without a round trip through
 * the main event loop); when the thread stops, those that never started end `not_started`. If the thread dies,
 * attempts in progress end `temporary` (the rows are retried with the same Message-ID: at least once) and the next
 * attempt starts a new thread.
 */
export function createSmtpThread(o: { maxConnections: number; immediateSlots: number; idleMs?: number }) {
  let worker: Worker | null = null;
  let nextId = 1;
  let closed = false;
  const pending = new Map<number, (outcome: SmtpOutcome | NotStarted) => void>();
  /** State questions waiting for their answer (answered in order after every message handed over before them). */
  const asked = new Map<number, (state: SmtpThreadState) => void>();

  const failAll = (why: string) => {
    for (const resolve of pending.values()) resolve({ kind: 'temporary', error: why, response: null });
    pending.clear();
    for (const resolve of asked.values()) resolve({ running: 0, waiting: 0 });
    asked.clear();
  };
  function start(): Worker {
    const w = spawnWorker('mail-smtp', new URL('./smtp.worker.ts', import.meta.url), {
      workerData: { maxConnections: o.maxConnections, immediateSlots: o.immediateSlots, idleMs: o.idleMs },
    });
    w.unref();
    w.on('message', (m: { type: string; id?: number; outcome?: SmtpOutcome | NotStarted } & Partial<SmtpThreadState>) => {
      if (m.type === 'state') {
        asked.get(m.id!)?.({ running: m.running!, waiting: m.waiting! });
        asked.delete(m.id!);
        return;
      }
      if (m.type !== 'outcome') return;
      const resolve = pending.get(m.id!);
      pending.delete(m.id!);
      resolve?.(m.outcome!);
    });
    const gone = (why: string) => {
      if (worker === w) worker = null;
      failAll(why);
    };
    w.on('error', (err) => gone(`the SMTP thread failed: ${err.message}`));
    w.on('exit', (code) => gone(`the SMTP thread stopped (exit code ${code})`));
    return w;
  }

  return {
    attempt(settings: SmtpSettings, msg: OutgoingMessage, opts: SmtpOptions = {}, lane: 'immediate' | 'bulk' = 'bulk'): Promise<SmtpOutcome | NotStarted> {
      if (closed) return Promise.resolve({ kind: 'not_started', error: 'outgoing mail is shutting down' });
      worker ??= start();
      const id = nextId++;
      // An attachment read for this attempt alone is handed over, not copied, when it owns its memory.
      const transfer = (msg.attachments ?? [])
        .map((a) => a.content)
        .filter((b) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer)
        .map((b) => b.buffer as ArrayBuffer);
      return new Promise<SmtpOutcome | NotStarted>((resolve) => {
        pending.set(id, resolve);
        try {
          worker!.postMessage({ type: 'attempt', id, lane, settings, msg, opts }, [...new Set(transfer)]);
        } catch (err) {
          pending.delete(id);
          resolve({ kind: 'not_started', error: `the SMTP thread could not take the message: ${(err as Error).message}` });
        }
      });
    },
    /**
     * What the thread is doing once it has taken every attempt handed over so far (tests, diagnostics); nothing while
     * no thread runs.
     */
    state(): Promise<SmtpThreadState> {
      const w = worker;
      if (!w) return Promise.resolve({ running: 0, waiting: 0 });
      const id = nextId++;
      return new Promise<SmtpThreadState>((resolve) => {
        asked.set(id, resolve);
        w.postMessage({ type: 'state', id });
      });
    },
    /** No attempt starts any more: those waiting in the thread end `not_started` (attempts in progress go on). */
    stop(): void {
      closed = true;
      worker?.postMessage({ type: 'stop' });
    },
    /** Attempts not started yet end `not_started`; idle sessions get QUIT; attempts in progress get a second. */
    async close(): Promise<void> {
      closed = true;
      const w = worker;
      worker = null;
      if (!w) return;
      // Waiting attempts answer at once, attempts in progress when they end (for at most a second); the QUIT of the
      // idle sessions gets a moment to leave.
      await new Promise<void>((resolve) => {
        let quitSent = false;
        const done = () => {
          clearTimeout(timer);
          setTimeout(resolve, 50);
        };
        const timer = setTimeout(resolve, 1000);
        w.on('message', (m: { type: string }) => {
          if (m.type === 'closed') quitSent = true;
          if (quitSent && pending.size === 0) done();
        });
        w.postMessage({ type: 'close' });
      });
      await w.terminate();
      failAll('outgoing mail is shutting down');
    },
  };
}
