/**
 * The types of a request's context: what every Koa middleware and route of the app sees (`AppState` on
 * `ctx.state`, `AppContext`, `AppMiddleware`), and the part of it a hot route may use (`HotContext`).
 */
import type Koa from 'koa';
import type { Principal } from '../auth/tokens.service.ts';
import type { Logger } from '../logging/logger.ts';

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

/**
 * The part of a request context a hot route may use (see `Api.hotRoute`): a Koa context is one, and so is the lean
 * context the hot dispatcher makes without Koa.
 */
export interface HotContext {
  readonly method: string;
  readonly path: string;
  readonly req: import('node:http').IncomingMessage;
  readonly res: import('node:http').ServerResponse;
  readonly state: Pick<AppState, 'requestId' | 'log' | 'principal' | 'namespace' | 'rowsRead' | 'rowsWritten'>;
  get(field: string): string;
  set(field: string, value: string): void;
  is(...types: string[]): string | false | null;
  status: number;
  body: unknown;
}
