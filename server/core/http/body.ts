import { HearthError } from './errors.ts';
import type { AppContext } from './context.ts';

export function hasBody(ctx: AppContext): boolean {
  const len = ctx.get('content-length');
  if (len !== '') return Number(len) > 0;
  return ctx.get('transfer-encoding') !== '';
}

export function requireMediaType(ctx: AppContext, type: string): void {
  if (!ctx.is(type)) {
    const got = ctx.get('content-type') || 'none';
    throw new HearthError('unsupported_media_type', `request body must be sent with Content-Type: ${type} (got ${got})`);
  }
}

/** Reads the raw body up to `limit` bytes; a larger body is 413 and is not kept. */
export async function readRawBody(ctx: AppContext, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || NaN);
  if (Number.isFinite(declared) && declared > limit) {
    ctx.req.resume();
    throw new HearthError('payload_too_large', `request body is larger than the limit of ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      ctx.req.resume();
      throw new HearthError('payload_too_large', `request body is larger than the limit of ${limit} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** Parses a JSON body. Absent body → undefined. Wrong media type → 415, too large → 413, bad JSON → 400. */
export async function readJsonBody(ctx: AppContext, limit: number): Promise<unknown> {
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
export async function readFormBody(ctx: AppContext, limit: number): Promise<Record<string, string>> {
  if (!hasBody(ctx)) return {};
  requireMediaType(ctx, 'application/x-www-form-urlencoded');
  const raw = await readRawBody(ctx, limit);
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) {
    if (Object.hasOwn(out, k)) throw new HearthError('invalid_request', `parameter ${JSON.stringify(k)} is given more than once`);
    out[k] = v;
  }
  return out;
}
