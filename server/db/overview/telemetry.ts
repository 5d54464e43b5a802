import type { Db, Migration } from '../../core/storage/platform-db.ts';
import type { Logger } from '../../core/logging/logger.ts';

export const telemetryMigrations: Migration[] = [];

/** One finished data-plane request, as the HTTP layer saw it. */
export interface RequestSample {
  ns: string;
  status: number;
  seconds: number;
  rowsRead: number;
  rowsWritten: number;
}

/** Bounded per-namespace telemetry rollups in platform.db. (Being built: see the helper's task.) */
export function createTelemetry(_deps: { platformDb: Db; logger: Logger }) {
  return {
    observe(_s: RequestSample): void {},
    forget(_ns: string): void {},
    start(): void {},
    close(): void {},
  };
}
export type Telemetry = ReturnType<typeof createTelemetry>;
