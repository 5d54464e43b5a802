/**
 * The HTTP requests of the API client (client.ts), on node:http and node:https rather than the global `fetch`.
 *
 * Why not `fetch`: its first use loads undici and web streams, about as long as a bare `node -e 0` again, and start-up
 * is most of what a command costs (`hearth ns list` goal: at most 2× `node -e 0` plus the request; bench/start.bench.ts).
 * node:https, and with it node:tls, is loaded for https addresses only (`process.getBuiltinModule`).
 *
 * What `fetch` did for the client, this does the same way: redirects are followed (at most 20; 303, and 301/302 after
 * a POST, turn into a GET without body; the Authorization header is kept on the same origin only; a request whose
 * body is a stream is not sent again), and a failure before any answer rejects with the socket's error, whose `code`
 * (ECONNREFUSED, a certificate's) trust.ts's connectionError explains. The TLS trust is the process's default, which
 * `--ca-file` extends (trust.ts).
 */
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

export interface HttpAnswer {
  status: number;
  statusText: string;
  ok: boolean;
  /** A header's value (a repeated header's values joined by ", "), or null. */
  header(name: string): string | null;
  /** The body as a stream (read it once: with this, or json, or text). */
  body: Readable;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  /** Drops the body unread. */
  discard(): void;
}

export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;

/** Sends a request and resolves with the answer's head once it arrives (its body still to read). */
export async function httpRequest(url: string, req: HttpRequest): Promise<HttpAnswer> {
  let target = new URL(url);
  let { method, body } = req;
  let headers: Record<string, string> = { ...req.headers };
  for (let hop = 0; ; hop++) {
    const res = await send(target, method, headers, body);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined || hop === MAX_REDIRECTS || body instanceof Readable) return answer(res);
    res.resume();
    const next = new URL(location, target);
    if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    if (next.origin !== target.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    target = next;
  }
}

function send(url: URL, method: string, headers: Record<string, string>, body: HttpRequest['body']): Promise<IncomingMessage> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${url.protocol} addresses are not supported (http: or https:)`);
  // Not `import('node:http')`: an ES import of node:http reads every export, and some load undici on first read.
  const { request } = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const head: OutgoingHttpHeaders = { ...headers };
  if (typeof body === 'string' || Buffer.isBuffer(body)) head['content-length'] = Buffer.byteLength(body);
  return new Promise<IncomingMessage>((resolve, reject) => {
    const r = request(url, { method, headers: head }, resolve);
    r.on('error', reject);
    if (body instanceof Readable) {
      body.on('error', (err) => r.destroy(err));
      body.pipe(r);
    } else r.end(body);
  });
}

function answer(res: IncomingMessage): HttpAnswer {
  const status = res.statusCode ?? 0;
  const text = async () => {
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    status,
    statusText: res.statusMessage ?? '',
    ok: status >= 200 && status < 300,
    header(name) {
      const v = res.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
    body: res,
    text,
    json: async <T>() => JSON.parse(await text()) as T,
    discard: () => void res.resume(),
  };
}
