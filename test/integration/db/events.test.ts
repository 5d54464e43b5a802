import net from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartOptions } from '../../../server/boot.ts';
import { type ChangeEvent, EventBus } from '../../../server/db/events/bus.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

const ALL_ACTIONS = [
  'insert',
  'update',
  'delete',
  'create_table',
  'update_table',
  'drop_table',
  'create_view',
  'drop_view',
  'create_index',
  'drop_index',
  'reset',
];

/** A server whose environment is `env` only (startServer's `env`: the machine's own HEARTH_SSE_* never reach it). */
async function startWith(env: Record<string, string>, opts: StartOptions = {}): Promise<TestServer> {
  return startTestServer({ ...opts, env });
}

interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comments: string[];
}

/** A raw `fetch` reader that keeps every byte and parses frames, comments included (EventSource hides those). */
class RawSse {
  text = '';
  frames: Frame[] = [];
  ended = false;
  /** How the response ended: `end` when the server finished it, `cut` when the connection broke (or was aborted). */
  endedBy: 'end' | 'cut' | null = null;
  readonly res: Response;
  private readonly abort: AbortController;
  private rest = '';

  private constructor(res: Response, abort: AbortController) {
    this.res = res;
    this.abort = abort;
    void this.pump();
  }

  static async open(s: TestServer, path: string, headers: Record<string, string> = {}): Promise<RawSse> {
    const abort = new AbortController();
    const res = await s.api(path, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
    expect(res.status).toBe(200);
    return new RawSse(res, abort);
  }

  private async pump(): Promise<void> {
    const reader = this.res.body!.getReader();
    const dec = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          this.endedBy = 'end';
          break;
        }
        const chunk = dec.decode(value, { stream: true });
        this.text += chunk;
        this.rest += chunk;
        let i: number;
        while ((i = this.rest.indexOf('\n\n')) >= 0) {
          const block = this.rest.slice(0, i);
          this.rest = this.rest.slice(i + 2);
          const f: Frame = { comments: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.comments.push(line.slice(1).trim());
            else {
              const c = line.indexOf(':');
              const k = line.slice(0, c) as 'id' | 'event' | 'data' | 'retry';
              f[k] = line.slice(c + 2);
            }
          }
          this.frames.push(f);
        }
      }
    } catch {
      this.endedBy = 'cut'; // aborted, or the connection broke
    }
    this.ended = true;
  }

  get events(): Array<Frame & { json: ChangeEvent & Record<string, unknown> }> {
    return this.frames.filter((f) => f.event !== undefined).map((f) => ({ ...f, json: JSON.parse(f.data!) }));
  }

  async waitEvents(n: number) {
    await until(
      () => this.events.length >= n,
      () => `${n} events (have ${this.events.length}: ${this.text.slice(-300)})`,
    );
    return this.events;
  }

  close(): void {
    this.abort.abort();
  }
}

interface Received {
  type: string;
  id: string;
  data: ChangeEvent & Record<string, unknown>;
}

/**
 * The `eventsource` package as the real client. `cut()` ends the current response from the client side;
 * `holdReconnect()` makes the client's next connection wait at its start (its request not sent yet) until the
 * returned function is called.
 */
function openEventSource(s: TestServer, path: string) {
  const got: Received[] = [];
  const lastEventIds: Array<string | null> = [];
  let cutCurrent: (() => void) | null = null;
  let hold: Promise<void> | null = null;
  const es = new EventSource(s.url + path, {
    fetch: async (input, init) => {
      const headers = new Headers(init.headers as HeadersInit);
      lastEventIds.push(headers.get('last-event-id'));
      if (hold) await hold;
      headers.set('authorization', `Bearer ${s.token}`);
      const res = await fetch(input, { ...init, headers });
      if (!res.body) return res;
      // A pass-through body that the test can end, as if the connection dropped.
      const reader = res.body.getReader();
      let ctrl!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => void (ctrl = c),
        pull: async (c) => {
          try {
            const { done, value } = await reader.read();
            if (done) c.close();
            else c.enqueue(value);
          } catch (err) {
            c.error(err);
          }
        },
        cancel: (why) => reader.cancel(why),
      });
      cutCurrent = () => {
        ctrl.close();
        void reader.cancel();
      };
      return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    },
  });
  for (const type of ALL_ACTIONS) {
    es.addEventListener(type, (e) => got.push({ type, id: e.lastEventId, data: JSON.parse(e.data) }));
  }
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => resolve();
    es.onerror = (e) => {
      if (es.readyState === es.CLOSED) reject(new Error(`EventSource failed: ${e.message ?? e.code}`));
    };
  });
  const holdReconnect = () => {
    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    return () => {
      hold = null;
      release();
    };
  };
  return { es, got, lastEventIds, opened, cut: () => cutCurrent?.(), holdReconnect, close: () => es.close() };
}

function row(table: string, action: string, r: Record<string, unknown>, actor = 'bob'): ChangeEvent {
  return { table, action, row: r, _meta: { actor }, timestamp: new Date().toISOString() };
}

/** `where`: the members naming where a validation error is (`in`, `field`), beside `error` and `message`. */
async function expectEnvelope(res: Response, status: number, code: string, where: { in: string; field?: string } | null = null) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = await res.json();
  expect(body).toEqual({ error: code, message: expect.any(String), ...where });
}

// ---------------------------------------------------------------------------------------------------------------

let s: TestServer;
const open: Array<{ close(): void }> = [];
beforeAll(async () => {
  s = await startWith({ HEARTH_SSE_KEEPALIVE_MS: '150', HEARTH_SSE_RETRY_MS: '50' });
  for (const name of ['shop', 'other', 'filters', 'replay', 'lost', 'es']) {
    expect((await s.api('/v1/namespaces', { method: 'POST', json: { name } })).status).toBe(201);
  }
});
afterAll(async () => {
  for (const o of open) o.close();
  await s.stop();
});

const track = <T extends { close(): void }>(x: T): T => {
  open.push(x);
  return x;
};
const publish = (ns: string, e: ChangeEvent | ChangeEvent[]) => s.services.db.events.publish(ns, e);
const createTable = (ns: string, name: string, actor?: string) =>
  s.api(`/v1/${ns}/tables`, { method: 'POST', json: { type: 'table', name, columns: [{ name: 'x', type: 'text' }], ...(actor ? { _meta: { actor } } : {}) } });

describe('connection', () => {
  it('takes HEARTH_SSE_* from the environment given to startServer, never from the process environment', async () => {
    const saved = process.env.HEARTH_SSE_RETRY_MS;
    process.env.HEARTH_SSE_RETRY_MS = '777';
    let other: TestServer | null = null;
    try {
      other = await startWith({});
      expect((await other.api('/v1/namespaces', { method: 'POST', json: { name: 'iso' } })).status).toBe(201);
      const c = await RawSse.open(other, '/v1/iso/subscribe');
      await until(() => c.frames.length > 1, 'the retry hint');
      expect(c.frames[1]).toMatchObject({ retry: '3000' });
      c.close();
    } finally {
      if (saved === undefined) delete process.env.HEARTH_SSE_RETRY_MS;
      else process.env.HEARTH_SSE_RETRY_MS = saved;
      await other?.stop();
    }
  });

  it('answers with SSE headers and the connection comment at once, then keepalives', async () => {
    const c = track(await RawSse.open(s, '/v1/shop/subscribe'));
    expect(c.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(c.res.headers.get('cache-control')).toBe('no-store');
    expect(c.res.headers.get('x-accel-buffering')).toBe('no');
    expect(c.res.headers.get('connection')).toBe('keep-alive');
    expect(c.res.headers.get('x-request-id')).toBeTruthy();
    await until(() => c.frames.length >= 2, 'the connection comment and the position');
    expect(c.text.startsWith(': connected\n\n')).toBe(true);
    // retry hint and the current position as an id-only block (no event fired)
    expect(c.frames[1]).toMatchObject({ retry: '50', id: expect.stringMatching(/^[0-9a-z]+-\d+$/) });
    expect(c.frames[1]!.event).toBeUndefined();
    await until(() => c.frames.some((f) => f.comments.includes('keepalive')), 'a keepalive comment');
    expect(c.frames.slice(2).every((f) => f.comments.length === 1 && f.comments[0] === 'keepalive' && f.id === undefined)).toBe(true);
    expect(c.events).toEqual([]);
    c.close();
  });

  it('sends the connection comment and the position by themselves: no event published, no keepalive due', async () => {
    // Its first keepalive is an hour away, and nothing is published to the namespace: whatever arrives was sent when
    // the stream opened (not held back until some later write pushed it out).
    const quiet = await startWith({ HEARTH_SSE_KEEPALIVE_MS: String(60 * 60_000) });
    try {
      expect((await quiet.api('/v1/namespaces', { method: 'POST', json: { name: 'calm' } })).status).toBe(201);
      const c = await RawSse.open(quiet, '/v1/calm/subscribe');
      await until(() => c.frames.length >= 2, 'the connection comment and the position');
      expect(c.frames).toEqual([
        { comments: ['connected'] },
        { comments: [], retry: '3000', id: expect.stringMatching(new RegExp(`^${quiet.services.db.events.epoch}-\\d+$`)) },
      ]);
      expect(c.text).toBe(`: connected\n\nretry: 3000\nid: ${c.frames[1]!.id}\n\n`);
      c.close();
    } finally {
      await quiet.stop();
    }
  });

  it('accepts */*, text/* and a list that allows text/event-stream', async () => {
    for (const accept of ['*/*', 'text/*', 'application/json, text/event-stream;q=0.5']) {
      const abort = new AbortController();
      const res = await s.api('/v1/shop/subscribe', { headers: { accept }, signal: abort.signal });
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      abort.abort();
    }
  });

  it('forgets the subscriber when the client closes the request', async () => {
    await until(() => s.services.db.events.subscribers('other') === 0, 'no subscribers');
    const c = await RawSse.open(s, '/v1/other/subscribe');
    const d = await RawSse.open(s, '/v1/other/subscribe');
    await until(() => s.services.db.events.subscribers('other') === 2, 'two subscribers');
    c.close();
    await until(() => s.services.db.events.subscribers('other') === 1, 'one subscriber left');
    d.close();
    await until(() => s.services.db.events.subscribers('other') === 0, 'no subscriber left');
  });

  it('HEAD answers the headers without holding the connection', async () => {
    const res = await s.api('/v1/shop/subscribe', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  });
});

describe('errors use the JSON envelope', () => {
  it('401 without a token', async () => {
    await expectEnvelope(await s.api('/v1/shop/subscribe', { token: null, headers: { accept: 'text/event-stream' } }), 401, 'unauthorized');
  });

  it('403 for a token of another namespace', async () => {
    const { token } = await s.services.tokens.create({ name: 'other-only', scope: 'namespaces', namespaces: ['other'] });
    await expectEnvelope(await s.api('/v1/shop/subscribe', { token, headers: { accept: 'text/event-stream' } }), 403, 'forbidden');
    // …which does reach its own namespace, read-only or not
    const abort = new AbortController();
    const ok = await s.api('/v1/other/subscribe', { token, headers: { accept: 'text/event-stream' }, signal: abort.signal });
    expect(ok.status).toBe(200);
    abort.abort();
  });

  it('404 for a missing namespace or table', async () => {
    await expectEnvelope(await s.api('/v1/nope/subscribe'), 404, 'namespace_not_found');
    await expectEnvelope(await s.api('/v1/shop/subscribe?tables=missing'), 404, 'table_not_found');
    await expectEnvelope(await s.api('/v1/shop/subscribe?tables=_hearth_objects'), 404, 'table_not_found');
  });

  it('400 for invalid table names or unknown parameters', async () => {
    await expectEnvelope(await s.api('/v1/shop/subscribe?tables=bad-name'), 400, 'invalid_identifier');
    await expectEnvelope(await s.api('/v1/shop/subscribe?tables=a,,b'), 400, 'invalid_identifier');
    await expectEnvelope(await s.api('/v1/shop/subscribe?tables='), 400, 'invalid_identifier');
    await expectEnvelope(await s.api('/v1/shop/subscribe?table=x'), 400, 'invalid_request', { in: 'query' });
  });

  it('406 when Accept excludes text/event-stream', async () => {
    await expectEnvelope(await s.api('/v1/shop/subscribe', { headers: { accept: 'application/json' } }), 406, 'not_acceptable');
  });

  it('documents the route as text/event-stream in the OpenAPI document', async () => {
    const doc = await (await s.api('/v1/openapi.json')).json();
    const op = doc.paths['/v1/{ns}/subscribe'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
    for (const code of ['400', '401', '403', '404', '406']) expect(op.responses[code]).toBeTruthy();
    for (const name of ALL_ACTIONS) expect(op.description).toContain(`\`${name}\``);
  });
});

describe('events', () => {
  it('delivers schema changes with the event name, data shape and _meta.actor of the request', async () => {
    const c = track(openEventSource(s, '/v1/shop/subscribe'));
    await c.opened;
    expect((await createTable('shop', 't', 'alice')).status).toBe(201);
    await until(() => c.got.length >= 1, 'create_table');
    const [e] = c.got;
    expect(e!.type).toBe('create_table');
    expect(e!.id).toMatch(/^[0-9a-z]+-\d+$/);
    expect(e!.data).toEqual({ table: 't', action: 'create_table', row: null, _meta: { actor: 'alice' }, timestamp: expect.any(String) });
    expect(new Date(e!.data.timestamp).toISOString()).toBe(e!.data.timestamp);

    // without _meta the calling token is the actor
    expect((await s.api('/v1/shop/tables/t/indexes', { method: 'POST', json: { type: 'index', name: 't_x', columns: ['x'] } })).status).toBe(201);
    expect((await s.api('/v1/shop/tables/t', { method: 'DELETE' })).status).toBe(204);
    await until(() => c.got.length >= 3, 'create_index and drop_table');
    expect(c.got.map((g) => g.type)).toEqual(['create_table', 'create_index', 'drop_table']);
    expect(c.got[1]!.data).toMatchObject({ table: 't', action: 'create_index', row: null, _meta: { actor: 'token:env' } });
    c.es.close();
  });

  it('delivers row events (insert, update, delete) in order, with increasing ids', async () => {
    const c = track(openEventSource(s, '/v1/shop/subscribe'));
    await c.opened;
    publish('shop', row('items', 'insert', { id: 1, name: 'a' }));
    publish('shop', [row('items', 'update', { id: 1, name: 'b' }, 'carol'), row('items', 'delete', { id: 1, name: 'b' })]);
    await until(() => c.got.length >= 3, 'three row events');
    expect(c.got.map((g) => g.type)).toEqual(['insert', 'update', 'delete']);
    expect(c.got[0]!.data).toEqual({ table: 'items', action: 'insert', row: { id: 1, name: 'a' }, _meta: { actor: 'bob' }, timestamp: expect.any(String) });
    expect(c.got[1]!.data._meta).toEqual({ actor: 'carol' });
    const seqs = c.got.map((g) => Number(g.id.split('-')[1]));
    expect(seqs[0]! < seqs[1]! && seqs[1]! < seqs[2]!).toBe(true);
    expect(new Set(c.got.map((g) => g.id.split('-')[0])).size).toBe(1);
    c.es.close();
  });

  it('keeps namespaces apart', async () => {
    const shop = track(await RawSse.open(s, '/v1/shop/subscribe'));
    const other = track(await RawSse.open(s, '/v1/other/subscribe'));
    publish('other', row('items', 'insert', { id: 7 }));
    publish('shop', row('items', 'insert', { id: 8 }));
    await shop.waitEvents(1);
    await other.waitEvents(1);
    expect(shop.events.map((e) => e.json.row)).toEqual([{ id: 8 }]);
    expect(other.events.map((e) => e.json.row)).toEqual([{ id: 7 }]);
    shop.close();
    other.close();
  });

  it('filters by tables: rows and schema events of the listed tables only', async () => {
    for (const t of ['a', 'b', 'c']) expect((await createTable('filters', t)).status).toBe(201);
    const ab = track(await RawSse.open(s, '/v1/filters/subscribe?tables=a,b'));
    const repeated = track(await RawSse.open(s, '/v1/filters/subscribe?tables=c&tables=a'));
    const all = track(await RawSse.open(s, '/v1/filters/subscribe'));
    publish('filters', [row('c', 'insert', { id: 1 }), row('a', 'insert', { id: 2 }), row('b', 'update', { id: 3 })]);
    expect((await createTable('filters', 'd')).status).toBe(201); // a new table: only unfiltered subscribers hear of it
    expect((await s.api('/v1/filters/tables/b', { method: 'DELETE' })).status).toBe(204);
    publish('filters', row('a', 'delete', { id: 2 }));
    await all.waitEvents(6);
    await ab.waitEvents(4);
    await repeated.waitEvents(3);
    expect(all.events.map((e) => `${e.event}:${e.json.table}`)).toEqual(['insert:c', 'insert:a', 'update:b', 'create_table:d', 'drop_table:b', 'delete:a']);
    expect(ab.events.map((e) => `${e.event}:${e.json.table}`)).toEqual(['insert:a', 'update:b', 'drop_table:b', 'delete:a']);
    expect(repeated.events.map((e) => `${e.event}:${e.json.table}`)).toEqual(['insert:c', 'insert:a', 'delete:a']);
    for (const c of [ab, repeated, all]) c.close();
  });
});

describe('Last-Event-ID', () => {
  it('replays what was missed (raw client, header and query parameter), filtered like live events', async () => {
    for (const t of ['x', 'y']) expect((await createTable('replay', t)).status).toBe(201);
    const first = track(await RawSse.open(s, '/v1/replay/subscribe'));
    publish('replay', row('x', 'insert', { n: 1 }));
    const [e1] = await first.waitEvents(1);
    first.close();
    publish('replay', [row('x', 'insert', { n: 2 }), row('y', 'insert', { n: 3 }), row('x', 'update', { n: 2 })]);

    const again = track(await RawSse.open(s, '/v1/replay/subscribe', { 'last-event-id': e1!.id! }));
    const got = await again.waitEvents(3);
    expect(got.map((e) => e.json.row)).toEqual([{ n: 2 }, { n: 3 }, { n: 2 }]);
    expect(got.map((e) => e.event)).toEqual(['insert', 'insert', 'update']);
    expect(again.frames[1]!.id).toBeUndefined(); // resuming: no position line, the replayed ids carry it
    publish('replay', row('x', 'delete', { n: 2 }));
    await again.waitEvents(4);
    expect(again.events[3]!.json.action).toBe('delete');

    const filtered = track(await RawSse.open(s, `/v1/replay/subscribe?tables=x&last_event_id=${encodeURIComponent(e1!.id!)}`));
    await filtered.waitEvents(3);
    expect(filtered.events.map((e) => `${e.event}:${e.json.row!.n}`)).toEqual(['insert:2', 'update:2', 'delete:2']);

    // the position given at connection resumes exactly there: nothing is replayed, and the next event is the first
    // (a replay is written with the connection comment, before any live event)
    const cursor = filtered.frames[1]!.id ?? again.events[3]!.id!;
    const fromNow = track(await RawSse.open(s, '/v1/replay/subscribe', { 'last-event-id': cursor }));
    publish('replay', row('x', 'insert', { n: 5 }));
    const live = await fromNow.waitEvents(1);
    expect(live.map((e) => `${e.event}:${e.json.row!.n}`)).toEqual(['insert:5']);
    for (const c of [again, filtered, fromNow]) c.close();
  });

  it('the position sent at connection covers a client that saw no event before it dropped', async () => {
    const c = track(await RawSse.open(s, '/v1/replay/subscribe'));
    await until(() => c.frames.length >= 2, 'the position');
    const position = c.frames[1]!.id!;
    c.close();
    publish('replay', row('x', 'insert', { n: 'while away' }));
    const back = track(await RawSse.open(s, '/v1/replay/subscribe', { 'last-event-id': position }));
    const [e] = await back.waitEvents(1);
    expect(e!.json.row).toEqual({ n: 'while away' });
    back.close();
  });

  it('the eventsource client reconnects with Last-Event-ID by itself and gets what it missed', async () => {
    const c = track(openEventSource(s, '/v1/es/subscribe'));
    await c.opened;
    publish('es', row('x', 'insert', { n: 1 }));
    await until(() => c.got.length === 1, 'first event');
    // Cut the connection, and hold the client's reconnection until the server has let the old stream go.
    const release = c.holdReconnect();
    c.cut();
    await until(() => s.services.db.events.subscribers('es') === 0 && c.lastEventIds.length === 2, 'the old stream to end and the client to reconnect');
    publish('es', [row('x', 'insert', { n: 2 }), row('x', 'insert', { n: 3 })]); // published while it is away
    release();
    await until(() => c.got.length === 3, 'the missed events after the reconnect');
    expect(c.lastEventIds).toEqual([null, c.got[0]!.id]);
    publish('es', row('x', 'insert', { n: 4 }));
    await until(() => c.got.length === 4, 'a live event after the replay');
    expect(c.got.map((g) => g.data.row!.n)).toEqual([1, 2, 3, 4]);
    expect(c.got.some((g) => g.type === 'reset')).toBe(false);
    c.es.close();
  });

  it('sends reset when the id is foreign (another server run) or malformed', async () => {
    for (const id of ['0abc123-5', 'garbage', `${s.services.db.events.epoch}-999999999`]) {
      const c = track(await RawSse.open(s, '/v1/lost/subscribe', { 'last-event-id': id }));
      const [e] = await c.waitEvents(1);
      expect(e!.event).toBe('reset');
      expect(e!.json).toEqual({ reason: 'events_lost', last_event_id: id });
      expect(e!.id).toMatch(new RegExp(`^${s.services.db.events.epoch}-\\d+$`));
      // the reset id is a valid position: the stream goes on, and resuming from it replays what follows
      publish('lost', row('x', 'insert', { n: 1 }));
      await c.waitEvents(2);
      c.close();
      const back = track(await RawSse.open(s, '/v1/lost/subscribe', { 'last-event-id': e!.id! }));
      const got = await back.waitEvents(1);
      expect(got.map((g) => g.event)).toEqual(['insert']);
      back.close();
    }
  });

  it('sends reset when the id is older than the buffer (1000 events)', async () => {
    const c = track(await RawSse.open(s, '/v1/lost/subscribe'));
    publish('lost', row('x', 'insert', { n: 0 }));
    const [e0] = await c.waitEvents(1);
    c.close();
    publish(
      'lost',
      Array.from({ length: 999 }, (_, i) => row('x', 'insert', { n: i + 1 })),
    );
    // 999 newer events: the buffer still holds everything after e0
    const ok = track(await RawSse.open(s, '/v1/lost/subscribe', { 'last-event-id': e0!.id! }));
    const replayed = await ok.waitEvents(999);
    expect(replayed[0]!.json.row).toEqual({ n: 1 });
    expect(replayed.some((e) => e.event === 'reset')).toBe(false);
    ok.close();
    publish(
      'lost',
      Array.from({ length: 2 }, (_, i) => row('x', 'insert', { n: 1000 + i })),
    );
    const late = track(await RawSse.open(s, '/v1/lost/subscribe', { 'last-event-id': e0!.id! }));
    const [r] = await late.waitEvents(1);
    expect(r!.event).toBe('reset');
    expect(r!.json.reason).toBe('events_lost');
    // no partial replay after a reset: the next event after it is the next one published (a replay would come first)
    publish('lost', row('x', 'insert', { n: 'next' }));
    const after = await late.waitEvents(2);
    expect(after.map((e) => e.event)).toEqual(['reset', 'insert']);
    expect(after[1]!.json.row).toEqual({ n: 'next' });
    late.close();
  });

  it('ends the streams of a namespace the bus forgets (deleted or imported) and answers reset to old ids', async () => {
    const c = track(await RawSse.open(s, '/v1/es/subscribe'));
    publish('es', row('x', 'insert', { n: 'before' }));
    const [e] = await c.waitEvents(1);
    s.services.db.events.drop('es');
    await until(() => c.ended, 'the stream to end');
    const back = track(await RawSse.open(s, '/v1/es/subscribe', { 'last-event-id': e!.id! }));
    const [r] = await back.waitEvents(1);
    expect(r!.event).toBe('reset');
    back.close();
  });
});

describe('slow subscribers', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startWith({ HEARTH_SSE_MAX_QUEUE_BYTES: String(256 * 1024), HEARTH_SSE_BUFFER_BYTES: String(32 * 1024 * 1024) });
    await t.api('/v1/namespaces', { method: 'POST', json: { name: 'busy' } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('drops a subscriber that stops reading; a healthy one receives every event', async () => {
    // A client that sends the request and then never reads: the kernel buffers fill, then the server's queue.
    const stalled = net.connect(t.port, '127.0.0.1');
    await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
    stalled.write(`GET /v1/busy/subscribe HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${t.token}\r\n\r\n`);
    stalled.pause();
    let stalledClosed = false;
    stalled.on('close', () => (stalledClosed = true));
    stalled.on('error', () => {});

    const healthy = openEventSource(t, '/v1/busy/subscribe');
    await healthy.opened;
    await until(() => t.services.db.events.subscribers('busy') === 2, 'both subscribers');

    const bus = t.services.db.events;
    const pad = 'x'.repeat(16 * 1024);
    let sent = 0;
    // Up to 64 MiB: far beyond the kernel's socket buffers, so the stalled subscriber's queue must grow.
    // The healthy client shares this event loop with the server: publish only as fast as it reads.
    const publishOne = async () => {
      bus.publish('busy', row('x', 'insert', { n: sent++, pad }));
      await until(() => healthy.got.length >= sent - 2, 'the healthy client to keep up');
    };
    while (sent < 4096 && bus.droppedSubscribers === 0) await publishOne();
    expect(bus.droppedSubscribers).toBe(1);
    expect(bus.subscribers('busy')).toBe(1);
    for (let i = 0; i < 20; i++) await publishOne();
    await until(
      () => healthy.got.length === sent,
      () => `the healthy subscriber to get all ${sent} events (has ${healthy.got.length})`,
    );
    expect(healthy.got.map((g) => g.data.row!.n)).toEqual(Array.from({ length: sent }, (_, i) => i));
    expect(healthy.lastEventIds).toEqual([null]); // never cut off

    // the dropped client finds its connection closed once it reads again
    stalled.resume();
    await until(() => stalledClosed, 'the stalled connection to close');
    healthy.es.close();
  });

  it('a replay larger than the limit is delivered whole (the limit applies to the backlog beyond it)', async () => {
    const bus = t.services.db.events;
    const dropped = bus.droppedSubscribers;
    const first = await RawSse.open(t, '/v1/busy/subscribe');
    await until(() => first.frames.length >= 2, 'the position');
    const position = first.frames[1]!.id!;
    first.close();
    await until(() => bus.subscribers('busy') === 0, 'the first connection to be gone');
    const pad = 'r'.repeat(16 * 1024);
    // 16 MB: more than the kernel's socket buffers take at once, so most of the replay waits in the server
    bus.publish(
      'busy',
      Array.from({ length: 1000 }, (_, n) => row('x', 'insert', { n, pad })),
    );
    const back = await RawSse.open(t, '/v1/busy/subscribe', { 'last-event-id': position });
    bus.publish('busy', row('x', 'insert', { n: 1000 })); // a live event while the replay is still on its way
    const got = await back.waitEvents(1001);
    expect(got.map((e) => e.json.row!.n)).toEqual(Array.from({ length: 1001 }, (_, i) => i));
    expect(bus.droppedSubscribers).toBe(dropped);
    back.close();
  });
});

describe('shutdown', () => {
  it('close() ends open streams and resolves promptly', async () => {
    const t = await startTestServer(); // default shutdown timeout (10 s) and keepalive (25 s)
    await t.api('/v1/namespaces', { method: 'POST', json: { name: 'bye' } });
    const a = await RawSse.open(t, '/v1/bye/subscribe');
    const c = openEventSource(t, '/v1/bye/subscribe');
    await c.opened;
    await until(() => t.services.db.events.subscribers('bye') === 2, 'two subscribers');
    // Promptly: the server ends the streams itself when it closes, rather than waiting out its 10-second shutdown
    // timeout and then cutting the connections. A stream it ends finishes cleanly (the client reads its end); one cut
    // at the timeout breaks off.
    const closing = t.stop();
    await until(() => a.ended, 'the raw stream to end');
    expect(a.endedBy).toBe('end');
    await closing;
    expect(t.services.db.events.subscribers('bye')).toBe(0);
    c.es.close();
  });
});

describe('EventBus (the buffer behind Last-Event-ID)', () => {
  const ev = (table: string, r: Record<string, unknown> = {}) => row(table, 'insert', r);

  it('keeps nothing for a namespace nobody subscribed to, yet old ids read as lost', () => {
    const bus = new EventBus();
    const first = bus.subscribe('a', () => {});
    first.unsubscribe();
    bus.publish('b', [ev('x'), ev('x')]); // no channel for b
    const sub = bus.subscribe('b', () => {}, { lastEventId: first.cursor });
    expect(sub.missed).toBeNull(); // two events of b were published after that id and not kept
    const fresh = bus.subscribe('b', () => {}, { lastEventId: sub.cursor });
    expect(fresh.missed).toEqual([]);
  });

  it('bounds the ring by count and by bytes', () => {
    const bus = new EventBus({ bufferSize: 5, bufferBytes: 1000 });
    const s = bus.subscribe('a', () => {});
    bus.publish(
      'a',
      Array.from({ length: 8 }, (_, i) => ev('x', { i })),
    );
    expect(bus.subscribe('a', () => {}, { lastEventId: s.cursor }).missed).toBeNull();
    const ids = (bus.subscribe('a', () => {}, { lastEventId: `${bus.epoch}-${bus.parseId(s.cursor)! + 3}` }).missed ?? []).map((e) => JSON.parse(e.data).row.i);
    expect(ids).toEqual([3, 4, 5, 6, 7]);
    bus.publish('a', [ev('x', { big: 'y'.repeat(600) }), ev('x', { big: 'z'.repeat(600) })]);
    const after = bus.subscribe('a', () => {}, { lastEventId: `${bus.epoch}-${bus.parseId(s.cursor)! + 9}` }).missed!;
    expect(after).toHaveLength(1); // the newest event is kept even alone over the byte limit
    expect(after[0]!.data).toContain('zzz');
  });

  it('forgets a namespace idle past the retention; a later reconnect is told events were lost', () => {
    let t = 0;
    const bus = new EventBus({ idleRetentionMs: 1000, now: () => t });
    const s = bus.subscribe('a', () => {});
    bus.publish('a', ev('x'));
    s.unsubscribe();
    t = 500;
    bus.publish('a', ev('x'));
    const back = bus.subscribe('a', () => {}, { lastEventId: s.cursor });
    expect(back.missed).toHaveLength(2);
    back.unsubscribe();
    t = 5000;
    bus.publish('a', ev('x')); // dropped with the channel
    expect(bus.subscribe('a', () => {}, { lastEventId: back.cursor }).missed).toBeNull();
  });

  it('never throws from publish: bigint rows are serialised, a failing listener does not stop the others', () => {
    const errors: unknown[] = [];
    const bus = new EventBus({ onListenerError: (e) => errors.push(e) });
    const got: string[] = [];
    bus.subscribe('a', () => {
      throw new Error('boom');
    });
    bus.subscribe('a', (e) => got.push(e.data));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => bus.publish('a', [ev('x', { n: 5n, huge: 2n ** 70n }), ev('x', cyclic), ev('x', { ok: true })])).not.toThrow();
    expect(got.map((d) => JSON.parse(d).row)).toEqual([{ n: 5, huge: '1180591620717411303424' }, { ok: true }]);
    expect(errors).toHaveLength(3); // twice boom, once the cyclic row
  });
});

describe('namespace lifecycle ends streams', () => {
  it('deleting or importing over a namespace ends its subscriptions', async () => {
    const srv = await startTestServer();
    try {
      for (const name of ['gone', 'swapped']) await srv.api('/v1/namespaces', { method: 'POST', json: { name } });
      const ended: string[] = [];
      srv.services.db.events.subscribe('gone', () => {}, { onEnd: (r) => ended.push(`gone:${r}`) });
      srv.services.db.events.subscribe('swapped', () => {}, { onEnd: (r) => ended.push(`swapped:${r}`) });
      expect((await srv.api('/v1/namespaces/gone', { method: 'DELETE' })).status).toBe(204);
      expect(ended).toEqual(['gone:namespace_gone']);
      const exported = Buffer.from(await (await srv.api('/v1/namespaces/swapped/export')).arrayBuffer());
      const boundary = 'xyzzy';
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.db"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        exported,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const imp = await srv.api('/v1/namespaces/swapped/import', {
        method: 'POST',
        body,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      expect(imp.status).toBe(200);
      expect(ended).toEqual(['gone:namespace_gone', 'swapped:namespace_gone']);
    } finally {
      await srv.stop();
    }
  });
});
