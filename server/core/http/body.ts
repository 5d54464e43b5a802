import type { HotContext } from './app-context.ts';
import { HearthError, quoteInput } from './errors.ts';

/** What reading a body needs of a request context (a Koa context or a hot route's). */
type BodySource = Pick<HotContext, 'get' | 'is' | 'req'>;

/**
 * The JSON body limit of the small routes: the unauthenticated ones and those that handle credentials (sign-in, setup,
 * passwords, passkeys, email links, token creation). Their bodies are a few hundred bytes; reading 16 MiB for them
 * would only help an attacker. Routes declare it with `bodyLimit: { max: SMALL_BODY_LIMIT }`.
 */
export const SMALL_BODY_LIMIT = 64 * 1024;

/** `64 KiB`, `16 MiB`, `1000 bytes`: a limit as the documentation writes it. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

export function hasBody(ctx: BodySource): boolean {
  const len = ctx.get('content-length');
  if (len !== '') return Number(len) > 0;
  return ctx.get('transfer-encoding') !== '';
}

export function requireMediaType(ctx: BodySource, type: string): void {
  if (!ctx.is(type)) {
    const got = ctx.get('content-type') || 'none';
    throw new HearthError('unsupported_media_type', `request body must be sent with Content-Type: ${type} (got ${got})`);
  }
}

/** Reads the raw body up to `limit` bytes; a larger body is 413 and is not kept. */
export function readRawBody(ctx: BodySource, limit: number): Promise<Buffer> {
  const req = ctx.req;
  const tooLarge = () => new HearthError('payload_too_large', `request body is larger than the limit of ${limit} bytes`);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(tooLarge());
  }
  // Events rather than `for await`: an async iterator per request costs the JavaScript thread more than the body.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (err) {
        req.resume();
        reject(err);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => done(null);
    const onError = (err: Error) => done(err);
    const onClose = () => {
      if (!req.complete) done(new HearthError('invalid_request', 'the request body ended early (the client closed the connection)'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** Parses a JSON body. Absent body → undefined. Wrong media type → 415, too large → 413, bad JSON → 400. */
export async function readJsonBody(ctx: BodySource, limit: number): Promise<unknown> {
  if (!hasBody(ctx)) return undefined;
  requireMediaType(ctx, 'application/json');
  const raw = await readRawBody(ctx, limit);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    throw new HearthError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses an `application/x-www-form-urlencoded` body (OAuth endpoints). Absent body → `{}`; a parameter given twice
 * is 400 (RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once").
 */
export async function readFormBody(ctx: BodySource, limit: number): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of await readFormParams(ctx, limit)) {
    if (Object.hasOwn(out, k)) throw new HearthError('invalid_request', `parameter ${quoteInput(k)} is given more than once`);
    out[k] = v;
  }
  return out;
}

/**
 * An `application/x-www-form-urlencoded` body as it was sent, every value of a repeated parameter kept, for an endpoint
 * that applies RFC 6749 §3.2 itself (the token endpoint: server/identity/oauth/grants/parameters.ts). Absent body → no
 * parameters; wrong media type → 415, too large → 413.
 */
export async function readFormParams(ctx: BodySource, limit: number): Promise<URLSearchParams> {
  if (!hasBody(ctx)) return new URLSearchParams();
  requireMediaType(ctx, 'application/x-www-form-urlencoded');
  return new URLSearchParams((await readRawBody(ctx, limit)).toString('utf8'));
}
