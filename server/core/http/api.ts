import Router from '@koa/router';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { HearthError } from './errors.ts';
import { readJsonBody } from './body.ts';
import type { AppContext, AppState } from './context.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route. `custom` leaves the check to the handler (for example namespace-scoped tokens). */
export type Access = 'public' | 'authenticated' | 'admin';

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteDef<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType> {
  method: Method;
  /** Koa-style path, e.g. `/v1/namespaces/:ns`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** Documented request body other than JSON (e.g. multipart); the handler reads it itself. */
  rawBody?: { contentType: string; schema: z.ZodType; description?: string };
  responses: Record<number, ResponseDef>;
  handler: (
    ctx: AppContext,
    input: { params: z.infer<P>; query: z.infer<Q>; body: z.infer<B> },
  ) => unknown | Promise<unknown>;
}

export const ErrorSchema = z
  .object({
    error: z.string().meta({ description: 'Stable error code (snake_case).', example: 'invalid_request' }),
    message: z.string().meta({ description: 'Human-readable explanation.' }),
  })
  .meta({ id: 'Error' });

const COMMON_ERRORS: Record<number, string> = {
  400: 'Invalid request (`invalid_request`, `invalid_json`).',
  401: 'Missing or invalid bearer token (`unauthorized`).',
  403: 'The token is valid but not allowed here (`forbidden`).',
  413: 'Body larger than the limit (`payload_too_large`).',
  415: 'Body is not `application/json` (`unsupported_media_type`).',
  500: 'Internal failure (`internal_error`).',
};

export type Authenticator = (ctx: AppContext, access: Access) => void;

/** Routes and their OpenAPI description, from the same zod schemas that validate requests. */
export class Api {
  readonly router = new Router<AppState>({ sensitive: true });
  readonly registry = new OpenAPIRegistry();
  private readonly authenticate: Authenticator;
  private readonly jsonLimit: number;

  constructor(opts: { authenticate: Authenticator; jsonBodyLimit: number }) {
    this.authenticate = opts.authenticate;
    this.jsonLimit = opts.jsonBodyLimit;
    this.registry.registerComponent('securitySchemes', 'bearer', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API token (`hth_…`) or the `HEARTH_ADMIN_TOKEN`.',
    });
  }

  route<P extends z.ZodType = z.ZodObject<{}>, Q extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodUndefined>(
    def: RouteDef<P, Q, B>,
  ): void {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description };
    }
    const errorStatuses = new Set<number>([500]);
    if (def.params || def.query || def.body || def.rawBody) errorStatuses.add(400);
    if (def.access !== 'public') errorStatuses.add(401);
    if (def.access === 'admin') errorStatuses.add(403);
    if (def.body) errorStatuses.add(413).add(415);
    for (const s of errorStatuses) {
      if (!responses[s]) responses[s] = { description: COMMON_ERRORS[s], content: { 'application/json': { schema: ErrorSchema } } };
    }
    for (const [status, r] of Object.entries(responses)) {
      if (Number(status) >= 400 && !(r as { content?: unknown }).content) {
        (r as { content?: unknown }).content = { 'application/json': { schema: ErrorSchema } };
      }
    }
    this.registry.registerPath({
      method: def.method,
      path: def.path.replace(/:([A-Za-z_]+)/g, '{$1}'),
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      tags: def.tags,
      security: def.access === 'public' ? [] : [{ bearer: [] }],
      request: {
        params: def.params as never,
        query: def.query as never,
        body: def.body
          ? { required: true, content: { 'application/json': { schema: def.body } } }
          : def.rawBody
            ? { required: true, description: def.rawBody.description, content: { [def.rawBody.contentType]: { schema: def.rawBody.schema } } }
            : undefined,
      },
      responses: responses as never,
    });

    this.router[def.method](def.path, async (ctx) => {
      const c = ctx as unknown as AppContext;
      this.authenticate(c, def.access);
      const params = def.params ? parse(def.params, ctx.params, 'path') : {};
      const query = def.query ? parse(def.query, ctx.query, 'query') : {};
      let body: unknown = undefined;
      if (def.body) {
        const raw = await readJsonBody(c, this.jsonLimit);
        if (raw === undefined) throw new HearthError('invalid_request', 'a JSON request body is required');
        body = parse(def.body, raw, 'body');
      }
      const result = await def.handler(c, { params, query, body } as never);
      if (result !== undefined) ctx.body = result;
    });
  }

  document(info: { version: string; serverUrl?: string }) {
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

function parse<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = issue.path.length ? issue.path.join('.') : where;
  let message = issue.message;
  if (where === 'body' && issue.path.length === 0 && Array.isArray(value)) {
    message = 'expected a JSON object; a top-level array is rejected (to insert several rows send {"rows": [...]})';
  } else if (where === 'body' && issue.path.length === 0 && (value === null || typeof value !== 'object')) {
    message = 'expected a JSON object';
  }
  if (issue.code === 'unrecognized_keys') message = `unknown ${issue.keys.length > 1 ? 'keys' : 'key'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
  throw new HearthError('invalid_request', `${where === 'body' || where === 'query' ? `${where}: ` : ''}${at === where ? '' : `${at}: `}${message}`);
}
