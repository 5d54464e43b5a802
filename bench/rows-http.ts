/**
 * A lean HTTP/1.1 load generator for the rows benchmark: raw keep-alive sockets (node:net), one request in flight
 * per connection, responses framed by Content-Length. It costs the load-generating process much less CPU than
 * `http.request`, which matters on a small machine where the client and the server under test share the cores.
 * An `https://` URL is reached over TLS (node:tls) with the chain verified against the roots given (`TlsClient`).
 */
import net from 'node:net';
import tls from 'node:tls';
import { now, type TlsClient } from './lib.ts';

export interface RawResponse {
  status: number;
  body: Buffer;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

/** One keep-alive connection. `get` may be called again only after the previous answer arrived. */
export class RawConnection {
  private readonly socket: net.Socket;
  private readonly hostHeader: string;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private bodyStart = -1;
  private bodyLength = 0;
  private status = 0;
  private waiting: { resolve: (r: RawResponse) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  private constructor(socket: net.Socket, hostHeader: string) {
    this.socket = socket;
    this.hostHeader = hostHeader;
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => this.onData(c));
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('connection closed by the server')));
  }

  /** Connects (and, for an https URL, completes the TLS handshake: the chain must verify against `tlsClient.ca`). */
  static open(baseUrl: string, tlsClient?: TlsClient): Promise<RawConnection> {
    const u = new URL(baseUrl);
    const secure = u.protocol === 'https:';
    if (secure && !tlsClient) return Promise.reject(new Error(`${baseUrl}: an https URL needs the roots to trust (tlsClient)`));
    return new Promise((resolve, reject) => {
      const s = secure
        ? tls.connect({ host: u.hostname, port: Number(u.port), ca: tlsClient!.ca, servername: tlsClient!.servername })
        : net.connect(Number(u.port), u.hostname);
      s.once(secure ? 'secureConnect' : 'connect', () => {
        s.off('error', reject);
        resolve(new RawConnection(s, u.host));
      });
      s.once('error', reject);
    });
  }

  /** Bytes of a GET request for `path` with extra header lines (each `Name: value`). */
  requestBytes(path: string, headerLines: string[] = []): Buffer {
    return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n${headerLines.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1');
  }

  send(request: Buffer): Promise<RawResponse> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiting) return Promise.reject(new Error('a request is already in flight on this connection'));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.failure ??= new Error('closed');
    this.socket.destroy();
  }

  private onData(c: Buffer): void {
    this.chunks.push(c);
    this.buffered += c.length;
    let buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    this.chunks = [buf];
    if (this.bodyStart < 0) {
      const end = buf.indexOf(HEAD_END);
      if (end < 0) return;
      const head = buf.toString('latin1', 0, end);
      this.status = Number(head.slice(9, 12));
      const m = CONTENT_LENGTH.exec(head);
      if (!m) {
        if (this.status === 204 || this.status === 304) this.bodyLength = 0;
        else {
          this.fail(new Error(`response without Content-Length (status ${this.status}); this client needs it`));
          return;
        }
      } else this.bodyLength = Number(m[1]);
      this.bodyStart = end + HEAD_END.length;
    }
    if (this.buffered < this.bodyStart + this.bodyLength) return;
    const body = buf.subarray(this.bodyStart, this.bodyStart + this.bodyLength);
    const rest = buf.subarray(this.bodyStart + this.bodyLength);
    buf = rest;
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    this.bodyStart = -1;
    const w = this.waiting;
    this.waiting = null;
    if (rest.length) {
      this.fail(new Error('unexpected bytes after a response'));
      return;
    }
    w?.resolve({ status: this.status, body });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = null;
    w?.reject(err);
  }
}

export interface RateResult {
  requests: number;
  bytes: number;
  elapsedMs: number;
  /** Per-request latency, ms. */
  latencies: number[];
  perSec: number;
}

/** Sums slices measured separately into one result. */
export function mergeRates(list: RateResult[]): RateResult {
  const requests = list.reduce((a, r) => a + r.requests, 0);
  const elapsedMs = list.reduce((a, r) => a + r.elapsedMs, 0);
  return {
    requests,
    bytes: list.reduce((a, r) => a + r.bytes, 0),
    elapsedMs,
    latencies: list.flatMap((r) => r.latencies),
    perSec: (requests / elapsedMs) * 1000,
  };
}

/**
 * `connections` keep-alive connections to one server, each sending requests back to back during `run(ms, …)`.
 * `request(i)` returns the bytes of request i; every answer must be 200.
 */
export class Loader {
  private readonly conns: RawConnection[];
  private seq = 0;

  private constructor(conns: RawConnection[]) {
    this.conns = conns;
  }

  static async open(url: string, connections: number, tlsClient?: TlsClient): Promise<Loader> {
    return new Loader(await Promise.all(Array.from({ length: connections }, () => RawConnection.open(url, tlsClient))));
  }

  async run(ms: number, request: (i: number) => Buffer): Promise<RateResult> {
    const latencies: number[] = [];
    let bytes = 0;
    const start = now();
    const deadline = start + ms;
    await Promise.all(
      this.conns.map(async (c) => {
        while (now() < deadline) {
          const t = now();
          const res = await c.send(request(this.seq++));
          if (res.status !== 200) throw new Error(`status ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
          latencies.push(now() - t);
          bytes += res.body.length;
        }
      }),
    );
    const elapsedMs = now() - start;
    return { requests: latencies.length, bytes, elapsedMs, latencies, perSec: (latencies.length / elapsedMs) * 1000 };
  }

  close(): void {
    for (const c of this.conns) c.close();
  }
}
