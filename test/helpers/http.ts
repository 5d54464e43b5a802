/**
 * A raw HTTP call for the sign-in and OAuth tests (cookies, Origin, JSON or form bodies, no redirect following), and
 * the password sign-in they start from.
 */
export interface RawInit {
  method?: string;
  json?: unknown;
  form?: Record<string, string>;
  cookie?: string;
  /** The Origin header: the given one, none with null, else `defaultOrigin` (when given). */
  origin?: string | null;
  /** A bearer token for the Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The body as JSON, or null (empty or not JSON: a page). */
  json: any;
  location: string | null;
}

/** POST when there is a body, GET otherwise (unless `method` says). `pathname` may also be an absolute URL. */
export async function rawCall(base: string, pathname: string, init: RawInit = {}, defaultOrigin?: string): Promise<RawAnswer> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', init.cookie);
  const origin = init.origin === null ? undefined : (init.origin ?? defaultOrigin);
  if (origin !== undefined) headers.set('origin', origin);
  if (init.token !== undefined && init.token !== null) headers.set('authorization', `Bearer ${init.token}`);
  let body: string | undefined;
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(init.json);
  } else if (init.form) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    body = new URLSearchParams(init.form).toString();
  }
  const r = await fetch(pathname.startsWith('http') ? pathname : base + pathname, {
    method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    body,
    redirect: 'manual',
  });
  const text = await r.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: r.status, headers: r.headers, text, json, location: r.headers.get('location') };
}

/** POSTs a password sign-in as the admin UI does (JSON, the server's exact Origin) and returns the answer as it is. */
export function postLogin(server: { url: string }, login: string, password: string): Promise<RawAnswer> {
  const base = server.url.replace(/\/+$/, '');
  return rawCall(base, '/api/auth/login', { json: { login, password } }, base);
}

/** Signs in `login` with `password` (a fresh session) and returns the Cookie header value; throws unless it answers 200. */
export async function signIn(server: { url: string }, login: string, password: string): Promise<string> {
  const r = await postLogin(server, login, password);
  if (r.status !== 200) throw new Error(`sign-in of ${login} failed: ${r.status} ${r.text}`);
  const cookie = r.headers.getSetCookie().find((c) => c.startsWith('hearth_session='));
  if (!cookie) throw new Error('the sign-in set no session cookie');
  return cookie.split(';')[0]!;
}
