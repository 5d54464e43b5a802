/**
 * Live change events: `GET /v1/{ns}/subscribe` (server-sent events).
 *
 * One `SseStream` per open response. Events reach a stream through the namespace's `EventBus` channel; each event
 * is formatted once (cached per event) and every stream writes it on the next turn of the event loop, so a burst of
 * events costs each subscriber one socket write. A stream whose client does not read keeps its events in a queue;
 * when that queue (plus what Node still buffers for the socket) would pass `maxQueueBytes`, the connection is cut:
 * memory per subscriber is bounded and the others never wait for it (they do not share a queue).
 *
 * Tunables (given by the server from its configuration, server/core/config — the variables below; defaults here):
 *   keepaliveMs    HEARTH_SSE_KEEPALIVE_MS     25000     keepalive comment interval
 *   maxQueueBytes  HEARTH_SSE_MAX_QUEUE_BYTES  1048576   backlog per subscriber before it is dropped
 *   retryMs        HEARTH_SSE_RETRY_MS         3000      `retry:` hint sent at connection
 * and, for the replay buffer (see bus.ts), HEARTH_SSE_BUFFER_EVENTS (1000) and HEARTH_SSE_BUFFER_BYTES (4 MiB).
 *
 * Shutdown: `close()` ends every stream. Because the HTTP server waits for open connections before the services
 * are closed, open streams also end by themselves as soon as their server stops listening (checked every 200 ms).
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { z } from 'zod';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import { NsParams, openTenant } from '../plane.ts';
import { IDENTIFIER, requireObject } from '../schema/catalog.ts';
import type { EndReason, EventBus, StoredEvent } from './bus.ts';

export interface EventRouteOptions {
  keepaliveMs?: number;
  maxQueueBytes?: number;
  retryMs?: number;
}

const DEFAULTS = { keepaliveMs: 25_000, maxQueueBytes: 1024 * 1024, retryMs: 3000 };
/** Below this, queued frames wait for the next event-loop turn (coalescing a burst into one write). */
const FLUSH_NOW_BYTES = 64 * 1024;
/** How often open streams check whether their HTTP server has begun shutting down. */
const SHUTDOWN_POLL_MS = 200;

const SubscribeQuery = z
  .object({
    tables: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .meta({
        description:
          'Comma-separated tables (or views) to follow; absent = every table, including tables created later. Each must exist when subscribing (404 `table_not_found`).',
        example: 'orders,customers',
      }),
    last_event_id: z
      .string()
      .max(100)
      .optional()
      .meta({ description: 'Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins).' }),
  })
  .strict();

const DESCRIPTION = `Server-sent events (\`text/event-stream\`) for the changes committed in the namespace.

**Connection.** \`Accept\` must allow \`text/event-stream\` (\`*/*\` or no \`Accept\` is fine; otherwise 406 \`not_acceptable\`). The server answers at once with \`: connected\` (a comment), a \`retry:\` hint and, unless the client is resuming, an \`id:\` line with the current position; then a \`: keepalive\` comment every 25 seconds. The client unsubscribes by closing the request. The stream ends when the server shuts down (reconnect later).

**Events.** Each event is \`id: <id>\`, \`event: <action>\`, \`data: <json>\` where the data is \`{table, action, row, _meta, timestamp}\` (\`timestamp\` UTC ISO 8601; \`_meta.actor\` is the actor given in the mutating request, or the calling token). Event names:
- rows: \`insert\`, \`update\`, \`delete\` (\`row\` is the row; for \`delete\` the row as it was);
- schema: \`create_table\`, \`update_table\`, \`drop_table\`, \`create_view\`, \`drop_view\`, \`create_index\`, \`drop_index\` (\`table\` is the table or view, \`row\` is null; the schema changelog has the details);
- \`reset\`: data \`{reason: "events_lost", last_event_id}\` — the id the client resumed from is unknown (another server run) or older than the buffer: events were missed, reload the data.

**Filter.** \`tables=a,b\` delivers only events whose \`table\` is listed (row events and schema events of those tables). Without \`tables\`, every event is delivered, including \`create_table\` of new tables.

**Resuming.** Ids are \`<epoch>-<seq>\`: \`epoch\` identifies the server run and \`seq\` increases (with gaps) within a namespace. A client that reconnects with \`Last-Event-ID\` (browsers' \`EventSource\` does so by itself) first receives the events it missed, from a buffer of the last 1000 events (at most 4 MiB; server defaults) per namespace, else one \`reset\` event. The buffer lives in memory only: ids do not survive a restart (they are answered with \`reset\`).

**Slow clients.** A subscriber that stops reading is disconnected once 1 MiB of events (server default) waits for it, beyond a replay it asked for; other subscribers are not affected. It may reconnect with \`Last-Event-ID\`.`;

export function registerEventRoutes(api: Api, deps: { namespaces: NamespaceService; events: EventBus } & EventRouteOptions): { close(): void } {
  const { namespaces, events } = deps;
  const opts = {
    keepaliveMs: deps.keepaliveMs ?? DEFAULTS.keepaliveMs,
    maxQueueBytes: deps.maxQueueBytes ?? DEFAULTS.maxQueueBytes,
    retryMs: deps.retryMs ?? DEFAULTS.retryMs,
  };
  const hub = new Hub(opts, events);

  api.route({
    method: 'get',
    path: '/v1/:ns/subscribe',
    operationId: 'subscribe',
    tags: ['Events'],
    access: 'authenticated',
    summary: 'Subscribe to change events (server-sent events)',
    description: DESCRIPTION,
    params: NsParams,
    query: SubscribeQuery,
    responses: {
      200: { description: 'An endless `text/event-stream`.', contentType: 'text/event-stream', schema: z.string() },
      400: { description: 'Invalid query (`invalid_request`) or table name (`invalid_identifier`).' },
      403: { description: 'The token may not use this namespace (`forbidden`).' },
      404: { description: 'No such namespace or table (`namespace_not_found`, `table_not_found`).' },
      406: { description: '`Accept` excludes `text/event-stream` (`not_acceptable`).' },
      503: { description: 'The server is shutting down (`service_unavailable`).' },
    },
    handler: (ctx, { params, query }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'read');
      const tables = parseTables(query.tables);
      for (const name of tables ?? []) requireObject(t.db, name);
      if (!ctx.accepts('text/event-stream')) {
        throw new HearthError('not_acceptable', 'this endpoint answers text/event-stream only: send Accept: text/event-stream (or */*)');
      }
      const server = (ctx.req.socket as Socket & { server?: Server }).server;
      if (hub.closed || server?.listening === false) throw new HearthError('service_unavailable', 'the server is shutting down');
      if (ctx.method === 'HEAD') {
        ctx.status = 200;
        ctx.set(SSE_HEADERS);
        return undefined;
      }
      const lastEventId = ctx.get('last-event-id').trim() || query.last_event_id?.trim() || undefined;
      hub.open(ctx, { ns: t.ns, tables: tables ? new Set(tables) : null, lastEventId, server });
      return undefined;
    },
  });

  return { close: () => hub.close() };
}

function parseTables(raw: string | string[] | undefined): string[] | null {
  if (raw === undefined) return null;
  const names = (Array.isArray(raw) ? raw.join(',') : raw).split(',').map((s) => s.trim());
  for (const n of names) {
    if (!IDENTIFIER.test(n)) {
      throw new HearthError(
        'invalid_identifier',
        `tables: ${quoteInput(n)} is not a valid table name (comma-separated identifiers: letters, digits and underscores)`,
      );
    }
  }
  return [...new Set(names)];
}

// ---------------------------------------------------------------------------------------------------------------

interface Frame {
  text: string;
  bytes: number;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
};

const frames = new WeakMap<StoredEvent, Frame>();
const KEEPALIVE: Frame = { text: ': keepalive\n\n', bytes: 13 };

/** The SSE frame of an event, built once however many subscribers receive it. */
function frameOf(e: StoredEvent): Frame {
  let f = frames.get(e);
  if (!f) {
    const head = `id: ${e.id}\nevent: ${/[\r\n]/.test(e.action) ? e.action.replace(/[\r\n]/g, ' ') : e.action}\ndata: `;
    f = { text: `${head}${e.data}\n\n`, bytes: Buffer.byteLength(head) + e.bytes + 2 };
    frames.set(e, f);
  }
  return f;
}

/** Every open stream of one registration: the shared flush, keepalive and shutdown watch. */
class Hub {
  readonly streams = new Set<SseStream>();
  private readonly dirty = new Set<SseStream>();
  private immediate: NodeJS.Immediate | null = null;
  private keepalive: NodeJS.Timeout | null = null;
  private watch: NodeJS.Timeout | null = null;
  closed = false;
  readonly opts: Required<Omit<EventRouteOptions, 'env'>>;
  private readonly bus: EventBus;

  constructor(opts: Required<Omit<EventRouteOptions, 'env'>>, bus: EventBus) {
    this.opts = opts;
    this.bus = bus;
  }

  open(ctx: AppContext, o: { ns: string; tables: Set<string> | null; lastEventId: string | undefined; server: Server | undefined }): void {
    const res = ctx.res;
    const socket = ctx.req.socket;
    if (socket.destroyed || res.destroyed) {
      ctx.respond = false; // the client is already gone: nothing to answer
      return;
    }
    ctx.req.setTimeout(0);
    socket.setKeepAlive(true, 30_000);
    ctx.status = 200;
    ctx.set(SSE_HEADERS);
    ctx.respond = false; // the stream is written here, not by Koa
    const stream = new SseStream(this, res, socket, o.server, o.ns, ctx.state.log);
    const filter = o.tables;
    // Subscribing and replaying happen in the same synchronous step: nothing falls between them.
    const sub = this.bus.subscribe(
      o.ns,
      (e) => {
        if (filter && !filter.has(e.table)) return;
        const f = frameOf(e);
        stream.push(f.text, f.bytes);
      },
      { lastEventId: o.lastEventId, onEnd: (reason) => stream.end(reason) },
    );
    stream.unsubscribe = sub.unsubscribe;
    this.streams.add(stream);
    res.on('close', () => stream.closed());
    res.on('error', () => stream.closed());

    let hello = `: connected\n\nretry: ${this.opts.retryMs}\n`;
    if (o.lastEventId === undefined) hello += `id: ${sub.cursor}\n`;
    hello += '\n';
    if (sub.missed === null) {
      hello += `id: ${sub.cursor}\nevent: reset\ndata: ${JSON.stringify({ reason: 'events_lost', last_event_id: o.lastEventId })}\n\n`;
    }
    // Headers and the connection comment leave at once; a replay follows in the same write.
    res.flushHeaders();
    stream.push(hello, Buffer.byteLength(hello));
    const replay = (sub.missed ?? []).filter((e) => !filter || filter.has(e.table)).map(frameOf);
    // The replay (at most the bus's buffer) may exceed the limit by itself: it is allowed on top of the limit
    // until the client has taken it, so a reconnecting client is not dropped for what it asked for.
    stream.preload(replay);
    stream.flush();
    this.startTimers();
  }

  schedule(s: SseStream): void {
    this.dirty.add(s);
    this.immediate ??= setImmediate(() => {
      this.immediate = null;
      const list = [...this.dirty];
      this.dirty.clear();
      for (const st of list) st.flush();
    });
  }

  forget(s: SseStream): void {
    this.streams.delete(s);
    this.dirty.delete(s);
    if (this.streams.size === 0) this.stopTimers();
  }

  dropped(s: SseStream, backlog: number): void {
    this.bus.droppedSubscribers++;
    s.log.warn(
      { ns: s.ns, backlogBytes: backlog, limit: this.opts.maxQueueBytes },
      'SSE subscriber dropped: it stopped reading and its backlog reached the limit',
    );
  }

  private startTimers(): void {
    if (this.streams.size === 0) return;
    this.keepalive ??= setInterval(() => {
      for (const s of this.streams) s.keepalive();
    }, this.opts.keepaliveMs).unref();
    // Shutdown: the HTTP server stops listening before it waits for open connections; end ours so it need not wait.
    this.watch ??= setInterval(() => {
      for (const s of this.streams) if (s.server?.listening === false) s.end('server_closing');
    }, SHUTDOWN_POLL_MS).unref();
  }

  private stopTimers(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    if (this.watch) clearInterval(this.watch);
    this.keepalive = this.watch = null;
  }

  /** Ends every open stream (server shutdown). */
  close(): void {
    this.closed = true;
    for (const s of [...this.streams]) s.end('server_closing');
    this.stopTimers();
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = null;
  }
}

class SseStream {
  /** Frames accepted but not yet handed to the socket (waiting for the next turn, or for `drain`). */
  private pending: string[] = [];
  private pendingBytes = 0;
  private blocked = false;
  private done = false;
  /** Bytes allowed over `maxQueueBytes` while a replay is on its way (0 once the client has caught up). */
  private allowance = 0;
  unsubscribe: () => void = () => {};
  private readonly hub: Hub;
  private readonly res: ServerResponse;
  private readonly socket: Socket;
  readonly server: Server | undefined;
  readonly ns: string;
  readonly log: Logger;

  constructor(hub: Hub, res: ServerResponse, socket: Socket, server: Server | undefined, ns: string, log: Logger) {
    this.hub = hub;
    this.res = res;
    this.socket = socket;
    this.server = server;
    this.ns = ns;
    this.log = log;
    res.on('drain', () => {
      this.blocked = false;
      this.flush();
      if (!this.blocked && this.pending.length === 0) this.allowance = 0; // caught up: the replay has left
    });
  }

  push(text: string, bytes: number): void {
    if (this.done) return;
    const backlog = this.pendingBytes + this.res.writableLength;
    // A subscriber that is caught up may receive one event larger than the limit; a backlog may not grow past it.
    if (backlog > 0 && backlog + bytes > this.hub.opts.maxQueueBytes + this.allowance) {
      this.hub.dropped(this, backlog + bytes);
      this.finish();
      this.socket.destroy();
      return;
    }
    this.pending.push(text);
    this.pendingBytes += bytes;
    if (this.blocked) return;
    if (this.pendingBytes >= FLUSH_NOW_BYTES) this.flush();
    else this.hub.schedule(this);
  }

  /** Queues a replay without the limit check; the limit then applies on top of it until the client catches up. */
  preload(replay: Frame[]): void {
    for (const f of replay) {
      this.pending.push(f.text);
      this.pendingBytes += f.bytes;
      this.allowance += f.bytes;
    }
  }

  flush(): void {
    if (this.done || this.blocked || this.pending.length === 0) return;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.res.write(text)) this.blocked = true;
    else if (this.allowance && this.res.writableLength === 0) this.allowance = 0; // the replay has left
  }

  keepalive(): void {
    // A blocked stream has data on the way already; a keepalive would only add to its backlog.
    if (!this.blocked && this.pending.length === 0) this.push(KEEPALIVE.text, KEEPALIVE.bytes);
  }

  /** Ends the response on our side: server shutdown or the namespace went away. */
  end(reason: EndReason | 'server_closing'): void {
    if (this.done) return;
    this.flush();
    this.finish();
    if (this.res.writableLength > 0 || this.blocked) {
      this.socket.destroy(); // it is not reading: do not wait for it
      return;
    }
    this.res.end();
    // The connection served only this stream; at shutdown, close it rather than leave it idle.
    if (reason !== 'namespace_gone') this.res.once('finish', () => this.socket.end());
  }

  /** The response closed (client went away, or after end/destroy). */
  closed(): void {
    this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.unsubscribe();
    this.hub.forget(this);
  }
}
