/**
 * The route kit: `Api.route` and `Api.hotRoute` turn one route declaration (`RouteDef`) into its Koa handler
 * (authentication, validation, `cache` and `cors`), its OpenAPI entry, its preflight and, for a hot route, its entry in
 * the hot dispatcher; `parse` is the validation they share with input that does not arrive by HTTP.
 *
 * One file because every option of `RouteDef` is read in these few places and a new option is added to all of them at
 * once. The router prefilter at the end (`prefilterMatch`, a faster matcher over @koa/router's internals) is a
 * separate concern that lives here only because the constructor installs it.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import Router from '@koa/router';
import { z } from 'zod';
import type { AppContext, AppState, HotContext } from './app-context.ts';
import { formatBytes, readJsonBody } from './body.ts';
import { HearthError, QUOTE_LIMIT, quoteInput } from './errors.ts';
import { HotRoutes } from './hot.ts';
import { setBody } from './json-body.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone (`public`), any valid credential (`authenticated`: what it may reach — a namespace-scoped
 * token's namespaces, say — is checked by the handler), or an administrator (`admin`).
 */
export type Access = 'public' | 'authenticated' | 'admin';

/**
 * A value, or a function that makes or names it when it is first needed: a route definition names its schemas so
 * (`body: () => SendBody`), which lets a start build none of them (see `Api`).
 */
export type Lazy<T> = T | (() => T);

export interface ResponseDef {
  description: string;
  schema?: Lazy<z.ZodType>;
  contentType?: string;
}

/**
 * Reads of a route's answers by pages of other origins (CORS, `RouteDef.cors`). Set where `cache` is (once the
 * request has passed validation, before the handler runs), so every answer of the handler carries it, its errors too.
 * - `origins: 'any'`: `Access-Control-Allow-Origin: *`, the same answer for every origin (so no `Vary`), never with
 *   credentials (the fetch standard refuses `*` with them): endpoints that take no cookies (OAuth's token endpoint).
 * - `origins: (origin, ctx) => …`: the request's `Origin` when the function allows it (an allow-list, e.g. one per
 *   application), with `Access-Control-Allow-Credentials: true` when `credentials`; nothing for any other origin or
 *   none. Every answer, allowed or not, carries `Vary: Origin`.
 * - `exposeHeaders`: the answer headers such a page may read beyond the safelisted ones (`WWW-Authenticate`).
 * The route's path also answers the preflight (`OPTIONS`, 204; `Vary: Origin` as above); for an allowed origin with
 * `Access-Control-Allow-Origin` (and `-Credentials`), `Access-Control-Allow-Methods` (`GET, POST`, which are always
 * allowed, then any other method of the path's CORS routes), `Access-Control-Allow-Headers` (`allowHeaders`, default
 * `Content-Type`) and `Access-Control-Max-Age: 600`. The routes of one path take the same `Cors` value.
 */
export type Cors = { allowHeaders?: readonly string[]; exposeHeaders?: readonly string[] } & (
  | { origins: 'any'; credentials?: never }
  | { origins: (origin: string, ctx: AppContext | HotContext) => boolean | Promise<boolean>; credentials?: boolean }
);

export interface RouteDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: Method;
  /** Koa-style path, e.g. `/v1/namespaces/:ns`. */
  path: string;
  operationId: string;
  summary: string;
  description?: Lazy<string>;
  tags: string[];
  access: Access;
  params?: Lazy<P>;
  /**
   * The query string's schema. Without one, a route under `/v1/` or `/api/` takes no query string: any key is 400
   * `query: unknown key …`, as a schema's strictness would say (unless `readsQuery`).
   */
  query?: Lazy<Q>;
  /** The handler reads the query string itself (the rows API's filters, where every key is a column or a keyword). */
  readsQuery?: boolean;
  body?: Lazy<B>;
  /** The JSON body may be left out entirely: it is then validated as `{}` (every member of `body` optional). */
  bodyOptional?: boolean;
  /**
   * This route's JSON body limit in bytes instead of the server's `jsonBodyLimit` (HEARTH_JSON_BODY_LIMIT). `{max: n}`
   * lowers it: at most n, or the server's limit when that is smaller (small routes: sign-in, setup, credentials). A
   * number raises it: at least n, or the server's limit when that is larger (mail with attachments).
   */
  bodyLimit?: number | { max: number };
  /** Documented request body other than JSON (e.g. multipart); the handler reads it itself. */
  rawBody?: Lazy<{ contentType: string; schema: Lazy<z.ZodType>; description?: string }>;
  responses: Record<number, ResponseDef>;
  /**
   * `'no-store'`: the answers of this route are never stored by a cache (`Cache-Control: no-store` and, for HTTP/1.0
   * caches, `Pragma: no-cache`, as RFC 6749 §5.1 asks of token answers): every route that answers secrets, personal
   * data or state that changes under the reader. Set once the request has passed validation, before the handler runs,
   * so that every answer of the handler carries it, its errors included.
   */
  cache?: 'no-store';
  /** Who may read this route's answers from other origins, and its preflight (see `Cors`). */
  cors?: Cors;
  /**
   * Called when the request's path, query or body is refused (after authentication, before the error answers), with
   * the error and the parsed JSON body if there was one: e.g. to audit refused calls. The body must not be logged.
   */
  onInvalid?: (ctx: AppContext, err: HearthError, rawBody: unknown) => void | Promise<void>;
  handler: (ctx: AppContext, input: { params: z.infer<P>; query: z.infer<Q>; body: z.infer<B> }) => unknown | Promise<unknown>;
}

/**
 * A hot route (server/core/http/hot.ts): no query or JSON-body schema (it reads its own body), handled with a
 * `HotContext`; path parameters are plain strings (`params` documents them). `access` defaults to `public`.
 */
/** The schema of a route without path parameters, query or body (`{}`). */
export type NoParams = z.ZodObject<Record<never, never>>;

export type HotRouteDef<P extends z.ZodType = NoParams> = Omit<RouteDef<P, z.ZodType, z.ZodType>, 'access' | 'query' | 'body' | 'bodyLimit' | 'handler'> & {
  access?: Access;
  handler: (ctx: HotContext, params: z.infer<P>) => Promise<unknown>;
  /** Leave this request to Koa (see `HotEntry.handOff`). */
  handOff?: (params: Record<string, string>, err?: unknown) => boolean;
};

export const ErrorSchema = z
  .object({
    error: z.string().meta({ description: 'Stable error code (snake_case).', example: 'invalid_request' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
    in: z
      .enum(['body', 'query', 'path'])
      .optional()
      .meta({ description: 'Of a request that fails validation (`invalid_request`): the part of the request the problem is in.' }),
    field: z.string().optional().meta({
      description:
        'Of a request that fails validation (`invalid_request`): the dotted path of the value the problem is about inside `in`, as the message writes it (`config.busy_timeout`); absent when the problem is about the whole body or query string (an unknown key, a body that is not a JSON object).',
      example: 'config.busy_timeout',
    }),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: 'Structured detail, only where a route documents it (e.g. every refused line of a CSV import).' }),
  })
  .meta({ id: 'Error' });

const COMMON_ERRORS: Record<number, string> = {
  400: 'Invalid request (`invalid_request`, `invalid_json`).',
  401: 'Missing or invalid bearer token (`unauthorized`).',
  403: 'The token is valid but not allowed here (`forbidden`).',
  404: 'The path names something that does not exist (`not_found`, or the code of what is missing).',
  415: 'Body is not of the media type this operation reads (`unsupported_media_type`).',
  500: 'Internal failure (`internal_error`).',
};

/** Authenticates a request for a route's access (sets `ctx.state.principal`); works on Koa's and the hot dispatcher's contexts. */
export type Authenticator = (ctx: AppContext | HotContext, access: Access) => void | Promise<void>;

/**
 * Routes and their OpenAPI description, from the same zod schemas that validate requests.
 *
 * A route's schemas are read only when they are needed: its validators (path, query, body) once, on its first request
 * or when `document()` is first called, whichever comes first; what only the document shows (responses, a raw body,
 * the description) by `document()`, which adds every route's description in the order the routes were added. A route
 * definition names its schemas through functions (`body: () => SendBody`, see `Lazy`), so that a start builds none of
 * them: the server's bundle builds each `*.schemas.ts` module on the first read of one of its exports (build/shims.ts).
 */
export class Api {
  readonly router = new Router<AppState>({ sensitive: true });
  readonly registry = new OpenAPIRegistry();
  /** Hot routes (see server/core/http/hot.ts). */
  readonly hot = new HotRoutes();
  readonly authenticate: Authenticator;
  private readonly jsonLimit: number;
  /** The routes whose OpenAPI description is not in the registry yet, in the order they were added (see `route`). */
  private readonly unregistered: Array<() => void> = [];
  /** The CORS of each path with CORS routes and those routes' methods, which its preflight answers (see `Cors`). */
  private readonly preflights = new Map<string, { cors: Cors; methods: Set<string> }>();

  /** `prefilter: false` leaves @koa/router's matcher as it is (the routing benchmark's baseline; default true). */
  constructor(opts: { authenticate: Authenticator; jsonBodyLimit: number; prefilter?: boolean }) {
    this.authenticate = opts.authenticate;
    this.jsonLimit = opts.jsonBodyLimit;
    if (opts.prefilter !== false) prefilterMatch(this.router);
    this.registry.registerComponent('securitySchemes', 'bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API token (`hth_…`) or the `HEARTH_ADMIN_TOKEN`.',
    });
  }

  route<P extends z.ZodType = NoParams, Q extends z.ZodType = NoParams, B extends z.ZodType = z.ZodUndefined>(def: RouteDef<P, Q, B>): void {
    const bodyLimit = this.bodyLimitOf(def);
    let read: Validators | undefined;
    const validators = () => (read ??= readValidators(def));
    const strictQuery = !def.query && !def.readsQuery && (def.path.startsWith('/v1/') || def.path.startsWith('/api/'));
    this.unregistered.push(() => this.registerPath(def, validators(), bodyLimit, strictQuery));
    if (def.cors) this.preflight(def.path, def.method, def.cors);
    this.router[def.method](def.path, async (ctx) => {
      const c = ctx as unknown as AppContext;
      const pending = this.authenticate(c, def.access);
      if (pending) await pending;
      let params: unknown = {};
      let query: unknown = {};
      let body: unknown;
      let raw: unknown;
      const v = validators();
      try {
        if (v.params) params = (v.stringParams && pickStrings(v.stringParams, ctx.params)) ?? parse(v.params, ctx.params, 'path');
        if (v.query) query = parse(v.query, ctx.query, 'query');
        else if (strictQuery && ctx.querystring !== '') refuseQuery(ctx.querystring);
        if (v.body) {
          raw = await readJsonBody(c, bodyLimit);
          if (raw === undefined && !def.bodyOptional) throw new HearthError('invalid_request', 'a JSON request body is required');
          body = parse(v.body, raw === undefined ? {} : raw, 'body');
        }
      } catch (err) {
        if (def.onInvalid && err instanceof HearthError) await def.onInvalid(c, err, raw);
        throw err;
      }
      if (def.cache === 'no-store') noStore(c);
      if (def.cors) {
        const pending = corsAnswer(c, def.cors);
        if (pending) await pending;
      }
      const result = await def.handler(c, { params, query, body } as never);
      if (result !== undefined) setBody(ctx, result);
    });
  }

  /** Answers the preflight of `path` (once per path) for its CORS routes (see `Cors`). */
  private preflight(path: string, method: Method, cors: Cors): void {
    const known = this.preflights.get(path);
    if (known) {
      if (known.cors !== cors) throw new Error(`the routes of ${path} must share one cors value`);
      known.methods.add(method.toUpperCase());
      return;
    }
    const methods = new Set(['GET', 'POST', method.toUpperCase()]);
    this.preflights.set(path, { cors, methods });
    const allowHeaders = (cors.allowHeaders ?? ['Content-Type']).join(', ');
    this.router.options(path, async (ctx) => {
      const c = ctx as unknown as AppContext;
      const pending = allowedOrigin(c, cors);
      const origin = pending instanceof Promise ? await pending : pending;
      if (origin !== null) {
        allowOrigin(c, cors, origin);
        c.set('Access-Control-Allow-Methods', [...methods].join(', '));
        c.set('Access-Control-Allow-Headers', allowHeaders);
        c.set('Access-Control-Max-Age', '600');
      }
      c.status = 204;
    });
  }

  /** A route's OpenAPI description (its responses with the common errors), added to the registry by `document()`. */
  private registerPath(def: RouteDef<z.ZodType, z.ZodType, z.ZodType>, v: Validators, bodyLimit: number, strictQuery: boolean): void {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      const schema = made(r.schema);
      responses[status] = schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema } } }
        : { description: r.description };
    }
    const rawBody = made(def.rawBody);
    const errorStatuses = new Set<number>([500]);
    if (v.params || v.query || v.body || rawBody || strictQuery) errorStatuses.add(400);
    if (def.access !== 'public') errorStatuses.add(401).add(403);
    if (v.params) errorStatuses.add(404);
    if (v.body) errorStatuses.add(413).add(415);
    if (rawBody) errorStatuses.add(415);
    for (const s of errorStatuses) {
      const description = s === 413 ? this.bodyLimitText(def, bodyLimit) : COMMON_ERRORS[s];
      if (!responses[s]) responses[s] = { description, content: { 'application/json': { schema: ErrorSchema } } };
    }
    for (const [status, r] of Object.entries(responses)) {
      const res = r as { content?: Record<string, unknown> };
      if (Number(status) >= 400 && !res.content) res.content = { 'application/json': { schema: ErrorSchema } };
      // A route that answers its own 400 as a page (an HTML error page) still refuses input it cannot read before its
      // handler runs, and that refusal is the JSON envelope.
      else if (status === '400' && errorStatuses.has(400) && res.content && !res.content['application/json'])
        res.content['application/json'] = { schema: ErrorSchema };
    }
    this.registry.registerPath({
      method: def.method,
      path: def.path.replace(/:([A-Za-z_]+)/g, '{$1}'),
      operationId: def.operationId,
      summary: def.summary,
      description: made(def.description),
      tags: def.tags,
      security: def.access === 'public' ? [] : [{ bearer: [] }],
      request: {
        params: v.params as never,
        query: v.query as never,
        body: v.body
          ? { required: !def.bodyOptional, content: { 'application/json': { schema: v.body } } }
          : rawBody
            ? { required: true, description: rawBody.description, content: { [rawBody.contentType]: { schema: made(rawBody.schema) } } }
            : undefined,
      },
      responses: responses as never,
    });
  }

  /** The JSON body limit of a route (see `RouteDef.bodyLimit`). */
  private bodyLimitOf(def: { bodyLimit?: number | { max: number } }): number {
    const l = def.bodyLimit;
    if (l === undefined) return this.jsonLimit;
    return typeof l === 'number' ? Math.max(this.jsonLimit, l) : Math.min(this.jsonLimit, l.max);
  }

  /** The OpenAPI description of a route's 413. */
  private bodyLimitText(def: { bodyLimit?: number | { max: number } }, limit: number): string {
    const size = formatBytes(limit);
    if (def.bodyLimit === undefined) return `Body larger than ${size}, this server's JSON body limit (HEARTH_JSON_BODY_LIMIT) (\`payload_too_large\`).`;
    if (typeof def.bodyLimit === 'number')
      return `Body larger than ${size}, this route's limit (or HEARTH_JSON_BODY_LIMIT when larger) (\`payload_too_large\`).`;
    return `Body larger than ${size}, this route's small limit (HEARTH_JSON_BODY_LIMIT only lowers it) (\`payload_too_large\`).`;
  }

  /**
   * A route the hot dispatcher answers without Koa (server/core/http/hot.ts). It is registered as a normal route too
   * (OpenAPI, preflight, HEAD and 405 for other methods, and the same handler for a request that reaches Koa: a
   * trailing slash, a session cookie instead of an `Authorization` header).
   */
  hotRoute<P extends z.ZodType = NoParams>(def: HotRouteDef<P>): void {
    const access = def.access ?? 'public';
    this.route<P>({ ...def, access, handler: (ctx, { params }) => def.handler(ctx, params) });
    this.hot.add({
      method: def.method.toUpperCase(),
      path: def.path,
      access,
      // A strict route's request with a query string goes to Koa, which refuses it as `route` does.
      takesQuery: !!def.readsQuery || !(def.path.startsWith('/v1/') || def.path.startsWith('/api/')),
      handler: (def.cache === 'no-store' || def.cors
        ? (ctx: HotContext, params: z.infer<P>) => {
            if (def.cache === 'no-store') noStore(ctx);
            const pending = def.cors && corsAnswer(ctx, def.cors);
            return pending ? pending.then(() => def.handler(ctx, params)) : def.handler(ctx, params);
          }
        : def.handler) as (ctx: HotContext, params: Record<string, string>) => Promise<unknown>,
      handOff: def.handOff,
    });
  }

  document(info: { version: string; serverUrl?: string }) {
    for (const register of this.unregistered.splice(0)) register();
    const generator = new OpenApiGeneratorV31(this.registry.definitions);
    return generator.generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'Hearth API',
        version: info.version,
        description:
          'Every non-2xx answer is `{error, message}` with a stable `error` code. Every response carries `X-Request-ID`. See docs/ in the repository for the narrative reference.',
      },
      servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    });
  }
}

/** `Cache-Control: no-store` and `Pragma: no-cache` on an answer (what `RouteDef.cache` sets): for a handler whose answers differ, which sets it on some of them. */
export function noStore(ctx: Pick<HotContext, 'set'>): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
}

/** What CORS needs of a request context (a Koa context or a hot route's). */
type CorsContext = Pick<HotContext, 'get' | 'set' | 'res'>;

/**
 * The `Access-Control-Allow-Origin` of a request under `cors` (null: its origin is not allowed), after adding
 * `Vary: Origin` to the answer when that depends on the origin.
 */
function allowedOrigin(ctx: CorsContext, cors: Cors): string | null | Promise<string | null> {
  if (cors.origins === 'any') return '*';
  varyOrigin(ctx.res);
  const origin = ctx.get('origin');
  if (!origin) return null;
  const ok = cors.origins(origin, ctx as AppContext | HotContext);
  return ok instanceof Promise ? ok.then((yes) => (yes ? origin : null)) : ok ? origin : null;
}

function allowOrigin(ctx: CorsContext, cors: Cors, origin: string): void {
  ctx.set('Access-Control-Allow-Origin', origin);
  if (cors.credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
}

/** The CORS headers of an answer of a route with `cors` (a promise only when its origin test answers one). */
function corsAnswer(ctx: CorsContext, cors: Cors): Promise<void> | undefined {
  const answer = (origin: string | null) => {
    if (origin === null) return;
    allowOrigin(ctx, cors, origin);
    if (cors.exposeHeaders?.length) ctx.set('Access-Control-Expose-Headers', cors.exposeHeaders.join(', '));
  };
  const origin = allowedOrigin(ctx, cors);
  if (origin instanceof Promise) return origin.then(answer);
  answer(origin);
  return undefined;
}

/** Adds `Origin` to the answer's `Vary` (as Koa's `ctx.vary`: once, and never beside `*`). */
function varyOrigin(res: HotContext['res']): void {
  const current = res.getHeader('Vary');
  const value = Array.isArray(current) ? current.join(', ') : current === undefined ? '' : String(current);
  if (value === '') res.setHeader('Vary', 'Origin');
  else if (!value.split(',').some((f) => ['*', 'origin'].includes(f.trim().toLowerCase()))) res.setHeader('Vary', `${value}, Origin`);
}

/** The answer of a route that takes no query string to one that has keys (as a strict schema's `unrecognized_keys`). */
function refuseQuery(querystring: string): never {
  const keys = [...new Set([...new URLSearchParams(querystring).keys()])];
  const fields = { in: 'query' };
  if (keys.length === 0) throw new HearthError('invalid_request', 'query: this endpoint takes no query string', { fields });
  const shown = keys.slice(0, 5).map((k) => quoteInput(k));
  throw new HearthError(
    'invalid_request',
    `query: unknown ${keys.length > 1 ? 'keys' : 'key'} ${shown.join(', ')}${keys.length > shown.length ? ` and ${keys.length - shown.length} more` : ''}`,
    { fields },
  );
}

/** A route's validators, read from its definition once (see `Api`). */
interface Validators {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** See `plainStringKeys`. */
  stringParams: string[] | null;
}

function readValidators(def: RouteDef<z.ZodType, z.ZodType, z.ZodType>): Validators {
  const params = made(def.params);
  return { params, query: made(def.query), body: made(def.body), stringParams: params ? plainStringKeys(params) : null };
}

/** What a `Lazy` names (a zod schema is never a function). */
function made<T>(value: Lazy<T> | undefined): T | undefined {
  return typeof value === 'function' ? (value as () => T)() : value;
}

/** The keys of a `z.object` of plain `z.string()` fields (no checks, no catchall), which zod parses by picking them. */
function plainStringKeys(schema: z.ZodType): string[] | null {
  if (!(schema instanceof z.ZodObject) || schema._zod.def.catchall !== undefined) return null;
  const keys = Object.keys(schema.shape);
  for (const k of keys) {
    const field = schema.shape[k];
    if (!(field instanceof z.ZodString) || Object.keys(field._zod.def).some((d) => d !== 'type' && !(d === 'checks' && field._zod.def.checks!.length === 0)))
      return null;
  }
  return keys;
}

/** What zod would answer for such a schema when every key holds a string; null (let zod say why) otherwise. */
function pickStrings(keys: string[], value: Record<string, unknown>): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = value[k];
    if (typeof v !== 'string') return null;
    out[k] = v;
  }
  return out;
}

/**
 * @koa/router tests every layer's regexp on every request. Layers whose path is plain `/literal` and `/:param`
 * segments can only match a path with the same number of segments and the same literals, so only those (and any
 * other layer, in stack order) are handed to the router's own matcher: the result is the same, found faster.
 *
 * It swaps the router's private `stack` around a call of its `match`: test/integration/core/router-prefilter.test.ts
 * pins those internals (@koa/router 15.7) and compares the routing with and without it on the real route table.
 * What it earns on a light route answered by Koa (one row by id with the hot routes off; bench/routing.bench.ts,
 * `BENCH_ROUTING_ROUNDS=11 npm run bench -- routing`, three runs on a shared 2-core machine): 1.20–1.28× lower p50,
 * 1.05–1.30× requests/s, 1.17–1.25× less server CPU per request; on the token endpoint (RSA-bound) about 5 %.
 */
const SIMPLE_PATH = /^(?:\/(?:[A-Za-z0-9_.-]+|:[A-Za-z_]+))+\/?$/;
type Layer = { path: string; methods: string[] };
function prefilterMatch(router: Router<AppState>): void {
  const r = router as unknown as { stack: Layer[]; match: (path: string, method: string) => unknown };
  const match = r.match;
  let built = -1;
  let byCount = new Map<number, Layer[]>();
  let others: Layer[] = [];
  const build = () => {
    built = r.stack.length;
    const simple: Array<{ layer: Layer; segs: string[] } | null> = r.stack.map((layer) =>
      typeof layer.path === 'string' && layer.methods.length > 0 && SIMPLE_PATH.test(layer.path)
        ? { layer, segs: layer.path.replace(/\/$/, '').split('/').slice(1) }
        : null,
    );
    others = r.stack.filter((_, i) => !simple[i]);
    byCount = new Map();
    for (const s of simple) if (s && !byCount.has(s.segs.length)) byCount.set(s.segs.length, []);
    for (const [n, list] of byCount) for (let i = 0; i < r.stack.length; i++) if (!simple[i] || simple[i]!.segs.length === n) list.push(r.stack[i]!);
    literals = new Map(simple.filter((s) => s !== null).map((s) => [s!.layer, s!.segs.map((x) => (x.startsWith(':') ? null : x))]));
  };
  let literals = new Map<Layer, Array<string | null>>();
  r.match = function (this: { stack: Layer[] }, path: string, method: string) {
    if (built !== r.stack.length) build();
    const segs = (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).split('/');
    if (segs[0] !== '') return match.call(this, path, method);
    segs.shift();
    const candidates = (byCount.get(segs.length) ?? others).filter((layer) => {
      const lits = literals.get(layer);
      if (!lits) return true;
      for (let i = 0; i < lits.length; i++) if (lits[i] !== null && lits[i] !== segs[i]) return false;
      return true;
    });
    const stack = this.stack;
    this.stack = candidates;
    try {
      return match.call(this, path, method);
    } finally {
      this.stack = stack;
    }
  };
}

/**
 * Validates `value` with `schema` as a route validates its input: the first issue becomes 400 `invalid_request`
 * (`body: subject: …`). Also for input that arrives other than by HTTP (e.g. Core's own mail).
 *
 * The envelope names where the problem is: `in` (`body`, `query` or `path`) and `field`, the dotted path of the value
 * inside it as the message writes it (`config.busy_timeout`; a long key quoted and cut), left out when the issue is
 * about the whole body or query string (an unknown key, a body that is not an object). A form puts the message next
 * to its field from these two members, never from the message's text.
 */
export function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // A path segment can be a client's key (a record's): quoted and cut when it is long.
  const at = issue.path.length ? issue.path.map((p) => (typeof p === 'string' && p.length > QUOTE_LIMIT ? quoteInput(p) : String(p))).join('.') : where;
  let message = issue.message;
  if (where === 'body' && issue.path.length === 0 && Array.isArray(value)) {
    message = 'expected a JSON object; a top-level array is rejected (to insert several rows send {"rows": [...]})';
  } else if (where === 'body' && issue.path.length === 0 && (value === null || typeof value !== 'object')) {
    message = 'expected a JSON object';
  }
  if (issue.code === 'unrecognized_keys') {
    const shown = issue.keys.slice(0, 5).map((k) => quoteInput(k));
    const more = issue.keys.length - shown.length;
    message = `unknown ${issue.keys.length > 1 ? 'keys' : 'key'} ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  }
  const fields: Record<string, string> = where === 'body' || where === 'query' || where === 'path' ? { in: where } : {};
  if (issue.path.length) fields.field = at;
  throw new HearthError('invalid_request', `${where === 'body' || where === 'query' ? `${where}: ` : ''}${at === where ? '' : `${at}: `}${message}`, {
    fields,
  });
}
