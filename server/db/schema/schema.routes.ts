import { z } from 'zod';
import type { Api } from '../../core/http/api.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import { NsParams, openTenant } from '../plane.ts';
import {
  CascadeQuery,
  ChangelogEntry,
  ChangelogQuery,
  CreateIndexBody,
  CreateObjectBody,
  DeleteIndexBody,
  IndexSchema,
  ObjectList,
  ObjectSchema,
  UpdateObjectBody,
} from './schema.schemas.ts';
import type { SchemaService } from './schema.service.ts';

const tags = ['Schema'];
const TableParams = NsParams.extend({ table: z.string() });
const NOT_FOUND = { description: 'No such namespace or table (`namespace_not_found`, `table_not_found`).' };
const READ_ONLY = { description: 'The namespace is read-only (`namespace_read_only`), or the name is taken (`table_exists`, `index_exists`).' };
const DEPENDENT_VIEWS = {
  description:
    'The namespace is read-only (`namespace_read_only`); the new name is taken (`table_exists`, `column_exists`); views read what the change removes or renames (`dependent_views`, naming them; send `?cascade=true` to drop them too); or a view that was already broken stops SQLite (`conflict`).',
};

function withActor<T extends { _meta?: Record<string, unknown> }>(body: T, actor: string): Record<string, unknown> {
  return { ...body._meta, actor: body._meta?.actor ?? actor };
}

export function registerSchemaRoutes(api: Api, deps: { namespaces: NamespaceService; schema: SchemaService }): void {
  const { namespaces, schema } = deps;

  api.route({
    method: 'get',
    path: '/v1/:ns/tables',
    operationId: 'listTables',
    tags,
    access: 'authenticated',
    summary: 'List tables and views',
    description: 'Ordered by name. Objects whose names start with `_` or `sqlite_` belong to the service and are not listed.',
    params: NsParams,
    responses: { 200: { description: 'The objects.', schema: () => ObjectList }, 404: NOT_FOUND },
    handler: (ctx, { params }) => schema.list(openTenant(ctx, namespaces, params.ns, 'read').db),
  });

  api.route({
    method: 'post',
    path: '/v1/:ns/tables',
    operationId: 'createTable',
    tags,
    access: 'authenticated',
    summary: 'Create a table or view',
    description:
      "A table gets `id` (integer primary key), `created_at` and `updated_at` (UTC ISO 8601), maintained by the service, besides its columns. A view's `sql` must be one read-only SELECT.",
    params: NsParams,
    body: () => CreateObjectBody,
    responses: { 201: { description: 'The created object.', schema: () => ObjectSchema }, 404: NOT_FOUND, 409: READ_ONLY },
    handler: (ctx, { params, body }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'write');
      const out = schema.create({ ns: t.ns, db: t.db, readOnly: false }, { ...body, _meta: withActor(body, t.actor) });
      ctx.status = 201;
      ctx.set('Location', `/v1/${params.ns}/tables/${out.name}`);
      return out;
    },
  });

  api.route({
    method: 'get',
    path: '/v1/:ns/tables/:table',
    operationId: 'getTable',
    tags,
    access: 'authenticated',
    summary: 'Get a table or view schema',
    params: TableParams,
    responses: { 200: { description: 'The schema.', schema: () => ObjectSchema }, 404: NOT_FOUND },
    handler: (ctx, { params }) => schema.get(openTenant(ctx, namespaces, params.ns, 'read').db, params.table),
  });

  api.route({
    method: 'put',
    path: '/v1/:ns/tables/:table',
    operationId: 'updateTable',
    tags,
    access: 'authenticated',
    summary: 'Alter a table or view',
    description:
      'Only the operations sent are applied, all in one transaction with one changelog entry. Column changes rebuild the table (data, indexes and the full-text index are kept; an index over a dropped column is dropped and recorded as its own `drop_index` entry). `not_null` columns cannot be added to a table (existing rows would be NULL). ' +
      'Renaming a table keeps the views that read it working (SQLite rewrites them to the new name). Dropping or renaming a column a view reads, and renaming or changing the `sql` of a view another view reads, is refused with 409 `dependent_views` unless `cascade=true`. ' +
      'Renaming to the current name, or a column to its own name, changes nothing: such a request is answered 200 without a changelog entry or an event.',
    params: TableParams,
    query: () => CascadeQuery,
    body: () => UpdateObjectBody,
    responses: { 200: { description: 'The new schema.', schema: () => ObjectSchema }, 404: NOT_FOUND, 409: DEPENDENT_VIEWS },
    handler: (ctx, { params, query, body }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'write');
      return schema.update(
        { ns: t.ns, db: t.db, readOnly: false },
        params.table,
        { ...body, _meta: withActor(body, t.actor) },
        { cascade: query.cascade === 'true' },
      );
    },
  });

  api.route({
    method: 'delete',
    path: '/v1/:ns/tables/:table',
    operationId: 'dropTable',
    tags,
    access: 'authenticated',
    summary: 'Drop a table or view',
    description:
      'Drops the table (rows, indexes, full-text index) or view. A table or view that other views read is refused with 409 `dependent_views` naming them; with `cascade=true` those views are dropped too, each recorded in the changelog (`drop_view`, `detail: {dropped_with}`) and published before the drop itself. The optional JSON body `{_meta: {actor}}` is recorded.',
    params: TableParams,
    query: () => CascadeQuery,
    responses: {
      204: { description: 'Dropped.' },
      404: NOT_FOUND,
      409: { description: 'The namespace is read-only (`namespace_read_only`), or views read the object (`dependent_views`).' },
    },
    handler: async (ctx, { params, query }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'write');
      const body = (await readOptionalMeta(ctx)) ?? {};
      schema.drop({ ns: t.ns, db: t.db, readOnly: false }, params.table, withActor(body, t.actor), { cascade: query.cascade === 'true' });
      ctx.status = 204;
    },
  });

  api.route({
    method: 'post',
    path: '/v1/:ns/tables/:table/indexes',
    operationId: 'createIndex',
    tags,
    access: 'authenticated',
    summary: 'Create an index',
    description:
      '`index` and `unique` take a `name`; `fts` takes none (it is addressed as `fts`), indexes text or json columns with SQLite FTS5 and is kept in sync with the table by triggers. One fts index per table.',
    params: TableParams,
    body: () => CreateIndexBody,
    responses: { 201: { description: 'The index.', schema: () => IndexSchema }, 404: NOT_FOUND, 409: READ_ONLY },
    handler: (ctx, { params, body }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'write');
      const out = schema.createIndex({ ns: t.ns, db: t.db, readOnly: false }, params.table, { ...body, _meta: withActor(body, t.actor) });
      ctx.status = 201;
      return out;
    },
  });

  api.route({
    method: 'delete',
    path: '/v1/:ns/tables/:table/indexes/:index',
    operationId: 'dropIndex',
    tags,
    access: 'authenticated',
    summary: 'Drop an index',
    description: 'The optional JSON body `{_meta: {actor}}` is recorded in the changelog.',
    params: TableParams.extend({ index: z.string() }),
    responses: { 204: { description: 'Dropped.' }, 404: { description: 'No such namespace, table or index (`index_not_found`).' }, 409: READ_ONLY },
    handler: async (ctx, { params }) => {
      const t = openTenant(ctx, namespaces, params.ns, 'write');
      const body = (await readOptionalMeta(ctx)) ?? {};
      schema.dropIndex({ ns: t.ns, db: t.db, readOnly: false }, params.table, params.index, withActor(body, t.actor));
      ctx.status = 204;
    },
  });

  api.route({
    method: 'get',
    path: '/v1/:ns/changelog',
    operationId: 'changelog',
    tags,
    access: 'authenticated',
    summary: 'Schema changelog',
    description:
      'Newest first. Each schema change writes one entry in the same transaction as the change; what it did besides (views dropped with `cascade`, indexes dropped with their columns) gets entries of its own just before it. `table` selects the history of one table or view across its renames.',
    params: NsParams,
    query: () => ChangelogQuery,
    responses: { 200: { description: 'Entries.', schema: () => z.array(ChangelogEntry) }, 404: NOT_FOUND },
    handler: (ctx, { params, query }) => schema.changelog(openTenant(ctx, namespaces, params.ns, 'read').db, query),
  });
}

/** DELETE may carry `{_meta}`; any other body is refused. */
async function readOptionalMeta(ctx: import('../../core/http/app-context.ts').AppContext): Promise<{ _meta?: Record<string, unknown> } | undefined> {
  const { readJsonBody } = await import('../../core/http/body.ts');
  const raw = await readJsonBody(ctx, 64 * 1024);
  if (raw === undefined) return undefined;
  const parsed = DeleteIndexBody.safeParse(raw);
  if (!parsed.success) {
    const { HearthError } = await import('../../core/http/errors.ts');
    throw new HearthError('invalid_request', 'body: only {_meta: {actor}} is accepted here');
  }
  return parsed.data;
}
