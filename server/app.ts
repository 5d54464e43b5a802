import Koa from 'koa';
import type { Api } from './core/http/api.ts';
import type { AppContext, AppMiddleware, AppState } from './core/http/app-context.ts';
import { plumbing } from './core/http/middleware.ts';
import { serveUi } from './core/http/static-ui.ts';
import type { Logger } from './core/logging/logger.ts';
import type { Metrics } from './core/metrics/metrics.ts';

/** Builds the Koa app from ready-made parts. It never listens by itself. */
export function buildApp(deps: {
  api: Api;
  logger: Logger;
  metrics: Metrics;
  uiDir: string;
  onFinished?: (ctx: AppContext, seconds: number) => void;
  /** Sends a request for a namespace held by another node there, before any route reads it. */
  forwarding?: AppMiddleware;
}): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  app.silent = true;
  app.use(plumbing({ logger: deps.logger, metrics: deps.metrics, onFinished: deps.onFinished }));
  if (deps.forwarding) app.use(deps.forwarding);
  app.use(deps.api.router.routes());
  app.use(deps.api.router.allowedMethods());
  app.use(serveUi(deps.uiDir));
  return app;
}
