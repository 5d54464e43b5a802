/**
 * The one HTTP client of the admin UI. Every call is same-origin JSON, authenticated either with
 * `Authorization: Bearer` (token sessions) or with the `hearth_session` cookie (account sessions, no header);
 * every non-2xx answer becomes an `ApiError` carrying the server's `{error, message}` and request id.
 */

/** The error body every Hearth endpoint answers with. */
export interface ErrorBody {
  error: string;
  message: string;
  details?: { location?: string; path?: string[]; [key: string]: unknown };
  /** Members some routes add to the envelope (documented per route, e.g. a test send's `reason` and `detail`). */
  [member: string]: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | null;
  readonly details: ErrorBody['details'];
  /** The whole envelope, for the members a route adds beside `error` and `message`. */
  readonly body: ErrorBody;
  /** Seconds to wait before trying again (`Retry-After` of a 429), when the server said. */
  readonly retryAfter: number | null;

  constructor(status: number, body: ErrorBody, requestId: string | null, retryAfter: number | null = null) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.error;
    this.requestId = requestId;
    this.details = body.details;
    this.body = body;
    this.retryAfter = retryAfter;
  }

  /** For messages like `body: config.busy_timeout: Too big…`: the field path (`config.busy_timeout`) and the bare message. */
  fieldIssue(): { path: string; message: string } | null {
    const m = /^body: ([A-Za-z0-9_.]+): (.*)$/s.exec(this.message);
    if (m) return { path: m[1]!, message: m[2]! };
    if (this.details?.location === 'body' && Array.isArray(this.details.path) && this.details.path.length) {
      return { path: this.details.path.join('.'), message: this.message.replace(/^body: /, '') };
    }
    return null;
  }
}

/** A request that never reached the server or whose answer could not be read. */
export class NetworkError extends Error {
  constructor(message = 'Hearth could not be reached. Check that the server is running, then try again.') {
    super(message);
    this.name = 'NetworkError';
  }
}

type Listener = () => void;

/**
 * Asked when a call answers 403 `recent_auth_required`: resolves true once the user confirmed who they are (the
 * call is then sent again), false when they gave up (the call fails with the original error).
 */
export type Reauthenticator = (err: ApiError) => Promise<boolean>;

/** The token used for every call (null: the session cookie, if any, authenticates), and who to tell when the server stops accepting it. */
class Credentials {
  token: string | null = null;
  private readonly unauthorized = new Set<Listener>();
  private reauthenticator: Reauthenticator | null = null;
  /** One prompt for every call that needs it at the same time. */
  private pending: Promise<boolean> | null = null;

  /** Registers the recent-authentication prompt (the app shell's dialog). */
  onRecentAuthRequired(fn: Reauthenticator): () => void {
    this.reauthenticator = fn;
    return () => {
      if (this.reauthenticator === fn) this.reauthenticator = null;
    };
  }

  /** Whether the call that failed with `err` may be sent again after the user re-authenticated. */
  reauthenticate(err: ApiError): Promise<boolean> {
    const fn = this.reauthenticator;
    if (!fn) return Promise.resolve(false);
    this.pending ??= fn(err).finally(() => (this.pending = null));
    return this.pending;
  }

  onUnauthorized(fn: Listener): () => void {
    this.unauthorized.add(fn);
    return () => this.unauthorized.delete(fn);
  }

  notifyUnauthorized(): void {
    for (const fn of this.unauthorized) fn();
  }
}

export const credentials = new Credentials();

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, string | number | undefined | null>;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Use this token instead of the signed-in one (sign-in checks a token before keeping it). */
  token?: string | null;
  /** A 401 normally signs the user out; pass false where a 401 is an expected answer. */
  signOutOn401?: boolean;
  /**
   * A 403 `recent_auth_required` normally asks the user to confirm their password and sends the call again; pass
   * false to get the error instead (and for bodies that cannot be sent twice, such as streams, it is never retried).
   */
  reauthenticate?: boolean;
}

export function url(path: string, query?: RequestOptions['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export function authHeaders(token = credentials.token): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/**
 * Cookie policy of a call: with a bearer token no cookie is sent (the token alone decides); without one the
 * same-origin session cookie authenticates (browsers add the `Origin` the server checks on writes).
 */
export function fetchCredentials(token = credentials.token): RequestCredentials {
  return token ? 'omit' : 'same-origin';
}

/**
 * Sends a request and returns the raw response when it is 2xx; throws `ApiError`/`NetworkError` otherwise. A 403
 * `recent_auth_required` on an account session asks the user to confirm their password, then sends the call again.
 */
export async function send(path: string, opts: RequestOptions = {}): Promise<Response> {
  try {
    return await sendOnce(path, opts);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'recent_auth_required' || opts.reauthenticate === false || !replayable(opts.body)) throw err;
    if (!(await credentials.reauthenticate(err))) throw err;
    return sendOnce(path, opts);
  }
}

/** Bodies that can be sent a second time (a stream is consumed by the first attempt). */
function replayable(body: BodyInit | undefined): boolean {
  return !(typeof ReadableStream !== 'undefined' && body instanceof ReadableStream);
}

async function sendOnce(path: string, opts: RequestOptions): Promise<Response> {
  const token = opts.token === undefined ? credentials.token : opts.token;
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(token), ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  let res: Response;
  try {
    res = await fetch(url(path, opts.query), {
      method: opts.method ?? 'GET',
      headers,
      body,
      signal: opts.signal,
      credentials: fetchCredentials(token),
      cache: 'no-store',
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new NetworkError();
  }
  if (res.ok) return res;
  throw await toApiError(res, opts.signOutOn401 ?? true);
}

/** Reads a non-2xx response into an `ApiError` (and signs out on 401 unless told not to). */
export async function toApiError(res: Response, signOutOn401 = true): Promise<ApiError> {
  const retry = Number.parseInt(res.headers.get('Retry-After') ?? '', 10);
  const err = new ApiError(res.status, await readErrorBody(res), res.headers.get('X-Request-ID'), Number.isFinite(retry) && retry >= 0 ? retry : null);
  if (res.status === 401 && signOutOn401) credentials.notifyUnauthorized();
  return err;
}

async function readErrorBody(res: Response): Promise<ErrorBody> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    if (typeof body.error === 'string' && typeof body.message === 'string') return body as ErrorBody;
  } catch {
    // not JSON: fall through
  }
  return { error: `http_${res.status}`, message: `${`The server answered ${res.status} ${res.statusText || ''}`.trim()}.` };
}

/** JSON request → parsed JSON answer (or `undefined` for 204). */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(path, opts);
  if (res.status === 204) return undefined as T;
  try {
    return (await res.json()) as T;
  } catch {
    throw new NetworkError('The server sent an answer the admin UI could not read.');
  }
}

/** A user-facing sentence for any thrown value. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError || err instanceof NetworkError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

export type Progress = { loaded: number; total: number | null };

/**
 * Reads a download's body, reporting progress against `Content-Length`. A body cut short (fewer bytes than the
 * length said) is an error, never a short file.
 */
export async function readDownload(res: Response, type: string, onProgress?: (p: Progress) => void): Promise<Blob> {
  const length = Number(res.headers.get('Content-Length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let loaded = 0;
  onProgress?.({ loaded, total });
  if (res.body) {
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        loaded += value.byteLength;
        onProgress?.({ loaded, total });
      }
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      throw new NetworkError('The download was interrupted. Try again.');
    }
  }
  if (total !== null && loaded !== total) throw new NetworkError(`The download was cut short (${loaded} of ${total} bytes). Try again.`);
  return new Blob(chunks, { type });
}
