import type Koa from 'koa';
import type { Logger } from '../logging/logger.ts';
import type { Principal } from '../auth/tokens.service.ts';

export interface AppState {
  requestId: string;
  log: Logger;
  principal?: Principal;
  /** Set by a data-plane or control-plane route so telemetry can attribute the request. */
  namespace?: string;
  /** Rows a data-plane request read and wrote (for namespace telemetry). */
  rowsRead?: number;
  rowsWritten?: number;
}

export type AppContext = Koa.ParameterizedContext<AppState>;
export type AppMiddleware = Koa.Middleware<AppState>;
