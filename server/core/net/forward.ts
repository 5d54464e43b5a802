/**
 * The forwarding proxy between replicas: a request for a namespace whose SQLite file
 * lives on another node is sent on to that node and its answer sent back, so a client sees one API whichever replica
 * it reached. Core plumbing: it knows no domain; the caller (a middleware in front of the db routes) decides whether
 * and where to forward, and hands over the request with the owner's base URL.
 *
 * Rules:
 * - Both directions stream. The request body is piped to the owner as it arrives (a CSV import of any size is never
 *   held whole); the answer is piped back as it arrives, Server-Sent Events frame by frame. Backpressure holds on both
 *   sides, so memory stays bounded by the sockets' buffers.
 * - End-to-end headers pass unchanged; hop-by-hop ones (RFC 9110 §7.6.1: `Connection` and every field it names,
 *   `Keep-Alive`, `TE`, `Transfer-Encoding`, `Upgrade`, `Proxy-*`) are dropped both ways, and so is `Expect` (this
 *   hop already answered `100 Continue`). `Host` becomes the owner's; the client's is in `X-Forwarded-Host`.
 * - The owner learns the real client: `Forwarded` (RFC 7239) and `X-Forwarded-For` get one element appended,
 *   `X-Forwarded-Proto` and `-Host` are set, `Via` names the hop, and `X-Request-ID` carries this request's id so both
 *   access logs share it. `Hearth-Forwarded-By: <node id>` marks the hop: a request that carries it is never forwarded
 *   again (forward() refuses it with 503 `namespace_unavailable`; the owner answers it itself), so placements that
 *   disagree for a moment make a 503, never a loop. One exception, asked for with `again`: a node a namespace just
 *   moved away from passes a request forwarded to it on to the new owner once more (the header then names both
 *   hops, and a request that carries two is never forwarded again). Trust those headers only from a peer: see
 *   `forwardedClient`.
 * - Before the owner's answer has begun, any failure (refused, reset, unreachable, no connection within
 *   `connectTimeoutMs`, no answer within `answerTimeoutMs`, a TLS failure, the owner's connections dropped with
 *   `ForwardAgents.drop` when its heartbeat stops) is 503 `namespace_unavailable` with `Retry-After`: never a 500,
 *   never another node's data. A bodiless GET/HEAD/OPTIONS reset on a reused keep-alive socket (the owner closed it as
 *   idle) is tried once more on a new one; a request with a body is never replayed.
 * - After the answer has begun, a failure on either side ends both: the owner dying mid-answer cuts the client's
 *   connection (an incomplete body is never dressed up as complete), and a client that goes away (an SSE subscriber
 *   closing, an upload cancelled) aborts the request to the owner, which sees its connection close.
 * - One keep-alive agent per owner origin (`ForwardAgents`), http or https; https trusts the given CA certificates
 *   (Hearth's internal CA) and the system's when none are given.
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { pipeline } from 'node:stream';
import { rootCertificates, type TLSSocket } from 'node:tls';
import { HearthError } from '../http/errors.ts';

/** The header that marks a request as forwarded once, naming the node that forwarded it. */
export const FORWARDED_BY = 'hearth-forwarded-by';

/** Where to send a request: the owner's base URL (`https://node-b.internal:8443`, a path prefix allowed) and its id. */
export interface ForwardTarget {
  url: string;
  node: string;
}

export interface ForwardOptions {
  /** This node's id: written into `Hearth-Forwarded-By` and `Via`. */
  self: string;
  /** The keep-alive agents (one set per process, closed at shutdown). */
  agents: ForwardAgents;
  /** How long to wait for the owner's TCP (and TLS) connection before answering 503; default 3000 ms. */
  connectTimeoutMs?: number;
  /** `Retry-After` of a 503 `namespace_unavailable`, in seconds; default 5. */
  retryAfterSeconds?: number;
  /**
   * How long the owner may take to begin its answer once the request has been sent whole, before 503 (the write may
   * or may not have happened there, as with any connection lost before an answer); default none. A caller sets it above
   * the namespace's `query_timeout`: it catches an owner that stopped answering on a connection kept alive.
   */
  answerTimeoutMs?: number;
  /** Pass on a request that was forwarded once already (a namespace that moved meanwhile): at most two hops in all. */
  again?: boolean;
}

/** What forward() needs of a request context: a Koa context has it, and so has a hot route's. */
export interface ForwardContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Koa's: set to false, since forward() writes the answer itself. */
  respond?: boolean;
  body?: unknown;
  readonly state?: { requestId?: string };
}

/** How a forwarded exchange ended: the whole answer delivered, or cut (by the owner, the client or the network). */
export type ForwardOutcome = 'complete' | 'aborted';

export interface ForwardResult {
  /** The owner's status, now also the client's. */
  status: number;
  /** Settles when the answer has been delivered or cut (an SSE stream: when either side closes it). */
  done: Promise<ForwardOutcome>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 3000;
const DEFAULT_RETRY_AFTER_S = 5;
/** RFC 9110 §7.6.1's hop-by-hop fields (`Proxy-*` by prefix), and two this hop handles itself: `Expect`, `Host`. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'transfer-encoding', 'upgrade', 'expect', 'host']);
const REPLAYABLE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Keep-alive agents, one per owner origin, so a forwarded request reuses a warm connection (and TLS session) to its
 * owner. `ca`: the PEM certificates to trust for https owners (Hearth's internal CA) instead of the system's.
 */
export class ForwardAgents {
  readonly #agents = new Map<string, http.Agent>();
  readonly #ca: string | Buffer | Array<string | Buffer> | undefined;
  readonly #maxSockets: number;

  constructor(opts: { ca?: string | Buffer | Array<string | Buffer>; maxSocketsPerTarget?: number } = {}) {
    this.#ca = opts.ca;
    this.#maxSockets = opts.maxSocketsPerTarget ?? 256;
  }

  /** The agent of a URL's origin, made on first use. */
  for(url: URL): http.Agent {
    let agent = this.#agents.get(url.origin);
    if (!agent) {
      const common = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: this.#maxSockets, maxFreeSockets: 32, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new https.Agent({ ...common, ca: this.#ca }) : new http.Agent(common);
      this.#agents.set(url.origin, agent);
    }
    return agent;
  }

  /**
   * Drops every connection to one owner (its open exchanges are cut: before an answer 503, during one the client's
   * connection): when its heartbeat stops, so no request waits on a connection to a node that went dark.
   */
  drop(url: string): void {
    const origin = new URL(url).origin;
    const agent = this.#agents.get(origin);
    if (!agent) return;
    this.#agents.delete(origin);
    // Each socket fails with a code of its own, so a request cut here is not taken for an idle reset and sent again.
    const dropped = () => Object.assign(new Error(`the connections to ${origin} were dropped`), { code: 'ERR_NODE_DROPPED' });
    for (const list of [...Object.values(agent.sockets), ...Object.values(agent.freeSockets)]) for (const socket of list ?? []) socket.destroy(dropped());
    agent.destroy();
  }

  /** Drops every connection (open exchanges are cut): at shutdown. */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

/** The certificate authorities for https between nodes: the system's and those of a PEM file (HEARTH_NODE_CA_FILE); undefined: the system's. */
export function nodeCa(file: string | undefined): string[] | undefined {
  if (!file) return undefined;
  return [...rootCertificates, fs.readFileSync(file, 'utf8')];
}

/** The node that forwarded this request (its `Hearth-Forwarded-By`), if any: such a request is answered here or refused. */
export function forwardedBy(req: IncomingMessage): string | undefined {
  const v = req.headers[FORWARDED_BY];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * The real client's address of a request: when it was forwarded (`Hearth-Forwarded-By`) by a peer this node trusts
 * (`isPeer(socket address)`, e.g. an address of a registered node), the last `X-Forwarded-For` element (the one that
 * peer appended), or the one before it when that one is a peer too and the request made two hops; otherwise the
 * socket's address. A client cannot choose its rate-limit bucket by sending the headers.
 */
export function forwardedClient(req: IncomingMessage, isPeer: (address: string) => boolean): string {
  const socketAddress = plainAddress(req.socket.remoteAddress ?? '');
  const by = forwardedBy(req);
  if (by === undefined || !isPeer(socketAddress)) return socketAddress;
  const xff = req.headers['x-forwarded-for'];
  const chain = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').map((a) => a.trim());
  let client = chain.at(-1) || socketAddress;
  if (by.includes(',') && chain.length >= 2 && isPeer(client)) client = chain.at(-2) || client;
  return client;
}

/**
 * Sends the request of `ctx` to `target.url` + the same path and query, and streams the owner's answer back. Resolves
 * once the answer's head is written (the body keeps streaming; `done` tells its end); throws 503
 * `namespace_unavailable` when the request was already forwarded once or the owner could not be reached. Call it from
 * a Koa middleware before anything reads the request's body; a hot route (core/http/hot.ts) writes its own answer, so
 * a request for a namespace held elsewhere must go to Koa instead.
 */
export async function forward(ctx: ForwardContext, target: ForwardTarget, opts: ForwardOptions): Promise<ForwardResult> {
  const { req, res } = ctx;
  const retryAfter = String(opts.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_S);
  const by = forwardedBy(req);
  if (by !== undefined && (!opts.again || by.includes(','))) {
    throw new HearthError('namespace_unavailable', `this request was forwarded by node ${by} to a node that does not hold its namespace; try again shortly`, {
      headers: { 'Retry-After': retryAfter },
      details: { from: by, to: target.node },
    });
  }
  const url = targetUrl(target.url, req.url ?? '/');
  const headers = requestHeaders(ctx, opts.self);
  const withBody = hasRequestBody(req);
  let upstream: IncomingMessage;
  try {
    upstream = await send(ctx, url, headers, withBody, opts);
  } catch (err) {
    if (clientGone(req, res)) {
      // Nobody to answer; 499 (nginx's "client closed request") is what the access log shows.
      ctx.respond = false;
      res.statusCode = 499;
      return { status: 499, done: Promise.resolve('aborted') };
    }
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new HearthError('namespace_unavailable', `the node holding this namespace (${target.node}) cannot be reached; try again shortly`, {
      headers: { 'Retry-After': retryAfter },
      details: { node: target.node, url: url.origin, cause: code },
      cause: err,
    });
  }
  ctx.respond = false;
  const status = upstream.statusCode ?? 502;
  res.statusCode = status;
  if (upstream.statusMessage) res.statusMessage = upstream.statusMessage;
  for (const [name, values] of Object.entries(upstream.headersDistinct)) {
    if (values && !isHopByHop(name, upstream.headers.connection)) res.setHeader(name, values);
  }
  res.setHeader('via', appendVia(upstream.headers.via, opts.self));
  res.flushHeaders();
  ctx.body = upstream; // for Koa: an answer was given (the plumbing's 404/405 check looks at it); Koa does not write it
  const done = new Promise<ForwardOutcome>((resolve) => {
    pipeline(upstream, res, (err) => {
      // Either side failed or closed early: the other is torn down too (pipeline destroyed both streams), and the
      // client's connection with it, so a cut answer is never taken for a whole one.
      if (err) {
        upstream.destroy();
        res.destroy();
      }
      resolve(err ? 'aborted' : 'complete');
    });
  });
  return { status, done };
}

/** Sends the request head (and pipes the body); resolves with the owner's answer head. */
function send(
  { req, res }: ForwardContext,
  url: URL,
  headers: OutgoingHttpHeaders,
  withBody: boolean,
  opts: ForwardOptions,
  retried = false,
): Promise<IncomingMessage> {
  const lib = url.protocol === 'https:' ? https : http;
  const connectTimeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const out = lib.request(url, { method: req.method, headers, agent: opts.agents.for(url) });
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      detach();
      out.destroy();
      // The owner closed an idle keep-alive connection as we reused it: nothing reached it, so a bodiless safe request is sent again once.
      const reset = (err as NodeJS.ErrnoException).code === 'ECONNRESET' || (err as NodeJS.ErrnoException).code === 'EPIPE';
      if (reset && !retried && !withBody && out.reusedSocket && REPLAYABLE.has(req.method ?? '') && !clientGone(req, res)) {
        send({ req, res }, url, headers, withBody, opts, true).then(resolve, reject);
      } else reject(err);
    };
    // The client going away (its answer closed before it was finished) aborts the request to the owner, before the
    // owner's answer and during the upload; once the answer streams, pipeline() in forward() watches both sides.
    const onClientClose = () => {
      if (!res.writableFinished) out.destroy(new Error('the client closed the connection'));
    };
    const detach = () => res.off('close', onClientClose);
    res.once('close', onClientClose);
    out.once('socket', (socket: Socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => socket.destroy(Object.assign(new Error(`no connection within ${connectTimeout} ms`), { code: 'ETIMEDOUT' })),
        connectTimeout,
      );
      timer.unref();
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(timer));
      socket.once('close', () => clearTimeout(timer));
    });
    if (opts.answerTimeoutMs !== undefined) {
      const ms = opts.answerTimeoutMs;
      out.once('finish', () => {
        const timer = setTimeout(() => out.destroy(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
        timer.unref();
        out.once('response', () => clearTimeout(timer));
        out.once('close', () => clearTimeout(timer));
      });
    }
    out.on('error', fail);
    out.once('response', (upstream: IncomingMessage) => {
      if (settled) {
        upstream.destroy();
        return;
      }
      settled = true;
      resolve(upstream);
    });
    if (withBody) {
      // Not pipeline(): the owner may answer (413, 401) before the body is all sent and close its side; that ends the
      // upload, not the answer. A client that stops mid-upload is seen by onClientClose and aborts the request.
      // What the owner did not read is then discarded, as Node does for a handler that reads no body.
      req.pipe(out);
      out.once('close', () => {
        if (!req.complete) {
          req.unpipe(out);
          req.resume();
        }
      });
    } else out.end();
  });
}

/** The request headers for the owner: end-to-end ones, the forwarding marks, the owner's Host. */
function requestHeaders(ctx: ForwardContext, self: string): OutgoingHttpHeaders {
  const { req } = ctx;
  const out: OutgoingHttpHeaders = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values && !isHopByHop(name, req.headers.connection) && name !== 'x-request-id') out[name] = values.length === 1 ? values[0] : values;
  }
  const client = plainAddress(req.socket.remoteAddress ?? '');
  const proto = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host;
  const element = [`for=${forwardedNode(client)}`, host ? `host=${forwardedValue(host)}` : '', `proto=${proto}`].filter(Boolean).join(';');
  out.forwarded = req.headers.forwarded ? `${req.headers.forwarded}, ${element}` : element;
  out['x-forwarded-for'] = req.headers['x-forwarded-for'] ? `${req.headers['x-forwarded-for']}, ${client}` : client;
  out['x-forwarded-proto'] = proto;
  if (host) out['x-forwarded-host'] = host;
  out.via = appendVia(req.headers.via, self);
  out[FORWARDED_BY] = forwardedBy(req) ? `${forwardedBy(req)}, ${self}` : self;
  const requestId = ctx.state?.requestId ?? req.headers['x-request-id'];
  if (requestId) out['x-request-id'] = requestId;
  return out;
}

/** RFC 9110 §7.6.1's hop-by-hop fields, plus those the message's `Connection` names. */
function isHopByHop(name: string, connection: string | undefined): boolean {
  if (HOP_BY_HOP.has(name) || name.startsWith('proxy-')) return true;
  if (!connection) return false;
  return connection
    .toLowerCase()
    .split(',')
    .some((t) => t.trim() === name);
}

function hasRequestBody(req: IncomingMessage): boolean {
  const len = req.headers['content-length'];
  if (len !== undefined) return Number(len) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

/** The owner's URL of a request: its base URL's origin and path prefix, then the request's own path and query. */
function targetUrl(base: string, path: string): URL {
  const b = new URL(base);
  const prefix = b.pathname.replace(/\/+$/, '');
  return new URL(`${b.origin}${prefix}${path.startsWith('/') ? path : `/${path}`}`);
}

function appendVia(previous: string | string[] | undefined, self: string): string {
  const mine = `1.1 ${self.replace(/[^\w.-]/g, '-') || 'hearth'}`;
  const prev = Array.isArray(previous) ? previous.join(', ') : previous;
  return prev ? `${prev}, ${mine}` : mine;
}

/** `::ffff:10.0.0.5` → `10.0.0.5`: the form a client's IPv4 address is logged in. */
function plainAddress(a: string): string {
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
}

/** RFC 7239 §6: an IPv6 address is bracketed and quoted; an unknown one is `unknown`. */
function forwardedNode(address: string): string {
  if (address === '') return 'unknown';
  return address.includes(':') ? `"[${address}]"` : address;
}

/** RFC 7239 §4: a value that is not a token is a quoted string. */
function forwardedValue(v: string): string {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v) ? v : `"${v.replace(/["\\]/g, '\\$&')}"`;
}

function clientGone(req: IncomingMessage, res: ServerResponse): boolean {
  return req.socket.destroyed || res.destroyed;
}
