/**
 * One HTTP call of the SDK: a 60-second deadline combined with the caller's AbortSignal, at most 8 KiB of response
 * (the read is aborted beyond), no cookies (`credentials: 'omit'`), no redirects (`redirect: 'error'`), no retries.
 * Errors are `AppApprovalClientError`s; a remote error body is never read into a message.
 */
import { APP_APPROVAL_LIMITS } from '../../../server/identity/approval/contracts.ts';
import { utf8 } from './encoding.ts';
import { AppApprovalClientError, statusError } from './errors.ts';

export const CALL_TIMEOUT_MS = APP_APPROVAL_LIMITS.sdkCallTimeoutSeconds * 1000;
export const MAX_RESPONSE_BYTES = APP_APPROVAL_LIMITS.responseBytes;
export const MAX_REQUEST_BYTES = APP_APPROVAL_LIMITS.requestBodyBytes;

export interface CallOptions {
  method: 'GET' | 'POST';
  body?: unknown;
  signal?: AbortSignal;
  /** Test seam only: a shorter deadline. */
  timeoutMs?: number;
}

type Stop = 'timeout' | 'aborted' | 'too_large';

/** Performs the call and returns the parsed JSON body of a 2xx answer (null for 204). */
export async function callJson(url: string, opts: CallOptions): Promise<unknown> {
  if (opts.signal?.aborted) throw new AppApprovalClientError('aborted', 'The call was aborted before it started.');
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (utf8(body).length > MAX_REQUEST_BYTES) {
      throw new AppApprovalClientError('request_too_large', `The request body exceeds ${MAX_REQUEST_BYTES} bytes.`);
    }
  }

  const controller = new AbortController();
  let stop: Stop | null = null;
  const halt = (why: Stop) => {
    if (stop === null) stop = why;
    controller.abort();
  };
  const timer = setTimeout(() => halt('timeout'), opts.timeoutMs ?? CALL_TIMEOUT_MS);
  const onAbort = () => halt('aborted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const stopped = (err: unknown): AppApprovalClientError => {
    if (stop === 'timeout')
      return new AppApprovalClientError('timeout', `The instance did not answer within ${Math.round((opts.timeoutMs ?? CALL_TIMEOUT_MS) / 1000)} seconds.`, {
        cause: err,
      });
    if (stop === 'aborted') return new AppApprovalClientError('aborted', 'The call was aborted.', { cause: err });
    if (stop === 'too_large') return tooLarge();
    if (isRedirectError(err))
      return new AppApprovalClientError('redirected', 'The instance answered with a redirect, which the SDK never follows.', { cause: err });
    return new AppApprovalClientError('network', 'The instance could not be reached.', { cause: err });
  };

  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: opts.method,
        headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
        body,
        credentials: 'omit',
        redirect: 'error',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
        signal: controller.signal,
      });
    } catch (err) {
      throw stopped(err);
    }

    if (res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400)) {
      void res.body?.cancel().catch(() => {});
      throw new AppApprovalClientError('redirected', 'The instance answered with a redirect, which the SDK never follows.', { status: res.status });
    }
    if (res.status < 200 || res.status > 299) {
      void res.body?.cancel().catch(() => {});
      throw statusError(res.status, retryAfter(res.headers.get('retry-after')));
    }
    const declared = Number(res.headers.get('content-length') ?? 'NaN');
    if (Number.isFinite(declared) && declared > MAX_RESPONSE_BYTES) {
      halt('too_large');
      throw tooLarge();
    }

    let bytes: Uint8Array;
    try {
      bytes = await readLimited(res, () => halt('too_large'));
    } catch (err) {
      if (err instanceof AppApprovalClientError) throw err;
      throw stopped(err);
    }
    if (res.status === 204 || bytes.length === 0) {
      if (res.status === 204) return null;
      throw new AppApprovalClientError('invalid_response', 'The instance answered with an empty body.', { status: res.status });
    }
    const type = res.headers.get('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      throw new AppApprovalClientError('invalid_response', 'The instance did not answer with JSON.', { status: res.status });
    }
    try {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      throw new AppApprovalClientError('invalid_response', 'The instance answered with malformed JSON.', { status: res.status });
    }
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function tooLarge(): AppApprovalClientError {
  return new AppApprovalClientError('response_too_large', `The response exceeds ${MAX_RESPONSE_BYTES} bytes; the SDK stopped reading it.`);
}

async function readLimited(res: Response, abort: () => void): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      abort();
      void reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/**
 * Node's fetch (undici) rejects a redirect under `redirect: 'error'` with a TypeError whose cause says "unexpected
 * redirect"; browsers give a plain network TypeError that cannot be told apart from other network failures, so there
 * a refused redirect surfaces as `network`.
 */
function isRedirectError(err: unknown): boolean {
  const cause = (err as { cause?: unknown } | null)?.cause;
  return cause instanceof Error && /redirect/i.test(cause.message);
}

function retryAfter(value: string | null): number | undefined {
  if (value === null || !/^\d{1,6}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
