/**
 * Read-only SQL over a namespace: turns a validated request into a job for the query pool (`sql.pool.ts`), which
 * runs it in a child process on a read-only connection (`sql.child.ts`), and turns the child's answer into the
 * response body or a HearthError.
 */
import { HearthError } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';
import type { NamespaceConfig } from '../namespaces/namespaces.schemas.ts';
import { QueryPool } from './sql.pool.ts';
import type { RunFailed, SqlStatement } from './sql.protocol.ts';
import { MAX_RESULT_BYTES, MAX_ROWS, type QueryBody } from './sql.schemas.ts';

export interface SqlServiceDeps {
  namespaces: NamespaceService;
  logger: Logger;
  dataDir: string;
  /** Query child processes at most (default 2). */
  poolSize?: number;
  /** Queries waiting for a free child at most (default 64); beyond it 503 `service_unavailable`. */
  queueLimit?: number;
}

export interface QueryOutcome {
  /** The response body, JSON text. */
  body: string;
  rows: number;
  truncated: boolean;
}

export function createSqlService(deps: SqlServiceDeps) {
  const { namespaces, logger } = deps;
  const pool = new QueryPool({ logger, size: deps.poolSize, queueLimit: deps.queueLimit });

  const currentFile = (ns: string): string => {
    const file = namespaces.handles.fileOf(ns);
    if (!file) throw new HearthError('namespace_not_found', `namespace ${JSON.stringify(ns)} does not exist`);
    return file;
  };

  function failure(f: RunFailed, batch: boolean, ns: string): HearthError {
    const at = f.index === null ? '' : batch ? `statements.${f.index}${f.where === 'params' ? '.params' : ''}: ` : f.where === 'params' ? 'params: ' : '';
    switch (f.code) {
      case 'invalid_sql':
      case 'not_read_only':
      case 'invalid_request':
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

  return {
    pool,

    /** Runs a validated query body against the namespace's current database file. */
    async query(
      tenant: { ns: string; config: NamespaceConfig },
      body: QueryBody,
      opts: { signal?: AbortSignal } = {},
    ): Promise<QueryOutcome> {
      const batch = body.statements !== undefined;
      const statements: SqlStatement[] = batch
        ? body.statements!.map((s) => ({ sql: s.sql, params: s.params ?? [] }))
        : [{ sql: body.sql!, params: body.params ?? [] }];
      let file = currentFile(tenant.ns);
      for (let attempt = 0; ; attempt++) {
        const reply = await pool.run({
          ns: tenant.ns,
          timeoutMs: tenant.config.query_timeout,
          signal: opts.signal,
          request: { file, busyTimeout: tenant.config.busy_timeout, statements, batch, maxRows: MAX_ROWS, maxBytes: MAX_RESULT_BYTES },
        });
        if (reply.ok) return { body: reply.body, rows: reply.rows, truncated: reply.truncated };
        if (reply.code === 'file_gone' && attempt === 0) {
          // The file was replaced (import) or removed (delete) since its path was looked up: ask again.
          const next = currentFile(tenant.ns);
          if (next !== file) {
            file = next;
            continue;
          }
        }
        throw failure(reply.code === 'file_gone' ? { ...reply, code: 'internal' } : reply, batch, tenant.ns);
      }
    },

    async close(): Promise<void> {
      await pool.close();
    },
  };
}

export type SqlService = ReturnType<typeof createSqlService>;
