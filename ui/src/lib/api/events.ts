/**
 * Live change events of a namespace (`GET /v1/{ns}/subscribe`, server-sent events). The browser's
 * EventSource cannot send an Authorization header, so the stream is read with fetch (at the document's address) and
 * parsed here;
 * a dropped connection is resumed with `Last-Event-ID` after the server's `retry:` delay.
 */
import type { ChangeEvent as ServerChangeEvent } from '../../../../server/db/events/bus.ts';
import { type ApiError, apiUrl, authHeaders, credentials, fetchCredentials, toApiError } from './client.ts';

/**
 * One event as the server publishes it (`data:` of the stream). The OpenAPI document describes the stream as text,
 * so this type is the server's own (a type-only import).
 */
type Published = ServerChangeEvent;

/** One event as handed to the page: the published fields (null when absent), the SSE `id:` and the raw data. */
export interface ChangeEvent {
  /** The SSE `id:` (`<epoch>-<seq>`), or null. */
  id: string | null;
  /** The SSE `event:` name: insert, update, delete, import, create_table… or reset. */
  action: Published['action'];
  table: Published['table'] | null;
  /** Bulk actions may carry several rows. */
  row: Published['row'] | Array<NonNullable<Published['row']>>;
  _meta: (Published['_meta'] & { actor?: string }) | null;
  timestamp: Published['timestamp'] | null;
  /** Parsed `data:` as sent. */
  data: unknown;
}

export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface SubscribeOptions {
  tables?: string[];
  onevent: (e: ChangeEvent) => void;
  onstatus?: (s: StreamStatus, detail?: string) => void;
  /** A failure that will not go away by retrying (404, 403…): the stream stops. */
  onfatal?: (err: ApiError) => void;
}

export interface SseMessage {
  id: string | null;
  event: string;
  data: string;
  retry: number | null;
}

/**
 * Incremental parser of the `text/event-stream` format: feed it text chunks as they arrive, it calls
 * `emit` for each complete event. Comments (`: connected`, `: keepalive`) are skipped; an `id:` without
 * data still moves the last event id (as the spec says).
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  private retry: number | null = null;
  lastEventId: string | null = null;
  private readonly emit: (m: SseMessage) => void;

  constructor(emit: (m: SseMessage) => void) {
    this.emit = emit;
  }

  push(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (m[0] === '\r' && m.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retry = Number(value);
  }

  private dispatch(): void {
    if (this.id !== null) this.lastEventId = this.id;
    const retry = this.retry;
    this.retry = null;
    if (this.data.length === 0) {
      if (retry !== null) this.emit({ id: this.lastEventId, event: '', data: '', retry });
      this.event = '';
      this.id = null;
      return;
    }
    const msg: SseMessage = { id: this.lastEventId, event: this.event || 'message', data: this.data.join('\n'), retry };
    this.data = [];
    this.event = '';
    this.id = null;
    this.emit(msg);
  }
}

/** Opens the subscription; returns a function that closes it. */
export function subscribe(ns: string, opts: SubscribeOptions): () => void {
  const ctrl = new AbortController();
  let stopped = false;
  let lastEventId: string | null = null;
  let retryMs = 3000;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const status = (s: StreamStatus, detail?: string) => {
    if (!stopped || s === 'closed') opts.onstatus?.(s, detail);
  };

  async function connect(first: boolean) {
    status(first ? 'connecting' : 'reconnecting');
    const headers: Record<string, string> = { Accept: 'text/event-stream', ...authHeaders(credentials.token) };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    let res: Response;
    try {
      res = await fetch(apiUrl('/v1/{ns}/subscribe', { path: { ns }, query: { tables: opts.tables?.length ? opts.tables.join(',') : undefined } }), {
        headers,
        signal: ctrl.signal,
        credentials: fetchCredentials(),
        cache: 'no-store',
      });
    } catch (err) {
      if (stopped || (err as Error).name === 'AbortError') return;
      return later('Hearth could not be reached.');
    }
    if (!res.ok) {
      const err = await toApiError(res);
      if (res.status === 503 || res.status === 502 || res.status === 504 || res.status === 429) return later(err.message);
      stopped = true;
      opts.onfatal?.(err);
      opts.onstatus?.('closed', err.message);
      return;
    }
    const parser = new SseParser((m) => {
      if (m.retry !== null) retryMs = m.retry;
      lastEventId = m.id ?? lastEventId;
      if (m.data === '' && m.event === '') return;
      let data: unknown = m.data;
      try {
        data = JSON.parse(m.data);
      } catch {
        // not JSON: keep the text
      }
      const d = (data && typeof data === 'object' ? data : {}) as Partial<Published>;
      opts.onevent({
        id: m.id,
        action: m.event,
        table: typeof d.table === 'string' ? d.table : null,
        row: (d.row ?? null) as ChangeEvent['row'],
        _meta: (d._meta ?? null) as ChangeEvent['_meta'],
        timestamp: typeof d.timestamp === 'string' ? d.timestamp : null,
        data,
      });
    });
    failures = 0;
    status('open');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.push(value);
        lastEventId = parser.lastEventId ?? lastEventId;
      }
    } catch (err) {
      if (stopped || (err as Error).name === 'AbortError') return;
    }
    if (!stopped) later('The connection was closed.');
  }

  function later(reason: string) {
    if (stopped) return;
    failures++;
    // The server's retry hint, growing gently while the server stays away (at most 30 s).
    const delay = Math.min(30_000, retryMs * Math.min(failures, 10));
    status('reconnecting', reason);
    timer = setTimeout(() => void connect(false), delay);
  }

  void connect(true);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    ctrl.abort();
    opts.onstatus?.('closed');
  };
}
