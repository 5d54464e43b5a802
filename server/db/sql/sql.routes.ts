import type { Api } from '../../core/http/api.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { NamespaceService } from '../namespaces/namespaces.service.ts';

/** Read-only SQL: `POST /v1/{ns}/query`. (Being built: see the helper's task.) */
export function createSqlService(_deps: { namespaces: NamespaceService; logger: Logger; dataDir: string }) {
  return {
    async close(): Promise<void> {},
  };
}
export type SqlService = ReturnType<typeof createSqlService>;

export function registerSqlRoutes(_api: Api, _deps: { namespaces: NamespaceService; sql: SqlService }): void {}
