import fs from 'node:fs';
import { z } from 'zod';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import { HearthError } from '../../core/http/errors.ts';
import { discardUpload, receiveSingleFile } from '../../core/http/multipart.ts';
import {
  CreateNamespaceBody,
  DuplicateNamespaceBody,
  ImportQuery,
  ImportUpload,
  ListNamespacesQuery,
  NamespaceList,
  NamespaceParams,
  NamespaceRecord,
  UpdateNamespaceBody,
} from './namespaces.schemas.ts';
import type { NamespaceService } from './namespaces.service.ts';

const tags = ['Namespaces'];
const NOT_FOUND = { description: 'No such namespace (`namespace_not_found`).' };

export function registerNamespaceRoutes(
  api: Api,
  deps: { namespaces: NamespaceService; uploadLimit: number; uploadMemoryLimit: number; importTable?: ImportTableHandler },
): void {
  const svc = deps.namespaces;

  api.route({
    method: 'post',
    path: '/v1/namespaces',
    operationId: 'createNamespace',
    tags,
    access: 'admin',
    summary: 'Create a namespace',
    description:
      'Creates an empty SQLite database. Omitted settings take their defaults. With several nodes (replicas sharing one core store) it is placed on `node`, or on the healthy node holding the fewest namespaces; on another node `storage` is `null` until that node has created the database.',
    body: () => CreateNamespaceBody,
    responses: {
      201: { description: 'Created.', schema: () => NamespaceRecord },
      400: { description: 'A bad name or setting (`invalid_request`), or `node` names no registered node (`node_unknown`).' },
      409: { description: 'The name is taken (`namespace_exists`), or `node` is not healthy (`node_unavailable`).' },
      507: { description: 'The disk holding the data folder is full (`disk_full`); nothing was created.' },
    },
    handler: async (ctx, { body }) => {
      ctx.state.namespace = body.name;
      const rec = await svc.create(body, actorFor(ctx));
      ctx.status = 201;
      ctx.set('Location', `/v1/namespaces/${rec.name}`);
      return rec;
    },
  });

  api.route({
    method: 'get',
    path: '/v1/namespaces',
    operationId: 'listNamespaces',
    tags,
    access: 'admin',
    summary: 'List namespaces',
    description:
      'Ordered by name. Reads only the registry: no tenant database is opened. Pass `next_cursor` as `cursor` for the next page; it is `null` on the last page.',
    query: () => ListNamespacesQuery,
    responses: { 200: { description: 'A page of namespaces.', schema: () => NamespaceList } },
    handler: (_ctx, { query }) => svc.list(query),
  });

  api.route({
    method: 'get',
    path: '/v1/namespaces/:ns',
    operationId: 'getNamespace',
    tags,
    access: 'admin',
    summary: 'Get a namespace',
    params: () => NamespaceParams,
    responses: { 200: { description: 'The namespace record.', schema: () => NamespaceRecord }, 404: NOT_FOUND },
    handler: (ctx, { params }) => {
      ctx.state.namespace = params.ns;
      return svc.get(params.ns);
    },
  });

  api.route({
    method: 'put',
    path: '/v1/namespaces/:ns',
    operationId: 'replaceNamespaceConfig',
    tags,
    access: 'admin',
    summary: 'Replace the configuration',
    description: 'Replaces the whole configuration (settings left out return to their defaults) and applies it to the open connection at once.',
    params: () => NamespaceParams,
    body: () => UpdateNamespaceBody,
    responses: {
      200: { description: 'The updated record.', schema: () => NamespaceRecord },
      404: NOT_FOUND,
      409: { description: 'The settings could not be applied now (`conflict`).' },
    },
    handler: (ctx, { params, body }) => {
      ctx.state.namespace = params.ns;
      return svc.updateConfig(params.ns, body.config, actorFor(ctx));
    },
  });

  api.route({
    method: 'delete',
    path: '/v1/namespaces/:ns',
    operationId: 'deleteNamespace',
    tags,
    access: 'admin',
    summary: 'Delete a namespace and its database',
    params: () => NamespaceParams,
    responses: { 204: { description: 'Deleted.' }, 404: NOT_FOUND },
    handler: async (ctx, { params }) => {
      ctx.state.namespace = params.ns;
      await svc.delete(params.ns, actorFor(ctx));
      ctx.status = 204;
    },
  });

  api.route({
    method: 'post',
    path: '/v1/namespaces/:ns/duplicate',
    operationId: 'duplicateNamespace',
    tags,
    access: 'admin',
    summary: 'Duplicate a namespace',
    description:
      'Copies a consistent snapshot (taken on a read-only connection of its own while writes continue) into a new namespace with the same configuration. The copy is independent of its source. Answers with the new namespace record.',
    params: () => NamespaceParams,
    body: () => DuplicateNamespaceBody,
    responses: {
      201: { description: 'The new namespace.', schema: () => NamespaceRecord },
      404: NOT_FOUND,
      409: { description: 'The new name is taken (`namespace_exists`).' },
      507: { description: 'The disk holding the data folder is full (`disk_full`); nothing was created.' },
    },
    handler: async (ctx, { params, body }) => {
      ctx.state.namespace = params.ns;
      const rec = await svc.duplicate(params.ns, body.name, actorFor(ctx));
      ctx.status = 201;
      ctx.set('Location', `/v1/namespaces/${rec.name}`);
      return rec;
    },
  });

  api.route({
    method: 'get',
    path: '/v1/namespaces/:ns/export',
    operationId: 'exportNamespace',
    tags,
    access: 'admin',
    summary: 'Export the database file',
    description:
      'Streams a consistent snapshot of the database as a self-contained SQLite file (rollback-journal mode). `Content-Length` is set so clients can show progress.',
    params: () => NamespaceParams,
    responses: {
      200: { description: 'The database file.', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
      404: NOT_FOUND,
    },
    handler: async (ctx, { params }) => {
      ctx.state.namespace = params.ns;
      if (ctx.method === 'HEAD') {
        svc.get(params.ns);
        ctx.status = 200;
        ctx.type = 'application/octet-stream';
        ctx.set('Content-Disposition', `attachment; filename="${params.ns}.db"`);
        return;
      }
      const snap = await svc.exportSnapshot(params.ns, actorFor(ctx));
      const stream = fs.createReadStream(snap.file);
      let cleaned = false;
      const cleanup = () => {
        if (!cleaned) {
          cleaned = true;
          stream.destroy();
          snap.cleanup();
        }
      };
      stream.on('close', cleanup);
      ctx.res.on('close', cleanup);
      ctx.status = 200;
      ctx.type = 'application/octet-stream';
      ctx.length = snap.size;
      ctx.set('Content-Disposition', `attachment; filename="${params.ns}.db"`);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = stream;
    },
  });

  api.route({
    method: 'post',
    path: '/v1/namespaces/:ns/import',
    operationId: 'importNamespace',
    tags,
    access: 'admin',
    summary: 'Import a database file (or CSV rows into a table)',
    description:
      "Without `table`: the single multipart field `file` must hold a healthy SQLite database that fits `max_db_size`, saved in any journal mode (`wal`, `delete`, `truncate`, `persist`, `memory`, `off`); it then atomically replaces the namespace database, runs with the namespace's own configuration (its `journal_mode` included), and the answer is 200 with the updated namespace record. A failed import leaves the old database untouched. Parts up to 64 MiB are kept in memory, larger ones spill to a temporary file. With `table`: the file is CSV (header line = column names) and its rows are inserted in one transaction; every bad value and malformed line is reported and then nothing is imported: 400 `invalid_csv` with `details` `{total, shown, lines: [{line, column, reason}]}` listing the first 1,000 problems by line (`column` null when the whole line is wrong) and counting all of them.",
    params: () => NamespaceParams,
    query: () => ImportQuery,
    rawBody: { contentType: 'multipart/form-data', schema: () => ImportUpload, description: 'Exactly one field, `file`.' },
    responses: {
      200: { description: 'Imported; the updated namespace record (or, with `table`, the CSV import result).', schema: () => NamespaceRecord },
      400: {
        description:
          'Not exactly one `file` field, or not a healthy SQLite database (`invalid_request`, `invalid_database`); with `table`, a bad CSV file (`invalid_csv`, every refused line in `details`).',
      },
      404: NOT_FOUND,
      413: { description: 'The upload exceeds HEARTH_UPLOAD_LIMIT (`payload_too_large`).' },
      415: { description: 'Not multipart/form-data (`unsupported_media_type`).' },
      507: { description: 'The upload exceeds `max_db_size` (`quota_exceeded`), or the disk is full (`disk_full`); the old database stays.' },
    },
    handler: async (ctx, { params, query }) => {
      ctx.state.namespace = params.ns;
      const config = svc.config(params.ns);
      if (query.table !== undefined) {
        if (!deps.importTable) throw new HearthError('invalid_request', 'CSV import into a table is not available');
        return deps.importTable(ctx, params.ns, query.table);
      }
      const quota = config.max_db_size;
      const upload = await receiveSingleFile(ctx, {
        field: 'file',
        memoryLimit: deps.uploadMemoryLimit,
        maxBytes: quota === null ? deps.uploadLimit : Math.min(quota, deps.uploadLimit),
        tooLarge: () =>
          quota !== null && quota <= deps.uploadLimit
            ? new HearthError('quota_exceeded', `the upload exceeds the namespace quota max_db_size of ${quota} bytes`)
            : new HearthError('payload_too_large', `the upload exceeds the limit of ${deps.uploadLimit} bytes`),
        tmpDir: svc.tmpDir,
      });
      try {
        return await svc.importDatabase(params.ns, upload, actorFor(ctx));
      } finally {
        discardUpload(upload);
      }
    },
  });
}

export type ImportTableHandler = (ctx: import('../../core/http/app-context.ts').AppContext, ns: string, table: string) => Promise<unknown>;
