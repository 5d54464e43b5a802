/**
 * Tenant reads in query processes. Turns a validated read — read-only SQL (`query`), a rows listing (`read`), a CSV
 * export (`export`) — into a job for the query pool (`sql.pool.ts`), which runs it in a child process on a
 * read-only connection (`sql.child.ts`) under the namespace's `query_timeout`, and turns the child's answer into the
 * response body or a HearthError.
 */
import type { Readable } from 'node:stream';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { NamespaceConfig } from '../namespaces/namespaces.schemas.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { ExportPlan, ReadOutcome, ReadPlan } from '../rows/read.ts';
import { type ExportStart, type JobBody, QueryPool } from './sql.pool.ts';
import type { RunFailed, SqlStatement } from './sql.protocol.ts';
import { MAX_RESULT_BYTES, MAX_ROWS, type QueryBody } from './sql.schemas.ts';

export interface SqlServiceDeps {
  namespaces: NamespaceService;
  logger: Logger;
  /** Query processes at most (default 4). */
  poolSize?: number;
  /** Jobs waiting for a free process at most (default 64); beyond it 503 `service_unavailable`. */
  queueLimit?: number;
  /** Resident set a query process may reach, in bytes (default 256 MiB). */
  memoryLimit?: number;
}

export interface QueryOutcome {
  /** The response body, JSON text. */
  body: string;
  rows: number;
  truncated: boolean;
}

/** The namespace a read runs in. */
export interface ReadTenant {
  ns: string;
  config: NamespaceConfig;
}

/**
 * Maps a failure of SQL the server built (a listing, an export) like a failure of the server's own connection:
 * the rows service passes its `readError`.
 */
export type ReadErrorMapper = (err: { code?: string; message: string }) => never;

export function createSqlService(deps: SqlServiceDeps) {
  const { namespaces, logger } = deps;
  const pool = new QueryPool({ logger, size: deps.poolSize, queueLimit: deps.queueLimit, memoryLimit: deps.memoryLimit });

  const currentFile = (ns: string): string => {
    const file = namespaces.handles.fileOf(ns);
    if (!file) throw new HearthError('namespace_not_found', `namespace ${quoteInput(ns)} does not exist`);
    return file;
  };

  function failure(f: RunFailed, batch: boolean, ns: string): HearthError {
    const at = f.index === null ? '' : batch ? `statements.${f.index}${f.where === 'params' ? '.params' : ''}: ` : f.where === 'params' ? 'params: ' : '';
    switch (f.code) {
      case 'invalid_sql':
      case 'not_read_only':
      case 'invalid_request':
      case 'invalid_filter':
        return new HearthError(f.code, `${at}${f.message}`);
      case 'busy':
        return new HearthError('service_unavailable', `${at}the database stayed locked past its busy timeout (${f.message}); try again`, {
          headers: { 'Retry-After': '1' },
        });
      default:
        logger.error({ ns, statement: f.index, reason: f.message }, 'read-only query failed inside the query process');
        return new HearthError('internal_error', 'internal error; the request id identifies it in the server log');
    }
  }

  /** A failure of a listing or an export: the rows service's own mapping, except what only a query process says. */
  function readFailure(f: RunFailed, ns: string, mapError: ReadErrorMapper): never {
    if (f.code === 'read_error') mapError({ code: f.sqliteCode, message: f.message });
    throw failure(f, false, ns);
  }

  /**
   * Sends a job for the namespace's current file; when the file was replaced (import) or removed since its path
   * was looked up, asks once more for the current path.
   */
  async function withCurrentFile<T>(ns: string, attempt: (file: string) => Promise<T>, failed: (t: T) => RunFailed | null): Promise<T> {
    let file = currentFile(ns);
    let out = await attempt(file);
    const f = failed(out);
    if (f?.code === 'file_gone') {
      const next = currentFile(ns);
      if (next !== file) {
        file = next;
        out = await attempt(file);
      }
      const again = failed(out);
      if (again?.code === 'file_gone') throw failure({ ...again, code: 'internal' }, false, ns);
    }
    return out;
  }

  const job = (tenant: ReadTenant, request: JobBody, signal?: AbortSignal) => ({ ns: tenant.ns, timeoutMs: tenant.config.query_timeout, signal, request });

  return {
    pool,

    /** Runs a validated query body (the read-only SQL endpoint) against the namespace's current database file. */
    async query(tenant: ReadTenant, body: QueryBody, opts: { signal?: AbortSignal } = {}): Promise<QueryOutcome> {
      const batch = body.statements !== undefined;
      const statements: SqlStatement[] = batch
        ? body.statements!.map((s) => ({ sql: s.sql, params: s.params ?? [] }))
        : [{ sql: body.sql!, params: body.params ?? [] }];
      const { reply } = await withCurrentFile(
        tenant.ns,
        async (file) => ({
          reply: await pool.run(
            job(
              tenant,
              { type: 'run', file, busyTimeout: tenant.config.busy_timeout, statements, batch, maxRows: MAX_ROWS, maxBytes: MAX_RESULT_BYTES },
              opts.signal,
            ),
          ),
        }),
        (r) => (r.reply.ok ? null : r.reply),
      );
      if (reply.ok) return { body: reply.body, rows: reply.rows, truncated: reply.truncated ?? false };
      throw failure(reply, batch, tenant.ns);
    },

    /** Runs a planned listing of the rows API. */
    async read(tenant: ReadTenant, plan: ReadPlan, opts: { signal?: AbortSignal; mapError: ReadErrorMapper }): Promise<ReadOutcome> {
      const { reply } = await withCurrentFile(
        tenant.ns,
        async (file) => ({ reply: await pool.run(job(tenant, { type: 'read', file, busyTimeout: tenant.config.busy_timeout, plan }, opts.signal)) }),
        (r) => (r.reply.ok ? null : r.reply),
      );
      if (!reply.ok) readFailure(reply, tenant.ns, opts.mapError);
      return { body: reply.body, rows: reply.rows, counts: reply.counts };
    },

    /**
     * Starts a planned CSV export; resolves with the stream of CSV rows once the first chunk is ready (so a failure
     * before it is still an error answer). `onEnd` learns how many rows were sent, before the stream ends.
     */
    async export(
      tenant: ReadTenant,
      plan: ExportPlan,
      opts: { signal?: AbortSignal; mapError: ReadErrorMapper; onEnd?: (rows: number) => void },
    ): Promise<Readable> {
      const { start } = await withCurrentFile(
        tenant.ns,
        async (file) => ({
          start: await pool.export(job(tenant, { type: 'export', file, busyTimeout: tenant.config.busy_timeout, plan }, opts.signal), opts.onEnd),
        }),
        (r: { start: ExportStart }) => (r.start.ok ? null : r.start.reply),
      );
      if (!start.ok) readFailure(start.reply, tenant.ns, opts.mapError);
      return start.stream;
    },

    async close(): Promise<void> {
      await pool.close();
    },
  };
}

export type SqlService = ReturnType<typeof createSqlService>;
